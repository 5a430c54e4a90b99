//! `fileio --progress` (iomark extension, off by default as sysbench shows nothing
//! while it runs): a live line on stderr, drawn only when stderr is a terminal, so
//! pipes and files get sysbench's output unchanged. During `run` it shows the test,
//! the current MB/s and IOPS (the last sample of the run's one sampler,
//! run/sampler.rs [`LiveRates`]), the elapsed time and the remaining one; once the
//! time is up (or the events done) it says what the run still waits for (the final
//! fsync of `--file-fsync-end`, the requests in flight). `prepare` and `cleanup` get a
//! line saying what they wait for. The line is redrawn ten times a second (never
//! frozen), and sysbench's messages are printed above it (util/console.rs).
//!
//! The wording of sysbench's `--report-interval` lines is here too ([`interval_line`]):
//! they are printed while the run goes on, by the main thread's schedule (run.rs).

use crate::job::model::Job;
use crate::job::sysbench::Settings;
use crate::run::sampler::{LiveRates, Rates};
use crate::util::console::Console;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;

/// Whether `job` draws the live line.
pub(super) fn wanted(job: &Settings) -> bool {
    job.progress && std::io::stderr().is_terminal()
}

/// The current figures: `12.3 MB/s, 3150 IOPS now, lat mean 310.2 µs, p99 1.20 ms`
/// (the last sample's interval: its completion latencies' mean and 99th percentile;
/// `lat -` when no I/O completed in it), or that none is measured yet.
pub fn rates_text(r: Option<Rates>) -> String {
    use crate::result::flush::dur;
    match r {
        Some(r) => {
            let lat = r.lat.map_or("lat -".into(), |l| {
                format!("lat mean {}, p99 {}", dur(l.mean_ns), dur(l.p99_ns as f64))
            });
            format!("{:.1} MB/s, {:.0} IOPS now, {lat}", r.mb_s, r.iops)
        }
        None => "measuring".into(),
    }
}

/// `MMm:SSs` of `s` seconds.
fn clock(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    format!("{:02}m:{:02}s", s / 60, s % 60)
}

/// What remains of a run of `model` (the job in the one job model) after `elapsed`
/// seconds with the last sample `r`: the time left (of `--time`, or of `--events` at
/// the current rate, the sooner), or what the run waits for once its time is up or its
/// events are done.
pub(crate) fn left_text(model: &Job, elapsed: f64, r: Option<Rates>) -> String {
    let t = &model.thread;
    let time_left = t.time.map(|d| d.as_secs_f64() - elapsed);
    let events_left = t.ios.map(|n| n.saturating_sub(r.map_or(0, |r| r.ops)));
    let over = time_left.is_some_and(|t| t <= 0.0) || events_left == Some(0);
    if over {
        return if t.syncs.at_end && t.writes {
            "done: waiting for the final fsync of the files (--file-fsync-end)".into()
        } else {
            "done: waiting for the requests in flight to complete".into()
        };
    }
    let by_events = match (events_left, r) {
        (Some(n), Some(r)) if r.iops > 0.0 => Some(n as f64 / r.iops),
        _ => None,
    };
    match (time_left, by_events) {
        (Some(t), Some(e)) => format!("{} left", clock(t.min(e))),
        (Some(t), None) => format!("{} left", clock(t)),
        (None, Some(e)) => format!("~{} left", clock(e)),
        (None, None) => "time left unknown".into(),
    }
}

/// The live line of `run` of `model`: `run rndrw: 12.3 MB/s, 3150 IOPS now, 00:00:04
/// elapsed, 00m:06s left`.
pub(super) fn run_line(model: &Job, live: &Arc<LiveRates>) -> ProgressBar {
    let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    run_style(b, model, live)
}

/// The look of [`run_line`].
fn run_style(b: ProgressBar, model: &Job, live: &Arc<LiveRates>) -> ProgressBar {
    let (l1, l2) = (live.clone(), live.clone());
    let j = model.clone();
    let rates = move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = w.write_str(&rates_text(l1.get()));
    };
    let left = move |st: &ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = w.write_str(&left_text(&j, st.elapsed().as_secs_f64(), l2.get()));
    };
    let tpl = "{spinner} {msg}: {rates}, {elapsed_precise} elapsed, {left}";
    if let Ok(s) = ProgressStyle::with_template(tpl) {
        b.set_style(s.with_key("rates", rates).with_key("left", left));
    }
    b.set_message(format!("run {}", model.work.labels.mode));
    b.enable_steady_tick(std::time::Duration::from_millis(100));
    b
}

