//! `iomark fileio` front end: sysbench 1.0.20 argv → [`FileioJob`], with sysbench's
//! messages, their order relative to the banner, their stream and exit codes. Pure: it
//! returns the messages to print instead of printing them, so every rule is unit-testable.
//!
//! Where sysbench 1.0.20 has a real bug the value is rejected here with an
//! iomark message and exit code 2 (sysbench's own messages keep exit code 1).

pub mod args;
pub mod config_file;
pub mod help;
pub mod outputs;
pub mod table;

use crate::cli::fileio::args::Argv;
use crate::job::sysbench::*;
use crate::job::units::{sysbench_bool, sysbench_int};
use crate::util::console::level;
use crate::util::console::Console;
use crate::util::error::exit;
pub use help::{FILEIO_HELP, GLOBAL_HELP};
use std::sync::{Arc, OnceLock};

/// Set once when the binary was invoked under the name `sysbench` ([`sysbench`]): the
/// banner, `--version` and `--help` are sysbench's, and iomark's notes go to stderr so
/// that stdout is sysbench's report only.
static AS_SYSBENCH: OnceLock<()> = OnceLock::new();

/// Whether this process answers as `sysbench`.
pub fn as_sysbench() -> bool {
    AS_SYSBENCH.get().is_some()
}

/// The tests sysbench 1.0.20 has built in besides fileio, which iomark does not answer for.
const OTHER_TESTS: [&str; 4] = ["cpu", "memory", "threads", "mutex"];

/// `sysbench ARGS` (the binary named `sysbench`): the fileio test as `iomark fileio`,
/// with sysbench's `--version` (`sysbench 1.0.20`) and `--help`; any other test is
/// sysbench's "Cannot find benchmark" line, exit 1; no test at all is the banner alone,
/// exit 0 (sysbench then runs the Lua script on standard input: [`no_test`]). Exit 3
/// (what the environment cannot do) is sysbench's 1: sysbench has no other code for it.
pub fn sysbench(args: &[String]) -> i32 {
    let _ = AS_SYSBENCH.set(());
    let (args, test) = match sysbench_slots(args) {
        Ok(slots) => slots,
        Err(lines) => {
            lines.iter().for_each(|l| eprintln!("{l}"));
            return exit::FAILED;
        }
    };
    let args = &args[..];
    // `-h` is a test's name to sysbench (`Cannot find benchmark '-h'`), not `--help`
    let opts: Vec<String> = args.iter().filter(|w| *w != "-h").cloned().collect();
    let a = Argv::split(&opts);
    let asks = |o: &str| a.has(o) && bool_opt(&a, o, false);
    let code = match test.as_deref() {
        _ if asks("help") || asks("version") => run(args),
        Some("fileio") => run(args),
        None => no_test(),
        Some(what) => {
            let why = if OTHER_TESTS.contains(&what) {
                "iomark answers as sysbench for the fileio test only"
            } else {
                "no such built-in test, file or module"
            };
            println!(
                "{}\n\nFATAL: Cannot find benchmark '{what}': {why}",
                banner()
            );
            exit::FAILED
        }
    };
    if code == exit::ENVIRONMENT {
        exit::FAILED
    } else {
        code
    }
}

/// The end of the `sysbench` persona whose command a signal stopped (exit code 128 +
/// the signal) where sysbench 1.0.20, which installs no handler for it, dies of it:
/// SIGINT, SIGTERM, SIGHUP (their default action ends the process; SIGQUIT's would dump
/// a core, and the persona keeps exit 131 for it). The process ends killed by that
/// signal, as sysbench's; any other code returns.
pub fn end_as_sysbench(code: i32) {
    if let Some(sig) = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP]
        .into_iter()
        .find(|&s| code == 128 + s)
    {
        crate::util::output::end_killed_by(sig);
    }
}

/// `sysbench` with no test named: the banner, then sysbench reads a Lua script from
/// standard input and runs it. An empty input (a script's `</dev/null`) is exit 0 with
/// nothing more, as sysbench; the persona runs no Lua, so a script given there is
/// refused with one line, exit 1.
fn no_test() -> i32 {
    use std::io::Read;
    println!("{}\n", banner());
    let mut first = [0u8; 1];
    match std::io::stdin().lock().read(&mut first) {
        Ok(0) | Err(_) => exit::OK,
        Ok(_) => {
            println!("FATAL: iomark runs no Lua script: name the test (sysbench fileio …)");
            exit::FAILED
        }
    }
}

