#!/usr/bin/env bash
# Cost of `--live` (issue 27 item 4): `iomark run` IOPS with the full-screen view on
# (`--live`: the view thread draws from the sampler's frames twice a second at most and
# polls the keys) vs off, in one run of this script, on the two fastest paths: the null
# engine (no I/O: the worker's own cost) and psync 4 KiB random reads of a file in tmpfs
# (/dev/shm). Not a test: run it alone,
#
#   flock /tmp/iomark-bench.lock bash bench/live-overhead.sh
#
# `--live` needs a terminal: both sides run on a pseudo-terminal of 160 × 50 made by
# util-linux `script` (its copy of the screen goes to /dev/null), so they differ by the
# flag alone (without it fio's status line is off too: `--eta=never` on both sides). The
# IOPS come from fio's JSON written with --output. Paired rounds: each round runs both
# sides of each path once (order alternating: on first in odd rounds) and takes the
# ratio on / off; the result is the median of the rounds' ratios (target ≥ 0.99), every
# round and the medians appended to bench/LIVE_RESULTS.md.
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
command -v script >/dev/null || { echo "needs util-linux script(1)" >&2; exit 3; }
work=$(mktemp -d /dev/shm/iomark-live-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
results=$here/LIVE_RESULTS.md
common="--name=b --rw=randread --bs=4k --time_based --runtime=$RUNTIME --output-format=json --eta=never --no-history"
null="--ioengine=null --size=1g"
psync="--ioengine=psync --size=256m --directory=$work"
iops() { # ENGINE-ARGS [--live]; prints the job's read IOPS
  rm -f "$work/out.json"
  script -qec "stty rows 50 cols 160; $IOMARK run $common $* --output=$work/out.json" /dev/null \
    </dev/null >/dev/null 2>&1
  python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"]))' "$work/out.json"
}
# lay out the psync file once
"$IOMARK" run --name=b --ioengine=psync --size=256m "--directory=$work" --rw=write --bs=1m --no-history >/dev/null 2>&1
{
  echo
  echo "## $(date -u +%FT%TZ) $(uname -r) $("$IOMARK" --version) rounds=$ROUNDS runtime=${RUNTIME}s nproc=$(nproc)"
  echo
  echo "| path | round | --live IOPS | without IOPS | on/off |"
  echo "|---|---|---|---|---|"
} >>"$results"
declare -A ratios
for r in $(seq 1 "$ROUNDS"); do
  for path in null psync; do
    eng=${!path}
    if [ $((r % 2)) = 1 ]; then
      on=$(iops "$eng" --live); off=$(iops "$eng")
    else
      off=$(iops "$eng"); on=$(iops "$eng" --live)
    fi
    ratio=$(python3 -c "print(f'{$on/$off:.4f}')")
    ratios[$path]+="$ratio "
    echo "| $path | $r | $on | $off | $ratio |" | tee -a "$results"
  done
done
echo >>"$results"
for path in null psync; do
  python3 - "$path" ${ratios[$path]} <<'PY'
import statistics, sys
v = [float(x) for x in sys.argv[2:]]
print(f"- {sys.argv[1]}: median on/off = {statistics.median(v):.4f} (min {min(v):.4f}, max {max(v):.4f}, {len(v)} rounds)")
PY
done | tee -a "$results"
