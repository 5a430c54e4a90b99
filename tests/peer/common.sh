# Shared by the tests/peer/*.sh client checks (sourced, not run).
# Each check script takes BIN (any executable that speaks fio's command line, e.g.
# target/ci/iomark or /usr/bin/fio), runs one real client of fio against it and prints a
# table of named checks: PASS, FAIL, or KNOWN (a failure listed in the script's KNOWN
# set, documented in docs/compat/fio-clients.md). A FAIL (a check that is not known to fail) makes
# the script exit 1; a known failure that now passes is printed as FIXED, to be removed
# from KNOWN. Scratch files go under ${PEER_TMP:-/var/tmp} and are removed on exit.
#
# Environment: PEER_VENV (a Python venv with the clients: statsmodels, scipy, six, fio-plot;
# default /var/tmp/iomark-peer-venv, created with pip when missing unless
# PEER_NO_INSTALL=1), PEER_SHARED (the peer-test material, default ../shared/peer-tests
# of the repository), PEER_REF (fio itself, for the checks that compare, default
# /usr/bin/fio).

set -u
PEER_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PEER_SHARED=${PEER_SHARED:-$PEER_ROOT/../shared/peer-tests}
PEER_VENV=${PEER_VENV:-/var/tmp/iomark-peer-venv}
PEER_REF=${PEER_REF:-/usr/bin/fio}
PEER_FAILS=0
PEER_FIXED=0
declare -A PEER_KNOWN=()

# peer_known NAME...: checks expected to fail today (each one is in docs/compat/fio-clients.md).
peer_known() { for k in "$@"; do PEER_KNOWN[$k]=1; done; }

# peer_check NAME OK DETAIL: one row of the table; OK is 0 (pass) or anything else.
peer_check() {
    local name=$1 ok=$2 detail=${3:-}
    local known=${PEER_KNOWN[$name]:-}
    local st
    if [ "$ok" = 0 ]; then
        if [ -n "$known" ]; then st=FIXED; PEER_FIXED=$((PEER_FIXED + 1)); else st=PASS; fi
    elif [ -n "$known" ]; then
        st=KNOWN
    else
        st=FAIL; PEER_FAILS=$((PEER_FAILS + 1))
    fi
    printf '%-6s %-44s %s\n' "$st" "$name" "$detail"
}

# peer_end: the verdict line and the exit code.
peer_end() {
    echo "peer: $PEER_FAILS unexpected failure(s), $PEER_FIXED known failure(s) now passing"
    [ "$PEER_FIXED" -gt 0 ] && echo "peer: remove the FIXED rows from KNOWN in $0"
    [ "$PEER_FAILS" -eq 0 ]
}

# peer_bin BIN: an absolute path to BIN, and a directory whose `fio` is BIN invoked as
# fio (a symlink named fio: iomark's fio persona), in $PEER_FIO_DIR.
peer_bin() {
    local b=$1
    [ -x "$b" ] || { echo "peer: $b is not an executable" >&2; exit 2; }
    PEER_BIN=$(cd "$(dirname "$b")" && pwd)/$(basename "$b")
    PEER_FIO_DIR=$PEER_WORK/bin
    mkdir -p "$PEER_FIO_DIR"
    ln -sf "$PEER_BIN" "$PEER_FIO_DIR/fio"
}

# peer_work NAME: a fresh scratch directory in $PEER_WORK, removed when the script exits.
peer_work() {
    PEER_WORK=$(mktemp -d "${PEER_TMP:-/var/tmp}/iomark-peer-$1.XXXXXX")
    [ "${PEER_KEEP:-0}" = 1 ] && echo "peer: keeping $PEER_WORK" || trap 'rm -rf "$PEER_WORK"' EXIT
}

# peer_python MODULE...: the venv's python with MODULEs importable (installed with pip
# into PEER_VENV when missing); a missing client is a failure, never a skip.
peer_python() {
    local py=$PEER_VENV/bin/python
    if ! "$py" -c "import $(IFS=,; echo "$*")" 2>/dev/null; then
        if [ "${PEER_NO_INSTALL:-0}" = 1 ]; then
            echo "peer: $py lacks $* (PEER_NO_INSTALL=1)" >&2; exit 2
        fi
        peer_install_clients || exit 2
    fi
    PEER_PY=$py
}

# peer_install_clients: create PEER_VENV with the Python clients (pip, from PyPI); also
# run by tests/run.sh before the tests, which set PEER_NO_INSTALL=1.
peer_install_clients() {
    python3 -m venv "$PEER_VENV" >/dev/null &&
        "$PEER_VENV/bin/pip" install -q statsmodels scipy six fio-plot >/dev/null ||
        { echo "peer: cannot install the Python clients into $PEER_VENV" >&2; return 1; }
}

# peer_shared PATH: a file of the peer-test material, or exit 2 saying it is missing.
peer_shared() {
    [ -e "$PEER_SHARED/$1" ] || { echo "peer: $PEER_SHARED/$1 is missing (the peer-test material is required)" >&2; exit 2; }
    echo "$PEER_SHARED/$1"
}
