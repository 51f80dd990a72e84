#!/usr/bin/env python3
"""Thread scaling of Lazuli next to other engines, measured the same way in one run.

For each engine and each thread count (default 1 and 2), over the same positions (Lazuli's bench
positions, spread from openings to endgames), with a cleared hash before every position:

- speed: `go movetime T` per position; NPS = sum of nodes / sum of search times (from the
  engines' own `info nodes/time`). An engine's last `info` line may come well before the end of
  the time (Ethereal 12 and Stockfish 15.1 print none when stopped inside an iteration), so the
  table also gives the NPS of the time-to-depth searches ("nps x at depth"), whose last line
  ends the search for every engine;
- time to depth: `go depth D` per position (D per engine, so one thread needs about a second),
  `--repeat` times (a position's time is the mean of its runs); the speedup of N threads is the
  median over positions of wall time(1 thread) / wall time(N), also given as the geometric mean
  of those ratios with a 95% interval (normal approximation on the logarithms), as
  `lazuli scaling` reports it. Two engines whose intervals overlap are not told apart.

Engines run one at a time, so they never compete for the cores. A time-to-depth search that has
not reached the depth after `--time-cap` seconds is stopped and flagged; `--skip` leaves such a
position out for every engine (Ethereal 12 at 2 threads did not reach depth 18 within 12 minutes
in position 18 of the 24, `8/8/8/5N2/8/p7/8/2NK3k w`). Example:

    .venv/bin/python scripts/smp_compare.py --lazuli target/release/lazuli --positions 24
"""

import argparse
import math
import re
import statistics
import subprocess
import sys
import time

import chess
import chess.engine


def bench_positions(lazuli: str) -> list[str]:
    """The FENs of `lazuli bench` (its first lines name them)."""
    out = subprocess.run([lazuli, "bench", "1"], capture_output=True, text=True, check=True).stdout
    return [m.group(1).strip() for m in re.finditer(r"^position\s+\d+\s+nodes\s+\d+\s+(.+)$", out, re.M)]


def spread(fens: list[str], count: int, skip: set[int]) -> list[str]:
    """`count` positions spread evenly over `fens`, without the chosen ones whose 1-based numbers
    are in `skip`."""
    step = len(fens) / count
    return [fens[int(i * step)] for i in range(count) if i + 1 not in skip]


def parse_skip(text: str, count: int) -> set[int]:
    """The position numbers of `--skip` ("3,18"); ValueError names a bad one."""
    skip = set()
    for item in filter(None, (part.strip() for part in text.split(","))):
        if not item.isdigit() or not 1 <= int(item) <= count:
            raise ValueError(f"--skip takes position numbers from 1 to {count}, got {item!r}")
        skip.add(int(item))
    return skip


def configure(engine: chess.engine.SimpleEngine, threads: int, hash_mb: int, extra: dict) -> None:
    options = {"Hash": hash_mb, **extra}
    thread_option = "Threads"
    if thread_option in engine.options:
        options[thread_option] = threads
    for book in ("OwnBook", "Book"):
        if book in engine.options:
            options[book] = False
    engine.configure(options)


