//! `iomark report --format=markdown`: the HTML report's content (report/html.rs) as
//! CommonMark for a forum post or an issue — compare's table (ratios, call-outs) with
//! each column's context, then one section per run (context, settings, the diagnosis
//! of its target with every finding as a sentence, every warning as a sentence). No
//! charts (the page has them). Every line fits [`WIDTH`] columns: text is wrapped at
//! spaces (a word longer than a line is split), the table is cut into several tables
//! of fewer columns when it is wider, a long test name in a cell is shortened with a
//! numbered note holding it whole, and the "jobs differ" call-outs are a list under
//! the table. Every name — job, label, path, message — is text, never markup
//! (report/md_escape.rs, the one Markdown escaper: markup characters backslash-escaped,
//! `<`, `>`, `&` as entities, so `<script>` shows as text, and a list or heading marker
//! escaped where a line starts, also where [`wrap`] starts one).

use super::compare::{compare, context, letter, Comparison};
use super::md_escape::{line_start, text as esc};
use crate::report::{ReportError, Reporter};
use crate::result::RunResult;

/// The widest line of the report, in characters.
pub const WIDTH: usize = 100;

/// The widest test name kept whole in a table cell.
const NAME_CELL: usize = 34;

/// The report of many results, each named (its run name or file).
pub struct MarkdownReport {
    /// one name per result (the column label)
    pub names: Vec<String>,
    /// one file (or `history:ID`) per result
    pub files: Vec<String>,
    /// per result, what the earlier kept runs of its device and test say of it
    /// (report/history.rs `against_earlier`); empty: nothing said (a file)
    pub history: Vec<Vec<String>>,
}

fn width(s: &str) -> usize {
    s.chars().count()
}

/// `text` (already markdown) wrapped at spaces into lines of at most [`WIDTH`]: the
/// first starts with `first`, the others with `cont`. A word longer than a line is cut
/// at an escape's boundary (never between `\` and its character, never inside `&lt;`).
/// What starts a line (the first word of each, the rest of a cut word) gets the
/// line-start escapes (md_escape.rs `line_start`): a `-` or `1.` moved to a line's
/// start by the wrapping never starts a list.
fn wrap(text: &str, first: &str, cont: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let sep = usize::from(!empty);
        if !empty && width(&line) + sep + width(word) > WIDTH {
            out += line.trim_end();
            out.push('\n');
            line = cont.to_string();
            empty = true;
        }
        let mut rest = if empty {
            line_start(word)
        } else {
            line.push(' ');
            word.to_string()
        };
        while let Some(at) = fill(&mut line, &rest, cont) {
            out += line.trim_end();
            out.push('\n');
            line = cont.to_string();
            rest = line_start(&rest[at..]);
        }
        empty = false;
    }
    out += line.trim_end();
    out.push('\n');
    out
}

/// `word`'s units onto `line` while they fit [`WIDTH`] (a line holding only `cont`
/// takes one whatever its width); the byte offset in `word` where it was cut, if it was.
fn fill(line: &mut String, word: &str, cont: &str) -> Option<usize> {
    let mut at = 0;
    for unit in units(word) {
        if width(line) + width(unit) > WIDTH && width(line.trim_end()) > width(cont) {
            return Some(at);
        }
        *line += unit;
        at += unit.len();
    }
    None
}

/// The indivisible pieces of escaped text: `\x`, `&lt;`/`&gt;`/`&amp;`, one character.
fn units(word: &str) -> Vec<&str> {
    let mut v = vec![];
    let mut i = 0;
    while i < word.len() {
        let rest = &word[i..];
        let n = if let Some(after) = rest.strip_prefix('\\') {
            1 + after.chars().next().map_or(0, char::len_utf8)
        } else if let Some((_, e)) = super::escape::MARKUP
            .iter()
            .find(|(_, e)| rest.starts_with(*e))
        {
            e.len()
        } else {
            rest.chars().next().map_or(1, char::len_utf8)
        };
        v.push(&rest[..n]);
        i += n;
    }
    v
}

