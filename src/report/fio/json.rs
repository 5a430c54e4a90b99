//! fio's `--output-format=json` / `json+` document of a run, with fio's keys and units
//! (`bw` KiB/s integer, `bw_bytes` B/s, `iops` per s, `runtime` ms,
//! latencies in ns with percentiles keyed like "99.900000"; `json+` adds
//! `clat_ns.bins`, `{"<ns>": count}` for every non-empty bucket of fio's grid,
//! result/plat.rs). Only keys
//! iomark measures are written; tools reading fio JSON find them where fio puts them.
//! CPU: `usr_cpu`/`sys_cpu` in percent of the job threads' time, `ctx` switches.
//! `job options` / `global options` keep the order they were given (report/fio/order.rs).

pub mod clients;

use crate::report::fio::{cpu_pct, job_runtime_ms, pcts};
use crate::report::{ReportError, Reporter};
use crate::result::job::{DirResult, JobResult};
use crate::result::{DeviceCounters, Latency, RunResult};
use serde_json::{json, Map, Value};

/// fio's JSON document (`plus`: json+, with histogram bins), followed by a newline.
pub struct FioJson {
    /// json+ (clat bins)
    pub plus: bool,
    /// `"fio version"`: `fio-3.33` when iomark runs as fio (its clients compare it),
    /// `iomark-X` for `iomark run`
    pub version: String,
}

impl FioJson {
    /// The `"fio version"` of `iomark run`.
    pub fn iomark_version() -> String {
        format!("iomark-{}", env!("CARGO_PKG_VERSION"))
    }
}

impl Reporter for FioJson {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        use crate::report::fio::order::{to_text, FioDoc};
        if let Some(ranks) = &r.ranks {
            // many hosts: fio's client document (report/fio/json/clients.rs), which fio's
            // client starts with an empty line (`fio_client_json_fini`)
            let mut c = clients::document(r, ranks, self.plus);
            c.doc["fio version"] = json!(self.version);
            let ordered = FioDoc {
                doc: &c.doc,
                job_opts: c.job_opts,
                global: &c.global,
            };
            return Ok(format!("\n{}\n", to_text(&ordered)).into_bytes());
        }
        let mut doc = document(r, self.plus);
        doc["fio version"] = json!(self.version);
        let ordered = FioDoc {
            doc: &doc,
            job_opts: r.jobs.iter().map(|j| j.job.options.as_slice()).collect(),
            global: &r.global_options,
        };
        Ok((to_text(&ordered) + "\n").into_bytes())
    }
}

/// fio's latency object (`min`, `max`, `mean`, `stddev`, `N`, the `percentile` map
/// with `pcts`, and with `bins` (json+) the `bins`: fio 3.33's `add_ddir_lat_json` adds
/// them beside the percentiles — so slat and lat get them with
/// `slat_percentiles`/`lat_percentiles`, and each priority's latency).
pub(crate) fn lat_json(l: &Latency, pcts: Option<&[f64]>, bins: bool) -> Value {
    let h = l.hist();
    // exact, not the histogram's quantized extremes
    let mut o = json!({
        "min": l.min_ns,
        "max": l.max_ns,
        "mean": l.mean(),
        "stddev": l.stdev_ns,
        "N": l.count,
    });
    if let Some(ps) = pcts.filter(|_| !h.is_empty()) {
        let mut pct = Map::new();
        for &p in ps {
            pct.insert(format!("{p:.6}"), json!(l.percentile_ns(p)));
        }
        o["percentile"] = Value::Object(pct);
    }
    // fio 3.33 (stat.c) writes json+'s bins with the percentiles only
    if bins && pcts.is_some() && !h.is_empty() {
        // on fio's bucket grid, so fio's tools read them as fio's (result/plat.rs)
        let b: Map<String, Value> = crate::result::plat::bins(h)
            .into_iter()
            .map(|(ns, n)| (ns.to_string(), json!(n)))
            .collect();
        o["bins"] = Value::Object(b);
    }
    o
}

