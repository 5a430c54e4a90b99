//! Coverage of random jobs (public case C13): which blocks of the I/O region the
//! issued requests touched (one bit per block of the job's offset alignment, a few
//! instructions per request), and a histogram of the issued block sizes. Makes the
//! effect of `norandommap` visible (256 random 4 KiB reads of 1 MiB touch ≈ 63 % of it).
//!
//! When a random-map request meets used blocks, iomark shrinks it to the largest size
//! of its bssplit (or the free room, a multiple of the smallest size, for bsrange) that
//! fits, so a pass moves exactly `size` bytes; `shrunk` counts those requests and the
//! report says so (C13: "if the tool shrinks blocks … it must say so").

use serde::{Deserialize, Serialize};

/// Most blocks tracked per thread (2^25 bits = 4 MiB of bitmap: 128 GiB in 4 KiB
/// blocks); larger regions get no coverage line. Cost measured on the null engine
/// (load ≈ 5 on 2 CPUs): 1 GiB region, no difference beyond noise; 16 GiB (512 KiB
/// bitmap, cache misses) about 15 ns per request, −15–20 % of the null engine's ~8 M
/// IOPS and under 2 % of any real request.
pub const MAX_BLOCKS: u64 = 1 << 25;

/// Coverage result of a job (summed over merged threads).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CoverageStats {
    /// block unit, bytes (the job's offset alignment: smallest bs or blockalign)
    pub block_bytes: u64,
    /// distinct blocks touched by issued requests (ramp included)
    pub blocks_touched: u64,
    /// blocks in the I/O regions
    pub blocks_total: u64,
    /// issued requests per block size, bytes → count, ascending
    pub bs_hist: Vec<(u64, u64)>,
    /// requests shrunk to fill random-map gaps (see the module header)
    pub shrunk: u64,
}

impl CoverageStats {
    /// Touched share of the region, percent.
    pub fn percent(&self) -> f64 {
        if self.blocks_total == 0 {
            0.0
        } else {
            self.blocks_touched as f64 * 100.0 / self.blocks_total as f64
        }
    }

    /// Add another thread's coverage (its own files, or the same ones: an upper bound).
    pub fn merge(&mut self, o: &CoverageStats) {
        self.blocks_touched += o.blocks_touched;
        self.blocks_total += o.blocks_total;
        self.shrunk += o.shrunk;
        for &(b, n) in &o.bs_hist {
            match self.bs_hist.iter_mut().find(|e| e.0 == b) {
                Some(e) => e.1 += n,
                None => self.bs_hist.push((b, n)),
            }
        }
        self.bs_hist.sort_unstable();
    }

    /// One human line: `coverage: 157/256 blocks of 4096 B (61.3 %); issued sizes:
    /// 4096 B x 256; no block shrunk to fill random-map gaps`.
    pub fn line(&self) -> String {
        let sizes: Vec<String> = self
            .bs_hist
            .iter()
            .map(|(b, n)| format!("{} x {n}", human_bs(*b)))
            .collect();
        format!(
            "coverage: {}/{} blocks of {} ({:.1}%); issued sizes: {}; {}",
            self.blocks_touched,
            self.blocks_total,
            human_bs(self.block_bytes),
            self.percent(),
            sizes.join(", "),
            if self.shrunk == 0 {
                "no block shrunk to fill random-map gaps".to_string()
            } else {
                format!("{} requests shrunk to fill random-map gaps", self.shrunk)
            }
        )
    }
}

/// `4KiB`, `64KiB`, `1MiB` or bytes (`512B`).
fn human_bs(b: u64) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{}MiB", b >> 20)
    } else if b >= 1024 && b.is_multiple_of(1024) {
        format!("{}KiB", b >> 10)
    } else {
        format!("{b}B")
    }
}

/// Tracker of one thread.
#[derive(Clone, Debug)]
pub(crate) struct Coverage {
    block: u64,
    /// log2 of `block` when it is a power of two (shifts instead of divisions)
    shift: Option<u32>,
    /// the one block size of the job, if it has one: counted in `n`, no histogram search
    fixed: Option<u64>,
    n: u64,
    bits: Vec<Vec<u64>>,
    touched: u64,
    total: u64,
    hist: Vec<(u64, u64)>,
    /// requests the random map shrank to fit a gap (set by the worker)
    pub shrunk: u64,
}

