//! `FileioJob`: sysbench's parsed fileio options, validated, and the file set's geometry
//! derived from them. What a job thread does with them is the one job model's
//! (`FileioJob::model`, model.rs); `FileioJob::translate` (settings.rs) makes the call
//! the run reads once: the model, the geometry, and the commands, the test mode and the
//! console and report settings (`Settings`, which the job holds as the parser filled
//! it: each option is stored once).
//!
//! Built by `cli::fileio` from argv (and by mark's presets), translated before the run:
//! `run::sysbench` and the result read the translation, never these options.
//! Sizes are bytes, times seconds. Geometry follows sysbench 1.0.20 with iomark's
//! fixes of its bugs (per-file size rounded down to whole blocks; docs/compat/sysbench.md).

use std::path::PathBuf;

mod model;
mod settings;
pub use settings::{Fileio, Settings};

/// One of sysbench's six `--file-test-mode` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TestMode {
    /// `seqwr`: sequential write, files recreated empty at run start.
    Seqwr,
    /// `seqrewr`: sequential rewrite of prepared files.
    Seqrewr,
    /// `seqrd`: sequential read.
    Seqrd,
    /// `rndrd`: random read.
    Rndrd,
    /// `rndwr`: random write.
    Rndwr,
    /// `rndrw`: random read/write with the deterministic `--file-rw-ratio` rule.
    Rndrw,
}

impl TestMode {
    /// Parse the exact, case-sensitive sysbench name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "seqwr" => Self::Seqwr,
            "seqrewr" => Self::Seqrewr,
            "seqrd" => Self::Seqrd,
            "rndrd" => Self::Rndrd,
            "rndwr" => Self::Rndwr,
            "rndrw" => Self::Rndrw,
            _ => return None,
        })
    }
    /// Sequential modes share one global cursor.
    pub fn is_sequential(self) -> bool {
        matches!(self, Self::Seqwr | Self::Seqrewr | Self::Seqrd)
    }
    /// Modes that may write (and therefore fsync at the end of the test).
    pub fn writes(self) -> bool {
        !matches!(self, Self::Seqrd | Self::Rndrd)
    }
    /// Text of the `Doing ... test` header line.
    pub fn description(self) -> &'static str {
        match self {
            Self::Seqwr => "sequential write (creation)",
            Self::Seqrewr => "sequential rewrite",
            Self::Seqrd => "sequential read",
            Self::Rndrd => "random read",
            Self::Rndwr => "random write",
            Self::Rndrw => "random r/w",
        }
    }
    /// The sysbench name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Seqwr => "seqwr",
            Self::Seqrewr => "seqrewr",
            Self::Seqrd => "seqrd",
            Self::Rndrd => "rndrd",
            Self::Rndwr => "rndwr",
            Self::Rndrw => "rndrw",
        }
    }
}

/// `--file-io-mode`: which engine executes requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoMode {
    /// pread/pwrite (`psync` engine).
    Sync,
    /// io_uring with `--file-async-backlog` requests in flight per thread.
    Async,
    /// memcpy through shared mappings, msync for fsync.
    Mmap,
}

impl IoMode {
    /// The engine of the mode.
    pub fn engine(self) -> crate::util::engines::Kind {
        use crate::util::engines::Kind;
        match self {
            IoMode::Sync => Kind::Psync,
            IoMode::Async => Kind::IoUring,
            IoMode::Mmap => Kind::Mmap,
        }
    }

    /// Text of the `Using ... I/O mode` header line.
    pub fn description(self) -> &'static str {
        match self {
            Self::Sync => "synchronous",
            Self::Async => "asynchronous",
            Self::Mmap => "fast mmaped",
        }
    }
}

/// `--file-fsync-mode`: the sync call of the one job model.
pub use crate::job::thread::FsyncMode;

/// `--file-extra-flags`: additional open flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExtraFlags {
    /// O_SYNC
    pub sync: bool,
    /// O_DSYNC
    pub dsync: bool,
    /// O_DIRECT
    pub direct: bool,
}

