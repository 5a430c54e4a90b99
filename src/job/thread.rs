//! What a job thread starts from, the one job model's `thread` half
//! ([`crate::job::model::Job`], beside its `Workload`): what fio's job (`FioJob::model`)
//! and sysbench's (`FileioJob::model`, mark's presets too) both say about one of their
//! threads — the engine, its depth, the sizes of the requests, the open flags, the file
//! set as the job states it, pacing and limits, what writes carry and when they are made
//! durable.
//! The one job-thread shell (run/worker/thread.rs) reads this and nothing of either
//! dialect; so do sysbench's rules of the worker (run/worker/sysbench.rs).

use crate::util::engines::Kind;
use std::path::PathBuf;
use std::time::Duration;

/// One job thread as both dialects describe it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadJob {
    /// the engine the thread asks for
    pub engine: Kind,
    /// requests in flight the job asks for (fio's `iodepth`, sysbench's
    /// `--file-async-backlog`)
    pub depth: usize,
    /// the smallest and the largest request in bytes the thread issues
    pub request: (u64, u64),
    /// files opened with O_DIRECT
    pub direct: bool,
    /// bytes each request buffer starts past a page's start (fio's `iomem_align`; 0:
    /// page-aligned)
    pub mem_align: usize,
    /// files opened with O_SYNC
    pub sync: bool,
    /// files opened with O_DSYNC
    pub dsync: bool,
    /// files of the job's set
    pub files: u32,
    /// bytes of each file when the job states one size for all (a range of sizes is
    /// drawn per file when the set is laid out: `None`)
    pub file_size: Option<u64>,
    /// how the thread's requests are paced
    pub pace: Pace,
    /// how long the job runs, when limited in time
    pub time: Option<Duration>,
    /// how many requests (fio) or events (sysbench) the job issues, when limited
    pub ios: Option<u64>,
    /// the directory the job's files are named in (sysbench's file set; fio's first
    /// `directory`, empty when it names none)
    pub dir: PathBuf,
    /// the job writes (a sysbench mode that writes; fio's `rw` with writes)
    pub writes: bool,
    /// what written blocks carry (sysbench's `--file-data`; fio: zeros with
    /// `zero_buffers`, else its random buffers, refined by its own buffer options)
    pub data: DataPattern,
    /// writes carry a check the reads verify (sysbench's `--validate`; fio's `verify=`)
    pub validate: bool,
    /// when written data is made durable, and by which call
    pub syncs: Syncs,
}

/// The call that makes written data durable (sysbench's `--file-fsync-mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FsyncMode {
    /// `fsync(2)`.
    Fsync,
    /// `fdatasync(2)`.
    Fdatasync,
}

/// What written blocks contain (iomark extension `--file-data` of sysbench's dialect).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DataPattern {
    /// All zeros, as sysbench writes (compressible and dedupable).
    Zeros,
    /// Pseudo-random bytes (hard to compress; see public case C07).
    Random,
}

/// When a job thread makes its writes durable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Syncs {
    /// the call (fio: `fdatasync` when `fdatasync=` is set, else `fsync`)
    pub call: FsyncMode,
    /// after each write (sysbench's `--file-fsync-all`; fio's `fsync=1` or
    /// `fdatasync=1`)
    pub each_write: bool,
    /// once at the end of the test (sysbench's `--file-fsync-end`; fio's `end_fsync`)
    pub at_end: bool,
}

/// How a job thread's requests are paced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// as fast as the engine completes them
    Free,
    /// each thread on its own, per direction [read, write, trim]: bytes and requests
    /// per second (fio's `rate`, `rate_iops`; 0 is no limit in that direction)
    Thread {
        /// bytes per second, per direction
        bytes: [u64; 3],
        /// requests per second, per direction
        iops: [u64; 3],
    },
    /// events per second over all the job's threads together (sysbench's `--rate`)
    Shared {
        /// events per second
        events: u64,
    },
}

impl ThreadJob {
    /// Slots of the thread: the job's depth on an engine that queues, else 1.
    pub fn slots(&self) -> usize {
        if self.engine.queues() {
            self.depth
        } else {
            1
        }
    }

    /// The open flags of `direct`, `sync` and `dsync` as `open(2)` bits.
    pub fn oflags(&self) -> i32 {
        let bit = |on: bool, f: i32| if on { f } else { 0 };
        bit(self.direct, libc::O_DIRECT)
            | bit(self.sync, libc::O_SYNC)
            | bit(self.dsync, libc::O_DSYNC)
    }

    /// Bytes of each slot's buffer: the largest request the thread issues.
    pub fn slot_len(&self) -> usize {
        self.request.1 as usize
    }
}
