//! Execution: request generators, workers, stop conditions, rate limiting, signals.

pub mod control;
pub mod copy;
pub mod fio;
pub mod gen;
pub mod mark;
pub mod sampler;
pub mod signals;
pub mod sysbench;
pub mod tree;
pub mod verify;
pub mod worker;

/// The latency clock of a run on this machine: the TSC when the kernel's clock source
/// allows it (read through [`crate::probe::Root`]), else `Instant`.
pub fn clock() -> crate::stats::clock::Clock {
    let root = crate::probe::Root::default();
    crate::stats::clock::Clock::calibrated(crate::probe::system::tsc_clocksource(&root.sys()))
}
