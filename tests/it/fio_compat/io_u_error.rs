//! A job a request's errno stops, next to fio 3.33: its `io_u error` line on stderr
//! (io_u.c `__io_u_log_error`: the file as the job names it, the errno's text, the
//! direction, the request's offset and length), once per job thread, the thread's
//! `fio: pid=P, err=E/file:io_u.c:1876, func=io_u error, …` line and the report's
//! `err=E (…)`, exit 1. `/dev/full` fails every write with ENOSPC at the job's first
//! offset.

use crate::util::*;

/// The errno's text as strerror(3) gives it (`No space left on device`).
fn strerror(n: i32) -> String {
    let s = std::io::Error::from_raw_os_error(n).to_string();
    s.split(" (os error").next().unwrap_or(&s).to_string()
}

#[test]
fn a_write_to_dev_full_prints_fios_io_u_error_lines() {
    if !std::path::Path::new("/dev/full").exists() {
        absent_here("/dev/full");
        return;
    }
    let enospc = strerror(libc::ENOSPC);
    for (bs, offset, numjobs) in [(4096u64, 0u64, 1u32), (8192, 16384, 2)] {
        let (b, o, n) = (
            format!("--bs={bs}"),
            format!("--offset={offset}"),
            format!("--numjobs={numjobs}"),
        );
        let args = [
            "--name=a",
            "--filename=/dev/full",
            "--rw=write",
            "--size=64k",
            &b,
            &o,
            &n,
        ];
        let both = fio_and_iomark("io_u_error_dev_full", &args, |_, _| {});
        // each thread's first write fails at the job's offset, a whole block
        let line = format!(
            "fio: io_u error on file /dev/full: {enospc}: write offset={offset}, buflen={bs}\n"
        );
        let stderr = line.repeat(numjobs as usize);
        let said = format!(
            "err={}/file:io_u.c:1876, func=io_u error, error={enospc}",
            libc::ENOSPC
        );
        let report = format!(
            "err={} (file:io_u.c:1876, func=io_u error, error={enospc}): pid=",
            libc::ENOSPC
        );
        for (tool, out) in both.each() {
            let why = format!("{tool} bs={bs} offset={offset} numjobs={numjobs}");
            // (fio 3.33 exits with the number of jobs that failed, iomark with 1:
            // docs/compat/fio.md)
            match numjobs {
                1 => assert_eq!(out.code, 1, "{why}: {}", out.dump()),
                _ => assert!(out.code >= 1, "{why}: {}", out.dump()),
            }
            assert_eq!(out.stderr, stderr, "{why}: {}", out.dump());
            let pid_lines = out
                .stdout
                .lines()
                .filter(|l| l.starts_with("fio: pid=") && l.ends_with(&said))
                .count();
            assert_eq!(pid_lines, numjobs as usize, "{why}: {}", out.stdout);
            assert_eq!(
                out.stdout.matches(&report).count(),
                numjobs as usize,
                "{why}: {}",
                out.stdout
            );
        }
    }
}

/// `iomark run` keeps its own line, which names the job and the request in words
/// (docs/compat/fio.md: a deliberate difference), with the same exit code.
#[test]
fn iomark_run_names_the_job_and_the_request() {
    if !std::path::Path::new("/dev/full").exists() {
        absent_here("/dev/full");
        return;
    }
    let d = scratch();
    let o = Iomark::new()
        .dir(d.path())
        .args([
            "run",
            "--name=a",
            "--filename=/dev/full",
            "--rw=write",
            "--bs=4k",
            "--size=16k",
        ])
        .run();
    assert_eq!(o.code, 1, "{}", o.dump());
    // (after iomark's notes on the run, which `iomark run` prints on stderr)
    let want = format!(
        "iomark run: job 'a': write of 4096 bytes at offset 0 in /dev/full: {}",
        strerror(libc::ENOSPC)
    );
    let failed: Vec<&str> = o
        .stderr
        .lines()
        .filter(|l| l.contains("/dev/full"))
        .collect();
    assert_eq!(failed, [want.as_str()], "{}", o.dump());
    assert!(!o.stderr.contains("io_u error"), "{}", o.dump());
}
