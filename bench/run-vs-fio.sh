#!/usr/bin/env bash
# run-vs-fio.sh [DIR] — the same fio job given to fio and to `iomark run`, alternating
# (odd rounds fio first, even rounds iomark first), ROUNDS rounds (default 3), medians.
# Prints a table and writes bench/RUN_RESULTS.md. Not a timed test: a benchmark script.
#
#   (a) ioengine=null 4 KiB randread, 1 job           target: iomark IOPS >= 3.4x fio
#   (b) psync 4 KiB randread, tmpfs file (/dev/shm)   target: >= 1.40x fio
#   (c) io_uring 4 KiB randread QD32 direct, zram0    target: >= 1.15x fio IOPS, and lower
#       CPU seconds (user+sys, from /usr/bin/time) per million I/Os
#   (d) peak RSS (/usr/bin/time "%M", KiB) of every case: iomark <= fio
#   (e) io_uring 4 KiB randread direct QD1 and QD32 on a 1 GiB file in DIR (default: a temp
#       dir under the current directory, i.e. the disk): IOPS and mean clat within 5 %,
#       both as the ratio of the two medians and as the median of the per-round ratios
#       (the two tools run back to back in a round, so the disk's drift cancels); the
#       spread of the per-round ratios is printed below the table. On the project's VM the
#       virtio disk's QD1 runs differ by about +-10 % from one run to the next, so the
#       medians are only precise to the 5 % band with about 30 rounds: for (e) use
#       ROUNDS=31 TIME=2 (about 8 minutes), or more rounds for QD1 alone (E_QD=1).
#   (g) libaio and posixaio 4 KiB randread at QD1 and QD32 (G_QD), each against fio's same
#       engine: buffered on a tmpfs file (/dev/shm) and direct on zram0   target: >= 1.0x
#       (G_ENGINES, default "libaio posixaio"; G_ON, default "tmpfs zram")
#   (f) the limit: job (b) against bench/bare-pread.c, a C loop of 4 KiB random preads of
#       the same tmpfs file with nothing else per read (no clock, no statistics, no random
#       map): iomark IOPS >= 0.93x the bare loop's while it still records per-I/O latency;
#       fio's ratio to the loop is shown beside it. Three tools alternate (rotating order).
#
# Needs root (zram), fio, jq, /usr/bin/time; installs nothing. Takes itself the shared lock
# /tmp/iomark-bench.lock so no two benchmarks time the machine at once. Cleans up (files,
# zram reset) on any exit. Env: ROUNDS, TIME (seconds per run, default 5), BIN, OUT (table file,
# default bench/RUN_RESULTS.md), SKIP (e.g.
# "c e" to skip cases), E_QD (queue depths of case (e), default "1 32"), G_QD, G_ENGINES, G_ON (case (g)), NICE (niceness of both tools, default -10 as root: the same for fio and
# iomark, it only shields the measurement from unrelated work such as compilers).
set -euo pipefail
export IOMARK_HISTORY=off # a benchmark keeps nothing in the user's results history
if [ -z "${IOMARK_BENCH_LOCKED:-}" ]; then
  exec env IOMARK_BENCH_LOCKED=1 flock /tmp/iomark-bench.lock "$0" "$@"
fi
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-$HERE/../target/release/iomark}
ROUNDS=${ROUNDS:-3}
TIME=${TIME:-5}
SKIP=${SKIP:-}
NICE=${NICE:-$([ "$(id -u)" = 0 ] && echo -10 || echo 0)}
for t in fio jq /usr/bin/time cc "$BIN"; do
  command -v "$t" >/dev/null || { echo "run-vs-fio.sh: $t not found" >&2; exit 3; }
