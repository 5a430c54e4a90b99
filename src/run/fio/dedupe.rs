//! Dedupe-shaped write buffers (fio's `dedupe_percentage`, `dedupe_mode`,
//! `dedupe_working_set_percentage`, `dedupe_global`; fio io_u.c `get_buf_state`).
//!
//! Every write buffer is regenerated from a 64-bit seed (random bytes, with
//! `buffer_compress_percentage` zeros per 512-byte chunk as usual). With probability
//! `dedupe_percentage` % the seed is not a fresh one: in `repeat` mode it is the seed of
//! the last unique buffer, in `working_set` mode one of `W` fixed seeds picked uniformly,
//! `W` = `dedupe_working_set_percentage` % of the job's bytes / the smallest block size.
//! With `dedupe_global=1` the working-set seeds do not depend on the job, so every job
//! draws duplicates from the same pages.

use crate::job::fio::extra::DedupeMode;
use crate::job::fio::FioJob;
use crate::run::gen::Rng;
use crate::run::worker::fill_buf;

/// Seed of the shared working set (`dedupe_global=1`).
const GLOBAL_SEED: u64 = 0xdede_9e37_79b9;

/// Buffer generator of one thread.
#[derive(Clone, Debug)]
pub(crate) struct Dedupe {
    pct: u32,
    mode: DedupeMode,
    ws_pages: u64,
    ws_base: u64,
    prev: Option<u64>,
    pick: Rng,
    fresh: Rng,
    zero: bool,
    compress: (u32, u64),
}

impl Dedupe {
    /// Generator of a thread of `job` with `seed` over `bytes` of I/O region; `None`
    /// when `dedupe_percentage` is 0.
    pub fn new(job: &FioJob, seed: u64, bytes: u64) -> Option<Dedupe> {
        let x = &job.extra;
        if x.dedupe_percentage == 0 {
            return None;
        }
        let page = job.bs_write.min().max(1);
        let ws_pages = (bytes / 100 * u64::from(x.dedupe_working_set_percentage) / page).max(1);
        Some(Dedupe {
            pct: x.dedupe_percentage,
            mode: x.dedupe_mode,
            ws_pages,
            ws_base: if x.dedupe_global {
                GLOBAL_SEED
            } else {
                seed ^ 0x3d3d
            },
            prev: None,
            pick: Rng::new(seed ^ 0xd00d),
            fresh: Rng::new(seed ^ 0xf7e5),
            zero: job.more.zero_buffers,
            compress: (
                job.more.buffer_compress_percentage,
                job.tuning.buffer_compress_chunk,
            ),
        })
    }

    /// Fill `buf` for the next write; `true` when it duplicates an earlier buffer.
    pub fn fill(&mut self, buf: &mut [u8]) -> bool {
        let dup = self.pick.below(100) < u64::from(self.pct);
        let seed = match (dup, self.mode, self.prev) {
            (true, DedupeMode::Repeat, Some(p)) => Some(p),
            (true, DedupeMode::WorkingSet, _) => {
                let i = self.pick.below(self.ws_pages);
                Some(Rng::new(self.ws_base ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).next())
            }
            _ => None,
        };
        let (seed, is_dup) = match seed {
            Some(s) => (s, true),
            None => {
                let s = self.fresh.next();
                self.prev = Some(s);
                (s, false)
            }
        };
        fill_buf(buf, &mut Rng::new(seed), self.zero, self.compress, &[]);
        is_dup
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::fio::parse_args_with;
    use std::collections::HashSet;

    fn job(opts: &[&str]) -> FioJob {
        let mut a: Vec<String> = vec!["--name=j".into(), "--size=4m".into(), "--bs=4k".into()];
        a.extend(opts.iter().map(|s| s.to_string()));
        parse_args_with(&a, &|_| None).unwrap().jobs.remove(0)
    }

    fn distinct(d: &mut Dedupe, n: usize) -> usize {
        let mut seen = HashSet::new();
        let mut b = vec![0u8; 4096];
        for _ in 0..n {
            d.fill(&mut b);
            seen.insert(b.clone());
        }
        seen.len()
    }

    #[test]
    fn repeat_mode_duplicates_the_stated_share() {
        let j = job(&["--dedupe_percentage=30"]);
        let mut d = Dedupe::new(&j, 7, 4 << 20).unwrap();
        let n = 10_000;
        let u = distinct(&mut d, n) as f64 / n as f64;
        assert!((u - 0.70).abs() < 0.02, "unique share {u}");
    }

    /// working_set: the duplicates come from W pages, so the distinct count is
    /// (1-p)·N + W·(1 - e^(-p·N/W)); within 2 % of N.
    #[test]
    fn working_set_mode_draws_from_the_set() {
        let j = job(&[
            "--dedupe_percentage=50",
            "--dedupe_mode=working_set",
            "--dedupe_working_set_percentage=10",
        ]);
        let mut d = Dedupe::new(&j, 9, 40 << 20).unwrap();
        let n = 10_000usize;
        let w = 1024.0; // 10 % of 40 MiB in 4 KiB pages
        let p = 0.5;
        let want = (1.0 - p) * n as f64 + w * (1.0 - (-p * n as f64 / w).exp());
        let got = distinct(&mut d, n) as f64;
        assert!(
            (got - want).abs() < 0.02 * n as f64,
            "got {got}, want {want}"
        );
    }

    #[test]
    fn global_working_set_is_shared_between_jobs() {
        let opts = [
            "--dedupe_percentage=100",
            "--dedupe_mode=working_set",
            "--dedupe_working_set_percentage=1",
        ];
        let mut with_global: Vec<&str> = opts.to_vec();
        with_global.push("--dedupe_global=1");
        for (global, shared) in [(true, true), (false, false)] {
            let j = job(if global { &with_global } else { &opts });
            let mut a = Dedupe::new(&j, 1, 4 << 20).unwrap();
            let mut b = Dedupe::new(&j, 2, 4 << 20).unwrap();
            let mut set_a = HashSet::new();
            let mut buf = vec![0u8; 4096];
            for _ in 0..200 {
                a.fill(&mut buf);
                set_a.insert(buf.clone());
            }
            b.fill(&mut buf);
            assert_eq!(set_a.contains(&buf), shared, "global={global}");
        }
    }
}
