"""Tests of scripts/smp_compare.py: choosing positions and stopping searches that stall.

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import smp_compare  # noqa: E402

FAKE = [sys.executable, os.path.join(HERE, "fake_engine.py")]
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


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


class TimeCapTest(unittest.TestCase):
    def test_a_search_that_never_reaches_its_depth_is_stopped_and_counted(self):
        _, depth_nps, times, capped = smp_compare.measure([*FAKE, "stall", "0"], 1, [START], 30, 0.01, 16, {},
                                                          cap=0.3)
        self.assertEqual(capped, 1)
        self.assertGreaterEqual(times[0], 0.3)
        # No search reached its depth: no NPS at depth.
        self.assertEqual(depth_nps, 0.0)
        _, _, times, capped = smp_compare.measure([*FAKE, "good"], 1, [START], 30, 0.01, 16, {}, cap=5.0)
        self.assertEqual(capped, 0)
        self.assertLess(times[0], 5.0)

    def test_nps_at_depth_comes_from_the_searches_that_reached_it(self):
        # The fake engine's one line: depth 1, 5 nodes in 2 ms.
        _, depth_nps, _, _ = smp_compare.measure([*FAKE, "good"], 1, [START, START], 1, 0.01, 16, {}, cap=5.0)
        self.assertAlmostEqual(depth_nps, 2500.0)


if __name__ == "__main__":
    unittest.main()