impl ExtraFlags {
    /// Header text: `(none)` or the words `sync `, `dsync `, `directio` in that order
    /// (note the trailing blanks, as sysbench prints them).
    pub fn describe(self) -> String {
        if !(self.sync || self.dsync || self.direct) {
            return "(none)".into();
        }
        let mut s = String::new();
        if self.sync {
            s.push_str("sync ");
        }
        if self.dsync {
            s.push_str("dsync ");
        }
        if self.direct {
            s.push_str("directio");
        }
        s
    }
    /// The open flags a job thread of the one job model is opened with.
    pub fn of(t: &crate::job::thread::ThreadJob) -> ExtraFlags {
        ExtraFlags {
            sync: t.sync,
            dsync: t.dsync,
            direct: t.direct,
        }
    }
    /// The flags as `open(2)` bits.
    pub fn oflags(self) -> i32 {
        let mut f = 0;
        if self.sync {
            f |= libc::O_SYNC;
        }
        if self.dsync {
            f |= libc::O_DSYNC;
        }
        if self.direct {
            f |= libc::O_DIRECT;
        }
        f
    }
}

/// What written blocks contain (iomark extension `--file-data`): the one job model's.
pub use crate::job::thread::DataPattern;

/// A fileio command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Print the fileio option list.
    Help,
    /// Create or extend the file set.
    Prepare,
    /// Run the benchmark.
    Run,
    /// Remove the file set.
    Cleanup,
}

impl Command {
    /// Parse `help|prepare|run|cleanup`.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "help" => Self::Help,
            "prepare" => Self::Prepare,
            "run" => Self::Run,
            "cleanup" => Self::Cleanup,
            _ => return None,
        })
    }

    /// The command's word on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Help => "help",
            Self::Prepare => "prepare",
            Self::Run => "run",
            Self::Cleanup => "cleanup",
        }
    }
}

/// `--forced-shutdown`: seconds after the time limit at which the run is abandoned.
pub type ForcedShutdown = Option<u64>;

/// A complete, validated fileio job. All fields are plain values; nothing was opened.
/// What the job threads do is here; what the call says and writes beside them (the
/// commands, `--file-test-mode`, `--threads`, the report and console options, the
/// outputs, the argv) is its [`Settings`], filled by the parser in place and handed to
/// the run as they are by [`FileioJob::translate`].
#[derive(Clone, Debug)]
pub struct FileioJob {
    /// `--file-num` (≥ 1).
    pub file_num: u32,
    /// `--file-block-size` in bytes (≥ 1).
    pub block_size: u64,
    /// `--file-total-size` in bytes as given (≥ 1).
    pub total_size: u64,
    /// `--file-io-mode`.
    pub io_mode: IoMode,
    /// `--file-async-backlog` (requests in flight per thread in async mode).
    pub async_backlog: u32,
    /// `--file-extra-flags`.
    pub extra_flags: ExtraFlags,
    /// Effective periodic fsync frequency (0 = none; forced to 0 by `--file-fsync-all`).
    pub fsync_freq: u32,
    /// `--file-fsync-all`.
    pub fsync_all: bool,
    /// Effective end-of-test fsync (forced off by `--file-fsync-all`).
    pub fsync_end: bool,
    /// `--file-fsync-mode`.
    pub fsync_mode: FsyncMode,
    /// `--file-merged-requests` (0 = no merging).
    pub merged_requests: u32,
    /// `--file-rw-ratio` (≥ 0, may be +inf).
    pub rw_ratio: f64,
    /// `--time` in seconds (0 = no limit).
    pub time_limit: u64,
    /// `--events` (0 = no limit).
    pub event_limit: u64,
    /// `--rate` in events/s (0 = closed loop).
    pub rate: u64,
    /// `--validate`.
    pub validate: bool,
    /// `--verbosity` (0..=5).
    pub verbosity: u8,
    /// `--file-dir` (iomark extension; default the current directory).
    pub dir: PathBuf,
    /// Completions taken per reap in async mode (0: every one that is ready, as
    /// sysbench's `io_getevents(ctx, 1, backlog, …)`; `mark` sets 1, fio's default
    /// `iodepth_batch_complete_max`, so each slot is refilled as soon as it completes).
    pub reap_max: usize,
    /// `--file-data` (iomark extension).
    pub data: DataPattern,
    /// The commands, `--file-test-mode` and the console and report settings, as the
    /// run reads them (settings.rs).
    pub settings: Settings,
}

/// Sizes derived from a job, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Number of files N.
    pub files: u32,
    /// Per-file size FS: `floor(TOTAL/N)` rounded down to a whole number of blocks.
    pub file_size: u64,
    /// `floor(TOTAL/N)` before rounding (what sysbench would use).
    pub raw_file_size: u64,
    /// `FS × N`: the bytes random offsets are drawn over.
    pub total: u64,
    /// Block size B.
    pub block: u64,
    /// Sequential request size: `B × merged` when merging, else B.
    pub request: u64,
}

