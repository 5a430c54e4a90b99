//! `compare`'s reporter ([`Compare`], over many results): the [`Comparison`] as an
//! aligned table, GitHub markdown, CSV or JSON (`compare.rs` owns loading and
//! alignment). Numbers: 3 significant figures or more, ratios with two decimals (four below 0.1), `-` for missing.

use super::compare::{letter, Comparison, Row};
use crate::report::{ReportError, Reporter};
use crate::result::RunResult;
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
        Some(x) if x.abs() >= 100.0 => format!("{x:.0}"),
        Some(x) if x.abs() >= 10.0 => format!("{x:.1}"),
        Some(x) => format!("{x:.2}"),
    }
}

fn ratio(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(r) if r < 0.1 => format!("{r:.4}x"),
        Some(r) => format!("{r:.2}x"),
    }
}

fn header_cells(c: &Comparison) -> Vec<String> {
    let mut h = vec!["test".to_string(), "metric".into()];
    for i in 0..c.columns.len() {
        h.push(letter(i));
        if i > 0 {
            h.push(format!("{}/A", letter(i)));
        }
    }
    h.push("jobs differ".into());
    h
}

fn row_cells(c: &Comparison, r: &Row) -> Vec<String> {
    let mut v = vec![r.test.clone(), r.metric.clone()];
    for i in 0..c.columns.len() {
        v.push(num(r.values[i]));
        if i > 0 {
            v.push(ratio(r.ratios[i]));
        }
    }
    v.push(r.differences.join("; "));
    v
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
            let partial = col.partial.as_ref().map_or(String::new(), |why| {
                format!(" — PARTIAL: the run {why}; its figures cover only the part that ran")
            });
            format!(
                "{} = {} ({}, {producer}){partial}\n",
                letter(i),
                col.label,
                col.file
            )
        })
        .collect()
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
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
    /// table, markdown, csv or json
    pub format: Format,
}

impl Reporter<[RunResult]> for Compare {
    fn render(&self, rs: &[RunResult]) -> Result<Vec<u8>, ReportError> {
        let c = super::compare::compare(rs, &self.labels, &self.files);
        Ok(render(&c, self.format).into_bytes())
    }
}

fn csv(c: &Comparison, mut header: Vec<String>, body: &[Vec<String>]) -> String {
    let mut out = String::new();
    let first = c.columns.first().map_or(String::new(), |c| c.label.clone());
    for (i, col) in c.columns.iter().enumerate() {
        let at = if i == 0 { 2 } else { 2 * i + 1 };
        if let Some(h) = header.get_mut(at) {
            h.clone_from(&col.label);
        }
        if let Some(h) = header.get_mut(at + 1).filter(|_| i > 0) {
            *h = format!("{} / {first}", col.label);
        }
    }
    for line in std::iter::once(&header).chain(body.iter()) {
        out += &line
            .iter()
            .map(|s| csv_field(s))
            .collect::<Vec<_>>()
            .join(",");
        out.push('\n');
    }
    out
}

fn markdown(c: &Comparison, header: &[String], body: &[Vec<String>], foot: &str) -> String {
    let mut out = legend(c)
        .lines()
        .map(|l| format!("- {l}\n"))
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
                .map(|s| s.replace('|', "\\|"))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    out + "\n" + foot
}

fn table(c: &Comparison, header: &[String], body: &[Vec<String>], foot: &str) -> String {
    let n = header.len();
    let mut w = vec![0usize; n];
    for line in std::iter::once(header).chain(body.iter().map(Vec::as_slice)) {
        for (i, s) in line.iter().enumerate() {
            w[i] = w[i].max(s.chars().count());
        }
    }
    let fmt = |line: &[String]| {
        let mut s = String::new();
        for (i, cell) in line.iter().enumerate() {
            let pad = w[i].saturating_sub(cell.chars().count());
            if i + 1 == n {
                s += cell;
            } else if i < 2 {
                s += &format!("{cell}{}  ", " ".repeat(pad));
            } else {
                s += &format!("{}{cell}  ", " ".repeat(pad));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = legend(c) + "\n" + &fmt(header);
    for b in body {
        out += &fmt(b);
    }
    out + foot
}

/// Render a comparison.
pub fn render(c: &Comparison, f: Format) -> String {
    let header = header_cells(c);
    let body: Vec<Vec<String>> = c.rows.iter().map(|r| row_cells(c, r)).collect();
    let foot = if c.little {
        "MB/s = 1,000,000 B/s; latency in µs per I/O, submission to completion (results without per-I/O completion times at QD > 1: mean = QD x threads / IOPS, no p99); ratios = column / first column.\n"
    } else {
        "MB/s = 1,000,000 B/s; latency in µs per I/O, submission to completion; ratios = column / first column.\n"
    };
    match f {
        Format::Json => serde_json::to_string_pretty(c).unwrap_or_default() + "\n",
        Format::Csv => csv(c, header, &body),
        Format::Markdown => markdown(c, &header, &body, foot),
        Format::Table => table(c, &header, &body, foot),
    }
}
