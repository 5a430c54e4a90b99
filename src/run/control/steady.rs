//! fio's steady-state job termination (`steadystate`/`ss`, `ss_dur`, `ss_ramp`,
//! `steadystate_check_interval`; fio's steadystate.c).
//!
//! Every check interval (1 s by default) the run's coordinating thread reads the live
//! counters of a job's threads (with `group_reporting`: of every thread of the reporting
//! group that has `ss_dur`) and records one sample: IOPS and bytes/s over the interval,
//! and the mean completion latency (clat, ns) of the I/Os completed in it. Sampling
//! starts one interval after `ss_ramp`. Once the window holds `ss_dur / interval`
//! samples, each new sample tests the criterion over the window:
//! - deviation (`iops`, `bw`, `lat`): `max |x - mean|`, in percent of the mean with `%`;
//! - slope (`…_slope`): least-squares slope of the samples against their index
//!   (per interval), in percent of the mean with `%`;
//!
//! and steady state is attained when the criterion is below the limit (in absolute
//! value for a slope). The job (or group) then stops before its runtime.
//! Rates are `Δcount × 1000 / Δms` over the measured interval (fio scales by the nominal
//! interval instead; the two agree when the check runs on time).

use crate::job::fio::control::{SsCriterion, SsMetric};
use crate::result::job::SteadyReport;
use std::collections::VecDeque;
use std::time::Duration;

/// Criterion value of a window: `(criterion, max_deviation, slope)` as fio reports them
/// (the one not used by the criterion is 0). `data` oldest first. `None` when the
/// criterion cannot be computed (empty window, or a `%` limit over a zero mean).
pub fn evaluate(c: &SsCriterion, data: &[f64]) -> Option<(f64, f64, f64)> {
    let n = data.len();
    if n == 0 {
        return None;
    }
    let mean = data.iter().sum::<f64>() / n as f64;
    if c.pct && mean == 0.0 {
        return None;
    }
    let rel = |x: f64| if c.pct { 100.0 * x / mean } else { x };
    if c.slope {
        if n < 2 {
            return None;
        }
        let nf = n as f64;
        let sum_x: f64 = (0..n).map(|i| i as f64).sum();
        let sum_x2: f64 = (0..n).map(|i| (i * i) as f64).sum();
        let sum_y: f64 = data.iter().sum();
        let sum_xy: f64 = data.iter().enumerate().map(|(i, y)| i as f64 * y).sum();
        let slope = (sum_xy - sum_x * sum_y / nf) / (sum_x2 - sum_x * sum_x / nf);
        Some((rel(slope), 0.0, slope))
    } else {
        let dev = data.iter().map(|x| (x - mean).abs()).fold(0.0, f64::max);
        Some((rel(dev), dev, 0.0))
    }
}

/// Whether a criterion value meets the limit (fio: deviation `<`, slope `|x| <`).
pub fn attained(c: &SsCriterion, criterion: f64) -> bool {
    if c.slope {
        criterion.abs() < c.limit
    } else {
        criterion < c.limit
    }
}

/// Steady-state state of one job thread or reporting group.
#[derive(Clone, Debug)]
pub struct Steady {
    crit: SsCriterion,
    dur: Duration,
    ramp: Duration,
    interval: Duration,
    window: usize,
    iops: VecDeque<u64>,
    bw: VecDeque<u64>,
    lat: VecDeque<u64>,
    /// elapsed time and `[ios, bytes, clat sum ns, clat count]` at the last check
    prev: Option<(Duration, [u64; 4])>,
    next_check: Duration,
    last: (f64, f64, f64),
    attained_at: Option<Duration>,
}

impl Steady {
    /// A detector for `crit` over a `dur` window of `interval` samples, sampling after
    /// `ramp`.
    pub fn new(crit: SsCriterion, dur: Duration, ramp: Duration, interval: Duration) -> Self {
        let interval = interval.max(Duration::from_millis(1));
        let window = (dur.as_nanos() / interval.as_nanos()).max(1) as usize;
        Steady {
            crit,
            dur,
            ramp,
            interval,
            window,
            iops: VecDeque::new(),
            bw: VecDeque::new(),
            lat: VecDeque::new(),
            // counters start at zero with the jobs (fio's prev_time is the job start)
            prev: Some((Duration::ZERO, [0; 4])),
            next_check: interval,
            last: (0.0, 0.0, 0.0),
            attained_at: None,
        }
    }

