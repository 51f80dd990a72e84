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

With `--pgn`, the positions are sampled from games instead (`--plies`, `--every`, `--seed`), so
the time to depth can be measured over hundreds of positions like those met in play, at the depths
the engines reach in games. With `--judge`, a reference engine then scores the moves each engine
played at its depth (MultiPV over just those moves): for each thread count against the first, how
often the move changed and by how many centipawns it got better or worse, averaged over all
positions (0 where the move did not change) with a 95% interval. This asks whether a second
thread makes an iteration of the same depth better, engine by engine, far more cheaply than
fixed-depth games. `--movetime 0` leaves the speed pass out.

Engines run one at a time, so they never compete for the cores. A time-to-depth search that has
not reached the depth after `--time-cap` seconds is stopped and flagged; `--skip` leaves such a
position out for every engine (Ethereal 12 at 2 threads did not reach depth 18 within 12 minutes
in position 18 of the 24, `8/8/8/5N2/8/p7/8/2NK3k w`). Example:

    .venv/bin/python scripts/smp_compare.py --lazuli target/release/lazuli --positions 24
    .venv/bin/python scripts/smp_compare.py --pgn games.pgn --positions 300 --movetime 0 \
        --depth-lazuli 18 --depth-ethereal 16 --depth-stockfish 20 --judge /usr/games/stockfish
"""

import argparse
import csv
import math
import os
import random
import re
import statistics
import subprocess
import sys
import time

from dataclasses import dataclass, field

import chess
import chess.engine
import chess.pgn

# Reference scores are clipped here, so that one mate does not outweigh every other position.
MATE_CP = 1000


def sample_positions(paths, first_ply, last_ply, every, limit, seed):
    """Distinct positions (FEN) from the games' main lines, every `every` plies in a range."""
    seen, fens = set(), []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                board = game.board()
                for ply, move in enumerate(game.mainline_moves()):
                    board.push(move)
                    if first_ply <= ply + 1 <= last_ply and (ply + 1) % every == 0:
                        key = board.epd()
                        if key not in seen and not board.is_game_over():
                            seen.add(key)
                            fens.append(board.fen())
    random.Random(seed).shuffle(fens)
    return fens[:limit]


def judge(engine, board, moves, limit):
    """Reference scores (centipawns, side to move, mates clipped) of `moves` in `board`."""
    infos = engine.analyse(board, limit, multipv=len(moves), root_moves=moves)
    scores = {}
    for info in infos:
        if info.get("pv"):
            score = info.get("score")
            cp = score.pov(board.turn).score(mate_score=100_000) if score else 0
            scores[info["pv"][0]] = max(-MATE_CP, min(MATE_CP, cp))
    return scores


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


CSV_COLUMNS = ("threads", "nps", "nps_speedup", "ttd_speedup_median", "node_overhead", "ttd_total_ms",
               "ttd_speedup_geomean", "ttd_ci95_low", "ttd_ci95_high")


def csv_row(threads: int, m: "Measurement", base: "Measurement") -> tuple:
    """One row of `--csv-dir`, relative to `base` (the first thread count) as `lazuli scaling`
    computes it; the NPS is the speed pass's, or the time-to-depth searches' without it."""
    nps, base_nps = (m.nps, base.nps) if base.nps else (m.depth_nps, base.depth_nps)
    speedups = [b / max(t, 1e-9) for b, t in zip(base.times, m.times)]
    geomean, low, high = geometric_mean_ci(speedups)
    return (threads, round(nps), round(nps / base_nps, 3) if base_nps else 0.0,
            round(statistics.median(speedups), 3),
            round(m.depth_nodes / base.depth_nodes, 3) if base.depth_nodes else 0.0,
            round(sum(m.times) * 1000), round(geomean, 3), round(low, 3), round(high, 3))


def write_csv(path: str, rows: list[tuple]) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        writer.writerows(rows)


