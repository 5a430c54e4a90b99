#!/bin/bash
# fio's own job tests (../shared/peer-tests/fio-tests, t/run-fio-tests.py, tests 1-38)
# with BIN invoked as fio. Each test checks the exit code, an empty stderr and values in
# the JSON and logs. The tests run are the 28 that Debian's fio 3.33 passes on this
# machine (fio-tests/README.md), or PEER_FIO_TESTS="N ..." to choose. Asserts each one
# passes, except those in KNOWN (their causes: docs/compat/fio-clients.md, "fio-tests").
# Usage: tests/peer/fio-tests.sh BIN
. "$(dirname "$0")/common.sh"
peer_work fio-tests
peer_bin "${1:?usage: $0 BIN}"
T=$(peer_shared fio-tests/t/run-fio-tests.py)
peer_python statsmodels scipy
TESTS=${PEER_FIO_TESTS:-1 2 3 4 5 6 7 8 11 12 14 15 16 17 18 19 20 21 22 23 24 25 26 28 30 31 36 37}
# failing with iomark today (docs/compat/fio-clients.md has the cause of each): none
"$PEER_PY" "$T" -r "$PEER_SHARED/fio-tests" -f "$PEER_FIO_DIR/fio" -a "$PEER_WORK/art" -k \
    -o $TESTS >"$PEER_WORK/log" 2>&1
for n in $TESTS; do
    line=$(grep -E "^Test $n (PASSED|FAILED|SKIPPED)" "$PEER_WORK/log" | tail -1)
    [[ "$line" == *PASSED* ]]
    peer_check "$n" $? "$(echo "${line#Test $n }" | cut -c1-110)"
done
peer_end
