#!/bin/sh
# What the `cluster` feature needs to build and run (Debian and Ubuntu): MPICH's library,
# headers and launcher, and libclang for the bindings of the `mpi` crate (docs/cluster.md).
#
# usage: scripts/install-cluster-deps.sh     (as root, or with sudo)
#
# It does nothing when everything is already there.
set -eu
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
if command -v mpirun >/dev/null 2>&1 && pkg-config --exists mpich 2>/dev/null \
    && ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then as_root=""; else as_root="sudo"; fi
$as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq libmpich-dev mpich libclang-dev pkgconf
