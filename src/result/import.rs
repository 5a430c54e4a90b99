//! Reading fio's own output into a [`RunResult`], so `iomark compare` lines up fio runs
//! with iomark's (public case C25). Two inputs: fio's JSON (`--output-format=json`, keys
//! of fio 3.x: `bw` KiB/s, `bw_bytes` B/s, `iops` unscaled, `runtime` ms, `*_ns` ns) and
//! fio's normal text report, whose latency headers scale their unit (`clat (usec)`,
//! `lat (msec)` …) and whose IOPS/BW are rounded (`IOPS=14.2k`, `BW=889MiB/s`).
//!
//! Shape, as `iomark run --json` writes it: one [`Phase`] per job and direction
//! (`JOB read`, `JOB write`, `JOB trim`), rates over that direction's `runtime`, `lat`
//! = fio's `lat` (submit to completion, with percentiles only when fio printed lat
//! percentiles, `lat_percentiles=1`) and `clat` = fio's `clat` (completion latency, with
//! the percentiles fio prints by default), on the phase (`Phase::clat`), in the totals
//! (`OpStats::clat`) and in the jobs. The reporters read `clat` (compare's rows, mean
//! and p99, and OpenMetrics' gauges and summaries), so no figure mixes the two; `lat`
//! stays what fio said, and the jobs' time shares sum it.
//! Job facts go into the phase's `key=value` note.
//! Built as JSON and deserialized, so fields added to the schema later keep defaults.

use crate::job::units::fio_report_size;
use crate::result::hist::merge_latency;
use crate::result::{
    build, FsyncStats, Inputs, JobInfo, Latency, OpStats, Phase, Recorded, RunResult, Status,
    TimeShare, Totals, Warning,
};
use serde_json::Value;

/// One direction of one fio job, normalised: bytes, I/Os, ns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FioDir {
    /// job name
    pub job: String,
    /// `read`, `write` or `trim`
    pub dir: String,
    /// bytes transferred
    pub bytes: u64,
    /// I/Os completed
    pub ios: u64,
    /// runtime of this direction, ms
    pub runtime_ms: f64,
    /// `lat` (submit → completion): count, min, max, mean, stdev, ns
    pub lat: Option<(u64, u64, u64, f64, f64)>,
    /// `lat` percentiles (name like "99" or "99.9" → ns), when fio printed them
    pub lat_pct: Vec<(String, u64)>,
    /// `clat` (submission return → completion), as `lat`
    pub clat: Option<(u64, u64, u64, f64, f64)>,
    /// `clat` percentiles (fio prints them by default)
    pub clat_pct: Vec<(String, u64)>,
    /// `clat` histogram of a `json+` report (`clat_ns.bins`: fio's bucket value in ns,
    /// its count), empty in plain JSON and text
    pub clat_bins: Vec<(u64, u64)>,
    /// engine, bs (bytes), iodepth, jobs, direct, rw
    pub opts: FioOpts,
    /// the job's own figures (its run time, fio's `sync` section), on the first
    /// direction of each job; `None` on the others
    pub job_sync: Option<FioJobSync>,
}

/// What fio says of a job beside its directions: its run time and its
/// fsync/fdatasync calls (JSON: the `sync` section, `total_ios`, `lat_ns`; text: the
/// `fsync/fdatasync/sync_file_range:` block, `sync (usec):` and its percentiles).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FioJobSync {
    /// the job's run time, ms, its threads summed (JSON `job_runtime`; text: the
    /// job's longest direction `runtime` times its `jobs=`, as the text has no other)
    pub runtime_ms: u64,
    /// fsync/fdatasync calls (JSON: `sync.total_ios`, or `sync.lat_ns.N` when larger:
    /// fio 3.33 counts fdatasync calls outside `total_ios`; text: see `TextReader`)
    pub ios: u64,
    /// their latency: count, min, max, mean, stdev, ns (`sync.lat_ns`)
    pub lat: Option<(u64, u64, u64, f64, f64)>,
    /// their latency percentiles (name → ns)
    pub lat_pct: Vec<(String, u64)>,
}

/// The job options a comparison needs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FioOpts {
    /// `ioengine`
    pub engine: String,
    /// block size of the direction, bytes
    pub bs: u64,
    /// `iodepth`
    pub iodepth: u64,
    /// `numjobs` (text: `jobs=` of the group line)
    pub jobs: u64,
    /// `direct`; `None` when the output does not say (fio's text report)
    pub direct: Option<bool>,
    /// `rw`
    pub rw: String,
    /// the fsync policy in words (`no fsync`, `fsync every 100 writes + fsync at end`,
    /// result/truth.rs `job_fsync_words`); `None` when the output does not say (text)
    pub fsync: Option<String>,
}

/// What `text` holds, if it is fio output: `Some(Ok(result))`, `Some(Err(one line))` for
/// fio output that cannot be read, `None` when it is not fio output at all.
pub fn import(text: &str, label: &str) -> Option<Result<RunResult, String>> {
    let cut = cut_by_signal(text);
    if let Some(v) = fio_json(text) {
        import_json(&v, label, cut)
    } else if text.trim_start().starts_with('{') {
        // a JSON document that is not fio's (an iomark RunResult): not imported
        None
    } else if text.lines().any(|l| l.starts_with("fio-")) || text.contains("(groupid=") {
        let version = text
            .lines()
            .find(|l| l.starts_with("fio-"))
            .map_or("fio", |l| l.trim());
        let ms = text.lines().find_map(text_date_ms);
        Some(
            from_text(text)
                .and_then(|d| inputs(&d, (version, "text report"), label, cut))
                .map(|i| dated(build(i), ms)),
        )
    } else {
        None
    }
}

/// A result from fio's JSON document `v` (`cut`: the signal that stopped fio, if one
/// did). A value of another type than fio writes there is a malformed report: one line
/// naming its JSON path and what was expected ([`shape::malformed`]).
fn import_json(v: &Value, label: &str, cut: Option<i32>) -> Option<Result<RunResult, String>> {
    let version = v.get("fio version")?.as_str()?.to_string();
    if let Some(e) = shape::malformed(v) {
        return Some(Err(format!("malformed fio JSON: {e}")));
    }
    let ms = v
        .get("timestamp_ms")
        .and_then(Value::as_u64)
        .or_else(|| v.get("timestamp").and_then(Value::as_u64).map(|s| s * 1000));
    Some(
        from_json(v)
            .and_then(|d| inputs(&d, (&version, "JSON"), label, cut))
            .map(|i| dated(build(i), ms)),
    )
}

