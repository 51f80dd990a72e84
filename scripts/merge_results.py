#!/usr/bin/env python3
"""Combine the JSON summaries of several runs of one match into one result.

A long match (300 games of 2 threads against 1, say) may not fit into one sitting. Play it in
parts with the same engines, options and time control, each part starting where the previous
one stopped (``match.py --openings-start``), then add the parts up:

    .venv/bin/python scripts/match.py ... --pairs 80 --json part1.json
    .venv/bin/python scripts/match.py ... --pairs 70 --openings-start 81 --json part2.json
    .venv/bin/python scripts/merge_results.py part1.json part2.json --json all.json

Pairs are independent samples, so summing the pentanomial counts of the parts gives the same
statistics as one long run. The parts must describe the same engines (names and options; the
directory of a command is ignored) and time control (checked; ``--force`` skips the check).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Dict, List, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lazuli_match.report import elo_fields, matchup_lines  # noqa: E402
from lazuli_match.stats import PENTA_LABELS  # noqa: E402

COUNTS = ("games", "wins", "draws", "losses", "pairs")


def setup(part: dict) -> tuple:
    """What must agree between parts: the time control, and each engine's name and options.
    Directories are left out of the commands (``smp_match.sh`` runs a copy of the binary from a
    fresh temporary directory each time), so the binary itself is not compared: use a frozen one."""
    engines = tuple(" ".join(os.path.basename(word) if "/" in word else word for word in text.split(" "))
                    for text in part.get("engines") or [])
    return part.get("time_control"), engines


def merge(parts: Sequence[dict], force: bool = False) -> dict:
    """The parts' matchups added up, in the order they first appear."""
    if not parts:
        raise ValueError("nothing to merge")
    first = parts[0]
    for part in parts[1:]:
        if setup(part) != setup(first) and not force:
            raise ValueError(f"the parts differ: {setup(first)!r} vs {setup(part)!r}")
    merged: Dict[Tuple[str, str], dict] = {}
    for part in parts:
        for row in part.get("matchups", []):
            key = (row["engine"], row["opponent"])
            total = merged.setdefault(key, {
                "engine": row["engine"], "opponent": row["opponent"],
                **{name: 0 for name in COUNTS},
                "pentanomial": {label: 0 for label in PENTA_LABELS},
                "bugs": {},
            })
            for name in COUNTS:
                total[name] += int(row.get(name) or 0)
            for label in PENTA_LABELS:
                total["pentanomial"][label] += int(row.get("pentanomial", {}).get(label, 0))
            for engine, kinds in (row.get("bugs") or {}).items():
                into = total["bugs"].setdefault(engine, {})
                for kind, count in kinds.items():
                    into[kind] = into.get(kind, 0) + int(count)
    rows: List[dict] = []
    for total in merged.values():
        total["score"] = (total["wins"] + 0.5 * total["draws"]) / total["games"] if total["games"] else None
        total.update(elo_fields([total["pentanomial"][label] for label in PENTA_LABELS]))
        rows.append(total)
    return {
        "time_control": first.get("time_control"),
        "engines": first.get("engines"),
        "parts": len(parts),
        "matchups": rows,
    }


def describe(result: dict) -> str:
    lines = [f"{result['parts']} part(s), {result['time_control']}"]
    for row in result["matchups"]:
        lines.extend(matchup_lines(row))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("parts", nargs="+", help="JSON files written by match.py --json")
    parser.add_argument("--json", default=None, help="write the merged summary here")
    parser.add_argument("--force", action="store_true", help="merge parts that differ in engines or time control")
    args = parser.parse_args(argv)
    try:
        parts = []
        for path in args.parts:
            with open(path, encoding="utf-8") as handle:
                parts.append(json.load(handle))
        result = merge(parts, force=args.force)
    except (OSError, ValueError, KeyError) as error:
        print(f"merge_results: {error}", file=sys.stderr)
        return 1
    print(describe(result))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
