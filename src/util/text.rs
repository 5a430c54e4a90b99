//! Names printed inside a report (`--name`, `--label`, job and file names): control
//! characters made visible, so a newline or an escape sequence in a name cannot break a
//! table, a markdown or CSV row, or a chart's text line (docs/safety.md); and byte
//! counts in binary units for iomark's own notes ([`iec`]); a count with its noun, singular
//! for one ([`plural`]: `1 flush`, `2 flushes`).

/// `s` with every control character written out: `\n`, `\r`, `\t`, `\\` for a
/// backslash that would otherwise read as one of them, and `\xNN` / `\u{N}` for the
/// others (ESC, DEL, C1 controls). Other characters are kept.
pub fn visible(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x100 && c.is_control() => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// `n` and its noun for iomark's own text: `one` when `n` is 1 (`1 directory`), else
/// `many` (`0 directories`, `2 directories`). sysbench's and fio's lines keep their own.
pub fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Human size with binary units for iomark's own notes (KiB = 1024), e.g. `64.0 MiB`.
pub fn iec(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[i])
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(plural(1u64, "flush", "flushes"), "1 flush");
        assert_eq!(plural(0u64, "flush", "flushes"), "0 flushes");
        assert_eq!(plural(2u32, "directory", "directories"), "2 directories");
        assert_eq!(plural(11u64, "file", "files"), "11 files");
    }
    use super::*;

    #[test]
    fn iec_units_are_binary() {
        assert_eq!(iec(0), "0 B");
        assert_eq!(iec(512), "512 B");
        assert_eq!(iec(1023), "1023 B");
        assert_eq!(iec(1536), "1.5 KiB");
        assert_eq!(iec(64 << 20), "64.0 MiB");
        assert_eq!(iec(u64::MAX), "16.0 EiB");
    }

    #[test]
    fn control_characters_are_written_out() {
        assert_eq!(visible("plain name"), "plain name");
        assert_eq!(visible("a\\b"), "a\\b", "no control: kept as it is");
        assert_eq!(visible("a\nb|c"), "a\\nb|c");
        assert_eq!(visible("x\x1b[31m\t\r\\"), "x\\x1b[31m\\t\\r\\\\");
        assert_eq!(visible("\u{7f}\u{85}é"), "\\x7f\\x85é");
        assert!(!visible("\u{9b}\u{0}").chars().any(char::is_control));
    }
}
