//! `iomark copy` and `iomark tree`.

mod runs;
mod totals;
