#!/usr/bin/env bash
# Side-by-side benchmark: `iomark fileio` vs `sysbench fileio` 1.0.20, same parameters, same run.
#
#   bash bench/fileio-vs-sysbench.sh            # writes bench/RESULTS.md
#
# Rows (see RESULTS.md for the exact options):
#   a) rndrd 4 KiB, 1 thread, file set on tmpfs            events/s        target iomark >= 1.10x
#   b) rndrw defaults (16 KiB, 1.5, fsync 100, 128 files)   events/s        target 0.95x .. 1.10x
#      on the disk, 2 GiB                                   + reads/writes/fsyncs per second and proportions
#   c) prepare 2 GiB on the disk (128 files), fresh dir     MiB/s (wall)    target iomark >= 1.00x
#   d) async io_uring/libaio, O_DIRECT, rndrd 4 KiB         events/s        target iomark >= 1.00x
#
# Every measurement is repeated (tool order alternates between repetitions) and the MEDIAN is reported.
# Both tools run on the very same file set for a), b) and d) (prepared once by sysbench; identical
# names, sizes and zero content); c) prepares into a new empty directory for every single run.
#
# Environment knobs (defaults in brackets):
#   REPS_RUN [5]        repetitions per tool for the time-limited rows a), b), d)
#   REPS_PREPARE [5]    repetitions per tool for c)
#   RUN_TIME [10]       --time of the run rows
#   SHM_BASE [/dev/shm] tmpfs directory for a)
#   DISK_BASE [/var/tmp] directory on the disk for b), c), d) (must not be tmpfs)
#   SHM_SIZE [1G] SHM_FILES [128]  file set of a)
#   DISK_SIZE [2G]      file set of b), c), d) (128 files)
#   DROP_CACHES [1]     sync + drop the page cache before every disk measurement (root only)
#   KEEP_LOGS [0]       keep the raw tool outputs (the path is printed); removed otherwise
#   RESULTS [bench/RESULTS.md]
#
# Everything the script creates (file sets, temp dirs, logs) is removed on exit, also on failure or
# Ctrl-C. It changes no persistent setting (drop_caches is a one-shot action, not a setting).
set -Eeuo pipefail
export IOMARK_HISTORY=off # a benchmark keeps nothing in the user's results history

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
IOMARK="$ROOT/target/release/iomark"
RESULTS=${RESULTS:-$HERE/RESULTS.md}
REPS_RUN=${REPS_RUN:-5}
REPS_PREPARE=${REPS_PREPARE:-5}
RUN_TIME=${RUN_TIME:-10}
SHM_BASE=${SHM_BASE:-/dev/shm}
DISK_BASE=${DISK_BASE:-/var/tmp}
SHM_SIZE=${SHM_SIZE:-1G}
SHM_FILES=${SHM_FILES:-128}
DISK_SIZE=${DISK_SIZE:-2G}
DROP_CACHES=${DROP_CACHES:-1}
KEEP_LOGS=${KEEP_LOGS:-0}

SHM_DIR="" DISK_DIR="" LOG_DIR="" RESULTS_TMP="" CHILD=""
FAILED=0

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    if [[ -n $CHILD ]] && kill -0 "$CHILD" 2>/dev/null; then
        kill -TERM "$CHILD" 2>/dev/null || true
        wait "$CHILD" 2>/dev/null || true
    fi
    # Only the directories this script made (mktemp names), never anything else.
    for d in "$SHM_DIR" "$DISK_DIR"; do
        [[ -n $d && -d $d && $d == */iomark-bench.* ]] && rm -rf -- "$d"
    done
    [[ -n $RESULTS_TMP && -f $RESULTS_TMP ]] && rm -f -- "$RESULTS_TMP"
    if [[ -n $LOG_DIR && -d $LOG_DIR ]]; then
        if [[ $KEEP_LOGS == 1 ]]; then log "raw outputs kept in $LOG_DIR"; else rm -rf -- "$LOG_DIR"; fi
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