/// Why a geometry cannot be built (iomark's fixes of sysbench bugs B4/C01).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    /// `TOTAL < N`: each file would be empty (sysbench crashes with SIGFPE, bug B4).
    #[error("--file-total-size={total} bytes is smaller than --file-num={files}: each file would be 0 bytes; use a larger --file-total-size or fewer files")]
    EmptyFiles {
        /// bytes requested
        total: u64,
        /// files requested
        files: u32,
    },
    /// `TOTAL/N < B`: no whole block fits in a file (public case C01).
    #[error("per-file size {per_file} bytes (--file-total-size / --file-num) is smaller than --file-block-size={block} bytes; use a larger --file-total-size, fewer files or a smaller block")]
    FileSmallerThanBlock {
        /// floor(TOTAL/N)
        per_file: u64,
        /// block size
        block: u64,
    },
}

impl FileioJob {
    /// Derive the file-set geometry. Errors when a file could not hold one block.
    pub fn geometry(&self) -> Result<Geometry, GeometryError> {
        let n = u64::from(self.file_num);
        let raw = self.total_size / n;
        if raw == 0 {
            return Err(GeometryError::EmptyFiles {
                total: self.total_size,
                files: self.file_num,
            });
        }
        if raw < self.block_size {
            return Err(GeometryError::FileSmallerThanBlock {
                per_file: raw,
                block: self.block_size,
            });
        }
        let fs = raw - raw % self.block_size;
        let request = if self.merged_requests > 0 {
            self.block_size
                .saturating_mul(u64::from(self.merged_requests))
        } else {
            self.block_size
        };
        Ok(Geometry {
            files: self.file_num,
            file_size: fs,
            raw_file_size: raw,
            total: fs * n,
            block: self.block_size,
            request,
        })
    }
}

impl Geometry {
    /// True when iomark's per-file size differs from sysbench's `floor(TOTAL/N)`.
    pub fn rounded(&self) -> bool {
        self.file_size != self.raw_file_size
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn job(total: u64, files: u32, block: u64) -> FileioJob {
        FileioJob {
            file_num: files,
            block_size: block,
            total_size: total,
            io_mode: IoMode::Sync,
            async_backlog: 128,
            extra_flags: ExtraFlags::default(),
            fsync_freq: 100,
            fsync_all: false,
            fsync_end: true,
            fsync_mode: FsyncMode::Fsync,
            merged_requests: 0,
            rw_ratio: 1.5,
            time_limit: 10,
            event_limit: 0,
            rate: 0,
            validate: false,
            verbosity: 3,
            dir: ".".into(),
            reap_max: 0,
            data: DataPattern::Zeros,
            // sysbench's one thread and --percentile=95; iomark's notes and samples
            settings: Settings {
                threads: 1,
                percentile: 95,
                samples: true,
                notes: true,
                ..Settings::default()
            },
        }
    }

    #[test]
    fn default_geometry_is_sysbench_geometry() {
        let g = job(2 << 30, 128, 16384).geometry().unwrap();
        assert_eq!(g.file_size, 16 << 20);
        assert_eq!(g.total, 2 << 30);
        assert!(!g.rounded());
    }

    #[test]
    fn c01_non_divisible_sizes_round_down_to_whole_blocks() {
        let g = job(100 * 1024, 3, 16384).geometry().unwrap();
        assert_eq!(g.raw_file_size, 34133);
        assert_eq!(g.file_size, 32768);
        assert_eq!(g.total, 3 * 32768);
        assert!(g.rounded());
    }

    #[test]
    fn c01_file_smaller_than_block_is_rejected() {
        let e = job(8 * 1024, 1, 16384).geometry().unwrap_err();
        assert_eq!(
            e,
            GeometryError::FileSmallerThanBlock {
                per_file: 8192,
                block: 16384
            }
        );
        assert!(e.to_string().contains("8192") && e.to_string().contains("16384"));
    }

    #[test]
    fn b4_empty_files_rejected() {
        let e = job(100, 128, 16384).geometry().unwrap_err();
        assert!(matches!(e, GeometryError::EmptyFiles { .. }));
    }

    #[test]
    fn merged_request_size() {
        let mut j = job(64 << 20, 128, 16384);
        j.merged_requests = 4;
        assert_eq!(j.geometry().unwrap().request, 65536);
    }

    #[test]
    fn extra_flags_header_words() {
        assert_eq!(ExtraFlags::default().describe(), "(none)");
        let f = ExtraFlags {
            sync: true,
            dsync: true,
            direct: true,
        };
        assert_eq!(f.describe(), "sync dsync directio");
        let f = ExtraFlags {
            dsync: true,
            ..Default::default()
        };
        assert_eq!(f.describe(), "dsync ");
    }
}
