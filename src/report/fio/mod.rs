//! fio-compatible reports of `iomark run`: the human summary (fio's "normal" layout,
//! both MiB/s and MB/s labelled) and `--output-format=json`/`json+` with fio's keys
//! and units (spec/peers.md §2: `bw` KiB/s integer, `bw_bytes` B/s, `iops` per s,
//! `runtime` ms, latencies in ns with percentiles keyed like "99.900000"; `json+` adds
//! `clat_ns.bins`, `{"<ns>": count}` for every non-empty histogram bucket). Only keys
//! iomark measures are written; tools reading fio JSON find them where fio puts them.
//! CPU: `usr_cpu`/`sys_cpu` in percent of the job threads' time, `ctx` switches.

pub mod disk;
pub mod lat_text;
pub mod levels;
pub mod num;
pub mod order;
pub mod prio;
pub mod result;

use crate::run::fio::{DirStats, JobStats, Lat};
use crate::stats::percentile_ns;
use serde_json::{json, Map, Value};

/// fio's default clat percentiles.
pub const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

pub(crate) fn pcts(j: &JobStats) -> &[f64] {
    if j.percentiles.is_empty() {
        &PERCENTILES
    } else {
        &j.percentiles
    }
}

pub(crate) fn lat_json(l: &Lat, pcts: Option<&[f64]>, bins: bool) -> Value {
    let h = &l.hist;
    // exact, not the histogram's quantized extremes
    let (min, max) = (l.min(), l.max());
    let mut o = json!({
        "min": min,
        "max": max,
        "mean": l.mean(),
        "stddev": if h.is_empty() { 0.0 } else { h.stdev() },
        "N": h.len(),
    });
    if let Some(ps) = pcts.filter(|_| !h.is_empty()) {
        let mut pct = Map::new();
        for &p in ps {
            pct.insert(format!("{p:.6}"), json!(percentile_ns(h, p)));
        }
        o["percentile"] = Value::Object(pct);
    }
    if bins && !h.is_empty() {
        let b: Map<String, Value> = h
            .iter_recorded()
            .map(|v| (v.value_iterated_to().to_string(), json!(v.count_at_value())))
            .collect();
        o["bins"] = Value::Object(b);
    }
    o
}

fn runtime_ms(j: &JobStats) -> u64 {
    j.runtime_ns / 1_000_000
}

/// fio's `job_runtime`, ms: the threads' run times summed (`group_reporting` adds
/// them up, fio `stat.c` sums `total_run_time`); never below the job's `runtime`, so a
/// result built without per-thread sums reports its own run time.
pub fn job_runtime_ms(j: &JobStats) -> u64 {
    j.runtime_ms_sum.max(runtime_ms(j))
}

/// fio's `usr_cpu`/`sys_cpu`, percent: thread CPU time × 100 / thread wall time, both
/// summed over the merged threads (fio `stat.c`).
pub fn cpu_pct(j: &JobStats) -> (f64, f64) {
    j.cpu.percent(j.run_ns_sum)
}

/// fio's CPU line: `  cpu          : usr=1.23%, sys=4.56%, ctx=789, majf=0, minf=12`.
pub fn cpu_line(j: &JobStats) -> String {
    let (u, s) = cpu_pct(j);
    format!(
        "  cpu          : usr={u:.2}%, sys={s:.2}%, ctx={}, majf={}, minf={}\n",
        j.cpu.ctx(),
        j.cpu.majf,
        j.cpu.minf
    )
}

fn dir_json(j: &JobStats, d: &DirStats, rt_ms: u64, plus: bool, samples: (usize, u64)) -> Value {
    let rt = if d.ios > 0 { rt_ms.max(1) } else { 0 };
    let bw_bytes = d.bytes.saturating_mul(1000).checked_div(rt).unwrap_or(0);
    let iops = if rt > 0 {
        d.ios as f64 * 1000.0 / rt as f64
    } else {
        0.0
    };
    let p = pcts(j);
    let mut o = json!({
        "io_bytes": d.bytes,
        "io_kbytes": d.bytes >> 10,
        "bw_bytes": bw_bytes,
        "bw": bw_bytes / 1024,
        "iops": iops,
        "runtime": rt,
        "total_ios": d.ios,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": lat_json(&d.slat, None, false),
        "clat_ns": lat_json(&d.clat, j.clat_percentiles.then_some(p), plus),
        "lat_ns": lat_json(&d.lat, j.lat_percentiles.then_some(p), false),
    });
    crate::report::fio::levels::add_dir_keys(&mut o, j, samples.0, samples.1);
    o
}

