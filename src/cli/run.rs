//! `iomark run`: fio command-line jobs and job files → [`crate::job::fio`] → runner →
//! fio-like text or fio JSON (to stdout, or `--output=FILE`), plus iomark's RunResult
//! (`--json=FILE`). Front end only: parsing, dispatch and exit codes. With
//! `--output-format=json` stdout carries the JSON document and nothing else; with a list
//! such as `normal,json` the document comes first, then an empty line and the text (as
//! fio 3.33); notices always go to stderr.

use crate::job::fio;
use crate::report::fio::json::FioJson;
use crate::report::fio::text::FioText;
use crate::report::output::Outputs;
use crate::report::Reporter;
use crate::result::{self, JobInfo, Recorded, Status};
use crate::run::fio as runner;
use crate::stats::cpu::{CpuTimes, Who};
use crate::run::signals::Signals;

/// Usage text of `iomark run`.
pub const USAGE: &str =
    "Usage: iomark run [--global-opt=V ...] [--name=JOB --opt=V ...]... [JOBFILE...]
  fio options (--rw, --bs, --size, --ioengine, --iodepth, --numjobs, --runtime, ...),
  as --key=value or --key value; JOBFILE - reads the job file from standard input;
  --output-format=normal|json|json+ (or a list: normal,json)   --output=FILE   --section=NAME
  --showcmd (print the effective options as one command line, run nothing)
  --json=FILE (iomark RunResult, schema 2)   --plot=DIR (SVG charts: throughput over time, latency curve)
  --parse-only (check the jobs, run nothing)   --warnings-fatal (a parse warning is exit 2)
  --version   --eta=never|always|auto, --eta-newline=T, --eta-interval=T (accepted; no ETA line is printed)
  --status-interval=TIME   --engine-strict (exit 3 instead of the psync fallback when io_uring is denied)
  --allow-destructive-write=/dev/X   --reap-spin=TIME (io_uring: watch for completions this long
  before sleeping; default 5us, 0 = sleep at once as fio does)
Exit codes: 0 ok, 1 I/O error or verify mismatch, 2 invalid options or job file,
  3 environment cannot do it, 130/143 interrupted (partial results printed and saved).
";

/// The job description of `args`, or the exit code when nothing is to run (`--help`,
/// `--version`, `--showcmd`, `--parse-only`, bad options, `--warnings-fatal`); the
/// arguments without `--showcmd` come with it.
fn command(args: &[String]) -> Result<(fio::FioCommand, Vec<String>), i32> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        crate::out!("{USAGE}");
        return Err(crate::exit::OK);
    }
    // fio's --version: the program and its version, whatever else is written
    if args.iter().any(|a| a == "--version") {
        crate::out!("iomark {}\n", env!("CARGO_PKG_VERSION"));
        return Err(crate::exit::OK);
    }
    // --showcmd: print the effective options as one command line, run nothing (C10)
    let showcmd = args.iter().any(|a| a == "--showcmd");
    let kept: Vec<String> = args.iter().filter(|a| *a != "--showcmd").cloned().collect();
    let cmd = match fio::parse_args(&kept) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("iomark run: {e}");
            return Err(crate::exit::INVALID);
        }
    };
    if cmd.warnings_fatal && !cmd.notices.is_empty() {
        for n in &cmd.notices {
            eprintln!("{n}");
        }
        eprintln!("iomark run: --warnings-fatal: the warning above ends the run");
        return Err(crate::exit::INVALID);
    }
    if showcmd {
        crate::out!("{}\n", crate::job::fio::showcmd::showcmd(&cmd));
        return Err(crate::exit::OK);
    }
    if cmd.parse_only {
        // parse warnings are part of parsing; the report would be the only stdout
        for n in &cmd.notices {
            eprintln!("{n}");
        }
        return Err(crate::exit::OK);
    }
    Ok((cmd, kept))
}

/// Run `iomark run` with `args` (after the word `run`); returns the exit code.
pub fn run(args: &[String]) -> i32 {
    let (cmd, kept) = match command(args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let args = kept.as_slice();
    let outs = match outputs(&cmd) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("iomark run: {e}");
            return crate::exit::ENVIRONMENT;
        }
    };
    for n in &cmd.notices {
        eprintln!("{n}");
    }
    let signals = Signals::install();
    let note = |m: String| eprintln!("{m}");
    let c0 = CpuTimes::now(Who::Process);
    let t0 = std::time::Instant::now();
    let disk0 = runner::disk::DiskSnapshot::take(&cmd.jobs);
    let res = runner::execute(&cmd, &signals.stop, &note);
    let devices = disk0.finish();
    let cpu = CpuTimes::now(Who::Process).since(&c0);
    let (outcome, failure) = match res {
        Ok(o) => (Some(o), None),
        Err(e) => (None, Some(e)),
    };
    let interrupted = outcome.as_ref().is_some_and(|o| o.interrupted);
    let mut i = inputs(&cmd, args, outcome, failure.as_ref());
    i.elapsed_s = t0.elapsed().as_secs_f64();
    i.cpu = Some(cpu);
    i.devices = devices;
    let r = result::build(i);
    if let (Err(e), Some(p)) = (outs.write_json(&r), outs.json_path()) {
        eprintln!("iomark run: cannot write --json={}: {e}", p.display());
    }
    if failure.is_none() {
        match outs.write_plots(&r) {
            Ok(files) => files
                .iter()
                .for_each(|f| eprintln!("iomark: wrote {}", f.display())),
            Err(e) => {
                eprintln!("iomark run: {e}");
                return crate::exit::ENVIRONMENT;
            }
        }
    }
    if let Some(e) = failure {
        eprintln!("iomark run: {e}");
        return e.exit_code();
    }
    if let Err(e) = outs.write_texts(&r) {
        eprintln!("iomark run: {e}");
        return crate::exit::ENVIRONMENT;
    }
    if interrupted {
        eprintln!(
            "iomark run: {}",
            interrupted_line(&r.jobs, cmd.output.as_deref())
        );
    }
    finish(&r, &signals)
}

