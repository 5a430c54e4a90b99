//! The options `iomark run` (and iomark as `fio`) answers before any job is parsed, as
//! fio 3.33 does: `--help` (fio's usage under the fio persona, also printed when no job
//! is defined: [`no_jobs`]), `--version`, `--cmdhelp[=KEY]`, `--enghelp[=ENGINE]`,
//! `--debug=help`, `--crctest[=LIST]`, `--cpuclock-test`, `--idle-prof=calibrate`,
//! `--inflate-log=FILE`, and the refusals of fio's client/server mode (`--server`,
//! `--client`, `--remote-config`, `--daemonize` — which the fio persona, as fio 3.33
//! without a server, ignores —: iomark's many-hosts engine is MPI, docs/commands/mpi.md), `--latency-log` (deprecated by fio) and `--profile`. The
//! words are already in one form (`--KEY[=VALUE]`, job/fio/getopt.rs).

use crate::cli::run_args::usage;
use crate::job::fio;
use crate::util::error::{exit, Error, Exit};

/// Who was called: `iomark run`, or iomark invoked as `fio` (a symlink or copy named
/// `fio`, so that fio's clients run it unchanged). As `fio`, `--version` is fio's line
/// ([`fio_version_line`]) and stderr stays silent on a successful run: iomark's notes
/// are printed only with `--notes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Persona {
    /// `iomark run`: notes on stderr, `--version` is iomark's
    Iomark,
    /// invoked as `fio`
    Fio,
}

/// `fio --version` under the fio persona: fio's line exactly (`fio-3.33`), which clients
/// check and parse (bench-fio looks for `fio-3`, KDiskMark for a leading `fio-`, scripts
/// `sed s/fio-//`); `iomark --version` names iomark.
pub fn fio_version_line() -> String {
    format!("{FIO_VERSION}\n")
}

/// The fio release iomark answers as under the fio persona (`--version`, JSON
/// `"fio version"`).
pub const FIO_VERSION: &str = "fio-3.33";

impl Persona {
    /// The exit code of input this persona refuses: `iomark run`'s 2 (invalid input),
    /// fio 3.33's 1 (it exits 1 for whatever it refuses).
    pub fn refused(self) -> i32 {
        self.code(exit::INVALID)
    }

    /// The exit code of an answer that `iomark run` ends with `own` (a refusal, an empty
    /// listing) where fio 3.33 ends with 1: `own`, or fio's 1 under the fio persona.
    /// The one place the personas' codes part (docs/compat/fio.md).
    pub fn code(self, own: i32) -> i32 {
        match self {
            Persona::Iomark => own,
            Persona::Fio => exit::FAILED,
        }
    }

    /// The word this persona's error lines start with.
    pub fn tag(self) -> &'static str {
        match self {
            Persona::Iomark => "iomark run",
            Persona::Fio => "fio",
        }
    }
}

/// The value of `--KEY[=VALUE]` in `args`: `Some(None)` for `--KEY`, `Some(Some(v))` for
/// `--KEY=v` (the first one given).
fn given<'a>(args: &'a [String], key: &str) -> Option<Option<&'a str>> {
    args.iter().find_map(|a| {
        let body = a.strip_prefix("--")?;
        match body.split_once('=') {
            Some((k, v)) if same(k, key) => Some(Some(v)),
            None if same(body, key) => Some(None),
            _ => None,
        }
    })
}

fn same(a: &str, b: &str) -> bool {
    a.replace('_', "-") == b
}

/// One line `fio: why` (the persona's tag) and exit code `code`.
fn refuse(code: i32, why: impl std::fmt::Display, persona: Persona) -> Exit {
    Err(Error::new(code, format!("{}: {why}", persona.tag())))
}

/// fio 3.33's usage (`fio --help`, and what fio prints when no job is defined), byte
/// for byte: under the fio persona it is the help.
pub const FIO_USAGE: &str = include_str!("help/fio_usage.txt");

/// [`FIO_USAGE`] naming the program as it was invoked, as fio prints its `argv[0]`
/// (`fio [options] …` from the PATH, `/usr/local/bin/fio [options] …` by path).
pub fn fio_usage() -> String {
    let me = std::env::args().next().unwrap_or_else(|| "fio".into());
    FIO_USAGE.replacen("\nfio [options]", &format!("\n{me} [options]"), 1)
}

