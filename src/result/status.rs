//! A snapshot of a running `iomark run` for fio's status line (fio 3.33 `struct
//! jobs_eta`): what the run (src/run/fio/status.rs) measures every refresh and the
//! reporter (src/report/fio/eta.rs) prints as `Jobs: 1 (f=1): [r(1)][50.0%][r=96.5MiB/s]
//! [r=24.7k IOPS][eta 00m:08s]`. Plain data, so the run never depends on the reporter and
//! a signal handler's status dump (fio's SIGUSR1) can render the same snapshot.

/// What fio's status line shows at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobsEta {
    /// threads running I/O, ramping, fsyncing, verifying or finishing
    pub nr_running: u32,
    /// of them, ramping (`ramp_time`)
    pub nr_ramp: u32,
    /// threads not started yet (a later stonewall group, `startdelay`, `wait_for`)
    pub nr_pending: u32,
    /// files open by the running threads (`f=`)
    pub files_open: u32,
    /// the running threads' `rate` limits, bytes/s: (minimum `ratemin`, target `rate`)
    pub rate_limits: (u64, u64),
    /// the running threads' `rate_iops` limits: (minimum `rate_iops_min`, target)
    pub iops_limits: (u64, u64),
    /// one character per thread, in thread order (`P` pending, `r`/`R`/`w`/`W`/`m`/`M`
    /// running, `/` ramping, `F` fsyncing, `V` verifying, `f` finishing, `_` done, `X`
    /// failed, `K` stopped by a signal), condensed by the reporter
    pub states: String,
    /// seconds since the run started, rounded up (fio's `elapsed_sec`)
    pub elapsed_s: u64,
    /// seconds left; `None` while fio does not estimate (the first 3 s of the run)
    pub eta_s: Option<u64>,
    /// read, write, trim rate since the last line, KiB/s
    pub rate_kib: [u64; 3],
    /// read, write, trim IOPS since the last line
    pub iops: [u64; 3],
    /// binary prefixes (no job with `kb_base=1000`)
    pub pow2: bool,
    /// rates in bits per second (`unit_base=1`)
    pub bits: bool,
}
