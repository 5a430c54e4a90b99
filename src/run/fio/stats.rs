//! Statistics of `iomark run` (see [`crate::run::fio`]): per-direction counters and
//! latencies, a job thread's (or merged job's / group's) statistics, and the run's
//! outcome. Kept apart from the runner so reports and the worker share one definition.

use crate::run::fio::cpu::CpuTimes;

/// Latency histogram with exact count, sum, min and max, ns ([`crate::stats::LatAcc`]).
pub use crate::stats::LatAcc as Lat;

/// Counters and latencies of one direction.
#[derive(Clone, Debug, Default)]
pub struct DirStats {
    /// completed I/Os
    pub ios: u64,
    /// bytes moved
    pub bytes: u64,
    /// submission latency (queued engines only)
    pub slat: Lat,
    /// completion latency
    pub clat: Lat,
    /// total latency
    pub lat: Lat,
    /// synchronous completions (psync, mmap, null, trims: no slat, clat = lat), recorded
    /// once on the hot path and folded into `clat` and `lat` by [`DirStats::settle`]
    pub sync: Lat,
}

impl DirStats {
    /// Add another direction's counters and latencies.
    pub fn merge(&mut self, o: &DirStats) {
        self.ios += o.ios;
        self.bytes += o.bytes;
        self.slat.merge(&o.slat);
        self.clat.merge(&o.clat);
        self.lat.merge(&o.lat);
        self.sync.merge(&o.sync);
    }
    /// Fold the synchronous completions into `clat` and `lat` (each of them is both);
    /// called once when a job thread ends, before anything reads the latencies.
    pub fn settle(&mut self) {
        if !self.sync.hist.is_empty() {
            self.clat.merge(&self.sync);
            self.lat.merge(&self.sync);
            self.sync = Lat::default();
        }
    }
}

/// Result of one job thread, or of a merged job/group.
#[derive(Clone, Debug, Default)]
pub struct JobStats {
    /// job name
    pub name: String,
    /// stonewall group, from 0
    pub groupid: u32,
    /// threads merged into this result
    pub threads: u32,
    /// reads
    pub read: DirStats,
    /// writes
    pub write: DirStats,
    /// trims (punched holes)
    pub trim: DirStats,
    /// fsync/fdatasync calls (periodic, end_fsync, fsync_on_close) and their latency
    pub sync: DirStats,
    /// blocks read back and checked by the verify phase
    pub verified: u64,
    /// `percentile_list` (empty: fio's default list)
    pub percentiles: Vec<f64>,
    /// `clat_percentiles` (report clat percentiles)
    pub clat_percentiles: bool,
    /// `lat_percentiles` (report total-latency percentiles)
    pub lat_percentiles: bool,
    /// text-report units from the job's `kb_base` / `unit_base` (JSON is not affected)
    pub units: crate::report::fio::num::TextUnits,
    /// measured run time, ns (max over merged threads)
    pub runtime_ns: u64,
    /// each thread's measured run time in whole ms (`runtime_ns / 1e6`, rounded down),
    /// summed over the merged threads: fio's JSON `job_runtime` (its `total_run_time`,
    /// which `group_reporting` adds up: numjobs=2 runtime=1 time_based gives 2000)
    pub runtime_ms_sum: u64,
    /// the job's options, as written
    pub options: Vec<(String, String)>,
    /// engine actually used
    pub engine: &'static str,
    /// CPU used by the job's threads (RUSAGE_THREAD differences, summed)
    pub cpu: CpuTimes,
    /// wall time of the threads (setup, I/O and end_fsync) summed over the merged
    /// threads, ns: the denominator of the CPU percentages (fio's `total_run_time`)
    pub run_ns_sum: u64,
    /// failed requests the job went on after (`continue_on_error`); never counted as done
    pub errors: u64,
    /// the first of them: op, file, offset and the system's reason
    pub first_error: Option<String>,
    /// steady-state detection (`ss_dur`), per job thread or reporting group
    pub steady: Option<crate::run::control::steady::SteadyReport>,
    /// the `latency_target` search (depth found), or the job's depth without one
    pub lat_target: Option<crate::run::control::lat_target::LatTargetReport>,
    /// random jobs: blocks touched and issued block sizes (public case C13)
    pub coverage: Option<crate::run::gen::coverage::CoverageStats>,
    /// with per-request priorities: `(direction 0 read / 1 write, ioprio, latency)` of the
    /// requests that carried each value — clat, or lat with `lat_percentiles` (fio's
    /// `prios` / "clat prio C/L" report)
    pub prio_lat: Vec<(usize, u16, Lat)>,
    /// zone resets of a `zonemode=zbd` job (a full zone written again, `zone_reset_*`,
    /// trims); `None` for other jobs. fio prints them after the write line
    /// ("; N zone resets") and as the job's `zone_resets` JSON key (spec/peers.md 2.2)
    pub zone_resets: Option<u64>,
    /// fio's `error`: the errno of the failure that ended the job ([`RunError::errno`]),
    /// 0 when it ran to its end; a group keeps its first thread's non-zero value
    pub error: i32,
    /// the failure that ended the job, as printed on stderr (`None`: it ran to its end)
    pub failure: Option<String>,
    /// per-interval bandwidth (KiB/s) and IOPS samples (`bw_avg_time`/`iops_avg_time`),
    /// fio's `bw_min` … `iops_samples` (report/fio/levels.rs)
    pub rates: crate::stats::rates::RateSamples,
    /// fio's `iodepth_level` / `iodepth_submit` / `iodepth_complete` counts
    pub depth: crate::stats::rates::DepthStats,
    /// errno of the first error the job went on after (`continue_on_error`); 0 = none.
    /// fio's job `error` key
    pub first_errno: i32,
}

