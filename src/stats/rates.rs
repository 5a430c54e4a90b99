//! fio's per-interval bandwidth and IOPS samples (`bw_min/max/mean/dev/samples`,
//! `iops_min/max/mean/stddev/samples`, and the text lines `bw (  KiB/s): ...` /
//! `iops        : ...`), and fio's I/O depth distributions (`iodepth_level`,
//! `iodepth_submit`, `iodepth_complete`).
//!
//! Source of the formulas: fio 3.33 `stat.c` (`__add_samples`, `add_stat_sample`,
//! `calc_lat`, `sum_stat`, `io_u_mark_depth`, `__io_u_mark_map`, `stat_calc_dist`).
//! Cost on the I/O path: one compare of the loop's clock reading against the next
//! sample tick, and a few integer operations per submission and per reap.

use crate::stats::clock::Clock;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Running statistics of one series of samples (fio's `struct io_stat`): min, max,
/// Welford mean and sum of squared deviations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SampleStat {
    /// smallest sample (0 when there is none)
    pub min: u64,
    /// largest sample
    pub max: u64,
    /// number of samples
    pub samples: u64,
    /// mean of the samples
    pub mean: f64,
    /// sum of squared deviations from the mean (Welford's S)
    #[serde(rename = "sum_sq_dev")]
    pub s: f64,
}

impl SampleStat {
    /// Add one sample (fio `add_stat_sample`).
    pub fn add(&mut self, v: u64) {
        if self.samples == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.samples += 1;
        let delta = v as f64 - self.mean;
        self.mean += delta / self.samples as f64;
        self.s += delta * (v as f64 - self.mean);
    }

    /// Sample standard deviation, `sqrt(S / (n - 1))`; 0 with fewer than 2 samples
    /// (fio `calc_lat`).
    pub fn stddev(&self) -> f64 {
        if self.samples > 1 {
            (self.s / (self.samples - 1) as f64).sqrt()
        } else {
            0.0
        }
    }

    /// Merge the samples of another thread of the same job or reporting group the way
    /// fio does for bandwidth and IOPS (`sum_stat` with `pure_sum`): the means and S add
    /// up (the group's rate is the sum of its threads' rates), and so do min, max and the
    /// sample counts (fio 3.33 prints `iops : min=` of a 4-job group as the sum of the
    /// jobs' minima).
    pub fn merge_sum(&mut self, o: &SampleStat) {
        if o.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = *o;
            return;
        }
        self.min += o.min;
        self.max += o.max;
        self.samples += o.samples;
        self.mean += o.mean;
        self.s += o.s;
    }
}

/// Bandwidth (KiB/s) and IOPS samples per direction (index 0 read, 1 write, 2 trim).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RateSamples {
    /// bandwidth samples, KiB/s (integer, as fio: `delta_bytes * 1000 / ms / 1024`)
    pub bw: [SampleStat; 3],
    /// IOPS samples, I/Os per second (integer, `delta_ios * 1000 / ms`)
    pub iops: [SampleStat; 3],
}

impl RateSamples {
    /// Merge another thread's samples ([`SampleStat::merge_sum`]).
    pub fn merge(&mut self, o: &RateSamples) {
        for d in 0..3 {
            self.bw[d].merge_sum(&o.bw[d]);
            self.iops[d].merge_sum(&o.iops[d]);
        }
    }
}

/// One sample as [`RateSampler`] took it, kept for a log ([`RateSampler::keep`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Taken {
    /// an IOPS sample (else a bandwidth one, KiB/s)
    pub iops: bool,
    /// direction: 0 read, 1 write, 2 trim
    pub dir: usize,
    /// the sample
    pub value: u64,
    /// the clock tick at which it was taken
    pub at: u64,
}

/// One of the two sample series (bandwidth or IOPS) of a job thread.
#[derive(Clone, Debug)]
struct Series {
    avg_ms: u64,
    /// tick of the previous sample (or of the start): the current interval's start
    base: u64,
    /// tick at which the current interval is due (`base` + `avg_ms`)
    due: u64,
    last: [u64; 3],
}

impl Series {
    fn new(avg_ms: u64) -> Series {
        Series {
            avg_ms: avg_ms.max(1),
            base: 0,
            due: 0,
            last: [0; 3],
        }
    }