/// The arguments as `iomark fileio` takes them: without sysbench's test word (the
/// `fileio` before or among the options, `--test=fileio`), which the sysbench-style
/// command lines carry — so a kept result's command line reads `iomark fileio …` once.
fn without_test_word(args: &[String]) -> Vec<String> {
    let mut seen = false;
    args.iter()
        .filter(|w| match w.as_str() {
            "--test=fileio" => false,
            "fileio" if !seen => {
                seen = true;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

/// The words of a `sysbench` command line as sysbench 1.0.20 reads them, in order: the
/// first word that is not an option names the test, the second the command, and
/// `--test=NAME` names the test wherever it stands (so `prepare run --test=fileio` runs
/// `run`: `prepare` was the test's name until `--test` replaced it). A third word is
/// `Unrecognized command line argument: WORD` on stderr, exit 1, after the deprecation
/// warning of each `--test` before it. `--config-file=FILE` is replaced by the options
/// the file sets ([`config_file`]), its lines on stderr said where it stands. `Ok`: the
/// options, then the test word when it was not given by `--test`, then the command —
/// one command, where `iomark fileio` takes several —, and the test's name.
fn sysbench_slots(args: &[String]) -> Result<(Vec<String>, Option<String>), Vec<String>> {
    // `Some(None)`: the test is named by `--test`
    let (mut test, mut command) = (None::<Option<&String>>, None::<&String>);
    let (mut said, mut opts) = (Vec::new(), Vec::new());
    let mut named = None;
    for w in args {
        if let Some(path) = config_path(w) {
            let (words, lines) = config_file::read(path);
            lines.iter().for_each(|l| eprintln!("{l}"));
            opts.extend(words);
        } else if w.starts_with("--") {
            if let Some(name) = w.strip_prefix("--test=") {
                said.push(TEST_DEPRECATED.to_string());
                test = Some(None);
                named = Some(name.to_string());
            }
            opts.push(w.clone());
        } else if test.is_none() {
            test = Some(Some(w));
            named = Some(w.clone());
        } else if command.is_none() {
            command = Some(w);
        } else {
            said.push(format!("Unrecognized command line argument: {w}"));
            return Err(said);
        }
    }
    opts.extend(test.flatten().into_iter().chain(command).cloned());
    Ok((opts, named))
}

/// The file of a `--config-file[=FILE]` word (`-`/`_` alike in the name); bare or empty:
/// `Some("")`, which reads nothing.
fn config_path(w: &str) -> Option<&str> {
    let body = w.strip_prefix("--")?;
    let (name, value) = body.split_once('=').unwrap_or((body, ""));
    (name.replace('_', "-") == "config-file").then_some(value)
}

/// sysbench's warning for each `--test=NAME`.
const TEST_DEPRECATED: &str = "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.";

/// Output stream of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// standard output (sysbench's logger, reports)
    Out,
    /// standard error (option-syntax errors)
    Err,
}

/// One message line (without its trailing newline).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Msg {
    /// Where it goes.
    pub stream: Stream,
    /// Its sysbench priority; stderr messages are always printed.
    pub level: u8,
    /// The text.
    pub text: String,
}

/// What the front end decided.
#[derive(Debug)]
pub enum Outcome {
    /// Execute this job.
    Job(Box<FileioJob>),
    /// Print the messages and exit with this code.
    Exit(i32),
}

/// The front end's answer: messages before the banner, whether to print the banner,
/// messages after it, and the outcome.
#[derive(Debug)]
pub struct Parsed {
    /// Printed before the banner.
    pub pre: Vec<Msg>,
    /// Print the banner (`iomark <version> (sysbench 1.0.20 fileio compatible)`).
    pub banner: bool,
    /// Printed after the banner.
    pub post: Vec<Msg>,
    /// The verbosity the messages of a parse that made no job are printed at (the
    /// `--verbosity` as far as it could be read, 3 without one; `--debug`: 5). A job's
    /// messages and its run are printed at the job's own `FileioJob::verbosity`
    /// ([`Parsed::verbosity`]), the one definition of a run's verbosity.
    pub stop_verbosity: u8,
    /// What to do next.
    pub outcome: Outcome,
}

/// The banner line (sysbench prints `sysbench 1.0.20 (using system LuaJIT ...)`; under
/// the sysbench persona the first two words are sysbench's, for scripts that read them).
pub fn banner() -> String {
    if as_sysbench() {
        return format!(
            "sysbench 1.0.20 (iomark {}, the fileio test)",
            env!("CARGO_PKG_VERSION")
        );
    }
    format!(
        "iomark {} (sysbench 1.0.20 fileio compatible)",
        env!("CARGO_PKG_VERSION")
    )
}

struct Ctx {
    pre: Vec<Msg>,
    post: Vec<Msg>,
    banner: bool,
}

impl Ctx {
    fn msg(&mut self, stream: Stream, level: u8, text: impl Into<String>) {
        let m = Msg {
            stream,
            level,
            text: text.into(),
        };
        if self.banner {
            self.post.push(m)
        } else {
            self.pre.push(m)
        }
    }
    fn out(&mut self, level: u8, text: impl Into<String>) {
        self.msg(Stream::Out, level, text)
    }
    fn err(&mut self, text: impl Into<String>) {
        self.msg(Stream::Err, level::FATAL, text)
    }
    /// iomark's own stderr line after sysbench's message (what an option accepts): not
    /// printed under the `sysbench` persona, whose stderr is sysbench's alone.
    fn note(&mut self, text: impl Into<String>) {
        if !as_sysbench() {
            self.err(text)
        }
    }
    fn fatal(&mut self, text: impl Into<String>) {
        self.out(level::FATAL, format!("FATAL: {}", text.into()))
    }
}

/// Failure with an exit code (messages already recorded).
struct Stop(i32);

/// Read an integer option the sysbench way: syntax errors go to stderr with the
/// underscore name. `None` when absent (callers use the default).
fn int_opt(c: &mut Ctx, a: &Argv, name: &str) -> Result<Option<i64>, Stop> {
    match a.value(name) {
        None => Ok(None),
        Some(v) => match sysbench_int(v) {
            Some(x) => Ok(Some(i64::from(x))),
            None => {
                c.err(format!(
                    "Invalid value for the '{}' option: '{}'",
                    name.replace('-', "_"),
                    v
                ));
                options::hint(c, name);
                Err(Stop(exit::FAILED))
            }
        },
    }
}

fn bool_opt(a: &Argv, name: &str, default: bool) -> bool {
    match a.last(name) {
        None => default,
        Some(o) => sysbench_bool(o.value.as_deref()).unwrap_or(default),
    }
}

/// Run `iomark fileio` with the arguments after the command word (or, sysbench's way,
/// all of them: `--threads=2 fileio run`); returns the exit code.
pub fn run(args: &[String]) -> i32 {
    let (many, args) = match crate::ranks::split_options(args) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("iomark fileio: {e}");
            return exit::INVALID;
        }
    };
    let parsed = parse(&args);
    let console = Arc::new(Console::new(parsed.verbosity()));
    // under MPI (src/ranks/) the session starts before the first line: rank 0 alone prints
    let session = match &parsed.outcome {
        Outcome::Job(_) => crate::ranks::begin("fileio", many),
        Outcome::Exit(_) => Ok(None),
    };
    // `--json=-`: stdout holds the result alone, from the banner on (cli/output.rs)
    if let Outcome::Job(j) = &parsed.outcome {
        let stream = j
            .settings
            .json
            .as_deref()
            .and_then(crate::util::output::Stream::of);
        if stream == Some(crate::util::output::Stream::Stdout) {
            crate::util::output::reserve_for_document();
        }
    }
    let emit = |m: &Msg| match m.stream {
        Stream::Err => console.err(&m.text),
        Stream::Out => console.line(m.level, &m.text),
    };
    parsed.pre.iter().for_each(emit);
    parsed.post.iter().for_each(emit);
    match parsed.outcome {
        Outcome::Exit(code) => code,
        Outcome::Job(mut job) => match session.and_then(|s| place_ranks(&mut job, s)) {
            Ok(()) => {
                if as_sysbench() {
                    job.settings.sysbench_only = true;
                    job.settings.notes = false;
                    job.settings.history = false;
                }
                let mut outs = outputs::FileioOutputs::default();
                crate::run::sysbench::execute(&job.translate(), &console, &mut outs)
            }
            Err(line) => {
                console.err(&line);
                exit::ENVIRONMENT
            }
        },
    }
}

