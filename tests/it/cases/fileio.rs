//! The `fileio` cases of ../shared/cases/public-cases.md (reproducible cases tied to
//! public bug reports), one or more tests per case, named after it.
//!
//! Exit codes as docs/commands/fileio.md ("Exit codes") defines them: 0 ok, 1 a sysbench
//! error message (kept where sysbench already reports the problem well, e.g. C04), 2 input
//! sysbench would wrongly accept, 3 the environment cannot do it.
//!
//! C08, C19 and C23 need root (loop devices, mkfs.ext4, mount). They do not skip: without
//! root or without losetup/mkfs.ext4/mount/umount they fail with a message saying so.
//! Loop devices and mounts are released by guards (Drop), also when a test fails.
//!
//! Scratch directories live under CARGO_TARGET_TMPDIR (the build's disk), not /tmp, so a
//! tmpfs /tmp cannot change O_DIRECT or page-cache behaviour.

use crate::util::*;
use std::collections::HashSet;
use std::path::Path;

/// `prlimit --nofile=SOFT:HARD -- iomark fileio ARGS...` in `dir`.
fn fileio_nofile(dir: &Path, soft: u64, hard: u64, args: &[&str]) -> Out {
    Iomark::program(require_tool("prlimit"))
        .dir(dir)
        .arg(format!("--nofile={soft}:{hard}"))
        .arg("--")
        .arg(BIN)
        .arg("fileio")
        .args(args)
        .run()
}

#[track_caller]
fn require_root(case: &str) {
    assert!(
        is_root(),
        "{case} needs root (loop devices, mkfs.ext4, mount); run the tests as root as CI does"
    );
}

/// An ext4 of `size` bytes with `sector`-byte logical blocks on a loop device, mounted;
/// fails (never skips) when this machine cannot make one.
fn loop_ext4(size: u64, sector: u32) -> LoopFs {
    LoopFs::new(size, Some(sector), "ext4", &["-q", "-F"]).unwrap_or_else(|why| panic!("{why}"))
}

/// Bytes available to an unprivileged writer (as `df` shows), via statvfs.
fn avail_bytes(dir: &Path) -> u64 {
    let st = rustix::fs::statvfs(dir).expect("statvfs");
    st.f_bavail * st.f_frsize
}