    /// Start an interval at `now` with the totals `cur`.
    fn start(&mut self, clock: &Clock, now: u64, cur: [u64; 3]) {
        self.base = now;
        self.last = cur;
        self.due = now + clock.ticks(Duration::from_millis(self.avg_ms));
    }

    /// fio 3.33 `__add_samples`: once a whole `avg_ms` has passed since the previous
    /// sample (whole ms, fio `mtime_since`; its `LOG_MSEC_SLACK` test lets nothing
    /// earlier through), one sample per direction that moved anything,
    /// `delta * 1000 / spent_ms` (÷ 1024 for KiB); directions with no I/O in the
    /// interval get no sample. The next interval starts at `now` (fio sets the sample
    /// time to the time of this sample, so a late sample delays the next one).
    fn take(
        &mut self,
        clock: &Clock,
        now: u64,
        cur: [u64; 3],
        out: &mut [SampleStat; 3],
        kib: bool,
        mut kept: Option<&mut Vec<Taken>>,
    ) {
        if now < self.due {
            return;
        }
        // whole ms, truncated as fio's; 1 µs of tolerance for the tick↔ns round trip,
        // so a reading at `due` counts as the full interval
        let spent_ms = ((clock.ns(self.base, now) + 1_000) / 1_000_000).max(self.avg_ms);
        for d in 0..3 {
            let delta = cur[d] - self.last[d];
            if delta == 0 {
                continue;
            }
            let rate = if kib {
                delta * 1000 / spent_ms / 1024
            } else {
                delta * 1000 / spent_ms
            };
            out[d].add(rate);
            if let Some(k) = kept.as_deref_mut() {
                k.push(Taken {
                    iops: !kib,
                    dir: d,
                    value: rate,
                    at: now,
                });
            }
            self.last[d] = cur[d];
        }
        self.start(clock, now, self.last);
    }
}

/// The sampler a job thread drives from its I/O loop: `bw_avg_time` / `iops_avg_time`
/// intervals (ms, fio default 500) from the start of the measured run.
#[derive(Clone, Debug)]
pub struct RateSampler {
    /// the next tick at which [`RateSampler::tick`] has work (`0` before the start)
    pub next: u64,
    started: bool,
    /// tick at which the job's time ends (`runtime`), if it has one
    end: Option<u64>,
    bw: Series,
    iops: Series,
    out: RateSamples,
    /// the samples taken since [`RateSampler::take_kept`] (only after [`RateSampler::keep`])
    kept: Option<Vec<Taken>>,
}

impl RateSampler {
    /// A sampler with intervals of `bw_ms` and `iops_ms` milliseconds (0 = fio's 500).
    pub fn new(bw_ms: u64, iops_ms: u64) -> RateSampler {
        let or500 = |v: u64| if v == 0 { 500 } else { v };
        RateSampler {
            next: 0,
            started: false,
            end: None,
            bw: Series::new(or500(bw_ms)),
            iops: Series::new(or500(iops_ms)),
            out: RateSamples::default(),
            kept: None,
        }
    }

    /// The tick at which the job's `runtime` ends (`None`: no time limit). fio 3.33
    /// samples from its helper thread only while the job is running, so an interval
    /// that ends when the job does gets no sample: a 2 s job at 500 ms has 3 samples,
    /// not 4, and a job that ends part way through an interval adds no partial one.
    pub fn set_end(&mut self, end: Option<u64>) {
        self.end = end;
    }

    /// Called when `now >= self.next`: the first call starts the intervals; later calls
    /// take the samples that are due, none at or after the end
    /// ([`RateSampler::set_end`]). `bytes` and `ios` are the thread's measured totals
    /// per direction (read, write, trim). Totals that went down (statistics reset, e.g.
    /// `latency_target`'s final run) restart the intervals.
    pub fn tick(&mut self, clock: &Clock, now: u64, bytes: [u64; 3], ios: [u64; 3]) {
        let reset = (0..3).any(|d| bytes[d] < self.bw.last[d] || ios[d] < self.iops.last[d]);
        if !self.started || reset {
            self.started = true;
            if reset {
                self.out = RateSamples::default();
            }
            self.bw.start(clock, now, bytes);
            self.iops.start(clock, now, ios);
        } else if self.end.is_some_and(|e| now >= e) {
            self.next = u64::MAX;
            return;
        } else {
            let mut kept = self.kept.as_mut();
            let (bw, iops) = (&mut self.out.bw, &mut self.out.iops);
            self.bw
                .take(clock, now, bytes, bw, true, kept.as_deref_mut());
            self.iops.take(clock, now, ios, iops, false, kept);
        }
        self.next = self.bw.due.min(self.iops.due);
    }

