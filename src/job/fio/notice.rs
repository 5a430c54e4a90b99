//! What reading the jobs has to say, typed by where it goes: iomark's own remarks
//! (stderr, under `--notes`), fio 3.33's own stderr lines (under either persona,
//! some also into `--output`) and its output lines said while it reads the jobs, among them the line of an option iomark accepts but does
//! not apply. `args.rs` sorts them by their type; the text is made only to print.

use std::fmt;

/// One thing said while reading the jobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// iomark's own remark (engine aliases, unit remarks)
    Note(String),
    /// a line fio 3.33 itself prints on stderr; `to_output`: into `--output` too
    Fio { line: FioLine, to_output: bool },
    /// a line fio 3.33 prints on its output while it reads the jobs (its log_info:
    /// `fio: opendir added N files`), before the header
    Info(String),
}

/// A line fio 3.33 prints on stderr while it reads the jobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FioLine {
    /// fio's line, as fio says it
    Said(String),
    /// option `.0` is accepted but iomark does not apply it: said only when a job runs
    /// (not under `--parse-only`, where fio says nothing either)
    NotApplied(&'static str),
}

impl Notice {
    /// fio's stderr line `line`.
    pub fn fio(line: impl Into<String>) -> Notice {
        Notice::Fio {
            line: FioLine::Said(line.into()),
            to_output: false,
        }
    }

    /// The line of option `name` that iomark accepts but does not apply.
    pub fn not_applied(name: &'static str) -> Notice {
        Notice::Fio {
            line: FioLine::NotApplied(name),
            to_output: false,
        }
    }

    /// Mark a fio line as one fio also writes into `--output` (a note stays as it is).
    pub fn into_output(&mut self) {
        if let Notice::Fio { to_output, .. } = self {
            *to_output = true;
        }
    }
}

impl fmt::Display for FioLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FioLine::Said(l) => f.write_str(l),
            FioLine::NotApplied(name) => write!(
                f,
                "notice: option '{name}' is accepted, but iomark does not apply it (the job runs as without it)"
            ),
        }
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::Note(n) => f.write_str(n),
            Notice::Fio { line, .. } => line.fmt(f),
            Notice::Info(l) => f.write_str(l),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_not_applied_line_is_known_by_its_type_not_its_words() {
        let said = Notice::fio(
            "notice: option 'x' is accepted, but iomark does not apply it (the job runs as without it)",
        );
        let typed = Notice::not_applied("x");
        assert_eq!(said.to_string(), typed.to_string());
        assert_ne!(said, typed);
        assert!(matches!(
            typed,
            Notice::Fio {
                line: FioLine::NotApplied("x"),
                ..
            }
        ));
    }

    #[test]
    fn only_fio_lines_go_into_the_output() {
        let mut n = Notice::Note("a".into());
        n.into_output();
        assert_eq!(n, Notice::Note("a".into()));
        let mut f = Notice::fio("b");
        f.into_output();
        assert!(matches!(
            f,
            Notice::Fio {
                to_output: true,
                ..
            }
        ));
    }
}
