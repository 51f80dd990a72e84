"""Every tool in scripts/ answers --help with its usage on standard output and exit status 0,
without doing any of its work (test-all.sh and openbench-check.sh would otherwise build and test).

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import os
import subprocess
import sys
import unittest

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tools():
    for name in sorted(os.listdir(SCRIPTS)):
        path = os.path.join(SCRIPTS, name)
        if name.endswith(".sh"):
            yield name, ["bash", path]
        elif name.endswith(".py"):
            yield name, [sys.executable, path]


class HelpTest(unittest.TestCase):
    def test_every_tool_prints_its_help_and_exits_0(self):
        names = []
        for name, command in tools():
            names.append(name)
            with self.subTest(tool=name):
                done = subprocess.run(
                    [*command, "--help"], capture_output=True, text=True, timeout=60, cwd=SCRIPTS
                )
                self.assertEqual(done.returncode, 0, f"{name} --help: {done.stderr}")
                self.assertGreater(len(done.stdout.strip()), 40, f"{name} --help printed {done.stdout!r}")
        self.assertIn("match.py", names)
        self.assertIn("test-all.sh", names)


if __name__ == "__main__":
    unittest.main()
