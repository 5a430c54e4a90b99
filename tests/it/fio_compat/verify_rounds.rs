//! When fio 3.33 verifies what a job wrote: a `time_based` writer on an engine that
//! queues writes and verifies in rounds of `size` until its runtime; on a synchronous
//! engine it writes until the runtime and verifies nothing; no verify phase follows an
//! I/O phase the runtime ended. iomark once verified after the runtime of every job
//! (1.6× the wall time) or, for a time-based writer, never. Each case runs fio 3.33
//! beside iomark when fio is installed and checks both against the same rules.

use crate::util::*;

const MIB: u64 = 1 << 20;

/// Read bytes, write bytes, read runtime ms, write runtime ms.
type Moved = (u64, u64, u64, u64);

/// (read bytes, write bytes, read runtime ms, write runtime ms) of the first job. fio's
/// setup lines (the verify warning) come before the JSON document on stdout, as fio's.
fn moved(out: &Out) -> Moved {
    let text = &out.ok().stdout;
    let doc: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap_or(0)..])
        .unwrap_or_else(|e| panic!("no JSON document after the setup lines ({e}):\n{text}"));
    let j = &doc["jobs"][0];
    let n = |d: &str, k: &str| j[d][k].as_u64().unwrap_or(0);
    (
        n("read", "io_bytes"),
        n("write", "io_bytes"),
        n("read", "runtime"),
        n("write", "runtime"),
    )
}

/// Runs `args` (plus the JSON format) under iomark's fio persona and, when installed,
/// under fio 3.33; returns what each moved.
fn both(name: &str, args: &[&str]) -> Vec<(&'static str, Moved)> {
    let all = [&["--output-format=json"], args].concat();
    let got = fio_and_iomark(name, &all, |_, _| {});
    got.each().into_iter().map(|(t, o)| (t, moved(o))).collect()
}

/// A time-based random writer over 4 MiB for 1 s with crc32c (the engine is each test's).
const TIMED_WRITER: [&str; 8] = [
    "--name=v",
    "--filename=v.dat",
    "--rw=randwrite",
    "--bs=4k",
    "--size=4m",
    "--time_based",
    "--runtime=1",
    "--verify=crc32c",
];

/// libaio at depth 4, random writes over 4 MiB for 1 s with crc32c: rounds of 4 MiB
/// written then read back. What is read is what was written but the last round's
/// unchecked part (the runtime ends it while it writes or while it verifies), so
/// `0 <= written - read <= size`; at least one whole round is verified on any machine
/// that writes 8 MiB a second; write and read runtimes share the one second.
#[test]
fn a_time_based_writer_on_a_queued_engine_verifies_in_rounds_of_size() {
    let args = [&TIMED_WRITER[..], &["--ioengine=libaio", "--iodepth=4"]].concat();
    for (tool, (read, written, r_ms, w_ms)) in both("verify_rounds_queued", &args) {
        assert!(read >= 4 * MIB, "{tool}: a whole round verified: {read}");
        assert!(written >= read, "{tool}: {written} written, {read} read");
        assert!(
            written - read <= 4 * MIB,
            "{tool}: only the last round unchecked: {written} written, {read} read"
        );
        assert!(
            r_ms > 0 && w_ms > 0,
            "{tool}: {r_ms} ms read, {w_ms} ms write"
        );
        assert!(
            r_ms + w_ms <= 1_100,
            "{tool}: the rounds share the runtime: {r_ms} + {w_ms} ms"
        );
    }
}

/// The same writer on psync: fio counts no bytes issued for completed synchronous
/// requests, so the round never ends; the job writes until its runtime, which ends it
/// without a verify phase.
#[test]
fn a_time_based_writer_on_a_synchronous_engine_verifies_nothing() {
    let args = [&TIMED_WRITER[..], &["--ioengine=psync"]].concat();
    for (tool, (read, written, _, w_ms)) in both("verify_rounds_sync", &args) {
        assert_eq!(read, 0, "{tool}: nothing read back");
        assert!(
            written > 4 * MIB,
            "{tool}: it writes on past one pass: {written}"
        );
        assert!(w_ms >= 990, "{tool}: writes for the runtime: {w_ms} ms");
    }
}