/// A list item of `text` (markdown), wrapped under its bullet.
fn item(text: &str) -> String {
    wrap(text, "- ", "  ")
}

/// The table's cells (escaped), with long test names shortened: each shortened one
/// gets a note `[n]` and its whole name in `notes`.
fn table_cells(c: &Comparison, notes: &mut Vec<String>) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header = super::compare_render::header_cells(c);
    header.pop(); // "jobs differ": a list under the table
    let header = header.iter().map(|h| esc(h)).collect();
    let mut body = vec![];
    for r in &c.rows {
        let mut cells = super::compare_render::row_cells(c, r);
        cells.pop();
        let name = &cells[0];
        cells[0] = if width(name) > NAME_CELL {
            let at = match notes.iter().position(|n| n == name) {
                Some(i) => i + 1,
                None => {
                    notes.push(name.clone());
                    notes.len()
                }
            };
            let short: String = name.chars().take(NAME_CELL - 8).collect();
            format!("{}… \\[{at}\\]", esc(&short))
        } else {
            esc(name)
        };
        for cell in cells.iter_mut().skip(1) {
            *cell = esc(cell);
        }
        body.push(cells);
    }
    (header, body)
}

/// One pipe table of the cells at `cols` (the test and metric first, always).
fn pipe_table(header: &[String], body: &[Vec<String>], cols: &[usize]) -> String {
    let line = |cells: &[String]| {
        let v: Vec<&str> = cols.iter().map(|&i| cells[i].as_str()).collect();
        format!("| {} |\n", v.join(" | "))
    };
    let align: Vec<&str> = cols
        .iter()
        .map(|&i| if i < 2 { "---" } else { "---:" })
        .collect();
    let mut s = line(header) + &format!("|{}|\n", align.join("|"));
    for b in body {
        s += &line(b);
    }
    s
}

/// compare's table as pipe tables of at most [`WIDTH`] columns: the value columns
/// split across as many tables as it takes, each with the test and metric.
fn tables(header: &[String], body: &[Vec<String>]) -> String {
    let n = header.len();
    let widest = |i: usize| {
        std::iter::once(&header[i])
            .chain(body.iter().map(|b| &b[i]))
            .map(|s| width(s))
            .max()
            .unwrap_or(0)
    };
    let fixed = 4 + widest(0) + 3 + widest(1);
    let mut out = String::new();
    let mut cols = vec![0, 1];
    let mut used = fixed;
    for i in 2..n {
        let w = widest(i) + 3;
        if cols.len() > 2 && used + w > WIDTH {
            out += &pipe_table(header, body, &cols);
            out.push('\n');
            cols = vec![0, 1];
            used = fixed;
        }
        cols.push(i);
        used += w;
    }
    out + &pipe_table(header, body, &cols)
}

/// compare's table of the results, the columns' context above it, the call-outs and
/// the units under it.
fn comparison(c: &Comparison) -> String {
    let mut s = String::from("## Side by side\n\n");
    for (i, col) in c.columns.iter().enumerate() {
        let x = &col.context;
        s += &item(&format!(
            "**{}** = {} ({}): {}; {}; command: {}{}",
            letter(i),
            esc(&col.label),
            esc(&col.file),
            esc(&x.machine_line()),
            esc(&x.date),
            esc(&x.command),
            esc(&super::compare_render::partial_words(col))
        ));
    }
    let mut notes = vec![];
    let (header, body) = table_cells(c, &mut notes);
    s += "\n";
    s += &tables(&header, &body);
    s += "\n";
    s += &wrap(
        "MB/s = 1,000,000 B/s; latency in µs per read or write (fsyncs excluded), \
         submission to completion; ratios = column / column A.",
        "",
        "",
    );
    if !notes.is_empty() {
        s += "\nTest names shortened in the table:\n\n";
        for (i, n) in notes.iter().enumerate() {
            s += &item(&format!("\\[{}\\] {}", i + 1, esc(n)));
        }
    }
    let mut differ = vec![];
    for r in &c.rows {
        for d in &r.differences {
            let line = format!("{}: {}", esc(&r.test), esc(d));
            if !differ.contains(&line) {
                differ.push(line);
            }
        }
    }
    if !differ.is_empty() {
        s += "\nJobs differ:\n\n";
        for d in differ {
            s += &item(&d);
        }
    }
    s
}

