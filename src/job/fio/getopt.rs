//! fio's command-line grammar (fio 3.33 parses its argv with glibc's `getopt_long_only`
//! over its own options and every job option): [`canonical`] rewrites the words of a
//! command line into one form, `--KEY=VALUE` or `--KEY`, before anything else reads
//! them, so `-name=x`, `-iodepth 1`, `--bs 4k`, `--iodep=…` (an abbreviation),
//! `-m` (a short option) and `--output-format=json` all reach the parser alike.
//!
//! The rules, as getopt_long_only applies them to fio's table:
//! - `--KEY` and `-KEY` are both long options; `-C` alone (one letter) is fio's short
//!   option `C` when fio has one (`-m` = `--minimal`, `-o FILE` = `--output=FILE`);
//! - a KEY that is no option's whole name may be the unique beginning of one (`--minim`
//!   is `--minimal`); the beginning of several is an error listing them;
//! - an option that needs a value takes `=VALUE` or the next word, whatever that word
//!   is (`--direct --rw=write`: `direct` gets `--rw=write`); with none it is an error;
//!   a flag (fio's optional arguments: `--append-terse`, `--crctest`, `--time_based`)
//!   takes only `=VALUE`, so the next word stays a job file;
//! - any other word is a job file (`-` is standard input), and so is every word after
//!   `--` (getopt's end of options), one that starts with `-` too.
//!
//! Keys are matched with `-` and `_` alike (fio: exact); which keys exist and how each
//! takes its value is the option table's (`options/`).

use crate::job::fio::options::{self, Arg, FioOption};
use crate::job::fio::{fio333, FioError};

/// fio's short options (its `cmd_optstr`): the letter and the long option it stands
/// for. `-C` alone is this option when the letter is here.
const SHORT: &[(char, &str)] = &[
    ('o', "output"),
    ('l', "latency-log"),
    ('b', "bandwidth-log"),
    ('m', "minimal"),
    ('F', "output-format"),
    ('f', "append-terse"),
    ('v', "version"),
    ('h', "help"),
    ('c', "cmdhelp"),
    ('i', "enghelp"),
    ('s', "showcmd"),
    ('r', "readonly"),
    ('e', "eta"),
    ('O', "eta-interval"),
    ('E', "eta-newline"),
    ('d', "debug"),
    ('P', "parse-only"),
    ('x', "section"),
    ('X', "inflate-log"),
    ('a', "alloc-size"),
    ('p', "profile"),
    ('w', "warnings-fatal"),
    ('j', "max-jobs"),
    ('V', "terse-version"),
    ('S', "server"),
    ('D', "daemonize"),
    ('C', "client"),
    ('R', "remote-config"),
    ('T', "cpuclock-test"),
    ('G', "crctest"),
    ('M', "memcpytest"),
    ('I', "idle-prof"),
    ('L', "status-interval"),
    ('W', "trigger-file"),
    ('B', "trigger-timeout"),
    ('H', "trigger"),
    ('J', "trigger-remote"),
    ('K', "aux-path"),
    ('A', "merge-blktrace-only"),
];

/// fio's short options that need a value (`o:` in its getopt string): alone at the end
/// of the command line, getopt refuses them (`option requires an argument -- 'o'`).
const SHORT_NEEDS_VALUE: &str = "olFeOEdxXapjVNDCRILWBHJK";

/// iomark's own words that another front (src/ranks/) reads as written.
fn kept_as_written(body: &str) -> bool {
    body == "mpi" || body.starts_with("mpi-")
}