/// A job that is not time based but whose runtime ends it before its size (1 MiB/s for
/// 1 s of 64 MiB) is not verified either; the same job that reaches its size is.
#[test]
fn no_verify_phase_follows_an_io_phase_the_runtime_ended() {
    let capped = [
        "--name=v",
        "--filename=v.dat",
        "--rw=write",
        "--bs=4k",
        "--size=64m",
        "--rate=1m",
        "--ioengine=psync",
        "--runtime=1",
        "--verify=crc32c",
    ];
    for (tool, (read, written, _, _)) in both("verify_runtime_capped", &capped) {
        assert!(written > 0 && written < 64 * MIB, "{tool}: {written}");
        assert_eq!(read, 0, "{tool}: the runtime ended it: no verify");
    }
    let whole = [
        "--name=v",
        "--filename=v.dat",
        "--rw=write",
        "--bs=4k",
        "--size=1m",
        "--ioengine=psync",
        "--runtime=30",
        "--verify=crc32c",
    ];
    for (tool, (read, written, _, _)) in both("verify_size_reached", &whole) {
        assert_eq!(
            (read, written),
            (MIB, MIB),
            "{tool}: written, then read back"
        );
    }
}

/// A writer with `verify=` that is not time based: fio 3.33's thread loop writes a pass
/// of `size` at most (never past `io_size × loops` written in all), reads the pass's
/// writes back, and starts another round while `loops` has some left, then while the
/// bytes moved, written and read, are under `io_size` — the read-back counts toward it.
/// iomark once wrote all of `io_size × loops` and verified once at the end (oracle job
/// 574: `size=256k io_size=512k` wrote 512 KiB where fio writes and reads 256 KiB). Each
/// case: its options and the bytes written (= read back), as the rule gives them; fio
/// 3.33 gave these on psync, mmap, io_uring and libaio, sequential and random.
#[test]
fn a_writer_that_is_not_time_based_verifies_each_round_and_counts_its_reads() {
    const K: u64 = 1024;
    let size = 256 * K;
    let cases: [(&[&str], u64); 5] = [
        // round 1 moves 2 × 256 KiB = io_size: one round
        (&["--io_size=512k"], size),
        // 2 rounds move 1 MiB < 1280 KiB: a third (1.5 MiB moved)
        (&["--io_size=1280k"], 3 * size),
        // every loop is a round, verified
        (&["--loops=3"], 3 * size),
        // 2 × 192 KiB written in all: a whole pass, then the 128 KiB left
        (&["--io_size=192k", "--loops=2"], 2 * 192 * K),
        // 2 × 128 KiB in all: the first pass writes it, the second round none
        (&["--io_size=128k", "--loops=2"], size),
    ];
    for (engine, depth) in [("psync", "1"), ("io_uring", "4")] {
        for rw in ["write", "randwrite"] {
            for (extra, want) in cases {
                let (e, r, d) = (
                    format!("--ioengine={engine}"),
                    format!("--rw={rw}"),
                    format!("--iodepth={depth}"),
                );
                let mut args = vec!["--name=v", "--filename=v.dat", "--bs=4k", "--size=256k"];
                args.extend([e.as_str(), r.as_str(), "--verify=crc32c"]);
                if depth != "1" {
                    args.push(d.as_str());
                }
                args.extend_from_slice(extra);
                for (tool, (read, written, _, _)) in both("verify_rounds_io_size", &args) {
                    assert_eq!(
                        (written, read),
                        (want, want),
                        "{tool} {engine} {rw} {extra:?}: written, read back"
                    );
                }
            }
        }
    }
}

/// Per job: (read requests, write requests, error) from a JSON report (text before the
/// document, fio's setup lines, skipped).
fn requests(out: &Out) -> Vec<(u64, u64, u64)> {
    let text = &out.ok().stdout;
    let doc: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap_or(0)..])
        .unwrap_or_else(|e| panic!("no JSON document ({e}):\n{text}"));
    let n = |v: &serde_json::Value| v.as_u64().unwrap_or(u64::MAX);
    doc["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            (
                n(&j["read"]["total_ios"]),
                n(&j["write"]["total_ios"]),
                n(&j["error"]),
            )
        })
        .collect()
}

