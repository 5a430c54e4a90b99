#!/usr/bin/env bash
# mark-vs-fio.sh [DIR] — the issue's "agree within 10 %" check: RND4K Q1T1 read and SEQ1M Q8T1
# read of `iomark mark` against fio running the equivalent job, on DIR's disk.
# Not a timed test: a benchmark script. Wrap it in `flock /tmp/iomark-bench.lock`.
#
# ROUNDS alternating rounds (odd rounds iomark first, even rounds fio first); in each round
# iomark runs `mark --preset=peak` and `--preset=realworld` with --loops=1 (1 s warm-up, TIME s)
# and fio runs the two jobs once (psync 4 KiB randread QD1; io_uring 1 MiB read QD8; --direct=1,
# time-based, 1 s ramp, random buffers; fio lays out a fresh file each round, as mark prepares a
# fresh one per invocation). Medians of the rounds are compared; per-round figures
# and the per-I/O latency (iomark's measured completion latency vs fio's clat) are printed too.
# Needs fio and jq. Sizes: 1 GiB test files.
set -euo pipefail
export IOMARK_HISTORY=off # a benchmark keeps nothing in the user's results history
DIR=${1:-.}
SIZE=${SIZE:-1G}
TIME=${TIME:-5}
ROUNDS=${ROUNDS:-3}
BIN=${BIN:-$(dirname "$0")/../target/release/iomark}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT" "$DIR/iomark-fio-cmp.dat"' EXIT

phase() { # file test field
  jq -r --arg n "$2" ".phases[] | select(.name == \$n) | $3" "$1"
}
run_iomark() { # round
  "$BIN" mark "$DIR" --preset=peak --size="$SIZE" --time="$TIME" --loops=1 --json="$OUT/peak$1.json" >/dev/null
  "$BIN" mark "$DIR" --preset=realworld --size="$SIZE" --time="$TIME" --loops=1 --json="$OUT/rw$1.json" >/dev/null
}
run_fio() { # round
  # mark prepares a fresh test file for every invocation: give fio a freshly laid-out one too
  rm -f "$DIR/iomark-fio-cmp.dat"
  fio --name=cmp --filename="$DIR/iomark-fio-cmp.dat" --size="$SIZE" --rw=read --bs=1m --iodepth=8 \
    --ioengine=io_uring --direct=1 --time_based --runtime="$TIME" --ramp_time=1 --refill_buffers \
    --output-format=json >"$OUT/fseq$1.json"
  fio --name=cmp --filename="$DIR/iomark-fio-cmp.dat" --size="$SIZE" --rw=randread --bs=4k --iodepth=1 \
    --ioengine=psync --direct=1 --time_based --runtime="$TIME" --ramp_time=1 --refill_buffers \
    --randrepeat=0 --output-format=json >"$OUT/frnd$1.json"
}
for r in $(seq "$ROUNDS"); do
  if (( r % 2 )); then run_iomark "$r"; run_fio "$r"; else run_fio "$r"; run_iomark "$r"; fi
done
median() { sort -g | sed -n "$(( (ROUNDS + 1) / 2 ))p"; }
fmb() { jq '.jobs[0].read.bw_bytes / 1e6' "$1"; }
fmean() { jq '.jobs[0].read.clat_ns.mean / 1e3' "$1"; }
fp99() { jq '.jobs[0].read.clat_ns.percentile["99.000000"] / 1e3' "$1"; }

echo "per round (MB/s, 1 MB = 10^6 B; latency µs per I/O):"
printf '| round | test | iomark MB/s | fio MB/s | iomark mean µs | fio clat mean µs | iomark p99 µs | fio clat p99 µs |\n|---|---|---:|---:|---:|---:|---:|---:|\n'
for r in $(seq "$ROUNDS"); do
  for t in "SEQ1M Q8T1 read:peak:fseq" "RND4K Q1T1 read:rw:frnd"; do
    IFS=: read -r name m f <<<"$t"
    printf '| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n' "$r" "$name" \
      "$(phase "$OUT/$m$r.json" "$name" .mb_per_s)" "$(fmb "$OUT/$f$r.json")" \
      "$(phase "$OUT/$m$r.json" "$name" '.lat.mean_ns / 1e3')" "$(fmean "$OUT/$f$r.json")" \
      "$(phase "$OUT/$m$r.json" "$name" '.lat.percentiles_ns["99"] / 1e3')" "$(fp99 "$OUT/$f$r.json")"
  done
done
echo
echo "medians of $ROUNDS alternating rounds:"
printf '| test | iomark mark MB/s | fio MB/s | iomark/fio |\n|---|---:|---:|---:|\n'
for t in "SEQ1M Q8T1 read:peak:fseq" "RND4K Q1T1 read:rw:frnd"; do
  IFS=: read -r name m f <<<"$t"
  a=$(for r in $(seq "$ROUNDS"); do phase "$OUT/$m$r.json" "$name" .mb_per_s; done | median)
  b=$(for r in $(seq "$ROUNDS"); do fmb "$OUT/$f$r.json"; done | median)
  printf '| %s | %.1f | %.1f | %.3f |\n' "$name" "$a" "$b" "$(echo "$a / $b" | bc -l)"
done