fn dir_json(j: &JobResult, d: &DirResult, rt_ms: u64, plus: bool, samples: (usize, u64)) -> Value {
    let rt = if d.bytes > 0 { rt_ms.max(1) } else { 0 };
    let bw_bytes = d.bytes.saturating_mul(1000).checked_div(rt).unwrap_or(0);
    let iops = if rt > 0 {
        d.iops_ios() as f64 * 1000.0 / rt as f64
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
        "total_ios": d.issued(),
        "short_ios": d.short,
        "drop_ios": 0,
        "slat_ns": lat_json(&d.slat, j.job.slat_percentiles.then_some(p), plus),
        "clat_ns": lat_json(&d.clat, j.job.clat_percentiles.then_some(p), plus),
        "lat_ns": lat_json(&d.lat, j.job.lat_percentiles.then_some(p), plus),
    });
    crate::report::fio::levels::add_dir_keys(&mut o, d, samples.1);
    o
}

/// fio JSON `prios` array of direction `d` (report/fio/prio.rs), or `None`; each
/// priority's latency under `lat_ns` or `clat_ns`, with percentiles (and json+ bins) when
/// clat or lat percentiles are on, as fio 3.33's `add_ddir_status_json`.
fn prios_json(j: &JobResult, d: usize, plus: bool) -> Option<Value> {
    use crate::report::fio::prio;
    let e = prio::entries(j, d);
    if e.is_empty() {
        return None;
    }
    let key = format!("{}_ns", prio::kind(j));
    let p = prio::with_percentiles(j).then(|| pcts(j));
    let one = |e: &prio::Prio<'_>| {
        let mut o = json!({ "prioclass": e.class(), "prio": e.level() });
        o[key.as_str()] = lat_json(e.lat, p, plus);
        o
    };
    Some(Value::Array(e.iter().map(one).collect()))
}

/// fio 3.33 leaves out options given without a value (`time_based`, `norandommap`).
fn opts(v: &[(String, String)]) -> Value {
    Value::Object(
        v.iter()
            .filter(|(_, x)| !x.is_empty())
            .map(|(k, x)| (k.clone(), json!(x)))
            .collect(),
    )
}

/// The keys a job has only sometimes: its own options, its description, priorities, zone
/// resets, errors continued past, the latency target, steady state.
fn optional_keys(v: &mut Value, j: &JobResult, global: &[(String, String)], plus: bool) {
    // `unified_rw_reporting=mixed`: the run keeps every priority under direction 0
    let read = if j.job.unified_rw == 1 {
        "mixed"
    } else {
        "read"
    };
    for (k, d) in [(read, 0), ("write", 1)] {
        if let Some(p) = prios_json(j, d, plus) {
            v[k]["prios"] = p;
        }
    }
    let own = opts(&j.job.options);
    if own.as_object().is_some_and(|o| !o.is_empty()) {
        // fio leaves the key out for a job that set nothing of its own (a job file's
        // `[name]` section with every option from the command line or `[global]`)
        v["job options"] = own;
    }
    if let Some(d) = crate::report::fio::option(j, global, "description").filter(|d| !d.is_empty())
    {
        // `description=`, the job's or the global section's
        v["desc"] = json!(d);
    }
    if let Some(n) = j.zone_resets {
        // zonemode=zbd jobs
        v["zone_resets"] = json!(n);
    }
    if j.errors > 0 || crate::report::fio::continues_on_error(j, global) {
        // fio's keys whenever continue_on_error (or ignore_error) is on, 0 errors included
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
        v["steadystate"] = crate::report::fio::outputs::steady_json(ss);
    }
}

/// One entry of `jobs`; `all` are every job of the run (for the group aggregates).
pub(crate) fn job_json(
    j: &JobResult,
    all: &[JobResult],
    global: &[(String, String)],
    plus: bool,
) -> Value {
    let aggs = [0, 1, 2].map(|d| crate::report::fio::levels::group_agg(all, j.groupid, d));
    job_json_agg(j, aggs, global, plus)
}

