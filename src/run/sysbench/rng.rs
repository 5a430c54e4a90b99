//! sysbench 1.0.20's random number generators, reproduced so that `--rand-seed=S` with
//! one worker thread yields the same request sequence as sysbench.
//!
//! The process-wide seed source is glibc's `srandom`/`random` (TYPE_3 additive feedback,
//! degree 31); each thread seeds a xoroshiro128+ (55/14/36 parameter set) from four
//! consecutive `random()` values.

/// glibc `random()` state after `srandom(seed)`.
#[derive(Clone, Debug)]
pub struct GlibcRandom {
    state: [i32; 31],
    f: usize,
    r: usize,
}

impl GlibcRandom {
    /// `srandom(seed)`.
    pub fn new(seed: u32) -> Self {
        let mut state = [0i32; 31];
        state[0] = if seed == 0 { 1 } else { seed as i32 };
        for i in 1..31 {
            let hi = state[i - 1] / 127_773;
            let lo = state[i - 1] % 127_773;
            let mut word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            state[i] = word;
        }
        let mut g = GlibcRandom { state, f: 3, r: 0 };
        for _ in 0..310 {
            g.random();
        }
        g
    }

    /// `random()`: a value in `0..2^31`.
    pub fn random(&mut self) -> u32 {
        self.state[self.f] = self.state[self.f].wrapping_add(self.state[self.r]);
        let out = (self.state[self.f] as u32) >> 1;
        self.f = (self.f + 1) % 31;
        self.r = (self.r + 1) % 31;
        out
    }
}

/// xoroshiro128+ with sysbench's rotation constants (55, 14, 36).
#[derive(Clone, Debug)]
pub struct Xoroshiro128Plus {
    s: [u64; 2],
}

impl Xoroshiro128Plus {
    /// Seed a thread's generator the sysbench way: `s0 = a<<32 | b`, `s1 = c<<32 | d`
    /// from four `random()` values.
    pub fn from_glibc(g: &mut GlibcRandom) -> Self {
        let a = u64::from(g.random());
        let b = u64::from(g.random());
        let c = u64::from(g.random());
        let d = u64::from(g.random());
        Xoroshiro128Plus {
            s: [(a << 32) | b, (c << 32) | d],
        }
    }

    /// Next 64-bit output.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s0 = self.s[0];
        let mut s1 = self.s[1];
        let result = s0.wrapping_add(s1);
        s1 ^= s0;
        self.s[0] = s0.rotate_left(55) ^ s1 ^ (s1 << 14);
        self.s[1] = s1.rotate_left(36);
        result
    }

    /// Uniform double in [0, 1) with 52 bits, built as sysbench does (mantissa from the
    /// top 52 bits, exponent of 1.0, minus 1.0).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        f64::from_bits(0x3FF0_0000_0000_0000 | (self.next_u64() >> 12)) - 1.0
    }

    /// Fill `buf` with pseudo-random bytes (8 per draw).
    pub fn fill(&mut self, buf: &mut [u8]) {
        let mut chunks = buf.chunks_exact_mut(8);
        for c in &mut chunks {
            c.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        let rest = chunks.into_remainder();
        let v = self.next_u64().to_le_bytes();
        let n = rest.len();
        rest.copy_from_slice(&v[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glibc_random_matches_known_sequence() {
        // glibc: srandom(1); random() x3 = 1804289383, 846930886, 1681692777.
        let mut g = GlibcRandom::new(1);
        assert_eq!(
            [g.random(), g.random(), g.random()],
            [1804289383, 846930886, 1681692777]
        );
        // srandom(0) behaves as srandom(1).
        let mut z = GlibcRandom::new(0);
        assert_eq!(z.random(), 1804289383);
    }

    #[test]
    fn doubles_are_in_unit_interval() {
        let mut g = GlibcRandom::new(42);
        let mut x = Xoroshiro128Plus::from_glibc(&mut g);
        for _ in 0..10_000 {
            let d = x.next_f64();
            assert!((0.0..1.0).contains(&d));
        }
    }

    #[test]
    fn fill_covers_odd_lengths() {
        let mut g = GlibcRandom::new(7);
        let mut x = Xoroshiro128Plus::from_glibc(&mut g);
        let mut b = [0u8; 13];
        x.fill(&mut b);
        assert!(b.iter().any(|&v| v != 0));
    }
}
