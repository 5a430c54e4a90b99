//! `iomark history` front end: the results history (files/history.rs keeps one
//! RunResult file per completed run of fileio, run, mark, copy and tree) listed with
//! filters, one run shown, runs removed; and the loading that `compare` and `report`
//! share (`history:ID` arguments, `--baseline=last`). A damaged file is skipped with one
//! warning naming it; results of older schema versions are read (report/compare.rs
//! `load`). Matching runs of one device and test and the regression finding are
//! report/history.rs's.

use crate::cli::clap_common::clap_exit;
use crate::report::history::{self as rh, Entry};
use crate::result::RunResult;
use crate::util::error::{exit, Error, Exit};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Command-line options of `iomark history`.
#[derive(Debug, Parser)]
#[command(
    name = "iomark history",
    version,
    args_conflicts_with_subcommands = true,
    about = "What did earlier runs measure? The kept results of fileio, run, mark, copy and tree: list, show, remove",
    after_help = "Examples:
  iomark history                         every kept run, oldest first
  iomark history --device=shm --test=RND only runs on a device matching 'shm' with an RND test
  iomark history show last               the newest run, its context and its findings
  iomark history rm 20261202-041512-fileio-4242
  iomark compare --baseline=last         the newest run against the previous one of its device and test

Every completed run of fileio, run, mark, copy and tree is kept, one RunResult file per run, in
$XDG_DATA_HOME/iomark/results (~/.local/share/iomark/results), or IOMARK_RESULTS when set.
--no-history on a run, or IOMARK_HISTORY=off, keeps none. A run is named by its end time (UTC),
command and process id; `last` is the newest, and a unique prefix of a name is enough."
)]
pub struct Args {
    /// What to do (default: list).
    #[command(subcommand)]
    pub action: Option<Action>,
    /// The filters of the list.
    #[command(flatten)]
    pub filters: Filters,
}

/// The filters of `iomark history [list]`.
#[derive(Debug, Default, clap::Args)]
pub struct Filters {
    /// Only runs whose device (key or label: model, serial, name, filesystem, mount
    /// point) contains TEXT, case-insensitively.
    #[arg(long, value_name = "TEXT")]
    pub device: Option<String>,
    /// Only runs whose command or one of whose tests (RND4K Q1T1 read, copy
    /// buffered_128k) contains TEXT, case-insensitively.
    #[arg(long, value_name = "TEXT")]
    pub test: Option<String>,
    /// Only runs that ended on or after DATE (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub since: Option<String>,
    /// Only runs that ended on or before DATE (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub until: Option<String>,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    pub format: String,
}

/// The actions of `iomark history`.
#[derive(Debug, Subcommand)]
pub enum Action {
    /// List the kept runs (the default).
    List(Filters),
    /// Show one run: when, where, what, its figures, warnings and findings.
    Show {
        /// The run: its name, a unique prefix of it, or `last`.
        id: String,
        /// Output format: text, or the RunResult as kept (json).
        #[arg(long, default_value = "text", value_parser = ["text", "json"])]
        format: String,
    },
    /// Remove runs from the history.
    #[command(visible_alias = "remove")]
    Rm {
        /// The runs: names, unique prefixes, or `last`.
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Print the history directory.
    Path,
}

fn parse_date(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let ok = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    // a month 01..12 and a day that month has (February 29 in leap years)
    let num = |r: std::ops::Range<usize>| s.get(r).and_then(|t| t.parse::<u32>().ok());
    let real = match (num(0..4), num(5..7), num(8..10)) {
        (Some(y), Some(m @ 1..=12), Some(d)) => {
            let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
            let days = [
                31,
                if leap { 29 } else { 28 },
                31,
                30,
                31,
                30,
                31,
                31,
                30,
                31,
                30,
                31,
            ];
            (1..=days[m as usize - 1]).contains(&d)
        }
        _ => false,
    };
    if ok && real {
        Ok(s.to_string())
    } else {
        Err("a date YYYY-MM-DD (UTC) is expected, e.g. 2026-12-01".into())
    }
}

/// The history directory, or the error saying none is known.
pub fn dir() -> Result<PathBuf, Error> {
    crate::files::history::dir().ok_or_else(|| {
        Error::new(
            exit::ENVIRONMENT,
            format!(
                "iomark history: no data directory is known (no home directory); set {}",
                crate::files::history::DIR_VAR
            ),
        )
    })
}

/// Every kept run in time order, with its file; a file that cannot be read as a
/// result is skipped with one warning naming it (on stderr).
pub fn load_all() -> Result<Vec<(Entry, PathBuf)>, Error> {
    // read once per process: each damaged file is said once
    static ALL: std::sync::OnceLock<Result<Vec<(Entry, PathBuf)>, Error>> =
        std::sync::OnceLock::new();
    ALL.get_or_init(read_all).clone()
}

fn read_all() -> Result<Vec<(Entry, PathBuf)>, Error> {
    let d = dir()?;
    let files = crate::files::history::list(&d)
        .map_err(|e| Error::new(exit::ENVIRONMENT, format!("iomark history: {e}")))?;
    let mut v = vec![];
    for f in files {
        match crate::report::compare::load(&f) {
            Ok(result) => {
                let name = f
                    .file_stem()
                    .map_or(String::new(), |s| s.to_string_lossy().into_owned());
                v.push((Entry { name, result }, f));
            }
            // one line whatever the file's name holds (a newline, an escape)
            Err(e) => eprintln!(
                "iomark: WARNING: skipping a damaged history file: {}",
                crate::util::text::visible(&e)
            ),
        }
    }
    // by end time; names (which start with it) break ties
    v.sort_by(|a, b| {
        (a.0.result.timestamp_ms, &a.0.name).cmp(&(b.0.result.timestamp_ms, &b.0.name))
    });
    Ok(v)
}

/// The index of the run `id` names in `all`: `last`, an exact name, or a unique prefix.
pub fn find(all: &[(Entry, PathBuf)], id: &str) -> Result<usize, String> {
    if id == "last" {
        return all
            .len()
            .checked_sub(1)
            .ok_or_else(|| "the history is empty: no run is `last`".to_string());
    }
    if let Some(i) = all.iter().position(|(e, _)| e.name == id) {
        return Ok(i);
    }
    let hits: Vec<usize> = (0..all.len())
        .filter(|&i| all[i].0.name.starts_with(id))
        .collect();
    match hits.as_slice() {
        [i] => Ok(*i),
        [] => Err(format!(
            "no run named {id} in the history (`iomark history` lists them)"
        )),
        _ => Err(format!(
            "{id} names {} runs in the history; give more of the name",
            hits.len()
        )),
    }
}

/// The result `history:ID` names, with its name (for labels).
pub fn resolve(id: &str) -> Result<(String, RunResult), String> {
    let all = load_all().map_err(|e| e.to_string())?;
    let i = find(&all, id)?;
    let (e, _) = &all[i];
    Ok((e.name.clone(), e.result.clone()))
}

/// Run `iomark history` with the arguments after the command word.
pub fn run(args: &[String]) -> Exit {
    let argv = std::iter::once("iomark history".to_string()).chain(args.iter().cloned());
    let a = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => return clap_exit("history", e),
    };
    match a.action {
        None => list(&a.filters),
        Some(Action::List(f)) => list(&f),
        Some(Action::Show { id, format }) => show(&id, &format),
        Some(Action::Rm { ids }) => remove(&ids),
        Some(Action::Path) => {
            crate::outln!("{}", dir()?.display());
            Ok(exit::OK)
        }
    }
}

