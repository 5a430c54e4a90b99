//! Conformance: sysbench 1.0.20's own fileio cram test (`test_fileio.t`) run against
//! `iomark fileio` through the `sysbench` shim in `tests/cram/shim/`.
//!
//! The `.t` file is peer test data and is never copied into the repository: it is read
//! from `../shared/peer-tests/sysbench-1.0.20/test_fileio.t` relative to the project root
//! (copied into a temp dir at test time). If it is missing, or prysk is not installed,
//! the test fails (it never skips). `bash tests/run.sh` installs prysk.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

/// Runs `cmd`, killing it after `TIMEOUT`; returns (exit code, stdout, stderr).
fn run_with_timeout(mut cmd: Command) -> (Option<i32>, String, String) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("failed to start python3 -m prysk");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let t_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().expect("waiting for prysk") {
            break Some(st);
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = t_out.join().unwrap();
    let stderr = t_err.join().unwrap();
    match status {
        Some(st) => (st.code(), stdout, stderr),
        None => panic!(
            "prysk did not finish within {TIMEOUT:?}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
        ),
    }
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

    let iomark = Path::new(env!("CARGO_BIN_EXE_iomark"));
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

    let tmp = tempfile::tempdir().expect("temp dir");
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

    let mut cmd = Command::new("python3");
    cmd.args([
        "-m",
        "prysk",
        "--shell=/bin/bash",
        "--color=never",
        "test_fileio.t",
    ])
    .current_dir(tmp.path())
    .env("PATH", path)
    .env("IOMARK_BIN", iomark)
    // prysk creates each test's working directory under TMPDIR.
    .env("TMPDIR", &prysk_tmp);
    let (code, stdout, stderr) = run_with_timeout(cmd);
    assert_eq!(
        code,
        Some(0),
        "sysbench's test_fileio.t failed against iomark (prysk exit {code:?}); diff:\n\
         {stdout}\n--- prysk stderr ---\n{stderr}"
    );
}
