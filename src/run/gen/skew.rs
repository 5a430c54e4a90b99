//! fio 3.33's non-uniform random distributions of blocks — `zipf:θ`, `pareto:h` and
//! `normal:σ` (lib/zipf.c, lib/gauss.c) — drawn as fio draws them, so a seeded job
//! visits fio's blocks in fio's order; and the file-name hash (`jhash`) fio seeds them
//! with. Each state owns its 32-bit generator (fio's taus88 whatever
//! `random_generator` says).
//!
//! - Zipf (Gray et al.'s approximation): ζ(n, θ) summed over the first min(n, 10⁷)
//!   ranks once; a draw `u = r / (2³²−1)` gives rank 1 below `1/ζ`, rank 2 below
//!   `(1 + 2^−θ)/ζ`, else `1 + ⌊n·(η·u − η + 1)^(1/(1−θ))⌋`.
//! - Pareto: rank `⌊(n−1)·u^(ln h / ln(1−h))⌋`.
//! - Normal: the mean of 12 draws `r mod (n+1)` (rounded up), moved by a deviation
//!   drawn in `[−σₙ/2, σₙ/2)` with `σₙ = ⌈n·σ/100⌉` (at most n/2), halved until the
//!   block is below n.
//!
//! The rank (0-based) is then scrambled by fio's 64-bit golden-ratio hash, unless
//! unhashed (fio's `file_service_type`), and offset modulo n: zipf and pareto by the
//! state's first draw, or, given a centre c (`zipf:θ:c`), by `⌊n·c⌋` (the draw is
//! still spent); normal by 0, or by `n·(c − 0.5)` converted to fio's `unsigned int`
//! (a negative one wraps to 2³² less its size). So the popular blocks are spread over
//! the file as fio spreads them, not at its start.

use super::frand::Frand;
use crate::job::model::Distribution;

/// fio's cap on the terms of ζ(n, θ).
const ZIPF_MAX_TERMS: u64 = 10_000_000;
/// fio's number of uniform draws averaged for one normal draw.
const GAUSS_ITERS: u64 = 12;
/// fio's golden-ratio multiplier (`GOLDEN_RATIO_64`).
const GOLDEN_64: u64 = 0x61C8_8646_80B5_83EB;
/// The largest value of the 32-bit generator, as a double (fio's `FRAND32_MAX`).
const MAX32: f64 = u32::MAX as f64;

#[derive(Clone, Debug)]
enum Shape {
    Zipf { theta: f64, zeta2: f64, zetan: f64 },
    Pareto { pow: f64 },
    Gauss { dev: u64 },
}

/// One of fio's zipf, pareto or normal states over `n` blocks.
#[derive(Clone, Debug)]
pub(crate) struct Skew {
    n: u64,
    shape: Shape,
    rand: Frand,
    off: u64,
    hash: bool,
}

impl Skew {
    /// The state of `dist` over `n` blocks seeded with `seed` (fio keeps its low 32
    /// bits); None for the distributions it does not hold (uniform, zoned, sequence).
    pub(crate) fn of(dist: &Distribution, n: u64, seed: u64) -> Option<Skew> {
        let n = n.max(1);
        let mut rand = Frand::new(u64::from(seed as u32), false);
        let (shape, off) = match *dist {
            Distribution::Zipf(theta, center) => {
                let off = centered(rand.next(), n, center);
                let zetan = (0..n.min(ZIPF_MAX_TERMS))
                    .map(|i| (1.0 / (i + 1) as f64).powf(theta))
                    .fold(0.0, |a, x| a + x);
                let zeta2 = 1f64.powf(theta) + 0.5f64.powf(theta);
                (
                    Shape::Zipf {
                        theta,
                        zeta2,
                        zetan,
                    },
                    off,
                )
            }
            Distribution::Pareto(h, center) => {
                let off = centered(rand.next(), n, center);
                (
                    Shape::Pareto {
                        pow: h.ln() / (1.0 - h).ln(),
                    },
                    off,
                )
            }
            Distribution::Normal(sd, center) => {
                let mut dev = 0;
                if sd != 0.0 {
                    dev = u64::from(((n as f64 * sd) / 100.0).ceil() as u32);
                    dev = dev.min(n / 2);
                }
                // fio's `unsigned int rand_off = nranges * (center - 0.5)`: the
                // double truncated through a 64-bit integer, kept to its low 32 bits
                let off = center.map_or(0, |c| u64::from((n as f64 * (c - 0.5)) as i64 as u32));
                (Shape::Gauss { dev }, off)
            }
            _ => return None,
        };
        Some(Skew {
            n,
            shape,
            rand,
            off,
            hash: true,
        })
    }

    /// Without the hash: ranks stay in order (fio's `zipf_disable_hash`, as its file
    /// service uses).
    pub(crate) fn unhashed(mut self) -> Skew {
        self.hash = false;
        self
    }

