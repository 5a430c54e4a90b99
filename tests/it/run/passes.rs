//! `iomark run` passes over the file set: a pass moves each region's whole blocks only
//! (fio: `bs=3k` over 1 MiB is 341 requests), and a buffered job with several passes
//! (`loops`, `time_based`) drops the files' page cache at every new pass, as fio's
//! re-open with `invalidate=1` does, so later passes are read from the device too.

use crate::util::*;

#[test]
fn a_pass_moves_whole_blocks_only() {
    let d = scratch();
    for rw in ["read", "write", "randread", "randwrite"] {
        let o = run(
            d.path(),
            &[
                "--output-format=json",
                "--name=t",
                &format!("--rw={rw}"),
                "--bs=3k",
                "--size=1m",
                "--filename=f",
            ],
        );
        let v = o.ok().json();
        let j = &v["jobs"][0];
        let ios =
            j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap();
        let bytes =
            j["read"]["io_bytes"].as_u64().unwrap() + j["write"]["io_bytes"].as_u64().unwrap();
        // 1 MiB / 3 KiB = 341.33: 341 whole blocks, as fio 3.33 issues
        assert_eq!(ios, 341, "{rw}");
        assert_eq!(bytes, 341 * 3072, "{rw}");
        assert_eq!(
            std::fs::metadata(d.path().join("f")).unwrap().len(),
            1 << 20,
            "{rw}"
        );
    }
}

/// Sectors read from a block device so far (`/sys/block/NAME/stat` field 3).
fn sectors_read(dev: &str) -> u64 {
    let s = std::fs::read_to_string(format!("/sys/block/{dev}/stat")).unwrap();
    s.split_whitespace().nth(2).unwrap().parse().unwrap()
}

#[test]
fn every_pass_of_a_buffered_job_reads_the_device() {
    let Some(fs) = LoopFs::small(64, "ext4") else {
        return;
    };
    let dev = fs.dev().name();
    let f = fs.dir().join("f");
    // lay the file out and write it back, so the first pass also starts uncached
    let o = run(
        fs.dir(),
        &[
            "--name=w",
            "--rw=write",
            "--bs=1m",
            "--size=8m",
            "--end_fsync=1",
            "--filename=f",
        ],
    );
    o.ok();
    let args = |loops: &str| {
        vec![
            "--output-format=json".to_string(),
            "--name=r".into(),
            "--rw=read".into(),
            "--bs=128k".into(),
            "--size=8m".into(),
            format!("--loops={loops}"),
            format!("--filename={}", f.display()),
        ]
    };
    let a = sectors_read(&dev);
    let o = run(
        fs.dir(),
        &args("4").iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let v = o.ok().json();
    let b = sectors_read(&dev);
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 32u64 << 20);
    // four passes of 8 MiB = 65536 sectors from the device (readahead may add a little);
    // without the per-pass invalidation only the first pass (16384) reaches it
    let read = b - a;
    assert!(
        read >= 4 * 16384,
        "{read} sectors read for 4 passes of 8 MiB"
    );
    // direct=1 needs no invalidation: the same count, through O_DIRECT
    let mut d = args("2");
    d.push("--direct=1".into());
    let a = sectors_read(&dev);
    let o = run(fs.dir(), &d.iter().map(String::as_str).collect::<Vec<_>>());
    o.ok();
    assert!(sectors_read(&dev) - a >= 2 * 16384);
}