# ---------------------------------------------------------------------------------------------------
# set-up
command -v sysbench >/dev/null 2>&1 || {
    log "installing sysbench"
    apt-get update && apt-get install -y sysbench
}
sysbench --version | grep -q '^sysbench 1\.0\.20' ||
    log "WARNING: this is not sysbench 1.0.20: $(sysbench --version)"
log "building iomark (release)"
(cd "$ROOT" && cargo build --release --quiet)
[[ -x $IOMARK ]] || die "no binary at $IOMARK"

to_bytes() { numfmt --from=iec "${1%B}"; }
SHM_BYTES=$(to_bytes "$SHM_SIZE")
DISK_BYTES=$(to_bytes "$DISK_SIZE")

shm_fs=$(findmnt -no FSTYPE -T "$SHM_BASE" | tail -1)
disk_fs=$(findmnt -no FSTYPE -T "$DISK_BASE" | tail -1)
[[ $shm_fs == tmpfs ]] || die "$SHM_BASE is $shm_fs, not tmpfs"
[[ $disk_fs != tmpfs && $disk_fs != ramfs ]] || die "$DISK_BASE is $disk_fs (memory); choose a disk directory"
avail() { df --output=avail -B1 "$1" | tail -1 | tr -d ' '; }
(( $(avail "$SHM_BASE") > 2 * SHM_BYTES )) || die "not enough room on $SHM_BASE for $SHM_SIZE"
(( $(avail "$DISK_BASE") > 3 * DISK_BYTES )) || die "not enough room on $DISK_BASE for $DISK_SIZE (x3)"

SHM_DIR=$(mktemp -d "$SHM_BASE/iomark-bench.XXXXXX")
DISK_DIR=$(mktemp -d "$DISK_BASE/iomark-bench.XXXXXX")
LOG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/iomark-bench-logs.XXXXXX")
RESULTS_TMP=$(mktemp "$HERE/.RESULTS.md.XXXXXX")

can_drop=0
[[ $DROP_CACHES == 1 && -w /proc/sys/vm/drop_caches ]] && can_drop=1
settle() {   # before a disk measurement: write back dirty data, start from a cold page cache
    sync
    if (( can_drop )); then echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; fi
}

SB=(sysbench fileio)
IM=("$IOMARK" fileio --notes=off)

# run_tool TOOL DIR LOGFILE ARGS...  — runs in DIR (both tools use the current directory)
run_tool() {
    local tool=$1 dir=$2 out=$3; shift 3
    local -a cmd
    if [[ $tool == sysbench ]]; then cmd=("${SB[@]}" "$@"); else cmd=("${IM[@]}" "$@"); fi
    printf '$ (cd %s && %s)\n' "$dir" "${cmd[*]}" > "$out"
    local cpu0 cpu1
    children_cpu > "$LOG_DIR/.cpu0"; cpu0=$(cat "$LOG_DIR/.cpu0")
    (cd "$dir" && exec "${cmd[@]}") >> "$out" 2>&1 &
    CHILD=$!
    local rc=0
    wait "$CHILD" || rc=$?
    CHILD=""
    children_cpu > "$LOG_DIR/.cpu1"; cpu1=$(cat "$LOG_DIR/.cpu1")
    # CPU seconds (user + system) the tool used, from the shell's rusage of its children
    echo "cpu_seconds: $(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN { printf "%.4f", b - a }')" >> "$out"
    if (( rc != 0 )); then
        log "FAILED ($tool, exit $rc): ${cmd[*]} — see below"; tail -5 "$out" >&2
        FAILED=1
    fi
    return "$rc"
}

