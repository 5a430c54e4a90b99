//! Printed names in every format: a result whose job name, device (the default column
//! label), command line, directory and file path hold markup (`<script>`, `&`, `"`,
//! `'`) and control characters (newline, tab, ESC, NUL) goes through `iomark compare`
//! (table, markdown, csv, the `--plot` SVG) and `iomark report` (the HTML page, markdown).
//! Each output holds no markup of the name (the SVG parsed as XML, the others by their
//! exact escaped forms), every control character is written out (`\n`, `\t`, `\x1b`,
//! `\x00`: never a line break or a raw byte), and the rows of every markdown table and
//! CSV keep their column count.

use crate::util::*;
use std::path::{Path, PathBuf};

/// The hostile name: markup, quotes, an ampersand and four control characters.
const NAME: &str = "<script>alert(1)</script> & \"q\" 's' nl\nx\ttab\x1besc\x00nul";

/// [`NAME`] with its control characters written out (how every format shows it before
/// its own escaping).
const SHOWN: &str = "<script>alert(1)</script> & \"q\" 's' nl\\nx\\ttab\\x1besc\\x00nul";

/// Part of a directory and file name: markup, quotes and control characters (no NUL,
/// which a path cannot hold).
const PATH_PART: &str = "<i>&\"'\n\t\x1b";

/// The result with [`NAME`] everywhere a name is printed from, in a directory and a
/// file named with [`PATH_PART`], beside a plain second result `b.json`.
fn hostile_results(d: &Path) -> (PathBuf, PathBuf) {
    let text = std::fs::read_to_string(fixture("compare/a-vm-mark.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["phases"][0]["name"] = format!("{NAME} read").into();
    v["diagnosis"]["summary"]["device_model"] = NAME.into();
    v["argv"]
        .as_array_mut()
        .unwrap()
        .push(format!("--name={NAME}").into());
    v["job"]["directory"] = format!("/srv/{NAME}").into();
    let dir = d.join(format!("dir {PATH_PART}"));
    std::fs::create_dir(&dir).unwrap();
    let a = dir.join(format!("h{PATH_PART}.json"));
    std::fs::write(&a, serde_json::to_string(&v).unwrap()).unwrap();
    let b = d.join("b.json");
    std::fs::copy(fixture("compare/b-980pro-mark.json"), &b).unwrap();
    (a, b)
}

/// No raw control character but the line ends.
fn no_raw_controls(what: &str, s: &str) {
    let bad: Vec<char> = s.chars().filter(|c| c.is_control() && *c != '\n').collect();
    assert!(bad.is_empty(), "{what}: raw control characters {bad:?}");
}

/// The number of unescaped `|` of a markdown table line.
fn pipes(line: &str) -> usize {
    let mut n = 0;
    let mut escaped = false;
    for c in line.chars() {
        match c {
            '\\' if !escaped => escaped = true,
            '|' if !escaped => n += 1,
            _ => escaped = false,
        }
    }
    n
}

/// Every markdown table (a run of lines starting with `|`) keeps its header's column
/// count in every row; the count of table rows seen.
fn tables_keep_their_columns(what: &str, md: &str) -> usize {
    let mut rows = 0;
    let mut header: Option<usize> = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        rows += 1;
        let n = pipes(line);
        match header {
            None => header = Some(n),
            Some(h) => assert_eq!(n, h, "{what}: a row lost its columns: {line}"),
        }
    }
    rows
}

/// The records of a CSV text (RFC 4180: quoted fields, `""` for a quote).
fn csv_records(s: &str) -> Vec<Vec<String>> {
    let (mut out, mut rec, mut field) = (vec![], vec![], String::new());
    let mut quoted = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => rec.push(std::mem::take(&mut field)),
            ('\n', false) => {
                rec.push(std::mem::take(&mut field));
                out.push(std::mem::take(&mut rec));
            }
            (c, _) => field.push(c),
        }
    }
    out
}