/// A mixed job with `verify=` that is not time based (`rw=rw`, `randrw`; 1 MiB of
/// 4 KiB blocks, half of them writes): fio 3.33 runs it in rounds — the mix's reads and
/// writes, one pass at most and never past `io_size × loops` issued, then the read-back
/// of the round's writes (fio checks no read of the mix) — and starts another round
/// while `loops` has some left, then while the bytes moved (the mix's and the
/// read-back's) are under `io_size` by a block. Each write is read back once, so the
/// job's reads are the requests its rounds issued: the rule below, whatever share of
/// writes the mix drew in the range each case states. iomark verified a mixed job once,
/// at the end of all `io_size × loops`. fio 3.33 gave these numbers on psync and libaio.
#[test]
fn a_mixed_job_reads_back_each_rounds_writes() {
    const PASS: u64 = 256;
    // (extra options, read requests = blocks issued, the write shares it holds for)
    let cases: [(&[&str], u64, (u64, u64)); 6] = [
        // one pass, its writes read back
        (&[], PASS, (1, 99)),
        // io_size=512k: one round of 128 blocks (128 + writes moved ≥ 128)
        (&["--io_size=512k"], PASS / 2, (1, 99)),
        // 1792k: the first round moves 256 + W < 448 blocks (W < 75 %), so a second
        // round issues the 192 blocks left
        (&["--io_size=1792k"], 448, (1, 74)),
        // every loop is a round
        (&["--loops=3"], 3 * PASS, (1, 99)),
        // io_size=4m loops=2: two rounds (loops), 512 + 2W < 1024 blocks moved, a third;
        // then 768 + 3W ≥ 1024 when W ≥ a third: done
        (&["--io_size=4m", "--loops=2"], 3 * PASS, (34, 99)),
        // the backlog's reads are read-backs too: the same count
        (&["--verify_backlog=16"], PASS, (1, 99)),
    ];
    for (engine, depth) in [("psync", "1"), ("libaio", "8")] {
        for rw in ["rw", "randrw"] {
            for (extra, want, (lo, hi)) in cases {
                let (e, r, d) = (
                    format!("--ioengine={engine}"),
                    format!("--rw={rw}"),
                    format!("--iodepth={depth}"),
                );
                let mut args = vec![
                    "--output-format=json",
                    "--name=v",
                    "--filename=v.dat",
                    "--bs=4k",
                    "--size=1m",
                    "--verify=crc32c",
                ];
                args.extend([e.as_str(), r.as_str(), d.as_str()]);
                args.extend_from_slice(extra);
                if engine == "psync" && rw == "rw" && extra.len() == 2 {
                    // a sequential mix on a synchronous engine: its rounds end where one
                    // direction reaches the file's end (the test below)
                    continue;
                }
                for (tool, out) in both_out("verify_mixed_rounds", &args) {
                    let jobs = requests(&out);
                    let (read, written, err) = jobs[0];
                    let what = format!("{tool} {engine} {rw} {extra:?}");
                    assert_eq!(err, 0, "{what}");
                    // the share of writes among the blocks the rounds issued
                    let share = 100 * written / want;
                    assert!(
                        (lo..=hi).contains(&share),
                        "{what}: {written} writes of {want}: the case needs {lo}..{hi} %"
                    );
                    assert_eq!(
                        read, want,
                        "{what}: reads = blocks issued ({written} writes)"
                    );
                }
            }
        }
    }
}

