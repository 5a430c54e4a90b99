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
    let out = execute(
        &c,
        &stop,
        &|_| {},
        &super::status::Board::new(false),
        (None, None, false),
    )
    .unwrap();
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
    // the hook before the first I/O: told once, the reported jobs as the report has
    // them (the second job's two threads in one entry, its own group), nothing done
    let seen = std::sync::Mutex::new(Vec::new());
    let started = |jobs: Vec<crate::result::job::JobRecord>, lines: Vec<String>| {
        seen.lock().unwrap().push((jobs, lines));
    };
    let hooks = (None, Some(&started as &super::Started<'_>), false);
    let out = execute(&c, &stop, &|_| {}, &super::status::Board::new(false), hooks).unwrap();
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), 1);
    let (before, lines) = &seen[0];
    assert_eq!(lines, &out.layout_lines);
    assert_eq!(before.len(), out.jobs.len());
    for (b, o) in before.iter().zip(&out.jobs) {
        assert_eq!(
            (&b.job.name, b.stats.threads, b.groupid, &b.engine),
            (&o.job.name, o.stats.threads, o.groupid, &o.engine)
        );
        assert_eq!((b.stats.read.ios, b.stats.write.ios), (0, 0));
    }
    assert_eq!(out.jobs.len(), 2);
    let w = &out.jobs[0];
    assert_eq!((w.stats.write.ios, w.stats.write.bytes), (64, 262_144));
    // 64 writes / 16: 3 fsyncs, none after the last write (fio 3.33: 64 writes, 3
    // syncs); end_fsync's is timed, not a sync I/O
    assert_eq!(w.stats.sync.ios, 3);
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
