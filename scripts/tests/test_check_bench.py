"""Tests of scripts/check-bench.sh, the bench signature CI checks: `lazuli bench` against the
`Bench:` line of the newest commit that has one, in throwaway git repositories with a fake engine.

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import os
import shutil
import subprocess
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "check-bench.sh")
GIT = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.org", "-c", "commit.gpgsign=false"]


class CheckBenchTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.root)
        self.repo = os.path.join(self.root, "repo")
        os.makedirs(os.path.join(self.repo, "scripts"))
        shutil.copy(SCRIPT, os.path.join(self.repo, "scripts"))
        self.engine = os.path.join(self.root, "engine")
        self.bench(4086124)

    def bench(self, nodes):
        """The fake engine's bench prints this many nodes."""
        with open(self.engine, "w", encoding="utf-8") as handle:
            handle.write(f"#!/bin/sh\necho 'position  1 nodes 10'\necho\necho '{nodes} nodes 2000000 nps'\n")
        os.chmod(self.engine, 0o755)

    def git(self, *args, cwd=None):
        subprocess.run([*GIT, *args], cwd=cwd or self.repo, check=True, capture_output=True)

    def commit(self, message):
        if not os.path.isdir(os.path.join(self.repo, ".git")):
            self.git("init", "-q")
        with open(os.path.join(self.repo, "file"), "a", encoding="utf-8") as handle:
            handle.write(message)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)

    def check(self, repo=None):
        script = os.path.join(repo or self.repo, "scripts", "check-bench.sh")
        return subprocess.run(["bash", script, self.engine], capture_output=True, text=True, timeout=60)

    def test_the_newest_bench_line_is_the_one_checked(self):
        self.commit("Search: a change\n\nBench: 4000000")
        self.commit("Search: another change\n\nBench: 4086124")
        self.commit("Docs: no bench line")
        done = self.check()
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("4086124", done.stdout)

    def test_a_wrong_or_forgotten_bench_fails(self):
        self.commit("Search: a change\n\nBench: 4086124")
        self.bench(4100000)
        self.commit("Search: a change that forgets its bench")
        done = self.check()
        self.assertEqual(done.returncode, 1)
        self.assertIn("Bench: 4100000", done.stderr)
        self.commit("Search: the bench misstated\n\nBench: 4099999")
        self.assertEqual(self.check().returncode, 1)
        self.commit("Search: the bench stated\n\nBench: 4100000")
        self.assertEqual(self.check().returncode, 0)

    def test_without_history_it_fails_and_says_why(self):
        done = self.check()  # no repository at all
        self.assertEqual(done.returncode, 1)
        self.assertIn("no git history", done.stderr)
        self.commit("Initial commit without a bench")
        done = self.check()
        self.assertEqual(done.returncode, 1)
        self.assertIn("no commit message has a 'Bench: <nodes>' line", done.stderr)

    def test_a_shallow_clone_without_a_bench_line_asks_for_more_history(self):
        self.commit("Search: a change\n\nBench: 4086124")
        self.commit("Docs: no bench line")
        clone = os.path.join(self.root, "clone")
        self.git("clone", "-q", "--depth", "1", "file://" + self.repo, clone, cwd=self.root)
        done = self.check(clone)
        self.assertEqual(done.returncode, 1)
        self.assertIn("shallow", done.stderr)


if __name__ == "__main__":
    unittest.main()
