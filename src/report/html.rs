//! `iomark report --format=html`: one self-contained page of several results — each
//! run's context (machine, device, command, settings), the diagnosis of its target
//! with every finding as a sentence, its warnings as sentences, compare's table
//! (ratios, call-outs; report/compare.rs and compare_render.rs) and the charts (the
//! compare bar chart, each run's throughput over time and latency percentiles:
//! report/svg_compare.rs, svg_plot.rs) inline as SVG. No script, no external
//! resource: a Content-Security-Policy meta forbids every fetch (`default-src 'none'`,
//! inline styles only), so the page reads the same offline. Every text — job, label,
//! path, message — is escaped here ([`esc`]); the SVG's text is escaped by plotters.

use super::compare::{compare, context, letter, Comparison};
use crate::report::{ReportError, Reporter};
use crate::result::RunResult;

/// The page of many results, each named (its run name or file).
pub struct HtmlReport {
    /// one name per result (the column label)
    pub names: Vec<String>,
    /// one file (or `history:ID`) per result
    pub files: Vec<String>,
    /// per result, what the earlier kept runs of its device and test say of it (a
    /// kept run's regression findings, report/history.rs `against_earlier`); empty:
    /// nothing said (a file)
    pub history: Vec<Vec<String>>,
}

/// Text as HTML text (also safe inside a double-quoted attribute). A control character
/// other than a newline (whitespace to HTML) is written out as `\xNN` (ESC, NUL: never
/// raw bytes in the page); names go through [`name`], which writes out newlines too.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            c if c.is_control() && c != '\n' => {
                o.push_str(&crate::util::text::visible(&c.to_string()))
            }
            // markup and quotes as entities (report/escape.rs)
            c => super::escape::push_attribute(&mut o, c),
        }
    }
    o
}

