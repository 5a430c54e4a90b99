//! Values of fio's job-control keys: `flow` (I/O share between jobs of a `flow_id`),
//! steady-state termination (`steadystate`, `ss_dur`, `ss_ramp`,
//! `steadystate_check_interval`), the `latency_target` queue-depth search and
//! `io_submit_mode`, held in [`Control`] and checked once the job is read (pure, no I/O).
//! The keys are entries of the option table (`job/fio/options/`); the run side is
//! `run/control/flow.rs`, `run/control/steady.rs` and `run/control/lat_target.rs`.
//!
//! Semantics and defaults: `fio --cmdhelp=KEY` (fio 3.33) and fio's HOWTO; `lat`/
//! `lat_slope` and `steadystate_check_interval` are from later fio releases (the
//! example `example_latency_steadystate.fio` uses them).

use crate::job::units::{fio_size, fio_time};
use std::time::Duration;

/// What a steady-state criterion measures (`steadystate=METRIC[_slope]:LIMIT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsMetric {
    /// I/Os per second
    Iops,
    /// bytes per second
    Bw,
    /// mean completion latency (clat) of the interval, ns
    Lat,
}

impl SsMetric {
    /// fio's name of the metric.
    pub fn name(self) -> &'static str {
        match self {
            SsMetric::Iops => "iops",
            SsMetric::Bw => "bw",
            SsMetric::Lat => "lat",
        }
    }
}

/// A steady-state criterion (fio `steadystate=`, default `iops_slope:0.01%`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsCriterion {
    /// what is measured
    pub metric: SsMetric,
    /// `_slope`: least-squares slope of the window; otherwise the largest deviation
    /// from the window mean
    pub slope: bool,
    /// the limit: percent of the window mean when `pct`, else in the metric's unit
    /// (IOPS, bytes/s, ns)
    pub limit: f64,
    /// the limit was written with `%`
    pub pct: bool,
}

impl Default for SsCriterion {
    fn default() -> Self {
        SsCriterion {
            metric: SsMetric::Iops,
            slope: true,
            limit: 0.01,
            pct: true,
        }
    }
}

impl SsCriterion {
    /// fio's spelling of the criterion as in its JSON `"ss"` key:
    /// `iops:10.000000%`, `bw_slope:1048576` (fio: `%s%s:%f%%` / `%s%s:%g`).
    pub fn fio_string(&self) -> String {
        let name = format!(
            "{}{}",
            self.metric.name(),
            if self.slope { "_slope" } else { "" }
        );
        if self.pct {
            format!("{name}:{:.6}%", self.limit)
        } else {
            format!("{name}:{}", self.limit)
        }
    }
}

/// `latency_target` search settings are the one job model's (`job/model/`), named here too.
pub use crate::job::model::LatTargetSpec;

/// The job-control options of one job, with fio's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Control {
    /// `flow`: weight of this job in its flow (0 = no flow control; fio range 0-1000)
    pub flow: u32,
    /// `flow_id`: jobs with the same id share one flow (default 0)
    pub flow_id: u32,
    /// `flow_sleep`: pause after being held back, µs (0: yield and retry)
    pub flow_sleep: Duration,
    /// `steadystate` / `ss` criterion
    pub ss: SsCriterion,
    /// `ss` was written (it has no effect without `ss_dur`, as in fio)
    pub ss_given: bool,
    /// `steadystate_duration` / `ss_dur`: the rolling window (0 = no steady-state check)
    pub ss_dur: Duration,
    /// `steadystate_ramp_time` / `ss_ramp`: no data collected before this
    pub ss_ramp: Duration,
    /// `steadystate_check_interval`: one sample per interval (default 1 s, fio 3.33's
    /// fixed value)
    pub ss_interval: Duration,
    /// `latency_target` and its companions (None: no search)
    pub lat_target: Option<LatTargetSpec>,
    /// `latency_window` as written (kept until `latency_target` is known)
    pub lat_window: Duration,
    /// `latency_percentile` as written (default 100)
    pub lat_percentile: f64,
    /// `latency_run`
    pub lat_run: bool,
    /// `io_submit_mode=offload`
    pub offload: bool,
}

