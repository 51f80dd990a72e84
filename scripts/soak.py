#!/usr/bin/env python3
"""An analysis session as a GUI plays it, for an hour or more, with a report at the end.

Two parts, one engine process:
1. Long analysis: `go infinite` with MultiPV on each position in turn (the minutes shared
   between them), then `stop`.
2. Stepping through a game: `position` at a random ply of a game the engine first plays against
   itself, `go infinite`, `stop` after a random short time; many times.

Measured throughout: every `bestmove` legal in the position it answers; the time from `stop` to
`bestmove`; the engine's resident memory (it must stop growing once the table is full); the rate
of `info` lines (GUIs hang on engines that flood them); the depth of each long analysis (it must
still rise late in the search). Exits 1 when a check fails. Example:

    python3 scripts/soak.py --engine target/release/lazuli --minutes 60 --steps 1000 --out soak.json
"""

import argparse
import json
import queue
import random
import statistics
import subprocess
import sys
import threading
import time

import chess

POSITIONS = [
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r2q1rk1/pp2bppp/2n1bn2/3p4/3P4/2NBBN2/PP3PPP/R2Q1RK1 w - - 0 11",
    "8/2k5/3p4/p2P1p2/P2P1P2/8/3K4/8 w - - 0 1",
    "r1b2rk1/2q1bppp/p2p1n2/np2p3/3PP3/5N1P/PPB2PP1/RNBQR1K1 w - - 0 12",
]


class Engine:
    def __init__(self, path: str):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put((time.monotonic(), line.rstrip("\n")))
        self.lines.put((time.monotonic(), None))

    def send(self, text: str) -> float:
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()
        return time.monotonic()

    def until(self, prefix: str, timeout: float, seen: list | None = None) -> tuple[float, str]:
        deadline = time.monotonic() + timeout
        while True:
            try:
                at, line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError(f"no '{prefix}' within {timeout} s")
            if line is None:
                raise RuntimeError("the engine closed its output")
            if seen is not None:
                seen.append((at, line))
            if line.startswith(prefix):
                return at, line

    def rss_mb(self) -> float:
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0


def field(line: str, name: str) -> str | None:
    words = line.split()
    return words[words.index(name) + 1] if name in words else None


def check_bestmove(line: str, board: chess.Board, problems: list, where: str):
    move = line.split()[1]
    try:
        legal = chess.Move.from_uci(move) in board.legal_moves
    except ValueError:
        legal = False
    if not legal:
        problems.append(f"{where}: bestmove {move} is not legal in {board.fen()}")


def analyse(engine: Engine, fen: str, seconds: float, report: dict, problems: list):
    board = chess.Board(fen)
    engine.send(f"position fen {fen}")
    start = engine.send("go infinite")
    seen: list = []
    depths = []  # (elapsed, depth) of each new depth
    next_sample = start
    while time.monotonic() - start < seconds:
        try:
            at, line = engine.lines.get(timeout=1.0)
        except queue.Empty:
            line = ""
            at = time.monotonic()
        if line is None:
            raise RuntimeError("the engine closed its output")
        if line:
            seen.append((at, line))
            if line.startswith("bestmove"):
                problems.append(f"{fen}: bestmove before stop during go infinite")
            depth = field(line, "depth")
            if line.startswith("info") and depth and field(line, "multipv") in (None, "1") and " pv " in line:
                if not depths or int(depth) > depths[-1][1]:
                    depths.append((at - start, int(depth)))
        if at >= next_sample:
            report["rss"].append((round(at - report["t0"], 1), round(engine.rss_mb(), 1)))
            next_sample = at + 5
    stop_at = engine.send("stop")
    at, line = engine.until("bestmove", 10, seen)
    report["stop_ms"].append((at - stop_at) * 1000)
    check_bestmove(line, board, problems, fen)
    # The first seconds race through the shallow depths; what matters is the rate once the
    # search is deep, where a flood would last.
    counts: dict[int, int] = {}
    for at, text in seen:
        if text.startswith("info") and at - start >= 3:
            counts[int(at - start)] = counts.get(int(at - start), 0) + 1
    depth_at = lambda share: max([d for t, d in depths if t <= seconds * share] or [0])  # noqa: E731
    entry = {
        "fen": fen,
        "seconds": round(seconds),
        "depth_at_quarter_half_three_quarters_end": [depth_at(0.25), depth_at(0.5), depth_at(0.75), depth_at(1.0)],
        "last_new_depth_after_s": round(depths[-1][0]) if depths else None,
        "info_lines": sum(counts.values()),
        "max_info_lines_per_second": max(counts.values() or [0]),
    }
    report["analyses"].append(entry)
    if seconds >= 60 and depth_at(1.0) <= depth_at(0.5):
        problems.append(f"{fen}: depth did not rise in the second half ({entry['depth_at_quarter_half_three_quarters_end']})")


