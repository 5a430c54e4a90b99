//! fio's per-priority latency report (fio 3.33 `stat.c`): when the requests of a
//! direction carried more than one ioprio value (cmdprio_*), each value gets its own
//! latency block — JSON `prios: [{"prioclass", "prio", "clat_ns" | "lat_ns"}]` and text
//! `clat prio C/L (UNIT): …` plus `clat prio C/L (P% of IOs) percentiles (UNIT):` (UNIT nsec, usec or msec by fio's rules, report/fio/lat_text.rs).

use crate::report::fio::json::lat_json;
use crate::report::fio::pcts;
use crate::report::fio::text::{lat_line, pct_table};
use crate::result::job::JobResult;
use crate::result::Latency;
use serde_json::{json, Value};

/// The entries of direction `d` (0 read, 1 write), sorted by ioprio; empty unless
/// there are at least two values (fio prints nothing for one).
fn entries(j: &JobResult, d: usize) -> Vec<(u16, &Latency)> {
    let dir = if d == 0 { "read" } else { "write" };
    let mut v: Vec<(u16, &Latency)> = j
        .prios
        .iter()
        .filter(|e| e.dir == dir)
        .map(|e| (e.ioprio, &e.lat))
        .collect();
    v.sort_by_key(|e| e.0);
    if v.len() < 2 {
        v.clear();
    }
    v
}

fn kind(j: &JobResult) -> &'static str {
    if j.job.lat_percentiles {
        "lat"
    } else {
        "clat"
    }
}

/// fio JSON `prios` array of direction `d`, or `None`; with `plus` (json+) each
/// priority's latency has its `bins`, as fio 3.33 prints them.
pub fn prios_json(j: &JobResult, d: usize, _plus: bool) -> Option<Value> {
    let e = entries(j, d);
    if e.is_empty() {
        return None;
    }
    let key = format!("{}_ns", kind(j));
    Some(Value::Array(
        e.iter()
            .map(|(p, l)| {
                let mut o = json!({ "prioclass": p >> 13, "prio": p & 7 });
                o[key.as_str()] = lat_json(l, Some(pcts(j)), false);
                o
            })
            .collect(),
    ))
}

/// The text lines of direction `d` (empty string when fewer than two priorities).
pub fn prios_text(j: &JobResult, d: usize) -> String {
    let e = entries(j, d);
    if e.is_empty() {
        return String::new();
    }
    let k = kind(j);
    let total: u64 = e.iter().map(|x| x.1.count).sum();
    let mut s = String::new();
    for (p, l) in &e {
        s += &lat_line(&format!("{k} prio {}/{}", p >> 13, p & 7), l);
    }
    for (p, l) in &e {
        let share = l.count as f64 * 100.0 / total.max(1) as f64;
        s += &pct_table(
            &format!("{k} prio {}/{} ({share:.2}% of IOs)", p >> 13, p & 7),
            l,
            pcts(j),
        );
    }
    s
}
