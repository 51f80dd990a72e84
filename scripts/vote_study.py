#!/usr/bin/env python3
"""Is the vote's move better than the main thread's? Judged move by move, not by games.

`SMP Vote` changes the move played in a few percent of the moves at 2 threads, which is worth a
few Elo either way: games would need thousands of 2-thread pairs to tell. This asks the
question directly. It takes positions from the PGNs of a match, searches each with Lazuli on a
clock (Threads and `SMP Vote` as given, table cleared per position), and finds the searches
where the move played is not the main thread's: the closing `info` line Lazuli prints before
`bestmove` (at 2 threads or more, after every search) then starts with another move than the main
thread's last line. A reference engine then
scores both moves (MultiPV 2 over just those two moves), and the study reports how often the
vote changed the move and how much better or worse the played move was, in centipawns with a
95% interval. Example:

    .venv/bin/python scripts/vote_study.py --engine target/release/lazuli \\
        --judge /usr/games/stockfish --pgn results/smp.pgn --positions 1000

A main thread stopped by the hard limit inside an iteration that had found a better move also
prints a closing line (counted here as a change); on a clock, not `movetime`, that is rare.
"""

import argparse
import math
import random
import statistics
import sys

import chess
import chess.engine
import chess.pgn

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


def vote_change(infos, best):
    """The main thread's move when the played move `best` is not it, else None. `infos` are the
    search's `info` dicts in order. A search that went on after its last line (at 2 threads or
    more, every search: the helpers search on while the main thread finishes) ends with a
    closing line for `best` with the final node count, so the line before it is the main
    thread's last."""
    lines = [i for i in infos if i.get("pv") and i.get("multipv", 1) == 1]
    if len(lines) < 2 or lines[-1]["pv"][0] != best or lines[-2]["pv"][0] == best:
        return None
    return lines[-2]["pv"][0]


def centipawns(score, turn):
    return score.pov(turn).score(mate_score=100_000) if score else 0


def judge(engine, board, moves, limit):
    """Reference scores (centipawns, side to move, mates clipped) of `moves` in `board`."""
    infos = engine.analyse(board, limit, multipv=len(moves), root_moves=moves)
    scores = {}
    for info in infos:
        if info.get("pv"):
            cp = centipawns(info.get("score"), board.turn)
            scores[info["pv"][0]] = max(-MATE_CP, min(MATE_CP, cp))
    return scores


def summary(diffs):
    if not diffs:
        return "no changes judged"
    mean = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else float("inf")
    better = sum(d > 10 for d in diffs)
    worse = sum(d < -10 for d in diffs)
    return (
        f"played move minus main thread's move: mean {mean:+.1f} cp [{mean - half:+.1f}, {mean + half:+.1f}], "
        f"better by >10 cp {better}, worse by >10 cp {worse}, within 10 cp {len(diffs) - better - worse}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", required=True, help="the Lazuli binary")
    parser.add_argument("--judge", required=True, help="the reference engine (e.g. Stockfish)")
    parser.add_argument("--pgn", nargs="+", required=True, help="games to take positions from")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--vote", default="all", help="SMP Vote of the engine studied (default all)")
    parser.add_argument("--hash", type=int, default=16)
    parser.add_argument("--clock", type=float, default=8.0, help="seconds on both clocks (default 8)")
    parser.add_argument("--inc", type=float, default=0.1, help="increment in seconds (default 0.1)")
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--plies", default="16-120", help="ply range to sample (default 16-120)")
    parser.add_argument("--every", type=int, default=5, help="take every Nth ply (default 5)")
    parser.add_argument("--judge-depth", type=int, default=18)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    first, last = (int(x) for x in args.plies.split("-"))
    fens = sample_positions(args.pgn, first, last, args.every, args.positions, args.seed)
    clock = chess.engine.Limit(
        white_clock=args.clock, black_clock=args.clock, white_inc=args.inc, black_inc=args.inc
    )
    changes = 0
    diffs = []
    with chess.engine.SimpleEngine.popen_uci(args.engine) as lazuli, chess.engine.SimpleEngine.popen_uci(
        args.judge
    ) as reference:
        lazuli.configure({"Threads": args.threads, "Hash": args.hash, "SMP Vote": args.vote})
        for n, fen in enumerate(fens, 1):
            board = chess.Board(fen)
            # A new game object per position: python-chess sends `ucinewgame`, clearing the table.
            with lazuli.analysis(board, clock, game=n, info=chess.engine.INFO_ALL) as analysis:
                infos = list(analysis)
                best = analysis.wait().move
            main_move = vote_change(infos, best)
            if main_move is None:
                continue
            changes += 1
            scores = judge(reference, board, [best, main_move], chess.engine.Limit(depth=args.judge_depth))
            if best in scores and main_move in scores:
                diff = scores[best] - scores[main_move]
                diffs.append(diff)
                print(f"{n}: {fen} played {best} main {main_move}: {diff:+d} cp", file=sys.stderr)
    searched = len(fens)
    print(f"{searched} positions, {args.threads} threads, SMP Vote={args.vote}, clock {args.clock}+{args.inc}")
    print(f"move not the main thread's: {changes} ({100 * changes / max(searched, 1):.1f}%)")
    print(summary(diffs))


if __name__ == "__main__":
    main()
