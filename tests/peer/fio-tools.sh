#!/bin/bash
# fio's own consumers of its files (../shared/peer-tests/fio-tools: fio_jsonplus_clat2csv,
# fiologparser.py, fiologparser_hist.py; and fio2gnuplot from PEER_REF's package when
# present) run on BIN's files and on PEER_REF's (fio 3.33) for the same job. Asserts,
# per tool: it exits 0 on BIN's files and its output has the same columns (header or
# field count) as on fio's, and no more rows than a 2 s run has samples (fio writes 3 or
# 4 at 500 ms; a sample past the runtime is one too many). The number of json+ bins
# differs from run to run, so clat2csv's rows are checked by their latency column: every
# bin of BIN's json+ is a value of fio's 1856-bucket grid (plat_idx_to_val, stat.c).
# fio2gnuplot renders nothing without gnuplot; its data file `_bw.1` is compared. Jobs: a 2 s time-based psync
# randread of a 16 MiB file with json+, bw/iops/lat logs at log_avg_msec=500 and
# histogram logs at log_hist_msec=500.
# Usage: tests/peer/fio-tools.sh BIN
. "$(dirname "$0")/common.sh"
peer_work fio-tools
peer_bin "${1:?usage: $0 BIN}"
TOOLS=$(peer_shared fio-tools)
peer_python scipy six

run_job() { # DIR FIO
    mkdir -p "$1" && cd "$1" || exit 2
    "$2" --name=t --filename=data --size=16m --rw=randread --bs=4k --ioengine=psync \
        --time_based --runtime=2 --output-format=json+ --output=out.json \
        --write_bw_log=t --write_iops_log=t --write_lat_log=t --log_avg_msec=500 \
        >stdout 2>stderr
    echo $? >rc
    "$2" --name=h --filename=data --size=16m --rw=randread --bs=4k --ioengine=psync \
        --time_based --runtime=2 --write_hist_log=h --log_hist_msec=500 >/dev/null 2>hist.err
    echo $? >hist.rc
    cd - >/dev/null
}
run_job "$PEER_WORK/ref" "$PEER_REF"
run_job "$PEER_WORK/bin" "$PEER_FIO_DIR/fio"
peer_check job_runs "$(cat "$PEER_WORK/bin/rc")" "$(head -c 120 "$PEER_WORK/bin/stderr")"

# rows and columns of a CSV-like file: "ROWS x COLS(first row)"
shape() { [ -f "$1" ] && [ -s "$1" ] && awk -F, 'NR==1{c=NF} END{print NR "x" c}' "$1" || echo missing; }
compare() { # NAME REF_FILE BIN_FILE MAX_ROWS
    local r b; r=$(shape "$2"); b=$(shape "$3")
    [ "$b" != missing ] && [ "${r#*x}" = "${b#*x}" ] && [ "${b%x*}" -le "$4" ]
    peer_check "$1" $? "fio $r, BIN $b (rows x columns; at most $4 rows)"
}

for s in ref bin; do
    (cd "$PEER_WORK/$s" && "$PEER_PY" "$TOOLS/fio_jsonplus_clat2csv" out.json clat.csv >c2c.out 2>&1; echo $? >c2c.rc)
done
peer_check clat2csv_runs "$(cat "$PEER_WORK/bin/c2c.rc")" "$(head -c 120 "$PEER_WORK/bin/c2c.out")"
compare clat2csv_columns "$PEER_WORK/ref/clat_job0.csv" "$PEER_WORK/bin/clat_job0.csv" 1000000
off=$(python3 - "$PEER_WORK/bin/out.json" <<'PY'
import json, sys
grid = set(range(128))
for idx in range(128, 1856):
    eb = (idx >> 6) - 1
    grid.add(int((1 << (eb + 6)) + (idx % 64 + 0.5) * (1 << eb)))
bins = json.load(open(sys.argv[1]))["jobs"][0]["read"]["clat_ns"]["bins"]
print(f"{sum(int(k) not in grid for k in bins)} of {len(bins)} bins off fio's grid")
PY
)
[[ "$off" == 0\ of* ]]
peer_check clat2csv_grid $? "$off"

for s in ref bin; do
    (cd "$PEER_WORK/$s" && "$PEER_PY" "$TOOLS/fiologparser.py" -i 500 -f t_bw.1.log >lp.csv 2>lp.err; echo $? >lp.rc)
done
peer_check fiologparser_runs "$(cat "$PEER_WORK/bin/lp.rc")" "$(head -c 120 "$PEER_WORK/bin/lp.err")"
compare fiologparser_rows "$PEER_WORK/ref/lp.csv" "$PEER_WORK/bin/lp.csv" 4

hist=$(ls "$PEER_WORK/bin"/h_clat_hist.*.log 2>/dev/null | head -1)
for s in ref bin; do
    (cd "$PEER_WORK/$s" && "$PEER_PY" "$TOOLS/fiologparser_hist.py" h_clat_hist.1.log >hp.csv 2>hp.err; echo $? >hp.rc)
done
[ "$(cat "$PEER_WORK/bin/hist.rc")" = 0 ] && [ -n "$hist" ] && [ "$(cat "$PEER_WORK/bin/hp.rc")" = 0 ]
peer_check fiologparser_hist_runs $? "$(head -c 120 "$PEER_WORK/bin/hist.err")"
compare fiologparser_hist_rows "$PEER_WORK/ref/hp.csv" "$PEER_WORK/bin/hp.csv" 4

G=$(dirname "$PEER_REF")/fio2gnuplot
if [ -x "$G" ]; then
    for s in ref bin; do
        (cd "$PEER_WORK/$s" && mkdir -p g && cp t_bw.1.log g/ && cd g && "$G" -p '*_bw.1.log' -k >g.out 2>&1; echo $? >../g.rc)
    done
    peer_check fio2gnuplot_runs "$(cat "$PEER_WORK/bin/g.rc")" ""
    compare fio2gnuplot_rows "$PEER_WORK/ref/g/_bw.1" "$PEER_WORK/bin/g/_bw.1" 7
fi
peer_end
