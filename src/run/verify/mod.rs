//! Data verification formats: sysbench's `--validate` block trailer (sysbench.rs) and
//! fio's `verify=` headers and checksums (fio.rs). Both stamp a block before it is
//! written and check it after it is read back. `state.rs` is fio's verify state file
//! (`verify_state_save`/`verify_state_load`): which writes a job had completed.

pub mod fio;
pub mod state;
pub mod sysbench;