/// Under an MPI launch (src/ranks/): move `--file-dir` to the rank's `DIR/rank.N/` and
/// keep `--json`/`--plot` to rank 0. `Err`: the exit-3 line.
fn place_ranks(job: &mut FileioJob, session: Option<&crate::ranks::Session>) -> Result<(), String> {
    let Some(s) = session else {
        return Ok(());
    };
    job.dir = s
        .dir(&job.dir)
        .map_err(|e| format!("iomark fileio: --file-dir: {e}"))?;
    if s.rank != 0 {
        (job.settings.json, job.settings.plot) = (None, None);
    }
    Ok(())
}

/// Parse `iomark fileio` arguments (argv without program name and the `fileio` word).
pub fn parse(args: &[String]) -> Parsed {
    let mut c = Ctx {
        pre: vec![],
        post: vec![],
        banner: false,
    };
    let mut a = Argv::split(args);
    if a.positionals.first().map(String::as_str) == Some("fileio") {
        a.positionals.remove(0);
    }
    let mut job: Option<FileioJob> = None;
    let code = match parse_inner(&mut c, &a, args, &mut job) {
        Ok(()) => None,
        // invalid input is exit 2 under `iomark fileio`, whatever sysbench's line says;
        // the `sysbench` persona keeps sysbench's code 1 (docs/commands/fileio.md)
        Err(Stop(exit::FAILED)) if !as_sysbench() => Some(exit::INVALID),
        // and the persona refuses with sysbench's 1 what `iomark fileio` refuses with 2
        Err(Stop(code)) if as_sysbench() && code != exit::OK => Some(exit::FAILED),
        Err(Stop(code)) => Some(code),
    };
    let outcome = match (code, job) {
        (None, Some(j)) => Outcome::Job(Box::new(j)),
        (Some(code), _) => Outcome::Exit(code),
        (None, None) => Outcome::Exit(exit::OK),
    };
    Parsed {
        pre: c.pre,
        banner: c.banner,
        post: c.post,
        stop_verbosity: stop_verbosity(&a),
        outcome,
    }
}