/// The words of `args` in one form: options as `--KEY=VALUE` or `--KEY` (the key as
/// written, or the whole name an abbreviation stands for), job files as written; a
/// `--` and every word after it as written (job files: [`split_at_end`]).
/// Errors: an ambiguous abbreviation, a single-dash word that is no option (fio's
/// "unrecognized option"), an option without its needed value; as fio 3.33 (`fio`), an
/// engine's option where fio's table does not hold it ([`Engines`]: `--ioengine=psync
/// --nowait=1`; `iomark run` judges the job's engine when the job is whole, finish.rs).
pub fn canonical(args: &[String], fio: bool) -> Result<Vec<String>, FioError> {
    let mut out = Vec::with_capacity(args.len());
    let mut engines = Engines::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        // getopt's end of options: fio reads every later word as a job file, one that
        // starts with `-` too (`fio -- --name=x`: no job file `--name=x`); the `--`
        // stays, so the readers after this one know where the job files begin
        if a == "--" {
            out.push(a.clone());
            out.extend(args[i..].iter().cloned());
            break;
        }
        let body = match a.strip_prefix("--").or_else(|| a.strip_prefix('-')) {
            Some(b) if !b.is_empty() => b,
            _ => {
                out.push(a.clone());
                continue;
            }
        };
        if kept_as_written(body) {
            out.push(a.clone());
            continue;
        }
        let single = !a.starts_with("--");
        let (key, value) = match body.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (body, None),
        };
        let Some((name, o)) = resolve(a, key, single, engines.in_table())? else {
            // no option of that name: the parser reports it with the job it is in
            out.push(a.clone());
            continue;
        };
        if fio && engine_option(o) && !engines.holds(o.name) {
            return Err(FioError::OtherEnginesOption {
                word: a.clone(),
                engine: engines.in_table().map(str::to_string),
            });
        }
        missing_value(o, key, value.as_deref(), single && args.get(i).is_none())?;
        let value = match value {
            Some(v) => Some(v),
            None => match takes_next(o, a, args.get(i).map(String::as_str))? {
                Some(v) => {
                    i += 1;
                    Some(v.to_string())
                }
                None => None,
            },
        };
        if matches!(o.apply, options::Apply::Job(_)) {
            engines.read(o.name, value.as_deref());
        }
        // fio 3.33 stops reading its command line at `--section=global` (its refusal,
        // then exit 1): no later word is read, a misspelt one or a job file neither
        let stops = fio && o.name == "section" && value.as_deref() == Some("global");
        out.push(match value {
            Some(v) => format!("--{name}={v}"),
            None => format!("--{name}"),
        });
        if stops {
            break;
        }
    }
    Ok(out)
}

/// fio's refusals of an option `o` (written `key`) given no value: a job option's empty
/// value on its command line, whatever the option (`--write_bw_log=`: `option
/// write_bw_log requires an argument`, where a job file's `write_bw_log=` names the log
/// after the job); a short option that needs a value, written `last` without one.
fn missing_value(
    o: &FioOption,
    key: &str,
    value: Option<&str>,
    last: bool,
) -> Result<(), FioError> {
    if value == Some("") && o.arg == Arg::Value && matches!(o.apply, options::Apply::Job(_)) {
        return Err(FioError::BadValue {
            key: o.name.to_string(),
            value: String::new(),
            why: "a value is required".into(),
            origin: crate::job::fio::ini::Origin::CommandLine,
        });
    }
    if last && value.is_none() {
        if let Some(c) = key
            .chars()
            .next()
            .filter(|c| key.chars().count() == 1 && SHORT_NEEDS_VALUE.contains(*c))
        {
            return Err(FioError::ShortNeedsValue(c));
        }
    }
    Ok(())
}

/// Which engine's options fio's getopt table holds while the command line is read
/// (init.c: when a job option starts a job, fio adds the options of that job's engine,
/// and again after its `ioengine=`; a new job starts from the default job's engine).
/// The engines are named as the job model names them (`FioJob::ioengine`:
/// `util::engines::fio_name`, fio's default psync) and their options are the one list
/// of `--enghelp` (`options::options_of_engine`), which `iomark run` judges a whole job
/// by (finish.rs).
struct Engines {
    /// the default job's engine (`ioengine=` before any `--name`, or in `--name=global`)
    global: String,
    /// the current job's engine; `None`: no job option read yet (no engine's options)
    job: Option<String>,
    /// the current job is the default job
    in_global: bool,
}

impl Default for Engines {
    fn default() -> Self {
        Engines {
            global: crate::util::engines::FIO_DEFAULT.to_string(),
            job: None,
            in_global: false,
        }
    }
}

impl Engines {
    /// The engine whose options are in fio's table now.
    fn in_table(&self) -> Option<&str> {
        self.job.as_deref()
    }

    /// Whether fio's table holds the engine option `name` now (an engine iomark does not
    /// run, `io_uring_cmd`, is not judged: its table is not iomark's).
    fn holds(&self, name: &str) -> bool {
        self.in_table().is_some_and(|e| {
            options::options_of_engine(e).contains(&name)
                || crate::job::fio::EngineKind::parse(e).is_none()
        })
    }

