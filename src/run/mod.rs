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

