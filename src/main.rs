//! `iomark` binary: parse, dispatch, map errors to exit codes. Nothing else lives here.

use iomark::cli::fileio::{self, Outcome, Stream};
use iomark::report::console::Console;
use std::sync::Arc;

const USAGE: &str = "iomark — storage benchmark and diagnosis

Usage: iomark <command> [options...]

Commands:
  fileio    a drop-in `sysbench fileio` (sysbench 1.0.20): prepare | run | cleanup | help
            (see `iomark fileio --help`)
  diagnose  [PATH] [--root DIR] [--json] [--rated-read=MB/s --rated-write=MB/s]: why is it slow?
  copy      [SRC] [DST] [--size=1G] [--json=FILE]: time a big-file copy (buffered, copy_file_range, O_DIRECT)
  tree      [DIR] [--files=150000] [--threads=N] [--json=FILE]: time a small-file tree (create … delete)
  mark      [PATH] [--preset=default|nvme|peak|realworld] [--mix] [--size=1G] [--time=5] [--loops=3] [--json=FILE]:
            one-command drive scores (CrystalDiskMark-style presets)
  run       [--name=JOB --rw=… --bs=… …] [JOBFILE…] [--output-format=normal,json,json+]: fio-style jobs
  compare   A.json B.json [...] [--label=NAME...] [--format=table|markdown|csv|json]: results side by side

Options:
  -h, --help       print this help
  -V, --version    print the version
";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Test-only fault injection (IOMARK_FAULT): parsed once, refused when malformed.
    if let Err(e) = iomark::engine::fault::init() {
        eprintln!("iomark: {e}");
        std::process::exit(2);
    }
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
    let code = match args.first().map(String::as_str) {
        _ if sysbench_style => run_fileio(&args),
        Some("fileio") => run_fileio(&args[1..]),
        Some("diagnose") => iomark::cli::diagnose::run(&args[1..]),
        Some("copy") => iomark::cli::copy::run(&args[1..]),
        Some("tree") => iomark::cli::tree::run(&args[1..]),
        Some("mark") => iomark::cli::mark::run(&args[1..]),
        Some("run") => iomark::cli::run::run(&args[1..]),
        Some("compare") => iomark::cli::compare::run(&args[1..]),
        None | Some("-h") | Some("--help") | Some("help") => {
            print!("{USAGE}");
            if args.is_empty() {
                2
            } else {
                0
            }
        }
        Some("-V") | Some("--version") => {
            println!("iomark {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Some(other) => {
            eprintln!("iomark: unknown command '{other}' (accepted: fileio, run, mark, compare, diagnose, copy, tree; see iomark --help)");
            2
        }
    };
    std::process::exit(code);
}

fn run_fileio(args: &[String]) -> i32 {
    let parsed = fileio::parse(args);
    let console = Arc::new(Console::new(parsed.verbosity));
    let emit = |m: &fileio::Msg| match m.stream {
        Stream::Err => console.err(&m.text),
        Stream::Out => console.line(m.level, &m.text),
    };
    parsed.pre.iter().for_each(emit);
    parsed.post.iter().for_each(emit);
    match parsed.outcome {
        Outcome::Exit(code) => code,
        Outcome::Job(job) => iomark::run::sysbench::execute(&job, &console),
    }
}
