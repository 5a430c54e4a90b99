//! `iomark report RESULT…` front end: results (files or `history:ID`, loaded as
//! `compare` loads them) rendered in a format to share: `--format=html` (report/html.rs,
//! one self-contained page), `--format=markdown` (report/markdown.rs, the page's content
//! for a forum post) or `--format=openmetrics` (report/openmetrics.rs, Prometheus
//! textfile-collector metrics), to stdout (also `-o -`) or `-o FILE` (written through
//! files/output.rs: old content or the complete new one). Without `--format`, a FILE
//! ending in `.html` gets the page, `.md` the markdown, anything else the metrics.

use crate::cli::clap_common::clap_exit;
use crate::cli::output::Sink;
use crate::report::html::HtmlReport;
use crate::report::markdown::MarkdownReport;
use crate::report::openmetrics::OpenMetrics;
use crate::report::Reporter;
use crate::util::error::{exit, Error, Exit};
use clap::Parser;
use std::path::PathBuf;

/// Command-line options of `iomark report`.
#[derive(Debug, Parser)]
#[command(
    name = "iomark report",
    version,
    about = "Share results: one self-contained HTML page, markdown for a forum post, or Prometheus/OpenMetrics metrics",
    after_help = "Examples:
  iomark report history:last a.json b.json -o report.html
  iomark report history:last a.json --format=markdown
  iomark report history:last --format=openmetrics -o /var/lib/node_exporter/iomark.prom

Reads what compare reads: iomark's RunResult files, fio's JSON and text reports, and kept runs
(history:ID, history:last; see iomark history)."
)]
pub struct Args {
    /// Results: iomark's --json=FILE, fio's JSON or text reports, history:ID.
    #[arg(required = true, value_name = "RESULT")]
    pub inputs: Vec<PathBuf>,
    /// Output format (default: html for `-o FILE.html`, markdown for `-o FILE.md`, else
    /// openmetrics).
    #[arg(long, value_parser = ["html", "markdown", "openmetrics"])]
    pub format: Option<String>,
    /// Write to FILE instead of stdout (replaced atomically, never through a link; `-`:
    /// stdout).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// A column label of a result's name: a file's stem, a history name as it is.
fn short_name(n: &str) -> String {
    std::path::Path::new(n)
        .file_stem()
        .map_or_else(|| n.to_string(), |s| s.to_string_lossy().into_owned())
}

/// The output option as the user typed it (`--output` or `-o`), for the messages that
/// name it; `-o` when it is not given.
fn output_as_typed(args: &[String]) -> &'static str {
    args.iter()
        .take_while(|w| *w != "--")
        .find_map(|w| {
            if w == "--output" || w.starts_with("--output=") {
                Some("--output")
            } else if w.starts_with("-o") {
                Some("-o")
            } else {
                None
            }
        })
        .unwrap_or("-o")
}

/// Per result, what the earlier kept runs of its device and test say of it when it is a
/// kept run (`history:ID`): its regression findings, else that there is none (the
/// sentences of report/history.rs `against_earlier`); nothing for a file.
fn against_earlier(
    inputs: &[PathBuf],
    names: &[String],
    results: &[crate::result::RunResult],
) -> Vec<Vec<String>> {
    let kept = |f: &PathBuf| f.to_str().is_some_and(|s| s.starts_with("history:"));
    let entries: Vec<_> = match inputs.iter().any(kept) {
        true => crate::cli::history::load_all()
            .map(|all| all.into_iter().map(|(e, _)| e).collect())
            .unwrap_or_default(),
        false => vec![],
    };
    inputs
        .iter()
        .zip(names)
        .zip(results)
        .map(|((f, name), r)| {
            if !kept(f) {
                return vec![];
            }
            let before = crate::report::history::earlier(&entries, r, Some(name));
            let rs: Vec<&crate::result::RunResult> = before.iter().map(|e| &e.result).collect();
            crate::report::history::against_earlier(r, &rs)
        })
        .collect()
}

/// Run `iomark report` with the arguments after the command word.
pub fn run(args: &[String]) -> Exit {
    let argv = std::iter::once("iomark report".to_string()).chain(args.iter().cloned());
    let a = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => return clap_exit("report", e),
    };
    let fail =
        |code: i32, e: &dyn std::fmt::Display| Error::new(code, format!("iomark report: {e}"));
    let opt = output_as_typed(args);
    // `-o -` (or /dev/stdout, /dev/stderr, /dev/null): the stream, as every output
    // option of every command (cli/output.rs); a file is checked now
    let to_file = a
        .output
        .as_ref()
        .filter(|p| crate::util::output::Stream::of(p).is_none());
    if let Some(p) = to_file {
        let inputs: Vec<&PathBuf> = a.inputs.iter().collect();
        crate::cli::compare::refuse_input_as_output(opt, p, &inputs)
            .map_err(|e| fail(exit::INVALID, &e))?;
    }
    let cannot = |p: &PathBuf, e: crate::files::output::OutputError| {
        fail(e.exit_code(), &crate::cli::output::cannot_write(opt, p, &e))
    };
    let out = match &a.output {
        Some(p) => Sink::create(p).map_err(|e| cannot(p, e))?,
        None => Sink::Stream(crate::util::output::Stream::Stdout),
    };
    let mut results = vec![];
    let mut names = vec![];
    for f in &a.inputs {
        let (name, r) = crate::cli::compare::load_named(f).map_err(|e| fail(exit::INVALID, &e))?;
        names.push(name);
        results.push(r);
    }
    let format = a.format.clone().unwrap_or_else(|| {
        let ext = to_file.and_then(|p| p.extension());
        match ext.and_then(|x| x.to_str()) {
            Some("html") => "html".into(),
            Some("md") => "markdown".into(),
            _ => "openmetrics".into(),
        }
    });
    let files = a.inputs.iter().map(|f| f.display().to_string()).collect();
    let short = names.iter().map(|n| short_name(n)).collect();
    let rendered = match format.as_str() {
        "html" => HtmlReport {
            names: short,
            files,
            history: against_earlier(&a.inputs, &names, &results),
        }
        .render(&results),
        "markdown" => MarkdownReport {
            names: short,
            files,
            history: against_earlier(&a.inputs, &names, &results),
        }
        .render(&results),
        _ => OpenMetrics { names }.render(&results),
    };
    let bytes = rendered.map_err(|e| fail(exit::FAILED, &e))?;
    if let Err(e) = out.commit(&bytes) {
        return Err(cannot(a.output.as_ref().unwrap_or(&PathBuf::new()), e));
    }
    Ok(exit::OK)
}
