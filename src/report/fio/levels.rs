//! fio's distribution keys and lines of a job: the per-direction bandwidth / IOPS
//! sample keys (`bw_min` … `iops_samples`, `bw_agg`), `iodepth_level`,
//! `iodepth_submit`, `iodepth_complete`, and `latency_ns` / `latency_us` /
//! `latency_ms` (clat buckets, derived from the HDR histograms after the run), plus the
//! matching text lines (`bw (  KiB/s): …`, `iops        : …`, `lat (usec)   : …`,
//! `IO depths    : …`, `issued rwts: …`, `latency   : …`). Formulas and key names: fio 3.33 `stat.c`
//! (`show_ddir_status_json`, `show_thread_status_json`, `stat_calc_lat`,
//! `io_u_mark_latency`).

use crate::result::job::SampleStat;
use crate::result::job::{DirResult, JobResult};
use serde_json::{json, Value};

/// fio `stat_calc_dist`: each bucket as a percentage of `total`; a non-empty bucket
/// under 0.1 % shows as 0.1; all zeros when `total` is 0.
pub fn dist_pct(map: &[u64], total: u64) -> Vec<f64> {
    map.iter()
        .map(|&c| {
            if total == 0 {
                return 0.0;
            }
            let p = c as f64 * 100.0 / total as f64;
            if p < 0.1 && c > 0 {
                0.1
            } else {
                p
            }
        })
        .collect()
}
/// Upper bounds of fio's latency buckets within one unit (ns, µs or ms).
pub const LAT_BOUNDS: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];

/// fio `io_u_mark_latency`: the (unit, bucket) of a completion latency in ns. Unit 0
/// is ns (< 1 µs), 1 is µs (< 1 ms), 2 is ms; the bucket is the number of
/// [`LAT_BOUNDS`] at or below the value in that unit (ms adds 2000: bucket 10 is
/// 1000–1999 ms, 11 is ≥ 2000 ms).
pub fn lat_bucket(ns: u64) -> (usize, usize) {
    let (unit, v) = if ns < 1_000 {
        (0, ns)
    } else if ns < 1_000_000 {
        (1, ns / 1_000)
    } else {
        (2, ns / 1_000_000)
    };
    let mut idx = LAT_BOUNDS.iter().filter(|&&b| b <= v).count();
    if unit == 2 && v >= 2000 {
        idx = 11;
    }
    (unit, idx)
}

/// Counts of clat per fio bucket: `[ns; 10]`, `[µs; 10]`, `[ms; 12]`, over the read,
/// write and trim clat histograms. A histogram bucket is placed by its lowest value
/// (exact below 2048 ns; above, HDR's 3 significant digits can move an I/O within
/// 0.1 % of a bucket bound to the neighbour bucket).
pub fn lat_counts(j: &JobResult) -> ([u64; 10], [u64; 10], [u64; 12]) {
    let (mut n, mut u, mut m) = ([0u64; 10], [0u64; 10], [0u64; 12]);
    for d in [&j.read, &j.write, &j.trim] {
        let h = d.clat.hist();
        for v in h.iter_recorded() {
            let lo = h.lowest_equivalent(v.value_iterated_to());
            let c = v.count_at_value();
            match lat_bucket(lo) {
                (0, i) => n[i] += c,
                (1, i) => u[i] += c,
                (_, i) => m[i] += c,
            }
        }
    }
    (n, u, m)
}

/// fio `stat_calc_lat`: counts as percentages of `total` I/Os; a non-empty bucket
/// under 0.01 % shows as 0.01.
pub fn lat_pct(c: &[u64], total: u64) -> Vec<f64> {
    c.iter()
        .map(|&x| match total {
            0 => 0.0,
            t => {
                let p = x as f64 * 100.0 / t as f64;
                if p < 0.01 && x > 0 {
                    0.01
                } else {
                    p
                }
            }
        })
        .collect()
}

fn total_ios(j: &JobResult) -> u64 {
    j.read.issued() + j.write.issued() + j.trim.issued()
}

fn keyed(keys: &[String], vals: &[f64]) -> Value {
    Value::Object(
        keys.iter()
            .cloned()
            .zip(vals.iter().map(|v| json!(v)))
            .collect(),
    )
}

fn depth_keys() -> Vec<String> {
    ["1", "2", "4", "8", "16", "32", ">=64"]
        .map(String::from)
        .to_vec()
}