fn list(f: &Filters) -> Exit {
    let all = load_all()?;
    let shown: Vec<&Entry> = all
        .iter()
        .map(|(e, _)| e)
        .filter(|e| {
            rh::matches(
                e,
                f.device.as_deref(),
                f.test.as_deref(),
                f.since.as_deref(),
                f.until.as_deref(),
            )
        })
        .collect();
    if f.format == "json" {
        let v: Vec<serde_json::Value> = shown.iter().map(|e| list_json(e)).collect();
        let text = serde_json::to_string_pretty(&v).unwrap_or_default();
        crate::outln!("{text}");
        return Ok(exit::OK);
    }
    for e in &shown {
        crate::outln!("{}", rh::list_line(e));
    }
    if shown
        .iter()
        .any(|e| crate::result::truth::from_memory(&e.result).is_some())
    {
        crate::outln!("{}", rh::MEMORY_LEGEND);
    }
    let filtered = if shown.len() == all.len() {
        String::new()
    } else {
        format!(" of {}", all.len())
    };
    crate::outln!(
        "{}{filtered} run(s) kept in {}",
        shown.len(),
        dir()?.display()
    );
    Ok(exit::OK)
}

/// One run of the list as JSON: name, end time, command, device, tests.
fn list_json(e: &Entry) -> serde_json::Value {
    let r = &e.result;
    serde_json::json!({
        "name": e.name,
        "timestamp_ms": r.timestamp_ms,
        "date": crate::result::history::date_time(r.timestamp_ms),
        "command": r.command,
        "device": r.device,
        "device_label": crate::result::history::device_label(r),
        "tests": crate::report::compare::tests_of(r).into_iter().map(|t| t.name).collect::<Vec<_>>(),
        "from_memory": crate::result::truth::from_memory(r),
    })
}

fn show(id: &str, format: &str) -> Exit {
    let all = load_all()?;
    let i =
        find(&all, id).map_err(|e| Error::new(exit::INVALID, format!("iomark history: {e}")))?;
    let (e, path) = &all[i];
    if format == "json" {
        crate::util::output::write(&crate::result::json_bytes(&e.result));
        return Ok(exit::OK);
    }
    let entries: Vec<Entry> = all.iter().map(|(e, _)| e.clone()).collect();
    let before: Vec<&RunResult> = rh::earlier(&entries[..i], &e.result, None)
        .into_iter()
        .map(|e| &e.result)
        .collect();
    let text = crate::report::history::show_text(e, &path.display().to_string(), &before);
    crate::util::output::write(text.as_bytes());
    Ok(exit::OK)
}

fn remove(ids: &[String]) -> Exit {
    let all = load_all()?;
    let mut chosen = vec![];
    for id in ids {
        let i = find(&all, id)
            .map_err(|e| Error::new(exit::INVALID, format!("iomark history: {e}")))?;
        if !chosen.contains(&i) {
            chosen.push(i);
        }
    }
    for i in chosen {
        let (e, path) = &all[i];
        crate::files::history::remove(path)
            .map_err(|why| Error::new(exit::FAILED, format!("iomark history: {why}")))?;
        crate::outln!("removed {}", e.name);
    }
    Ok(exit::OK)
}