/// A waiting line (`prepare`, `cleanup`) for `job` when it draws one, with the
/// console's messages printed above it; [`done`] takes it off.
pub(super) fn waiting(job: &Settings, console: &Console, what: &str) -> Option<ProgressBar> {
    let b = wanted(job).then(|| crate::run::copy::waiting(what))?;
    console.set_live(Some(b.clone()));
    Some(b)
}

/// Take a live line off the terminal (and the console).
pub(super) fn done(console: &Console, b: Option<ProgressBar>) {
    if let Some(b) = b {
        console.set_live(None);
        b.finish_and_clear();
    }
}

/// One `--report-interval` line: read/write bandwidth in MiB/s, fsyncs per
/// second, and the interval's P-th percentile latency in ms with 3 decimals.
pub(super) fn interval_line(
    elapsed_s: f64,
    period_s: f64,
    bytes_read: u64,
    bytes_written: u64,
    fsyncs: u64,
    pct_ns: u64,
    percentile: u32,
) -> String {
    let t = crate::result::positive_secs(period_s);
    format!(
        "[ {}s ] reads: {:.2} MiB/s writes: {:.2} MiB/s fsyncs: {:.2}/s latency (ms,{}%): {:.3}",
        elapsed_s.round() as u64,
        bytes_read as f64 / 1_048_576.0 / t,
        bytes_written as f64 / 1_048_576.0 / t,
        fsyncs as f64 / t,
        percentile,
        pct_ns as f64 / 1e6
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_line_format() {
        let l = interval_line(2.0004, 1.0, 29_350_000, 19_566_000, 3810, 214_000, 95);
        assert_eq!(l, "[ 2s ] reads: 27.99 MiB/s writes: 18.66 MiB/s fsyncs: 3810.00/s latency (ms,95%): 0.214");
    }
    use crate::job::sysbench::TestMode;

    /// A job of `time` seconds and `events` events (0: no limit) in `mode`, in the
    /// one job model.
    fn model(time: u64, events: u64, mode: Option<TestMode>) -> Job {
        let mut j = crate::job::sysbench::tests::job(1 << 20, 1, 4096);
        (j.time_limit, j.event_limit, j.settings.test_mode) = (time, events, mode);
        j.model(&j.geometry().unwrap())
    }

    fn job(time: u64, events: u64) -> Job {
        model(time, events, None)
    }

    #[test]
    fn remaining_time_follows_the_limits_and_waits_are_named() {
        let r = |ops, iops| {
            Some(Rates {
                t_s: 1.0,
                mb_s: 1.0,
                iops,
                ops,
                lat: None,
            })
        };
        assert_eq!(left_text(&job(10, 0), 4.0, None), "00m:06s left");
        assert_eq!(
            left_text(&job(0, 1000), 1.0, r(400, 200.0)),
            "~00m:03s left"
        );
        // the sooner of the two limits
        assert_eq!(
            left_text(&job(10, 1000), 1.0, r(400, 200.0)),
            "00m:03s left"
        );
        assert_eq!(left_text(&job(0, 0), 1.0, r(4, 2.0)), "time left unknown");
        // sysbench's default --file-fsync-end: a final fsync when the mode writes
        let j = model(2, 0, Some(TestMode::Rndwr));
        assert!(left_text(&j, 2.5, None).contains("final fsync of the files"));
        let j = model(2, 0, Some(TestMode::Rndrd));
        assert!(left_text(&j, 2.5, None).contains("requests in flight"));
        assert_eq!(rates_text(None), "measuring");
        assert_eq!(
            rates_text(r(1, 3150.4)).as_str(),
            "1.0 MB/s, 3150 IOPS now, lat -"
        );
        let lat = Some(crate::run::live::IntervalLat {
            mean_ns: 310_240.0,
            p99_ns: 1_204_000,
        });
        assert_eq!(
            rates_text(r(1, 3150.4).map(|r| Rates { lat, ..r })).as_str(),
            "1.0 MB/s, 3150 IOPS now, lat mean 310.2 µs, p99 1.20 ms"
        );
    }
}
