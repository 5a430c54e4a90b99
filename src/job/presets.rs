//! `mark` presets: the CrystalDiskMark 8 / KDiskMark slots (docs/commands/mark.md), their expansion into tests (read, write, optional 70/30 mix) and
//! each test's fileio call, built directly (no command line) and translated. Pure: nothing here
//! touches a file.

use crate::job::sysbench::{
    Command, DataPattern, ExtraFlags, Fileio, FileioJob, FsyncMode, IoMode, Settings, TestMode,
};
use std::path::Path;

/// Access pattern of a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// sequential (`SEQ`)
    Seq,
    /// uniformly random offsets (`RND`)
    Rnd,
}

/// Direction of a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// reads only
    Read,
    /// writes only (sequential writes overwrite the prepared file: fileio `seqrewr`)
    Write,
    /// 70 % reads, 30 % writes (fileio `rndrw`/`--file-rw-ratio=7/3`); random only
    Mix,
}

impl Op {
    /// `read`, `write`, `mix`
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Mix => "mix",
        }
    }
}

/// One slot of a preset: pattern, block size (bytes), queue depth per thread, threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// access pattern
    pub pattern: Pattern,
    /// block (request) size, bytes
    pub block: u64,
    /// requests in flight per thread
    pub qd: u32,
    /// worker threads
    pub threads: u32,
}

const fn slot(pattern: Pattern, block: u64, qd: u32, threads: u32) -> Slot {
    Slot {
        pattern,
        block,
        qd,
        threads,
    }
}

impl Slot {
    /// CrystalDiskMark-style label: `SEQ1M Q8T1`, `RND4K Q32T16`, `SEQ128K Q32T1`.
    pub fn label(&self) -> String {
        let p = match self.pattern {
            Pattern::Seq => "SEQ",
            Pattern::Rnd => "RND",
        };
        let b = if self.block >= 1 << 20 && self.block.is_multiple_of(1 << 20) {
            format!("{}M", self.block >> 20)
        } else if self.block.is_multiple_of(1024) {
            format!("{}K", self.block >> 10)
        } else {
            format!("{}B", self.block)
        };
        format!("{p}{b} Q{}T{}", self.qd, self.threads)
    }

    /// Parse a label made by [`Slot::label`] (used by `compare` on `mark` phases).
    pub fn parse_label(s: &str) -> Option<Slot> {
        let (pb, qt) = s.trim().split_once(' ')?;
        let (pattern, b) = if let Some(b) = pb.strip_prefix("SEQ") {
            (Pattern::Seq, b)
        } else {
            (Pattern::Rnd, pb.strip_prefix("RND")?)
        };
        let (num, shift) = if let Some(n) = b.strip_suffix('M') {
            (n, 20)
        } else if let Some(n) = b.strip_suffix('K') {
            (n, 10)
        } else {
            (b.strip_suffix('B')?, 0)
        };
        let block = num.parse::<u64>().ok()?.checked_mul(1 << shift)?;
        let (q, t) = qt.strip_prefix('Q')?.split_once('T')?;
        Some(Slot {
            pattern,
            block,
            qd: q.parse().ok()?,
            threads: t.parse().ok()?,
        })
    }
}

/// Preset names accepted by `--preset`.
pub const PRESETS: [&str; 4] = ["default", "nvme", "peak", "realworld"];

/// The slots of a preset (CrystalDiskMark 8 / KDiskMark "Standard" and "NVMe SSD"); `None` for an unknown name.
pub fn preset(name: &str) -> Option<Vec<Slot>> {
    use Pattern::{Rnd, Seq};
    const M: u64 = 1 << 20;
    const K4: u64 = 4096;
    Some(match name {
        "default" => vec![
            slot(Seq, M, 8, 1),
            slot(Seq, M, 1, 1),
            slot(Rnd, K4, 32, 1),
            slot(Rnd, K4, 1, 1),
        ],
        "nvme" => vec![
            slot(Seq, M, 8, 1),
            slot(Seq, 128 << 10, 32, 1),
            slot(Rnd, K4, 32, 16),
            slot(Rnd, K4, 1, 1),
        ],
        "peak" => vec![slot(Seq, M, 8, 1), slot(Rnd, K4, 32, 1)],
        "realworld" => vec![slot(Seq, M, 1, 1), slot(Rnd, K4, 1, 1)],
        _ => return None,
    })
}

/// One test: a slot and a direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Test {
    /// pattern, block size, QD, threads
    pub slot: Slot,
    /// read, write or mix
    pub op: Op,
}

impl Test {
    /// `SEQ1M Q8T1 read`
    pub fn name(&self) -> String {
        format!("{} {}", self.slot.label(), self.op.name())
    }
}

/// Expand a preset into its tests: every slot read, then every slot written (as
/// CrystalDiskMark runs them), then with `mix` the random slots as 70/30 mixes.
pub fn expand(preset_name: &str, mix: bool) -> Option<Vec<Test>> {
    let slots = preset(preset_name)?;
    let mut v: Vec<Test> = slots
        .iter()
        .map(|&slot| Test { slot, op: Op::Read })
        .collect();
    v.extend(slots.iter().map(|&slot| Test {
        slot,
        op: Op::Write,
    }));
    if mix {
        v.extend(
            slots
                .iter()
                .filter(|s| s.pattern == Pattern::Rnd)
                .map(|&slot| Test { slot, op: Op::Mix }),
        );
    }
    Some(v)
}

