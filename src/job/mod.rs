//! The common language between front ends and execution: validated job descriptions.
//!
//! Everything here is pure (no I/O): values are parsed and checked, nothing is opened.

pub mod fileio;
pub mod fio;
pub mod fio_apply;
pub mod fio_control;
pub mod fio_extra;
pub mod fio_ini;
pub mod fio_keys;
pub mod fio_showcmd;
pub mod fio_keys_verify;
pub mod fio_units;
pub mod fio_zone_keys;
pub mod values;
