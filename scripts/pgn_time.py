#!/usr/bin/env python3
"""How each engine of a match spent its clock, from the PGN that scripts/match.py writes.

For every engine: moves played, mean and median time per move, mean depth, the mean time per
move by stage of the game (move numbers in blocks of --bucket), and the clock left when its
games ended. An engine that ends its games with much of its base time unused plays weaker than
its clock allows. Example:

    .venv/bin/python scripts/pgn_time.py results/match.pgn [more.pgn ...]

Times and depths come from the move comments (`{ +0.23/16 0.295s }`); the clock from the
`WhiteTimeControl`/`BlackTimeControl` tags, or `TimeControl` (BASE+INC in seconds). Games
without a clock (fixed time or nodes per move) count for time per move only.
"""

import argparse
import re
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field

import chess
import chess.pgn

from lazuli_match.timecontrol import TimeControl

COMMENT = re.compile(r"/(\d+|\?) (\d+(?:\.\d+)?)s")


@dataclass
class Usage:
    times: list = field(default_factory=list)
    depths: list = field(default_factory=list)
    by_stage: dict = field(default_factory=lambda: defaultdict(list))
    clock_left: list = field(default_factory=list)


def parse_clock(text):
    """(base, increment) in seconds from a `BASE+INC` tag (as match.py reads `--tc`), or None.

    Move-count controls (`40/60+0.5`) give None too: the clock left at the end of such a game
    depends on the periods, which this report does not follow.
    """
    try:
        tc = TimeControl.parse_clock(text or "")
    except ValueError:
        return None
    if tc.moves is not None:
        return None
    return tc.base, tc.increment


def read_usage(handle, bucket):
    """Usage per engine name over every game in an open PGN file."""
    usage = defaultdict(Usage)
    while (game := chess.pgn.read_game(handle)) is not None:
        names = {chess.WHITE: game.headers.get("White", "?"), chess.BLACK: game.headers.get("Black", "?")}
        shared = game.headers.get("TimeControl")
        clocks = {
            chess.WHITE: parse_clock(game.headers.get("WhiteTimeControl", shared)),
            chess.BLACK: parse_clock(game.headers.get("BlackTimeControl", shared)),
        }
        left = {colour: clock[0] if clock else None for colour, clock in clocks.items()}
        for node in game.mainline():
            parent = node.parent.board()
            match = COMMENT.search(node.comment)
            if not match:
                continue
            mover = parent.turn
            spent = float(match.group(2))
            record = usage[names[mover]]
            record.times.append(spent)
            if match.group(1) != "?":
                record.depths.append(int(match.group(1)))
            record.by_stage[(parent.fullmove_number - 1) // bucket].append(spent)
            if left[mover] is not None:
                left[mover] += clocks[mover][1] - spent
        for colour, remaining in left.items():
            if remaining is not None:
                usage[names[colour]].clock_left.append(remaining)
    return usage


def report(usage, bucket, out=sys.stdout):
    for name in sorted(usage):
        u = usage[name]
        if not u.times:
            continue
        depth = f", mean depth {statistics.mean(u.depths):.2f}" if u.depths else ""
        print(
            f"{name}: {len(u.times)} moves, time per move mean {statistics.mean(u.times):.3f}s "
            f"median {statistics.median(u.times):.3f}s{depth}",
            file=out,
        )
        if u.clock_left:
            print(
                f"  clock left at the end of its {len(u.clock_left)} games: median "
                f"{statistics.median(u.clock_left):.2f}s, mean {statistics.mean(u.clock_left):.2f}s, "
                f"least {min(u.clock_left):.2f}s",
                file=out,
            )
        stages = "  ".join(
            f"{k * bucket + 1}-{(k + 1) * bucket}: {statistics.mean(v):.3f}"
            for k, v in sorted(u.by_stage.items())
            if len(v) >= 20
        )
        print(f"  mean seconds per move by move number (blocks with 20+ moves): {stages}", file=out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pgn", nargs="+")
    parser.add_argument("--bucket", type=int, default=10, help="move numbers per stage (default 10)")
    args = parser.parse_args()
    if args.bucket < 1:
        parser.error("--bucket must be at least 1")
    usage = defaultdict(Usage)
    for path in args.pgn:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for name, u in read_usage(handle, args.bucket).items():
                mine = usage[name]
                mine.times += u.times
                mine.depths += u.depths
                mine.clock_left += u.clock_left
                for stage, times in u.by_stage.items():
                    mine.by_stage[stage] += times
    report(usage, args.bucket)
    return 0


if __name__ == "__main__":
    sys.exit(main())