/// fio's `elapsed` (eta.c): whole seconds, rounded up, from the run's start (genesis,
/// after the layout) to the report, ms first; a result recorded without that time gives
/// the job's measured and verify time rounded up.
fn elapsed_s(j: &JobResult) -> u64 {
    if j.elapsed_ms > 0 {
        j.elapsed_ms.div_ceil(1000)
    } else {
        (j.runtime_ns + j.verify_ns).div_ceil(1_000_000_000)
    }
}

/// fio's `eta` (eta.c): nothing is estimated before 3 s of the run have passed, said
/// with INT_MAX; then a report made while the run goes on (`--status-interval`) has the
/// run's remaining seconds (`j.eta_s`), the final one 0 (every job has ended).
/// `elapsed` is the run's whole seconds, the JSON's `elapsed`.
fn eta_s(j: &JobResult, elapsed: u64) -> i64 {
    if elapsed < 3 {
        i64::from(i32::MAX)
    } else {
        j.eta_s.map_or(0, |s| i64::try_from(s).unwrap_or(i64::MAX))
    }
}

/// One job object of fio's JSON with its group's aggregate bandwidth per direction
/// given (`aggs`, B/s: fio's `rs->agg`, which `bw_agg` is a percentage of).
pub(crate) fn job_json_agg(
    j: &JobResult,
    aggs: [u64; 3],
    global: &[(String, String)],
    plus: bool,
) -> Value {
    let agg = |d: usize| (d, aggs[d]);
    let mut v = json!({
        "jobname": j.job.name,
        "groupid": j.groupid,
        "error": if j.errno != 0 { j.errno } else { j.first_errno },
        "eta": eta_s(j, elapsed_s(j)),
        "elapsed": elapsed_s(j),
        "read": dir_json(j, &j.read, j.dir_runtime_ms(0), plus, agg(0)),
        "write": dir_json(j, &j.write, j.dir_runtime_ms(1), plus, agg(1)),
        "trim": dir_json(j, &j.trim, j.dir_runtime_ms(2), plus, agg(2)),
        // fio: the sync percentiles when clat or lat percentiles are on
        "sync": { "total_ios": j.sync.ios, "lat_ns": lat_json(&j.sync.lat, (j.job.clat_percentiles || j.job.lat_percentiles).then(|| pcts(j)), plus) },
        "job_runtime": job_runtime_ms(j),
        "usr_cpu": cpu_pct(j).0,
        "sys_cpu": cpu_pct(j).1,
        "ctx": j.cpu.ctx(),
        "majf": j.cpu.majf,
        "minf": j.cpu.minf,
    });
    // fio's slots for fdatasync/sync_file_range counts (levels::issued_slots)
    let (sync, short) = crate::report::fio::levels::issued_slots(j);
    for ((k, n), d) in ["read", "write", "trim"]
        .into_iter()
        .zip(short)
        .zip([&j.read, &j.write, &j.trim])
    {
        v[k]["short_ios"] = json!(n + d.short);
    }
    v["sync"]["total_ios"] = json!(sync);
    if j.job.unified_rw == 1 {
        // `unified_rw_reporting=mixed`: one `mixed` object in place of the directions
        if let Some(o) = v.as_object_mut() {
            let mixed = o.remove("read").unwrap_or_default();
            o.remove("write");
            o.remove("trim");
            o.remove("sync");
            o.insert("mixed".into(), mixed);
        }
    }
    if j.job.unified_rw == 2 {
        v["mixed"] = mixed_json(j, plus, agg(0).1);
    }
    crate::report::fio::levels::add_job_keys(&mut v, j);
    optional_keys(&mut v, j, global, plus);
    v
}

/// fio 3.33's `mixed` object of a `unified_rw_reporting=both` job, after `sync`
/// (stat.c `add_mixed_ddir_status_json`): the directions merged (result/merge.rs
/// `mixed`) in a direction's keys, its `prios` when two priorities have requests, and
/// `bw_agg` against the group's read aggregate `read_agg` (fio passes DDIR_READ).
fn mixed_json(j: &JobResult, plus: bool, read_agg: u64) -> Value {
    let m = crate::result::merge::mixed(j);
    let mut o = dir_json(&m, &m.read, m.dir_runtime_ms(0), plus, (0, read_agg));
    if let Some(p) = prios_json(&m, 0, plus) {
        o["prios"] = p;
    }
    o
}

