//! `iomark mark`: CrystalDiskMark/KDiskMark-style one-command drive scores.
//!
//! This module owns the running: preflight, the test directory, each test's loops as
//! fileio jobs, Ctrl-C and the exit code. The presets, their expansion into tests and
//! each test's fileio job are in job/presets.rs; the figures, the loop median and the result's inputs in
//! `mark/report.rs`; the outputs (`--json`, `--plot`, the table of report/mark_table.rs)
//! are declared, rendered and written by its front end, cli/mark.rs, through the hook
//! [`Emit`]. It measures nothing itself:
//! every test is an ordinary fileio job (one test file of `--size` rounded down to
//! whole 1 MiB blocks, the same for every test; O_DIRECT, incompressible data,
//! time-based), built in memory and run by [`crate::run::sysbench::run_for_result`] —
//! the path `iomark fileio` takes — with a silent console, which hands its `RunResult`
//! back in memory (no file, no command line). That keeps the numbers identical to what
//! `iomark fileio` reports for the same job.
//!
//! Differences from KDiskMark, on purpose:
//! tests are time-based (not size-capped), MB/s is decimal (1 MB = 1,000,000 B) and
//! MiB/s is shown beside it, and the median of the loops is reported (best and worst are
//! kept in the result). Latency is measured per I/O, submission to completion: Q1 tests
//! run with `pread`/`pwrite` (the event latency is the I/O's); for QD > 1 (io_uring)
//! the fileio event is only the submission (sysbench semantics), so mark reads the
//! per-I/O completion latency fileio records beside it (`RunResult::clat`).
//!
//! Safety: the test file lives in a new directory `PATH/iomark-mark.<pid>` that is
//! removed afterwards, also after an error or Ctrl-C (a second Ctrl-C exits at once).

use crate::files::leftover::{MARK_DIR, MARK_FILES};
use crate::files::scratch::{Scratch, ScratchError};
use crate::job::sysbench::Fileio;
use crate::probe::diagnosis::{diagnose, Diagnosis, Inputs};
use crate::probe::Root;
use crate::result::{self, RunResult, Status, Warning};
use crate::run::copy::MarkBar;
use crate::run::signals::Signals;
use crate::util::console::Console;
use crate::util::error::exit;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use crate::job::presets::*;

mod report;
pub use report::{inputs, measured, median, phase_of, result, target_line, Measured, Row};

/// What `mark` writes and shows beyond its own lines, given by its front end (cli/mark.rs,
/// with report/'s table and charts and the output manager): each is said on stderr when
/// it fails (`iomark mark: …`), so the run only decides when.
pub trait Emit {
    /// Declare `--json` (checked; its write rehearsed later by [`Emit::rehearse`]),
    /// `--plot` (the directory made) and the table on stdout, before the test directory
    /// is created; `Err`: the exit code of a refused output.
    fn declare(&mut self, job: &MarkJob) -> Result<(), i32>;
    /// Rehearse the `--json` write aside (the file keeps its old content); `Err`: the
    /// exit code.
    fn rehearse(&self) -> Result<(), i32>;
    /// The table of `r` on stdout (its rows: the tests that finished).
    fn table(&self, r: &RunResult);
    /// Write `r` into `--json` (nothing without it); whether it was written.
    fn save_json(&self, r: &RunResult) -> bool;
    /// Write the charts of one test's median loop `r` into `dir`: the files written, or
    /// the reason none could be.
    fn plots(&self, r: &RunResult, dir: &Path) -> Result<Vec<PathBuf>, String>;
    /// Keep a completed `r` in the results history (`on`: no `--no-history`): the line
    /// saying so.
    fn keep_history(&self, r: &RunResult, on: bool) -> Option<String>;
    /// The hook of the tests' fileio jobs (they declare no outputs: their results stay
    /// in memory).
    fn fileio(&mut self) -> &mut dyn crate::run::sysbench::Emit;
}

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct MarkJob {
    /// directory the test directory is created in
    pub path: PathBuf,
    /// preset name (one of [`PRESETS`])
    pub preset: String,
    /// add 70/30 mixed tests
    pub mix: bool,
    /// test file size, bytes, as asked; [`execute`] rounds it down once to a whole
    /// number of the largest block size ([`test_file_size`]) and every test uses that
    pub size: u64,
    /// `--size` as the user wrote it (for messages), e.g. `10MB`
    pub size_text: String,
    /// measured seconds per loop
    pub time_s: u64,
    /// loops per test (median reported)
    pub loops: u32,
    /// unreported warm-up seconds before each test's loops (0 = none)
    pub warmup_s: u64,
    /// where to write the RunResult
    pub json: Option<PathBuf>,
    /// directory for the per-test charts of the median loops (`--plot`)
    pub plot: Option<PathBuf>,
    /// colour of the table (`--color`, decided for this stdout)
    pub paint: crate::util::color::Paint,
    /// argv after `mark`
    pub argv: Vec<String>,
    /// keep the completed result in the results history (no `--no-history`)
    pub history: bool,
}

