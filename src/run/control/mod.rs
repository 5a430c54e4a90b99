//! Job control that reaches across job threads: fio's `flow` shares, steady-state
//! termination and the `latency_target` depth search. Each runs beside the worker loop
//! (src/run/worker/) and is consulted per request or per check interval.

pub mod flow;
pub mod lat_target;
pub mod steady;
