//! The numbers of a job's clones side by side with fio 3.33: fio adds the clones
//! counting down (`subjob_number`: with `numjobs=4` the second thread is clone 3, the
//! last one clone 1) while each thread's seeds go by its place among the threads, so
//! the file `j.1.0` gets the offsets of the job's last thread. The clone's file names
//! and its `offset_increment` start go by that number: the `write_iolog` of each clone
//! is fio's, offsets and all.

use crate::util::*;
use std::path::Path;

/// The clones' logs in the `write_iolog` at `path`, each without its times, sorted
/// (fio appends each clone's log at its end, in the order they end).
fn logs(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut all: Vec<Vec<String>> = Vec::new();
    for l in text.lines() {
        if l.starts_with("fio version") {
            all.push(Vec::new());
            continue;
        }
        let rest = l.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
        all.last_mut().expect("a version line first").push(rest);
    }
    all.sort();
    all
}

/// The clones' logs of `args` under fio 3.33 and iomark as `fio`.
fn both(args: &[&str]) -> [Vec<Vec<String>>; 2] {
    let d = scratch();
    ["fio", "iomark"].map(|tool| {
        let (cmd, w) = fio_or_ours_in(tool, d.path());
        let o = cmd
            .args(["--name=j", "--rw=randread", "--bs=4k", "--ioengine=psync"])
            .args(["--write_iolog=j.log", "--output=/dev/null"])
            .args(args)
            .run();
        assert_eq!(o.code, 0, "{tool} {args:?}: {}", o.dump());
        logs(&w.join("j.log"))
    })
}

/// 3 to 5 clones of a random read of 64 KiB, each over its own file `j.N.0`: every
/// clone's log names its one file and reads 16 blocks, and which file reads which
/// offsets is fio's (fio's second thread is clone `numjobs − 1`).
#[test]
fn the_clones_files_get_fios_offsets() {
    require_fio();
    for n in [3u32, 4, 5] {
        let nj = format!("--numjobs={n}");
        let args = [nj.as_str(), "--size=64k"];
        let [fio, io] = both(&args);
        assert_eq!(io.len(), n as usize, "{args:?}: {io:#?}");
        for log in &io {
            assert_eq!(log.iter().filter(|l| l.contains(" read ")).count(), 16);
        }
        assert_eq!(io, fio, "{args:?}: iomark's clones differ from fio's");
    }
}

/// Four clones over one file `f` of 64 KiB with `offset_increment=16k`: clone N's
/// region starts N × 16 KiB in, its 4 reads drawn with its thread's seed — fio's
/// offsets, clone for clone.
#[test]
fn offset_increment_goes_by_fios_clone_number() {
    require_fio();
    let args = [
        "--numjobs=4",
        "--filename=f",
        "--filesize=64k",
        "--size=16k",
        "--offset_increment=16k",
    ];
    let [fio, io] = both(&args);
    assert_eq!(io.len(), 4, "{io:#?}");
    for log in &io {
        let reads = log.iter().filter(|l| l.contains(" read ")).count();
        assert_eq!(reads, (16 << 10) / 4096, "{log:#?}");
    }
    assert_eq!(io, fio, "iomark's clones differ from fio's");
}

/// `offset_increment=N%` as fio 3.33 reads it (options.c `str_offset_increment_cb`,
/// filesetup.c `get_start_offset`): N % of the file, times the clone's number, added to
/// `offset` and aligned up to the smallest block size (or `offset_align`). Over a file of
/// 1 MiB, 10 % is 104857.6 bytes: fio's clones start at 104857 and 209714 aligned up,
/// bytes 106496 and 212992 — each clone's log is fio's, offsets and all.
#[test]
fn a_percent_offset_increment_is_fios_share_of_the_file() {
    require_fio();
    let cases: [&[&str]; 4] = [
        &["--offset_increment=10%"],
        &["--offset_increment=10%", "--offset=4k"],
        &["--offset_increment=10%", "--offset=10%"],
        &["--offset_increment=10%", "--offset_align=64k"],
    ];
    for extra in cases {
        let mut args = vec!["--numjobs=3", "--filename=f", "--filesize=1m", "--size=64k"];
        args.extend_from_slice(extra);
        let [fio, io] = both(&args);
        assert_eq!(io.len(), 3, "{args:?}: {io:#?}");
        assert_eq!(io, fio, "{args:?}: iomark's clones differ from fio's");
    }
    // the starts themselves, from the arithmetic above (a sequential read: each
    // clone's first read is its start)
    let [_, io] = both(&[
        "--rw=read",
        "--numjobs=3",
        "--filename=f",
        "--filesize=1m",
        "--size=64k",
        "--offset_increment=10%",
    ]);
    assert_eq!(first_reads(&io), [0, 106_496, 212_992]);
}

