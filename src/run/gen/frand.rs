//! fio's own random generators, for the values iomark draws exactly as fio 3.33 does (each
//! file's size of a `filesize=LOW-HIGH` range, each thread's delay of a `startdelay`
//! range): L'Ecuyer's maximally equidistributed
//! combined Tausworthe generators — taus88 (32 bits, fio's default `random_generator`) and
//! taus258 (64 bits, `random_generator=tausworthe64`) — seeded as fio seeds them, and the
//! per-thread seeds fio derives from `randseed`, and the uniform random offsets of a job
//! (fio's `random_state`, [`Frand::below`]), its request sizes and the zones of its
//! zoned distributions.
//!
//! fio's seeds: thread `T` (fio's `thread_number`, from 1) has one seed per purpose slot
//! `i` (fio.h's order; the file-size slot is 7): `s·K^(4+i)·T + i` with `s` the `randseed`
//! (default 0x89) and `K` = 0x9e370001, all modulo 2^64; with `allrandrepeat=1` the slot's
//! seed is `0xb1899bed·T + i` whatever `randseed` says; with `randrepeat=0` and no
//! `randseed` it is not repeatable (fio reads the system's random source; iomark the clock).

/// The seed slot of random offsets (fio's `FIO_RAND_BLOCK_OFF`).
pub(crate) const BLOCK_SLOT: u64 = 6;
/// The seed slot of `percentage_random`'s choice (fio's `FIO_RAND_SEQ_RAND_READ_OFF`,
/// which seeds every direction's).
pub(crate) const SEQ_RAND_SLOT: u64 = 10;
/// The seed slot of file sizes (fio's `FIO_RAND_FILE_SIZE_OFF`).
pub(crate) const FILE_SIZE_SLOT: u64 = 7;
/// The seed slot of start delays (fio's `FIO_RAND_START_DELAY`).
pub(crate) const START_DELAY_SLOT: u64 = 13;
/// The seed slot of the zone drawn by `zoned`/`zoned_abs` (fio's `FIO_RAND_ZONE_OFF`).
pub(crate) const ZONE_SLOT: u64 = 16;
/// The seed slot of `file_service_type`'s picks (fio's `FIO_RAND_FILE_OFF`).
pub(crate) const FILE_SLOT: u64 = 5;
/// The seed slot of the cmdprio options' draws (fio's `FIO_RAND_PRIO_CMDS`).
pub(crate) const PRIO_CMDS_SLOT: u64 = 19;

/// fio's `randseed` default.
const DEFAULT_RANDSEED: u64 = 0x89;
/// fio's seed multiplier.
const MULT: u64 = 0x9e37_0001;
/// fio's fixed seed of `allrandrepeat=1`.
const ALLRAND_SEED: u64 = 0xb189_9bed;

/// How a job seeds fio's generators: `randseed`, `randrepeat`, `allrandrepeat`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seeding {
    pub randseed: Option<u64>,
    pub randrepeat: bool,
    pub allrandrepeat: bool,
}

impl Seeding {
    /// The seed of the random offsets of thread `thread_number` (from 1): under
    /// `randrepeat` (fio's default) `0xb1899bed·T` whatever `randseed` says (fio 3.33's
    /// `td_fill_rand_seeds_internal`: `randseed=1` and `randseed=2` give the same
    /// offsets), else the block slot's seed.
    pub(crate) fn block(&self, thread_number: u64) -> u64 {
        if self.randrepeat {
            ALLRAND_SEED.wrapping_mul(thread_number)
        } else {
            self.slot(thread_number, BLOCK_SLOT)
        }
    }

    /// The seed of `slot` for thread `thread_number` (from 1), as fio 3.33 computes it.
    pub(crate) fn slot(&self, thread_number: u64, slot: u64) -> u64 {
        if self.allrandrepeat {
            return ALLRAND_SEED.wrapping_mul(thread_number).wrapping_add(slot);
        }
        let base = match (self.randseed, self.randrepeat) {
            (Some(s), _) => s,
            (None, true) => DEFAULT_RANDSEED,
            (None, false) => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64),
        };
        let mut s = base;
        for _ in 0..4 + slot {
            s = s.wrapping_mul(MULT);
        }
        s.wrapping_mul(thread_number).wrapping_add(slot)
    }
}

/// The generators a fio job thread draws its requests from, seeded as fio 3.33 seeds them
/// (`td_fill_rand_seeds_internal`), and seeded again together each loop under
/// `randrepeat`: its uniform random offsets (`random_state`), its request sizes per
/// worker slot (`bsrange_state` of the slot's direction), `percentage_random`'s
/// choice per direction (`seq_rand_state`) and the zone of `zoned`/`zoned_abs`
/// (`zone_state`, 32 bits).
#[derive(Clone, Debug)]
pub(crate) struct Draws {
    pub off: Frand,
    pub bs: [Frand; 2],
    pub pct: [Frand; 3],
    pub zone: Frand,
}

