//! `loops` side by side with fio 3.33, through `write_iolog`: each new loop of a job
//! thread is fio's `clear_io_state` — every file still open is closed (`T NAME close`)
//! and opened again by the loop's first request on it (`T NAME open`), the random maps
//! start empty and, under `randrepeat` without `randseed`, the generators are seeded
//! again, so every loop issues the first one's requests; with `randseed` (fio's fixup
//! turns `randrepeat` off) the draws go on from where the loop left them. Sequential
//! and random, one file and several (`nrfiles`), buffered (a loop ends with its bytes)
//! and `direct` (with its files found done), psync and libaio: the logs are fio's line
//! for line, times aside.

use crate::util::*;

/// The log of `args` (a job named `j` whose files are laid out in the run's directory,
/// logging to `j.log`) under fio 3.33 and under iomark as `fio`, each in a directory
/// of its own.
fn both_logs(args: &[&str]) -> [Vec<String>; 2] {
    let d = scratch();
    ["fio", "iomark"].map(|tool| {
        let (cmd, w) = fio_or_ours_in(tool, d.path());
        let o = cmd
            .args(["--name=j", "--write_iolog=j.log", "--output=/dev/null"])
            .args(args)
            .run();
        assert_eq!(o.code, 0, "{tool} {args:?}: {}", o.dump());
        iolog_lines(&w.join("j.log"))
    })
}

/// How many lines of `log` are `NAME ACTION` for `file`.
fn count(log: &[String], file: &str, action: &str) -> usize {
    let want = format!("{file} {action}");
    log.iter().filter(|l| **l == want).count()
}

/// One file of 64 KiB in 4 KiB requests, three loops: each loop opens the file, issues
/// its 16 requests and closes it (3 opens, 3 closes, 48 requests), fio's log line for
/// line — sequential and random, reads and writes, psync and libaio at depth 4,
/// buffered and direct.
#[test]
fn each_loop_closes_and_opens_the_file_as_fio() {
    require_fio();
    for rw in ["read", "randread", "write", "randwrite"] {
        for engine in ["--ioengine=psync", "--ioengine=libaio"] {
            for direct in ["--direct=0", "--direct=1"] {
                let rw = format!("--rw={rw}");
                let args = [
                    &rw,
                    engine,
                    direct,
                    "--iodepth=4",
                    "--filename=f",
                    "--size=64k",
                    "--bs=4k",
                    "--loops=3",
                ];
                let [fio, io] = both_logs(&args);
                for (action, n) in [("open", 3), ("close", 3)] {
                    assert_eq!(
                        count(&io, "f", action),
                        n,
                        "{args:?}: {action} lines\n{io:#?}"
                    );
                }
                assert_eq!(io.len(), 1 + 3 * (2 + 16), "{args:?}: {io:#?}");
                assert_eq!(io, fio, "{args:?}: iomark's log differs from fio's");
            }
        }
    }
}

/// A random job over two files (`nrfiles=2`, 32 KiB each) and two loops: the second
/// loop is seeded again whether its files are found done (`direct`) or its bytes are
/// issued (buffered), so it visits the first loop's offsets in the first loop's order,
/// as fio's; with `randseed` (no reseeding) the draws go on, fio's too.
#[test]
fn a_random_job_over_several_files_is_seeded_again_each_loop() {
    require_fio();
    for (seed, direct) in [
        ("", "--direct=1"),
        ("", "--direct=0"),
        ("--randseed=7", "--direct=1"),
    ] {
        let mut args = vec![
            "--rw=randread",
            "--nrfiles=2",
            "--size=64k",
            "--bs=4k",
            "--loops=2",
            "--ioengine=psync",
            direct,
        ];
        if !seed.is_empty() {
            args.push(seed);
        }
        let [fio, io] = both_logs(&args);
        let reads = |log: &[String]| -> Vec<String> {
            log.iter()
                .filter(|l| l.contains(" read "))
                .cloned()
                .collect()
        };
        let r = reads(&io);
        assert_eq!(r.len(), 2 * 16, "{args:?}: {io:#?}");
        // seeded again: the second loop repeats the first (16 requests a loop)
        assert_eq!(r[..16] == r[16..], seed.is_empty(), "{args:?}: {r:#?}");
        assert_eq!(io, fio, "{args:?}: iomark's log differs from fio's");
    }
}