/// The signal that stopped fio before its jobs ended, from the line fio 3.33 writes
/// into its output when one does (`fio: terminating on signal 2`, before the JSON
/// document or among the text report's lines): its number, `None` without that line.
fn cut_by_signal(text: &str) -> Option<i32> {
    text.lines().find_map(|l| {
        l.trim()
            .strip_prefix("fio: terminating on signal ")?
            .trim()
            .parse()
            .ok()
    })
}

/// The name of signal `sig` as fio's line gives it (`SIGINT`), else `signal N`.
fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGQUIT => "SIGQUIT".into(),
        n => format!("signal {n}"),
    }
}

/// fio's JSON document in `text`: the whole text, or — as fio prints lines before its
/// document on the same stdout (`note: …` warnings, command-line jobs' header lines, an
/// engine's setup line) — the text from the first line that is `{` alone. With several
/// documents (`--status-interval`: one per interval) the last, the final report. `None`
/// when no JSON document with a `fio version` is there.
fn fio_json(text: &str) -> Option<Value> {
    let t = text.trim_start();
    let start = if t.starts_with('{') {
        0
    } else {
        let at = t.find("\n{\n").or_else(|| t.find("\n{\r\n"))?;
        at + 1
    };
    let doc = escape_raw_controls(&t[start..]);
    serde_json::Deserializer::from_str(&doc)
        .into_iter::<Value>()
        .map_while(Result::ok)
        .filter(|v| v.get("fio version").is_some())
        .last()
}

/// `text` with every raw control character inside a JSON string escaped (`\u000a`):
/// fio 3.33 writes a job name or a file name as given, so a newline or a tab in it makes
/// its JSON invalid; outside strings (the document's own line breaks) nothing changes.
fn escape_raw_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let raw_in_string = {
        let (mut inside, mut escaped) = (false, false);
        text.chars().any(|c| {
            let raw = inside && c < ' ';
            (inside, escaped) = step(inside, escaped, c);
            raw
        })
    };
    if !raw_in_string {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let (mut inside, mut escaped) = (false, false);
    for c in text.chars() {
        if inside && c < ' ' {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
            escaped = false;
            continue;
        }
        (inside, escaped) = step(inside, escaped, c);
        out.push(c);
    }
    std::borrow::Cow::Owned(out)
}

/// After `c`: whether the scan is inside a JSON string and just after its backslash.
fn step(inside: bool, escaped: bool, c: char) -> (bool, bool) {
    match (inside, escaped, c) {
        (false, _, '"') => (true, false),
        (false, ..) => (false, false),
        (true, true, _) => (true, false),
        (true, false, '\\') => (true, true),
        (true, false, '"') => (false, false),
        (true, false, _) => (true, false),
    }
}

/// The result dated when fio ran it (`ms` since the epoch), not when it was imported.
fn dated(mut r: RunResult, ms: Option<u64>) -> RunResult {
    if let Some(ms) = ms.filter(|ms| *ms > 0) {
        r.timestamp_ms = ms;
    }
    r
}

/// The date at the end of a fio job header (`j: (groupid=0, jobs=1): err= 0: pid=7:
/// Thu Dec  3 06:58:59 2026`, fio's `ctime` in the local time zone), ms since the epoch.
fn text_date_ms(line: &str) -> Option<u64> {
    if !line.contains("(groupid=") {
        return None;
    }
    let date = line.rsplit(": ").next()?.trim();
    let c = std::ffi::CString::new(date).ok()?;
    // SAFETY: `tm` is plain data zeroed before use; strptime writes only into it and
    // reads the NUL-terminated strings; mktime reads and normalises it.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        let end = libc::strptime(c.as_ptr(), c"%a %b %e %H:%M:%S %Y".as_ptr(), &mut tm);
        if end.is_null() || *end != 0 {
            return None;
        }
        tm.tm_isdst = -1;
        u64::try_from(libc::mktime(&mut tm)).ok().map(|s| s * 1000)
    }
}

/// The threads one JSON entry of a job stands for: its `numjobs` over the entries
/// of that name (one per clone without group_reporting; one for all with it).
fn threads_of_entry(numjobs: Option<String>, entries: u64) -> u64 {
    let n: u64 = numjobs.and_then(|s| s.parse().ok()).unwrap_or(1);
    (n / entries.max(1)).max(1)
}

fn truthy(s: &str) -> bool {
    matches!(s.trim(), "1" | "true" | "yes" | "on")
}

// ---- JSON ----------------------------------------------------------------------------

