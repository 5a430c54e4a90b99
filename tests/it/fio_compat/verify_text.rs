//! The text fio 3.33 prints around a verifying job, next to iomark's as fio: the
//! header's lines up to the report (the note of a synchronous engine asked for a depth
//! above 1, once per thread) and, for a job a verify mismatch stopped, the thread's
//! error line `fio: pid=P, err=84/file:io_u.c:L, func=F, error=…` and the same account in
//! the report's first line. Each case runs fio 3.33 beside iomark when fio is installed.

use crate::util::*;

/// Runs `args` under iomark's fio persona and, when installed, under fio 3.33, each in
/// its own directory (`prep` first makes its files there).
fn both(name: &str, args: &[&str], prep: impl Fn(&std::path::Path)) -> Vec<(&'static str, Out)> {
    let d = scratch();
    prep(d.path());
    let mut got = vec![("iomark", as_fio(d.path()).dir(d.path()).args(args).run())];
    if need_fio(name) {
        let f = d.path().join("fio");
        std::fs::create_dir_all(&f).unwrap();
        prep(&f);
        got.push(("fio", fio_cmd().dir(&f).args(args).run()));
    }
    got
}

/// The lines before the first empty one (the header), pids and dates masked.
fn header(out: &Out) -> Vec<String> {
    out.stdout
        .lines()
        .take_while(|l| !l.is_empty())
        .map(|l| match l.find("pid=") {
            Some(i) => format!(
                "{}pid=P{}",
                &l[..i],
                &l[l[i..].find(',').map_or(l.len(), |k| i + k)..]
            ),
            None => l.to_string(),
        })
        .collect()
}

/// A 1 MiB file of bytes no verify job wrote.
fn junk(dir: &std::path::Path) {
    let data: Vec<u8> = (0..1u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(dir.join("v.dat"), data).unwrap();
}

/// A read-only job with `verify=md5` over a file no verify job wrote stops at the
/// first block with error 84: fio's thread prints its error as it ends, before the
/// report, naming where the mismatch was seen — the queued completions
/// (`io_u.c:2190, func=io_u_queued_complete`) on libaio, the synchronous one
/// (`io_u.c:2152, func=io_u_sync_complete`) on psync — and the report's first line
/// carries the same account; iomark printed neither (`err=84 (Invalid or incomplete
/// multibyte or wide character)` alone). Exit 1 in both.
#[test]
fn a_job_a_verify_mismatch_stopped_prints_fios_error_lines() {
    for (engine, at) in [
        ("libaio", "file:io_u.c:2190, func=io_u_queued_complete"),
        ("psync", "file:io_u.c:2152, func=io_u_sync_complete"),
    ] {
        let e = format!("--ioengine={engine}");
        let args = [
            "--name=j",
            "--filename=v.dat",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--verify=md5",
            "--iodepth=1",
            e.as_str(),
        ];
        let want = format!("err=84/{at}, error=Invalid or incomplete multibyte or wide character");
        for (tool, out) in both("verify_error_lines", &args, junk) {
            assert_eq!(out.code, 1, "{tool} {engine}: {}", out.dump());
            let h = header(&out);
            assert_eq!(
                h.last().map(String::as_str),
                Some(format!("fio: pid=P, {want}").as_str()),
                "{tool} {engine}: {h:#?}"
            );
            let report = format!(
                "err=84 ({at}, error=Invalid or incomplete multibyte or wide character): pid="
            );
            assert!(
                out.stdout.contains(&report),
                "{tool} {engine}:\n{}",
                out.stdout
            );
        }
    }
}

/// A writer with `verify=crc32c` on psync at `iodepth=4`, `numjobs=2`: its header as
/// fio's, line for line — the section line, `...`, the version, `Starting 2
/// processes`, the layout lines, then the note each thread prints as it starts
/// (`note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will
/// be capped at 1`), which iomark did not print.
#[test]
fn a_verifying_job_on_a_synchronous_engine_has_fios_header() {
    let args = [
        "--name=j",
        "--rw=write",
        "--bs=4k",
        "--size=256k",
        "--verify=crc32c",
        "--ioengine=psync",
        "--iodepth=4",
        "--numjobs=2",
    ];
    let outs = both("verify_sync_header", &args, |_| {});
    let mine = header(&outs[0].1.ok());
    let note = "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1";
    assert_eq!(mine.iter().filter(|l| *l == note).count(), 2, "{mine:#?}");
    assert_eq!(mine.last().map(String::as_str), Some(note), "{mine:#?}");
    if let Some((_, fio)) = outs.get(1) {
        assert_eq!(mine, header(&fio.ok()), "iomark's header, then fio's");
    }
}