# user+system CPU seconds of all waited-for children of this shell: `times` must run in
# this shell (not in a $(...) subshell), so it writes to a file that awk then reads.
children_cpu() {
    times > "$LOG_DIR/.times"
    awk 'NR == 2 { n = split($0, f, " "); t = 0
        for (i = 1; i <= n; i++) { split(f[i], p, "m"); sub(/s$/, "", p[2]); t += p[1] * 60 + p[2] }
        printf "%.4f", t }' "$LOG_DIR/.times"
}
field() { awk -v k="$2" 'index($0, k) { v = $NF; sub(/s$/, "", v); print v; exit }' "$1"; }
events_per_s() {
    local ev t; ev=$(field "$1" 'total number of events:'); t=$(field "$1" 'total time:')
    [[ -n $ev && -n $t ]] || { echo nan; return; }
    awk -v e="$ev" -v t="$t" 'BEGIN { printf "%.2f", e / t }'
}
cpu_us_per_event() {
    local ev c; ev=$(field "$1" 'total number of events:'); c=$(field "$1" 'cpu_seconds:')
    [[ -n $ev && -n $c && $ev != 0 ]] || { echo nan; return; }
    awk -v e="$ev" -v c="$c" 'BEGIN { printf "%.3f", c * 1e6 / e }'
}
median() { tr ' ' '\n' | awk '$1 != "" && $1 != "nan"' | sort -g |
    awk '{ a[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
          if (NR % 2) printf "%.2f", a[(NR + 1) / 2]; else printf "%.2f", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b == 0) print "nan"; else printf "%.3f", a / b }'; }
now() { date +%s.%N; }
# tool order for repetition i: odd → sysbench first, even → iomark first
order() { if (( $1 % 2 )); then echo "sysbench iomark"; else echo "iomark sysbench"; fi; }

