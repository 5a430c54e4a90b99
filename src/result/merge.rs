//! Merging measurements of one kind into one: directions (counters, latencies, fio's
//! bandwidth/IOPS samples) and fio's mixed
//! statistics of a job ([`mixed`], `unified_rw_reporting=both`). Latencies merge by
//! `hist.rs`'s `merge_latency`; the many-hosts aggregate merges recorder state instead
//! (result/ranks.rs, `JobStats::merge`).

use super::hist::merge_latency;
use super::job::{dir_runtime_ns, DirResult, JobResult, PrioLatency};
use super::Latency;

/// `v` per second over `secs` (0 when no time passed).
fn rate(v: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        v as f64 / secs
    } else {
        0.0
    }
}

/// Directions as one: counters summed, rates over `secs`, latencies merged, and the
/// bandwidth/IOPS samples added up as fio's `sum_stat` with `pure_sum` does (min, max,
/// means, S and counts each summed, `SampleStat::merge_sum`).
pub fn merge_dir(parts: &[&DirResult], secs: f64) -> DirResult {
    let ios = parts.iter().map(|d| d.ios).sum();
    let bytes = parts.iter().map(|d| d.bytes).sum();
    let lats = |f: fn(&DirResult) -> &Latency| parts.iter().map(|d| f(d)).collect::<Vec<_>>();
    let mut d = DirResult {
        ios,
        bytes,
        short: parts.iter().map(|d| d.short).sum(),
        unfilled: parts.iter().map(|d| d.unfilled).sum(),
        failed: parts.iter().map(|d| d.failed).sum(),
        iops: rate(ios, secs),
        bw_bytes_per_s: rate(bytes, secs),
        slat: merge_latency(&lats(|d| &d.slat)),
        clat: merge_latency(&lats(|d| &d.clat)),
        lat: merge_latency(&lats(|d| &d.lat)),
        ..DirResult::default()
    };
    for p in parts {
        d.bw_samples.merge_sum(&p.bw_samples);
        d.iops_samples.merge_sum(&p.iops_samples);
    }
    d
}

/// fio 3.33's mixed statistics of job `j` (`unified_rw_reporting=both`: stat.c
/// `gen_mixed_ddir_stats_from_ts`, which sums a job's directions into the read slot of a
/// fresh `thread_stat` marked `mixed`), as a job whose `read` is every direction merged
/// ([`merge_dir`]: bandwidth/IOPS samples summed as fio's `sum_stat`) and reported as
/// `mixed` (`unified_rw` 1): its run time is the longest of the directions that moved
/// data (fio keeps the largest `runtime[ddir]`), each priority's latencies of every
/// direction are one read entry (fio's `sum_clat_prio_stats` into direction 0).
pub fn mixed(j: &JobResult) -> JobResult {
    let runtime_ns = (0..3)
        .filter(|&d| j.dir(d).bytes > 0)
        .map(|d| dir_runtime_ns(&j.job.rw, j.runtime_ns, j.verify_ns, d))
        .max()
        .unwrap_or(0);
    let mut prios: Vec<PrioLatency> = Vec::new();
    for p in &j.prios {
        match prios.iter_mut().find(|e| e.ioprio == p.ioprio) {
            Some(e) => e.lat = merge_latency(&[&e.lat, &p.lat]),
            None => prios.push(PrioLatency {
                dir: "read".into(),
                ..p.clone()
            }),
        }
    }
    let mut m = JobResult {
        read: merge_dir(&[&j.read, &j.write, &j.trim], runtime_ns as f64 / 1e9),
        write: DirResult::default(),
        trim: DirResult::default(),
        runtime_ns,
        verify_ns: 0,
        prios,
        ..j.clone()
    };
    m.job.unified_rw = 1;
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lat(ns: &[u64]) -> Latency {
        let mut a = crate::stats::LatAcc::default();
        ns.iter().for_each(|&v| a.add(v));
        crate::result::build::acc_latency(a)
    }

    fn dir(ios: u64, ns: &[u64], bw: &[u64]) -> DirResult {
        let mut d = DirResult {
            ios,
            bytes: ios * 4096,
            clat: lat(ns),
            lat: lat(ns),
            ..DirResult::default()
        };
        bw.iter().for_each(|&b| d.bw_samples.add(b));
        bw.iter().for_each(|&b| d.iops_samples.add(b / 4));
        d
    }

    /// fio 3.33's `both` block of a read/write job: counts and bytes summed, latencies of
    /// both directions in one histogram (exact min/max/mean), the bandwidth samples
    /// summed field by field as `sum_stat(pure_sum)` (min 100+300, max 200+500, mean
    /// 150+400, 2+2 samples), the longest direction's run time (the verify read-back is
    /// the reads' time), and each priority once.
    #[test]
    fn mixed_sums_the_directions_as_fio() {
        let mut j = JobResult {
            runtime_ns: 40_000_000,
            verify_ns: 5_000_000,
            read: dir(3, &[1000, 2000, 3000], &[100, 200]),
            write: dir(2, &[10_000, 20_000], &[300, 500]),
            ..JobResult::default()
        };
        j.job.rw = "randrw".into();
        j.job.unified_rw = 2;
        for (d, ioprio, ns) in [("read", 0, 1000), ("write", 0, 2000), ("write", 8192, 3000)] {
            j.prios.push(PrioLatency {
                dir: d.into(),
                ioprio,
                lat: lat(&[ns]),
            });
        }
        let m = mixed(&j);
        assert_eq!((m.read.ios, m.read.bytes), (5, 5 * 4096));
        assert_eq!((m.write.ios, m.trim.ios), (0, 0));
        let c = &m.read.clat;
        assert_eq!(
            (c.count, c.min_ns, c.max_ns, c.sum_ns),
            (5, 1000, 20_000, 36_000)
        );
        assert_eq!(c.hist().len(), 5);
        let b = &m.read.bw_samples;
        assert_eq!((b.min, b.max, b.samples, b.mean), (400, 700, 4, 550.0));
        assert_eq!(m.read.iops_samples.samples, 4);
        assert_eq!(
            (m.runtime_ns, m.verify_ns, m.dir_runtime_ms(0)),
            (45_000_000, 0, 45)
        );
        assert_eq!(m.job.unified_rw, 1);
        let p: Vec<(&str, u16, u64)> = m
            .prios
            .iter()
            .map(|p| (p.dir.as_str(), p.ioprio, p.lat.count))
            .collect();
        assert_eq!(p, [("read", 0, 2), ("read", 8192, 1)]);
        // no direction moved data: no run time, nothing to report
        let none = mixed(&JobResult::default());
        assert_eq!((none.runtime_ns, none.read.ios), (0, 0));
    }
}