/// A clone whose start (`offset_increment` × its number) lies at or past its file's
/// end: fio 3.33 runs it with no I/O, reports it with zeros and exits 0, and the file
/// keeps its size. Four clones over 64 KiB at 32 KiB steps: clone 1 starts at 32 KiB,
/// clones 2 and 3 at 64 and 96 KiB (fio's second and third threads).
#[test]
fn a_clone_past_its_file_runs_no_io() {
    require_fio();
    let d = scratch();
    let mut seen = Vec::new();
    for tool in ["fio", "iomark"] {
        let (cmd, w) = fio_or_ours_in(tool, d.path());
        std::fs::write(w.join("f"), vec![0u8; 64 << 10]).unwrap();
        let o = cmd
            .args(["--name=j", "--filename=f", "--filesize=64k", "--size=16k"])
            .args(["--rw=read", "--bs=4k", "--ioengine=psync", "--numjobs=4"])
            .args(["--offset_increment=32k", "--output-format=json"])
            .run();
        assert_eq!((o.code, o.stderr.as_str()), (0, ""), "{tool}: {}", o.dump());
        let json = &o.stdout[o.stdout.find('{').expect("a JSON report")..];
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        let jobs: Vec<(u64, u64, u64)> = v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                let r = &j["read"];
                let n = |x: &serde_json::Value| x.as_u64().unwrap();
                (n(&r["total_ios"]), n(&r["io_bytes"]), n(&j["error"]))
            })
            .collect();
        let size = std::fs::metadata(w.join("f")).unwrap().len();
        seen.push((jobs, size));
    }
    let want = vec![(4, 16384, 0), (0, 0, 0), (0, 0, 0), (4, 16384, 0)];
    assert_eq!(seen[0], (want, 64 << 10), "fio");
    assert_eq!(seen[1], seen[0], "iomark differs from fio");
}

/// `offset_increment=-5%` with two clones over a file of 1 MiB: fio 3.33 reads the
/// value in two parts, `-5%` (4 bytes) then `5%`, so the increment is 5 % of the file,
/// 52428.8 bytes aligned up to 4 KiB: the second clone starts at 53248 (independent
/// arithmetic), and each clone's log is fio's. `150%` is stored as 2^64 − 151 bytes:
/// the second clone starts past the file and reads nothing, the first its 16 blocks;
/// the clone without I/O still opens and closes its file in its log (`f add`, `f
/// open`, `f close`), as fio's.
#[test]
fn a_negative_or_oversized_percent_increment_is_read_as_fio() {
    require_fio();
    let args = |inc: &'static str| {
        [
            "--rw=read",
            "--numjobs=2",
            "--filename=f",
            "--filesize=1m",
            "--size=64k",
            inc,
        ]
    };
    let [fio, io] = both(&args("--offset_increment=-5%"));
    assert_eq!(first_reads(&io), [0, 53_248], "{io:#?}");
    assert_eq!(io, fio, "iomark's clones differ from fio's");
    let [fio, io] = both(&args("--offset_increment=150%"));
    let reads = |logs: &[Vec<String>]| {
        let mut n: Vec<usize> = logs
            .iter()
            .map(|l| l.iter().filter(|l| l.contains(" read ")).count())
            .collect();
        n.sort();
        n
    };
    assert_eq!(reads(&io), [0, 16], "{io:#?}");
    assert_eq!(reads(&io), reads(&fio), "{fio:#?}");
    let idle = ["f add", "f open", "f close"].map(String::from).to_vec();
    for (tool, logs) in [("fio", &fio), ("iomark", &io)] {
        assert!(logs.contains(&idle), "{tool}: {logs:#?}");
    }
    assert_eq!(io, fio, "iomark's clones differ from fio's");
}

/// The offset of each clone's first read in its I/O log (`write_iolog` lines), sorted.
fn first_reads(logs: &[Vec<String>]) -> Vec<u64> {
    let mut firsts: Vec<u64> = logs
        .iter()
        .map(|log| {
            let read = log.iter().find(|l| l.contains(" read ")).expect("a read");
            read.split_whitespace().nth(2).unwrap().parse().unwrap()
        })
        .collect();
    firsts.sort();
    firsts
}
