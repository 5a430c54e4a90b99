//! fio's `random_generator=lfsr`: a Galois-style linear feedback shift register over the
//! smallest number of bits `n` with `2^n` above the file's block count, whose values
//! past the last block are skipped, so a pass visits every block exactly once, in an
//! order fixed by the seed, without a random map. Written from fio 3.33's description
//! of its generator (lib/lfsr.c): the tap table of maximal-length registers, the step
//! `v → (v >> 1 | top) ^ (v even ? taps : 0)`, the "spin" (extra steps per value) and
//! the quirk of its first value, which takes one step more than the others.
//!
//! fio builds one register per file (`init_random_map`: the file's blocks of its smallest
//! block size, the thread's block seed, spin 0) and starts it over from the same seed
//! whenever the file is opened again (`fio_file_reset`); a start-over keeps the register's
//! step count, so only a file's very first value takes the extra step.

/// The tap positions (bit numbers from 1) of a maximal-length register of each width
/// from 3 to 63 bits, as fio's table lists them (widths below 3 do not exist).
const TAPS: [&[u8]; 64] = [
    &[],
    &[],
    &[],
    &[3, 2],
    &[4, 3],
    &[5, 3],
    &[6, 5],
    &[7, 6],
    &[8, 6, 5, 4],
    &[9, 5],
    &[10, 7],
    &[11, 9],
    &[12, 6, 4, 1],
    &[13, 4, 3, 1],
    &[14, 5, 3, 1],
    &[15, 14],
    &[16, 15, 13, 4],
    &[17, 14],
    &[18, 11],
    &[19, 6, 2, 1],
    &[20, 17],
    &[21, 19],
    &[22, 21],
    &[23, 18],
    &[24, 23, 22, 17],
    &[25, 22],
    &[26, 6, 2, 1],
    &[27, 5, 2, 1],
    &[28, 25],
    &[29, 27],
    &[30, 6, 4, 1],
    &[31, 28],
    &[32, 31, 29, 1],
    &[33, 20],
    &[34, 27, 2, 1],
    &[35, 33],
    &[36, 25],
    &[37, 5, 4, 3, 2, 1],
    &[38, 6, 5, 1],
    &[39, 35],
    &[40, 38, 21, 19],
    &[41, 38],
    &[42, 41, 20, 19],
    &[43, 42, 38, 37],
    &[44, 43, 18, 17],
    &[45, 44, 42, 41],
    &[46, 45, 26, 25],
    &[47, 42],
    &[48, 47, 21, 20],
    &[49, 40],
    &[50, 49, 24, 23],
    &[51, 50, 36, 35],
    &[52, 49],
    &[53, 52, 38, 37],
    &[54, 53, 18, 17],
    &[55, 31],
    &[56, 55, 35, 34],
    &[57, 50],
    &[58, 39],
    &[59, 58, 38, 37],
    &[60, 59],
    &[61, 60, 46, 45],
    &[62, 61, 6, 5],
    &[63, 62],
];

/// The largest spin fio accepts.
const MAX_SPIN: u32 = 15;

/// One register over `0..=max` ([`Lfsr::new`]).
#[derive(Clone, Debug)]
pub(crate) struct Lfsr {
    /// the tap bits, XORed in after a step from an even value
    taps: u64,
    /// the register's top bit, set by every step
    top: u64,
    /// the current state
    state: u64,
    /// the largest value given (the block count − 1)
    max: u64,
    /// values given since the last start
    given: u64,
    /// steps until the next value that takes one step more (0: none)
    cycle: u64,
    /// what `cycle` starts again from after such a value
    cycle_again: u64,
    /// steps per value, less one
    spin: u32,
    /// the seed each start begins from
    seed: u64,
}

impl Lfsr {
    /// The register over `nums` values (`0..nums`) seeded with `seed` (its low `n`
    /// bits), with `spin` extra steps per value. None where fio's `lfsr_init` fails: no
    /// width fits `nums` (2^63 and more), `spin` above 15, or the seed's bits are all
    /// ones (the state the register never leaves).
    pub(crate) fn new(nums: u64, seed: u64, spin: u32) -> Option<Lfsr> {
        let width = (3..64).find(|&i| 1u64 << i > nums)?;
        let taps = TAPS[width].iter().fold(0u64, |m, &t| m | 1 << (t - 1));
        let top = 1u64 << (TAPS[width][0] - 1);
        if spin > MAX_SPIN {
            return None;
        }
        let mut l = Lfsr {
            taps,
            top,
            state: 0,
            max: nums.wrapping_sub(1),
            given: 0,
            cycle: 0,
            cycle_again: 0,
            spin,
            seed,
        };
        l.prepare_spin();
        l.restart().then_some(l)
    }

    /// All ones over the register's width.
    fn mask(&self) -> u64 {
        (self.top << 1) - 1
    }

    /// fio's cycle of a spin: with `s + 1` steps per value the register may come back
    /// to a value it gave before its full period, when `(2^n − 1)·i` is a multiple of
    /// `s + 1` for some `i` in `1..=s`; then every `cycle` values one takes a step more.
    /// The count starts one higher, so the first value takes the extra step (whatever
    /// the spin: with spin 0 there is no cycle, and the first value alone takes two
    /// steps).
    fn prepare_spin(&mut self) {
        let k = u64::from(self.spin) + 1;
        let (x, y) = (self.mask() / k, self.mask() % k);
        self.cycle = (1..k)
            .find(|i| (y * i) % k == 0)
            .map_or(0, |i| x * i + (y * i) / k);
        self.cycle_again = self.cycle;
        self.cycle += 1;
    }