impl Coverage {
    /// Tracker over region lengths `lens` (bytes) in units of `block` bytes, for a job
    /// whose requests are all `fixed` bytes if given; `None` when the regions have more
    /// than [`MAX_BLOCKS`] blocks.
    pub fn new(lens: &[u64], block: u64, fixed: Option<u64>) -> Option<Coverage> {
        let block = block.max(1);
        let blocks: Vec<u64> = lens.iter().map(|l| l.div_ceil(block)).collect();
        let total: u64 = blocks.iter().sum();
        if total > MAX_BLOCKS {
            return None;
        }
        Some(Coverage {
            block,
            shift: block.is_power_of_two().then(|| block.trailing_zeros()),
            fixed,
            n: 0,
            bits: blocks
                .iter()
                .map(|&b| vec![0u64; b.div_ceil(64) as usize])
                .collect(),
            touched: 0,
            total,
            hist: Vec::new(),
            shrunk: 0,
        })
    }

    /// Tracker of a thread of a random job (`None` for sequential jobs): blocks of the
    /// plan's offset alignment over its regions, counting a job of one block size.
    pub fn for_plan(plan: &crate::run::fio::Plan) -> Option<Coverage> {
        use crate::job::fio::BlockSizes;
        let job = &plan.job;
        if !job.rw.random() {
            return None;
        }
        let lens: Vec<u64> = plan.regions.iter().map(|r| r.1).collect();
        let bs = if job.rw.writes() {
            &job.bs_write
        } else {
            &job.bs_read
        };
        let one = match bs {
            BlockSizes::Fixed(b)
                if job.bs_read == job.bs_write || !job.rw.reads() || !job.rw.writes() =>
            {
                Some(*b)
            }
            _ => None,
        };
        Coverage::new(&lens, plan.align, one)
    }

    /// Record a request of `len` bytes at `rel` bytes into region `file`.
    #[inline(always)]
    pub fn touch(&mut self, file: usize, rel: u64, len: u64) {
        if self.fixed == Some(len) {
            self.n += 1;
        } else {
            match self.hist.iter_mut().find(|e| e.0 == len) {
                Some(e) => e.1 += 1,
                None => self.hist.push((len, 1)),
            }
        }
        let Some(bits) = self.bits.get_mut(file) else {
            return;
        };
        let last = rel + len.max(1) - 1;
        let (first, end) = match self.shift {
            Some(sh) => (rel >> sh, (last >> sh) + 1),
            None => (rel / self.block, last / self.block + 1),
        };
        for b in first..end {
            let (w, m) = ((b / 64) as usize, 1u64 << (b % 64));
            if let Some(word) = bits.get_mut(w) {
                if *word & m == 0 {
                    *word |= m;
                    self.touched += 1;
                }
            }
        }
    }

    /// Stop tracking blocks (the caller derives `blocks_touched` from its random map,
    /// which already knows the distinct slots taken); sizes are still counted.
    pub fn drop_bits(&mut self) {
        self.bits.clear();
    }

    /// Whether blocks are tracked here (false after [`Coverage::drop_bits`]).
    pub fn has_bits(&self) -> bool {
        !self.bits.is_empty()
    }

    /// The result.
    pub fn stats(&self) -> CoverageStats {
        let mut h = self.hist.clone();
        if let (Some(b), true) = (self.fixed, self.n > 0) {
            h.push((b, self.n));
        }
        h.sort_unstable();
        CoverageStats {
            block_bytes: self.block,
            blocks_touched: self.touched,
            blocks_total: self.total,
            bs_hist: h,
            shrunk: self.shrunk,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touches_count_distinct_blocks_and_sizes() {
        let mut c = Coverage::new(&[1 << 20, 64 << 10], 4096, None).unwrap();
        c.touch(0, 0, 4096);
        c.touch(0, 0, 4096);
        c.touch(0, 8192, 16384); // blocks 2..6
        c.touch(1, 60 << 10, 4096); // last block of file 1
        let s = c.stats();
        assert_eq!(s.blocks_total, 256 + 16);
        assert_eq!(s.blocks_touched, 1 + 4 + 1);
        assert_eq!(s.bs_hist, vec![(4096, 3), (16384, 1)]);
        assert!(s.line().starts_with("coverage: 6/272 blocks of 4KiB (2.2%); issued sizes: 4KiB x 3, 16KiB x 1; no block shrunk"), "{}", s.line());
        assert!(Coverage::new(&[u64::MAX / 2], 512, None).is_none());
        // fixed size (counted, not searched) and a block that is not a power of two
        let mut c = Coverage::new(&[3000 * 10], 3000, Some(3000)).unwrap();
        c.touch(0, 3000, 3000);
        c.touch(0, 3000, 3000);
        c.touch(0, 27000, 3000);
        let s = c.stats();
        assert_eq!((s.blocks_touched, s.blocks_total), (2, 10));
        assert_eq!(s.bs_hist, vec![(3000, 3)]);
    }
}
