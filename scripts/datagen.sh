#!/usr/bin/env bash
# Self-play data for the network in the background, one command per step: start, status, check
# and stop `lazuli datagen`, one file per seed in a data directory outside the repository.
#
# usage: scripts/datagen.sh start [--seed N] [--binary PATH] [--games N] [--threads N] [--dir DIR]
#        scripts/datagen.sh status [--dir DIR]        (or report)
#        scripts/datagen.sh check [--dir DIR]
#        scripts/datagen.sh stop [--dir DIR]
#
# start   copies BINARY (default target/release/lazuli) into DIR as lazuli-<commit> (the commit
#         the binary reports; a copy with the same bytes already there is used instead), copies
#         the test tablebases (tests/data/syzygy) to DIR/syzygy unless it exists, and runs, in DIR,
#         at nice 19, in a session of its own that outlives the terminal:
#             lazuli-<commit> datagen --output s<SEED>.vf --games 1000000 --nodes 5000
#                 --threads <nproc> --seed <SEED> --syzygy syzygy
#         (the other settings are datagen's defaults: 8 random plies, 10% double Chess960
#         starts), its output appended to s<SEED>.log, its pid in datagen.pid and the copy it
#         runs named in s<SEED>.binary. Without --seed, the lowest seed whose file is unfinished
#         and not running is resumed with its own binary and recorded settings (datagen goes on
#         from s<SEED>.vf.done); with none, the seed after the highest found in DIR (any file
#         s<N>.*), 300 the first. A seed's file is only ever resumed, never begun again; --seed
#         names one (300 or more). Refused while a datagen writes into DIR.
#         --games: the seed's total (default: what its last run was given, else 1000000);
#         --threads: default all cores (neither changes the games).
# status  a line per seed: file, state (running, stopped, finished), games done and asked for,
#         positions, binary; then the totals. Counts are the complete games that each file's
#         .done lists (instant on any size); a file without one is read with inspect.
# check   `lazuli datagen inspect` on every file (about 2 million positions a second): exit 1
#         when one breaks before its last complete game. Bytes after that game (one in play, or
#         cut short by a stop) are not damage: resuming the seed cuts them off.
# stop    SIGTERM to the datagen writing into DIR, and waits for it to end. datagen ends at
#         once: the games in play are lost and played again on resume, none listed as done is.
#
# DIR: --dir, else $LAZULI_DATA_DIR, else ~/lazuli-data. With autogroup scheduling
# (/proc/sys/kernel/sched_autogroup_enabled is 1) a session of its own is weighed as a group
# against the rest of the machine whatever its nice: start lowers that group to nice 19 too
# (echo 19 > /proc/PID/autogroup) when it is not the caller's group.
# LAZULI_TEST_NODES replaces the 5000 soft nodes of a new seed (tiny games for tests).
set -euo pipefail
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die() { echo "datagen.sh: $*" >&2; exit 1; }

command=${1:-}
case "$command" in
    -h|--help) usage; exit 0 ;;
    start|status|report|check|stop) shift ;;
    *) usage >&2; exit 2 ;;
esac
repo=$(cd "$(dirname "$0")/.." && pwd -P)
dir=${LAZULI_DATA_DIR:-$HOME/lazuli-data}
seed_arg='' binary_arg='' games_arg='' threads=''
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --dir|--seed|--binary|--games|--threads)
            [[ $# -ge 2 ]] || { echo "datagen.sh: $1 needs a value" >&2; exit 2; }
            case "$1" in
                --dir) dir=$2 ;;
                --seed) seed_arg=$2 ;;
                --binary) binary_arg=$2 ;;
                --games) games_arg=$2 ;;
                --threads) threads=$2 ;;
            esac
            shift 2 ;;
        *) echo "datagen.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
    esac
done
if [[ "$command" != start && -n "$seed_arg$binary_arg$games_arg$threads" ]]; then
    echo "datagen.sh: --seed, --binary, --games and --threads are options of start" >&2
    exit 2
fi
for number in "$seed_arg" "$games_arg" "$threads"; do
    [[ -z "$number" || "$number" =~ ^[0-9]+$ ]] || { echo "datagen.sh: not a number: $number" >&2; exit 2; }
