#!/usr/bin/env bash
# Gauntlet of one Lazuli binary against the Debian engine ladder (see docs/tools.md).
#
#   scripts/gauntlet.sh BINARY OUT_PREFIX [extra match.py arguments...]
#
# TC (default 10+0.1), PAIRS (default 100 per opponent), HASH (default 16 MB).
# Writes OUT_PREFIX.pgn, OUT_PREFIX.json and, if an engine misbehaves, OUT_PREFIX.pgn.bugs.txt.
set -euo pipefail
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
case "${1:-}" in -h|--help) usage; exit 0 ;; esac
if [[ $# -lt 2 ]]; then
    usage >&2
    exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-$here/../.venv/bin/python}"
binary="$1"
out="$2"
shift 2
name="lazuli-$(basename "$binary" | sed 's/^lazuli-//')"

args=(--gauntlet --engine "name=$name" "cmd=$binary" option.Threads=1)
for rung in ${RUNGS:-glaurung toga2}; do
    case "$rung" in
        gnuchess)  args+=(--engine name=gnuchess cmd=/usr/games/gnuchess arg=--uci option.OwnBook=false) ;;
        glaurung)  args+=(--engine name=glaurung cmd=/usr/games/glaurung option.OwnBook=false option.Threads=1) ;;
        toga2)     args+=(--engine name=toga2 cmd=/usr/games/toga2 option.OwnBook=false "option.Number of Threads=1") ;;
        ethereal)  args+=(--engine name=ethereal cmd=/usr/games/ethereal-chess option.Threads=1) ;;
        stockfish) args+=(--engine name=stockfish cmd=/usr/games/stockfish option.Threads=1) ;;
        *) echo "unknown rung $rung" >&2; exit 1 ;;
    esac
done

exec "$python" "$here/match.py" "${args[@]}" --each "option.Hash=${HASH:-16}" \
    --tc "${TC:-10+0.1}" --pairs "${PAIRS:-100}" --stop-on-bug "$name" \
    --pgn "$out.pgn" --json "$out.json" "$@"
