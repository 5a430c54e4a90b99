//! The presets of `iomark mark`: their CrystalDiskMark slots in order (read, then write,
//! then the `--mix` slots), slot labels that parse back, and each test as the exact
//! `fileio` job it runs. tests/it/mark/ runs mark through the binary.

use super::{expand, fileio_run, preset, Op, Pattern, Slot, Test};
use crate::job::sysbench::{DataPattern, TestMode};
use std::path::Path;

fn names(p: &str, mix: bool) -> Vec<String> {
    expand(p, mix).unwrap().iter().map(Test::name).collect()
}

#[test]
fn presets_expand_to_the_crystaldiskmark_slots_read_then_write() {
    assert_eq!(
        names("default", false),
        [
            "SEQ1M Q8T1 read",
            "SEQ1M Q1T1 read",
            "RND4K Q32T1 read",
            "RND4K Q1T1 read",
            "SEQ1M Q8T1 write",
            "SEQ1M Q1T1 write",
            "RND4K Q32T1 write",
            "RND4K Q1T1 write"
        ]
    );
    assert_eq!(
        names("nvme", false)[..4],
        [
            "SEQ1M Q8T1 read",
            "SEQ128K Q32T1 read",
            "RND4K Q32T16 read",
            "RND4K Q1T1 read"
        ]
    );
    assert_eq!(
        names("peak", false),
        [
            "SEQ1M Q8T1 read",
            "RND4K Q32T1 read",
            "SEQ1M Q8T1 write",
            "RND4K Q32T1 write"
        ]
    );
    assert_eq!(
        names("realworld", false),
        [
            "SEQ1M Q1T1 read",
            "RND4K Q1T1 read",
            "SEQ1M Q1T1 write",
            "RND4K Q1T1 write"
        ]
    );
    // --mix adds the random slots as 70/30 mixes, after the writes
    assert_eq!(
        names("default", true)[8..],
        ["RND4K Q32T1 mix", "RND4K Q1T1 mix"]
    );
    assert_eq!(names("nvme", true).len(), 10);
    assert!(expand("fast", false).is_none());
    assert_eq!(
        preset("nvme").unwrap()[2],
        Slot {
            pattern: Pattern::Rnd,
            block: 4096,
            qd: 32,
            threads: 16
        }
    );
}

#[test]
fn slot_labels_round_trip() {
    for p in ["default", "nvme", "peak", "realworld"] {
        for s in preset(p).unwrap() {
            assert_eq!(Slot::parse_label(&s.label()), Some(s));
        }
    }
    assert_eq!(Slot::parse_label("SEQ128K Q32T1").unwrap().block, 131072);
    assert_eq!(Slot::parse_label("nonsense"), None);
    assert_eq!(Slot::parse_label("RNDxK Q1T1"), None);
}

#[test]
fn each_test_is_the_exact_fileio_job() {
    use crate::util::engines::Kind;
    let d = Path::new("/d");
    let run = |slot: Slot, op| fileio_run(&Test { slot, op }, 1 << 30, 5, d);
    // that each is also the call fileio parses of its command line is checked in
    // src/cli/mark.rs (the parser lives in cli)
    let seq8 = preset("default").unwrap()[0];
    let rnd1 = preset("default").unwrap()[3];
    let rnd_t16 = preset("nvme").unwrap()[2];
    let f = run(seq8, Op::Read);
    let (s, t, w) = (&f.settings, &f.model.thread, &f.model.work);
    assert_eq!(
        (t.files, t.file_size, t.request, s.test_mode),
        (1, Some(1 << 30), (1 << 20, 1 << 20), Some(TestMode::Seqrd))
    );
    assert_eq!(f.geometry().map(|g| g.total), Some(1 << 30));
    assert_eq!((t.engine, t.depth), (Kind::IoUring, 8));
    assert!(t.direct && !t.sync && !t.dsync);
    assert_eq!(
        (w.syncs.series_every, t.syncs.at_end, w.labels.rw_ratio),
        (0, false, 2.3333333333)
    );
    assert_eq!((s.threads, f.time_limit(), t.ios), (1, 5, None));
    assert_eq!(t.dir, d);
    assert_eq!(
        (t.data, s.percentile, s.notes),
        (DataPattern::Random, 99, false)
    );
    assert!(
        s.json.is_none(),
        "mark reads the result in memory: no --json file"
    );
    // sequential writes overwrite the prepared file (seqrewr), never truncate it (seqwr)
    let f = run(seq8, Op::Write);
    assert_eq!(f.settings.test_mode, Some(TestMode::Seqrewr));
    assert!(!f.model.work.files.recreate && f.model.thread.writes);
    // Q1 runs pread/pwrite so latency is per I/O; the backlog stays fileio's default
    let q1 = run(rnd1, Op::Write);
    assert_eq!(q1.settings.test_mode, Some(TestMode::Rndwr));
    let t = &q1.model.thread;
    assert_eq!((t.engine, t.depth, t.slots()), (Kind::Psync, 128, 1));
    assert!(t.direct);
    let t16 = run(rnd_t16, Op::Mix);
    assert_eq!(t16.settings.test_mode, Some(TestMode::Rndrw));
    let t = &t16.model.thread;
    assert_eq!((t.engine, t.depth), (Kind::IoUring, 32));
    assert_eq!(t16.settings.threads, 16);
}

#[test]
fn each_test_reaches_the_run_translated_with_marks_settings() {
    use super::MIX_RW_RATIO;
    use crate::job::sysbench::Command;
    use crate::util::engines::Kind;
    let d = Path::new("/d");
    let rnd_t16 = preset("nvme").unwrap()[2];
    let f = fileio_run(
        &Test {
            slot: rnd_t16,
            op: Op::Mix,
        },
        1 << 30,
        5,
        d,
    );
    let s = &f.settings;
    assert_eq!(s.commands, vec![Command::Run]);
    assert_eq!((s.threads, s.percentile, s.rand_seed), (16, 99, 0));
    assert!(s.samples && !s.notes && !s.history && !s.progress && !s.sysbench_only);
    assert!(s.json.is_none() && s.plot.is_none() && s.report_interval == 0);
    assert_eq!(s.test_mode, Some(TestMode::Rndrw));
    let t = &f.model.thread;
    assert_eq!((t.engine, t.depth, t.files), (Kind::IoUring, 32, 1));
    assert_eq!((t.file_size, t.dir.as_path()), (Some(1 << 30), d));
    assert!(t.direct && !t.sync && !t.dsync && t.data == DataPattern::Random);
    assert_eq!(f.time_limit(), 5);
    let w = &f.model.work;
    assert_eq!(
        (w.pick.read_ratio, w.queue.reap_max),
        (Some(MIX_RW_RATIO), 1)
    );
    assert_eq!((w.syncs.series_every, t.syncs.at_end), (0, false));
}
