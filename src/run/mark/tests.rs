//! The presets of `iomark mark`: their CrystalDiskMark slots in order (read, then write,
//! then the `--mix` slots), slot labels that parse back, and each test as the exact
//! `fileio` job it runs. tests/it/mark/ runs mark through the binary.

use super::{expand, fileio_job, preset, Op, Pattern, Slot, Test};
use crate::cli::fileio::Outcome;
use crate::job::sysbench::{Command as FileioCommand, DataPattern, IoMode, TestMode};
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

/// The `iomark fileio` command line of one mark test: what a user types to run the
/// very job mark builds in memory (job/presets.rs `fileio_job`).
fn command_line(t: &Test, size: u64, time_s: u64, dir: &Path) -> Vec<String> {
    let mode = match (t.slot.pattern, t.op) {
        (Pattern::Seq, Op::Read) => "seqrd",
        (Pattern::Seq, Op::Write) => "seqrewr",
        (Pattern::Rnd, Op::Read) => "rndrd",
        (Pattern::Rnd, Op::Write) => "rndwr",
        (_, Op::Mix) => "rndrw",
    };
    let mut a = vec![
        "--file-num=1".to_string(),
        format!("--file-total-size={size}"),
        format!("--file-block-size={}", t.slot.block),
        format!("--file-test-mode={mode}"),
    ];
    if t.slot.qd > 1 {
        a.push("--file-io-mode=async".into());
        a.push(format!("--file-async-backlog={}", t.slot.qd));
    } else {
        a.push("--file-io-mode=sync".into());
    }
    a.extend([
        "--file-extra-flags=direct".to_string(),
        "--file-fsync-freq=0".into(),
        "--file-fsync-end=off".into(),
        "--file-rw-ratio=2.3333333333".into(),
        format!("--threads={}", t.slot.threads),
        format!("--time={time_s}"),
        "--events=0".into(),
        format!("--file-dir={}", dir.display()),
        "--file-data=random".into(),
        "--percentile=99".into(),
        "--notes=off".into(),
        "--verbosity=0".into(),
        "run".into(),
    ]);
    a
}

#[test]
fn each_test_is_the_exact_fileio_job() {
    let d = Path::new("/d");
    let job = |slot: Slot, op| fileio_job(&Test { slot, op }, 1 << 30, 5, d);
    // every test of every preset is the job fileio makes of its command line (mark
    // adds only fio's reaping: one completion, then refill its slot)
    for p in ["default", "nvme", "peak", "realworld"] {
        for t in expand(p, true).unwrap() {
            let args = command_line(&t, 1 << 30, 5, d);
            let parsed = match crate::cli::fileio::parse(&args).outcome {
                Outcome::Job(j) => j,
                Outcome::Exit(c) => panic!("{}: exit {c}", args.join(" ")),
            };
            let mut want = *parsed;
            want.argv.clear();
            want.commands = vec![FileioCommand::Run];
            want.reap_max = 1;
            let got = fileio_job(&t, 1 << 30, 5, d);
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{}", args.join(" "));
        }
    }
    let seq8 = preset("default").unwrap()[0];
    let rnd1 = preset("default").unwrap()[3];
    let rnd_t16 = preset("nvme").unwrap()[2];
    let j = job(seq8, Op::Read);
    assert_eq!(
        (j.file_num, j.total_size, j.block_size, j.test_mode),
        (1, 1 << 30, 1 << 20, Some(TestMode::Seqrd))
    );
    assert_eq!((j.io_mode, j.async_backlog), (IoMode::Async, 8));
    assert!(j.extra_flags.direct && !j.extra_flags.sync && !j.extra_flags.dsync);
    assert_eq!((j.fsync_freq, j.fsync_end, j.rw_ratio), (0, false, 2.3333333333));
    assert_eq!((j.threads, j.time_limit, j.event_limit), (1, 5, 0));
    assert_eq!(j.dir, d);
    assert_eq!((j.data, j.percentile, j.notes, j.verbosity), (DataPattern::Random, 99, false, 0));
    assert!(j.json.is_none(), "mark reads the result in memory: no --json file");
    // sequential writes overwrite the prepared file (seqrewr), never truncate it (seqwr)
    assert_eq!(job(seq8, Op::Write).test_mode, Some(TestMode::Seqrewr));
    // Q1 runs pread/pwrite so latency is per I/O; the backlog stays fileio's default
    let q1 = job(rnd1, Op::Write);
    assert_eq!(q1.test_mode, Some(TestMode::Rndwr));
    assert_eq!((q1.io_mode, q1.async_backlog), (IoMode::Sync, 128));
    assert!(q1.extra_flags.direct);
    let t16 = job(rnd_t16, Op::Mix);
    assert_eq!(t16.test_mode, Some(TestMode::Rndrw));
    assert_eq!((t16.io_mode, t16.async_backlog), (IoMode::Async, 32));
    assert_eq!(t16.threads, 16);
}
