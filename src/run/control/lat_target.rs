//! fio's `latency_target` queue-depth search (`fio --cmdhelp=latency_target`, fio's
//! io_u.c `lat_target_*`): find the highest depth ≤ `iodepth` at which, over each
//! `latency_window`, at least `latency_percentile` % of I/Os complete within the target
//! (total latency, submit to completion).
//!
//! The search starts at depth 1. A window that meets the percentile raises the depth:
//! doubled while no depth has failed, else bisected towards the lowest failing depth. A
//! window that misses it lowers the depth (bisected towards the last good one) after
//! letting in-flight I/O complete. When a success leaves the depth unchanged the depth
//! is found: the job's statistics restart for one final window at that depth, then the
//! job ends (or, with `latency_run=1`, keeps adjusting). With `latency_percentile=100`
//! every late I/O lowers the depth at once, and a late I/O at depth 1 fails the job
//! (fio: "latency of N nsec exceeds specified max").

use crate::job::model::LatTargetSpec;

/// What the worker must do after a window check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LtAction {
    /// keep going
    None,
    /// the depth went down: let in-flight I/O complete (fio's `io_u_quiesce`)
    Quiesce,
    /// depth found: let in-flight I/O complete, restart the statistics, run one more
    /// window at this depth
    FinalRun,
    /// the final window is over: the job ends
    Done,
}

/// State of the search of one job thread.
#[derive(Clone, Debug)]
pub(crate) struct LatTarget {
    spec: LatTargetSpec,
    target_ns: u64,
    window_ns: u64,
    max_depth: u32,
    qd: u32,
    qd_low: u32,
    qd_high: u32,
    end_run: bool,
    /// window start (ns on the worker's time line) and I/Os completed before it
    cycle: (u64, u64),
    failed: u64,
    /// a percentile-100 miss lowered the depth: the worker quiesces and restarts the
    /// window
    pending: bool,
}

impl LatTarget {
    /// A search up to `max_depth` (the depth the engine really runs at), starting now
    /// (`now_ns`) with `ios` I/Os already completed.
    pub fn new(spec: LatTargetSpec, max_depth: u32, now_ns: u64, ios: u64) -> Self {
        let max_depth = max_depth.max(1);
        LatTarget {
            spec,
            target_ns: u64::try_from(spec.target.as_nanos()).unwrap_or(u64::MAX),
            window_ns: u64::try_from(spec.window.as_nanos()).unwrap_or(u64::MAX),
            max_depth,
            qd: 1,
            qd_low: 1,
            qd_high: max_depth,
            end_run: false,
            cycle: (now_ns, ios),
            failed: 0,
            pending: false,
        }
    }

    /// Depth currently allowed.
    pub fn depth(&self) -> usize {
        self.qd as usize
    }

    /// Restart the window (after a quiesce or a statistics reset).
    pub fn new_cycle(&mut self, now_ns: u64, ios: u64) {
        self.cycle = (now_ns, ios);
        self.failed = 0;
        self.pending = false;
    }

    /// fio's `__lat_target_failed`: lower the depth; `true` at depth 1 (nothing left).
    fn lower(&mut self) -> bool {
        if self.qd == 1 {
            return true;
        }
        self.qd_high = self.qd;
        if self.qd == self.qd_low {
            self.qd_low -= 1;
        }
        self.qd = (self.qd + self.qd_low) / 2;
        false
    }

    /// One measured I/O's total latency. `Err(())` when it is late at depth 1 with
    /// `latency_percentile=100`: the job fails, as in fio.
    pub fn on_latency(&mut self, lat_ns: u64) -> Result<(), ()> {
        if lat_ns <= self.target_ns {
            return Ok(());
        }
        if self.spec.percentile >= 100.0 {
            if self.pending {
                // already lowered for this window: fio quiesces first
                return Ok(());
            }
            if self.lower() {
                return Err(());
            }
            self.pending = true;
            return Ok(());
        }
        self.failed += 1;
        Ok(())
    }

    /// A percentile-100 miss lowered the depth: quiesce and restart the window.
    pub fn take_pending(&mut self) -> bool {
        std::mem::take(&mut self.pending)
    }

    /// fio's `lat_target_success`.
    fn success(&mut self) -> LtAction {
        let qd = self.qd;
        self.qd_low = self.qd;
        self.qd = if self.qd_high != self.max_depth {
            (self.qd + self.qd_high) / 2
        } else {
            self.qd.saturating_mul(2)
        }
        .min(self.max_depth);
        if self.qd == qd {
            if self.end_run {
                if !self.spec.run {
                    return LtAction::Done;
                }
            } else {
                self.end_run = true;
                return LtAction::FinalRun;
            }
        }
        LtAction::None
    }

