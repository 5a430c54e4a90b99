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

#[test]
fn sysbench_test_fileio_t_passes_through_shim() {
    let root = project_root();
    let t_src = root.join(T_FILE);
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

    let iomark = Path::new(BIN);
    assert!(
        iomark.is_file(),
        "iomark binary not found at {}",
        iomark.display()
    );
    let shim_dir = root.join("tests/cram/shim");
    assert!(
        shim_dir.join("sysbench").is_file(),
        "shim missing: {}",
        shim_dir.join("sysbench").display()
    );

    let tmp = scratch();
    let t_copy = tmp.path().join("test_fileio.t");
    std::fs::copy(&t_src, &t_copy).expect("copy test_fileio.t to the temp dir");
    let prysk_tmp = tmp.path().join("prysk-tmp");
    std::fs::create_dir(&prysk_tmp).unwrap();

    let path = match std::env::var_os("PATH") {
        Some(p) => {
            let mut dirs = vec![shim_dir.clone()];
            dirs.extend(std::env::split_paths(&p));
            std::env::join_paths(dirs).unwrap()
        }
        None => shim_dir.clone().into_os_string(),
    };

    let r = Iomark::program("python3")
        .args([
            "-m",
            "prysk",
            "--shell=/bin/bash",
            "--color=never",
            "test_fileio.t",
        ])
        .dir(tmp.path())
        .env("PATH", path)
        .env("IOMARK_BIN", iomark)
        // prysk creates each test's working directory under TMPDIR.
        .env("TMPDIR", &prysk_tmp)
        .timeout(TIMEOUT)
        .run();
    let (code, stdout, stderr) = (r.code, r.stdout, r.stderr);
    assert_eq!(
        code, 0,
        "sysbench's test_fileio.t failed against iomark (prysk exit {code:?}); diff:\n\
         {stdout}\n--- prysk stderr ---\n{stderr}"
    );
}
