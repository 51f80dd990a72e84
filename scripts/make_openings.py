#!/usr/bin/env python3
"""Builds a balanced openings file: short random lines kept when Stockfish finds them level.

Recipe (deterministic for a given seed, engine build and node counts):

1. From the start position play ``--plies`` uniformly random legal moves (``random.Random(seed)``).
2. Drop the line if the game is over, the side to move is in check, or the position was
   already produced (transpositions).
3. Score the position with Stockfish on one thread, a fresh 16 MB table (``ucinewgame`` before
   each position) and a fixed node count: first a cheap screen (``--screen-nodes``, must be
   within ``--screen-cp``), then the real check (``--nodes``, must be within ``--max-cp``
   centipawns of zero; mate scores are rejected).
4. Write each kept position as EPD with ``ce`` (centipawns for the side to move), ``c0`` (the
   line that led to it, in UCI notation), ``hmvc`` and ``fmvn``.

The random lines are drawn in one sequence and kept in that order, so ``--jobs`` (engines
scoring at once) changes only the speed, never the file.

Example (the commands that produced scripts/openings.epd and scripts/openings-large.epd are in
docs/tools.md):

    .venv/bin/python scripts/make_openings.py --count 250 --seed 1 --output scripts/openings.epd
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator, List, Optional, Sequence, Tuple

import chess
import chess.engine


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--engine", default="/usr/games/stockfish", help="UCI engine used as judge")
    p.add_argument("--count", type=int, default=250, help="positions to keep")
    p.add_argument("--plies", type=int, default=8, help="random plies from the start position")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--nodes", type=int, default=200_000, help="nodes for the final score")
    p.add_argument("--max-cp", type=int, default=60, help="keep when |score| <= this")
    p.add_argument("--screen-nodes", type=int, default=20_000, help="nodes for the cheap screen")
    p.add_argument("--screen-cp", type=int, default=150, help="screen keeps |score| <= this")
    p.add_argument("--jobs", type=int, default=1, help="engines scoring at once")
    p.add_argument("--resume", action="store_true",
                   help="extend --output, a file an earlier run with these settings wrote "
                        "(its lines are found again in the random sequence, not re-scored)")
    p.add_argument("--output", required=True, help="EPD file to write")
    return p.parse_args(argv)


def random_line(rng: random.Random, plies: int) -> Optional[chess.Board]:
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            return None
        board.push(rng.choice(moves))
    if board.is_game_over() or board.is_check():
        return None
    return board


def score_cp(engine: chess.engine.SimpleEngine, board: chess.Board, nodes: int) -> Optional[int]:
    """Centipawns for the side to move from a fresh search, None for a mate score."""
    info = engine.analyse(board, chess.engine.Limit(nodes=nodes), game=object())
    return info["score"].relative.score()


def candidates(rng: random.Random, plies: int) -> Iterator[Tuple[int, chess.Board]]:
    """Random lines in drawing order, numbered from 1, without repeated positions."""
    seen = set()
    tried = 0
    while True:
        board = random_line(rng, plies)
        tried += 1
        if board is None:
            continue
        key = board.epd()
        if key in seen:
            continue
        seen.add(key)
        yield tried, board


class Judge:
    """One engine per worker thread, each started on first use."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.local = threading.local()
        self.engines: List[chess.engine.SimpleEngine] = []
        self.lock = threading.Lock()

    def engine(self) -> chess.engine.SimpleEngine:
        engine = getattr(self.local, "engine", None)
        if engine is None:
            # Its own session: a signal meant for this run (see main) does not kill it.
            engine = chess.engine.SimpleEngine.popen_uci(self.command, start_new_session=True)
            engine.configure({"Threads": 1, "Hash": 16})
            self.local.engine = engine
            with self.lock:
                self.engines.append(engine)
        return engine

    def close(self) -> None:
        for engine in self.engines:
            engine.quit()


def judged(judge: Judge, board: chess.Board, args: argparse.Namespace) -> Optional[str]:
    """The EPD line for ``board`` when the engine finds it balanced, else None."""
    engine = judge.engine()
    screen = score_cp(engine, board, args.screen_nodes)
    if screen is None or abs(screen) > args.screen_cp:
        return None
    cp = score_cp(engine, board, args.nodes)
    if cp is None or abs(cp) > args.max_cp:
        return None
    line = " ".join(move.uci() for move in board.move_stack)
    return board.epd(ce=cp, c0=line, hmvc=board.halfmove_clock, fmvn=board.fullmove_number)


def resume_from(path: str, lines: Iterator[Tuple[int, chess.Board]]) -> Tuple[List[str], int]:
    """The kept lines of an earlier run's file, with ``lines`` advanced past the last of them."""
    with open(path, encoding="utf-8") as handle:
        kept = [line.rstrip("\n") for line in handle if line.strip()]
    tried = 0
    for number, epd in enumerate(kept, start=1):
        match = re.search(r'c0 "([^"]*)"', epd)
        if match is None:
            raise ValueError(f"{path}:{number}: no c0 line to find in the sequence")
        searched_from = tried
        for tried, board in lines:
            if " ".join(move.uci() for move in board.move_stack) == match.group(1):
                break
            if tried - searched_from > 100_000:
                raise ValueError(f"{path}:{number}: not in this seed's sequence (another "
                                 "--seed or --plies?)")
    return kept, tried


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    if args.jobs < 1 or args.count < 1:
        print("--jobs and --count must be at least 1", file=sys.stderr)
        return 2
    lines = candidates(random.Random(args.seed), args.plies)
    kept: List[str] = []
    tried = 0
    if args.resume and os.path.exists(args.output):
        try:
            kept, tried = resume_from(args.output, lines)
        except (OSError, ValueError) as err:
            print(f"cannot resume: {err}", file=sys.stderr)
            return 2
        print(f"resuming after {len(kept)} positions ({tried} random lines tried)", file=sys.stderr)
    judge = Judge(args.engine)
    # Candidates are scored in batches and kept in drawing order: the file does not depend on
    # how many engines score them.
    batch = 8 * args.jobs
    # SIGTERM (as `timeout` sends) ends the run after the current batch, keeping what it has.
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            while len(kept) < args.count and not stop.is_set():
                drawn = [next(lines) for _ in range(batch)]
                results = pool.map(lambda item: judged(judge, item[1], args), drawn)
                for (number, board), epd in zip(drawn, results):
                    if epd is None or len(kept) >= args.count:
                        continue
                    kept.append(epd)
                    tried = number
                    if len(kept) % 100 == 0 or args.count <= 1000:
                        print(f"{len(kept):6d}/{args.count} (tried {tried}): {epd.split(' c0 ')[0]}",
                              file=sys.stderr)
    finally:
        judge.close()
    # Stopped early, what was kept is the start of the same sequence: a run with that --count
    # makes the same file.
    interrupted = len(kept) < args.count
    temporary = args.output + ".partial"
    with open(temporary, "w", encoding="utf-8") as out:
        out.write("\n".join(kept) + "\n")
    os.replace(temporary, args.output)
    print(f"wrote {len(kept)} positions to {args.output} ({tried} random lines tried)"
          + (", interrupted" if interrupted else ""), file=sys.stderr)
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
