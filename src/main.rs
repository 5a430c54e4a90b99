//! `iomark` binary: read the command word, dispatch to its front end in `cli/`, and turn
//! the outcome into the exit code (after stdout's own verdict, `cli::exit_code`).
//! Nothing else lives here.

use iomark::cli;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Test-only fault injection (IOMARK_FAULT): parsed once, refused when malformed.
    if let Err(e) = iomark::engine::fault::init() {
        eprintln!("iomark: {e}");
        std::process::exit(2);
    }
    let code = iomark::ranks::close(dispatch(&args));
    std::process::exit(cli::exit_code(code));
}

fn dispatch(args: &[String]) -> i32 {
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
    // a benchmark without a many-hosts mode, started as several MPI processes (src/ranks/)
    if let Some(line) = args.first().and_then(|c| {
        ["mark", "copy", "tree"]
            .contains(&c.as_str())
            .then(|| iomark::ranks::refuse_unsupported(c))
            .flatten()
    }) {
        eprintln!("{line}");
        return iomark::exit::ENVIRONMENT;
    }
    match args.first().map(String::as_str) {
        _ if sysbench_style => cli::fileio::run(args),
        Some("fileio") => cli::fileio::run(rest),
        Some("diagnose") => cli::diagnose::run(rest),
        Some("copy") => cli::copy::run(rest),
        Some("tree") => cli::tree::run(rest),
        Some("mark") => cli::mark::run(rest),
        Some("run") => cli::run::run(rest),
        Some("compare") => cli::compare::run(rest),
        Some("completions") => cli::help::completions(rest),
        Some("man") => cli::help::man(rest),
        Some("help") => cli::help::help(rest),
        None => cli::help::no_command(),
        Some("-h") | Some("--help") => cli::help::top(),
        Some("-V") | Some("--version") => cli::help::version(),
        Some(other) => cli::help::unknown_command(other),
    }
}
