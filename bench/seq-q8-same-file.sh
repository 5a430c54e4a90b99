#!/usr/bin/env bash
# seq-q8-same-file.sh [DIR] — SEQ1M Q8T1 read through iomark's fileio/io_uring path (what `mark`
# runs) and through fio, alternating, on the SAME prepared 1 GiB file: removes the file layout
# and the order of runs from the comparison, leaving only the engines' submission/reaping.
# Wrap it in `flock /tmp/iomark-bench.lock`. Needs fio and jq.
set -euo pipefail
export IOMARK_HISTORY=off # a benchmark keeps nothing in the user's results history
DIR=${1:-.}
TIME=${TIME:-5}
ROUNDS=${ROUNDS:-4}
BIN=${BIN:-$(dirname "$0")/../target/release/iomark}
W=$(mktemp -d "$DIR/iomark-seq-q8.XXXXXX")
trap 'rm -rf "$W"' EXIT
common=(--file-num=1 --file-total-size=1G --file-dir="$W")
"$BIN" fileio "${common[@]}" --file-data=random prepare >/dev/null
a=(); b=()
for r in $(seq "$ROUNDS"); do
  i() {
    "$BIN" fileio "${common[@]}" --file-test-mode=seqrd --file-block-size=1M --file-io-mode=async \
      --file-async-backlog=8 --file-extra-flags=direct --time="$TIME" --json="$W/i.json" run >/dev/null
    jq '.read.bw_mb_per_s' "$W/i.json"
  }
  f() {
    fio --name=cmp --filename="$W/test_file.0" --size=1G --rw=read --bs=1m --iodepth=8 --ioengine=io_uring \
      --direct=1 --time_based --runtime="$TIME" --output-format=json | jq '.jobs[0].read.bw_bytes / 1e6'
  }
  if (( r % 2 )); then x=$(i); y=$(f); else y=$(f); x=$(i); fi
  a+=("$x"); b+=("$y")
  printf 'round %s: iomark %.1f MB/s, fio %.1f MB/s, ratio %.3f\n' "$r" "$x" "$y" "$(echo "$x / $y" | bc -l)"
done
med() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
ma=$(med "${a[@]}"); mb=$(med "${b[@]}")
printf 'median of %s alternating rounds: iomark %.1f MB/s, fio %.1f MB/s, iomark/fio %.3f\n' "$ROUNDS" "$ma" "$mb" "$(echo "$ma / $mb" | bc -l)"
