//! sysbench's 1024-bucket logarithmic latency histogram geometry, used to print
//! `--histogram` in the same table shape.
//! Counts come from the HDR histogram; each HDR value range is assigned to the sysbench
//! bucket of its representative value.

use hdrhistogram::Histogram;

const BUCKETS: usize = 1024;
const MIN_MS: f64 = 0.001;

fn k() -> f64 {
    (BUCKETS as f64 - 1.0) / (1e8f64).ln()
}

/// Bucket index of a latency in ms: `floor((ln L − ln 0.001) × K + 0.5)` clamped.
pub fn bucket_of(ms: f64) -> usize {
    if ms <= MIN_MS {
        return 0;
    }
    let i = ((ms.ln() - MIN_MS.ln()) * k() + 0.5).floor();
    (i.max(0.0) as usize).min(BUCKETS - 1)
}

/// Representative value of bucket `i` in ms: `0.001 × e^(i/K)`.
pub fn bucket_value(i: usize) -> f64 {
    MIN_MS * (i as f64 / k()).exp()
}

/// Counts per sysbench bucket (only non-empty buckets), ascending.
pub fn buckets(h: &Histogram<u64>) -> Vec<(f64, u64)> {
    let mut counts = vec![0u64; BUCKETS];
    for v in h.iter_recorded() {
        let ms = h.highest_equivalent(v.value_iterated_to()) as f64 / 1e6;
        counts[bucket_of(ms)] += v.count_at_value();
    }
    counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(i, c)| (bucket_value(i), *c))
        .collect()
}

/// The `--histogram` block: title, column header, one line per bucket, and the line
/// holding a single space. iomark prints the column header also with zero events
/// (sysbench omits it: bug B15).
pub fn render(h: &Histogram<u64>) -> String {
    let mut s = String::from("Latency histogram (values are in milliseconds)\n");
    s.push_str("       value  ------------- distribution ------------- count\n");
    let b = buckets(h);
    let max = b.iter().map(|x| x.1).max().unwrap_or(0);
    for (v, c) in b {
        let stars = ((c as f64 * 40.0 / max as f64) + 0.5).floor() as usize;
        s.push_str(&format!("{:>12.3} |{:<40} {}\n", v, "*".repeat(stars), c));
    }
    s.push_str(" \n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_geometry_matches_spec() {
        assert_eq!(bucket_of(0.0005), 0);
        assert_eq!(bucket_of(1e9), 1023);
        let ratio = bucket_value(1) / bucket_value(0);
        assert!((ratio - 1.01817).abs() < 1e-4);
        // T11: 0.155 ms prints as bucket value 0.155
        assert_eq!(format!("{:.3}", bucket_value(bucket_of(0.155))), "0.155");
    }

    #[test]
    fn render_shape() {
        let mut h = crate::result::Hist::from_buckets(&[]).0;
        for _ in 0..10 {
            h.record(99_000).unwrap();
        }
        h.record(206_000).unwrap();
        let out = render(&h);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "Latency histogram (values are in milliseconds)");
        assert_eq!(
            lines[2],
            "       0.099 |**************************************** 10"
        );
        assert_eq!(
            lines[3],
            "       0.206 |****                                     1"
        );
        assert_eq!(lines[4], " ");
    }
}
