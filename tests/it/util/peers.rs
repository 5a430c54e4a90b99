//! The peer tools iomark is compatible with: sysbench 1.0.20 and fio 3.33. `bash
//! tests/run.sh` installs both. The sysbench comparisons are the point of their tests,
//! so a missing sysbench fails them; the fio comparisons skip with the reason.

use super::cmd::{Iomark, Out};
use std::path::Path;

fn runs(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether the real sysbench is installed.
pub fn have_sysbench() -> bool {
    runs("sysbench")
}

/// Whether the real fio is installed.
pub fn have_fio() -> bool {
    runs("fio")
}

/// Whether fio is here; when not, says that `test` is skipped (on stderr).
pub fn need_fio(test: &str) -> bool {
    let have = have_fio();
    if !have {
        super::skip(format_args!("{test}: fio is not installed"));
    }
    have
}

/// `sysbench fileio ARGS` in `dir`. Panics when sysbench is missing.
pub fn sysbench(dir: &Path, args: &[&str]) -> Out {
    assert!(
        have_sysbench(),
        "sysbench 1.0.20 is required for the comparison tests (bash tests/run.sh installs it)"
    );
    Iomark::program("sysbench")
        .dir(dir)
        .arg("fileio")
        .args(args)
        .run()
}

/// The real fio as a command (same timeout and capture as iomark's).
pub fn fio_cmd() -> Iomark {
    Iomark::program("fio")
}

/// The built binary under the name `fio` (the fio persona), linked in `dir/bin/` and
/// started as `fio` (its argv[0], as a shell runs it from the PATH, which fio's usage
/// prints); it keeps no results history (`IOMARK_HISTORY=off`).
pub fn as_fio(dir: &Path) -> Iomark {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fio = bin.join("fio");
    if !fio.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_iomark"), &fio).unwrap();
    }
    Iomark::program(fio)
        .env("IOMARK_HISTORY", "off")
        .configure(|c| {
            std::os::unix::process::CommandExt::arg0(c, "fio");
        })
}
