#!/usr/bin/env bash
# Runs every test of the project: formatting, lints, unit and integration tests (release mode,
# since perft and search tests are slow in debug builds).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --release --workspace
