//! `iomark run`: fio command-line jobs and job files → [`crate::job::fio`] → runner →
//! fio-like text or fio JSON (to stdout, or `--output=FILE`), plus iomark's RunResult
//! (`--json=FILE`). Front end only: parsing, dispatch and exit codes. With
//! `--output-format=json` stdout carries the JSON document and nothing else; with a list
//! such as `normal,json` the document comes first, then an empty line and the text (as
//! fio 3.33); notices always go to stderr.

use crate::files::output::Output;
use crate::job::fio;
use crate::report::fio::result::run_result;
use crate::result::{self, Status};
use crate::run::fio as runner;
use crate::run::fio::cpu::{CpuTimes, Who};
use crate::run::signals::Signals;

/// Usage text of `iomark run` (the option groups follow, from the option table).
pub const USAGE: &str =
    "Usage: iomark run [--global-opt=V ...] [--name=JOB --opt=V ...]... [JOBFILE...]
  fio options (--rw, --bs, --size, --ioengine, --iodepth, --numjobs, --runtime, ...),
  as --key=value or --key value; JOBFILE - reads the job file from standard input;
  --output-format=normal|json|json+ (or a list: normal,json)   --output=FILE   --section=NAME
  --showcmd (print the effective options as one command line, run nothing)
  --json=FILE (iomark RunResult, schema 1)   --plot=DIR (SVG charts: throughput over time, latency curve)
  --parse-only (check the jobs, run nothing)   --warnings-fatal (a parse warning is exit 2)
  --version   --eta=never|always|auto, --eta-newline=T, --eta-interval=T (accepted; no ETA line is printed)
  --status-interval=TIME   --engine-strict (exit 3 instead of the psync fallback when io_uring is denied)
  --allow-destructive-write=/dev/X   --reap-spin=TIME (io_uring: watch for completions this long
  before sleeping; default 5us, 0 = sleep at once as fio does)
  --cmdhelp (every option with one line of help)   --cmdhelp=KEY (one option: aliases, type, default, values)
Exit codes: 0 ok, 1 I/O error or verify mismatch, 2 invalid options or job file,
  3 environment cannot do it, 130/143 interrupted (partial results printed and saved).
";

/// `iomark run --help`: the question it answers with an example
/// ([`crate::cli::run_args::TOP`]), [`USAGE`] and the option groups with their keys.
pub fn usage() -> String {
    format!(
        "{}{USAGE}Options by group (fio's groups; iomark run --cmdhelp=KEY explains one):\n{}",
        crate::cli::run_args::TOP,
        fio::options::groups_help(100)
    )
}

/// Who was called: `iomark run`, or iomark invoked as `fio` (a symlink or copy named
/// `fio`, so that fio's clients run it unchanged). As `fio`, `--version` is fio's line
/// ([`FIO_VERSION_LINE`]) and stderr stays silent on a successful run: iomark's notes
/// are printed only with `--notes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Persona {
    /// `iomark run`: notes on stderr, `--version` is iomark's
    Iomark,
    /// invoked as `fio`
    Fio,
}

/// `fio --version` under the fio persona: fio's form, which clients check for (bench-fio
/// looks for `fio-3`, KDiskMark for a leading `fio-`), then iomark's name and version.
pub fn fio_version_line() -> String {
    format!("fio-3.33 (iomark {})\n", env!("CARGO_PKG_VERSION"))
}

/// Run `iomark run` with `args` (after the word `run`); returns the exit code.
pub fn run(args: &[String]) -> i32 {
    run_as(args, Persona::Iomark)
}

/// Run iomark invoked as `fio` with `args` (everything after the program name).
pub fn fio(args: &[String]) -> i32 {
    run_as(args, Persona::Fio)
}

