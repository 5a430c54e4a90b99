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

/// fio 3.33's line when the first O_DIRECT request of a direction fails with EINVAL on
/// a synchronous engine (ioengines.c `td_io_queue`).
const FIRST_DIRECT: &str = "fio: first direct IO errored. File system may not support direct IO, or iomem_align= is bad, or invalid block size. Try setting direct=0.";

/// `iomem_align=N` (alias `mem_align`) starts each I/O buffer N bytes past its page's
/// start, as fio 3.33 places it: with `direct=1` a buffer 1 byte off fails the first
/// request with EINVAL, and fio says its hint on stdout as it happens — after the
/// header, before the thread's `fio: pid=` line (and before a JSON document) —, its
/// `io_u error` line on stderr, exit 1; without O_DIRECT the same buffers move every
/// byte. iomark refused the option (`not supported by iomark`) and had no hint.
#[test]
fn a_misaligned_buffer_fails_the_first_direct_request_with_fios_hint() {
    let einval = strerror(libc::EINVAL);
    for (rw, key, fmt) in [
        ("read", "--iomem_align=1", "normal"),
        ("write", "--mem_align=1", "normal"),
        ("read", "--iomem_align=1", "json"),
    ] {
        let (rw_opt, fmt_opt) = (format!("--rw={rw}"), format!("--output-format={fmt}"));
        let args = [
            "--name=a",
            "--filename=f",
            "--size=32k",
            "--bs=4k",
            "--direct=1",
            &rw_opt,
            key,
            &fmt_opt,
        ];
        let prep = |d: &std::path::Path, _| std::fs::write(d.join("f"), vec![1u8; 32768]).unwrap();
        let both = fio_and_iomark("first_direct_io_errored", &args, prep);
        let said = format!("err=22/file:io_u.c:1876, func=io_u error, error={einval}");
        for (tool, out) in both.each() {
            let why = format!("{tool} {rw} {key} {fmt}");
            assert_eq!(out.code, 1, "{why}: {}", out.dump());
            assert_eq!(
                out.stderr,
                format!("fio: io_u error on file f: {einval}: {rw} offset=0, buflen=4096\n"),
                "{why}: {}",
                out.dump()
            );
            let lines: Vec<&str> = out.stdout.lines().collect();
            let at = lines.iter().position(|l| *l == FIRST_DIRECT);
            let at = at.unwrap_or_else(|| panic!("{why}: {}", out.dump()));
            assert_eq!(
                lines.iter().filter(|l| **l == FIRST_DIRECT).count(),
                1,
                "{why}"
            );
            let pid = &lines[at + 1];
            assert!(
                pid.starts_with("fio: pid=") && pid.ends_with(&said),
                "{why}: {pid}"
            );
            match fmt {
                "json" => assert_eq!(at, 0, "{why}: {}", out.stdout),
                _ => assert_eq!(lines[at - 1], "Starting 1 process", "{why}"),
            }
        }
    }
    // without O_DIRECT the buffers 1 byte off move every byte, no hint
    let args = [
        "--name=a",
        "--filename=f",
        "--size=32k",
        "--bs=4k",
        "--rw=read",
        "--iomem_align=1",
        "--output-format=json",
    ];
    let prep = |d: &std::path::Path, _| std::fs::write(d.join("f"), vec![1u8; 32768]).unwrap();
    let both = fio_and_iomark("iomem_align_buffered", &args, prep);
    for (tool, out) in both.each() {
        assert_eq!(out.code, 0, "{tool}: {}", out.dump());
        assert!(!out.stdout.contains(FIRST_DIRECT), "{tool}");
        assert_eq!(
            out.json_doc()["jobs"][0]["read"]["io_bytes"],
            32768,
            "{tool}"
        );
    }
}
