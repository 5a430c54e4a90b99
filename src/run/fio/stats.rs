//! What `execute` of `iomark run` returns ([`RunOutcome`]): one [`JobRecord`] per
//! reported job (the recorder's statistics with the run's own outputs, see
//! result/job.rs), whether a signal stopped the run, and the samples taken while it ran.

use crate::result::job::JobRecord;

/// Outcome of `execute`.
#[derive(Debug, Default)]
pub struct RunOutcome {
    /// one entry per reported job (per thread, or merged with `group_reporting`)
    pub jobs: Vec<JobRecord>,
    /// stopped by a signal
    pub interrupted: bool,
    /// stopped before the I/O started (while the files were laid out): the jobs are
    /// reported as they stood, and no disk (fio 3.33 registers the disks it reports as
    /// it starts the jobs)
    pub before_io: bool,
    /// `--status-interval` samples over all jobs (empty without it)
    pub intervals: Vec<crate::result::Interval>,
    /// the sampler's samples over all jobs (run/sampler.rs; empty when it was off)
    pub samples: Vec<crate::result::Sample>,
    /// their nominal period, s
    pub sample_period_s: f64,
    /// where their device, temperature and clock values come from
    pub sample_sources: Option<crate::result::SeriesSources>,
    /// fio's `NAME: Laying out IO file (1 file / 8MiB)` lines, one per job thread that
    /// created or extended files, in job order (the text header prints them)
    pub layout_lines: Vec<String>,
    /// by job, whether fio 3.33 would have created it with a file: a thread of it
    /// began and its plan has a file (the disks under it are listed)
    pub created: Vec<bool>,
}