    /// fio's `lat_target_check`, called as I/O completes: once a window has passed,
    /// compare the share of I/Os within the target with the percentile. `ios`: I/Os
    /// completed so far. The caller restarts the window ([`Self::new_cycle`]) after
    /// any action but `Done`.
    pub fn check(&mut self, now_ns: u64, ios: u64) -> LtAction {
        if now_ns.saturating_sub(self.cycle.0) < self.window_ns {
            return LtAction::None;
        }
        let n = ios.saturating_sub(self.cycle.1);
        let ok = if n == 0 {
            // no I/O completed in a whole window: nothing met the target
            0.0
        } else {
            n.saturating_sub(self.failed) as f64 * 100.0 / n as f64
        };
        let act = if ok >= self.spec.percentile {
            self.success()
        } else {
            self.lower();
            LtAction::Quiesce
        };
        self.new_cycle(now_ns, ios);
        act
    }
}

use crate::result::job::LatTargetReport;

impl LatTarget {
    /// The report of this search.
    pub fn report(&self) -> LatTargetReport {
        LatTargetReport {
            depth: self.qd,
            target_ns: self.target_ns,
            window_us: self.window_ns / 1000,
            percentile: self.spec.percentile,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn spec(target_us: u64, pct: f64) -> LatTargetSpec {
        LatTargetSpec {
            target: Duration::from_micros(target_us),
            window: Duration::from_millis(10),
            percentile: pct,
            run: false,
        }
    }

    /// Drive the search against a device whose latency is `per_qd_us × depth`: every
    /// window completes 100 I/Os at that latency. Returns the depth found and the
    /// number of windows it took.
    fn search(max: u32, per_qd_us: u64, target_us: u64, pct: f64) -> (u32, u32) {
        let mut lt = LatTarget::new(spec(target_us, pct), max, 0, 0);
        let (mut now, mut ios) = (0u64, 0u64);
        for w in 1..200 {
            for _ in 0..100 {
                let lat = per_qd_us * 1000 * lt.depth() as u64;
                assert!(lt.on_latency(lat).is_ok(), "fatal at depth {}", lt.depth());
                ios += 1;
                if lt.take_pending() {
                    lt.new_cycle(now, ios);
                }
            }
            now += 10_000_000;
            match lt.check(now, ios) {
                LtAction::Done => return (lt.report().depth, w),
                LtAction::FinalRun => {
                    ios = 0;
                    lt.new_cycle(now, ios);
                }
                _ => {}
            }
        }
        panic!("search did not end");
    }

    #[test]
    fn finds_highest_depth_under_target() {
        // 100 µs per queued request, target 450 µs: depth 4 is the highest that fits
        assert_eq!(search(128, 100, 450, 99.9).0, 4);
        assert_eq!(search(128, 100, 450, 100.0).0, 4);
        // 10 µs per request, target 1 ms: every depth up to iodepth fits
        assert_eq!(search(16, 10, 1000, 99.0).0, 16);
        // target just above depth 1: stays at 1
        assert_eq!(search(32, 100, 150, 90.0).0, 1);
        // 7 fits (700 ≤ 750), 8 does not: found by bisection after doubling
        assert_eq!(search(64, 100, 750, 99.0).0, 7);
    }

    #[test]
    fn late_io_at_depth_one_fails_with_percentile_100_only() {
        let mut lt = LatTarget::new(spec(100, 100.0), 8, 0, 0);
        assert!(lt.on_latency(50_000).is_ok());
        assert!(lt.on_latency(200_000).is_err());
        let mut lt = LatTarget::new(spec(100, 99.0), 8, 0, 0);
        assert!(lt.on_latency(200_000).is_ok());
        // a window with every I/O late at depth 1: stays at 1, no failure
        assert_eq!(lt.check(20_000_000, 1), LtAction::Quiesce);
        assert_eq!(lt.depth(), 1);
    }

    #[test]
    fn latency_run_keeps_going() {
        let mut s = spec(1000, 99.0);
        s.run = true;
        let mut lt = LatTarget::new(s, 2, 0, 0);
        let mut acts = Vec::new();
        let mut now = 0;
        for i in 1..6u64 {
            now += 10_000_000;
            acts.push(lt.check(now, i * 10));
        }
        assert!(acts.contains(&LtAction::FinalRun));
        assert!(!acts.contains(&LtAction::Done));
        assert_eq!(lt.depth(), 2);
    }
}
