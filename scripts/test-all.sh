#!/usr/bin/env bash
# Runs every test of the project: formatting, lints, unit and integration tests (release mode,
# since perft and search tests are slow in debug builds), the bench signature against the commit
# messages (scripts/check-bench.sh), the python-chess client tests against the release binary,
# then the tools under scripts/: their unit tests, the scaling charts from a tiny `lazuli
# scaling` run, a smoke match (crashes, illegal moves and time forfeits fail) and OpenBench's
# build-and-bench steps; last, the committed tree cloned into an empty directory runs its
# cargo tests there (the test data is in tests/data, nothing outside the clone is needed). A
# clean tree's cargo tests run only there; a tree with changes runs them in both places.
# Needs only the Rust toolchain, git (with the history of the checkout) and Python 3 (with
# venv): the Python packages are installed into .venv, pinned by tests/python/requirements.txt
# and scripts/requirements.txt. The cluster build is tested where MPICH is installed (under CI,
# scripts/install-cluster-deps.sh installs it first).
#
# usage: scripts/test-all.sh        (no arguments; CI runs it through .ci/run)
set -euo pipefail
case "${1:-}" in
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    ?*) echo "test-all: takes no arguments (--help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# The workspace's tests. A tree with changes is tested here; a clean one (as under CI) only in
# the clone at the end, which holds the same files and nothing beside them.
if [ -n "$(git status --porcelain 2>/dev/null)" ] || ! git rev-parse --git-dir >/dev/null 2>&1; then
    cargo test --release --workspace
fi
# The SPSA build (search constants as UCI options) must keep compiling and offering them.
cargo clippy --workspace --all-targets --features lazuli/spsa -- -D warnings
cargo test --profile dev -p lazuli-uci --features spsa --lib options
cargo test --profile dev -p lazuli-smp --features spsa --lib constants
# The client tests drive the release binary.
cargo build --release
binary="${CARGO_TARGET_DIR:-target}/release/lazuli"
case "$binary" in /*) ;; *) binary="$PWD/$binary" ;; esac

# The cluster build (MPI): its lints, unit tests and tests under mpirun (against the release
# build's bench), and the python-chess game below. Under CI the Debian packages it needs are
# installed here; elsewhere a machine without MPICH skips it, saying so.
if [ "${CI:-}" = true ]; then
    scripts/install-cluster-deps.sh || echo "test-all: could not install MPICH" >&2
fi
cluster_binary=
if command -v mpirun >/dev/null && pkg-config --exists mpich 2>/dev/null; then
    cargo clippy -p lazuli -p lazuli-uci --all-targets --features lazuli/cluster -- -D warnings
    cargo test --profile dev -p lazuli-uci --features cluster --lib cluster
    LAZULI_DEFAULT_BIN="$binary" cargo test --profile dev -p lazuli --features cluster --test cluster
    cluster_binary="$(dirname "$(dirname "$binary")")/debug/lazuli"
else
    echo "test-all: MPICH not found: the cluster build is NOT tested (scripts/install-cluster-deps.sh)" >&2
fi

# The bench signature: the node count of `lazuli bench` against the `Bench:` line of the newest
# commit that has one (needs the git history; fails without it).
scripts/check-bench.sh "$binary"
# The declared minimum Rust covers every locked dependency.
scripts/check-rust-version.py
# No two files of a crate import each other.
scripts/check-import-cycles.py
# The size of the layer around the search (printed, not checked).
scripts/code_lines.py

python=${PYTHON:-python3}
venv=.venv
if ! "$venv/bin/python" -c 'import sys' 2>/dev/null; then
    echo "creating the virtual environment $venv"
    rm -rf "$venv"
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r tests/python/requirements.txt -r scripts/requirements.txt

status=0
LAZULI_BIN="$binary" LAZULI_CLUSTER_BIN="$cluster_binary" "$venv/bin/python" -m pytest tests/python -q -p no:cacheprovider || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests in tests/python" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    exit "$status"
fi

# The tools' own tests (the match runner's statistics, clocks, adjudication and bug detection;
# those that drive the engine use the release binary).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
LAZULI_BIN="$binary" "$venv/bin/python" -m unittest discover -s scripts/tests 2>&1 | tee "$work/unittest.log"
# unittest exits 0 (before Python 3.12) when it finds no test at all: that is a failure here.
if ! grep -Eq '^Ran [1-9][0-9]* tests?' "$work/unittest.log"; then
    echo "unittest ran no test in scripts/tests" >&2
    exit 1
fi

# The scaling charts from a tiny benchmark: scripts/plot_scaling.py reads both files that
# `lazuli scaling` writes (the JSON is summarised again from its raw measurements).
"$binary" scaling --threads 1,2 --depth 6 --positions 2 --repeat 2 --speed-ms 100 \
    --csv "$work/scaling.csv" --json "$work/scaling.json" >/dev/null
"$venv/bin/python" scripts/plot_scaling.py "$work/scaling.json" "$work/scaling.csv" --out-dir "$work"
for chart in nps ttd overhead; do
    test -s "$work/scaling-$chart.png"
done
"$binary" speedtest --threads 1 --seconds 2 --repeat 2 | grep -q "^nodes/second: [1-9]"

PYTHON="$venv/bin/python" scripts/smoke_match.sh "$binary"
scripts/openbench-check.sh

# A clone with nothing beside it tests itself: the committed tree, cloned into an empty
# directory (the build directory is shared, so only the workspace's own crates are built again).
target=${CARGO_TARGET_DIR:-$PWD/target}
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
git clone --quiet --no-hardlinks . "$work/clone"
(cd "$work/clone" && CARGO_TARGET_DIR="$target" cargo test --release --workspace)
# The clone's builds of the workspace crates carry the clone's paths (CARGO_MANIFEST_DIR, read by
# the tests for their data) and look newer than this checkout's sources: remove them, so that
# the next build here makes its own instead of running binaries that read a deleted directory.
cargo clean --quiet --release -p lazuli -p lazuli-uci -p lazuli-engine -p lazuli-smp -p lazuli-tests \
    -p lazuli-train -p lazuli-nnue-format -p lazuli-tools
