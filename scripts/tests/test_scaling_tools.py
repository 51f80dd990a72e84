"""The thread-scaling tools: `plot_scaling.py` recomputes the summary of `lazuli scaling --json`
from its raw measurements exactly as the engine does (with a real engine where LAZULI_BIN names
one; test-all.sh sets it), and `smp_ladder.py` plans its doubling steps by the cores.

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import plot_scaling  # noqa: E402
import smp_ladder  # noqa: E402


def run(repeat, threads, position, ms, nodes):
    return {"repeat": repeat, "threads": threads, "position": position, "time_ms": ms,
            "nodes": nodes, "hashfull": 0}


class SummaryFromRawTest(unittest.TestCase):
    def test_a_hand_made_file(self):
        data = {
            "benchmark": "lazuli scaling",
            "settings": {"threads": [1, 2], "repeats": 2},
            "positions": ["a", "b"],
            "speed": [run(0, 1, 0, 1000, 1000), run(1, 1, 0, 1000, 1200),
                      run(0, 2, 0, 1000, 1900), run(1, 2, 0, 1000, 2400)],
            "time_to_depth": [run(r, 1, p, 100 * (p + 1), 1000) for r in (0, 1) for p in (0, 1)]
            + [run(r, 2, p, 50 * (p + 1), 1500) for r in (0, 1) for p in (0, 1)],
        }
        base, two = plot_scaling.summarize_json(data)
        self.assertAlmostEqual(base.nps, 1100.0)
        self.assertAlmostEqual(two.nps_speedup, 1.95)  # per repeat: 1.9 and 2.0
        self.assertAlmostEqual(two.ttd_speedup, 2.0)
        self.assertAlmostEqual(two.node_overhead, 1.5)
        self.assertEqual(two.ttd_geomean, (2.0, 2.0, 2.0))
        low, high = two.nps_ci
        self.assertLess(low, two.nps)
        self.assertGreater(high, two.nps)
        self.assertAlmostEqual(plot_scaling.t_975(4), 2.776)

    @unittest.skipUnless(os.environ.get("LAZULI_BIN"), "LAZULI_BIN names no engine")
    def test_the_engines_summary_is_reproduced_and_charted(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "scaling.json")
            subprocess.run([os.environ["LAZULI_BIN"], "scaling", "--threads", "1,2", "--depth", "5",
                            "--positions", "2", "--repeat", "2", "--speed-ms", "50",
                            "--json", path], check=True, capture_output=True, timeout=120)
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
            self.assertEqual(len(data["speed"]), 2 * 2 * 2)
            for mine, theirs in zip(plot_scaling.summarize_json(data), data["summary"]):
                self.assertEqual(mine.threads, theirs["threads"])
                self.assertAlmostEqual(mine.nps, theirs["nps"]["mean"], delta=1e-6 * mine.nps)
                self.assertAlmostEqual(mine.nps_speedup, theirs["nps_speedup"]["mean"], places=9)
                self.assertAlmostEqual(mine.ttd_speedup, theirs["ttd_speedup_median"], places=9)
                self.assertAlmostEqual(mine.node_overhead, theirs["node_overhead"], places=9)
                for got, want in zip(mine.ttd_geomean, [theirs["ttd_speedup_geomean"]["mean"],
                                                        *theirs["ttd_speedup_geomean"]["ci95"]]):
                    # Two positions give a wide interval (up to billions): compare relatively.
                    self.assertAlmostEqual(got, want, delta=1e-9 * abs(want) + 1e-9)
                for got, want in zip(mine.nps_ci, theirs["nps"]["ci95"]):
                    self.assertAlmostEqual(got, want, delta=1e-6 * abs(want) + 1e-6)
            csv_path = os.path.join(folder, "new-folder", "again.csv")
            done = subprocess.run([sys.executable, plot_scaling.__file__, path, "--out-dir", folder,
                                   "--csv-out", csv_path], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            for chart in ("nps", "ttd", "overhead"):
                self.assertGreater(os.path.getsize(os.path.join(folder, f"scaling-{chart}.png")), 0)
            self.assertEqual([row.threads for row in plot_scaling.read_csv(csv_path, "x").rows], [1, 2])

    def test_a_file_of_something_else_is_refused(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "other.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump({"benchmark": "lazuli speedtest"}, handle)
            with self.assertRaises(ValueError):
                plot_scaling.read_json(path, "")


class LadderTest(unittest.TestCase):
    def test_steps_and_concurrency_follow_the_cores(self):
        self.assertEqual(smp_ladder.doublings(16), [1, 2, 4, 8, 16])
        self.assertEqual(smp_ladder.doublings(6), [1, 2, 4])
        self.assertEqual(smp_ladder.step_concurrency(16, 2, None), 8)
        self.assertEqual(smp_ladder.step_concurrency(2, 4, None), 1)
        self.assertEqual(smp_ladder.step_concurrency(16, 2, 3), 3)

    def test_each_step_gives_the_larger_side_more_hash(self):
        args = smp_ladder.main.__globals__["argparse"].Namespace(
            name="x", hash_per_thread=16, tc="10+0.1", pairs=5, seed=1, openings=None, resume=False)
        command = smp_ladder.match_command(args, "/bin/engine", 2, 4, 3, "/tmp/p")
        text = " ".join(command)
        for part in ("name=x-4t", "option.Threads=4", "option.Hash=64", "name=x-2t",
                     "option.Threads=2", "option.Hash=32", "--concurrency 3", "--pairs 5"):
            self.assertIn(part, text)

    def test_bad_thread_lists_are_refused(self):
        for bad in ("1", "2,1", "1,1,2", "0,1"):
            with self.assertRaises(Exception):
                smp_ladder.parse_threads(bad)


if __name__ == "__main__":
    unittest.main()