    /// Start over from the seed (fio's `lfsr_reset`, at each open of the file): the
    /// values given count from 0, the step count is kept. False: the seed's bits are
    /// all ones.
    pub(crate) fn restart(&mut self) -> bool {
        self.given = 0;
        self.state = self.seed & self.mask();
        self.state != self.mask()
    }

    /// One step of the register.
    #[inline]
    fn step(&mut self) {
        let v = self.state;
        let xor = if v & 1 == 0 { self.taps } else { 0 };
        self.state = ((v >> 1) | self.top) ^ xor;
    }

    /// `n` steps, as fio's unrolled switch takes them: `n` up to 16, none past it.
    #[inline]
    fn steps(&mut self, n: u32) {
        if n <= MAX_SPIN + 1 {
            (0..n).for_each(|_| self.step());
        }
    }

    /// The next value, in `0..nums`; None once `nums` values were given since the
    /// last start (the pass is over).
    #[inline]
    pub(crate) fn next(&mut self) -> Option<u64> {
        let given = self.given;
        self.given = self.given.saturating_add(1);
        if given > self.max {
            return None;
        }
        loop {
            let extra = self.cycle != 0 && {
                self.cycle -= 1;
                self.cycle == 0
            };
            if extra {
                self.steps(self.spin + 2);
                self.cycle = self.cycle_again;
            } else {
                self.steps(self.spin + 1);
            }
            if self.state <= self.max {
                return Some(self.state);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::gen::frand::Seeding;

    fn values(l: &mut Lfsr, n: usize) -> Vec<u64> {
        (0..n).map_while(|_| l.next()).collect()
    }

    /// The block seed of thread 1: under randrepeat fio's `0xb1899bed`, else the block
    /// slot's seed of `randseed`.
    fn seed(randseed: Option<u64>) -> u64 {
        let s = Seeding {
            randseed,
            randrepeat: randseed.is_none(),
            allrandrepeat: false,
        };
        s.block(1)
    }

    #[test]
    fn each_block_once_per_pass_then_none() {
        for nums in [1u64, 2, 7, 8, 9, 100, 1000, 4097, 65_535] {
            for s in [seed(None), seed(Some(77)), 12_345] {
                let Some(mut l) = Lfsr::new(nums, s, 0) else {
                    continue; // the seed's bits are all ones
                };
                for pass in 0..2 {
                    let mut seen = vec![false; nums as usize];
                    for _ in 0..nums {
                        let v = l.next().expect("a value per block") as usize;
                        assert!(!seen[v], "nums {nums} pass {pass}: {v} twice");
                        seen[v] = true;
                    }
                    assert_eq!(l.next(), None, "nums {nums}: more than a pass");
                    l.restart();
                }
            }
        }
    }

    // The expected blocks are fio 3.33's: `--name=a --rw=randread --bs=4k
    // --random_generator=lfsr --write_iolog=a.log` with the size and seeds named, the
    // log's offsets divided by 4096.
    #[test]
    fn first_blocks_are_fio_3_33s() {
        // size=32k: 8 blocks, a 4-bit register
        let mut l = Lfsr::new(8, seed(None), 0).unwrap();
        assert_eq!(values(&mut l, 9), [3, 2, 5, 1, 0, 4, 6, 7]);
        // size=400k: 100 blocks
        let mut l = Lfsr::new(100, seed(None), 0).unwrap();
        assert_eq!(
            values(&mut l, 20),
            [27, 77, 19, 73, 18, 41, 84, 10, 37, 82, 9, 68, 2, 33, 80, 8, 36, 50, 57, 92]
        );
        // size=4000k randrepeat=0 randseed=77: the block slot's seed
        let mut l = Lfsr::new(1000, seed(Some(77)), 0).unwrap();
        assert_eq!(
            values(&mut l, 12),
            [788, 458, 165, 594, 361, 692, 282, 205, 614, 371, 697, 860]
        );
    }

    // fio 3.33, size=400k loops=2 randrepeat=0 randseed=1: the second loop starts one
    // step earlier (the first value's extra step is spent), so it begins with the first
    // loop's last block.
    #[test]
    fn a_restart_keeps_the_step_count() {
        let mut l = Lfsr::new(100, seed(Some(1)), 0).unwrap();
        let first = values(&mut l, 100);
        assert_eq!(first[..5], [97, 24, 44, 54, 59]);
        assert_eq!(first[99], 67);
        l.restart();
        assert_eq!(values(&mut l, 5), [67, 97, 24, 44, 54]);
    }

    #[test]
    fn fio_refuses_what_it_cannot_set_up() {
        // 2^63 blocks: no register is wide enough
        assert!(Lfsr::new(1 << 63, 1, 0).is_none());
        // a seed whose register bits are all ones (4 bits for 8 blocks)
        assert!(Lfsr::new(8, 0xff, 0).is_none());
        assert!(Lfsr::new(8, 1, 16).is_none());
        // a spin still visits every block once
        let mut l = Lfsr::new(50, 5, 3).unwrap();
        let mut v = values(&mut l, 60);
        v.sort_unstable();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
    }
}
