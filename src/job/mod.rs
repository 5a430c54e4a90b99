//! The common language between front ends and execution: validated job descriptions.
//!
//! Everything here is pure (no I/O): values are parsed and checked, nothing is opened.

pub mod fio;
pub mod model;
pub mod presets;
pub mod sysbench;
pub mod thread;
pub mod units;
pub mod values;
