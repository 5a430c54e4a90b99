//! fio's real clients against the built binary invoked as `fio` (the fio persona): the
//! check scripts of tests/peer/ (json-shape.sh, fio-tools.sh, kdiskmark.sh,
//! bench-fio.sh, the fast part of fio-tests.sh, the fast part of fio's t/ programs in
//! fio-t.sh, and the differential oracle's sample in oracle.sh), each of which prints a table of
//! named checks and exits 1 when a check that passed before fails (its KNOWN list names
//! what does not pass yet, docs/compat/fio-clients.md has why) and 2 when a client or the peer
//! material is missing. Both are failures here: `bash tests/run.sh` installs the Python
//! clients into the venv the scripts use (PEER_VENV), and fio 3.33 itself, so nothing
//! is skipped; the scripts are told not to install anything themselves.

use std::path::Path;
use std::process::Command;

/// The fio-tests that pass with iomark and run in seconds (2 and 3 lay out GiBs, 6 a
/// 4 GiB verify job, 12 and 14 run 12 s each; 11, `flow` weights over 10 s, misses its
/// 1:8 ratio when the machine is loaded, as the flow test of tests/it does; 36 and 37
/// are verify_state_save then verify_state_load on 512 KiB).
const FAST_FIO_TESTS: &str = "1 4 5 7 8 15 16 17 18 19 20 21 22 23 24 25 26 28 30 31 36 37";

/// Run tests/peer/SCRIPT with the built iomark; panics with its table unless it exits 0.
fn peer(script: &str, env: &[(&str, &str)]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .arg(root.join("tests/peer").join(script))
        .arg(env!("CARGO_BIN_EXE_iomark"))
        .env("PEER_NO_INSTALL", "1")
        .env("PEER_SHARED", root.join("../shared/peer-tests"))
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash tests/peer/{script}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let why = match out.status.code() {
        Some(0) => return,
        Some(2) => "a client or the peer material is missing (bash tests/run.sh installs them)",
        _ => "a check that passed before fails",
    };
    panic!("tests/peer/{script}: {why}\n{text}");
}

#[test]
fn fio_json_text_matches_fio_for_ten_jobs() {
    peer("json-shape.sh", &[]);
}

#[test]
fn fio_tools_read_iomark_output() {
    peer("fio-tools.sh", &[]);
}

#[test]
fn kdiskmark_runs_on_iomark() {
    peer("kdiskmark.sh", &[]);
}

#[test]
fn bench_fio_and_fio_plot_run_on_iomark() {
    peer("bench-fio.sh", &[]);
}

#[test]
fn fio_own_tests_pass_on_iomark() {
    peer("fio-tests.sh", &[("PEER_FIO_TESTS", FAST_FIO_TESTS)]);
}

/// The differential oracle's seeded sample (tests/peer/oracle.sh: 120 generated jobs under
/// fio 3.33 and under iomark as `fio`); fails listing each difference that
/// docs/compat/fio.md's table "Explained differences (the oracle)" does not explain.
#[test]
fn fio_oracle_sample_has_no_unexplained_difference() {
    peer("oracle.sh", &[]);
}

/// fio's own test programs (tests/peer/fio-t.sh: fio's t/ directory of Debian's fio 3.41
/// source, fetched as data and checked against its SHA-256) under fio 3.33 and under
/// iomark as `fio`: every check fio passes must pass with iomark or be a row of
/// docs/compat/fio.md's table "fio's t/ checks iomark does not pass". The fast subset
/// (PEER_FIO_T_FAST, under 3 minutes: six latency_percentiles tests, verify.py for md5
/// without its header and pattern-interval tests, the other five programs whole); the
/// whole set runs by hand, `bash tests/peer/fio-t.sh target/ci/iomark` (about 11 minutes).
#[test]
fn fio_t_programs_pass_on_iomark() {
    peer("fio-t.sh", &[("PEER_FIO_T_FAST", "1")]);
}
