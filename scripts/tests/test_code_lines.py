"""Tests of scripts/code_lines.py: what counts as a code line, on a small tree written here."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "code_lines.py"

SESSION = """\
//! The session.
use std::fmt;

/// A session.
pub struct Session {
    /// One.
    pub(crate) one: usize,
    two: Vec<(u8, u8)>,
    three: std::collections::HashMap<
        String,
        usize,
    >,
    #[cfg(feature = "x")]
    four: Option<Box<dyn Fn(u8) -> u8>>,
}

/* a block comment
   over two lines */
fn text() -> &'static str {
    "// not a comment { and not a brace"
}

#[cfg(test)]
mod inline {
    #[test]
    fn counted_never() {
        let _ = '{';
    }
}

#[cfg(test)]
mod separate;
"""

POOL = """\
pub fn pool() {}

#[cfg(test)]
fn helper() -> u8 {
    1
}

#[cfg(test)]
use std::fmt;
"""


class CodeLinesTest(unittest.TestCase):
    def test_counts_code_only(self):
        with tempfile.TemporaryDirectory() as root:
            root = Path(root)
            files = {
                "uci/src/session.rs": SESSION,
                "uci/src/session/separate.rs": "fn not_counted() {}\n",
                "uci/tests/protocol.rs": "fn not_counted() {}\n",
                "lazuli/src/main.rs": "fn main() {}\n",
                "uci/build.rs": "fn main() {}\n",
                "smp/src/pool.rs": POOL,
                "smp/src/lib.rs": "// only a comment\n\npub mod pool;\n",
            }
            for name, text in files.items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(textwrap.dedent(text))
            done = subprocess.run([sys.executable, str(SCRIPT), "--root", str(root), "--json"],
                                  capture_output=True, text=True, check=True)
            figures = json.loads(done.stdout)
            # session.rs: `use`, the struct (10 lines: no doc comment), `fn text` (3).
            self.assertEqual(figures["uci"], 1 + 10 + 3)
            self.assertEqual(figures["smp"], 2)
            self.assertEqual(figures["pool"], 1)
            self.assertEqual(figures["smp+uci"], 16)
            self.assertEqual(figures["binary"], 1)
            self.assertEqual(figures["session fields"], 4)

    def test_the_repository_is_counted(self):
        done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=True)
        self.assertRegex(done.stdout, r"smp\+uci\s+\d+\s+\(target <= 4000\)")
        self.assertRegex(done.stdout, r"session fields\s+\d+")


if __name__ == "__main__":
    unittest.main()
