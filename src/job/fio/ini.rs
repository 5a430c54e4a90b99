//! fio job files (INI dialect) → sections of `key[=value]` entries with their origin.
//!
//! Hand-written because generic INI crates misread fio files (DESIGN.md): fio allows
//! bare flags (`time_based`), trailing comments after whitespace (`numjobs=4 ; four`),
//! `include FILE` anywhere (textual inclusion, path relative to the including file) and
//! `${VAR}` expansion from the environment. This module only reads text; the meaning of
//! keys is [`crate::job::fio`]'s business. Every entry keeps its file and line so that an
//! unsupported key can be reported as `file:line`.

use std::fmt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Deepest include nesting accepted (fio has no limit; cycles are detected separately).
pub const MAX_INCLUDE_DEPTH: usize = 32;

/// Where an option came from: a job file line, or the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// `file:line` (1-based line)
    File {
        /// the job file, as named by the user (or joined with the including file's dir)
        path: PathBuf,
        /// 1-based line number
        line: usize,
    },
    /// the command line
    CommandLine,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File { path, line } => write!(f, "{}:{}", path.display(), line),
            Origin::CommandLine => f.write_str("command line"),
        }
    }
}

/// One `key` or `key=value` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// option name as written (trimmed)
    pub key: String,
    /// value after `=` as written, leading blanks kept (`${VAR}` expanded); `None` for
    /// a bare flag
    pub value: Option<String>,
    /// where it was written
    pub origin: Origin,
}

/// One `[name]` section and its entries, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// section name (a global section's starts with `global`: [`is_global`])
    pub name: String,
    /// the entries
    pub entries: Vec<Entry>,
    /// where the `[name]` header was
    pub origin: Origin,
    /// under fio 3.33's rules: the errno of an included file that could not be opened
    /// in this section (fio marks the section's job with it: `job file open`)
    pub include_errno: Option<i32>,
}

/// A global section: fio 3.33 takes every section whose name starts with `global`
/// (`[global]`, `[globalopts]`, `--name=global`) for the default job's options.
pub fn is_global(name: &str) -> bool {
    name.starts_with("global")
}

/// Errors while reading job files.
#[derive(Debug, Error)]
pub enum IniError {
    /// a job file (or an included one) could not be read
    #[error("{}: cannot read job file {}: {source}", origin_or_cmd(.origin), .path.display())]
    Read {
        /// the file
        path: PathBuf,
        /// the `include` line that named it, if any
        origin: Option<Origin>,
        /// the OS error
        source: std::io::Error,
    },
    /// `${VAR}` names an environment variable that is not set
    #[error("{origin}: environment variable ${{{var}}} is not set (used in the job file; set it or edit the file)")]
    UnsetVar {
        /// the variable name
        var: String,
        /// file and line
        origin: Origin,
    },
    /// `${` without a closing `}`
    #[error("{origin}: unterminated '${{' in '{text}'")]
    Unterminated {
        /// the offending text
        text: String,
        /// file and line
        origin: Origin,
    },
    /// a file includes itself, directly or through others
    #[error("{origin}: circular include of {}: {chain}", .path.display())]
    Circular {
        /// the file included again
        path: PathBuf,
        /// `a.fio -> b.fio -> a.fio`
        chain: String,
        /// the include line
        origin: Origin,
    },
    /// includes nested too deep
    #[error("{origin}: includes nested deeper than {MAX_INCLUDE_DEPTH}")]
    TooDeep {
        /// the include line
        origin: Origin,
    },
    /// under fio 3.33's rules, what fio 3.33 prints when it stops reading the job file
    /// (`fio: option <LINE> outside of [] job section`, after what it said before)
    #[error("{}", .0.join("\n"))]
    Fio(Vec<String>),
    /// a line that is neither a section, an option, a comment nor an include
    #[error("{origin}: cannot parse '{text}': {why}")]
    Syntax {
        /// the line
        text: String,
        /// what is wrong
        why: &'static str,
        /// file and line
        origin: Origin,
    },
}

fn origin_or_cmd(o: &Option<Origin>) -> String {
    o.as_ref()
        .map_or_else(|| "command line".to_string(), |o| o.to_string())
}

/// Parse a job file, reading `${VAR}` from the process environment.
pub fn parse_file(path: &Path) -> Result<Vec<Section>, IniError> {
    parse_file_with(path, &|v| std::env::var(v).ok())
}

