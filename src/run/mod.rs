//! Execution: request generators, workers, stop conditions, rate limiting, signals.

pub mod control;
pub mod copy;
pub mod fio;
pub mod gen;
pub mod live;
pub mod mark;
pub mod sampler;
pub mod signals;
pub mod sysbench;
pub mod time;
pub mod tree;
pub mod verify;
pub mod worker;

/// The latency clock of a run on this machine: the TSC when the kernel's clock source
/// allows it (read through [`crate::probe::Root`]), else `Instant`.
pub fn clock() -> crate::stats::clock::Clock {
    let root = crate::probe::Root::default();
    crate::stats::clock::Clock::calibrated(crate::probe::system::tsc_clocksource(&root.sys()))
}

/// What every run needs set up once at process start: the test-only fault plan
/// (`IOMARK_FAULT`, engine/fault.rs) and the test-only recorded machine of the sampler
/// (`IOMARK_TEST_PROBE_ROOT`, [`crate::probe::test_root`]); a malformed value of either
/// is refused with exit 2.
pub fn init() -> Result<(), crate::util::error::Error> {
    // every command handles the stop signals from its start (src/run/signals.rs)
    signals::Signals::install();
    let invalid = |e: String| crate::util::error::Error::new(crate::util::error::exit::INVALID, e);
    crate::engine::fault::init().map_err(invalid)?;
    crate::probe::test_root().map(drop).map_err(invalid)
}

#[cfg(test)]
mod tests {
    /// The clock chosen for this machine (the TSC here when its clock source allows)
    /// times as well as the fallback.
    #[test]
    fn machine_clock_measures_a_sleep_and_round_trips() {
        crate::stats::clock::tests::measures_a_sleep(super::clock());
        crate::stats::clock::tests::ticks_round_trip_on(super::clock());
    }
}