/// One run: its context, settings, target diagnosis with findings, warnings.
fn run_section(i: usize, r: &RunResult, name: &str, file: &str, history: &[String]) -> String {
    let x = context(r);
    let mut s = wrap(&format!("## {} = {}", letter(i), esc(name)), "", "");
    s.push('\n');
    let facts = [
        ("file", file.to_string()),
        ("ended", x.date.clone()),
        ("command", x.command.clone()),
        ("machine", x.machine_line()),
        ("device", super::history::device_line(r)),
    ];
    let facts = facts
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .chain(super::history::settings_rows(r));
    for (k, v) in facts {
        s += &item(&format!("**{}**: {}", esc(&k), esc(&v)));
    }
    if let Some(d) = r.targets.last() {
        s += "\n### Diagnosis of the target\n\n";
        for l in &d.stack {
            s += &item(&esc(&l.text));
        }
        if !d.findings.is_empty() {
            s += "\n### Findings\n\n";
            for f in &d.findings {
                s += &item(&format!("{}: {}", esc(&f.id), esc(&f.message)));
            }
        }
    }
    if !r.warnings.is_empty() {
        s += "\n### Warnings\n\n";
        for w in &r.warnings {
            s += &item(&format!("{}: {}", esc(&w.id), esc(&w.message)));
        }
    }
    if !history.is_empty() {
        s += "\n### Against the earlier kept runs\n\n";
        for h in history {
            s += &item(&esc(h));
        }
    }
    s
}

