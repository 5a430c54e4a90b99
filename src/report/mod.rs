//! Reporters: one file per output format. Every reporter reads only the run's
//! statistics / [`json::RunResult`]; none of them measures anything.

pub mod console;
pub mod diagnose_text;
pub mod json;
pub mod notes;
pub mod sysbench;
