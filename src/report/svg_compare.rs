//! `compare --plot FILE.svg`: grouped bars, one group per test, one bar per result
//! file, in two panels (MB/s, decimal; IOPS), and a third (time in fsync, %) when a
//! column fsyncs. Drawn with plotters' SVG backend only:
//! text is emitted as SVG `<text>` in a generic `sans-serif` family, so no system font
//! is read at build or run time. Draws only the [`Comparison`] that the table shows.

use crate::report::compare::{letter, Comparison, Row};
use crate::report::{ReportError, Reporter};
use crate::result::RunResult;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Bar colours, one per column (colour-blind-friendly Okabe–Ito palette).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

/// Height of one legend row, px (14 px text and its spacing in plotters' series labels).
const LEGEND_ROW_PX: f64 = 20.0;

/// A column's legend entry: `A = label`, with the bars' `⚠` marker when the column has
/// warnings (said in words under the chart: [`notes`]).
fn legend_label(ci: usize, col: &crate::report::compare::Column) -> String {
    let mark = if col.warnings.is_empty() { "" } else { " ⚠" };
    format!("{} = {}{mark}", letter(ci), col.label)
}

/// Width of the chart, px.
const WIDTH_PX: u32 = 1200;

/// Font size the notes are given to plotters, px.
const NOTE_FONT: f64 = 13.0;

/// The size the notes are drawn at, px: plotters' SVG backend writes a font's size
/// divided by 1.24 (`font-size="10.48…"` for 13).
const NOTE_DRAWN_PX: f64 = NOTE_FONT / 1.24;

/// Left margin of a note's first line, and of the lines that continue it, px.
const NOTE_X: (i32, i32) = (20, 34);

/// Width of a note line, px: the chart's width less the indented line's margin and as
/// much on the right.
const NOTE_WIDTH_PX: f64 = WIDTH_PX as f64 - 2.0 * NOTE_X.1 as f64;

/// Width of `c` in ems, after DejaVu Sans (the widest of the common sans-serif fonts;
/// Liberation Sans and Arial draw narrower), each class at its widest character, so a
/// line measured by it never overflows the chart whichever sans-serif draws it.
fn char_em(c: char) -> f64 {
    match c {
        ' ' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | '`' | 'i' | 'j' | 'l' | 'I' | 'J' => 0.34,
        'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '{' | '}' | '-' | '/' | '\\' => 0.42,
        'm' | 'w' | 'M' | 'W' | '%' | '@' => 1.0,
        '<' | '>' | '=' | '+' | '#' | '~' | '^' | '&' => 0.84,
        'A'..='Z' => 0.79,
        c if c.is_ascii() => 0.64,
        // other scripts, symbols (`⚠`, `µ`), CJK: a full em
        _ => 1.0,
    }
}

/// Drawn width of `s` in a note, px.
#[cfg(test)]
fn note_px(s: &str) -> f64 {
    s.chars().map(char_em).sum::<f64>() * NOTE_DRAWN_PX
}

/// Height of one note line, px.
const NOTE_ROW_PX: i32 = 18;