fn run_as(args: &[String], persona: Persona) -> i32 {
    if let Some(code) = front(args, persona) {
        return code;
    }
    // --showcmd: print the effective options as one command line, run nothing (C10)
    let showcmd = args.iter().any(|a| a == "--showcmd");
    let kept: Vec<String> = args.iter().filter(|a| *a != "--showcmd").cloned().collect();
    let args = kept.as_slice();
    let cmd = match fio::parse_args(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("iomark run: {e}");
            return crate::exit::INVALID;
        }
    };
    let loud = cmd.notes.unwrap_or(persona == Persona::Iomark);
    let outputs = match before_running(&cmd, showcmd, loud) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let signals = Signals::install();
    let note = |m: String| {
        if loud {
            eprintln!("{m}")
        }
    };
    let c0 = CpuTimes::now(Who::Process);
    let t0 = std::time::Instant::now();
    let root = crate::probe::Root::default();
    let disk0 = crate::report::fio::disk::DiskSnapshot::take(&root, &cmd.jobs);
    let res = runner::execute(&cmd, &signals.stop, &note);
    let disk_util = disk0.finish();
    let cpu = CpuTimes::now(Who::Process).since(&c0);
    // an output that could not be written at the end: one line each, and exit 1
    // unless the run already ends with another code
    let mut lost = false;
    if cmd.json_file.is_some() || cmd.plot.is_some() {
        let elapsed = t0.elapsed().as_secs_f64();
        lost |= !save_run_result(&cmd, args, &res, &cpu, elapsed, outputs.json.as_ref());
    }
    let out = match res {
        Ok(o) => o,
        Err(e) => {
            eprintln!("iomark run: {e}");
            return e.exit_code();
        }
    };
    match write_report(&cmd, &out, disk_util, outputs.output.as_ref()) {
        Ok(written) => lost |= !written,
        Err(code) => return code,
    }
    exit_status(&cmd, &out, &signals, lost)
}

/// The output files of a run, checked before it ([`crate::files::output`]).
struct Outputs {
    /// `--json`, holding its placeholder
    json: Option<Output>,
    /// `--output`, untouched until the report replaces its content
    output: Option<Output>,
}

/// The options answered before any parsing, whatever else is written: `--help`/`-h`,
/// `--version` (fio's: the program and its version) and `--cmdhelp[=KEY]`.
fn front(args: &[String], persona: Persona) -> Option<i32> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        crate::out!("{}", usage());
        return Some(crate::exit::OK);
    }
    if args.iter().any(|a| a == "--version") {
        match persona {
            Persona::Iomark => crate::out!("iomark {}\n", env!("CARGO_PKG_VERSION")),
            Persona::Fio => crate::out!("{}", fio_version_line()),
        }
        return Some(crate::exit::OK);
    }
    let key = args.iter().find_map(|a| match a.as_str() {
        "--cmdhelp" => Some(""),
        a => a.strip_prefix("--cmdhelp="),
    })?;
    Some(cmdhelp(key))
}

/// `--cmdhelp` / `--cmdhelp=all`: every option; `--cmdhelp=KEY`: that option as fio 3.33
/// prints it. A key iomark does not have is exit 2 with a "did you mean".
fn cmdhelp(key: &str) -> i32 {
    if key.is_empty() || key == "all" {
        crate::out!("{}", fio::options::cmdhelp_all());
        return crate::exit::OK;
    }
    match fio::options::cmdhelp(key) {
        Some(text) => {
            crate::out!("{text}");
            crate::exit::OK
        }
        None => {
            eprintln!(
                "iomark run: --cmdhelp={key}: no option of that name (iomark run --cmdhelp lists them){}",
                fio::options::did_you_mean(key)
            );
            crate::exit::INVALID
        }
    }
}

