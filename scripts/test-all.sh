#!/usr/bin/env bash
# Runs every test of the project: formatting, lints, unit and integration tests (release mode,
# since perft and search tests are slow in debug builds), then the python-chess client tests
# against the release binary. Needs only the Rust toolchain and Python 3 (with venv): the
# Python packages are installed into .venv, pinned by tests/python/requirements.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --release --workspace

# The client tests drive the release binary.
cargo build --release
binary="${CARGO_TARGET_DIR:-target}/release/lazuli"
case "$binary" in /*) ;; *) binary="$PWD/$binary" ;; esac

python=${PYTHON:-python3}
venv=.venv
if ! "$venv/bin/python" -c 'import sys' 2>/dev/null; then
    echo "creating the virtual environment $venv"
    rm -rf "$venv"
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r tests/python/requirements.txt

status=0
LAZULI_BIN="$binary" "$venv/bin/python" -m pytest tests/python -q -p no:cacheprovider || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests in tests/python" >&2
    exit 1
fi
exit "$status"
