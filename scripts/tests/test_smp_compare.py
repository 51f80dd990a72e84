"""Tests of scripts/smp_compare.py: choosing positions and stopping searches that stall.

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import os
import sys
import tempfile
import unittest

import chess

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import smp_compare  # noqa: E402

FAKE = [sys.executable, os.path.join(HERE, "fake_engine.py")]
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


class CsvTest(unittest.TestCase):
    def test_rows_are_relative_to_the_first_thread_count_and_plot_scaling_reads_them(self):
        base = smp_compare.Measurement(1000.0, 900.0, [1.0, 2.0, 4.0], 5000, 0)
        four = smp_compare.Measurement(3800.0, 3500.0, [0.5, 0.5, 4.0], 8000, 0)
        rows = [smp_compare.csv_row(1, base, base), smp_compare.csv_row(4, four, base)]
        self.assertEqual(rows[1][:6], (4, 3800, 3.8, 2.0, 1.6, 5000))
        self.assertAlmostEqual(rows[1][6], 2.0, places=3)  # speedups 2, 4 and 1
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "sub", "engine.csv")
            smp_compare.write_csv(path, rows)
            import plot_scaling

            read = plot_scaling.read_csv(path, "engine").rows
        self.assertEqual([row.threads for row in read], [1, 4])
        self.assertEqual(read[0].ttd_geomean, (1.0, 1.0, 1.0))

    def test_without_a_speed_pass_the_nps_is_the_time_to_depth_searches(self):
        base = smp_compare.Measurement(0.0, 900.0, [1.0], 10, 0)
        two = smp_compare.Measurement(0.0, 1800.0, [0.8], 12, 0)
        self.assertEqual(smp_compare.csv_row(2, two, base)[:3], (2, 1800, 2.0))


class ChoosePositionsTest(unittest.TestCase):
    def test_spread_leaves_out_the_skipped_numbers(self):
        fens = [f"fen {n}" for n in range(1, 47)]
        chosen = smp_compare.spread(fens, 24, set())
        self.assertEqual(len(chosen), 24)
        self.assertEqual(chosen[17], "fen 33")
        without = smp_compare.spread(fens, 24, {18})
        self.assertEqual(len(without), 23)
        self.assertNotIn("fen 33", without)

    def test_bad_skip_is_an_error_naming_it(self):
        self.assertEqual(smp_compare.parse_skip("3, 18,", 24), {3, 18})
        self.assertEqual(smp_compare.parse_skip("", 24), set())
        for bad in ("0", "25", "x", "-1"):
            with self.assertRaisesRegex(ValueError, repr(bad.strip())):
                smp_compare.parse_skip(bad, 24)


class SamplePositionsTest(unittest.TestCase):
    def test_positions_are_sampled_in_range_without_repeats(self):
        pgn = '[Event "a"]\n[Result "*"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. e4 *\n'
        with tempfile.NamedTemporaryFile("w", suffix=".pgn", delete=False) as handle:
            handle.write(pgn)
        try:
            fens = smp_compare.sample_positions([handle.name], 2, 7, 1, 100, seed=3)
        finally:
            os.unlink(handle.name)
        # Plies 2-7: the position after ply 6 repeats the one after ply 2; five are left.
        self.assertEqual(len(fens), 5)
        self.assertEqual(len(set(fens)), 5)


class TimeCapTest(unittest.TestCase):
    def test_a_search_that_never_reaches_its_depth_is_stopped_and_counted(self):
        m = smp_compare.measure([*FAKE, "stall", "0"], 1, [START], 30, 0.01, 16, {}, cap=0.3)
        self.assertEqual(m.capped, 1)
        self.assertGreaterEqual(m.times[0], 0.3)
        # No search reached its depth: no NPS at depth.
        self.assertEqual(m.depth_nps, 0.0)
        m = smp_compare.measure([*FAKE, "good"], 1, [START], 30, 0.01, 16, {}, cap=5.0)
        self.assertEqual(m.capped, 0)
        self.assertLess(m.times[0], 5.0)

    def test_nps_at_depth_comes_from_the_searches_that_reached_it(self):
        # The fake engine's one line: depth 1, 5 nodes in 2 ms.
        m = smp_compare.measure([*FAKE, "good"], 1, [START, START], 1, 0.01, 16, {}, cap=5.0)
        self.assertAlmostEqual(m.depth_nps, 2500.0)

    def test_the_moves_played_are_kept_and_the_speed_pass_can_be_left_out(self):
        m = smp_compare.measure([*FAKE, "good"], 1, [START, START], 1, 0.0, 16, {}, cap=5.0)
        self.assertEqual(m.nps, 0.0)
        self.assertEqual(len(m.moves), 2)
        self.assertTrue(all(mv in chess.Board(START).legal_moves for mv in m.moves))


class MoveQualityTest(unittest.TestCase):
    def test_agreeing_moves_count_zero_and_differing_ones_their_score_difference(self):
        e4, d4, c4 = (chess.Move.from_uci(u) for u in ("e2e4", "d2d4", "c2c4"))
        scores = [{}, {e4: 30, d4: 10}, {e4: 30, c4: -20}, {}]
        base = [e4, e4, e4, None]
        other = [e4, d4, c4, d4]
        changed, diffs = smp_compare.move_quality(scores, base, other)
        self.assertEqual(changed, [-20, -50])
        # The last position was not judged (one side has no move): left out.
        self.assertEqual(diffs, [0, -20, -50])
        mean, low, high = smp_compare.mean_ci(diffs)
        self.assertAlmostEqual(mean, -70 / 3)
        self.assertLess(low, mean)
        self.assertGreater(high, mean)


if __name__ == "__main__":
    unittest.main()