done
WORK=$(mktemp -d)
DISKDIR=$(mktemp -d "${1:-.}/iomark-run-vs-fio.XXXXXX")
SHM=/dev/shm/iomark-run-vs-fio.$$
ZRAM=/sys/block/zram0
ZRAM_SET=0
cleanup() {
  rm -rf "$WORK" "$DISKDIR" "$SHM"
  if [ "$ZRAM_SET" = 1 ]; then
    for _ in $(seq 50); do echo 1 >"$ZRAM/reset" 2>/dev/null && break; sleep 0.2; done
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# one TOOL JOBFILE -> "iops clat_mean_ns total_ios cpu_s maxrss_kib"
one() {
  local out=$WORK/out.json tf=$WORK/time
  if [ "$1" = fio ]; then
    nice -n "$NICE" /usr/bin/time -f '%U %S %M' -o "$tf" fio --output-format=json --output="$out" "$2" >/dev/null
  else
    nice -n "$NICE" /usr/bin/time -f '%U %S %M' -o "$tf" "$BIN" run --output-format=json "$2" >"$out"
  fi
  local u s m
  read -r u s m < <(tail -n 1 "$tf")
  jq -r --arg c "$(echo "$u + $s" | bc -l)" --arg m "$m" \
    '.jobs[0].read | "\(.iops) \(.clat_ns.mean) \(.total_ios) \($c) \($m)"' "$out"
}
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# spread of per-round ratios: "min q1 median q3 max" (nearest-rank quartiles)
spread() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {
  q1=a[int((NR+3)/4)]; q3=a[NR-int((NR+3)/4)+1]
  printf "min %.3f, quartiles %.3f / %.3f / %.3f, max %.3f", a[1], q1, a[int((NR+1)/2)], q3, a[NR]}'; }
ROWS=()
NOTES=()
# bench NAME JOBFILE TARGET_IOPS_RATIO [FIO_JOBFILE]: runs ROUNDS alternating rounds, appends
# table rows; TARGET "agree" = within 5 %, "info" = no target (a row shown for comparison);
# FIO_JOBFILE: fio runs this job instead (the same job with a fio-only option)
bench() {
  local name=$1 job=$2 target=$3 fjob=${4:-$2} r tool
  local f_iops=() i_iops=() f_clat=() i_clat=() f_cpm=() i_cpm=() f_rss=() i_rss=()
  local p_iops=() p_clat=()
  for r in $(seq "$ROUNDS"); do
    local order="fio iomark"
    [ $((r % 2)) = 0 ] && order="iomark fio"
    for tool in $order; do
      local jf=$job
      [ "$tool" = fio ] && jf=$fjob
      read -r iops clat ios cpu rss < <(one "$tool" "$jf")
      local cpm
      cpm=$(echo "$cpu / ($ios / 1000000)" | bc -l)
      if [ "$tool" = fio ]; then f_iops+=("$iops"); f_clat+=("$clat"); f_cpm+=("$cpm"); f_rss+=("$rss")
      else i_iops+=("$iops"); i_clat+=("$clat"); i_cpm+=("$cpm"); i_rss+=("$rss"); fi
      printf '  %-28s round %d %-6s IOPS=%.0f clat=%.0fns cpu/Mio=%.3fs rss=%sKiB\n' \
        "$name" "$r" "$tool" "$iops" "$clat" "$cpm" "$rss" >&2
    done
    # the ratio within this round (both tools back to back): robust to the disk's drift
    p_iops+=("$(echo "${i_iops[-1]} / ${f_iops[-1]}" | bc -l)")
    p_clat+=("$(echo "${i_clat[-1]} / ${f_clat[-1]}" | bc -l)")
  done
  local F I FC IC FP IP FR IR
  F=$(med "${f_iops[@]}"); I=$(med "${i_iops[@]}"); FC=$(med "${f_clat[@]}"); IC=$(med "${i_clat[@]}")
  FP=$(med "${f_cpm[@]}"); IP=$(med "${i_cpm[@]}"); FR=$(med "${f_rss[@]}"); IR=$(med "${i_rss[@]}")
  local ratio ok
  ratio=$(echo "$I / $F" | bc -l)
  local PI PC
  PI=$(med "${p_iops[@]}"); PC=$(med "${p_clat[@]}")
  if [ "$target" = agree ]; then
    # met only when both estimates agree: ratio of the medians and median of the
    # per-round ratios, for IOPS and for mean clat
    local cr
    cr=$(echo "$IC / $FC" | bc -l)
    ok=$(echo "r=$ratio; c=$cr; p=$PI; q=$PC; r >= 0.95 && r <= 1.05 && c >= 0.95 && c <= 1.05 && p >= 0.95 && p <= 1.05 && q >= 0.95 && q <= 1.05" | bc -l)  # both estimates must agree
    ROWS+=("$(printf '| %s | IOPS | %.0f | %.0f | %.3f | %.3f | within 5 %% | %s |' "$name" "$F" "$I" "$ratio" "$PI" "$([ "$ok" = 1 ] && echo yes || echo NO)")")
    NOTES+=("- $name, per-round iomark/fio ratios over $ROUNDS rounds: IOPS $(spread "${p_iops[@]}"); mean clat $(spread "${p_clat[@]}")")
    ROWS+=("$(printf '| %s | mean clat µs | %.1f | %.1f | %.3f | %.3f | within 5 %% | %s |' "$name" "$(echo "$FC/1000" | bc -l)" "$(echo "$IC/1000" | bc -l)" "$cr" "$PC" "$([ "$ok" = 1 ] && echo yes || echo NO)")")
  elif [ "$target" = info ]; then
    ROWS+=("$(printf '| %s | IOPS | %.0f | %.0f | %.3f | %.3f | (comparison) | |' "$name" "$F" "$I" "$ratio" "$PI")")
  else
    # the verdict is the paired estimate (median of the per-round ratios, both tools back
    # to back in each round); the ratio of the two medians is printed beside it
    ok=$(echo "$PI >= $target" | bc -l)
    ROWS+=("$(printf '| %s | IOPS | %.0f | %.0f | %.3f | %.3f | >= %s | %s |' "$name" "$F" "$I" "$ratio" "$PI" "$target" "$([ "$ok" = 1 ] && echo yes || echo NO)")")
  fi
  ok=$(echo "$IP < $FP" | bc -l)
  ROWS+=("$(printf '| %s | CPU s per 10^6 I/Os | %.3f | %.3f | %.3f | | lower | %s |' "$name" "$FP" "$IP" "$(echo "$IP / $FP" | bc -l)" "$([ "$ok" = 1 ] && echo yes || echo NO)")")
  ok=$(echo "$IR <= $FR" | bc -l)
  ROWS+=("$(printf '| %s | peak RSS MiB | %.1f | %.1f | %.3f | | <= fio (d) | %s |' "$name" "$(echo "$FR/1024" | bc -l)" "$(echo "$IR/1024" | bc -l)" "$(echo "$IR / $FR" | bc -l)" "$([ "$ok" = 1 ] && echo yes || echo NO)")")
}

jobfile() { # NAME then key=value lines on stdin
  local f=$WORK/$1.fio
  { echo "[$1]"; cat; } >"$f"
  echo "$f"
}
skip() { [[ " $SKIP " == *" $1 "* ]]; }
# zram_up: a 1 GiB /dev/zram0 of incompressible data (reads copy real pages); fails when
# zram0 is missing or in use. zram_down: reset it (retried while a reader lets go).
zram_up() {
  if [ "$(cat $ZRAM/disksize 2>/dev/null || echo x)" != 0 ]; then
    echo "run-vs-fio.sh: /dev/zram0 is missing or in use (disksize != 0); skipping $1" >&2
    return 1
  fi
  ZRAM_SET=1
  echo 1G >"$ZRAM/disksize"
  dd if=/dev/urandom of=/dev/zram0 bs=1M count=1024 oflag=direct status=none
}
zram_down() {
  for _ in $(seq 50); do echo 1 >"$ZRAM/reset" 2>/dev/null && break; sleep 0.2; done
  ZRAM_SET=0
}
LOAD_BEFORE=$(uptime)

if ! skip a; then
  j=$(jobfile null <<EOF
ioengine=null
rw=randread
bs=4k
size=1g
time_based
runtime=$TIME
EOF
)
  bench "(a) null 4k randread" "$j" 3.4
fi

if ! skip b; then
  head -c 256M /dev/urandom >"$SHM"
  j=$(jobfile psync_tmpfs <<EOF
ioengine=psync
rw=randread
bs=4k
filename=$SHM
size=256m
time_based
runtime=$TIME
EOF
)
  bench "(b) psync 4k randread tmpfs" "$j" 1.40
  rm -f "$SHM"
fi

if ! skip c; then
  if zram_up "(c)"; then
    j=$(jobfile uring_zram <<EOF
ioengine=io_uring
iodepth=32
direct=1
rw=randread
bs=4k
filename=/dev/zram0
size=1g
time_based
runtime=$TIME
EOF
)
    bench "(c) io_uring QD32 zram" "$j" 1.15
    zram_down
  fi
fi

# aio_cases ON TARGET_FILE EXTRA_KEY: case (g) rows of every engine and depth on one target
aio_cases() {
  local on=$1 file=$2 extra=$3 e qd j
  for e in ${G_ENGINES:-libaio posixaio}; do
    for qd in ${G_QD:-1 32}; do
      j=$(jobfile "${e}_${on}_qd$qd" <<EOF
ioengine=$e
iodepth=$qd
$extra
rw=randread
bs=4k
filename=$file
size=256m
time_based
runtime=$TIME
EOF
)
      bench "(g) $e QD$qd $on" "$j" 1.0
    done
  done
}

if ! skip g; then
  if [[ " ${G_ON:-tmpfs zram} " == *" tmpfs "* ]]; then
    head -c 256M /dev/urandom >"$SHM"
    aio_cases tmpfs "$SHM" "direct=0"
    rm -f "$SHM"
  fi
  if [[ " ${G_ON:-tmpfs zram} " == *" zram "* ]] && zram_up "(g) on zram"; then
    aio_cases zram /dev/zram0 "direct=1"
    zram_down
  fi
fi

if ! skip e; then
  F=$DISKDIR/disk-1g.dat
  head -c 1G /dev/urandom >"$F"
  sync "$F"
  for qd in ${E_QD:-1 32}; do
    j=$(jobfile "disk_qd$qd" <<EOF
ioengine=io_uring
iodepth=$qd
direct=1
rw=randread
bs=4k
filename=$F
size=1g
ramp_time=1
time_based
runtime=$TIME
EOF
)
    bench "(e) disk QD$qd direct" "$j" agree
  done
fi

# limit_one TOOL JOBFILE -> IOPS of one run of the limit job (bare: the C loop, same file)
limit_one() {
  case $1 in
    bare) nice -n "$NICE" "$WORK/bare-pread" "$SHM" 4096 "$TIME" | awk '{print $2}' ;;
    fio) nice -n "$NICE" fio --output-format=json "$2" | jq -r '.jobs[0].read.iops' ;;
    iomark) nice -n "$NICE" "$BIN" run --output-format=json "$2" | jq -r '.jobs[0].read.iops' ;;
  esac
}

