//! The HDR latency histogram inside a result, and its lossless JSON form.
//!
//! Every histogram of iomark has the one configuration of the recorder
//! ([`crate::stats::new_hist`]: 1 ns to 1 hour, 3 significant digits). A result keeps
//! its non-empty buckets only:
//!
//! ```json
//! {"sigfig": 3, "max_ns": 3600000000000, "buckets": [[1023,17],[1151,2],...]}
//! ```
//!
//! Each pair is `[value, count]`: `value` is the highest value (ns) the bucket holds
//! (HdrHistogram's "highest equivalent value"; 0 for the exact bucket of 0 ns), `count`
//! the samples in it, in increasing value order. Re-recording each pair into a fresh
//! histogram of the same configuration gives the same counts in the same buckets, so
//! percentiles, stdev and bins read from a loaded result equal the recorded ones, and
//! the histograms of several results (ranks of a multi-host run, loops of `mark`) merge
//! exactly by adding their pairs. The pairs are written on one line even in a
//! pretty-printed result. [`merge_latency`] merges the latencies of several results
//! that way.

use super::Latency;
use crate::stats::{new_hist, MAX_TRACKABLE_NS};
use hdrhistogram::Histogram;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// Significant digits of every iomark histogram.
pub const SIGFIG: u8 = 3;

/// A latency histogram of the recorder's configuration (see the module header).
#[derive(Clone, Debug)]
pub struct Hist(pub Histogram<u64>);

impl Hist {
    /// The non-empty buckets as `(highest value, count)` pairs, ascending.
    pub fn buckets(&self) -> Vec<(u64, u64)> {
        self.0
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect()
    }

    /// A histogram holding the `(value, count)` pairs (values above the recorder's
    /// 1 hour are counted at 1 hour, as the recorder does).
    pub fn from_buckets(pairs: &[(u64, u64)]) -> Hist {
        let mut h = new_hist();
        for &(v, c) in pairs {
            let _ = h.record_n(v.min(MAX_TRACKABLE_NS), c);
        }
        Hist(h)
    }

    /// Add the samples of another histogram.
    pub fn merge(&mut self, o: &Hist) {
        let _ = self.0.add(&o.0);
    }
}

impl PartialEq for Hist {
    fn eq(&self, o: &Hist) -> bool {
        self.buckets() == o.buckets()
    }
}

#[derive(Deserialize)]
struct Wire {
    sigfig: u8,
    max_ns: u64,
    buckets: Vec<(u64, u64)>,
}

#[derive(Serialize)]
struct WireOut<'a> {
    sigfig: u8,
    max_ns: u64,
    /// the pairs as one JSON array written as is, so a pretty-printed result keeps
    /// them on one line
    buckets: &'a serde_json::value::RawValue,
}

impl Serialize for Hist {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let text = serde_json::to_string(&self.buckets()).map_err(S::Error::custom)?;
        let raw = serde_json::value::RawValue::from_string(text).map_err(S::Error::custom)?;
        WireOut {
            sigfig: SIGFIG,
            max_ns: MAX_TRACKABLE_NS,
            buckets: &raw,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Hist {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Hist, D::Error> {
        let w = Wire::deserialize(d)?;
        if w.sigfig != SIGFIG || w.max_ns != MAX_TRACKABLE_NS {
            return Err(D::Error::custom(format!(
                "histogram with sigfig {} and max_ns {}: this iomark reads sigfig {SIGFIG}, max_ns {MAX_TRACKABLE_NS}",
                w.sigfig, w.max_ns
            )));
        }
        Ok(Hist::from_buckets(&w.buckets))
    }
}

/// Latency of events recorded in several results (`compare` over runs; each
/// `mark` loop): exact count, sum, min and max; mean
/// from them; stdev and every percentile key of the inputs from the merged histogram.
pub fn merge_latency(parts: &[&Latency]) -> Latency {
    let mut hist = Hist(new_hist());
    let mut out = Latency::default();
    let mut keys: Vec<String> = Vec::new();
    for l in parts.iter().filter(|l| l.count > 0) {
        if out.count == 0 || l.min_ns < out.min_ns {
            out.min_ns = l.min_ns;
        }
        out.max_ns = out.max_ns.max(l.max_ns);
        out.count += l.count;
        out.sum_ns = out.sum_ns.saturating_add(l.sum_ns);
        if let Some(h) = &l.histogram {
            hist.merge(h);
        }
        keys.extend(l.percentiles_ns.keys().cloned());
    }
    if out.count == 0 {
        return out;
    }
    out.mean_ns = out.sum_ns / out.count;
    out.stdev_ns = hist.0.stdev();
    out.percentiles_ns = keys
        .into_iter()
        .filter_map(|k| k.parse::<f64>().ok().map(|p| (k, p)))
        .map(|(k, p)| (k, crate::stats::percentile_ns(&hist.0, p)))
        .collect::<BTreeMap<_, _>>();
    out.histogram = (!hist.0.is_empty()).then_some(hist);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::percentile_ns;

    #[test]
    fn json_round_trip_keeps_every_bucket_and_percentile() {
        let mut h = new_hist();
        for v in [
            0u64,
            0,
            1,
            7,
            2047,
            2048,
            2_176_826,
            9_999_999_999,
            u64::MAX / 4,
        ] {
            let _ = h.record(v.min(MAX_TRACKABLE_NS));
        }
        let a = Hist(h);
        let text = serde_json::to_string(&a).unwrap();
        assert!(
            text.starts_with(
                "{\"sigfig\":3,\"max_ns\":3600000000000,\"buckets\":[[0,2],[1,1],[7,1],"
            ),
            "{text}"
        );
        let b: Hist = serde_json::from_str(&text).unwrap();
        assert_eq!(a, b);
        for p in [1.0, 25.0, 50.0, 99.0, 99.9, 100.0] {
            assert_eq!(percentile_ns(&a.0, p), percentile_ns(&b.0, p));
        }
        assert_eq!(a.0.stdev(), b.0.stdev());
        assert_eq!(a.0.len(), b.0.len());
    }

    #[test]
    fn merging_pairs_equals_merging_histograms() {
        let (mut x, mut y) = (new_hist(), new_hist());
        for v in 1..5000u64 {
            let _ = x.record(v * 37);
            let _ = y.record(v * 101 + 5);
        }
        let mut both = x.clone();
        both.add(&y).unwrap();
        let mut m = Hist::from_buckets(&Hist(x).buckets());
        m.merge(&Hist::from_buckets(&Hist(y).buckets()));
        assert_eq!(m, Hist(both));
    }

    #[test]
    fn another_configuration_is_refused() {
        let e = serde_json::from_str::<Hist>(r#"{"sigfig":2,"max_ns":3600000000000,"buckets":[]}"#)
            .unwrap_err();
        assert!(e.to_string().contains("sigfig 2"), "{e}");
    }

    #[test]
    fn merged_latencies_are_those_of_the_merged_recorder() {
        let (mut a, mut b) = (
            crate::stats::LatAcc::default(),
            crate::stats::LatAcc::default(),
        );
        (1..3000u64).for_each(|v| a.add(v * 41));
        (1..700u64).for_each(|v| b.add(v * 997 + 3));
        let (la, lb) = (
            crate::result::build::acc_latency(a.clone()),
            crate::result::build::acc_latency(b.clone()),
        );
        a.merge(&b);
        assert_eq!(
            merge_latency(&[&la, &lb]),
            crate::result::build::acc_latency(a)
        );
        let empty = merge_latency(&[]);
        assert_eq!((empty.count, empty.histogram.is_none()), (0, true));
    }
}