fn from_json(v: &Value) -> Result<Vec<FioDir>, String> {
    let jobs = v
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or("fio JSON without a \"jobs\" array")?;
    let global = v.get("global options").and_then(Value::as_object);
    // without group_reporting each of `numjobs` clones is an entry of its own
    let clones = |name: &str| {
        jobs.iter()
            .filter(|j| j.get("jobname").and_then(Value::as_str).unwrap_or("job") == name)
            .count() as u64
    };
    let mut out = Vec::new();
    for j in jobs {
        let name = j.get("jobname").and_then(Value::as_str).unwrap_or("job");
        // the job's figures go on its first direction
        let first = out.len();
        let opt = |k: &str| -> Option<String> {
            j.get("job options")
                .and_then(|o| o.get(k))
                .or_else(|| global.and_then(|g| g.get(k)))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        for (i, dir) in ["read", "write", "trim"].iter().enumerate() {
            let Some(d) = j.get(*dir) else { continue };
            let u = |k: &str| d.get(k).and_then(Value::as_u64).unwrap_or(0);
            let ios = u("total_ios");
            if ios == 0 {
                continue;
            }
            let bs_opt = opt("bs")
                .or(opt("blocksize"))
                .unwrap_or_else(|| "4k".into());
            // `bs=4k,16k`: read, write, trim sizes in order
            let parts: Vec<&str> = bs_opt.split(',').collect();
            let bs_txt = parts.get(i).or(parts.first()).copied().unwrap_or("4k");
            let (lat, lat_pct) = json_latency(d.get("lat_ns"));
            let (clat, clat_pct) = json_latency(d.get("clat_ns"));
            out.push(FioDir {
                job: name.to_string(),
                dir: dir.to_string(),
                bytes: u("io_bytes"),
                ios,
                runtime_ms: u("runtime") as f64,
                lat,
                lat_pct,
                clat,
                clat_pct,
                clat_bins: json_bins(d.get("clat_ns")),
                job_sync: (out.len() == first).then(|| job_sync(j)),
                opts: FioOpts {
                    engine: opt("ioengine").unwrap_or_else(|| "psync".into()),
                    bs: fio_report_size(bs_txt.split('-').next().unwrap_or(bs_txt)).unwrap_or(4096),
                    iodepth: opt("iodepth").and_then(|s| s.parse().ok()).unwrap_or(1),
                    jobs: threads_of_entry(opt("numjobs"), clones(name)),
                    // fio's `buffered=0` is `direct=1`
                    direct: Some(
                        opt("direct").is_some_and(|s| truthy(&s))
                            || opt("buffered").is_some_and(|s| !truthy(&s)),
                    ),
                    rw: opt("rw")
                        .or(opt("readwrite"))
                        .unwrap_or_else(|| "read".into()),
                    fsync: Some(fsync_words(&opt)),
                },
            });
        }
    }
    if out.is_empty() {
        return Err("fio output without any completed I/O".into());
    }
    Ok(out)
}

/// A latency section of fio's JSON (`lat_ns` of a direction or of `sync`) when it
/// counted anything: count, min, max, mean, stdev (ns), and its percentiles.
type JsonLatency = (Option<(u64, u64, u64, f64, f64)>, Vec<(String, u64)>);

fn json_latency(l: Option<&Value>) -> JsonLatency {
    let Some(l) = l.filter(|l| l.get("N").and_then(Value::as_u64).unwrap_or(0) > 0) else {
        return (None, Vec::new());
    };
    let f = |k: &str| l.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let pct = l
        .get("percentile")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((pct_name(k.parse::<f64>().ok()?), v.as_u64()?)))
                .collect()
        })
        .unwrap_or_default();
    let n = l.get("N").and_then(Value::as_u64).unwrap_or(0);
    let lat = (n, f("min") as u64, f("max") as u64, f("mean"), f("stddev"));
    (Some(lat), pct)
}

/// The histogram of a `json+` latency section (`bins`: `"value_ns": count`), ascending;
/// empty when fio wrote none (plain JSON).
fn json_bins(l: Option<&Value>) -> Vec<(u64, u64)> {
    let Some(bins) = l.and_then(|l| l.get("bins")).and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut v: Vec<(u64, u64)> = bins
        .iter()
        .filter_map(|(k, c)| Some((k.parse::<u64>().ok()?, c.as_u64()?)))
        .filter(|&(_, c)| c > 0)
        .collect();
    v.sort_unstable();
    v
}

/// A job's run time and its fsync/fdatasync calls, from its JSON object `j`.
fn job_sync(j: &Value) -> FioJobSync {
    let sync = j.get("sync");
    let (lat, lat_pct) = json_latency(sync.and_then(|s| s.get("lat_ns")));
    // fio 3.33 counts fdatasync calls past the end of its per-direction counts (its
    // `total_io_u` has no slot for them): `total_ios` is 0, `lat_ns.N` has them
    let total = sync
        .and_then(|s| s.get("total_ios"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    FioJobSync {
        runtime_ms: j.get("job_runtime").and_then(Value::as_u64).unwrap_or(0),
        ios: total.max(lat.map_or(0, |l| l.0)),
        lat,
        lat_pct,
    }
}

/// The fsync policy of a fio job from its options (job, else global): `fsync=N`,
/// `fdatasync=N`, `end_fsync`, `fsync_on_close`, `sync=1|sync|dsync`; none set is
/// `no fsync` (O_DIRECT is said apart, as `direct`).
fn fsync_words(opt: &dyn Fn(&str) -> Option<String>) -> String {
    let n = |k: &str| {
        opt(k)
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    let on = |k: &str| opt(k).is_some_and(|s| truthy(&s));
    let (every, fdatasync) = match (n("fsync"), n("fdatasync")) {
        (0, d) if d > 0 => (d, true),
        (f, _) => (f, false),
    };
    let sync = opt("sync").map(|s| s.trim().to_string());
    let mut e = crate::result::job::EffectiveJob {
        sync: matches!(sync.as_deref(), Some("1" | "sync")),
        dsync: sync.as_deref() == Some("dsync"),
        ..Default::default()
    };
    e.fsync.every_writes = every;
    e.fsync.fdatasync = fdatasync;
    e.fsync.at_end = on("end_fsync");
    e.fsync.on_close = on("fsync_on_close");
    crate::result::truth::job_fsync_words(&e)
}

/// "99.000000" → "99", "99.900000" → "99.9" (iomark's percentile key spelling).
fn pct_name(p: f64) -> String {
    let s = format!("{p}");
    s.trim_end_matches(".0").to_string()
}

// ---- normal text report ----------------------------------------------------------------

/// ns per unit of a text header `(nsec)`, `(usec)`, `(msec)`, `(sec)`.
fn unit_ns(line: &str) -> Option<f64> {
    let u = line.split_once('(')?.1.split_once(')')?.0;
    Some(match u {
        "nsec" => 1.0,
        "usec" => 1e3,
        "msec" => 1e6,
        "sec" => 1e9,
        _ => return None,
    })
}

/// `min=4, max=3061, avg=57.00, stdev=330.43` (values may carry a `k` suffix) → numbers.
fn kv_numbers(s: &str) -> Vec<(String, f64)> {
    s.split(',')
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            let v = v.trim();
            let (num, mult) = match v.strip_suffix('k') {
                Some(n) => (n, 1e3),
                None => match v.strip_suffix('M') {
                    Some(n) => (n, 1e6),
                    None => (v, 1.0),
                },
            };
            Some((k.trim().to_string(), num.parse::<f64>().ok()? * mult))
        })
        .collect()
}

/// `(8192KiB/9msec)` → (bytes, ms).
fn io_and_runtime(line: &str) -> Option<(u64, f64)> {
    let inner = line.rsplit_once(")(")?.1.split_once(')')?.0;
    let (io, rt) = inner.split_once('/')?;
    let ms = if let Some(n) = rt.strip_suffix("msec") {
        n.parse::<f64>().ok()?
    } else if let Some(n) = rt.strip_suffix("usec") {
        n.parse::<f64>().ok()? / 1e3
    } else if let Some(n) = rt.strip_suffix("sec") {
        n.parse::<f64>().ok()? * 1e3
    } else {
        return None;
    };
    Some((fio_report_size(io)?, ms))
}

/// A job's header line: `NAME: (g=0): rw=read, bs=(R) 64.0KiB-64.0KiB, (W) …,
/// ioengine=psync, iodepth=1` — name, options, bs per direction and whether that bs is
/// fixed (`4096B-4096B`).
type Header = (String, FioOpts, [u64; 3], [bool; 3]);

/// Every job header line of a text report.
fn headers(text: &str) -> Vec<Header> {
    let mut headers = Vec::new();
    for l in text.lines() {
        let Some((name, rest)) = l.split_once(": (g=") else {
            continue;
        };
        let rest = rest.split_once("): ").map_or(rest, |x| x.1);
        let mut o = FioOpts {
            jobs: 1,
            ..FioOpts::default()
        };
        let mut bs = [0u64; 3];
        let mut fixed = [false; 3];
        for part in rest.split(", ") {
            if let Some(v) = part.strip_prefix("rw=") {
                o.rw = v.to_string();
            } else if let Some(v) = part.strip_prefix("ioengine=") {
                o.engine = v.to_string();
            } else if let Some(v) = part.strip_prefix("iodepth=") {
                o.iodepth = v.trim().parse().unwrap_or(1);
            }
            for (i, tag) in ["(R) ", "(W) ", "(T) "].iter().enumerate() {
                if let Some(p) = part.find(tag) {
                    let v = &part[p + tag.len()..];
                    let v = v.split(',').next().unwrap_or(v).trim();
                    let lo = fio_report_size(v.split('-').next().unwrap_or(v)).unwrap_or(0);
                    let hi = v.split_once('-').and_then(|x| fio_report_size(x.1));
                    bs[i] = lo;
                    fixed[i] = hi == Some(lo);
                }
            }
        }
        headers.push((name.trim().to_string(), o, bs, fixed));
    }
    headers
}

/// Whose percentile table a text report's `|` lines belong to.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Table {
    /// `lat percentiles` of the direction
    Lat,
    /// `clat percentiles` of the direction
    Clat,
    /// `sync percentiles` of the job's fsync/fdatasync calls
    Sync,
}