/// One `disk_util` entry: the counters' differences over the run, and `util` = busy
/// time × 100 / elapsed time (%, at most 100; fio 3.33 `diskutil.c`).
pub fn disk_entry(c: &DeviceCounters) -> Value {
    let (a, b) = (&c.before, &c.after);
    let d = |x: u64, y: u64| y.saturating_sub(x);
    let busy = d(a.io_ticks, b.io_ticks);
    let util = if c.elapsed_ms == 0 {
        0.0
    } else {
        (busy as f64 * 100.0 / c.elapsed_ms as f64).min(100.0)
    };
    json!({
        "name": c.name,
        "read_ios": d(a.read_ios, b.read_ios),
        "write_ios": d(a.write_ios, b.write_ios),
        "read_merges": d(a.read_merges, b.read_merges),
        "write_merges": d(a.write_merges, b.write_merges),
        "read_ticks": d(a.read_ticks, b.read_ticks),
        "write_ticks": d(a.write_ticks, b.write_ticks),
        "in_queue": d(a.in_queue, b.in_queue),
        "util": util,
    })
}

/// The fio JSON document of `r` (`plus`: json+ with histogram bins). `global options`
/// are left out when the global section set nothing, `disk_util` when no job file is
/// on a block device, as fio does; the time is when the result was built.
pub fn document(r: &RunResult, plus: bool) -> Value {
    let (secs, ms) = (r.timestamp_ms / 1000, r.timestamp_ms);
    let jobs: Vec<Value> = r
        .jobs
        .iter()
        .map(|j| job_json(j, &r.jobs, &r.global_options, plus))
        .collect();
    let mut doc = json!({
        "fio version": FioJson::iomark_version(),
        "timestamp": secs,
        "timestamp_ms": ms,
        "time": crate::report::fio::disk::ctime(secs),
        "jobs": jobs,
    });
    let global = opts(&r.global_options);
    if global.as_object().is_some_and(|g| !g.is_empty()) {
        // fio prints the key only when the global section set something
        doc["global options"] = global;
    }
    if !r.devices.is_empty() {
        doc["disk_util"] = Value::Array(r.devices.iter().map(disk_entry).collect());
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::DevStat;

    /// The counters of run/fio/disk.rs's `stat_fields` (`10 1 80 5 20 2 160 9 0 100 14`
    /// before, `15 2 120 7 30 4 240 19 0 350 40` after).
    #[test]
    fn disk_entry_differences_and_util() {
        let a = DevStat {
            read_ios: 10,
            read_merges: 1,
            read_ticks: 5,
            write_ios: 20,
            write_merges: 2,
            write_ticks: 9,
            io_ticks: 100,
            in_queue: 14,
            ..DevStat::default()
        };
        let b = DevStat {
            read_ios: 15,
            read_merges: 2,
            read_ticks: 7,
            write_ios: 30,
            write_merges: 4,
            write_ticks: 19,
            io_ticks: 350,
            in_queue: 40,
            ..DevStat::default()
        };
        let c = |ms| DeviceCounters {
            name: "vda".into(),
            before: a,
            after: b,
            elapsed_ms: ms,
        };
        let e = disk_entry(&c(500));
        assert_eq!(e["read_ios"], 5);
        assert_eq!(e["write_ios"], 10);
        assert_eq!(e["read_merges"], 1);
        assert_eq!(e["write_ticks"], 10);
        assert_eq!(e["in_queue"], 26);
        // 250 ms busy over 500 ms
        assert_eq!(e["util"], 50.0);
        assert_eq!(disk_entry(&c(100))["util"], 100.0);
    }

    /// json+ (fio 3.33 `add_ddir_lat_json`): `bins` beside every `percentile` map —
    /// slat and lat too with their percentiles on (fio's t/latency_percentiles.py reads
    /// them); none without json+.
    /// `eta`: INT_MAX before 3 s of the run whatever the report; after, the remaining
    /// seconds of a report made while the run goes on, 0 for the final one.
    #[test]
    fn eta_is_int_max_early_then_the_remaining_seconds_or_zero() {
        let mut j = JobResult {
            elapsed_ms: 1999,
            eta_s: Some(4),
            ..JobResult::default()
        };
        assert_eq!(eta_s(&j, elapsed_s(&j)), i64::from(i32::MAX));
        assert_eq!(elapsed_s(&j), 2);
        j.elapsed_ms = 2001;
        assert_eq!(elapsed_s(&j), 3);
        assert_eq!(eta_s(&j, elapsed_s(&j)), 4);
        j.eta_s = None;
        assert_eq!(eta_s(&j, elapsed_s(&j)), 0);
    }

    #[test]
    fn bins_go_with_percentiles() {
        let h = crate::result::Hist::from_buckets(&[(1000, 3), (2000, 1)]);
        let l = Latency {
            count: 4,
            min_ns: 1000,
            max_ns: 2000,
            sum_ns: 5000,
            histogram: Some(h),
            ..Latency::default()
        };
        let with = lat_json(&l, Some(&[50.0]), true);
        assert!(
            with["percentile"].is_object() && with["bins"].is_object(),
            "{with}"
        );
        let total: u64 = with["bins"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(total, 4);
        let no_pct = lat_json(&l, None, true);
        assert!(
            no_pct.get("bins").is_none() && no_pct.get("percentile").is_none(),
            "{no_pct}"
        );
        assert!(lat_json(&l, Some(&[50.0]), false).get("bins").is_none());
    }

    /// fio 3.33's add_ddir_status_json: json+ `bins` on slat_ns and lat_ns with their
    /// percentiles on, in each priority's latency under `clat_ns` (percentiles with
    /// clat_percentiles), none with both percentile kinds off; with
    /// `unified_rw_reporting=mixed` the priorities go under `mixed`.
    #[test]
    fn slat_lat_and_priority_bins_as_fio() {
        let lat = |n: u64| Latency {
            count: n,
            min_ns: 1000,
            max_ns: 1000,
            sum_ns: 1000 * n,
            histogram: Some(crate::result::Hist::from_buckets(&[(1000, n)])),
            ..Latency::default()
        };
        let mut j = JobResult::default();
        (j.job.slat_percentiles, j.job.clat_percentiles) = (true, true);
        j.read = DirResult {
            ios: 4,
            bytes: 16384,
            slat: lat(4),
            clat: lat(4),
            lat: lat(4),
            ..DirResult::default()
        };
        for (ioprio, n) in [(0u16, 1u64), (8192, 3)] {
            j.prios.push(crate::result::job::PrioLatency {
                dir: "read".into(),
                ioprio,
                lat: lat(n),
            });
        }
        // the count over fio's bucket grid (its keys are the buckets' values)
        let binned = |o: &Value| -> u64 {
            let b = o["bins"]
                .as_object()
                .map(|m| m.values().filter_map(Value::as_u64));
            b.map(|c| c.sum()).unwrap_or(0)
        };
        let v = job_json(&j, std::slice::from_ref(&j), &[], true);
        let r = &v["read"];
        assert_eq!(binned(&r["slat_ns"]), 4, "{r}");
        assert!(
            r["lat_ns"].get("bins").is_none(),
            "lat without lat_percentiles: {r}"
        );
        assert_eq!(r["prios"][1]["prioclass"], 1);
        assert_eq!(binned(&r["prios"][1]["clat_ns"]), 3, "{r}");
        (j.job.slat_percentiles, j.job.clat_percentiles) = (false, false);
        j.job.unified_rw = 1;
        let v = job_json(&j, std::slice::from_ref(&j), &[], true);
        let p = &v["mixed"]["prios"][0]["clat_ns"];
        assert!(
            p.get("bins").is_none() && p.get("percentile").is_none(),
            "{p}"
        );
        assert!(v.get("read").is_none(), "{v}");
    }
}
