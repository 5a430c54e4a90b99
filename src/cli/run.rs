//! `iomark run`: fio command-line jobs and job files → [`crate::job::fio`] → runner →
//! fio-like text or fio JSON (to stdout, or `--output=FILE`), plus iomark's RunResult
//! (`--json=FILE`). Front end only: parsing, dispatch and exit codes. With
//! `--output-format=json` stdout carries the JSON document and nothing else; with a list
//! such as `normal,json` the document comes first, then an empty line and the text (as
//! fio 3.33); notices always go to stderr.

use crate::cli::output::Outputs;
use crate::cli::run_front::{Persona, FIO_VERSION};
use crate::job::fio;
use crate::report::fio::idle::{IdleJson, IdleText};
use crate::report::fio::json::FioJson;
use crate::report::fio::terse::{FioTerse, Then};
use crate::report::fio::text::FioText;
use crate::report::Reporter;
use crate::result::{self, JobInfo, Recorded, RunResult, Status};
use crate::run::fio as runner;
use crate::run::signals::Signals;
use crate::util::error::{exit, Error, Exit};

/// The word error lines start with: `iomark run`, or `fio` under the fio persona (fio's
/// own lines start `fio: `), set once by [`run_as`].
static TAG: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// The program's name in lines outside a command's own (`fio` under the fio persona,
/// else `iomark`): the stdout write error of src/cli/mod.rs.
pub(crate) fn program_tag() -> &'static str {
    match TAG.get() {
        Some(&t) if t == Persona::Fio.tag() => "fio",
        _ => "iomark",
    }
}

/// The word of this run's error lines ([`TAG`]).
fn tag() -> &'static str {
    TAG.get().copied().unwrap_or(Persona::Iomark.tag())
}

/// One error line on stderr, `TAG: message` ([`TAG`]), for the lines after a report.
macro_rules! error_line {
    ($($a:tt)*) => {
        // formatted first, then written in one call: stderr is unbuffered, and under
        // mpirun other ranks' lines would land between the pieces
        eprint!("{}", format!("{}: {}\n", tag(), format_args!($($a)*)))
    };
}

/// The error that stops the run: one line `TAG: why` ([`TAG`]) and its exit code.
fn stop(code: i32, why: impl std::fmt::Display) -> Error {
    Error::new(code, format!("{}: {why}", tag()))
}

/// Run `iomark run` with `args` (after the word `run`).
pub fn run(args: &[String]) -> Exit {
    run_as(args, Persona::Iomark)
}

/// Run iomark invoked as `fio` with `args` (everything after the program name).
pub fn fio(args: &[String]) -> Exit {
    run_as(args, Persona::Fio)
}

/// The command line read: the jobs, `--showcmd`, the many-hosts options and the words
/// kept (without those two); or the answer when there is nothing to run (`--help`,
/// `--version`, no job under the fio persona).
type Read = (fio::FioCommand, bool, crate::ranks::Options, Vec<String>);

fn read_command(args: &[String], persona: Persona) -> Result<Read, Exit> {
    let refused = |e: fio::FioError| Err(refusal(e, args, persona));
    // fio's getopt: -KEY, --KEY VALUE, abbreviations, short letters → --KEY[=VALUE]
    let words = fio::getopt::canonical(args, persona == Persona::Fio).map_err(refused)?;
    // the words after a `--` are job files, whatever they look like
    let (args, after_end) = fio::getopt::split_at_end(&words);
    if let Some(done) = crate::cli::run_front::front(args, persona) {
        return Err(done);
    }
    // --showcmd: print the effective options as one command line, run nothing (C10)
    let showcmd = args.iter().any(|a| a == "--showcmd");
    let parse_only = args.iter().any(|a| a == "--parse-only");
    let (many, kept) =
        crate::ranks::split_options(args).map_err(|e| Err(stop(exit::INVALID, e)))?;
    // (`--daemonize`, which the fio persona ignores as fio 3.33 does without a server:
    // cli/run_front.rs)
    let daemonize = |a: &str| a == "--daemonize" || a.starts_with("--daemonize=");
    let mut kept: Vec<String> = kept
        .into_iter()
        .filter(|a| *a != "--showcmd" && !(persona == Persona::Fio && daemonize(a)))
        .collect();
    if words.len() > args.len() {
        kept.push("--".into());
        kept.extend_from_slice(after_end);
    }
    let setup_errors = persona == Persona::Fio;
    let cmd = match fio::parse_args_as(&kept, &|v| std::env::var(v).ok(), setup_errors) {
        // fio 3.33's `--showcmd` of job files none of whose sections is a job: the
        // globals it read
        Err(fio::FioError::NoJobs(_, lines)) if persona == Persona::Fio && showcmd => {
            lines.iter().for_each(|l| crate::out!("{l}\n"));
            return Err(Ok(exit::OK));
        }
        Err(fio::FioError::NoJobs(..)) if persona == Persona::Fio => {
            let quiet = showcmd || parse_only;
            return Err(crate::cli::run_front::no_jobs(quiet));
        }
        parsed => parsed.map_err(refused)?,
    };
    Ok((cmd, showcmd, many, kept))
}