/// Shannon entropy in bits per byte.
fn entropy(d: &[u8]) -> f64 {
    let mut h = [0u64; 256];
    for &b in d {
        h[b as usize] += 1;
    }
    let n = d.len() as f64;
    h.iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

// ---------------------------------------------------------------------------------------
// C01 — sysbench geometry: block larger than a file, total not divisible

/// 8 KiB total in one file with 16 KiB blocks: exit 2 naming both numbers, for prepare
/// and run, and no file is created.
#[test]
fn c01_block_larger_than_file() {
    let d = scratch();
    for cmd in ["prepare", "run"] {
        let o = fileio(
            d.path(),
            &[
                "--file-num=1",
                "--file-total-size=8K",
                "--file-block-size=16K",
                "--file-test-mode=rndrd",
                "--time=1",
                cmd,
            ],
        );
        o.expect_code(2)
            .expect_contains("8192")
            .expect_contains("16384")
            .expect_contains("--file-block-size");
        o.expect_lacks("File operations:");
        assert_eq!(
            entries(d.path()),
            Vec::<String>::new(),
            "{cmd} created files"
        );
    }
}

/// 100K over 3 files with 16K blocks: prepare rounds each file down to whole blocks
/// (32768 bytes, says so, never writes more than asked); the run reports the same
/// geometry and counts only whole blocks (bytes == ops x 16384, rates from those bytes).
#[test]
fn c01_total_not_divisible_rounds_down() {
    let d = scratch();
    let geo = [
        "--file-num=3",
        "--file-total-size=100K",
        "--file-block-size=16K",
    ];
    let o = fileio(d.path(), &[&geo[..], &["prepare"]].concat());
    o.expect_code(0).expect_contains(
        "32768 bytes per file instead of 34133; 3 files = 98304 bytes (96.0 KiB) in total",
    );
    assert_eq!(
        entries(d.path()),
        ["test_file.0", "test_file.1", "test_file.2"]
    );
    let mut total = 0;
    for i in 0..3 {
        let sz = size_of(&d.path().join(format!("test_file.{i}")));
        assert_eq!(sz, 32768, "test_file.{i}");
        total += sz;
    }
    assert!(
        total <= 100 * 1024,
        "prepare wrote {total} bytes, more than the 102400 asked"
    );

    let js = d.path().join("r.json");
    let o = fileio(
        d.path(),
        &[
            &geo[..],
            &[
                "--file-test-mode=seqrd",
                "--time=1",
                &format!("--json={}", js.display()),
                "run",
            ],
        ]
        .concat(),
    );
    o.expect_code(0)
        .expect_contains("3 files, 32KiB each")
        .expect_contains("96KiB total file size");
    let j = read_json(&js);
    assert_eq!(at_str(&j, "/status"), "ok");
    assert_eq!(at_u64(&j, "/job/file_size_bytes"), 32768);
    assert_eq!(at_u64(&j, "/job/total_size_bytes"), 98304);
    assert_eq!(at_u64(&j, "/job/block_size_bytes"), 16384);
    let ops = at_u64(&j, "/read/ops");
    assert!(ops > 0, "no reads: {j:#}");
    assert_eq!(
        at_u64(&j, "/read/bytes"),
        ops * 16384,
        "a read counted as a block must transfer a whole block"
    );
    let period = at_f64(&j, "/period_s");
    let bw = at_f64(&j, "/read/bw_bytes_per_s");
    let want = at_u64(&j, "/read/bytes") as f64 / period;
    assert!(
        (bw - want).abs() <= want * 1e-6,
        "bw_bytes_per_s {bw} != bytes/period_s {want}"
    );
    // the files are not touched by a read test
    for i in 0..3 {
        assert_eq!(size_of(&d.path().join(format!("test_file.{i}"))), 32768);
    }
}

// ---------------------------------------------------------------------------------------
// C04 — prepare/run size mismatch

/// A run with a bigger total or more files than prepared, or in an empty directory,
/// fails before the clock with the file name, found and expected sizes and a prepare
/// hint; it never prints a report, never extends or creates files. iomark keeps
/// sysbench's own (good) messages and their exit code 1.
#[test]
fn c04_prepare_run_size_mismatch() {
    let d = scratch();
    fileio(
        d.path(),
        &["--file-num=2", "--file-total-size=1M", "prepare"],
    )
    .expect_code(0);
    let js = d.path().join("r.json");
    let json_arg = format!("--json={}", js.display());

    // bigger than prepared
    let o = fileio(
        d.path(),
        &[
            "--file-num=2",
            "--file-total-size=4M",
            "--file-test-mode=rndrd",
            "--time=1",
            &json_arg,
            "run",
        ],
    );
    o.expect_code(1)
        .expect_contains("Size of file 'test_file.0' is 512KiB, but at least 2MiB is expected")
        .expect_contains("prepare")
        .expect_lacks("File operations:");
    assert_eq!(
        entries(d.path())
            .iter()
            .filter(|n| n.starts_with("test_file"))
            .count(),
        2
    );
    assert_eq!(
        size_of(&d.path().join("test_file.0")),
        512 * 1024,
        "a read test extended the file"
    );
    assert_eq!(
        size_of(&d.path().join("test_file.1")),
        512 * 1024,
        "a read test extended the file"
    );
    if js.exists() {
        assert_ne!(
            read_json(&js)["status"],
            "ok",
            "a failed run must not leave an ok result"
        );
    }

    // more files than prepared; also a random-write test must not create them
    for mode in ["rndrd", "rndwr"] {
        let o = fileio(
            d.path(),
            &[
                "--file-num=4",
                "--file-total-size=1M",
                &format!("--file-test-mode={mode}"),
                "--time=1",
                &json_arg,
                "run",
            ],
        );
        o.expect_code(1)
            .expect_contains("Cannot open file 'test_file.2'")
            .expect_contains("Did you forget to run the prepare step?")
            .expect_lacks("File operations:");
        assert!(
            !d.path().join("test_file.2").exists(),
            "{mode} created test_file.2"
        );
        assert!(
            !d.path().join("test_file.3").exists(),
            "{mode} created test_file.3"
        );
        assert_eq!(
            size_of(&d.path().join("test_file.0")),
            512 * 1024,
            "{mode} changed test_file.0"
        );
    }

    // empty directory
    let e = scratch();
    for mode in ["rndrd", "rndwr"] {
        let o = fileio(
            e.path(),
            &[
                "--file-num=2",
                "--file-total-size=1M",
                &format!("--file-test-mode={mode}"),
                "--time=1",
                "run",
            ],
        );
        o.expect_code(1)
            .expect_contains("Cannot open file 'test_file.0'")
            .expect_contains("Did you forget to run the prepare step?")
            .expect_lacks("File operations:");
        assert_eq!(
            entries(e.path()),
            Vec::<String>::new(),
            "{mode} in an empty dir created files"
        );
    }
}

// ---------------------------------------------------------------------------------------
// C05 — file count above the open-file limit

/// Soft and hard limit 20, 64 files: prepare works (files are written one at a time),
/// run stops with exit 3 "need N open files ... the limit is 20", no "forgot prepare"
/// hint and no partial report.
#[test]
fn c05_file_count_above_hard_nofile_limit() {
    let d = scratch();
    let geo = ["--file-num=64", "--file-total-size=1M"];
    fileio_nofile(d.path(), 20, 20, &[&geo[..], &["prepare"]].concat()).expect_code(0);
    assert_eq!(entries(d.path()).len(), 64);
    let o = fileio_nofile(
        d.path(),
        20,
        20,
        &[&geo[..], &["--file-test-mode=rndrd", "--time=1", "run"]].concat(),
    );
    o.expect_code(3)
        .expect_contains("open files for --file-num=64")
        .expect_contains("the limit is 20")
        .expect_contains("ulimit -n")
        .expect_lacks("Did you forget")
        .expect_lacks("File operations:")
        .expect_lacks("errno = 24");
    let all = o.all();
    let n: u64 = all
        .split("need ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no 'need N open files' in\n{}", o.dump()));
    assert!(n >= 64, "need {n} open files for 64 files?");
}

