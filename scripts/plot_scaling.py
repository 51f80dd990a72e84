#!/usr/bin/env python3
"""PNG charts of Lazy SMP thread scaling, from `lazuli scaling --json` or `--csv` files.

Three charts, each with one series per file (one per engine, machine or build), every series
labelled (`--label`, else the build named in a JSON file, else the file's name):

- ``<prefix>-nps.png``: nodes per second against threads, with the 95% interval over repeats
  where the file has one, and a dashed linear line (the first row's NPS per thread times threads);
- ``<prefix>-ttd.png``: the time-to-depth speedup over the first row: the median over positions,
  and the geometric mean with its 95% interval. No "ideal" line: Lazy SMP's helpers widen the
  search rather than reach the depth sooner, so time to depth understates them;
- ``<prefix>-overhead.png``: nodes to reach the depth over the first row's.

A JSON file is summarised here from its raw measurements (every timed search), the same way
`lazuli scaling` summarises them, so a figure can be audited and redrawn from the raw data;
`--csv-out` writes that summary as CSV. CSV files (`lazuli scaling --csv`, or
`scripts/smp_compare.py --csv-dir` for other engines) are drawn as they are. Example:

    target/release/lazuli scaling --threads 1,2 --repeat 3 --json scaling.json
    .venv/bin/python scripts/plot_scaling.py scaling.json --out-dir charts \\
        --note "2 cores, depth 16, 24 positions, 3 repeats"
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import statistics
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
    # 95% interval of the NPS over repeats (files with repeats only).
    nps_ci: Optional[Tuple[float, float]] = None


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
                nps_ci = None
                if record.get("nps_ci95_low"):
                    nps_ci = (float(record["nps_ci95_low"]), float(record["nps_ci95_high"]))
                rows.append(Row(
                    nps_ci=nps_ci,
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


# Two-sided 95% quantiles of Student's t by degrees of freedom, as `lazuli scaling` uses them
# (between rows the next smaller df).
T_975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t_975(df: int) -> float:
    if df <= 0:
        return math.inf
    if df <= 30:
        return T_975[df - 1]
    for limit, value in ((40, 2.042), (60, 2.021), (120, 2.000), (1000, 1.980)):
        if df < limit:
            return value
    return 1.960


def t_interval(values: Sequence[float]) -> Tuple[float, float, float]:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = t_975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def geometric_mean(ratios: Sequence[float]) -> Tuple[float, float, float]:
    logs = [math.log(r) for r in ratios if r > 0]
    if not logs:
        return 0.0, 0.0, 0.0
    mean, low, high = t_interval(logs)
    return math.exp(mean), math.exp(low), math.exp(high)


def summarize_json(data: dict) -> List[Row]:
    """The summary rows of a `lazuli scaling --json` file, computed from its raw runs."""
    threads = data["settings"]["threads"]
    repeats = data["settings"]["repeats"]
    positions = len(data["positions"])
    speed, depth = data["speed"], data["time_to_depth"]

    def nps_by_repeat(count: int) -> List[float]:
        result = []
        for repeat in range(repeats):
            runs = [r for r in speed if r["threads"] == count and r["repeat"] == repeat]
            result.append(sum(r["nodes"] for r in runs) / max(sum(r["time_ms"] for r in runs) / 1000, 1e-9))
        return result

    def ttd(count: int) -> List[float]:
        out = []
        for position in range(positions):
            times = [r["time_ms"] / 1000 for r in depth if r["threads"] == count and r["position"] == position]
            out.append(statistics.fmean(times) if times else 0.0)
        return out

    def nodes(count: int) -> int:
        return sum(r["nodes"] for r in depth if r["threads"] == count)

    base = threads[0]
    base_nps, base_ttd = nps_by_repeat(base), ttd(base)
    rows = []
    for count in threads:
        nps = nps_by_repeat(count)
        mean_nps, low, high = t_interval(nps)
        speedups = [b / max(t, 1e-9) for b, t in zip(base_ttd, ttd(count))]
        speedup = statistics.fmean(n / b for n, b in zip(nps, base_nps))
        rows.append(Row(threads=count, nps=mean_nps, nps_speedup=speedup,
                        ttd_speedup=statistics.median(speedups),
                        node_overhead=nodes(count) / max(nodes(base), 1),
                        ttd_total_ms=sum(ttd(count)) * 1000, ttd_geomean=geometric_mean(speedups),
                        nps_ci=(low, high)))
    return rows


def read_json(path: str, label: str) -> Series:
    """Reads one `lazuli scaling --json` file; raises ValueError if it is not one."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        if data.get("benchmark") != "lazuli scaling":
            raise ValueError("not written by `lazuli scaling --json`")
        rows = summarize_json(data)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, statistics.StatisticsError) as err:
        raise ValueError(f"{path}: {err}") from None
    if not label:
        label = data.get("machine", {}).get("build") or os.path.splitext(os.path.basename(path))[0]
    return Series(label, rows)


