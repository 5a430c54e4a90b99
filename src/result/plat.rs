//! fio's latency bucket grid, the one its `json+` `bins` and histogram logs are keyed
//! by (`write_hist_log` too, src/run/fio/log.rs): 29 groups of 64 buckets (1856 in all); a value below 128 ns is its own bucket,
//! above that a bucket spans 2^e ns in the group of values with their highest bit at
//! e + 6, and is named by the middle of its range. iomark records latencies in an HDR
//! histogram (src/result/hist.rs, 3 significant figures): its buckets are powers of two
//! wide and aligned, at most as wide as fio's there, so each lies inside one fio bucket
//! and regrouping them onto this grid is exact.

/// bits of a value kept below its highest bit
const BITS: u32 = 6;
/// buckets per group
const PER_GROUP: u64 = 1 << BITS;
/// buckets in all (29 groups)
pub const BUCKETS: usize = 29 * PER_GROUP as usize;

/// The bucket of `ns` (the last bucket for values past the grid).
pub fn index(ns: u64) -> usize {
    if ns < 2 * PER_GROUP {
        return ns as usize;
    }
    let msb = 63 - ns.leading_zeros();
    let error_bits = msb - BITS;
    let base = ((error_bits + 1) as u64) << BITS;
    let idx = base + ((ns >> error_bits) & (PER_GROUP - 1));
    (idx as usize).min(BUCKETS - 1)
}

/// The value fio names bucket `idx` by: the middle of its range (`idx` < 1856).
pub fn value(idx: usize) -> u64 {
    let idx = idx as u64;
    if idx < 2 * PER_GROUP {
        return idx;
    }
    let error_bits = (idx >> BITS) - 1;
    let base = 1u64 << (error_bits + BITS as u64);
    let k = idx % PER_GROUP;
    base + k * (1 << error_bits) + (1 << (error_bits - 1))
}

/// The non-empty buckets of `h` on fio's grid, ascending: (bucket value, count).
pub fn bins(h: &hdrhistogram::Histogram<u64>) -> Vec<(u64, u64)> {
    let mut out: Vec<(usize, u64)> = Vec::new();
    for v in h.iter_recorded() {
        let i = index(h.lowest_equivalent(v.value_iterated_to()));
        match out.last_mut() {
            Some((j, n)) if *j == i => *n += v.count_at_value(),
            _ => out.push((i, v.count_at_value())),
        }
    }
    out.into_iter().map(|(i, n)| (value(i), n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_matches_fio_buckets() {
        // below 128 every value is its own bucket
        assert_eq!((index(0), index(127)), (0, 127));
        assert_eq!((value(5), value(127)), (5, 127));
        // 128..=129 is bucket 128, named 129 (base 128 + 0.5 * 2)
        assert_eq!((index(128), index(129), index(130)), (128, 128, 129));
        assert_eq!(value(128), 129);
        // 1 ms: highest bit 19, buckets of 2^13 ns
        let i = index(1_000_000);
        assert_eq!(i, (14 << 6) + ((1_000_000 >> 13) & 63) as usize);
        assert!(value(i).abs_diff(1_000_000) < 1 << 12);
        assert_eq!(index(u64::MAX), BUCKETS - 1);
        // every bucket's value falls back into it
        for i in 0..BUCKETS {
            assert_eq!(index(value(i)), i, "bucket {i}");
        }
    }

    #[test]
    fn hdr_buckets_regroup_onto_the_grid() {
        let mut h = hdrhistogram::Histogram::<u64>::new_with_max(3_600_000_000_000, 3).unwrap();
        for ns in [100u64, 100, 128, 129, 130, 5_000, 5_001, 5_100, 1_000_000] {
            h.record(ns).unwrap();
        }
        let b = bins(&h);
        assert_eq!(b.iter().map(|x| x.1).sum::<u64>(), 9);
        assert_eq!(b[0], (100, 2));
        assert_eq!(b[1], (129, 2));
        assert_eq!(b[2], (131, 1));
        // 5000 and 5001 share fio's bucket 4992..5055 (named 5024), 5100 is the next
        assert_eq!(b[3], (5024, 2));
        assert_eq!(b[4], (5088, 1));
        for (v, _) in &b {
            assert_eq!(value(index(*v)), *v);
        }
    }
}
