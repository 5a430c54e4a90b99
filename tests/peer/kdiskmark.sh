#!/bin/bash
# KDiskMark (github.com/JonMagon/KDiskMark, src/benchmark.cpp and src/helper.cpp) as a
# client of BIN invoked as `fio`: its version check, its prepare command and its ten
# tests (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T16, RND4K Q1T1; read, write, and the mix
# rw/randrw with rwmixread=70), with the command lines KDiskMark builds, scaled down
# (size 16m, runtime 1 instead of 1024m and 5). Asserts what KDiskMark reads: stdout
# is one JSON document (QJsonDocument::fromJson of the whole stdout), jobs[0].error is
# 0, and for each direction the test does, read/write .bw is an integer (Qt's toInt of
# a double that is not integral is 0), .iops a number > 0 and .clat_ns.mean a number > 0.
# Usage: tests/peer/kdiskmark.sh BIN
. "$(dirname "$0")/common.sh"
peer_work kdiskmark
peer_bin "${1:?usage: $0 BIN}"
FIO=$PEER_FIO_DIR/fio
F=$PEER_WORK/kdiskmark-XXXXXX.tmp

v=$("$FIO" --version 2>/dev/null | head -1)
[[ "$v" == fio-* ]]; peer_check version $? "$v"

"$FIO" --output-format=json --create_only=1 --filename="$F" --size=16m --zero_buffers=0 \
    --name=prepare >"$PEER_WORK/prepare.json" 2>"$PEER_WORK/prepare.err"
rc=$?
[ $rc = 0 ] && [ -s "$F" ] && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$PEER_WORK/prepare.json" 2>/dev/null
peer_check prepare $? "exit $rc $(head -c 150 "$PEER_WORK/prepare.err")"
if [ ! -s "$F" ]; then
    # prepare failed (its row is FAIL): lay the file out so that the ten tests still run
    "$FIO" --name=prepare --filename="$F" --size=16m --rw=write --bs=1m >/dev/null 2>&1
fi

# name bs-KiB iodepth numjobs rw
run_test() {
    local name=$1 bs=$2 qd=$3 t=$4 rw=$5
    local out=$PEER_WORK/$name.json err=$PEER_WORK/$name.err
    "$FIO" --output-format=json --ioengine=libaio --randrepeat=0 --refill_buffers=1 \
        --end_fsync=1 --direct=1 --rwmixread=70 --filename="$F" --name="$rw" --size=16m \
        --zero_buffers=0 --bs="${bs}k" --runtime=1 --rw="$rw" --iodepth="$qd" \
        --numjobs="$t" --group_reporting >"$out" 2>"$err"
    local rc=$?
    local got
    got=$(python3 - "$out" "$rw" 2>&1 <<'PY'

import json, sys
try:
    d = json.loads(open(sys.argv[1]).read())
except ValueError as e:
    sys.exit(f"stdout is not one JSON document: {e}")
rw = sys.argv[2]
jobs = d.get("jobs") or sys.exit("no jobs")
j = jobs[0]
if j.get("error") != 0:
    sys.exit(f"jobs[0].error = {j.get('error')!r}")
dirs = ["read"] if "read" in rw else []
dirs += ["write"] if "write" in rw else []
dirs = dirs or ["read", "write"]
for k in list(dirs):
    x = j[k]
    bw, iops, mean = x.get("bw"), x.get("iops"), x.get("clat_ns", {}).get("mean")
    if rw in ("rw", "randrw") and x.get("total_ios") == 0 and bw == 0:
        # the mix drew no request of this direction (randrepeat=0: about 0.3 % of
        # 16 requests at rwmixread=70 are all reads; fio prints bw 0 then too)
        dirs.remove(k)
        continue
    if not (isinstance(bw, int) and bw > 0):
        sys.exit(f"{k}.bw = {bw!r}: not an integer > 0")
    if not (isinstance(iops, (int, float)) and iops > 0):
        sys.exit(f"{k}.iops = {iops!r}")
    if not (isinstance(mean, (int, float)) and mean > 0):
        sys.exit(f"{k}.clat_ns.mean = {mean!r}")
print(" ".join(f"{k}: {j[k]['bw'] / 1000:.1f} MB/s {j[k]['iops']:.0f} IOPS" for k in dirs))
PY
)
    local ok=$?
    [ $rc = 0 ] && [ $ok = 0 ] && [ ! -s "$err" ]
    peer_check "$name" $? "exit $rc; $got $(head -c 120 "$err")"
}

for p in "SEQ1M_Q8T1 1024 8 1" "SEQ1M_Q1T1 1024 1 1" "RND4K_Q32T16 4 32 16" "RND4K_Q1T1 4 1 1"; do
    set -- $p
    seq=read; [ "${1:0:3}" = RND ] && seq=randread
    for rw in $seq ${seq/read/write} $([ "${1:0:3}" = RND ] && echo randrw || echo rw); do
        # KDiskMark's mix is only SEQ1M Q1T1 and RND4K Q1T1 in its default profile;
        # the others run it in the "mix" profile: all ten of the default are these
        case "$1/$rw" in SEQ1M_Q8T1/rw|RND4K_Q32T16/randrw) continue ;; esac
        run_test "$1_$rw" "$2" "$3" "$4" "$rw"
    done
done
peer_end
