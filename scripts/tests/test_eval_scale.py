"""Tests of scripts/eval_scale.py: which positions it reads from a PGN, and a run against the
real engine where LAZULI_BIN names one (test-all.sh sets it).

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import lzma
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(HERE), "eval_scale.py")
sys.path.insert(0, os.path.dirname(HERE))

import eval_scale  # noqa: E402

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
GAME = """[Event "test"]
[White "a"]
[Black "b"]
[Result "*"]

1. e4 { +0.30/10 0.100s } d5 { -0.25/9 0.100s } 2. Bb5+ { +M5/12 0.100s } c6 { -0.40/8 0.100s }
3. Ba4 { +0.12/8 0.100s } Nf6 { ? } 4. Nc3 { +1.05/8 0.100s, some text } *

"""


class PositionsTest(unittest.TestCase):
    def write(self, folder: str, name: str) -> str:
        path = os.path.join(folder, name)
        opener = lzma.open if name.endswith(".xz") else open
        with opener(path, "wt", encoding="utf-8") as handle:
            handle.write(GAME * 2)
        return path

    def test_scores_are_the_movers_and_checks_mates_and_unscored_moves_are_left_out(self):
        with tempfile.TemporaryDirectory() as folder:
            for name in ("games.pgn", "games.pgn.xz"):
                found = eval_scale.positions(self.write(folder, name), 0)
                self.assertEqual(len(found), 8, name)  # four a game, the games read twice
                self.assertEqual(found[0], (START, 30))
                self.assertEqual(found[1][1], -25)
                self.assertEqual([score for _, score in found[:4]], [30, -25, 12, 105])
                self.assertTrue(found[2][0].startswith("rnbqkbnr/pp2pppp/2p5/1B1p4/"))

    def test_plies_before_the_minimum_are_left_out(self):
        with tempfile.TemporaryDirectory() as folder:
            found = eval_scale.positions(self.write(folder, "games.pgn"), 4)
            self.assertEqual([score for _, score in found], [12, 105, 12, 105])

    def test_a_missing_or_corrupt_file_is_a_message_and_status_1(self):
        with tempfile.TemporaryDirectory() as folder:
            broken = os.path.join(folder, "broken.pgn.xz")
            with open(broken, "wb") as handle:
                handle.write(b"not xz at all")
            for pgn in (broken, os.path.join(folder, "missing.pgn")):
                done = subprocess.run(
                    [sys.executable, SCRIPT, "--engine", "unused", "--pgn", pgn],
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                self.assertEqual(done.returncode, 1, done.stderr)
                self.assertIn("cannot read", done.stderr)
                self.assertNotIn("Traceback", done.stderr)

    def test_the_slope_needs_two_distinct_values(self):
        self.assertIsNone(eval_scale.slope_and_correlation([5.0], [3.0]))
        self.assertIsNone(eval_scale.slope_and_correlation([5.0, 5.0], [3.0, 4.0]))
        slope, correlation = eval_scale.slope_and_correlation([0.0, 100.0, 200.0], [0.0, 90.0, 180.0])
        self.assertAlmostEqual(slope, 0.9)
        self.assertAlmostEqual(correlation, 1.0)


def run_on_game(*extra: str) -> subprocess.CompletedProcess:
    """eval_scale.py on GAME with the engine LAZULI_BIN names, and any further arguments."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "games.pgn")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(GAME)
        command = [sys.executable, SCRIPT, "--engine", os.environ["LAZULI_BIN"], "--pgn", path, *extra]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)


@unittest.skipUnless(os.environ.get("LAZULI_BIN"), "LAZULI_BIN names no engine")
class EngineTest(unittest.TestCase):
    def test_both_evaluations_are_read_from_the_engine(self):
        done = run_on_game()
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("4 positions of 4", done.stdout)
        self.assertIn("network over hand-crafted: median ratio", done.stdout)
        self.assertIn("|eval - score| hand-crafted:", done.stdout)

    def test_an_engine_without_a_network_is_refused_with_a_message(self):
        done = run_on_game("--option", "Use NNUE=false")
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertIn("uses no network", done.stderr)


if __name__ == "__main__":
    unittest.main()
