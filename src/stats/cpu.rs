//! CPU accounting: `getrusage(2)` snapshots and their differences, so each job thread
//! of `iomark run` records what fio's `cpu : usr=…%, sys=…%, ctx=…, majf=…, minf=…` line
//! reports (RUSAGE_THREAD, like fio's per-thread accounting) and a run records the
//! process's user/system time and context switches (RUSAGE_SELF). Part of the recorder:
//! the result carries these counters as they are (`RunResult.jobs[].cpu`).

use serde::{Deserialize, Serialize};

/// Resource usage counters; times in nanoseconds (the kernel gives µs resolution).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuTimes {
    /// user CPU time, ns
    pub usr_ns: u64,
    /// system CPU time, ns
    pub sys_ns: u64,
    /// voluntary context switches (`ru_nvcsw`)
    pub vol_ctx: u64,
    /// involuntary context switches (`ru_nivcsw`)
    pub invol_ctx: u64,
    /// major page faults (`ru_majflt`)
    pub majf: u64,
    /// minor page faults (`ru_minflt`)
    pub minf: u64,
}

/// Whose usage to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// the whole process (RUSAGE_SELF)
    Process,
    /// the calling thread only (RUSAGE_THREAD, Linux)
    Thread,
    /// every child reaped so far, with what each reaped in turn (RUSAGE_CHILDREN;
    /// `iomark time`)
    Children,
}

impl CpuTimes {
    /// Read the counters now. On failure (never expected on Linux) all zeros.
    pub fn now(who: Who) -> CpuTimes {
        let w = match who {
            Who::Process => libc::RUSAGE_SELF,
            Who::Thread => libc::RUSAGE_THREAD,
            Who::Children => libc::RUSAGE_CHILDREN,
        };
        // SAFETY: getrusage writes into the zeroed struct we own.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(w, &mut ru) } != 0 {
            return CpuTimes::default();
        }
        let tv = |t: libc::timeval| {
            (t.tv_sec.max(0) as u64) * 1_000_000_000 + (t.tv_usec.max(0) as u64) * 1_000
        };
        CpuTimes {
            usr_ns: tv(ru.ru_utime),
            sys_ns: tv(ru.ru_stime),
            vol_ctx: ru.ru_nvcsw.max(0) as u64,
            invol_ctx: ru.ru_nivcsw.max(0) as u64,
            majf: ru.ru_majflt.max(0) as u64,
            minf: ru.ru_minflt.max(0) as u64,
        }
    }

    /// `self - earlier`, saturating at 0 per counter.
    pub fn since(&self, earlier: &CpuTimes) -> CpuTimes {
        CpuTimes {
            usr_ns: self.usr_ns.saturating_sub(earlier.usr_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
            vol_ctx: self.vol_ctx.saturating_sub(earlier.vol_ctx),
            invol_ctx: self.invol_ctx.saturating_sub(earlier.invol_ctx),
            majf: self.majf.saturating_sub(earlier.majf),
            minf: self.minf.saturating_sub(earlier.minf),
        }
    }

    /// Add another thread's counters (group_reporting).
    pub fn add(&mut self, o: &CpuTimes) {
        self.usr_ns += o.usr_ns;
        self.sys_ns += o.sys_ns;
        self.vol_ctx += o.vol_ctx;
        self.invol_ctx += o.invol_ctx;
        self.majf += o.majf;
        self.minf += o.minf;
    }

    /// Context switches, voluntary + involuntary (fio's `ctx`).
    pub fn ctx(&self) -> u64 {
        self.vol_ctx + self.invol_ctx
    }

    /// fio's `usr_cpu`/`sys_cpu` percentages: CPU time × 100 / run time, where both are
    /// summed over the merged threads (fio `stat.c`: `usr_time * 100 / total_run_time`).
    /// `(0, 0)` when the run time is 0.
    pub fn percent(&self, run_ns_sum: u64) -> (f64, f64) {
        if run_ns_sum == 0 {
            return (0.0, 0.0);
        }
        let r = run_ns_sum as f64;
        (
            self.usr_ns as f64 * 100.0 / r,
            self.sys_ns as f64 * 100.0 / r,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_is_cpu_time_over_run_time() {
        let c = CpuTimes {
            usr_ns: 250_000_000,
            sys_ns: 500_000_000,
            ..Default::default()
        };
        assert_eq!(c.percent(1_000_000_000), (25.0, 50.0));
        assert_eq!(c.percent(0), (0.0, 0.0));
    }

    #[test]
    fn thread_usage_grows_with_work() {
        // spin until this thread has used 20 ms of CPU (bounded by 10 s of wall time,
        // so a loaded machine only makes it slower); broken accounting never gets there
        let a = CpuTimes::now(Who::Thread);
        let t = std::time::Instant::now();
        let mut x = 1u64;
        let busy = |c: &CpuTimes| c.usr_ns + c.sys_ns;
        while busy(&CpuTimes::now(Who::Thread).since(&a)) < 20_000_000
            && t.elapsed() < std::time::Duration::from_secs(10)
        {
            for _ in 0..10_000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            std::hint::black_box(x);
        }
        let d = CpuTimes::now(Who::Thread).since(&a);
        assert!(busy(&d) >= 20_000_000, "{d:?}");
        let p = CpuTimes::now(Who::Process).since(&a);
        assert!(
            busy(&p) >= busy(&d),
            "the process used at least this thread's CPU"
        );
    }
}
