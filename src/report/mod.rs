//! Reporters: one file per output format. Every reporter reads only the run's
//! statistics / [`json::RunResult`]; none of them measures anything.

pub mod compare;
pub mod compare_render;
pub mod diagnose_text;
pub mod fio;
pub mod notes;
pub mod svg_compare;
pub mod svg_plot;
pub mod sysbench;