/// Soft limit 20, hard limit 1024: run raises the soft limit itself and succeeds.
#[test]
fn c05_soft_nofile_limit_is_raised() {
    let d = scratch();
    let geo = ["--file-num=64", "--file-total-size=1M"];
    fileio(d.path(), &[&geo[..], &["prepare"]].concat()).expect_code(0);
    let js = d.path().join("r.json");
    let o = fileio_nofile(
        d.path(),
        20,
        1024,
        &[
            &geo[..],
            &[
                "--file-test-mode=rndrd",
                "--time=1",
                &format!("--json={}", js.display()),
                "run",
            ],
        ]
        .concat(),
    );
    o.expect_code(0).expect_contains("File operations:");
    let j = read_json(&js);
    assert_eq!(at_str(&j, "/status"), "ok");
    assert_eq!(at_u64(&j, "/job/files"), 64);
    assert!(at_u64(&j, "/read/ops") > 0);
}

// ---------------------------------------------------------------------------------------
// C06 — periodic fsync with several threads

/// Checks one C06 run: exit 0, status ok, and the fsync count is consistent: every
/// event is a read, a write or a periodic fsync, and fsync.ops = periodic fsyncs + the
/// end-of-test fsync of every file by every thread (sysbench's file_thread_done).
fn c06_check(o: &Out, js: &Path, threads: u64, files: u64, what: &str) {
    o.expect_code(0).expect_lacks("FATAL").expect_lacks("errno");
    let j = read_json(js);
    assert_eq!(at_str(&j, "/status"), "ok", "{what}");
    assert_eq!(at_u64(&j, "/job/threads"), threads, "{what}");
    let (ev, r, w, fs) = (
        at_u64(&j, "/events"),
        at_u64(&j, "/read/ops"),
        at_u64(&j, "/write/ops"),
        at_u64(&j, "/fsync/ops"),
    );
    assert!(w > 0, "{what}: no writes");
    assert!(ev >= r + w, "{what}: events {ev} < reads {r} + writes {w}");
    let periodic = ev - r - w;
    assert!(periodic > 0, "{what}: no periodic fsync in {w} writes");
    assert_eq!(
        fs,
        periodic + files * threads,
        "{what}: fsync.ops vs periodic fsync events {periodic} + end fsyncs"
    );
    let per_thread: u64 = j["threads"]
        .as_array()
        .expect("threads array")
        .iter()
        .map(|t| t["events"].as_u64().unwrap())
        .sum();
    assert_eq!(per_thread, ev, "{what}: per-thread events");
}

/// rndrw, default periodic fsync (every 100 requests), 1, 2 and 8 threads: all succeed.
#[test]
fn c06_periodic_fsync_rndrw_threads() {
    let d = scratch();
    let geo = ["--file-num=16", "--file-total-size=16M"];
    fileio(d.path(), &[&geo[..], &["prepare"]].concat()).expect_code(0);
    for t in [1u64, 2, 8] {
        let js = d.path().join(format!("rndrw-{t}.json"));
        let o = fileio(
            d.path(),
            &[
                &geo[..],
                &[
                    "--file-test-mode=rndrw",
                    &format!("--threads={t}"),
                    "--time=1",
                    &format!("--json={}", js.display()),
                    "run",
                ],
            ]
            .concat(),
        );
        c06_check(&o, &js, t, 16, &format!("rndrw threads={t}"));
        assert!(at_u64(&read_json(&js), "/read/ops") > 0);
    }
}