/// No job defined under the fio persona ([`crate::job::fio::FioError::NoJobs`]), as fio
/// 3.33: `No job(s) defined` and an empty line on stderr, its usage on stdout, exit 1;
/// with `--parse-only` or `--showcmd` (`quiet`) nothing, exit 0.
pub fn no_jobs(quiet: bool) -> Exit {
    if quiet {
        return Ok(exit::OK);
    }
    crate::util::output::to_stderr(format_args!("No job(s) defined\n\n"));
    crate::out!("{}", fio_usage());
    Ok(Persona::Fio.refused())
}

/// The answer to the options of this module, when one is given (`None`: parse and run).
pub fn front(args: &[String], persona: Persona) -> Option<Exit> {
    if given(args, "help").is_some() {
        crate::util::output::holds(crate::util::output::Holds::Help);
        match persona {
            Persona::Iomark => crate::out!("{}", usage()),
            Persona::Fio => crate::out!("{}", fio_usage()),
        }
        return Some(Ok(exit::OK));
    }
    if given(args, "version").is_some() {
        crate::util::output::holds(crate::util::output::Holds::Version);
        match persona {
            Persona::Iomark => crate::out!("iomark {}\n", env!("CARGO_PKG_VERSION")),
            Persona::Fio => crate::out!("{}", fio_version_line()),
        }
        return Some(Ok(exit::OK));
    }
    if let Some(done) = refusals(args, persona) {
        return Some(done);
    }
    if let Some(k) = given(args, "cmdhelp") {
        crate::util::output::holds(crate::util::output::Holds::Help);
        return Some(cmdhelp(k.unwrap_or(""), persona));
    }
    if let Some(e) = given(args, "enghelp") {
        crate::util::output::holds(crate::util::output::Holds::Help);
        return Some(enghelp(e, persona));
    }
    if matches!(given(args, "debug"), Some(Some("help" | "?"))) {
        crate::out!("{}", crate::util::debug::help_line());
        return Some(Ok(exit::OK));
    }
    if let Some(list) = given(args, "crctest") {
        return Some(crctest(list, persona));
    }
    if given(args, "cpuclock-test").is_some() {
        let (text, ok) = crate::run::fio::tools::cpuclock_test();
        crate::out!("{text}");
        return Some(Ok(if ok { exit::OK } else { exit::FAILED }));
    }
    if given(args, "idle-prof") == Some(Some("calibrate")) {
        crate::out!("{}", crate::run::fio::tools::idle_calibrate());
        return Some(Ok(exit::OK));
    }
    if let Some(f) = given(args, "inflate-log") {
        return Some(inflate_log(f.unwrap_or(""), persona));
    }
    None
}

/// fio's client/server mode and its other options iomark does not have (exit 2; 1, fio's
/// code for a refusal, under the fio persona).
fn refusals(args: &[String], persona: Persona) -> Option<Exit> {
    const MPI: &str = "iomark runs many hosts under MPI instead: mpirun -np N --hostfile HOSTS iomark run JOB.fio (docs/commands/mpi.md)";
    for (key, what) in [
        ("server", "fio's server (--server)"),
        ("client", "fio's client (--client)"),
        (
            "remote-config",
            "a job file for fio's servers (--remote-config)",
        ),
        ("daemonize", "a backgrounded fio server (--daemonize)"),
    ] {
        // fio 3.33 backgrounds only a server (`--server`, refused above): without one it
        // drops the pid file's name and runs the jobs in the foreground, writing no file
        if key == "daemonize" && persona == Persona::Fio {
            continue;
        }
        if given(args, key).is_some() {
            return Some(refuse(
                persona.refused(),
                format!("--{key}: {what} is not supported; {MPI}"),
                persona,
            ));
        }
    }
    if given(args, "latency-log").is_some() {
        return Some(refuse(
            persona.refused(),
            "--latency-log is deprecated. Use per-job latency log options.",
            persona,
        ));
    }
    if let Some(p) = given(args, "profile") {
        return Some(refuse(
            persona.refused(),
            format!(
                "--profile={}: fio's built-in profiles (act, tiobench) are not supported; write the job out (fio --showcmd prints one)",
                p.unwrap_or("")
            ),
            persona,
        ));
    }
    None
}

