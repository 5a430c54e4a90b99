//! Failures under the test-only fault injector (`IOMARK_FAULT`) and real ENOSPC.

mod failed;
mod fileio;
mod run;