def geometric_mean_ci(ratios: list[float]) -> tuple[float, float, float]:
    """Geometric mean of `ratios` and its 95% interval (normal approximation on the logs)."""
    logs = [math.log(r) for r in ratios if r > 0]
    if not logs:
        return 0.0, 0.0, 0.0
    mean = statistics.fmean(logs)
    half = 1.96 * statistics.stdev(logs) / math.sqrt(len(logs)) if len(logs) > 1 else 0.0
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def measure(cmd: str | list[str], threads: int, fens: list[str], depth: int, movetime: float, hash_mb: int, extra: dict,
            repeat: int = 1, cap: float = 60.0) -> tuple[float, float, list[float], int]:
    """NPS, the NPS of the time-to-depth searches that reached their depth (0 if none did), the
    time to depth of every position, and how many positions hit the time cap."""
    engine = chess.engine.SimpleEngine.popen_uci(cmd)
    try:
        configure(engine, threads, hash_mb, extra)
        nodes = 0
        spent = 0.0
        for fen in fens:
            # A new `game` object makes python-chess send `ucinewgame` (cleared hash).
            info = engine.analyse(chess.Board(fen), chess.engine.Limit(time=movetime), game=object())
            nodes += info.get("nodes", 0)
            spent += info.get("time", movetime)
        nps = nodes / max(spent, 1e-9)
        times = []
        capped_positions = 0
        depth_nodes, depth_spent = 0, 0.0
        for number, fen in enumerate(fens, start=1):
            runs = []
            for _ in range(max(1, repeat)):
                game = object()
                engine.analyse(chess.Board(fen), chess.engine.Limit(depth=1), game=game)
                start = time.perf_counter()
                # `go depth D movetime CAP`: an engine that never reaches the depth is stopped.
                info = engine.analyse(chess.Board(fen), chess.engine.Limit(depth=depth, time=cap), game=game)
                runs.append(time.perf_counter() - start)
                if info.get("depth", 0) >= depth and info.get("time", 0) > 0:
                    depth_nodes += info.get("nodes", 0)
                    depth_spent += info["time"]
            times.append(statistics.fmean(runs))
            capped = "  (stopped at --time-cap: depth not reached)" if max(runs) >= cap else ""
            capped_positions += bool(capped)
            # Progress on stderr: a few positions can take minutes for some engines.
            print(f"  {threads} thread(s), position {number}/{len(fens)}: {times[-1]:.3f} s  {fen}{capped}",
                  file=sys.stderr, flush=True)
        depth_nps = depth_nodes / depth_spent if depth_spent > 0 else 0.0
        return nps, depth_nps, times, capped_positions
    finally:
        engine.quit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lazuli", default="target/release/lazuli")
    parser.add_argument("--ethereal", default="/usr/games/ethereal-chess")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--depth-lazuli", type=int, default=15)
    parser.add_argument("--depth-ethereal", type=int, default=15)
    parser.add_argument("--depth-stockfish", type=int, default=18)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--positions", type=int, default=24)
    parser.add_argument("--movetime", type=float, default=1.0)
    parser.add_argument("--hash", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=1,
                        help="time-to-depth runs per position and thread count (mean taken)")
    parser.add_argument("--lazuli-option", action="append", default=[], metavar="NAME=VALUE",
                        help="a UCI option for Lazuli, e.g. 'SMP Helpers=skip' (repeatable)")
    parser.add_argument("--engines", default="lazuli,ethereal,stockfish",
                        help="which engines to measure, comma-separated")
    parser.add_argument("--skip", default="",
                        help="chosen positions to leave out, 1-based and comma-separated (e.g. one that "
                             "stalls an engine)")
    parser.add_argument("--time-cap", type=float, default=60.0,
                        help="seconds after which a time-to-depth search is stopped and flagged")
    args = parser.parse_args()
    lazuli_options = {}
    for item in args.lazuli_option:
        name, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--lazuli-option needs NAME=VALUE, got {item!r}")
        value = value.strip()
        # python-chess takes a check option's value as a bool (any non-empty string is true).
        lazuli_options[name.strip()] = {"true": True, "false": False}.get(value.lower(), value)

    thread_counts = [int(t) for t in args.threads.split(",")]
    known = {
        "lazuli": (args.lazuli, args.depth_lazuli, lazuli_options),
        "ethereal": (args.ethereal, args.depth_ethereal, {}),
        "stockfish": (args.stockfish, args.depth_stockfish, {}),
    }
    chosen = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in chosen if e not in known]
    if unknown:
        parser.error(f"unknown engine(s) {unknown}; choose from {sorted(known)}")
    engines = [(name, *known[name]) for name in chosen]
    if args.positions < 1 or args.time_cap <= 0:
        parser.error("--positions must be at least 1 and --time-cap above 0")
    try:
        skip = parse_skip(args.skip, args.positions)
    except ValueError as error:
        parser.error(str(error))
    fens = spread(bench_positions(args.lazuli), args.positions, skip)
    if not fens:
        parser.error("--skip leaves no positions")
    if lazuli_options:
        print(f"lazuli options: {lazuli_options}")
    print(f"{len(fens)} positions, movetime {args.movetime}s for speed, hash {args.hash} MB, "
          f"{max(1, args.repeat)} time-to-depth run(s) per position")
    print(f"{'engine':10} {'threads':>7} {'nps':>12} {'nps x':>7} {'depth':>5} {'ttd med s':>9} "
          f"{'ttd x med':>9}  ttd x geomean [95%]  nps x at depth")
    for name, cmd, depth, extra in engines:
        base_nps, base_depth_nps, base_times = None, None, None
        for threads in thread_counts:
            print(f"measuring {name} with {threads} thread(s)...", file=sys.stderr)
            nps, depth_nps, times, capped = measure(cmd, threads, fens, depth, args.movetime, args.hash, extra,
                                                    args.repeat, args.time_cap)
            if base_nps is None:
                base_nps, base_depth_nps, base_times = nps, depth_nps, times
            speedups = [b / max(t, 1e-9) for b, t in zip(base_times, times)]
            geomean, low, high = geometric_mean_ci(speedups)
            depth_ratio = depth_nps / base_depth_nps if base_depth_nps else 0.0
            print(
                f"{name:10} {threads:>7} {nps:>12.0f} {nps / base_nps:>7.2f} {depth:>5} "
                f"{statistics.median(times):>9.3f} {statistics.median(speedups):>9.2f}  "
                f"{geomean:.2f} [{low:.2f}, {high:.2f}]  {depth_ratio:>14.2f}",
                flush=True,
            )
            if capped:
                # Their times are the cap, not a time to depth: the speedups above include them.
                print(f"  {name} at {threads} thread(s): {capped} position(s) stopped at --time-cap "
                      f"{args.time_cap:g} s without reaching depth {depth}; consider --skip", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
