#!/bin/bash
# fio's own test programs (its source tree's t/ directory) with BIN invoked as fio, next to
# fio itself (PEER_REF, /usr/bin/fio 3.33). The programs are fetched as data at test time,
# never committed: Debian's source of fio 3.41 (the newest fio source Debian's archive
# holds; fio 3.33's own t/ has only five of them), checked against its SHA-256 and kept
# in PEER_FIO_SRC (default /var/tmp/iomark-fio-src). sequence.py, numberio_overlap.py
# and verify_state_save.py exist only in fio's development tree after 3.42, which this
# network cannot reach (docs/compat/fio.md, "fio's t/ programs").
#
# Each program prints one line per check ("Test ID PASSED|FAILED|SKIPPED"). Every check
# that passes with fio here must pass with BIN, except the rows of the table "fio's t/
# checks iomark does not pass" in docs/compat/fio.md (KNOWN, each with its reason).
# PEER_FIO_T="prog ..." chooses programs (default: all seven). PEER_FIO_T_FAST=1 runs the
# subset the test suite runs (tests/it/fio_compat/peers.rs, under 3 minutes): of
# latency_percentiles the tests that cover each report shape (1 null engine, 4 json+ bins
# of slat/clat/lat, 7 slat alone, 8 unified_rw_reporting, 19 the same with priorities, 21
# priorities by cmdprio_bssplit; each runs 2-5 s), of verify.py tests 1, 2 and 6 per data
# direction (3-5 pin four CPUs, which fio fails on a smaller machine) and its
# checksum-failure tests, for md5 only (the header and
# verify_pattern_interval tests are fio 3.41's, most fail with fio 3.33), and the other
# five programs whole. Without it everything runs (about 11 minutes).
# Usage: tests/peer/fio-t.sh BIN
. "$(dirname "$0")/common.sh"
peer_work fio-t
peer_bin "${1:?usage: $0 BIN}"
[ -x "$PEER_REF" ] || { echo "peer: $PEER_REF (fio 3.33, the reference) is missing" >&2; exit 2; }
command -v python3 >/dev/null || { echo "peer: python3 is missing (fio's t/ programs are Python)" >&2; exit 2; }
SRC=${PEER_FIO_SRC:-/var/tmp/iomark-fio-src}
VER=3.41
SHA=a40b45112005e30a67bab6be4860b198c35104a628b6ec4d15720d62b5d1bab9
T=$SRC/fio-$VER/t
if [ ! -f "$T/verify.py" ]; then
    mkdir -p "$SRC" && cd "$SRC" || exit 2
    tgz=fio_$VER.orig.tar.gz
    if ! echo "$SHA  $tgz" | sha256sum -c --quiet >/dev/null 2>&1; then
        curl -sSf -o "$tgz.part" "http://deb.debian.org/debian/pool/main/f/fio/$tgz" &&
            mv "$tgz.part" "$tgz" ||
            { echo "peer: cannot download fio's source ($tgz) from deb.debian.org" >&2; exit 2; }
        echo "$SHA  $tgz" | sha256sum -c --quiet ||
            { echo "peer: $tgz does not match its SHA-256" >&2; exit 2; }
    fi
    tar xzf "$tgz" "fio-$VER/t" "fio-$VER/tools/fio_jsonplus_clat2csv" ||
        { echo "peer: cannot unpack $tgz" >&2; exit 2; }
    cd - >/dev/null || exit 2