fn map_keys() -> Vec<String> {
    ["0", "4", "8", "16", "32", "64", ">=64"]
        .map(String::from)
        .to_vec()
}

fn lat_keys(ms: bool) -> Vec<String> {
    let mut k: Vec<String> = LAT_BOUNDS.iter().map(u64::to_string).collect();
    if ms {
        k.push("2000".into());
        k.push(">=2000".into());
    }
    k
}

/// The job-level keys `iodepth_level`, `iodepth_submit`, `iodepth_complete`,
/// `latency_ns`, `latency_us`, `latency_ms` (all percentages), added to `v`.
pub fn add_job_keys(v: &mut Value, j: &JobResult) {
    let d = &j.depth;
    let sum = |a: &[u64; 7]| a.iter().sum::<u64>();
    v["iodepth_level"] = keyed(&depth_keys(), &dist_pct(&d.level, sum(&d.level)));
    v["iodepth_submit"] = keyed(&map_keys(), &dist_pct(&d.submit, sum(&d.submit)));
    v["iodepth_complete"] = keyed(&map_keys(), &dist_pct(&d.complete, sum(&d.complete)));
    let (n, u, m) = lat_counts(j);
    let t = total_ios(j);
    v["latency_ns"] = keyed(&lat_keys(false), &lat_pct(&n, t));
    v["latency_us"] = keyed(&lat_keys(false), &lat_pct(&u, t));
    v["latency_ms"] = keyed(&lat_keys(true), &lat_pct(&m, t));
}

/// fio's group aggregate bandwidth of direction `dir` (0 read, 1 write, 2 trim) for
/// the jobs of `groupid`: total bytes × 1000 / the longest run time in ms, B/s
/// (`rs->agg`); 0 when no job of the group moved data that way.
pub fn group_agg(jobs: &[JobResult], groupid: u32, dir: usize) -> u64 {
    let (mut bytes, mut max_ms) = (0u64, 0u64);
    for j in jobs.iter().filter(|j| j.groupid == groupid) {
        let d = j.dir(dir);
        if d.bytes > 0 {
            bytes += d.bytes;
            max_ms = max_ms.max(j.dir_runtime_ms(dir).max(1));
        }
    }
    (bytes * 1000).checked_div(max_ms).unwrap_or(0)
}

/// fio `bw_agg` (JSON) and the text's `per=`: the mean bandwidth sample (KiB/s) as a
/// percentage of the group's aggregate, at most 100 — fio 3.33's
/// `convert_agg_kbytes_percent`, which takes the mean as an `int` (truncated) and
/// divides by the aggregate in KiB/s as a double (`agg_bps / 1024.0`); an aggregate of
/// 1024 B/s or less gives 100. No samples: 0 (the JSON's value; the text prints no line).
/// (The terse field divides by the aggregate integer-divided to KiB/s and keeps the
/// mean whole: report/fio/terse.rs.)
pub fn bw_agg_pct(bw: &SampleStat, agg_bps: u64) -> f64 {
    if bw.samples == 0 {
        return 0.0;
    }
    if agg_bps <= 1024 {
        return 100.0;
    }
    // C's double → int conversion (saturating here where C's is undefined)
    let mean = f64::from(bw.mean as i32);
    (mean * 100.0 / (agg_bps as f64 / 1024.0)).min(100.0)
}

/// The per-direction sample keys, added to the direction object `o`: `bw_min`,
/// `bw_max` (KiB/s, integers), `bw_agg` (%), `bw_mean`, `bw_dev` (KiB/s),
/// `bw_samples`, `iops_min`, `iops_max` (integers), `iops_mean`, `iops_stddev`,
/// `iops_samples`. No samples: all 0 (fio).
pub fn add_dir_keys(o: &mut Value, d: &DirResult, agg_bps: u64) {
    let (bw, io) = (&d.bw_samples, &d.iops_samples);
    o["bw_min"] = json!(bw.min);
    o["bw_max"] = json!(bw.max);
    o["bw_agg"] = json!(bw_agg_pct(bw, agg_bps));
    o["bw_mean"] = json!(bw.mean);
    o["bw_dev"] = json!(bw.stddev());
    o["bw_samples"] = json!(bw.samples);
    o["iops_min"] = json!(io.min);
    o["iops_max"] = json!(io.max);
    o["iops_mean"] = json!(io.mean);
    o["iops_stddev"] = json!(io.stddev());
    o["iops_samples"] = json!(io.samples);
}

