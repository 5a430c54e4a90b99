//! fio's terse output (`--minimal`, `--output-format=terse`), versions 2 to 5
//! ([`FioTerse`]): one line of `;`-separated fields per reported job, in fio 3.33's order
//! (`stat.c` `show_thread_status_terse_all`, the HOWTO's "TERSE OUTPUT"):
//!
//! - the header: `2;NAME;GROUPID;ERROR` (v2) or `V;FIO_VERSION;NAME;GROUPID;ERROR`;
//! - per direction (read, write, and trim for v2, v4, v5; with `unified_rw_reporting=mixed`
//!   only the merged one; with `both`, the directions merged as one more): KiB moved, bandwidth KiB/s,
//!   IOPS, run time ms; slat, clat (min, max µs, mean, stdev µs); 20 percentile fields
//!   `P%=µs` (lat with `lat_percentiles`, else clat; the unused ones `0%=0`); lat;
//!   bandwidth samples (min, max, % of the group's aggregate, mean, stdev KiB/s), and v5
//!   adds the bandwidth sample count and the IOPS samples (min, max, mean, stdev, count);
//! - CPU (usr %, sys %, context switches, major and minor faults), 7 I/O depth levels,
//!   10 µs and 12 ms latency buckets (the ns buckets added to the first µs one);
//! - v3 and later: per device `;NAME;read ios;write ios;read merges;write merges;read
//!   ticks;write ticks;in queue;util%`;
//! - with `continue_on_error`: the error count and first errno; with `description`:
//!   `;DESCRIPTION` (v2: on a line of its own).

use crate::report::fio::levels::{dist_pct, group_agg, lat_counts, lat_pct};
use crate::report::fio::{cpu_pct, option, pcts};
use crate::report::{ReportError, Reporter};
use crate::result::job::{DirResult, JobResult, SampleStat};
use crate::result::{DeviceCounters, Latency, RunResult};
use std::fmt::Write;

/// fio's FIO_IO_U_LIST_MAX_LEN: the percentile fields of a direction.
pub const PERCENTILE_FIELDS: usize = 20;

/// fio's terse lines of a run.
pub struct FioTerse {
    /// 2, 3, 4 or 5
    pub version: u8,
    /// the version field of v3 and later (`fio-3.33` under the fio persona)
    pub fio_version: String,
}

impl Reporter for FioTerse {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let mut s = String::new();
        for j in &r.jobs {
            s += &self.job_line(j, r);
        }
        Ok(s.into_bytes())
    }
}

/// A reporter followed directly by another, with no separator: fio prints its terse
/// lines, then the JSON document at once.
pub struct Then(pub Box<dyn Reporter>, pub Box<dyn Reporter>);

impl Reporter for Then {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let mut out = self.0.render(r)?;
        out.extend(self.1.render(r)?);
        Ok(out)
    }
}

impl FioTerse {
    /// One job's line (two for v2 with a description).
    pub fn job_line(&self, j: &JobResult, r: &RunResult) -> String {
        let v = self.version;
        let error = if j.errno != 0 { j.errno } else { j.first_errno };
        let mut s = match v {
            2 => format!("2;{};{};{error}", j.job.name, j.groupid),
            _ => format!(
                "{v};{};{};{};{error}",
                self.fio_version, j.job.name, j.groupid
            ),
        };
        // fio 3.33: `unified_rw_reporting=mixed` has the one merged direction only
        let dirs: &[usize] = if j.job.unified_rw == 1 {
            &[0]
        } else if matches!(v, 2 | 4 | 5) {
            &[0, 1, 2]
        } else {
            &[0, 1]
        };
        for &d in dirs {
            s += &dir_fields(j, d, group_agg(&r.jobs, j.groupid, d), v);
        }
        if j.job.unified_rw == 2 {
            // fio 3.33's `show_mixed_ddir_status_terse`: the directions merged, as one
            // more direction after the others, its share of the group's read aggregate
            let m = crate::result::merge::mixed(j);
            s += &dir_fields(&m, 0, group_agg(&r.jobs, j.groupid, 0), v);
        }
        s += &job_fields(j);
        if v >= 3 {
            for c in &r.devices {
                s += &disk_fields(c);
            }
        }
        if crate::report::fio::continues_on_error(j, &r.global_options) {
            let _ = write!(s, ";{};{}", j.errors, j.first_errno);
        }
        if let Some(d) = option(j, &r.global_options, "description").filter(|d| !d.is_empty()) {
            if v == 2 {
                s.push('\n');
            }
            let _ = write!(s, ";{d}");
        }
        s.push('\n');
        s
    }
}

/// `;MIN;MAX;MEAN;STDEV` of a latency in µs (fio: integer division of the ns extremes);
/// zeros without samples.
fn lat_fields(l: &Latency) -> String {
    if l.count == 0 {
        return ";0;0;0.000000;0.000000".into();
    }
    format!(
        ";{};{};{:.6};{:.6}",
        l.min_ns / 1000,
        l.max_ns / 1000,
        l.mean() / 1000.0,
        l.stdev_ns / 1000.0
    )
}

