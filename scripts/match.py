#!/usr/bin/env python3
"""Engine-vs-engine matches over UCI (python-chess). See docs/tools.md.

Example: Lazuli against Toga II at 10+0.1 s, 100 pairs from the project's openings:

    .venv/bin/python scripts/match.py \\
        --engine name=lazuli cmd=/work/bin/lazuli-7b85f59 \\
        --engine name=toga2 cmd=/usr/games/toga2 option.OwnBook=false \\
                 "option.Number of Threads=1" \\
        --each option.Hash=16 --tc 10+0.1 --pairs 100 --pgn /tmp/lazuli-toga.pgn

Exit status: 0 when every game was played cleanly, 2 when an engine crashed, sent an illegal
move or lost on time (see the ``.bugs.txt`` file next to the PGN), 1 on a setup error, 3 when the
runner itself failed during the match (an engine that cannot start, for example).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import List, Optional, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lazuli_match import transcript  # noqa: E402
from lazuli_match.adjudication import AdjudicationRules  # noqa: E402
from lazuli_match.engines import EngineSpec  # noqa: E402
from lazuli_match.game import GameSettings  # noqa: E402
from lazuli_match.openings import load_openings, order_openings  # noqa: E402
from lazuli_match.resume import finished_pairs  # noqa: E402
from lazuli_match.runner import MatchConfig, MatchRunner  # noqa: E402
from lazuli_match.stats import Sprt  # noqa: E402
from lazuli_match.timecontrol import TimeControl  # noqa: E402

DEFAULT_OPENINGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openings-large.epd")


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Play engine-vs-engine matches over UCI.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--engine", action="append", nargs="+", required=True, metavar="KEY=VALUE",
                   help="an engine: name=X cmd=PATH [arg=A] [dir=D] [option.Name=Value ...]; "
                        "give it two or more times; the first engine is the one reported on")
    p.add_argument("--each", nargs="+", action="extend", default=[], metavar="KEY=VALUE",
                   help="settings for every engine (an engine's own settings win); may be given "
                        "more than once, e.g. after a wrapper script's own --each")
    p.add_argument("--gauntlet", action="store_true",
                   help="the first engine plays each of the others (default: exactly two)")
    limit = p.add_mutually_exclusive_group(required=True)
    limit.add_argument(
        "--tc", help="clock [MOVES/]BASE+INC in seconds, e.g. 10+0.1, or 40/10+0.1 (movestogo)"
    )
    limit.add_argument("--movetime", type=float, help="fixed seconds per move")
    limit.add_argument("--nodes", type=int, help="fixed nodes per move")
    limit.add_argument("--depth", type=int,
                       help="fixed depth per move (the main thread's, with several threads)")
    p.add_argument("--openings", default=DEFAULT_OPENINGS, help="EPD/FEN file, one per line")
    p.add_argument("--openings-order", choices=("sequential", "random"), default="sequential")
    p.add_argument("--openings-start", type=int, default=1, help="first opening (1-based)")
    p.add_argument("--seed", type=int, default=None, help="seed for --openings-order random")
    p.add_argument("--allow-reuse", action="store_true",
                   help="let a run with more pairs than openings play openings again (pairs on "
                        "one opening are correlated: the error bars come out too narrow)")
    count = p.add_mutually_exclusive_group()
    count.add_argument("--pairs", type=int, help="game pairs per opponent")
    count.add_argument("--games", type=int, help="games per opponent (rounded up to pairs)")
    p.add_argument("--concurrency", type=int, default=1, help="games played at once")
    p.add_argument("--ponder", action="store_true",
                   help="engines think on the opponent's time (go ponder, then ponderhit or stop); "
                        "needs --tc, and a game then keeps two cores busy: set --concurrency to "
                        "at most half the cores")
    p.add_argument("--max-minutes", type=float, default=None,
                   help="start no new pair after this many minutes (started pairs finish)")
    p.add_argument("--pgn", default=None, help="append games to this PGN file")
    p.add_argument("--resume", action="store_true",
                   help="count the pairs that an earlier run of this same command finished in "
                        "its --pgn file and play only the rest (no file yet: start afresh)")
    p.add_argument("--json", default=None, help="write the final summary as JSON here")
    p.add_argument("--event", default="Lazuli match", help="PGN Event tag")
    p.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"), default=None,
                   help="run an SPRT and stop when it decides (two engines only)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--beta", type=float, default=0.05)
    p.add_argument("--sprt-model", choices=("normalized", "logistic"), default="normalized")
    p.add_argument("--stop-on-bug", action="append", default=[], metavar="NAME",
                   help="stop at once if this engine crashes, moves illegally or flags")
    p.add_argument("--hang-timeout", type=float, default=5.0,
                   help="kill an engine this long after its clock (or movetime) ran out")
    adj = p.add_argument_group("adjudication")
    adj.add_argument("--no-adjudication", action="store_true")
    adj.add_argument("--resign-score", type=int, default=1000, help="centipawns")
    adj.add_argument("--resign-moves", type=int, default=4, help="consecutive moves per side")
    adj.add_argument("--draw-score", type=int, default=10, help="centipawns")
    adj.add_argument("--draw-moves", type=int, default=8, help="consecutive moves per side")
    adj.add_argument("--draw-move-number", type=int, default=40, help="earliest full move")
    return p.parse_args(argv)


def build_config(args: argparse.Namespace) -> MatchConfig:
    if any(word.startswith(("name=", "cmd=")) for word in args.each):
        raise ValueError("--each cannot set name= or cmd=")
    # --each comes first, so an engine's own settings override it.
    engines: List[EngineSpec] = [EngineSpec.parse(list(args.each) + words) for words in args.engine]
    if len(engines) > 2 and not args.gauntlet:
        raise ValueError("more than two engines: add --gauntlet")

    if any(spec.tc for spec in engines) and not args.tc:
        raise ValueError("an engine's own tc= (time odds) needs a match clock: --tc BASE+INC")
    if args.tc:
        tc = TimeControl.parse_clock(args.tc)
    elif args.movetime is not None:
        tc = TimeControl(movetime=args.movetime)
    elif args.depth is not None:
        if args.depth < 1:
            raise ValueError("--depth must be at least 1")
        tc = TimeControl(depth=args.depth)
    else:
        tc = TimeControl(nodes=args.nodes)

    rules = AdjudicationRules(
        resign_score=args.resign_score, resign_moves=args.resign_moves,
        draw_score=args.draw_score, draw_moves=args.draw_moves,
        draw_move_number=args.draw_move_number, enabled=not args.no_adjudication,
    )
    try:
        book = load_openings(args.openings)
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read the openings {args.openings}: {err}") from err
    openings = order_openings(book, args.openings_order, args.seed, args.openings_start - 1)
    if args.pairs is not None:
        pairs = args.pairs
    elif args.games is not None:
        pairs = math.ceil(args.games / 2)
    else:
        pairs = len(openings)
    if pairs > len(openings):
        reuse = (f"{pairs} pairs but {len(openings)} openings in {args.openings}: pairs would "
                 "play the same opening, and their results are correlated (error bars and LLR "
                 "too confident)")
        if not args.allow_reuse:
            raise ValueError(f"{reuse}; use a larger book, fewer pairs, or --allow-reuse")
        print(f"match.py: WARNING: {reuse}", file=sys.stderr)
    if args.ponder and not args.tc:
        raise ValueError("--ponder needs a clock (--tc): the other limits leave no time to ponder")
    sprt = None
    if args.sprt:
        sprt = Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta, args.sprt_model)
    resumed = None
    if args.resume:
        if not args.pgn:
            raise ValueError("--resume reads the --pgn file of the earlier run: give --pgn")
        if os.path.exists(args.pgn):
            try:
                resumed = finished_pairs(args.pgn, engines[0].name,
                                         [spec.name for spec in engines[1:]],
                                         None if any(spec.tc for spec in engines) else tc.pgn_tag(),
                                         planned=lambda pair: openings[pair % len(openings)].fen)
            except (OSError, UnicodeDecodeError) as err:
                raise ValueError(f"--resume: cannot read {args.pgn}: {err}") from err
    unknown = set(args.stop_on_bug) - {spec.name for spec in engines}
    if unknown:
        raise ValueError(f"--stop-on-bug names no engine: {sorted(unknown)}")
    return MatchConfig(
        engines=engines,
        settings=GameSettings(tc=tc, rules=rules, hang_timeout=args.hang_timeout,
                              event=args.event, ponder=args.ponder),
        openings=openings,
        pairs=pairs,
        concurrency=max(1, args.concurrency),
        pgn_path=args.pgn,
        sprt=sprt,
        stop_on_bug=tuple(args.stop_on_bug),
        max_minutes=args.max_minutes,
        json_path=args.json,
        resumed=resumed,
    )


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    try:
        config = build_config(args)
    except ValueError as err:
        print(f"match.py: {err}", file=sys.stderr)
        return 1
    transcript.install()
    try:
        runner = MatchRunner(config, sys.stdout)
    except ValueError as err:
        print(f"match.py: {err}", file=sys.stderr)
        return 1
    bugs = runner.run()
    if runner.fatal_errors:
        return 3
    return 2 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