/// rndwr, async (io_uring) + O_DIRECT, periodic fsync, 1, 2 and 8 threads: all succeed.
#[test]
fn c06_periodic_fsync_async_direct_threads() {
    let d = scratch();
    let geo = ["--file-num=16", "--file-total-size=16M"];
    fileio(d.path(), &[&geo[..], &["prepare"]].concat()).expect_code(0);
    for t in [1u64, 2, 8] {
        let js = d.path().join(format!("async-{t}.json"));
        let o = fileio(
            d.path(),
            &[
                &geo[..],
                &[
                    "--file-test-mode=rndwr",
                    "--file-io-mode=async",
                    "--file-extra-flags=direct",
                    &format!("--threads={t}"),
                    "--time=1",
                    &format!("--json={}", js.display()),
                    "run",
                ],
            ]
            .concat(),
        );
        c06_check(&o, &js, t, 16, &format!("async direct threads={t}"));
        let j = read_json(&js);
        assert_eq!(j["job"]["direct"], true);
        assert_eq!(at_str(&j, "/job/engine"), "io_uring");
    }
}

// ---------------------------------------------------------------------------------------
// C07 — zero-filled write buffers on compressing storage

/// The default stays sysbench's (zeros, documented, recorded as data_pattern "zeros"):
/// no non-zero byte after prepare nor after a rndwr run.
#[test]
fn c07_default_data_is_zeros() {
    let d = scratch();
    let geo = ["--file-num=1", "--file-total-size=1M"];
    fileio(d.path(), &[&geo[..], &["prepare"]].concat()).expect_code(0);
    let f0 = d.path().join("test_file.0");
    let data = std::fs::read(&f0).unwrap();
    assert_eq!(data.len(), 1 << 20);
    assert_eq!(
        data.iter().filter(|&&b| b != 0).count(),
        0,
        "default prepare data is not zeros"
    );
    let j = rndwr_json(d.path(), &geo);
    let data = std::fs::read(&f0).unwrap();
    assert_eq!(
        data.iter().filter(|&&b| b != 0).count(),
        0,
        "default rndwr data is not zeros"
    );
    assert_eq!(at_str(&j, "/job/data_pattern"), "zeros");
    assert!(at_u64(&j, "/write/ops") > 0);
}

/// A 1-second `rndwr` run of the prepared set `geo` in `dir` (exit 0): its JSON result.
fn rndwr_json(dir: &Path, geo: &[&str]) -> serde_json::Value {
    let js = dir.join("r.json");
    let json = format!("--json={}", js.display());
    let run = ["--file-test-mode=rndwr", "--time=1", json.as_str(), "run"];
    fileio(dir, &[geo, &run[..]].concat()).expect_code(0);
    read_json(&js)
}

/// `--file-data=random`: the files are incompressible after prepare and after a rndwr
/// run (about 1/256 zero bytes, ~8 bits of entropy per byte), the prepared blocks are
/// all distinct, and the result records data_pattern "random".
#[test]
fn c07_random_data_is_incompressible() {
    let d = scratch();
    let geo = ["--file-num=1", "--file-total-size=1M", "--file-data=random"];
    fileio(d.path(), &[&geo[..], &["prepare"]].concat()).expect_code(0);
    let f0 = d.path().join("test_file.0");
    let check = |when: &str| {
        let data = std::fs::read(&f0).unwrap();
        assert_eq!(data.len(), 1 << 20, "{when}");
        let zeros = data.iter().filter(|&&b| b == 0).count();
        assert!(
            zeros < data.len() / 100,
            "{when}: {zeros} zero bytes of {}",
            data.len()
        );
        let h = entropy(&data);
        assert!(h > 7.9, "{when}: entropy {h} bits/byte");
        data
    };
    let data = check("after prepare");
    let blocks: HashSet<&[u8]> = data.chunks(16384).collect();
    assert_eq!(blocks.len(), 64, "prepare wrote repeated 16 KiB blocks");

    let j = rndwr_json(d.path(), &geo);
    check("after rndwr");
    assert_eq!(at_str(&j, "/job/data_pattern"), "random");
    assert!(at_u64(&j, "/write/ops") > 0);
}

// ---------------------------------------------------------------------------------------
// C08 — O_DIRECT with block sizes the device cannot take

/// On a 4096-byte-sector loop device (ext4), 2K direct blocks are refused before any
/// file is created (prepare and run), exit 2, naming 2048 and 4096; 4K works.
#[test]
fn c08_direct_block_below_4k_sector() {
    require_root("C08");
    let fs = loop_ext4(64 << 20, 4096);
    let dir = fs.dir();
    let bad = [
        "--file-num=1",
        "--file-total-size=1M",
        "--file-block-size=2K",
        "--file-extra-flags=direct",
        "--file-test-mode=rndrd",
        "--time=1",
    ];
    for cmd in ["run", "prepare"] {
        let o = fileio(dir, &[&bad[..], &[cmd]].concat());
        o.expect_code(2)
            .expect_contains("4096")
            .expect_contains("--file-block-size=2048")
            .expect_contains("direct-I/O alignment")
            .expect_lacks("File operations:");
        assert_eq!(
            entries(dir),
            Vec::<String>::new(),
            "{cmd} left files behind"
        );
    }

    let js = dir.join("r.json");
    let o = fileio(
        dir,
        &[
            "--file-num=1",
            "--file-total-size=1M",
            "--file-block-size=4K",
            "--file-extra-flags=direct",
            "--file-test-mode=rndrd",
            "--time=1",
            &format!("--json={}", js.display()),
            "prepare",
            "run",
        ],
    );
    o.expect_code(0).expect_contains("File operations:");
    let j = read_json(&js);
    assert_eq!(at_str(&j, "/status"), "ok");
    assert_eq!(j["job"]["direct"], true);
    assert_eq!(at_u64(&j, "/job/block_size_bytes"), 4096);
    assert!(at_u64(&j, "/read/ops") > 0);
    assert_eq!(size_of(&dir.join("test_file.0")), 1 << 20);
}

