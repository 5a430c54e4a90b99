//! Job files as fio 3.33 reads them, side by side with fio: a missing include in
//! `[global]` of a job whose files are new, a file that includes itself, bytes that are
//! not UTF-8 in a comment, a NUL byte alone on a line and a line of binary junk outside
//! any section — the same exit code, each job's name, error and KiB read (`--minimal`),
//! and the same lines on stderr.

use crate::util::*;
use std::path::Path;

/// (exit code, (name, error, read KiB) of each job, stderr) of `tool` (`fio`, or
/// iomark as `fio`) run over the job file `j.fio` holding `text`, in a fresh directory.
fn outcome(root: &Path, tool: &str, text: &[u8]) -> (i32, Vec<String>, String) {
    let w = root.join(tool);
    let _ = std::fs::remove_dir_all(&w);
    std::fs::create_dir_all(&w).unwrap();
    std::fs::write(w.join("j.fio"), text).unwrap();
    let cmd = if tool == "fio" {
        fio_cmd()
    } else {
        as_fio(root)
    };
    let o = cmd.dir(&w).args(["j.fio", "--minimal"]).run();
    let jobs = o
        .stdout
        .lines()
        .filter(|l| l.starts_with("3;"))
        .map(|l| l.split(';').skip(2).take(4).collect::<Vec<_>>().join(";"))
        .collect();
    (o.code, jobs, o.stderr)
}

#[test]
fn job_file_bytes_and_includes_read_as_fio() {
    if !need_fio("job_file_bytes_and_includes_read_as_fio") {
        return;
    }
    let d = scratch();
    let cases: [&[u8]; 6] = [
        b"[global]\ninclude missing.fio\n[j]\nsize=1m\n",
        b"[global]\ninclude j.fio\n[j]\nsize=1m\n",
        b"; caf\xe9 comment\n[job]\nrw=read\nsize=1m\n",
        b"[job]\n\0\nrw=read\nsize=1m\n",
        b"\xff\x01junk\n[job]\nsize=1m\n",
        b"[job]\n; \xff\xfe\nsize=1m\n",
    ];
    for text in cases {
        let ours = outcome(d.path(), "iomark", text);
        let fio = outcome(d.path(), "fio", text);
        let shown = String::from_utf8_lossy(text);
        assert_eq!(
            ours.0, fio.0,
            "exit code of {shown:?}\niomark: {ours:?}\nfio: {fio:?}"
        );
        assert_eq!(
            ours.1, fio.1,
            "jobs of {shown:?}\niomark: {ours:?}\nfio: {fio:?}"
        );
        // (the junk line is said with U+FFFD where fio prints its bytes)
        if !text.starts_with(b"\xff") {
            assert_eq!(ours.2, fio.2, "stderr of {shown:?}");
        }
    }
}
