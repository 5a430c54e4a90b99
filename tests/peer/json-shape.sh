#!/bin/bash
# fio's JSON as text: ten representative jobs run with PEER_REF (fio 3.33) and with BIN
# invoked as fio; in both documents every number becomes N, every string that is a
# measurement or a path (timestamps, "time", "fio version", file names, job options'
# values) becomes S, json+ bins collapse to one line, and the rest is diffed line by
# line: key order, spacing (`"key" : v`), missing or extra keys, nesting. Asserts per
# job that the normalised texts are identical.
# Usage: tests/peer/json-shape.sh BIN     (PEER_SHOW=1 prints each diff)
. "$(dirname "$0")/common.sh"
peer_work json-shape
peer_bin "${1:?usage: $0 BIN}"
JOBS=(
    "psync_read|--name=a --rw=read --ioengine=psync --bs=4k --size=4m"
    "io_uring_randrw|--name=a --rw=randrw --ioengine=io_uring --iodepth=8 --bs=4k --size=4m"
    "libaio_write|--name=a --rw=write --ioengine=libaio --iodepth=4 --bs=64k --size=4m"
    "null_randread|--name=a --rw=randread --ioengine=null --bs=4k --size=64m"
    "numjobs2|--name=a --rw=randread --ioengine=psync --bs=4k --size=2m --numjobs=2"
    "numjobs2_group|--name=a --rw=randread --ioengine=psync --bs=4k --size=2m --numjobs=2 --group_reporting"
    "bssplit|--name=a --rw=randwrite --ioengine=psync --bssplit=4k/50:16k/50 --size=4m"
    "rate|--name=a --rw=read --ioengine=psync --bs=4k --size=1m --rate=4m"
    "verify|--name=a --rw=write --ioengine=psync --bs=4k --size=1m --verify=crc32c"
    "jsonplus|--name=a --rw=randread --ioengine=psync --bs=4k --size=2m --output-format=json+"
)
NORM=$PEER_WORK/norm.py
cat >"$NORM" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = text[text.find("{"):]
out = []
skip = 0
for line in text.splitlines():
    if skip:
        skip += line.count("{") - line.count("}")
        continue
    if re.match(r'\s*"bins" ?: ?\{', line):
        skip = 1 - line.count("}") + (line.count("{") - 1)
        out.append(re.sub(r"\{.*", "{BINS}", line))
        continue
    line = re.sub(r'-?\d+(\.\d+)?(e[-+]?\d+)?', "N", line)
    line = re.sub(r'("(fio version|time|filename|name|jobname|ioengine|rw|bs|size|bssplit|rate|verify|iodepth|numjobs|group_reporting|output-format)" ?: ?)"[^"]*"', r'\1"S"', line)
    out.append(line)
print("\n".join(out))
PY
for j in "${JOBS[@]}"; do
    name=${j%%|*} args=${j#*|}
    d=$PEER_WORK/$name; mkdir -p "$d"
    fmt=--output-format=json; [[ "$args" == *output-format* ]] && fmt=
    (cd "$d" && "$PEER_REF" $fmt $args --filename=data >ref.json 2>ref.err
     "$PEER_FIO_DIR/fio" $fmt $args --filename=data >bin.json 2>bin.err; echo $? >rc)
    python3 "$NORM" "$d/ref.json" >"$d/ref.n"; python3 "$NORM" "$d/bin.json" >"$d/bin.n"
    diff "$d/ref.n" "$d/bin.n" >"$d/diff"
    n=$(grep -c '^[<>]' "$d/diff")
    [ "$(cat "$d/rc")" = 0 ] && [ "$n" = 0 ]
    peer_check "$name" $? "exit $(cat "$d/rc"), $n differing lines"
    [ "${PEER_SHOW:-0}" = 1 ] && head -40 "$d/diff"
done
peer_end
