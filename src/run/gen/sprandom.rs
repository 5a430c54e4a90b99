//! SanDisk SPRandom preconditioning of `iomark run` (`sprandom=1`, `spr_op`,
//! `spr_num_regions`; fio 3.40+, its `sprandom.c`): a random write pass that leaves an
//! SSD's flash in the steady-state mix of valid and invalid data a long random-write
//! run would, in about one drive write.
//!
//! The model (Desnoyers 2012, as fio states it): write amplification
//! `WA = 0.5 / op + 0.7`, the block garbage collection picks holds `v_gc = 1 - 1/WA`
//! valid data, and in steady state `validity × share of the drive` is constant. So
//! `R` validities `linspace(1, v_gc, R)` occupy relative sizes `1 / v`; the curve
//! (cumulative size, validity) is resampled at `R` equal sizes and reversed: region
//! `r` of the write stream should end `1 - validity[r]` invalid.
//!
//! The stream: `P = L + ⌈L·op⌉` bytes (rounded up to `bs`) are written for a
//! logical region of `L` bytes, in `R` regions of `P / R / bs` writes. Fresh
//! offsets are every block of the region once, in random order (fio uses its LFSR;
//! iomark its random map, which has the same every-block-once property). Each write
//! of region `r` is kept, with probability `invalid[r]`, to be written again at the
//! start of region `r + 1` — which invalidates it in region `r`. The stream ends when
//! every block was written once, after region `R` (fio runs one more, fully valid,
//! region after the model's `R`), or at `P` bytes (fio sets `io_size` to `P`).

use crate::run::gen::{RandomMap, Rng};

/// Scale of the invalid-share table (fio's `PCT_PRECISION`).
const PCT: u64 = 10_000;

/// Invalid share of each region, in 1/10000 (fio `compute_validity_dist`).
pub fn invalid_shares(regions: u32, op: f64) -> Vec<u64> {
    let n = regions.max(1) as usize;
    let waf = 0.5 / op + 0.7;
    let v_gc = 1.0 - 1.0 / waf;
    let lin = |a: f64, b: f64, i: usize| {
        if n == 1 {
            a
        } else {
            a + (b - a) * i as f64 / (n - 1) as f64
        }
    };
    let valid: Vec<f64> = (0..n).map(|i| lin(1.0, v_gc, i)).collect();
    let mut acc = 0.0;
    let xs: Vec<f64> = valid
        .iter()
        .map(|v| {
            acc += 1.0 / v;
            acc
        })
        .collect();
    let interp = |x: f64| -> f64 {
        if x <= xs[0] {
            return valid[0];
        }
        if x >= xs[n - 1] {
            return valid[n - 1];
        }
        let i = xs.partition_point(|&p| p < x).max(1);
        let (x1, x2, y1, y2) = (xs[i - 1], xs[i], valid[i - 1], valid[i]);
        if (x2 - x1).abs() < 1e-9 {
            y1
        } else {
            y1 + (y2 - y1) * (x - x1) / (x2 - x1)
        }
    };
    let mut res: Vec<f64> = (0..n).map(|i| interp(lin(xs[0], xs[n - 1], i))).collect();
    res.reverse();
    res.iter()
        .map(|v| ((1.0 - v) * PCT as f64).round().max(0.0) as u64)
        .collect()
}

/// Bytes SPRandom writes for a logical region of `logical` bytes: `L + ⌈L·op⌉`,
/// rounded up to `bs` (fio `sprandom_physical_size`).
pub fn physical_size(logical: u64, op: f64, bs: u64) -> u64 {
    let p = logical + (logical as f64 * op).ceil() as u64;
    p.div_ceil(bs.max(1)) * bs.max(1)
}

/// The write stream of one file region (blocks of `bs`, from its start).
#[derive(Debug)]
pub(crate) struct SpRandom {
    fresh: RandomMap,
    invalid: Vec<u64>,
    /// offsets to write again at the start of the next region
    staged: Vec<u64>,
    /// offsets being written again now
    replay: Vec<u64>,
    region: usize,
    region_writes: u64,
    left: u64,
}