    /// The next block, below [`Skew::blocks`].
    pub(crate) fn next(&mut self) -> u64 {
        let n = self.n;
        let rank = match self.shape {
            Shape::Zipf {
                theta,
                zeta2,
                zetan,
            } => {
                let nf = n as f64;
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / nf).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                let u = self.rand.next() as f64 / MAX32;
                let z = u * zetan;
                let k = if z < 1.0 {
                    1
                } else if z < 1.0 + 0.5f64.powf(theta) {
                    2
                } else {
                    1u64.wrapping_add((nf * (eta * u - eta + 1.0).powf(alpha)) as u64)
                };
                k.wrapping_sub(1)
            }
            Shape::Pareto { pow } => {
                let u = self.rand.next() as f64 / MAX32;
                ((n - 1) as f64 * u.powf(pow)) as u64
            }
            Shape::Gauss { dev } => self.gauss(dev),
        };
        let rank = if self.hash {
            rank.wrapping_mul(GOLDEN_64)
        } else {
            rank
        };
        rank.wrapping_add(self.off) % n
    }

    /// fio's `gauss_next` before the hash: all in its unsigned and int arithmetic.
    fn gauss(&mut self, dev: u64) -> u64 {
        let n = self.n;
        let mut sum = 0u64;
        for _ in 0..GAUSS_ITERS {
            sum = sum.wrapping_add(self.rand.next() % (n + 1));
        }
        sum = sum.div_ceil(GAUSS_ITERS);
        if dev == 0 {
            return sum;
        }
        let r = self.rand.next() as u32;
        let vr = (dev as f64 * (f64::from(r) / (MAX32 + 1.0))) as i32;
        // int minus unsigned int: unsigned, read back as an int
        let mut d = (vr as u32).wrapping_sub((dev / 2) as u32) as i32;
        while sum.wrapping_add(i64::from(d) as u64) >= n {
            d /= 2;
        }
        sum.wrapping_add(i64::from(d) as u64)
    }
}

/// A zipf or pareto state's offset: its first draw, or `⌊n·c⌋` given a centre `c`
/// (fio's `shared_rand_init`, which draws first either way).
fn centered(drawn: u64, n: u64, center: Option<f64>) -> u64 {
    center.map_or(drawn, |c| (n as f64 * c) as u64)
}

/// fio's `jhash(key, len, 0)` (hash.h): Bob Jenkins' hash as fio writes it, which adds
/// one byte, not a word, per 4-byte lane of a 12-byte block before the last.
pub(crate) fn jhash(key: &[u8]) -> u32 {
    let mix = |a: &mut u32, b: &mut u32, c: &mut u32| {
        for (r1, r2, r3) in [(4, 6, 8), (16, 19, 4)] {
            *a = a.wrapping_sub(*c) ^ c.rotate_left(r1);
            *c = c.wrapping_add(*b);
            *b = b.wrapping_sub(*a) ^ a.rotate_left(r2);
            *a = a.wrapping_add(*c);
            *c = c.wrapping_sub(*b) ^ b.rotate_left(r3);
            *b = b.wrapping_add(*a);
        }
    };
    let init = 0x61C8_8647u32.wrapping_add(key.len() as u32);
    let (mut a, mut b, mut c) = (init, init, init);
    let mut k = key;
    while k.len() > 12 {
        a = a.wrapping_add(u32::from(k[0]));
        b = b.wrapping_add(u32::from(k[4]));
        c = c.wrapping_add(u32::from(k[8]));
        mix(&mut a, &mut b, &mut c);
        k = &k[12..];
    }
    if k.is_empty() {
        return c;
    }
    for (i, &byte) in k.iter().enumerate() {
        let v = u32::from(byte) << (8 * (i % 4));
        match i / 4 {
            0 => a = a.wrapping_add(v),
            1 => b = b.wrapping_add(v),
            _ => c = c.wrapping_add(v),
        }
    }
    for (x, r) in [(0, 14), (1, 11), (2, 25), (0, 16), (1, 4), (2, 14), (0, 24)] {
        // c ^= b, c -= rol(b); a ^= c, a -= rol(c); b ^= a, b -= rol(a); …
        match x {
            0 => c = (c ^ b).wrapping_sub(b.rotate_left(r)),
            1 => a = (a ^ c).wrapping_sub(c.rotate_left(r)),
            _ => b = (b ^ a).wrapping_sub(a.rotate_left(r)),
        }
    }
    c
}