/// A loop ended by its bytes on an engine that queues uses one of the job's `loops`:
/// over three files of 34133 bytes (`size=100k nrfiles=3`) a zipf read in 4–16 KiB
/// requests at depth 4 ends its first loop at its bytes (104 KiB issued), and fio
/// 3.33's second loop ends the job once its files are all done (21 requests, 164 KiB),
/// where a third pass would start if the first loop were not counted.
#[test]
fn a_loop_ended_by_its_bytes_counts_as_one_of_the_loops() {
    require_fio();
    for engine in ["--ioengine=libaio", "--ioengine=io_uring"] {
        let args = [
            "--rw=randread",
            "--loops=2",
            "--random_distribution=zipf:1.2",
            "--bsrange=4k-16k",
            "--nrfiles=3",
            "--size=100k",
            "--iodepth=4",
            engine,
        ];
        let [fio, io] = both_logs(&args);
        let reads = io.iter().filter(|l| l.contains(" read ")).count();
        assert_eq!(reads, 21, "{args:?}: {io:#?}");
        assert_eq!(io, fio, "{args:?}: iomark's log differs from fio's");
    }
}

/// An `unlink_each_loop` case: its arguments, then what each tool gives — exit code,
/// `error`, reads, writes, bytes of the file left (None: gone).
type UnlinkCase<'a> = (&'a [&'a str], i32, i64, u64, u64, Option<u64>);

/// `unlink_each_loop=1` (4 KiB blocks over a 256 KiB file, JSON): fio 3.33 unlinks the
/// job's files before each further loop, never after the last. A job that only reads
/// and whose pass reached the file's end fails its next loop's open — one pass of 64
/// reads, `error` 2, fio's `fio: pid=P, err=2/file:filesetup.c:805, func=open(j.0.0),
/// error=No such file or directory` line on stdout, exit 1, the file gone (`loops=2`,
/// or `io_size` twice the size); a writer makes the file anew, empty, each loop (128
/// writes, the last loop's file left at its size), so a read/write mix's next read
/// moves nothing (`full resid`: 30 reads — the last of them failed — and 35 writes,
/// error 5, exit 1, an empty file left); one loop removes nothing. On an engine that
/// queues (libaio, `direct`, depth 4) the loop's last completions count once. With
/// `io_size` below what its `loops` move (`io_size=128k loops=2`), the thread's further
/// loop finds the bytes all issued: it removes the file and issues nothing (64
/// requests, the file gone, exit 0). Each tool in a
/// directory of its own; fio's figures when it is installed, iomark's always.
#[test]
fn unlink_each_loop_removes_the_files_before_each_further_loop_as_fio() {
    const OPEN: &str =
        "err=2/file:filesetup.c:805, func=open(j.0.0), error=No such file or directory";
    // (args, exit code, error, reads, writes, bytes of the file left (None: gone))
    let queued = [
        "--rw=randread",
        "--loops=3",
        "--ioengine=libaio",
        "--iodepth=4",
        "--direct=1",
    ];
    let cases: [UnlinkCase; 10] = [
        // `io_size` below what the loops move: the thread's further loop issues nothing
        // and removes the file (fio 3.33: 64 writes or reads, the file gone, exit 0)
        (
            &["--rw=randwrite", "--io_size=128k", "--loops=2"],
            0,
            0,
            0,
            64,
            None,
        ),
        (
            &["--rw=write", "--io_size=128k", "--loops=2"],
            0,
            0,
            0,
            64,
            None,
        ),
        (
            &["--rw=read", "--io_size=128k", "--loops=2"],
            0,
            0,
            64,
            0,
            None,
        ),
        (
            &["--rw=write", "--io_size=128k"],
            0,
            0,
            0,
            32,
            Some(256 << 10),
        ),
        (&["--rw=read", "--loops=2"], 1, 2, 64, 0, None),
        (&queued, 1, 2, 64, 0, None),
        (&["--rw=randread", "--io_size=512k"], 1, 2, 64, 0, None),
        (&["--rw=randrw", "--loops=2"], 1, 5, 30, 35, Some(0)),
        (&["--rw=write", "--loops=2"], 0, 0, 0, 128, Some(256 << 10)),
        (&["--rw=read"], 0, 0, 64, 0, Some(256 << 10)),
    ];
    let d = scratch();
    let tools: &[&str] = match need_fio("unlink_each_loop") {
        true => &["fio", "iomark"],
        false => &["iomark"],
    };
    for &(args, code, error, reads, writes, left) in &cases {
        for &tool in tools {
            let (cmd, w) = fio_or_ours_in(tool, d.path());
            let o = cmd
                .args(["--name=j", "--bs=4k", "--size=256k", "--unlink_each_loop=1"])
                .args(["--output-format=json"])
                .args(args)
                .run();
            let what = format!("{tool} {args:?}: {}", o.dump());
            assert_eq!(o.code, code, "{what}");
            let j = &o.json_doc()["jobs"][0];
            assert_eq!(j["error"].as_i64(), Some(error), "{what}");
            assert_eq!(j["read"]["total_ios"].as_u64(), Some(reads), "{what}");
            assert_eq!(j["write"]["total_ios"].as_u64(), Some(writes), "{what}");
            if error == 2 {
                // fio says the failed open by its account alone
                assert_eq!(o.stderr, "", "{what}");
            }
            let line = o.stdout.lines().find(|l| l.starts_with("fio: pid="));
            assert_eq!(
                line.is_some_and(|l| l.ends_with(OPEN)),
                error == 2,
                "{what}"
            );
            let size = std::fs::metadata(w.join("j.0.0")).ok().map(|m| m.len());
            assert_eq!(size, left, "{what}");
        }
    }
}

/// The first block of each loop's run of writes and the writes in the log `log`
/// (`NAME write OFFSET LEN` lines, 4 KiB blocks).
fn loop_starts(log: &[String]) -> (Vec<u64>, usize) {
    let offs: Vec<u64> = log
        .iter()
        .filter_map(|l| {
            let p: Vec<&str> = l.split(' ').collect();
            (p.len() == 4 && p[1] == "write").then(|| p[2].parse::<u64>().unwrap() / 4096)
        })
        .collect();
    let mut starts = Vec::new();
    for (i, &o) in offs.iter().enumerate() {
        if i == 0 || offs[i - 1] + 1 != o {
            starts.push(o);
        }
    }
    (starts, offs.len())
}

/// `offset=N%` with `loops`: fio 3.33's `clear_io_state` takes each later loop's
/// start from the file's size at that loop (`get_start_offset`), the first loop's from
/// its size at setup, and the region keeps its end. `rw=write size=256k offset=10%
/// loops=3`: on a new file blocks 0–63, then 7–63 twice (fio: 178 writes); on a file of
/// 256 KiB already there 7–70, then 8–70 twice (190 writes, the file grown to 284 KiB).
#[test]
fn a_later_loop_starts_at_the_percentage_of_the_file_as_fio() {
    let d = scratch();
    let args = [
        "--name=j",
        "--write_iolog=j.log",
        "--output=/dev/null",
        "--rw=write",
        "--bs=4k",
        "--size=256k",
        "--offset=10%",
        "--loops=3",
    ];
    for (before, starts, writes) in [(0, vec![0, 7, 7], 178), (256, vec![7, 8, 8], 190)] {
        for tool in ["fio", "iomark"] {
            if tool == "fio" && !need_fio("offset% loops") {
                continue;
            }
            let (cmd, w) = fio_or_ours_in(tool, d.path());
            if before > 0 {
                std::fs::write(w.join("j.0.0"), vec![0u8; before << 10]).unwrap();
            }
            let o = cmd.args(args).run();
            assert_eq!(o.code, 0, "{tool}: {}", o.dump());
            let got = loop_starts(&iolog_lines(&w.join("j.log")));
            assert_eq!(
                got,
                (starts.clone(), writes),
                "{tool}, a file of {before} KiB"
            );
        }
    }
}