    /// Whether a check is due at `elapsed` (time since the jobs started).
    pub fn due(&self, elapsed: Duration) -> bool {
        self.attained_at.is_none() && elapsed >= self.next_check
    }

    /// One check at `elapsed` with the summed live counters `[ios, bytes, clat sum ns,
    /// clat count]` of the threads it watches. Returns `true` when steady state is
    /// attained now (the caller stops the threads).
    pub fn check(&mut self, elapsed: Duration, now: [u64; 4]) -> bool {
        while self.next_check <= elapsed {
            self.next_check += self.interval;
        }
        let prev = self.prev.replace((elapsed, now));
        let Some((t0, p)) = prev else {
            return false;
        };
        // the first sample covers the interval that ends one interval after ss_ramp
        if elapsed < self.ramp + self.interval && !self.ramp.is_zero() {
            return false;
        }
        let ms = (elapsed - t0).as_millis().max(1) as u64;
        let d = |k: usize| now[k].saturating_sub(p[k]);
        let per_s = |x: u64| (u128::from(x) * 1000 / u128::from(ms)) as u64;
        let lat = d(2).checked_div(d(3)).unwrap_or(0);
        for (q, v) in [
            (&mut self.iops, per_s(d(0))),
            (&mut self.bw, per_s(d(1))),
            (&mut self.lat, lat),
        ] {
            q.push_back(v);
            if q.len() > self.window {
                q.pop_front();
            }
        }
        if self.iops.len() < self.window {
            return false;
        }
        let data: Vec<f64> = self.series().iter().map(|&x| x as f64).collect();
        match evaluate(&self.crit, &data) {
            Some(r) => {
                self.last = r;
                if attained(&self.crit, r.0) {
                    self.attained_at = Some(elapsed);
                    return true;
                }
                false
            }
            None => false,
        }
    }

    fn series(&self) -> &VecDeque<u64> {
        match self.crit.metric {
            SsMetric::Iops => &self.iops,
            SsMetric::Bw => &self.bw,
            SsMetric::Lat => &self.lat,
        }
    }

    /// The report of this detector.
    pub fn report(&self) -> SteadyReport {
        let pad = |q: &VecDeque<u64>| {
            let mut v: Vec<u64> = q.iter().copied().collect();
            v.resize(self.window.max(v.len()), 0);
            v
        };
        SteadyReport {
            ss: self.crit.fio_string(),
            metric: self.crit.metric.name().into(),
            slope: self.crit.slope,
            pct: self.crit.pct,
            dur_s: self.dur.as_secs(),
            attained_after_ns: self
                .attained_at
                .map(|t| u64::try_from(t.as_nanos()).unwrap_or(u64::MAX)),
            criterion: self.last.0,
            max_deviation: self.last.1,
            slope_value: self.last.2,
            iops: pad(&self.iops),
            bw: pad(&self.bw),
            lat: pad(&self.lat),
        }
    }
}

