#!/usr/bin/env bash
# Perft speed of Lazuli against Stockfish's `go perft`: the start position to depth 6 and
# Kiwipete to depth 5, the two engines run alternately for several rounds. Times are wall-clock
# times of whole processes less each engine's own start-up time (its median time for a depth-1
# perft), so Stockfish's network loading does not count against it. Prints the median nodes per
# second of each engine and the ratio.
#
# usage: scripts/perft-vs-stockfish.sh [rounds]      (default 5)
# env:   STOCKFISH=/path/to/stockfish   LAZULI=/path/to/lazuli (otherwise built here)
#        CARGO_TARGET_DIR is honoured when building.
set -euo pipefail
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."

rounds="${1:-5}"
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
    echo "rounds must be a positive number, got '$rounds'" >&2
    exit 2
fi

stockfish="${STOCKFISH:-}"
if [[ -z "$stockfish" ]]; then
    stockfish="$(command -v stockfish || true)"
    [[ -z "$stockfish" && -x /usr/games/stockfish ]] && stockfish=/usr/games/stockfish
fi
if [[ -z "$stockfish" || ! -x "$stockfish" ]]; then
    echo "Stockfish not found: put it in PATH, install it in /usr/games or set STOCKFISH" >&2
    exit 1
fi

lazuli="${LAZULI:-}"
if [[ -z "$lazuli" ]]; then
    cargo build --release --quiet -p lazuli
    lazuli="${CARGO_TARGET_DIR:-target}/release/lazuli"
fi
if [[ ! -x "$lazuli" ]]; then
    echo "Lazuli binary '$lazuli' not found or not executable" >&2
    exit 1
fi

kiwipete="r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

now_ns() { date +%s%N; }

# Each run function prints "<nodes> <nanoseconds>" for one process.
run_lazuli() { # depth [fen]
    local depth="$1" fen="${2:-}" start end out
    start=$(now_ns)
    if [[ -n "$fen" ]]; then
        out=$("$lazuli" perft "$depth" "$fen" 2>/dev/null)
    else
        out=$("$lazuli" perft "$depth" 2>/dev/null)
    fi
    end=$(now_ns)
    echo "$(nodes_of "$out") $((end - start))"
}

run_stockfish() { # depth [fen]
    local depth="$1" fen="${2:-}" position start end out
    position="position startpos"
    [[ -n "$fen" ]] && position="position fen $fen"
    start=$(now_ns)
    out=$(printf '%s\ngo perft %s\nquit\n' "$position" "$depth" | "$stockfish")
    end=$(now_ns)
    echo "$(nodes_of "$out") $((end - start))"
}

# The total of a divide output, or "none".
nodes_of() {
    local n
    n=$(sed -n 's/^Nodes searched: *\([0-9][0-9]*\).*/\1/p' <<<"$1")
    echo "${n:-none}"
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# Start-up times: a depth-1 perft is all start-up.
declare -a lz_boot=() sf_boot=()
for ((i = 0; i < rounds; i++)); do
    lz_boot+=("$(run_lazuli 1 | cut -d' ' -f2)")
    sf_boot+=("$(run_stockfish 1 | cut -d' ' -f2)")
done
lz_startup=$(printf '%s\n' "${lz_boot[@]}" | median)
sf_startup=$(printf '%s\n' "${sf_boot[@]}" | median)

echo "Lazuli:    $lazuli"
echo "Stockfish: $stockfish ($("$stockfish" <<<quit | head -n 1))"
printf 'start-up (median of %d): Lazuli %.1f ms, Stockfish %.1f ms (subtracted below)\n' \
    "$rounds" "$(awk -v t="$lz_startup" 'BEGIN {print t / 1e6}')" \
    "$(awk -v t="$sf_startup" 'BEGIN {print t / 1e6}')"
echo

printf '%-22s %12s %12s %12s %12s %8s\n' test nodes "lazuli s" "lazuli Mnps" "sf Mnps" ratio
for test in "startpos 6" "kiwipete 5"; do
    read -r name depth <<<"$test"
    fen=""
    [[ "$name" == kiwipete ]] && fen="$kiwipete"
    declare -a lz_times=() sf_times=()
    lz_nodes="" sf_nodes=""
    for ((i = 0; i < rounds; i++)); do
        read -r lz_nodes t <<<"$(run_lazuli "$depth" "$fen")"
        lz_times+=("$t")
        read -r sf_nodes t <<<"$(run_stockfish "$depth" "$fen")"
        sf_times+=("$t")
    done
    if ! [[ "$lz_nodes" =~ ^[0-9]+$ && "$sf_nodes" =~ ^[0-9]+$ ]]; then
        echo "$name depth $depth: no node count (Lazuli '$lz_nodes', Stockfish '$sf_nodes')" >&2
        exit 1
    fi
    if [[ "$lz_nodes" != "$sf_nodes" ]]; then
        echo "$name depth $depth: node counts differ: Lazuli $lz_nodes, Stockfish $sf_nodes" >&2
        exit 1
    fi
    lz_t=$(printf '%s\n' "${lz_times[@]}" | median)
    sf_t=$(printf '%s\n' "${sf_times[@]}" | median)
    awk -v name="$name $depth" -v n="$lz_nodes" -v lt="$lz_t" -v st="$sf_t" \
        -v lb="$lz_startup" -v sb="$sf_startup" 'BEGIN {
        l = (lt - lb) / 1e9; s = (st - sb) / 1e9
        if (l <= 0 || s <= 0) { print name ": run too short to measure, raise the depth" > "/dev/stderr"; exit 1 }
        printf "%-22s %12d %12.3f %12.1f %12.1f %8.2f\n", name, n, l, n / l / 1e6, n / s / 1e6, s / l
    }'
    unset lz_times sf_times
done
echo
echo "times: medians of $rounds alternating runs; ratio = Lazuli nodes/s / Stockfish nodes/s"
