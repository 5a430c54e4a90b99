//! The latency clock. On x86-64 machines whose kernel clocksource is the TSC (constant
//! and non-stop, so synchronised across cores), latencies are read with `rdtsc` and
//! converted with a factor calibrated against CLOCK_MONOTONIC: about 3× cheaper than a
//! vDSO `clock_gettime`, which matters at a million events per second. Elsewhere it
//! falls back to `Instant` (CLOCK_MONOTONIC). Whether the TSC qualifies is a fact of the
//! machine, read through `probe::Root` by the caller (`probe::system::tsc_clocksource`,
//! wrapped by `run::clock`): this module reads no file.

use std::time::{Duration, Instant};

/// A calibrated tick source; ticks are opaque, convert with [`Clock::ns`].
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    tsc: bool,
    origin: Instant,
    /// nanoseconds per tick × 2^32 (fixed point)
    ns_per_tick_q32: u64,
}

#[inline(always)]
fn rdtsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no preconditions on x86-64.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

impl Clock {
    /// Calibrate (takes about 10 ms when the TSC is used). `tsc_clocksource`: the
    /// machine's clock source is a constant, non-stop TSC (ignored off x86-64).
    pub fn calibrated(tsc_clocksource: bool) -> Clock {
        let origin = Instant::now();
        if tsc_clocksource && cfg!(target_arch = "x86_64") {
            let (t0, c0) = (Instant::now(), rdtsc());
            std::thread::sleep(Duration::from_millis(10));
            let (t1, c1) = (Instant::now(), rdtsc());
            let ns = (t1 - t0).as_nanos() as f64;
            let ticks = c1.wrapping_sub(c0) as f64;
            if ticks > 0.0 && ns > 0.0 {
                return Clock {
                    tsc: true,
                    origin,
                    ns_per_tick_q32: (ns / ticks * 4_294_967_296.0) as u64,
                };
            }
        }
        Clock {
            tsc: false,
            origin,
            ns_per_tick_q32: 1 << 32,
        }
    }

    /// Whether the TSC is used.
    pub fn uses_tsc(&self) -> bool {
        self.tsc
    }

    /// Current ticks.
    #[inline(always)]
    pub fn now(&self) -> u64 {
        if self.tsc {
            rdtsc()
        } else {
            self.origin.elapsed().as_nanos() as u64
        }
    }

    /// Nanoseconds between two tick readings (0 if `b` precedes `a`).
    #[inline(always)]
    pub fn ns(&self, a: u64, b: u64) -> u64 {
        let d = b.saturating_sub(a);
        ((u128::from(d) * u128::from(self.ns_per_tick_q32)) >> 32) as u64
    }

    /// Ticks equivalent to `d` (for deadlines).
    pub fn ticks(&self, d: Duration) -> u64 {
        ((d.as_nanos() << 32) / u128::from(self.ns_per_tick_q32.max(1))) as u64
    }

    /// Ticks at the instant `t` (which must not precede the calibration).
    pub fn at(&self, t: Instant) -> u64 {
        let now_t = Instant::now();
        let now_c = self.now();
        if t >= now_t {
            now_c + self.ticks(t - now_t)
        } else {
            now_c.saturating_sub(self.ticks(now_t - t))
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn measures_a_sleep_within_two_percent() {
        // the clock this machine's clock source chooses: run/mod.rs tests `run::clock`
        measures_a_sleep(Clock::calibrated(false));
    }

    /// `c` times a 50 ms sleep within 2 % of CLOCK_MONOTONIC.
    pub(crate) fn measures_a_sleep(c: Clock) {
        let a = c.now();
        let t = Instant::now();
        std::thread::sleep(Duration::from_millis(50));
        let b = c.now();
        let real = t.elapsed().as_nanos() as f64;
        let got = c.ns(a, b) as f64;
        assert!(
            (got - real).abs() / real < 0.02,
            "clock {got} ns vs monotonic {real} ns (tsc {})",
            c.uses_tsc()
        );
    }

    #[test]
    fn ticks_round_trip() {
        ticks_round_trip_on(Clock::calibrated(false));
    }

    /// 10 ms in `c`'s ticks converts back to 10 ms (within 10 µs).
    pub(crate) fn ticks_round_trip_on(c: Clock) {
        let t = c.ticks(Duration::from_millis(10));
        let ns = c.ns(0, t);
        assert!((ns as i64 - 10_000_000).abs() < 10_000, "{ns}");
    }
}
