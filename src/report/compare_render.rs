//! `compare`'s reporter ([`Compare`], over many results): the [`Comparison`] as an
//! aligned table, GitHub markdown, CSV or JSON (`compare.rs` owns loading and
//! alignment). Numbers: 3 significant figures or more, ratios with two decimals (three
//! significant figures below 0.1, `<0.000001x` below one in a million), `-` for missing.

use super::compare::{letter, Comparison, Group, Row};
use super::md_escape;
use crate::report::{ReportError, Reporter};
use crate::result::truth::{MEMORY_LEGEND, MEMORY_MARK};
use crate::result::RunResult;
use crate::util::color::{Paint, Role};
/// Output format of `compare`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// aligned plain text
    Table,
    /// GitHub markdown table
    Markdown,
    /// comma-separated values with a header line
    Csv,
    /// the [`Comparison`] as JSON
    Json,
}

fn num(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(x) if !x.is_finite() => "-".into(),
        Some(x) if x.abs() >= 100.0 => format!("{x:.0}"),
        Some(x) if x.abs() >= 10.0 => format!("{x:.1}"),
        Some(x) => format!("{x:.2}"),
    }
}

/// A count (the device's requests and flushes, [`super::compare::DEVICE_COUNTS`]): whole, as counted (`1`, not `1.00`); the
/// median of an even number of runs may end in `.5`, printed as [`num`] does.
fn count(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() && x.fract() == 0.0 => format!("{x:.0}"),
        _ => num(v),
    }
}

/// A ratio with two decimals; below 0.1 three significant figures (`0.0123x`,
/// `0.000776x`), below one in a million only that (`<0.000001x`), never a row of zeros.
fn ratio(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(r) if !r.is_finite() => "-".into(),
        Some(r) if r <= 0.0 => "0x".into(),
        Some(r) if r < 1e-6 => "<0.000001x".into(),
        Some(r) if r < 0.1 => {
            let places = (2 - r.log10().floor() as i32).max(0) as usize;
            format!("{r:.places$}x")
        }
        Some(r) => format!("{r:.2}x"),
    }
}

/// Whether the columns carry a spread cell (some column folds several runs).
fn grouped(c: &Comparison) -> bool {
    c.columns.iter().any(|col| col.runs > 1)
}

/// The spread of a column's runs as ± half their range, in % of the median.
fn spread(median: Option<f64>, s: Option<(f64, f64)>) -> String {
    match (median, s) {
        (Some(m), Some((lo, hi))) if m > 0.0 => format!("±{:.0}%", (hi - lo) / 2.0 / m * 100.0),
        _ => "-".into(),
    }
}

/// The table's header: test, metric, each column's letter (its spread, its ratio).
pub(crate) fn header_cells(c: &Comparison) -> Vec<String> {
    let mut h = vec!["test".to_string(), "metric".into()];
    let base = letter(c.baseline);
    for i in 0..c.columns.len() {
        h.push(letter(i));
        if grouped(c) {
            h.push(format!("{} ±", letter(i)));
        }
        if i != c.baseline {
            h.push(format!("{}/{base}", letter(i)));
        }
    }
    h.push("jobs differ".into());
    h
}

/// One row's cells in the header's order.
pub(crate) fn row_cells(c: &Comparison, r: &Row) -> Vec<String> {
    let mut v = vec![r.test.clone(), r.metric.clone()];
    for i in 0..c.columns.len() {
        v.push(
            if super::compare::DEVICE_COUNTS.contains(&r.metric.as_str()) {
                count(r.values[i])
            } else {
                num(r.values[i])
            },
        );
        if grouped(c) {
            v.push(spread(r.values[i], r.spread.get(i).copied().flatten()));
        }
        if i != c.baseline {
            v.push(ratio(r.ratios[i]));
        }
    }
    v.push(r.differences.join("; "));
    v
}

/// What a column says of a partial run (an interrupted, failed or force-stopped run,
/// iomark's own or an imported fio report cut by a signal), after its legend in every
/// format (the table's, the HTML and markdown reports'): ` — PARTIAL: the run
/// interrupted; its figures cover only the part that ran`; empty for a whole run.
pub fn partial_words(col: &super::compare::Column) -> String {
    col.partial.as_ref().map_or(String::new(), |why| {
        format!(" — PARTIAL: the run {why}; its figures cover only the part that ran")
    })
}