impl Reporter<[RunResult]> for MarkdownReport {
    fn render(&self, rs: &[RunResult]) -> Result<Vec<u8>, ReportError> {
        if rs.is_empty() {
            return Err(ReportError::Empty);
        }
        let c = compare(rs, &self.names, &self.files);
        let mut out = format!("# iomark report: {} run(s)\n\n", rs.len());
        out += &comparison(&c);
        for (i, r) in rs.iter().enumerate() {
            let name = self.names.get(i).map_or("", String::as_str);
            let file = self.files.get(i).map_or("", String::as_str);
            out.push('\n');
            let history = self.history.get(i).map_or(&[][..], Vec::as_slice);
            out += &run_section(i, r, name, file, history);
        }
        out += "\n";
        out += &wrap(
            "The charts (throughput over time, latency percentiles, the bars of the \
             comparison) are in the HTML report: iomark report … -o report.html",
            "",
            "",
        );
        Ok(out.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_text_and_every_line_fits() {
        let long = format!("{}<script>alert(1)</script>", "x".repeat(150));
        let r = crate::report::copy_result_warned(&format!("the files are on <tmpfs> {long}"));
        let names = vec!["*bold* [a](b) | <b>x</b> #1. _u_".to_string(); 7];
        let files: Vec<String> = (0..7).map(|i| format!("/tmp/{i}/`x`.json")).collect();
        let rs = vec![r; 7];
        let history = vec![vec![format!("history.regression: <slower> {long}")]; 7];
        let md = MarkdownReport {
            names,
            files,
            history,
        }
        .render(&rs)
        .unwrap();
        let md = String::from_utf8(md).unwrap();
        for l in md.lines() {
            assert!(width(l) <= WIDTH, "{} columns: {l}", width(l));
        }
        assert!(!md.contains("<script") && !md.contains("<b>"), "{md}");
        assert!(md.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{md}");
        assert!(md.contains("\\*bold\\* \\[a\\](b) \\| &lt;b&gt;x&lt;/b&gt; \\#1. \\_u\\_"));
        assert!(!md.contains("`x`") && md.contains("\\`x\\`"));
        // what the earlier kept runs say, under its heading, escaped and wrapped
        assert_eq!(md.matches("### Against the earlier kept runs").count(), 7);
        assert!(
            md.contains("- history.regression: &lt;slower&gt;\n  xxx"),
            "{md}"
        );
        // seven columns with ratios do not fit one table: two tables, each with the test
        assert!(md.matches("| test | metric |").count() >= 2, "{md}");
        assert!(md.contains("target.memory\\_fs: the files are on &lt;tmpfs&gt;"));
    }

    #[test]
    fn wrap_cuts_long_words_at_escape_boundaries() {
        let w = esc(&"<a>".repeat(60));
        let text = wrap(&w, "- ", "  ");
        for l in text.lines() {
            assert!(width(l) <= WIDTH, "{l}");
            assert!(!l.ends_with('&') && !l.ends_with('\\'), "{l}");
        }
        let joined: String = text
            .lines()
            .map(|l| l.trim_start_matches(['-', ' ']))
            .collect();
        assert_eq!(joined, w);
        assert_eq!(esc("1.5 a.b"), "1.5 a.b");
        assert_eq!(esc("a\nb"), "a\\\\nb");
    }

    /// A `-`, `+`, `=` or `1.` that the wrapping puts at a line's start, as a word or as
    /// the rest of a cut word, is escaped there and only there.
    #[test]
    fn wrap_escapes_what_it_moves_to_a_line_start() {
        for marker in ["-", "+", "=", "1.", "2)"] {
            let text = format!("{} {marker} after - mid", "w".repeat(WIDTH - 2));
            let wrapped = wrap(&text, "- ", "  ");
            let lines: Vec<&str> = wrapped.lines().collect();
            assert_eq!(lines.len(), 2, "{wrapped}");
            assert_eq!(lines[1], format!("  {} after - mid", line_start(marker)));
            assert_ne!(line_start(marker), marker);
        }
        // a long word cut so that its rest starts with a list marker
        let word = format!("{}-", "w".repeat(WIDTH - 2));
        let wrapped = wrap(&format!("{word} x"), "- ", "  ");
        assert_eq!(wrapped, format!("- {}\n  \\- x\n", "w".repeat(WIDTH - 2)));
    }

    /// The report of results named by each hostile name of md_escape.rs `HOSTILE` (its
    /// run and its file): in the run's heading and its file line (inside a line) each is
    /// the table's text; as a list item's own text (what the earlier runs say) the
    /// table's line-start form.
    #[test]
    fn hostile_names_are_escaped_as_the_one_table_says() {
        let r = crate::report::copy_result_warned("m");
        for (name, inside, start) in crate::report::md_escape::HOSTILE {
            if name.contains("  ") {
                continue; // the wrapping folds runs of spaces: no indentation to escape
            }
            let md = MarkdownReport {
                names: vec![name.into()],
                files: vec![name.into()],
                history: vec![vec![name.into()]],
            }
            .render(std::slice::from_ref(&r))
            .unwrap();
            let md = String::from_utf8(md).unwrap();
            assert!(
                md.contains(&format!("\n## A = {inside}\n")),
                "{name:?}: {md}"
            );
            assert!(
                md.contains(&format!("\n- **file**: {inside}\n")),
                "{name:?}: {md}"
            );
            let earlier = md
                .split("### Against the earlier kept runs\n\n")
                .nth(1)
                .unwrap();
            assert!(
                earlier.starts_with(&format!("- {start}\n")),
                "{name:?}: {md}"
            );
        }
    }
}