/// One of fio's Tausworthe generators.
#[derive(Clone, Debug)]
pub(crate) enum Frand {
    /// taus88: three 32-bit components
    T32([u32; 3]),
    /// taus258: five 64-bit components
    T64([u64; 5]),
}

/// fio's floor on a fresh component (the generator needs its top bits non-zero).
fn floor(x: u64, m: u64) -> u64 {
    if x < m {
        x + m
    } else {
        x
    }
}

/// fio's LCG start value: its source writes `(2^31) + (2^17) + (2^7)`, which C reads as
/// XORs: 29 + 19 + 5.
const LCG_START: u64 = 53;

impl Frand {
    /// A generator seeded as fio's `init_rand_seed` does (32 bits: the seed's low 32 bits),
    /// then advanced 6 times.
    pub(crate) fn new(seed: u64, use64: bool) -> Self {
        let mut g = if use64 {
            let lcg = |x: u64| x.wrapping_mul(6_906_969_069) ^ seed;
            let mut s = [0u64; 5];
            let mut prev = LCG_START;
            for (c, m) in s.iter_mut().zip([1, 7, 15, 33, 49]) {
                *c = floor(lcg(prev), m);
                prev = *c;
            }
            Frand::T64(s)
        } else {
            let seed = seed as u32;
            let lcg = |x: u32| x.wrapping_mul(69_069) ^ seed;
            let mut s = [0u32; 3];
            let mut prev = LCG_START as u32;
            for (c, m) in s.iter_mut().zip([1u64, 7, 15]) {
                *c = floor(u64::from(lcg(prev)), m) as u32;
                prev = *c;
            }
            Frand::T32(s)
        };
        for _ in 0..6 {
            g.next();
        }
        g
    }

    /// The largest value [`Frand::next`] gives.
    pub(crate) fn max(&self) -> u64 {
        match self {
            Frand::T32(_) => u64::from(u32::MAX),
            Frand::T64(_) => u64::MAX,
        }
    }

    /// `1 / (max + 1)` in doubles, as fio divides by `max + 1.0`: both divisors are powers
    /// of two (2^32, and 2^64 to which `u64::MAX as f64` rounds), so multiplying by this
    /// exact reciprocal gives fio's quotient bit for bit without a division per draw.
    #[inline]
    pub(crate) fn unit_scale(&self) -> f64 {
        match self {
            Frand::T32(_) => 1.0 / 4_294_967_296.0,
            Frand::T64(_) => 1.0 / 18_446_744_073_709_551_616.0,
        }
    }

    /// The next value.
    #[allow(clippy::should_implement_trait)]
    #[inline(always)]
    pub(crate) fn next(&mut self) -> u64 {
        match self {
            Frand::T32(s) => u64::from(next32(s)),
            Frand::T64(s) => next64(s),
        }
    }

    /// fio's `rand_between(start, end)`: `start` plus a value in `0..=end − start`, drawn
    /// as `(span + 1) · next / (max + 1)` in doubles, truncated (the 32-bit generator takes
    /// the span's low 32 bits), all in fio's unsigned arithmetic, which wraps.
    pub(crate) fn between(&mut self, start: u64, end: u64) -> u64 {
        let span = end.wrapping_sub(start);
        let r = self.next() as f64;
        let x = match self {
            Frand::T32(_) => {
                let e = f64::from((span as u32).wrapping_add(1));
                (e * (r / 4_294_967_296.0)) as u32 as u64
            }
            Frand::T64(_) => {
                (span.wrapping_add(1) as f64 * (r / 18_446_744_073_709_551_616.0)) as u64
            }
        };
        start.wrapping_add(x)
    }