/// Run one test's fileio job silently, through the same execution path as `iomark
/// fileio`; returns its RunResult and what its recorder measured (in memory) or the
/// exit code.
fn run_fileio(
    mut job: Fileio,
    samples: bool,
    pb: &MarkBar,
    emit: &dyn crate::run::sysbench::Emit,
) -> Result<(RunResult, result::Recorded), i32> {
    // the `--live` view draws from the samples (run/live.rs)
    job.settings.samples = samples || crate::run::live::watched();
    let console = Arc::new(Console::without_err(0));
    // the bar on a terminal shows the running test's figures, read from its recorders
    let live = (!pb.bar.is_hidden()).then(|| pb.live.clone());
    crate::run::sysbench::run_for_result(&job, &console, live, emit)
}

/// What `mark` needs from PATH and the kernel, checked before anything is created and
/// worded with mark's own options (the fileio checks behind it would name
/// `--file-extra-flags`/`--file-io-mode`, which mark does not have): O_DIRECT on PATH's
/// filesystem (every test) and io_uring (tests with a queue depth above 1).
pub fn preflight(path: &Path, tests: &[Test]) -> Result<(), String> {
    use crate::files::preflight::{direct_refused, probe_direct_io, DirectIo};
    if probe_direct_io(path) == DirectIo::Unsupported {
        return Err(format!(
            "{}, which every mark test uses (it scores the drive, not the page cache); give a PATH on a disk filesystem",
            direct_refused(path)
        ));
    }
    if let Some(t) = tests.iter().find(|t| t.slot.qd > 1) {
        if let Err(e) = crate::engine::io_uring::probe_os() {
            return Err(format!(
                "{}; {} and the other tests with a queue depth above 1 need it: --preset=realworld runs only Q1 tests (pread/pwrite)",
                crate::engine::io_uring::unavailable_why(&e),
                t.slot.label()
            ));
        }
    }
    Ok(())
}

/// The checks before anything is created: the preset, the test file size (decided
/// once: every test and the preparation use it), PATH, O_DIRECT and io_uring, free
/// space. The tests and the job with its final size, or the exit code.
fn checks(job: &MarkJob) -> Result<(Vec<Test>, MarkJob), i32> {
    let Some(tests) = expand(&job.preset, job.mix) else {
        eprintln!(
            "iomark mark: unknown --preset={} (accepted: {})",
            job.preset,
            PRESETS.join(", ")
        );
        return Err(exit::INVALID);
    };
    let block = largest_block(&tests);
    let Some(used) = test_file_size(job.size, block) else {
        eprintln!(
            "iomark mark: invalid --size={}: the test file must hold at least one {} block (the largest block size of --preset={}); the minimum is {} ({block} bytes)",
            job.size_text,
            block_words(block),
            job.preset,
            block_words(block)
        );
        return Err(exit::INVALID);
    };
    if used != job.size {
        eprintln!(
            "iomark mark: --size={}: using {} ({used} bytes, a whole number of {} blocks)",
            job.size_text,
            crate::util::text::iec(used),
            block_words(block)
        );
    }
    let job = MarkJob {
        size: used,
        ..job.clone()
    };
    if !job.path.is_dir() {
        // the errno when stat failed otherwise than ENOENT (ENOTDIR, ELOOP, EACCES …)
        let why = match std::fs::metadata(&job.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                format!(": {}", crate::util::errno::describe(&e))
            }
            _ => String::new(),
        };
        eprintln!(
            "iomark mark: {} is not an existing directory{why}",
            job.path.display()
        );
        return Err(exit::ENVIRONMENT);
    }
    if let Err(m) = preflight(&job.path, &tests) {
        eprintln!("iomark mark: {m}");
        return Err(exit::ENVIRONMENT);
    }
    // before the free space is counted: a leftover's test file takes some
    sweep_leftovers(&job.path);
    if let Some(avail) = crate::files::preflight::free_space(&job.path) {
        if avail < job.size {
            eprintln!(
                "iomark mark: not enough free space in {}: the test file needs {} ({} bytes), {} ({avail} bytes) are available; use a smaller --size or another PATH",
                job.path.display(),
                crate::util::text::iec(job.size),
                job.size,
                crate::util::text::iec(avail)
            );
            return Err(exit::ENVIRONMENT);
        }
    }
    Ok((tests, job))
}

