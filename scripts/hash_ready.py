#!/usr/bin/env python3
"""How soon a large `Hash` is ready, and what it costs in memory, for any UCI engine.

For each size: a new engine process, `Threads`, then `setoption name Hash` and `isready` (time
to `readyok`, resident memory right after), then `ucinewgame` and `isready` (its time and
memory). With `--first-search DEPTH`, each `ucinewgame` is followed at once, as a GUI starts a
game, by a timed `go depth DEPTH` from a fixed position, `--games` times: what the first search
of a game pays for a table that is not yet in memory shows against the same search with a small
`Hash` (add 16 to `--sizes`). Linux only (memory from /proc). Example, Lazuli against Stockfish
in one run:

    python3 scripts/hash_ready.py --engine target/release/lazuli --engine /usr/games/stockfish \\
        --threads 2 --sizes 1024,8192,16384
    python3 scripts/hash_ready.py --engine target/release/lazuli --threads 1 --sizes 16,4096 \\
        --first-search 16 --games 3
"""

import argparse
import subprocess
import sys
import time


def rss_mb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return 0


def timed(proc: subprocess.Popen, commands: str, answer: str, prefix: bool = False) -> float:
    start = time.monotonic()
    proc.stdin.write(commands + "\n")
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the engine closed its output")
        if line.strip() == answer or (prefix and line.startswith(answer)):
            return (time.monotonic() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", action="append", required=True, help="may be given several times")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sizes", default="1024,8192,16384", help="Hash values in MB, comma-separated")
    parser.add_argument("--first-search", type=int, metavar="DEPTH", help="time a search of this depth after each ucinewgame")
    parser.add_argument("--games", type=int, default=1, help="ucinewgame (and first search) rounds per size")
    parser.add_argument(
        "--fen", default="rnbqkbnr/pp2pppp/3p4/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3", help="the first search's position"
    )
    args = parser.parse_args()
    for engine in args.engine:
        for mb in [int(s) for s in args.sizes.split(",")]:
            proc = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            timed(proc, "uci", "uciok")
            timed(proc, f"setoption name Threads value {args.threads}\nisready", "readyok")
            ready = timed(proc, f"setoption name Hash value {mb}\nisready", "readyok")
            after_set = rss_mb(proc.pid)
            searches = []
            for _ in range(max(1, args.games)):
                cleared = timed(proc, "ucinewgame\nisready", "readyok")
                after_clear = rss_mb(proc.pid)
                if args.first_search:
                    go = f"position fen {args.fen}\ngo depth {args.first_search}"
                    searches.append(timed(proc, go, "bestmove", prefix=True))
            proc.stdin.write("quit\n")
            proc.stdin.flush()
            proc.wait(timeout=60)
            first = f"; first search to depth {args.first_search}: " + ", ".join(f"{s:.0f}" for s in searches) + " ms"
            print(
                f"{engine} threads {args.threads} Hash {mb} MB: readyok {ready:.0f} ms, RSS {after_set} MB; "
                f"ucinewgame {cleared:.0f} ms, RSS {after_clear} MB" + (first if searches else ""),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
