#!/usr/bin/env bash
# Audits the locked dependencies against published security advisories: the Rust crates of
# Cargo.lock with cargo-audit (the RustSec database, including unmaintained and yanked crates as
# warnings), and the pinned Python packages of the test and tool requirements with pip-audit.
#
# Online, each tool fetches its database. Offline, give --db DIR, a checkout of
# https://github.com/RustSec/advisory-db (any clone or copy of it): the Rust audit then runs
# against it without fetching, and the Python audit, which has no offline database, is skipped
# with a note. The database's date is printed: an old copy misses newer advisories.
#
# usage: scripts/audit.sh [--db DIR]
# exit status: 0 no advisory, 1 advisories found, 2 not audited (a tool missing, no database)
#
# Install the tools once: cargo install cargo-audit --locked; python3 -m pip install pip-audit
set -uo pipefail
cd "$(dirname "$0")/.."
db=""
case "${1:-}" in
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    --db) db=${2:?--db needs a directory}; [ -d "$db/crates" ] || { echo "audit: $db is not a RustSec advisory-db checkout (no crates/)" >&2; exit 2; } ;;
    "") ;;
    *) echo "audit: unknown argument '$1' (--help)" >&2; exit 2 ;;
esac

if ! cargo audit --version >/dev/null 2>&1; then
    echo "audit: cargo-audit is not installed (cargo install cargo-audit --locked)" >&2
    exit 2
fi
# Both tools exit 1 on an advisory and on a failed run alike: their JSON reports tell the two
# apart (no report, or one that cannot be read, is "not audited").
python=${PYTHON:-python3}
verdict() {  # verdict TOOL REPORT-FILE: prints the findings; 0 clean, 1 advisories, 2 no report
    "$python" - "$1" "$2" <<'PY'
import json, sys
tool, path = sys.argv[1], sys.argv[2]
try:
    report = json.load(open(path))
except (OSError, ValueError):
    sys.exit(2)
if tool == "cargo":
    found = [v["advisory"]["id"] + " " + v["package"]["name"] for v in report["vulnerabilities"]["list"]]
    warned = [(w.get("advisory") or {}).get("id", kind) + " " + w["package"]["name"]
              for kind, ws in report.get("warnings", {}).items() for w in ws]
else:
    found = [f"{v['id']} {d['name']} {d['version']}" for d in report["dependencies"] for v in d.get("vulns", [])]
    warned = []
for line in found:
    print(f"advisory: {line}")
for line in warned:
    print(f"warning: {line}")
print(f"{tool}: {len(found)} advisories, {len(warned)} warnings")
sys.exit(1 if found else 0)
PY
}
report=$(mktemp)
trap 'rm -f "$report"' EXIT
status=0
if [ -n "$db" ]; then
    echo "RustSec database: $db, last change $(git -C "$db" log -1 --format=%cs 2>/dev/null || echo unknown)"
    cargo audit --db "$db" --no-fetch --stale --json >"$report"
else
    cargo audit --json >"$report"
fi
verdict cargo "$report"
case $? in 0) ;; 1) status=1 ;; *) echo "audit: cargo audit gave no report (no database?)" >&2; exit 2 ;; esac

if [ -n "$db" ]; then
    echo "audit: the Python packages are not audited offline (pip-audit fetches its database)"
elif "$python" -m pip_audit --version >/dev/null 2>&1; then
    "$python" -m pip_audit -f json -o "$report" -r tests/python/requirements.txt -r scripts/requirements.txt
    verdict pip "$report"
    case $? in 0) ;; 1) status=1 ;; *) echo "audit: pip-audit gave no report (no network?)" >&2; exit 2 ;; esac
else
    echo "audit: pip-audit is not installed ($python -m pip install pip-audit)" >&2
    exit 2
fi
exit $status
