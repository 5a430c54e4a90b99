//! fio's `--bandwidth-log`: the run's aggregate bandwidth logs `agg-read_bw.log`,
//! `agg-write_bw.log` and `agg-trim_bw.log` in the current directory, as fio 3.33 writes
//! them (backend.c sets the three up, `setup_log(&agg_io_log[…], "agg-read_bw.log")`,
//! and flushes them after the report; eta.c `calc_thread_status` adds the samples,
//! `add_agg_sample`).
//!
//! A sample is taken where fio computes its status line: on each tick of the status
//! thread (src/cli/run_status.rs) while the line is shown (a terminal, `--eta=always`;
//! never with the JSON document alone on stdout), and once more when the JSON report is
//! made (fio's `show_thread_status_json` computes the line, forced) — each time only
//! once more than `bw_avg_time` (the least of the jobs' `bwavgtime`, 500 ms by default)
//! has passed since the last sample. A sample gives each direction the bytes moved
//! since the last one over that time, KiB/s, integer division as fio's `calc_rate`
//! (`((1000 * bytes) / ms) / 1024`); while no byte has been counted the time counts
//! from the run's start. Every sample has a line in each of the three files, fio's log
//! line `time, value, ddir, 0, 0` (ms since the start, ddir 0 read, 1 write, 2 trim).
//! With no sample (no status line, no JSON) the three files are empty, as fio's.
//!
//! The files are output files of [`crate::files::output`]: checked before the layout
//! (src/run/fio/mod.rs: a link refused, one of the other outputs or data files refused
//! by name) and replaced whole at the end.

use crate::files::output::{Output, OutputError};
use std::path::PathBuf;

/// The three files, in fio's direction order.
pub const FILES: [&str; 3] = ["agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"];

/// The files of `--bandwidth-log`, in the current directory.
pub fn paths() -> Vec<PathBuf> {
    FILES.iter().map(PathBuf::from).collect()
}

/// Check the files now (absent, or a regular file with one link): a planted link is
/// refused before any file is laid out.
pub fn check() -> Result<(), OutputError> {
    for p in paths() {
        Output::create(&p)?;
    }
    Ok(())
}

/// The samples of a run's aggregate bandwidth logs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AggBw {
    /// fio's `bw_avg_time`, ms: a sample needs more than this since the last one
    gap_ms: u64,
    /// the last sample's time, ms since the start
    prev_ms: u64,
    /// bytes per direction at the last sample
    prev_bytes: [u64; 3],
    /// (ms since the start, KiB/s per direction)
    samples: Vec<(u64, [u64; 3])>,
}

impl AggBw {
    /// No sample yet; `gap_ms` is fio's `bw_avg_time`.
    pub fn new(gap_ms: u64) -> AggBw {
        AggBw {
            gap_ms,
            ..AggBw::default()
        }
    }

    /// fio's `calc_thread_status` at `ms` since the start with `bytes` moved so far
    /// per direction: a sample when more than the gap has passed since the last one.
    pub fn sample(&mut self, ms: u64, bytes: [u64; 3]) {
        if self.prev_bytes.iter().all(|&b| b == 0) {
            // fio: `fill_start_time(&rate_prev_time)` while no byte was counted
            self.prev_ms = 0;
        }
        let span = ms.saturating_sub(self.prev_ms);
        if span <= self.gap_ms {
            return;
        }
        let kib = std::array::from_fn(|d| {
            let moved = bytes[d].saturating_sub(self.prev_bytes[d]);
            moved.saturating_mul(1000) / span / 1024
        });
        self.samples.push((ms, kib));
        (self.prev_ms, self.prev_bytes) = (ms, bytes);
    }

    /// The text of the log of direction `d` (0 read, 1 write, 2 trim).
    pub fn text(&self, d: usize) -> String {
        self.samples
            .iter()
            .map(|(t, v)| format!("{t}, {}, {d}, 0, 0\n", v[d]))
            .collect()
    }

    /// Write the three files (each replaced whole, every one tried); the first error.
    pub fn write(&self) -> Result<(), OutputError> {
        let put = |(d, p): (usize, &PathBuf)| {
            Output::create(p).and_then(|o| o.commit(self.text(d).as_bytes()))
        };
        let done: Vec<_> = paths().iter().enumerate().map(put).collect();
        done.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio 3.33's rule: a sample once more than `bw_avg_time` has passed, the bytes
    /// since the last sample over that time in KiB/s (integer division); the time
    /// counts from the start while nothing was moved.
    #[test]
    fn samples_follow_fios_calc_rate() {
        let mut a = AggBw::new(500);
        a.sample(250, [0; 3]);
        assert!(a.samples.is_empty(), "not yet 500 ms");
        a.sample(600, [0; 3]);
        // nothing moved: the next one counts from the start again
        a.sample(850, [1 << 20, 0, 0]);
        a.sample(1000, [2 << 20, 0, 0]);
        a.sample(1400, [3 << 20, 4096, 0]);
        assert_eq!(
            a.samples,
            [
                (600, [0, 0, 0]),
                (850, [1_048_576_000 / 850 / 1024, 0, 0]),
                (
                    1400,
                    [2_097_152_000 / 550 / 1024, 4_096_000 / 550 / 1024, 0]
                )
            ]
        );
        assert_eq!(
            a.text(1),
            "600, 0, 1, 0, 0\n850, 0, 1, 0, 0\n1400, 7, 1, 0, 0\n"
        );
        assert_eq!(a.text(2).lines().count(), 3);
        assert_eq!(AggBw::new(500).text(0), "");
    }
}
