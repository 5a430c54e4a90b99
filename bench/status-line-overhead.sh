#!/usr/bin/env bash
# Cost of fio's status line (issue 27 item 4): `iomark run` IOPS with the status line on
# (`--eta=always`: the workers keep their live counters, a status thread reads them every
# 250 ms and prints a line every second) vs off (`--eta=never`), in one run of this
# script, on the two fastest paths: the null engine (no I/O: the worker's own cost) and
# psync 4 KiB random reads of a file in tmpfs (/dev/shm). Not a test: run it alone,
#
#   flock /tmp/iomark-bench.lock bash bench/status-line-overhead.sh
#
# Paired rounds: each round runs both sides of each path once (order alternating: on
# first in odd rounds) and takes the ratio on / off; the result is the median of the
# rounds' ratios (target ≥ 0.99), every round recorded in bench/STATUS_ROUNDS.txt.
# stdout of the runs is a pipe (`--eta=always` writes the lines into it); the IOPS come
# from fio's JSON written with --output.
# Environment: ROUNDS (default 7), RUNTIME (s, default 5), IOMARK (binary; default
# target/ci/iomark, built with `cargo build --profile ci`).
set -euo pipefail
export IOMARK_HISTORY=off # a benchmark keeps nothing in the user's results history
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
ROUNDS=${ROUNDS:-7}
RUNTIME=${RUNTIME:-5}
IOMARK=${IOMARK:-$repo/target/ci/iomark}
[ -x "$IOMARK" ] || (cd "$repo" && cargo build --profile ci -q)
work=$(mktemp -d /dev/shm/iomark-status-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
rounds=$here/STATUS_ROUNDS.txt
common=(--name=b --rw=randread --bs=4k --time_based "--runtime=$RUNTIME" --output-format=json)
null=(--ioengine=null --size=1g)
psync=(--ioengine=psync --size=256m "--directory=$work")
iops() { # ENGINE-ARGS… ; prints the job's read IOPS
  "$IOMARK" run "${common[@]}" "$@" "--output=$work/out.json" >/dev/null 2>&1
  python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"]))' "$work/out.json"
}
# lay out the psync file once
"$IOMARK" run --name=b --ioengine=psync --size=256m "--directory=$work" --rw=write --bs=1m >/dev/null 2>&1
{
  echo "# $(date -u +%FT%TZ) $(uname -r) $("$IOMARK" --version) rounds=$ROUNDS runtime=${RUNTIME}s"
  echo "# path round on_iops off_iops on/off"
} >>"$rounds"
declare -A ratios
for r in $(seq 1 "$ROUNDS"); do
  for path in null psync; do
    declare -n eng=$path
    if [ $((r % 2)) = 1 ]; then
      on=$(iops "${eng[@]}" --eta=always); off=$(iops "${eng[@]}" --eta=never)
    else
      off=$(iops "${eng[@]}" --eta=never); on=$(iops "${eng[@]}" --eta=always)
    fi
    ratio=$(python3 -c "print(f'{$on/$off:.4f}')")
    ratios[$path]+="$ratio "
    echo "$path $r $on $off $ratio" | tee -a "$rounds"
  done
done
for path in null psync; do
  python3 - "$path" ${ratios[$path]} <<'PY'
import statistics, sys
v = [float(x) for x in sys.argv[2:]]
print(f"{sys.argv[1]}: median on/off = {statistics.median(v):.4f} (min {min(v):.4f}, max {max(v):.4f}, {len(v)} rounds)")
PY
done | tee -a "$rounds"
