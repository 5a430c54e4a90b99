//! Exit codes, in one place (DESIGN.md "Error and exit-code policy").
//!
//! `fileio` keeps sysbench 1.0.20's own codes where sysbench defines them (1 for nearly
//! every error, 2 for a forced shutdown); errors that sysbench does not have use the
//! project-wide codes below.

/// Success.
pub const OK: i32 = 0;
/// A run that failed (I/O error, validation mismatch); also sysbench's code for every
/// `FATAL:` validation message, which `fileio` keeps.
pub const FAILED: i32 = 1;
/// Invalid options or input that sysbench itself would not reject (iomark's fixes of
/// sysbench bugs), and `--forced-shutdown` expiry (sysbench's own code 2).
pub const INVALID: i32 = 2;
/// The environment cannot do what was asked: not enough space, O_DIRECT unsupported,
/// open-file limit too low, io_uring not permitted.
pub const ENVIRONMENT: i32 = 3;
/// Interrupted by SIGINT (partial results still printed and saved).
pub const SIGINT: i32 = 130;
/// Terminated by SIGTERM (partial results still printed and saved).
pub const SIGTERM: i32 = 143;