    /// Keep each sample taken from now on for [`RateSampler::take_kept`]: a windowed
    /// bandwidth or IOPS log writes its lines from the report's own samples.
    pub fn keep(&mut self) {
        self.kept.get_or_insert_with(Vec::new);
    }

    /// The samples taken since the last call, in the order taken (none without
    /// [`RateSampler::keep`]).
    pub fn take_kept(&mut self) -> Vec<Taken> {
        self.kept.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// The samples taken so far.
    pub fn finish(&self) -> RateSamples {
        self.out
    }
}

/// fio's depth distributions of one job (counts; report/fio/levels.rs turns them into
/// fio's percentages).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DepthStats {
    /// submissions by in-flight count at submit (this one included), buckets
    /// 1, 2–3, 4–7, 8–15, 16–31, 32–63, ≥64 (fio `io_u_map`, keys "1" … ">=64")
    pub level: [u64; 7],
    /// submit passes by the number of I/Os they submitted, buckets 0, 1–4, 5–8,
    /// 9–16, 17–32, 33–64, >64 (fio `io_u_submit`, keys "0","4",…,"64",">=64")
    pub submit: [u64; 7],
    /// reap calls by the number of completions they returned (same buckets,
    /// fio `io_u_complete`)
    pub complete: [u64; 7],
    #[serde(skip)]
    pending: u64,
}

/// fio `io_u_mark_depth` bucket of an in-flight count (1 → 0, 2–3 → 1, …, ≥64 → 6).
#[inline(always)]
pub fn level_idx(depth: usize) -> usize {
    ((usize::BITS - 1 - depth.max(1).leading_zeros()) as usize).min(6)
}

/// fio `__io_u_mark_map` bucket of an I/O count per call (0 → 0, 1–4 → 1, 5–8 → 2,
/// 9–16 → 3, 17–32 → 4, 33–64 → 5, more → 6).
#[inline(always)]
pub fn map_idx(n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    let ceil_log2 = (usize::BITS - (n - 1).leading_zeros()) as usize;
    ceil_log2.saturating_sub(1).clamp(1, 6)
}

impl DepthStats {
    /// The end of `ramp_time`: the distributions start over (fio's reset_io_stats
    /// zeroes `io_u_map`, `io_u_submit` and `io_u_complete`), so the queue's fill-up
    /// is not counted; a submit pass under way keeps its count.
    pub fn restart(&mut self) {
        (self.level, self.submit, self.complete) = ([0; 7], [0; 7], [0; 7]);
    }

    /// One request is being submitted with `in_flight` requests outstanding,
    /// itself included.
    #[inline(always)]
    pub fn mark_level(&mut self, in_flight: usize) {
        self.level[level_idx(in_flight)] += 1;
        self.pending += 1;
    }

    /// A batching engine handed `n` requests to the kernel at once with `in_flight`
    /// outstanding, the batch included: fio's commit marks each at that depth level
    /// and counts one submission of `n`.
    #[inline(always)]
    pub fn handed(&mut self, n: usize, in_flight: usize) {
        self.level[level_idx(in_flight)] += n as u64;
        self.submit[map_idx(n)] += 1;
    }

    /// The last `n` requests marked were refused by the engine as they were handed to
    /// the kernel (libaio's io_submit): fio 3.33 counts a submission only when its commit
    /// succeeds, so they leave the pass's count (their depth level stays, as fio marks
    /// it before the commit).
    #[cold]
    pub fn unsubmitted(&mut self, n: u64) {
        self.pending = self.pending.saturating_sub(n);
    }

    /// A submit pass ended: its request count goes to `submit`; with `inline` (the
    /// engine completed them in the call, a synchronous engine) also to `complete`,
    /// as fio marks 1 submit and 1 completion per I/O of a sync engine.
    #[inline(always)]
    pub fn end_submit(&mut self, inline: bool) {
        if self.pending > 0 {
            let i = map_idx(self.pending as usize);
            self.submit[i] += 1;
            if inline {
                self.complete[i] += 1;
            }
            self.pending = 0;
        }
    }

