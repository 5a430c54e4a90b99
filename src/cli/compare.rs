//! `iomark compare A.json B.json [C.json …]` front end: flags → loaded results →
//! [`crate::report::compare`]. Bad input (unreadable, not JSON, not an iomark
//! RunResult, a newer `schema_version`) is one line on stderr and exit code 2.

use crate::cli::clap_common::{clap_exit, color_when};
use crate::report::compare::{self, Group};
use crate::report::compare_render::{Compare, Format};
use crate::report::svg_compare::CompareChart;
use crate::report::Reporter;
use crate::result::RunResult;
use crate::util::color::When;
use crate::util::error::{exit, Error, Exit};
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
Example (three runs per drive, one column per drive, ratios against drive B):
  iomark compare --group=sata=s1.json,s2.json,s3.json --group=nvme=n1.json,n2.json,n3.json --baseline=nvme

Reads iomark's RunResult files (--json=FILE of fileio, run, mark, copy, tree) and fio's JSON and
text reports. Ratios are column / first column; the last column says where the jobs differ (block
size, queue depth, O_DIRECT or buffered, a file set that fits in the page cache). On a terminal
ratios are coloured (green faster, red slower); --color=never or NO_COLOR turns colour off."
)]
pub struct Args {
    /// Result files: iomark's --json=FILE, fio's JSON or text reports (two or more; one is
    /// accepted and just tabulated).
    /// `history:ID` names a kept run (`iomark history`; `history:last` the newest).
    #[arg(required_unless_present_any = ["groups", "baseline"], value_name = "RESULT.json", value_hint = clap::ValueHint::FilePath)]
    pub files: Vec<PathBuf>,
    /// One column of repeated runs of a drive or target: LABEL=FILE,FILE,… (repeatable);
    /// the column shows the median of the runs and their spread. Result files given
    /// besides follow as columns of their own.
    #[arg(long = "group", value_name = "LABEL=FILE,FILE…", value_parser = parse_group)]
    pub groups: Vec<(String, Vec<PathBuf>)>,
    /// The column the ratios are against: its label or letter (default: the first, A);
    /// or `last`: the previous kept run of the same device and test as the last result
    /// given (the newest kept run when none is given), added as column A, with a
    /// regression finding when the result is below the earlier runs by more than their
    /// spread; or `history:ID`: that kept run, added as column A.
    #[arg(long, value_name = "LABEL|LETTER|last|history:ID")]
    pub baseline: Option<String>,
    /// Column label, once per result file given outside --group, in order (default: the device model of the result's
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

/// `--group LABEL=FILE,FILE…` → the label and the files.
fn parse_group(s: &str) -> Result<(String, Vec<PathBuf>), String> {
    let Some((label, files)) = s.split_once('=') else {
        return Err(
            "expected LABEL=FILE,FILE… (a column label, '=', the result files of that drive)"
                .into(),
        );
    };
    let files: Vec<PathBuf> = files
        .split(',')
        .filter(|f| !f.is_empty())
        .map(PathBuf::from)
        .collect();
    if label.is_empty() || files.is_empty() {
        return Err(
            "expected LABEL=FILE,FILE… with a non-empty label and at least one file".into(),
        );
    }
    Ok((label.to_string(), files))
}

/// The columns of a grouped comparison: each `--group` in order, then each result file
/// given besides as a column of its own (labelled as without `--group`); the results'
/// files in load order.
fn columns(a: &Args, results: &[RunResult], singles: &[String]) -> Vec<Group> {
    let mut groups = vec![];
    let mut at = 0;
    for (label, files) in &a.groups {
        groups.push(Group {
            label: label.clone(),
            members: (at..at + files.len()).collect(),
        });
        at += files.len();
    }
    let labels = compare::labels(&a.labels, singles, &results[at..]);
    for (i, l) in labels.into_iter().enumerate() {
        groups.push(Group {
            label: l,
            members: vec![at + i],
        });
    }
    groups
}

/// `--baseline`: a column's label, else its letter (A, B, …).
fn baseline(given: Option<&str>, groups: &[Group]) -> Result<usize, String> {
    let Some(b) = given else { return Ok(0) };
    groups
        .iter()
        .position(|g| g.label == b)
        .or_else(|| (0..groups.len()).find(|&i| compare::letter(i).eq_ignore_ascii_case(b)))
        .ok_or_else(|| {
            let names: Vec<String> = groups
                .iter()
                .enumerate()
                .map(|(i, g)| format!("{} ({})", compare::letter(i), g.label))
                .collect();
            format!(
                "--baseline={b}: no such column; the columns are {}",
                names.join(", ")
            )
        })
}

/// Run `iomark compare` with the arguments after the command word.
pub fn run(args: &[String]) -> Exit {
    let argv = std::iter::once("iomark compare".to_string()).chain(args.iter().cloned());
    let a = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => return clap_exit("compare", e),
    };
    if a.labels.len() > a.files.len() {
        let line = format!(
            "iomark compare: {} --label values for {} files (give at most one per file)",
            a.labels.len(),
            a.files.len()
        );
        return Err(Error::new(exit::INVALID, line));
    }
    let fail = |e: String| Error::new(exit::INVALID, format!("iomark compare: {e}"));
    let mut a = a;
    let from_history = history_baseline(&mut a).map_err(fail)?;
    let mut results = vec![];
    let all: Vec<&PathBuf> = a
        .groups
        .iter()
        .flat_map(|(_, f)| f)
        .chain(&a.files)
        .collect();
    if let Some(p) = &a.plot {
        refuse_input_as_output("--plot", p, &all)
            .and_then(|()| svg_name(p))
            .map_err(fail)?;
    }
    // a kept run is named by its own ID (`history:last` → `history:ID`), so its column
    // says which run it is
    let mut files: Vec<String> = vec![];
    for f in all.iter().copied() {
        let (name, r) = load_named(f).map_err(fail)?;
        let kept = f.to_str().is_some_and(|s| s.starts_with(HISTORY));
        files.push(if kept {
            format!("{HISTORY}{name}")
        } else {
            name
        });
        results.push(r);
    }
    let singles: Vec<String> = files[files.len() - a.files.len()..].to_vec();
    let groups = columns(&a, &results, &singles);
    let findings = match &from_history {
        Some(f) => regression_findings(f, &results),
        None => vec![],
    };
    let labels = bar_labels(&groups, results.len());
    let baseline = match from_history {
        Some(_) => 0,
        None => baseline(a.baseline.as_deref(), &groups).map_err(fail)?,
    };
    let format = match a.format.as_str() {
        "markdown" => Format::Markdown,
        "csv" => Format::Csv,
        "json" => Format::Json,
        _ => Format::Table,
    };
    if let Some(p) = &a.plot {
        write_plot(p, &labels, &files, &results)?;
    }
    let report = Compare {
        labels,
        files,
        groups,
        baseline,
        format,
        paint: crate::util::color::Paint::new(a.color),
        findings,
    };
    if let Ok(text) = report.render(&results) {
        crate::util::output::write(&text);
    }
    Ok(exit::OK)
}

