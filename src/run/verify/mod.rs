//! Data verification formats: sysbench's `--validate` block trailer (sysbench.rs) and
//! fio's `verify=` headers and checksums (fio.rs). Both stamp a block before it is
//! written and check it after it is read back.

pub mod fio;
pub mod sysbench;
