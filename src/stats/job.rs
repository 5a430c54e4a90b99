//! What the recorder keeps for one job thread of `iomark run` (or for a job / reporting
//! group merged from several): per-direction counters and latencies ([`DirStats`]), and
//! the thread's other measurements ([`JobStats`]: CPU, run times, rate and depth
//! samples, errors).
//!
//! Only measurements live here. What the job *is* (name, options, report options such
//! as `kb_base` or `percentile_list`) is the effective job of the result
//! (`result::EffectiveJob`); what the run *decided* (steady state, the latency-target
//! search, the coverage of random offsets) are run outputs the result carries beside
//! these statistics (`result::JobRecord`). So the recorder depends on nothing but the
//! histogram crate and the other recorder modules.

use crate::stats::cpu::CpuTimes;
use crate::stats::rates::{DepthStats, RateSamples};
use crate::stats::LatAcc;

/// Counters and latencies of one direction.
#[derive(Clone, Debug, Default)]
pub struct DirStats {
    /// completed I/Os
    pub ios: u64,
    /// bytes moved
    pub bytes: u64,
    /// submission latency (queued engines only)
    pub slat: LatAcc,
    /// completion latency
    pub clat: LatAcc,
    /// total latency
    pub lat: LatAcc,
    /// synchronous completions (psync, mmap, null, trims: no slat, clat = lat), recorded
    /// once on the hot path and folded into `clat` and `lat` by [`DirStats::settle`]
    pub sync: LatAcc,
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
        if self.sync.count() > 0 {
            self.clat.merge(&self.sync);
            self.lat.merge(&self.sync);
            self.sync = LatAcc::default();
        }
    }
}

/// The measurements of one job thread, or of a merged job/group.
#[derive(Clone, Debug, Default)]
pub struct JobStats {
    /// threads merged into these statistics
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
    /// measured run time, ns (max over merged threads)
    pub runtime_ns: u64,
    /// each thread's measured run time in whole ms (`runtime_ns / 1e6`, rounded down),
    /// summed over the merged threads: fio's JSON `job_runtime` (its `total_run_time`,
    /// which `group_reporting` adds up: numjobs=2 runtime=1 time_based gives 2000)
    pub runtime_ms_sum: u64,
    /// the verify read-back phase after the I/O phase, ns (max over merged threads; 0:
    /// none): fio counts it in the read direction's run time and the job's
    pub verify_ns: u64,
    /// CPU used by the job's threads (RUSAGE_THREAD differences, summed)
    pub cpu: CpuTimes,
    /// wall time of the threads (setup, I/O and end_fsync) summed over the merged
    /// threads, ns: the denominator of the CPU percentages (fio's `total_run_time`)
    pub run_ns_sum: u64,
    /// failed requests the job went on after (`continue_on_error`); never counted as done
    pub errors: u64,
    /// the first of them: op, file, offset and the system's reason
    pub first_error: Option<String>,
    /// with per-request priorities: `(direction 0 read / 1 write, ioprio, latency)` of the
    /// requests that carried each value — clat, or lat with `lat_percentiles` (fio's
    /// `prios` / "clat prio C/L" report)
    pub prio_lat: Vec<(usize, u16, LatAcc)>,
    /// zone resets of a `zonemode=zbd` job (a full zone written again, `zone_reset_*`,
    /// trims); `None` for other jobs. fio prints them after the write line
    /// ("; N zone resets") and as the job's `zone_resets` JSON key
    pub zone_resets: Option<u64>,
    /// fio's `error`: the errno of the failure that ended the job (`RunError::errno` of
    /// run/fio/mod.rs), 0 when it ran to its end; a group keeps its first thread's
    /// non-zero value
    pub error: i32,
    /// the failure that ended the job, as printed on stderr (`None`: it ran to its end)
    pub failure: Option<String>,
    /// per-interval bandwidth (KiB/s) and IOPS samples (`bw_avg_time`/`iops_avg_time`),
    /// fio's `bw_min` … `iops_samples` (report/fio/levels.rs)
    pub rates: RateSamples,
    /// fio's `iodepth_level` / `iodepth_submit` / `iodepth_complete` counts
    pub depth: DepthStats,
    /// errno of the first error the job went on after (`continue_on_error`); 0 = none.
    /// fio's job `error` key
    pub first_errno: i32,
    /// the job thread's id (gettid(2)): fio's `pid=` of the text report (fio's jobs are
    /// processes; iomark's are threads of one process, each with its own id); a group
    /// keeps its first thread's
    pub pid: u32,
}

impl JobStats {
    /// Add another thread's statistics (`group_reporting`).
    pub fn merge(&mut self, o: &JobStats) {
        self.threads += o.threads;
        self.read.merge(&o.read);
        self.write.merge(&o.write);
        self.sync.merge(&o.sync);
        self.trim.merge(&o.trim);
        self.verified += o.verified;
        self.runtime_ns = self.runtime_ns.max(o.runtime_ns);
        self.runtime_ms_sum += o.runtime_ms_sum;
        self.verify_ns = self.verify_ns.max(o.verify_ns);
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
        if self.pid == 0 {
            self.pid = o.pid;
        }
        self.rates.merge(&o.rates);
        self.depth.merge(&o.depth);
        for (d, p, l) in &o.prio_lat {
            match self.prio_lat.iter_mut().find(|e| e.0 == *d && e.1 == *p) {
                Some(e) => e.2.merge(l),
                None => self.prio_lat.push((*d, *p, l.clone())),
            }
        }
    }
}