if ! skip f; then
  cc -O2 -o "$WORK/bare-pread" "$HERE/bare-pread.c"
  head -c 256M /dev/urandom >"$SHM"
  j=$(jobfile psync_limit <<EOF
ioengine=psync
rw=randread
bs=4k
filename=$SHM
size=256m
time_based
runtime=$TIME
EOF
)
  L_BARE=(); L_IOMARK=(); L_FIO=(); P_I=(); P_F=()
  tools=(bare iomark fio)
  for r in $(seq "$ROUNDS"); do
    declare -A got=()
    for k in 0 1 2; do
      tool=${tools[$(( (r + k) % 3 ))]}
      got[$tool]=$(limit_one "$tool" "$j")
      printf '  %-28s round %d %-6s IOPS=%.0f\n' "(f) limit" "$r" "$tool" "${got[$tool]}" >&2
    done
    L_BARE+=("${got[bare]}"); L_IOMARK+=("${got[iomark]}"); L_FIO+=("${got[fio]}")
    P_I+=("$(echo "${got[iomark]} / ${got[bare]}" | bc -l)")
    P_F+=("$(echo "${got[fio]} / ${got[bare]}" | bc -l)")
    unset got
  done
  B=$(med "${L_BARE[@]}"); I=$(med "${L_IOMARK[@]}"); F=$(med "${L_FIO[@]}")
  ri=$(echo "$I / $B" | bc -l); rf=$(echo "$F / $B" | bc -l)
  ok=$(echo "$(med "${P_I[@]}") >= 0.93" | bc -l)   # paired per-round median decides
  ROWS+=("$(printf '| (f) limit: iomark vs bare pread loop | IOPS | %.0f (bare) | %.0f | %.3f | %.3f | >= 0.93 | %s |' "$B" "$I" "$ri" "$(med "${P_I[@]}")" "$([ "$ok" = 1 ] && echo yes || echo NO)")")
  ROWS+=("$(printf '| (f) limit: fio vs bare pread loop | IOPS | %.0f (bare) | %.0f (fio) | %.3f | %.3f | (comparison) | |' "$B" "$F" "$rf" "$(med "${P_F[@]}")")")
  NOTES+=("- (f) limit, per-round ratios to the bare loop over $ROUNDS rounds: iomark $(spread "${P_I[@]}"); fio $(spread "${P_F[@]}")")
  rm -f "$SHM"
