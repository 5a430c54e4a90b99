#!/usr/bin/env bash
# sampler-overhead.sh — IOPS of the same binary and persona (fio's, whose report is the
# JSON read here) with the over-time sampler on (`--plot`: live counters in the workers,
# the sampler reading them, the device stat, hwmon and cpufreq every period; iomark's own
# `run` always samples) and off (no `--plot`: the fio persona does not sample), in one
# run: the null engine and psync 4 KiB random reads on a tmpfs file.
# Rounds alternate the order; each round is printed and recorded, then the medians and
# the per-round ratios. Target: on/off >= 0.99, judged on the median of the per-round (paired) ratios.
# Takes /tmp/iomark-bench.lock itself. Needs jq.
#   ROUNDS=7 TIME=5 bench/sampler-overhead.sh [OUT.txt]
set -euo pipefail
export IOMARK_HISTORY=off # a benchmark keeps nothing in the user's results history
if [ -z "${IOMARK_BENCH_LOCKED:-}" ]; then
  exec env IOMARK_BENCH_LOCKED=1 flock /tmp/iomark-bench.lock "$0" "$@"
fi
ROUNDS=${ROUNDS:-7}
TIME=${TIME:-5}
BIN=$(realpath "${BIN:-$(dirname "$0")/../target/release/iomark}")
OUT=${1:-/dev/null}
W=$(mktemp -d /dev/shm/iomark-sampler.XXXXXX)
trap 'rm -rf "$W"' EXIT
ln -s "$BIN" "$W/fio"
iops() { # PROGRAM JOB-ARGS… → read IOPS
  "$@" --output-format=json --time_based --runtime="$TIME" | jq '.jobs[0].read.iops'
}
null=(--name=n --ioengine=null --rw=randread --bs=4k --size=1g)
psync=(--name=p --ioengine=psync --rw=randread --bs=4k --size=256m --filename="$W/f")
"$W/fio" "${psync[@]}" --runtime=1 --time_based --output-format=json >/dev/null
declare -A v
for r in $(seq "$ROUNDS"); do
  for job in null psync; do
    eval "args=(\"\${${job}[@]}\")"
    if (( r % 2 )); then
      on=$(iops "$W/fio" "${args[@]}" --plot="$W/charts"); off=$(iops "$W/fio" "${args[@]}")
    else
      off=$(iops "$W/fio" "${args[@]}"); on=$(iops "$W/fio" "${args[@]}" --plot="$W/charts")
    fi
    v[$job.on]+="$on "; v[$job.off]+="$off "; v[$job.ratio]+="$(echo "$on / $off" | bc -l) "
    printf 'round %s %-5s: on %.0f IOPS, off %.0f IOPS, on/off %.4f\n' "$r" "$job" "$on" "$off" \
      "$(echo "$on / $off" | bc -l)" | tee -a "$OUT"
  done
done
med() { printf '%s\n' $@ | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
for job in null psync; do
  a=$(med ${v[$job.on]}); b=$(med ${v[$job.off]}); p=$(med ${v[$job.ratio]})
  verdict=$(echo "$p >= 0.99" | bc -l | sed 's/1/met/;s/0/NOT met/')
  printf 'median of %s rounds %-5s: on %.0f IOPS, off %.0f IOPS, on/off of the medians %.4f, per-round on/off (median) %.4f: target >= 0.99 %s (verdict on the per-round ratio)\n' \
    "$ROUNDS" "$job" "$a" "$b" "$(echo "$a / $b" | bc -l)" "$p" "$verdict" | tee -a "$OUT"
done
