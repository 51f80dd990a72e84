"""Tests of scripts/vote_study.py (is the vote's move better than the main thread's?).

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import os
import sys
import tempfile
import unittest

import chess
import chess.engine

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import vote_study  # noqa: E402

E4, D4, E5 = chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4"), chess.Move.from_uci("e7e5")


def line(depth, nodes, *moves):
    return {"depth": depth, "nodes": nodes, "pv": list(moves)}


class VoteChangeTest(unittest.TestCase):
    def test_main_move_played(self):
        # The main thread changed its mind at depth 10; the closing line adds the final count.
        infos = [line(9, 1000, D4), {"depth": 10, "currmove": E4}, line(10, 3000, E4, E5), line(10, 3400, E4, E5)]
        self.assertIsNone(vote_study.vote_change(infos, E4))

    def test_closing_line_with_another_move_is_a_vote_change(self):
        infos = [line(9, 1000, E4), line(10, 3000, E4, E5), line(10, 3400, D4)]
        self.assertEqual(vote_study.vote_change(infos, D4), E4)
        # A helper one ply deeper: the closing line shows its depth.
        infos = [line(9, 1000, E4), line(10, 3000, E4, E5), line(11, 3400, D4)]
        self.assertEqual(vote_study.vote_change(infos, D4), E4)

    def test_other_multipv_lines_and_short_searches_are_ignored(self):
        self.assertIsNone(vote_study.vote_change([line(1, 20, E4)], E4))
        infos = [line(10, 3000, E4), dict(line(10, 3000, D4), multipv=2)]
        self.assertIsNone(vote_study.vote_change(infos, E4))


class SampleAndSummaryTest(unittest.TestCase):
    def test_positions_are_sampled_in_range_without_repeats(self):
        pgn = '[Event "a"]\n[Result "*"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. e4 *\n'
        with tempfile.NamedTemporaryFile("w", suffix=".pgn", delete=False) as handle:
            handle.write(pgn)
        try:
            fens = vote_study.sample_positions([handle.name], 2, 7, 1, 100, seed=3)
        finally:
            os.unlink(handle.name)
        # Plies 2-7: the position after ply 6 repeats the one after ply 2; five are left.
        self.assertEqual(len(fens), 5)
        self.assertEqual(len(set(fens)), 5)

    def test_summary_counts_better_and_worse(self):
        text = vote_study.summary([30, -50, 5, -20])
        self.assertIn("mean -8.8 cp", text)
        self.assertIn("better by >10 cp 1, worse by >10 cp 2, within 10 cp 1", text)
        self.assertEqual(vote_study.summary([]), "no changes judged")


if __name__ == "__main__":
    unittest.main()
