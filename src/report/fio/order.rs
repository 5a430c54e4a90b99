//! Writes the fio JSON document of `iomark run` as fio 3.33's json.c writes it: every
//! object's keys in fio's order (fio adds them in stat.c's order; serde_json's `Map`
//! keeps them sorted), `"key" : value`, two spaces of indent per level, an empty object
//! as `{`, an empty line and `}`, floats with six decimals (C's `%f`), integers bare,
//! strings with `\` and `"` escaped (control characters as `\u00XX`, which fio leaves
//! raw, so the document stays JSON). Keys named by numbers (percentiles, json+ bins,
//! the `iodepth_*` and `latency_*` levels) come in numeric order, `>=N` after `N`.
//! `job options` / `global options` are written from the option lists, in the order the
//! options were given (`--name=w` first for a command-line job, a repeated option once
//! per occurrence). The document itself is built as a [`serde_json::Value`]
//! (report/fio/json.rs); only its text form lives here.

use serde_json::{Map, Value};
use std::fmt::Write;

/// The fio document `doc` (from [`crate::report::fio::json::document`]) with the options of
/// `doc["jobs"][i]` taken from `job_opts[i]` and `global options` from `global`, in
/// their given order.
pub struct FioDoc<'a> {
    /// the document as built (its option objects are replaced when written)
    pub doc: &'a Value,
    /// each job's options as written, in the order of `doc["jobs"]`
    pub job_opts: Vec<&'a [(String, String)]>,
    /// the global options as written
    pub global: &'a [(String, String)],
}

/// Which of fio's objects is being written: it fixes the key order.
#[derive(Clone, Copy, PartialEq)]
enum Obj {
    Root,
    Job,
    Dir,
    Lat,
    Prio,
    Disk,
    Steady,
    SteadyData,
    /// anything else: numeric keys in numeric order, other keys as built
    Other,
}

impl Obj {
    /// fio 3.33's order of the keys (stat.c `show_run_stats`, `show_thread_status_json`,
    /// `add_ddir_status_json`, `add_ddir_lat_json`, `json_array_add_disk_util`); keys
    /// iomark adds that fio does not have come after them.
    #[rustfmt::skip]
    fn keys(self) -> &'static [&'static str] {
        match self {
            Obj::Root => &[
                "fio version", "timestamp", "timestamp_ms", "time", "global options", "jobs",
                "client_stats", "disk_util",
            ],
            Obj::Job => &[
                "jobname", "groupid", "error", "eta", "elapsed", "job options", "read", "write", "trim",
                "sync", "mixed", "job_runtime", "usr_cpu", "sys_cpu", "ctx", "majf", "minf",
                "iodepth_level", "iodepth_submit", "iodepth_complete", "latency_ns", "latency_us",
                "latency_ms", "total_err", "first_error", "latency_depth", "latency_target",
                "latency_percentile", "latency_window", "desc", "block", "steadystate",
                "hostname", "port",
            ],
            Obj::Dir => &[
                "io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "runtime", "total_ios", "short_ios",
                "drop_ios", "slat_ns", "clat_ns", "lat_ns", "prios", "bw_min", "bw_max", "bw_agg",
                "bw_mean", "bw_dev", "bw_samples", "iops_min", "iops_max", "iops_mean", "iops_stddev",
                "iops_samples", "cachehit",
            ],
            Obj::Lat => &["min", "max", "mean", "stddev", "N", "percentile", "bins"],
            Obj::Prio => &["prioclass", "prio", "clat_ns", "lat_ns"],
            Obj::Disk => &[
                "name", "read_ios", "write_ios", "read_merges", "write_merges", "read_ticks",
                "write_ticks", "in_queue", "util", "aggr_read_ios", "aggr_write_ios",
                "aggr_read_merges", "aggr_write_merge", "aggr_read_ticks", "aggr_write_ticks",
                "aggr_in_queue", "aggr_util", "hostname", "port",
            ],
            Obj::Steady => &["ss", "duration", "attained", "criterion", "max_deviation", "slope", "data"],
            Obj::SteadyData => &["bw_mean", "iops_mean", "iops", "bw"],
            Obj::Other => &[],
        }
    }

    /// The object under `key` of this one.
    fn child(self, key: &str) -> Obj {
        match (self, key) {
            (Obj::Job, "read" | "write" | "trim" | "sync" | "mixed") => Obj::Dir,
            (Obj::Dir | Obj::Prio, "slat_ns" | "clat_ns" | "lat_ns") => Obj::Lat,
            (Obj::Job, "steadystate") => Obj::Steady,
            (Obj::Steady, "data") => Obj::SteadyData,
            _ => Obj::Other,
        }
    }

    /// The objects in the array under `key` of this one.
    fn element(self, key: &str) -> Obj {
        match (self, key) {
            (Obj::Root, "jobs" | "client_stats") => Obj::Job,
            (Obj::Root, "disk_util") => Obj::Disk,
            (Obj::Dir, "prios") => Obj::Prio,
            _ => Obj::Other,
        }
    }
}

/// A key named by a number (`99.900000`, `64`, `>=64`): its value, `>=N` just after `N`.
fn numeric_key(k: &str) -> Option<(f64, bool)> {
    let (n, ge) = k.strip_prefix(">=").map_or((k, false), |n| (n, true));
    n.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map(|x| (x, ge))
}

