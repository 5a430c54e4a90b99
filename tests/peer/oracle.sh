#!/bin/bash
# The differential oracle (tests/peer/oracle/oracle.py): fio 3.33 and BIN invoked as fio on
# generated jobs, every difference explained by docs/compat/fio.md's table "Explained
# differences (the oracle)" or listed as unexplained (exit 1). Without options: the seeded
# sample the test suite runs (120 jobs, seed 24). The full sweep:
#   nice -n 10 tests/peer/oracle.sh target/ci/iomark --jobs 2000 --seed 24 --write-summary
# Usage: tests/peer/oracle.sh BIN [oracle.py options]
BIN=${1:?usage: $0 BIN [--jobs N] [--seed S] [--write-summary]}
shift
command -v "${PEER_REF:-/usr/bin/fio}" >/dev/null || { echo "oracle: fio (${PEER_REF:-/usr/bin/fio}) is missing" >&2; exit 2; }
exec python3 "$(dirname "$0")/oracle/oracle.py" --bin "$BIN" --ref "${PEER_REF:-/usr/bin/fio}" "$@"
