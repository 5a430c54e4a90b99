//! The recorder: per-thread counters and HDR latency histograms, merged at report time.
//!
//! Each worker owns one [`ThreadStats`] behind its own mutex (uncontended except when
//! the interval reporter or a checkpoint takes a snapshot), so the hot path has no
//! shared cache lines. Latencies are nanoseconds; histograms keep 3 significant digits
//! from 1 ns to 1 hour (values above are clamped and counted).

pub mod clock;
pub mod sysbench_hist;

use hdrhistogram::Histogram;

/// Highest latency a histogram tracks exactly, ns (1 hour).
pub const MAX_TRACKABLE_NS: u64 = 3_600_000_000_000;

/// A fresh latency histogram (ns, 3 significant digits).
pub fn new_hist() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_TRACKABLE_NS, 3).expect("static histogram bounds are valid")
}

/// Kind of an event, for per-operation latency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// a read request
    Read,
    /// a write request
    Write,
    /// an fsync request of the periodic series
    Fsync,
}

/// Counters of one interval (for `--report-interval` lines).
#[derive(Clone, Debug)]
pub struct IntervalStats {
    /// bytes read that completed in the interval
    pub bytes_read: u64,
    /// bytes written that completed in the interval
    pub bytes_written: u64,
    /// fsync calls in the interval (events and non-events)
    pub fsyncs: u64,
    /// latencies of the interval's events, ns
    pub hist: Histogram<u64>,
}

impl IntervalStats {
    fn new() -> Self {
        IntervalStats { bytes_read: 0, bytes_written: 0, fsyncs: 0, hist: new_hist() }
    }
}

/// What one worker thread recorded since the start (or the last checkpoint).
#[derive(Clone, Debug)]
pub struct ThreadStats {
    /// events executed (reads + writes + periodic fsyncs)
    pub events: u64,
    /// sum of event latencies, ns
    pub lat_sum_ns: u64,
    /// smallest event latency, ns (`u64::MAX` before the first event)
    pub lat_min_ns: u64,
    /// largest event latency, ns
    pub lat_max_ns: u64,
    /// completed read requests
    pub reads: u64,
    /// completed write requests
    pub writes: u64,
    /// all fsync/fdatasync/msync calls (periodic, fsync-all, end of test)
    pub fsyncs: u64,
    /// bytes read by completed reads
    pub bytes_read: u64,
    /// bytes written by completed writes
    pub bytes_written: u64,
    /// event latencies of reads, ns
    pub hist_read: Histogram<u64>,
    /// event latencies of writes, ns
    pub hist_write: Histogram<u64>,
    /// event latencies of periodic fsync events, ns
    pub hist_fsync: Histogram<u64>,
    /// interval counters, when interval reports are on
    pub interval: Option<IntervalStats>,
}

impl ThreadStats {
    /// Empty statistics; `intervals` enables the interval counters.
    pub fn new(intervals: bool) -> Self {
        ThreadStats {
            events: 0,
            lat_sum_ns: 0,
            lat_min_ns: u64::MAX,
            lat_max_ns: 0,
            reads: 0,
            writes: 0,
            fsyncs: 0,
            bytes_read: 0,
            bytes_written: 0,
            hist_read: new_hist(),
            hist_write: new_hist(),
            hist_fsync: new_hist(),
            interval: intervals.then(IntervalStats::new),
        }
    }

    /// Record one event and its latency in ns.
    #[inline]
    pub fn event(&mut self, kind: EventKind, lat_ns: u64) {
        self.events += 1;
        self.lat_sum_ns += lat_ns;
        self.lat_min_ns = self.lat_min_ns.min(lat_ns);
        self.lat_max_ns = self.lat_max_ns.max(lat_ns);
        let v = lat_ns.clamp(1, MAX_TRACKABLE_NS);
        let h = match kind {
            EventKind::Read => &mut self.hist_read,
            EventKind::Write => &mut self.hist_write,
            EventKind::Fsync => &mut self.hist_fsync,
        };
        // Cannot fail: v is within the histogram's bounds.
        let _ = h.record(v);
        if let Some(i) = &mut self.interval {
            let _ = i.hist.record(v);
        }
    }

    /// Record a completed read of `bytes`.
    #[inline]
    pub fn read_done(&mut self, bytes: u64) {
        self.reads += 1;
        self.bytes_read += bytes;
        if let Some(i) = &mut self.interval {
            i.bytes_read += bytes;
        }
    }

    /// Record a completed write of `bytes`.
    #[inline]
    pub fn write_done(&mut self, bytes: u64) {
        self.writes += 1;
        self.bytes_written += bytes;
        if let Some(i) = &mut self.interval {
            i.bytes_written += bytes;
        }
    }

    /// Record one fsync call.
    #[inline]
    pub fn fsync_done(&mut self) {
        self.fsyncs += 1;
        if let Some(i) = &mut self.interval {
            i.fsyncs += 1;
        }
    }

    /// Take and reset the interval counters.
    pub fn take_interval(&mut self) -> Option<IntervalStats> {
        self.interval.as_mut().map(|i| std::mem::replace(i, IntervalStats::new()))
    }