impl Parsed {
    /// The verbosity everything of this call is printed at: a job's own
    /// (`FileioJob::verbosity`, which its run reads), else the stopped parse's.
    pub fn verbosity(&self) -> u8 {
        match &self.outcome {
            Outcome::Job(j) => j.verbosity,
            Outcome::Exit(_) => self.stop_verbosity,
        }
    }
}

/// The verbosity of a parse that stopped before its job was made: `--verbosity` where
/// it reads as a level in range, else 3; `--debug`: 5 (as the job's own would be).
fn stop_verbosity(a: &Argv) -> u8 {
    if bool_opt(a, "debug", false) {
        return 5;
    }
    a.value("verbosity")
        .and_then(sysbench_int)
        .map(options::verbosity_read)
        .filter(|v| table::within("verbosity", i128::from(*v)).is_ok())
        .map_or(3, |v| v as u8)
}

fn parse_inner(
    c: &mut Ctx,
    a: &Argv,
    args: &[String],
    job: &mut Option<FileioJob>,
) -> Result<(), Stop> {
    let cmds: Vec<Option<Command>> = a.positionals.iter().map(|p| Command::parse(p)).collect();
    before_banner(c, a, &cmds)?;
    // Step 3: general options, before the banner.
    let general = general_options(c, a, cmds.contains(&Some(Command::Run)))?;
    // Step 4: banner.
    c.banner = true;
    c.out(level::NOTICE, banner());
    c.out(level::NOTICE, "");
    // Step 5: command, then option syntax.
    let Some(first) = a.positionals.first() else {
        let me = if as_sysbench() { "sysbench" } else { "iomark" };
        c.err(format!(
            "The 'fileio' test requires a command argument. See '{me} fileio help'"
        ));
        return Err(Stop(exit::FAILED));
    };
    if cmds[0].is_none() {
        c.err(format!("Unknown command: {first}"));
        return Err(Stop(exit::FAILED));
    }
    check_option_names(c, a)?;
    if a.has("config-file") {
        c.err("iomark: --config-file is not supported; pass options on the command line");
        return Err(Stop(exit::INVALID));
    }
    let commands: Vec<Command> = cmds.into_iter().flatten().collect();
    if commands == [Command::Help] {
        crate::util::output::holds(crate::util::output::Holds::Help);
        for l in FILEIO_HELP.lines() {
            c.out(level::NOTICE, l);
        }
        c.out(level::NOTICE, "");
        return Err(Stop(exit::OK));
    }
    let runs = commands.contains(&Command::Run);
    let mut j = fileio_options(c, a, runs, general)?;
    j.settings.commands = commands;
    j.settings.argv = without_test_word(args);
    if j.settings
        .commands
        .iter()
        .any(|c| matches!(c, Command::Prepare | Command::Run))
    {
        if let Err(e) = j.geometry() {
            c.fatal(e.to_string());
            return Err(Stop(exit::INVALID));
        }
    }
    *job = Some(j);
    Ok(())
}

