//! The feed of the `--live` view (src/cli/live/): at every sample the run's one sampler
//! takes (sampler.rs), a [`Frame`] — each job's rates over the sample's interval, the
//! device's utilisation and temperature — goes on a channel to the view, when one is
//! attached. It reads nothing itself: the sampler hands it the sample, and the
//! coordinator of `run`'s jobs (run/fio/group.rs) the jobs' live counters it keeps
//! anyway, at the same moment. Without a view it costs one relaxed load per sample.
//!
//! Not here: drawing, keys, the terminal (src/cli/live/).

use crate::result::Sample;
use crate::stats::LatAcc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;
use std::time::Instant;

/// One job's rates over one interval.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobRates {
    /// the job's name (`run`), or the test's (`mark`)
    pub name: String,
    /// bytes read per second
    pub read_bps: f64,
    /// bytes written per second
    pub write_bps: f64,
    /// reads per second
    pub read_iops: f64,
    /// writes per second
    pub write_iops: f64,
    /// mean completion latency of the I/O completed in the interval, ns (`None`: none
    /// completed, or the recorder keeps no running sum)
    pub lat_mean_ns: Option<f64>,
    /// 99th percentile of the completion latencies of the interval, ns (`None`: none
    /// completed, or the recorder is not read while the run goes on)
    pub lat_p99_ns: Option<f64>,
}

/// The latency of the I/O completed in one sample's interval.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IntervalLat {
    /// mean completion latency, ns (the interval's sum over its count)
    pub mean_ns: f64,
    /// 99th percentile of the interval's completion latencies, ns: the percentile of
    /// the histogram's counts recorded in the interval (the difference of two readings)
    pub p99_ns: u64,
}

impl IntervalLat {
    /// The interval between the readings `earlier` and `now` of the recorder's
    /// latencies; `None` when no I/O completed in it.
    pub fn between(earlier: &LatAcc, now: &LatAcc) -> Option<IntervalLat> {
        let d = now.since(earlier);
        (d.count() > 0).then(|| IntervalLat {
            mean_ns: d.mean(),
            p99_ns: crate::stats::percentile_ns(&d.hist(), 99.0),
        })
    }
}

/// What the view gets at every sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    /// seconds since the run started (the sample's end)
    pub t_s: f64,
    /// what runs now (`mark`: the test and its loop), when the command says
    pub phase: Option<String>,
    /// one entry per job
    pub jobs: Vec<JobRates>,
    /// the device's busy time over the interval, % (`None`: no block device known)
    pub util_pct: Option<f64>,
    /// the drive's temperature, °C, when a sensor is known
    pub temp_c: Option<f64>,
}

/// One job's cumulative counters as the coordinator reads them: bytes read, bytes
/// written, reads, writes; and the job's recorders' completion latencies as its threads
/// last gave them (the interval's mean and p99 come from two such readings).
#[derive(Clone, Debug, Default)]
pub struct JobCount {
    /// the job's name
    pub name: String,
    /// the counters
    pub c: [u64; 4],
    /// the recorders' completion latencies (`None`: no thread gave a reading yet)
    pub clat: Option<LatAcc>,
}

/// The state of an attached feed: the channel and what the next frame is built from.
#[derive(Debug)]
pub struct Feed {
    tx: Sender<Frame>,
    phase: Option<String>,
    /// the jobs' counters given for the next frame, and when they were read
    given: Option<(Vec<JobCount>, Instant)>,
    /// the counters of the last frame, and when they were read
    last: Option<(Vec<JobCount>, Instant)>,
}

static ATTACHED: AtomicBool = AtomicBool::new(false);
static FEED: Mutex<Option<Feed>> = Mutex::new(None);

fn with_feed(f: impl FnOnce(&mut Feed)) {
    if !ATTACHED.load(Ordering::Relaxed) {
        return;
    }
    let mut g = FEED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(feed) = g.as_mut() {
        f(feed);
    }
}

/// Attach a view: the frames of every later sample arrive on the receiver.
pub fn attach() -> Receiver<Frame> {
    let (feed, rx) = Feed::new();
    *FEED.lock().unwrap_or_else(|e| e.into_inner()) = Some(feed);
    ATTACHED.store(true, Ordering::Relaxed);
    rx
}

