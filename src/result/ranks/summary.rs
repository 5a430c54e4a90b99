//! The schema of a many-hosts result (`RunResult.ranks`): each rank's own result and
//! timing and the run's, as result/ranks.rs builds them and the builder records them
//! (`Inputs::ranks`). Types only: the merge and its rules are result/ranks.rs's.

use crate::result::job::JobResult;
use crate::result::RunResult;
use serde::{Deserialize, Serialize};

/// One rank of a many-hosts run: who it was, when it ran, what it measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankRun {
    /// MPI rank, from 0
    pub rank: u32,
    /// the host it ran on (`gethostname`)
    pub hostname: String,
    /// its I/O start (just after the start barrier) minus the earliest rank's, ns
    pub start_offset_ns: u64,
    /// its end (the runner returned) minus the earliest start, ns
    pub end_offset_ns: u64,
    /// `--stonewall` or a failed rank ended it before its own limits
    pub stopped_by_peer: bool,
    /// its own result, as a single-host run would have written it
    pub result: RunResult,
}

/// The ranks of a run and their timing (`RunResult.ranks`, only in a many-hosts result).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RanksSummary {
    /// number of ranks (MPI world size)
    pub size: u32,
    /// latest minus earliest start after the start barrier, ns (across hosts this
    /// includes the difference of their clocks)
    pub start_skew_ns: u64,
    /// the first rank's end, ns after the earliest start ("first done")
    pub first_done_ns: u64,
    /// the last rank's end, ns after the earliest start ("last done")
    pub last_done_ns: u64,
    /// `--stonewall`: the first rank to finish stopped the others
    pub stonewall: bool,
    /// `--rotate-ranks=K`: rank r used the files of rank (r+K) mod size
    pub rotate: u32,
    /// every rank, in rank order
    pub per_rank: Vec<RankRun>,
    /// `run`: every job of every rank merged into one, each rank's run time its own
    /// (fio's client "All clients" job, report/fio/json/clients.rs: its run time is the
    /// longest rank's, not the span of the common time line)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_clients: Option<JobResult>,
}
