use super::*;
use crate::stats::job::JobStats;
use crate::stats::EventKind;

fn fileio_result(s: Threads) -> RunResult {
    // a random-read fileio job (built as mark builds its jobs, job/presets.rs), with
    // sysbench's default --percentile=95
    use crate::job::presets::{fileio_run, Op, Pattern, Slot, Test};
    let slot = Slot {
        pattern: Pattern::Rnd,
        block: 16 << 10,
        qd: 1,
        threads: 1,
    };
    let mut f = fileio_run(&Test { slot, op: Op::Read }, 2 << 30, 10, ".".as_ref());
    f.settings.percentile = 95;
    f.settings.argv = vec!["--file-test-mode=rndrd".into(), "run".into()];
    let mut i = Inputs::new("fileio", &f.settings.argv, Status::Ok);
    i.summary = JobInfo::of_fileio(&f, 1);
    i.recorded = Recorded::fileio(EffectiveJob::of_fileio(&f), s, f.settings.percentile);
    build(i)
}

#[test]
fn units_and_formulas() {
    let mut t = JobStats::thread(false);
    for _ in 0..4 {
        t.event(EventKind::Read, 1_000_000, false);
        t.io_done(EventKind::Read, 1 << 20);
    }
    t.fsync_done();
    let r = fileio_result(Threads {
        period_s: 2.0,
        total_time_s: 2.5,
        threads: vec![t.settled()],
        ..Threads::default()
    });
    assert_eq!(r.read.ops, 4);
    assert_eq!(r.read.iops, 2.0);
    assert_eq!(r.read.bw_bytes_per_s, 2.0 * 1048576.0);
    assert_eq!(r.read.bw_mib_per_s, 2.0);
    assert_eq!(r.read.bw_mb_per_s, 2.097152);
    assert_eq!(r.fsync.ops_per_s, 0.5);
    assert_eq!(r.elapsed_s, 2.5);
    assert_eq!(r.lat.count, 4);
    assert_eq!(r.lat.min_ns, 1_000_000);
    assert!(r.lat.percentiles_ns.contains_key("99.9"));
    assert!(r.lat.percentiles_ns.contains_key("95"));
    let text = serde_json::to_string(&r).unwrap();
    let back: RunResult = serde_json::from_str(&text).unwrap();
    assert_eq!(back, r);
    // schema 2: the one job, its histogram kept exactly
    assert_eq!(r.schema_version, 2);
    let j = &r.jobs[0];
    assert_eq!((j.read.ios, j.read.bytes, j.sync.ios), (4, 4 << 20, 1));
    assert_eq!(j.read.lat.count, 4);
    assert_eq!(j.read.lat.histogram, r.read.lat.histogram);
    assert_eq!(j.job.rw, "randread");
    assert_eq!(r.threads[0].reads, 4);
}

#[test]
fn fio_records_give_totals_phases_and_jobs() {
    let mut rec = JobRecord {
        job: EffectiveJob {
            name: "a".into(),
            engine: "io_uring".into(),
            rw: "randread".into(),
            bs_read: job::BlockSizeSpec::fixed(4096),
            reap_spin_ns: Some(5000),
            ..EffectiveJob::default()
        },
        engine: "psync".into(),
        ..JobRecord::default()
    };
    rec.stats.threads = 1;
    rec.stats.runtime_ns = 2_000_000_000;
    rec.stats.read.ios = 10;
    rec.stats.read.bytes = 40960;
    for ns in 1..=10 {
        rec.stats.read.lat.add(ns * 1000);
        rec.stats.read.clat.add(ns * 1000);
    }
    let mut b = rec.clone();
    b.groupid = 1;
    let mut i = Inputs::new("run", &[], Status::Ok);
    i.recorded = Recorded::fio(vec![rec, b]);
    let r = build(i);
    // two stonewall groups of 2 s each
    assert_eq!(r.period_s, 4.0);
    assert_eq!((r.read.ops, r.read.iops, r.events), (20, 5.0, 20));
    assert_eq!(r.lat.count, 20);
    assert_eq!(r.phases.len(), 2);
    assert_eq!(r.phases[0].name, "a read");
    assert_eq!(
        r.phases[0].notes[0],
        "engine=psync bs=4096 iodepth=0 threads=1 direct=false rw=randread"
    );
    // the fallback ran psync: no reap-spin note, one warning
    assert_eq!(r.phases[0].notes.len(), 2);
    assert_eq!(r.warnings.len(), 1);
    assert_eq!(r.warnings[0].id, "engine.fallback");
    assert_eq!(r.jobs.len(), 2);
    assert_eq!(r.jobs[1].groupid, 1);
    assert_eq!(r.jobs[0].read.clat.count, 10);
    assert_eq!(r.jobs[0].read.clat.mean(), 5500.0);
    let back: RunResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back.jobs, r.jobs);
}

#[test]
fn phase_commands_count_events_and_keep_totals() {
    let mut i = Inputs::new("tree", &[], Status::Interrupted);
    i.phases = vec![
        Phase::new("create_write", 5, 500, 1.0),
        Phase::new("rmdir", 2, 0, 1.0),
    ];
    i.elapsed_s = 3.0;
    let write = OpStats {
        ops: 5,
        ..OpStats::default()
    };
    i.recorded = Recorded::totals(OpStats::default(), write, None);
    let r = build(i);
    assert_eq!((r.events, r.period_s, r.write.ops), (7, 3.0, 5));
    assert_eq!(r.status, Status::Interrupted);
    assert!(r.jobs.is_empty() && r.series.is_none());
}