/// A percentage `offset` is of the file's size before the layout and aligned up to the
/// smallest block size (fio 3.33's get_start_offset): on a new file it is 0 (the file is
/// 8 MiB); on the existing 8 MiB file 1 % is byte 83886, so the region starts at 86016
/// (21 blocks of 4 KiB) and the file grows to 8 MiB + 86016, as fio's does.
#[test]
fn percentage_offset_is_aligned_to_the_block_size() {
    let d = scratch();
    let args = [
        "--output-format=json",
        "--name=o",
        "--rw=read",
        "--bs=4k",
        "--size=8m",
        "--offset=1%",
        "--filename=f",
    ];
    let o = run(d.path(), &args);
    let v = o.ok().json();
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 8u64 << 20);
    let len = || std::fs::metadata(d.path().join("f")).unwrap().len();
    assert_eq!(len(), 8 << 20);
    let o = run(d.path(), &args);
    assert_eq!(o.ok().json()["jobs"][0]["read"]["io_bytes"], 8u64 << 20);
    assert_eq!(len(), (8 << 20) + 86016);
}

/// `fadvise_hint` (fio's default 1): a random-mode job advises POSIX_FADV_RANDOM, which
/// turns read-ahead off, so the device serves only the blocks asked for; a sequential
/// job (or `fadvise_hint=0`) keeps read-ahead. `percentage_random=0` makes the random
/// job's offsets sequential, so read-ahead would show if the advice were missing:
/// 64 reads of 4 KiB = 512 sectors (plus a few of metadata) against far more.
#[test]
fn fadvise_hint_random_turns_read_ahead_off_like_fio() {
    let Some(fs) = LoopFs::small(64, "ext4") else {
        return;
    };
    let dev = fs.dev().name();
    let w = [
        "--name=w",
        "--rw=write",
        "--bs=1m",
        "--size=16m",
        "--end_fsync=1",
        "--filename=f",
    ];
    run(fs.dir(), &w).ok();
    let mut got = Vec::new();
    for (rw, hint) in [
        ("randread", "1"),
        ("randread", "0"),
        ("read", "1"),
        ("read", "random"),
    ] {
        let a = sectors_read(&dev);
        let o = run(
            fs.dir(),
            &[
                "--output-format=json",
                "--name=r",
                &format!("--rw={rw}"),
                "--percentage_random=0",
                "--bs=4k",
                "--size=16m",
                "--number_ios=64",
                &format!("--fadvise_hint={hint}"),
                "--filename=f",
            ],
        );
        let v = o.ok().json();
        assert_eq!(v["jobs"][0]["read"]["total_ios"], 64, "{rw} {hint}");
        got.push(sectors_read(&dev) - a);
    }
    let why = format!("sectors read (randread/1, randread/0, read/1, read/random): {got:?}");
    assert!(got[0] <= 640 && got[3] <= 640, "advised random: {why}");
    assert!(
        got[1] >= 2 * 512 && got[2] >= 2 * 512,
        "read-ahead on: {why}"
    );
}

/// A read job on files iomark has just laid out reads them from the device, as fio
/// does: the layout is fsynced (fio's `create_fsync`, default 1) before the job's
/// `invalidate` drops the page cache — dirty pages cannot be dropped, so without the
/// fsync the first run over a new file set read memory (a fresh-user test saw 10×
/// fio's IOPS). 8 MiB read = 16384 sectors from the loop device.
#[test]
fn a_new_file_set_is_read_from_the_device_like_fio() {
    let Some(fs) = LoopFs::small(64, "ext4") else {
        return;
    };
    let dev = fs.dev().name();
    let a = sectors_read(&dev);
    let o = run(
        fs.dir(),
        &[
            "--output-format=json",
            "--name=r",
            "--rw=read",
            "--bs=1m",
            "--size=8m",
            "--filename=fresh",
        ],
    );
    let v = o.ok().json();
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 8u64 << 20);
    let got = sectors_read(&dev) - a;
    assert!(
        got >= 16384,
        "sectors read from the device: {got}, want >= 16384"
    );
    // create_fsync=0 is fio's key to skip that fsync: accepted, the job runs
    let o = run(
        fs.dir(),
        &[
            "--output-format=json",
            "--name=r",
            "--rw=read",
            "--bs=1m",
            "--size=8m",
            "--create_fsync=0",
            "--filename=fresh2",
        ],
    );
    let v = o.ok().json();
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 8u64 << 20);
}
