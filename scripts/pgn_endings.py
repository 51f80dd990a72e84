#!/usr/bin/env python3
"""How the games of a match ended, for each pairing of players, from PGN files.

Decisive games are split into mates, adjudicated wins, time forfeits and other faults; draws
into threefold repetitions, the fifty-move rule, bare material, stalemate and adjudicated draws.
Repetitions are also counted by when they came: a repetition before move --early (default 40)
usually means both sides were content to shuffle in a position with most of the pieces on the
board, which is a matter of the engines' draw scores rather than of the endgame. Two engines
whose self-play games are drawn equally often can differ a great deal here. Example:

    .venv/bin/python scripts/pgn_endings.py results/s1/lazuli_b*.pgn results/s1/ethereal-chess_b*.pgn

The cause comes from the `Termination` tag (`adjudication`, `time forfeit`, `rules
infraction`, `abandoned`, as scripts/match.py and cutechess write them) and otherwise from the
final position of the game.
"""

import argparse
import statistics
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import chess
import chess.pgn

from lazuli_match.game import rules_outcome

DECISIVE = ("mate", "adjudicated win", "time forfeit", "illegal move or crash", "other win")
DRAWN = ("repetition", "fifty-move rule", "bare material", "stalemate", "adjudicated draw", "other draw")
FAULTS = {"time forfeit": "time forfeit", "rules infraction": "illegal move or crash", "abandoned": "illegal move or crash"}
# The reasons scripts/match.py's rules_outcome gives, by the cause they name here.
RULES = {
    "stalemate": "stalemate",
    "insufficient material": "bare material",
    "fifty-move rule": "fifty-move rule",
    "threefold repetition": "repetition",
}


@dataclass
class Endings:
    causes: Counter = field(default_factory=Counter)
    repetition_moves: list = field(default_factory=list)
    unfinished: int = 0

    @property
    def games(self):
        return sum(self.causes.values())


def cause_of(game, board):
    """The way a finished game ended (one of DECISIVE or DRAWN), or None for an unfinished one;
    `board` is its final position. The rules of chess are judged as scripts/match.py judges them."""
    result = game.headers.get("Result", "*")
    if result not in ("1-0", "0-1", "1/2-1/2"):
        return None
    termination = game.headers.get("Termination", "").strip().lower()
    drawn = result == "1/2-1/2"
    if termination in FAULTS and not drawn:
        return FAULTS[termination]
    if termination == "adjudication":
        return "adjudicated draw" if drawn else "adjudicated win"
    ended = rules_outcome(board)
    if ended is None or (ended[0] == "1/2-1/2") != drawn:
        return "other draw" if drawn else "other win"
    return RULES.get(ended[1], "mate")


def read_endings(handle, endings):
    """Adds every game of an open PGN file to `endings`, keyed by the pairing of its players."""
    while (game := chess.pgn.read_game(handle)) is not None:
        players = " vs ".join(sorted((game.headers.get("White", "?"), game.headers.get("Black", "?"))))
        record = endings[players]
        board = game.end().board()
        cause = cause_of(game, board)
        if cause is None:
            record.unfinished += 1
            continue
        record.causes[cause] += 1
        if cause == "repetition":
            record.repetition_moves.append(board.fullmove_number)
    return endings


def report(endings, early, out=sys.stdout):
    for players in sorted(endings):
        e = endings[players]
        games = e.games
        if games == 0:
            continue
        draws = sum(e.causes[c] for c in DRAWN)
        print(f"{players}: {games} games, {draws} drawn ({100 * draws / games:.1f}%)", file=out)
        for title, causes in (("decisive", DECISIVE), ("drawn", DRAWN)):
            parts = [f"{c} {e.causes[c]} ({100 * e.causes[c] / games:.1f}%)" for c in causes if e.causes[c]]
            print(f"  {title}: {', '.join(parts) if parts else 'none'}", file=out)
        if e.repetition_moves:
            before = sum(1 for m in e.repetition_moves if m < early)
            print(
                f"  repetitions: median at move {statistics.median(e.repetition_moves):g}, "
                f"{before} before move {early} ({100 * before / games:.1f}% of the games)",
                file=out,
            )
        if e.unfinished:
            print(f"  unfinished games left out: {e.unfinished}", file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pgn", nargs="+")
    parser.add_argument("--early", type=int, default=40, help="a repetition before this move is early (40)")
    args = parser.parse_args(argv)
    if args.early < 1:
        parser.error("--early must be at least 1")
    endings = defaultdict(Endings)
    for path in args.pgn:
        with open(path, encoding="utf-8", errors="replace") as handle:
            read_endings(handle, endings)
    report(endings, args.early)
    return 0


if __name__ == "__main__":
    sys.exit(main())
