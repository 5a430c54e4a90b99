#!/usr/bin/env bash
# sampler-instructions.sh — what the over-time sampler costs per I/O, counted in
# instructions (valgrind's callgrind counts instructions, not seconds, so the figure is
# the same on a loaded or a quiet machine; the wall-clock ratio is sampler-overhead.sh's).
# The fio persona runs the null engine (4 KiB random reads, no kernel time) at two sizes
# with the sampler on (`--plot`) and off; the difference of the two sizes divided by the
# I/Os between them is the cost per I/O, free of setup and report. Printed per I/O:
# the whole program and the worker's loop (`iomark::run::worker::run`, where the live
# counters are published). The sampler thread's own instructions scale with the run's
# wall time under valgrind (about 50× slower), so the program figure overstates it; the
# worker's figure is what every request pays.
#   BIN=target/ci/iomark bench/sampler-instructions.sh [OUT.txt]
set -euo pipefail
export IOMARK_HISTORY=off # a benchmark keeps nothing in the user's results history
command -v valgrind >/dev/null || { echo "sampler-instructions.sh: needs valgrind" >&2; exit 1; }
BIN=$(realpath "${BIN:-$(dirname "$0")/../target/release/iomark}")
OUT=${1:-/dev/null}
W=$(mktemp -d /tmp/iomark-instr.XXXXXX)
trap 'rm -rf "$W"' EXIT
ln -s "$BIN" "$W/fio"
count() { # SIZE EXTRA… → "program worker" instruction counts
  local f="$W/cg.out"
  valgrind --tool=callgrind --callgrind-out-file="$f" "$W/fio" --name=n --ioengine=null \
    --rw=randread --bs=4k --size="$1" "${@:2}" --output-format=json >/dev/null 2>&1
  callgrind_annotate "$f" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); p=$1}
    /iomark::run::worker::run \[/ {gsub(",", "", $1); w=$1} END {print p, w}'
}
ios=$(( (2 << 30) / 4096 - (1 << 30) / 4096 ))
for mode in off on; do
  extra=(); [ "$mode" = on ] && extra=(--plot="$W/charts")
  read -r p1 w1 < <(count 1g "${extra[@]}")
  read -r p2 w2 < <(count 2g "${extra[@]}")
  printf 'sampler %-3s: %.1f instructions per I/O in all, %.1f in the worker loop\n' "$mode" \
    "$(echo "($p2 - $p1) / $ios" | bc -l)" "$(echo "($w2 - $w1) / $ios" | bc -l)" | tee -a "$OUT"
done
