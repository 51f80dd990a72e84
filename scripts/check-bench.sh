#!/usr/bin/env bash
# The bench signature: `lazuli bench` must print the node count that the most recent commit
# message with a `Bench: <nodes>` line states. A functional change whose message forgets its
# new bench, or states a wrong one, fails here (test-all.sh, and so CI, runs this).
#
# usage: scripts/check-bench.sh [BINARY]     (default: target/release/lazuli, built if missing)
#
# It needs the git history of the checkout: in an export without it, or a shallow clone whose
# commits carry no `Bench:` line, it fails and says so rather than pass unchecked.
set -euo pipefail
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
binary_arg="${1:+$(realpath -m -- "$1")}"
cd "$(dirname "$0")/.."

fail() {
    echo "check-bench: $*" >&2
    exit 1
}

if ! command -v git >/dev/null || ! git rev-parse --git-dir >/dev/null 2>&1; then
    fail "no git history here, so no commit states the bench to check against (use a clone)"
fi
# The newest commit whose message has a `Bench:` line, and the number on it.
commit=$(git log -n 1 --extended-regexp --grep='^Bench: *[0-9]+ *$' --format=%h)
if [[ -z "$commit" ]]; then
    if [[ "$(git rev-parse --is-shallow-repository)" == true ]]; then
        fail "no commit of this shallow clone states a bench: fetch more history (git fetch --unshallow)"
    fi
    fail "no commit message has a 'Bench: <nodes>' line"
fi
expected=$(git log -n 1 --format=%B "$commit" | sed -n -E 's/^Bench: *([0-9]+) *$/\1/p' | tail -n 1)

binary="${binary_arg:-${CARGO_TARGET_DIR:-target}/release/lazuli}"
if [[ ! -x "$binary" ]]; then
    [[ -z "$binary_arg" ]] || fail "$binary is not an executable"
    cargo build --release --quiet --package lazuli
fi
last=$("$binary" bench | tail -n 1)
if ! [[ "$last" =~ ^([0-9]+)\ nodes\ [0-9]+\ nps$ ]]; then
    fail "the last line of '$binary bench' is not '<nodes> nodes <nps> nps': $last"
fi
nodes=${BASH_REMATCH[1]}
if [[ "$nodes" != "$expected" ]]; then
    fail "bench gives $nodes nodes, but commit $commit states 'Bench: $expected'.
A change that alters the search records its new bench: end its commit message with 'Bench: $nodes'."
fi
echo "check-bench: $nodes nodes, as commit $commit states"
