#!/usr/bin/env python3
"""PNG charts of Lazy SMP thread scaling from the CSV that `lazuli scaling --csv FILE` writes.

Three charts, each with one line per CSV file (for instance one per machine or per build):

- ``<prefix>-nps.png``: nodes per second against threads, with the ideal linear line
  (the first row's NPS times threads / first row's threads);
- ``<prefix>-ttd.png``: time-to-depth speedup (median over positions) against threads, with the
  ideal line (speedup = threads / first row's threads);
- ``<prefix>-overhead.png``: node overhead (nodes to reach the depth over the first row's
  nodes) against threads, with the line of no overhead.

`lazuli scaling` computes speedups and overhead relative to its first row, normally one thread.
Example:

    target/release/lazuli scaling --threads 1,2 --depth 14 --positions 24 --csv scaling.csv
    .venv/bin/python scripts/plot_scaling.py scaling.csv --out-dir charts \\
        --note "2 cores, depth 14, 24 positions"
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")  # files only, no display needed

import matplotlib.pyplot as plt  # noqa: E402

COLUMNS = ("threads", "nps", "nps_speedup", "ttd_speedup_median", "node_overhead", "ttd_total_ms")


@dataclass(frozen=True)
class Row:
    threads: int
    nps: float
    nps_speedup: float
    ttd_speedup: float
    node_overhead: float
    ttd_total_ms: float
    # Geometric mean of the time-to-depth speedups and its 95% interval (CSV files of older
    # versions do not have them).
    ttd_geomean: Optional[Tuple[float, float, float]] = None


@dataclass(frozen=True)
class Series:
    label: str
    rows: List[Row]  # in file order; the first row is the reference of the speedups

    @property
    def base(self) -> Row:
        return self.rows[0]

    def threads(self) -> List[int]:
        return [row.threads for row in self.rows]


def read_csv(path: str, label: str) -> Series:
    """Reads one `lazuli scaling` CSV; raises ValueError with the reason if it is not one."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = [name for name in COLUMNS if name not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path}: not a `lazuli scaling` CSV (missing {', '.join(missing)})")
        rows = []
        for number, record in enumerate(reader, start=2):
            try:
                geomean = None
                if record.get("ttd_speedup_geomean"):
                    geomean = (float(record["ttd_speedup_geomean"]), float(record["ttd_ci95_low"]),
                               float(record["ttd_ci95_high"]))
                rows.append(Row(
                    threads=int(record["threads"]),
                    nps=float(record["nps"]),
                    nps_speedup=float(record["nps_speedup"]),
                    ttd_speedup=float(record["ttd_speedup_median"]),
                    node_overhead=float(record["node_overhead"]),
                    ttd_total_ms=float(record["ttd_total_ms"]),
                    ttd_geomean=geomean,
                ))
            except (TypeError, ValueError) as err:
                raise ValueError(f"{path}:{number}: bad value ({err})") from None
    if not rows:
        raise ValueError(f"{path}: no data rows")
    if any(row.threads < 1 for row in rows):
        raise ValueError(f"{path}: thread counts must be at least 1")
    return Series(label, rows)


def _style_axes(ax, all_threads: Sequence[int], title: str, ylabel: str,
                note: Optional[str]) -> None:
    ticks = sorted(set(all_threads))
    ax.set_xticks(ticks)
    ax.set_xlim(0.5, max(ticks) + 0.8 if len(ticks) > 1 else ticks[0] + 1.5)
    ax.set_xlabel("search threads")
    ax.set_ylabel(ylabel)
    ax.set_title(title if not note else f"{title}\n{note}", fontsize=11)
    ax.grid(True, alpha=0.3)
    # Room above the data for the legend: about one line of legend per 7% of the height.
    entries = len(ax.get_legend_handles_labels()[1])
    ax.set_ylim(0, ax.get_ylim()[1] * (1.1 + 0.07 * entries))
    ax.legend(loc="upper left", fontsize=9)


def _annotate(ax, xs: Sequence[float], ys: Sequence[float], texts: Sequence[str],
              index: int) -> None:
    """Values beside the points; series are staggered downwards so their labels do not overlap."""
    for x, y, text in zip(xs, ys, texts):
        ax.annotate(text, (x, y), textcoords="offset points", xytext=(8, -14 - 12 * index),
                    fontsize=8, color=f"C{index}",
                    bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.85))


def _name(series: Series, what: str) -> str:
    return f"{series.label}: {what}" if series.label else what


def _reference(all_series: Sequence[Series]) -> str:
    """What the speedups are relative to, for the axis labels."""
    return "1 thread" if all(s.base.threads == 1 for s in all_series) else "the first row"


def _ideal_range(series: Series) -> List[float]:
    """x values from the reference row's threads to the largest thread count."""
    low, high = series.base.threads, max(series.threads())
    return [low, high] if high > low else [low, low + 1]


