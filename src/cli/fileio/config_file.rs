//! `--config-file=FILE` of the `sysbench` persona, read as sysbench 1.0.20 reads it: one
//! `name=value[,value…]` per line, each line at most 255 bytes (a longer one is read in
//! pieces of 255, each a line of its own), the name exactly as written before the first
//! `=` (a line without `=` is skipped), values separated by commas or white space, `'…'`
//! or `"…"` quoting one value, `#` ending the line. The file's options take effect where
//! `--config-file` stands among the words: an option before it is replaced by the file's,
//! one after it replaces the file's. Only the options sysbench lets a config file set
//! ([`CONFIG_FILE_OPTIONS`]) are taken; other names are kept by sysbench and never read,
//! so they are dropped here without a word. A quote left open is `unexpected EOL on line
//! N` on stderr and ends the reading, the option of that line left without a value. A
//! file that cannot be opened is sysbench's `perror` line, `FILE: <strerror>`, and the
//! run goes on; a directory or a device reads as empty (sysbench's `fopen` takes it and
//! reads nothing).

use super::table::{find, CONFIG_FILE_OPTIONS};

/// sysbench's line buffer (`MAXSTRLEN`): `fgets` reads at most one byte less per line.
const LINE_MAX: usize = 255;

/// One option line of a config file: its name as written and its values.
#[derive(Debug, PartialEq, Eq)]
pub struct Entry {
    /// the name before `=`, as written
    pub name: String,
    /// the values, in order
    pub values: Vec<String>,
}

/// The entries of a config file's bytes and the stderr line of a quote left open.
pub fn parse(bytes: &[u8]) -> (Vec<Entry>, Option<String>) {
    let mut entries = Vec::new();
    for (i, line) in lines(bytes).enumerate() {
        let Some(eq) = line.iter().position(|&b| b == b'=') else {
            continue;
        };
        let name = String::from_utf8_lossy(&line[..eq]).into_owned();
        match values(&line[eq + 1..]) {
            Ok(values) => entries.push(Entry { name, values }),
            Err(()) => {
                entries.push(Entry {
                    name,
                    values: vec![],
                });
                return (entries, Some(format!("unexpected EOL on line {}", i + 1)));
            }
        }
    }
    (entries, None)
}

/// The lines as `fgets` into a buffer of 256 bytes returns them: up to and including a
/// newline, or 255 bytes.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .iter()
            .take(LINE_MAX)
            .position(|&b| b == b'\n')
            .map_or(LINE_MAX.min(rest.len()), |i| i + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        Some(line)
    })
}

/// The values after `=`; `Err` for a quote left open.
fn values(mut s: &[u8]) -> Result<Vec<String>, ()> {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut out = Vec::new();
    while let Some(&c) = s.first() {
        if c.is_ascii_whitespace() || c == 0x0b {
            s = &s[1..];
        } else if c == b'#' {
            break;
        } else if c == b'\'' || c == b'"' {
            let close = s[1..].iter().position(|&b| b == c).ok_or(())?;
            out.push(text(&s[1..1 + close]));
            // what follows the closing quote up to the next comma is dropped
            let after = &s[2 + close..];
            s = match after.iter().position(|&b| b == b',') {
                Some(i) => &after[i + 1..],
                None => &[],
            };
        } else {
            let end = s
                .iter()
                .position(|&b| b == b',' || b.is_ascii_whitespace() || b == 0x0b)
                .unwrap_or(s.len());
            out.push(text(&s[..end]));
            s = if end < s.len() { &s[end + 1..] } else { &[] };
        }
    }
    Ok(out)
}

/// The command-line words that stand for `entries` where `--config-file` stood: for each
/// option a config file may set, `--name=value` (a list's values joined by commas, any
/// other option's first value; a switch is on when a value is given, whatever it says,
/// as sysbench reads a switch set from a file, and off without one).
pub fn words(entries: &[Entry]) -> Vec<String> {
    entries
        .iter()
        .filter_map(|e| {
            let name = e.name.replace('_', "-");
            if !CONFIG_FILE_OPTIONS.contains(&name.as_str()) {
                return None;
            }
            let switch = find(&name).is_some_and(|o| o.is_switch());
            Some(match (switch, name.as_str()) {
                (true, _) if e.values.is_empty() => format!("--{name}=off"),
                (true, _) => format!("--{name}"),
                (false, "report-checkpoints") => format!("--{name}={}", e.values.join(",")),
                (false, _) => format!("--{name}={}", e.values.first().map_or("", |v| v)),
            })
        })
        .collect()
}

/// Read config file `path` (the value of `--config-file`; empty: nothing, as sysbench):
/// the words it stands for and the stderr lines sysbench prints while reading it.
pub fn read(path: &str) -> (Vec<String>, Vec<String>) {
    if path.is_empty() {
        return (vec![], vec![]);
    }
    let limit = crate::util::input::MAX_INPUT_BYTES;
    let bytes = match crate::util::input::read_bytes(std::path::Path::new(path), limit) {
        Ok(b) => b,
        Err(e) => {
            return match e.raw_os_error() {
                Some(n) => (
                    vec![],
                    vec![format!("{path}: {}", crate::util::strerror(n))],
                ),
                // not a regular file or FIFO: sysbench reads nothing from it
                None if e.kind() == std::io::ErrorKind::InvalidInput => (vec![], vec![]),
                None => (vec![], vec![format!("{path}: {e}")]),
            };
        }
    };
    let (entries, said) = parse(&bytes);
    (words(&entries), said.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, values: &[&str]) -> Entry {
        Entry {
            name: name.to_string(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn lines_values_quotes_and_comments_as_sysbench_reads_them() {
        let text = b"# comment\nthreads= 3 # c\nreport-checkpoints=1,2 3\nrand-type=\"a b\"x,y\n\
                     time = 5\nno equals\nevents=\n";
        let (e, said) = parse(text);
        assert_eq!(said, None);
        assert_eq!(
            e,
            vec![
                entry("threads", &["3"]),
                entry("report-checkpoints", &["1", "2", "3"]),
                entry("rand-type", &["a b", "y"]),
                entry("time ", &["5"]),
                entry("events", &[]),
            ]
        );
        // `time ` (a space in the name) is no option sysbench knows: dropped
        assert_eq!(
            words(&e),
            [
                "--threads=3",
                "--report-checkpoints=1,2,3",
                "--rand-type=a b",
                "--events="
            ]
        );
    }

    #[test]
    fn an_open_quote_ends_the_reading_and_empties_its_option() {
        let (e, said) = parse(b"threads=2\ntime=\"5\nevents=7\n");
        assert_eq!(said.as_deref(), Some("unexpected EOL on line 2"));
        assert_eq!(e, vec![entry("threads", &["2"]), entry("time", &[])]);
        assert_eq!(words(&e), ["--threads=2", "--time="]);
    }

    #[test]
    fn switches_are_on_with_any_value_and_file_options_are_not_taken() {
        let (e, _) = parse(b"debug=off\nvalidate=\nnum_threads=2\nfile-num=3\nbogus=1\n");
        assert_eq!(words(&e), ["--debug", "--validate=off", "--num-threads=2"]);
    }

    #[test]
    fn a_long_line_is_read_in_pieces_of_255_bytes() {
        let mut text = vec![b'x'; 250];
        text.extend_from_slice(b"=1234threads=4\n");
        let (e, _) = parse(&text);
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!(e[1], entry("threads", &["4"]));
    }
}