/// `text` in lines at most `width` wide, each character `w(c)` wide, broken at spaces
/// (a word longer than a line is cut).
fn wrap(text: &str, width: f64, w: impl Fn(char) -> f64) -> Vec<String> {
    let mut lines: Vec<String> = vec![];
    let mut line = String::new();
    let mut used = 0.0;
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        while !word.is_empty() {
            let fresh = line.is_empty();
            let sep = if fresh { 0.0 } else { w(' ') };
            let need: f64 = word.iter().map(|&c| w(c)).sum();
            if used + sep + need <= width {
                if !fresh {
                    line.push(' ');
                }
                line.extend(word.drain(..));
                used += sep + need;
            } else if !fresh {
                lines.push(std::mem::take(&mut line));
                used = 0.0;
            } else {
                // a word longer than a line: cut, at least one character a line
                let mut room = 0;
                let mut taken = 0.0;
                while room < word.len() && (room == 0 || taken + w(word[room]) <= width) {
                    taken += w(word[room]);
                    room += 1;
                }
                line.extend(word.drain(..room));
                lines.push(std::mem::take(&mut line));
                used = 0.0;
            }
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The lines under the chart: the `*` of a test whose jobs differ, then each warning
/// once, in words, with the columns it holds for (`⚠ B, C: the buffered file set …`, as
/// compare's text says them under its table), wrapped to the chart's width; `true`
/// marks a line that continues a note (drawn indented under its first).
fn notes(c: &Comparison) -> Vec<(bool, String)> {
    let mut out = vec![];
    let mut note = |text: &str| {
        let lines = wrap(text, NOTE_WIDTH_PX, |c| char_em(c) * NOTE_DRAWN_PX);
        out.extend(lines.into_iter().enumerate().map(|(k, l)| (k > 0, l)));
    };
    if c.rows
        .iter()
        .flat_map(|r| &r.differences)
        .any(|d| !d.ends_with("no such test"))
    {
        note("* the results' jobs differ for this test (block size, QD, threads, O_DIRECT, fsync policy, memory target or page cache): see the \"jobs differ\" column of iomark compare");
    }
    for n in crate::report::compare::warning_notes(c) {
        let text = if n.text.trim().is_empty() {
            &n.id
        } else {
            &n.text
        };
        let line = format!(
            "⚠ {}: {}",
            n.columns.join(", "),
            crate::util::text::visible(text)
        );
        note(&line);
    }
    out
}

/// The top of a panel's y range: the legend (upper right, one row per column) never
/// covers a bar, as the range leaves its height, and the value labels', free above the
/// tallest bar (`max`) in a panel `area_h` pixels high.
fn y_top(area_h: u32, max: f64, columns: usize) -> f64 {
    let plot_h = (f64::from(area_h) - 130.0).max(60.0);
    let legend_h = LEGEND_ROW_PX * columns as f64 + 24.0;
    let free = (1.0 - legend_h / plot_h).clamp(0.2, 0.9);
    if max > 0.0 {
        max * 1.08 / free
    } else {
        1.0
    }
}

fn panel(
    area: &DrawingArea<SVGBackend, Shift>,
    c: &Comparison,
    metric: &str,
    title: &str,
    y_desc: &str,
) -> Result<(), String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let rows: Vec<_> = c.rows.iter().filter(|r| r.metric == metric).collect();
    let n = c.columns.len().max(1);
    let max = rows
        .iter()
        .flat_map(|r| r.values.iter().flatten())
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let top = y_top(area.dim_in_pixel().1, max, n);
    let groups = rows.len().max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(60)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..groups, 0f64..top)
        .map_err(|x| e(&x))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(y_desc)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|x| e(&x))?;
    let width = 0.8 / n as f64;
    for (ci, col) in c.columns.iter().enumerate() {
        let color = PALETTE[ci % PALETTE.len()];
        let bars = rows.iter().enumerate().filter_map(move |(gi, r)| {
            let v = r.values.get(ci).copied().flatten()?;
            let x0 = gi as f64 + 0.1 + ci as f64 * width;
            Some(Rectangle::new(
                [(x0, 0.0), (x0 + width * 0.92, v)],
                color.filled(),
            ))
        });
        chart
            .draw_series(bars)
            .map_err(|x| e(&x))?
            .label(legend_label(ci, col))
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
    }
    value_labels(&mut chart, c, &rows, width)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|x| e(&x))?;
    group_labels(area, &chart, c, &rows)
}

