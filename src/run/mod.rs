//! Execution: request generators, workers, stop conditions, rate limiting, signals.

pub mod copy;
pub mod fileio;
pub mod fileio_gen;
pub mod fileio_worker;
pub mod fio;
pub mod fio_cpu;
pub mod fio_errors;
pub mod fio_gen;
pub mod fio_log;
pub mod fio_verify;
pub mod fio_worker;
pub mod mark;
pub mod mark_presets;
pub mod rng;
pub mod sampler;
pub mod signals;
pub mod tree;
pub mod verify;