/// The input refused while the options are read: iomark's line and exit 2; under the
/// fio persona fio 3.33's lines where fio words the refusal alike (src/cli/fio_refusal.rs)
/// and fio's exit 1 for every refusal.
fn refusal(e: fio::FioError, raw: &[String], persona: Persona) -> Error {
    if persona != Persona::Fio {
        return stop(persona.refused(), e);
    }
    let argv0 = std::env::args().next().unwrap_or_else(|| "fio".into());
    let added = |jobs: &[(fio::FioJob, u32)], global: &[(String, String)]| -> String {
        jobs.iter()
            .map(|(job, groupid)| {
                let j = result::job::EffectiveJob::of_fio(job, 0, 0, 0);
                crate::report::fio::header::added_line(&j, *groupid, global)
            })
            .collect()
    };
    // the section lines fio printed of the jobs it added before the refusal
    let (e, output) = match e {
        fio::FioError::AfterJobs {
            said,
            output,
            global,
            error,
        } => {
            crate::out!("{}", added(&said, &global));
            (
                *error,
                output.map(|(path, filed)| (path, added(&filed, &global))),
            )
        }
        // getopt's refusal: fio had opened an `--output` given before the word
        e => {
            let output = crate::cli::fio_refusal::output_before(&e, raw);
            (e, output.map(|p| (p, String::new())))
        }
    };
    let stdout = crate::cli::fio_refusal::fio_stdout(&e);
    let lines = crate::cli::fio_refusal::fio_lines(&e, &argv0, raw);
    match output {
        // fio's `--output` file holds its section lines, the refusal's stdout text and
        // its lines (log_err writes there as well as on stderr; getopt's own first line
        // only on stderr)
        Some((path, mut text)) => {
            text += stdout.as_deref().unwrap_or("");
            let getopt = crate::cli::fio_refusal::getopt_lines(&e);
            for l in lines.iter().flatten().skip(getopt) {
                text += &format!("{l}\n");
            }
            let _ = std::fs::write(path, text);
        }
        None => {
            if let Some(text) = stdout {
                crate::out!("{text}");
            }
        }
    }
    match lines {
        Some(lines) => Error::lines(persona.refused(), lines),
        None => stop(persona.refused(), e),
    }
}

/// fio's stdout lines said while it read the jobs (`fio: opendir added N files`), with
/// `--output`: they stay on stdout, the report's file keeps only the report (without
/// `--output` the header prints them, [`headed`]).
fn say_fio_info(cmd: &fio::FioCommand) {
    if cmd.output.is_some() {
        let jobs = cmd.jobs.iter().flat_map(|j| &j.said_lines);
        for l in cmd.fio_info.iter().chain(jobs) {
            crate::out!("{l}\n");
        }
    }
}

fn run_as(args: &[String], persona: Persona) -> Exit {
    let _ = TAG.set(persona.tag());
    let (mut cmd, showcmd, many, kept) = match read_command(args, persona) {
        Ok(r) => r,
        Err(done) => return done,
    };
    let args = kept.as_slice();
    cmd.job_setup_errors = persona == Persona::Fio;
    if cmd.live && !(cmd.parse_only || showcmd) {
        crate::cli::live::need_terminal(tag())?;
    }
    debug_start(&cmd);
    let session = place_ranks(&mut cmd, many)?;
    let loud = cmd.notes.unwrap_or(persona == Persona::Iomark);
    // the `--live` view draws from the run's samples
    cmd.sample = persona == Persona::Iomark || cmd.live;
    let idle = crate::report::fio::idle::Shared::default();
    say_fio_info(&cmd);
    let Some(outs) = before_running(&cmd, showcmd, loud, persona, &idle)? else {
        return Ok(exit::OK);
    };
    let signals = Signals::install();
    crate::ranks::arm(&signals.stop);
    let lead_said = std::sync::atomic::AtomicBool::new(false);
    let front = Front {
        args,
        outs: &outs,
        persona,
        rank0: session.is_none_or(|s| s.rank == 0),
        many: session.is_some(),
        lead_said: &lead_said,
    };
    let ran = run_watched(&cmd, &signals, loud, &idle, &front, session);
    let interrupted = ran.outcome.as_ref().is_some_and(|o| o.interrupted);
    let failure = ran.failure;
    let r = run_result(&cmd, args, ran.outcome, failure.as_ref(), ran.around);
    // an output that could not be written at the end: one line each, and exit 1
    // unless the run already ends with another code
    // a job refused before any I/O (invalid input, exit 2, e.g. an output that is one of
    // the data files) writes no result: nothing ran, and the named files stay as they were
    let refused = matches!(failure, Some(runner::RunError::Plan { .. }));
    let mut lost = ran.agg_lost || (!refused && !save_run_result(&outs, &r, failure.is_none()));
    // the results history: a completed run, said on stderr (never the report's stdout);
    // kept only when it is said (not under the quiet fio persona: fio keeps nothing)
    let kept = crate::cli::output::keep_history(&r, !cmd.no_history && loud);
    if let Some(e) = failure {
        kept.iter().for_each(|l| eprintln!("{l}"));
        // no report: an `--output` file made empty at the start goes again
        outs.remove_unwritten_files();
        if let Some(line) = fio_setup_line(&e, persona) {
            return Err(Error::lines(persona.refused(), vec![line]));
        }
        return Err(stop(failure_code(&e, persona), e));
    }
    if !lead_said.load(std::sync::atomic::Ordering::Relaxed) {
        // no header before the run (it stopped before any I/O, or `iomark run`)
        say_before_run(&cmd, &outs, &r, &lead_said);
    }
    if let Err((opt, e)) = outs.write_texts(&r) {
        error_line!("{}", crate::cli::output::cannot_write(&opt, &e.path, &e));
        lost = true;
    }
    // after the report: the truth warnings of a run that did its I/O (a refused or
    // failed setup has one line, its reason); under MPI rank 0's, for the aggregate
    // (each rank's own result stays in `ranks.per_rank`)
    if loud && front.rank0 {
        notes_after_report(&r);
    }
    kept.iter().for_each(|l| eprintln!("{l}"));
    Ok(exit_status(
        (&cmd, persona),
        &r,
        interrupted,
        &signals,
        lost,
    ))
}

