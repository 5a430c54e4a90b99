//! fio's per-priority latency figures (fio 3.33 `stat.c`): when the requests of a
//! direction carried at least two ioprio values (cmdprio_*), each value has its own
//! latency — clat, or lat with `lat_percentiles`. This module owns which entries there
//! are, their names and shares; the JSON reporter (`prios`, report/fio/json.rs) and the
//! text reporter (`clat prio C/L` lines and tables, report/fio/text.rs) both read them
//! from here.

use crate::result::job::{DirResult, JobResult};
use crate::result::Latency;

/// One priority value's latency in a direction.
pub struct Prio<'a> {
    /// the ioprio value (class << 13 | level)
    pub ioprio: u16,
    /// the latency of the requests that carried it
    pub lat: &'a Latency,
}

impl Prio<'_> {
    /// fio's `prioclass`
    pub fn class(&self) -> u16 {
        self.ioprio >> 13
    }

    /// fio's `prio` (the level)
    pub fn level(&self) -> u16 {
        self.ioprio & 7
    }

    /// fio's text label, `clat prio 1/0` (or `lat prio …`)
    pub fn label(&self, j: &JobResult) -> String {
        format!("{} prio {}/{}", kind(j), self.class(), self.level())
    }

    /// The share of direction `d`'s requests (%) that carried this value: its count over
    /// the direction's lat (with `lat_percentiles`) or clat count, as fio 3.33 divides.
    pub fn share(&self, j: &JobResult, d: &DirResult) -> f64 {
        let all = if j.job.lat_percentiles {
            d.lat.count
        } else {
            d.clat.count
        };
        100.0 * self.lat.count as f64 / all.max(1) as f64
    }
}

/// The entries of direction `d` (0 read — `mixed` with `unified_rw_reporting=mixed` —,
/// 1 write), sorted by ioprio; empty unless at least two values have requests (fio
/// prints nothing for one).
pub fn entries(j: &JobResult, d: usize) -> Vec<Prio<'_>> {
    let dir = if d == 0 { "read" } else { "write" };
    let mut v: Vec<Prio<'_>> = j
        .prios
        .iter()
        .filter(|e| e.dir == dir && e.lat.count > 0)
        .map(|e| Prio {
            ioprio: e.ioprio,
            lat: &e.lat,
        })
        .collect();
    v.sort_by_key(|e| e.ioprio);
    if v.len() < 2 {
        v.clear();
    }
    v
}

/// `lat` with `lat_percentiles`, else `clat`: the kind of latency the entries hold.
pub fn kind(j: &JobResult) -> &'static str {
    if j.job.lat_percentiles {
        "lat"
    } else {
        "clat"
    }
}

/// fio prints each priority's percentiles (and json+ bins) with `clat_percentiles` or
/// `lat_percentiles` on.
pub fn with_percentiles(j: &JobResult) -> bool {
    j.job.clat_percentiles || j.job.lat_percentiles
}