    /// A reap call returned `n` completions.
    #[inline(always)]
    pub fn mark_complete(&mut self, n: usize) {
        self.complete[map_idx(n)] += 1;
    }

    /// Add another thread's counts.
    pub fn merge(&mut self, o: &DepthStats) {
        for i in 0..7 {
            self.level[i] += o.level[i];
            self.submit[i] += o.submit[i];
            self.complete[i] += o.complete[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_fios() {
        let lv: Vec<usize> = [1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 1000]
            .iter()
            .map(|&d| level_idx(d))
            .collect();
        assert_eq!(lv, [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
        let mp: Vec<usize> = [0, 1, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65]
            .iter()
            .map(|&n| map_idx(n))
            .collect();
        assert_eq!(mp, [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6]);
    }

    #[test]
    fn sample_stat_mean_and_sample_stddev() {
        let mut s = SampleStat::default();
        for v in [2, 4, 4, 4, 5, 5, 7, 9] {
            s.add(v);
        }
        assert_eq!((s.min, s.max, s.samples), (2, 9, 8));
        assert!((s.mean - 5.0).abs() < 1e-12);
        // population variance 4, sample variance 32/7
        assert!((s.stddev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        let mut g = s;
        g.merge_sum(&s);
        // fio's pure sum: min and max add up like the means (a group's slowest sample
        // is taken as the sum of its threads' slowest)
        assert_eq!((g.min, g.max, g.samples), (4, 18, 16));
        assert!((g.mean - 10.0).abs() < 1e-12);
    }

    #[test]
    fn depth_submit_complete() {
        let mut d = DepthStats::default();
        for f in 1..=8 {
            d.mark_level(f);
        }
        d.end_submit(false);
        d.mark_complete(3);
        d.mark_level(1);
        d.end_submit(true);
        // depths 1..=8, then 1: buckets 1 | 2-3 | 4-7 | 8-15
        assert_eq!(d.level, [2, 2, 4, 1, 0, 0, 0]);
        assert_eq!(d.submit, [0, 1, 1, 0, 0, 0, 0]);
        assert_eq!(d.complete, [0, 2, 0, 0, 0, 0, 0]);
        // fio's commits of a depth-32 queue in batches of 8: the fill at 8, 16, 24, 32
        let mut b = DepthStats::default();
        for k in 1..=4 {
            b.handed(8, 8 * k);
        }
        assert_eq!(b.level, [0, 0, 0, 8, 16, 8, 0]);
        assert_eq!(b.submit, [0, 0, 4, 0, 0, 0, 0]);
    }

    #[test]
    fn sampler_rates_per_interval() {
        let clock = Clock::calibrated(false);
        let ms = |m: u64| clock.ticks(Duration::from_millis(m));
        let t0 = 1_000_000;
        let mut s = RateSampler::new(100, 50);
        s.tick(&clock, t0, [0; 3], [0; 3]);
        // 100 ms later: 1 MiB and 256 reads moved. The first IOPS interval (50 ms) is
        // late and spans 100 ms: 2560 IOPS; the second one saw no I/O: no sample.
        // Writes moved nothing: no sample.
        s.tick(&clock, t0 + ms(100), [1 << 20, 0, 0], [256, 0, 0]);
        s.tick(&clock, t0 + ms(100), [1 << 20, 0, 0], [256, 0, 0]);
        let r = s.finish();
        assert_eq!(r.bw[0].samples, 1);
        // 1 MiB over 100 ms = 10240 KiB/s (±1 for the tick conversion's rounding)
        assert_eq!((r.bw[0].min, r.bw[0].max), (10_240, 10_240));
        assert_eq!(r.bw[1].samples, 0);
        assert_eq!(r.iops[0].samples, 1);
        assert_eq!(r.iops[0].max, 2560);
    }

    /// Drive a sampler over a job of `run_ms` (ending at `run_ms` when `timed`) with
    /// a steady 1 MiB per ms of reads, the loop reading the clock every `step_ms`.
    fn steady(avg: u64, run_ms: u64, step_ms: u64, timed: bool) -> RateSamples {
        let clock = Clock::calibrated(false);
        let ms = |m: u64| clock.ticks(Duration::from_millis(m));
        let t0 = 5_000_000;
        let mut s = RateSampler::new(avg, avg);
        if timed {
            s.set_end(Some(t0 + ms(run_ms)));
        }
        let mut t = 0;
        while t <= run_ms {
            let now = t0 + ms(t);
            if now >= s.next {
                s.tick(&clock, now, [t << 20, 0, 0], [t * 256, 0, 0]);
            }
            t += step_ms;
        }
        s.finish()
    }

    #[test]
    fn sampler_counts_are_fios() {
        // fio 3.33, null engine, time_based, bw_avg_time=500: runtime=2 -> 3 samples,
        // 1100ms -> 2, 999ms -> 1, 1505ms -> 3 (the one at the end is never taken)
        for (run, want) in [(2000, 3), (1100, 2), (999, 1), (1505, 3), (1500, 2)] {
            let r = steady(500, run, 1, true);
            assert_eq!(r.bw[0].samples, want, "runtime {run} ms");
            assert_eq!(r.iops[0].samples, want, "runtime {run} ms");
        }
        // a size-bound job (no end tick) that stops at 1250 ms: 2 samples, no partial
        let r = steady(500, 1250, 1, false);
        assert_eq!(r.bw[0].samples, 2);
        // 1 MiB/ms = 1,024,000 KiB/s and 256,000 IOPS in every interval
        assert_eq!((r.bw[0].min, r.bw[0].max), (1_024_000, 1_024_000));
        assert_eq!((r.iops[0].min, r.iops[0].max), (256_000, 256_000));
    }

    #[test]
    fn late_sample_starts_the_next_interval() {
        // the loop sees the clock every 300 ms: samples at 600 (spent 600) and 1200
        // (spent 600, measured from the late sample), none at 900 (spent 300)
        let r = steady(500, 1300, 300, false);
        assert_eq!(r.bw[0].samples, 2);
        // 600 MiB over 600 ms
        assert_eq!(r.bw[0].max, 600 * 1024 * 1000 / 600);
    }

    /// A sampler that keeps its samples hands each one out once, with its series,
    /// direction, value and tick, as the report counts it; one that does not keeps none.
    #[test]
    fn kept_samples_are_the_reports() {
        let clock = Clock::calibrated(false);
        let ms = |m: u64| clock.ticks(Duration::from_millis(m));
        let t0 = 1_000_000;
        let mut s = RateSampler::new(100, 100);
        s.keep();
        s.tick(&clock, t0, [0; 3], [0; 3]);
        let t1 = t0 + ms(100);
        s.tick(&clock, t1, [1 << 20, 0, 4096], [256, 0, 1]);
        let k = s.take_kept();
        let want = [
            (false, 0, 10_240),
            (false, 2, 40),
            (true, 0, 2560),
            (true, 2, 10),
        ];
        let got: Vec<_> = k.iter().map(|t| (t.iops, t.dir, t.value)).collect();
        assert_eq!(got, want);
        assert!(k.iter().all(|t| t.at == t1));
        assert!(s.take_kept().is_empty(), "handed out once");
        let r = s.finish();
        assert_eq!(
            (r.bw[0].samples, r.bw[2].samples, r.iops[0].max),
            (1, 1, 2560)
        );
        let mut quiet = RateSampler::new(100, 100);
        quiet.tick(&clock, t0, [0; 3], [0; 3]);
        quiet.tick(&clock, t1, [1 << 20, 0, 0], [256, 0, 0]);
        assert!(quiet.take_kept().is_empty());
        assert_eq!(quiet.finish().bw[0].samples, 1);
    }

    #[test]
    fn nothing_is_sampled_before_a_whole_interval() {
        // 499 ms after the start is not due (fio: spent < avg_time in whole ms)
        let clock = Clock::calibrated(false);
        let ms = |m: u64| clock.ticks(Duration::from_millis(m));
        let mut s = RateSampler::new(500, 500);
        s.tick(&clock, 1000, [0; 3], [0; 3]);
        s.tick(&clock, 1000 + ms(499), [1 << 20, 0, 0], [1, 0, 0]);
        assert_eq!(s.finish().bw[0].samples, 0);
        assert!(s.next > 1000 + ms(499));
    }
}