/// One label per result file (the chart's bars): a group's runs are `LABEL #n`.
fn bar_labels(groups: &[Group], n: usize) -> Vec<String> {
    let mut labels = vec![String::new(); n];
    for g in groups {
        for (i, &m) in g.members.iter().enumerate() {
            labels[m] = if g.members.len() > 1 {
                format!("{} #{}", g.label, i + 1)
            } else {
                g.label.clone()
            };
        }
    }
    labels
}

/// Load one result with its name: a file (its path), or `history:ID`, a kept run (its
/// history name).
pub fn load_named(f: &std::path::Path) -> Result<(String, RunResult), String> {
    match f.to_str().and_then(|s| s.strip_prefix(HISTORY)) {
        Some(id) => crate::cli::history::resolve(id),
        None => compare::load(f).map(|r| (f.display().to_string(), r)),
    }
}

/// `--plot=FILE`: the chart is always SVG, so a name whose extension says another
/// format (`chart.png`, `chart.pdf`) is refused (exit 2) rather than given SVG bytes
/// under it; `.svg` (any case), a name without an extension and a standard stream pass.
fn svg_name(p: &std::path::Path) -> Result<(), String> {
    if crate::util::output::Stream::of(p).is_some() {
        return Ok(());
    }
    match p.extension().and_then(|x| x.to_str()) {
        Some(x) if !x.eq_ignore_ascii_case("svg") => Err(format!(
            "--plot={}: the chart is drawn as SVG only, not .{x}; accepted: a FILE.svg name, or - for stdout",
            p.display()
        )),
        _ => Ok(()),
    }
}

/// An output (`--plot`, `-o`) that is one of the result files read (by path, or by
/// device and inode: a link to it) would replace the user's result with a chart or a
/// page: `Err` is the one line naming both (exit 2), before anything is written.
pub fn refuse_input_as_output(
    opt: &str,
    out: &std::path::Path,
    inputs: &[&PathBuf],
) -> Result<(), String> {
    let read: Vec<crate::files::output::Named> = inputs
        .iter()
        .filter(|f| !f.to_str().is_some_and(|s| s.starts_with(HISTORY)))
        .map(|f| ("result".to_string(), f.to_path_buf()))
        .collect();
    crate::files::output::refuse_collisions(&[(opt.to_string(), out.to_path_buf())], &read)
}

