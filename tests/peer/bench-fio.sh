#!/bin/bash
# bench-fio and fio-plot (PyPI fio-plot) with BIN invoked as fio: a bench-fio matrix of
# randread/randwrite x iodepth 1,8 x numjobs 1,2, 4k, 2 s time-based, on a 64 MiB file,
# then fio-plot's 2D (-l), 3D (-L), histogram (-H) and log (-g) charts from it. Asserts:
# bench-fio exits 0 with all 8 JSON documents (it stops at the first run that writes to
# stderr); no bw/iops/lat log has a sample past the runtime (+ half an interval: fio 3.33
# writes 500..2000 at log interval 500 ms); each chart command exits 0 and writes its PNG.
# Usage: tests/peer/bench-fio.sh BIN
. "$(dirname "$0")/common.sh"
peer_work bench-fio
peer_bin "${1:?usage: $0 BIN}"
peer_python bench_fio fio_plot
V=$(dirname "$PEER_PY")
# bench-fio writes its job file at /tmp/NAME-tmpjobfile.fio (NAME: the target's base
# name): a name of this run's own, removed after it
NAME=iomark-peer-bench-$$
D=$PEER_WORK/out/$NAME/4k
truncate -s 64M "$PEER_WORK/$NAME"
PATH=$PEER_FIO_DIR:$PATH "$V/bench-fio" -d "$PEER_WORK/$NAME" -t file -s 64M -o "$PEER_WORK/out" \
    -m randread randwrite --iodepth 1 8 --numjobs 1 2 -b 4k --runtime 2 --time-based \
    --loginterval 500 --destructive --quiet --direct 0 >"$PEER_WORK/bench.log" 2>&1
rc=$?
rm -f "/tmp/$NAME-tmpjobfile.fio"
n=$(ls "$D"/*.json 2>/dev/null | wc -l)
[ $rc = 0 ] && [ "$n" = 8 ] && ! grep -q "An error occurred" "$PEER_WORK/bench.log"
peer_check bench_fio_runs $? "exit $rc, $n of 8 JSON; $(grep -m1 -o 'An error occurred.\{0,80\}' "$PEER_WORK/bench.log")"
late=$(cat "$D"/*_{bw,iops,lat}.*.log 2>/dev/null | awk -F, '$1 > 2250 {n++} END {print n+0}')
[ "$late" = 0 ]
peer_check logs_within_runtime $? "$late samples after 2250 ms"
cd "$PEER_WORK" || exit 2
chart() { # NAME PNG ARGS...
    local name=$1 png=$2; shift 2
    "$V/fio-plot" -i "$D" -T "$name" -o "$png" "$@" >"$name.log" 2>&1
    local rc=$?
    [ $rc = 0 ] && [ -s "$png" ]
    peer_check "fio_plot_$name" $? "exit $rc $(grep -m1 -i 'error' "$name.log" | head -c 100)"
}
chart 2d 2d.png -l -r randread -d 1 8 -n 1
chart 3d 3d.png -L -t iops -r randread
chart histogram h.png -H -r randread -d 8 -n 1
chart log g.png -g -t bw iops lat -r randread -d 1 8 -n 1
peer_end