/// compare's aligned table, markdown and CSV of the hostile result: the name on one
/// line with its control characters written out, markdown's markup as entities and
/// its rows whole, every CSV record as wide as its header and the name a field.
#[test]
fn compare_prints_hostile_names_as_text_in_every_format() {
    let work = scratch();
    let d = work.path();
    let (a, b) = hostile_results(d);
    let files = [a.to_str().unwrap(), b.to_str().unwrap()];
    let run = |extra: &[&str]| {
        let o = Iomark::new()
            .dir(d)
            .arg("compare")
            .args(files)
            .args(extra)
            .run();
        assert_eq!(o.code, 0, "{extra:?}: {}", o.dump());
        assert!(!o.all().contains("panicked"), "{}", o.dump());
        o.stdout
    };
    let text = run(&["--color=never"]);
    no_raw_controls("table", &text);
    let row = format!("mark {SHOWN} read");
    assert!(text.lines().any(|l| l.contains(&row)), "{text}");
    assert!(text.contains(&format!("A = {SHOWN} (")), "{text}");

    let md = run(&["--format=markdown"]);
    no_raw_controls("markdown", &md);
    assert!(!md.contains("<script") && !md.contains("<i>"), "{md}");
    // markdown: a backslash escaped (a visible `\n` stays `\n` when rendered)
    let md_name = SHOWN
        .replace('\\', "\\\\")
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    assert!(md.contains(&format!("| mark {md_name} read |")), "{md}");
    assert!(
        md.contains("h&lt;i&gt;&amp;\"'\\\\n\\\\t\\\\x1b.json"),
        "{md}"
    );
    assert!(
        tables_keep_their_columns("compare markdown", &md) > 10,
        "{md}"
    );

    let csv = run(&["--format=csv"]);
    let recs = csv_records(&csv);
    let width = recs[0].len();
    assert!(recs.len() > 10, "{csv}");
    for r in &recs {
        assert_eq!(r.len(), width, "a CSV record lost its fields: {r:?}");
        for f in r {
            no_raw_controls("csv field", f);
        }
    }
    assert_eq!(recs[0][2], SHOWN, "the label is the device, written out");
    assert!(recs.iter().any(|r| r[0] == format!("mark {SHOWN} read")));

    // a --label given on the command line (no NUL in argv) is written out the same way
    let label = format!("--label={}", "l<b>&\"'\n\t\x1b");
    let o = run(&["--format=markdown", label.as_str(), "--label=b"]);
    assert!(
        o.contains("- A = l&lt;b&gt;&amp;\"'\\\\n\\\\t\\\\x1b ("),
        "{o}"
    );
}

/// compare's `--plot` SVG of the hostile result parses as XML, has no element but the
/// chart's own (no `script`), and every text of the chart that holds the name or the
/// file holds it whole on one line, control characters written out.
#[test]
fn the_compare_chart_holds_hostile_names_as_svg_text() {
    let work = scratch();
    let d = work.path();
    let (a, b) = hostile_results(d);
    let o = Iomark::new()
        .dir(d)
        .arg("compare")
        .args([&a, &b])
        .arg("--plot=out.svg")
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    let svg = std::fs::read_to_string(d.join("out.svg")).unwrap();
    no_raw_controls("svg", &svg);
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    let kinds: std::collections::BTreeSet<&str> = doc
        .descendants()
        .filter(|n| n.is_element())
        .map(|n| n.tag_name().name())
        .collect();
    let chart = ["svg", "rect", "line", "polyline", "text", "path", "circle"];
    assert!(
        kinds.iter().all(|k| chart.contains(k)),
        "elements beyond the chart's: {kinds:?}"
    );
    let texts: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect();
    let named: Vec<&String> = texts.iter().filter(|t| t.contains("alert")).collect();
    assert!(!named.is_empty(), "{texts:?}");
    for t in named {
        assert!(t.contains(SHOWN), "a chart text cut or raw: {t:?}");
    }
    // the legend's label: the file's stem or the device, written out
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("A = ") && (t.contains(SHOWN) || t.contains("\\n\\t\\x1b"))),
        "{texts:?}"
    );
}

