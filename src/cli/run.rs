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

/// Usage text of `iomark run`.
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
Exit codes: 0 ok, 1 I/O error or verify mismatch, 2 invalid options or job file,
  3 environment cannot do it, 130/143 interrupted (partial results printed and saved).
";

/// Run `iomark run` with `args` (after the word `run`); returns the exit code.
pub fn run(args: &[String]) -> i32 {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        crate::out!("{USAGE}");
        return crate::exit::OK;
    }
    // fio's --version: the program and its version, whatever else is written
    if args.iter().any(|a| a == "--version") {
        crate::out!("iomark {}\n", env!("CARGO_PKG_VERSION"));
        return crate::exit::OK;
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
    if cmd.warnings_fatal && !cmd.notices.is_empty() {
        for n in &cmd.notices {
            eprintln!("{n}");
        }
        eprintln!("iomark run: --warnings-fatal: the warning above ends the run");
        return crate::exit::INVALID;
    }
    if showcmd {
        crate::out!("{}\n", crate::job::fio::showcmd::showcmd(&cmd));
        return crate::exit::OK;
    }
    if cmd.parse_only {
        // parse warnings are part of parsing; the report would be the only stdout
        for n in &cmd.notices {
            eprintln!("{n}");
        }
        return crate::exit::OK;
    }
    let (json, output) = match check_outputs(&cmd) {
        Ok(o) => o,
        Err(code) => return code,
    };
    for n in &cmd.notices {
        eprintln!("{n}");
    }
    let signals = Signals::install();
    let note = |m: String| eprintln!("{m}");
    let c0 = CpuTimes::now(Who::Process);
    let t0 = std::time::Instant::now();
    let disk0 =
        crate::report::fio::disk::DiskSnapshot::take(&crate::probe::Root::default(), &cmd.jobs);
    let res = runner::execute(&cmd, &signals.stop, &note);
    let disk_util = disk0.finish();
    let cpu = CpuTimes::now(Who::Process).since(&c0);
    // an output that could not be written at the end: one line each, and exit 1
    // unless the run already ends with another code
    let mut lost_output = false;
    if cmd.json_file.is_some() || cmd.plot.is_some() {
        let (status, error) = match &res {
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
        let r = run_result(
            &cmd,
            args,
            res.as_ref().ok(),
            status,
            error,
            &cpu,
            t0.elapsed().as_secs_f64(),
        );
        if let Some(o) = &json {
            if let Err(e) = o.commit(&result::json_bytes(&r)) {
                eprintln!(
                    "iomark run: cannot write --json={}: {e}",
                    o.path().display()
                );
                lost_output = true;
            }
        }
        if let (Some(d), Ok(_)) = (&cmd.plot, &res) {
            match crate::report::svg_plot::write_plots(&r, d) {
                Ok(files) => {
                    for f in files {
                        eprintln!("iomark: wrote {}", f.display());
                    }
                }
                Err(e) => {
                    eprintln!("iomark run: --plot={}: {e}", d.display());
                    lost_output = true;
                }
            }
        }
    }
    let out = match res {
        Ok(o) => o,
        Err(e) => {
            eprintln!("iomark run: {e}");
            return e.exit_code();
        }
    };
    // fio 3.33's order whatever the list's: the JSON document, then (after one empty
    // line, which starts fio's normal text) the human summary
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
                return crate::exit::FAILED;
            }
        }
    }
    if fmt.normal {
        if fmt.json {
            text.push('\n');
        }
        text += &crate::report::fio::normal_text(&out.jobs);
    }
    match &output {
        Some(o) => {
            if let Err(e) = o.commit(text.as_bytes()) {
                eprintln!(
                    "iomark run: cannot write --output={}: {e}",
                    o.path().display()
                );
                lost_output = true;
            }
        }
        None => crate::out!("{text}"),
    }
    if out.interrupted {
        eprintln!(
            "iomark run: {}",
            interrupted_line(&out.jobs, cmd.output.as_deref())
        );
    }
    // jobs that failed (I/O error, verify mismatch, ratemin, latency_target): their
    // report is above (fio's `err=`), the reason here, and the run exits 1
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
    let done = if lost_output {
        crate::exit::FAILED
    } else {
        crate::exit::OK
    };
    signals.exit_code().unwrap_or(done)
}

/// Check `--json` and `--output` (absent or a regular file with one link, in a
/// directory that takes a new file) and create the `--plot` directory, then write the
/// `--json` placeholder: all before any I/O, so a bad path ends the run with exit 3 and
/// nothing written. `--output` keeps its old content until the report replaces it.
fn check_outputs(cmd: &fio::FioCommand) -> Result<(Option<Output>, Option<Output>), i32> {
    let check = |p: &Option<std::path::PathBuf>, opt: &str| match p.as_deref().map(Output::create) {
        Some(Err(e)) => {
            eprintln!("iomark run: cannot write {opt}={}: {e}", e.path.display());
            Err(e.exit_code())
        }
        o => Ok(o.and_then(Result::ok)),
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
    Ok((json, output))
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
