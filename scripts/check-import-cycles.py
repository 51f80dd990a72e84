#!/usr/bin/env python3
"""Fails when two source files of a workspace crate import each other, directly or round a
longer circle: a type both need belongs in a file of its own. Reads the `crate::`, `super::`
and `self::` paths of each crate's non-test code; a file's own parents (which declare it) do
not count.

usage: scripts/check-import-cycles.py [WORKSPACE]   (default: the repository root)"""

import re
import sys
from pathlib import Path

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z_0-9]*)*)(::\{)?")
COMMENT = re.compile(r"//[^\n]*")
TESTS = re.compile(r"#\[cfg\(test\)\]\s*mod\s+tests\s*\{")


def module_of(src: Path, file: Path) -> tuple:
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return tuple(parts)


def group(code: str, start: int) -> str:
    """The text of the `{...}` group that opens at `start`, without its braces."""
    depth = 0
    for i in range(start, len(code)):
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        if depth == 0:
            return code[start + 1 : i]
    return ""


def split_top(text: str) -> list:
    """`text` cut at the commas outside braces."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return parts + [current]


def expand(prefix: list, text: str) -> list:
    """The paths a group names after `prefix`, nested groups included."""
    found = []
    for part in split_top(text):
        part = part.strip()
        if not part or part == "self":
            found.append(prefix)
            continue
        head, _, rest = part.partition("{")
        names = [n.strip() for n in head.split("::") if n.strip() and n.strip() != "*"]
        names = [n.split(" as ")[0].strip() for n in names]
        if rest:
            found += expand(prefix + names, rest[: rest.rfind("}")])
        else:
            found.append(prefix + names)
    return found


def paths(code: str):
    """Every `crate::`, `super::` and `self::` path in `code`, groups expanded."""
    for match in PATH.finditer(code):
        root, path = match.group(1), [p for p in match.group(2).split("::") if p]
        if match.group(3):
            for full in expand(path, group(code, match.end() - 1)):
                yield root, full
        else:
            yield root, path


def imports(src: Path) -> dict:
    """Each file module of the crate at `src`, with the file modules its code names."""
    files = {module_of(src, f): f for f in sorted(src.rglob("*.rs"))}
    edges = {}
    for module, file in files.items():
        code = COMMENT.sub("", TESTS.split(file.read_text(encoding="utf-8"))[0])
        edges[module] = set()
        for root, path in paths(code):
            # `super` in a/b.rs and in b/mod.rs alike names the module's parent.
            base = {"crate": [], "self": list(module), "super": list(module)[:-1]}[root]
            while path and path[0] == "super":
                base, path = base[:-1], path[1:]
            full = base + path
            target = next((tuple(full[:k]) for k in range(len(full), 0, -1) if tuple(full[:k]) in files), None)
            if target is None or target == module or module[: len(target)] == target:
                continue
            edges[module].add(target)
    return edges


def circles(edges: dict) -> list:
    """The strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main(argv: list) -> int:
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    root = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent
    failed = False
    for src in sorted(root.glob("*/src")):
        edges = imports(src)
        for group in circles(edges):
            failed = True
            name = lambda m: "/".join(m) or "lib"
            print(f"{src.parent.name}: import circle among {', '.join(name(m) for m in group)}")
            for a in group:
                for b in sorted(edges[a] & set(group)):
                    print(f"    {name(a)} -> {name(b)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
