//! The presets of `iomark mark`: their CrystalDiskMark slots in order (read, then write,
//! then the `--mix` slots), slot labels that parse back, and each test as the exact
//! `fileio` job it runs. tests/it/mark/ runs mark through the binary.

use super::{expand, fileio_args, preset, Op, Pattern, Slot, Test};
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
    let d = Path::new("/d");
    let j = Path::new("/d/loop.json");
    let t = |slot: Slot, op| fileio_args(&Test { slot, op }, 1 << 30, 5, d, j).join(" ");
    let seq8 = preset("default").unwrap()[0];
    let rnd1 = preset("default").unwrap()[3];
    let rnd_t16 = preset("nvme").unwrap()[2];
    assert_eq!(
        t(seq8, Op::Read),
        "--file-num=1 --file-total-size=1073741824 --file-block-size=1048576 --file-test-mode=seqrd \
         --file-io-mode=async --file-async-backlog=8 --file-extra-flags=direct --file-fsync-freq=0 \
         --file-fsync-end=off --file-rw-ratio=2.3333333333 --threads=1 --time=5 --events=0 --file-dir=/d \
         --file-data=random --percentile=99 --notes=off --verbosity=0 --json=/d/loop.json run"
    );
    // sequential writes overwrite the prepared file (seqrewr), never truncate it (seqwr)
    assert!(t(seq8, Op::Write).contains("--file-test-mode=seqrewr"));
    // Q1 runs pread/pwrite so latency is per I/O; no backlog option
    let q1 = t(rnd1, Op::Write);
    assert!(
        q1.contains("--file-test-mode=rndwr --file-io-mode=sync --file-extra-flags=direct"),
        "{q1}"
    );
    assert!(!q1.contains("backlog"));
    let t16 = t(rnd_t16, Op::Mix);
    assert!(
        t16.contains("--file-test-mode=rndrw --file-io-mode=async --file-async-backlog=32"),
        "{t16}"
    );
    assert!(t16.contains("--threads=16"));
}
