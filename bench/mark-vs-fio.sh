#!/usr/bin/env bash
# mark-vs-fio.sh [DIR] — run `iomark mark` (default preset) on DIR's disk, then fio with the
# equivalent jobs right after, and print the RND4K Q1T1 and SEQ1M Q8T1 read numbers side by
# side (the issue's "agree within 10 %" check). Not a timed test: a benchmark script.
# Needs fio and jq. Sizes: 1 GiB file, 5 s per test, 3 loops (iomark median; fio once per loop, median).
set -euo pipefail
DIR=${1:-.}
SIZE=${SIZE:-1G}
TIME=${TIME:-5}
LOOPS=${LOOPS:-3}
BIN=${BIN:-$(dirname "$0")/../target/release/iomark}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT" "$DIR/iomark-fio-cmp.dat"' EXIT
"$BIN" mark "$DIR" --preset=realworld --size="$SIZE" --time="$TIME" --loops="$LOOPS" --json="$OUT/mark-rw.json" >/dev/null
"$BIN" mark "$DIR" --preset=peak --size="$SIZE" --time="$TIME" --loops="$LOOPS" --json="$OUT/mark-peak.json" >/dev/null
iomark_mb() { jq -r --arg n "$2" '.phases[] | select(.name == $n) | .mb_per_s' "$1"; }
fio_mb() { # rw bs iodepth engine -> median MB/s (decimal) over LOOPS runs
  local v=()
  for _ in $(seq "$LOOPS"); do
    v+=("$(fio --name=cmp --filename="$DIR/iomark-fio-cmp.dat" --size="$SIZE" --rw="$1" --bs="$2" \
      --iodepth="$3" --ioengine="$4" --direct=1 --time_based --runtime="$TIME" --ramp_time=1 \
      --refill_buffers --randrepeat=0 --output-format=json | jq '.jobs[0].read.bw_bytes / 1e6')")
  done
  printf '%s\n' "${v[@]}" | sort -g | sed -n "$(( (LOOPS + 1) / 2 ))p"
}
a=$(iomark_mb "$OUT/mark-rw.json" "RND4K Q1T1 read"); b=$(fio_mb randread 4k 1 psync)
c=$(iomark_mb "$OUT/mark-peak.json" "SEQ1M Q8T1 read"); d=$(fio_mb read 1m 8 io_uring)
printf '| test | iomark mark MB/s | fio MB/s | iomark/fio |\n|---|---:|---:|---:|\n'
printf '| RND4K Q1T1 read | %.1f | %.1f | %.3f |\n' "$a" "$b" "$(echo "$a / $b" | bc -l)"
printf '| SEQ1M Q8T1 read | %.1f | %.1f | %.3f |\n' "$c" "$d" "$(echo "$c / $d" | bc -l)"