/// The seed fio 3.33 gives the zipf, pareto or normal state of a file under
/// `randrepeat` (filesetup.c `__init_rand_distribution`): the hash of the file's name
/// (as fio names it: `directory/` then the file name) times the thread number (from 1),
/// in 32 bits.
pub(crate) fn file_seed(name: &str, thread_number: u64) -> u64 {
    u64::from(jhash(name.as_bytes()).wrapping_mul(thread_number as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(d: &Distribution, n: u64, seed: u64, k: usize) -> Vec<u64> {
        let mut s = Skew::of(d, n, seed).unwrap();
        (0..k).map(|_| s.next()).collect()
    }

    // The blocks fio 3.33 reads first for `--name=x --filename=f --rw=randread --bs=4k
    // --size=1m --random_distribution=D --write_iolog=…` (256 blocks, one thread): its
    // log's offsets / 4096.
    #[test]
    fn first_blocks_are_fio_3_33s() {
        let seed = file_seed("f", 1);
        assert_eq!(
            draws(&Distribution::Zipf(1.2, None), 256, seed, 10),
            [64, 202, 173, 93, 22, 114, 146, 236, 47, 1]
        );
        assert_eq!(
            draws(&Distribution::Pareto(0.9, None), 256, seed, 10),
            [35, 148, 211, 169, 60, 169, 106, 253, 190, 18]
        );
        assert_eq!(
            draws(&Distribution::Normal(10.0, None), 256, seed, 10),
            [36, 254, 69, 195, 145, 48, 245, 94, 81, 115]
        );
    }

    #[test]
    fn jhash_reads_bytes_per_lane() {
        // a name over 12 bytes takes the block loop; the same bytes but the 2nd to 4th
        // of a lane give the same hash (fio adds only each lane's first byte there)
        let a = jhash(b"abcdefghijklmnop");
        let b = jhash(b"aXYZefghijklmnop");
        assert_eq!(a, b);
        assert_ne!(a, jhash(b"Xbcdefghijklmnop"));
        // the tail is read whole: any byte of it counts
        assert_ne!(jhash(b"abc"), jhash(b"abd"));
        assert_eq!(jhash(b""), 0x61C8_8647);
    }

    /// Share of the draws taken by the most drawn block and the `k` most drawn, ranks
    /// unhashed (fio's hash folds ranks onto shared blocks: pareto:0.9's 346 ranks
    /// drawn over 1000 blocks land on 130 of them, which says nothing of the shape).
    fn top(d: &Distribution, n: u64, total: usize, k: usize) -> (f64, f64) {
        let mut s = Skew::of(d, n, 7).unwrap().unhashed();
        let mut c = vec![0u64; n as usize];
        for _ in 0..total {
            c[s.next() as usize] += 1;
        }
        c.sort_unstable_by(|a, b| b.cmp(a));
        let share = |x: u64| x as f64 / total as f64;
        (share(c[0]), share(c[..k].iter().sum()))
    }

    #[test]
    fn zipf_gives_rank_one_its_share() {
        // P(rank 1) = 1/ζ(n, θ) exactly in fio's approximation; n = 1000, θ = 1.2
        let zeta: f64 = (1..=1000).map(|k| (k as f64).powf(-1.2)).sum();
        let (first, _) = top(&Distribution::Zipf(1.2, None), 1000, 200_000, 1);
        assert!(
            (first - 1.0 / zeta).abs() < 0.01,
            "{first} vs {}",
            1.0 / zeta
        );
        // rank 2 takes 2^-θ/ζ: the two most drawn hold (1 + 2^-1.2)/ζ
        let (_, two) = top(&Distribution::Zipf(1.2, None), 1000, 200_000, 2);
        let want = (1.0 + 2f64.powf(-1.2)) / zeta;
        assert!((two - want).abs() < 0.01, "{two} vs {want}");
    }

    #[test]
    fn pareto_and_normal_concentrate_as_fio_says() {
        // pareto 0.9: rank ⌊999·u^pow⌋, pow = ln .9 / ln .1, so the top ranks are the
        // hot ones: the 100 most drawn blocks are ranks 899 to 998, drawn with
        // P(u ≥ (899/999)^(1/pow)) ≈ 0.9 (fio's "90 % of accesses to 10 % of blocks")
        let pow = 0.9f64.ln() / 0.1f64.ln();
        let want = 1.0 - (899.0f64 / 999.0).powf(1.0 / pow);
        let (_, p) = top(&Distribution::Pareto(0.9, None), 1000, 200_000, 100);
        assert!((p - want).abs() < 0.01, "pareto top 10 % {p} vs {want}");
        // normal σ=10 %: σₙ = 100 blocks of 1000; the mean of 12 uniform draws has
        // σ = 1001/√(12·12) ≈ 83.4 blocks, the added deviation (uniform over 100)
        // 100/√12: about 68 % of the draws in the 2·√(83.4² + 28.9²) most drawn
        let sd = (83.4f64.powi(2) + (100.0 / 12f64.sqrt()).powi(2)).sqrt();
        let (_, share) = top(
            &Distribution::Normal(10.0, None),
            1000,
            200_000,
            (2.0 * sd) as usize,
        );
        assert!((share - 0.6827).abs() < 0.03, "{share}");
    }

    #[test]
    fn unhashed_ranks_stay_in_order() {
        // without the hash the most drawn block is the state's offset (rank 0)
        let mut s = Skew::of(&Distribution::Zipf(1.5, None), 64, 3)
            .unwrap()
            .unhashed();
        let mut c = [0u32; 64];
        for _ in 0..10_000 {
            c[s.next() as usize] += 1;
        }
        let best = (0..64).max_by_key(|&i| c[i]).unwrap() as u64;
        assert_eq!(best, s.off % 64);
        assert!(Skew::of(&Distribution::Random, 64, 3).is_none());
    }
}