/// The kind and unit (ns) of a latency line `lat (usec): min=…` / `clat (nsec): min=…`
/// / `sync (usec): min=…` (`stats`), or of its percentile table's header (`table`).
fn latency_header(t: &str, table: bool) -> Option<(Table, f64)> {
    let kind = [
        ("lat (", Table::Lat),
        ("clat (", Table::Clat),
        ("sync (", Table::Sync),
    ]
    .into_iter()
    .find_map(|(p, k)| {
        let name = p.trim_end_matches(" (");
        let hit = if table {
            t.starts_with(&format!("{name} percentiles ("))
        } else {
            t.starts_with(p) && t.contains("min=")
        };
        hit.then_some(k)
    })?;
    Some((kind, unit_ns(t)?))
}

/// count, min, max, mean, stdev (ns) of a latency line's `min=…, max=…, avg=…, stdev=…`
/// in unit `u` ns, `count` events.
fn stats_of(t: &str, u: f64, count: u64) -> (u64, u64, u64, f64, f64) {
    let n = kv_numbers(t.split_once(':').map_or("", |x| x.1));
    let g = |k: &str| n.iter().find(|x| x.0 == k).map_or(0.0, |x| x.1);
    (
        count,
        (g("min") * u) as u64,
        (g("max") * u) as u64,
        g("avg") * u,
        g("stdev") * u,
    )
}

/// The cells of one `| 1.00th=[ 1256],  5.00th=[ 1416], …` line in unit `u` ns.
fn pct_cells(body: &str, u: f64) -> Vec<(String, u64)> {
    let mut v = vec![];
    for cell in body.split("],") {
        let cell = cell.trim().trim_end_matches(']').trim_end_matches(',');
        if let Some((p, x)) = cell.split_once("th=[") {
            if let (Ok(p), Ok(x)) = (p.trim().parse::<f64>(), x.trim().parse::<f64>()) {
                v.push((pct_name(p), (x * u) as u64));
            }
        }
    }
    v
}

/// The reader of a text report's result blocks, line by line.
struct TextReader {
    headers: Vec<Header>,
    out: Vec<FioDir>,
    /// the current job block: name and `jobs=`
    job: Option<(String, u64)>,
    /// the direction being read
    cur: Option<FioDir>,
    /// the percentile table being read: whose, and its unit (ns)
    table: Option<(Table, f64)>,
    /// index in `out` of the current job block's first direction
    job_first: usize,
    /// the current job's fsync/fdatasync calls: its `fsync/fdatasync/sync_file_range:`
    /// block's `sync (unit):` line and percentiles; their count is the `issued rwts`
    /// line's fourth total, or — fio 3.33 counts fdatasync calls one slot past its
    /// three directions, so they show as the first `short=` figure — that one
    sync: FioJobSync,
}

impl TextReader {
    fn flush(&mut self) {
        if let Some(d) = self.cur.take() {
            if d.ios > 0 {
                self.out.push(d);
            }
        }
    }

    /// The end of a job block: its directions kept, its run time and calls on the first.
    fn end_job(&mut self) {
        self.flush();
        self.table = None;
        let mut sync = std::mem::take(&mut self.sync);
        let Some((_, jobs)) = self.job.take() else {
            return;
        };
        let from = self.job_first.min(self.out.len());
        let dirs = &mut self.out[from..];
        let longest = dirs.iter().map(|d| d.runtime_ms).fold(0.0, f64::max);
        let Some(first) = dirs.first_mut() else {
            return;
        };
        sync.runtime_ms = (longest * jobs.max(1) as f64).round() as u64;
        if let Some(l) = &mut sync.lat {
            l.0 = sync.ios;
        }
        if sync.ios == 0 {
            sync.lat = None;
            sync.lat_pct.clear();
        }
        first.job_sync = Some(sync);
    }