/// The pairs of `m` in fio's order for an object of kind `o`.
fn ordered(m: &Map<String, Value>, o: Obj) -> Vec<(&String, &Value)> {
    let mut v: Vec<(&String, &Value)> = m.iter().collect();
    let keys = o.keys();
    if !keys.is_empty() {
        // a stable sort: keys fio does not have keep their (sorted) order, at the end
        v.sort_by_key(|(k, _)| keys.iter().position(|x| x == k).unwrap_or(keys.len()));
    } else if let Some(mut n) = v
        .iter()
        .map(|(k, x)| numeric_key(k).map(|n| (n, *k, *x)))
        .collect::<Option<Vec<_>>>()
    {
        n.sort_by(|a, b| a.0 .0.total_cmp(&b.0 .0).then(a.0 .1.cmp(&b.0 .1)));
        v = n.into_iter().map(|(_, k, x)| (k, x)).collect();
    }
    v
}

struct Writer<'a> {
    out: String,
    d: &'a FioDoc<'a>,
}

impl Writer<'_> {
    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            self.out.push_str("  ");
        }
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' | '\\' => {
                    self.out.push('\\');
                    self.out.push(c);
                }
                c if (c as u32) < 0x20 => {
                    let _ = write!(self.out, "\\u{:04x}", c as u32);
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    /// `{`, the pairs one a line at `level + 1`, `}` at `level` (json.c `json_print_object`).
    fn object<'p>(&mut self, pairs: impl Iterator<Item = (&'p str, Item<'p>)>, level: usize) {
        self.out.push_str("{\n");
        for (i, (k, v)) in pairs.enumerate() {
            if i > 0 {
                self.out.push_str(",\n");
            }
            self.indent(level + 1);
            self.string(k);
            self.out.push_str(" : ");
            self.item(v, level + 1);
        }
        self.out.push('\n');
        self.indent(level);
        self.out.push('}');
    }

    fn item(&mut self, it: Item, level: usize) {
        match it {
            Item::Opts(o) => {
                let kept = o.iter().filter(|(_, v)| !v.is_empty());
                let pairs: Vec<(&str, &str)> =
                    kept.map(|(k, v)| (k.as_str(), v.as_str())).collect();
                self.object(pairs.into_iter().map(|(k, v)| (k, Item::Str(v))), level);
            }
            Item::Str(s) => self.string(s),
            Item::Value(v, o, job) => self.value(v, o, job, level),
        }
    }

    /// `v`, an object of kind `o` when it is one; `job` is its index in `jobs`.
    fn value(&mut self, v: &Value, o: Obj, job: usize, level: usize) {
        match v {
            Value::Null => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => match n.as_f64().filter(|_| n.is_f64()) {
                Some(f) => {
                    let _ = write!(self.out, "{f:.6}");
                }
                None => {
                    let _ = write!(self.out, "{n}");
                }
            },
            Value::String(s) => self.string(s),
            Value::Array(a) => {
                self.out.push_str("[\n");
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(",\n");
                    }
                    self.indent(level + 1);
                    self.value(x, o, i, level + 1);
                }
                self.out.push('\n');
                self.indent(level);
                self.out.push(']');
            }
            Value::Object(m) => {
                let d = self.d;
                let pairs = ordered(m, o).into_iter().map(|(k, x)| {
                    let it = match (o, k.as_str()) {
                        (Obj::Root, "global options") => Item::Opts(d.global),
                        (Obj::Job, "job options") if job < d.job_opts.len() => {
                            Item::Opts(d.job_opts[job])
                        }
                        (_, _) if x.is_array() => Item::Value(x, o.element(k), 0),
                        _ => Item::Value(x, o.child(k), job),
                    };
                    (k.as_str(), it)
                });
                self.object(pairs, level);
            }
        }
    }
}

/// What a pair holds: an option list, a string, or a part of the document.
enum Item<'a> {
    Opts(&'a [(String, String)]),
    Str(&'a str),
    Value(&'a Value, Obj, usize),
}

/// The text of [`FioDoc`] as fio 3.33 writes it (no final newline).
pub fn to_text(d: &FioDoc) -> String {
    let mut w = Writer {
        out: String::new(),
        d,
    };
    w.value(d.doc, Obj::Root, 0, 0);
    w.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kv(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn options_keep_their_order_and_repeats() {
        let doc = json!({
            "fio version": "x",
            "global options": {"size": "1m", "ioengine": "null"},
            "jobs": [
                {"jobname": "w", "job options": {"bs": "8k", "name": "w", "rw": "read"}, "read": {"io_bytes": 1}},
            ],
        });
        let w = kv(&[
            ("name", "w"),
            ("rw", "read"),
            ("time_based", ""),
            ("bs", "4k"),
            ("bs", "8k"),
        ]);
        let g = kv(&[("size", "1m"), ("ioengine", "null")]);
        let t = to_text(&FioDoc {
            doc: &doc,
            job_opts: vec![&w],
            global: &g,
        });
        let opts = &t[t.find("\"job options\"").unwrap()..];
        let opts = &opts[..opts.find('}').unwrap()];
        let keys: Vec<&str> = opts
            .lines()
            .skip(1)
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        // fio 3.33: `--name=w --rw=read --time_based --bs=4k --bs=8k`
        assert_eq!(
            keys,
            [
                "\"name\" : \"w\",",
                "\"rw\" : \"read\",",
                "\"bs\" : \"4k\",",
                "\"bs\" : \"8k\""
            ]
        );
        let glob = &t[t.find("\"global options\"").unwrap()..];
        assert!(
            glob.find("\"size\"").unwrap() < glob.find("\"ioengine\"").unwrap(),
            "{t}"
        );
        // everything else is the document as built
        let back: Value = serde_json::from_str(&t).unwrap();
        assert_eq!(back["jobs"][0]["read"], doc["jobs"][0]["read"]);
        assert_eq!(back["jobs"][0]["job options"]["bs"], "8k");
        assert_eq!(back["fio version"], "x");
    }
}