/// What the jobs' run left: their outcome or the error that stopped them, the
/// measurements around the run, and whether `--bandwidth-log`'s files were lost.
struct Ran {
    outcome: Option<runner::RunOutcome>,
    failure: Option<runner::RunError>,
    around: runner::Around,
    agg_lost: bool,
}

/// Run the jobs with the watchers beside them (triggers, `--idle-prof`: cli/run_watch.rs),
/// write `--bandwidth-log`'s files and tell the other ranks how the run went. A run
/// stopped by another rank (`--mpi-stonewall`, a failed rank) or by a trigger is no
/// interruption.
fn run_watched(
    cmd: &fio::FioCommand,
    signals: &Signals,
    loud: bool,
    idle: &crate::report::fio::idle::Shared,
    front: &Front<'_>,
    session: Option<&crate::ranks::Session>,
) -> Ran {
    let note = |m: String| {
        if loud {
            eprintln!("{m}")
        }
    };
    let root = crate::probe::Root::default();
    let beside = crate::cli::run_watch::start(cmd, &signals.stop, &root);
    let (res, around, agg) = execute(cmd, signals, &note, &root, front);
    let agg_lost = !write_agg_logs(agg);
    let fired = beside.finish(&root, idle);
    crate::ranks::ended(res.as_ref().map_or(true, |o| {
        o.jobs
            .iter()
            .any(|j| j.stats.failure.is_some() || j.stats.errors > 0)
    }));
    let (mut outcome, failure) = match res {
        Ok(o) => (Some(o), None),
        Err(e) => (None, Some(e)),
    };
    if let Some(o) = outcome.as_mut() {
        let peer = session.is_some_and(|s| s.stopped_by_peer());
        o.interrupted &= !(peer || fired) || signals.exit_code().is_some();
    }
    Ran {
        outcome,
        failure,
        around,
        agg_lost,
    }
}

/// The RunResult of a run (under MPI the ranks' aggregate on rank 0) with what was
/// measured around it; a run on the null engine did no I/O: no page-cache or device
/// figures to judge, and no target ceiling to be above.
fn run_result(
    cmd: &fio::FioCommand,
    args: &[String],
    outcome: Option<runner::RunOutcome>,
    failure: Option<&runner::RunError>,
    around: runner::Around,
) -> RunResult {
    let mut i = inputs(cmd, args, outcome, failure);
    i.elapsed_s = around.elapsed_s;
    i.cpu = Some(around.cpu);
    let storage = runner::touches_storage(cmd);
    i.devices = if storage { around.devices } else { vec![] };
    i.device_view = Some(around.device_view).filter(|_| storage);
    i.page_cache = Some(around.page_cache).filter(|_| storage);
    i.targets = vec![around.target];
    let mut r = crate::ranks::conclude(i);
    // above the target's ceiling: only for a run that did its I/O
    if let Some(w) = result::truth::above_ceiling(&r).filter(|_| failure.is_none() && storage) {
        r.warnings.push(w);
    }
    r
}

/// What the outputs print before the report (once, `said` raised then): the section
/// lines fio printed on stdout before an `--output` given after them took the report,
/// then each output's header lines (cli/output.rs `write_lead`: fio's header, under
/// the fio persona before the run's first I/O).
fn say_before_run(
    cmd: &fio::FioCommand,
    outs: &Outputs,
    r: &RunResult,
    said: &std::sync::atomic::AtomicBool,
) {
    if said.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    if cmd.output.is_some() {
        let early = crate::report::fio::header::said_on_stdout(r);
        if !early.is_empty() {
            crate::out!("{early}");
        }
    }
    outs.write_lead(r);
}

/// The exit code of a run that `e` stopped: its own, but under the fio persona 1 for a
/// data file that is a FIFO or socket, as fio 3.33 ends a job whose file has no size,
/// for files that do not fit the free space, as fio 3.33 fails the write that meets
/// ENOSPC, for a job's `directory=` that is missing or no directory, as fio 3.33
/// refuses it while it reads the job's options, and for an output file of the jobs refused before the run (a log file, the
/// verify state: a device), with the code of a refused `--output`, fio's
/// code for a failed run; a planted link or FIFO there is 3 as at `--output`
/// ([`unsafe_code`]) (iomark refuses all before any job runs, in its own words:
/// docs/compat/fio.md).
/// fio 3.33's own line for a job its setup_files refuses, under the fio persona (`NAME:
/// you need to specify valid offset=`, exit 1); `None` for every other failure.
fn fio_setup_line(e: &runner::RunError, persona: Persona) -> Option<String> {
    match e {
        runner::RunError::Plan { job, why }
            if persona == Persona::Fio && why == runner::plan::VALID_OFFSET =>
        {
            Some(format!("{job}: {why}"))
        }
        _ => None,
    }
}