/// The outputs and the test directory: the outputs declared through `emit` (`--json`
/// checked, its write rehearsed aside once the test directory exists; the file keeps its
/// old content until the result; the `--plot` directory made, the table for stdout), then
/// the test directory. The test directory, its test file and the loops' JSON are
/// registered scratch paths, removed when the returned registry drops — after success,
/// errors and Ctrl-C alike.
fn start(job: &MarkJob, emit: &mut dyn Emit) -> Result<(PathBuf, Scratch), i32> {
    emit.declare(job)?;
    let dir = job.path.join(format!("{MARK_DIR}.{}", std::process::id()));
    let mut guard = Scratch::new();
    if let Err(e) = guard.create_dir(&dir) {
        let why = match &e {
            ScratchError::Create { source, .. } => source.to_string(),
            other => other.to_string(),
        };
        eprintln!("iomark mark: cannot create the test directory {}: {why} (PATH must be a writable directory)", dir.display());
        return Err(exit::ENVIRONMENT);
    }
    guard.register_files_in(&dir, [crate::files::fileset::path(&dir, 0)]);
    Ok((dir, guard))
}

/// The test directories an earlier `mark` killed before its cleanup left in `path`
/// (files/leftover.rs): each removed when it holds only mark's own files, else left as
/// found; either way one line on stderr.
pub fn sweep_leftovers(path: &Path) {
    for l in crate::files::leftover::sweep(path, MARK_DIR, &MARK_FILES) {
        eprintln!("{}", l.line("iomark mark"));
    }
}

/// Prepare the test file once (random, incompressible content).
fn prepare_file(
    tests: &[Test],
    job: &MarkJob,
    dir: &Path,
    emit: &mut dyn crate::run::sysbench::Emit,
) -> i32 {
    let mut prep = fileio_run(&tests[0], job.size, job.time_s, dir);
    prep.settings.commands = vec![crate::job::sysbench::Command::Prepare];
    if let Err(code) = create_test_file(dir) {
        return code;
    }
    crate::run::sysbench::execute(&prep, &Arc::new(Console::without_err(0)), emit)
}

/// Create the test file in mark's fresh directory with `O_EXCL`, before the prepare
/// fills it: a name found there (a symbolic or hard link planted since the directory was
/// made) is refused as the scratch directory's own name is, one line naming it, exit 3
/// for the environment's errors (`EEXIST`, `EACCES`, `ENOSPC`, `EROFS`), 1 otherwise.
fn create_test_file(dir: &Path) -> Result<(), i32> {
    let path = crate::files::fileset::path(dir, 0);
    // test-only: a `create:stop` rule stops here, the directory made, the file not yet
    let creating = crate::util::fault::create_hook();
    let made = crate::files::fileset::create_own(&path);
    drop(creating);
    let Err(e) = made else {
        return Ok(());
    };
    eprintln!(
        "iomark mark: cannot create the test file {}: {} (iomark writes only files it creates itself)",
        path.display(),
        crate::util::errno::describe(&e)
    );
    Err(match e.raw_os_error() {
        Some(
            libc::EEXIST | libc::EACCES | libc::EPERM | libc::ENOSPC | libc::EROFS | libc::EDQUOT,
        ) => exit::ENVIRONMENT,
        _ => exit::FAILED,
    })
}

/// Why the tests stopped: the exit code and where it stopped.
struct Stopped {
    code: i32,
    what: String,
}

/// Warning `w` of loop `i` (of `n`) of test `t`: a finding over time says in which test
/// and loop it happened, its moment being seconds into that loop (each loop is its own
/// run; the result's series holds the median loops one after the other).
fn loop_warning(w: &Warning, t: &Test, (i, n): (u32, u32)) -> Warning {
    if !crate::result::timeline::IDS.contains(&w.id.as_str()) {
        return w.clone();
    }
    let message = format!("in {} (loop {}/{n}): {}", t.name(), i + 1, w.message);
    Warning {
        message,
        ..w.clone()
    }
}