/// The value above each bar (a warned column's with a marker before it).
fn value_labels(
    chart: &mut ChartContext<SVGBackend, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    c: &Comparison,
    rows: &[&Row],
    width: f64,
) -> Result<(), String> {
    for (ci, col) in c.columns.iter().enumerate() {
        // a warned column's bars carry a marker before their value
        let mark = if col.warnings.is_empty() { "" } else { "⚠ " };
        let texts = rows.iter().enumerate().filter_map(move |(gi, r)| {
            let v = r.values.get(ci).copied().flatten()?;
            let x = gi as f64 + 0.1 + (ci as f64 + 0.46) * width;
            let s = if v >= 100.0 {
                format!("{mark}{v:.0}")
            } else {
                format!("{mark}{v:.1}")
            };
            Some(Text::new(
                s,
                (x, v),
                ("sans-serif", 11)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Center, VPos::Bottom)),
            ))
        });
        chart.draw_series(texts).map_err(|x| x.to_string())?;
    }
    Ok(())
}

/// The test names under each group of bars, in backend coordinates (the mesh has no x
/// labels); a test whose columns differ in their jobs gets a `*`.
fn group_labels(
    area: &DrawingArea<SVGBackend, Shift>,
    chart: &ChartContext<SVGBackend, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    c: &Comparison,
    rows: &[&Row],
) -> Result<(), String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let base = area.get_base_pixel();
    for (gi, r) in rows.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(gi as f64 + 0.5, 0.0));
        let differs = c
            .rows
            .iter()
            .filter(|x| x.test == r.test)
            .flat_map(|x| &x.differences)
            .any(|d| !d.ends_with("no such test"));
        // two lines ("RND4K Q32T1" / "read *") so that eight groups fit side by side
        let (l1, l2) = r.test.rsplit_once(' ').unwrap_or((r.test.as_str(), ""));
        let l2 = if differs {
            format!("{l2} *")
        } else {
            l2.to_string()
        };
        for (i, line) in [l1.to_string(), l2].into_iter().enumerate() {
            area.draw(&Text::new(
                line,
                (px - base.0, py - base.1 + 8 + 17 * i as i32),
                ("sans-serif", 14)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Center, VPos::Top)),
            ))
            .map_err(|x| e(&x))?;
        }
    }
    Ok(())
}

/// `compare --plot`: the grouped-bar chart of the results (a reporter over many
/// results, labelled and named by the files they came from).
pub struct CompareChart {
    /// column labels, one per result
    pub labels: Vec<String>,
    /// the files, one per result
    pub files: Vec<String>,
}

impl Reporter<[RunResult]> for CompareChart {
    fn render(&self, rs: &[RunResult]) -> Result<Vec<u8>, ReportError> {
        let c = crate::report::compare::compare(rs, &self.labels, &self.files);
        let mut svg = String::new();
        draw(&c, &mut svg).map_err(ReportError::Failed)?;
        Ok(svg.into_bytes())
    }
}