done
dir=$(realpath -m -- "$dir")
case "$dir/" in "$repo"/*) die "the data directory $dir is inside the repository; use one outside it" ;; esac
nodes=${LAZULI_TEST_NODES:-5000}
[[ "$nodes" =~ ^[1-9][0-9]*$ ]] || die "LAZULI_TEST_NODES is not a positive number: $nodes"

# Whether PID is a live process (a zombie, which nothing may reap here, is not).
alive() {
    local state
    state=$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null) || return 1
    [[ -n "$state" && "$state" != Z ]]
}

# "PID FILE" for each datagen process writing into $dir, whoever started it (pid file or not).
writers() {
    local proc args i subcommand out cwd
    for proc in /proc/[0-9]*; do
        args=()
        mapfile -d '' -t args 2>/dev/null <"$proc/cmdline" || continue
        subcommand='' out=''
        for ((i = 1; i + 1 < ${#args[@]}; i++)); do
            [[ "${args[i]}" == datagen ]] && subcommand=datagen
            if [[ -n "$subcommand" && "${args[i]}" == --output ]]; then
                out=${args[i + 1]}
                break
            fi
        done
        [[ -n "$out" ]] || continue
        if [[ "$out" != /* ]]; then
            cwd=$(readlink "$proc/cwd" 2>/dev/null) || continue
            out=$cwd/$out
        fi
        out=$(realpath -m -- "$out")
        if [[ "$(dirname "$out")" == "$dir" ]] && alive "${proc#/proc/}"; then
            echo "${proc#/proc/} $(basename "$out")"
        fi
    done
}

# Names the frozen binary of each running seed in s<N>.binary where nothing does yet (a run
# started by hand), so that the seed resumes with it.
record_running_binaries() {
    local pid file seed exe
    while read -r pid file; do
        [[ "$file" =~ ^s([0-9]+)\.vf$ ]] || continue
        seed=${BASH_REMATCH[1]}
        [[ -e "$dir/s$seed.binary" ]] && continue
        exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
        if [[ "$(dirname "$exe")" == "$dir" && -x "$exe" ]]; then
            basename "$exe" >"$dir/s$seed.binary"
        fi
    done <<<"$1"
}

# Every seed with a file in $dir (s<N>.vf, .vf.done, .vf.settings, .settings, .binary, .log...).
used_seeds() {
    local file
    for file in "$dir"/s[0-9]*.*; do
        if [[ -e "$file" && "$(basename "$file")" =~ ^s([0-9]+)\. ]]; then
            echo "$((10#${BASH_REMATCH[1]}))"
        fi
    done | sort -nu
}

# "GAMES END" of a data file's .done list: the complete games it records and the file length
# after the last, read as datagen reads it when it resumes (up to the first line out of order).
done_counts() {
    local size
    [[ -f "$1.done" ]] || { echo "0 0"; return; }
    size=$(stat -c %s "$1" 2>/dev/null || echo 0)
    awk -v size="$size" '
        NF != 2 || $1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ || $2 + 0 < end || $2 + 0 > size { exit }
        { games++; end = $2 + 0 }
        END { printf "%d %d\n", games, end }' "$1.done"
}

# The games the seed's last run was asked for, from its log's first progress line.
target_games() {
    local file=$dir/s$1.log
    [[ -f "$file" ]] || return 0
    sed -n 's/^datagen: \([0-9][0-9]*\) games, .*/\1/p' "$file" | tail -n 1
}

# A recorded setting of the seed ("nodes", "syzygy"...), empty when none is recorded.
setting() {
    local file=$dir/s$1.vf.settings
    [[ -f "$file" ]] || return 0
    awk -v name="$2" '$1 == name { sub(/^[^ ]+ /, ""); value = $0 } END { print value }' "$file"
}

# The binary that reads the seed's file: its own, else any frozen copy, else the repository's.
reader_for() {
    local name candidate
    name=$(cat "$dir/s$1.binary" 2>/dev/null || true)
    if [[ -n "$name" && -x "$dir/$name" ]]; then
        echo "$dir/$name"
        return
    fi
    for candidate in "$dir"/lazuli-*; do
        [[ -x "$candidate" ]] && { echo "$candidate"; return; }
    done
    [[ -x "$repo/target/release/lazuli" ]] || die "no lazuli binary to read s$1.vf with"
    echo "$repo/target/release/lazuli"
}