/// The fio JSON document for `jobs` (`plus`: json+ with histogram bins). `global` are
/// the global options as written; `disk_util` is fio's array of device counters
/// ([`crate::report::fio::disk::DiskSnapshot::finish`]), left out when `None`.
pub fn json_document(
    jobs: &[JobStats],
    global: &[(String, String)],
    plus: bool,
    disk_util: Option<Value>,
) -> Value {
    let all = jobs;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    // fio 3.33 leaves out options given without a value (`time_based`, `norandommap`)
    let opts = |v: &[(String, String)]| -> Value {
        Value::Object(
            v.iter()
                .filter(|(_, x)| !x.is_empty())
                .map(|(k, x)| (k.clone(), json!(x)))
                .collect(),
        )
    };
    let jobs: Vec<Value> = jobs
        .iter()
        .map(|j| {
            let rt = runtime_ms(j);
            let agg = |d| (d, crate::report::fio::levels::group_agg(all, j.groupid, d));
            let mut v = json!({
                "jobname": j.name,
                "groupid": j.groupid,
                "error": if j.error != 0 { j.error } else { j.first_errno },
                "eta": 0,
                "elapsed": j.runtime_ns.div_ceil(1_000_000_000),
                "job options": opts(&j.options),
                "read": dir_json(j, &j.read, rt, plus, agg(0)),
                "write": dir_json(j, &j.write, rt, plus, agg(1)),
                "trim": dir_json(j, &j.trim, rt, plus, agg(2)),
                "sync": { "total_ios": j.sync.ios, "lat_ns": lat_json(&j.sync.lat, Some(pcts(j)), plus) },
                "job_runtime": job_runtime_ms(j),
                "usr_cpu": cpu_pct(j).0,
                "sys_cpu": cpu_pct(j).1,
                "ctx": j.cpu.ctx(),
                "majf": j.cpu.majf,
                "minf": j.cpu.minf,
            });
            crate::report::fio::levels::add_job_keys(&mut v, j);
            for (k, d) in [("read", 0), ("write", 1)] {
                if let Some(p) = crate::report::fio::prio::prios_json(j, d) {
                    v[k]["prios"] = p;
                }
            }
            if let Some(n) = j.zone_resets {
                // zonemode=zbd jobs (spec/peers.md 2.2)
                v["zone_resets"] = json!(n);
            }
            if j.errors > 0 {
                // fio's key when continue_on_error let a job go past errors
                v["total_err"] = json!(j.errors);
                v["first_error"] = json!(j.first_errno);
            }
            if let Some(l) = &j.lat_target {
                // fio 3.33 prints these four always: target in ns, window in µs
                v["latency_depth"] = json!(l.depth);
                v["latency_target"] = json!(l.target_ns);
                v["latency_percentile"] = json!(l.percentile);
                v["latency_window"] = json!(l.window_us);
            }
            if let Some(ss) = &j.steady {
                v["steadystate"] = ss.json();
            }
            v
        })
        .collect();
    let mut doc = json!({
        "fio version": format!("iomark-{}", env!("CARGO_PKG_VERSION")),
        "timestamp": now.as_secs(),
        "timestamp_ms": now.as_millis() as u64,
        "time": crate::report::fio::disk::ctime(now.as_secs()),
        "jobs": jobs,
    });
    let global = opts(global);
    if global.as_object().is_some_and(|g| !g.is_empty()) {
        // fio prints the key only when the global section set something
        doc["global options"] = global;
    }
    if let Some(d) = disk_util {
        doc["disk_util"] = d;
    }
    doc
}

/// A `min/max/avg/stdev` line in the layout of fio 3.33 text report (unit chosen as fio
/// does, report/fio/lat_text.rs).
pub(crate) fn lat_line(label: &str, l: &Lat) -> String {
    crate::report::fio::lat_text::lat_line(label, l.min(), l.max(), l.mean(), l.hist.stdev())
}

/// A percentile table in the layout of fio 3.33 text report (fio sorts the list).
pub(crate) fn pct_table(label: &str, l: &Lat, ps: &[f64]) -> String {
    let mut rows: Vec<(f64, u64)> = ps.iter().map(|&p| (p, percentile_ns(&l.hist, p))).collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    crate::report::fio::lat_text::pct_table(label, &rows, crate::report::fio::lat_text::precision(ps))
}

