//! Conformance: sysbench 1.0.20's own fileio cram test (`test_fileio.t`) run against
//! `iomark fileio` through the `sysbench` shim in `tests/cram/shim/`.
//!
//! The `.t` file is peer test data and is never copied into the repository: it is read
//! from `../shared/peer-tests/sysbench-1.0.20/test_fileio.t` relative to the project root
//! (copied into a temp dir at test time). If it is missing, or prysk is not installed,
//! the test fails (it never skips). `bash tests/run.sh` installs prysk.

use crate::util::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const T_FILE: &str = "../shared/peer-tests/sysbench-1.0.20/test_fileio.t";
const TIMEOUT: Duration = Duration::from_secs(600);

fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn prysk_available() -> bool {
    Command::new("python3")
        .args(["-c", "import prysk"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Runs sysbench's `test_fileio.t` with prysk in a scratch directory, `bin` first on
/// PATH (where its `sysbench` is), with `env` set; returns prysk's outcome and the
/// scratch directory.
fn prysk(bin: &Path, env: &[(&str, &std::ffi::OsStr)]) -> (Out, tempfile::TempDir) {
    let t_src = project_root().join(T_FILE);
    assert!(
        t_src.is_file(),
        "sysbench's cram test not found at {} (expected ../shared/peer-tests/ beside the \
         project root); this conformance test must not be skipped",
        t_src.display()
    );
    assert!(
        prysk_available(),
        "python3 module `prysk` is not installed; run `bash tests/run.sh` \
         (it installs prysk with pip) or `python3 -m pip install prysk`"
    );
    let tmp = scratch();
    let t_copy = tmp.path().join("test_fileio.t");
    std::fs::copy(&t_src, &t_copy).expect("copy test_fileio.t to the temp dir");
    let prysk_tmp = tmp.path().join("prysk-tmp");
    std::fs::create_dir(&prysk_tmp).unwrap();
    let mut dirs = vec![bin.to_path_buf()];
    dirs.extend(
        std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths),
    );
    let mut cmd = Iomark::program("python3")
        .args(["-m", "prysk", "--shell=/bin/bash", "--color=never"])
        .arg("test_fileio.t")
        .dir(tmp.path())
        .env("PATH", std::env::join_paths(dirs).unwrap())
        // prysk creates each test's working directory under TMPDIR.
        .env("TMPDIR", &prysk_tmp)
        .timeout(TIMEOUT);
    for (k, v) in env {
        cmd = cmd.env(k, v);
    }
    (cmd.run(), tmp)
}

#[test]
fn sysbench_test_fileio_t_passes_through_shim() {
    let iomark = Path::new(BIN);
    assert!(
        iomark.is_file(),
        "iomark binary not found at {}",
        iomark.display()
    );
    let shim_dir = project_root().join("tests/cram/shim");
    assert!(
        shim_dir.join("sysbench").is_file(),
        "shim missing: {}",
        shim_dir.join("sysbench").display()
    );
    let (r, _tmp) = prysk(&shim_dir, &[("IOMARK_BIN", iomark.as_os_str())]);
    assert_eq!(
        r.code, 0,
        "sysbench's test_fileio.t failed against iomark (prysk exit {}); diff:\n{}\n\
         --- prysk stderr ---\n{}",
        r.code, r.stdout, r.stderr
    );
}

/// The drop-in as installed: a symlink named `sysbench` to the binary, no shim — the
/// transcript (stdout and stderr as prysk merges them) is sysbench 1.0.20's, and the
/// persona keeps nothing in the results history even with the history on.
#[test]
fn sysbench_test_fileio_t_passes_on_the_persona_itself() {
    let bin = scratch();
    std::os::unix::fs::symlink(BIN, bin.path().join("sysbench")).unwrap();
    let results = bin.path().join("results");
    let (r, _tmp) = prysk(
        bin.path(),
        &[
            ("IOMARK_RESULTS", results.as_os_str()),
            ("IOMARK_HISTORY", std::ffi::OsStr::new("on")),
        ],
    );
    assert_eq!(
        r.code, 0,
        "sysbench's test_fileio.t failed on the persona (prysk exit {}); diff:\n{}\n\
         --- prysk stderr ---\n{}",
        r.code, r.stdout, r.stderr
    );
    assert!(!results.exists(), "the persona kept results in the history");
}