/// Run one test: its warm-up, its loops; the row of its median loop (`None` without
/// loops), its charts added to `plots` (a chart that cannot be written is said on
/// stderr and sets `lost`: the tests go on, the run ends with exit 1).
fn run_test(
    t: &Test,
    job: &MarkJob,
    dir: &Path,
    warnings: &mut Vec<Warning>,
    (plots, lost): (&mut Vec<PathBuf>, &mut bool),
    (mb, emit): (&MarkBar, &mut dyn Emit),
) -> Result<Option<Row>, Stopped> {
    let pb = &mb.bar;
    crate::util::fault::phase_hook();
    // no warm-up label when there is no warm-up (--warmup=0)
    if job.warmup_s > 0 {
        pb.set_message(format!("{} warm-up", t.name()));
        crate::run::live::phase(|| format!("{} warm-up", t.name()));
        let warm = fileio_run(t, job.size, job.warmup_s, dir);
        run_fileio(warm, false, mb, emit.fileio()).map_err(|code| Stopped {
            code,
            what: format!("in the warm-up of {}", t.name()),
        })?;
    }
    let mut loops = vec![];
    for i in 0..job.loops {
        pb.set_message(format!("{} loop {}/{}", t.name(), i + 1, job.loops));
        crate::run::live::phase(|| format!("{} loop {}/{}", t.name(), i + 1, job.loops));
        let test = fileio_run(t, job.size, job.time_s, dir);
        // every loop is sampled: the mark result's series is its median loops'
        let (r, rec) = run_fileio(test, true, mb, emit.fileio()).map_err(|code| Stopped {
            code,
            what: format!("in {}", t.name()),
        })?;
        for w in &r.warnings {
            if !warnings.iter().any(|x| x.id == w.id) {
                warnings.push(loop_warning(w, t, (i, job.loops)));
            }
        }
        let mut m = measured(t, &r, rec);
        if job.plot.is_some() {
            m.result = Some(Box::new(r));
        }
        loops.push(m);
        pb.inc(1);
    }
    let Some((mut m, best, worst)) = median(&loops) else {
        return Ok(None);
    };
    if let (Some(d), Some(r)) = (&job.plot, m.result.take()) {
        match emit.plots(&r, d) {
            Ok(files) => plots.extend(files),
            Err(e) => {
                // an output lost: the tests go on, the run ends with exit 1
                eprintln!("iomark mark: --plot={}: {e}", d.display());
                *lost = true;
            }
        }
    }
    Ok(Some(Row {
        test: *t,
        loops_mb_s: loops.iter().map(|l| l.mb_s).collect(),
        median: m,
        best_mb_s: best,
        worst_mb_s: worst,
    }))
}

/// The result of a stopped run (status interrupted or failed) with the tests that
/// finished; its error says where it stopped (`what`) and with which exit code.
/// With `view`, the device view over the tests that ran (the stopped one included) and
/// its span as the run's wall time: the findings the finished tests support (the write
/// cache that acknowledged their writes, the path's ceiling) are kept as in a whole run.
fn stopped_result(
    job: &MarkJob,
    (rows, warnings): (&[Row], &[Warning]),
    diag: &Diagnosis,
    signals: &Signals,
    view: Option<&Span>,
) -> RunResult {
    let status = if signals.exit_code().is_some() {
        Status::Interrupted
    } else {
        Status::Failed
    };
    let mut i = inputs(job, rows, diag, warnings.to_vec(), status);
    if let Some(s) = view {
        i.device_view = Some(s.view.clone());
        i.elapsed_s = s.secs;
    }
    result::build(i)
}

/// The device view over the tests and its span in seconds (the run's wall time).
struct Span {
    view: crate::probe::devstat::DeviceView,
    secs: f64,
}

impl Span {
    /// The view from `watch` (started at `t0`) until now.
    fn of(watch: &crate::probe::devstat::Watch, t0: std::time::Instant) -> Span {
        let view = watch.finish();
        // the run's wall time is the device view's span (the tests, warm-ups and every loop)
        let secs = view
            .devices
            .first()
            .map_or(t0.elapsed().as_secs_f64(), |d| d.elapsed_ms as f64 / 1e3);
        Span { view, secs }
    }
}

