#!/usr/bin/env python3
"""Code lines of the layer around the search: `smp/` and `uci/`, the pool within `smp/`, and
the fields of the UCI `Session`; beside them, the binary crate `lazuli/` that dispatches to it.

A code line is a line of Rust source that holds something besides comments and white space,
outside test code and build scripts: files under a crate's `tests/`, files that a
`#[cfg(test)] mod NAME;` brings in, every item that `#[cfg(test)]` marks, and `build.rs` are left
out.

usage: scripts/code_lines.py [--root DIR] [--json]
"""

import argparse
import json
import re
import sys
from pathlib import Path

# What the layer is measured against (the restructuring's targets).
TARGETS = {"smp+uci": 4000, "pool": 500, "session fields": 12}
# The pool: the threads, their start, stop and vote.
POOL_FILES = ["smp/src/pool.rs", "smp/src/thread.rs", "smp/src/helpers.rs", "smp/src/vote.rs"]
SESSION_FILE = "uci/src/session.rs"


def strip_comments(text):
    """`text` with every comment replaced by spaces (line breaks kept), strings left whole."""
    out = []
    i, n = 0, len(text)
    depth = 0  # nesting of block comments
    while i < n:
        c = text[i]
        two = text[i:i + 2]
        if depth:
            if two == "/*":
                depth += 1
                i += 2
            elif two == "*/":
                depth -= 1
                i += 2
            else:
                out.append("\n" if c == "\n" else " ")
                i += 1
            continue
        if two == "//":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if two == "/*":
            depth = 1
            i += 2
            continue
        raw = re.match(r'b?r(#*)"', text[i:i + 40])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find('"' + raw.group(1), i + raw.end())
            end = n if end < 0 else end + 1 + len(raw.group(1))
            out.append(text[i:end])
            i = end
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
            continue
        if c == "'":
            # A character literal ('a', '\n', '\u{..}'), not a lifetime ('a without a closing quote).
            m = re.match(r"'(\\[^']{1,10}|[^\\'])'", text[i:i + 14])
            if m:
                out.append(m.group(0))
                i += m.end()
                continue
        out.append(c)
        i += 1
    return "".join(out)


def mask_literals(line):
    """`line` with the inside of string and character literals blanked (for brace counting)."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    return re.sub(r"'(\\[^']{1,10}|[^\\'])'", "' '", line)


def drop_test_items(lines):
    """`lines` without the items `#[cfg(test)]` marks, and the modules they declare by name."""
    kept, test_mods = [], []
    i = 0
    while i < len(lines):
        if re.match(r"\s*#\[cfg\(test\)\]\s*$", lines[i]):
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].strip().startswith("#[")):
                j += 1
            if j < len(lines):
                m = re.match(r"\s*(pub(\([^)]*\))?\s+)?mod\s+(\w+)\s*;", lines[j])
                if m:
                    test_mods.append(m.group(3))
                    i = j + 1
                    continue
            # Skip the item: up to its `;` at depth 0, or its closing brace.
            depth, started = 0, False
            while j < len(lines):
                text = mask_literals(lines[j])
                depth += text.count("{") - text.count("}")
                started = started or "{" in text
                j += 1
                if (started and depth <= 0) or (not started and text.rstrip().endswith(";")):
                    break
            i = j
            continue
        kept.append(lines[i])
        i += 1
    return kept, test_mods


def module_files(path, names):
    """The files of the modules `names` that `path` declares."""
    base = path.parent if path.name in ("mod.rs", "lib.rs", "main.rs") else path.parent / path.stem
    found = []
    for name in names:
        for candidate in (base / f"{name}.rs", base / name / "mod.rs"):
            if candidate.exists():
                found.append(candidate)
    return found


def count_crate(crate):
    """Code lines per file of one crate's non-test sources."""
    files = sorted(p for p in crate.rglob("*.rs") if "tests" not in p.relative_to(crate).parts[:1]
                   and "target" not in p.parts and p.name != "build.rs")
    excluded, counts = set(), {}
    for path in files:
        if path in excluded:
            continue
        lines, test_mods = drop_test_items(strip_comments(path.read_text()).splitlines())
        for test_file in module_files(path, test_mods):
            excluded.add(test_file)
            if test_file.name == "mod.rs":
                excluded.update(test_file.parent.rglob("*.rs"))
        counts[path] = sum(1 for line in lines if line.strip())
    return {p: c for p, c in counts.items() if p not in excluded}


def session_fields(path):
    """The fields of `pub struct Session`."""
    text = strip_comments(path.read_text())
    m = re.search(r"pub struct Session\s*\{", text)
    if not m:
        return None
    depth, i, body = 1, m.end(), []
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        body.append(text[i])
        i += 1
    fields, depth = 0, 0
    for line in "".join(body[:-1]).splitlines():
        if depth == 0 and re.match(r"\s*(pub(\([^)]*\))?\s+)?\w+\s*:", line) and not line.strip().startswith("#"):
            fields += 1
        depth += line.count("{") + line.count("(") + line.count("<") - line.count("}") - line.count(")") - line.count(">")
        depth = max(depth, 0)
    return fields


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    root = args.root
    per_crate = {name: count_crate(root / name) for name in ("smp", "uci")}
    figures = {name: sum(counts.values()) for name, counts in per_crate.items()}
    figures["smp+uci"] = figures["smp"] + figures["uci"]
    pool = {root / f for f in POOL_FILES}
    figures["pool"] = sum(c for p, c in per_crate["smp"].items() if p in pool)
    figures["session fields"] = session_fields(root / SESSION_FILE)
    binary = root / "lazuli"
    figures["binary"] = sum(count_crate(binary).values()) if binary.is_dir() else 0
    if args.json:
        print(json.dumps(figures))
        return 0
    print("code lines (no comments, blank lines or test code):")
    for name in ("smp", "uci", "smp+uci", "pool", "session fields", "binary"):
        target = f"   (target <= {TARGETS[name]})" if name in TARGETS else ""
        print(f"  {name:<15} {figures[name]:>6}{target}")
    largest = sorted(((c, p.relative_to(root)) for counts in per_crate.values() for p, c in counts.items()),
                     reverse=True)[:8]
    print("largest files: " + ", ".join(f"{p} {c}" for c, p in largest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