impl JobStats {
    pub(crate) fn merge(&mut self, o: &JobStats) {
        self.threads += o.threads;
        self.read.merge(&o.read);
        self.write.merge(&o.write);
        self.sync.merge(&o.sync);
        self.trim.merge(&o.trim);
        self.verified += o.verified;
        self.runtime_ns = self.runtime_ns.max(o.runtime_ns);
        self.runtime_ms_sum += o.runtime_ms_sum;
        self.cpu.add(&o.cpu);
        self.run_ns_sum += o.run_ns_sum;
        self.errors += o.errors;
        if let Some(n) = o.zone_resets {
            self.zone_resets = Some(self.zone_resets.unwrap_or(0) + n);
        }
        if self.first_error.is_none() {
            self.first_error.clone_from(&o.first_error);
        }
        if self.error == 0 {
            self.error = o.error;
        }
        if self.failure.is_none() {
            self.failure.clone_from(&o.failure);
        }
        if self.first_errno == 0 {
            self.first_errno = o.first_errno;
        }
        self.rates.merge(&o.rates);
        self.depth.merge(&o.depth);
        if self.lat_target.is_none() {
            self.lat_target = o.lat_target;
        }
        for (d, p, l) in &o.prio_lat {
            match self.prio_lat.iter_mut().find(|e| e.0 == *d && e.1 == *p) {
                Some(e) => e.2.merge(l),
                None => self.prio_lat.push((*d, *p, l.clone())),
            }
        }
        match (&mut self.coverage, &o.coverage) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.coverage = Some(b.clone()),
            _ => {}
        }
    }
}

/// Outcome of `execute`.
#[derive(Debug, Default)]
pub struct RunOutcome {
    /// one entry per reported job (per thread, or merged with `group_reporting`)
    pub jobs: Vec<JobStats>,
    /// stopped by a signal
    pub interrupted: bool,
    /// `--status-interval` samples over all jobs (empty without it)
    pub intervals: Vec<crate::result::Interval>,
    /// `--plot` throughput samples over all jobs (empty without it), and their period
    pub samples: Vec<crate::result::Sample>,
}