/// fio's text lines of the samples of one direction (none without samples):
/// `   bw (  KiB/s): min=…, max=…, per=…%, avg=…, stdev=…, samples=…` and
/// `   iops        : min=…, max=…, avg=…, stdev=…, samples=…`. The samples are KiB/s
/// whatever `kb_base`; as fio 3.33 (`show_ddir_status`), with `decimal` (`kb_base=1000`)
/// the label is `kB` and the switch to the `MiB` label comes when the mean is over
/// 1000² and divides by 1000 (default: over 1024², divides by 1024).
pub fn dir_text(j: &JobResult, dir: usize, agg_bps: u64, decimal: bool) -> String {
    let mut s = String::new();
    let bw = &j.dir(dir).bw_samples;
    if bw.samples > 0 {
        let (mut mn, mut mx, mut mean, mut dev) =
            (bw.min as f64, bw.max as f64, bw.mean, bw.stddev());
        let (base, mut unit) = if decimal {
            (1000.0, "kB")
        } else {
            (1024.0, "KiB")
        };
        if mean > base * base {
            (mn, mx, mean, dev) = (mn / base, mx / base, mean / base, dev / base);
            unit = "MiB";
        }
        s += &format!(
            "   bw ({unit:>5}/s): min={:5}, max={:5}, per={:3.2}%, avg={mean:5.02}, stdev={dev:5.02}, samples={}\n",
            mn as u64,
            mx as u64,
            bw_agg_pct(bw, agg_bps),
            bw.samples
        );
    }
    let io = &j.dir(dir).iops_samples;
    if io.samples > 0 {
        s += &format!(
            "   iops        : min={:5}, max={:5}, avg={:5.02}, stdev={:5.02}, samples={}\n",
            io.min,
            io.max,
            io.mean,
            io.stddev(),
            io.samples
        );
    }
    s
}

fn pct_cells(keys: &[String], p: &[f64], decimals: usize) -> Vec<String> {
    keys.iter()
        .zip(p)
        .filter(|(_, &x)| x > 0.0)
        .map(|(k, x)| format!("{k}={x:.decimals$}%"))
        .collect()
}

/// fio's job text lines for the latency buckets (`  lat (nsec)   : 500=1.00%, …`,
/// only non-empty units and buckets).
pub fn job_text(j: &JobResult) -> String {
    let mut s = String::new();
    let (n, u, m) = lat_counts(j);
    let t = total_ios(j);
    for (name, c, ms) in [
        ("nsec", &n[..], false),
        ("usec", &u[..], false),
        ("msec", &m[..], true),
    ] {
        // layout of fio 3.33 text report (`show_lat`): five entries per line, each line
        // repeating the `lat (unit)` label
        let cells = pct_cells(&lat_keys(ms), &lat_pct(c, t), 2);
        for row in cells.chunks(5) {
            s += &format!("  lat ({name})   : {}\n", row.join(", "));
        }
    }
    s
}

/// Where fio 3.33 counts a job's sync requests: fsync calls in `total_io_u[DDIR_SYNC]`
/// (the 4th `total=` figure, JSON `sync.total_ios`); fdatasync and sync_file_range calls
/// (`DDIR_DATASYNC` 4, `DDIR_SYNC_FILE_RANGE` 5) one and two slots past that 4-entry
/// array, i.e. in `short_io_u[0]` and `short_io_u[1]` — so fio prints `total=0,512,0,0
/// short=102,0,0,0` for 102 fdatasyncs, and JSON `sync.total_ios` 0, `read.short_ios`
/// 102. Returns (the 4th total, the short counts of read, write, trim); iomark's own
/// RunResult keeps the syncs where they belong.
pub fn issued_slots(j: &JobResult) -> (u64, [u64; 3]) {
    let f = &j.job.fsync;
    if f.sync_file_range {
        (0, [0, j.sync.ios, 0])
    } else if f.fdatasync {
        (0, [j.sync.ios, 0, 0])
    } else {
        (j.sync.ios, [0; 3])
    }
}

