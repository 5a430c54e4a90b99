//! The text fio 3.33 prints around a verifying job, next to iomark's as fio: the
//! header's lines up to the report (the note of a synchronous engine asked for a depth
//! above 1, once per thread) and, for a job a verify mismatch stopped, the thread's
//! error line `fio: pid=P, err=84/file:io_u.c:L, func=F, error=…` and the same account in
//! the report's first line. Each case runs fio 3.33 beside iomark when fio is installed.

use crate::util::*;

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
        let got = fio_and_iomark("verify_error_lines", &args, |d, _| junk(d));
        for (tool, out) in got.each() {
            assert_eq!(out.code, 1, "{tool} {engine}: {}", out.dump());
            let h = header(out);
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
    let outs = fio_and_iomark("verify_sync_header", &args, |_, _| {});
    let mine = header(&outs.iomark.ok());
    let note = "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1";
    assert_eq!(mine.iter().filter(|l| *l == note).count(), 2, "{mine:#?}");
    assert_eq!(mine.last().map(String::as_str), Some(note), "{mine:#?}");
    if let Some(fio) = &outs.fio {
        assert_eq!(mine, header(&fio.ok()), "iomark's header, then fio's");
    }
}

/// Writes `v.dat` (1 MiB of 4 KiB blocks with crc32c headers, no read-back) with the
/// tool `cmd` makes, in `dir`, then spoils 8 bytes inside each of the `bad` blocks.
fn planted(dir: &std::path::Path, cmd: Iomark, bad: &[u64]) {
    cmd.dir(dir)
        .args([
            "--name=w",
            "--filename=v.dat",
            "--rw=write",
            "--bs=4k",
            "--size=1m",
            "--verify=crc32c",
            "--do_verify=0",
            "--verify_state_save=0",
        ])
        .run()
        .ok();
    let mut data = std::fs::read(dir.join("v.dat")).unwrap();
    for b in bad {
        let at = (*b as usize) * 4096 + 100;
        data[at..at + 8].copy_from_slice(b"XXXXXXXX");
    }
    std::fs::write(dir.join("v.dat"), data).unwrap();
}

/// What a read-only verify job over a planted file reported: (read requests, error,
/// the offsets of the mismatch lines on stderr, iodepth_complete, the text before the
/// JSON document).
type Checked = (u64, u64, Vec<u64>, serde_json::Value, String);

fn checked(out: &Out) -> Checked {
    let text = &out.stdout;
    let at = text.find('{').unwrap_or(0);
    let doc: serde_json::Value = serde_json::from_str(&text[at..])
        .unwrap_or_else(|e| panic!("no JSON document ({e}):\n{}", out.dump()));
    let j = &doc["jobs"][0];
    let offsets = out
        .stderr
        .lines()
        .filter(|l| l.contains(": verify failed at file"))
        .filter_map(|l| l.split(" offset ").nth(1)?.split(',').next()?.parse().ok())
        .collect();
    (
        j["read"]["total_ios"].as_u64().unwrap(),
        j["error"].as_u64().unwrap(),
        offsets,
        j["iodepth_complete"].clone(),
        text[..at].to_string(),
    )
}

/// A read-only job with `verify=crc32c` over a file whose blocks 5 and 6 are spoiled,
/// on an engine that queues, at depths 1, 4 and 8: fio 3.33 stops issuing at the first
/// mismatch but reaps its queue (`cleanup_pending_aio`), so every read in flight
/// completes, is checked — block 6's mismatch printed too when it was in flight — and
/// counts as done; its error stays the first one (84) and the thread's error line
/// comes before the JSON document. iomark counted reads up to the first mismatch only
/// (6 where fio counts 13 at depth 8 on libaio). On psync nothing is in flight: 6.
/// The count may differ from fio's by one read (completion timing); the mismatches not.
#[test]
fn a_read_only_verify_job_completes_its_reads_in_flight_after_a_mismatch() {
    const BAD: [u64; 2] = [5, 6];
    for (engine, depth) in [("libaio", 4), ("libaio", 8), ("io_uring", 8), ("psync", 4)] {
        let (e, d) = (format!("--ioengine={engine}"), format!("--iodepth={depth}"));
        let args = [
            "--output-format=json",
            "--name=r",
            "--filename=v.dat",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--verify=crc32c",
            e.as_str(),
            d.as_str(),
        ];
        let runs = fio_and_iomark("verify_reads_in_flight", &args, |d, t| planted(d, t, &BAD));
        let got: Vec<_> = runs
            .each()
            .into_iter()
            .map(|(t, o)| (t, checked(o)))
            .collect();
        let queued = engine != "psync";
        for (tool, (reads, err, offsets, _, before)) in &got {
            let what = format!("{tool} {engine} depth {depth}");
            assert_eq!(*err, 84, "{what}");
            // the first bad block, then those in flight behind it
            let want_reads = if queued { 6 + depth as u64 - 1 } else { 6 };
            assert!(
                *reads >= want_reads,
                "{what}: {reads} reads, the queue behind the first mismatch"
            );
            let want: Vec<u64> = BAD
                .iter()
                .map(|b| b * 4096)
                .filter(|o| o / 4096 < *reads && (queued || *o == BAD[0] * 4096))
                .collect();
            assert_eq!(offsets, &want, "{what}: the mismatches of the reads done");
            assert!(
                before.contains("fio: pid=") && before.contains(", err=84/file:io_u.c:"),
                "{what}: the thread's error before the document: {before:?}"
            );
        }
        if let [(_, mine), (_, fio)] = &got[..] {
            // how many reads were still in flight depends on when they complete: fio
            // 3.33 itself counts 13 or 14 on io_uring at depth 8 from run to run
            let what = format!("{engine} depth {depth}: iomark {mine:?}, fio {fio:?}");
            assert!(mine.0.abs_diff(fio.0) <= 1, "reads: {what}");
            assert_eq!(mine.2, fio.2, "mismatches: {what}");
            if mine.0 == fio.0 {
                assert_eq!(mine.3, fio.3, "iodepth_complete: {what}");
            }
        }
    }
}

