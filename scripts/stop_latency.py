#!/usr/bin/env python3
"""Latency from `stop` to `bestmove`, as a GUI sees it.

Starts the engine once per thread count, then repeatedly: `position`, `go infinite`, wait a
little, write `stop` and time until the `bestmove` line arrives. Prints median, 90th percentile
and worst. Example:

    python3 scripts/stop_latency.py --engine target/release/lazuli --threads 1,8,64 --tries 100
"""

import argparse
import statistics
import subprocess
import sys
import time


def read_until(proc: subprocess.Popen, prefix: str) -> str:
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("engine closed its output")
        if line.startswith(prefix):
            return line


def measure(engine: str, threads: int, tries: int, think: float) -> list[float]:
    proc = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    send = lambda text: (proc.stdin.write(text + "\n"), proc.stdin.flush())  # noqa: E731
    send("uci")
    read_until(proc, "uciok")
    send(f"setoption name Threads value {threads}")
    send("isready")
    read_until(proc, "readyok")
    fens = ["startpos", "fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"]
    latencies = []
    for i in range(tries):
        send(f"position {fens[i % len(fens)]}")
        send("go infinite")
        time.sleep(think)
        start = time.perf_counter()
        send("stop")
        read_until(proc, "bestmove")
        latencies.append(time.perf_counter() - start)
        send("isready")
        read_until(proc, "readyok")
    send("quit")
    proc.wait(timeout=10)
    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default="target/release/lazuli")
    parser.add_argument("--threads", default="1,8,64")
    parser.add_argument("--tries", type=int, default=100)
    parser.add_argument("--think", type=float, default=0.1, help="seconds between go and stop")
    args = parser.parse_args()
    print(f"{'threads':>7} {'median ms':>10} {'p90 ms':>8} {'worst ms':>9}")
    for threads in (int(t) for t in args.threads.split(",")):
        lat = sorted(x * 1000 for x in measure(args.engine, threads, args.tries, args.think))
        p90 = lat[int(0.9 * (len(lat) - 1))]
        print(f"{threads:>7} {statistics.median(lat):>10.2f} {p90:>8.2f} {lat[-1]:>9.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