/// After parsing, before any job runs: `--warnings-fatal`, `--showcmd`, `--parse-only`,
/// the output files checked up front ([`check_outputs`]) and the parse notices (on
/// stderr when `loud`, see [`Persona`]). `Err(code)` ends the run.
fn before_running(cmd: &fio::FioCommand, showcmd: bool, loud: bool) -> Result<Outputs, i32> {
    if cmd.warnings_fatal && !cmd.notices.is_empty() {
        for n in &cmd.notices {
            eprintln!("{n}");
        }
        eprintln!("iomark run: --warnings-fatal: the warning above ends the run");
        return Err(crate::exit::INVALID);
    }
    if showcmd {
        crate::out!("{}\n", crate::job::fio::showcmd::showcmd(cmd));
        return Err(crate::exit::OK);
    }
    let print_notices = || {
        for n in cmd.notices.iter().filter(|_| loud) {
            eprintln!("{n}");
        }
    };
    if cmd.parse_only {
        // parse warnings are part of parsing; the report would be the only stdout
        print_notices();
        return Err(crate::exit::OK);
    }
    let outputs = check_outputs(cmd)?;
    print_notices();
    Ok(outputs)
}

/// Check `--json` and `--output` (absent or a regular file with one link, in a
/// directory that takes a new file) and create the `--plot` directory, then write the
/// `--json` placeholder: all before any I/O, so a bad path ends the run with exit 3 and
/// nothing written. `--output` keeps its old content until the report replaces it.
fn check_outputs(cmd: &fio::FioCommand) -> Result<Outputs, i32> {
    let check = |p: &Option<std::path::PathBuf>, opt: &str| {
        p.as_deref().map(Output::create).transpose().map_err(|e| {
            eprintln!("iomark run: cannot write {opt}={}: {e}", e.path.display());
            e.exit_code()
        })
    };
    let json = check(&cmd.json_file, "--json")?;
    let output = check(&cmd.output, "--output")?;
    if let Some(d) = &cmd.plot {
        if let Err(e) = crate::files::output::ensure_dir(d, "--plot") {
            eprintln!("iomark run: {e}");
            return Err(crate::exit::ENVIRONMENT);
        }
    }
    if let Some(o) = &json {
        if let Err(e) = o.prefill(&result::placeholder_bytes()) {
            eprintln!(
                "iomark run: cannot write --json={}: {e}",
                o.path().display()
            );
            return Err(e.exit_code());
        }
    }
    Ok(Outputs { json, output })
}

/// The RunResult of the run (`--json`) and its charts (`--plot`); `false` when one of
/// them could not be written (its line is on stderr).
fn save_run_result(
    cmd: &fio::FioCommand,
    args: &[String],
    res: &Result<runner::RunOutcome, runner::RunError>,
    cpu: &CpuTimes,
    elapsed_s: f64,
    json: Option<&Output>,
) -> bool {
    let (status, error) = match res {
        Ok(o) if o.interrupted => (Status::Interrupted, None),
        Ok(o) if o.jobs.iter().any(|j| j.failure.is_some()) => (
            Status::Failed,
            o.jobs.iter().find_map(|j| j.failure.clone()),
        ),
        Ok(o) if o.jobs.iter().any(|j| j.errors > 0) => (
            Status::Failed,
            o.jobs.iter().find_map(|j| j.first_error.clone()),
        ),
        Ok(_) => (Status::Ok, None),
        Err(e) => (Status::Failed, Some(e.to_string())),
    };
    let r = run_result(cmd, args, res.as_ref().ok(), status, error, cpu, elapsed_s);
    let mut written = true;
    if let Some(o) = json {
        if let Err(e) = o.commit(&result::json_bytes(&r)) {
            eprintln!(
                "iomark run: cannot write --json={}: {e}",
                o.path().display()
            );
            written = false;
        }
    }
    if let (Some(d), Ok(_)) = (&cmd.plot, res) {
        match crate::report::svg_plot::write_plots(&r, d) {
            Ok(files) => {
                for f in files {
                    eprintln!("iomark: wrote {}", f.display());
                }
            }
            Err(e) => {
                eprintln!("iomark run: --plot={}: {e}", d.display());
                written = false;
            }
        }
    }
    written
}

