//! `iomark` binary: read the command word, dispatch to its front end in `cli/`, and turn
//! the outcome into the exit code: the one place that prints the [`Error`] a command
//! ended with (its lines, on stderr), after which stdout has its own verdict
//! (`cli::exit_code`). Named
//! `fio` (a symlink or copy), it is `iomark run` speaking as fio ([`cli::run_front::Persona`]);
//! named `sysbench`, it is `iomark fileio` speaking as sysbench ([`cli::fileio::sysbench`]).
//! Nothing else lives here.

use iomark::cli;
use iomark::util::error::{Error, Exit};
// never std's eprint!, which panics when stderr cannot be written (2>/dev/full)
use iomark::util::output::to_stderr;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Test-only fault injection (IOMARK_FAULT): parsed once, refused when malformed.
    if let Err(e) = cli::init() {
        to_stderr(format_args!("iomark: {e}\n"));
        std::process::exit(e.code());
    }
    // invoked as `fio` or `sysbench` (a symlink or copy of the binary under that name):
    // that tool's command line
    let name = iomark::util::invoked_as();
    let fio = name.as_deref() == Some("fio");
    let ended = match name.as_deref() {
        Some("fio") => cli::run::fio(&args),
        Some("sysbench") => Ok(cli::fileio::sysbench(&args)),
        _ => dispatch(&args),
    };
    let code = match ended {
        Ok(code) => code,
        Err(e) => {
            let line = format!("{e}\n");
            to_stderr(format_args!("{line}")); // one write, as cli/run.rs error_line
            e.code()
        }
    };
    let code = cli::exit_code(code);
    // fio keeps SIGPIPE's default action: a report written to a closed pipe kills it
    // (status 141), which the fio persona does at exit, once its cleanup is done
    if fio && iomark::util::output::met_closed_pipe() {
        iomark::util::output::end_killed_by_sigpipe();
    }
    // sysbench installs no handler for SIGINT, SIGTERM or SIGHUP: it dies of them, as
    // the persona does once its run has stopped
    if name.as_deref() == Some("sysbench") {
        cli::fileio::end_as_sysbench(code);
    }
    std::process::exit(code);
}

fn dispatch(args: &[String]) -> Exit {
    // sysbench accepts options before the test name (`--threads=2 fileio run`) and the
    // deprecated `--test=fileio`: both select fileio, with every argument kept.
    let first_word = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(String::as_str);
    let sysbench_style = args
        .first()
        .is_some_and(|a| a.starts_with("--") && a != "--help" && a != "--version")
        && (first_word == Some("fileio") || args.iter().any(|a| a == "--test=fileio"));
    let rest = args.get(1..).unwrap_or_default();
    if let Some(e) = cli::refuse_many_hosts(args) {
        return Err::<i32, Error>(e);
    }
    match args.first().map(String::as_str) {
        // fileio prints sysbench's own lines (stdout and stderr, in its order) itself
        _ if sysbench_style => Ok(cli::fileio::run(args)),
        Some("fileio") => Ok(cli::fileio::run(rest)),
        Some("diagnose") => cli::diagnose::run(rest),
        Some("copy") => cli::copy::run(rest),
        Some("tree") => cli::tree::run(rest),
        Some("time") => cli::time::run(rest),
        Some("mark") => cli::mark::run(rest),
        Some("run") => cli::run::run(rest),
        Some("compare") => cli::compare::run(rest),
        Some("history") => cli::history::run(rest),
        Some("report") => cli::report::run(rest),
        Some("completions") => cli::help::completions(rest),
        Some("man") => cli::help::man(rest),
        Some("help") => cli::help::help(rest),
        None => cli::help::no_command(),
        Some("-h") | Some("--help") => cli::help::top(),
        Some("-V") | Some("--version") => cli::help::version(),
        Some(other) => cli::help::unknown_command(other),
    }
}