    fn line(&mut self, l: &str) -> Result<(), String> {
        let t = l.trim_start();
        if let Some((name, rest)) = l.split_once(": (groupid=") {
            self.end_job();
            let jobs = rest
                .split_once("jobs=")
                .and_then(|(_, r)| r.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(1);
            self.job = Some((name.trim().to_string(), jobs));
            self.job_first = self.out.len();
            return Ok(());
        }
        if t.starts_with("Run status group") {
            self.end_job();
            return Ok(());
        }
        let Some((jname, jobs)) = self.job.clone() else {
            return Ok(());
        };
        if let Some((dir, rest)) = ["read", "write", "trim"]
            .iter()
            .find_map(|d| t.strip_prefix(&format!("{d}: IOPS=")).map(|r| (*d, r)))
        {
            return self.direction(&jname, jobs, dir, rest);
        }
        if let Some(r) = t.strip_prefix("issued rwts: total=") {
            self.issued(&jname, r);
        } else {
            self.latency_line(t);
        }
        Ok(())
    }
    /// `read: IOPS=14.2k, BW=… (8192KiB/9msec)`: a new direction of the job.
    fn direction(&mut self, jname: &str, jobs: u64, dir: &str, rest: &str) -> Result<(), String> {
        self.flush();
        self.table = None;
        let (bytes, runtime_ms) = io_and_runtime(rest).ok_or_else(|| {
            format!("fio text: cannot read the I/O size and runtime of {jname} {dir}")
        })?;
        let (mut opts, bs) = self
            .headers
            .iter()
            .find(|h| h.0 == jname)
            .map(|h| (h.1.clone(), h.2))
            .unwrap_or_default();
        let i = ["read", "write", "trim"]
            .iter()
            .position(|x| *x == dir)
            .unwrap_or(0);
        opts.bs = if bs[i] > 0 { bs[i] } else { 4096 };
        opts.jobs = jobs;
        let iops_txt = rest.split(',').next().unwrap_or("0");
        let iops = kv_numbers(&format!("i={iops_txt}"))
            .first()
            .map_or(0.0, |x| x.1);
        // exact when the block size is fixed; the rounded IOPS x runtime otherwise
        let ios = if opts.bs > 0 && bytes % opts.bs == 0 {
            bytes / opts.bs
        } else {
            (iops * runtime_ms / 1e3).round() as u64
        };
        self.cur = Some(FioDir {
            job: jname.to_string(),
            dir: dir.to_string(),
            bytes,
            ios,
            runtime_ms,
            opts,
            ..FioDir::default()
        });
        Ok(())
    }

    /// `issued rwts: total=R,W,T,S short=…`: the exact request counts (the bytes of the
    /// `read:`/`write:` lines are rounded to 3 significant figures, so bytes / bs
    /// can be off by up to 0.5 %); with a fixed bs the bytes follow exactly. The
    /// job's fsync/fdatasync calls: `S`, else the first `short=` figure when the job
    /// printed a sync block (where fio 3.33 counts fdatasync calls).
    fn issued(&mut self, jname: &str, r: &str) {
        self.flush();
        let n: Vec<u64> = r
            .split_whitespace()
            .next()
            .unwrap_or("")
            .split(',')
            .map(|x| x.parse().unwrap_or(0))
            .collect();
        let short0 = r
            .split_once("short=")
            .and_then(|x| x.1.split(',').next())
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        self.sync.ios = match n.get(3) {
            Some(&s) if s > 0 => s,
            _ if self.sync.lat.is_some() => short0,
            _ => 0,
        };
        let fixed = self.headers.iter().find(|h| h.0 == jname).map(|h| h.3);
        for d in self.out.iter_mut().skip(self.job_first) {
            let i = ["read", "write", "trim"].iter().position(|x| *x == d.dir);
            let Some(&ios) = i.and_then(|i| n.get(i)) else {
                continue;
            };
            if ios == 0 {
                continue;
            }
            d.ios = ios;
            for l in [&mut d.lat, &mut d.clat].into_iter().flatten() {
                l.0 = ios;
            }
            if i.zip(fixed).is_some_and(|(i, f)| f[i]) && d.opts.bs > 0 {
                d.bytes = ios * d.opts.bs;
            }
        }
    }

    /// Inside a job block: a direction's `lat (unit):` and `clat (unit):` lines and
    /// their percentile tables, the job's `sync (unit):` line and its table.
    fn latency_line(&mut self, t: &str) {
        if let Some((kind, u)) = latency_header(t, false) {
            self.table = None;
            let count = self.cur.as_ref().map_or(0, |d| d.ios);
            let stats = Some(stats_of(t, u, count));
            match (kind, self.cur.as_mut()) {
                (Table::Sync, _) => self.sync.lat = stats,
                (Table::Lat, Some(d)) => d.lat = stats,
                (Table::Clat, Some(d)) => d.clat = stats,
                _ => {}
            }
        } else if let Some(h) = latency_header(t, true) {
            self.table = Some(h);
        } else if let (Some((kind, u)), Some(body)) = (self.table, t.strip_prefix('|')) {
            let cells = pct_cells(body, u);
            match (kind, self.cur.as_mut()) {
                (Table::Sync, _) => self.sync.lat_pct.extend(cells),
                (Table::Lat, Some(d)) => d.lat_pct.extend(cells),
                (Table::Clat, Some(d)) => d.clat_pct.extend(cells),
                _ => {}
            }
        } else {
            self.table = None;
        }
    }
}

fn from_text(text: &str) -> Result<Vec<FioDir>, String> {
    let mut r = TextReader {
        headers: headers(text),
        out: Vec::new(),
        job: None,
        cur: None,
        table: None,
        job_first: 0,
        sync: FioJobSync::default(),
    };
    for l in text.lines() {
        r.line(l)?;
    }
    r.end_job();
    r.flush();
    if r.out.is_empty() {
        return Err(
            "fio text report without a job result (no `read: IOPS=` / `write: IOPS=` line)".into(),
        );
    }
    Ok(r.out)
}

// ---- RunResult -------------------------------------------------------------------------

fn latency(d: &FioDir) -> Latency {
    latency_of(d.lat, &d.lat_pct)
}

/// A direction's `clat`: fio's figures and percentiles, with its histogram when the
/// report is `json+` (so several directions merge into exact-to-the-bucket
/// percentiles).
fn clat(d: &FioDir) -> Latency {
    let mut l = latency_of(d.clat, &d.clat_pct);
    if !d.clat_bins.is_empty() {
        l.histogram = Some(crate::result::hist::Hist::from_buckets(&d.clat_bins));
    }
    l
}

/// A [`Latency`] from fio's count, min, max, mean, stdev (ns) and percentiles.
fn latency_of(lat: Option<(u64, u64, u64, f64, f64)>, pct: &[(String, u64)]) -> Latency {
    let (count, min, max, mean, sd) = lat.unwrap_or((0, 0, 0, 0.0, 0.0));
    Latency {
        count,
        min_ns: min,
        max_ns: max,
        mean_ns: mean.round() as u64,
        stdev_ns: sd,
        sum_ns: (mean * count as f64).round() as u64,
        percentiles_ns: pct.iter().cloned().collect(),
        histogram: None,
    }
}

/// The fsync/fdatasync calls of the report's jobs and where each job's time went. The calls are summed over the jobs, their latency
/// the one job's (over several: merged, without percentiles, which do not add up) and
/// their rate over `period` s; each job's share has its `job_runtime` as wall time, its
/// directions' lat and its calls' lat summed as the time in reads, writes (trims
/// counted with them, as in the totals) and syncs.
fn job_times(dirs: &[FioDir], period: f64) -> (Option<FsyncStats>, Vec<TimeShare>) {
    let mut shares = vec![];
    let mut syncs: Vec<Latency> = vec![];
    let mut ios = 0;
    for (k, d) in dirs.iter().enumerate() {
        let Some(js) = &d.job_sync else { continue };
        // the job's directions: this one and those after it up to the next job's first
        let rest = dirs[k + 1..].iter().take_while(|e| e.job_sync.is_none());
        let mut rw = [0u64; 2];
        for e in std::iter::once(d).chain(rest) {
            rw[usize::from(e.dir != "read")] += latency(e).sum_ns;
        }
        let sync = latency_of(js.lat, &js.lat_pct);
        if js.runtime_ms > 0 {
            let wall = js.runtime_ms.saturating_mul(1_000_000);
            shares.push(TimeShare::new(&d.job, wall, rw[0], rw[1], sync.sum_ns));
        }
        ios += js.ios;
        if sync.count > 0 {
            syncs.push(sync);
        }
    }
    let fsync = (ios > 0).then(|| {
        let lat = if syncs.len() == 1 {
            syncs.remove(0)
        } else {
            let mut l = merge_latency(&syncs.iter().collect::<Vec<_>>());
            l.percentiles_ns.clear();
            l
        };
        FsyncStats {
            ops: ios,
            ops_per_s: if period > 0.0 {
                ios as f64 / period
            } else {
                0.0
            },
            lat,
        }
    });
    (fsync, shares)
}

fn phase(d: &FioDir, source: &str) -> Phase {
    let o = &d.opts;
    let mut p = Phase::new(
        &format!("{} {}", d.job, d.dir),
        d.ios,
        d.bytes,
        d.runtime_ms / 1e3,
    );
    p.lat = Some(latency(d));
    p.clat = d.clat.map(|_| clat(d));
    p.notes = vec![
        format!(
            "engine={} bs={} iodepth={} threads={} direct={} rw={}",
            o.engine,
            o.bs,
            o.iodepth,
            o.jobs,
            o.direct.map_or("unknown".into(), |d| d.to_string()),
            o.rw
        ),
        "latency=lat (submit to completion)".to_string(),
        format!("source={source}"),
    ];
    if let Some(f) = &o.fsync {
        p.notes
            .push(format!("{}{f}", crate::result::truth::FSYNC_NOTE));
    }
    p
}

/// Reads or writes summed over the directions, with rates over `period` seconds.
fn totals(bytes: u64, ios: u64, period: f64) -> OpStats {
    let t = if period > 0.0 {
        period
    } else {
        f64::MIN_POSITIVE
    };
    OpStats {
        ops: ios,
        bytes,
        iops: ios as f64 / t,
        bw_bytes_per_s: bytes as f64 / t,
        bw_mib_per_s: bytes as f64 / t / 1048576.0,
        bw_mb_per_s: bytes as f64 / t / 1e6,
        ..OpStats::default()
    }
}

/// `o` with the latency of directions `dirs` (reads, or writes and trims): fio's `lat`
/// and `clat`, one direction's as fio gave them (with its percentiles), several merged
/// (count, sum, min, max; percentiles only from the merged histograms of a `json+`
/// report's `clat` — plain JSON and text give no histogram, and percentiles do not add
/// up).
fn with_latency<'a>(mut o: OpStats, dirs: impl Iterator<Item = &'a FioDir>) -> OpStats {
    let dirs: Vec<&FioDir> = dirs.collect();
    let one = |l: Vec<Latency>| -> Latency {
        let mut l: Vec<Latency> = l.into_iter().filter(|l| l.count > 0).collect();
        if l.len() == 1 {
            return l.remove(0);
        }
        let mut m = merge_latency(&l.iter().collect::<Vec<_>>());
        if l.iter().any(|l| l.histogram.is_none()) {
            m.percentiles_ns.clear();
            m.histogram = None;
        }
        m
    };
    o.lat = one(dirs.iter().map(|d| latency(d)).collect());
    let clat = one(dirs.iter().map(|d| clat(d)).collect());
    o.clat = (clat.count > 0).then_some(clat);
    o
}