/// `iomark report -o x.html` and `--format=markdown` of the hostile result: the page
/// has no script element, no tag of the name and no raw control byte; the name, the
/// file and the device are escaped text with their control characters written out, each
/// on one line; the markdown's tables keep their columns.
#[test]
fn report_prints_hostile_names_as_text_in_html_and_markdown() {
    let work = scratch();
    let d = work.path();
    let (a, b) = hostile_results(d);
    let o = Iomark::new()
        .dir(d)
        .arg("report")
        .args([&a, &b])
        .args(["-o", "x.html"])
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    let html = std::fs::read_to_string(d.join("x.html")).unwrap();
    no_raw_controls("html", &html);
    let lower = html.to_lowercase();
    assert!(
        !lower.contains("<script") && !lower.contains("<i>"),
        "markup of the name"
    );
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#39;")
    };
    let device = esc(SHOWN);
    assert!(
        html.lines()
            .any(|l| l.contains("<th class=\"l\">device</th>") && l.contains(&device)),
        "device row"
    );
    let test_cell = format!("<td class=\"l\">mark {} read</td>", esc(SHOWN));
    assert!(html.contains(&test_cell), "test cell");
    let file = esc("h<i>&\"'\\n\\t\\x1b.json");
    assert!(
        html.lines()
            .any(|l| l.contains("<th class=\"l\">file</th>") && l.contains(&file)),
        "file row"
    );

    let o = Iomark::new()
        .dir(d)
        .arg("report")
        .args([&a, &b])
        .args(["--format=markdown", "-o", "-"])
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    let md = o.stdout;
    no_raw_controls("report markdown", &md);
    assert!(!md.contains("<script") && !md.contains("<i>"), "{md}");
    // markdown's escaping of the written-out name: `\` doubled, markup as entities
    let shown_md = "&lt;script&gt;alert(1)&lt;/script&gt; &amp; \"q\" 's' \
                    nl\\\\nx\\\\ttab\\\\x1besc\\\\x00nul";
    // (a list item wraps at spaces: its continuation lines joined back)
    let joined = md.replace("\n  ", " ");
    assert!(
        joined
            .lines()
            .any(|l| l.starts_with("- **device**: ") && l.contains(shown_md)),
        "device line: {md}"
    );
    assert!(
        tables_keep_their_columns("report markdown", &md) > 10,
        "{md}"
    );
}

/// A name that is markdown markup of every kind: emphasis, strong, a table cell's end,
/// HTML, a link, code, strikethrough, math, and (its words after the first line of a
/// wrapped list item start lines) list, rule and underline markers.
const MARKUP_NAME: &str = "- 1. *x* __s__ _y_ a|b <script>alert(1)</script> [l](u) `c` ~d~ $m$";

/// [`MARKUP_NAME`] and then list, rule and underline markers enough for the report's
/// wrapping to put them at the start of lines.
fn markup_name() -> String {
    format!("{MARKUP_NAME}{}", " - 1. + = -- 2)".repeat(12))
}

/// What a CommonMark parser (pulldown-cmark, GitHub's tables, strikethrough and math on)
/// finds in `md`: the text a reader sees (white space collapsed) and every node kind
/// that a name must never make. The report's and compare's own markup — strong column
/// letters and fact names, headings, the lists of columns, facts and notes, tables —
/// is checked by the caller against what it writes.
struct Parsed {
    text: String,
    /// node kinds a name would make: emphasis, link, code, HTML, math, quote, rule …
    foreign: Vec<String>,
    /// the texts of the strong spans
    strong: Vec<String>,
    /// the texts of the headings
    headings: Vec<String>,
    /// lists: ordered ones and the deepest nesting
    ordered: usize,
    depth: usize,
    /// the number of lists nested in another
    nested: usize,
}

fn parse_markdown(md: &str) -> Parsed {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_MATH;
    let mut p = Parsed {
        text: String::new(),
        foreign: vec![],
        strong: vec![],
        headings: vec![],
        ordered: 0,
        depth: 0,
        nested: 0,
    };
    let (mut lists, mut span): (usize, Option<(bool, String)>) = (0, None);
    for e in Parser::new_ext(md, opts) {
        match &e {
            Event::Start(Tag::Strong) => span = Some((true, String::new())),
            Event::Start(Tag::Heading { .. }) => span = Some((false, String::new())),
            Event::End(TagEnd::Strong) => p.strong.extend(span.take().map(|s| s.1)),
            Event::End(TagEnd::Heading(_)) => {
                p.headings.extend(span.take().map(|s| s.1));
                p.text.push(' ');
            }
            Event::Start(Tag::List(first)) => {
                p.ordered += usize::from(first.is_some());
                lists += 1;
                p.nested += usize::from(lists > 1);
                p.depth = p.depth.max(lists);
            }
            Event::End(TagEnd::List(_)) => lists -= 1,
            Event::Text(t) => {
                if let Some((_, s)) = &mut span {
                    s.push_str(t);
                }
                p.text.push_str(t);
            }
            Event::SoftBreak | Event::HardBreak => p.text.push(' '),
            Event::End(TagEnd::TableCell | TagEnd::Item | TagEnd::Paragraph) => p.text.push(' '),
            Event::Start(
                Tag::Paragraph
                | Tag::Item
                | Tag::Table(_)
                | Tag::TableHead
                | Tag::TableRow
                | Tag::TableCell,
            )
            | Event::End(_) => {}
            other => p.foreign.push(format!("{other:?}")),
        }
    }
    p.text = p.text.split_whitespace().collect::<Vec<_>>().join(" ");
    p
}

