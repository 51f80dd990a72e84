"""Tests of scripts/datagen.sh, self-play data in the background: start, status, stop, resume,
the choice of seeds and the damage check, in a temporary data directory with the release binary
that LAZULI_BIN names (test-all.sh sets it), at 100 nodes a move (LAZULI_TEST_NODES) so that
a game takes milliseconds on one thread.

Run: LAZULI_BIN=target/release/lazuli .venv/bin/python -m unittest discover -s scripts/tests
"""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "datagen.sh")


def alive(pid):
    """Whether the process runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@unittest.skipUnless(os.environ.get("LAZULI_BIN"), "LAZULI_BIN names no engine")
class DatagenScriptTest(unittest.TestCase):
    def setUp(self):
        self.binary = os.path.abspath(os.environ["LAZULI_BIN"])
        self.dir = tempfile.mkdtemp(prefix="lazuli-datagen-test-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.addCleanup(self.script, "stop")

    def script(self, command, *args, nodes="100"):
        # The temporary directory, named on the command line, overrides any data directory the
        # environment names.
        env = {k: v for k, v in os.environ.items() if k != "LAZULI_TEST_NODES"}
        if nodes is not None:
            env["LAZULI_TEST_NODES"] = nodes
        return subprocess.run(["bash", SCRIPT, command, "--dir", self.dir, *args],
                              capture_output=True, text=True, timeout=60, env=env)

    def ok(self, *args):
        done = self.script(*args)
        self.assertEqual(done.returncode, 0, f"datagen.sh {' '.join(args)}: {done.stdout}{done.stderr}")
        return done.stdout

    def start(self, *args):
        return self.ok("start", "--threads", "1", *args)

    def status(self):
        """{file: (state, games done, positions)} and the total line's (games, positions)."""
        seeds, total = {}, None
        for line in self.ok("status").splitlines():
            fields = line.split()
            if re.fullmatch(r"s\d+\.vf", fields[0]):
                seeds[fields[0]] = (fields[1], int(fields[2].split("/")[0]), int(fields[3]))
            elif fields[0] == "total":
                total = (int(fields[-2]), int(fields[-1]))
        return seeds, total

    def wait_for(self, condition, what, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            seeds = self.status()[0]
            if condition(seeds):
                return seeds
            time.sleep(0.2)
        self.fail(f"{what} within {timeout} s: {self.status()}")

    def path(self, name):
        return os.path.join(self.dir, name)

    def read(self, name):
        with open(self.path(name), encoding="utf-8") as handle:
            return handle.read()

    def seed_files(self):
        return sorted(n for n in os.listdir(self.dir) if re.match(r"s\d+\.", n))

    def test_start_status_stop_and_a_second_start_resumes_the_same_seed(self):
        out = self.start("--binary", self.binary, "--games", "100000")
        self.assertIn("new seed 300", out)
        self.assertIn("--nodes 100 --threads 1 --seed 300 --syzygy syzygy", out)
        frozen = self.read("s300.binary").strip()
        self.assertRegex(frozen, r"^lazuli-")
        self.assertTrue(os.access(self.path(frozen), os.X_OK))
        self.assertTrue(os.listdir(self.path("syzygy")))
        pid = int(self.read("datagen.pid"))
        self.assertTrue(alive(pid))
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            nice = int(handle.read().rsplit(")", 1)[1].split()[16])
        self.assertEqual(nice, min(19, os.nice(0) + 19))

        seeds = self.wait_for(lambda s: s.get("s300.vf", ("", 0, 0))[2] > 0, "positions in s300.vf")
        self.assertEqual(seeds["s300.vf"][0], "running")

        refused = self.script("start", "--threads", "1")
        self.assertEqual(refused.returncode, 1)
        self.assertIn("already writes", refused.stderr)

        self.assertIn("stopped s300.vf", self.ok("stop"))
        self.assertFalse(alive(pid))
        self.assertFalse(os.path.exists(self.path("datagen.pid")))
        seeds, total = self.status()
        state, games, positions = seeds["s300.vf"]
        self.assertEqual(state, "stopped")
        self.assertGreater(positions, 0)
        self.assertEqual(total, (games, positions))
        settings = self.read("s300.vf.settings")

        out = self.start()
        self.assertIn(f"resuming seed 300: s300.vf ({games} games done) with {frozen}", out)
        self.assertIn("--games 100000 --nodes 100", out)
        self.wait_for(lambda s: s["s300.vf"][1] > games, "more games in s300.vf")
        self.ok("stop")
        self.assertEqual(self.read("s300.binary").strip(), frozen)
        self.assertEqual(self.read("s300.vf.settings"), settings)
        self.assertEqual([n for n in self.seed_files() if not n.startswith("s300.")], [])
        self.assertIn("0 damaged", self.ok("check"))

    def test_the_defaults_are_the_corpus_settings(self):
        done = self.script("start", "--binary", self.binary, "--threads", "1", nodes=None)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("--output s300.vf --games 1000000 --nodes 5000 --threads 1 --seed 300 --syzygy syzygy",
                      done.stdout)
        self.ok("stop")
        settings = self.read("s300.vf.settings").splitlines()
        for line in ["seed 300", "nodes 5000", "hard-nodes 100000", "random-plies 8", "dfrc-percent 10",
                     "syzygy syzygy"]:
            self.assertIn(line, settings)

    def test_a_finished_or_used_seed_is_never_begun_again(self):
        self.assertIn("new seed 300", self.start("--binary", self.binary, "--games", "2"))
        self.wait_for(lambda s: s.get("s300.vf", ("",))[0] == "finished", "s300.vf finished")
        self.assertIn("new seed 301", self.start("--games", "2"))
        self.wait_for(lambda s: s.get("s301.vf", ("",))[0] == "finished", "s301.vf finished")
        # A seed whose data file went elsewhere still counts as used.
        with open(self.path("s305.vf.settings"), "w", encoding="utf-8") as handle:
            handle.write("seed 305\n")
        refused = self.script("start", "--seed", "305")
        self.assertEqual(refused.returncode, 1)
        self.assertIn("never begun again", refused.stderr)
        self.assertEqual(self.script("start", "--seed", "299").returncode, 1)
        self.assertIn("new seed 306", self.start("--games", "2"))
        seeds = self.wait_for(lambda s: s.get("s306.vf", ("",))[0] == "finished", "s306.vf finished")
        self.assertEqual(sorted(seeds), ["s300.vf", "s301.vf", "s306.vf"])
        self.assertEqual(self.status()[1], (6, sum(s[2] for s in seeds.values())))

    def test_check_passes_a_cut_short_last_game_and_fails_damage_before_it(self):
        self.start("--binary", self.binary, "--games", "2")
        self.wait_for(lambda s: s.get("s300.vf", ("",))[0] == "finished", "s300.vf finished")
        data = self.path("s300.vf")
        with open(data, "rb") as handle:
            first_game = handle.read(40)
        with open(data, "ab") as handle:
            handle.write(first_game)  # a game that a stop cut short
        out = self.ok("check")
        self.assertIn("40 bytes after the last complete game", out)
        with open(data, "r+b") as handle:
            handle.seek(32)
            handle.write(b"\xff\xff")  # the first move, now illegal
        done = self.script("check")
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertIn("DAMAGED: corrupt: game 0", done.stdout)

    def test_a_datagen_started_by_hand_is_found_and_its_binary_recorded(self):
        shutil.copy(self.binary, self.path("lazuli-byhand"))
        command = [self.path("lazuli-byhand"), "datagen", "--output", "s300.vf", "--games", "100000",
                   "--nodes", "100", "--threads", "1", "--seed", "300"]
        process = subprocess.Popen(command, cwd=self.dir, stderr=subprocess.DEVNULL)
        self.addCleanup(process.wait)
        self.addCleanup(lambda: process.poll() is None and process.send_signal(signal.SIGKILL))
        self.wait_for(lambda s: s.get("s300.vf", ("", 0, 0))[0] == "running", "s300.vf running")
        self.assertEqual(self.script("start").returncode, 1)
        self.assertIn("stopped s300.vf", self.ok("stop"))
        self.assertFalse(alive(process.pid))
        self.assertEqual(self.read("s300.binary").strip(), "lazuli-byhand")
        out = self.start()
        self.assertIn("resuming seed 300", out)
        self.assertIn("./lazuli-byhand datagen", out)


if __name__ == "__main__":
    unittest.main()
