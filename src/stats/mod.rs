//! The recorder: per-thread counters and HDR latency histograms, merged at report time.
//! This module holds fileio's recorder ([`ThreadStats`], [`Snapshot`]); `job.rs` the
//! fio path's per-job statistics, `exact.rs` the exact latency accumulator, `rates.rs`
//! the rate and depth samples, `cpu.rs` the CPU counters, `clock.rs` the clock. It
//! depends on nothing but the histogram crate: the result (result/) is built from it.
//!
//! Each worker owns one [`ThreadStats`] behind its own mutex (uncontended except when
//! the interval reporter or a checkpoint takes a snapshot), so the hot path has no
//! shared cache lines. Latencies are nanoseconds; histograms keep 3 significant digits
//! from 1 ns to 1 hour (values above are clamped and counted).

pub mod clock;
pub mod counts;
pub mod cpu;
pub mod exact;
pub mod job;
pub mod rates;

pub use counts::HdrCounts;
pub use exact::LatAcc;

use hdrhistogram::Histogram;

/// Highest latency a histogram tracks exactly, ns (1 hour).
pub const MAX_TRACKABLE_NS: u64 = 3_600_000_000_000;

/// A fresh latency histogram (ns, 3 significant digits). It starts at its smallest
/// (16 KiB: one bucket of 2048 sub-buckets) and grows to the largest value recorded
/// (auto-resize; callers clamp to [`MAX_TRACKABLE_NS`] and use `record`, which grows,
/// not `saturating_record`, which would clamp to the current size), so a job keeps
/// only what its latencies need (90 KiB up to 1 ms, 170 KiB up to 1 s) instead of
/// 256 KiB sized to 1 h up front (the memory per job is measured in docs/safety.md).
/// The buckets of a value do not depend on the size, so percentiles, bins and the
/// result's bucket pairs (result/hist.rs) are the same as with a fixed 1 h range.
pub fn new_hist() -> Histogram<u64> {
    let mut h = Histogram::new_with_bounds(1, 2, 3).expect("static histogram bounds are valid");
    h.auto(true);
    h
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
        IntervalStats {
            bytes_read: 0,
            bytes_written: 0,
            fsyncs: 0,
            hist: new_hist(),
        }
    }
}

/// Latencies of one event kind: exact count, sum, min and max, plus a histogram.
#[derive(Clone, Debug)]
pub struct KindStats {
    /// events of this kind
    pub count: u64,
    /// sum of latencies, ns
    pub sum_ns: u64,
    /// smallest latency, ns (`u64::MAX` before the first event)
    pub min_ns: u64,
    /// largest latency, ns
    pub max_ns: u64,
    /// latency histogram, ns ([`KindStats::hist`])
    counts: HdrCounts,
}

impl KindStats {
    fn new() -> Self {
        KindStats {
            count: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            counts: HdrCounts::default(),
        }
    }
    /// The latency histogram, ns.
    pub fn hist(&self) -> Histogram<u64> {
        self.counts.hist()
    }
    #[inline]
    fn record(&mut self, lat_ns: u64) {
        self.count += 1;
        self.sum_ns += lat_ns;
        self.min_ns = self.min_ns.min(lat_ns);
        self.max_ns = self.max_ns.max(lat_ns);
        self.counts.record(lat_ns.clamp(1, MAX_TRACKABLE_NS));
    }
    fn merge(&mut self, o: &KindStats) {
        self.count += o.count;
        self.sum_ns += o.sum_ns;
        self.min_ns = self.min_ns.min(o.min_ns);
        self.max_ns = self.max_ns.max(o.max_ns);
        self.counts.merge(&o.counts);
    }
    /// Summary with exact count, sum, min, max and floor mean; stdev from the histogram.
    pub fn summary(&self) -> LatencySummary {
        if self.count == 0 {
            return LatencySummary::default();
        }
        LatencySummary {
            count: self.count,
            min_ns: self.min_ns,
            max_ns: self.max_ns,
            mean_ns: self.sum_ns / self.count,
            sum_ns: self.sum_ns,
            stdev_ns: self.hist().stdev(),
        }
    }
}