impl SpRandom {
    /// Stream over `blocks` blocks, `regions` regions, over-provisioning `op`.
    pub fn new(blocks: u64, bs: u64, regions: u32, op: f64) -> SpRandom {
        let phys = physical_size(blocks * bs, op, bs);
        let region_writes = phys / u64::from(regions.max(1)) / bs.max(1);
        SpRandom {
            fresh: RandomMap::new(blocks.max(1)),
            invalid: invalid_shares(regions, op),
            staged: Vec::new(),
            replay: Vec::new(),
            region: 0,
            region_writes,
            left: region_writes,
        }
    }

    fn maybe_stage(&mut self, block: u64, rng: &mut Rng) {
        let r = self.region.min(self.invalid.len() - 1);
        if rng.below(PCT + 1) <= self.invalid[r] {
            self.staged.push(block);
        }
    }

    /// Next block to write, `None` at the end of the stream.
    pub fn next(&mut self, rng: &mut Rng) -> Option<u64> {
        if let Some(b) = self.replay.pop() {
            self.maybe_stage(b, rng);
            return Some(b);
        }
        if self.left == 0 {
            // fio checks `current_region >= num_regions` before moving on, so the
            // stream has one more region (fully valid) after the R of the model
            if self.region >= self.invalid.len() {
                return None;
            }
            self.region += 1;
            // the staged writes of the last region come first, and count in this one
            self.replay = std::mem::take(&mut self.staged);
            self.replay.reverse();
            self.left = self.region_writes.saturating_sub(self.replay.len() as u64);
            if let Some(b) = self.replay.pop() {
                self.maybe_stage(b, rng);
                return Some(b);
            }
        }
        if self.fresh.used() >= self.fresh.len() {
            return None;
        }
        let b = self.fresh.take(rng.below(self.fresh.len()));
        self.left = self.left.saturating_sub(1);
        self.maybe_stage(b, rng);
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validity_curve_follows_the_model() {
        // op 0.15: WA = 0.5/0.15 + 0.7 = 4.033, v_gc = 0.752; region 0 is the least
        // valid (the GC block's validity), the last one fully valid
        let inv = invalid_shares(100, 0.15);
        assert_eq!(inv.len(), 100);
        let v_gc: f64 = 1.0 - 1.0 / (0.5 / 0.15 + 0.7);
        assert_eq!(inv[0], ((1.0 - v_gc) * 1e4).round() as u64);
        assert_eq!(inv[99], 0);
        assert!(inv.windows(2).all(|w| w[0] >= w[1]));
        // 100 MiB + 15 MiB, already a multiple of 4096; 1000 bytes + 150 → 2 blocks of 1k
        assert_eq!(physical_size(100 << 20, 0.15, 4096), 120_586_240);
        assert_eq!(physical_size(1000, 0.15, 1024), 2048);
    }

    #[test]
    fn stream_writes_every_block_and_invalidates_by_region() {
        let (blocks, regions) = (10_000u64, 10u32);
        let mut s = SpRandom::new(blocks, 4096, regions, 0.15);
        let mut r = Rng::new(5);
        let mut seen = vec![0u32; blocks as usize];
        let mut n = 0u64;
        while let Some(b) = s.next(&mut r) {
            seen[b as usize] += 1;
            n += 1;
        }
        assert!(seen.iter().all(|&c| c >= 1), "a block was never written");
        // about P/bs writes in all: 11500 (the overwrites are the over-provisioning)
        let phys = physical_size(blocks * 4096, 0.15, 4096) / 4096;
        let over: u64 = seen.iter().map(|&c| u64::from(c) - 1).sum();
        assert_eq!(n, blocks + over);
        assert!(
            (n as i64 - phys as i64).abs() < (phys / 20) as i64,
            "{n} vs {phys}"
        );
        assert!(over > 500, "{over} overwrites");
    }
}