fi
PROGS=${PEER_FIO_T:-latency_percentiles random_seed readonly strided verify log_compression jsonplus2csv_test}
# the known rows: "| `prog:check` | reason |" under the heading in docs/compat/fio.md; a
# row may hold `*` (any text), as `verify:6@*` for test 6 in every section
KNOWN_ROWS=()
while read -r k; do [ -n "$k" ] && KNOWN_ROWS+=("$k"); done < <(
    awk '/^### fio.s t\/ checks iomark does not pass/{p=1; next} p&&/^#/{exit}
         p&&/^\| `[a-z_0-9]+:/{s=$0; sub(/^\| `/,"",s); sub(/`.*/,"",s); print s}' \
        "$PEER_ROOT/docs/compat/fio.md")

# run PROG FIO DIR: one program with FIO as fio, its log in DIR/log
run() {
    local prog=$1 fio=$2 dir=$3 args=(-f "$2")
    mkdir -p "$dir" && cd "$dir" || return
    case $prog in
        random_seed|readonly|strided|verify|latency_percentiles) args+=(-a "$dir/art") ;;
        jsonplus2csv_test) args+=(-s "$SRC/fio-$VER/tools/fio_jsonplus_clat2csv") ;;
    esac
    [ "$prog" = verify ] && args+=(-k)
    if [ "${PEER_FIO_T_FAST:-0}" = 1 ]; then
        case $prog in
            latency_percentiles) args+=(-o 1 4 7 8 19 21) ;;
            verify) args+=(--csum md5 -o 1 2 6 1000 1001 1002 1003) ;;
        esac
    fi
    timeout 1200 python3 "$T/$prog.py" "${args[@]}" >"$dir/log" 2>&1
    cd - >/dev/null
}
# results LOG: "ID STATUS" per check line of a program's log. verify.py numbers its
# checks anew in each section ("ddir: write, checksum: md5"): the ID carries the section's
# values, `6@write/md5`; an ID seen again in one section gets its occurrence, `ID#2`
results() {
    sed -nE -e 's/^(ddir|mangle block size|mode|pattern): (.*)/@\2/p' \
        -e 's/^\**Test (.*[^ ]) (PASSED|FAILED|SKIPPED)\b.*/\1\t\2/p' "$1" |
        awk -F'\t' '/^@/ { sec = $0; gsub(/, [a-z_ ]+: /, "/", sec); next }
            { id = $1 sec; gsub(/ /, "_", id); n[id]++
              print id (n[id] > 1 ? "#" n[id] : "") "\t" $2 }'
}
# known NAME: NAME is a row of docs/compat/fio.md's table (a glob there)
known() {
    local r
    for r in "${KNOWN_ROWS[@]}"; do
        # shellcheck disable=SC2053 # the row is a glob
        [[ $1 == $r ]] && return 0
    done
    return 1
}
REF_PASS=0 BIN_PASS=0
for prog in $PROGS; do
    run "$prog" "$PEER_REF" "$PEER_WORK/ref/$prog" &
    run "$prog" "$PEER_FIO_DIR/fio" "$PEER_WORK/bin/$prog"
    wait
    # fio 3.33's own run of a program now and then passes nothing (its log_compression run
    # exited non-zero once under CI load): such a reference run is tried again, twice at most,
    # before "fio passed no check" fails the harness
    for again in 1 2; do
        results "$PEER_WORK/ref/$prog/log" | grep -q $'\tPASSED$' && break
        echo "peer: fio's own $prog passed no check; running it again ($again of 2)" >&2
        rm -rf "$PEER_WORK/ref/$prog"
        run "$prog" "$PEER_REF" "$PEER_WORK/ref/$prog"
    done
    declare -A got=()
    while IFS=$'\t' read -r id st; do got[$id]=$st; done < <(results "$PEER_WORK/bin/$prog/log")
    n=0
    while IFS=$'\t' read -r id st; do
        [ "$st" = PASSED ] || continue
        n=$((n + 1)); REF_PASS=$((REF_PASS + 1))
        known "$prog:$id" && peer_known "$prog:$id"
        [ "${got[$id]:-missing}" = PASSED ] && BIN_PASS=$((BIN_PASS + 1))
        [ "${got[$id]:-missing}" = PASSED ]
        peer_check "$prog:$id" $? "${got[$id]:-missing}"
    done < <(results "$PEER_WORK/ref/$prog/log")
    [ "$n" -gt 0 ] || peer_check "$prog:any" 1 "fio passed no check (fio's log: $(tail -1 "$PEER_WORK/ref/$prog/log"))"
    unset got
done
echo "fio-t: $BIN_PASS of the $REF_PASS checks fio passes here pass with $PEER_BIN"
peer_end
