#!/usr/bin/env bash
# The test command (README.md, docs/testing.md): installs what the tests need when it is
# missing (sysbench and fio from Debian, prysk and fio's Python clients from PyPI), then
# runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v sysbench >/dev/null 2>&1 || missing+=(sysbench)
command -v fio >/dev/null 2>&1 || missing+=(fio)
# loop-device safety tests (tests/it/safety/device.rs) make ext4 filesystems
command -v mkfs.ext4 >/dev/null 2>&1 || missing+=(e2fsprogs)
# loop-device tests (tests/it/cases/, tests/it/faults/): losetup, mount, mkfs.ext4
command -v losetup >/dev/null 2>&1 || [ -x /sbin/losetup ] || missing+=(mount)
# atomic-verify.fio runs on a loop-mounted XFS (tests/it/run/fio_examples.rs)
command -v mkfs.xfs >/dev/null 2>&1 || [ -x /sbin/mkfs.xfs ] || missing+=(xfsprogs)
# `iomark man` is rendered with `man -l` (tests/ux.rs): man-db, and groff for nroff
command -v man >/dev/null 2>&1 || missing+=(man-db)
command -v nroff >/dev/null 2>&1 || missing+=(groff-base)
# `iomark report -o report.html` is loaded in headless Chromium (tests/it/report.rs)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# fio's status line and the progress lines are captured on a terminal (tests/it/ux/status.rs)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
# the fio client checks (tests/it/fio_compat/peers.rs) put their Python clients in a venv
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
# many hosts under MPI (tests/it/mpi/, `--features mpi`): mpirun, mpicc and MPI's headers
# (the mpi crate finds them with `mpicc -show`), libclang for its bindgen step
command -v mpirun >/dev/null 2>&1 || missing+=(openmpi-bin)
command -v mpicc >/dev/null 2>&1 || missing+=(libopenmpi-dev)
ls /usr/lib/llvm-*/lib/libclang.so >/dev/null 2>&1 || missing+=(libclang-dev)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "tests/run.sh: please install ${missing[*]} (apt-get install ${missing[*]}) or run as root" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# prometheus_client's parsers check `iomark report --format=openmetrics` (tests/it/history.rs),
# markdown-it-py (CommonMark) renders `iomark report --format=markdown` (tests/it/report.rs)
if ! python3 -c 'import prysk, prometheus_client, markdown_it' >/dev/null 2>&1; then
  if ! python3 -m pip --version >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >/dev/null
  fi
  # Debian's own python3 is "externally managed" (PEP 668): pip refuses without the flag
  python3 -m pip install -q prysk prometheus_client markdown-it-py 2>/dev/null ||
    python3 -m pip install -q --break-system-packages prysk prometheus_client markdown-it-py
fi
# fio's Python clients (bench-fio/fio-plot, statsmodels and scipy for fio's own tests, six
# for its tools) in the venv tests/peer/ uses (PEER_VENV, tests/peer/common.sh)
( . tests/peer/common.sh
  "$PEER_VENV/bin/python" -c 'import statsmodels, scipy, six, bench_fio, fio_plot' >/dev/null 2>&1 ||
    peer_install_clients )
# every test binary (the unit tests, tests/it) runs even when one fails, so a failure
# shows all that is wrong; profile `ci` (Cargo.toml): release optimisation without LTO
status=0
# every test that cannot run here says so through tests/it/util/skip.rs, which appends a
# line to this log (and fails under CI=true when an install or root would have let it run)
export IOMARK_SKIP_LOG="$PWD/target/skipped-tests.log"
mkdir -p target && : >"$IOMARK_SKIP_LOG"
# formatting is part of the contract (docs/testing.md): rustfmt over every file, the
# feature-gated src/ranks/ too (cargo fmt skips modules behind a cfg)
cargo fmt --check || status=$?
rustfmt --check --edition 2021 src/ranks/*.rs || status=$?
# clippy over every target, warnings are errors (the mpi feature's code included)
cargo clippy --profile ci --all-targets --features mpi -- -D warnings || status=$?
cargo test --profile ci --no-fail-fast || status=$?
# the MPI tests (tests/it/mpi/): the crate again with the `mpi` feature (lib, binary
# and tests/it), four ranks per test under mpirun, as root
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  cargo test --profile ci --no-fail-fast --features mpi --test it mpi:: || status=$?
skips=$(wc -l <"$IOMARK_SKIP_LOG")
echo "tests/run.sh: $skips test part(s) skipped${CI:+ (CI=$CI: a skip for want of a tool or root fails its test)}"
[ "$skips" = 0 ] || sed 's/^/  /' "$IOMARK_SKIP_LOG"
exit $status
