//! Coverage of random jobs (public case C13): which blocks of the I/O region the
//! issued requests touched (one bit per block of the job's offset alignment, a few
//! instructions per request), and a histogram of the issued block sizes. Makes the
//! effect of `norandommap` visible (256 random 4 KiB reads of 1 MiB touch ≈ 63 % of it).
//!
//! When a random-map request meets used blocks, iomark shrinks it to the free blocks
//! from its offset, as fio does, so a pass moves exactly `size` bytes; `shrunk` counts
//! those requests and the report says so (C13: "if the tool shrinks blocks … it must say
//! so").

/// Most blocks tracked per thread (2^25 bits = 4 MiB of bitmap: 128 GiB in 4 KiB
/// blocks); larger regions get no coverage line. Cost measured on the null engine
/// (load ≈ 5 on 2 CPUs): 1 GiB region, no difference beyond noise; 16 GiB (512 KiB
/// bitmap, cache misses) about 15 ns per request, −15–20 % of the null engine's ~8 M
/// IOPS and under 2 % of any real request.
pub const MAX_BLOCKS: u64 = 1 << 25;

use crate::result::job::CoverageStats;

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
        use crate::job::model::BlockSizes;
        let job = &plan.job;
        if !job.rw.random() {
            return None;
        }
        let lens: Vec<u64> = plan.regions.iter().map(|r| r.1).collect();
        // one block size when every direction the job issues has the same fixed one
        let does = [job.rw.reads(), job.rw.writes(), job.rw.trims()];
        let mut issued = job.bs_dirs().into_iter().zip(does).filter(|d| d.1);
        let one = match issued.next().map(|d| d.0) {
            Some(f @ BlockSizes::Fixed(b)) if issued.all(|d| d.0 == f) => Some(*b),
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
        // the report's line of these figures is pinned in report/fio/levels.rs
        assert_eq!((s.shrunk, s.block_bytes), (0, 4096));
        assert!((s.percent() - 6.0 * 100.0 / 272.0).abs() < 1e-12);
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