/// The builder's inputs of an imported fio report (result/build/mod.rs puts the
/// RunResult together, as for every command): the directions as phases, their sums
/// as the top-level totals, the first job's options as the summary.
fn inputs(
    dirs: &[FioDir],
    (version, form): (&str, &str),
    label: &str,
    cut: Option<i32>,
) -> Result<Inputs, String> {
    let source = format!("{version} {form}");
    let (mut rd, mut wr) = ((0u64, 0u64, 0.0f64), (0u64, 0u64, 0.0f64));
    for d in dirs {
        let acc = if d.dir == "read" { &mut rd } else { &mut wr };
        acc.0 += d.bytes;
        acc.1 += d.ios;
        acc.2 = acc.2.max(d.runtime_ms / 1e3);
    }
    let first = &dirs.first().ok_or("fio output without any job")?.opts;
    let period = rd.2.max(wr.2);
    // a run fio stopped on a signal is partial, as iomark's own interrupted runs are
    let status = cut.map_or(Status::Ok, |_| Status::Interrupted);
    let mut i = Inputs::new(
        "run",
        &[format!("imported from {label} ({source})")],
        status,
    );
    i.producer = Some(("fio".into(), version.into()));
    i.elapsed_s = period;
    i.summary = JobInfo {
        kind: "run".into(),
        engine: first.engine.clone(),
        iodepth: u32::try_from(first.iodepth).unwrap_or(u32::MAX),
        threads: u32::try_from(first.jobs).unwrap_or(u32::MAX),
        block_size_bytes: first.bs,
        request_size_bytes: first.bs,
        direct: first.direct.unwrap_or(false),
        fsync_mode: "fsync".into(),
        ..JobInfo::default()
    };
    let (fsync, time) = job_times(dirs, period);
    let of = |read: bool| dirs.iter().filter(move |d| (d.dir == "read") == read);
    i.recorded = Recorded::built(
        jobs::job_results(dirs),
        Totals {
            read: with_latency(totals(rd.0, rd.1, period), of(true)),
            write: with_latency(totals(wr.0, wr.1, period), of(false)),
            period_s: Some(period),
            fsync,
        },
    );
    i.recorded.time = time;
    i.phases = dirs.iter().map(|d| phase(d, &source)).collect();
    let stopped = cut.map_or(String::new(), |sig| {
        format!("; fio was interrupted by {} (\"fio: terminating on signal {sig}\"): its figures cover only the part that ran", signal_name(sig))
    });
    i.warnings = vec![Warning {
        id: "imported.fio".into(),
        message: format!("imported from fio output ({source}): latency is fio's clat (completion latency; fio's lat, which adds the submission, is kept as each phase's lat); no diagnosis of the target{stopped}"),
    }];
    i.warnings.extend(buffered_warning(dirs));
    Ok(i)
}