/// The 20 percentile fields: fio's list sorted, `P%=µs`, then `0%=0` up to 20.
fn percentile_fields(j: &JobResult, d: &DirResult) -> String {
    let lat = if j.job.lat_percentiles {
        Some(&d.lat)
    } else if j.job.clat_percentiles {
        Some(&d.clat)
    } else {
        None
    };
    let mut ps: Vec<f64> = match lat {
        Some(_) => pcts(j).iter().copied().take(PERCENTILE_FIELDS).collect(),
        None => Vec::new(),
    };
    ps.sort_by(f64::total_cmp);
    let mut s = String::new();
    for i in 0..PERCENTILE_FIELDS {
        match (ps.get(i), lat) {
            (Some(&p), Some(l)) => {
                let v = if l.count == 0 { 0 } else { l.percentile_ns(p) };
                let _ = write!(s, ";{p:.6}%={}", v / 1000);
            }
            _ => s += ";0%=0",
        }
    }
    s
}

/// `;MIN;MAX;PCT%;MEAN;STDEV` of the bandwidth samples; `agg_bps` the group's
/// aggregate, B/s (fio: the mean as a percentage of it in KiB/s, at most 100).
fn bw_fields(bw: &SampleStat, agg_bps: u64) -> String {
    if bw.samples == 0 {
        return ";0;0;0.000000%;0.000000;0.000000".into();
    }
    let p_of_agg = match agg_bps / 1024 {
        _ if agg_bps == 0 => 100.0,
        0 => 100.0,
        kib => (bw.mean * 100.0 / kib as f64).min(100.0),
    };
    format!(
        ";{};{};{p_of_agg:.6}%;{:.6};{:.6}",
        bw.min,
        bw.max,
        bw.mean,
        bw.stddev()
    )
}

/// One direction's fields.
fn dir_fields(j: &JobResult, dir: usize, agg_bps: u64, v: u8) -> String {
    let d = j.dir(dir);
    let rt = if d.bytes > 0 {
        j.dir_runtime_ms(dir).max(1)
    } else {
        0
    };
    let (bw, iops) = match rt {
        0 => (0, 0),
        rt => (
            (d.bytes.saturating_mul(1000) / rt) / 1024,
            d.iops_ios() * 1000 / rt,
        ),
    };
    let mut s = format!(";{};{bw};{iops};{rt}", d.bytes >> 10);
    s += &lat_fields(&d.slat);
    s += &lat_fields(&d.clat);
    s += &percentile_fields(j, d);
    s += &lat_fields(&d.lat);
    s += &bw_fields(&d.bw_samples, agg_bps);
    if v == 5 {
        let (b, io) = (&d.bw_samples, &d.iops_samples);
        let _ = write!(s, ";{}", b.samples);
        if io.samples == 0 {
            s += ";0;0;0.000000;0.000000;0";
        } else {
            let _ = write!(
                s,
                ";{};{};{:.6};{:.6};{}",
                io.min,
                io.max,
                io.mean,
                io.stddev(),
                io.samples
            );
        }
    }
    s
}

/// CPU, I/O depth levels and the µs / ms latency buckets.
fn job_fields(j: &JobResult) -> String {
    let (usr, sys) = cpu_pct(j);
    let mut s = format!(
        ";{usr:.6}%;{sys:.6}%;{};{};{}",
        j.cpu.ctx(),
        j.cpu.majf,
        j.cpu.minf
    );
    let level = &j.depth.level;
    for p in dist_pct(level, level.iter().sum()) {
        let _ = write!(s, ";{p:3.1}%");
    }
    let (n, u, m) = lat_counts(j);
    let total = j.read.issued() + j.write.issued() + j.trim.issued();
    let mut us = lat_pct(&u, total);
    // fio keeps the terse layout of before its ns buckets: they count in the first µs one
    if total > 0 {
        us[0] += 100.0 * n.iter().sum::<u64>() as f64 / total as f64;
    }
    for (i, p) in us.iter().chain(lat_pct(&m, total).iter()).enumerate() {
        match (i, total) {
            // fio adds 0/0 there for a job that issued nothing: C's printf of that NaN
            (0, 0) => s.push_str(";-nan%"),
            _ => {
                let _ = write!(s, ";{p:3.2}%");
            }
        }
    }
    s
}