/// Load one result: a file, or `history:ID`, a kept run.
fn load(f: &std::path::Path) -> Result<RunResult, String> {
    match f.to_str().and_then(|s| s.strip_prefix(HISTORY)) {
        Some(id) => crate::cli::history::resolve(id).map(|(_, r)| r),
        None => compare::load(f),
    }
}

/// How results are named from the history: `history:ID`.
const HISTORY: &str = "history:";

/// The run `--baseline=last` or `--baseline=history:ID` compares against (unless a
/// column has that label): the kept run put first as the baseline column, and the
/// result it is compared with. `last` is the previous kept run of the same device and
/// test as the last result given (or, with none given, the newest kept run, which is
/// then added too).
struct FromHistory {
    /// the compared result's own name when it is a kept run
    target_name: Option<String>,
}

fn history_baseline(a: &mut Args) -> Result<Option<FromHistory>, String> {
    let Some(b) = a.baseline.clone() else {
        return Ok(None);
    };
    let labelled = a.labels.contains(&b) || a.groups.iter().any(|(l, _)| *l == b);
    if labelled || (b != "last" && !b.starts_with(HISTORY)) {
        return Ok(None);
    }
    if a.files.is_empty() && a.groups.is_empty() {
        a.files.push(PathBuf::from(format!("{HISTORY}last")));
    }
    let target_file = a
        .files
        .last()
        .or_else(|| a.groups.last().and_then(|(_, f)| f.last()))
        .cloned()
        .unwrap_or_default();
    let target = load(&target_file)?;
    let target_name = match target_file.to_str().and_then(|s| s.strip_prefix(HISTORY)) {
        Some(id) => Some(crate::cli::history::resolve(id)?.0),
        None => None,
    };
    let base_name = if b == "last" {
        let all = crate::cli::history::load_all().map_err(|e| e.to_string())?;
        let entries: Vec<_> = all.into_iter().map(|(e, _)| e).collect();
        let before = crate::report::history::earlier(&entries, &target, target_name.as_deref());
        match before.last() {
            Some(e) => e.name.clone(),
            None => {
                return Err(format!(
                    "--baseline=last: no earlier kept run of the same device and test as {} (`iomark history` lists the kept runs)",
                    target_file.display()
                ))
            }
        }
    } else {
        crate::cli::history::resolve(b.trim_start_matches(HISTORY))?.0
    };
    a.files
        .insert(0, PathBuf::from(format!("{HISTORY}{base_name}")));
    if !a.labels.is_empty() {
        a.labels.insert(0, base_name);
    }
    a.baseline = None;
    Ok(Some(FromHistory { target_name }))
}

/// The regression findings of the compared result (the last one) against every
/// earlier kept run of its device and test.
fn regression_findings(f: &FromHistory, results: &[RunResult]) -> Vec<crate::result::Warning> {
    let Some(target) = results.last() else {
        return vec![];
    };
    let Ok(all) = crate::cli::history::load_all() else {
        return vec![];
    };
    let entries: Vec<_> = all.into_iter().map(|(e, _)| e).collect();
    let before = crate::report::history::earlier(&entries, target, f.target_name.as_deref());
    let rs: Vec<&RunResult> = before.iter().map(|e| &e.result).collect();
    crate::report::history::regressions(target, &rs)
}

/// `--plot=FILE.svg`: checked (exit 3), drawn, written (exit 1): old content or the
/// complete chart, one bar per result file.
fn write_plot(
    p: &std::path::Path,
    labels: &[String],
    files: &[String],
    results: &[RunResult],
) -> Result<(), Error> {
    // checked (exit 3), drawn, written (exit 1): old content or the complete chart
    let fail = |e: &dyn std::fmt::Display, code: i32| {
        Error::new(
            code,
            format!(
                "iomark compare: {}",
                crate::cli::output::cannot_write("--plot", p, e)
            ),
        )
    };
    // a standard stream (`--plot=-`: the SVG alone on stdout, the table on stderr) or a
    // checked file
    let out = match crate::cli::output::Sink::document(p) {
        Ok(o) => o,
        Err(e) => return Err(fail(&e, e.exit_code())),
    };
    let chart = CompareChart {
        labels: labels.to_vec(),
        files: files.to_vec(),
    };
    let svg = match chart.render(results) {
        Ok(s) => s,
        Err(e) => return Err(fail(&e, exit::FAILED)),
    };
    if let Err(e) = out.commit(&svg) {
        return Err(fail(&e, e.exit_code()));
    }
    Ok(())
}
