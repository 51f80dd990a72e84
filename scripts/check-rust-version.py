#!/usr/bin/env python3
"""Checks that the workspace's declared `rust-version` is true: no locked dependency needs a newer
Rust than the workspace declares (cargo only checks the toolchain at hand against each package,
so a declaration that is too low passes every build on a newer toolchain).

usage: scripts/check-rust-version.py        (reads `cargo metadata` of the current directory)
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import List, Optional, Tuple


def version(text: Optional[str]) -> Tuple[int, ...]:
    """`1.85` and `1.85.0` alike, as (1, 85, 0)."""
    parts = [int(part) for part in (text or "0").split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def too_new(metadata: dict) -> Tuple[str, List[str]]:
    """The workspace's declared version and the dependencies that need a newer one."""
    members = set(metadata["workspace_members"])
    declared = max(version(p.get("rust_version")) for p in metadata["packages"] if p["id"] in members)
    needing = [f"{p['name']} {p['version']} needs Rust {p['rust_version']}"
               for p in metadata["packages"]
               if p["id"] not in members and version(p.get("rust_version")) > declared]
    return ".".join(map(str, declared)).removesuffix(".0"), needing


def main(argv: List[str]) -> int:
    if argv[1:] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if argv[1:]:
        print("check-rust-version: takes no arguments (--help)", file=sys.stderr)
        return 2
    out = subprocess.run(["cargo", "metadata", "--format-version", "1", "--locked"],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(f"check-rust-version: cargo metadata failed: {out.stderr.strip()}", file=sys.stderr)
        return 1
    declared, needing = too_new(json.loads(out.stdout))
    if needing:
        print(f"check-rust-version: the workspace declares Rust {declared}, but "
              + "; ".join(needing), file=sys.stderr)
        return 1
    print(f"check-rust-version: Rust {declared} covers every locked dependency")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