fi

LOAD_AFTER=$(uptime)
TABLE=$(printf '| case | metric | fio | iomark | iomark/fio (medians) | per-round ratio (median) | target | met |\n|---|---|---:|---:|---:|---:|---|---|\n'; printf '%s\n' "${ROWS[@]}")
echo "$TABLE"
[ ${#NOTES[@]} = 0 ] || printf '%s\n' "" "${NOTES[@]}"
{
  echo "# iomark run vs fio ($(fio --version), same job files)"
  echo
  echo "Generated by \`bench/run-vs-fio.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r),"
  echo "$(nproc) CPUs; $ROUNDS alternating rounds of ${TIME} s per tool and case, medians; both tools at nice $NICE."
  echo "CPU = user + sys seconds of the whole process tree (\`/usr/bin/time\`), per 10^6 completed"
  echo "I/Os; peak RSS = \`/usr/bin/time\` %M (maximum resident set size, KiB, shown in MiB)."
  echo
  echo "Load before: \`${LOAD_BEFORE# }\`  "
  echo "Load after: \`${LOAD_AFTER# }\`"
  echo
  echo "$TABLE"
  if [ ${#NOTES[@]} != 0 ]; then echo; echo "Spread (agreement cases):"; echo; printf '%s\n' "${NOTES[@]}"; fi
} >"${OUT:-$HERE/RUN_RESULTS.md}"
echo "wrote ${OUT:-$HERE/RUN_RESULTS.md}" >&2
