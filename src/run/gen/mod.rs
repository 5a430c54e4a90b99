//! Offset generators of `iomark run`: fio's random distributions over the `n` aligned
//! slots of a file region, the random map (each slot once per pass, fio's default for
//! uniform random I/O), and the per-thread PRNG. Deterministic for a given seed.
//!
//! Every distribution draws as fio 3.33 does, from fio's generators seeded as fio seeds
//! them, so a seeded job's offsets are fio's in fio's order: uniform and the block
//! inside a zone from the thread's offset generator ([`frand::Draws`]), the zone of
//! `zoned`/`zoned_abs` from its zone generator (fio's `zone_state`), zipf, pareto and
//! normal from the file's own state ([`skew::Skew`], fio's lib/zipf.c and lib/gauss.c,
//! ranks scattered by fio's hash). Only uniform offsets use a random map: fio turns it
//! off for every other distribution.

pub mod coverage;
pub(crate) mod frand;
pub(crate) mod lfsr;
pub(crate) mod rwmix;
pub(crate) mod skew;
pub(crate) mod sprandom;
pub(crate) mod zones;

use crate::job::model::Distribution;
use frand::Frand;

/// xorshift64* generator: small, fast, reproducible from `randseed`.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// Seeded generator (splitmix64 of the seed, never 0).
    pub fn new(seed: u64) -> Self {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }
    /// Next 64 random bits.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `[0, n)` (n > 0), by multiply-shift.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }
    /// Uniform in `(0, 1]`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        ((self.next() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }
}

#[derive(Clone, Debug)]
enum Kind {
    Uniform,
    /// zipf, pareto, normal: drawn from the file's [`skew::Skew`], which both
    /// directions share (fio keeps one per file)
    Skewed,
    /// `zoned` (bounds in percent of the blocks) or `zoned_abs` (in bytes): each zone's
    /// cumulative access percent and its bounds
    Zones {
        abs: bool,
        z: Vec<(u32, u64, u64)>,
    },
    /// block indices in order; `stride`: later cycles add `cycle × len` to them
    Sequence {
        idx: Vec<u64>,
        stride: bool,
        pos: u64,
    },
}

/// Draws slot indices in `[0, n)` for one file region and direction.
#[derive(Clone, Debug)]
pub struct SlotGen {
    n: u64,
    /// `n` as a uniform draw below it takes it
    span: frand::Span,
    kind: Kind,
    /// the direction's offset unit (fio's `ba`), bytes: `zoned_abs` sizes are in it
    align: u64,
}

impl SlotGen {
    /// Generator over `n ≥ 1` slots of `align` bytes each.
    pub fn new(dist: &Distribution, n: u64, align: u64) -> SlotGen {
        let n = n.max(1);
        // cumulative access percents and each zone's bounds, fio's index table
        let zones = |abs: bool, z: Vec<(u32, u64)>| {
            let (mut acc, mut at) = (0u32, 0u64);
            let z = z
                .into_iter()
                .map(|(a, size)| {
                    acc += a;
                    at += size;
                    (acc, at - size, at)
                })
                .collect();
            Kind::Zones { abs, z }
        };
        let kind = match dist {
            Distribution::Random => Kind::Uniform,
            Distribution::Zipf(..) | Distribution::Pareto(..) | Distribution::Normal(..) => {
                Kind::Skewed
            }
            Distribution::Zoned(z) => {
                zones(false, z.iter().map(|&(a, r)| (a, u64::from(r))).collect())
            }
            Distribution::ZonedAbs(z) => zones(true, z.clone()),
            Distribution::Sequence(v) => Kind::Sequence {
                idx: v.clone(),
                stride: false,
                pos: 0,
            },
        };
        SlotGen {
            n,
            span: frand::Span::new(n),
            kind,
            align: align.max(1),
        }
    }

    /// `random_sequence_stride`: with a non-zero stride each cycle of a `sequence`
    /// distribution moves on by the sequence length (fio t/sequence.py: block =
    /// cycle × len + index); other distributions ignore it.
    pub fn sequence_stride(mut self, stride: u64) -> SlotGen {
        if let Kind::Sequence { stride: s, .. } = &mut self.kind {
            *s = stride != 0;
        }
        self
    }

    /// The number of slots drawn among (fio's `last_block`).
    pub fn slots(&self) -> u64 {
        self.n
    }