    /// A block below `n` as fio 3.33's `__get_next_rand_offset` draws it: `n · next /
    /// (max + 1)` in doubles, truncated (at most `n − 1`, which fio's doubles never
    /// exceed for the sizes a map holds).
    /// Per random offset: one match on the generator, and the 32-bit value converted
    /// from a `u32`, `n` from an `i64` and the product back through an `i64` (one
    /// instruction each; a `u64`'s conversions are branchy sequences on x86-64): the
    /// same doubles and the same truncation for every `n` below 2^63.
    #[inline(always)]
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        let frac = match self {
            Frand::T32(s) => f64::from(next32(s)) * (1.0 / 4_294_967_296.0),
            Frand::T64(s) => next64(s) as f64 * (1.0 / 18_446_744_073_709_551_616.0),
        };
        let b = match i64::try_from(n) {
            Ok(i) => (i as f64 * frac) as i64 as u64,
            Err(_) => (n as f64 * frac) as u64,
        };
        b.min(n.saturating_sub(1))
    }

    /// [`Frand::below`] over a [`Span`], whose double was converted once: the same
    /// block for the same value. Per random offset the draw is the generator's step,
    /// one conversion of its value, two multiplications and one truncation to an
    /// integer (the product lies in `0..=n`, so no saturation is needed); a span too
    /// large for that ([`Span::new`]) draws through [`Frand::below`].
    #[inline(always)]
    pub(crate) fn below_span(&mut self, span: Span) -> u64 {
        if !span.exact {
            return self.below(span.n);
        }
        let frac = match self {
            Frand::T32(s) => f64::from(next32(s)) * (1.0 / 4_294_967_296.0),
            Frand::T64(s) => next64(s) as f64 * (1.0 / 18_446_744_073_709_551_616.0),
        };
        let x = span.nf * frac;
        // SAFETY: `frac` is in 0.0..=1.0 and `nf` a finite double below 2^62
        // (`Span::new`), so `x` is finite and within i64's range.
        let b = unsafe { x.to_int_unchecked::<i64>() } as u64;
        b.min(span.last)
    }

    /// A size in `low..high` as fio's `get_rand_file_size` draws it: `low` plus the range
    /// times `next / (max + 1)` (in doubles, truncated), rounded down to a multiple of
    /// `min_bs` (fio's smallest block size of any direction).
    pub(crate) fn size_between(&mut self, low: u64, high: u64, min_bs: u64) -> u64 {
        let r = self.next() as f64;
        let frac = r * self.unit_scale();
        let v = (high.saturating_sub(low) as f64 * frac) as u64 + low;
        v - v % min_bs.max(1)
    }
}

/// A number of blocks `n` to draw below ([`Frand::below_span`]), with what every draw
/// over it uses computed once: `n` as a double and the last block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span {
    n: u64,
    nf: f64,
    last: u64,
    /// `n` below 2^62: a draw truncates its product without saturation
    exact: bool,
}

impl Span {
    /// The span of `n` blocks.
    pub(crate) fn new(n: u64) -> Span {
        Span {
            n,
            nf: n as f64,
            last: n.saturating_sub(1),
            exact: n < 1 << 62,
        }
    }
}

/// One step of fio's 32-bit Tausworthe generator (`__rand32`).
#[inline(always)]
fn next32(s: &mut [u32; 3]) -> u32 {
    let step = |s: u32, a: u32, b: u32, c: u32, d: u32| ((s & c) << d) ^ (((s << a) ^ s) >> b);
    s[0] = step(s[0], 13, 19, !1, 12);
    s[1] = step(s[1], 2, 25, !7, 4);
    s[2] = step(s[2], 3, 11, !15, 17);
    s[0] ^ s[1] ^ s[2]
}

