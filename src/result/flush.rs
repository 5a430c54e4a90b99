//! Flush cost, explained: when a run spent a large share of its time in
//! fsync on a disk with a volatile write cache (`write back`), the number measures how
//! fast that cache is written out on every flush more than how fast the disk writes —
//! drives with power-loss protection (and Optane) acknowledge a flush at once. This
//! finding ([`FLUSH_BOUND`]) says so in one sentence, with the fsync share, the disk's
//! own flush service time from the device view, and what to run to see the other side.
//! Absent for a write-through disk (the block layer drops flushes there), a run that
//! never syncs, or a sync share below [`FLUSH_BOUND_PCT`].

use super::{RunResult, Warning};

/// The stable id of the finding.
pub const FLUSH_BOUND: &str = "fsync.flush_bound";

/// Sync share of the wall time (%) from which the finding is given.
pub const FLUSH_BOUND_PCT: f64 = 20.0;

/// A duration in ns as text with its unit (`850 ns`, `386.2 µs`, `4.10 ms`, `2.50 s`).
pub fn dur(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// What to run to see the other side, in the command's dialect: without fsync, with
/// fdatasync, with O_DIRECT.
fn other_side(command: &str) -> &'static str {
    match command {
        "fileio" => "--file-fsync-freq=0 (no fsync), --file-fsync-mode=fdatasync, or --file-extra-flags=direct (O_DIRECT)",
        "run" => "fsync=0 (no fsync), fdatasync=N instead of fsync=N, or direct=1 (O_DIRECT)",
        _ => "the same test without fsync, with fdatasync, or with O_DIRECT",
    }
}

/// The finding for `r`, when its facts call for it (see the module header).
pub fn flush_bound(r: &RunResult) -> Option<Warning> {
    let facts = Facts {
        command: &r.command,
        all: r.time.first()?,
        fsync: &r.fsync,
        view: r.device_view.as_ref()?,
    };
    facts.finding()
}

/// What the finding is decided from: the command (for its dialect), the run's time
/// shares, its fsync counters and the device view.
struct Facts<'a> {
    command: &'a str,
    all: &'a super::TimeShare,
    fsync: &'a super::FsyncStats,
    view: &'a super::DeviceView,
}

impl Facts<'_> {
    fn finding(&self) -> Option<Warning> {
        let (all, view) = (self.all, self.view);
        let syncs = self.fsync.ops.max(self.fsync.lat.count);
        if syncs == 0 || all.sync_pct < FLUSH_BOUND_PCT {
            return None;
        }
        self.sentence(all, view)
    }

    fn sentence(&self, all: &super::TimeShare, view: &super::DeviceView) -> Option<Warning> {
        let top = view.devices.iter().find(|d| d.member_of.is_none())?;
        let mode = top.write_cache.as_deref()?;
        if !crate::probe::devstat::is_write_back(mode) {
            return None;
        }
        let l = &self.fsync.lat;
        let mut lat = vec![];
        if l.count > 0 {
            lat.push(format!("mean {}", dur(l.mean())));
            if let Some(p) = l.percentiles_ns.get("99") {
                lat.push(format!("p99 {}", dur(*p as f64)));
            }
        }
        let lat = if lat.is_empty() {
            String::new()
        } else {
            format!(" ({})", lat.join(", "))
        };
        let members: Vec<&str> = view
            .devices
            .iter()
            .filter(|d| d.member_of.is_some())
            .map(|d| d.name.as_str())
            .collect();
        let dev = if members.is_empty() {
            top.name.clone()
        } else {
            format!("{} (over {})", top.name, members.join(", "))
        };
        let flush = match (top.flushes, top.flush_ms_per_io) {
            (Some(n), Some(ms)) if n > 0 => format!(
                "each of its {n} flushes waited {} for the volatile write cache to be written out",
                dur(ms * 1e6)
            ),
            _ => "each flush waits for its volatile write cache to be written out".into(),
        };
        Some(Warning {
        id: FLUSH_BOUND.into(),
        message: format!(
            "{:.0} % of the run was fsync{lat}; {dev} caches writes ({mode}): {flush}; drives with power-loss protection finish a flush in microseconds, so this test measures flush latency more than write speed; to see the other side run it with {}",
            all.sync_pct,
            other_side(self.command)
        ),
    })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::devstat::{DeviceActivity, DeviceView};
    use crate::result::TimeShare;

    fn check(sync_pct_of_100: u64, mode: &str, fsyncs: u64) -> Option<Warning> {
        let view = DeviceView {
            devices: vec![DeviceActivity {
                name: "loop0".into(),
                write_cache: Some(mode.into()),
                flushes: Some(100),
                flush_ms_per_io: Some(0.4),
                ..Default::default()
            }],
            process: None,
        };
        let all = TimeShare::new("all", 100, 1, 1, sync_pct_of_100);
        let fsync = crate::result::FsyncStats {
            ops: fsyncs,
            ..Default::default()
        };
        Facts {
            command: "fileio",
            all: &all,
            fsync: &fsync,
            view: &view,
        }
        .finding()
    }

    #[test]
    fn present_for_write_back_and_a_large_share_only() {
        let w = check(87, "write back", 10).unwrap();
        assert_eq!(w.id, FLUSH_BOUND);
        assert!(
            w.message.starts_with("87 % of the run was fsync; loop0 caches writes (write back): each of its 100 flushes waited 400.0 µs"),
            "{}",
            w.message
        );
        assert!(w.message.contains("--file-fsync-freq=0"), "{}", w.message);
        assert!(check(87, "write through", 10).is_none());
        assert!(check(10, "write back", 10).is_none());
        assert!(check(87, "write back", 0).is_none());
    }

    #[test]
    fn durations_carry_their_unit() {
        assert_eq!(dur(850.0), "850 ns");
        assert_eq!(dur(386_200.0), "386.2 µs");
        assert_eq!(dur(4_100_000.0), "4.10 ms");
        assert_eq!(dur(2.5e9), "2.50 s");
    }
}
