//! The direction of each request of a mixed read/write job (`rw=rw`, `readwrite`,
//! `randrw`, with `rwmixread`/`rwmixwrite`), chosen by fio 3.33's rule so that a job
//! seeded as fio seeds it issues the same directions in the same order:
//!
//! - the mix has its own generator, fio's 32-bit Tausworthe of the thread's mix seed
//!   slot ([`MIX_SLOT`], [`super::frand`]), whatever `random_generator` says;
//! - a request draws `v` in 1..=100 and goes to reads when `v` ≤ `rwmixread`, else to
//!   writes — but only once the current direction has issued its run: when a draw
//!   switches direction, the new direction runs until its own issued count reaches the
//!   old direction's issued count × the new direction's share / 100 (both counts from
//!   the job's start); a draw that keeps the direction sets no run, so the next
//!   request draws again;
//! - every attempt at a request draws, also one that finds its file done (fio draws
//!   the direction before the offset);
//! - a new loop (`loops`, `io_size`) ends the current run, and with `randrepeat`
//!   (fio's default) starts the mix generator over from its seed; the issued counts
//!   go on, and are zeroed only where fio zeroes its statistics (the end of
//!   `ramp_time`).

use super::frand::Frand;

/// The seed slot of the read/write mix (fio's `FIO_RAND_MIX_OFF`).
pub(crate) const MIX_SLOT: u64 = 4;

/// Reads are direction 0, writes 1.
const READ: usize = 0;

/// One thread's mix state.
#[derive(Clone, Debug)]
pub(crate) struct RwMix {
    seed: u64,
    /// a new loop starts the generator over (`randrepeat`)
    reseed: bool,
    gen: Frand,
    /// percent of reads, percent of writes
    share: [u64; 2],
    /// the direction of the current run
    cur: usize,
    /// the current direction's issued count at which its run ends (fio's `rwmix_issues`)
    run_end: u64,
    /// requests issued per direction (fio's `io_issues`)
    issued: [u64; 2],
}

impl RwMix {
    /// The mix of a job with `rwmixread` percent of reads, seeded with `seed` (the
    /// thread's mix slot); `reseed`: each new loop draws the same directions again.
    pub(crate) fn new(rwmixread: u32, seed: u64, reseed: bool) -> Self {
        let read = u64::from(rwmixread.min(100));
        RwMix {
            seed,
            reseed,
            gen: Frand::new(seed, false),
            share: [read, 100 - read],
            cur: READ,
            run_end: 0,
            issued: [0; 2],
        }
    }

    /// The direction of the next request (0 read, 1 write).
    #[inline]
    pub(crate) fn pick(&mut self) -> usize {
        if self.issued[self.cur] >= self.run_end {
            let v = self.gen.between(1, 100);
            let d = usize::from(v > self.share[READ]);
            if d != self.cur {
                self.run_end = self.issued[self.cur] * self.share[d] / 100;
            }
            self.cur = d;
        }
        self.cur
    }

    /// The direction a rate limit chose instead of the mix's pick: it becomes the
    /// current one, its run unchanged (fio's `rate_ddir`).
    #[inline]
    pub(crate) fn steer(&mut self, d: usize) {
        self.cur = d;
    }

    /// A request of direction `d` was issued.
    #[inline]
    pub(crate) fn issued(&mut self, d: usize) {
        self.issued[d] += 1;
    }

    /// A new loop: the run ends; with `randrepeat` the draws start over.
    pub(crate) fn new_loop(&mut self) {
        self.run_end = 0;
        if self.reseed {
            self.gen = Frand::new(self.seed, false);
        }
    }

    /// The statistics start over (end of `ramp_time`): the counts and the run too.
    pub(crate) fn zero_counts(&mut self) {
        self.issued = [0; 2];
        self.run_end = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::gen::frand::Seeding;

    fn seed(randseed: Option<u64>) -> u64 {
        let s = Seeding {
            randseed,
            randrepeat: true,
            allrandrepeat: false,
        };
        s.slot(1, MIX_SLOT)
    }

    fn run(m: &mut RwMix, n: usize) -> String {
        (0..n)
            .map(|_| {
                let d = m.pick();
                m.issued(d);
                ['r', 'w'][d]
            })
            .collect()
    }

    // The directions of fio 3.33's write_iolog for `--name=a --rw=randrw --bs=4k
    // --size=256k` (and `rw=rw`, the same draws), default seeds.
    #[test]
    fn directions_are_fio_3_33s() {
        let mut m = RwMix::new(50, seed(None), true);
        assert_eq!(
            run(&mut m, 64),
            "rrrwrrwwwrwrwrrrwwrrwwwwrwrwwwwrrwrwwrrwwrwrrwwrwwwrrwrwrwwrrwww"
        );
        // `--rw=randrw --bs=4k --size=64k --loops=3`: each loop draws the same
        // directions again, from the last loop's direction
        let mut m = RwMix::new(50, seed(None), true);
        let mut all = String::new();
        for l in 0..3 {
            if l > 0 {
                m.new_loop();
            }
            all += &run(&mut m, 16);
        }
        assert_eq!(all, "rrrwrrwwwrwrwrrr".repeat(3));
    }

    // `--randseed=5 --randrepeat=0 --loops=2 --ioengine=libaio` (the loop ends by its
    // bytes, no attempt at a done file): the second loop goes on with the draws.
    #[test]
    fn without_randrepeat_a_loop_goes_on_with_the_draws() {
        let s = Seeding {
            randseed: Some(5),
            randrepeat: false,
            allrandrepeat: false,
        };
        let mut m = RwMix::new(50, s.slot(1, MIX_SLOT), false);
        let mut all = run(&mut m, 16);
        m.new_loop();
        all += &run(&mut m, 16);
        assert_eq!(all, "rrwrrrwwrrwwrrwwwrrrwwwwwwwrwwwr");
    }

    #[test]
    fn a_run_after_a_switch_is_the_share_of_the_other_count() {
        let mut m = RwMix::new(50, 1, false);
        m.issued = [40, 0];
        m.cur = READ;
        // force a switch to writes: draws until one is a write
        while m.pick() == READ {
            m.issued(READ);
        }
        let reads = m.issued[READ];
        assert_eq!(m.run_end, reads * 50 / 100);
        // the run holds without a draw until the writes reach it
        let before = m.gen.clone();
        for _ in 0..m.run_end {
            assert_eq!(m.pick(), 1);
            m.issued(1);
        }
        assert_eq!(format!("{before:?}"), format!("{:?}", m.gen));
    }

    #[test]
    fn all_reads_or_all_writes() {
        let mut m = RwMix::new(100, 7, true);
        assert!(run(&mut m, 200).chars().all(|c| c == 'r'));
        let mut m = RwMix::new(0, 7, true);
        assert!(run(&mut m, 200).chars().all(|c| c == 'w'));
    }
}