/// The detectors of one stonewall group: `jobs[i]` and `gids[i]` are the job and
/// reporting group of member thread `i`. A job without `ss_dur` gets none; a
/// `group_reporting` job shares one with the other such threads of its reporting group
/// (fio sums the group's I/O); any other thread gets its own. Each entry: the member
/// indices it watches, and the detector.
pub fn detectors(jobs: &[&crate::job::fio::FioJob], gids: &[u32]) -> Vec<(Vec<usize>, Steady)> {
    let mut out: Vec<(Option<u32>, Vec<usize>, Steady)> = Vec::new();
    for (i, (j, &gid)) in jobs.iter().zip(gids).enumerate() {
        let c = &j.control;
        if c.ss_dur.is_zero() {
            continue;
        }
        let key = j.group_reporting.then_some(gid);
        match out.iter_mut().find(|e| key.is_some() && e.0 == key) {
            Some(e) => e.1.push(i),
            None => out.push((
                key,
                vec![i],
                Steady::new(c.ss, c.ss_dur, c.ss_ramp, c.ss_interval),
            )),
        }
    }
    out.into_iter().map(|(_, m, d)| (m, d)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crit(metric: SsMetric, slope: bool, limit: f64, pct: bool) -> SsCriterion {
        SsCriterion {
            metric,
            slope,
            limit,
            pct,
        }
    }

    /// The figures of a real fio 3.33 run: iops [5768360, 4684778] → mean 5226569,
    /// max deviation 541791, criterion 10.366093%; bw [22073819136, 21998907392] →
    /// slope -74911744, criterion -0.339946%.
    #[test]
    fn criteria_match_fio_figures() {
        let c = crit(SsMetric::Iops, false, 50.0, true);
        let (cr, dev, slope) = evaluate(&c, &[5_768_360.0, 4_684_778.0]).unwrap();
        assert_eq!(dev, 541_791.0);
        assert_eq!(slope, 0.0);
        assert!((cr - 10.366093).abs() < 1e-5, "{cr}");
        assert!(attained(&c, cr));
        let c = crit(SsMetric::Bw, true, 5.0, true);
        let (cr, dev, slope) = evaluate(&c, &[22_073_819_136.0, 21_998_907_392.0]).unwrap();
        assert_eq!(slope, -74_911_744.0);
        assert_eq!(dev, 0.0);
        assert!((cr + 0.339946).abs() < 1e-5, "{cr}");
        assert!(attained(&c, cr));
    }

    #[test]
    fn slope_of_a_line_and_limits() {
        // y = 100 + 10 i: slope 10 per interval, mean 120 → 8.333%
        let data = [100.0, 110.0, 120.0, 130.0, 140.0];
        let c = crit(SsMetric::Iops, true, 8.0, true);
        let (cr, _, s) = evaluate(&c, &data).unwrap();
        assert!((s - 10.0).abs() < 1e-9 && (cr - 100.0 * 10.0 / 120.0).abs() < 1e-9);
        assert!(!attained(&c, cr));
        assert!(attained(&crit(SsMetric::Iops, true, 8.4, true), cr));
        // absolute limits: deviation 20 vs limit 20 is not below it
        let c = crit(SsMetric::Iops, false, 20.0, false);
        let (cr, dev, _) = evaluate(&c, &[80.0, 100.0, 120.0]).unwrap();
        assert_eq!((cr, dev), (20.0, 20.0));
        assert!(!attained(&c, cr));
        // a falling series attains a slope criterion by absolute value only
        let c = crit(SsMetric::Bw, true, 1.0, false);
        assert!(!attained(&c, evaluate(&c, &[10.0, 8.0, 6.0]).unwrap().0));
        // a % criterion over a zero mean cannot be judged
        assert!(evaluate(&crit(SsMetric::Iops, false, 1.0, true), &[0.0, 0.0]).is_none());
    }

    /// Feed a detector steady counters: it needs a full window after the ramp.
    #[test]
    fn detector_waits_for_ramp_and_window() {
        let c = crit(SsMetric::Iops, false, 5.0, true);
        let s1 = Duration::from_secs(1);
        let mut d = Steady::new(c, 3 * s1, 2 * s1, s1);
        let mut got = None;
        for k in 1..=10u64 {
            let t = s1 * k as u32;
            assert!(d.due(t));
            // 1000 IOPS, 4 KiB each, 50 µs clat
            if d.check(t, [1000 * k, 4_096_000 * k, 50_000_000 * k, 1000 * k]) {
                got = Some(k);
                break;
            }
        }
        // samples at 3, 4, 5 s (ramp 2 s + one interval): attained at 5 s
        assert_eq!(got, Some(5));
        let r = d.report();
        assert_eq!(r.iops, vec![1000, 1000, 1000]);
        assert_eq!(r.bw, vec![4_096_000; 3]);
        assert_eq!(r.lat, vec![50_000; 3]);
        // what the JSON and text reports show of it (report/fio/levels.rs renders them)
        assert_eq!(r.attained_after_ns, Some(5_000_000_000));
        assert_eq!(r.ss, "iops:5.000000%");
        assert_eq!(format!("{:.6}", r.criterion), "0.000000");
        assert!(r.pct);
        assert_eq!(r.iops.iter().sum::<u64>() / r.iops.len() as u64, 1000);
        assert_eq!(r.metric, "iops");
    }

    /// A window that never fills is reported zero-padded and not attained.
    #[test]
    fn unfilled_window_is_padded() {
        let c = crit(SsMetric::Lat, false, 5.0, true);
        let s1 = Duration::from_secs(1);
        let mut d = Steady::new(c, 4 * s1, Duration::ZERO, s1);
        assert!(!d.check(s1, [10, 10, 1000, 10]));
        assert!(!d.check(2 * s1, [20, 20, 3000, 20]));
        let r = d.report();
        assert_eq!(r.lat, vec![100, 200, 0, 0]);
        assert_eq!(r.attained_after_ns, None);
        assert_eq!(r.metric, "lat");
        assert_eq!(r.lat[1], 200);
        assert_eq!(r.lat.iter().sum::<u64>() / r.lat.len() as u64, 75);
    }
}