/// Save the result of a stopped run in `--json`: `r` with the error saying where it
/// stopped, and the exit code.
fn save_stopped(emit: &dyn Emit, mut r: RunResult, what: &str, code: i32) {
    let done = r.phases.len();
    r.error = Some(format!(
        "stopped {what} (exit {code}); {done} test(s) completed"
    ));
    emit.save_json(&r);
}

/// The end of a stopped run: the table of the tests that finished (the unfinished ones
/// are omitted), the line saying where it stopped and what the table holds, and the
/// result (status interrupted or failed) in `--json`.
/// The warnings of the finished tests (the path's ceiling included) are printed under the
/// table as after a whole run.
fn partial(
    job: &MarkJob,
    done: (&[Row], &[Warning]),
    tests: usize,
    (diag, emit, signals): (&Diagnosis, &dyn Emit, &Signals),
    (stopped, span): (Stopped, Span),
) -> i32 {
    let rows = done.0;
    let mut warnings = done.1.to_vec();
    closing_notes(rows, &[], diag, &mut warnings);
    let r = stopped_result(job, (rows, &warnings), diag, signals, Some(&span));
    let saved = saved_line(job.json.as_deref(), rows.is_empty(), &r.status);
    let shown = if rows.is_empty() {
        format!("no test finished, no table printed{saved}")
    } else {
        emit.table(&r);
        for l in crate::result::truth::text_lines(&r) {
            crate::outln!("{l}");
        }
        format!(
            "table above: the {} finished test{}, the {} unfinished omitted{saved}",
            rows.len(),
            if rows.len() == 1 { "" } else { "s" },
            tests - rows.len()
        )
    };
    let what = stopped.what;
    let of = crate::util::text::plural(tests as u64, "test", "tests");
    let msg = format!("{what} after {} of {of} ({shown})", rows.len());
    let code = interrupted_or(signals, stopped.code, &msg);
    save_stopped(emit, r, &what, code);
    code
}

/// What the `--json` file of a stopped run holds, for the line saying where it stopped
/// (empty without `--json`): the finished tests, or — when none finished — the run
/// without a test result (its status, settings and diagnosis; no phases).
fn saved_line(json: Option<&Path>, none_finished: bool, status: &Status) -> String {
    let Some(p) = json else {
        return String::new();
    };
    if !none_finished {
        return format!("; the finished tests are in {}", p.display());
    }
    let status = match status {
        Status::Interrupted => "interrupted",
        _ => "failed",
    };
    format!(
        "; {} holds the stopped run without a test result: status {status}, the settings and the diagnosis",
        p.display()
    )
}

/// The notes after the table: the charts written; the tests above the path's ceiling
/// are added to the warnings (printed with the others after the notes).
fn closing_notes(rows: &[Row], plots: &[PathBuf], diag: &Diagnosis, warnings: &mut Vec<Warning>) {
    for p in plots {
        crate::outln!("iomark mark: wrote {}", p.display());
    }
    for r in rows {
        let (rd, wr) = match r.test.op {
            Op::Write => (0.0, r.median.mb_s),
            _ => (r.median.mb_s, 0.0),
        };
        let set_by = diag.ceiling.as_ref().map_or("", |c| c.set_by.as_str());
        if let Some(m) = result::truth::exceeds_ceiling(
            rd,
            wr,
            diag.ceiling.as_ref().map(|c| c.raw_mb_s),
            set_by,
        ) {
            warnings.push(Warning {
                id: crate::result::truth::ABOVE_CEILING.into(),
                message: format!("{}: {m}", r.test.name()),
            });
        }
    }
    // every warning is printed once, by truth::text_lines with the result's others
}

