#!/usr/bin/env bash
# Does what an OpenBench worker does with an engine: build it with `make EXE=...` (passing the
# variables a worker passes), run `<EXE> bench`, and read the node count and speed from the last
# line. Fails if the build or the bench output does not work, or if the native build's node
# count differs from the portable build's (the bench must be deterministic everywhere).
#
# usage: scripts/openbench-check.sh        (no arguments)
set -euo pipefail
case "${1:-}" in
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    ?*) echo "openbench-check: takes no arguments (--help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
exe="$work/lazuli-openbench"

make -j2 EXE="$exe" CC=gcc CXX=g++ EVALFILE=none >"$work/build.log" 2>&1 || {
    cat "$work/build.log"
    echo "openbench-check: make failed" >&2
    exit 1
}
"$exe" bench >"$work/bench.txt" 2>&1
last=$(tail -n 1 "$work/bench.txt")
if ! [[ "$last" =~ ^([0-9]+)\ nodes\ ([0-9]+)\ nps$ ]]; then
    echo "openbench-check: last bench line is not '<nodes> nodes <nps> nps': $last" >&2
    exit 1
fi
nodes=${BASH_REMATCH[1]}
portable=$(cargo run --release --quiet --package lazuli -- bench | tail -n 1 | cut -d' ' -f1)
if [[ "$nodes" != "$portable" ]]; then
    echo "openbench-check: native bench $nodes differs from portable bench $portable" >&2
    exit 1
fi
echo "openbench-check: ok ($last)"