/// A name (job, label, file, device) as HTML text: every control character written out
/// (`\n`, `\t`, `\x1b`), so a newline in a name shows as `\n`, never a line break.
pub fn name(s: &str) -> String {
    esc(&crate::util::text::visible(s))
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;max-width:1200px;color:#111}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:.2em .5em;\
text-align:right;font-size:.9em}td.l,th.l{text-align:left}th{background:#eee}\
.warn{color:#8a4b00}.ctx{font-size:.9em;color:#333}svg{max-width:100%;height:auto}\
section{border-top:2px solid #ccc;margin-top:1.5em}code{white-space:pre-wrap}";

/// `<tr>` of cells, the first two and the last left-aligned.
fn tr(cells: &[String], tag: &str) -> String {
    let n = cells.len();
    let mut s = String::from("<tr>");
    for (i, c) in cells.iter().enumerate() {
        let class = if i < 2 || i + 1 == n {
            " class=\"l\""
        } else {
            ""
        };
        s += &format!("<{tag}{class}>{}</{tag}>", esc(c));
    }
    s + "</tr>\n"
}

/// compare's table of the results, its column legend with each context, and the
/// warnings legend, as HTML.
fn comparison(c: &Comparison) -> String {
    let mut s = String::from("<h2>Side by side</h2>\n<ul class=\"ctx\">\n");
    for (i, col) in c.columns.iter().enumerate() {
        let x = &col.context;
        s += &format!(
            "<li><b>{}</b> = {} ({}): {}; {}; <code>{}</code>{}</li>\n",
            letter(i),
            name(&col.label),
            name(&col.file),
            name(&x.machine_line()),
            name(&x.date),
            name(&x.command),
            esc(&super::compare_render::partial_words(col))
        );
    }
    s += "</ul>\n<table>\n";
    s += &tr(&super::compare_render::header_cells(c), "th");
    for r in &c.rows {
        s += &tr(&super::compare_render::row_cells(c, r), "td");
    }
    s + "</table>\n<p class=\"ctx\">MB/s = 1,000,000 B/s; latency in µs per read or write (fsyncs excluded), submission to completion; ratios = column / column A.</p>\n"
}

/// One run: its context, settings, target diagnosis with findings, warnings, charts.
fn run_section(i: usize, r: &RunResult, name: &str, file: &str, history: &[String]) -> String {
    let x = context(r);
    let mut s = format!(
        "<section id=\"run-{i}\">\n<h2>{} = {}</h2>\n<table class=\"ctx\">\n",
        letter(i),
        self::name(name)
    );
    let mut row = |k: &str, v: String| {
        s += &format!(
            "<tr><th class=\"l\">{k}</th><td class=\"l\">{}</td></tr>\n",
            self::name(&v)
        );
    };
    row("file", file.to_string());
    row("ended", x.date.clone());
    row("command", x.command.clone());
    row("machine", x.machine_line());
    row("device", super::history::device_line(r));
    for (k, v) in super::history::settings_rows(r) {
        row(&esc(&k), v);
    }
    s += "</table>\n";
    if let Some(d) = r.targets.last() {
        s += "<h3>Diagnosis of the target</h3>\n<ul>\n";
        for l in &d.stack {
            s += &format!("<li>{}</li>\n", esc(&l.text));
        }
        s += "</ul>\n";
        if !d.findings.is_empty() {
            s += "<h3>Findings</h3>\n<ul>\n";
            for f in &d.findings {
                s += &format!("<li>{}: {}</li>\n", esc(&f.id), esc(&f.message));
            }
            s += "</ul>\n";
        }
    }
    if !r.warnings.is_empty() {
        s += "<h3>Warnings</h3>\n<ul class=\"warn\">\n";
        for w in &r.warnings {
            s += &format!("<li>{}: {}</li>\n", esc(&w.id), esc(&w.message));
        }
        s += "</ul>\n";
    }
    if !history.is_empty() {
        s += "<h3>Against the earlier kept runs</h3>\n<ul class=\"history\">\n";
        for h in history {
            s += &format!("<li>{}</li>\n", esc(h));
        }
        s += "</ul>\n";
    }
    let charts: [(&str, &dyn Reporter); 3] = [
        ("throughput", &super::svg_plot::ThroughputChart),
        ("latency", &super::svg_plot::LatencyChart),
        ("device", &super::svg_plot::DeviceChart),
    ];
    for (kind, chart) in charts {
        if let Ok(svg) = chart.render(r) {
            s += &format!(
                "<figure class=\"chart-{kind}\">{}</figure>\n",
                String::from_utf8_lossy(&svg)
            );
        }
    }
    s + "</section>\n"
}

impl Reporter<[RunResult]> for HtmlReport {
    fn render(&self, rs: &[RunResult]) -> Result<Vec<u8>, ReportError> {
        if rs.is_empty() {
            return Err(ReportError::Empty);
        }
        let c = compare(rs, &self.names, &self.files);
        let mut body = comparison(&c);
        let chart = super::svg_compare::CompareChart {
            labels: self.names.clone(),
            files: self.files.clone(),
        };
        if let Ok(svg) = chart.render(rs) {
            body += &format!(
                "<figure class=\"chart-compare\">{}</figure>\n",
                String::from_utf8_lossy(&svg)
            );
        }
        for (i, r) in rs.iter().enumerate() {
            let name = self.names.get(i).map_or("", String::as_str);
            let file = self.files.get(i).map_or("", String::as_str);
            let history = self.history.get(i).map_or(&[][..], Vec::as_slice);
            body += &run_section(i, r, name, file, history);
        }
        let page = format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
             <title>iomark report: {} run(s)</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
             <h1>iomark report: {} run(s)</h1>\n{body}</body>\n</html>\n",
            rs.len(),
            rs.len()
        );
        Ok(page.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_text_and_the_page_fetches_nothing() {
        let r = crate::report::copy_result_warned("the files are on <tmpfs> & memory");
        let page = HtmlReport {
            names: vec!["<script>alert(1)</script>".into()],
            files: vec!["a.json".into()],
            history: vec![vec!["history.regression: <slower> & worse".into()]],
        }
        .render(std::slice::from_ref(&r))
        .unwrap();
        let page = String::from_utf8(page).unwrap();
        assert!(!page.contains("<script"), "{page}");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("the files are on &lt;tmpfs&gt; &amp; memory"));
        assert!(page.contains("default-src 'none'"));
        assert!(page.contains(
            "<h3>Against the earlier kept runs</h3>\n<ul class=\"history\">\n\
             <li>history.regression: &lt;slower&gt; &amp; worse</li>"
        ));
        assert!(page.contains("<svg"), "the compare chart is inline");
    }
}