/// The view is gone: samples are no longer sent.
pub fn detach() {
    ATTACHED.store(false, Ordering::Relaxed);
    *FEED.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// Whether a view is attached (a command then samples even where it would not).
pub fn watched() -> bool {
    ATTACHED.load(Ordering::Relaxed)
}

/// What runs now, shown by the view (`mark`'s test and loop).
pub fn phase(what: impl FnOnce() -> String) {
    with_feed(|f| f.phase = Some(what()));
}

/// The jobs' cumulative counters, read at `now`, for the frame of the sample taken next.
pub fn jobs(counts: impl FnOnce() -> Vec<JobCount>, now: Instant) {
    with_feed(|f| f.given = Some((counts(), now)));
}

/// A sample was taken (sampler.rs), with the latency of its interval when the
/// recorder was read: its frame goes to the view.
pub fn sample(s: &Sample, lat: Option<IntervalLat>) {
    with_feed(|f| {
        let frame = f.frame(s, lat);
        let _ = f.tx.send(frame);
    });
}

impl Feed {
    /// A feed and the receiver of its frames.
    pub fn new() -> (Feed, Receiver<Frame>) {
        let (tx, rx) = channel();
        let feed = Feed {
            tx,
            phase: None,
            given: None,
            last: None,
        };
        (feed, rx)
    }

    /// The frame of sample `s`: the jobs' rates from the counters given since the last
    /// frame (their differences over the time between the two readings), or, when the
    /// command gives none (`mark`), one job named by the phase from the sample itself
    /// and the interval's latency `lat` read from the recorder.
    pub fn frame(&mut self, s: &Sample, lat: Option<IntervalLat>) -> Frame {
        let jobs = match self.given.take() {
            Some((now, t)) => {
                let jobs = rates(self.last.as_ref(), &now, t);
                self.last = Some((now, t));
                jobs
            }
            None => {
                let d = s.dur_s.max(f64::MIN_POSITIVE);
                vec![JobRates {
                    name: self.phase.clone().unwrap_or_else(|| "all".into()),
                    read_bps: s.read_bytes as f64 / d,
                    write_bps: s.written_bytes as f64 / d,
                    read_iops: s.reads as f64 / d,
                    write_iops: s.writes as f64 / d,
                    lat_mean_ns: lat.map(|l| l.mean_ns),
                    lat_p99_ns: lat.map(|l| l.p99_ns as f64),
                }]
            }
        };
        let d = s.dur_s.max(f64::MIN_POSITIVE);
        Frame {
            t_s: s.t_s,
            phase: self.phase.clone(),
            jobs,
            util_pct: s
                .device
                .map(|dv| (dv.busy_ms as f64 / (d * 1000.0) * 100.0).min(100.0)),
            temp_c: s.temp_c,
        }
    }
}

/// Each job's rates between the counters `last` (none: the run's start, all zero) and
/// `now`, read at `t`; a counter that went down counts from zero.
fn rates(last: Option<&(Vec<JobCount>, Instant)>, now: &[JobCount], t: Instant) -> Vec<JobRates> {
    now.iter()
        .enumerate()
        .map(|(i, j)| {
            let (prev, dt) = match last {
                Some((l, lt)) => (
                    l.get(i).map_or([0; 4], |p| p.c),
                    t.saturating_duration_since(*lt).as_secs_f64(),
                ),
                None => ([0; 4], 0.0),
            };
            let before = last.and_then(|(l, _)| l.get(i)?.clat.clone());
            let lat = j
                .clat
                .as_ref()
                .and_then(|n| IntervalLat::between(&before.unwrap_or_default(), n));
            let d: Vec<f64> =
                j.c.iter()
                    .zip(prev)
                    .map(|(&n, o)| if n >= o { n - o } else { n } as f64)
                    .collect();
            let per = |x: f64| if dt > 0.0 { x / dt } else { 0.0 };
            JobRates {
                name: j.name.clone(),
                read_bps: per(d[0]),
                write_bps: per(d[1]),
                read_iops: per(d[2]),
                write_iops: per(d[3]),
                lat_mean_ns: lat.as_ref().map(|l| l.mean_ns),
                lat_p99_ns: lat.map(|l| l.p99_ns as f64),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::DeviceSample;
    use std::time::Duration;

    #[test]
    fn frames_carry_each_jobs_rates_and_the_device() {
        let (mut f, rx) = Feed::new();
        let t0 = Instant::now();
        let job = |c, clat| JobCount {
            name: "seq".into(),
            c,
            clat: Some(clat),
        };
        f.given = Some((vec![job([0; 4], LatAcc::default())], t0));
        let s = Sample {
            t_s: 0.5,
            dur_s: 0.5,
            ..Sample::default()
        };
        let _ = f.frame(&s, None);
        // 2 s later: 4 MB read in 1000 reads whose latencies add up to 2 ms, as the
        // reading of the recorder holds them
        let mut clat = LatAcc::default();
        for _ in 0..1000 {
            clat.add(2_000);
        }
        f.given = Some((
            vec![job([4_000_000, 0, 1000, 0], clat)],
            t0 + Duration::from_secs(2),
        ));
        let s = Sample {
            t_s: 2.5,
            dur_s: 2.0,
            device: Some(DeviceSample {
                busy_ms: 1500,
                ..DeviceSample::default()
            }),
            temp_c: Some(41.0),
            ..Sample::default()
        };
        let fr = f.frame(&s, None);
        assert_eq!(fr.jobs.len(), 1);
        assert_eq!(fr.jobs[0].read_bps, 2_000_000.0);
        assert_eq!(fr.jobs[0].read_iops, 500.0);
        assert_eq!(fr.jobs[0].write_iops, 0.0);
        assert_eq!(fr.jobs[0].lat_mean_ns, Some(2000.0));
        assert_eq!(fr.util_pct, Some(75.0));
        assert_eq!(fr.temp_c, Some(41.0));
        drop(rx);
    }

    #[test]
    fn without_jobs_the_sample_is_the_phases_one_job() {
        let (mut f, _rx) = Feed::new();
        f.phase = Some("SEQ1M Q8T1 read loop 1/3".into());
        let s = Sample {
            t_s: 1.0,
            dur_s: 0.25,
            reads: 100,
            read_bytes: 100 << 20,
            ..Sample::default()
        };
        let lat = IntervalLat {
            mean_ns: 2_500.0,
            p99_ns: 9_000,
        };
        let fr = f.frame(&s, Some(lat));
        assert_eq!(fr.jobs[0].name, "SEQ1M Q8T1 read loop 1/3");
        assert_eq!(fr.jobs[0].read_bps, (400u64 << 20) as f64);
        assert_eq!(fr.jobs[0].read_iops, 400.0);
        // the interval's latency read from the recorder
        assert_eq!(fr.jobs[0].lat_mean_ns, Some(2_500.0));
        assert_eq!(fr.jobs[0].lat_p99_ns, Some(9_000.0));
        assert_eq!(fr.util_pct, None);
    }
}