    /// After the job option `name` (its whole name) read with `value`.
    fn read(&mut self, name: &str, value: Option<&str>) {
        let section = name == "name";
        if section || self.job.is_none() {
            // options before any `--name` are the default job's, as `--name=global…`
            self.in_global = !section || value.unwrap_or("").starts_with("global");
            self.job = Some(self.global.clone());
        }
        if name == "ioengine" {
            // (no value: refused by the parser later; till then no engine's options)
            let engine = value.map_or(crate::util::engines::FIO_DEFAULT, |v| {
                crate::util::engines::fio_name(v)
            });
            let engine = engine.to_string();
            if self.in_global {
                self.global.clone_from(&engine);
            }
            self.job = Some(engine);
        }
    }
}

/// The words of a [`canonical`] command line before its `--` (the options and the job
/// files among them), and the words after it (job files, whatever they look like).
pub fn split_at_end(words: &[String]) -> (&[String], &[String]) {
    match words.iter().position(|w| w == "--") {
        Some(at) => (&words[..at], &words[at + 1..]),
        None => (words, &[]),
    }
}

/// The option `key` (from word `word`) names: a short letter (single dash, one letter),
/// a whole name or alias, or the unique beginning of one of fio's table (its names in
/// its order, with the options of `engine`: [`fio333::getopt_names`]), else of iomark's
/// own names (`-` and `_` alike). `None`: no option, for a `--KEY` (the parser names it
/// later); a single-dash word that is none is an error here, and so is the beginning of
/// several (getopt's list names them in the table's order, with the word's dashes).
fn resolve(
    word: &str,
    key: &str,
    single: bool,
    engine: Option<&str>,
) -> Result<Option<(String, &'static FioOption)>, FioError> {
    if single && key.chars().count() == 1 {
        let c = key.chars().next().unwrap_or(' ');
        if let Some(&(_, long)) = SHORT.iter().find(|s| s.0 == c) {
            if let Some(o) = options::find(long) {
                return Ok(Some((long.to_string(), o)));
            }
        }
    }
    if let Some(o) = options::find(&key.replace('-', "_")) {
        return Ok(Some((key.to_string(), o)));
    }
    let dashes = if single { "-" } else { "--" };
    let ambiguous = |names: Vec<String>| FioError::Ambiguous {
        word: word.to_string(),
        names: names.into_iter().map(|n| format!("{dashes}{n}")).collect(),
        guess: fio333::did_you_mean_getopt(word, engine),
    };
    let fio: Vec<&str> = fio333::getopt_names(engine)
        .into_iter()
        .filter(|n| !key.is_empty() && n.starts_with(key))
        .collect();
    match fio.as_slice() {
        [one] => {
            if let Some(o) = options::find(one) {
                return Ok(Some((one.to_string(), o)));
            }
        }
        [] => {}
        many => return Err(ambiguous(many.iter().map(|n| n.to_string()).collect())),
    }
    let matches = beginning_of(key);
    match matches.as_slice() {
        [(name, o)] => Ok(Some((name.to_string(), *o))),
        [] if single => Err(FioError::Unrecognized(word.to_string())),
        [] => Ok(None),
        many => Err(ambiguous(many.iter().map(|(n, _)| n.to_string()).collect())),
    }
}

/// Every option of iomark's `key` is the beginning of (its name or an alias, `-` and
/// `_` alike; one entry an option), but the engines' options (fio 3.33's, and a later
/// fio's engine options iomark has): those are fio's table's only once a job names
/// their engine.
fn beginning_of(key: &str) -> Vec<(&'static str, &'static FioOption)> {
    let k = key.replace('-', "_");
    if k.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<(&'static str, &'static FioOption)> = Vec::new();
    for o in options::all().filter(|o| !engine_option(o)) {
        let hit = std::iter::once(o.name)
            .chain(o.aliases.iter().copied())
            .find(|n| n.replace('-', "_").starts_with(&k));
        if let Some(n) = hit {
            if !found.iter().any(|(_, f)| std::ptr::eq(*f, o)) {
                found.push((n, o));
            }
        }
    }
    found
}

/// Whether `o` is an engine's option (fio 3.33's `--enghelp` tables, and a later fio's
/// engine options iomark has), which fio's table holds only once a job names its engine.
fn engine_option(o: &FioOption) -> bool {
    options::engine_option_names().any(|e| e == o.name)
        || (o.group == options::Group::Engine && o.fio333 == options::Fio333::None)
}

