//! The one escaping of text written into markup, shared by the reports that write
//! markup: the characters HTML reads as markup (`&`, `<`, `>`) written as entities, so a
//! job named `<script>` stays text. Markdown passes HTML through, so its writers use the
//! same entities and add their own escapes around them: the HTML page (report/html.rs)
//! also the quotes of an attribute value, Markdown its backslash escapes and line-start
//! rules (report/md_escape.rs, the one Markdown escaper of both Markdown writers).

/// The characters markup reads, each with the entity that writes it as text.
pub const MARKUP: [(char, &str); 3] = [('&', "&amp;"), ('<', "&lt;"), ('>', "&gt;")];

/// The quotes that end an attribute value, each with its entity (HTML).
pub const QUOTES: [(char, &str); 2] = [('"', "&quot;"), ('\'', "&#39;")];

/// The entity of `c` among `table`, if it has one.
fn entity(table: &[(char, &'static str)], c: char) -> Option<&'static str> {
    table.iter().find(|(m, _)| *m == c).map(|(_, e)| *e)
}

/// `c` onto `o` as text: its entity when markup reads it ([`MARKUP`]), else itself.
pub fn push_text(o: &mut String, c: char) {
    match entity(&MARKUP, c) {
        Some(e) => o.push_str(e),
        None => o.push(c),
    }
}

/// `c` onto `o` as text that is also safe inside a quoted attribute value: as
/// [`push_text`], the quotes as entities too ([`QUOTES`]).
pub fn push_attribute(o: &mut String, c: char) {
    match entity(&QUOTES, c) {
        Some(e) => o.push_str(e),
        None => push_text(o, c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_written_as_entities_and_the_rest_as_is() {
        let text = |s: &str, push: fn(&mut String, char)| {
            let mut o = String::new();
            s.chars().for_each(|c| push(&mut o, c));
            o
        };
        let s = "<a href=\"x\">R&D 'é'</a>|";
        assert_eq!(
            text(s, push_text),
            "&lt;a href=\"x\"&gt;R&amp;D 'é'&lt;/a&gt;|"
        );
        assert_eq!(
            text(s, push_attribute),
            "&lt;a href=&quot;x&quot;&gt;R&amp;D &#39;é&#39;&lt;/a&gt;|"
        );
    }
}