/// What one worker thread recorded since the start (or the last checkpoint).
#[derive(Clone, Debug)]
pub struct ThreadStats {
    /// events executed (reads + writes + periodic fsyncs)
    pub events: u64,
    /// sum of event latencies, ns
    pub lat_sum_ns: u64,
    /// completed read requests
    pub reads: u64,
    /// completed write requests
    pub writes: u64,
    /// all fsync/fdatasync/msync calls (periodic, fsync-all, end of test)
    pub fsyncs: u64,
    /// ns this thread spent in its end-of-test syncs (`--file-fsync-end`), which are
    /// inside the measured time (public case C15)
    pub end_fsync_ns: u64,
    /// bytes read by completed reads
    pub bytes_read: u64,
    /// bytes written by completed writes
    pub bytes_written: u64,
    /// latencies of read events
    pub lat_read: KindStats,
    /// latencies of write events
    pub lat_write: KindStats,
    /// latencies of periodic fsync events
    pub lat_fsync: KindStats,
    /// interval counters, when interval reports are on
    pub interval: Option<IntervalStats>,
    /// per-I/O completion latency (submission to reaped completion) of queued reads and
    /// writes, `[read, write]`; only for engines that queue (io_uring), see
    /// [`ThreadStats::enable_clat`]
    pub clat: Option<Box<[KindStats; 2]>>,
}

impl ThreadStats {
    /// Empty statistics; `intervals` enables the interval counters.
    pub fn new(intervals: bool) -> Self {
        ThreadStats {
            events: 0,
            lat_sum_ns: 0,
            reads: 0,
            writes: 0,
            fsyncs: 0,
            end_fsync_ns: 0,
            bytes_read: 0,
            bytes_written: 0,
            lat_read: KindStats::new(),
            lat_write: KindStats::new(),
            lat_fsync: KindStats::new(),
            interval: intervals.then(IntervalStats::new),
            clat: None,
        }
    }

    /// Empty statistics without interval counters: a placeholder that holds no events
    /// (its histogram counts are empty, a few hundred bytes per thread).
    pub fn placeholder() -> Self {
        Self::new(false)
    }

    /// Start recording per-I/O completion latency ([`ThreadStats::clat_done`]).
    pub fn enable_clat(&mut self) {
        if self.clat.is_none() {
            self.clat = Some(Box::new([KindStats::new(), KindStats::new()]));
        }
    }

    /// Record the completion latency (ns, submission to completion) of a queued read or
    /// write that completed successfully; ignored unless enabled or for fsync.
    #[inline]
    pub fn clat_done(&mut self, kind: EventKind, lat_ns: u64) {
        if let Some(c) = &mut self.clat {
            match kind {
                EventKind::Read => c[0].record(lat_ns),
                EventKind::Write => c[1].record(lat_ns),
                EventKind::Fsync => {}
            }
        }
    }