#[test]
fn a_run_with_no_job_rates_over_no_time_and_nothing_measured_over_the_elapsed() {
    let mut i = Inputs::new("run", &[], Status::Failed);
    i.elapsed_s = 3.0;
    i.recorded = Recorded::fio(vec![]);
    let r = build(i.clone());
    assert_eq!((r.period_s, r.events, r.read.ops), (0.0, 0, 0));
    assert!(r.jobs.is_empty() && r.threads.is_empty());
    i.recorded = Recorded::default();
    assert_eq!(
        build(i).period_s,
        3.0,
        "nothing measured: over the elapsed time"
    );
}

#[test]
fn a_fileio_record_is_its_threads_merged_and_built_jobs_follow_the_records() {
    let mut t = JobStats::thread(false);
    t.event(EventKind::Write, 2_000, false);
    t.io_done(EventKind::Write, 4096);
    let threads = Threads {
        period_s: 1.0,
        total_time_s: 1.0,
        threads: vec![t.clone(), t],
        ..Threads::default()
    };
    let rec = Recorded::fileio(EffectiveJob::default(), threads, 0);
    assert_eq!(rec.jobs.len(), 1);
    assert_eq!(
        (rec.jobs[0].stats.threads, rec.jobs[0].stats.write.ios),
        (2, 2)
    );
    let mut rec = Recorded::fio(vec![JobRecord::default()]);
    rec.built = vec![JobResult {
        groupid: 7,
        ..JobResult::default()
    }];
    let r = build({
        let mut i = Inputs::new("run", &[], Status::Ok);
        i.recorded = rec;
        i
    });
    assert_eq!(r.jobs.iter().map(|j| j.groupid).collect::<Vec<_>>(), [0, 7]);
}

/// A fileio run of `ios` requests of `bs` bytes each `lat_ns` long over `secs`, its job
/// named `name`: queued (`qd` > 1: the event is the submission, 1 µs, and the per-I/O
/// latency is the completion's) or synchronous.
fn fileio_run(name: &str, write: bool, (ios, bs, lat_ns): (u64, u64, u64), qd: u32) -> Recorded {
    let kind = if write {
        EventKind::Write
    } else {
        EventKind::Read
    };
    let mut t = JobStats::thread(false);
    for _ in 0..ios {
        t.event(kind, if qd > 1 { 1_000 } else { lat_ns }, qd > 1);
        if qd > 1 {
            t.clat_done(kind, lat_ns);
        }
        t.io_done(kind, bs);
    }
    let threads = Threads {
        period_s: 2.0,
        total_time_s: 2.0,
        threads: vec![t.settled()],
        ..Threads::default()
    };
    let job = EffectiveJob {
        name: name.into(),
        ..EffectiveJob::default()
    };
    Recorded::fileio(job, threads, 0)
}

/// mark's result from its tests' records: one job per test under sysbench's counting,
/// each direction's totals over the tests that moved data that way (IOPS = requests /
/// those tests' seconds, MB/s = bytes / s / 10^6, MiB/s = bytes / s / 2^20), the
/// per-I/O latency (the completion's for queued requests, not the submission's), the
/// time breakdown per test named after it, the period every test's seconds.
#[test]
fn separate_runs_give_one_job_each_and_per_io_totals_over_their_own_seconds() {
    let mut i = Inputs::new("mark", &[], Status::Ok);
    i.recorded = Recorded::runs(vec![
        fileio_run("SEQ1M Q8T1 read", false, (100, 1 << 20, 8_000_000), 8),
        fileio_run("RND4K Q1T1 read", false, (300, 4096, 100_000), 1),
        fileio_run("RND4K Q1T1 write", true, (50, 4096, 200_000), 1),
    ]);
    let r = build(i);
    assert_eq!(r.period_s, 6.0);
    let bytes = 100.0 * 1048576.0 + 300.0 * 4096.0;
    assert_eq!((r.read.ops, r.read.bytes), (400, bytes as u64));
    assert_eq!(r.read.iops, 400.0 / 4.0);
    assert_eq!(r.read.bw_mb_per_s, bytes / 4.0 / 1e6);
    assert_eq!(r.read.bw_mib_per_s, bytes / 4.0 / 1048576.0);
    // the queued test's completions (8 ms), not its submissions (1 µs)
    assert_eq!(r.read.lat.count, 400);
    assert_eq!(r.read.lat.max_ns, 8_000_000);
    assert_eq!(r.read.lat.min_ns, 100_000);
    assert_eq!(r.read.lat.sum_ns, 100 * 8_000_000 + 300 * 100_000);
    assert_eq!((r.write.ops, r.write.iops), (50, 25.0));
    assert_eq!(r.write.bw_mb_per_s, 50.0 * 4096.0 / 2.0 / 1e6);
    let names: Vec<&str> = r.jobs.iter().map(|j| j.job.name.as_str()).collect();
    assert_eq!(
        names,
        ["SEQ1M Q8T1 read", "RND4K Q1T1 read", "RND4K Q1T1 write"]
    );
    assert_eq!((r.jobs[0].read.ios, r.jobs[0].read.iops), (100, 50.0));
    let who: Vec<&str> = r.time.iter().map(|t| t.who.as_str()).collect();
    assert_eq!(who, ["all", names[0], names[1], names[2]]);
    assert_eq!(r.time[0].wall_ns, 6_000_000_000);
    // two loops of a test as one (an even count's median): each thread added up
    let mut two = fileio_run("t", false, (10, 4096, 1_000), 1);
    two.then(&fileio_run("t", false, (30, 4096, 3_000), 1));
    let t = two.threads.as_ref().unwrap();
    assert_eq!(
        (t.period_s, t.threads.len(), t.threads[0].read.ios),
        (4.0, 1, 40)
    );
    assert_eq!(two.jobs[0].stats.read.ios, 40);
}