// ---------------------------------------------------------------------------------------
// C15 — the final fsync must be inside the timed window

/// seqwr with --file-fsync-freq=0: the end-of-test fsync is made once per written file
/// and counted (fsync.ops == files, fsyncs/s > 0); --file-fsync-end=off makes none.
#[test]
fn c15_end_fsync_counted() {
    let d = scratch();
    let geo = ["--file-num=2", "--file-total-size=8M"];
    fileio(d.path(), &[&geo[..], &["prepare"]].concat()).expect_code(0);
    let on = d.path().join("on.json");
    let o = fileio(
        d.path(),
        &[
            &geo[..],
            &[
                "--file-test-mode=seqwr",
                "--file-fsync-freq=0",
                "--time=1",
                &format!("--json={}", on.display()),
                "run",
            ],
        ]
        .concat(),
    );
    o.expect_code(0)
        .expect_contains("Calling fsync() at the end of test, Enabled.")
        .expect_lacks("fsyncs/s:                     0.00");
    let j = read_json(&on);
    assert_eq!(at_str(&j, "/status"), "ok");
    assert_eq!(j["job"]["fsync_end"], true);
    assert!(at_u64(&j, "/write/ops") > 0);
    assert_eq!(
        at_u64(&j, "/fsync/ops"),
        2,
        "one end fsync per file: {}",
        j["fsync"]
    );
    assert_eq!(
        at_u64(&j, "/events"),
        at_u64(&j, "/write/ops"),
        "fsync-freq=0 makes no periodic fsync events"
    );
    assert!(at_f64(&j, "/fsync/ops_per_s") > 0.0);

    let off = d.path().join("off.json");
    let o = fileio(
        d.path(),
        &[
            &geo[..],
            &[
                "--file-test-mode=seqwr",
                "--file-fsync-freq=0",
                "--file-fsync-end=off",
                "--time=1",
                &format!("--json={}", off.display()),
                "run",
            ],
        ]
        .concat(),
    );
    o.expect_code(0)
        .expect_contains("fsyncs/s:                     0.00");
    let j = read_json(&off);
    assert_eq!(at_str(&j, "/status"), "ok");
    assert_eq!(j["job"]["fsync_end"], false);
    assert!(at_u64(&j, "/write/ops") > 0);
    assert_eq!(
        at_u64(&j, "/fsync/ops"),
        0,
        "--file-fsync-end=off: {}",
        j["fsync"]
    );
}

// ---------------------------------------------------------------------------------------
// C19 — O_DIRECT on a filesystem that refuses it

/// On ramfs, direct prepare (cwd = the mount, or --file-dir) and direct run exit 3 with
/// "ramfs ... does not support O_DIRECT" and leave the directory as it was (no probe
/// file, no test file, no --file-dir it created). Buffered prepare+run works there
/// (ramfs reports no capacity) and the result flags the memory filesystem.
#[test]
fn c19_direct_on_ramfs() {
    require_root("C19");
    let fs = Mount::ramfs();
    let mnt = fs.dir();
    let geo = [
        "--file-num=1",
        "--file-total-size=256K",
        "--file-extra-flags=direct",
    ];

    let o = fileio(mnt, &[&geo[..], &["prepare"]].concat());
    o.expect_code(3)
        .expect_contains("does not support O_DIRECT")
        .expect_contains("ramfs");
    assert_eq!(entries(mnt), Vec::<String>::new());

    let dir_arg = format!("--file-dir={}", mnt.display());
    let o = fileio(Path::new("/"), &[&geo[..], &[&dir_arg, "prepare"]].concat());
    o.expect_code(3)
        .expect_contains("does not support O_DIRECT")
        .expect_contains(&mnt.display().to_string());
    assert_eq!(entries(mnt), Vec::<String>::new());

    let sub = mnt.join("sub");
    let o = fileio(
        Path::new("/"),
        &[
            &geo[..],
            &[&format!("--file-dir={}", sub.display()), "prepare"],
        ]
        .concat(),
    );
    o.expect_code(3)
        .expect_contains("does not support O_DIRECT");
    assert_eq!(
        entries(mnt),
        Vec::<String>::new(),
        "the --file-dir prepare created was left behind"
    );

    let o = fileio(
        mnt,
        &[&geo[..], &["--file-test-mode=rndrd", "--time=1", "run"]].concat(),
    );
    o.expect_code(3)
        .expect_contains("does not support O_DIRECT")
        .expect_lacks("File operations:");
    assert_eq!(entries(mnt), Vec::<String>::new());

    // buffered works on ramfs and is flagged as memory
    let js_dir = scratch();
    let js = js_dir.path().join("r.json");
    let o = fileio(
        mnt,
        &[
            "--file-num=1",
            "--file-total-size=256K",
            "--file-test-mode=rndrd",
            "--time=1",
            &format!("--json={}", js.display()),
            "prepare",
            "run",
            "cleanup",
        ],
    );
    o.expect_code(0);
    let j = read_json(&js);
    assert_eq!(at_str(&j, "/page_cache/memory_fs"), "ramfs");
    let ids = warning_ids(&j);
    assert!(ids.contains(&"target.memory_fs"), "warnings: {ids:?}");
    assert_eq!(entries(mnt), Vec::<String>::new());
}