/// fio's report to stdout or `--output`: fio 3.33's order whatever the list's: the JSON
/// document, then (after one empty line, which starts fio's normal text) the summary.
/// `Ok(false)`: `--output` could not be written (its line is on stderr).
fn write_report(
    cmd: &fio::FioCommand,
    out: &runner::RunOutcome,
    disk_util: Option<serde_json::Value>,
    output: Option<&Output>,
) -> Result<bool, i32> {
    let fmt = cmd.output_format;
    let mut text = String::new();
    if fmt.json {
        let doc = crate::report::fio::json_document(
            &out.jobs,
            &cmd.global_options,
            fmt.json_plus,
            disk_util,
        );
        let ordered = crate::report::fio::order::FioDoc {
            doc: &doc,
            job_opts: out.jobs.iter().map(|j| j.options.as_slice()).collect(),
            global: &cmd.global_options,
        };
        match crate::report::fio::order::to_text(&ordered) {
            Ok(s) => text = s + "\n",
            Err(e) => {
                eprintln!("iomark run: cannot encode JSON: {e}");
                return Err(crate::exit::FAILED);
            }
        }
    }
    if fmt.normal {
        if fmt.json {
            text.push('\n');
        }
        text += &crate::report::fio::normal_text(&out.jobs);
    }
    match output {
        Some(o) => {
            if let Err(e) = o.commit(text.as_bytes()) {
                eprintln!(
                    "iomark run: cannot write --output={}: {e}",
                    o.path().display()
                );
                return Ok(false);
            }
        }
        None => crate::out!("{text}"),
    }
    Ok(true)
}

/// The exit code after the report: an interruption says so; jobs that failed (I/O
/// error, verify mismatch, ratemin, latency_target) have their report above (fio's
/// `err=`), the reason here, and exit 1, as do errors continued past and an output
/// that could not be written (`lost`).
fn exit_status(
    cmd: &fio::FioCommand,
    out: &runner::RunOutcome,
    signals: &Signals,
    lost: bool,
) -> i32 {
    if out.interrupted {
        eprintln!(
            "iomark run: {}",
            interrupted_line(&out.jobs, cmd.output.as_deref())
        );
    }
    let mut failed = false;
    for f in out.jobs.iter().filter_map(|j| j.failure.as_deref()) {
        eprintln!("iomark run: {f}");
        failed = true;
    }
    if failed {
        return signals.exit_code().unwrap_or(crate::exit::FAILED);
    }
    let errors: u64 = out.jobs.iter().map(|j| j.errors).sum();
    if errors > 0 {
        let first = out
            .jobs
            .iter()
            .find_map(|j| j.first_error.clone())
            .unwrap_or_default();
        eprintln!(
            "iomark run: {errors} I/O error(s) continued past (continue_on_error); first: {first}"
        );
        return signals.exit_code().unwrap_or(crate::exit::FAILED);
    }
    let done = if lost {
        crate::exit::FAILED
    } else {
        crate::exit::OK
    };
    signals.exit_code().unwrap_or(done)
}

/// The stderr line of an interrupted run: it points at the report only when one was
/// written (no job report exists when the signal came before any job ran, e.g. during
/// file layout).
fn interrupted_line(
    jobs: &[crate::run::fio::JobStats],
    output: Option<&std::path::Path>,
) -> String {
    match output {
        _ if jobs.is_empty() => {
            "interrupted before any job ran (during file layout or setup); no job report".into()
        }
        Some(p) => format!(
            "interrupted; the report in {} covers the I/O completed before the signal",
            p.display()
        ),
        None => "interrupted; the report above covers the I/O completed before the signal".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupted_line_mentions_a_report_only_when_there_is_one() {
        let none = interrupted_line(&[], None);
        assert!(none.contains("no job report"), "{none}");
        assert!(!none.contains("report above"), "{none}");
        let one = vec![crate::run::fio::JobStats::default()];
        assert!(interrupted_line(&one, None).contains("report above"));
        assert!(
            interrupted_line(&one, Some(std::path::Path::new("r.txt"))).contains("report in r.txt")
        );
    }
}