    /// The slots as a uniform draw below them takes them.
    #[inline(always)]
    pub(crate) fn span(&self) -> frand::Span {
        self.span
    }

    /// Whether this is the uniform distribution (the random map applies to it).
    pub fn uniform(&self) -> bool {
        matches!(self.kind, Kind::Uniform)
    }

    /// Whether slots come from the file's [`skew::Skew`] (zipf, pareto, normal), not
    /// from [`SlotGen::next`].
    pub fn skewed(&self) -> bool {
        matches!(self.kind, Kind::Skewed)
    }

    /// The next slot of a uniform, zoned or sequence generator, from fio's generators
    /// `d`: the offsets' (`random_state`) and the zones' (`zone_state`). A zone is drawn
    /// as `v` in 1..=100 (fio's `rand_between`), the zone whose cumulative access
    /// percent first reaches `v`; then a block inside it as a uniform offset over the
    /// zone's blocks — for `zoned` from `⌊start% · n / 100⌋`, `⌊n · (end% − start%) /
    /// 100⌋` blocks, for `zoned_abs` from `start / unit` to `end / unit`. None: a
    /// `zoned_abs` zone ends past the region (fio's "zoned_abs sizes exceed file size").
    pub(crate) fn next(&mut self, d: &mut frand::Draws) -> Option<u64> {
        let n = self.n;
        match &mut self.kind {
            Kind::Uniform | Kind::Skewed => Some(d.off.below_span(self.span)),
            Kind::Zones { abs, z } => {
                let v = d.zone.between(1, 100) as u32;
                let Some(&(_, lo, hi)) = z.iter().find(|x| x.0 >= v) else {
                    return Some(d.off.below(n));
                };
                let (first, blocks) = if *abs {
                    let (first, end) = (lo / self.align, hi / self.align);
                    if end > n {
                        return None;
                    }
                    (first, end - first)
                } else {
                    (lo * n / 100, n * (hi - lo) / 100)
                };
                Some(first + d.off.below(blocks))
            }
            Kind::Sequence { idx, stride, pos } => {
                let len = idx.len() as u64;
                let i = idx[(*pos % len) as usize];
                let base = if *stride { *pos / len * len } else { 0 };
                *pos += 1;
                // an index past the region wraps around it
                Some(base.wrapping_add(i) % n)
            }
        }
    }
}

/// Offset of the next sequential request of a file region `[start, start+len)`, whose
/// size is at least `need` bytes (the smallest size the request may take); `cursor` is
/// where the previous request ended plus the `rw=…:N` skip (`skip`, bytes, negative
/// goes backwards; `u64::MAX` = went below the start). None: the file is at its end
/// (fio 3.33 `get_next_offset`/`get_next_buflen`: the file is done).
///
/// fio's rules (fio 3.33 `get_next_seq_offset`, checked with `--write_iolog`): the size
/// is drawn after the offset among those that fit before the region's end
/// ([`BufLen::pick`]), so a pass moves exactly `len` bytes with `bsrange`/`bssplit`;
/// backwards (`rw=read:-8k`), the first request is at `start` and going below it wraps
/// to `start + len + skip` (for 4 KiB blocks, `read:-8k` over 64 KiB gives blocks 0,
/// 14, 13, …, 0: fio never reaches block 15).
pub fn seq_next(cursor: u64, (start, len): (u64, u64), need: u64, skip: i64) -> Option<u64> {
    let end = start + len;
    let o = if cursor == u64::MAX && skip < 0 {
        let back = (len as i128 + i128::from(skip)).max(0) as u64;
        start + back.min(len.saturating_sub(need))
    } else {
        cursor.max(start)
    };
    (o < end && o + need <= end).then_some(o)
}

/// The cursor after a sequential request of `bs` bytes at `o` (see [`seq_next`]).
pub fn seq_after(o: u64, bs: u64, skip: i64, start: u64) -> u64 {
    let next = o as i128 + bs as i128 + i128::from(skip);
    if next < start as i128 {
        u64::MAX
    } else {
        next as u64
    }
}