/// Steps 1 and 2 (before the banner): the positional words (sysbench takes one command;
/// `iomark fileio` also accepts a sequence of prepare/run/cleanup, the `sysbench` persona
/// does not: [`sysbench_slots`]; anything else after the first
/// word is refused, as sysbench does), then `--help` / `--version` and `--test`'s warning.
fn before_banner(c: &mut Ctx, a: &Argv, cmds: &[Option<Command>]) -> Result<(), Stop> {
    if a.positionals.len() > 1 {
        let bad = if cmds[0].is_none() || cmds[0] == Some(Command::Help) {
            Some(1)
        } else {
            cmds.iter()
                .position(|c| c.is_none() || *c == Some(Command::Help))
        };
        if let Some(i) = bad {
            c.err(format!(
                "Unrecognized command line argument: {}",
                a.positionals[i]
            ));
            return Err(Stop(exit::FAILED));
        }
    }
    if a.has("help") && bool_opt(a, "help", false) {
        crate::util::output::holds(crate::util::output::Holds::Help);
        let text: &str = if as_sysbench() {
            &help::SYSBENCH_HELP
        } else {
            &GLOBAL_HELP
        };
        for l in text.lines() {
            c.out(level::FATAL, l);
        }
        return Err(Stop(exit::OK));
    }
    if a.has("version") && bool_opt(a, "version", false) {
        crate::util::output::holds(crate::util::output::Holds::Version);
        // sysbench's own `--version` line is exactly `sysbench 1.0.20`
        let line = if as_sysbench() {
            "sysbench 1.0.20".to_string()
        } else {
            banner()
        };
        c.out(level::FATAL, line);
        return Err(Stop(exit::OK));
    }
    if a.has("test") {
        c.err(TEST_DEPRECATED);
    }
    Ok(())
}

/// Step 5's option syntax: every option is in the table, and a switch has a boolean
/// word (`--notes`, iomark's own switch, has its own error, exit 2).
fn check_option_names(c: &mut Ctx, a: &Argv) -> Result<(), Stop> {
    for o in &a.opts {
        if as_sysbench() && db_option(o) {
            continue;
        }
        let opt =
            table::find(&o.name).filter(|_| !(as_sysbench() && table::not_in_1_0_20(&o.name)));
        let bad_bool =
            opt.is_some_and(|t| t.is_switch()) && sysbench_bool(o.value.as_deref()).is_none();
        if bad_bool && o.name == "notes" {
            c.err(format!(
                "iomark: invalid value '{}' for --notes: accepted on|off (also true|false, 1|0)",
                o.value.as_deref().unwrap_or("")
            ));
            return Err(Stop(exit::INVALID));
        }
        if opt.is_none() || bad_bool {
            c.err(format!("invalid option: {}", o.original));
            match opt {
                Some(_) => options::hint(c, &o.name),
                None => c.note(format!(
                    "iomark: --{} is not a fileio option; `iomark fileio help` lists them",
                    o.name
                )),
            }
            return Err(Stop(exit::FAILED));
        }
    }
    Ok(())
}

/// Whether `o` is one of sysbench's database options with a value sysbench takes (a
/// switch's value a boolean word): the persona accepts it and reads nothing from it.
fn db_option(o: &args::OptWord) -> bool {
    table::SYSBENCH_DB_OPTIONS
        .iter()
        .find(|(n, _)| *n == o.name)
        .is_some_and(|(_, switch)| !switch || sysbench_bool(o.value.as_deref()).is_some())
}

mod options;
use options::{fileio_options, general_options};

#[cfg(test)]
mod table_tests;
#[cfg(test)]
mod tests;