fn failure_code(e: &runner::RunError, persona: Persona) -> i32 {
    use crate::files::dataset::FilesError;
    let fio_fails = matches!(
        e,
        runner::RunError::Files(
            FilesError::NotAFile { .. }
                | FilesError::NoSpace { .. }
                | FilesError::Output { .. }
                | FilesError::NoDirectory { .. }
        )
    );
    match (fio_fails, e) {
        (true, runner::RunError::Files(FilesError::Output { source, .. })) => {
            unsafe_code(source, persona)
        }
        (true, _) => persona.code(e.exit_code()),
        (false, _) => e.exit_code(),
    }
}

/// iomark's notes after the report, on stderr: where the time went and what the device
/// did, as the truth lines, so fio's report on stdout stays fio's.
fn notes_after_report(r: &RunResult) {
    let why = crate::report::why::lines(r);
    if !why.is_empty() {
        eprintln!("iomark notes (not part of the fio report):");
    }
    for l in why {
        eprintln!("{l}");
    }
    for l in result::truth::text_lines(r) {
        eprintln!("{l}");
    }
    if let Some(w) = r
        .warnings
        .iter()
        .find(|w| w.id == result::truth::ABOVE_CEILING)
    {
        eprintln!("iomark: {}", w.message);
    }
}

/// What the front end gives the run it starts: the words kept, the outputs, the
/// persona, whether this is rank 0 and whether the run is one of many hosts (MPI); and
/// whether the outputs' header was printed (raised by [`say_before_run`]).
struct Front<'a> {
    args: &'a [String],
    outs: &'a Outputs,
    persona: Persona,
    rank0: bool,
    many: bool,
    lead_said: &'a std::sync::atomic::AtomicBool,
}