impl Default for Control {
    fn default() -> Self {
        Control {
            flow: 0,
            flow_id: 0,
            flow_sleep: Duration::ZERO,
            ss: SsCriterion::default(),
            ss_given: false,
            ss_dur: Duration::ZERO,
            ss_ramp: Duration::ZERO,
            ss_interval: Duration::from_secs(1),
            lat_target: None,
            lat_window: Duration::ZERO,
            lat_percentile: 100.0,
            lat_run: false,
            offload: false,
        }
    }
}

/// Parse a `steadystate=` value, e.g. `iops:10%`, `bw_slope:1%`, `bw:20m`, `lat:5%`.
/// Absolute limits: IOPS as a number, bandwidth as a size (bytes/s, `kb_base` units),
/// latency as a time (default unit ns).
pub fn parse_ss(v: &str, kb: u64) -> Result<SsCriterion, String> {
    let accepted =
        "accepted: iops, iops_slope, bw, bw_slope, lat, lat_slope, each with :LIMIT or :LIMIT%";
    let (name, lim) = v
        .trim()
        .split_once(':')
        .ok_or_else(|| format!("a limit is required ({accepted})"))?;
    let (metric, slope) = match name.trim() {
        "iops" => (SsMetric::Iops, false),
        "iops_slope" => (SsMetric::Iops, true),
        "bw" => (SsMetric::Bw, false),
        "bw_slope" => (SsMetric::Bw, true),
        "lat" => (SsMetric::Lat, false),
        "lat_slope" => (SsMetric::Lat, true),
        _ => return Err(accepted.into()),
    };
    let lim = lim.trim();
    let (limit, pct) = match lim.strip_suffix('%') {
        Some(p) => (
            p.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| format!("'{lim}' is not a percentage"))?,
            true,
        ),
        None => (
            match metric {
                SsMetric::Iops => lim
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| format!("'{lim}' is not a number of IOPS"))?,
                SsMetric::Bw => fio_size(lim, kb)? as f64,
                SsMetric::Lat => fio_time(lim, 1)?.as_nanos() as f64,
            },
            false,
        ),
    };
    Ok(SsCriterion {
        metric,
        slope,
        limit,
        pct,
    })
}

/// Settle the keys once the whole job is read: the latency search takes its window,
/// percentile and run flag; returns one-line notices (a key that has no effect).
pub fn finish_control(c: &mut Control, job: &str) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(t) = &mut c.lat_target {
        t.window = c.lat_window;
        t.percentile = c.lat_percentile;
        t.run = c.lat_run;
    } else if !c.lat_window.is_zero() || c.lat_percentile != 100.0 || c.lat_run {
        notes.push(format!(
            "notice: job {job}: latency_window/latency_percentile/latency_run have no effect without latency_target (as in fio)"
        ));
    }
    if c.ss_given && c.ss_dur.is_zero() {
        notes.push(format!(
            "notice: job {job}: steadystate= has no effect without steadystate_duration (ss_dur; fio's default 0 turns the check off)"
        ));
    }
    notes
}