/// Run `mark`, its outputs declared and written through `emit`; returns the exit code.
pub fn execute(job: &MarkJob, emit: &mut dyn Emit) -> i32 {
    let signals = Signals::install();
    let (tests, job) = match checks(job) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let job = &job;
    let (dir, guard) = match start(job, emit) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let diag = diagnose(
        &Root::default(),
        &Inputs {
            path: crate::files::dir_name(&dir),
            working_set_bytes: Some(job.size),
            direct_io: true,
            ..Default::default()
        },
    );
    if let Err(code) = emit.rehearse() {
        return code;
    }
    announce(job, &diag);
    let per_test = test_secs(job);
    let mb = MarkBar::new(
        tests.len() as u64 * u64::from(job.loops),
        "preparing the test file",
        per_test * tests.len() as u64,
    );
    crate::run::live::phase(|| "preparing the test file".into());
    let pb = &mb.bar;
    let code = prepare_file(&tests, job, &dir, emit.fileio());
    // From here on, a stop saves the tests done so far (status interrupted/failed).
    if code != exit::OK {
        pb.finish_and_clear();
        return preparation_stopped(job, &diag, &signals, emit, code);
    }
    let (mut rows, mut plots, mut warnings, mut lost) = (vec![], vec![], vec![], false);
    // the device view over the tests (the test file's preparation left out)
    let (t0, watch) = (
        std::time::Instant::now(),
        crate::probe::devstat::Watch::of_path(&Root::of_samples(), &dir),
    );
    for (i, t) in tests.iter().enumerate() {
        let out = (&mut plots, &mut lost);
        mb.test_starts(per_test, per_test * (tests.len() - i - 1) as u64);
        match run_test(t, job, &dir, &mut warnings, out, (&mb, &mut *emit)) {
            Ok(Some(row)) => rows.push(row),
            Ok(None) => {}
            Err(s) => {
                pb.finish_and_clear();
                let done = (rows.as_slice(), warnings.as_slice());
                let ended = (s, Span::of(&watch, t0));
                return partial(job, done, tests.len(), (&diag, emit, &signals), ended);
            }
        }
    }
    pb.finish_and_clear();
    let span = Span::of(&watch, t0);
    drop(guard);
    report(job, emit, (&rows, &plots, warnings, lost), &diag, &span)
}

/// The two lines before the tests: the target's diagnosis and what the preset runs
/// (file size, seconds per test, warm-up, loops).
fn announce(job: &MarkJob, diag: &Diagnosis) {
    crate::outln!("{}", target_line(diag));
    crate::outln!(
        "iomark mark: preset {}, {} test file, O_DIRECT, random data, {} s per test {}, median of {}",
        job.preset,
        crate::util::text::iec(job.size),
        job.time_s,
        match job.warmup_s {
            0 => "without a warm-up".to_string(),
            w => format!("after a {w} s warm-up"),
        },
        crate::util::text::plural(job.loops, "loop", "loops")
    );
}

/// A test file whose preparation failed or was interrupted: the result without a test
/// saved as stopped; the exit code (the signal's for an interruption, else `code`).
fn preparation_stopped(
    job: &MarkJob,
    diag: &Diagnosis,
    signals: &Signals,
    emit: &mut dyn Emit,
    code: i32,
) -> i32 {
    let what = "while preparing the test file";
    let code = interrupted_or(signals, code, what);
    save_stopped(
        emit,
        stopped_result(job, (&[], &[]), diag, signals, None),
        what,
        code,
    );
    code
}

/// The report of a mark whose tests all ran: the table, the closing notes and truth
/// lines, the RunResult (`--json`) and the history line; exit 1 when an output
/// (a chart, the RunResult) could not be written (`lost`).
fn report(
    job: &MarkJob,
    emit: &mut dyn Emit,
    (rows, plots, mut warnings, mut lost): (&[Row], &[PathBuf], Vec<Warning>, bool),
    diag: &Diagnosis,
    span: &Span,
) -> i32 {
    let result = |warnings| {
        let mut i = inputs(job, rows, diag, warnings, Status::Ok);
        i.device_view = Some(span.view.clone());
        i.elapsed_s = span.secs;
        result::build(i)
    };
    let r = result(vec![]);
    emit.table(&r);
    closing_notes(rows, plots, diag, &mut warnings);
    let r = result(warnings);
    for l in crate::result::truth::text_lines(&r) {
        crate::outln!("{l}");
    }
    lost |= !emit.save_json(&r);
    if let Some(l) = emit.keep_history(&r, job.history) {
        eprintln!("{l}");
    }
    if lost {
        exit::FAILED
    } else {
        exit::OK
    }
}

/// The planned seconds of one test: its warm-up and its loops.
fn test_secs(job: &MarkJob) -> u64 {
    job.warmup_s + job.time_s * u64::from(job.loops)
}

fn interrupted_or(signals: &Signals, code: i32, what: &str) -> i32 {
    match signals.exit_code() {
        Some(c) => {
            let what = format!("{what}; the test file was removed");
            eprintln!(
                "iomark mark: {}",
                crate::run::signals::interrupted_by(c, &what)
            );
            c
        }
        None => {
            eprintln!("iomark mark: failed {what} (exit {code}); the test file was removed");
            code
        }
    }
}

#[cfg(test)]
mod tests;
