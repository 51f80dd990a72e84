#!/usr/bin/env bash
# CI smoke match: a handful of very short games that fail (non-zero exit) on any crash,
# illegal move or time forfeit of Lazuli. Two parts, each run by scripts/match.py:
#
#   1. self-play, 1 thread each, fixed nodes per move (SMOKE_NODES, default 5000): no clock,
#      so no time forfeit is possible (a bestmove missing for 65 s still fails); the net for
#      crashes and illegal moves, normally the same games on every run;
#   2. 2 threads against 1 thread on a real clock (SMOKE_TC, default 1+0.05 s): the time
#      management of both thread counts; a time forfeit fails, with no grace margin.
#
# usage: scripts/smoke_match.sh [BINARY]        (default: target/release/lazuli, built if missing)
# env:   SMOKE_NODE_PAIRS (default 4) and SMOKE_CLOCK_PAIRS (default 2; 0 skips the part),
#        SMOKE_NODES, SMOKE_TC, SMOKE_OUT (directory for the PGN, JSON and bug files; default a
#        temporary one, removed on success), PYTHON (default .venv/bin/python, with
#        scripts/requirements.txt installed).
#
# Why 1+0.05 and not 1+0.02: at 1+0.02 the 2-thread engine ran its clock so low after a move
# that a loaded machine delaying one bestmove would make a spurious forfeit; 1+0.05 leaves about
# twice the margin (the figures are in notes/results.md). The lowest clock of the run is
# printed, to watch that margin. The run takes 30-60 s. The
# result is checked twice: match.py's exit status (2 on a bug) and its JSON summary (every game
# played, no bug, not stopped).
set -euo pipefail
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
# Paths given by the caller are relative to the caller's directory.
binary_arg="${1:+$(realpath -m -- "$1")}"
out="${SMOKE_OUT:+$(realpath -m -- "$SMOKE_OUT")}"
cd "$(dirname "$0")/.."

python="${PYTHON:-.venv/bin/python}"
node_pairs="${SMOKE_NODE_PAIRS:-4}"
clock_pairs="${SMOKE_CLOCK_PAIRS:-2}"
nodes="${SMOKE_NODES:-5000}"
tc="${SMOKE_TC:-1+0.05}"
binary="${binary_arg:-${CARGO_TARGET_DIR:-target}/release/lazuli}"

if [[ ! -x "$binary" ]]; then
    if [[ -n "$binary_arg" ]]; then
        echo "smoke_match: $binary is not an executable" >&2
        exit 1
    fi
    cargo build --release --quiet --package lazuli
fi

if [[ -z "$out" ]]; then
    out=$(mktemp -d)
    cleanup() { if [[ "${keep:-0}" == 0 ]]; then rm -rf "$out"; fi; }
    trap cleanup EXIT
else
    mkdir -p "$out"
fi
# A private copy, so a rebuild cannot replace the binary under the running games.
cp "$binary" "$out/lazuli"
engine="$out/lazuli"

failed=0

# run_part LABEL PAIRS match.py-arguments...
run_part() {
    local label=$1 pairs=$2 expected=$(($2 * 2))
    shift 2
    local status=0
    if [[ "$pairs" -eq 0 ]]; then
        echo "smoke_match: $label skipped (0 pairs)"
        return
    fi
    echo "smoke_match: $label, $pairs pairs"
    rm -f "$out/$label.pgn" "$out/$label.json" "$out/$label.pgn.bugs.txt"
    "$python" scripts/match.py "$@" --pgn "$out/$label.pgn" --json "$out/$label.json" \
        --each option.Hash=16 --pairs "$pairs" --hang-timeout 5 \
        --event "Lazuli smoke: $label" || status=$?
    # The summary must show every game played and no bug, whatever the exit status says
    # (a setup error inside a game worker would otherwise end the match early yet cleanly).
    if ! "$python" - "$out/$label.json" "$expected" "$out/$label.pgn" <<'EOF'
import json, re, sys
import chess.pgn
path, expected, pgn = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
except (OSError, ValueError) as err:
    sys.exit(f"no readable summary {path}: {err}")
problems = []
for row in data["matchups"]:
    if row["games"] != expected:
        problems.append(f"{row['games']} of {expected} games played")
    for name, kinds in row["bugs"].items():
        problems += [f"{name}: {count} x {kind}" for kind, count in kinds.items() if count]
if data.get("stopped"):
    problems.append(f"match stopped: {data['stopped']}")
if problems:
    sys.exit("; ".join(problems))
# The lowest clock left after a move (the think times are in the PGN comments).
lowest = None
with open(pgn, encoding="utf-8") as handle:
    while (game := chess.pgn.read_game(handle)) is not None:
        base, plus, inc = game.headers.get("TimeControl", "-").partition("+")
        if not plus:
            break
        clock = {True: float(base), False: float(base)}
        for node in game.mainline():
            spent = re.search(r" ([0-9.]+)s", node.comment)
            mover = not node.turn()
            clock[mover] -= float(spent.group(1)) if spent else 0.0
            if lowest is None or clock[mover] < lowest[0]:
                lowest = (clock[mover], game.headers["White" if mover else "Black"])
            clock[mover] += float(inc)
if lowest is not None:
    print(f"smoke_match: lowest clock after a move: {lowest[0] * 1000:.0f} ms ({lowest[1]})")
EOF
    then
        if [[ "$status" -eq 0 ]]; then status=1; fi
    fi
    if [[ "$status" -ne 0 ]]; then
        echo "smoke_match: $label FAILED (match.py status $status)" >&2
        if [[ -f "$out/$label.pgn.bugs.txt" ]]; then
            cat "$out/$label.pgn.bugs.txt" >&2
        fi
        failed=1
    fi
}

start=$SECONDS
run_part self-play-nodes "$node_pairs" \
    --engine name=lazuli-a "cmd=$engine" option.Threads=1 \
    --engine name=lazuli-b "cmd=$engine" option.Threads=1 \
    --nodes "$nodes" --openings-start 1 \
    --stop-on-bug lazuli-a --stop-on-bug lazuli-b
run_part 2t-vs-1t-clock "$clock_pairs" \
    --engine name=lazuli-2t "cmd=$engine" option.Threads=2 \
    --engine name=lazuli-1t "cmd=$engine" option.Threads=1 \
    --tc "$tc" --openings-start 101 \
    --stop-on-bug lazuli-2t --stop-on-bug lazuli-1t

if [[ "$failed" -ne 0 ]]; then
    keep=1
    echo "smoke_match: FAILED after $((SECONDS - start)) s; games and UCI logs kept in $out" >&2
    exit 1
fi
games=$((2 * (node_pairs + clock_pairs)))
echo "smoke_match: ok, $games games without a crash, illegal move or time forfeit" \
    "in $((SECONDS - start)) s"
