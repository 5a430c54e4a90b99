//! The top-level `read` and `write` figures of an `iomark tree` result (RunResult
//! schema: "reads" / "writes" of the run, [`OpStats`]). A tree run does its I/O in
//! phases, so these are the phases that move data in that direction:
//!
//! - `read` = the `read_all` phase: `ops` = files read, `bytes` = bytes read, latency
//!   per file (lstat + open + all reads + close);
//! - `write` = the `create_write` phase: `ops` = files created, `bytes` = bytes written,
//!   latency per file (open(O_CREAT|O_EXCL) + one write + close).
//!
//! Rates are over those phases' own wall time (`iops` = ops / s, `bw_bytes_per_s` =
//! bytes / s, MiB/s = 1 048 576 B, MB/s = 1 000 000 B), not over the whole run. The
//! other phases (mkdir, fsync, stat_all, rename, delete, rmdir) move no file data and
//! are only in `phases`. A run that stopped before a phase leaves its direction at 0.

use crate::result::{OpStats, Phase, TimeShare};

/// Name of the phase that reads file data.
pub const READ_PHASE: &str = "read_all";
/// Name of the phase that writes file data.
pub const WRITE_PHASE: &str = "create_write";

/// Totals of the phases named `name` in `phases`: ops and bytes summed, rates over the
/// summed seconds (0 when no time passed), the latency of the phase when exactly one
/// phase has that name (iomark tree runs each once), else the default (empty) latency.
pub fn dir_totals(phases: &[Phase], name: &str) -> OpStats {
    let mine: Vec<&Phase> = phases.iter().filter(|p| p.name == name).collect();
    let ops: u64 = mine.iter().map(|p| p.ops).sum();
    let bytes: u64 = mine.iter().map(|p| p.bytes).sum();
    let secs: f64 = mine.iter().map(|p| p.seconds).sum();
    let lat = match mine.as_slice() {
        [one] => one.lat.clone().unwrap_or_default(),
        _ => Default::default(),
    };
    OpStats::over(ops, bytes, secs, lat)
}

/// Where each phase's time went (the result's `time`): the read phase's per-file
/// operations (lstat, open, the reads, close) as reads, the write phase's (open, one
/// write, close) as writes, the `fsync` phase's syncfs as fsync; the other phases
/// move no file data and are their own rest (`other`). Each phase's summed per-file
/// latency within its wall time (one operation at a time).
pub fn time_shares(phases: &[Phase]) -> Vec<TimeShare> {
    phases
        .iter()
        .filter(|p| p.seconds > 0.0)
        .map(|p| {
            let wall = (p.seconds * 1e9) as u64;
            let inside = p.lat.as_ref().map_or(0, |l| l.sum_ns.min(wall));
            let part = |name: &str| if p.name == name { inside } else { 0 };
            TimeShare::new(
                &p.name,
                wall,
                part(READ_PHASE),
                part(WRITE_PHASE),
                part("fsync"),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::Latency;

    fn phase(name: &str, ops: u64, bytes: u64, seconds: f64) -> Phase {
        let mut p = Phase::new(name, ops, bytes, seconds);
        p.lat = Some(Latency {
            count: ops,
            mean_ns: 1000 + ops,
            ..Default::default()
        });
        p
    }

    #[test]
    fn read_and_write_come_from_their_phases() {
        let phases = vec![
            phase("mkdir", 10, 0, 0.5),
            phase(WRITE_PHASE, 100, 4 << 20, 2.0),
            phase("fsync", 1, 0, 1.0),
            phase("stat_all", 100, 0, 0.1),
            phase(READ_PHASE, 100, 4 << 20, 0.5),
            phase("delete", 100, 0, 0.2),
        ];
        let w = dir_totals(&phases, WRITE_PHASE);
        assert_eq!((w.ops, w.bytes), (100, 4 << 20));
        assert_eq!(w.iops, 50.0);
        assert_eq!(w.bw_bytes_per_s, 2.0 * 1_048_576.0);
        assert_eq!(w.bw_mib_per_s, 2.0);
        assert_eq!(w.bw_mb_per_s, 2.097152);
        assert_eq!(w.lat.count, 100);
        let r = dir_totals(&phases, READ_PHASE);
        assert_eq!((r.ops, r.bytes), (100, 4 << 20));
        assert_eq!(r.iops, 200.0);
        assert_eq!(r.bw_mib_per_s, 8.0);
        assert_eq!(r.lat.mean_ns, 1100);
    }

    #[test]
    fn a_missing_or_timeless_phase_gives_zeros() {
        let phases = vec![phase(WRITE_PHASE, 3, 300, 0.0)];
        let r = dir_totals(&phases, READ_PHASE);
        assert_eq!((r.ops, r.bytes, r.iops), (0, 0, 0.0));
        assert_eq!(r.lat, Latency::default());
        let w = dir_totals(&phases, WRITE_PHASE);
        assert_eq!(
            (w.ops, w.bytes, w.iops, w.bw_bytes_per_s),
            (3, 300, 0.0, 0.0)
        );
    }

    #[test]
    fn repeated_phases_sum_without_a_merged_latency() {
        let phases = vec![
            phase(READ_PHASE, 10, 1000, 1.0),
            phase(READ_PHASE, 30, 3000, 1.0),
        ];
        let r = dir_totals(&phases, READ_PHASE);
        assert_eq!(
            (r.ops, r.bytes, r.iops, r.bw_bytes_per_s),
            (40, 4000, 20.0, 2000.0)
        );
        assert_eq!(r.lat, Latency::default());
    }
}
