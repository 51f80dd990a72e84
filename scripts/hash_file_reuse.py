#!/usr/bin/env python3
"""What a saved hash is worth: time and nodes to reach a depth again in a new process.

For each position: a fresh engine searches to the depth and saves its table (`Save Hash`); a
second, new engine loads it (`Load Hash`) and searches the same position to the same depth.
Prints both searches' nodes and time and their ratios. Example:

    python3 scripts/hash_file_reuse.py --engine target/release/lazuli --depth 20 --hash 256

With `--same-process` the second search runs in the first engine instead, as when a GUI steps
back to a position it analysed: the reference any UCI engine can be measured by.

With `--analysis` both searches are an analyst's: `go infinite`, stopped as soon as an exact
`info depth D` (or deeper) line arrives, timed to that line; the report adds whether the two
searches' moves agree and how far their scores differ there.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

POSITIONS = [
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r2q1rk1/pp2bppp/2n1bn2/3p4/3P4/2NBBN2/PP3PPP/R2Q1RK1 w - - 0 11",
    "r1b2rk1/2q1bppp/p2p1n2/np2p3/3PP3/5N1P/PPB2PP1/RNBQR1K1 w - - 0 12",
    "8/2k5/3p4/p2P1p2/P2P1P2/8/3K4/8 w - - 0 1",
    "2r2rk1/1p1nbppp/p3pn2/q7/3P4/P1N1BN2/1P2BPPP/2RQ1RK1 w - - 0 15",
]


class Engine:
    def __init__(self, path: str):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(self, text: str):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def until(self, prefix: str | tuple[str, ...]) -> list[str]:
        """The lines up to and including the first that starts with `prefix` (or one of them)."""
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the engine closed its output")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    def search(self, fen: str, depth: int) -> tuple[int, float]:
        self.send(f"position fen {fen}")
        start = time.monotonic()
        self.send(f"go depth {depth}")
        lines = self.until("bestmove")
        elapsed = time.monotonic() - start
        last = [l for l in lines if l.startswith("info") and " nodes " in l][-1].split()
        return int(last[last.index("nodes") + 1]), elapsed

    def analyse(self, fen: str, depth: int) -> tuple[int, float, str, int]:
        """`go infinite` until an exact line of `depth` or deeper: its nodes, the seconds to it,
        its first move and its score (centipawns; mates as +-100000)."""
        self.send(f"position fen {fen}")
        start = time.monotonic()
        self.send("go infinite")
        reached = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the engine closed its output")
            words = line.split()
            exact = line.startswith("info depth") and " pv " in line and "bound" not in line
            principal = "multipv" not in words or words[words.index("multipv") + 1] == "1"
            if reached is None and exact and principal and int(words[2]) >= depth:
                kind, value = words[words.index("score") + 1 : words.index("score") + 3]
                score = int(value) if kind == "cp" else (100_000 if int(value) > 0 else -100_000)
                nodes = int(words[words.index("nodes") + 1])
                reached = (nodes, time.monotonic() - start, words[words.index("pv") + 1], score)
                self.send("stop")
            if line.startswith("bestmove"):
                if reached is None:
                    raise RuntimeError(f"the search ended before depth {depth}")
                return reached

    def close(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", required=True)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--hash", type=int, default=256)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--same-process", action="store_true", help="search again in the same engine")
    parser.add_argument("--option", action="append", default=[], help="NAME=VALUE, sent to every engine")
    parser.add_argument("--analysis", action="store_true", help="go infinite until the depth, as an analyst does")
    args = parser.parse_args()
    node_ratios, time_ratios = [], []
    same_move, score_gaps = 0, []

    def start() -> Engine:
        engine = Engine(args.engine)
        for option in args.option:
            name, value = option.split("=", 1)
            engine.send(f"setoption name {name} value {value}")
        engine.send(f"setoption name Threads value {args.threads}")
        return engine

    with tempfile.TemporaryDirectory() as work:
        for i, fen in enumerate(POSITIONS):
            first = start()
            first.send(f"setoption name Hash value {args.hash}")
            search = (lambda e: e.analyse(fen, args.depth)) if args.analysis else (lambda e: e.search(fen, args.depth))
            fresh = search(first)
            if args.same_process:
                again, second, what = search(first), first, "again"
            else:
                path = os.path.join(work, f"{i}.lzh")
                first.send(f"setoption name Hash File value {path}")
                first.send("setoption name Save Hash")
                first.send("isready")
                first.until("readyok")
                first.close()
                second = start()
                second.send(f"setoption name Hash File value {path}")
                second.send("setoption name Load Hash")
                second.send("isready")
                notes = [l for l in second.until("readyok") if l.startswith("info string")]
                again, what = search(second), "loaded"
            second.close()
            node_ratios.append(fresh[0] / max(again[0], 1))
            time_ratios.append(fresh[1] / again[1])
            agreement = ""
            if args.analysis:
                same_move += fresh[2] == again[2]
                score_gaps.append(abs(fresh[3] - again[3]))
                agreement = f"; moves {fresh[2]} / {again[2]}, scores {fresh[3]} / {again[3]}"
            print(
                f"{fen}: fresh {fresh[0]} nodes {fresh[1]:.2f} s; {what} {again[0]} nodes {again[1]:.2f} s; "
                f"{node_ratios[-1]:.2f}x nodes, {time_ratios[-1]:.2f}x time{agreement}"
                + ("" if args.same_process else f" ({'; '.join(notes)})"),
                flush=True,
            )
    print(
        f"median: {statistics.median(node_ratios):.2f}x fewer nodes, {statistics.median(time_ratios):.2f}x less time "
        f"(geometric mean {statistics.geometric_mean(time_ratios):.2f}x, slowest {min(time_ratios):.2f}x)"
        + (
            f"; same move {same_move}/{len(POSITIONS)}, score gap median {statistics.median(score_gaps)} cp, "
            f"largest {max(score_gaps)} cp"
            if args.analysis
            else ""
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
