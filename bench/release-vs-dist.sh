#!/usr/bin/env bash
# release-vs-dist.sh — the `release` profile (thin settings: no LTO, 16 codegen units, fast
# to build) against the `dist` profile (fat LTO, one codegen unit: packaged binaries) on the
# rows of bench/run-vs-fio.sh that measure iomark's own cost per I/O: (a) the null engine and
# (b) psync 4 KiB random reads on a tmpfs file, both under the fio persona (its JSON is read).
# One run, rounds alternating which binary goes first; every round is printed and recorded;
# the verdict is on the median of the paired per-round ratios (release/dist), target >= 0.98.
# Builds nothing: build both first (`cargo build --release && cargo build --profile dist`).
# Takes /tmp/iomark-bench.lock itself. Needs jq.
#   ROUNDS=7 TIME=3 bench/release-vs-dist.sh [OUT.txt]
set -euo pipefail
export IOMARK_HISTORY=off
if [ -z "${IOMARK_BENCH_LOCKED:-}" ]; then
  exec env IOMARK_BENCH_LOCKED=1 flock /tmp/iomark-bench.lock "$0" "$@"
fi
here=$(cd "$(dirname "$0")/.." && pwd)
REL=$(realpath "${REL:-$here/target/release/iomark}")
DIST=$(realpath "${DIST:-$here/target/dist/iomark}")
ROUNDS=${ROUNDS:-7}
TIME=${TIME:-3}
OUT=${1:-/dev/null}
scratch=$(mktemp -d /dev/shm/iomark-rvd.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/rel" "$scratch/dist"
ln -s "$REL" "$scratch/rel/fio"
ln -s "$DIST" "$scratch/dist/fio"
case_args() { # CASE → the fio job options of that row
  case $1 in
    null) echo "--name=n --ioengine=null --rw=randread --bs=4k --size=1g" ;;
    psync) echo "--name=p --ioengine=psync --rw=randread --bs=4k --size=256m --filename=$scratch/f" ;;
  esac
}
measure() { # WHICH CASE → read IOPS of one timed run
  # shellcheck disable=SC2046
  "$scratch/$1/fio" $(case_args "$2") --time_based --runtime="$TIME" --output-format=json |
    jq '.jobs[0].read.iops'
}
"$scratch/rel/fio" $(case_args psync) --runtime=1 --time_based --output-format=json >/dev/null
{
  echo "# $(date -u '+%F %H:%M') UTC; release $("$REL" --version 2>&1 | head -1); load $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee -a "$OUT"
declare -A ratios
for r in $(seq "$ROUNDS"); do
  for c in null psync; do
    if (( r % 2 )); then rel=$(measure rel "$c"); dist=$(measure dist "$c")
    else dist=$(measure dist "$c"); rel=$(measure rel "$c"); fi
    q=$(echo "$rel / $dist" | bc -l)
    ratios[$c]+="$q "
    printf 'round %s %-5s release %.0f IOPS, dist %.0f IOPS, release/dist %.4f\n' "$r" "$c" "$rel" "$dist" "$q" |
      tee -a "$OUT"
  done
done
for c in null psync; do
  m=$(printf '%s\n' ${ratios[$c]} | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
  ok=$(echo "$m >= 0.98" | bc -l)
  printf '%-5s median of %s paired release/dist ratios: %.4f (target >= 0.98: %s)\n' "$c" "$ROUNDS" "$m" \
    "$([ "$ok" = 1 ] && echo met || echo 'NOT met')" | tee -a "$OUT"
done
