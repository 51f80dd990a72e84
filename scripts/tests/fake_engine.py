#!/usr/bin/env python3
"""A deliberately misbehaving UCI engine for testing the match runner.

Usage: fake_engine.py MODE [AFTER]

It plays a random legal move (seeded by the position) with a score of 0, until it has been
asked for AFTER moves (default 3); then, by MODE:

- ``good``: keeps playing well-formed moves;
- ``illegal``: answers ``bestmove a1a1``;
- ``crash``: exits with status 3 on ``go``;
- ``hang``: ignores ``go``;
- ``slow``: answers after twice its remaining clock time;
- ``stall``: never reaches a ``go depth`` with a ``movetime``: answers when the movetime is up;
- ``ponder``: plays well and names a reply to ponder on; a ``go ponder`` is answered only on
  ``ponderhit`` or ``stop``.
"""

import random
import sys
import time

import chess


def answer(board: chess.Board, mode: str) -> str:
    """A random legal move (seeded by the position), with a reply to ponder on in ``ponder`` mode."""
    move = random.Random(board.fen()).choice(sorted(board.legal_moves, key=lambda m: m.uci()))
    if mode != "ponder":
        return move.uci()
    after = board.copy()
    after.push(move)
    replies = sorted(after.legal_moves, key=lambda m: m.uci())
    return f"{move.uci()} ponder {replies[0].uci()}" if replies else move.uci()


def main() -> int:
    mode = sys.argv[1]
    after = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    board = chess.Board()
    asked = 0
    pondering = False
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            print("id name Fake " + mode)
            print("option name Hash type spin default 16 min 1 max 1024")
            print("option name Threads type spin default 1 min 1 max 64")
            if mode == "ponder":
                print("option name Ponder type check default false")
            print("uciok")
        elif command == "isready":
            print("readyok")
        elif command == "position":
            board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:8]))
            if "moves" in words:
                for move in words[words.index("moves") + 1:]:
                    board.push_uci(move)
        elif command == "go" and "ponder" in words:
            pondering = True
        elif command in ("ponderhit", "stop") and pondering:
            pondering = False
            print(f"bestmove {answer(board, mode)}")
        elif command == "go":
            asked += 1
            if asked > after and mode == "illegal":
                print("bestmove a1a1")
            elif asked > after and mode == "crash":
                sys.stdout.flush()
                return 3
            elif asked > after and mode == "hang":
                pass
            else:
                if asked > after and mode == "stall" and "movetime" in words:
                    time.sleep(int(words[words.index("movetime") + 1]) / 1000)
                if asked > after and mode == "slow":
                    key = "wtime" if board.turn == chess.WHITE else "btime"
                    time.sleep(2 * int(words[words.index(key) + 1]) / 1000)
                print("info depth 1 score cp 0 nodes 5 time 2")
                print(f"bestmove {answer(board, mode)}")
        elif command == "quit":
            return 0
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