declare -A SAMPLES   # SAMPLES[row,tool,metric] = "v1 v2 ..."
add() { SAMPLES[$1,$2,$3]="${SAMPLES[$1,$2,$3]:-} $4"; }
med() { echo "${SAMPLES[$1,$2,$3]:-}" | median; }
# pmed ROW METRIC: the median of the per-repetition ratios iomark/sysbench (the two tools
# ran back to back in each repetition), the paired estimate the verdict uses
pmed() {
    paste <(echo "${SAMPLES[$1,iomark,$2]:-}" | xargs -n1) <(echo "${SAMPLES[$1,sysbench,$2]:-}" | xargs -n1) |
        awk '$2 > 0 && $1 != "nan" && $2 != "nan" { printf "%.6f\n", $1 / $2 }' | sort -g |
        awk '{ a[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
              if (NR % 2) printf "%.4f", a[(NR + 1) / 2]; else printf "%.4f", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# measure_run ROW DIR REPS COLD ARGS...  — time-limited run, events/s (+ r/w/fsync rates)
measure_run() {
    local row=$1 dir=$2 reps=$3 cold=$4; shift 4
    local i tool out
    for ((i = 1; i <= reps; i++)); do
        for tool in $(order "$i"); do
            (( cold )) && settle
            out="$LOG_DIR/$row.$tool.$i.txt"
            if run_tool "$tool" "$dir" "$out" "$@" run; then
                add "$row" "$tool" eps "$(events_per_s "$out")"
                add "$row" "$tool" rps "$(field "$out" 'reads/s:')"
                add "$row" "$tool" wps "$(field "$out" 'writes/s:')"
                add "$row" "$tool" fps "$(field "$out" 'fsyncs/s:')"
                add "$row" "$tool" cpu "$(cpu_us_per_event "$out")"
            else
                add "$row" "$tool" eps nan
            fi
            log "  $row rep $i $tool: $(events_per_s "$out") events/s"
        done
    done
}

# prepare a shared file set (sysbench's own prepare) in DIR
shared_prepare() {
    local dir=$1; shift
    run_tool sysbench "$dir" "$LOG_DIR/prepare-$(basename "$dir").txt" "$@" prepare ||
        die "sysbench prepare failed in $dir"
}

START_DATE=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
T0=$(now)

# ---------------------------------------------------------------------------------------------------
# a) rndrd 4 KiB on tmpfs
A_OPTS=(--file-total-size="$SHM_SIZE" --file-num="$SHM_FILES" --file-test-mode=rndrd
        --file-block-size=4096 --threads=1 --time="$RUN_TIME")
log "a) rndrd 4 KiB on tmpfs ($SHM_DIR)"
shared_prepare "$SHM_DIR" --file-total-size="$SHM_SIZE" --file-num="$SHM_FILES"
measure_run a "$SHM_DIR" "$REPS_RUN" 0 "${A_OPTS[@]}"
rm -rf -- "${SHM_DIR:?}"/test_file.*

# ---------------------------------------------------------------------------------------------------
# b) rndrw defaults on the disk
B_OPTS=(--file-total-size="$DISK_SIZE" --file-test-mode=rndrw --threads=1 --time="$RUN_TIME")
log "b) rndrw defaults on the disk ($DISK_DIR/set)"
mkdir "$DISK_DIR/set"
shared_prepare "$DISK_DIR/set" --file-total-size="$DISK_SIZE"
measure_run b "$DISK_DIR/set" "$REPS_RUN" 1 "${B_OPTS[@]}"

# ---------------------------------------------------------------------------------------------------
# d) async, O_DIRECT, rndrd 4 KiB on the disk (same file set as b)
D_OPTS=(--file-total-size="$DISK_SIZE" --file-io-mode=async --file-test-mode=rndrd
        --file-block-size=4096 --file-extra-flags=direct --threads=1 --time="$RUN_TIME")
log "d) async O_DIRECT rndrd 4 KiB on the disk"
measure_run d "$DISK_DIR/set" "$REPS_RUN" 1 "${D_OPTS[@]}"
rm -rf -- "${DISK_DIR:?}/set"

# ---------------------------------------------------------------------------------------------------
# c) prepare 2 GiB on the disk, a fresh empty directory per run; wall clock around "prepare; sync"
C_OPTS=(--file-total-size="$DISK_SIZE" --file-num=128)
log "c) prepare $DISK_SIZE on the disk"
for ((i = 1; i <= REPS_PREPARE; i++)); do
    for tool in $(order "$i"); do
        dir="$DISK_DIR/prep-$tool-$i"
        settle
        mkdir "$dir"
        out="$LOG_DIR/c.$tool.$i.txt"
        t1=$(now)
        if run_tool "$tool" "$dir" "$out" "${C_OPTS[@]}" prepare; then
            sync
            t2=$(now)
            w=$(awk '/bytes written in/ { b = $1 } END { printf "%.0f", b }' "$out")
            mibs=$(awk -v b="$w" -v a="$t1" -v z="$t2" 'BEGIN { printf "%.2f", b / 1048576 / (z - a) }')
            add c "$tool" mibs "$mibs"
            (( w == DISK_BYTES )) || log "WARNING: $tool wrote $w bytes, expected $DISK_BYTES"
        else
            add c "$tool" mibs nan
        fi
        log "  c rep $i $tool: $(echo "${SAMPLES[c,$tool,mibs]}" | awk '{ print $NF }') MiB/s (wall, incl. sync)"
        rm -rf -- "$dir"
    done
done
# the tool-reported MiB/s is "(R MiB/sec)." — parse the number inside the parentheses
for tool in sysbench iomark; do
    for ((i = 1; i <= REPS_PREPARE; i++)); do
        f="$LOG_DIR/c.$tool.$i.txt"
        [[ -f $f ]] || continue
        add c "$tool" rep "$(sed -n 's/.*bytes written in .* seconds (\([0-9.]*\) MiB\/sec).*/\1/p' "$f" | tail -1)"
    done
done

ELAPSED=$(awk -v a="$T0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------------------------------------------
# report
winner() {   # higher is better
    awk -v r="$1" 'BEGIN { if (r == "nan") print "n/a"; else if (r > 1.02) print "iomark";
                           else if (r < 0.98) print "sysbench"; else print "tie (within 2%)" }'
}
check() {    # check RATIO LO HI
    awk -v r="$1" -v lo="$2" -v hi="$3" 'BEGIN { if (r == "nan") print "n/a";
        else if (r >= lo && (hi == "" || r <= hi)) print "**met**"; else print "**MISSED**" }'
}
samples() { echo "${SAMPLES[$1,$2,$3]:-}" | xargs; }