/// Draw the grouped-bar chart of `c` (SVG, 1200 px wide; 450 px a panel and a line a
/// note under them).
fn draw(c: &Comparison, svg: &mut String) -> Result<(), String> {
    // a third panel, the share of the time in fsync, when a column fsyncs
    let fsyncs = c
        .rows
        .iter()
        .any(|r| r.metric == crate::report::compare::TIME_IN_FSYNC);
    let panels = if fsyncs { 1350 } else { 900 };
    let notes = notes(c);
    let footer = if notes.is_empty() {
        0
    } else {
        NOTE_ROW_PX * notes.len() as i32 + 16
    };
    let height = panels + footer as u32;
    let root = SVGBackend::with_string(svg, (WIDTH_PX, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| x.to_string())?;
    let (upper, rest) = root.split_vertically(450);
    let (lower, rest) = rest.split_vertically(450);
    // the notes' lines below the panels: no panel reaches into them
    let (third, _) = rest.split_vertically(450);
    if fsyncs {
        panel(
            &third,
            c,
            crate::report::compare::TIME_IN_FSYNC,
            "Time in fsync per test (share of the wall time)",
            "% of the time inside fsync",
        )?;
    }
    panel(
        &upper,
        c,
        "MB/s",
        "Bandwidth per test (higher is better)",
        "MB/s (1 MB = 1,000,000 B)",
    )?;
    panel(
        &lower,
        c,
        "IOPS",
        "IOPS per test (higher is better)",
        "I/O operations per second",
    )?;
    for (i, (continues, line)) in notes.into_iter().enumerate() {
        let x = if continues { NOTE_X.1 } else { NOTE_X.0 };
        root.draw(&Text::new(
            line,
            (x, panels as i32 + 4 + NOTE_ROW_PX * i as i32),
            ("sans-serif", NOTE_FONT)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Top)),
        ))
        .map_err(|x| x.to_string())?;
    }
    root.present().map_err(|x| x.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rectangles of an SVG: (x, y, width, height, fill, opacity).
    fn rects(svg: &str) -> Vec<(f64, f64, f64, f64, String, f64)> {
        let attr = |tag: &str, k: &str| -> Option<String> {
            let at = tag.find(&format!(" {k}=\""))? + k.len() + 3;
            Some(tag[at..].split('"').next()?.to_string())
        };
        svg.split("<rect")
            .skip(1)
            .filter_map(|t| {
                let tag = t.split('>').next()?;
                let n = |k: &str| attr(tag, k).and_then(|v| v.parse::<f64>().ok());
                Some((
                    n("x")?,
                    n("y")?,
                    n("width")?,
                    n("height")?,
                    attr(tag, "fill").unwrap_or_default(),
                    n("opacity").unwrap_or(1.0),
                ))
            })
            .collect()
    }

    /// Three results, one bar far taller than the others, one column warned: the
    /// legend's box (its translucent white background) intersects no bar of any panel.
    #[test]
    fn the_legend_box_covers_no_bar() {
        let mut rs = vec![];
        for (mb, ops) in [(950.0, 9500.0), (20.0, 200.0), (940.0, 9400.0)] {
            let mut r = crate::report::copy_result_warned("on tmpfs");
            r.phases[0].mb_per_s = mb;
            r.phases[0].ops_per_s = ops;
            rs.push(r);
        }
        let svg = CompareChart {
            labels: vec!["a long label of a drive".into(), "b".into(), "c".into()],
            files: vec!["a.json".into(), "b.json".into(), "c.json".into()],
        }
        .render(&rs)
        .unwrap();
        let all = rects(&String::from_utf8(svg).unwrap());
        let legends: Vec<_> = all
            .iter()
            .filter(|r| r.4 == "#FFFFFF" && r.5 < 1.0)
            .collect();
        assert!(legends.len() >= 2, "one legend per panel: {all:?}");
        let inside = |r: &(f64, f64, f64, f64, String, f64),
                      l: &(f64, f64, f64, f64, String, f64)| {
            r.0 >= l.0 && r.1 >= l.1 && r.0 + r.2 <= l.0 + l.2 && r.1 + r.3 <= l.1 + l.3
        };
        let bars: Vec<_> = all
            .iter()
            .filter(|r| {
                PALETTE
                    .iter()
                    .any(|c| r.4 == format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2))
            })
            .filter(|r| !legends.iter().any(|l| inside(r, l)))
            .collect();
        assert_eq!(
            bars.len(),
            3 * legends.len(),
            "three bars per panel: {all:?}"
        );
        for l in &legends {
            for b in &bars {
                let apart =
                    b.0 + b.2 <= l.0 || l.0 + l.2 <= b.0 || b.1 + b.3 <= l.1 || l.1 + l.3 <= b.1;
                assert!(apart, "the legend {l:?} covers the bar {b:?}");
            }
        }
    }

    /// The texts of an SVG: (y, content as written, escapes and all).
    fn texts(svg: &str) -> Vec<(f64, String)> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let (tag, rest) = t.split_once('>')?;
                let y = tag.split(" y=\"").nth(1)?.split('"').next()?.parse().ok()?;
                Some((y, rest.split("</text>").next()?.trim().to_string()))
            })
            .collect()
    }

    /// XML's escapes undone.
    fn unescape(s: &str) -> String {
        s.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&apos;", "'")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    }

    /// The picture's height, px (the first `height=` of the document, the `<svg>`'s).
    fn picture_height(svg: &str) -> f64 {
        let h = svg.split("height=\"").nth(1).unwrap();
        h.split('"').next().unwrap().parse().unwrap()
    }

    /// A copy result on tmpfs with one more warning, `id` saying `message`.
    fn warned_with(id: &str, message: &str) -> RunResult {
        let mut warned = crate::report::copy_result_warned("on tmpfs");
        warned.warnings.push(crate::result::Warning {
            id: id.into(),
            message: message.into(),
        });
        warned
    }

    /// The compare chart of `rs` as text.
    fn chart(rs: &[RunResult], labels: &[String], files: &[String]) -> String {
        let svg = CompareChart {
            labels: labels.to_vec(),
            files: files.to_vec(),
        }
        .render(rs)
        .unwrap();
        String::from_utf8(svg).unwrap()
    }

    /// Under the chart, each warning is said once in words with the columns it holds
    /// for (compare's text says the same under its table, with the ids its `warnings`
    /// row shows), wrapped to the chart's width inside the picture, escaped as text:
    /// a label or message with `<` and `&` (a result file is input) is never markup.
    /// The legend marks a warned column with the bars' `⚠`, and names no id.
    #[test]
    fn the_notes_under_the_chart_say_each_warning_once_in_words_escaped() {
        use crate::report::compare_render::{Compare, Format};
        let long = "a <b>crafted</b> & long sentence of a warning, ".repeat(8);
        let rs = vec![
            warned_with("x<y&z", &long),
            crate::report::copy_result_warned("on tmpfs"),
        ];
        let labels: Vec<String> = vec!["<script>alert(1)</script>".into(), "plain".into()];
        let files: Vec<String> = vec!["a.json".into(), "b.json".into()];
        let svg = chart(&rs, &labels, &files);
        let table = Compare {
            labels: labels.clone(),
            files: files.clone(),
            groups: vec![],
            baseline: 0,
            format: Format::Table,
            paint: crate::util::color::Paint { on: false },
            findings: vec![],
        }
        .render(&rs)
        .unwrap();
        let table = String::from_utf8(table).unwrap();
        assert!(
            table.contains("  A, B: target.memory_fs: on tmpfs\n"),
            "{table}"
        );
        assert!(table.contains("  A: x<y&z: a <b>crafted"), "{table}");
        // the legend: `A = label ⚠`, escaped, no id
        assert!(
            svg.contains("\nA = &lt;script&gt;alert(1)&lt;/script&gt; ⚠\n"),
            "{svg}"
        );
        assert!(svg.contains("\nB = plain ⚠\n"), "{svg}");
        assert!(
            !svg.contains("target.memory_fs") && !svg.contains("x&lt;y"),
            "{svg}"
        );
        assert!(!svg.contains("<script") && !svg.contains("<b>"), "{svg}");
        // the notes: one line for the shared warning, the long one wrapped
        let notes = notes(&crate::report::compare::compare(&rs, &labels, &files));
        let lines: Vec<String> = notes.iter().map(|(_, l)| l.clone()).collect();
        // each note's first line at the margin, the lines that continue it indented
        let starts: Vec<bool> = notes.iter().map(|(c, _)| !c).collect();
        assert_eq!(starts[..3], [true, true, false], "{notes:?}");
        assert_eq!(
            lines.iter().filter(|l| *l == "⚠ A, B: on tmpfs").count(),
            1,
            "{lines:?}"
        );
        let crafted: Vec<&String> = lines
            .iter()
            .skip_while(|l| !l.starts_with("⚠ A: a <b>crafted</b> &"))
            .collect();
        assert!(crafted.len() >= 3, "wrapped: {lines:?}");
        let words: Vec<&str> = crafted.iter().flat_map(|l| l.split_whitespace()).collect();
        let want: Vec<&str> = ["⚠", "A:"]
            .into_iter()
            .chain(long.split_whitespace())
            .collect();
        assert_eq!(words, want);
        // drawn last, below everything else, inside the picture, each within the width
        let height = picture_height(&svg);
        let all = texts(&svg);
        let (above, drawn) = all.split_at(all.len() - lines.len());
        let drawn: Vec<String> = drawn.iter().map(|(_, t)| unescape(t)).collect();
        assert_eq!(drawn, lines);
        let top = all[above.len()].0;
        assert!(above.iter().all(|(y, _)| *y < top), "{all:?}");
        for l in &lines {
            assert!(
                f64::from(NOTE_X.1) + note_px(l) <= f64::from(WIDTH_PX) - 20.0,
                "{l}"
            );
        }
        let bottom = all.last().unwrap().0;
        assert!(
            bottom + f64::from(NOTE_ROW_PX) <= height,
            "{bottom} in {height}"
        );
    }

    /// A long note's lines use the chart's width: drawn at the size the SVG says
    /// (plotters' 13 px written as 13 / 1.24), each line's measured width within the
    /// picture, and every line but the last full up to the next word.
    #[test]
    fn a_long_notes_lines_fill_the_charts_width() {
        let long = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do ".repeat(12);
        let rs = vec![warned_with("long", &long)];
        let labels: Vec<String> = vec!["a".into()];
        let files: Vec<String> = vec!["a.json".into()];
        let svg = chart(&rs, &labels, &files);
        let lines: Vec<String> = notes(&crate::report::compare::compare(&rs, &labels, &files))
            .into_iter()
            .map(|(_, l)| l)
            .filter(|l| l.contains("lorem") || l.starts_with("ipsum") || l.contains(" sed "))
            .collect();
        assert!(lines.len() >= 3, "{lines:?}");
        // the size the notes are drawn at, from the SVG
        let tag = svg
            .split("<text")
            .find(|t| t.contains(lines[1].as_str()))
            .unwrap();
        let size: f64 = tag
            .split("font-size=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!((size - NOTE_DRAWN_PX).abs() < 1e-9, "{tag}");
        let widest_word = long
            .split_whitespace()
            .map(|w| note_px(&format!(" {w}")))
            .fold(0.0, f64::max);
        for (k, l) in lines.iter().enumerate() {
            let px = f64::from(NOTE_X.1) + note_px(l);
            assert!(px <= f64::from(WIDTH_PX) - 20.0, "{px}: {l}");
            if k + 1 < lines.len() {
                assert!(
                    note_px(l) + widest_word > NOTE_WIDTH_PX,
                    "line {k} stops at {px} px of {WIDTH_PX}: {l}"
                );
            }
        }
    }

    #[test]
    fn wrap_breaks_at_spaces_and_cuts_a_longer_word() {
        let one = |_| 1.0;
        assert_eq!(wrap("aa bb cc", 5.0, one), ["aa bb", "cc"]);
        assert_eq!(wrap("abcdefgh x", 4.0, one), ["abcd", "efgh", "x"]);
        assert_eq!(wrap("", 4.0, one), Vec::<String>::new());
        assert_eq!(wrap("a  b\nc", 10.0, one), ["a b c"]);
        // by width: two wide characters take the room of four narrow ones
        let w = |c: char| if c == 'W' { 2.0 } else { 1.0 };
        assert_eq!(wrap("WW aaaa a", 4.0, w), ["WW", "aaaa", "a"]);
        assert_eq!(wrap("aWWa", 2.5, w), ["a", "W", "W", "a"]);
    }
}