@dataclass
class Measurement:
    """What `measure` found for one engine at one thread count."""
    # Nodes per second at `go movetime` (0 when the speed pass was left out).
    nps: float
    # Nodes per second of the time-to-depth searches that reached their depth (0 if none did).
    depth_nps: float
    # Time to depth of every position (mean of its runs).
    times: list[float]
    # Nodes of the time-to-depth searches that reached their depth (their last `info`).
    depth_nodes: int
    # How many positions hit the time cap.
    capped: int
    # The move each position's first time-to-depth search played.
    moves: list[chess.Move | None] = field(default_factory=list)


def measure(cmd: str | list[str], threads: int, fens: list[str], depth: int, movetime: float, hash_mb: int, extra: dict,
            repeat: int = 1, cap: float = 60.0) -> Measurement:
    """Speed at `go movetime` (left out when `movetime` is 0) and time to `depth` per position."""
    engine = chess.engine.SimpleEngine.popen_uci(cmd)
    try:
        configure(engine, threads, hash_mb, extra)
        nodes = 0
        spent = 0.0
        for fen in fens if movetime > 0 else []:
            # A new `game` object makes python-chess send `ucinewgame` (cleared hash).
            info = engine.analyse(chess.Board(fen), chess.engine.Limit(time=movetime), game=object())
            nodes += info.get("nodes", 0)
            spent += info.get("time", movetime)
        nps = nodes / spent if spent > 0 else 0.0
        times, moves = [], []
        capped_positions = 0
        depth_nodes, depth_spent = 0, 0.0
        for number, fen in enumerate(fens, start=1):
            runs = []
            for _ in range(max(1, repeat)):
                game = object()
                engine.analyse(chess.Board(fen), chess.engine.Limit(depth=1), game=game)
                start = time.perf_counter()
                # `go depth D movetime CAP`: an engine that never reaches the depth is stopped.
                played = engine.play(chess.Board(fen), chess.engine.Limit(depth=depth, time=cap), game=game,
                                     info=chess.engine.INFO_BASIC)
                runs.append(time.perf_counter() - start)
                info = played.info
                if len(runs) == 1:
                    moves.append(played.move)
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
        return Measurement(nps, depth_nps, times, depth_nodes, capped_positions, moves)
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
    parser.add_argument("--pgn", nargs="+", default=[],
                        help="take the positions from these games instead of the bench positions")
    parser.add_argument("--plies", default="16-120", help="with --pgn: the ply range to sample (default 16-120)")
    parser.add_argument("--every", type=int, default=5, help="with --pgn: every Nth ply (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="with --pgn: the sampling seed (default 1)")
    parser.add_argument("--csv-dir", help="also write <DIR>/<engine>.csv in the columns of `lazuli scaling --csv` "
                        "(scripts/plot_scaling.py draws them)")
    parser.add_argument("--judge", help="a reference engine to score the moves played at the depth")
    parser.add_argument("--judge-depth", type=int, default=20)
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
    if args.pgn:
        try:
            first, last = (int(x) for x in args.plies.split("-"))
        except ValueError:
            parser.error(f"--plies takes FIRST-LAST, got {args.plies!r}")
        sampled = sample_positions(args.pgn, first, last, args.every, args.positions, args.seed)
        fens = [fen for n, fen in enumerate(sampled, start=1) if n not in skip]
    else:
        fens = spread(bench_positions(args.lazuli), args.positions, skip)
    if not fens:
        parser.error("no positions: --skip leaves none or the games hold none in --plies")
    if lazuli_options:
        print(f"lazuli options: {lazuli_options}")
    print(f"{len(fens)} positions, movetime {args.movetime}s for speed, hash {args.hash} MB, "
          f"{max(1, args.repeat)} time-to-depth run(s) per position")
    print(f"{'engine':10} {'threads':>7} {'nps':>12} {'nps x':>7} {'depth':>5} {'ttd med s':>9} "
          f"{'ttd x med':>9}  ttd x geomean [95%]  nps x at depth")
    played: dict[tuple[str, int], list[chess.Move | None]] = {}
    for name, cmd, depth, extra in engines:
        base = None
        rows = []
        for threads in thread_counts:
            print(f"measuring {name} with {threads} thread(s)...", file=sys.stderr)
            m = measure(cmd, threads, fens, depth, args.movetime, args.hash, extra, args.repeat, args.time_cap)
            played[(name, threads)] = m.moves
            base = base or m
            speedups = [b / max(t, 1e-9) for b, t in zip(base.times, m.times)]
            geomean, low, high = geometric_mean_ci(speedups)
            nps_ratio = m.nps / base.nps if base.nps else 0.0
            depth_ratio = m.depth_nps / base.depth_nps if base.depth_nps else 0.0
            rows.append(csv_row(threads, m, base))
            print(
                f"{name:10} {threads:>7} {m.nps:>12.0f} {nps_ratio:>7.2f} {depth:>5} "
                f"{statistics.median(m.times):>9.3f} {statistics.median(speedups):>9.2f}  "
                f"{geomean:.2f} [{low:.2f}, {high:.2f}]  {depth_ratio:>14.2f}",
                flush=True,
            )
            if m.capped:
                # Their times are the cap, not a time to depth: the speedups above include them.
                print(f"  {name} at {threads} thread(s): {m.capped} position(s) stopped at --time-cap "
                      f"{args.time_cap:g} s without reaching depth {depth}; consider --skip", flush=True)
        if args.csv_dir:
            write_csv(os.path.join(args.csv_dir, f"{name}.csv"), rows)
    if args.judge:
        scores = judge_positions(args.judge, fens, list(played.values()), args.judge_depth)
        print(f"moves played at the depth, scored by {args.judge} at depth {args.judge_depth} (centipawns for "
              f"the side to move, mates as +-{MATE_CP}); each thread count against {thread_counts[0]}:")
        print(f"{'engine':10} {'threads':>7} {'changed':>8}  mean over all positions [95%]  mean over changed")
        for name, _, _, _ in engines:
            for threads in thread_counts[1:]:
                changed, diffs = move_quality(scores, played[(name, thread_counts[0])], played[(name, threads)])
                mean, low, high = mean_ci(diffs)
                over_changed = statistics.fmean(changed) if changed else 0.0
                print(f"{name:10} {threads:>7} {len(changed):>8}  {mean:+.1f} [{low:+.1f}, {high:+.1f}]"
                      f"{'':>14}{over_changed:+.1f}", flush=True)
    return 0


def judge_positions(cmd: str, fens: list[str], played: list[list[chess.Move | None]],
                    depth: int) -> list[dict[chess.Move, int]]:
    """The reference engine's score of every move played in each position (none where every
    search played the same move: there is nothing to compare)."""
    scores = []
    with chess.engine.SimpleEngine.popen_uci(cmd) as engine:
        configure(engine, 1, 64, {})
        for n, fen in enumerate(fens):
            moves = sorted({m[n] for m in played if m[n] is not None}, key=lambda mv: mv.uci())
            if len(moves) < 2:
                scores.append({})
                continue
            scores.append(judge(engine, chess.Board(fen), moves, chess.engine.Limit(depth=depth)))
            print(f"  judged position {n + 1}/{len(fens)}: {scores[-1]}", file=sys.stderr, flush=True)
    return scores


def move_quality(scores: list[dict[chess.Move, int]], base: list[chess.Move | None],
                 other: list[chess.Move | None]) -> tuple[list[int], list[int]]:
    """Score of `other`'s move minus `base`'s in every judged position: (where the moves differ,
    everywhere, with 0 where they agree)."""
    changed, diffs = [], []
    for judged, a, b in zip(scores, base, other):
        if a == b and a is not None:
            diffs.append(0)
        elif a in judged and b in judged:
            changed.append(judged[b] - judged[a])
            diffs.append(changed[-1])
    return changed, diffs


def mean_ci(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% interval (normal approximation)."""
    if not values:
        return 0.0, 0.0, 0.0
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, mean - half, mean + half


if __name__ == "__main__":
    sys.exit(main())