/// The call-out of an imported report whose jobs ran buffered (`direct=0`): fio's report
/// holds no page-cache check (file set against RAM, the device's own counters), so the
/// result cannot say whether its figures are the device's or the page cache's.
fn buffered_warning(dirs: &[FioDir]) -> Option<Warning> {
    let buffered: Vec<&FioDir> = dirs
        .iter()
        .filter(|d| d.opts.direct == Some(false))
        .collect();
    let mut jobs: Vec<&str> = buffered.iter().map(|d| d.job.as_str()).collect();
    jobs.dedup();
    let first = *jobs.first()?;
    let named = match jobs.len() {
        1 => format!("job {first}"),
        n => format!("{n} jobs ({first}, …)"),
    };
    let reads = buffered.iter().any(|d| d.dir == "read");
    let writes = buffered.iter().any(|d| d.dir != "read");
    let what = match (reads, writes) {
        (true, false) => "its reads may have been served by the page cache, not the device",
        (false, _) => "its writes may have ended in the page cache, not on the device",
        (true, true) => "its reads may have been served by the page cache and its writes may have ended there, not on the device",
    };
    Some(Warning {
        id: "imported.fio_buffered".into(),
        message: format!("{named} ran buffered (direct=0): {what}; fio's report holds no page-cache check (file set against RAM, the device's own counters), so whether these figures are the device's is unknown — rerun with direct=1, or with iomark, which checks"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_units_scale_to_ns() {
        assert_eq!(unit_ns("clat (usec): min=4"), Some(1e3));
        assert_eq!(unit_ns(" lat (nsec): min=4"), Some(1.0));
        assert_eq!(unit_ns("lat (msec): min=4"), Some(1e6));
        assert_eq!(
            io_and_runtime("IOPS=14.2k, BW=889MiB/s (932MB/s)(8192KiB/9msec)"),
            Some((8388608, 9.0))
        );
        assert_eq!(
            kv_numbers("min=4, max=3330.0k, avg=57.00")[1].1,
            3_330_000.0
        );
    }

    /// fio's own date, not the import's: JSON `timestamp_ms` (else `timestamp`), the
    /// text report's job header (local time).
    #[test]
    fn imported_results_keep_fios_date() {
        let json = r#"{"fio version":"fio-3.33","timestamp":1796281139,"jobs":[{"jobname":"j","read":{"total_ios":10,"io_bytes":40960,"runtime":1000}}]}"#;
        let r = import(json, "a.json").unwrap().unwrap();
        assert_eq!(r.timestamp_ms, 1_796_281_139_000);
        let line = "j: (groupid=0, jobs=1): err= 0: pid=7: Thu Dec  3 06:58:59 2026";
        let ms = text_date_ms(line).unwrap();
        // SAFETY: localtime_r fills the zeroed `tm` from a valid time_t.
        let tm = unsafe {
            let mut tm: libc::tm = std::mem::zeroed();
            let t = (ms / 1000) as libc::time_t;
            libc::localtime_r(&t, &mut tm);
            tm
        };
        assert_eq!(
            (
                tm.tm_year + 1900,
                tm.tm_mon + 1,
                tm.tm_mday,
                tm.tm_hour,
                tm.tm_min,
                tm.tm_sec
            ),
            (2026, 12, 3, 6, 58, 59)
        );
        assert_eq!(text_date_ms("read: IOPS=1"), None);
        assert_eq!(
            text_date_ms("j: (groupid=0, jobs=1): err= 0: pid=7: yesterday"),
            None
        );
    }

    /// fio prints lines before its JSON document on the same stdout (a `note:` warning,
    /// command-line jobs' header lines) and, with `--status-interval`, one document per
    /// interval: the import reads the last document after those lines.
    #[test]
    fn fio_json_after_lines_and_the_last_of_several_documents() {
        let doc = |ios: u64| {
            format!(
                "{{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [{{\"jobname\":\"j\",\"read\":{{\"total_ios\":{ios},\"io_bytes\":{},\"runtime\":1000}}}}]\n}}\n",
                ios * 4096
            )
        };
        let noted = format!(
            "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\na: (g=0): rw=read, bs=(R) 4096B-4096B\n{}",
            doc(10)
        );
        let r = import(&noted, "n.json").unwrap().unwrap();
        assert_eq!((r.read.ops, r.read.bytes), (10, 40960));
        let two = format!("{}{}", doc(5), doc(20));
        let r = import(&two, "s.json").unwrap().unwrap();
        assert_eq!(r.read.ops, 20, "the last document is the final report");
        // lines before a JSON document that is not fio's: not imported
        assert!(import("note: x\n{\n\"a\": 1\n}\n", "x").is_none());
    }

    #[test]
    fn raw_control_characters_in_strings_are_read() {
        // fio writes `--name=$'a\nb'` as it is: a raw newline inside the string
        let doc = "{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [{\"jobname\":\"a\nb\tc\\\\\",\n\"read\":{\"total_ios\":3,\"io_bytes\":12288,\"runtime\":1000}}]\n}\n";
        assert!(
            serde_json::from_str::<Value>(doc).is_err(),
            "fio's JSON is invalid"
        );
        let r = import(doc, "ctl.json").unwrap().unwrap();
        assert_eq!(r.read.ops, 3);
        assert_eq!(r.phases[0].name, "a\nb\tc\\ read");
        // a document without them is read as it is
        assert!(matches!(
            escape_raw_controls("{\n\"a\": \"b\\\"\\n\"\n}"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    /// Two jobs' reads of a `json+` report: their `clat` histograms (`bins`) merge, so
    /// the totals keep percentiles, each the smallest bucket value at or above that share
    /// of the merged counts (to the histogram's 3 significant figures); plain JSON's
    /// several directions keep none (percentiles do not add up).
    #[test]
    fn json_plus_bins_give_the_merged_directions_percentiles() {
        let job = |name: &str, bins: &str, n: u64, plus: bool| {
            let bins = if plus {
                format!(",\"bins\":{{{bins}}}")
            } else {
                String::new()
            };
            format!(
                "{{\"jobname\":\"{name}\",\"read\":{{\"total_ios\":{n},\"io_bytes\":{},\"runtime\":1000,\"clat_ns\":{{\"N\":{n},\"min\":1000,\"max\":9000,\"mean\":2000.0,\"stddev\":1.0,\"percentile\":{{\"50.000000\":1000,\"99.000000\":9000}}{bins}}}}}}}",
                n * 4096
            )
        };
        let doc = |plus: bool| {
            format!(
                "{{\"fio version\":\"fio-3.33\",\"jobs\":[{},{}]}}",
                job("a", "\"1000\":60,\"9000\":40", 100, plus),
                job("b", "\"3000\":100", 100, plus)
            )
        };
        let r = import(&doc(true), "p.json").unwrap().unwrap();
        let c = r.read.clat.as_ref().expect("clat");
        assert_eq!(c.count, 200);
        // merged: 60 × 1000, 100 × 3000, 40 × 9000 ns; the 50th percentile is the 100th
        // of 200 (3000), the 99th the 198th (9000)
        let within = |got: u64, want: u64| got.abs_diff(want) * 1000 <= want;
        let p = |k: &str| c.percentiles_ns.get(k).copied().unwrap_or(0);
        assert!(within(p("50"), 3000), "{:?}", c.percentiles_ns);
        assert!(within(p("99"), 9000), "{:?}", c.percentiles_ns);
        let r = import(&doc(false), "j.json").unwrap().unwrap();
        let c = r.read.clat.as_ref().expect("clat");
        assert_eq!(c.count, 200);
        assert!(c.percentiles_ns.is_empty(), "{:?}", c.percentiles_ns);
    }

    /// A fio run cut by SIGINT (fio's `fio: terminating on signal 2` in its output,
    /// JSON and text alike, fixtures of fio 3.33) is imported as interrupted, as iomark's
    /// own interrupted runs are, its warning saying so; the same report without that line
    /// is a whole run.
    #[test]
    fn a_fio_run_cut_by_a_signal_is_interrupted() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio");
        for f in [
            "randread-psync-cut-sigint.json",
            "randread-psync-cut-sigint.txt",
        ] {
            let text = std::fs::read_to_string(dir.join(f)).unwrap();
            assert_eq!(cut_by_signal(&text), Some(2), "{f}");
            let r = import(&text, f).unwrap().unwrap();
            assert_eq!(r.status, Status::Interrupted, "{f}");
            let w = &r
                .warnings
                .iter()
                .find(|w| w.id == "imported.fio")
                .unwrap()
                .message;
            assert!(
                w.ends_with("fio was interrupted by SIGINT (\"fio: terminating on signal 2\"): its figures cover only the part that ran"),
                "{f}: {w}"
            );
            let whole = text.replace("fio: terminating on signal 2", "");
            let r = import(&whole, f).unwrap().unwrap();
            assert_eq!(r.status, Status::Ok, "{f}");
        }
        let r = import(
            &std::fs::read_to_string(dir.join("seqread-psync.json")).unwrap(),
            "s",
        )
        .unwrap()
        .unwrap();
        assert_eq!(r.status, Status::Ok);
    }

    /// A value of another type than fio writes (`"iops": "abc"`) is a malformed report,
    /// named by its JSON path, not a report without completed I/O.
    #[test]
    fn a_string_where_fio_writes_a_number_is_malformed() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio");
        let text = std::fs::read_to_string(dir.join("seqread-psync.json")).unwrap();
        let at = text.find("\"iops\" : ").unwrap();
        let end = at + text[at..].find(',').unwrap();
        let bad = format!("{}\"iops\" : \"abc\"{}", &text[..at], &text[end..]);
        assert_eq!(
            import(&bad, "b.json").unwrap().unwrap_err(),
            "malformed fio JSON: jobs[0].read.iops is the string \"abc\", expected a number"
        );
    }

    #[test]
    fn not_fio_is_none() {
        assert!(import("{\"a\": 1}", "x").is_none());
        assert!(import("hello", "x").is_none());
    }
}

mod jobs;
mod shape;

#[cfg(test)]
mod fixtures;
