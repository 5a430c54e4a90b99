//! [`HdrCounts`]: the counts of an HDR histogram (ns, [`new_hist`]'s layout: lowest value
//! 1, 3 significant digits) as a flat array keyed by the histogram's own bucket index.
//! Recording is an index computation and one increment, inline; the histogram crate's
//! `record` is an out-of-line call that also keeps a count, min and max the exact
//! accumulators keep anyway (about 55 instructions per I/O). [`HdrCounts::hist`]
//! builds the HDR histogram bucket for bucket when a report asks, so percentiles,
//! stdev and bins are those of recording into it (tested below).

use super::new_hist;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

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

/// Samples per HDR bucket index ([`hdr_index`]); grows to the bucket of the largest
/// value recorded, as the auto-resizing histogram does (empty: no memory). Serialized
/// sparse, as `[index, count]` pairs of the non-empty buckets (a many-hosts run sends
/// its ranks' recorder state to rank 0: src/ranks/).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "Vec<(u32, u64)>", from = "Vec<(u32, u64)>")]
pub struct HdrCounts(Vec<u64>);

impl From<HdrCounts> for Vec<(u32, u64)> {
    fn from(h: HdrCounts) -> Self {
        h.0.iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| (u32::try_from(i).unwrap_or(u32::MAX), c))
            .collect()
    }
}

impl From<Vec<(u32, u64)>> for HdrCounts {
    /// The counts of the pairs; an index beyond a 1 h histogram's (a corrupt message)
    /// is dropped, so reading never allocates more than recording could.
    fn from(pairs: Vec<(u32, u64)>) -> Self {
        let mut h = HdrCounts::default();
        let top = hdr_index(super::MAX_TRACKABLE_NS);
        for (i, c) in pairs.into_iter().filter(|p| (p.0 as usize) <= top) {
            let i = i as usize;
            if h.0.len() <= i {
                h.0.resize((i / HALF + 1) * HALF, 0);
            }
            h.0[i] += c;
        }
        h
    }
}

impl HdrCounts {
    /// Count one sample of `v` ns (callers clamp to [`super::MAX_TRACKABLE_NS`]).
    #[inline(always)]
    pub fn record(&mut self, v: u64) {
        let i = hdr_index(v);
        match self.0.get_mut(i) {
            Some(c) => *c += 1,
            None => self.grow_add(i),
        }
    }
    /// Grow the counts to the end of index `i`'s bucket and count one sample there.
    #[cold]
    #[inline(never)]
    fn grow_add(&mut self, i: usize) {
        self.0.resize((i / HALF + 1) * HALF, 0);
        self.0[i] += 1;
    }
    /// Add another histogram's counts.
    pub fn merge(&mut self, o: &HdrCounts) {
        if self.0.len() < o.0.len() {
            self.0.resize(o.0.len(), 0);
        }
        for (c, x) in self.0.iter_mut().zip(&o.0) {
            *c += x;
        }
    }
    /// The counts recorded since `earlier`, a reading of the same counts taken before
    /// (bucket by bucket); when a bucket went down the counts were reset in between and
    /// all of them are new.
    pub fn since(&self, earlier: &HdrCounts) -> HdrCounts {
        let reset = self.0.iter().zip(&earlier.0).any(|(n, o)| n < o)
            || earlier.0[self.0.len().min(earlier.0.len())..]
                .iter()
                .any(|&c| c > 0);
        if reset {
            return self.clone();
        }
        let mut d = self.clone();
        for (c, o) in d.0.iter_mut().zip(&earlier.0) {
            *c -= o;
        }
        d
    }
    /// The HDR histogram of these counts: the one recording each sample into a
    /// [`new_hist`] would give.
    pub fn hist(&self) -> Histogram<u64> {
        let mut h = new_hist();
        for (i, &c) in self.0.iter().enumerate().filter(|(_, &c)| c > 0) {
            // Cannot fail: the histogram auto-resizes to the value.
            let _ = h.record_n(hdr_value(i), c);
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::MAX_TRACKABLE_NS;

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
        let (mut l, mut h) = (HdrCounts::default(), new_hist());
        for &v in &vals {
            l.record(v);
            h.record(v).unwrap();
            assert_eq!(hdr_value(hdr_index(v)), h.lowest_equivalent(v), "value {v}");
        }
        let got = l.hist();
        assert_eq!(got, h);
        assert_eq!(got.distinct_values(), h.distinct_values());
        assert_eq!(
            (got.len(), got.min(), got.max()),
            (h.len(), h.min(), h.max())
        );
        assert_eq!(got.stdev(), h.stdev());
        for q in [0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0] {
            assert_eq!(got.value_at_percentile(q), h.value_at_percentile(q), "p{q}");
        }
        let a: Vec<_> = got
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect();
        let b: Vec<_> = h
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect();
        assert_eq!(a, b);
        // a merge of halves is the whole
        let (mut x, mut y) = (HdrCounts::default(), HdrCounts::default());
        vals.iter()
            .enumerate()
            .for_each(|(i, &v)| if i % 2 == 0 { x.record(v) } else { y.record(v) });
        y.merge(&x);
        assert_eq!(y.hist(), h);
    }

    #[test]
    fn counts_survive_their_sparse_json_and_a_corrupt_index_is_dropped() {
        let mut l = HdrCounts::default();
        for v in [0, 5, 5, 2_176_826, MAX_TRACKABLE_NS] {
            l.record(v);
        }
        let json = serde_json::to_string(&l).unwrap();
        assert_eq!(
            json.matches('[').count(),
            1 + 4,
            "four non-empty buckets: {json}"
        );
        let back: HdrCounts = serde_json::from_str(&json).unwrap();
        assert_eq!(back, l);
        assert_eq!(back.hist(), l.hist());
        let bad: HdrCounts = serde_json::from_str("[[7,2],[4000000000,1]]").unwrap();
        assert_eq!((bad.hist().len(), bad.0.len()), (2, HALF));
    }
}
