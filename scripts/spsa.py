#!/usr/bin/env python3
"""SPSA of the search constants, played on this machine, resumable anywhere. See docs/tuning.md.

    # once: the parameters from the engine, the schedule's length, the games' limit
    .venv/bin/python scripts/spsa.py init --state notes/data/spsa/state.json \\
        --engine /work/bin/lazuli-spsa --iterations 20000 --nodes 25000 --skip TM_
    # as often as there is time: plays iterations, saving the state after each one
    .venv/bin/python scripts/spsa.py run --state notes/data/spsa/state.json \\
        --engine /work/bin/lazuli-spsa --minutes 120
    # the values so far, and which moved
    .venv/bin/python scripts/spsa.py show --state notes/data/spsa/state.json
    # the values as match.py options for an spsa build (to test them), or written into the
    # source as the new defaults (when they have passed)
    .venv/bin/python scripts/spsa.py options --state notes/data/spsa/state.json
    .venv/bin/python scripts/spsa.py apply --state notes/data/spsa/state.json \\
        --source engine/src/search/params.rs

The engine must be a build with the ``spsa`` feature (every constant is a UCI option there).
An iteration plays ``--pairs`` game pairs at once (one per core is right), each pair one
opening with both colours, between the values moved one step each way along that iteration's
random direction. An engine that crashes, hangs or moves illegally stops the run before the
iteration counts (exit status 2): a value that breaks the engine is a bug to fix, not a result.
Stopping the run (Ctrl-C, SIGTERM) loses only the iteration in flight.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from typing import Dict, List, Optional, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lazuli_match import transcript  # noqa: E402
from lazuli_match.adjudication import AdjudicationRules  # noqa: E402
from lazuli_match.engines import EnginePlayer, EngineSpec  # noqa: E402
from lazuli_match.game import GameResult, GameSettings, play_game  # noqa: E402
from lazuli_match.openings import Opening, load_openings  # noqa: E402
from lazuli_match.spsa import (Schedule, State, Tally, apply_to_source, moved,  # noqa: E402
                                option_arguments, parse_params, replace_file, tuned_values)
from lazuli_match.timecontrol import TimeControl  # noqa: E402

DEFAULT_OPENINGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openings-large.epd")


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="SPSA of the search constants: init a state file, run iterations, show values.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True)

    init = sub.add_parser("init", help="write a new state from the engine's tunable constants")
    init.add_argument("--state", required=True, help="the state file to create")
    init.add_argument("--engine", required=True,
                      help="the engine's command line (any build answers `spsa`)")
    init.add_argument("--iterations", type=int, required=True,
                      help="the planned length N, which fixes the schedule's gains")
    limit = init.add_mutually_exclusive_group(required=True)
    limit.add_argument("--nodes", type=int, help="fixed nodes per move")
    limit.add_argument("--tc", help="clock BASE+INC in seconds")
    init.add_argument("--only", nargs="+", default=None, metavar="NAME",
                      help="tune these constants only")
    init.add_argument("--skip", nargs="+", default=[], metavar="PREFIX",
                      help="leave out constants whose names start so (TM_ for a node limit, "
                           "where the clock's constants do nothing)")
    init.add_argument("--pairs", type=int, default=2, help="game pairs per iteration")
    init.add_argument("--seed", type=int, default=1)
    init.add_argument("--hash", type=int, default=16, help="Hash in MiB for both sides")
    init.add_argument("--force", action="store_true", help="overwrite an existing state")

    run = sub.add_parser("run", help="play iterations, saving the state after each")
    run.add_argument("--state", required=True)
    run.add_argument("--engine", required=True,
                     help="the command line of a build with the spsa feature")
    run.add_argument("--minutes", type=float, default=None, help="start no iteration after this")
    run.add_argument("--count", type=int, default=None, help="play at most this many iterations")
    run.add_argument("--openings", default=DEFAULT_OPENINGS, help="EPD/FEN file, one per line")
    run.add_argument("--report-every", type=int, default=25, help="iterations between reports")

    show = sub.add_parser("show", help="print the values and the games so far")
    show.add_argument("--state", required=True)

    options = sub.add_parser("options", help="print the values as match.py's option.NAME=VALUE")
    options.add_argument("--state", required=True)
    options.add_argument("--moved", action="store_true", help="only the values that moved")

    apply = sub.add_parser("apply", help="write the values into params.rs as the defaults")
    apply.add_argument("--state", required=True)
    apply.add_argument("--source", required=True, help="engine/src/search/params.rs")
    return p.parse_args(argv)


def init(args: argparse.Namespace) -> int:
    if os.path.exists(args.state) and not args.force:
        raise ValueError(f"{args.state} exists (a run to go on with `run`; --force replaces it)")
    if args.iterations < 1 or args.pairs < 1:
        raise ValueError("--iterations and --pairs must be at least 1")
    listing = subprocess.run([*shlex.split(args.engine), "spsa"], capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=30)
    if listing.returncode != 0:
        raise ValueError(f"{args.engine} spsa failed: {listing.stderr.strip()}")
    params = parse_params(listing.stdout, args.only, args.skip)
    if args.nodes is not None:
        if args.nodes < 1:
            raise ValueError("--nodes must be at least 1")
        limit: Dict[str, object] = {"nodes": args.nodes}
    else:
        TimeControl.parse_clock(args.tc)
        limit = {"tc": args.tc}
    state = State(seed=args.seed, schedule=Schedule(args.iterations), limit=limit,
                  options={"Hash": str(args.hash), "Threads": "1"},
                  pairs_per_iteration=args.pairs, params=params)
    directory = os.path.dirname(args.state)
    if directory:
        os.makedirs(directory, exist_ok=True)
    state.save(args.state)
    print(f"{args.state}: {len(params)} parameters, {args.iterations} iterations planned, "
          f"{args.pairs} pairs each, {describe_limit(limit)}")
    return 0


def describe_limit(limit: Dict[str, object]) -> str:
    return f"{limit['nodes']} nodes a move" if "nodes" in limit else f"clock {limit['tc']}"


def time_control(limit: Dict[str, object]) -> TimeControl:
    if "nodes" in limit:
        return TimeControl(nodes=int(limit["nodes"]))  # type: ignore[arg-type]
    return TimeControl.parse_clock(str(limit["tc"]))


class Stopped(Exception):
    """An engine misbehaved, or the run was told to stop: the iteration does not count."""


def play_pair(engine: List[str], options: Dict[str, str], plus: Dict[str, int], minus: Dict[str, int],
              opening: Opening, settings: GameSettings, label: str,
              abort: threading.Event) -> Tally:
    """Both colours of one opening between the plus and the minus values."""
    def player(name: str, values: Dict[str, int]) -> EnginePlayer:
        settings_words = {**options, **{key: str(value) for key, value in values.items()}}
        spec = EngineSpec(name, engine[0], engine[1:], options=settings_words)
        return EnginePlayer(spec, f"{label} {name}")

    players = [player("plus", plus), player("minus", minus)]
    tally = Tally()
    try:
        for leg in range(2):
            white, black = players if leg == 0 else players[::-1]
            result: Optional[GameResult] = play_game(white, black, opening, settings,
                                                     f"{label}.{leg + 1}", abort)
            if result is None:
                raise Stopped("stopped")
            if result.bug is not None:
                raise Stopped(f"{result.bug.engine} {result.bug.kind}: {result.bug.detail} "
                              f"(opening {opening.fen}, {label})")
            score = result.score_for("plus")
            tally.wins += score == 1.0
            tally.draws += score == 0.5
            tally.losses += score == 0.0
    finally:
        for each in players:
            each.close()
    return tally


def run(args: argparse.Namespace) -> int:
    state = State.load(args.state)
    engine = shlex.split(args.engine)
    if not engine:
        raise ValueError("--engine is empty")
    openings = load_openings(args.openings)
    settings = GameSettings(tc=time_control(state.limit), rules=AdjudicationRules(), event="SPSA")
    abort = threading.Event()

    def on_signal(number: int, _frame: object) -> None:
        abort.set()
        print(f"spsa.py: signal {number}: the iteration in flight will not count", file=sys.stderr)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    transcript.install()
    started = time.monotonic()
    done = 0
    print(f"{args.state}: iteration {state.iteration} of {state.schedule.iterations}, "
          f"{len(state.params)} parameters, {describe_limit(state.limit)}", flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=state.pairs_per_iteration) as pool:
        while not abort.is_set():
            if state.iteration >= state.schedule.iterations:
                print(f"iteration {state.iteration} of {state.schedule.iterations}: the run is "
                      "complete", flush=True)
                break
            if args.count is not None and done >= args.count:
                break
            if args.minutes is not None and time.monotonic() - started > args.minutes * 60:
                break
            k = state.iteration + 1
            plus, minus = state.sides(k)
            picks = state.opening_picks(k, len(openings))
            futures = [
                pool.submit(play_pair, engine, state.options, plus, minus, openings[pick],
                            settings, f"{k}/{pair + 1}", abort)
                for pair, pick in enumerate(picks)
            ]
            tally = Tally()
            try:
                for future in futures:
                    pair = future.result()
                    tally.wins += pair.wins
                    tally.draws += pair.draws
                    tally.losses += pair.losses
            except Stopped as stop:
                abort.set()
                if str(stop) != "stopped":
                    print(f"spsa.py: iteration {k} not counted: {stop}", file=sys.stderr)
                    state.save(args.state)
                    return 2
                break
            state.update(k, tally)
            state.save(args.state)
            done += 1
            if done % args.report_every == 0:
                report(state, time.monotonic() - started, done)
    if done % args.report_every != 0 or done == 0:
        report(state, time.monotonic() - started, done)
    return 0


def report(state: State, seconds: float, done: int) -> None:
    t = state.tally
    rate = f", {done / seconds * 60:.1f} iterations a minute" if seconds > 0 and done else ""
    changes = ", ".join(f"{name} {start}->{now}" for name, start, now in moved(state)) or "none"
    print(f"iteration {state.iteration}/{state.schedule.iterations}: plus side +{t.wins} "
          f"={t.draws} -{t.losses} over {t.games} games{rate}; moved: {changes}", flush=True)


def show(args: argparse.Namespace) -> int:
    state = State.load(args.state)
    t = state.tally
    print(f"iteration {state.iteration} of {state.schedule.iterations}, seed {state.seed}, "
          f"{describe_limit(state.limit)}, {state.pairs_per_iteration} pairs an iteration; "
          f"plus side +{t.wins} ={t.draws} -{t.losses}")
    width = max(len(p.name) for p in state.params)
    for p in state.params:
        mark = "" if round(p.value) == p.start else "  (moved)"
        print(f"{p.name:<{width}}  {p.start:>6} -> {p.value:9.2f}  [{p.low}, {p.high}]{mark}")
    return 0


def options(args: argparse.Namespace) -> int:
    state = State.load(args.state)
    values = tuned_values(state)
    if args.moved:
        values = {name: value for name, _, value in moved(state)}
    if not values:
        print("spsa.py: no value has moved from its start", file=sys.stderr)
        return 1
    print(" ".join(option_arguments(values)))
    return 0


def apply(args: argparse.Namespace) -> int:
    state = State.load(args.state)
    with open(args.source, encoding="utf-8", newline="") as handle:
        source = handle.read()
    changed, changes = apply_to_source(source, state)
    replace_file(args.source, changed)
    for name, old, new in changes:
        print(f"{name} {old} -> {new}")
    print(f"{args.source}: {len(changes)} of {len(state.params)} defaults changed "
          f"(iteration {state.iteration} of {state.schedule.iterations})")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    commands = {"init": init, "run": run, "show": show, "options": options, "apply": apply}
    try:
        return commands[args.command](args)
    except (ValueError, OSError, KeyError) as err:
        print(f"spsa.py: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