/// `--cmdhelp` / `--cmdhelp=all`: every option (fio 3.33's list under the fio persona,
/// iomark's by group under its own); `--cmdhelp=KEY`: that option as fio 3.33 prints it. A key iomark does not have is exit 2 with a "did you mean"; under the fio
/// persona fio's answer (`No such command: KEY`, its closest option's help, exit 0).
fn cmdhelp(key: &str, persona: Persona) -> Exit {
    if key.is_empty() || key == "all" {
        match persona {
            Persona::Fio => crate::out!("{}", fio::cmdhelp::all_fio()),
            Persona::Iomark => crate::out!("{}", fio::options::cmdhelp_all()),
        }
        return Ok(exit::OK);
    }
    let text = match persona {
        Persona::Fio => fio::cmdhelp::fio_key(key),
        Persona::Iomark => fio::cmdhelp::key(key),
    };
    match text {
        Some(text) => {
            crate::out!("{text}");
            Ok(exit::OK)
        }
        None if persona == Persona::Fio => {
            // fio 3.33: its line without an end, then its closest option's help, exit 0
            crate::util::output::to_stderr(format_args!("No such command: {key}"));
            match fio::cmdhelp::closest(key) {
                Some(text) => crate::out!(" - showing closest match\n{text}"),
                None => crate::out!("\n"),
            }
            Ok(exit::OK)
        }
        None => refuse(
            exit::INVALID,
            format!(
                "--cmdhelp={key}: no option of that name (iomark run --cmdhelp lists them){}",
                fio::options::did_you_mean(key)
            ),
            persona,
        ),
    }
}

/// `--enghelp`: the engines (fio's "Available IO engines:" list); `--enghelp=ENGINE`:
/// the engine options of the table (group "I/O engines"), or fio's line that it has
/// none; `--enghelp=ENGINE,KEY`: that option as `--cmdhelp=KEY`.
fn enghelp(v: Option<&str>, persona: Persona) -> Exit {
    let Some(v) = v.filter(|v| !v.is_empty()) else {
        let mut s = String::from("Available IO engines:\n");
        for name in super::fio_refusal::enghelp_names() {
            s += &format!("\t{name}\n");
        }
        crate::out!("{s}");
        return Ok(exit::OK);
    };
    let (engine, key) = match v.split_once(',') {
        Some((e, k)) => (e, Some(k)),
        None => (v, None),
    };
    // fio answers an unknown engine on both streams, and a listing with nothing in it
    // with exit 1; `iomark run` keeps its own codes (bad input 2, an empty listing 0)
    if crate::job::fio::EngineKind::parse(engine).is_none() {
        if super::fio_refusal::is_fio_engine(engine) {
            // fio has it: "not loadable" would be wrong; iomark does not run it
            let why = format!(
                "engine {engine} is fio's but iomark does not run it (it runs: {})",
                crate::job::fio::supported_engines()
            );
            return refuse(persona.refused(), why, persona);
        }
        crate::out!("IO engine {engine} not found\n");
        let why = format!("engine {engine} not loadable");
        return refuse(persona.refused(), why, persona);
    }
    // (by the word asked: fio's pvsync2 has options, psync none)
    let text = fio::options::engine_help(engine);
    if text.is_empty() {
        crate::out!("IO engine {engine} has no options\n");
        return Ok(persona.code(exit::OK));
    }
    if let Some(k) = key {
        return cmdhelp(k, persona);
    }
    crate::out!("{text}");
    Ok(exit::OK)
}

/// `--crctest[=LIST]`: iomark's checksums timed over 256 MiB each, fio's lines.
fn crctest(list: Option<&str>, persona: Persona) -> Exit {
    match crate::run::fio::tools::crctest(list) {
        Ok(text) => {
            crate::out!("{text}");
            Ok(exit::OK)
        }
        Err(why) => refuse(exit::INVALID, why, persona),
    }
}

/// `--inflate-log=FILE`: a compressed log (`log_store_compressed`, fio's and
/// iomark's: run/fio/fz.rs) printed as its text lines; a file that is not one is
/// refused as fio refuses it.
fn inflate_log(file: &str, persona: Persona) -> Exit {
    let path = std::path::Path::new(file);
    match crate::util::input::read_bytes(path, crate::util::input::MAX_INPUT_BYTES) {
        Err(e) => refuse(
            exit::INVALID,
            format!("--inflate-log={file}: fopen: {}", strip_os_error(&e)),
            persona,
        ),
        // fio's answer for an empty file (its read of the first header comes up short)
        Ok(bytes) if bytes.is_empty() => refuse(exit::FAILED, "short read on reading log", persona),
        Ok(bytes) => match crate::run::fio::fz::inflate(&bytes) {
            Ok(text) => {
                crate::out!("{text}");
                Ok(exit::OK)
            }
            Err(why) => refuse(
                exit::INVALID,
                format!("failed inflating log: -3 ({file} is not a compressed fio log: {why})"),
                persona,
            ),
        },
    }
}

/// An I/O error's text without Rust's " (os error N)".
fn strip_os_error(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => crate::util::strerror(n),
        None => e.to_string(),
    }
}