def read_series(path: str, label: str) -> Series:
    if path.endswith(".json"):
        return read_json(path, label)
    return read_csv(path, label or os.path.splitext(os.path.basename(path))[0])


def write_csv(path: str, series: Series) -> None:
    """The rows as `lazuli scaling --csv` writes them (the columns this script reads)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS + ("ttd_speedup_geomean", "ttd_ci95_low", "ttd_ci95_high",
                                   "nps_ci95_low", "nps_ci95_high"))
        for row in series.rows:
            geomean = row.ttd_geomean or (row.ttd_speedup,) * 3
            ci = row.nps_ci or (row.nps, row.nps)
            writer.writerow([row.threads, round(row.nps), round(row.nps_speedup, 3),
                             round(row.ttd_speedup, 3), round(row.node_overhead, 3),
                             round(row.ttd_total_ms), *(round(g, 3) for g in geomean),
                             *(round(c) for c in ci)])


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
        if any(row.nps_ci for row in series.rows):
            errors = [[(row.nps - row.nps_ci[0]) / 1e6 if row.nps_ci else 0 for row in series.rows],
                      [(row.nps_ci[1] - row.nps) / 1e6 if row.nps_ci else 0 for row in series.rows]]
            ax.errorbar(xs, ys, yerr=errors, fmt="none", ecolor=color, capsize=4, alpha=0.8,
                        label=_name(series, "95% interval over repeats"))
        ideal_x = _ideal_range(series)
        per_thread = series.base.nps / 1e6 / series.base.threads
        ax.plot(ideal_x, [per_thread * x for x in ideal_x], "--", color=color, alpha=0.6,
                label=_name(series, "ideal (linear)"))
        _annotate(ax, xs, ys, [f"{y:.2f}M ({row.nps_speedup:.2f}x)"
                               for y, row in zip(ys, series.rows)], index)
    _style_axes(ax, [t for s in all_series for t in s.threads()],
                "Thread scaling: nodes per second", "million nodes per second", note)
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
        _annotate(ax, xs, ys, [f"{y:.2f}x" for y in ys], index)
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":", label="no speedup")
    _style_axes(ax, [t for s in all_series for t in s.threads()],
                "Time to a fixed depth (understates Lazy SMP: helpers widen the tree)",
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
                "Thread scaling: node overhead to reach the same depth",
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
    p.add_argument("files", nargs="+",
                   help="`lazuli scaling --json` files, or CSV files (`lazuli scaling --csv`, "
                        "`smp_compare.py --csv-dir`)")
    p.add_argument("--label", action="append", default=[],
                   help="legend label of each file, in order (default: the build a JSON file "
                        "names, else the file's name)")
    p.add_argument("--csv-out", default=None,
                   help="write the first file's summary here as CSV (from a JSON file: recomputed "
                        "from its raw measurements)")
    p.add_argument("--out-dir", default=".", help="directory for the PNG files")
    p.add_argument("--prefix", default="scaling", help="file names: PREFIX-nps.png, ...")
    p.add_argument("--note", default=None,
                   help="second title line, e.g. the machine and the benchmark settings")
    return p.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    if len(args.label) > len(args.files):
        print("plot_scaling.py: more --label than files", file=sys.stderr)
        return 1
    labels = args.label + [""] * (len(args.files) - len(args.label))
    try:
        all_series = [read_series(path, label) for path, label in zip(args.files, labels)]
    except (OSError, ValueError) as err:
        print(f"plot_scaling.py: {err}", file=sys.stderr)
        return 1
    if args.csv_out:
        write_csv(args.csv_out, all_series[0])
        print(f"wrote {args.csv_out}")
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
