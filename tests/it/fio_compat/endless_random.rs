//! Random jobs whose files are never done, side by side with fio 3.33 through
//! `write_iolog` and the JSON report's `total_ios`. Without a random map (`norandommap`,
//! or a skewed `random_distribution`) fio's files never fill, and with a non-uniform
//! `file_service_type` a file whose map is full starts over in place (no `close`/`open`
//! lines): the loop ends by its bytes only, at the job's `size` — the smaller of
//! `size=` and the files' I/O sizes, whole blocks or not (`size=1m nrfiles=3 bs=4k`:
//! 256 reads, where the files hold 255 whole blocks). On an engine that queues each loop
//! ends at `size` bytes issued, a new loop (files closed and opened again, the offsets
//! repeated under `randrepeat`); on a synchronous one `loops` more bytes go on in one loop.

use crate::util::*;
use std::path::Path;

/// The first job's reads in the JSON report at `path` (`read.total_ios`).
fn total_reads(path: &Path) -> u64 {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    v["jobs"][0]["read"]["total_ios"]
        .as_u64()
        .unwrap_or_else(|| panic!("no read.total_ios in {text}"))
}

/// The log and `read.total_ios` of `args` (a job named `j`, its files laid out in the
/// run's directory) under fio 3.33 and under iomark as `fio`, each in a directory of
/// its own.
fn both(args: &[&str]) -> [(Vec<String>, u64); 2] {
    let d = scratch();
    ["fio", "iomark"].map(|tool| {
        let (cmd, w) = fio_or_ours_in(tool, d.path());
        let o = cmd
            .args(["--name=j", "--write_iolog=j.log", "--output-format=json"])
            .args(["--output=out.json", "--rw=randread", "--bs=4k"])
            .args(args)
            .run();
        assert_eq!(o.code, 0, "{tool} {args:?}: {}", o.dump());
        (
            iolog_lines(&w.join("j.log")),
            total_reads(&w.join("out.json")),
        )
    })
}

/// The reads of `log` (`NAME read OFFSET LENGTH` lines).
fn reads(log: &[String]) -> Vec<&String> {
    log.iter().filter(|l| l.contains(" read ")).collect()
}

/// How many lines of `log` are `NAME ACTION` for any file.
fn actions(log: &[String], action: &str) -> usize {
    log.iter()
        .filter(|l| l.ends_with(&format!(" {action}")))
        .count()
}

/// `size=1m` over three files is 349525 bytes a file, 85 whole 4 KiB blocks (255 in
/// all): a job whose files are never done reads until its bytes reach `size`, 256
/// reads a loop (⌈1048575 / 4096⌉, fio's `size` being the files' 1048575 bytes), 512
/// with `loops=2` — on psync in one loop, on libaio in two — fio's log line for line.
#[test]
fn a_job_without_done_files_reads_its_whole_size_as_fio() {
    require_fio();
    let size: u64 = 1 << 20;
    let per_file = size / 3;
    let blocks = 3 * (per_file / 4096);
    assert_eq!(blocks, 255);
    let loop_reads = (3 * per_file).div_ceil(4096);
    for never_done in [
        "--norandommap",
        "--random_distribution=zipf:1.2",
        "--random_distribution=pareto:0.3",
        "--random_distribution=normal:20",
    ] {
        for (engine, loops) in [("psync", 1), ("psync", 2), ("libaio", 2)] {
            let eng = format!("--ioengine={engine}");
            let lp = format!("--loops={loops}");
            let args = [
                never_done,
                "--size=1m",
                "--nrfiles=3",
                &eng,
                "--iodepth=4",
                &lp,
            ];
            let [(fio, fio_n), (io, io_n)] = both(&args);
            assert_eq!(io_n, loops * loop_reads, "{args:?}: total_ios");
            assert_eq!(reads(&io).len() as u64, io_n, "{args:?}: {io:#?}");
            // files opened once a loop on libaio, once on psync
            let opens = if engine == "libaio" { 3 * loops } else { 3 };
            assert_eq!(actions(&io, "open") as u64, opens, "{args:?}: {io:#?}");
            assert_eq!(io_n, fio_n, "{args:?}: fio's total_ios");
            assert_eq!(io, fio, "{args:?}: iomark's log differs from fio's");
        }
    }
}

/// A non-uniform `file_service_type` over three files of 87381 bytes (21 whole 4 KiB
/// blocks each): a file whose map is full starts over where it is drawn, never closed
/// mid-run, and the job reads its whole 256 KiB (⌈262143 / 4096⌉ = 64 reads, not the
/// 63 whole blocks), fio's log line for line; twice that with `loops=2`.
#[test]
fn a_non_uniform_file_service_starts_full_files_over_in_place_as_fio() {
    require_fio();
    let size: u64 = 256 << 10;
    let loop_reads = (3 * (size / 3)).div_ceil(4096);
    for svc in ["zipf:1.2", "pareto:0.3", "normal:20"] {
        for (engine, loops) in [("psync", 1), ("psync", 2), ("libaio", 1)] {
            let s = format!("--file_service_type={svc}");
            let eng = format!("--ioengine={engine}");
            let lp = format!("--loops={loops}");
            let args = [s.as_str(), "--size=256k", "--nrfiles=3", &eng, &lp];
            let [(fio, fio_n), (io, io_n)] = both(&args);
            assert_eq!(io_n, loops * loop_reads, "{args:?}: total_ios");
            // each file opened and closed once: no reopen of a full file
            assert_eq!(actions(&io, "open"), 3, "{args:?}: {io:#?}");
            assert_eq!(actions(&io, "close"), 3, "{args:?}: {io:#?}");
            assert_eq!(io_n, fio_n, "{args:?}: fio's total_ios");
            assert_eq!(io, fio, "{args:?}: iomark's log differs from fio's");
        }
    }
}

/// `norandommap` with `loops=2` on an engine that queues (libaio and io_uring, depth 1
/// and 4), 64 KiB over one file and over two: each loop ends at its 16 reads, the files
/// are closed and opened again and, seeded again (`randrepeat`), the second loop reads
/// the first one's offsets — fio's log line for line.
#[test]
fn a_queued_job_without_a_map_starts_a_new_loop_at_its_bytes_as_fio() {
    require_fio();
    for engine in ["libaio", "io_uring"] {
        for depth in ["--iodepth=1", "--iodepth=4"] {
            for files in ["--nrfiles=1", "--nrfiles=2"] {
                let eng = format!("--ioengine={engine}");
                let args = [
                    "--norandommap",
                    "--size=64k",
                    "--loops=2",
                    &eng,
                    depth,
                    files,
                ];
                let [(fio, _), (io, io_n)] = both(&args);
                let nr: usize = files.rsplit('=').next().unwrap().parse().unwrap();
                assert_eq!(io_n, 2 * 16, "{args:?}: total_ios");
                assert_eq!(actions(&io, "open"), 2 * nr, "{args:?}: {io:#?}");
                assert_eq!(actions(&io, "close"), 2 * nr, "{args:?}: {io:#?}");
                let r = reads(&io);
                assert_eq!(r[..16], r[16..], "{args:?}: the loops' offsets differ");
                assert_eq!(io, fio, "{args:?}: iomark's log differs from fio's");
            }
        }
    }
}
