"""Tests of scripts/pgn_time.py (how engines spent their clocks, read back from a PGN).

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import io
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import pgn_time  # noqa: E402

GAMES = """[Event "t"]
[White "fast"]
[Black "slow"]
[Result "1-0"]
[TimeControl "10+0.1"]
[BlackTimeControl "20+0.2"]

1. e4 { +0.20/12 0.500s } 1... e5 { -0.10/14 1.000s } 2. Qh5 { +0.30/? 0.250s }
2... Nc6 { -0.20/15 2.000s, a note } 3. Bc4 { +0.40/13 0.250s } 3... Nf6 4. Qxf7# 1-0

[Event "t"]
[White "slow"]
[Black "fast"]
[Result "*"]
[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 11"]
[SetUp "1"]
[TimeControl "40/60"]

11. d4 { +0.10/20 3.000s } 11... d5 { 0.00/10 0.100s } *
"""


class PgnTimeTest(unittest.TestCase):
    def setUp(self):
        self.usage = pgn_time.read_usage(io.StringIO(GAMES), bucket=10)

    def test_times_and_depths_per_engine(self):
        fast, slow = self.usage["fast"], self.usage["slow"]
        self.assertEqual(fast.times, [0.5, 0.25, 0.25, 0.1])
        # A comment without a depth (`?`) counts for time only; a move without one not at all.
        self.assertEqual(fast.depths, [12, 13, 10])
        self.assertEqual(slow.times, [1.0, 2.0, 3.0])

    def test_clock_left_uses_each_sides_own_control(self):
        # White at 10+0.1 spent 1.0 s over 3 moves; Black at 20+0.2 spent 3.0 s over 2 moves
        # (its third move had no comment). The second game's `40/60` has periods, not followed.
        self.assertEqual(len(self.usage["fast"].clock_left), 1)
        self.assertAlmostEqual(self.usage["fast"].clock_left[0], 10 - 1.0 + 0.3)
        self.assertAlmostEqual(self.usage["slow"].clock_left[0], 20 - 3.0 + 0.4)
        self.assertEqual(len(self.usage["slow"].clock_left), 1)

    def test_stages_follow_the_move_number(self):
        self.assertEqual(self.usage["slow"].by_stage[0], [1.0, 2.0])
        self.assertEqual(self.usage["slow"].by_stage[1], [3.0])
        self.assertEqual(pgn_time.parse_clock("10+0.1"), (10.0, 0.1))
        self.assertIsNone(pgn_time.parse_clock("40/60"))

    def test_report_names_every_engine(self):
        out = io.StringIO()
        pgn_time.report(self.usage, 10, out)
        self.assertIn("fast: 4 moves", out.getvalue())
        self.assertIn("slow: 3 moves", out.getvalue())


if __name__ == "__main__":
    unittest.main()
