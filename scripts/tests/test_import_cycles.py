"""scripts/check-import-cycles.py finds files of a crate that import each other, directly or
round a circle, and nothing else.

Run: .venv/bin/python -m unittest discover -s scripts/tests
"""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

CHECK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "check-import-cycles.py")


def crate(root: Path, files: dict):
    for name, text in files.items():
        path = root / "demo" / "src" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def check(root: Path):
    return subprocess.run([sys.executable, CHECK, str(root)], capture_output=True, text=True)


class ImportCycleTest(unittest.TestCase):
    def test_a_circle_through_a_child_module_fails_and_names_its_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            crate(
                Path(tmp),
                {
                    "lib.rs": "mod pool;\nmod board;\n",
                    "pool.rs": "use crate::board::moves::Move;\npub struct Shared;\n",
                    "board/mod.rs": "pub mod moves;\n",
                    "board/moves.rs": "use super::super::pool::Shared;\npub struct Move;\n",
                },
            )
            done = check(Path(tmp))
            self.assertEqual(done.returncode, 1, done.stdout)
            self.assertIn("board/moves -> pool", done.stdout)
            self.assertIn("pool -> board/moves", done.stdout)

    def test_a_circle_through_grouped_imports_fails_and_comments_do_not_count(self):
        with tempfile.TemporaryDirectory() as tmp:
            crate(
                Path(tmp),
                {
                    "lib.rs": "mod a;\nmod b;\nmod c;\n",
                    "a.rs": "use crate::{b::{B, Other as _}, c::C};\npub struct A;\n",
                    "b.rs": "use super::{a::A};\npub struct B;\n",
                    # Only a comment names `a` here: no circle through c.
                    "c.rs": "// see crate::a::A\npub struct C;\n",
                },
            )
            done = check(Path(tmp))
            self.assertEqual(done.returncode, 1, done.stdout)
            self.assertIn("a -> b", done.stdout)
            self.assertIn("b -> a", done.stdout)
            self.assertNotIn("c -> a", done.stdout)

    def test_one_way_imports_parents_and_test_modules_pass(self):
        with tempfile.TemporaryDirectory() as tmp:
            crate(
                Path(tmp),
                {
                    "lib.rs": "mod pool;\nmod shared;\npub use pool::Pool;\n",
                    "pool.rs": "use crate::shared::Shared;\npub struct Pool;\n",
                    # Naming its parent, or the other file only in its tests, is no circle.
                    "shared.rs": "use crate::Pool as _;\npub struct Shared;\n"
                    "#[cfg(test)]\nmod tests {\n    use crate::pool::Pool;\n}\n",
                },
            )
            done = check(Path(tmp))
            self.assertEqual(done.returncode, 0, done.stdout)


if __name__ == "__main__":
    unittest.main()
