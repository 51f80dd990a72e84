#!/usr/bin/env python3
"""Elo by thread doubling: 2 threads against 1, 4 against 2, 8 against 4, ... in games.

Each step is one match (scripts/match.py) between the same engine at 2N and at N threads, at one
time control, with the hash growing with the threads (`--hash-per-thread`, as testers give an
N-CPU engine N times the hash). Pondering is off, so in a game only one side thinks at a time and
a game needs at most as many cores as the larger side has threads: the steps play
`cores // 2N` games at once (at least one), and a step that needs more cores than the machine has
is left out unless `--oversubscribe` is given.

    .venv/bin/python scripts/smp_ladder.py --engine target/release/lazuli --pairs 100 \\
        --out-dir ladder

prints each step's score and Elo with its 95% error, and writes per step `DIR/NvM.pgn` and
`DIR/NvM.json` (match.py's summary) and for the whole ladder `DIR/ladder.json` (settings, engine,
machine, steps). `--resume` continues an interrupted ladder from its PGN files. The engine may be
any UCI engine with `Threads` and `Hash` options (for a yardstick: Stockfish, Ethereal).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))


def doublings(cores: int) -> List[int]:
    """1, 2, 4, ... up to the core count."""
    counts, n = [], 1
    while n <= max(cores, 1):
        counts.append(n)
        n *= 2
    return counts


def parse_threads(text: str) -> List[int]:
    counts = [int(part) for part in text.split(",") if part.strip()]
    if len(counts) < 2 or any(n < 1 for n in counts) or counts != sorted(set(counts)):
        raise argparse.ArgumentTypeError("--threads takes at least two increasing counts, e.g. 1,2,4")
    return counts


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def step_concurrency(cores: int, threads: int, requested: Optional[int]) -> int:
    if requested:
        return requested
    return max(1, cores // threads)


def match_command(args, engine: str, low: int, high: int, concurrency: int, prefix: str) -> List[str]:
    hash_low, hash_high = args.hash_per_thread * low, args.hash_per_thread * high
    command = [
        sys.executable, os.path.join(HERE, "match.py"),
        "--engine", f"name={args.name}-{high}t", f"cmd={engine}",
        f"option.Threads={high}", f"option.Hash={hash_high}",
        "--engine", f"name={args.name}-{low}t", f"cmd={engine}",
        f"option.Threads={low}", f"option.Hash={hash_low}",
        "--tc", args.tc, "--pairs", str(args.pairs), "--concurrency", str(concurrency),
        "--openings-order", "random", "--seed", str(args.seed + high),
        "--pgn", prefix + ".pgn", "--json", prefix + ".json",
        "--event", f"{args.name} {high} threads vs {low}",
        "--stop-on-bug", f"{args.name}-{high}t", "--stop-on-bug", f"{args.name}-{low}t",
    ]
    if args.openings:
        command += ["--openings", args.openings]
    if args.resume:
        command.append("--resume")
    return command


def read_step(path: str) -> Optional[Dict[str, object]]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    rows = data.get("matchups") or []
    return rows[0] if rows else None


def describe(row: Optional[Dict[str, object]]) -> str:
    if not row or not row.get("games"):
        return "no games"
    text = f"{row['games']} games, +{row['wins']} ={row['draws']} -{row['losses']}"
    if row.get("elo") is not None:
        text += f", Elo {row['elo']:+.1f} +- {row['elo_error_95']:.1f}"
    return text


def main(argv: Optional[List[str]] = None) -> int:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--engine", required=True, help="the UCI engine's binary")
    parser.add_argument("--name", default=None, help="name in the PGN (default: the file's name)")
    parser.add_argument("--threads", type=parse_threads, default=None,
                        help="thread counts, each played against the one before "
                             "(default: 1,2,4,... up to the cores)")
    parser.add_argument("--tc", default="10+0.1", help="clock, BASE+INC seconds")
    parser.add_argument("--pairs", type=int, default=100, help="game pairs per step")
    parser.add_argument("--hash-per-thread", type=int, default=16, help="Hash (MB) per thread")
    parser.add_argument("--concurrency", type=int, default=None,
                        help="games at once in every step (default: cores // the step's larger count)")
    parser.add_argument("--oversubscribe", action="store_true",
                        help="also play steps whose larger side has more threads than the machine has cores")
    parser.add_argument("--openings", default=None, help="EPD file (default: match.py's)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the opening order")
    parser.add_argument("--out-dir", required=True, help="where PGNs and JSON go")
    parser.add_argument("--resume", action="store_true", help="continue from the steps' PGN files")
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.hash_per_thread < 1:
        parser.error("--pairs and --hash-per-thread must be positive")
    if not (os.path.isfile(args.engine) and os.access(args.engine, os.X_OK)):
        parser.error(f"{args.engine} is not an executable")
    args.name = args.name or os.path.basename(args.engine)
    counts = args.threads or doublings(cores)
    if len(counts) < 2:
        parser.error(f"this machine has {cores} core(s): a ladder needs at least two thread counts")
    steps = [(low, high) for low, high in zip(counts, counts[1:])]
    skipped = [(low, high) for low, high in steps if high > cores and not args.oversubscribe]
    steps = [step for step in steps if step not in skipped]
    for low, high in skipped:
        print(f"smp_ladder: {high} vs {low} left out: {high} threads need {high} cores, "
              f"this machine has {cores} (--oversubscribe plays it anyway)")
    if not steps:
        return 1
    os.makedirs(args.out_dir, exist_ok=True)

    # A frozen copy, so a rebuild during the ladder changes nothing.
    with open(args.engine, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    frozen_dir = tempfile.mkdtemp(prefix="smp-ladder-")
    frozen = os.path.join(frozen_dir, os.path.basename(args.engine))
    shutil.copy2(args.engine, frozen)
    summary = {
        "engine": os.path.abspath(args.engine),
        "engine_sha256": digest,
        "time_control": args.tc,
        "pairs_per_step": args.pairs,
        "hash_per_thread_mb": args.hash_per_thread,
        "machine": {"cpu": cpu_model(), "logical_cores": cores, "system": platform.platform()},
        "steps": [],
    }
    status = 0
    try:
        for low, high in steps:
            concurrency = step_concurrency(cores, high, args.concurrency)
            prefix = os.path.join(args.out_dir, f"{high}v{low}")
            print(f"smp_ladder: {high} threads (Hash {args.hash_per_thread * high}) vs {low} "
                  f"(Hash {args.hash_per_thread * low}), {args.pairs} pairs at {args.tc}, "
                  f"{concurrency} at once", flush=True)
            code = subprocess.call(match_command(args, frozen, low, high, concurrency, prefix))
            row = read_step(prefix + ".json")
            summary["steps"].append({"threads": high, "against": low, "concurrency": concurrency,
                                     "exit_status": code, "result": row})
            print(f"smp_ladder: {high} vs {low}: {describe(row)}", flush=True)
            if code != 0:
                print(f"smp_ladder: the {high} vs {low} match ended with status {code}; stopping")
                status = code
                break
    finally:
        shutil.rmtree(frozen_dir, ignore_errors=True)
    with open(os.path.join(args.out_dir, "ladder.json"), "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=2)
        handle.write("\n")
    print("\nElo by thread doubling"
          f" ({args.name}, {args.tc}, Hash {args.hash_per_thread} MB per thread, {cpu_model()}):")
    for step in summary["steps"]:
        print(f"  {step['threads']:>4} vs {step['against']:<4} {describe(step['result'])}")
    return status


if __name__ == "__main__":
    sys.exit(main())