def plot_nps(all_series: Sequence[Series], path: str, note: Optional[str]) -> None:
    fig, ax = plt.subplots(figsize=(7, 4.6))
    for index, series in enumerate(all_series):
        color = f"C{index}"
        xs, ys = series.threads(), [row.nps / 1e6 for row in series.rows]
        ax.plot(xs, ys, "o-", color=color, linewidth=2, label=_name(series, "measured"))
        ideal_x = _ideal_range(series)
        per_thread = series.base.nps / 1e6 / series.base.threads
        ax.plot(ideal_x, [per_thread * x for x in ideal_x], "--", color=color, alpha=0.6,
                label=_name(series, "ideal (linear)"))
        _annotate(ax, xs, ys, [f"{y:.2f}M ({row.nps_speedup:.2f}x)"
                               for y, row in zip(ys, series.rows)], index)
    _style_axes(ax, [t for s in all_series for t in s.threads()],
                "Lazuli thread scaling: nodes per second", "million nodes per second", note)
    _save(fig, path)


def plot_ttd(all_series: Sequence[Series], path: str, note: Optional[str]) -> None:
    fig, ax = plt.subplots(figsize=(7, 4.6))
    for index, series in enumerate(all_series):
        color = f"C{index}"
        xs, ys = series.threads(), [row.ttd_speedup for row in series.rows]
        ax.plot(xs, ys, "o-", color=color, linewidth=2, label=_name(series, "measured (median)"))
        with_interval = [(row.threads, row.ttd_geomean) for row in series.rows if row.ttd_geomean]
        if with_interval:
            gx = [t + 0.08 for t, _ in with_interval]  # beside the median point, not on it
            gy = [g[0] for _, g in with_interval]
            errors = [[g[0] - g[1] for _, g in with_interval], [g[2] - g[0] for _, g in with_interval]]
            ax.errorbar(gx, gy, yerr=errors, fmt="s", color=color, alpha=0.7, capsize=4,
                        markersize=4, label=_name(series, "geometric mean, 95% interval"))
        ideal_x = _ideal_range(series)
        base = series.base.threads
        ax.plot(ideal_x, [x / base for x in ideal_x], "--", color=color, alpha=0.6,
                label=_name(series, "ideal (linear)"))
        _annotate(ax, xs, ys, [f"{y:.2f}x" for y in ys], index)
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":", label="no speedup")
    _style_axes(ax, [t for s in all_series for t in s.threads()],
                "Lazuli thread scaling: time-to-depth speedup",
                f"speedup over {_reference(all_series)} (median over positions)", note)
    _save(fig, path)


def plot_overhead(all_series: Sequence[Series], path: str, note: Optional[str]) -> None:
    fig, ax = plt.subplots(figsize=(7, 4.6))
    for index, series in enumerate(all_series):
        color = f"C{index}"
        xs, ys = series.threads(), [row.node_overhead for row in series.rows]
        ax.plot(xs, ys, "o-", color=color, linewidth=2, label=_name(series, "measured"))
        _annotate(ax, xs, ys, [f"{y:.2f}x" for y in ys], index)
    ax.axhline(1.0, color="grey", linewidth=1.2, linestyle="--", label="no overhead")
    _style_axes(ax, [t for s in all_series for t in s.threads()],
                "Lazuli thread scaling: node overhead to reach the same depth",
                f"nodes to depth / nodes with {_reference(all_series)}", note)
    _save(fig, path)


def _save(fig, path: str) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Charts (PNG) of `lazuli scaling` CSV files: NPS, time-to-depth speedup and "
                    "node overhead against threads.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("csv", nargs="+", help="CSV files written by `lazuli scaling --csv`")
    p.add_argument("--label", action="append", default=[],
                   help="legend label of each CSV, in order (default: the file name when there are "
                        "several)")
    p.add_argument("--out-dir", default=".", help="directory for the PNG files")
    p.add_argument("--prefix", default="scaling", help="file names: PREFIX-nps.png, ...")
    p.add_argument("--note", default=None,
                   help="second title line, e.g. the machine and the benchmark settings")
    return p.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    if len(args.label) > len(args.csv):
        print("plot_scaling.py: more --label than CSV files", file=sys.stderr)
        return 1
    # One unlabelled CSV needs no name in the legend; several are told apart by file name.
    default_names = [os.path.splitext(os.path.basename(path))[0] if len(args.csv) > 1 else ""
                     for path in args.csv]
    labels = args.label + default_names[len(args.label):]
    try:
        all_series = [read_csv(path, label) for path, label in zip(args.csv, labels)]
    except (OSError, ValueError) as err:
        print(f"plot_scaling.py: {err}", file=sys.stderr)
        return 1
    os.makedirs(args.out_dir, exist_ok=True)
    outputs = []
    for suffix, plot in (("nps", plot_nps), ("ttd", plot_ttd), ("overhead", plot_overhead)):
        path = os.path.join(args.out_dir, f"{args.prefix}-{suffix}.png")
        plot(all_series, path, args.note)
        outputs.append(path)
    for path in outputs:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
