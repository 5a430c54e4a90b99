//! Throughput sampler for charts (`--plot`): the main thread reads the workers'
//! cumulative counters every period and keeps the differences as [`Sample`]s.
//!
//! It only reads counters the workers keep anyway (reads, writes, bytes), so it adds
//! nothing to the I/O path beyond live statistics, and it is independent of sysbench's
//! `--report-interval` lines (which take and reset their own interval counters).

use crate::result::Sample;
use crate::stats::ThreadStats;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Sampling period for a run of `time_limit_s` seconds (0 = not time-limited):
/// 1 s for runs of 20 s or more, otherwise `time_limit / 20` but at least 100 ms,
/// so a short run still gives about 20 points; 250 ms when there is no time limit.
pub fn period_for(time_limit_s: u64) -> Duration {
    match time_limit_s {
        0 => Duration::from_millis(250),
        t if t >= 20 => Duration::from_secs(1),
        t => Duration::from_millis((t * 1000 / 20).max(100)),
    }
}

/// Cumulative (reads, writes, bytes read, bytes written) over all threads.
fn totals(stats: &[Mutex<ThreadStats>]) -> [u64; 4] {
    let mut c = [0u64; 4];
    for m in stats {
        let t = m.lock().unwrap_or_else(|e| e.into_inner());
        c[0] += t.reads;
        c[1] += t.writes;
        c[2] += t.bytes_read;
        c[3] += t.bytes_written;
    }
    c
}

/// The sampler state of one run.
#[derive(Debug)]
pub struct Sampler {
    /// sampling period
    pub period: Duration,
    start: Instant,
    next: Instant,
    last_t: Instant,
    last: [u64; 4],
    /// samples taken so far
    pub samples: Vec<Sample>,
}

impl Sampler {
    /// A sampler starting at `start`, taking a sample every `period`.
    pub fn new(start: Instant, period: Duration) -> Sampler {
        Sampler {
            period,
            start,
            next: start + period,
            last_t: start,
            last: [0; 4],
            samples: vec![],
        }
    }

    /// When the next sample is due.
    pub fn due(&self) -> Instant {
        self.next
    }

    /// Counters were reset (a checkpoint): differences restart from zero.
    pub fn counters_reset(&mut self) {
        self.last = [0; 4];
    }

    /// Take a sample at `now` from the threads' counters (a counter that went down was
    /// reset by a checkpoint: its new value is the difference).
    pub fn take(&mut self, stats: &[Mutex<ThreadStats>], now: Instant) {
        let c = totals(stats);
        let d: Vec<u64> = c
            .iter()
            .zip(self.last)
            .map(|(&n, o)| if n >= o { n - o } else { n })
            .collect();
        self.samples.push(Sample {
            t_s: (now - self.start).as_secs_f64(),
            dur_s: (now - self.last_t).as_secs_f64(),
            reads: d[0],
            writes: d[1],
            read_bytes: d[2],
            written_bytes: d[3],
        });
        self.last = c;
        self.last_t = now;
        while self.next <= now {
            self.next += self.period;
        }
    }

    /// The last, partial sample at the end of the run. A tail shorter than a tenth of a
    /// period (which would show a meaningless spike) is merged into the previous sample,
    /// so the samples always add up to the run's totals.
    pub fn finish(&mut self, stats: &[Mutex<ThreadStats>], now: Instant) {
        let short = now.saturating_duration_since(self.last_t) < self.period / 10;
        let n = self.samples.len();
        self.take(stats, now);
        if short && n > 0 {
            let tail = self.samples.pop().expect("take pushed a sample");
            let last = &mut self.samples[n - 1];
            last.t_s = tail.t_s;
            last.dur_s += tail.dur_s;
            last.reads += tail.reads;
            last.writes += tail.writes;
            last.read_bytes += tail.read_bytes;
            last.written_bytes += tail.written_bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn period_gives_about_twenty_points() {
        assert_eq!(period_for(60), Duration::from_secs(1));
        assert_eq!(period_for(20), Duration::from_secs(1));
        assert_eq!(period_for(5), Duration::from_millis(250));
        assert_eq!(period_for(1), Duration::from_millis(100));
        assert_eq!(period_for(0), Duration::from_millis(250));
    }

    #[test]
    fn samples_are_differences_and_survive_a_reset() {
        let stats = vec![
            Mutex::new(ThreadStats::new(false)),
            Mutex::new(ThreadStats::new(false)),
        ];
        let t0 = Instant::now();
        let mut s = Sampler::new(t0, Duration::from_secs(1));
        stats[0].lock().unwrap().read_done(4096);
        stats[1].lock().unwrap().read_done(4096);
        s.take(&stats, t0 + Duration::from_secs(1));
        stats[0].lock().unwrap().write_done(512);
        s.take(&stats, t0 + Duration::from_millis(2500));
        assert_eq!(s.samples.len(), 2);
        assert_eq!((s.samples[0].reads, s.samples[0].read_bytes), (2, 8192));
        assert_eq!((s.samples[1].reads, s.samples[1].writes), (0, 1));
        assert_eq!(s.samples[1].written_bytes, 512);
        assert!((s.samples[1].dur_s - 1.5).abs() < 1e-9);
        assert!((s.samples[1].t_s - 2.5).abs() < 1e-9);
        assert_eq!(s.due(), t0 + Duration::from_secs(3));
        // a checkpoint resets the threads' counters
        *stats[0].lock().unwrap() = ThreadStats::new(false);
        *stats[1].lock().unwrap() = ThreadStats::new(false);
        stats[1].lock().unwrap().read_done(100);
        s.counters_reset();
        s.take(&stats, t0 + Duration::from_secs(3));
        assert_eq!((s.samples[2].reads, s.samples[2].read_bytes), (1, 100));
        // a tiny tail is merged into the last sample, a real one kept
        stats[1].lock().unwrap().read_done(7);
        s.finish(&stats, t0 + Duration::from_millis(3050));
        assert_eq!(s.samples.len(), 3);
        assert_eq!((s.samples[2].reads, s.samples[2].read_bytes), (2, 107));
        assert!((s.samples[2].dur_s - 0.55).abs() < 1e-9);
        assert!((s.samples[2].t_s - 3.05).abs() < 1e-9);
        stats[1].lock().unwrap().read_done(1);
        s.finish(&stats, t0 + Duration::from_millis(3500));
        assert_eq!(s.samples.len(), 4);
        assert_eq!(s.samples[3].read_bytes, 1);
    }
}
