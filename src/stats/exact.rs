//! [`LatAcc`]: a latency accumulator that keeps the exact count, sum, min and max beside
//! its histogram, as fio does (`io_stat`'s `min_val`/`max_val`/`samples`/`mean`).
//!
//! The histogram quantizes (3 significant digits: a 2.176 ms fsync lands in a bucket
//! 2047 ns wide), so min, max and mean taken from it disagree even for a single sample.
//! Reports take min, max and mean from here and only percentiles and stdev from the
//! histogram. The histogram is kept as flat counts ([`HdrCounts`], counts.rs) and
//! built when a report asks, so [`LatAcc::add`] is an index computation, one increment
//! and the exact sums.

use super::{HdrCounts, LatencySummary, MAX_TRACKABLE_NS};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Latencies in ns: histogram counts plus exact count, sum, min and max.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LatAcc {
    /// the histogram's counts (percentiles and stdev only)
    counts: HdrCounts,
    /// samples recorded
    n: u64,
    /// exact sum, ns
    pub sum_ns: u128,
    /// exact smallest latency, ns (`u64::MAX` while empty; see [`LatAcc::min`])
    pub min_ns: u64,
    /// exact largest latency, ns (0 while empty)
    pub max_ns: u64,
}

impl Default for LatAcc {
    fn default() -> Self {
        LatAcc {
            counts: HdrCounts::default(),
            n: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }
}

impl LatAcc {
    /// Record one latency, ns (values above the histogram's 1 h are clamped in the
    /// histogram only; sum, min and max stay exact). 0 ns (the null engine) is recorded
    /// as 0: the histogram's first buckets are 1 ns wide, so percentiles show 0 as
    /// fio's exact first buckets do.
    #[inline]
    pub fn add(&mut self, ns: u64) {
        self.counts.record(ns.min(MAX_TRACKABLE_NS));
        self.n += 1;
        self.sum_ns += u128::from(ns);
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }
    /// Add another accumulator (histogram, sum, min, max).
    pub fn merge(&mut self, o: &LatAcc) {
        self.counts.merge(&o.counts);
        self.n += o.n;
        self.sum_ns += o.sum_ns;
        self.min_ns = self.min_ns.min(o.min_ns);
        self.max_ns = self.max_ns.max(o.max_ns);
    }
    /// The HDR histogram of the samples (ns; percentiles, stdev and bins).
    pub fn hist(&self) -> Histogram<u64> {
        self.counts.hist()
    }
    /// Samples recorded.
    pub fn count(&self) -> u64 {
        self.n
    }
    /// Exact smallest latency, ns (0 when empty).
    pub fn min(&self) -> u64 {
        if self.count() == 0 {
            0
        } else {
            self.min_ns
        }
    }
    /// Exact largest latency, ns (0 when empty).
    pub fn max(&self) -> u64 {
        self.max_ns
    }
    /// Exact mean, ns (0 when empty).
    pub fn mean(&self) -> f64 {
        match self.count() {
            0 => 0.0,
            n => self.sum_ns as f64 / n as f64,
        }
    }
    /// The latencies recorded since `earlier`, a reading of this accumulator taken
    /// before (a live view's interval): the histogram's counts, count and sum of the
    /// interval; its min and max are not known (left empty). When the accumulator was
    /// reset in between (fewer samples than `earlier`), everything in it is new.
    pub fn since(&self, earlier: &LatAcc) -> LatAcc {
        if self.n < earlier.n || self.sum_ns < earlier.sum_ns {
            return self.clone();
        }
        LatAcc {
            counts: self.counts.since(&earlier.counts),
            n: self.n - earlier.n,
            sum_ns: self.sum_ns - earlier.sum_ns,
            ..LatAcc::default()
        }
    }
    /// Summary: exact count, min, max, sum (saturated to u64) and floor mean; stdev
    /// from the histogram.
    pub fn summary(&self) -> LatencySummary {
        let count = self.count();
        if count == 0 {
            return LatencySummary::default();
        }
        let sum_ns = u64::try_from(self.sum_ns).unwrap_or(u64::MAX);
        LatencySummary {
            count,
            min_ns: self.min_ns,
            max_ns: self.max_ns,
            mean_ns: u64::try_from(self.sum_ns / u128::from(count)).unwrap_or(u64::MAX),
            sum_ns,
            stdev_ns: self.hist().stdev(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sample_has_min_max_mean_equal() {
        // a 2.176 ms fsync: the histogram's bucket is 2174976..=2177023 ns
        let mut l = LatAcc::default();
        l.add(2_176_826);
        assert_ne!(l.hist().min(), l.hist().max(), "the histogram quantizes");
        assert_eq!((l.min(), l.max()), (2_176_826, 2_176_826));
        assert_eq!(l.mean(), 2_176_826.0);
        let s = l.summary();
        assert_eq!(
            (s.count, s.min_ns, s.max_ns, s.mean_ns, s.sum_ns),
            (1, 2_176_826, 2_176_826, 2_176_826, 2_176_826)
        );
    }

    #[test]
    fn merge_keeps_exact_extremes_and_empty_is_zero() {
        let e = LatAcc::default();
        assert_eq!((e.min(), e.max(), e.mean(), e.count()), (0, 0, 0.0, 0));
        assert_eq!(e.summary(), LatencySummary::default());
        let mut a = LatAcc::default();
        for ns in [1001, 5003] {
            a.add(ns);
        }
        let mut b = LatAcc::default();
        b.add(999_999);
        let mut m = LatAcc::default();
        m.merge(&e);
        m.merge(&a);
        m.merge(&b);
        assert_eq!((m.count(), m.min(), m.max()), (3, 1001, 999_999));
        assert_eq!(m.sum_ns, 1001 + 5003 + 999_999);
        assert_eq!(m.summary().mean_ns, (1001 + 5003 + 999_999) / 3);
    }

    #[test]
    fn out_of_range_values_stay_exact_outside_the_histogram() {
        let mut l = LatAcc::default();
        l.add(0);
        l.add(MAX_TRACKABLE_NS + 5);
        assert_eq!((l.min(), l.max()), (0, MAX_TRACKABLE_NS + 5));
        assert_eq!(l.count(), 2);
        assert_eq!(l.sum_ns, u128::from(MAX_TRACKABLE_NS + 5));
    }
}
