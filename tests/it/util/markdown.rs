//! Markdown output read back as the text a reader sees, for tests that look for a
//! figure, an id or a sentence in every format: backslash escapes and the entities the
//! one Markdown escaper writes (src/report/md_escape.rs) undone.

/// `md` with every backslash escape of an ASCII punctuation character undone and the
/// entities `&lt;`, `&gt;`, `&#32;`, `&amp;` decoded.
pub fn md_plain(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut chars = md.chars().peekable();
    while let Some(c) = chars.next() {
        match chars.peek() {
            Some(&n) if c == '\\' && n.is_ascii_punctuation() => {
                out.push(n);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#32;", " ")
        .replace("&amp;", "&")
}