    /// Record one event and its latency in ns.
    #[inline]
    pub fn event(&mut self, kind: EventKind, lat_ns: u64) {
        self.events += 1;
        self.lat_sum_ns += lat_ns;
        match kind {
            EventKind::Read => self.lat_read.record(lat_ns),
            EventKind::Write => self.lat_write.record(lat_ns),
            EventKind::Fsync => self.lat_fsync.record(lat_ns),
        }
        if let Some(i) = &mut self.interval {
            let _ = i.hist.record(lat_ns.clamp(1, MAX_TRACKABLE_NS));
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
        self.interval
            .as_mut()
            .map(|i| std::mem::replace(i, IntervalStats::new()))
    }

    /// Take everything and start again from zero (checkpoints).
    pub fn take(&mut self) -> ThreadStats {
        let mut fresh = ThreadStats::new(self.interval.is_some());
        if self.clat.is_some() {
            fresh.enable_clat();
        }
        std::mem::replace(self, fresh)
    }

    /// All event kinds of this thread merged.
    pub fn all_kinds(&self) -> KindStats {
        let mut k = KindStats::new();
        for x in [&self.lat_read, &self.lat_write, &self.lat_fsync] {
            k.merge(x);
        }
        k
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
        self.merged(None).hist()
    }
    /// Latency summary of all events: exact count, sum, min and max; stdev from the
    /// histogram.
    pub fn latency(&self) -> LatencySummary {
        self.merged(None).summary()
    }
    /// Merged latencies of one event kind, or of all kinds (`None`).
    pub fn merged(&self, kind: Option<EventKind>) -> KindStats {
        let mut k = KindStats::new();
        for t in &self.threads {
            match kind {
                None => {
                    k.merge(&t.lat_read);
                    k.merge(&t.lat_write);
                    k.merge(&t.lat_fsync);
                }
                Some(EventKind::Read) => k.merge(&t.lat_read),
                Some(EventKind::Write) => k.merge(&t.lat_write),
                Some(EventKind::Fsync) => k.merge(&t.lat_fsync),
            }
        }
        k
    }
}

impl Snapshot {
    /// Merged completion latencies of queued reads (`Some(Read)`), writes
    /// (`Some(Write)`) or both (`None`); `None` when no thread recorded any
    /// (synchronous engines).
    pub fn merged_clat(&self, kind: Option<EventKind>) -> Option<KindStats> {
        let mut k: Option<KindStats> = None;
        for c in self.threads.iter().filter_map(|t| t.clat.as_ref()) {
            let acc = k.get_or_insert_with(KindStats::new);
            match kind {
                Some(EventKind::Read) => acc.merge(&c[0]),
                Some(EventKind::Write) => acc.merge(&c[1]),
                Some(EventKind::Fsync) => {}
                None => {
                    acc.merge(&c[0]);
                    acc.merge(&c[1]);
                }
            }
        }
        k
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

/// Summarise a histogram whose exact latency sum is `sum_ns`. Min and max come from the
/// histogram and are quantized (3 significant digits): prefer [`LatAcc::summary`] or
/// [`KindStats::summary`], which keep them exact.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_uses_exact_sum_and_floor_mean() {
        let mut t = ThreadStats::new(false);
        for ns in [1000, 2000, 4001] {
            t.event(EventKind::Read, ns);
        }
        let s = Snapshot {
            period_s: 1.0,
            total_time_s: 1.0,
            threads: vec![t],
        };
        let sum = s.sum(|t| t.lat_sum_ns);
        let l = summarize(&s.merged_hist(), sum);
        assert_eq!((l.count, l.sum_ns, l.mean_ns), (3, 7001, 2333));
        assert_eq!(l.min_ns, 1000);
        assert!((l.max_ns as i64 - 4001).abs() <= 4);
        let exact = s.latency();
        assert_eq!((exact.min_ns, exact.max_ns), (1000, 4001));
        assert_eq!(s.merged(Some(EventKind::Read)).sum_ns, 7001);
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
    fn placeholder_merges_as_empty() {
        let mut t = ThreadStats::new(false);
        t.event(EventKind::Write, 5000);
        let s = Snapshot {
            period_s: 1.0,
            total_time_s: 1.0,
            threads: vec![t, ThreadStats::placeholder()],
        };
        let l = s.latency();
        assert_eq!((l.count, l.min_ns, l.max_ns), (1, 5000, 5000));
    }

    #[test]
    fn clat_is_recorded_only_when_enabled_and_survives_take() {
        let mut t = ThreadStats::new(false);
        t.clat_done(EventKind::Read, 100);
        assert!(t.clat.is_none());
        t.enable_clat();
        t.clat_done(EventKind::Read, 100);
        t.clat_done(EventKind::Write, 300);
        t.clat_done(EventKind::Write, 500);
        t.clat_done(EventKind::Fsync, 7);
        let s = Snapshot {
            period_s: 1.0,
            total_time_s: 1.0,
            threads: vec![t.clone(), ThreadStats::new(false)],
        };
        assert_eq!(s.merged_clat(Some(EventKind::Read)).unwrap().count, 1);
        let w = s.merged_clat(Some(EventKind::Write)).unwrap().summary();
        assert_eq!((w.count, w.mean_ns, w.min_ns, w.max_ns), (2, 400, 300, 500));
        assert_eq!(s.merged_clat(None).unwrap().count, 3);
        let mut t2 = t;
        t2.take();
        assert!(t2.clat.is_some());
        assert_eq!(t2.clat.as_ref().unwrap()[1].count, 0);
        let none = Snapshot {
            period_s: 1.0,
            total_time_s: 1.0,
            threads: vec![ThreadStats::new(false)],
        };
        assert!(none.merged_clat(None).is_none());
    }

    #[test]
    fn percentile_of_empty_is_zero() {
        assert_eq!(percentile_ns(&new_hist(), 95.0), 0);
    }
}