disk_dev=$(findmnt -no SOURCE -T "$DISK_BASE" | tail -1)
disk_name=$(lsblk -no PKNAME "$disk_dev" 2>/dev/null | head -1)
[[ -n $disk_name ]] || disk_name=$(basename "$disk_dev")
disk_model=$(lsblk -dno MODEL "/dev/$disk_name" 2>/dev/null | xargs)
disk_desc="/dev/$disk_name"
[[ -n $disk_model ]] && disk_desc+=", model \"$disk_model\"" ||
    disk_desc+=", model: (none reported by lsblk)"
disk_desc+=", $(lsblk -dno SIZE "/dev/$disk_name" | xargs), rotational=$(cat /sys/block/$disk_name/queue/rotational 2>/dev/null)"
drv=$(basename "$(readlink -f /sys/block/$disk_name/device/driver 2>/dev/null)" 2>/dev/null || true)
[[ -n $drv && $drv != . ]] && disk_desc+=", driver $drv"
disk_desc+=", scheduler $(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$disk_name/queue/scheduler 2>/dev/null)"
disk_desc+=", read_ahead_kb $(cat /sys/block/$disk_name/queue/read_ahead_kb 2>/dev/null)"
damon=""
if [[ -r /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds ]] &&
   (( $(cat /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds) > 0 )); then
    damon="active ($(cat /sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0/action 2>/dev/null || echo '?') scheme: cold page cache is reclaimed within seconds)"
else
    damon="none"
fi