/// Call `f` with the run's hooks into the front end and whether the status line's last
/// one is ended by the report: fio's `--status-interval` and SIGUSR1 reports (the run so far, built
/// and rendered as the final report is, by the same outputs; under MPI rank 0 reports
/// its own I/O so far, the ranks' records meet only at the end: docs/compat/fio.md);
/// the fio persona's header, as fio 3.33 prints it, once the files are laid out and
/// before the first I/O (a many-hosts run's client header waits for every host), and
/// `iomark run`'s when `--status-interval` lines will follow it; the
/// last status line is ended by the report's own empty line when the header came
/// before the run, and left so before an `--output` file (fio 3.33).
fn with_hooks<T>(
    cmd: &fio::FioCommand,
    front: &Front<'_>,
    f: impl FnOnce(runner::Hooks<'_>, &(dyn Fn() -> bool + Sync)) -> T,
) -> T {
    let (args, outs, persona) = (front.args, front.outs, front.persona);
    let status = |jobs, devices| {
        let o = runner::RunOutcome {
            jobs,
            ..runner::RunOutcome::default()
        };
        let mut i = inputs(cmd, args, Some(o), None);
        if runner::touches_storage(cmd) {
            i.devices = devices;
        }
        outs.write_status(&result::build(i));
    };
    let started = |jobs, layout_lines| {
        let o = runner::RunOutcome {
            jobs,
            layout_lines,
            ..runner::RunOutcome::default()
        };
        let r = result::build(inputs(cmd, args, Some(o), None));
        say_before_run(cmd, outs, &r, front.lead_said);
    };
    let fio = persona == Persona::Fio;
    let hooks = runner::Hooks {
        report: (status_reports(persona) && front.rank0)
            .then_some(&status as &runner::StatusReport<'_>),
        // `iomark run`'s `--status-interval` lines on stderr come after the header, as
        // fio's reports do (its header is on stdout before the first I/O)
        started: ((fio || cmd.status_interval.is_some()) && !front.many)
            .then_some(&started as &runner::Started<'_>),
        quiet: !front.rank0,
    };
    let lead_said = front.lead_said;
    let ended_by_report =
        || fio && (lead_said.load(std::sync::atomic::Ordering::Relaxed) || cmd.output.is_some());
    f(hooks, &ended_by_report)
}

/// Run the jobs, under fio's status line or, with `--live` (on rank 0), the live view
/// (src/cli/live/), which replaces the line and takes its remaining time from the same
/// status board. With `--bandwidth-log` (rank 0 only) also the aggregate bandwidth
/// samples (run/fio/agg_log.rs), with the last one a JSON report adds. `front`: what
/// the run tells the front end as it goes ([`with_hooks`]).
fn execute(
    cmd: &fio::FioCommand,
    signals: &Signals,
    note: &(dyn Fn(String) + Sync),
    root: &crate::probe::Root,
    front: &Front<'_>,
) -> (
    Result<runner::RunOutcome, runner::RunError>,
    runner::Around,
    Option<runner::agg_log::AggBw>,
) {
    let rank0 = front.rank0;
    let shown = super::run_status::wanted(cmd, rank0) && !cmd.live;
    // fio's `bw_avg_time` of the aggregate: the least of the jobs' `bwavgtime`
    let gap = cmd.jobs.iter().map(|j| j.more.bw_avg_time).min();
    let board = runner::status::Board::new(shown)
        .with_agg_bw(gap.filter(|_| cmd.fio_cli.bandwidth_log && rank0));
    let b = &board;
    let mut watch = runner::status::Watch::new();
    let remaining = move |_| {
        watch
            .snapshot(b, std::time::Instant::now())
            .and_then(|je| je.eta_s)
    };
    let (res, around) = with_hooks(cmd, front, |hooks, ended_by_report| {
        crate::cli::live::around(cmd.live && rank0, tag(), remaining, || {
            super::run_status::around(cmd.eta, b, ended_by_report, || {
                runner::execute_around(cmd, &signals.stop, note, root, b, hooks)
            })
        })
    });
    // fio's JSON report computes the status (forced): one more sample then
    let totals = res
        .as_ref()
        .ok()
        .filter(|_| cmd.output_format.json)
        .map(|o| {
            let mut t = [0u64; 3];
            for s in o.jobs.iter().map(|j| &j.stats) {
                (t[0], t[1], t[2]) = (
                    t[0] + s.read.bytes,
                    t[1] + s.write.bytes,
                    t[2] + s.trim.bytes,
                );
            }
            t
        });
    let agg = board.agg_at_report(totals).filter(|_| res.is_ok());
    (res, around, agg)
}

/// Under the fio persona `--status-interval` and SIGUSR1 are fio's: the whole report of
/// the run so far (job blocks and `Run status group` lines, the JSON document, the
/// terse lines) every interval and at each signal, on the report's output; `iomark run`
/// keeps its progress line on stderr.
fn status_reports(persona: Persona) -> bool {
    persona == Persona::Fio
}

/// Write `--bandwidth-log`'s files (fio writes them after the report); one that cannot
/// be written is said on stderr: `false` then (the run fails, exit 1, as for any output).
fn write_agg_logs(agg: Option<runner::agg_log::AggBw>) -> bool {
    match agg.map(|a| a.write()) {
        Some(Err(e)) => {
            // `--bandwidth-log` is a switch: the file is named on its own, as the check
            // before the run names it
            error_line!(
                "{}: cannot write --bandwidth-log file: {e}",
                e.path.display()
            );
            false
        }
        _ => true,
    }
}

/// `--debug=AREA…`: fio's lines for the areas read (on stdout, as fio), the areas turned
/// on for the run, and the trace of what parsing made (`parse`: every option; `job`:
/// every job) and of the areas iomark has no events for (one line saying so).
fn debug_start(cmd: &fio::FioCommand) {
    use crate::util::debug;
    let (bits, said) = &cmd.fio_cli.debug;
    if *bits == 0 {
        return;
    }
    for l in said {
        crate::out!("{l}\n");
    }
    debug::enable(*bits);
    debug::trace("parse", || {
        let opts: Vec<String> = cmd
            .global_options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("iomark: global options: {}\n", opts.join(" "))
    });
    for (i, j) in cmd.jobs.iter().enumerate() {
        debug::trace("parse", || {
            let opts: Vec<String> = j.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("iomark: job {} options: {}\n", j.name, opts.join(" "))
        });
        debug::trace("job", || {
            format!(
                "iomark: job {i} {}: rw={} numjobs={} engine={}\n",
                j.name,
                j.rw.fio_name(),
                j.numjobs,
                j.engine.name()
            )
        });
    }
    for area in debug::AREAS.iter().filter(|a| !TRACED.contains(a)) {
        debug::trace(area, || {
            "iomark: no trace points in this area (fio's internals it names have no iomark counterpart)\n".into()
        });
    }
}

/// The debug areas with trace points in iomark: parsing, jobs, job processes, files and
/// random seeds (run/fio/thread.rs), the requests and page-cache drops (`io`,
/// run/worker/fio/trace.rs, run/worker/fio/).
const TRACED: [&str; 6] = ["parse", "job", "process", "file", "random", "io"];

/// Under an MPI launch (src/ranks/): start the session, give every job its rank's
/// directory (`DIR/rank.N/`; a job with an absolute `filename=` is refused, it would be
/// shared by every rank), and keep the outputs to rank 0.
fn place_ranks(
    cmd: &mut fio::FioCommand,
    many: crate::ranks::Options,
) -> Result<Option<&'static crate::ranks::Session>, Error> {
    let s = match crate::ranks::begin("run", many) {
        Ok(Some(s)) => s,
        Ok(None) => return Ok(None),
        Err(line) => return Err(Error::new(exit::ENVIRONMENT, line)),
    };
    for j in &mut cmd.jobs {
        if let Some(f) = j.filenames().into_iter().find(|f| f.starts_with('/')) {
            return Err(stop(exit::INVALID, format!("job {}: filename={f} would be shared by every rank; under MPI use directory= (each rank works in DIR/rank.N/)", j.name)));
        }
        // each directory of the list (the current one without it) gets its rank.N
        if j.directory.is_empty() {
            j.directory.push(".".into());
        }
        for base in &mut j.directory {
            *base = s
                .dir(base)
                .map_err(|e| stop(exit::ENVIRONMENT, format!("job {}: {e}", j.name)))?;
        }
    }
    if s.rank != 0 {
        (cmd.json_file, cmd.output, cmd.plot) = (None, None, None);
    }
    Ok(Some(s))
}

/// After parsing, before any job runs: `--warnings-fatal`, `--showcmd`, `--parse-only`,
/// the outputs created up front ([`outputs`]) and the parse notices (on stderr when
/// `loud`, see [`Persona`]; fio's own stderr lines always). `None`: the command is done (exit 0) without running.
fn before_running(
    cmd: &fio::FioCommand,
    showcmd: bool,
    loud: bool,
    persona: Persona,
    idle: &crate::report::fio::idle::Shared,
) -> Result<Option<Outputs>, Error> {
    // what fio itself prints on stderr while reading the jobs, under either persona
    for l in &cmd.fio_stderr {
        eprintln!("{l}");
    }
    if cmd.warnings_fatal && !cmd.notices.is_empty() {
        let stop = stop(
            exit::INVALID,
            "--warnings-fatal: the warning above ends the run",
        );
        let lines = cmd
            .notices
            .iter()
            .map(ToString::to_string)
            .chain(stop.lines)
            .collect();
        return Err(Error::lines(exit::INVALID, lines));
    }
    if showcmd {
        // fio's form ends each of its lines itself, and has none for a command line alone
        let text = match persona {
            Persona::Fio => crate::job::fio::showcmd::showcmd_fio(cmd),
            Persona::Iomark => format!("{}\n", crate::job::fio::showcmd::showcmd(cmd)),
        };
        crate::out!("{text}");
        return Ok(None);
    }
    let print_notices = || {
        for n in cmd.notices.iter().filter(|_| loud) {
            eprintln!("{n}");
        }
    };
    if cmd.parse_only || cmd.fio_cli.merge_blktrace_only {
        // parse warnings are part of parsing; the report would be the only stdout
        print_notices();
        // fio 3.33 says the error of a job whose include it could not open as it lets
        // the job go (init.c put_job)
        for e in cmd.jobs.iter().filter_map(|j| j.include_errno) {
            crate::outln!(
                "fio: file:init.c:1956, func=job file open, error={}",
                crate::files::strerror(e)
            );
        }
        return Ok(None);
    }
    let outs = outputs(cmd, persona, loud, idle)?;
    print_notices();
    Ok(Some(outs))
}

/// The outputs of a run, before any I/O: `--json` and `--output` checked (absent or a
/// regular file with one link, in a directory that takes a new file), the `--plot`
/// directory made, then the `--json` write rehearsed aside, so a bad path ends the run
/// with exit 3 and nothing written (`--output` keeps its old content until the report
/// replaces it). The report is fio 3.33's, in fio's order whatever the list's: the JSON
/// document, then, after one empty line, which starts fio's normal text, the summary.
fn outputs(
    cmd: &fio::FioCommand,
    persona: Persona,
    loud: bool,
    idle: &crate::report::fio::idle::Shared,
) -> Result<Outputs, Error> {
    let fail = |opt: &str, e: crate::files::output::OutputError| {
        stop(
            e.exit_code(),
            crate::cli::output::cannot_write(opt, &e.path, &e),
        )
    };
    // two names of one file (a path spelled twice, a hard link) are said as such before
    // the link rule of each output refuses one of them
    let named = output_files(cmd);
    // an output over a job file read would replace the job with its report
    let inputs: Vec<_> = cmd
        .job_files
        .iter()
        .map(|f| ("job file".to_string(), f.clone()))
        .collect();
    // (fio 3.33 exits 1 there, after replacing the job file)
    crate::files::output::refuse_collisions(&named, &inputs)
        .map_err(|e| stop(persona.refused(), e))?;
    runner::refuse_outputs_as_data(cmd, &named).map_err(|e| stop(exit::INVALID, e))?;
    let mut o = Outputs::new();
    if let Some(p) = &cmd.json_file {
        o.json(p).map_err(|e| fail("--json", e))?;
    }
    let reps = reporters(cmd, persona, loud, idle);
    // `--output=/dev/stdout`, `/dev/stderr`, `/dev/null` or `-`, as scripts give fio:
    // the stream itself (or nothing), as for every command's outputs (cli/output.rs)
    match &cmd.output {
        None => o.stdout(reps, "\n"),
        Some(p) => o
            .file("--output", p, reps, "\n")
            .map_err(|e| output_refused(e, persona))?,
    }
    if let Some(d) = &cmd.plot {
        o.plots(d).map_err(|(code, e)| stop(code, e))?;
    }
    o.rehearse().map_err(|e| fail("--json", e))?;
    // the fio persona's `--output` file exists from here on, as fio 3.33's does from its
    // command line on; one already there keeps its old content until the report replaces
    // it (fio empties it: docs/compat/fio.md)
    if persona == Persona::Fio {
        o.create_absent_files()
            .map_err(|(_, e)| output_refused(e, persona))?;
    }
    Ok(o)
}

/// The `--output` file that cannot be taken. fio opens `--output` as it reads the
/// command line: what it cannot open is `output file open error: TEXT` and exit 1; what
/// fio would write through (a link, a device, a FIFO) iomark still refuses in its own
/// words, with fio's code.
fn output_refused(e: crate::files::output::OutputError, persona: Persona) -> Error {
    if persona != Persona::Fio || e.stage != crate::files::output::Stage::Check {
        return stop(
            e.exit_code(),
            crate::cli::output::cannot_write("--output", &e.path, &e),
        );
    }
    // a directory that refuses the new file (read-only, no permission) is fopen's
    // error too; a link's ELOOP is not: fio would have written through it
    let denied = e
        .errno
        .filter(|n| matches!(*n, libc::EACCES | libc::EPERM | libc::EROFS));
    match crate::files::output::fopen_errno(&e.path).or(denied) {
        Some(n) => stop(
            persona.code(e.exit_code()),
            format!("output file open error: {}", crate::util::strerror(n)),
        ),
        // a planted link or FIFO: exit 3 as a link at a data file the persona names
        None => stop(
            unsafe_code(&e, persona),
            crate::cli::output::cannot_write("--output", &e.path, &e),
        ),
    }
}

/// The exit code of an output refused before the run: under the fio persona fio's 1
/// (fio fails a run whose output it cannot use), but for a planted symbolic or hard link
/// or a FIFO, which fio 3.33 writes through (exit 0) and which every command and the
/// persona's data files refuse with 3 (`files::output::planted`; tests
/// `safety::hazards::persona`).
fn unsafe_code(e: &crate::files::output::OutputError, persona: Persona) -> i32 {
    let planted =
        e.stage == crate::files::output::Stage::Check && crate::files::output::planted(&e.path);
    match planted {
        true => e.exit_code(),
        false => persona.code(e.exit_code()),
    }
}

/// The report's formats as `--output-format` lists them, in fio 3.33's order whatever
/// the list's: the terse lines, the JSON document, the normal text; the first under
/// fio's header ([`headed`]). `--idle-prof` adds its section to the JSON document and
/// the text.
fn reporters(
    cmd: &fio::FioCommand,
    persona: Persona,
    loud: bool,
    idle: &crate::report::fio::idle::Shared,
) -> Vec<Box<dyn Reporter>> {
    let fmt = cmd.output_format;
    // fio's clients compare the version; iomark's own stays in the RunResult
    let version = match persona {
        Persona::Fio => FIO_VERSION.to_string(),
        Persona::Iomark => FioJson::iomark_version(),
    };
    let mut reps: Vec<Box<dyn Reporter>> = Vec::new();
    let profiled = cmd.fio_cli.idle_prof.is_some();
    if fmt.json {
        let json = Box::new(FioJson {
            plus: fmt.json_plus,
            version: version.clone(),
        });
        reps.push(match profiled {
            true => Box::new(IdleJson(json, idle.clone())),
            false => json,
        });
    }
    if fmt.terse {
        // fio's terse lines come before the JSON document, with nothing between
        let terse: Box<dyn Reporter> = Box::new(FioTerse {
            version: cmd.fio_cli.terse_version,
            fio_version: version.clone(),
        });
        match fmt.json {
            true => {
                let json = reps.remove(0);
                reps.insert(0, Box::new(Then(terse, json)));
            }
            false => reps.insert(0, terse),
        }
    }
    if fmt.normal {
        reps.push(match profiled {
            true => Box::new(IdleText(Box::new(FioText { notes: loud }), idle.clone())),
            false => Box::new(FioText { notes: loud }),
        });
    }
    if !reps.is_empty() {
        // fio's header lines come first, before the terse lines and the JSON document
        // too; a JSON-only output starts with the jobs' setup lines alone
        let body = reps.remove(0);
        reps.insert(0, headed(cmd, persona, version, body));
    }
    reps
}

/// fio's header over the report's first format `body`: the version line, the jobs'
/// lines and, under the fio persona, said once before the run's first I/O.
fn headed(
    cmd: &fio::FioCommand,
    persona: Persona,
    version: String,
    body: Box<dyn Reporter>,
) -> Box<dyn Reporter> {
    let fmt = cmd.output_format;
    Box::new(crate::report::fio::header::Headed {
        body,
        version,
        blank: !fmt.json && !fmt.terse,
        full: fmt.normal,
        // the fio persona's header is said once, before the run's first I/O, and so is
        // `iomark run`'s when `--status-interval` lines follow it on stderr
        said: (persona == Persona::Fio || cmd.status_interval.is_some()).then(Default::default),
        stopped_by: (persona == Persona::Fio).then_some(fio_stop_signal as fn() -> _),
        // fio writes the lines it says on stderr into `--output` too; the lines it says
        // on stdout while it reads the jobs (opendir's count) come before the header
        // there, and stay on stdout with `--output` ([`say_fio_info`])
        fio_lines: match &cmd.output {
            Some(_) => cmd.fio_output.clone(),
            None => cmd.fio_info.clone(),
        },
        // fio's job threads print on stdout only, never into `--output`
        threads: cmd.output.is_none(),
        before_documents: persona == Persona::Fio,
        ends_said: Default::default(),
    })
}

/// The files a run writes for the user, each with its option (`--json`, `--output`):
/// checked against each other here and against the data files before layout.
pub fn output_files(cmd: &fio::FioCommand) -> Vec<crate::files::output::Named> {
    let json = cmd
        .json_file
        .iter()
        .map(|p| ("--json".to_string(), p.clone()));
    let out = cmd
        .output
        .iter()
        .map(|p| ("--output".to_string(), p.clone()));
    json.chain(out).collect()
}

/// The RunResult of the run (`--json`) and, when the run ended with a report, its
/// charts (`--plot`); `false` when one of them could not be written (its line is on
/// stderr).
fn save_run_result(outs: &Outputs, r: &RunResult, charts: bool) -> bool {
    let mut written = true;
    if let (Err(e), Some(p)) = (outs.write_json(r), outs.json_path()) {
        error_line!("{}", crate::cli::output::cannot_write("--json", p, &e));
        written = false;
    }
    if charts {
        match outs.write_plots(r) {
            Ok(files) => files
                .iter()
                .for_each(|f| eprintln!("iomark: wrote {}", f.display())),
            Err(e) => {
                error_line!("{e}");
                written = false;
            }
        }
    }
    written
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
    i.recorded = Recorded::fio(vec![]);
    if let Some(o) = outcome {
        i.intervals = o.intervals;
        i.samples = o.samples;
        i.sample_period_s = o.sample_period_s;
        i.sample_sources = o.sample_sources;
        i.layout_lines = o.layout_lines;
        i.recorded = Recorded::fio(o.jobs);
    }
    i
}

/// The SIGINT or SIGTERM that stopped the run, if one did: fio 3.33 says so on its
/// report's stream (`fio: terminating on signal N`) and exits 128.
fn fio_stop_signal() -> Option<i32> {
    crate::run::signals::received()
        .map(|code| code - 128)
        .filter(|&s| s == libc::SIGINT || s == libc::SIGTERM)
}

/// The exit code after the report: an interruption says so; jobs that failed (I/O
/// error, verify mismatch, ratemin, latency_target) have their report above (fio's
/// `err=`), the reason here, and exit 1, as do errors continued past and an output
/// that could not be written (`lost`).
fn exit_status(
    (cmd, persona): (&fio::FioCommand, Persona),
    r: &RunResult,
    interrupted: bool,
    signals: &Signals,
    lost: bool,
) -> i32 {
    // fio's own stop: its line was printed with the report, no other is
    let fio_stop = persona == Persona::Fio && fio_stop_signal().is_some();
    if interrupted && !fio_stop {
        let what = interrupted_line(&r.jobs, cmd.output.as_deref());
        let code = signals.exit_code().unwrap_or(exit::SIGINT);
        error_line!("{}", crate::run::signals::interrupted_by(code, &what));
    }
    let loud = cmd.notes.unwrap_or(persona == Persona::Iomark);
    let code = exit_code_of(r, (persona, loud), signals, lost);
    match fio_stop {
        // fio's exit value
        true if code == signals.exit_code().unwrap_or(-1) => FIO_STOPPED,
        _ => code,
    }
}

/// fio 3.33's exit value after a SIGINT or SIGTERM (backend.c sig_int).
const FIO_STOPPED: i32 = 128;

/// The exit code by the jobs' failures and errors, the outputs and the stop signal.
/// Under the fio persona the code of failed jobs is fio 3.33's exit value: one for each
/// job thread that ended in error (backend.c `exit_value++` as each is reaped, a failed
/// setup too: those were said while they were set up, run/fio/setup.rs), as the process
/// exit status, modulo 256 (fio's 256 failed threads exit 0; iomark's stays at least
/// 1). `iomark run` exits 1 (`exit::FAILED`) however many failed: its 2 and 3 mean bad
/// input and an environment that cannot do it. A thread's failure that the fio persona
/// said in fio's words as it happened (`ThreadFailure::noted`) is said again in iomark's
/// only with the notes on (`loud`).
fn exit_code_of(
    r: &RunResult,
    (persona, loud): (Persona, bool),
    signals: &Signals,
    lost: bool,
) -> i32 {
    for j in &r.jobs {
        match j.failure.as_deref() {
            // each thread's failure, then the requests that failed as it wound down
            Some(_) if !j.failure_said && !j.thread_failures.is_empty() => {
                for t in &j.thread_failures {
                    let skip = usize::from(t.noted && !loud);
                    for f in t.lines.iter().skip(skip) {
                        error_line!("{f}");
                    }
                }
            }
            Some(f) if !j.failure_said => error_line!("{f}"),
            _ => {}
        }
    }
    // (a failure a record holds without its count is one)
    let any = r.jobs.iter().any(|j| j.failure.is_some());
    let failed = r
        .jobs
        .iter()
        .map(|j| j.failed_threads)
        .sum::<u32>()
        .max(u32::from(any));
    if failed > 0 {
        let code = match (persona, failed % 256) {
            (Persona::Fio, n) if n > 0 => n as i32,
            _ => exit::FAILED,
        };
        return signals.exit_code().unwrap_or(code);
    }
    let errors: u64 = r.jobs.iter().map(|j| j.errors).sum();
    if errors > 0 {
        let first = r
            .jobs
            .iter()
            .find_map(|j| j.first_error.clone())
            .unwrap_or_default();
        error_line!("{errors} I/O error(s) continued past (continue_on_error); first: {first}");
        return signals.exit_code().unwrap_or(exit::FAILED);
    }
    let done = if lost { exit::FAILED } else { exit::OK };
    signals.exit_code().unwrap_or(done)
}

/// What the stderr line of an interrupted run says: it points at the report only when one was
/// written (no job report exists when the signal came before any job ran, e.g. during
/// file layout).
fn interrupted_line(jobs: &[crate::result::JobResult], output: Option<&std::path::Path>) -> String {
    match output {
        _ if jobs.is_empty() => {
            "stopped before any job ran (during file layout or setup); no job report".into()
        }
        Some(p) => format!(
            "the report in {} covers the I/O completed before the signal",
            p.display()
        ),
        None => "the report above covers the I/O completed before the signal".into(),
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
