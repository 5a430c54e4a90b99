//! The one escaping of text written into Markdown (CommonMark with GitHub's tables and
//! strikethrough), used by both Markdown writers: `iomark report --format=markdown`
//! (report/markdown.rs) and compare's Markdown table (report/compare_render.rs). A name
//! — job, label, path, device, command line, message — is text, never markup:
//!
//! - anywhere ([`text`]): `\`, `` ` ``, `*`, `_`, `~`, `|`, `[`, `]`, `#`, `$`
//!   backslash-escaped (emphasis, code, strikethrough, a table cell's end, links, headings,
//!   math), `&`, `<`, `>` as entities (report/escape.rs: `<script>` stays text, no HTML,
//!   no autolink, no block quote), control characters written out first (`\n`, `\t`,
//!   `\x1b`, util/text.rs `visible`): never a line break or a raw byte;
//! - where the text starts a line ([`line`], [`line_start`]): also the markers that only
//!   there start a block — a run of `-` or of `=` before a space, a tab or the end (list
//!   item, thematic break, setext underline), `+` before a space, a tab or the end (list
//!   item), the `.` or `)` after up to nine digits before a space, a
//!   tab or the end (ordered list), a leading space (indented code) as `&#32;`.
//!
//! So `-5`, `--size=1m`, `a-b`, `1.5`, `v1.2` and `a=b` stay as written; a table cell, which is
//! never a line start, gets [`text`] alone (its `|` escaped: the row keeps its columns).

/// The characters Markdown reads as markup wherever they stand (backslash-escaped).
const ANYWHERE: [char; 10] = ['\\', '`', '*', '_', '~', '|', '[', ']', '#', '$'];

/// `s` as Markdown text inside a line or a table cell: control characters written out,
/// [`ANYWHERE`]'s characters backslash-escaped, `&`, `<`, `>` as entities.
pub fn text(s: &str) -> String {
    let s = crate::util::text::visible(s);
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if ANYWHERE.contains(&c) {
            o.push('\\');
            o.push(c);
        } else {
            super::escape::push_text(&mut o, c);
        }
    }
    o
}

/// `s` as Markdown text that starts a line (a list item's text, a line of its own):
/// [`text`], then [`line_start`].
pub fn line(s: &str) -> String {
    line_start(&text(s))
}

/// Text already escaped by [`text`] (or iomark's own markup, which starts with none of
/// these) where it starts a line: the list, break or underline marker it would start
/// there written as text (module header).
pub fn line_start(t: &str) -> String {
    let b = t.as_bytes();
    let ends_at = |i: usize| b.get(i).is_none_or(|c| matches!(c, b' ' | b'\t'));
    match b.first() {
        // a run of them before a space or the end: a list item, a rule, an underline
        Some(&m @ (b'-' | b'=')) if ends_at(b.iter().take_while(|c| **c == m).count()) => {
            format!("\\{t}")
        }
        Some(b'+') if ends_at(1) => format!("\\{t}"),
        Some(b' ') => format!("&#32;{}", &t[1..]),
        Some(c) if c.is_ascii_digit() => {
            let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
            if n <= 9 && matches!(b.get(n), Some(b'.' | b')')) && ends_at(n + 1) {
                format!("{}\\{}", &t[..n], &t[n..])
            } else {
                t.to_string()
            }
        }
        _ => t.to_string(),
    }
}

/// Hostile names and what each becomes: inside a line or a cell ([`text`]) and at the
/// start of a line ([`line`]). Both Markdown writers' tests check their output against it.
#[cfg(test)]
pub(crate) const HOSTILE: [(&str, &str, &str); 18] = [
    ("*x*", "\\*x\\*", "\\*x\\*"),
    ("_y_", "\\_y\\_", "\\_y\\_"),
    ("a|b", "a\\|b", "a\\|b"),
    (
        "<script>alert(1)</script>",
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "&lt;script&gt;alert(1)&lt;/script&gt;",
    ),
    ("- item", "- item", "\\- item"),
    ("1. first", "1. first", "1\\. first"),
    ("12) x", "12) x", "12\\) x"),
    ("+ x", "+ x", "\\+ x"),
    ("---", "---", "\\---"),
    ("-- x", "-- x", "\\-- x"),
    ("--size=1m ==x", "--size=1m ==x", "--size=1m ==x"),
    ("# big", "\\# big", "\\# big"),
    ("> quote", "&gt; quote", "&gt; quote"),
    (
        "[a](b) `c` ~d~ $e$",
        "\\[a\\](b) \\`c\\` \\~d\\~ \\$e\\$",
        "\\[a\\](b) \\`c\\` \\~d\\~ \\$e\\$",
    ),
    ("a\\b & c", "a\\\\b &amp; c", "a\\\\b &amp; c"),
    ("nl\nx\x1b", "nl\\\\nx\\\\x1b", "nl\\\\nx\\\\x1b"),
    ("    code", "    code", "&#32;   code"),
    (
        "-5 a-b 1.5 v1.2 a=b -",
        "-5 a-b 1.5 v1.2 a=b -",
        "-5 a-b 1.5 v1.2 a=b -",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_are_text_in_a_line_and_at_its_start() {
        for (name, inside, start) in HOSTILE {
            assert_eq!(text(name), inside, "{name:?}");
            assert_eq!(line(name), start, "{name:?}");
        }
        // a lone marker is an empty list item or an underline: escaped at a line start
        for (m, want) in [("-", "\\-"), ("+", "\\+"), ("=", "\\="), ("7.", "7\\.")] {
            assert_eq!(line(m), want);
            assert_eq!(text(m), m);
        }
        // ten digits are no list marker
        assert_eq!(line("1234567890. x"), "1234567890. x");
    }
}