/// Parse a job file with an explicit environment lookup (for tests).
pub fn parse_file_with(
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Section>, IniError> {
    let mut st = State::new(env, false);
    st.file(path, None)?;
    Ok(st.sections)
}

/// A job file read under fio 3.33's rules (the fio persona), and the lines fio 3.33
/// prints on stderr while it reads it. The rules, as fio's `__parse_jobs_ini`: every
/// line belongs to a `[section]` (an `include` before the first one too: `fio: option
/// <LINE> outside of [] job section`, the parse ends); `include NAME` reads NAME's lines
/// into the section it is in — NAME is the rest of the line after `include` and one
/// character, found from the working directory, else beside the including file; an
/// included file has no sections (`No new sections in included files`: its lines are
/// dropped); a file that cannot be opened is said (`fio: unable to open 'NAME' job
/// file`) and marks the section ([`Section::include_errno`]); each include that failed
/// is said (`Error 1 while parsing include file NAME`) and ends the section there (a
/// line before the next `[section]` is outside of one). `text`: the file's text when it
/// is read already (standard input), else it is read from `path`.
pub fn parse_fio(
    path: &Path,
    text: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(Vec<Section>, Vec<String>), IniError> {
    let mut st = State::new(env, true);
    match text {
        Some(t) => {
            st.stack.push(canonical(path));
            st.text(t, path)?;
        }
        // fio opens a directory as a file and reads no line from it: no section
        None if path.is_dir() => {}
        None => st.file(path, None)?,
    }
    Ok((st.sections, st.said))
}

/// Parse job-file text as if it were the file `path` (includes resolve against its dir).
pub fn parse_str_with(
    text: &str,
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Section>, IniError> {
    let mut st = State::new(env, false);
    st.stack.push(canonical(path));
    st.text(text, path)?;
    Ok(st.sections)
}

struct State<'a> {
    sections: Vec<Section>,
    /// canonical paths of the files being read (include chain)
    stack: Vec<PathBuf>,
    env: &'a dyn Fn(&str) -> Option<String>,
    /// fio 3.33's rules ([`parse_fio`])
    fio: bool,
    /// the lines fio 3.33 says while reading (under its rules)
    said: Vec<String>,
    /// the current section ended at a failed include (fio's rules)
    closed: bool,
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

impl<'a> State<'a> {
    fn new(env: &'a dyn Fn(&str) -> Option<String>, fio: bool) -> Self {
        State {
            sections: Vec::new(),
            stack: Vec::new(),
            env,
            fio,
            said: Vec::new(),
            closed: false,
        }
    }

    fn file(&mut self, path: &Path, from: Option<Origin>) -> Result<(), IniError> {
        let canon = self.enter(path, &from)?;
        // bounded: `include /dev/zero` or a FIFO must not eat the machine's memory
        let text = crate::util::input::read_text_lossy(path, crate::util::input::MAX_INPUT_BYTES)
            .map_err(|source| IniError::Read {
            path: path.to_path_buf(),
            origin: from,
            source,
        })?;
        self.stack.push(canon);
        let r = self.text(&text, path);
        self.stack.pop();
        r.map(|_| ())
    }

    /// The canonical path of `path` about to be read, unless it is read already (a
    /// cycle) or the includes are too deep.
    fn enter(&self, path: &Path, from: &Option<Origin>) -> Result<PathBuf, IniError> {
        let from = from.clone();
        let canon = canonical(path);
        if self.stack.contains(&canon) {
            let mut chain: Vec<String> =
                self.stack.iter().map(|p| p.display().to_string()).collect();
            chain.push(canon.display().to_string());
            return Err(IniError::Circular {
                path: path.to_path_buf(),
                chain: chain.join(" -> "),
                origin: from.unwrap_or(Origin::CommandLine),
            });
        }
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(IniError::TooDeep {
                origin: from.unwrap_or(Origin::CommandLine),
            });
        }
        Ok(canon)
    }

    /// `include` under fio 3.33's rules ([`parse_fio`]) at `origin` of `path`, `rest`
    /// the line after the word: whether the included file was read to its end.
    fn include_fio(&mut self, rest: &str, path: &Path, origin: &Origin) -> Result<bool, IniError> {
        let name = expand(&rest.chars().skip(1).collect::<String>(), origin, self.env)?;
        let mut target = PathBuf::from(&name);
        if !target.exists() {
            let including = path.to_string_lossy();
            if let Some(i) = including.rfind('/') {
                target = PathBuf::from(format!("{}{name}", &including[..=i]));
            }
        }
        let shown = target.display().to_string();
        let failed = format!("Error 1 while parsing include file {shown}");
        // fio reads a file that includes itself again (no cycle check): the second
        // reading ends at its first section header ("No new sections in included
        // files"); only a cycle without one nests until the depth limit
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(IniError::TooDeep {
                origin: origin.clone(),
            });
        }
        let canon = canonical(&target);
        let text =
            match crate::util::input::read_text_lossy(&target, crate::util::input::MAX_INPUT_BYTES)
            {
                Ok(t) => t,
                Err(e) => {
                    self.said
                        .push(format!("fio: unable to open '{shown}' job file"));
                    self.said.push(failed);
                    if let Some(s) = self.sections.last_mut() {
                        s.include_errno = s.include_errno.or(Some(e.raw_os_error().unwrap_or(2)));
                    }
                    return Ok(false);
                }
            };
        self.stack.push(canon);
        let r = self.text(&text, &target);
        self.stack.pop();
        if !r? {
            self.said.push(failed);
            return Ok(false);
        }
        Ok(true)
    }

    /// Read `text` (of the file `path`) into the sections: whether it was read to its
    /// end (under fio 3.33's rules an included file stops at a section header or a
    /// failed include of its own).
    fn text(&mut self, text: &str, path: &Path) -> Result<bool, IniError> {
        let nested = self.stack.len() > 1;
        let start = self.sections.last().map_or(0, |s| s.entries.len());
        for (i, raw) in text.lines().enumerate() {
            // fio reads a line as a C string: it ends at a NUL byte
            let raw = raw.split('\0').next().unwrap_or("");
            let origin = Origin::File {
                path: path.to_path_buf(),
                line: i + 1,
            };
            let line = strip_comment(raw).trim();
            if line.is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix('[') {
                if self.fio && nested {
                    // fio drops what this file gave the section
                    if let Some(s) = self.sections.last_mut() {
                        s.entries.truncate(start);
                    }
                    self.said.push("No new sections in included files".into());
                    return Ok(false);
                }
                self.header(line, rest, origin)?;
                continue;
            }
            if self.fio && !nested && (self.closed || self.sections.is_empty()) {
                let mut said = std::mem::take(&mut self.said);
                said.push(format!(
                    "fio: option <{}> outside of [] job section",
                    fio_stripped(raw)
                ));
                return Err(IniError::Fio(said));
            }
            if let Some(rest) = line.strip_prefix("include") {
                if self.fio {
                    if !self.include_fio(rest, path, &origin)? {
                        if nested {
                            return Ok(false);
                        }
                        self.closed = true;
                    }
                    continue;
                }
                if rest.starts_with(char::is_whitespace) {
                    let name = expand(rest.trim(), &origin, self.env)?;
                    let target = Path::new(&name);
                    let target = if target.is_absolute() {
                        target.to_path_buf()
                    } else {
                        path.parent().unwrap_or(Path::new("")).join(target)
                    };
                    self.file(&target, Some(origin))?;
                    continue;
                }
            }
            self.entry(line, origin)?;
        }
        Ok(true)
    }

    /// A `[name]` line (`rest`: after the `[`) starts a section.
    fn header(&mut self, line: &str, rest: &str, origin: Origin) -> Result<(), IniError> {
        let Some(name) = rest.strip_suffix(']') else {
            return Err(IniError::Syntax {
                text: line.to_string(),
                why: "section header without closing ']'",
                origin,
            });
        };
        // fio 3.33 keeps the blanks inside the brackets (its sscanf of `[%255[^\n]]`):
        // `[ global ]` is a job named ` global `, no global section; `iomark run`
        // reads the name without them
        let name = match self.fio {
            true => name,
            false => name.trim(),
        };
        if name.is_empty() {
            return Err(IniError::Syntax {
                text: line.to_string(),
                why: "empty section name",
                origin,
            });
        }
        self.closed = false;
        self.sections.push(Section {
            name: name.to_string(),
            entries: Vec::new(),
            origin,
            include_errno: None,
        });
        Ok(())
    }

    /// A `key[=value]` line joins the current section.
    fn entry(&mut self, line: &str, origin: Origin) -> Result<(), IniError> {
        let (key, value) = match line.split_once('=') {
            // fio strips the blanks after the key only: the value keeps its leading
            // ones (the line's end is stripped already)
            Some((k, v)) if self.fio => (k.trim(), Some(expand_fio(v, self.env))),
            Some((k, v)) => (k.trim(), Some(expand(v, &origin, self.env)?)),
            None => (line, None),
        };
        if key.is_empty() {
            return Err(IniError::Syntax {
                text: line.to_string(),
                why: "option without a name",
                origin,
            });
        }
        let entry = Entry {
            key: key.to_string(),
            value,
            origin: origin.clone(),
        };
        match self.sections.last_mut() {
            Some(s) => s.entries.push(entry),
            None => {
                return Err(IniError::Syntax {
                    text: line.to_string(),
                    why: "option before any [section]",
                    origin,
                })
            }
        }
        Ok(())
    }
}

/// Remove a comment: a line starting with `;` or `#`, or ` ;`/` #` after whitespace.
pub fn strip_comment(line: &str) -> &str {
    let t = line.trim_start();
    if t.starts_with(';') || t.starts_with('#') {
        return "";
    }
    let b = line.as_bytes();
    for i in 1..b.len() {
        if (b[i] == b';' || b[i] == b'#') && b[i - 1].is_ascii_whitespace() {
            return &line[..i];
        }
    }
    line
}

/// Expand every `${VAR}` in `s` from `env`; an unset variable is an error naming it.
pub fn expand(
    s: &str,
    origin: &Origin,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, IniError> {
    substitute(
        s,
        |var| {
            env(var).ok_or_else(|| IniError::UnsetVar {
                var: var.to_string(),
                origin: origin.clone(),
            })
        },
        |_| {
            Err(IniError::Unterminated {
                text: s.to_string(),
                origin: origin.clone(),
            })
        },
    )
}

/// `${VAR}` in `s` as fio 3.33 substitutes it: the variable's value, nothing when it is
/// not set; a `${` with no `}` after it stays as written.
pub fn expand_fio(s: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let r: Result<String, std::convert::Infallible> = substitute(
        s,
        |var| Ok(env(var).unwrap_or_default()),
        |open| Ok(open.to_string()),
    );
    r.unwrap_or_else(|e| match e {})
}

/// The one walk over the `${VAR}`s of `s`: `var` gives a variable's text (or the
/// error), `open` what a `${` with no `}` after it becomes (given the text from `${` on).
fn substitute<E>(
    s: &str,
    mut var: impl FnMut(&str) -> Result<String, E>,
    open: impl FnOnce(&str) -> Result<String, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(j) = after.find('}') else {
            out.push_str(&open(&rest[i..])?);
            return Ok(out);
        };
        out.push_str(&var(&after[..j])?);
        rest = &after[j + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A job file's line as fio 3.33 keeps it to name it in its messages: up to a NUL byte,
/// then up to its first `;` or `#` wherever it stands, blanks around it stripped.
pub fn fio_stripped(raw: &str) -> &str {
    let raw = raw.split('\0').next().unwrap_or("");
    raw.split([';', '#']).next().unwrap_or("").trim()
}

/// Line `line` (from 1) of the job file `path` as [`fio_stripped`] keeps it; `None`
/// when the file cannot be read again.
pub fn fio_line(path: &Path, line: usize) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let raw = text.lines().nth(line.checked_sub(1)?)?;
    Some(fio_stripped(raw).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(v: &str) -> Option<String> {
        (v == "BS").then(|| "8k".to_string())
    }

    #[test]
    fn sections_flags_comments() {
        let t = "; head\n[global]\nbs=${BS} ; trailing\ntime_based\n# c\n[a]\nnumjobs=4\t; four\n";
        let s = parse_str_with(t, Path::new("x.fio"), &env).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].name, "global");
        assert_eq!(s[0].entries[0].key, "bs");
        assert_eq!(s[0].entries[0].value.as_deref(), Some("8k"));
        assert_eq!(s[0].entries[1].value, None);
        assert_eq!(s[1].entries[0].value.as_deref(), Some("4"));
        assert_eq!(s[1].entries[0].origin.to_string(), "x.fio:7");
    }

    #[test]
    fn unset_var_names_it_with_line() {
        let e = parse_str_with("[a]\nrw=${NOPE}\n", Path::new("j.fio"), &env).unwrap_err();
        assert_eq!(
            e.to_string(),
            "j.fio:2: environment variable ${NOPE} is not set (used in the job file; set it or edit the file)"
        );
    }

    #[test]
    fn option_before_section_is_error() {
        let e = parse_str_with("bs=4k\n", Path::new("j.fio"), &env).unwrap_err();
        assert!(e.to_string().contains("j.fio:1"), "{e}");
    }

    #[test]
    fn fio_rules_keep_a_leading_blank_and_substitute_nothing_for_an_unset_variable() {
        assert_eq!(expand_fio("f_${NOPE}x", &env), "f_x");
        assert_eq!(expand_fio("${BS}", &env), "8k");
        assert_eq!(expand_fio("a${BS", &env), "a${BS");
        assert_eq!(fio_stripped("  junk#note ; x"), "junk");
        let (s, _) = parse_fio(Path::new("j.fio"), Some("[a]\nbs = 8k\n"), &env).unwrap();
        assert_eq!(s[0].entries[0].key, "bs");
        assert_eq!(s[0].entries[0].value.as_deref(), Some(" 8k"));
    }
}
