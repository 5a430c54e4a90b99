//! sysbench 1.0.20 argv model for `iomark fileio`: `--name=value` only, `-`/`_`
//! equivalence in names, last occurrence wins, bare `--name` = boolean on / empty value,
//! positional words are the command(s). Which names exist and what their values may be
//! is the option table's (`table.rs`).

/// One `--name[=value]` word.
#[derive(Clone, Debug)]
pub struct OptWord {
    /// Name with `_` replaced by `-`, without the leading `--`.
    pub name: String,
    /// Text after the first `=`, or `None` for a bare `--name`.
    pub value: Option<String>,
    /// The word as typed (for `invalid option: <word>` messages).
    pub original: String,
}

/// argv split into option words and positional words, in order.
#[derive(Clone, Debug, Default)]
pub struct Argv {
    /// All option words in the order given.
    pub opts: Vec<OptWord>,
    /// Positional words (command names).
    pub positionals: Vec<String>,
}

impl Argv {
    /// Split argv (without the program name and the `fileio` word). A lone `-h` is
    /// `--help` (every option's value follows `=`, so `-h` is never a value).
    pub fn split(args: &[String]) -> Self {
        let mut a = Argv::default();
        for w in args {
            let w = if w == "-h" { "--help" } else { w.as_str() };
            if let Some(body) = w.strip_prefix("--") {
                let (n, v) = match body.find('=') {
                    Some(i) => (&body[..i], Some(body[i + 1..].to_string())),
                    None => (body, None),
                };
                a.opts.push(OptWord {
                    name: n.replace('_', "-"),
                    value: v,
                    original: w.to_string(),
                });
            } else {
                a.positionals.push(w.to_string());
            }
        }
        a
    }

    /// The last occurrence of option `name`, if given.
    pub fn last(&self, name: &str) -> Option<&OptWord> {
        self.opts.iter().rev().find(|o| o.name == name)
    }

    /// The value of the last occurrence: `None` when absent; `Some("")` for an empty
    /// value or a bare `--name` (sysbench reads both as "unset").
    pub fn value(&self, name: &str) -> Option<&str> {
        self.last(name).map(|o| o.value.as_deref().unwrap_or(""))
    }

    /// True when the option was given at all.
    pub fn has(&self, name: &str) -> bool {
        self.last(name).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn underscores_and_last_wins() {
        let a = Argv::split(&s(&[
            "--file_total_size=32M",
            "--file-total-size=64M",
            "run",
        ]));
        assert_eq!(a.value("file-total-size"), Some("64M"));
        assert_eq!(a.positionals, vec!["run"]);
    }

    #[test]
    fn bare_and_empty_values() {
        let a = Argv::split(&s(&["--validate", "--file-num="]));
        assert_eq!(a.last("validate").unwrap().value, None);
        assert_eq!(a.value("file-num"), Some(""));
        assert_eq!(a.value("threads"), None);
    }

    #[test]
    fn space_separated_value_becomes_positional() {
        let a = Argv::split(&s(&["--file-total-size", "64M", "run"]));
        assert_eq!(a.positionals, vec!["64M", "run"]);
    }
}
