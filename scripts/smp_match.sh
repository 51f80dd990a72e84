#!/usr/bin/env bash
# Lazy SMP in games: one Lazuli binary at 2 threads against itself at 1 thread, the same for
# another engine (--reference), the time-doubling yardstick (--doubling), or two values of an
# option against each other at 2 threads (--compare, --helpers), played by scripts/match.py.
#
#   scripts/smp_match.sh [options] BINARY OUT_PREFIX [extra match.py arguments...]
#
#   (default)      engine a lazuli-2t (Threads=2) against engine b lazuli-1t (Threads=1);
#                  100 pairs, no SPRT: an Elo estimate of the second thread
#   --reference    the same 2-thread against 1-thread match for another UCI engine: BINARY is
#                  that engine (e.g. /usr/games/ethereal-chess), named after its file; the
#                  yardstick for what a second thread should gain
#   --doubling     the yardstick for the second thread: engine a lazuli-2x-time (twice the base
#                  and increment) against engine b lazuli-1x-time, both Threads=1; what a second
#                  thread gains is compared with what twice the time gains (BINARY may also be
#                  another engine, as with --reference)
#   --compare OPTION A B   two values of one UCI option against each other, both Threads=2:
#                  engine a lazuli-A (OPTION=A) against engine b lazuli-B (OPTION=B); SPRT
#                  [0, 5] normalised Elo (does A gain?), stopped at 1000 pairs at most
#   --helpers      short for --compare "SMP Helpers" skip identical
#   --tc BASE+INC  clock in seconds (default 10+0.1)
#   --pairs N      game pairs (the SPRT's upper bound when an SPRT runs)
#   --sprt E0 E1   run an SPRT with these bounds (normalised Elo, as fastchess)
#   --no-sprt      no SPRT, play all pairs
#   --alpha A, --beta B   SPRT error rates (default 0.05 each)
#
# Both engines: Hash=16, pondering off (match.py never ponders; python-chess sends
# `setoption name Ponder value false`), openings from scripts/openings-large.epd in colour-reversed
# pairs, concurrency 1 (one engine thinks at a time, so 2 threads fit on 2 cores). The match
# stops at the first crash, illegal move or time forfeit of either side (exit status 2).
# Writes OUT_PREFIX.pgn (appended to), OUT_PREFIX.json and, on a bug, OUT_PREFIX.pgn.bugs.txt.
# The binary is copied to a temporary directory first, so rebuilding it does not touch the
# running match. Extra arguments go to match.py, e.g. --max-minutes 60, or --openings-order
# random --seed 7. PYTHON overrides the interpreter (default .venv/bin/python).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-$here/../.venv/bin/python}"

usage() {
    sed -n '6,26p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-1}"
}

mode=threads
tc=10+0.1
pairs=""
sprt=default
alpha=0.05
beta=0.05
while [[ $# -gt 0 ]]; do
    case "$1" in
        --helpers) mode=compare; option="SMP Helpers"; value_a=skip; value_b=identical; shift ;;
        --compare)
            mode=compare
            option=${2:?--compare needs OPTION A B}
            value_a=${3:?--compare needs OPTION A B}
            value_b=${4:?--compare needs OPTION A B}
            shift 4
            ;;
        --reference) mode=reference; shift ;;
        --doubling) mode=doubling; shift ;;
        --tc) tc=${2:?--tc needs BASE+INC}; shift 2 ;;
        --pairs) pairs=${2:?--pairs needs a number}; shift 2 ;;
        --sprt) sprt="${2:?--sprt needs ELO0 ELO1} ${3:?--sprt needs ELO0 ELO1}"; shift 3 ;;
        --no-sprt) sprt=none; shift ;;
        --alpha) alpha=${2:?--alpha needs a value}; shift 2 ;;
        --beta) beta=${2:?--beta needs a value}; shift 2 ;;
        -h|--help) usage 0 ;;
        --) shift; break ;;
        -*) echo "smp_match: unknown option $1" >&2; usage >&2 ;;
        *) break ;;
    esac