// ---------------------------------------------------------------------------------------
// C22 — page cache inflating buffered results

/// An 8 KiB buffered file set: the run warns before starting, prints the page-cache
/// notes after the report, and the JSON says fits_in_ram with warning id
/// page_cache.fits_in_ram. --notes=off removes the text only; direct I/O is not flagged.
#[test]
fn c22_page_cache_fits_in_ram() {
    let d = scratch();
    let geo = [
        "--file-num=1",
        "--file-total-size=8K",
        "--file-block-size=8K",
    ];
    fileio(d.path(), &[&geo[..], &["prepare"]].concat()).expect_code(0);
    let js = d.path().join("r.json");
    let run = [&geo[..], &["--file-test-mode=rndrd", "--time=1"]].concat();

    let o = fileio(
        d.path(),
        &[&run[..], &[&format!("--json={}", js.display()), "run"]].concat(),
    );
    o.expect_code(0);
    assert!(
        o.stderr.contains("fits in RAM"),
        "no page-cache warning on stderr\n{}",
        o.dump()
    );
    assert!(
        o.stderr.contains("--file-extra-flags=direct"),
        "the warning should suggest direct I/O\n{}",
        o.dump()
    );
    let notes = o
        .stdout
        .find("iomark notes (not part of sysbench's report):")
        .unwrap_or_else(|| panic!("no notes block\n{}", o.dump()));
    assert!(
        notes > o.stdout.find("Threads fairness:").expect("report"),
        "notes must follow the report"
    );
    // the share of reads from memory, said by its warning in the notes
    assert!(
        o.stdout[notes..].contains("WARNING [page_cache.reads_from_memory]: the test read "),
        "{}",
        o.dump()
    );
    // said once, before the run on stderr; the notes refer to it by its id and figures
    // (the fresh-user pass saw the same sentence twice)
    assert_eq!(o.stdout.matches("fits in RAM").count(), 0, "{}", o.dump());
    assert_eq!(o.stderr.matches("fits in RAM").count(), 1, "{}", o.dump());
    assert!(
        o.stdout[notes..].contains(
            "iomark: WARNING [page_cache.fits_in_ram]: as warned before the run (the buffered file set, 8.0 KiB, is smaller than RAM, "
        ),
        "{}",
        o.dump()
    );
    let j = read_json(&js);
    assert_eq!(at_str(&j, "/status"), "ok");
    assert_eq!(j["page_cache"]["fits_in_ram"], true);
    assert_eq!(j["page_cache"]["buffered"], true);
    assert_eq!(at_u64(&j, "/page_cache/file_set_bytes"), 8192);
    assert!(at_u64(&j, "/page_cache/mem_total_bytes") > 8192);
    let ids = warning_ids(&j);
    assert!(ids.contains(&"page_cache.fits_in_ram"), "warnings: {ids:?}");

    let o = fileio(
        d.path(),
        &[
            &run[..],
            &["--notes=off", &format!("--json={}", js.display()), "run"],
        ]
        .concat(),
    );
    o.expect_code(0)
        .expect_lacks("fits in RAM")
        .expect_lacks("iomark notes");
    assert_eq!(
        read_json(&js)["page_cache"]["fits_in_ram"],
        true,
        "--notes=off changes only the text"
    );

    let o = fileio(
        d.path(),
        &[
            &run[..],
            &[
                "--file-extra-flags=direct",
                &format!("--json={}", js.display()),
                "run",
            ],
        ]
        .concat(),
    );
    o.expect_code(0).expect_lacks("fits in RAM");
    let j = read_json(&js);
    assert_eq!(j["page_cache"]["buffered"], false);
    assert_eq!(j["page_cache"]["fits_in_ram"], false);
    assert!(j["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|w| w["id"] != "page_cache.fits_in_ram"));

    // mmap with direct: the mapping goes through the page cache anyway, so it is
    // flagged (stderr + JSON) and treated as buffered, never as a direct-I/O result
    let o = fileio(
        d.path(),
        &[
            &run[..],
            &[
                "--file-io-mode=mmap",
                "--file-extra-flags=direct",
                &format!("--json={}", js.display()),
                "run",
            ],
        ]
        .concat(),
    );
    o.expect_code(0)
        .expect_contains("does not bypass it")
        .expect_contains("fits in RAM");
    let j = read_json(&js);
    assert_eq!(j["page_cache"]["buffered"], true);
    let ids = warning_ids(&j);
    assert!(
        ids.contains(&"page_cache.mmap_ignores_direct") && ids.contains(&"page_cache.fits_in_ram"),
        "warnings: {ids:?}"
    );
}

// ---------------------------------------------------------------------------------------
// C23 — ENOSPC during prepare / layout

/// 128M on a 32 MiB ext4 loop filesystem: prepare refuses up front, exit 3, with the
/// needed and available byte counts, and writes nothing (also no --file-dir left).
#[test]
fn c23_prepare_checks_free_space() {
    require_root("C23");
    let fs = loop_ext4(32 << 20, 512);
    let dir = fs.dir();
    let avail = avail_bytes(dir);
    assert!(avail < 128 << 20);
    let o = fileio(dir, &["--file-num=4", "--file-total-size=128M", "prepare"]);
    o.expect_code(3)
        .expect_contains("134217728")
        .expect_contains(&avail.to_string())
        .expect_contains("free space")
        .expect_lacks("Creating file");
    assert_eq!(entries(dir), Vec::<String>::new());
    assert_eq!(avail_bytes(dir), avail, "prepare used space");

    let sub = dir.join("x");
    let o = fileio(
        Path::new("/"),
        &[
            "--file-num=4",
            "--file-total-size=128M",
            &format!("--file-dir={}", sub.display()),
            "prepare",
        ],
    );
    o.expect_code(3)
        .expect_contains("134217728")
        .expect_contains("free space");
    assert_eq!(
        entries(dir),
        Vec::<String>::new(),
        "the --file-dir prepare created was left behind"
    );
}

// ---------------------------------------------------------------------------------------
// C27 — app-level IOPS vs device-level counters with fsync

/// rndwr, O_DIRECT, fsync after every write, 400 events on one file: the result keeps
/// app-level writes (200 x 4 KiB) and fsyncs (200 periodic + 1 at the end) apart, and
/// device counters are separate keys.
#[test]
fn c27_app_level_writes_and_fsyncs_separate() {
    let d = scratch();
    let geo = [
        "--file-num=1",
        "--file-total-size=4M",
        "--file-block-size=4K",
    ];
    fileio(d.path(), &[&geo[..], &["prepare"]].concat()).expect_code(0);
    let js = d.path().join("r.json");
    let o = fileio(
        d.path(),
        &[
            &geo[..],
            &[
                "--file-test-mode=rndwr",
                "--file-extra-flags=direct",
                "--file-fsync-freq=1",
                "--events=400",
                "--time=0",
                &format!("--json={}", js.display()),
                "run",
            ],
        ]
        .concat(),
    );
    o.expect_code(0)
        .expect_contains("writes/s:")
        .expect_contains("fsyncs/s:");
    let j = read_json(&js);
    assert_eq!(at_str(&j, "/status"), "ok");
    assert_eq!(at_u64(&j, "/events"), 400);
    assert_eq!(at_u64(&j, "/read/ops"), 0);
    assert_eq!(at_u64(&j, "/write/ops"), 200);
    assert_eq!(at_u64(&j, "/write/bytes"), 200 * 4096);
    assert_eq!(
        at_u64(&j, "/fsync/ops"),
        201,
        "200 periodic fsyncs + 1 end fsync: {}",
        j["fsync"]
    );
    assert_eq!(at_u64(&j, "/fsync/lat/count"), 200, "periodic fsync events");
    assert_eq!(at_u64(&j, "/lat/count"), 400);
    assert_eq!(at_u64(&j, "/page_cache/app_written_bytes"), 200 * 4096);
    let pc = j["page_cache"].as_object().unwrap();
    assert!(
        pc.contains_key("device_written_bytes") && pc.contains_key("device_read_bytes"),
        "device counters: {pc:?}"
    );
}

// ---------------------------------------------------------------------------------------
// The same cases through `iomark run` (fio-style jobs): checked before any file exists

/// C23 for `run`: a 128 MiB job on a 64 MiB filesystem is refused with both sizes,
/// exit 3, and no file is created (fio filled the filesystem and left a file behind).
#[test]
fn c23_run_checks_free_space_before_layout() {
    require_root("C23");
    let fs = loop_ext4(64 << 20, 512);
    let dir = fs.dir();
    let d = format!("--directory={}", dir.display());
    let o = run(
        dir,
        &["--name=t", &d, "--size=128m", "--bs=1m", "--rw=randread"],
    );
    o.expect_code(3)
        .expect_contains("not enough free space")
        .expect_contains("134217728 bytes needed");
    assert_eq!(entries(dir), Vec::<String>::new(), "run created files");
}

/// C19 for `run`: direct=1 on ramfs is refused before the layout, directory unchanged.
#[test]
fn c19_run_direct_on_ramfs_refused_before_layout() {
    require_root("C19");
    let fs = Mount::ramfs();
    let mnt = fs.dir();
    let d = format!("--directory={}", mnt.display());
    let o = run(
        mnt,
        &[
            "--name=t",
            &d,
            "--size=256k",
            "--bs=4k",
            "--rw=randread",
            "--direct=1",
        ],
    );
    o.expect_code(3).expect_contains("O_DIRECT");
    assert_eq!(entries(mnt), Vec::<String>::new());
}

/// C08/C12 for `run`: bs=3k and bsrange up to 10k with direct=1 on a 4096-byte-sector
/// device: exit 2 naming the size and the alignment, before anything is created.
#[test]
fn c08_run_direct_block_below_4k_sector_refused_before_layout() {
    require_root("C08");
    let fs = loop_ext4(64 << 20, 4096);
    let dir = fs.dir();
    let d = format!("--directory={}", dir.display());
    let o = run(
        dir,
        &[
            "--name=t",
            &d,
            "--size=2m",
            "--bs=3k",
            "--rw=randread",
            "--direct=1",
        ],
    );
    o.expect_code(2)
        .expect_contains("bs=3072")
        .expect_contains("4096-byte direct-I/O alignment");
    assert_eq!(entries(dir), Vec::<String>::new(), "files created");
    // bsrange=4k-10k: sizes are multiples of the minimum (10k rounds down to 8k, said),
    // so every request is aligned and the run works (fio sent 10240 and failed, EINVAL)
    let log = format!("--write_lat_log={}/l", dir.display());
    let o = run(
        dir,
        &[
            "--name=t",
            &d,
            "--size=2m",
            "--bsrange=4k-10k",
            "--rw=randread",
            "--direct=1",
            &log,
        ],
    );
    o.expect_code(0).expect_contains(
        "10240 is not a multiple of 4096; issued sizes are multiples of 4096 up to 8192",
    );
    let text = std::fs::read_to_string(dir.join("l_lat.1.log")).unwrap();
    assert!(text.lines().count() > 0);
    for l in text.lines() {
        let bs: u64 = l.split(',').nth(3).unwrap().trim().parse().unwrap();
        assert!(bs == 4096 || bs == 8192, "issued {bs}");
    }
}

/// C15: the end-of-test sync is inside the measured time and the summary says how long
/// it took. The test-only fault `fsync:slow@1` makes that sync last 300 ms longer, so
/// `total time` must grow by at least that much (a 1 s run reads >= 1.3 s), and the
/// `end fsync:` note must show at least 300 ms; with `--file-fsync-end=off` no sync and
/// no note.
#[test]
fn c15_end_fsync_duration_is_timed_and_shown() {
    let d = scratch();
    let geo = ["--file-num=1", "--file-total-size=8M"];
    fileio(d.path(), &[&geo[..], &["prepare"]].concat()).expect_code(0);
    let run = |end: &str| {
        Iomark::new()
            .dir(d.path())
            .arg("fileio")
            .args(geo)
            .args([
                "--file-test-mode=seqwr",
                "--file-fsync-freq=0",
                "--time=1",
                &format!("--file-fsync-end={end}"),
                "run",
            ])
            .fault("fsync:slow@1")
            .run()
    };
    let total = |o: &Out| -> f64 {
        let l = o
            .stdout
            .lines()
            .find(|l| l.contains("total time:"))
            .unwrap();
        l.split_whitespace()
            .last()
            .unwrap()
            .trim_end_matches('s')
            .parse()
            .unwrap()
    };
    let on = run("on");
    on.expect_code(0);
    let note = on
        .all()
        .lines()
        .find(|l| l.trim_start().starts_with("end fsync:"))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no end fsync note\n{}", on.dump()));
    let ms: f64 = note.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(
        ms >= 300.0,
        "end fsync took at least the injected 300 ms: {note}"
    );
    assert!(
        total(&on) >= 1.3,
        "the sync is inside total time: {}",
        on.stdout
    );
    let off = run("off");
    off.expect_code(0).expect_lacks("end fsync:");
    assert!(total(&off) < 1.3, "no sync, no delay: {}", off.stdout);
}
