"""Tests of scripts/pgn_endings.py (how the games of a match ended, read back from a PGN).

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import io
import os
import sys
import unittest
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import pgn_endings  # noqa: E402


def game(white, black, result, moves, fen=None, termination=None):
    tags = [f'[White "{white}"]', f'[Black "{black}"]', f'[Result "{result}"]']
    if fen:
        tags += [f'[FEN "{fen}"]', '[SetUp "1"]']
    if termination:
        tags.append(f'[Termination "{termination}"]')
    return "\n".join(tags) + f"\n\n{moves} {result}\n\n"


GAMES = "".join([
    # The start position a third time at move 5: an early repetition.
    game("a", "b", "1/2-1/2", "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8"),
    # The same shuffle from move 50 on: a late one.
    game("b", "a", "1/2-1/2", "50. Kd2 Kd7 51. Ke1 Ke8 52. Kd2 Kd7 53. Ke1 Ke8",
         fen="4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 50"),
    game("b", "a", "0-1", "1. f3 e5 2. g4 Qh4#"),
    game("a", "b", "1/2-1/2", "1. e4 e5", termination="adjudication"),
    game("a", "b", "1-0", "1. e4 e5", termination="adjudication"),
    game("a", "b", "1-0", "1. d4", termination="time forfeit"),
    game("b", "a", "1/2-1/2", "80. Rd3", fen="8/8/8/4k3/8/8/3R4/4K3 w - - 99 80"),
    game("a", "b", "1/2-1/2", "1. Qf7", fen="7k/8/6K1/8/8/8/8/5Q2 w - - 0 1"),
    game("a", "b", "1/2-1/2", "1. Kxd2", fen="8/8/8/4k3/8/8/3n4/4K3 w - - 0 1"),
    game("a", "b", "*", "1. e4"),
    game("x", "y", "1/2-1/2", "1. e4 e5", termination="adjudication"),
])


class PgnEndingsTest(unittest.TestCase):
    def setUp(self):
        self.endings = pgn_endings.read_endings(io.StringIO(GAMES), defaultdict(pgn_endings.Endings))

    def test_pairings_are_told_apart_whatever_the_colours(self):
        self.assertEqual(sorted(self.endings), ["a vs b", "x vs y"])
        self.assertEqual(self.endings["a vs b"].games, 9)
        self.assertEqual(self.endings["a vs b"].unfinished, 1)
        self.assertEqual(self.endings["x vs y"].causes, {"adjudicated draw": 1})

    def test_every_cause_is_recognised(self):
        self.assertEqual(
            dict(self.endings["a vs b"].causes),
            {
                "repetition": 2,
                "mate": 1,
                "adjudicated draw": 1,
                "adjudicated win": 1,
                "time forfeit": 1,
                "fifty-move rule": 1,
                "stalemate": 1,
                "bare material": 1,
            },
        )

    def test_repetitions_are_placed_by_move_number(self):
        self.assertEqual(sorted(self.endings["a vs b"].repetition_moves), [5, 54])
        out = io.StringIO()
        pgn_endings.report(self.endings, early=40, out=out)
        text = out.getvalue()
        self.assertIn("a vs b: 9 games, 6 drawn (66.7%)", text)
        self.assertIn("repetition 2 (22.2%)", text)
        self.assertIn("1 before move 40 (11.1% of the games)", text)
        self.assertIn("unfinished games left out: 1", text)

    def test_a_drawn_time_forfeit_is_not_a_fault(self):
        drawn = game("a", "b", "1/2-1/2", "1. e4", termination="time forfeit")
        endings = pgn_endings.read_endings(io.StringIO(drawn), defaultdict(pgn_endings.Endings))
        self.assertEqual(dict(endings["a vs b"].causes), {"other draw": 1})


if __name__ == "__main__":
    unittest.main()
