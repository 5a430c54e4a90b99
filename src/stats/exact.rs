//! [`LatAcc`]: a latency accumulator that keeps the exact count, sum, min and max beside
//! its histogram, as fio does (`io_stat`'s `min_val`/`max_val`/`samples`/`mean`).
//!
//! The histogram quantizes (3 significant digits: a 2.176 ms fsync lands in a bucket
//! 2047 ns wide), so min, max and mean taken from it disagree even for a single sample.
//! Reports take min, max and mean from here and only percentiles and stdev from the
//! histogram. The hot path records into a flat array of counts keyed by the HDR
//! histogram's own bucket index ([`hdr_index`], the layout of [`new_hist`]'s
//! histogram); [`LatAcc::hist`] builds that HDR histogram from it, bucket for bucket,
//! when a report asks. So [`LatAcc::add`] is an index computation, one increment and
//! the exact sums (the histogram crate's `record` is an out-of-line call that keeps
//! its own count, min and max, duplicating ours: about 55 instructions per I/O).

use super::{new_hist, LatencySummary, MAX_TRACKABLE_NS};
use hdrhistogram::Histogram;

/// Sub-buckets per HDR bucket at 3 significant digits from 1 ns (2048 = 2^11), and half
/// of it (the width of every bucket after the first).
const SUB_BITS: u32 = 11;
const HALF: usize = 1 << (SUB_BITS - 1);

/// The index of `v` in the counts of [`new_hist`]'s histogram (lowest value 1, 3
/// significant digits: unit magnitude 0, 2048 sub-buckets); the histogram crate's
/// `index_for` for that layout.
#[inline(always)]
fn hdr_index(v: u64) -> usize {
    let bucket = 64 - SUB_BITS - (v | ((1 << SUB_BITS) - 1)).leading_zeros();
    let sub = (v >> bucket) as usize;
    ((bucket as usize + 1) << (SUB_BITS - 1)) + sub - HALF
}

/// The lowest value of index `i` (the inverse of [`hdr_index`]).
fn hdr_value(i: usize) -> u64 {
    let (bucket, sub) = match (i >> (SUB_BITS - 1)).checked_sub(1) {
        Some(b) if b > 0 => (b, (i & (HALF - 1)) + HALF),
        _ => (0, i),
    };
    (sub as u64) << bucket
}

/// Latencies in ns: histogram counts plus exact count, sum, min and max.
#[derive(Clone, Debug)]
pub struct LatAcc {
    /// samples per HDR bucket index ([`hdr_index`]); grows to the largest value
    /// recorded, as the auto-resizing histogram does
    counts: Vec<u64>,
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
            counts: Vec::new(),
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
        let i = hdr_index(ns.min(MAX_TRACKABLE_NS));
        match self.counts.get_mut(i) {
            Some(c) => *c += 1,
            None => self.grow_add(i),
        }
        self.n += 1;
        self.sum_ns += u128::from(ns);
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }
    /// Grow the counts to the end of index `i`'s bucket and count one sample there.
    #[cold]
    #[inline(never)]
    fn grow_add(&mut self, i: usize) {
        self.counts.resize((i / HALF + 1) * HALF, 0);
        self.counts[i] += 1;
    }
    /// Add another accumulator (histogram, sum, min, max).
    pub fn merge(&mut self, o: &LatAcc) {
        if self.counts.len() < o.counts.len() {
            self.counts.resize(o.counts.len(), 0);
        }
        for (c, x) in self.counts.iter_mut().zip(&o.counts) {
            *c += x;
        }
        self.n += o.n;
        self.sum_ns += o.sum_ns;
        self.min_ns = self.min_ns.min(o.min_ns);
        self.max_ns = self.max_ns.max(o.max_ns);
    }
    /// The HDR histogram of the samples (ns, [`new_hist`]'s layout; percentiles, stdev
    /// and bins): the same histogram recording each sample into it would give.
    pub fn hist(&self) -> Histogram<u64> {
        let mut h = new_hist();
        for (i, &c) in self.counts.iter().enumerate().filter(|(_, &c)| c > 0) {
            // Cannot fail: the value is within the histogram's bounds (it auto-resizes).
            let _ = h.record_n(hdr_value(i), c);
        }
        h
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

    #[test]
    fn flat_counts_build_the_histogram_recording_gives() {
        // every bucket boundary up to 1 h, their neighbours, and a spread of values
        let mut vals = vec![0, 1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 4097];
        for b in 11..42 {
            let p = 1u64 << b;
            vals.extend([p - 1, p, p + 1, p + p / 3, p + p / 2 + 7]);
        }
        vals.extend([2_176_826, 999_999, MAX_TRACKABLE_NS - 1, MAX_TRACKABLE_NS]);
        vals.extend((0..5000u64).map(|i| i * i * 7919 % 50_000_000));
        let (mut l, mut h) = (LatAcc::default(), new_hist());
        for &v in &vals {
            l.add(v);
            h.record(v).unwrap();
            assert_eq!(hdr_value(hdr_index(v)), h.lowest_equivalent(v), "value {v}");
        }
        let got = l.hist();
        assert_eq!(got, h);
        assert_eq!(got.distinct_values(), h.distinct_values());
        assert_eq!((got.len(), got.min(), got.max()), (h.len(), h.min(), h.max()));
        assert_eq!(got.stdev(), h.stdev());
        for q in [0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0] {
            assert_eq!(got.value_at_percentile(q), h.value_at_percentile(q), "p{q}");
        }
        let a: Vec<_> = got.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).collect();
        let b: Vec<_> = h.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).collect();
        assert_eq!(a, b);
        // a merge of halves is the whole
        let (mut x, mut y) = (LatAcc::default(), LatAcc::default());
        vals.iter().enumerate().for_each(|(i, &v)| if i % 2 == 0 { x.add(v) } else { y.add(v) });
        y.merge(&x);
        assert_eq!(y.hist(), h);
        assert_eq!(y.count(), vals.len() as u64);
    }
}
