//! Reporters: one file per output format, each implementing [`Reporter`] over the
//! [`RunResult`] (hyperfine's exporter pattern): sysbench's text (`sysbench.rs`), fio's
//! normal text and JSON/json+ (`fio/text.rs`, `fio/json.rs`), iomark's JSON
//! (`iomark_json.rs`), the mark table, copy and tree text, the SVG charts, compare's
//! table/markdown/csv/json/svg (over many results), the notes and the diagnose text.
//! None of them measures anything or reads anything but its input; live lines printed
//! while a command runs (interval and status lines, progress bars) are not reporters.
//! The output manager that declares the outputs before a run and writes them at the end
//! is cli/output.rs, which writes the charts' files too; this room renders bytes only.

pub mod compare;
pub mod compare_render;
pub mod copy_text;
pub mod diagnose_text;
pub mod escape;
pub mod fio;
pub mod history;
pub mod html;
pub mod iomark_json;
pub mod mark_table;
pub mod markdown;
pub mod md_escape;
pub mod notes;
pub mod openmetrics;
pub mod svg_compare;
pub mod svg_plot;
pub mod sysbench;
pub mod sysbench_hist;
pub mod time_text;
pub mod tree_text;
pub mod why;

use crate::result::RunResult;

/// Why a reporter produced nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportError {
    /// the result holds nothing this reporter shows (a chart without samples)
    Empty,
    /// rendering failed, with one line saying why
    Failed(String),
}

impl std::fmt::Display for ReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReportError::Empty => f.write_str("nothing to report"),
            ReportError::Failed(why) => f.write_str(why),
        }
    }
}

/// One output format: renders its input (one result; `compare`'s: many) to bytes.
pub trait Reporter<In: ?Sized = RunResult> {
    /// The output for `input`.
    fn render(&self, input: &In) -> Result<Vec<u8>, ReportError>;

    /// What the output prints before the run's first I/O (fio's header lines), from
    /// `input` as it stands then; a reporter that gives them leaves them out of its
    /// later renders. None by default.
    fn lead(&self, _input: &In) -> Vec<u8> {
        Vec::new()
    }
}

/// A one-phase `copy` result with one `target.memory_fs` warning saying `message`: the
/// reporters' tests render it.
#[cfg(test)]
pub(crate) fn copy_result_warned(message: &str) -> RunResult {
    let mut i = crate::result::Inputs::new("copy", &[], crate::result::Status::Ok);
    i.phases = vec![crate::result::Phase::new(
        "buffered_128k",
        10,
        10_000_000,
        1.0,
    )];
    i.warnings = vec![crate::result::Warning {
        id: "target.memory_fs".into(),
        message: message.into(),
    }];
    crate::result::build(i)
}