/// fio's lines after `cpu`: the depth distributions (`  IO depths    : 1=…%`,
/// `     submit    : …`, `     complete  : …`; when any was counted), then
/// `     issued rwts: total=R,W,T,S short=R,W,T,0 dropped=0,0,0,0` — requests issued per
/// direction (reads, writes, trims, fsync calls: those done, each short transfer whose
/// rest was issued again and each that moved nothing, as fio's `total_io_u`; a failed
/// one under `continue_on_error` is not in them), the short transfers, and none
/// dropped — and
/// `     errors    : total=N, first_error=E/<strerror>` when `coe`
/// (`continue_on_error` or `ignore_error` on, [`crate::report::fio::continues_on_error`],
/// even at 0 errors: `total=0, first_error=0/<Success>`), and
/// `     latency   : target=NS, window=US, percentile=P%, depth=N` (the
/// `latency_target` search, or target 0 at the job's iodepth; fio `stat.c`).
pub fn depths_text(j: &JobResult, coe: bool) -> String {
    let mut s = String::new();
    let d = &j.depth;
    let sum = |a: &[u64; 7]| a.iter().sum::<u64>();
    if sum(&d.level) > 0 {
        let all = |k: &[String], p: &[f64]| {
            k.iter()
                .zip(p)
                .map(|(k, x)| format!("{k}={x:.1}%"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        s += &format!(
            "  IO depths    : {}\n",
            all(&depth_keys(), &dist_pct(&d.level, sum(&d.level)))
        );
        s += &format!(
            "     submit    : {}\n",
            all(&map_keys(), &dist_pct(&d.submit, sum(&d.submit)))
        );
        s += &format!(
            "     complete  : {}\n",
            all(&map_keys(), &dist_pct(&d.complete, sum(&d.complete)))
        );
    }
    let (sync, short) = issued_slots(j);
    s += &format!(
        "     issued rwts: total={},{},{},{sync} short={},{},{},0 dropped=0,0,0,0\n",
        j.read.issued(),
        j.write.issued(),
        j.trim.issued(),
        short[0] + j.read.short,
        short[1] + j.write.short,
        short[2] + j.trim.short
    );
    if coe {
        s += &format!(
            "     errors    : total={}, first_error={}/<{}>\n",
            j.errors,
            j.first_errno,
            crate::util::strerror(j.first_errno)
        );
    }
    if let Some(l) = &j.lat_target {
        // fio's line: target in ns, window in µs
        s += &format!(
            "     latency   : target={}, window={}, percentile={:.2}%, depth={}\n",
            l.target_ns, l.window_us, l.percentile, l.depth
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dist_has_fios_floor() {
        assert_eq!(dist_pct(&[1, 999, 0], 1000), vec![0.1, 99.9, 0.0]);
        assert_eq!(dist_pct(&[0, 0], 0), vec![0.0, 0.0]);
    }

    /// The `bw (…/s)` label and scale of fio 3.33 for kb_base 1024 and 1000: samples are
    /// KiB/s either way; `kB` is only the label, and the `MiB` switch comes above
    /// base² (fio with kb_base=1000 printed `bw (  MiB/s): … avg=17601.33` for a mean
    /// of 17.6 million KiB/s).
    #[test]
    fn bw_line_label_and_scale_follow_kb_base() {
        let mut j = JobResult::default();
        for v in [1000, 3000] {
            j.read.bw_samples.add(v);
        }
        // mean 2000 KiB/s, stdev 1414.21; agg 2000 KiB/s → per=100 %
        let agg = 2000 * 1024;
        assert_eq!(
            dir_text(&j, 0, agg, false),
            "   bw (  KiB/s): min= 1000, max= 3000, per=100.00%, avg=2000.00, stdev=1414.21, samples=2\n"
        );
        assert_eq!(
            dir_text(&j, 0, agg, true),
            "   bw (   kB/s): min= 1000, max= 3000, per=100.00%, avg=2000.00, stdev=1414.21, samples=2\n"
        );
        // mean 1 020 000 KiB/s: over 1000² but not 1024²
        let mut j = JobResult::default();
        for v in [1_010_000, 1_030_000] {
            j.read.bw_samples.add(v);
        }
        let agg = 1_020_000 * 1024;
        assert!(dir_text(&j, 0, agg, false).starts_with(
            "   bw (  KiB/s): min=1010000, max=1030000, per=100.00%, avg=1020000.00, stdev=14142.14,"
        ));
        assert!(dir_text(&j, 0, agg, true).starts_with(
            "   bw (  MiB/s): min= 1010, max= 1030, per=100.00%, avg=1020.00, stdev=14.14,"
        ));
    }

    #[test]
    fn lat_buckets_are_fios() {
        assert_eq!(lat_bucket(0), (0, 0));
        assert_eq!(lat_bucket(1), (0, 0));
        assert_eq!(lat_bucket(2), (0, 1));
        assert_eq!(lat_bucket(999), (0, 9));
        assert_eq!(lat_bucket(1_000), (1, 0));
        assert_eq!(lat_bucket(250_000), (1, 7));
        assert_eq!(lat_bucket(499_999), (1, 7));
        assert_eq!(lat_bucket(1_000_000), (2, 0));
        assert_eq!(lat_bucket(1_999_999_999), (2, 10));
        assert_eq!(lat_bucket(2_000_000_000), (2, 11));
    }

    #[test]
    fn lat_counts_and_percent() {
        let mut j = JobResult::default();
        let mut h = crate::result::Hist::from_buckets(&[]).0;
        for ns in [300, 300, 1_500, 600_000] {
            h.record(ns).unwrap();
        }
        j.read.clat.histogram = Some(crate::result::Hist(h));
        j.read.ios = 4;
        let (n, u, m) = lat_counts(&j);
        assert_eq!(n[7], 2); // 250..499 ns: key "500"
        assert_eq!(u[0], 1); // 1 µs: key "2"
        assert_eq!(u[8], 1); // 500..749 µs: key "750"
        assert_eq!(m.iter().sum::<u64>(), 0);
        assert_eq!(lat_pct(&n, 4)[7], 50.0);
        assert_eq!(lat_pct(&[1, 0], 100_000), vec![0.01, 0.0]);
        let mut v = json!({});
        add_job_keys(&mut v, &j);
        assert_eq!(v["latency_ns"]["500"], json!(50.0));
        assert_eq!(v["latency_us"]["750"], json!(25.0));
        assert_eq!(v["latency_ms"][">=2000"], json!(0.0));
        assert_eq!(v["iodepth_level"].as_object().unwrap().len(), 7);
        assert!(job_text(&j).contains("  lat (nsec)   : 500=50.00%\n"));
    }

    /// Layout of fio 3.33 text report: five level entries per line, then a new
    /// `lat (unit)` line (fio 3.33: `  lat (usec)   : 2=83.93%, 4=0.12%, 10=0.08%,
    /// 20=0.01%, 50=0.04%` / `  lat (usec)   : 100=0.01%, 250=0.01%, 500=0.01%`).
    #[test]
    fn five_level_entries_per_line() {
        let mut j = JobResult::default();
        // one I/O in each of 8 µs buckets, 5 ms buckets, 1 ns bucket
        let us = [
            1_500, 3_000, 5_000, 15_000, 30_000, 60_000, 200_000, 400_000,
        ];
        let ms = [1_500_000, 3_000_000, 5_000_000, 15_000_000, 30_000_000];
        let mut h = crate::result::Hist::from_buckets(&[]).0;
        for ns in us.iter().chain(&ms).chain(&[600]) {
            h.record(*ns).unwrap();
        }
        j.read.clat.histogram = Some(crate::result::Hist(h));
        j.read.ios = 14;
        let t = job_text(&j);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert_eq!(lines[0], "  lat (nsec)   : 750=7.14%");
        assert_eq!(
            lines[1],
            "  lat (usec)   : 2=7.14%, 4=7.14%, 10=7.14%, 20=7.14%, 50=7.14%"
        );
        assert_eq!(lines[2], "  lat (usec)   : 100=7.14%, 250=7.14%, 500=7.14%");
        assert_eq!(
            lines[3],
            "  lat (msec)   : 2=7.14%, 4=7.14%, 10=7.14%, 20=7.14%, 50=7.14%"
        );
    }

    #[test]
    fn issued_and_latency_target_lines() {
        let mut j = JobResult::default();
        (j.read.ios, j.write.ios, j.trim.ios, j.sync.ios) = (132, 124, 2, 3);
        let t = depths_text(&j, false);
        assert_eq!(
            t,
            "     issued rwts: total=132,124,2,3 short=0,0,0,0 dropped=0,0,0,0\n"
        );
        // continue_on_error/ignore_error on: fio's errors line even at 0 errors
        let t = depths_text(&j, true);
        assert!(
            t.ends_with("dropped=0,0,0,0\n     errors    : total=0, first_error=0/<Success>\n"),
            "{t}"
        );
        j.lat_target = Some(crate::result::job::LatTargetReport {
            depth: 4,
            target_ns: 0,
            window_us: 0,
            percentile: 100.0,
        });
        j.depth.level[2] = 10;
        j.depth.submit[2] = 10;
        j.depth.complete[2] = 10;
        let t = depths_text(&j, false);
        let lines: Vec<&str> = t.lines().collect();
        assert!(
            lines[0].starts_with("  IO depths    : 1=0.0%, 2=0.0%, 4=100.0%"),
            "{t}"
        );
        assert!(
            lines[3].starts_with("     issued rwts: total=132,124,2,3 "),
            "{t}"
        );
        // fio 3.33 without latency_target: "target=0, window=0, percentile=100.00%, depth=4"
        assert_eq!(
            lines[4],
            "     latency   : target=0, window=0, percentile=100.00%, depth=4"
        );
        assert_eq!(lines.len(), 5);
    }

    /// fio 3.33 counts fdatasync calls in `short_io_u[0]` and sync_file_range calls in
    /// `short_io_u[1]` (one and two slots past its 4-entry `total_io_u`); fsyncs stay
    /// the 4th total.
    #[test]
    fn fdatasync_and_sync_file_range_land_in_fios_short_slots() {
        let mut j = JobResult::default();
        (j.write.ios, j.sync.ios) = (512, 102);
        let line = |j: &JobResult| depths_text(j, false);
        assert!(
            line(&j).contains("total=0,512,0,102 short=0,0,0,0 "),
            "{}",
            line(&j)
        );
        j.job.fsync.fdatasync = true;
        assert!(
            line(&j).contains("total=0,512,0,0 short=102,0,0,0 "),
            "{}",
            line(&j)
        );
        assert_eq!(issued_slots(&j), (0, [102, 0, 0]));
        j.job.fsync.sync_file_range = true;
        assert!(
            line(&j).contains("total=0,512,0,0 short=0,102,0,0 "),
            "{}",
            line(&j)
        );
    }

    #[test]
    fn agg_and_bw_agg() {
        let mut a = JobResult::default();
        a.read.ios = 1;
        a.read.bytes = 1 << 20;
        a.runtime_ns = 1_000_000_000;
        let mut b = a.clone();
        b.runtime_ns = 2_000_000_000;
        let jobs = [a, b];
        // 2 MiB over the longest run, 2000 ms: 1 MiB/s
        assert_eq!(group_agg(&jobs, 0, 0), 1 << 20);
        assert_eq!(group_agg(&jobs, 0, 1), 0);
        let mut s = SampleStat::default();
        s.add(256);
        assert_eq!(bw_agg_pct(&s, 1 << 20), 25.0);
        s.add(4096);
        assert_eq!(bw_agg_pct(&s, 1 << 20), 100.0);
    }

    /// `per=` as fio 3.33 printed it for two rate-limited jobs of one group
    /// (`--name=a --rw=read --size=2m --rate_iops=1000 --name=b … --rate_iops=600`, both
    /// with `bwavgtime=100`): group `READ: bw=4808KiB/s`, 4 MiB over 852 ms, so
    /// 4 922 892 B/s; job a `avg=4008.00` → `per=83.37%`, job b `avg=2406.25` →
    /// `per=50.05%`. The mean is truncated to an integer and the aggregate divided by
    /// 1024.0 (integer KiB/s, 4807, and the untruncated mean give 83.38% and 50.06%).
    #[test]
    fn per_is_fios_share_of_the_group_aggregate() {
        let agg = 4_194_304 * 1000 / 852;
        assert_eq!(agg, 4_922_892);
        let samples = |v: &[u64]| {
            let mut s = SampleStat::default();
            v.iter().for_each(|&x| s.add(x));
            s
        };
        let a = samples(&[4000, 4000, 4000, 4032]);
        assert_eq!(a.mean, 4008.0);
        assert_eq!(format!("{:3.2}", bw_agg_pct(&a, agg)), "83.37");
        let b = samples(&[2400, 2400, 2400, 2400, 2400, 2426, 2402, 2422]);
        assert_eq!(b.mean, 2406.25);
        assert_eq!(format!("{:3.2}", bw_agg_pct(&b, agg)), "50.05");
        // an aggregate of at most 1 KiB/s: 100 (fio's default share); no samples: 0
        assert_eq!(bw_agg_pct(&a, 1024), 100.0);
        assert_eq!(bw_agg_pct(&SampleStat::default(), agg), 0.0);
        // the text line prints it with `per=%3.2f%%`
        let mut j = JobResult::default();
        j.read.bw_samples = a;
        let t = dir_text(&j, 0, agg, false);
        assert!(t.contains(", per=83.37%, avg=4008.00, "), "{t}");
    }
}
