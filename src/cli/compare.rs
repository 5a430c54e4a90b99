//! `iomark compare A.json B.json [C.json …]` front end: flags → loaded results →
//! [`crate::report::compare`]. Bad input (unreadable, not JSON, not an iomark
//! RunResult, a newer `schema_version`) is one line on stderr and exit code 2.

use crate::cli::copy::clap_exit;
use crate::util::error::exit;
use crate::report::compare::{self, Compare, Format};
use crate::report::svg_compare::CompareChart;
use crate::report::Reporter;
use crate::util::color::When;
use clap::Parser;
use std::path::PathBuf;

/// Command-line options of `iomark compare`.
#[derive(Debug, Parser)]
#[command(
    name = "iomark compare",
    version,
    about = "How do these results differ? iomark's and fio's results side by side, ratios, call-outs where the jobs differ",
    after_help = "Example (two drives, each measured with `iomark mark DIR --json=FILE`):
  iomark compare old.json new.json --label=old --label=new

Reads iomark's RunResult files (--json=FILE of fileio, run, mark, copy, tree) and fio's JSON and
text reports. Ratios are column / first column; the last column says where the jobs differ (block
size, queue depth, O_DIRECT or buffered, a file set that fits in the page cache). On a terminal
ratios are coloured (green faster, red slower); --color=never or NO_COLOR turns colour off."
)]
pub struct Args {
    /// Result files: iomark's --json=FILE, fio's JSON or text reports (two or more; one is
    /// accepted and just tabulated).
    #[arg(required = true, value_name = "RESULT.json", value_hint = clap::ValueHint::FilePath)]
    pub files: Vec<PathBuf>,
    /// Column label, once per file in order (default: the device model of the result's
    /// diagnosis, else the file name).
    #[arg(long = "label", value_name = "NAME")]
    pub labels: Vec<String>,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = ["table", "markdown", "csv", "json"])]
    pub format: String,
    /// Also write a grouped-bar chart (MB/s and IOPS per test, one bar per file) as SVG.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Colour in the table: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = color_when())]
    pub color: When,
}

/// The value parser of `--color` (mark, compare, diagnose): its words, for the help and
/// completions, mapped to [`When`].
pub fn color_when() -> impl clap::builder::TypedValueParser<Value = When> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(crate::util::color::WHEN_WORDS)
        .map(|s: String| When::parse(&s).unwrap_or_default())
}

/// Run `iomark compare` with the arguments after the command word; returns the exit code.
pub fn run(args: &[String]) -> i32 {
    let argv = std::iter::once("iomark compare".to_string()).chain(args.iter().cloned());
    let a = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => return clap_exit("compare", e),
    };
    if a.labels.len() > a.files.len() {
        eprintln!(
            "iomark compare: {} --label values for {} files (give at most one per file)",
            a.labels.len(),
            a.files.len()
        );
        return exit::INVALID;
    }
    let mut results = vec![];
    for f in &a.files {
        match compare::load(f) {
            Ok(r) => results.push(r),
            Err(e) => {
                eprintln!("iomark compare: {e}");
                return exit::INVALID;
            }
        }
    }
    let files: Vec<String> = a.files.iter().map(|f| f.display().to_string()).collect();
    let labels = compare::labels(&a.labels, &files, &results);
    let format = match a.format.as_str() {
        "markdown" => Format::Markdown,
        "csv" => Format::Csv,
        "json" => Format::Json,
        _ => Format::Table,
    };
    if let Some(p) = &a.plot {
        // checked (exit 3), drawn, written (exit 1): old content or the complete chart
        let fail = |e: &dyn std::fmt::Display, code: i32| {
            eprintln!("iomark compare: cannot write --plot={}: {e}", p.display());
            code
        };
        let out = match crate::files::output::Output::create(p) {
            Ok(o) => o,
            Err(e) => return fail(&e, e.exit_code()),
        };
        let chart = CompareChart {
            labels: labels.clone(),
            files: files.clone(),
        };
        let svg = match chart.render(&results) {
            Ok(s) => s,
            Err(e) => return fail(&e, exit::FAILED),
        };
        if let Err(e) = out.commit(&svg) {
            return fail(&e, e.exit_code());
        }
    }
    let report = Compare {
        labels,
        files,
        format,
        paint: crate::util::color::Paint::new(a.color),
    };
    if let Ok(text) = report.render(&results) {
        crate::util::output::write(&text);
    }
    exit::OK
}