# The seeds with a data file, in order.
data_seeds() {
    local seed
    for seed in $(used_seeds); do
        [[ -f "$dir/s$seed.vf" ]] && echo "$seed"
    done
    return 0
}

# Copies $1 into $dir unless a file with the same bytes is there; prints the copy's name.
freeze() {
    local binary=$1 id name existing
    for existing in "$dir"/lazuli-*; do
        if [[ -f "$existing" && -x "$existing" ]] && cmp -s "$binary" "$existing"; then
            basename "$existing"
            return
        fi
    done
    id=$(timeout 10 "$binary" --version 2>/dev/null | sed -n 's/.*(\([0-9A-Za-z._-]*\)).*/\1/p' | head -n 1 || true)
    [[ -n "$id" ]] || id=$(git -C "$repo" describe --always --dirty 2>/dev/null || true)
    [[ -n "$id" ]] || id=$(sha256sum "$binary" | cut -c 1-12)
    name=lazuli-$id
    if [[ -e "$dir/$name" ]]; then
        name=$name-$(sha256sum "$binary" | cut -c 1-8)
    fi
    cp -- "$binary" "$dir/.$name.tmp"
    chmod 755 "$dir/.$name.tmp"
    # A copy taken while cargo writes the binary would not run: it is not kept.
    if ! timeout 10 "$dir/.$name.tmp" datagen --help >/dev/null 2>&1; then
        rm -f -- "$dir/.$name.tmp"
        die "the copy of $binary does not run datagen"
    fi
    mv -- "$dir/.$name.tmp" "$dir/$name"
    echo "$name"
}