/// Reads per write of the mix: 70 % reads (KDiskMark's default `rwmixread`), as
/// `--file-rw-ratio=2.3333333333` gives it.
pub const MIX_RW_RATIO: f64 = 2.3333333333;

/// The test's fileio call as the run reads it: its fileio job (the job `iomark fileio`
/// makes of the command line in tests/mark_compare.rs), built directly and translated
/// into the one job model, its geometry and its settings: one file of `size` bytes in
/// `dir`, O_DIRECT, random data, no fsync, `time_s` seconds, the `--percentile=99`
/// latency, no notes, silent. Q1 uses pread/pwrite (per-I/O latency), deeper queues
/// io_uring with a backlog of the queue depth. It runs `run` (the caller sets
/// `settings.commands` for `prepare`, `settings.samples` for the loops it samples).
pub fn fileio_run(t: &Test, size: u64, time_s: u64, dir: &Path) -> Fileio {
    let mode = match (t.slot.pattern, t.op) {
        (Pattern::Seq, Op::Read) => TestMode::Seqrd,
        (Pattern::Seq, Op::Write) => TestMode::Seqrewr,
        (Pattern::Rnd, Op::Read) => TestMode::Rndrd,
        (Pattern::Rnd, Op::Write) => TestMode::Rndwr,
        (_, Op::Mix) => TestMode::Rndrw,
    };
    let (io_mode, async_backlog) = if t.slot.qd > 1 {
        (IoMode::Async, t.slot.qd)
    } else {
        (IoMode::Sync, 128)
    };
    FileioJob {
        file_num: 1,
        block_size: t.slot.block,
        total_size: size,
        io_mode,
        async_backlog,
        extra_flags: ExtraFlags {
            direct: true,
            ..ExtraFlags::default()
        },
        fsync_freq: 0,
        fsync_all: false,
        fsync_end: false,
        fsync_mode: FsyncMode::Fsync,
        merged_requests: 0,
        rw_ratio: MIX_RW_RATIO,
        time_limit: time_s,
        event_limit: 0,
        rate: 0,
        validate: false,
        verbosity: 0,
        dir: dir.to_path_buf(),
        // fio's (and so KDiskMark's) reaping: one completion, then refill its slot
        reap_max: 1,
        data: DataPattern::Random,
        settings: Settings {
            commands: vec![Command::Run],
            test_mode: Some(mode),
            threads: t.slot.threads,
            percentile: 99,
            samples: true,
            // no interval lines, no --json or --plot of its own, no notes, the seed from
            // the clock; mark keeps its own result, not each test's (no history), and its
            // own bar shows the rates (no progress line)
            ..Settings::default()
        },
    }
    .translate()
}

/// The largest block (request) size of `tests`, bytes (0 for no tests).
pub fn largest_block(tests: &[Test]) -> u64 {
    tests.iter().map(|t| t.slot.block).max().unwrap_or(0)
}

/// The test file size every test of a run uses, decided once before the file is
/// prepared: `size` (bytes) rounded down to a whole number of `block` bytes, the
/// largest block size of the run's tests. fileio lays the file out in whole blocks of
/// the preparing test, so an unrounded size would give a file shorter than what a test
/// with smaller blocks expects. `None` when `size` is smaller than one `block` (or
/// `block` is 0).
pub fn test_file_size(size: u64, block: u64) -> Option<u64> {
    if block == 0 || size < block {
        None
    } else {
        Some(size - size % block)
    }
}

/// A block size in words for messages: `1 MiB`, `128 KiB`, `512 B`.
pub fn block_words(block: u64) -> String {
    if block >= 1 << 20 && block.is_multiple_of(1 << 20) {
        format!("{} MiB", block >> 20)
    } else if block >= 1024 && block.is_multiple_of(1024) {
        format!("{} KiB", block >> 10)
    } else {
        format!("{block} B")
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    #[test]
    fn test_file_size_rounds_down_to_the_largest_block() {
        const M: u64 = 1 << 20;
        for p in PRESETS {
            assert_eq!(largest_block(&expand(p, true).unwrap()), M, "{p}");
        }
        assert_eq!(test_file_size(10_000_000, M), Some(9 * M));
        assert_eq!(test_file_size(3 * M / 2, M), Some(M));
        assert_eq!(test_file_size(M, M), Some(M));
        assert_eq!(test_file_size(64 * M, M), Some(64 * M));
        assert_eq!(test_file_size(M - 1, M), None);
        assert_eq!(test_file_size(512 << 10, M), None);
        assert_eq!(test_file_size(1024, 0), None);
        assert_eq!(block_words(M), "1 MiB");
        assert_eq!(block_words(128 << 10), "128 KiB");
        assert_eq!(block_words(512), "512 B");
    }
}
