#!/usr/bin/env bash
# Lazuli's second thread against another engine's, interleaved in one sitting: blocks of game
# pairs, each block played first as Lazuli 2 threads against 1 (scripts/smp_match.sh) and then
# as the reference engine 2 threads against 1 (--reference) on the same openings, until a
# number of blocks or a wall-clock deadline. Both engines thus meet the same openings and the
# same load on a shared machine, and scripts/smp_gap.py compares their gains opening for opening.
#
#   scripts/smp_interleave.sh [options] LAZULI REFERENCE OUT_DIR
#
#   --block N       pairs per block (default 5)
#   --start K       first opening (default 1); block b uses openings K + b*N ...
#   --blocks N      play N blocks (default: until --until)
#   --until TIME    start no block after TIME (anything `date -d` reads, e.g. 22:30, or
#                   "2026-11-26 00:55" past midnight; a time already past is an error)
#   --tc BASE+INC   clock (default 10+0.1)
#   --lazuli-option NAME=VALUE   a UCI option for both Lazuli engines only (repeatable), e.g.
#                   Contempt=12; the reference engine keeps its defaults
#
# Writes OUT_DIR/lazuli_bB.{pgn,json,log} and OUT_DIR/REF_bB.{pgn,json,log} (REF the reference
# binary's file name), then prints each side's merged result and the paired gap.
# PYTHON overrides the interpreter (default .venv/bin/python).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-$here/../.venv/bin/python}"

block=5
start=1
blocks=""
until=""
tc=10+0.1
lazuli_each=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --block) block=${2:?--block needs a number}; shift 2 ;;
        --start) start=${2:?--start needs a number}; shift 2 ;;
        --blocks) blocks=${2:?--blocks needs a number}; shift 2 ;;
        --until) until=${2:?--until needs a time}; shift 2 ;;
        --tc) tc=${2:?--tc needs BASE+INC}; shift 2 ;;
        --lazuli-option) lazuli_each+=(--each "option.${2:?--lazuli-option needs NAME=VALUE}"); shift 2 ;;
        -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "smp_interleave: unknown option $1" >&2; exit 1 ;;
        *) break ;;
    esac
done
if [[ $# -ne 3 ]]; then
    echo "usage: smp_interleave.sh [options] LAZULI REFERENCE OUT_DIR (--help)" >&2
    exit 1
fi
lazuli=$1
reference=$2
out=$3
for number in "$block" "$start" ${blocks:+"$blocks"}; do
    if ! [[ "$number" =~ ^[1-9][0-9]*$ ]]; then
        echo "smp_interleave: expected a positive number, got '$number'" >&2
        exit 1
    fi
done
if [[ -z "$blocks" && -z "$until" ]]; then
    echo "smp_interleave: give --blocks or --until" >&2
    exit 1
fi
deadline=""
if [[ -n "$until" ]]; then
    deadline=$(date -d "$until" +%s) || { echo "smp_interleave: cannot read --until '$until'" >&2; exit 1; }
    if [[ $deadline -le $(date +%s) ]]; then
        # A bare clock time means today: a deadline past midnight needs its date.
        echo "smp_interleave: --until '$until' is already past ($(date -d "@$deadline" '+%F %T'))" >&2
        exit 1
    fi
fi
mkdir -p "$out"
ref_name=$(basename "$reference")

b=0
while [[ -z "$blocks" || $b -lt $blocks ]]; do
    if [[ -n "$deadline" && $(date +%s) -ge $deadline ]]; then
        break
    fi
    first=$((start + b * block))
    for side in lazuli "$ref_name"; do
        prefix="$out/${side}_b$b"
        if [[ "$side" == lazuli ]]; then
            mode=()
            binary=$lazuli
            extra=("${lazuli_each[@]}")
        else
            mode=(--reference)
            binary=$reference
            extra=()
        fi
        status=0
        PYTHON="$python" "$here/smp_match.sh" "${mode[@]}" --tc "$tc" --pairs "$block" "$binary" "$prefix" \
            -- --openings-start "$first" "${extra[@]}" >"$prefix.log" 2>&1 || status=$?
        echo "block $b ($side, openings $first-$((first + block - 1))): exit $status, $(date +%T)"
        if [[ $status -ne 0 ]]; then
            echo "smp_interleave: the match stopped (see $prefix.log)" >&2
            exit "$status"
        fi
    done
    b=$((b + 1))
done

for side in lazuli "$ref_name"; do
    "$python" "$here/merge_results.py" "$out/${side}"_b*.json
done
"$python" "$here/smp_gap.py" "$out"/lazuli_b*.pgn "$out/${ref_name}"_b*.pgn \
    --subject lazuli-2t --subject "$ref_name-2t"
