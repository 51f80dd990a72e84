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

Example (the command that produced scripts/openings.epd is in docs/tools.md):

    .venv/bin/python scripts/make_openings.py --count 250 --seed 1 --output scripts/openings.epd
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import List, Optional, Sequence

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


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    rng = random.Random(args.seed)
    seen = set()
    kept: List[str] = []
    tried = 0
    with chess.engine.SimpleEngine.popen_uci(args.engine) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        while len(kept) < args.count:
            board = random_line(rng, args.plies)
            tried += 1
            if board is None:
                continue
            key = board.epd()
            if key in seen:
                continue
            seen.add(key)
            screen = score_cp(engine, board, args.screen_nodes)
            if screen is None or abs(screen) > args.screen_cp:
                continue
            cp = score_cp(engine, board, args.nodes)
            if cp is None or abs(cp) > args.max_cp:
                continue
            line = " ".join(move.uci() for move in board.move_stack)
            kept.append(board.epd(ce=cp, c0=line, hmvc=board.halfmove_clock,
                                  fmvn=board.fullmove_number))
            print(f"{len(kept):4d}/{args.count} (tried {tried}): {cp:+4d} {line}",
                  file=sys.stderr)
    with open(args.output, "w", encoding="utf-8") as out:
        out.write("\n".join(kept) + "\n")
    print(f"wrote {len(kept)} positions to {args.output} ({tried} random lines tried)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
