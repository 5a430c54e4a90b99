#!/usr/bin/env bash
# mpi-ranks-vs-numjobs.sh [DIR] — many hosts under MPI (src/ranks/) on one machine: 4 ranks × 1 job
# (mpirun -np 4 iomark run, the aggregate of rank 0) against 1 process with numjobs=4, psync 4k
# randread on tmpfs, time_based, alternating the order each round. Prints every round, the medians,
# the ratio (the row passes within 10 %) and the start skew between ranks (latest minus earliest
# start after the start barrier). Needs a build with `--features mpi`, Open MPI and jq; wrap it in
# `flock /tmp/iomark-bench.lock`. Rounds append to bench/MPI_ROUNDS.txt.
set -euo pipefail
export IOMARK_HISTORY=off # a benchmark keeps nothing in the user's results history
DIR=${1:-/dev/shm}
TIME=${TIME:-5}
ROUNDS=${ROUNDS:-5}
BIN=${BIN:-$(dirname "$0")/../target/release/iomark}
LOG=${LOG:-$(dirname "$0")/MPI_ROUNDS.txt}
W=$(mktemp -d "$DIR/iomark-mpi.XXXXXX")
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
job=(--name=r --rw=randread --bs=4k --size=64m --ioengine=psync --time_based --runtime="$TIME")
# the same files for both: the ranks' rank.N/r.0.0, the single process's r.N.0 (laid out once)
mpirun --oversubscribe -np 4 "$BIN" run "${job[@]}" --runtime=1 --directory="$W" >/dev/null  # says why when BIN lacks --features mpi
mkdir -p "$W/one"
ranks() {
  mpirun --oversubscribe -np 4 "$BIN" run "${job[@]}" --directory="$W" --json="$W/m.json" >/dev/null 2>&1
  jq -r '"\(.read.iops) \(.ranks.start_skew_ns)"' "$W/m.json"
}
one() {
  "$BIN" run "${job[@]}" --numjobs=4 --group_reporting --directory="$W/one" --json="$W/o.json" >/dev/null 2>&1
  jq '.read.iops' "$W/o.json"
}
a=(); b=(); s=()
echo "# $(date -u +%FT%TZ) $(uname -r) $(nproc) CPUs, $DIR, ${TIME}s per run" >>"$LOG"
for r in $(seq "$ROUNDS"); do
  if (( r % 2 )); then read -r x k < <(ranks); y=$(one); else y=$(one); read -r x k < <(ranks); fi
  a+=("$x"); b+=("$y"); s+=("$k")
  line=$(printf 'round %s: 4 ranks x 1 job %.0f IOPS (start skew %.1f us), 1 process numjobs=4 %.0f IOPS, ratio %.3f' \
    "$r" "$x" "$(echo "$k / 1000" | bc -l)" "$y" "$(echo "$x / $y" | bc -l)")
  echo "$line"; echo "$line" >>"$LOG"
done
med() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
ma=$(med "${a[@]}"); mb=$(med "${b[@]}"); ms=$(med "${s[@]}")
ratio=$(echo "$ma / $mb" | bc -l)
verdict=$(echo "$ratio >= 0.9 && $ratio <= 1.1" | bc -l)
line=$(printf 'median of %s rounds: ranks %.0f IOPS, numjobs %.0f IOPS, ratio %.3f (%s), start skew %.1f us' \
  "$ROUNDS" "$ma" "$mb" "$ratio" "$([ "$verdict" = 1 ] && echo 'within 10 %' || echo 'OUTSIDE 10 %')" "$(echo "$ms / 1000" | bc -l)")
echo "$line"; echo "$line" >>"$LOG"