/// fio's direction line: `  read: IOPS=251k, BW=981MiB/s (1029MB/s)(4096KiB/4msec)`:
/// IOPS = ios × 1000 / ms and BW = bytes × 1000 / ms (B/s, integer division as fio),
/// printed with fio's `num2str` (4 significant figures, report/fio/num.rs); the group's
/// `units` put the decimal form first (`kb_base=1000`: `BW=1029MB/s (981MiB/s)(4194kB/…)`)
/// and BW in bits (`unit_base=1`).
fn dir_text(
    j: &JobStats,
    name: &str,
    d: &DirStats,
    rt_ms: u64,
    agg: (usize, u64),
    units: crate::report::fio::num::TextUnits,
) -> String {
    use crate::report::fio::num as n;
    if d.ios == 0 {
        return String::new();
    }
    let rt = rt_ms.max(1);
    let (bw, bw_alt) = units.bw(d.bytes * 1000 / rt);
    let mut s = format!(
        "  {name}: IOPS={}, BW={bw} ({bw_alt})({}/{rt}msec)",
        n::iops(d.ios * 1000 / rt),
        units.size(d.bytes).0,
    );
    match j.zone_resets {
        // fio appends the zbd reset count to the write line
        Some(n) if name == "write" => s += &format!("; {n} zone resets\n"),
        _ => s.push('\n'),
    }
    if !d.slat.hist.is_empty() {
        s += &lat_line("slat", &d.slat);
    }
    if d.clat.hist.is_empty() {
        s += "    latencies not recorded (gtod_reduce=1)\n";
        return s;
    }
    s += &lat_line("clat", &d.clat);
    s += &lat_line(" lat", &d.lat);
    if j.clat_percentiles {
        s += &pct_table("clat", &d.clat, pcts(j));
    }
    if j.lat_percentiles {
        s += &pct_table(" lat", &d.lat, pcts(j));
    }
    s += &crate::report::fio::levels::dir_text(j, agg.0, agg.1, units.decimal);
    s
}

/// The human summary, one block per job (fio "normal" layout; latency blocks in
/// the layout of fio 3.33 text report, nsec/usec/msec as fio picks them).
pub fn normal_text(jobs: &[JobStats]) -> String {
    let mut s = String::new();
    for j in jobs {
        let rt = runtime_ms(j);
        // fio: `err=%2d`, and with an error its text in parentheses
        // a job that went on past errors (continue_on_error) shows its first one
        let code = if j.error != 0 { j.error } else { j.first_errno };
        let err = match code {
            0 => " 0".to_string(),
            n => format!("{n:2} ({})", crate::files::strerror(n)),
        };
        s += &format!(
            "{}: (groupid={}, jobs={}): err={err}: engine={}\n",
            j.name, j.groupid, j.threads, j.engine
        );
        let agg = |d| (d, crate::report::fio::levels::group_agg(jobs, j.groupid, d));
        // fio formats a job's lines with its group's kb_base/unit_base (the last job's)
        let units = crate::report::fio::num::TextUnits::of_group(jobs, j.groupid);
        if j.errors > 0 {
            s += &format!(
                "  errors: {} failed request(s) continued past (continue_on_error), not counted as done; first: {}\n",
                j.errors,
                j.first_error.as_deref().unwrap_or("?")
            );
        }
        s += &dir_text(j, "read", &j.read, rt, agg(0), units);
        s += &crate::report::fio::prio::prios_text(j, 0);
        s += &dir_text(j, "write", &j.write, rt, agg(1), units);
        s += &crate::report::fio::prio::prios_text(j, 1);
        s += &dir_text(j, "trim", &j.trim, rt, agg(2), units);
        if let Some(c) = &j.coverage {
            s += &format!("  {}\n", c.line());
        }
        if j.sync.ios > 0 {
            s += &format!("  fsync: {} calls\n", j.sync.ios);
            s += &lat_line("sync", &j.sync.lat);
        }
        if j.verified > 0 {
            s += &format!("  verify: {} blocks read back, all matched\n", j.verified);
        }
        // fio's order: latency buckets, cpu, depths, issued rwts, latency target, steady state
        s += &crate::report::fio::levels::job_text(j);
        s += &cpu_line(j);
        s += &crate::report::fio::levels::depths_text(j);
        if let Some(ss) = &j.steady {
            s += &ss.text();
        }
    }
    s += &crate::report::fio::num::group_text(jobs);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_ns_latency_is_zero_in_percentiles() {
        // null engine: 3 of 300 completions took 0 ns, 1 took 1 ns, the rest 10 ns;
        // fio's first buckets are exact, so 0 shows as 0 (was 1)
        let mut l = Lat::default();
        for ns in [0, 0, 0, 1] {
            l.add(ns);
        }
        for _ in 0..296 {
            l.add(10);
        }
        let ps = [1.0, 1.25, 50.0];
        let t = pct_table("clat", &l, &ps);
        assert!(t.contains(" 1.00th=[    0],"), "{t}");
        assert!(t.contains(" 1.25th=[    1],"), "{t}");
        assert!(t.contains(" 50.00th=[   10]"), "{t}");
        let j = lat_json(&l, Some(&ps), false);
        assert_eq!(j["percentile"]["1.000000"], 0);
        assert_eq!(j["percentile"]["1.250000"], 1);
        assert_eq!(j["percentile"]["50.000000"], 10);
        assert_eq!((j["min"].as_u64(), j["max"].as_u64()), (Some(0), Some(10)));
    }
}

#[cfg(test)]
mod kb_base_tests;
