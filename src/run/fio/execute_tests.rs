//! Jobs parsed from fio's command line and run in process by [`execute`] with exact
//! counts: the null engine's I/Os, and a psync write-then-read group (fsync, end_fsync,
//! stonewall, loops, numjobs, group_reporting) on a small file. tests/it/run/ runs
//! jobs through the binary.

use super::execute;
use crate::job::fio::parse_args_with;
use std::sync::atomic::AtomicBool;

#[test]
fn null_engine_run_counts_exact_ios() {
    let c = parse_args_with(
        &[
            "--name=n",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=4m",
            "--iodepth=4",
        ]
        .map(String::from),
        &|_| None,
    )
    .unwrap();
    let stop = AtomicBool::new(false);
    let out = execute(&c, &stop, &|_| {}, &super::status::Board::new(false), None).unwrap();
    assert_eq!(out.jobs.len(), 1);
    assert_eq!(out.jobs[0].stats.read.ios, 1024);
    assert_eq!(out.jobs[0].stats.read.bytes, 4 << 20);
    assert_eq!(out.jobs[0].stats.write.ios, 0);
    assert_eq!(out.jobs[0].stats.read.clat.count(), 1024);
}

#[test]
fn psync_run_on_small_file_moves_exact_bytes() {
    let d = tempfile::tempdir().unwrap();
    let dir = format!("--directory={}", d.path().display());
    let c = parse_args_with(
        &[
            &dir,
            "--name=w",
            "--rw=write",
            "--bs=4k",
            "--size=256k",
            "--fsync=16",
            "--end_fsync=1",
            "--name=r",
            "--stonewall",
            "--rw=randread",
            "--bs=8k",
            "--size=256k",
            "--loops=2",
            "--numjobs=2",
            "--group_reporting",
        ]
        .map(String::from),
        &|_| None,
    )
    .unwrap();
    let stop = AtomicBool::new(false);
    let out = execute(&c, &stop, &|_| {}, &super::status::Board::new(false), None).unwrap();
    assert_eq!(out.jobs.len(), 2);
    let w = &out.jobs[0];
    assert_eq!((w.stats.write.ios, w.stats.write.bytes), (64, 262_144));
    // 64 writes / 16: 4 fsyncs; end_fsync's is timed, not a sync I/O (fio 3.33)
    assert_eq!(w.stats.sync.ios, 4);
    assert!(w.stats.end_sync_ns > 0);
    assert_eq!(
        std::fs::metadata(d.path().join("w.0.0")).unwrap().len(),
        262_144
    );
    let r = &out.jobs[1];
    assert_eq!(r.stats.threads, 2);
    assert_eq!(r.groupid, 1);
    assert_eq!(
        (r.stats.read.ios, r.stats.read.bytes),
        (2 * 64, 2 * 2 * 262_144)
    );
}