{
cat <<EOF
# iomark fileio vs sysbench fileio — side by side

Generated by \`bench/fileio-vs-sysbench.sh\` on $START_DATE (wall time of the benchmark: ${ELAPSED} s).

| machine | |
|---|---|
| CPU | $(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo) |
| RAM | $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) |
| kernel | $(uname -sr) |
| disk | $disk_desc |
| filesystems | disk rows: \`$DISK_BASE\` on $disk_fs ($(findmnt -no SOURCE,OPTIONS -T "$DISK_BASE" | tail -1)); row a: \`$SHM_BASE\` on $shm_fs |
| DAMON reclaim | $damon |
| load average | start $LOAD_START, end $LOAD_END (other jobs may share the 2 CPUs) |
| sysbench | $(sysbench --version) |
| iomark | $("$IOMARK" --version 2>/dev/null | head -1 || echo '?'), git $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet HEAD -- src Cargo.toml 2>/dev/null || echo ' (+ uncommitted changes)') |
| rustc | $(rustc --version 2>/dev/null || echo '?') |

Method: each cell is the **median** of $REPS_RUN runs per tool ($REPS_PREPARE for prepare); the tools
alternate (odd repetitions sysbench first, even ones iomark first). Events/s = \`total number of events\` /
\`total time\`. Rows a, b, d use one file set prepared by sysbench, shared by both tools (same names, sizes,
content). Before every disk measurement (b, c, d) the script runs \`sync\` and
\`echo 3 > /proc/sys/vm/drop_caches\` ($( ((can_drop)) && echo done || echo 'NOT done: not root or DROP_CACHES=0')),
so every disk run starts with a cold page cache. Prepare MiB/s = bytes written / wall-clock seconds of
\`prepare\` + \`sync\`, measured by the script; each prepare writes into a new empty directory.
iomark runs with \`--notes=off\`.

| row | parameters | metric | sysbench | iomark | iomark/sysbench (medians) | per-repetition ratio (median) | target | target met | winner |
|---|---|---|---:|---:|---:|---:|---|---|---|
EOF
row() {  # row ID PARAMS METRIC_LABEL METRIC LO HI TARGET_TEXT
    local s m r p
    s=$(med "$1" sysbench "$4"); m=$(med "$1" iomark "$4"); r=$(ratio "$m" "$s")
    p=$(pmed "$1" "$4"); [ -n "$p" ] || p=nan
    p=$(awk -v p="$p" 'BEGIN { if (p == "nan") print "nan"; else printf "%.3f", p }')
    # the verdict and the winner follow the paired per-repetition median
    echo "| $1 | $2 | $3 | $s | $m | $r | $p | $7 | $(check "$p" "$5" "$6") | $(winner "$p") |"
}
row a "rndrd, 4 KiB blocks, 1 thread, sync, $SHM_SIZE in $SHM_FILES files on tmpfs, --time=$RUN_TIME" "events/s" eps 1.10 "" "≥ 1.10×"
row b "rndrw defaults (16 KiB, rw-ratio 1.5, fsync every 100, 128 files), $DISK_SIZE on disk, 1 thread, --time=$RUN_TIME, cold cache" "events/s" eps 0.95 1.10 "0.95–1.10×"
row c "prepare $DISK_SIZE, 128 files, on disk, fresh empty dir" "MiB/s (wall incl. sync)" mibs 1.00 "" "≥ 1.00×"
row d "async, rndrd, 4 KiB, --file-extra-flags=direct, backlog 128, $DISK_SIZE on disk, 1 thread, --time=$RUN_TIME" "events/s" eps 1.00 "" "≥ 1.00×"

cat <<EOF

### Row b: per-operation rates and proportions (medians)

| tool | reads/s | writes/s | fsyncs/s | reads/writes (expect ≈ 1.5) | fsyncs/(reads+writes) (expect ≈ 1.28) |
|---|---:|---:|---:|---:|---:|
EOF
for tool in sysbench iomark; do
    r=$(med b "$tool" rps); w=$(med b "$tool" wps); f=$(med b "$tool" fps)
    echo "| $tool | $r | $w | $f | $(ratio "$r" "$w") | $(awk -v r="$r" -v w="$w" -v f="$f" 'BEGIN { if (r + w > 0) printf "%.3f", f / (r + w); else print "nan" }') |"
done

cat <<EOF

### CPU per event (medians; user + system CPU seconds of the tool process / events)

Lower is better. On device-bound rows the device sets events/s; this shows what each tool
spends per event on the host.

| row | sysbench µs CPU/event | iomark µs CPU/event | iomark/sysbench |
|---|---:|---:|---:|
EOF
for r in a b d; do
    s=$(med "$r" sysbench cpu); m=$(med "$r" iomark cpu)
    echo "| $r | $s | $m | $(ratio "$m" "$s") |"
done

cat <<EOF

### Raw samples (in run order within each tool)

| row | metric | sysbench | iomark |
|---|---|---|---|
| a | events/s | $(samples a sysbench eps) | $(samples a iomark eps) |
| b | events/s | $(samples b sysbench eps) | $(samples b iomark eps) |
| b | reads/s | $(samples b sysbench rps) | $(samples b iomark rps) |
| b | writes/s | $(samples b sysbench wps) | $(samples b iomark wps) |
| b | fsyncs/s | $(samples b sysbench fps) | $(samples b iomark fps) |
| c | MiB/s wall incl. sync | $(samples c sysbench mibs) | $(samples c iomark mibs) |
| c | MiB/s as reported by the tool | $(samples c sysbench rep) | $(samples c iomark rep) |
| d | events/s | $(samples d sysbench eps) | $(samples d iomark eps) |

Exact commands (run inside the file-set directory; iomark takes the same options plus \`--notes=off\`):

- a: \`sysbench fileio --file-total-size=$SHM_SIZE --file-num=$SHM_FILES prepare\` once, then \`sysbench fileio ${A_OPTS[*]} run\`
- b: \`sysbench fileio --file-total-size=$DISK_SIZE prepare\` once, then \`sysbench fileio ${B_OPTS[*]} run\`
- c: \`sysbench fileio ${C_OPTS[*]} prepare\` in a new empty directory, then \`sync\`
- d: on the file set of b: \`sysbench fileio ${D_OPTS[*]} run\`
EOF
if (( FAILED )); then
    echo; echo "**Some runs failed** (n/a or nan above); rerun with KEEP_LOGS=1 to see the outputs."
fi
} > "$RESULTS_TMP"
chmod 0644 "$RESULTS_TMP"
mv -f -- "$RESULTS_TMP" "$RESULTS"
RESULTS_TMP=""
log "wrote $RESULTS (${ELAPSED} s)"
cat "$RESULTS"
(( FAILED == 0 ))