/// Checks that need the whole job: `Err(why)` names the option and what is accepted.
/// `queued`: the job's engine queues requests (io_uring, libaio, posixaio).
pub fn validate_control(c: &Control, queued: bool) -> Result<(), String> {
    if !c.ss_dur.is_zero() {
        let n = c.ss_dur.as_nanos() / c.ss_interval.as_nanos().max(1);
        if n == 0 || (c.ss.slope && n < 2) {
            return Err(format!(
                "steadystate_duration ({:?}) must hold at least {} steadystate_check_interval ({:?}) samples",
                c.ss_dur,
                if c.ss.slope { 2 } else { 1 },
                c.ss_interval
            ));
        }
    }
    if let Some(t) = &c.lat_target {
        if t.window.is_zero() {
            return Err(
                "latency_target needs latency_window (the time each queue depth is tried; default unit µs)"
                    .into(),
            );
        }
    }
    if c.offload && !queued {
        return Err(
            "io_submit_mode=offload needs an engine that queues requests (io_uring, libaio, posixaio); a synchronous engine completes each request inside its submit call"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steadystate_values_parse_like_fio() {
        let c = parse_ss("iops:10%", 1024).unwrap();
        assert_eq!(
            (c.metric, c.slope, c.limit, c.pct),
            (SsMetric::Iops, false, 10.0, true)
        );
        assert_eq!(c.fio_string(), "iops:10.000000%");
        let c = parse_ss("bw_slope:1%", 1024).unwrap();
        assert_eq!((c.metric, c.slope, c.pct), (SsMetric::Bw, true, true));
        assert_eq!(parse_ss("bw:2m", 1024).unwrap().limit, 2_097_152.0);
        assert_eq!(parse_ss("lat:50us", 1024).unwrap().limit, 50_000.0);
        assert_eq!(
            parse_ss("lat_slope:0.1%", 1024).unwrap().fio_string(),
            "lat_slope:0.100000%"
        );
        assert!(parse_ss("iops", 1024).is_err());
        assert!(parse_ss("clat:5%", 1024).is_err());
        assert!(parse_ss("iops:x%", 1024).is_err());
        assert_eq!(SsCriterion::default().fio_string(), "iops_slope:0.010000%");
    }

    /// Apply `key=value` of the option table to `j`.
    fn set(
        j: &mut crate::job::fio::FioJob,
        key: &str,
        value: &str,
    ) -> Result<(), crate::job::fio::FioError> {
        let o = crate::job::fio::ini::Origin::CommandLine;
        crate::job::fio::options::apply(j, key, Some(value), &o, &mut Vec::new())
    }

    #[test]
    fn control_keys_apply_and_validate() {
        let mut j = crate::job::fio::FioJob::default();
        set(&mut j, "flow", "8").unwrap();
        set(&mut j, "flow_sleep", "1000").unwrap();
        assert_eq!(
            (j.control.flow, j.control.flow_sleep),
            (8, Duration::from_millis(1))
        );
        assert!(set(&mut j, "flow", "1001").is_err());
        set(&mut j, "latency_target", "500000").unwrap();
        set(&mut j, "latency_window", "5000000").unwrap();
        set(&mut j, "latency_percentile", "99.9").unwrap();
        let c = &mut j.control;
        assert!(finish_control(c, "j").is_empty());
        let t = c.lat_target.unwrap();
        assert_eq!(t.target, Duration::from_millis(500));
        assert_eq!(t.window, Duration::from_secs(5));
        assert_eq!(t.percentile, 99.9);
        set(&mut j, "io_submit_mode", "offload").unwrap();
        assert!(validate_control(&j.control, true).is_ok());
        let e = validate_control(&j.control, false).unwrap_err();
        assert!(e.contains("io_submit_mode=offload"), "{e}");
        assert!(set(&mut j, "io_submit_mode", "thread").is_err());
        // a key of another group leaves the job control alone
        let before = j.control.clone();
        set(&mut j, "rate", "1").unwrap();
        assert_eq!(j.control, before);
        // a slope over one sample has no meaning
        let mut j = crate::job::fio::FioJob::default();
        set(&mut j, "ss_dur", "1").unwrap();
        assert!(validate_control(&j.control, false).is_err());
        set(&mut j, "ss", "iops:5%").unwrap();
        assert!(validate_control(&j.control, false).is_ok());
        // ss without ss_dur does nothing in fio: said
        let mut j = crate::job::fio::FioJob::default();
        set(&mut j, "ss", "iops:5%").unwrap();
        assert_eq!(finish_control(&mut j.control, "j").len(), 1);
    }
}