/// One step of fio's 64-bit Tausworthe generator (`__rand64`).
#[inline(always)]
fn next64(s: &mut [u64; 5]) -> u64 {
    // (left shift, right shift, mask, shift of the masked value)
    const STEPS: [(u32, u32, u64, u32); 5] = [
        (1, 53, !1, 10),
        (24, 50, !511, 5),
        (3, 23, !4095, 29),
        (5, 24, !131_071, 23),
        (3, 33, !8_388_607, 8),
    ];
    let mut out = 0;
    for (c, (a, b, m, d)) in s.iter_mut().zip(STEPS) {
        let x = ((*c << a) ^ *c) >> b;
        *c = ((*c & m) << d) ^ x;
        out ^= *c;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `below` (one match, a `u32` converted for the 32-bit generator) gives fio's
    /// `n · next / (max + 1.0)`, truncated, for both generators and any `n`.
    #[test]
    fn below_is_fios_quotient_of_the_next_value() {
        for mut g in [
            Frand::new(0x1234_5678, false),
            Frand::new(0x9abc_def0, true),
        ] {
            for n in [
                1u64,
                2,
                3,
                1000,
                262_144,
                1 << 40,
                u64::MAX / 3,
                1 << 63,
                u64::MAX,
            ] {
                for _ in 0..1000 {
                    let mut h = g.clone();
                    let r = h.next() as f64;
                    let fio = ((n as f64 * (r / (g.max() as f64 + 1.0))) as u64).min(n - 1);
                    assert_eq!(g.below(n), fio, "n={n}");
                }
            }
        }
    }

    /// `below_span` draws what `below` draws, value for value, for both generators,
    /// spans small and large (the largest through `below` itself).
    #[test]
    fn below_span_is_below() {
        for (seed, use64) in [(0x1234_5678, false), (0x9abc_def0, true)] {
            for n in [
                0u64,
                1,
                2,
                3,
                1000,
                262_144,
                1 << 40,
                (1 << 62) - 1,
                1 << 62,
                u64::MAX,
            ] {
                let (mut a, mut b) = (Frand::new(seed, use64), Frand::new(seed, use64));
                let s = Span::new(n);
                for _ in 0..2000 {
                    assert_eq!(a.below_span(s), b.below(n), "n={n}");
                }
            }
        }
    }

    /// The reciprocal stands for fio's division exactly: `r / (max + 1.0)` and `r ·
    /// unit_scale` are the same double for the extremes and a spread of values.
    #[test]
    fn unit_scale_is_the_exact_reciprocal_of_max_plus_one() {
        for g in [Frand::T32([0; 3]), Frand::T64([0; 5])] {
            let max = g.max();
            let mut r = 1u64;
            for v in [0, 1, max / 3, max - 1, max] {
                let d = v as f64 / (max as f64 + 1.0);
                assert_eq!((v as f64 * g.unit_scale()).to_bits(), d.to_bits(), "{v}");
            }
            for _ in 0..10_000 {
                r = r
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let v = r & max;
                let d = v as f64 / (max as f64 + 1.0);
                assert_eq!((v as f64 * g.unit_scale()).to_bits(), d.to_bits(), "{v}");
            }
        }
    }

    const MIB: u64 = 1 << 20;

    fn sizes(seeding: Seeding, thread: u64, use64: bool, n: usize) -> Vec<u64> {
        let mut g = Frand::new(seeding.slot(thread, FILE_SIZE_SLOT), use64);
        (0..n).map(|_| g.size_between(MIB, 8 * MIB, 4096)).collect()
    }

    fn seeded(randseed: Option<u64>, all: bool) -> Seeding {
        Seeding {
            randseed,
            randrepeat: true,
            allrandrepeat: all,
        }
    }

    // The expected sizes are the files fio 3.33 made for `--name=a --filesize=1m-8m
    // --bs=4k --rw=write` with the options named (ls -l of a.J.F).
    #[test]
    fn file_sizes_are_fio_3_33s() {
        // default randseed (0x89), thread 1, nrfiles=4
        assert_eq!(
            sizes(seeded(None, false), 1, false, 4),
            [2_105_344, 3_330_048, 3_227_648, 7_622_656]
        );
        // randseed=1234 numjobs=2: threads 1 and 2
        assert_eq!(
            sizes(seeded(Some(1234), false), 1, false, 4),
            [1_994_752, 7_450_624, 6_656_000, 4_214_784]
        );
        assert_eq!(
            sizes(seeded(Some(1234), false), 2, false, 4),
            [5_992_448, 7_913_472, 7_626_752, 7_266_304]
        );
        // random_generator=tausworthe64
        assert_eq!(
            sizes(seeded(None, false), 1, true, 3),
            [3_751_936, 3_469_312, 6_483_968]
        );
        // allrandrepeat=1 randseed=7: randseed is not used
        assert_eq!(
            sizes(seeded(Some(7), true), 1, false, 2),
            [6_426_624, 1_851_392]
        );
        // randrepeat=0 randseed=7: the seed given repeats
        let no_repeat = Seeding {
            randseed: Some(7),
            randrepeat: false,
            allrandrepeat: false,
        };
        assert_eq!(sizes(no_repeat, 1, false, 2), [8_282_112, 1_597_440]);
    }

    // `startdelay=-1` is the range from -1 s (wrapped: 2^64 - 10^6 µs) to 1 s. fio 3.33
    // (`--name=a --ioengine=null --size=1m --startdelay=-1 --randseed=S`, 5 s timeout)
    // ran with S = 3 and 6 and never started the job with S = 2, 4, 5, 7: the draws below
    // are negative exactly there.
    #[test]
    fn start_delays_are_fio_3_33s() {
        let draw = |s: u64| {
            let mut g = Frand::new(seeded(Some(s), false).slot(1, START_DELAY_SLOT), false);
            g.between(1_000_000u64.wrapping_neg(), 1_000_000)
        };
        for s in [2, 4, 5, 7] {
            assert!(draw(s) > 1_000_000, "seed {s}: negative, never starts");
        }
        assert_eq!(draw(3), 888_916);
        assert_eq!(draw(6), 590_293);
        // a fixed delay (fio stores it as the range T to T) draws T
        let mut g = Frand::new(5, false);
        assert_eq!(g.between(7_000_000, 7_000_000), 7_000_000);
        let mut g = Frand::new(5, true);
        let d = g.between(1_000_000, 3_000_000);
        assert!((1_000_000..=3_000_000).contains(&d), "{d}");
    }

    #[test]
    fn sizes_stay_in_the_range_on_block_multiples() {
        let mut g = Frand::new(99, false);
        for _ in 0..1000 {
            let v = g.size_between(10_000, 90_000, 512);
            assert!((9_728..90_000).contains(&v) && v.is_multiple_of(512), "{v}");
        }
        // an empty range gives its low end (rounded down)
        assert_eq!(g.size_between(8192, 8192, 4096), 8192);
    }
}