/// A job on psync at `iodepth=4`: fio 3.33's thread prints its note on stdout before
/// the report in every format — before the JSON document, before the terse line —
/// and, with `--output=FILE`, nowhere: not on stdout, not in the file (whose header
/// then ends with `Starting 1 process`). iomark printed the note in the text header
/// only, into an `--output` file too.
#[test]
fn the_sync_engine_note_comes_before_every_report_and_never_into_an_output_file() {
    let note = "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1";
    let job = [
        "--name=v",
        "--filename=v.dat",
        "--size=64k",
        "--ioengine=psync",
        "--iodepth=4",
    ];
    // (format options, a file, what the report starts with)
    let cases: [(&[&str], bool, &str); 5] = [
        (&["--output-format=json"], false, "{"),
        (&["--minimal"], false, "3;fio-3.33;v;"),
        (&["--output-format=normal,json"], false, "{"),
        (&["--output-format=json"], true, "{"),
        (&[], true, "v: (g=0)"),
    ];
    for (fmt, to_file, starts) in cases {
        let mut args: Vec<&str> = job.to_vec();
        args.extend_from_slice(fmt);
        if to_file {
            args.push("--output=out.txt");
        }
        let runs = fio_and_iomark("sync_note_place", &args, |_, _| {});
        for (tool, out) in runs.each() {
            let (out, dir) = (out.ok(), runs.dir(tool));
            let what = format!("{tool} {fmt:?} to a file: {to_file}");
            if to_file {
                assert_eq!(out.stdout, "", "{what}");
                let file = std::fs::read_to_string(dir.join("out.txt")).unwrap();
                assert!(file.starts_with(starts), "{what}:\n{file}");
                assert!(!file.contains("note:"), "{what}:\n{file}");
                continue;
            }
            let at = out.stdout.find(starts).expect(&what);
            let before: Vec<&str> = out.stdout[..at].lines().collect();
            assert_eq!(before.last(), Some(&note), "{what}:\n{}", out.stdout);
            assert_eq!(out.stdout.matches(note).count(), 1, "{what}");
        }
    }
}

/// A read-only `verify=md5` job over a file no verify job wrote, on psync and libaio:
/// stderr has fio 3.33's lines only (`verify: bad magic header …, wanted acca at file
/// v.dat offset 0, …`), byte for byte; iomark added its own explanation after them
/// (`fio: job 'j': verify: 1 block(s) did not match; first: …`). That explanation stays
/// iomark's note: on stderr with `--notes`, and in the RunResult (`--json`) always.
#[test]
fn a_verify_mismatch_says_fios_lines_only() {
    let test = "a_verify_mismatch_says_fios_lines_only";
    let mine = "verify: 1 block(s) did not match; first: verify failed in v.dat at offset 0: ";
    for engine in ["psync", "libaio"] {
        let e = format!("--ioengine={engine}");
        let args = [
            "--name=j",
            "--filename=v.dat",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--verify=md5",
            e.as_str(),
        ];
        let got = fio_and_iomark(test, &args, |d, _| junk(d));
        for (tool, out) in got.each() {
            assert_eq!(out.code, 1, "{tool} {engine}: {}", out.dump());
            let lines: Vec<&str> = out.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{tool} {engine}: {}", out.stderr);
            assert!(
                lines[0].starts_with("verify: bad magic header ")
                    && lines[0].contains(", wanted acca at file v.dat offset 0, length 4096"),
                "{tool} {engine}: {}",
                out.stderr
            );
        }
        if let Some(fio) = &got.fio {
            assert_eq!(got.iomark.stderr, fio.stderr, "{engine}");
        }
        let d = scratch();
        junk(d.path());
        let o = as_fio(d.path())
            .dir(d.path())
            .args(args)
            .args(["--notes", "--json=r.json"])
            .run();
        assert_eq!(o.code, 1, "{engine}: {}", o.dump());
        assert!(o.stderr.contains(mine), "{engine}: {}", o.stderr);
        let r = std::fs::read_to_string(d.path().join("r.json")).unwrap();
        assert!(r.contains(mine), "{engine}: {r}");
    }
}