def self_play_game(engine: Engine, plies: int) -> list[str]:
    board = chess.Board()
    moves: list[str] = []
    while len(moves) < plies and not board.is_game_over():
        engine.send("position startpos moves " + " ".join(moves) if moves else "position startpos")
        engine.send("go nodes 3000")
        _, line = engine.until("bestmove", 30)
        move = line.split()[1]
        board.push_uci(move)
        moves.append(move)
    return moves


def step_through(engine: Engine, steps: int, rng: random.Random, report: dict, problems: list):
    game = self_play_game(engine, 120)
    for step in range(steps):
        ply = rng.randrange(len(game))
        board = chess.Board()
        for move in game[:ply]:
            board.push_uci(move)
        if board.is_game_over():
            continue
        engine.send("position startpos moves " + " ".join(game[:ply]) if ply else "position startpos")
        engine.send("go infinite")
        time.sleep(rng.uniform(0.005, 0.3))
        stop_at = engine.send("stop")
        seen: list = []
        at, line = engine.until("bestmove", 10, seen)
        report["stop_ms"].append((at - stop_at) * 1000)
        check_bestmove(line, board, problems, f"step {step} (ply {ply})")
        if step % 50 == 0:
            report["rss"].append((round(at - report["t0"], 1), round(engine.rss_mb(), 1)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", required=True)
    parser.add_argument("--minutes", type=float, default=60, help="long analysis, shared between the positions")
    parser.add_argument("--steps", type=int, default=1000, help="quick searches stepping through a game")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--hash", type=int, default=4096)
    parser.add_argument("--multipv", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-info-per-second", type=int, default=100, help="after the first 3 s of a search")
    parser.add_argument("--out", help="write the report here as JSON")
    args = parser.parse_args()

    engine = Engine(args.engine)
    report: dict = {"t0": time.monotonic(), "rss": [], "stop_ms": [], "analyses": [], "settings": vars(args)}
    problems: list[str] = []
    engine.send("uci")
    engine.until("uciok", 10)
    for name, value in [("Threads", args.threads), ("Hash", args.hash), ("MultiPV", args.multipv)]:
        engine.send(f"setoption name {name} value {value}")
    engine.send("isready")
    engine.until("readyok", 60)
    for fen in POSITIONS:
        analyse(engine, fen, args.minutes * 60 / len(POSITIONS), report, problems)
    engine.send("setoption name MultiPV value 1")
    step_through(engine, args.steps, random.Random(args.seed), report, problems)
    engine.send("quit")
    engine.proc.wait(timeout=10)

    stops = sorted(report["stop_ms"])
    rss = [mb for _, mb in report["rss"]]
    # Once the table's memory is all in use, the process must not keep growing.
    full_mb = args.hash + 200
    after_full = [mb for mb in rss if mb >= 0.9 * args.hash]
    summary = {
        "stops": len(stops),
        "stop_ms_median": round(statistics.median(stops), 2) if stops else None,
        "stop_ms_p99": round(stops[int(0.99 * (len(stops) - 1))], 2) if stops else None,
        "stop_ms_worst": round(stops[-1], 2) if stops else None,
        "rss_mb_first_last_max": [rss[0], rss[-1], max(rss)] if rss else None,
        "rss_samples_after_table_full": len(after_full),
        "max_info_lines_per_second": max([a["max_info_lines_per_second"] for a in report["analyses"]] or [0]),
        "problems": problems,
    }
    if rss and max(rss) > full_mb:
        problems.append(f"resident memory reached {max(rss):.0f} MB, beyond the table and {full_mb - args.hash} MB")
    if summary["max_info_lines_per_second"] > args.max_info_per_second:
        problems.append(f"{summary['max_info_lines_per_second']} info lines in one second")
    if stops and stops[-1] > 100:
        problems.append(f"a stop took {stops[-1]:.1f} ms")
    report["summary"] = summary
    del report["t0"]
    if args.out:
        with open(args.out, "w") as out:
            json.dump(report, out, indent=1)
    print(json.dumps({"analyses": report["analyses"], "summary": summary}, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