/// fio's choice of a request size (fio 3.33 `get_next_buflen`), made after the offset:
/// only a size that fits the `room` left before the region's end is issued.
///
/// - `bsrange=A-B`: `A + ⌊B·u⌋` (u uniform in [0, 1)), rounded down to a multiple of
///   `A` unless `bs_unaligned`, at most `B`: so `4k-10k` gives 4k, 8k and 10k about
///   40/40/20 %, as fio does.
/// - `bssplit`: the entries in fio's order — by percentage, ascending, ties in the
///   order given, zero weights skipped —; a draw `x` in [0, 100) takes the first entry
///   whose running sum of percentages passes `x` and that fits: an entry that does not
///   fit gives its share to the next one. The size is then rounded down to a multiple
///   of the smallest size (fio: `bssplit=4k/50:6k/50` issues only 4k) unless
///   `bs_unaligned`.
///
/// A size that does not fit is drawn again (fio's loop). Where no weighted size can fit
/// (the smallest has weight 0, fio would loop for ever), the room rounded down to the
/// smallest size is issued.
#[derive(Clone, Debug)]
pub struct BufLen {
    min: u64,
    max: u64,
    unaligned: bool,
    /// bssplit entries in fio's order (empty for a range or a fixed size)
    split: Vec<(u64, u32)>,
    /// the smallest size a draw can give (after rounding)
    least: u64,
}

impl BufLen {
    /// The sizes of one direction; `unaligned`: `bs_unaligned`.
    pub fn new(sizes: &crate::job::model::BlockSizes, unaligned: bool) -> BufLen {
        use crate::job::model::BlockSizes;
        let (min, max) = (sizes.min().max(1), sizes.max().max(1));
        let mut split = match sizes {
            BlockSizes::Split(v) => v.iter().copied().filter(|e| e.1 > 0).collect(),
            _ => Vec::new(),
        };
        // by weight as fio's `bs_cmp` compares them, as C `int`s (a weight left over from
        // a sum above 100 wraps to a negative one and comes first); stable, as glibc's
        // merge sort: ties keep their order
        split.sort_by_key(|e: &(u64, u32)| e.1 as i32);
        let mut b = BufLen {
            min,
            max,
            unaligned,
            split,
            least: min,
        };
        if let Some(l) = b.split.iter().map(|e| b.round(e.0)).min() {
            b.least = l;
        }
        b
    }

    /// Whether every request is one size.
    pub fn fixed(&self) -> bool {
        self.min == self.max
    }

    /// The smallest size.
    pub fn min(&self) -> u64 {
        self.min
    }

    fn round(&self, b: u64) -> u64 {
        let b = if self.unaligned {
            b
        } else {
            b / self.min * self.min
        };
        b.min(self.max)
    }

    /// A size of at most `room` bytes (`u64::MAX`: no end in sight); `room` is at least
    /// the smallest size. Drawn from `g`, the direction's generator (fio's
    /// `bsrange_state[ddir]`), with fio 3.33's arithmetic: a range's `min + ⌊max·r/(M+1)⌋`
    /// in doubles, a split's first entry whose running percentage `p` has `r / p ≤ M /
    /// 100` in integers (M the generator's largest value).
    pub(crate) fn pick(&self, g: &mut Frand, room: u64) -> u64 {
        if self.fixed() {
            return self.min;
        }
        if room < self.least {
            return (room / self.min * self.min).max(self.min);
        }
        let top = g.max();
        loop {
            let r = g.next();
            let raw = if self.split.is_empty() {
                self.min + (self.max as f64 * (r as f64 * g.unit_scale())) as u64
            } else {
                let (mut sum, mut b) = (0u64, 0);
                for &(s, p) in &self.split {
                    (b, sum) = (s, sum + u64::from(p));
                    if r / sum <= top / 100 && s <= room {
                        break;
                    }
                }
                b
            };
            let b = self.round(raw);
            if b <= room {
                return b;
            }
        }
    }
}

/// fio's random map: every slot once per pass. Two-level bitmap (a summary bit per full
/// word) so finding the next free slot costs O(n / 4096) words at worst.
#[derive(Clone, Debug)]
pub struct RandomMap {
    n: u64,
    used: u64,
    /// a whole pass was taken (every slot at least once)
    wrapped: bool,
    words: Vec<u64>,
    full: Vec<u64>,
    /// the slots as a random offset is drawn below them
    span: frand::Span,
}

impl RandomMap {
    /// Map of `n` free slots.
    pub fn new(n: u64) -> RandomMap {
        let w = n.div_ceil(64) as usize;
        RandomMap {
            n,
            used: 0,
            wrapped: false,
            words: vec![0; w],
            full: vec![0; w.div_ceil(64)],
            span: frand::Span::new(n),
        }
    }