/// A time-based mixed job with `verify=` (1 MiB, 1 s): on an engine that queues, fio
/// 3.33 verifies in rounds of `size` issued (the mix's reads and writes), each round's
/// writes read back, so a round's reads are `size` (the mix's and the read-back's) for
/// about half as many writes; on a synchronous engine the round never ends (fio counts
/// no bytes issued there) and the runtime ends the job with nothing read back: reads
/// and writes as the mix draws them.
#[test]
fn a_time_based_mixed_job_verifies_in_rounds_on_a_queued_engine_only() {
    for (engine, verifies) in [("libaio", true), ("psync", false)] {
        let e = format!("--ioengine={engine}");
        let args = [
            "--output-format=json",
            "--name=v",
            "--filename=v.dat",
            "--rw=randrw",
            "--bs=4k",
            "--size=1m",
            "--time_based",
            "--runtime=1",
            "--verify=crc32c",
            "--iodepth=4",
            e.as_str(),
        ];
        for (tool, out) in both_out("verify_mixed_timed", &args) {
            let (read, written, err) = requests(&out)[0];
            let what = format!("{tool} {engine}: {read} reads, {written} writes");
            assert_eq!(err, 0, "{what}");
            assert!(written > 256, "{what}: more than one round");
            // reads per write: 2 for rounds with half of them writes, 1 without a read-back
            let ratio = read as f64 / written as f64;
            if verifies {
                assert!((1.6..2.5).contains(&ratio), "{what}: each round read back");
            } else {
                assert!((0.8..1.25).contains(&ratio), "{what}: nothing read back");
            }
        }
    }
}

/// `numjobs=2` (a file each): each job runs its own rounds, so each reads the blocks it
/// issued, fio 3.33 and iomark alike.
#[test]
fn each_job_of_a_mixed_verifying_numjobs_runs_its_rounds() {
    let args = [
        "--output-format=json",
        "--name=v",
        "--rw=randrw",
        "--bs=4k",
        "--size=1m",
        "--io_size=1792k",
        "--verify=md5",
        "--ioengine=libaio",
        "--iodepth=4",
        "--numjobs=2",
    ];
    for (tool, out) in both_out("verify_mixed_numjobs", &args) {
        let jobs = requests(&out);
        assert_eq!(jobs.len(), 2, "{tool}: {jobs:?}");
        for (read, written, err) in jobs {
            assert_eq!((read, err), (448, 0), "{tool}: {written} writes");
        }
    }
}

/// Runs `args` under iomark's fio persona and, when installed, under fio 3.33, each in
/// its own directory; returns each one's output.
fn both_out(name: &str, args: &[&str]) -> Vec<(&'static str, Out)> {
    let d = scratch();
    let mut got = vec![("iomark", as_fio(d.path()).dir(d.path()).args(args).run())];
    if need_fio(name) {
        let f = d.path().join("fio");
        std::fs::create_dir_all(&f).unwrap();
        got.push(("fio", fio_cmd().dir(&f).args(args).run()));
    }
    got
}

/// A sequential mix (`rw=rw`, 1 MiB of 4 KiB blocks) with `verify=` on psync and
/// `io_size=4m`: fio 3.33 counts no bytes issued for requests that complete at once, so
/// a round is not a pass of 256 blocks: it goes on until a direction drawn has no block
/// left (its own sequential position at the file's end: 256 of one direction and most
/// of a pass of the other), then reads its writes back; the next round starts over at
/// the file's start, while the bytes moved are under `io_size`. Two rounds of more than
/// 256 blocks each: more than 768 reads (the rounds' blocks), at most 1024 (`io_size`
/// issued in all); fio gave 976 (two rounds of 488), iomark, rounds ending at a pass of
/// 256, gave 768. `io_size=1792k` stays 448 (one round, cut by the 448 blocks issued).
#[test]
fn a_sequential_mix_on_a_synchronous_engine_rounds_to_the_files_end() {
    for (size, lo, hi) in [("4m", 769, 1024), ("1792k", 448, 448)] {
        let io = format!("--io_size={size}");
        let args = [
            "--output-format=json",
            "--name=v",
            "--filename=v.dat",
            "--bs=4k",
            "--size=1m",
            "--verify=crc32c",
            "--ioengine=psync",
            "--rw=rw",
            io.as_str(),
        ];
        for (tool, out) in both_out("verify_mixed_sync_eof", &args) {
            let (read, written, err) = requests(&out)[0];
            let what = format!("{tool} io_size={size}: {read} reads, {written} writes");
            assert_eq!(err, 0, "{what}");
            assert!((lo..=hi).contains(&read), "{what}: {lo}..={hi}");
        }
    }
}