fn legend(c: &Comparison) -> String {
    c.columns
        .iter()
        .enumerate()
        .map(|(i, col)| {
            let producer = match col.command.split_once(':') {
                Some((tool, _)) => format!("{tool} report"),
                None => format!("iomark {}", col.command),
            };
            let partial = partial_words(col);
            let runs = match (col.runs, col.runs_per_test) {
                (0 | 1, _) => String::new(),
                (n, 0 | 1) => format!("{n} runs, one per test: "),
                (n, k) if k == n => format!("median of {n} runs: "),
                (n, k) => format!("{n} runs, median of up to {k} per test: "),
            };
            let base = if i == c.baseline && c.baseline != 0 {
                " — the baseline of the ratios"
            } else {
                ""
            };
            let ctx = &col.context;
            let memory = col
                .from_memory
                .as_ref()
                .map_or(String::new(), |why| format!(" {MEMORY_MARK} ({why})"));
            format!(
                "{} = {} ({runs}{}, {producer}){memory}{partial}{base}\n    {}\n",
                letter(i),
                col.label,
                col.file,
                ctx.legend_line()
            )
        })
        .collect()
}

/// One CSV cell: quoted when it holds a comma, a quote or a line break; a text that a
/// spreadsheet would read as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a
/// carriage return) gets a `'` in front, inside quotes — a number (`-5`) and the
/// missing-value `-` stay as they are.
fn csv_field(s: &str) -> String {
    let formula = s.starts_with(['=', '+', '-', '@', '\t', '\r'])
        && s != "-"
        && s.trim().parse::<f64>().is_err();
    if formula {
        format!("\"'{}\"", s.replace('"', "\"\""))
    } else if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `compare`'s report: the results side by side in one format (a reporter over many
/// results, labelled and named by the files they came from).
pub struct Compare {
    /// column labels, one per result
    pub labels: Vec<String>,
    /// the files, one per result
    pub files: Vec<String>,
    /// the columns when results are grouped (`--group`); empty: one column per result
    pub groups: Vec<Group>,
    /// the column the ratios are against
    pub baseline: usize,
    /// table, markdown, csv or json
    pub format: Format,
    /// whether the aligned table is coloured
    pub paint: Paint,
    /// findings against the results history, said under the table
    pub findings: Vec<crate::result::Warning>,
}

impl Reporter<[RunResult]> for Compare {
    fn render(&self, rs: &[RunResult]) -> Result<Vec<u8>, ReportError> {
        let mut c = if self.groups.is_empty() {
            super::compare::compare(rs, &self.labels, &self.files)
        } else {
            super::compare::compare_groups(rs, &self.groups, &self.files, self.baseline)
        };
        c.history.clone_from(&self.findings);
        Ok(render_painted(&c, self.format, &self.paint).into_bytes())
    }
}

fn csv(c: &Comparison, mut header: Vec<String>, body: &[Vec<String>]) -> String {
    let mut out = String::new();
    let base = c
        .columns
        .get(c.baseline)
        .map_or(String::new(), |c| c.label.clone());
    let mut at = 2;
    // where each column's value stands (its warnings go under it)
    let mut value_at = Vec::with_capacity(c.columns.len());
    for (i, col) in c.columns.iter().enumerate() {
        if let Some(h) = header.get_mut(at) {
            // a column whose figures came from memory: the history's marker after its label
            *h = match col.from_memory {
                Some(_) => format!("{} {MEMORY_MARK}", col.label),
                None => col.label.clone(),
            };
        }
        value_at.push(at);
        at += 1;
        if grouped(c) {
            if let Some(h) = header.get_mut(at) {
                *h = format!("{} spread", col.label);
            }
            at += 1;
        }
        if i != c.baseline {
            if let Some(h) = header.get_mut(at) {
                *h = format!("{} / {base}", col.label);
            }
            at += 1;
        }
    }
    // one `warnings` row: each column's warning ids under its value column
    let mut warned = vec![String::new(); header.len()];
    warned[0] = "warnings".into();
    for (col, &at) in c.columns.iter().zip(&value_at) {
        if let Some(cell) = warned.get_mut(at) {
            *cell = col.warnings.join(" ");
        }
    }
    let any = c.columns.iter().any(|c| !c.warnings.is_empty());
    let extra: Vec<Vec<String>> = if any { vec![warned] } else { vec![] };
    for line in std::iter::once(&header)
        .chain(body.iter())
        .chain(extra.iter())
    {
        out += &line
            .iter()
            .map(|s| csv_field(s))
            .collect::<Vec<_>>()
            .join(",");
        out.push('\n');
    }
    out
}

/// compare's GitHub markdown: the legend as a list, the table (each cell text, never
/// markup, report/md_escape.rs: its `|` escaped, so the row keeps its columns), the foot.
fn markdown(c: &Comparison, header: &[String], body: &[Vec<String>], foot: &str) -> String {
    let mut out = legend(c)
        .lines()
        .map(|l| match l.strip_prefix("    ") {
            Some(sub) => format!("  - {}\n", md_escape::line(sub)),
            None => format!("- {}\n", md_escape::line(l)),
        })
        .collect::<String>()
        + "\n";
    out += &format!("| {} |\n", header.join(" | "));
    let align: Vec<&str> = header
        .iter()
        .enumerate()
        .map(|(i, _)| {
            if i < 2 || i + 1 == header.len() {
                "---"
            } else {
                "---:"
            }
        })
        .collect();
    out += &format!("|{}|\n", align.join("|"));
    for b in body {
        out += &format!(
            "| {} |\n",
            b.iter()
                .map(|s| md_escape::text(s))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    out + "\n" + foot
}

fn table(
    c: &Comparison,
    header: &[String],
    body: &[Vec<String>],
    foot: &str,
    paint: &Paint,
) -> String {
    let n = header.len();
    let mut w = vec![0usize; n];
    for line in std::iter::once(header).chain(body.iter().map(Vec::as_slice)) {
        for (i, s) in line.iter().enumerate() {
            w[i] = w[i].max(s.chars().count());
        }
    }
    let fmt = |line: &[String], roles: &[Option<Role>]| {
        let mut s = String::new();
        for (i, cell) in line.iter().enumerate() {
            let pad = w[i].saturating_sub(cell.chars().count());
            let painted = match roles.get(i).copied().flatten() {
                Some(role) => paint.paint(role, cell),
                None => cell.clone(),
            };
            if i + 1 == n {
                s += &painted;
            } else if i < 2 {
                s += &format!("{painted}{}  ", " ".repeat(pad));
            } else {
                s += &format!("{}{painted}  ", " ".repeat(pad));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = legend(c) + "\n" + &fmt(header, &vec![Some(Role::Header); n]);
    for (b, r) in body.iter().zip(&c.rows) {
        out += &fmt(b, &row_roles(c, r));
    }
    out + foot
}

/// A ratio at least this far from 1 is coloured (green better, red worse); closer is
/// within run-to-run noise.
const RATIO_COLOUR_BAND: f64 = 0.05;

/// The style of each cell of a table row: the test name, ratios better or worse than
/// the first column (for latency rows lower is better), and the "jobs differ" call-out.
fn row_roles(c: &Comparison, r: &Row) -> Vec<Option<Role>> {
    let lower_is_better = r.metric.contains("µs");
    let mut v = vec![Some(Role::Name), None];
    for i in 0..c.columns.len() {
        v.push(None);
        if grouped(c) {
            v.push(Some(Role::Dim));
        }
        if i != c.baseline {
            v.push(r.ratios[i].and_then(|x| {
                let better = if lower_is_better { x < 1.0 } else { x > 1.0 };
                ((x - 1.0).abs() >= RATIO_COLOUR_BAND).then_some(if better {
                    Role::Good
                } else {
                    Role::Bad
                })
            }));
        }
    }
    v.push(Some(Role::Warn));
    v
}

/// Every column's warnings under the table, one sentence each with the columns it
/// holds for: `  A, C: page_cache.fits_in_ram: the buffered file set …` (markdown: a
/// list). Empty without warnings.
fn warnings_legend(c: &Comparison, f: Format) -> String {
    let notes = crate::report::compare::warning_notes(c);
    if notes.is_empty() {
        return String::new();
    }
    let mut out = "\nWarnings:\n".to_string();
    for n in notes {
        out += &foot_item(
            f,
            &format!("{}: {}: {}", n.columns.join(", "), n.id, n.text),
        );
    }
    out
}

/// One item of a list under the table: indented (table), a list item of markdown text
/// (its names and paths never markup, report/md_escape.rs).
fn foot_item(f: Format, text: &str) -> String {
    if f == Format::Markdown {
        format!("- {}\n", md_escape::line(text))
    } else {
        format!("  {text}\n")
    }
}

/// A line under the table for each column whose device view counted other processes'
/// I/O (its rows are device-wide: the disk moved more than the run did).
fn shared_device(c: &Comparison, f: Format) -> String {
    let mut out = String::new();
    for (i, col) in c.columns.iter().enumerate() {
        if let Some(more) = col.device_other_io {
            let line = format!(
                "{} ({}): its device view rows are device-wide: the disk read and wrote {:.1} MB more than the run did (other processes' I/O)",
                letter(i),
                col.label,
                more as f64 / 1e6
            );
            out += &match f {
                Format::Markdown => md_escape::line(&line),
                _ => line,
            };
            out.push('\n');
        }
    }
    out
}

/// The findings against the results history, one sentence each, under the table
/// (markdown: a list).
fn findings(c: &Comparison, f: Format) -> String {
    if c.history.is_empty() {
        return String::new();
    }
    let mut out = "\nFindings against the earlier kept runs of this device and test:\n".to_string();
    for w in &c.history {
        out += &foot_item(f, &format!("{}: {}", w.id, w.message));
    }
    out
}

/// Render a comparison (no colour).
pub fn render(c: &Comparison, f: Format) -> String {
    render_painted(c, f, &Paint { on: false })
}

/// Render a comparison; the aligned table is coloured when `paint` is on (header, test
/// names, ratios, call-outs). Markdown, CSV and JSON never are.
pub fn render_painted(c: &Comparison, f: Format, paint: &Paint) -> String {
    let header = header_cells(c);
    let body: Vec<Vec<String>> = c.rows.iter().map(|r| row_cells(c, r)).collect();
    let little = if c.little {
        " (results without per-I/O completion times at QD > 1: mean = QD x threads / IOPS, no p99)"
    } else {
        ""
    };
    let against = if c.baseline == 0 {
        "first column".to_string()
    } else {
        format!("column {}", letter(c.baseline))
    };
    let runs = if grouped(c) {
        " A column of several runs shows their median; ± is half their range, in % of the median."
    } else {
        ""
    };
    let timed = if c.rows.iter().any(|r| r.metric == super::compare::WALL_S) {
        " iomark time: wall s from the command's start to the end of its last process; storage wait % = share of the wall time its processes were blocked on storage (the kernel's delay accounting)."
    } else {
        ""
    };
    let memory = if c.columns.iter().any(|col| col.from_memory.is_some()) {
        format!("{MEMORY_LEGEND}\n")
    } else {
        String::new()
    };
    let foot = &(format!(
        "MB/s = 1,000,000 B/s; latency in µs per read or write (fsyncs excluded), submission to completion{little}; ratios = column / {against}.{runs}{timed}\n{memory}"
    ) + &shared_device(c, f)
        + &warnings_legend(c, f)
        + &findings(c, f));
    match f {
        Format::Json => serde_json::to_string_pretty(c).unwrap_or_default() + "\n",
        Format::Csv => csv(c, header, &body),
        Format::Markdown => markdown(c, &header, &body, foot),
        Format::Table => table(c, &header, &body, foot, paint),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_ratios_keep_three_significant_figures() {
        assert_eq!(ratio(Some(0.95)), "0.95x");
        assert_eq!(ratio(Some(12.345)), "12.35x");
        assert_eq!(ratio(Some(0.0123456)), "0.0123x");
        assert_eq!(ratio(Some(0.00123456)), "0.00123x");
        assert_eq!(ratio(Some(0.099)), "0.0990x");
        assert_eq!(ratio(Some(0.0004)), "0.000400x");
        assert_eq!(ratio(Some(0.000_000_4)), "<0.000001x");
        assert_eq!(ratio(Some(0.0)), "0x");
        assert_eq!(ratio(None), "-");
        assert_eq!(ratio(Some(f64::INFINITY)), "-");
    }

    /// compare of two fio reports (fio 3.33's JSON and text of tests/fixtures/fio): each
    /// column's legend says the producer's version once (`fio-3.33 report`), never again
    /// on its second line; an iomark column keeps its machine, version, date and
    /// command line there.
    #[test]
    fn a_fio_report_column_names_its_version_once() {
        let load = |f: &str| {
            let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/fio")
                .join(f);
            let text = std::fs::read_to_string(p).unwrap();
            crate::result::import::import(&text, f).unwrap().unwrap()
        };
        let rs = [
            load("randrw-uring-latpct.json"),
            load("randrw-uring-latpct.txt"),
            crate::report::copy_result_warned("m"),
        ];
        let files = ["a.json", "b.txt", "c.json"].map(String::from);
        let labels = super::super::compare::labels(&[], &files, &rs);
        let c = super::super::compare::compare(&rs, &labels, &files);
        for f in [Format::Table, Format::Markdown] {
            let text = render(&c, f);
            let legend: Vec<&str> = text.lines().take_while(|l| !l.contains("metric")).collect();
            for (k, letter) in ["A", "B"].iter().enumerate() {
                let at = legend
                    .iter()
                    .position(|l| l.contains(&format!("{letter} = ")))
                    .unwrap_or_else(|| panic!("no column {letter}: {text}"));
                let column = legend[at..=at + 1].join("\n");
                assert_eq!(
                    column.matches("fio-3.33").count(),
                    1,
                    "{f:?} column {k}: {column}"
                );
                assert!(legend[at].contains("fio-3.33 report"), "{column}");
            }
            let at = legend.iter().position(|l| l.contains("C = ")).unwrap();
            let v = env!("CARGO_PKG_VERSION");
            assert!(legend[at].contains("iomark copy"), "{text}");
            assert!(legend[at + 1].contains(&format!("iomark {v}; ")), "{text}");
            assert!(legend[at + 1].ends_with(": iomark copy"), "{text}");
        }
    }

    /// The device's counts print whole (`1`, `83573`), a median of two runs' counts may
    /// keep its half; other figures keep three significant figures (`1.00`).
    #[test]
    fn device_counts_print_whole() {
        assert_eq!(count(Some(1.0)), "1");
        assert_eq!(count(Some(7.0)), "7");
        assert_eq!(count(Some(83573.0)), "83573");
        assert_eq!(count(Some(1.5)), "1.50");
        assert_eq!(count(None), "-");
        assert_eq!(num(Some(1.0)), "1.00");
    }

    /// compare's markdown of results labelled with each hostile name of md_escape.rs
    /// `HOSTILE`: the legend's label (inside its line) and a "jobs differ" cell are the
    /// table's text, an item under the table starting with the name its line-start form;
    /// a cell's `-` (missing) and figures stay as they are.
    #[test]
    fn markdown_cells_and_legend_are_escaped_as_the_one_table_says() {
        let r = crate::report::copy_result_warned("m");
        for (name, inside, start) in md_escape::HOSTILE {
            let mut c = super::super::compare::compare(
                std::slice::from_ref(&r),
                &[name.to_string()],
                &["f.json".to_string()],
            );
            c.rows[0].differences = vec![name.to_string()];
            c.history = vec![crate::result::Warning {
                id: "i".into(),
                message: name.into(),
            }];
            let md = render(&c, Format::Markdown);
            assert!(
                md.starts_with(&format!("- A = {inside} (f.json, ")),
                "{name:?}: {md}"
            );
            let row = md
                .lines()
                .find(|l| l.starts_with("| ") && l.ends_with(&format!(" | {inside} |")));
            assert!(row.is_some(), "{name:?}: {md}");
            assert!(md.contains(&format!("\n- i: {inside}\n")), "{name:?}: {md}");
            // an item under the table that starts with the name
            assert_eq!(foot_item(Format::Markdown, name), format!("- {start}\n"));
        }
        for plain in [
            "-",
            "-5",
            "0.67x",
            "a=b",
            "RND4K Q1T1 read",
            "A: QD 4 (B: 1)",
        ] {
            assert_eq!(md_escape::text(plain), plain);
        }
    }

    #[test]
    fn csv_cells_that_a_spreadsheet_would_run_are_neutralised() {
        for (cell, want) in [
            ("=1+1", "\"'=1+1\""),
            ("+cmd", "\"'+cmd\""),
            ("-x", "\"'-x\""),
            ("@SUM(A1)", "\"'@SUM(A1)\""),
            ("\tx", "\"'\tx\""),
            ("\rx", "\"'\rx\""),
            ("=a\"b", "\"'=a\"\"b\""),
        ] {
            assert_eq!(csv_field(cell), want, "{cell:?}");
        }
        for number in ["-5", "-0.25", "+3", "-", "12", "0.67x"] {
            assert_eq!(csv_field(number), number);
        }
        assert_eq!(csv_field("a,b"), "\"a,b\"");
    }
}