/// The outputs of a run, created before it: `--json`, `--plot`, then the fio report
/// for stdout or `--output` (fio 3.33's order whatever the list's: the JSON document,
/// then, after one empty line, which starts fio's normal text, the human summary).
fn outputs(cmd: &fio::FioCommand) -> Result<Outputs, String> {
    let mut o = Outputs::new();
    if let Some(p) = &cmd.json_file {
        o.json(p)
            .map_err(|e| format!("cannot write --json={}: {e}", p.display()))?;
    }
    if let Some(d) = &cmd.plot {
        o.plots(d)?;
    }
    let fmt = cmd.output_format;
    let mut reps: Vec<Box<dyn Reporter>> = Vec::new();
    if fmt.json {
        reps.push(Box::new(FioJson {
            plus: fmt.json_plus,
        }));
    }
    if fmt.normal {
        reps.push(Box::new(FioText));
    }
    match &cmd.output {
        Some(p) => o.file("--output", p, reps, "\n")?,
        None => o.stdout(reps, "\n"),
    }
    Ok(o)
}

/// The builder's inputs of a run: its status (interrupted; failed with the first job
/// failure, the first error continued past, or the error that stopped it), the jobs'
/// records and samples, the summary and fio's global options.
fn inputs(
    cmd: &fio::FioCommand,
    args: &[String],
    outcome: Option<runner::RunOutcome>,
    failure: Option<&runner::RunError>,
) -> result::Inputs {
    let jobs = outcome.as_ref().map_or(&[][..], |o| o.jobs.as_slice());
    let (status, error) = match failure {
        Some(e) => (Status::Failed, Some(e.to_string())),
        None if outcome.as_ref().is_some_and(|o| o.interrupted) => (Status::Interrupted, None),
        None if jobs.iter().any(|j| j.stats.failure.is_some()) => (
            Status::Failed,
            jobs.iter().find_map(|j| j.stats.failure.clone()),
        ),
        None if jobs.iter().any(|j| j.stats.errors > 0) => (
            Status::Failed,
            jobs.iter().find_map(|j| j.stats.first_error.clone()),
        ),
        None => (Status::Ok, None),
    };
    let mut i = result::Inputs::new("run", args, status);
    i.error = error;
    i.summary = JobInfo::of_fio(cmd, jobs.first().map(|j| j.engine.as_str()));
    i.global_options = cmd.global_options.clone();
    i.sample_period_s = runner::PLOT_PERIOD.as_secs_f64();
    i.recorded = Recorded::Fio(vec![]);
    if let Some(o) = outcome {
        i.intervals = o.intervals;
        i.samples = o.samples;
        i.recorded = Recorded::Fio(o.jobs);
    }
    i
}

/// The exit code after the report: jobs that failed (I/O error, verify mismatch,
/// ratemin, latency_target) have their report above (fio's `err=`), the reason here,
/// and the run exits 1; so do errors continued past (`continue_on_error`).
fn finish(r: &result::RunResult, signals: &Signals) -> i32 {
    let mut failed = false;
    for f in r.jobs.iter().filter_map(|j| j.failure.as_deref()) {
        eprintln!("iomark run: {f}");
        failed = true;
    }
    if failed {
        return signals.exit_code().unwrap_or(crate::exit::FAILED);
    }
    let errors: u64 = r.jobs.iter().map(|j| j.errors).sum();
    if errors > 0 {
        let first = r
            .jobs
            .iter()
            .find_map(|j| j.first_error.clone())
            .unwrap_or_default();
        eprintln!(
            "iomark run: {errors} I/O error(s) continued past (continue_on_error); first: {first}"
        );
        return signals.exit_code().unwrap_or(crate::exit::FAILED);
    }
    signals.exit_code().unwrap_or(crate::exit::OK)
}

/// The stderr line of an interrupted run: it points at the report only when one was
/// written (no job report exists when the signal came before any job ran, e.g. during
/// file layout).
fn interrupted_line(
    jobs: &[crate::result::JobResult],
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
        let one = vec![crate::result::JobResult::default()];
        assert!(interrupted_line(&one, None).contains("report above"));
        assert!(
            interrupted_line(&one, Some(std::path::Path::new("r.txt"))).contains("report in r.txt")
        );
    }
}