start() {
    mkdir -p "$dir"
    exec 9>"$dir/.datagen.lock"
    flock -n 9 || die "another start into $dir is under way"
    local running pid seed file
    running=$(writers)
    if [[ -n "$running" ]]; then
        record_running_binaries "$running"
        read -r pid file <<<"$running"
        die "a datagen already writes into $dir: $file, pid $pid (scripts/datagen.sh stop first)"
    fi
    rm -f "$dir/datagen.pid"

    local resume='' done_games end target unfinished=()
    if [[ -n "$seed_arg" ]]; then
        seed=$((10#$seed_arg))
        [[ $seed -ge 300 ]] || die "seeds start at 300 (lower ones made earlier corpora)"
        if [[ -f "$dir/s$seed.vf" ]]; then
            resume=1
        elif grep -qx "$seed" <<<"$(used_seeds)"; then
            die "seed $seed was used in $dir but s$seed.vf is gone: a seed is never begun again, take another"
        fi
    else
        for seed in $(data_seeds); do
            read -r done_games end < <(done_counts "$dir/s$seed.vf")
            target=$(target_games "$seed")
            [[ "$done_games" -lt "${games_arg:-${target:-1000000}}" ]] && unfinished+=("$seed")
        done
        if [[ ${#unfinished[@]} -gt 0 ]]; then
            seed=${unfinished[0]}
            resume=1
        else
            seed=$(used_seeds | tail -n 1)
            seed=$((${seed:-299} + 1))
            [[ $seed -ge 300 ]] || seed=300
        fi
    fi

    local name games syzygy run_nodes
    if [[ -n "$resume" ]]; then
        name=$(cat "$dir/s$seed.binary" 2>/dev/null || true)
        [[ -n "$name" ]] || die "s$seed.vf is unfinished, but no s$seed.binary names the binary" \
            "that plays it: write its name there (echo lazuli-<commit> > $dir/s$seed.binary) to resume it"
        [[ -x "$dir/$name" ]] || die "s$seed.vf plays with $name (s$seed.binary), which is not in $dir"
        if [[ -n "$binary_arg" ]] && ! cmp -s "$binary_arg" "$dir/$name"; then
            die "s$seed.vf is unfinished and plays with $name, not $binary_arg:" \
                "resume it without --binary, or give a new --seed"
        fi
        read -r done_games end < <(done_counts "$dir/s$seed.vf")
        target=$(target_games "$seed")
        games=${games_arg:-${target:-1000000}}
        run_nodes=$(setting "$seed" nodes)
        run_nodes=${run_nodes:-$nodes}
        syzygy=$(setting "$seed" syzygy)
        syzygy=${syzygy:-syzygy}
    else
        local binary=${binary_arg:-${CARGO_TARGET_DIR:-$repo/target}/release/lazuli}
        [[ -f "$binary" && -x "$binary" ]] || die "$binary is not an executable (build it: cargo build --release)"
        name=$(freeze "$binary")
        echo "$name" >"$dir/s$seed.binary"
        games=${games_arg:-1000000}
        run_nodes=$nodes
        syzygy=syzygy
        done_games=0
    fi
    if [[ "$syzygy" == syzygy && ! -d "$dir/syzygy" ]]; then
        [[ -d "$repo/tests/data/syzygy" ]] || die "$repo/tests/data/syzygy is missing"
        rm -rf "$dir/.syzygy.tmp"
        cp -r "$repo/tests/data/syzygy" "$dir/.syzygy.tmp"
        mv "$dir/.syzygy.tmp" "$dir/syzygy"
    fi

    local args=(datagen --output "s$seed.vf" --games "$games" --nodes "$run_nodes"
        --threads "${threads:-$(nproc)}" --seed "$seed")
    [[ "$syzygy" == none ]] || args+=(--syzygy "$syzygy")
    cd "$dir"
    echo "datagen.sh: $(date -u '+%Y-%m-%d %H:%M:%S UTC') ./$name ${args[*]}" >>"s$seed.log"
    # setsid: a session of its own (no terminal, no hangup); the shell writes its own pid, which
    # exec hands on to nice, nohup and datagen.
    # shellcheck disable=SC2016
    setsid sh -c 'echo "$$" >"$0.tmp" && mv "$0.tmp" "$0" && exec nice -n 19 nohup "$@"' \
        datagen.pid "./$name" "${args[@]}" >>"s$seed.log" 2>&1 </dev/null 9>&- &
    local i
    for ((i = 0; i < 50; i++)); do
        [[ -s datagen.pid ]] && break
        sleep 0.1
    done
    pid=$(cat datagen.pid 2>/dev/null) || die "datagen did not start (s$seed.log)"

    local mine='' theirs='' priority="nice 19"
    if [[ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" == 1 ]] && alive "$pid"; then
        { read -r mine _ </proc/$$/autogroup; } 2>/dev/null || true
        { read -r theirs _ <"/proc/$pid/autogroup"; } 2>/dev/null || true
        if [[ -n "$theirs" && "$theirs" != "$mine" ]]; then
            if { echo 19 >"/proc/$pid/autogroup"; } 2>/dev/null; then
                priority="nice 19, its autogroup $theirs at nice 19"
            else
                echo "datagen.sh: could not lower the autogroup $theirs (echo 19 > /proc/$pid/autogroup)" >&2
            fi
        elif [[ -n "$theirs" ]]; then
            priority="nice 19, in this shell's autogroup (left as it is)"
        fi
    fi

    if [[ -n "$resume" ]]; then
        echo "resuming seed $seed: s$seed.vf ($done_games games done) with $name"
    else
        echo "new seed $seed: s$seed.vf with $name"
    fi
    echo "  in $dir: ./$name ${args[*]}"
    echo "  pid $pid ($priority), log $dir/s$seed.log"
    # A run refused at once (settings that differ, a bad file) ends within a second.
    for ((i = 0; i < 10; i++)); do
        alive "$pid" || break
        sleep 0.1
    done
    if ! alive "$pid"; then
        rm -f datagen.pid
        read -r done_games end < <(done_counts "s$seed.vf")
        if [[ "$done_games" -ge "$games" ]]; then
            echo "  finished: $done_games games"
            return 0
        fi
        tail -n 5 "s$seed.log" >&2
        die "datagen ended at once (s$seed.log)"
    fi
}

status() {
    local running pid seed state done_games end positions target binary total_games=0 total_positions=0 files=0
    running=$(writers)
    echo "data directory $dir"
    printf '%-10s %-9s %20s %14s  %s\n' file state games positions binary
    for seed in $(data_seeds); do
        if [[ -f "$dir/s$seed.vf.done" ]]; then
            read -r done_games end < <(done_counts "$dir/s$seed.vf")
            positions=$(((end - 36 * done_games) / 4))
        else
            local report
            report=$("$(reader_for "$seed")" datagen inspect "$dir/s$seed.vf" 2>/dev/null || true)
            done_games=$(awk '$1 == "games" { print $2 }' <<<"$report")
            positions=$(awk '$1 == "positions" { print $2 }' <<<"$report")
            done_games=${done_games:-0} positions=${positions:-0}
        fi
        target=$(target_games "$seed")
        pid=$(awk -v file="s$seed.vf" '$2 == file { print $1; exit }' <<<"$running")
        if [[ -n "$pid" ]]; then
            state=running
        elif [[ -n "$target" && "$done_games" -ge "$target" ]]; then
            state=finished
        else
            state=stopped
        fi
        binary=$(cat "$dir/s$seed.binary" 2>/dev/null || true)
        if [[ -z "$binary" && -n "$pid" ]]; then
            binary=$(basename "$(readlink "/proc/$pid/exe" 2>/dev/null || echo ?)")
        fi
        printf '%-10s %-9s %20s %14s  %s%s\n' "s$seed.vf" "$state" "$done_games/${target:-?}" \
            "$positions" "${binary:-?}" "${pid:+ (pid $pid)}"
        total_games=$((total_games + done_games))
        total_positions=$((total_positions + positions))
        files=$((files + 1))
    done
    printf '%-10s %-9s %20s %14s\n' total "$files files" "$total_games" "$total_positions"
}

check() {
    local seed file done_games end report verdict offset damaged=0 files=0 games positions
    for seed in $(data_seeds); do
        file=$dir/s$seed.vf
        done_games='' end=''
        # The .done list first: a running datagen only adds complete games after it.
        if [[ -f "$file.done" ]]; then
            read -r done_games end < <(done_counts "$file")
        fi
        report=$(nice -n 19 "$(reader_for "$seed")" datagen inspect "$file" 2>&1 || true)
        games=$(awk '$1 == "games" { print $2 }' <<<"$report")
        positions=$(awk '$1 == "positions" { print $2 }' <<<"$report")
        verdict=$(sed -n 's/^status  *//p' <<<"$report")
        offset=$(sed -n 's/.* starting at byte \([0-9][0-9]*\).*/\1/p' <<<"$verdict")
        files=$((files + 1))
        if [[ "$verdict" == complete* ]]; then
            verdict=ok
        elif [[ -n "$offset" && -n "$end" && "$offset" -ge "$end" ]]; then
            verdict="ok; $(($(stat -c %s "$file") - offset)) bytes after the last complete game (cut off on resume)"
        elif [[ -n "$offset" && -z "$end" && "$verdict" == truncated* ]]; then
            verdict="ok; its last game is incomplete ($verdict)"
        else
            verdict="DAMAGED: ${verdict:-$(tail -n 1 <<<"$report")}${end:+; .done lists $done_games games up to byte $end}"
            damaged=$((damaged + 1))
        fi
        echo "s$seed.vf  ${games:-?} games  ${positions:-?} positions  $verdict"
    done
    echo "checked $files files in $dir: $damaged damaged"
    [[ $damaged -eq 0 ]]
}

stop() {
    local running pid file i done_games end left=()
    running=$(writers)
    if [[ -z "$running" ]]; then
        rm -f "$dir/datagen.pid"
        echo "no datagen writes into $dir"
        return 0
    fi
    record_running_binaries "$running"
    while read -r pid file; do
        kill -TERM "$pid" 2>/dev/null || true
        echo "sent SIGTERM to pid $pid ($file)"
    done <<<"$running"
    for ((i = 0; i < 300; i++)); do
        left=()
        while read -r pid file; do
            alive "$pid" && left+=("$pid")
        done <<<"$running"
        [[ ${#left[@]} -eq 0 ]] && break
        sleep 0.1
    done
    [[ ${#left[@]} -eq 0 ]] || die "still running after 30 s: pid ${left[*]}"
    rm -f "$dir/datagen.pid"
    while read -r pid file; do
        read -r done_games end < <(done_counts "$dir/$file")
        echo "stopped $file: $done_games games done"
    done <<<"$running"
}

case "$command" in
    start) start ;;
    status|report) status ;;
    check) check ;;
    stop) stop ;;
esac
