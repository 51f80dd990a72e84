"""Tests of scripts/smp_gap.py (two engines' 2-thread gains compared opening for opening).

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import io
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import smp_gap  # noqa: E402


def game(white, black, result, opening):
    return (f'[Event "t"]\n[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
            f'[Opening "{opening}"]\n\n1. e4 e5 {result}\n\n')


class ReadPairScoresTest(unittest.TestCase):
    def test_scores_are_per_subject_and_per_full_pair(self):
        pgn = "".join([
            game("a-2t", "a-1t", "1-0", "#1"), game("a-1t", "a-2t", "1/2-1/2", "#1"),
            game("b-2t", "b-1t", "0-1", "#1"), game("b-1t", "b-2t", "0-1", "#1"),
            # One game only of opening 2 for a: not a pair. Unfinished games do not count.
            game("a-2t", "a-1t", "1-0", "#2"), game("a-1t", "a-2t", "*", "#2"),
            # Two games with the same colour are not a colour-reversed pair.
            game("b-2t", "b-1t", "1-0", "#3"), game("b-2t", "b-1t", "1-0", "#3"),
        ])
        scores = smp_gap.read_pair_scores([io.StringIO(pgn)], ["a-2t", "b-2t"])
        self.assertEqual(scores["a-2t"], {"#1": 0.75})
        self.assertEqual(scores["b-2t"], {"#1": 0.5})

    def test_pentanomial_counts_pair_outcomes(self):
        self.assertEqual(smp_gap.pentanomial([0.0, 0.5, 0.5, 0.75, 1.0, 1.0]), [1, 0, 2, 1, 2])


class PairedDifferenceTest(unittest.TestCase):
    def test_identical_scores_differ_by_nothing_with_no_spread(self):
        xs = [0.25, 0.75, 0.5, 1.0]
        diff, error = smp_gap.paired_difference(xs, list(xs))
        self.assertAlmostEqual(diff, 0.0)
        self.assertAlmostEqual(error, 0.0)

    def test_correlated_openings_narrow_the_interval(self):
        xs = [0.25, 0.75, 0.5, 1.0, 0.75, 0.5]
        shifted = [x - 0.25 if x > 0.25 else x for x in xs]
        paired = smp_gap.paired_difference(xs, shifted)
        reordered = smp_gap.paired_difference(xs, list(reversed(shifted)))
        self.assertAlmostEqual(paired[0], reordered[0])
        self.assertGreater(paired[0], 0.0)
        self.assertLess(paired[1], reordered[1])

    def test_matches_the_logistic_elo_of_the_means(self):
        xs, ys = [1.0, 0.5, 0.75, 0.5], [0.5, 0.5, 0.25, 0.75]
        diff, _ = smp_gap.paired_difference(xs, ys)
        expected = -400 * math.log10(1 / 0.6875 - 1) + 400 * math.log10(1 / 0.5 - 1)
        self.assertAlmostEqual(diff, expected)

    def test_degenerate_samples_give_none(self):
        self.assertIsNone(smp_gap.paired_difference([0.5], [0.5]))
        self.assertIsNone(smp_gap.paired_difference([1.0, 1.0], [0.5, 0.75]))

    def test_report_names_both_subjects_and_the_gap(self):
        scores = {"a": {"#1": 1.0, "#2": 0.5, "#3": 0.75}, "b": {"#1": 0.5, "#2": 0.5, "#4": 1.0}}
        lines = smp_gap.report(scores, ["a", "b"])
        self.assertTrue(lines[0].startswith("a: 3 pairs"))
        self.assertIn("over the 2 openings both played", lines[2])
        self.assertIn("difference", lines[2])


class InterleaveTest(unittest.TestCase):
    def test_blocks_alternate_and_end_with_the_paired_gap(self):
        # Two copies of the fake engine stand in for Lazuli and the reference engine.
        scripts = os.path.dirname(HERE)
        with tempfile.TemporaryDirectory() as work:
            for name in ("lazuli", "other"):
                path = os.path.join(work, name)
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(f"#!/bin/sh\nexec {sys.executable} {os.path.join(HERE, 'fake_engine.py')} good 100000\n")
                os.chmod(path, 0o755)
            out = os.path.join(work, "out")
            run = subprocess.run(
                [os.path.join(scripts, "smp_interleave.sh"), "--block", "1", "--blocks", "2", "--start", "7",
                 "--tc", "2+0.05", "--lazuli-option", "Hash=8",
                 os.path.join(work, "lazuli"), os.path.join(work, "other"), out],
                capture_output=True, text=True, env={**os.environ, "PYTHON": sys.executable}, timeout=120)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            order = [line.split(",")[0] for line in run.stdout.splitlines() if line.startswith("block ")]
            self.assertEqual(order, ["block 0 (lazuli", "block 0 (other", "block 1 (lazuli", "block 1 (other"])
            self.assertIn("over the 2 openings both played", run.stdout)
            with open(os.path.join(out, "other_b1.pgn"), encoding="utf-8") as handle:
                self.assertIn('[Opening "#8 of openings.epd"]', handle.read())
            # The Lazuli option reaches both Lazuli engines (over smp_match.sh's Hash=16), not the other.
            with open(os.path.join(out, "lazuli_b0.log"), encoding="utf-8") as handle:
                self.assertEqual(handle.read().count("Hash=8"), 2)
            with open(os.path.join(out, "other_b0.log"), encoding="utf-8") as handle:
                self.assertNotIn("Hash=8", handle.read())

    def test_a_deadline_already_past_is_an_error_not_an_empty_run(self):
        scripts = os.path.dirname(HERE)
        with tempfile.TemporaryDirectory() as work:
            out = os.path.join(work, "out")
            run = subprocess.run(
                [os.path.join(scripts, "smp_interleave.sh"), "--until", "1 hour ago", "lazuli", "other", out],
                capture_output=True, text=True, timeout=30)
            self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
            self.assertIn("is already past", run.stderr)
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
