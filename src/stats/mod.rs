//! The recorder: what one job thread measured ([`job::JobStats`], job.rs: per-direction
//! counters and latencies, CPU, run times, rate and depth samples, errors), the one type
//! `fileio` and `run` both fill and the one merge (`JobStats::merge`) that adds threads,
//! jobs and reporting groups up. `exact.rs` holds the exact latency accumulator,
//! `counts.rs` its flat histogram counts, `rates.rs` the rate and depth samples,
//! `cpu.rs` the CPU counters, `clock.rs` the clock; this module the histogram layout,
//! the event kinds of sysbench's counting and the `--report-interval` counters. It
//! depends on nothing but the histogram crate: the result (result/) is built from it.
//!
//! Each worker owns its statistics (fileio: behind its own mutex, uncontended except
//! when the interval reporter or a checkpoint takes a snapshot), so the hot path has no
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

impl Default for IntervalStats {
    fn default() -> Self {
        Self::new()
    }
}

impl IntervalStats {
    /// Empty counters.
    pub fn new() -> Self {
        IntervalStats {
            bytes_read: 0,
            bytes_written: 0,
            fsyncs: 0,
            hist: new_hist(),
        }
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
/// [`job::DirStats`]'s latencies, which keep them exact.
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
    fn percentile_of_empty_is_zero() {
        assert_eq!(percentile_ns(&new_hist(), 95.0), 0);
    }

    #[test]
    fn summarize_uses_the_exact_sum_and_floor_mean() {
        let mut h = new_hist();
        for ns in [1000, 2000, 4001] {
            h.record(ns).unwrap();
        }
        let l = summarize(&h, 7001);
        assert_eq!(
            (l.count, l.sum_ns, l.mean_ns, l.min_ns),
            (3, 7001, 2333, 1000)
        );
        assert!(
            (l.max_ns as i64 - 4001).abs() <= 4,
            "quantized: {}",
            l.max_ns
        );
    }
}
