//! iomark's own JSON: the [`RunResult`] as written by `--json=FILE` (pretty printed, a
//! final newline; the schema in result/mod.rs).

use crate::report::{ReportError, Reporter};
use crate::result::RunResult;

/// The result as iomark JSON.
pub struct IomarkJson;

impl Reporter for IomarkJson {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        Ok(crate::result::json_bytes(r))
    }
}