/// One device's fields (fio `print_disk_util`, terse).
fn disk_fields(c: &DeviceCounters) -> String {
    let ([ri, wi, rm, wm, rt, wt, q], util) = crate::report::fio::text::disk_figures(c);
    format!(";{};{ri};{wi};{rm};{wm};{rt};{wt};{q};{util:3.2}%", c.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{DevStat, Hist};

    fn lat(buckets: &[(u64, u64)], min: u64, max: u64) -> Latency {
        let count = buckets.iter().map(|b| b.1).sum();
        let sum = buckets.iter().map(|b| b.0 * b.1).sum();
        Latency {
            count,
            min_ns: min,
            max_ns: max,
            sum_ns: sum,
            stdev_ns: 1500.0,
            histogram: Some(Hist::from_buckets(buckets)),
            ..Latency::default()
        }
    }

    /// A read job the recorder measured: 256 reads of 4 KiB in 100 ms, clat 2–8 µs,
    /// two bandwidth samples, on one device.
    fn run() -> RunResult {
        let mut j = JobResult::default();
        j.job.name = "r".into();
        j.job.clat_percentiles = true;
        j.runtime_ns = 100_000_000;
        j.read.ios = 256;
        j.read.bytes = 256 * 4096;
        j.read.clat = lat(&[(2000, 128), (8000, 128)], 2000, 8000);
        j.read.lat = lat(&[(3000, 128), (9000, 128)], 3000, 9000);
        j.read.bw_samples.add(10_000);
        j.read.bw_samples.add(10_240);
        j.read.iops_samples.add(2500);
        j.depth.level[0] = 256;
        j.cpu.majf = 1;
        j.cpu.minf = 7;
        j.threads = 1;
        let mut r = crate::result::build(crate::result::Inputs::new(
            "run",
            &[],
            crate::result::Status::Ok,
        ));
        r.jobs = vec![j];
        r.devices = vec![DeviceCounters {
            name: "vda".into(),
            before: DevStat::default(),
            after: DevStat {
                read_ios: 256,
                io_ticks: 50,
                ..DevStat::default()
            },
            elapsed_ms: 100,
        }];
        r
    }

    fn fields(v: u8, r: &RunResult) -> Vec<String> {
        let t = FioTerse {
            version: v,
            fio_version: "fio-3.33".into(),
        };
        let line = String::from_utf8(t.render(r).unwrap()).unwrap();
        line.trim_end().split(';').map(str::to_string).collect()
    }

    #[test]
    fn field_counts_are_fios() {
        // fio 3.33, one job on one device: v2 161 (no device), v3 130, v4 171, v5 189
        let r = run();
        for (v, n) in [(2, 161), (3, 130), (4, 171), (5, 189)] {
            assert_eq!(fields(v, &r).len(), n, "terse v{v}");
        }
    }

    #[test]
    fn field_order_from_known_values() {
        let f = fields(3, &run());
        assert_eq!(&f[..5], ["3", "fio-3.33", "r", "0", "0"]);
        // read: 1024 KiB, 10240 KiB/s, 2560 IOPS, 100 ms
        assert_eq!(&f[5..9], ["1024", "10240", "2560", "100"]);
        // slat unmeasured; clat 2..8 µs, mean 5 µs, stdev 1.5 µs
        assert_eq!(&f[9..13], ["0", "0", "0.000000", "0.000000"]);
        assert_eq!(&f[13..17], ["2", "8", "5.000000", "1.500000"]);
        // clat percentiles: 1% = 2 µs, … 99.99% = 8 µs, then three empty slots
        assert_eq!(f[17], "1.000000%=2");
        assert_eq!(f[33], "99.990000%=8");
        assert_eq!(&f[34..37], ["0%=0", "0%=0", "0%=0"]);
        // lat 3..9 µs
        assert_eq!(&f[37..39], ["3", "9"]);
        // bandwidth samples: min, max, % of the group's 10240 KiB/s, mean, stdev
        assert_eq!(&f[41..44], ["10000", "10240", "98.828125%"]);
        assert_eq!(f[44], "10120.000000");
        // write: all zero
        assert_eq!(&f[46..50], ["0", "0", "0", "0"]);
        // cpu usr, sys, ctx, majf, minf, then depth 1 = 100%
        let c = 46 + 41;
        assert_eq!(&f[c + 2..c + 5], ["0", "1", "7"]);
        assert_eq!(f[c + 5], "100.0%");
        // µs buckets: 2 µs and 8 µs → ">=2" and ">=4" (10 µs bound)
        let us = c + 12;
        assert_eq!(&f[us..us + 3], ["0.00%", "50.00%", "50.00%"]);
        // the device, last
        assert_eq!(
            &f[f.len() - 9..],
            ["vda", "256", "0", "0", "0", "0", "0", "0", "50.00%"]
        );
    }

    #[test]
    fn v5_adds_sample_counts_and_v2_starts_with_its_number() {
        let f = fields(5, &run());
        // after the read bandwidth fields: bw samples, then iops min max mean stdev samples
        assert_eq!(
            &f[46..52],
            ["2", "2500", "2500", "2500.000000", "0.000000", "1"]
        );
        let f = fields(2, &run());
        assert_eq!(&f[..4], ["2", "r", "0", "0"]);
    }

    #[test]
    fn continue_on_error_and_description_add_fields() {
        let mut r = run();
        r.jobs[0].job.options = vec![
            ("continue_on_error".into(), "all".into()),
            ("description".into(), "d e".into()),
        ];
        r.jobs[0].errors = 3;
        r.jobs[0].first_errno = 5;
        let f = fields(3, &r);
        assert_eq!(&f[f.len() - 3..], ["3", "5", "d e"]);
        let t = FioTerse {
            version: 2,
            fio_version: String::new(),
        };
        let s = String::from_utf8(t.render(&r).unwrap()).unwrap();
        assert!(s.ends_with(";3;5\n;d e\n"), "{s}");
    }
}