    /// Distinct slots taken so far: all of them once a pass completed.
    pub fn covered(&self) -> u64 {
        if self.wrapped {
            self.n
        } else {
            self.used
        }
    }

    /// Number of slots.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// The slots as a draw below them takes them ([`frand::Frand::below_span`]).
    #[inline(always)]
    pub(crate) fn span(&self) -> frand::Span {
        self.span
    }

    /// Slots taken in this pass.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Whether every slot of this pass was taken.
    pub fn full(&self) -> bool {
        self.used >= self.n
    }

    /// Free every slot: a new pass (fio's `fio_file_reset`).
    pub fn reset(&mut self) {
        self.wrapped |= self.full();
        self.words.iter_mut().for_each(|w| *w = 0);
        self.full.iter_mut().for_each(|w| *w = 0);
        self.used = 0;
    }

    /// Whether the map has no slot.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    fn is_free(&self, slot: u64) -> bool {
        slot < self.n && self.words[(slot / 64) as usize] & (1 << (slot % 64)) == 0
    }

    fn mark(&mut self, slot: u64) {
        let wi = (slot / 64) as usize;
        self.words[wi] |= 1 << (slot % 64);
        if self.words[wi] == u64::MAX {
            self.full[wi / 64] |= 1 << (wi % 64);
        }
        self.used += 1;
    }

    /// Take a run of free slots starting at `want` (or at the next free slot after
    /// it): `(first slot, slots taken ≥ 1)`, at most `max`, stopped by a used slot or the
    /// map's end (fio's `axmap_set_nr`). So a pass covers each slot exactly once
    /// whatever the block sizes (fio shortens a request to the free blocks it finds).
    pub fn take_run(&mut self, want: u64, max: u64) -> (u64, u64) {
        let first = self.take(want);
        (first, self.extend(first, max))
    }

    /// After [`RandomMap::take`] gave `first`: take the free slots after it, up to `max`
    /// slots in all (`first` counted), stopping at a used slot or the map's end; the
    /// number of slots the run holds.
    pub fn extend(&mut self, first: u64, max: u64) -> u64 {
        let mut k = 1;
        while k < max && self.is_free(first + k) {
            self.mark(first + k);
            k += 1;
        }
        k
    }

    /// `want` if free, else the next free slot after it (wrapping), left free: what
    /// [`RandomMap::take`] would take, for a request the map does not count. The map
    /// must have a free slot.
    pub fn free_from(&self, want: u64) -> u64 {
        let mut wi = (want / 64) as usize;
        let mut bit = want % 64;
        loop {
            let free = !self.words[wi] & (u64::MAX << bit);
            if free != 0 {
                let slot = wi as u64 * 64 + u64::from(free.trailing_zeros());
                if slot < self.n {
                    return slot;
                }
            }
            wi = self.next_open_word(wi + 1);
            bit = 0;
        }
    }

    /// Take `want` if free, else the next free slot after it (wrapping); starts a new
    /// pass when every slot was used.
    #[inline(always)]
    pub fn take(&mut self, want: u64) -> u64 {
        if self.used >= self.n {
            self.wrapped = true;
            self.words.iter_mut().for_each(|w| *w = 0);
            self.full.iter_mut().for_each(|w| *w = 0);
            self.used = 0;
        }
        let mut wi = (want / 64) as usize;
        let mut bit = want % 64;
        // `want`'s own word first (the fast path is one load), then the next words that
        // are not full, found through the summary
        loop {
            let free = !self.words[wi] & (u64::MAX << bit);
            if free != 0 {
                let b = free.trailing_zeros() as u64;
                let slot = wi as u64 * 64 + b;
                if slot < self.n {
                    self.words[wi] |= 1 << b;
                    if self.words[wi] == u64::MAX {
                        self.full[wi / 64] |= 1 << (wi % 64);
                    }
                    self.used += 1;
                    return slot;
                }
            }
            wi = self.next_open_word(wi + 1);
            bit = 0;
        }
    }

    /// The first word at or after `from` (wrapping) whose summary bit says it is not
    /// full: one summary word covers 64 words, so a run of full words costs one step per
    /// 64 of them instead of one per word (clusters of taken slots grow as a pass fills,
    /// since a taken `want` moves on to the next free slot). A free slot must exist.
    #[inline]
    fn next_open_word(&self, from: usize) -> usize {
        let nw = self.words.len();
        let mut wi = if from >= nw { 0 } else { from };
        loop {
            let si = wi / 64;
            let open = !self.full[si] & (u64::MAX << (wi % 64));
            if open != 0 {
                let w = si * 64 + open.trailing_zeros() as usize;
                if w < nw {
                    return w;
                }
            }
            // past the last word: wrap
            wi = (si + 1) * 64;
            if wi >= nw {
                wi = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio's generators of a thread, seeded from `seed` (32 bits).
    fn fio_draws(seed: u64) -> frand::Draws {
        let g = |i: u64| Frand::new(seed + i, false);
        frand::Draws {
            off: g(0),
            bs: [g(1), g(2)],
            pct: [g(3), g(4), g(5)],
            zone: g(6),
        }
    }

    fn counts(d: &Distribution, n: u64, draws: usize) -> Vec<u64> {
        let mut g = SlotGen::new(d, n, 4096);
        let mut r = fio_draws(7);
        let mut c = vec![0u64; n as usize];
        for _ in 0..draws {
            c[g.next(&mut r).unwrap() as usize] += 1;
        }
        c
    }

    #[test]
    fn zoned_puts_accesses_in_their_zones() {
        let c = counts(
            &Distribution::Zoned(vec![(60, 10), (30, 20), (10, 70)]),
            1000,
            100_000,
        );
        let z1: u64 = c[..100].iter().sum();
        let z2: u64 = c[100..300].iter().sum();
        assert!((z1 as f64 / 1e5 - 0.6).abs() < 0.01);
        assert!((z2 as f64 / 1e5 - 0.3).abs() < 0.01);
        // inside a zone the blocks are uniform: 600 draws a block in the first zone
        let (lo, hi) = (
            c[..100].iter().min().unwrap(),
            c[..100].iter().max().unwrap(),
        );
        assert!(*lo > 450 && *hi < 750, "{lo}..{hi}");
        let c = counts(
            &Distribution::ZonedAbs(vec![(80, 4096 * 50), (20, 4096 * 950)]),
            1000,
            100_000,
        );
        assert!((c[..50].iter().sum::<u64>() as f64 / 1e5 - 0.8).abs() < 0.01);
    }

    #[test]
    fn zones_are_fios_percent_bounds_and_abs_zones_past_the_region_end_it() {
        // zoned over 10 blocks, zones of 33 % and 67 %: fio's bounds ⌊33·10/100⌋ = 3
        // and ⌊10·67/100⌋ = 6 blocks from there, so block 9 is never drawn
        let c = counts(&Distribution::Zoned(vec![(50, 33), (50, 67)]), 10, 20_000);
        assert_eq!(c[9], 0, "{c:?}");
        assert!(c[..3].iter().all(|&x| x > 2000) && c[3..9].iter().all(|&x| x > 1000));
        // zoned_abs past the region: None once that zone is drawn
        let mut g = SlotGen::new(
            &Distribution::ZonedAbs(vec![(50, 4096 * 8), (50, 4096 * 8)]),
            10,
            4096,
        );
        let mut r = fio_draws(3);
        let got: Vec<Option<u64>> = (0..50).map(|_| g.next(&mut r)).collect();
        assert!(
            got.contains(&None) && got.iter().flatten().all(|&b| b < 8),
            "{got:?}"
        );
    }

    #[test]
    fn same_seed_same_sequence() {
        let d = Distribution::Zoned(vec![(70, 30), (30, 70)]);
        let mut g = SlotGen::new(&d, 5000, 4096);
        let mut h = g.clone();
        let (mut a, mut b) = (fio_draws(42), fio_draws(42));
        let x: Vec<Option<u64>> = (0..100).map(|_| g.next(&mut a)).collect();
        let y: Vec<Option<u64>> = (0..100).map(|_| h.next(&mut b)).collect();
        assert_eq!(x, y);
        let mut c = fio_draws(43);
        let z: Vec<Option<u64>> = (0..100).map(|_| g.next(&mut c)).collect();
        assert_ne!(x, z);
    }

    #[test]
    fn random_map_covers_every_slot_once_per_pass() {
        for n in [1u64, 63, 64, 65, 5000] {
            let mut m = RandomMap::new(n);
            let mut r = Rng::new(3);
            let mut seen = vec![0u32; n as usize];
            for _ in 0..n {
                seen[m.take(r.below(n)) as usize] += 1;
            }
            assert!(seen.iter().all(|&s| s == 1), "n={n}");
            // next pass starts over
            seen.iter_mut().for_each(|s| *s = 0);
            for _ in 0..n {
                seen[m.take(r.below(n)) as usize] += 1;
            }
            assert!(seen.iter().all(|&s| s == 1), "n={n} pass 2");
        }
    }

    #[test]
    fn random_map_takes_the_first_free_slot_at_or_after_want() {
        // against a plain scan, over sizes that end inside a word and inside a summary
        // word (64 × 64 slots), through two passes
        for n in [1u64, 64, 65, 4096, 4161, 10_000] {
            let mut m = RandomMap::new(n);
            let mut taken = vec![false; n as usize];
            let mut r = Rng::new(11);
            for i in 0..2 * n {
                if i == n {
                    taken.iter_mut().for_each(|t| *t = false);
                }
                let want = r.below(n);
                let expect = (0..n)
                    .map(|k| (want + k) % n)
                    .find(|&s| !taken[s as usize])
                    .unwrap();
                taken[expect as usize] = true;
                assert_eq!(m.take(want), expect, "n={n} take {i} want {want}");
            }
        }
    }

    #[test]
    fn sequence_repeats_or_moves_on_by_its_length() {
        let d = Distribution::Sequence(vec![2, 0, 1]);
        let mut r = fio_draws(1);
        let mut g = SlotGen::new(&d, 12, 4096);
        let v: Vec<u64> = (0..6).flat_map(|_| g.next(&mut r)).collect();
        assert_eq!(v, [2, 0, 1, 2, 0, 1]);
        let mut g = SlotGen::new(&d, 8, 4096).sequence_stride(1);
        let v: Vec<u64> = (0..9).flat_map(|_| g.next(&mut r)).collect();
        // cycle 2 would be 8, 6, 7: past the 8 slots it wraps
        assert_eq!(v, [2, 0, 1, 5, 3, 4, 0, 6, 7]);
        assert!(!g.uniform());
    }

    #[test]
    fn seq_next_ends_the_file_where_the_smallest_size_no_longer_fits_and_wraps_backwards() {
        // 100k region, sizes from 4k: at 96k a request fits, at 100k the file is done
        assert_eq!(
            seq_next(96 << 10, (0, 100 << 10), 4 << 10, 0),
            Some(96 << 10)
        );
        assert_eq!(seq_next(100 << 10, (0, 100 << 10), 4 << 10, 0), None);
        // fixed 4k in a 10k region: 2k left is less than a block
        assert_eq!(seq_next(8 << 10, (0, 10 << 10), 4 << 10, 0), None);
        // read:-8k, 4k blocks, region [32k, 64k): 32k, then 56k, 52k, …
        let r = (32 << 10, 32 << 10);
        let o = seq_next(32 << 10, r, 4 << 10, -(8 << 10)).unwrap();
        let c = seq_after(o, 4 << 10, -(8 << 10), 32 << 10);
        assert_eq!((o, c), (32 << 10, u64::MAX));
        let o = seq_next(c, r, 4 << 10, -(8 << 10)).unwrap();
        assert_eq!(
            (o, seq_after(o, 4 << 10, -(8 << 10), 32 << 10)),
            (56 << 10, 52 << 10)
        );
    }

    #[test]
    fn take_run_stops_at_used_slots_and_covers_a_pass_once() {
        let mut m = RandomMap::new(10);
        assert_eq!(m.take(3), 3);
        // 0, 1, 2 then 3 is used
        assert_eq!(m.take_run(0, 4), (0, 3));
        // the map ends at 10
        assert_eq!(m.take_run(8, 4), (8, 2));
        // 8, 9 are used: the next free slot, 4, and the run after it up to 6 slots
        assert_eq!(m.take_run(8, 1), (4, 1));
        assert_eq!(m.take_run(5, 6), (5, 3));
        // every slot was taken once: a new pass starts
        assert_eq!(m.take_run(0, 4), (0, 4));
        // extend after a take: 4 and 5 are free, 6 is not
        let mut m = RandomMap::new(10);
        m.take(6);
        let first = m.take(4);
        assert_eq!((first, m.extend(first, 8)), (4, 2));
        assert_eq!(m.used(), 3);
    }

    /// Shares of each size over `n` draws of `b` with `room`.
    fn shares(b: &BufLen, room: u64, n: u32) -> BTreeMap<u64, f64> {
        let mut r = Frand::new(5, false);
        let mut c = BTreeMap::new();
        for _ in 0..n {
            *c.entry(b.pick(&mut r, room)).or_insert(0.0) += 1.0 / f64::from(n);
        }
        c
    }

    fn near(got: &BTreeMap<u64, f64>, want: &[(u64, f64)]) {
        let sizes: Vec<u64> = got.keys().copied().collect();
        let wanted: Vec<u64> = want.iter().map(|w| w.0).collect();
        assert_eq!(sizes, wanted, "{got:?}");
        for (b, p) in want {
            assert!((got[b] - p).abs() < 0.01, "{b}: {got:?} vs {want:?}");
        }
    }

    use crate::job::model::BlockSizes;
    use std::collections::BTreeMap;
    const K: u64 = 1024;

    #[test]
    fn buflen_draws_a_range_as_fio_does() {
        // 4k + ⌊10k·u⌋ rounded down to 4k, at most 10k: 4k for u < .4, 8k for u < .8
        let b = BufLen::new(&BlockSizes::Range(4 * K, 10 * K), false);
        near(
            &shares(&b, u64::MAX, 100_000),
            &[(4 * K, 0.4), (8 * K, 0.4), (10 * K, 0.2)],
        );
        // only what fits is issued: 4k and 8k, drawn again when 10k came
        near(&shares(&b, 9 * K, 100_000), &[(4 * K, 0.5), (8 * K, 0.5)]);
        // bs_unaligned: any byte count, the 0.4 past 10k all at 10k
        let u = BufLen::new(&BlockSizes::Range(4 * K, 10 * K), true);
        let s = shares(&u, u64::MAX, 100_000);
        assert!((s[&(10 * K)] - 0.4).abs() < 0.01, "{:?}", s.get(&(10 * K)));
        assert!(s.len() > 1000);
        assert!(BufLen::new(&BlockSizes::Fixed(8 * K), false).fixed());
    }

    #[test]
    fn buflen_gives_a_split_size_that_does_not_fit_to_the_next_by_percentage() {
        let split = BlockSizes::Split(vec![(4 * K, 50), (64 * K, 30), (1024 * K, 20)]);
        let b = BufLen::new(&split, false);
        near(
            &shares(&b, u64::MAX, 100_000),
            &[(4 * K, 0.5), (64 * K, 0.3), (1024 * K, 0.2)],
        );
        // in percentage order 1m/20, 64k/30, 4k/50: 1m's share goes to 64k
        near(
            &shares(&b, 1000 * K, 100_000),
            &[(4 * K, 0.5), (64 * K, 0.5)],
        );
        near(&shares(&b, 60 * K, 10_000), &[(4 * K, 1.0)]);
        // ties keep the order given: 4k/20, 8k/40, 64k/40; with 32k of room 64k is drawn
        // again, so 4k has 20/60 (and 20/100 if 64k came before 8k)
        let tie = BlockSizes::Split(vec![(8 * K, 40), (4 * K, 20), (64 * K, 40)]);
        near(
            &shares(&BufLen::new(&tie, false), 32 * K, 100_000),
            &[(4 * K, 1.0 / 3.0), (8 * K, 2.0 / 3.0)],
        );
        // sizes are rounded down to the smallest one unless bs_unaligned
        let odd = BlockSizes::Split(vec![(4 * K, 50), (6 * K, 50)]);
        near(
            &shares(&BufLen::new(&odd, false), u64::MAX, 1000),
            &[(4 * K, 1.0)],
        );
        near(
            &shares(&BufLen::new(&odd, true), u64::MAX, 100_000),
            &[(4 * K, 0.5), (6 * K, 0.5)],
        );
        // no weighted size fits: the room, in whole smallest sizes
        let zero = BlockSizes::Split(vec![(4 * K, 0), (64 * K, 100)]);
        near(
            &shares(&BufLen::new(&zero, false), 10 * K, 100),
            &[(8 * K, 1.0)],
        );
    }
}