done
[[ $# -ge 2 ]] || usage >&2
binary=$1
out=$2
shift 2
if [[ "${1:-}" == "--" ]]; then shift; fi
if [[ ! -x "$binary" ]]; then
    echo "smp_match: $binary is not an executable" >&2
    exit 1
fi
if ! [[ -z "$pairs" || "$pairs" =~ ^[1-9][0-9]*$ ]]; then
    echo "smp_match: --pairs must be a positive number, got '$pairs'" >&2
    exit 1
fi

# A frozen copy of the binary for the whole match.
frozen_dir=$(mktemp -d)
trap 'rm -rf "$frozen_dir"' EXIT
frozen="$frozen_dir/lazuli"
cp "$binary" "$frozen"
id_name=$(printf 'uci\nquit\n' | "$frozen" | sed -n 's/^id name //p')
echo "smp_match: $mode match of $binary ($id_name, sha256 $(sha256sum "$frozen" | cut -c1-12))"

case "$mode" in
    threads)
        engines=(--engine name=lazuli-2t "cmd=$frozen" option.Threads=2
                 --engine name=lazuli-1t "cmd=$frozen" option.Threads=1)
        names=(lazuli-2t lazuli-1t)
        event="Lazuli 2 threads vs 1 thread"
        pairs=${pairs:-100}
        [[ "$sprt" != default ]] || sprt=none
        ;;
    reference)
        base=$(basename "$binary")
        engines=(--engine "name=$base-2t" "cmd=$frozen" option.Threads=2
                 --engine "name=$base-1t" "cmd=$frozen" option.Threads=1)
        names=("$base-2t" "$base-1t")
        event="$id_name 2 threads vs 1 thread"
        pairs=${pairs:-100}
        [[ "$sprt" != default ]] || sprt=none
        ;;
    doubling)
        base=$(basename "$binary")
        # Twice BASE and INC, e.g. 10+0.1 -> 20+0.2 (awk: bash has no decimals).
        double_tc=$(awk -F+ '{ printf "%g+%g", 2 * $1, 2 * ($2 == "" ? 0 : $2) }' <<<"$tc")
        engines=(--engine "name=$base-2x-time" "cmd=$frozen" option.Threads=1 "tc=$double_tc"
                 --engine "name=$base-1x-time" "cmd=$frozen" option.Threads=1)
        names=("$base-2x-time" "$base-1x-time")
        event="$id_name $double_tc vs $tc, 1 thread"
        pairs=${pairs:-100}
        [[ "$sprt" != default ]] || sprt=none
        ;;
    compare)
        if ! printf 'uci\nquit\n' | "$frozen" | grep -qF "option name $option type"; then
            echo "smp_match: $binary has no '$option' option" >&2
            exit 1
        fi
        if [[ "$value_a" == "$value_b" ]]; then
            echo "smp_match: --compare needs two different values" >&2
            exit 1
        fi
        engines=(--engine "name=lazuli-$value_a" "cmd=$frozen" option.Threads=2 "option.$option=$value_a"
                 --engine "name=lazuli-$value_b" "cmd=$frozen" option.Threads=2 "option.$option=$value_b")
        names=("lazuli-$value_a" "lazuli-$value_b")
        event="Lazuli $option: $value_a vs $value_b, 2 threads"
        pairs=${pairs:-1000}
        [[ "$sprt" != default ]] || sprt="0 5"
        ;;
esac

args=("${engines[@]}" --each option.Hash=16 --tc "$tc" --pairs "$pairs" --concurrency 1
      --stop-on-bug "${names[0]}" --stop-on-bug "${names[1]}"
      --event "$event ($tc)" --pgn "$out.pgn" --json "$out.json")
if [[ "$sprt" != none ]]; then
    read -r elo0 elo1 <<<"$sprt"
    args+=(--sprt "$elo0" "$elo1" --alpha "$alpha" --beta "$beta")
fi

status=0
"$python" "$here/match.py" "${args[@]}" "$@" || status=$?
exit "$status"