/// Whether option `o`, written as `word` without `=VALUE`, takes the next word `next` as
/// its value, as glibc's getopt does for fio's table: an option that is no flag (fio's
/// `required_argument`, every type but FIO_OPT_STR_SET) takes the next word whatever it
/// is, so `--direct --rw=write` gives `direct` the value `--rw=write` (which its parser
/// then refuses, as fio's does) and `--write_iops_log --rw=write` names the log
/// `--rw=write`; with no next word it is getopt's `option '--bs' requires an argument`.
/// A flag never takes it (`--time_based 1` reads job file `1`).
pub(super) fn takes_next<'a>(
    o: &FioOption,
    word: &str,
    next: Option<&'a str>,
) -> Result<Option<&'a str>, FioError> {
    match (o.arg, next) {
        (Arg::Flag, _) => Ok(None),
        (_, Some(n)) => Ok(Some(n)),
        (Arg::ValueOwnMessage, None) => Ok(None),
        (Arg::Value, None) => Err(FioError::NeedsValue(word.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(words: &[&str]) -> Result<Vec<String>, String> {
        let v: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        canonical(&v, false).map_err(|e| e.to_string())
    }

    #[test]
    fn single_dash_and_separate_values_are_one_form() {
        assert_eq!(
            c(&["-name=x", "-rw=read", "-iodepth", "1", "--bs", "4k", "job.fio"]).unwrap(),
            ["--name=x", "--rw=read", "--iodepth=1", "--bs=4k", "job.fio"]
        );
        // a flag never takes the next word: it stays a job file (fio: optional_argument)
        assert_eq!(
            c(&["--time_based", "1", "-minimal", "-"]).unwrap(),
            ["--time_based", "1", "--minimal", "-"]
        );
        // an option with a value takes the next word, even a dash word (getopt), a
        // boolean too: fio then refuses `direct=--rw=write` or `direct=job.fio`
        assert_eq!(c(&["-section", "-x"]).unwrap(), ["--section=-x"]);
        assert_eq!(
            c(&["--direct", "--rw=write", "--write_iops_log", "--bs=4k"]).unwrap(),
            ["--direct=--rw=write", "--write_iops_log=--bs=4k"]
        );
        assert_eq!(c(&["--direct", "job.fio"]).unwrap(), ["--direct=job.fio"]);
        // an empty value of a job option is refused on the command line (fio's init.c)
        let e = c(&["--name=x", "--write_bw_log="]).unwrap_err();
        assert!(e.contains("'write_bw_log': a value is required"), "{e}");
        assert_eq!(c(&["--time_based="]).unwrap(), ["--time_based="]);
        // `--` ends the options (getopt): every later word is a job file, a `--` too
        assert_eq!(
            c(&["--", "job.fio", "--name=x", "--"]).unwrap(),
            ["--", "job.fio", "--name=x", "--"]
        );
        assert_eq!(
            c(&["-name", "x", "--", "-o"]).unwrap(),
            ["--name=x", "--", "-o"]
        );
        // and with no next word, getopt's refusal names the word as written
        let e = c(&["--name=x", "-direct"]).unwrap_err();
        assert!(e.contains("option '-direct' requires an argument"), "{e}");
        let e = c(&["--bs"]).unwrap_err();
        assert!(e.contains("option '--bs' requires an argument"), "{e}");
    }

    #[test]
    fn short_letters_and_abbreviations_as_getopt() {
        assert_eq!(
            c(&["-m", "-o", "out.txt", "-V", "4"]).unwrap(),
            ["--minimal", "--output=out.txt", "--terse-version=4"]
        );
        assert_eq!(
            c(&["--minim", "-terse-v=5"]).unwrap(),
            ["--minimal", "--terse-version=5"]
        );
        let e = c(&["--iodepth_b=2"]).unwrap_err();
        assert!(
            e.contains("is ambiguous; possibilities: '--iodepth_batch'"),
            "{e}"
        );
        let e = c(&["-nosuchoption=1"]).unwrap_err();
        assert!(e.contains("unrecognized option '-nosuchoption=1'"), "{e}");
        // an unknown --KEY is left for the parser, which names it with its job
        assert_eq!(c(&["--nosuchoption=1"]).unwrap(), ["--nosuchoption=1"]);
        // iomark's MPI words are read as written by src/ranks/
        assert_eq!(
            c(&["--mpi", "--mpi-rotate=1"]).unwrap(),
            ["--mpi", "--mpi-rotate=1"]
        );
    }
}