    /// Take everything and start again from zero (checkpoints).
    pub fn take(&mut self) -> ThreadStats {
        let fresh = ThreadStats::new(self.interval.is_some());
        std::mem::replace(self, fresh)
    }
}

/// Statistics of all threads for one reporting period.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// seconds the period lasted (rates are per this)
    pub period_s: f64,
    /// seconds since the benchmark start (`total time`)
    pub total_time_s: f64,
    /// per-thread statistics, in thread order
    pub threads: Vec<ThreadStats>,
}

impl Snapshot {
    /// Sum of a per-thread counter.
    pub fn sum(&self, f: impl Fn(&ThreadStats) -> u64) -> u64 {
        self.threads.iter().map(f).sum()
    }
    /// All events' latencies merged, ns.
    pub fn merged_hist(&self) -> Histogram<u64> {
        let mut h = new_hist();
        for t in &self.threads {
            for x in [&t.hist_read, &t.hist_write, &t.hist_fsync] {
                // Same bounds everywhere: cannot fail.
                let _ = h.add(x);
            }
        }
        h
    }
    /// Latency summary of all events: exact count, sum, min and max; stdev from the
    /// histogram.
    pub fn latency(&self) -> LatencySummary {
        let h = self.merged_hist();
        let mut l = summarize(&h, self.sum(|t| t.lat_sum_ns));
        if l.count > 0 {
            l.min_ns = self.threads.iter().map(|t| t.lat_min_ns).min().unwrap_or(0);
            l.max_ns = self.threads.iter().map(|t| t.lat_max_ns).max().unwrap_or(0);
        }
        l
    }
    /// Merged histogram of one event kind.
    pub fn kind_hist(&self, kind: EventKind) -> Histogram<u64> {
        let mut h = new_hist();
        for t in &self.threads {
            let _ = h.add(match kind {
                EventKind::Read => &t.hist_read,
                EventKind::Write => &t.hist_write,
                EventKind::Fsync => &t.hist_fsync,
            });
        }
        h
    }
}

/// Latency summary in ns, computed from a histogram and an exact sum.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LatencySummary {
    /// events
    pub count: u64,
    /// smallest, ns (0 when no events)
    pub min_ns: u64,
    /// largest, ns
    pub max_ns: u64,
    /// `floor(sum / count)`, ns (sysbench's avg)
    pub mean_ns: u64,
    /// exact sum, ns
    pub sum_ns: u64,
    /// population standard deviation, ns (from the histogram)
    pub stdev_ns: f64,
}

/// Summarise a histogram whose exact latency sum is `sum_ns`.
pub fn summarize(h: &Histogram<u64>, sum_ns: u64) -> LatencySummary {
    let count = h.len();
    if count == 0 {
        return LatencySummary::default();
    }
    LatencySummary {
        count,
        min_ns: h.min(),
        max_ns: h.max(),
        mean_ns: sum_ns / count,
        sum_ns,
        stdev_ns: h.stdev(),
    }
}

/// Percentile `p` (0–100) of a histogram in ns; 0 when empty.
pub fn percentile_ns(h: &Histogram<u64>, p: f64) -> u64 {
    if h.is_empty() {
        0
    } else {
        h.value_at_quantile(p / 100.0)
    }
}

/// Population mean and standard deviation of `xs` (sysbench's fairness formula).
pub fn mean_stddev(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fairness_is_population_stddev() {
        // spec §11.2: 2 threads, 15366 and 14725 events → 15045.5 / 320.50
        let (m, s) = mean_stddev(&[15366.0, 14725.0]);
        assert_eq!(format!("{m:.4}/{s:.2}"), "15045.5000/320.50");
        assert_eq!(mean_stddev(&[5.0]), (5.0, 0.0));
    }

    #[test]
    fn summary_uses_exact_sum_and_floor_mean() {
        let mut t = ThreadStats::new(false);
        for ns in [1000, 2000, 4001] {
            t.event(EventKind::Read, ns);
        }
        let s = Snapshot { period_s: 1.0, total_time_s: 1.0, threads: vec![t] };
        let sum = s.sum(|t| t.lat_sum_ns);
        let l = summarize(&s.merged_hist(), sum);
        assert_eq!((l.count, l.sum_ns, l.mean_ns), (3, 7001, 2333));
        assert_eq!(l.min_ns, 1000);
        assert!((l.max_ns as i64 - 4001).abs() <= 4);
        let exact = s.latency();
        assert_eq!((exact.min_ns, exact.max_ns), (1000, 4001));
    }

    #[test]
    fn interval_take_resets() {
        let mut t = ThreadStats::new(true);
        t.read_done(4096);
        t.fsync_done();
        let i = t.take_interval().unwrap();
        assert_eq!((i.bytes_read, i.fsyncs), (4096, 1));
        assert_eq!(t.take_interval().unwrap().bytes_read, 0);
        assert_eq!(t.bytes_read, 4096);
    }

    #[test]
    fn percentile_of_empty_is_zero() {
        assert_eq!(percentile_ns(&new_hist(), 95.0), 0);
    }
}