/// fio 3.33 keeps what a job without a random map wrote in a tree where a new write
/// removes every earlier one it overlaps (iolog.c `log_io_piece`; a non-uniform
/// distribution turns the random map off), so only the last write over each range is
/// read back. A random writer of 4–16 KiB requests with a normal distribution over
/// 256 KiB: its write_iolog's read-back covers no byte twice and stays in the file, and
/// it is fio's — 9 reads, 64 KiB (iomark once read back 16, 160 KiB: every write at an
/// offset of its own, overlapped or not).
#[test]
fn overlapping_writes_leave_only_the_last_to_read_back_as_fio() {
    let args = [
        "--name=j",
        "--ioengine=libaio",
        "--rw=randwrite",
        "--bs=4k",
        "--size=256k",
        "--verify=sha3-384",
        "--bsrange=4k-16k",
        "--random_distribution=normal:20",
        "--write_iolog=log",
        "--output-format=json",
    ];
    let got = fio_and_iomark("verify_overlapped_writes", &args, |_, _| {});
    for (tool, out) in got.each() {
        let text = &out.ok().stdout;
        let doc: serde_json::Value = serde_json::from_str(text).unwrap();
        let r = &doc["jobs"][0]["read"];
        let reads = (r["total_ios"].as_u64(), r["io_bytes"].as_u64());
        assert_eq!(reads, (Some(9), Some(65536)), "{tool}");
        let mut ranges: Vec<(u64, u64)> = iolog_lines(&got.dir(tool).join("log"))
            .iter()
            .filter_map(|l| {
                let w: Vec<&str> = l.split(' ').collect();
                (w.len() == 4 && w[1] == "read")
                    .then(|| (w[2].parse().unwrap(), w[3].parse().unwrap()))
            })
            .collect();
        ranges.sort();
        assert_eq!(ranges.len(), 9, "{tool}: {ranges:?}");
        for p in ranges.windows(2) {
            assert!(p[0].0 + p[0].1 <= p[1].0, "{tool}: {p:?} overlap");
        }
        let end = ranges.last().map_or(0, |r| r.0 + r.1);
        assert!(end <= 256 << 10, "{tool}: read back past the file: {end}");
    }
}

/// A writer with `verify=crc32c` whose writes and read-back all fall inside its
/// `ramp_time` (1 MiB in 4 KiB blocks, a ramp of 10 s the job never reaches): fio 3.33
/// counts every request (256 writes, 256 verify reads) and records no latency of either
/// (its `should_account` is false until the ramp is over): `clat_ns`, `lat_ns` and
/// `slat_ns` N 0 — on psync and on libaio at depth 4 — where iomark recorded the verify
/// reads' latencies.
#[test]
fn verify_reads_inside_the_ramp_record_no_latency_as_fio() {
    let d = scratch();
    let tools: &[&str] = match need_fio("verify_reads_inside_the_ramp") {
        true => &["fio", "iomark"],
        false => &["iomark"],
    };
    for engine in ["--ioengine=psync", "--ioengine=libaio"] {
        for &tool in tools {
            let (cmd, _) = fio_or_ours_in(tool, d.path());
            let o = cmd
                .args(["--name=j", "--rw=write", "--bs=4k", "--size=1m"])
                .args(["--verify=crc32c", "--ramp_time=10s", "--iodepth=4"])
                .args([engine, "--output-format=json"])
                .run();
            let what = format!("{tool} {engine}: {}", o.dump());
            assert_eq!(o.code, 0, "{what}");
            let j = &o.json_doc()["jobs"][0];
            for dir in ["read", "write"] {
                assert_eq!(j[dir]["total_ios"].as_u64(), Some(256), "{dir} {what}");
                for lat in ["clat_ns", "lat_ns", "slat_ns"] {
                    assert_eq!(j[dir][lat]["N"].as_u64(), Some(0), "{dir} {lat} {what}");
                }
            }
        }
    }
}