/// A result named [`markup_name`] (its test, its device, the column's label): through
/// `iomark compare --format=markdown` and `iomark report --format=markdown`, parsed by a
/// CommonMark parser, the name makes no node — no emphasis, strong, link, code, HTML,
/// strikethrough, math, heading, rule, quote, ordered or nested list — and reads as
/// written (white space collapsed); compare's table rows keep the name whole in their
/// cell (its `|` no cell end).
#[test]
fn markdown_names_make_no_markup_in_a_commonmark_parser() {
    let work = scratch();
    let d = work.path();
    let name = markup_name();
    let text = std::fs::read_to_string(fixture("compare/a-vm-mark.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["phases"][0]["name"] = format!("{name} read").into();
    v["diagnosis"]["summary"]["device_model"] = name.clone().into();
    std::fs::write(d.join("a.json"), serde_json::to_string(&v).unwrap()).unwrap();
    std::fs::copy(fixture("compare/b-980pro-mark.json"), d.join("b.json")).unwrap();
    // the name as a reader sees it: its white space collapsed
    let seen = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let o = Iomark::new()
        .dir(d)
        .args(["compare", "a.json", "b.json", "--format=markdown"])
        .arg(format!("--label={name}"))
        .arg("--label=b")
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    let p = parse_markdown(&o.stdout);
    assert!(p.foreign.is_empty(), "{:?}\n{}", p.foreign, o.stdout);
    assert!(p.strong.is_empty() && p.headings.is_empty(), "{}", o.stdout);
    // the legend: one list of the columns, each with its context as one nested item
    assert_eq!((p.ordered, p.depth, p.nested), (0, 2, 2), "{}", o.stdout);
    assert!(
        p.text.contains(&format!("A = {} (a.json", seen)),
        "{}",
        p.text
    );
    assert!(
        p.text.contains(&format!("mark {} read", seen)),
        "{}",
        p.text
    );

    let o = Iomark::new()
        .dir(d)
        .args(["report", "a.json", "b.json", "--format=markdown", "-o", "-"])
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    let md = &o.stdout;
    // the wrapping put the name's markers at the start of lines (what is checked)
    let markers = ["\\-", "1\\.", "2\\)", "\\+", "\\="];
    assert!(
        md.lines()
            .any(|l| markers.iter().any(|m| l.trim_start().starts_with(m))),
        "{md}"
    );
    let p = parse_markdown(md);
    assert!(p.foreign.is_empty(), "{:?}\n{md}", p.foreign);
    let facts = [
        "A", "B", "file", "ended", "command", "machine", "device", "settings",
    ];
    assert!(
        p.strong.iter().all(|s| facts.contains(&s.as_str())),
        "{:?}\n{md}",
        p.strong
    );
    let heads = [
        "iomark report",
        "Side by side",
        "A = ",
        "B = ",
        "Diagnosis",
        "Findings",
        "Warnings",
        "Against",
    ];
    for h in &p.headings {
        assert!(
            heads.iter().any(|k| h.starts_with(k)),
            "heading {h:?}\n{md}"
        );
    }
    assert_eq!((p.ordered, p.depth), (0, 1), "{md}");
    assert!(p.text.contains(&format!("device: {}", seen)), "{}", p.text);
    // the test's name, shortened in the table, whole in the note under it
    assert!(
        p.text.contains(&format!("[1] mark {seen} read")),
        "{}",
        p.text
    );
}
