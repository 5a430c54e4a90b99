//! `iomark mark`: CrystalDiskMark/KDiskMark-style one-command drive scores.
//!
//! This module owns the presets (spec/peers.md "KDiskMark preset definitions"), their
//! expansion into fileio jobs, the loop/median logic and the final table. It measures
//! nothing itself: every test is an ordinary `iomark fileio` job (one test file of
//! `--size`, O_DIRECT, incompressible data, time-based) executed by
//! [`crate::run::fileio::execute`] with a silent console, whose `RunResult` it reads back.
//! That keeps the numbers identical to what `iomark fileio` reports for the same job.
//!
//! Differences from KDiskMark, on purpose (spec/peers.md §1 and pitfalls 4, 5, 13):
//! tests are time-based (not size-capped), MB/s is decimal (1 MB = 1,000,000 B) and
//! MiB/s is shown beside it, and the median of the loops is reported (best and worst are
//! kept in the result). Latency is measured per I/O, submission to completion: Q1 tests
//! run with `pread`/`pwrite` (the event latency is the I/O's); for QD > 1 (io_uring)
//! the fileio event is only the submission (sysbench semantics), so mark reads the
//! per-I/O completion latency fileio records beside it (`RunResult::clat`).
//!
//! Safety: the test file lives in a new directory `PATH/iomark-mark.<pid>` that is
//! removed afterwards, also after an error or Ctrl-C (a second Ctrl-C exits at once).

use crate::exit;
use crate::probe::diagnosis::{diagnose, Diagnosis, Inputs};
use crate::probe::Root;
use crate::report::console::Console;
use crate::report::json::{self, JobInfo, Latency, Phase, RunResult, Status, Warning};
use crate::report::notes;
use crate::run::signals::Signals;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use super::mark_presets::*;

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct MarkJob {
    /// directory the test directory is created in
    pub path: PathBuf,
    /// preset name (one of [`PRESETS`])
    pub preset: String,
    /// add 70/30 mixed tests
    pub mix: bool,
    /// test file size, bytes
    pub size: u64,
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
    /// argv after `mark`
    pub argv: Vec<String>,
}

/// The numbers of one loop of one test (decimal MB/s, µs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measured {
    /// bytes moved (read + written)
    pub bytes: u64,
    /// operations (reads + writes)
    pub ops: u64,
    /// seconds the rates are computed over
    pub seconds: f64,
    /// MB/s, 1 MB = 1,000,000 B
    pub mb_s: f64,
    /// MiB/s, 1 MiB = 1,048,576 B
    pub mib_s: f64,
    /// operations per second
    pub iops: f64,
    /// mean per-I/O latency (submission to completion), µs
    pub mean_us: f64,
    /// 99th percentile per-I/O latency, µs (`None` when the run recorded none)
    pub p99_us: Option<f64>,
    /// per-I/O latency of the loop, for the result file
    pub lat: Option<Latency>,
    /// the loop's fileio result (kept for `--plot`)
    pub result: Option<Box<RunResult>>,
}

/// Turn a fileio `RunResult` of test `t` into the figures `mark` reports.
pub fn measured(t: &Test, r: &RunResult) -> Measured {
    let ops = r.read.ops + r.write.ops;
    let bytes = r.read.bytes + r.write.bytes;
    let secs = if r.period_s > 0.0 {
        r.period_s
    } else {
        f64::MIN_POSITIVE
    };
    let iops = ops as f64 / secs;
    // Q1 (pread/pwrite): the event is the I/O. QD > 1: per-I/O completion latency.
    let lat = if t.slot.qd <= 1 {
        Some(&r.lat)
    } else {
        r.clat.as_ref()
    }
    .filter(|l| l.count > 0);
    let mean_us = lat.map_or(0.0, |l| l.mean_ns as f64 / 1e3);
    let p99_us = lat.and_then(|l| l.percentiles_ns.get("99").map(|v| *v as f64 / 1e3));
    Measured {
        bytes,
        ops,
        seconds: r.period_s,
        mb_s: bytes as f64 / secs / 1e6,
        mib_s: bytes as f64 / secs / 1_048_576.0,
        iops,
        mean_us,
        p99_us,
        lat: lat.cloned(),
        result: None,
    }
}

/// Median loop by MB/s (the lower middle one for an even count), with best and worst MB/s.
pub fn median(loops: &[Measured]) -> Option<(Measured, f64, f64)> {
    let mut v: Vec<&Measured> = loops.iter().collect();
    v.sort_by(|a, b| a.mb_s.total_cmp(&b.mb_s));
    let best = v.last()?.mb_s;
    let worst = v.first()?.mb_s;
    Some(((*v.get((v.len() - 1) / 2)?).clone(), best, worst))
}

/// One reported row: the test, its median loop, best and worst MB/s, all loops' MB/s.
#[derive(Clone, Debug)]
pub struct Row {
    /// the test
    pub test: Test,
    /// the median loop
    pub median: Measured,
    /// best loop, MB/s
    pub best_mb_s: f64,
    /// worst loop, MB/s
    pub worst_mb_s: f64,
    /// every loop's MB/s in run order
    pub loops_mb_s: Vec<f64>,
}

/// The phase stored in the `RunResult` for a row. The job and the loop spread are in
/// `notes` as `key=value` words so that `compare` and people can read them.
pub fn phase_of(row: &Row) -> Phase {
    let m = &row.median;
    let mut p = Phase::new(&row.test.name(), m.ops, m.bytes, m.seconds);
    p.lat = m.lat.clone();
    p.cache = Some("O_DIRECT (page cache bypassed)".into());
    let s = row.test.slot;
    p.notes = vec![
        format!(
            "block_size_bytes={} iodepth={} threads={} engine={} direct=true",
            s.block,
            s.qd,
            s.threads,
            if s.qd > 1 { "io_uring" } else { "psync" }
        ),
        format!(
            "median_of={} best_mb_per_s={:.3} worst_mb_per_s={:.3} loops_mb_per_s={}",
            row.loops_mb_s.len(),
            row.best_mb_s,
            row.worst_mb_s,
            row.loops_mb_s
                .iter()
                .map(|v| format!("{v:.3}"))
                .collect::<Vec<_>>()
                .join(",")
        ),
        if s.qd > 1 {
            "latency: measured per I/O, io_uring submission to reaped completion".into()
        } else {
            "latency: measured per I/O (pread/pwrite, completion)".into()
        },
    ];
    p
}

/// The end-of-run table (plain text, aligned). `mb_s` columns are decimal.
pub fn table(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<22} {:>10} {:>10} {:>11} {:>10} {:>10}\n",
        "test", "MB/s", "MiB/s", "IOPS", "mean µs", "p99 µs"
    );
    for r in rows {
        let m = &r.median;
        let mean = if m.lat.is_some() {
            format!("{:.1}", m.mean_us)
        } else {
            "-".into()
        };
        out += &format!(
            "{:<22} {:>10.2} {:>10.2} {:>11.0} {:>10} {:>10}\n",
            r.test.name(),
            m.mb_s,
            m.mib_s,
            m.iops,
            mean,
            m.p99_us.map_or("-".into(), |v| format!("{v:.1}"))
        );
    }
    out += "MB/s = 1,000,000 B/s, MiB/s = 1,048,576 B/s. Latency is measured per I/O, submission to completion (Q1: pread/pwrite; QD > 1: io_uring).\n";
    out
}

/// One line describing the target from its diagnosis.
pub fn target_line(d: &Diagnosis) -> String {
    let s = &d.summary;
    let mut parts = vec![s
        .device_model
        .clone()
        .unwrap_or_else(|| "unknown device".into())];
    if let Some(t) = &s.transport {
        parts.push(t.clone());
    }
    if let Some(l) = &s.link {
        parts.push(l.clone());
    }
    if let Some(f) = &s.filesystem {
        parts.push(f.clone());
    }
    let ceiling = match &d.ceiling {
        Some(c) => format!(
            "ceiling {:.0} MB/s raw, {:.0} MB/s realistic ({})",
            c.raw_mb_s, c.realistic_mb_s, c.set_by
        ),
        None => format!(
            "ceiling unknown{}",
            d.ceiling_unknown
                .as_ref()
                .map_or(String::new(), |u| format!(" ({u})"))
        ),
    };
    format!("target: {} — {}; {}", d.target, parts.join(", "), ceiling)
}

fn read_result(p: &Path) -> Result<RunResult, String> {
    let text =
        std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not a RunResult: {e}", p.display()))
}

/// Removes the test directory (test file, temporary JSON) when dropped: after success,
/// errors and Ctrl-C alike.
struct TestDir(PathBuf);

impl Drop for TestDir {
    fn drop(&mut self) {
        crate::target::fileset::cleanup(&self.0, 1);
        let _ = std::fs::remove_file(self.0.join("loop.json"));
        if let Ok(rd) = std::fs::read_dir(&self.0) {
            for e in rd.flatten() {
                // leftovers of write_atomic (".loop.json.iomark-tmp.PID")
                if e.file_name().to_string_lossy().starts_with(".loop.json") {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// Removes the `--json` placeholder when `mark` stops before it has a result to save
/// (bad PATH, no space), so a failed start leaves nothing behind.
struct Placeholder(Option<PathBuf>);

impl Drop for Placeholder {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Run one fileio job silently; returns its RunResult or the exit code.
fn run_fileio(args: &[String], json_path: &Path, samples: bool) -> Result<RunResult, i32> {
    let parsed = crate::cli::fileio::parse(args);
    for m in parsed.pre.iter().chain(parsed.post.iter()) {
        if m.stream == crate::cli::fileio::Stream::Err
            || m.level == crate::cli::fileio::level::FATAL
        {
            eprintln!("iomark mark: {}", m.text);
        }
    }
    let mut job = match parsed.outcome {
        crate::cli::fileio::Outcome::Exit(c) => return Err(c),
        crate::cli::fileio::Outcome::Job(j) => j,
    };
    job.samples = samples;
    // fio's (and so KDiskMark's) reaping: one completion, then refill its slot
    job.reap_max = 1;
    let console = Arc::new(Console::without_err(0));
    let code = crate::run::fileio::execute(&job, &console);
    if code != exit::OK {
        return Err(code);
    }
    read_result(json_path).map_err(|e| {
        eprintln!("iomark mark: {e}");
        exit::FAILED
    })
}

/// What `mark` needs from PATH and the kernel, checked before anything is created and
/// worded with mark's own options (the fileio checks behind it would name
/// `--file-extra-flags`/`--file-io-mode`, which mark does not have): O_DIRECT on PATH's
/// filesystem (every test) and io_uring (tests with a queue depth above 1).
pub fn preflight(path: &Path, tests: &[Test]) -> Result<(), String> {
    use crate::target::preflight::{memory_fs, probe_direct_io, DirectIo};
    if probe_direct_io(path) == DirectIo::Unsupported {
        return Err(format!(
            "{} at {} does not support O_DIRECT, which every mark test uses (it scores the drive, not the page cache); give a PATH on a disk filesystem",
            memory_fs(path).unwrap_or("the filesystem"),
            path.display()
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

/// Run `mark`; returns the exit code.
pub fn execute(job: &MarkJob) -> i32 {
    let signals = Signals::install();
    let Some(tests) = expand(&job.preset, job.mix) else {
        eprintln!(
            "iomark mark: unknown --preset={} (accepted: {})",
            job.preset,
            PRESETS.join(", ")
        );
        return exit::INVALID;
    };
    if !job.path.is_dir() {
        eprintln!(
            "iomark mark: {} is not an existing directory",
            job.path.display()
        );
        return exit::ENVIRONMENT;
    }
    if let Err(m) = preflight(&job.path, &tests) {
        eprintln!("iomark mark: {m}");
        return exit::ENVIRONMENT;
    }
    if let Some(avail) = crate::target::preflight::free_space(&job.path) {
        if avail < job.size {
            eprintln!(
                "iomark mark: not enough free space in {}: the test file needs {} ({} bytes), {} ({avail} bytes) are available; use a smaller --size or another PATH",
                job.path.display(),
                crate::job::values::iec(job.size),
                job.size,
                crate::job::values::iec(avail)
            );
            return exit::ENVIRONMENT;
        }
    }
    let existed = job.json.as_ref().is_some_and(|p| p.exists());
    if let Some(p) = &job.json {
        if let Err(e) = json::write_atomic(
            p,
            &serde_json::json!({"schema_version": json::SCHEMA_VERSION, "tool": "iomark", "status": "running"}),
        ) {
            eprintln!("iomark mark: cannot write --json={}: {e}", p.display());
            return exit::ENVIRONMENT;
        }
    }
    // A failed start removes the placeholder it created (a file that existed before is
    // left as the placeholder: its old content is gone either way).
    let mut placeholder = Placeholder(job.json.clone().filter(|_| !existed));
    if let Some(d) = &job.plot {
        if let Err(e) = crate::report::svg_plot::ensure_dir(d) {
            eprintln!("iomark mark: {e}");
            return exit::ENVIRONMENT;
        }
    }
    let dir = job.path.join(format!("iomark-mark.{}", std::process::id()));
    if let Err(e) = std::fs::create_dir(&dir) {
        eprintln!("iomark mark: cannot create the test directory {}: {e} (PATH must be a writable directory)", dir.display());
        return exit::ENVIRONMENT;
    }
    let guard = TestDir(dir.clone());
    let root = Root::default();
    let diag = diagnose(
        &root,
        &Inputs {
            path: crate::target::fileset::dir_name(&dir),
            working_set_bytes: Some(job.size),
            direct_io: true,
            ..Default::default()
        },
    );
    crate::outln!("{}", target_line(&diag));
    crate::outln!(
        "iomark mark: preset {}, {} test file, O_DIRECT, random data, {} s per test after a {} s warm-up, median of {} loop(s)",
        job.preset,
        crate::job::values::iec(job.size),
        job.time_s,
        job.warmup_s,
        job.loops
    );
    let json_path = dir.join("loop.json");
    // Prepare the test file once (random, incompressible content).
    let mut prep = fileio_args(&tests[0], job.size, job.time_s, &dir, &json_path);
    prep.retain(|a| !a.starts_with("--json=") && a != "run");
    prep.push("prepare".into());
    let pb = crate::run::copy::bar(
        tests.len() as u64 * u64::from(job.loops),
        "preparing",
        false,
    );
    let parsed = crate::cli::fileio::parse(&prep);
    let code = match parsed.outcome {
        crate::cli::fileio::Outcome::Job(j) => {
            crate::run::fileio::execute(&j, &Arc::new(Console::without_err(0)))
        }
        crate::cli::fileio::Outcome::Exit(c) => c,
    };
    if code != exit::OK {
        pb.finish_and_clear();
        return interrupted_or(&signals, code, "while preparing the test file");
    }
    // From here on, a stop saves the tests done so far (status interrupted/failed).
    placeholder.0 = None;
    let partial = |rows: &[Row], warnings: &[Warning], code: i32, what: String| -> i32 {
        // No table was printed: say what survived instead of pointing at a report.
        let saved = match &job.json {
            Some(p) => format!("; the finished tests are in {}", p.display()),
            None => String::new(),
        };
        let code = interrupted_or(
            &signals,
            code,
            &format!(
                "{what} after {} of {} tests (no table printed{saved})",
                rows.len(),
                tests.len()
            ),
        );
        if let Some(p) = &job.json {
            let mut r = result(job, rows, &diag, warnings.to_vec());
            r.status = if signals.exit_code().is_some() {
                Status::Interrupted
            } else {
                Status::Failed
            };
            r.error = Some(format!(
                "stopped {what} (exit {code}); {} test(s) completed",
                rows.len()
            ));
            let _ = json::write_atomic(p, &r);
        }
        code
    };
    let mut rows = vec![];
    let mut plots: Vec<PathBuf> = vec![];
    let mut warnings: Vec<Warning> = vec![];
    for t in &tests {
        pb.set_message(t.name());
        if job.warmup_s > 0 {
            let a = fileio_args(t, job.size, job.warmup_s, &dir, &json_path);
            if let Err(c) = run_fileio(&a, &json_path, false) {
                pb.finish_and_clear();
                return partial(
                    &rows,
                    &warnings,
                    c,
                    format!("in the warm-up of {}", t.name()),
                );
            }
        }
        let mut loops = vec![];
        for _ in 0..job.loops {
            let a = fileio_args(t, job.size, job.time_s, &dir, &json_path);
            match run_fileio(&a, &json_path, job.plot.is_some()) {
                Ok(r) => {
                    for w in &r.warnings {
                        if !warnings.iter().any(|x| x.id == w.id) {
                            warnings.push(w.clone());
                        }
                    }
                    let mut m = measured(t, &r);
                    if job.plot.is_some() {
                        m.result = Some(Box::new(r));
                    }
                    loops.push(m);
                }
                Err(c) => {
                    pb.finish_and_clear();
                    return partial(&rows, &warnings, c, format!("in {}", t.name()));
                }
            }
            pb.inc(1);
        }
        let Some((mut m, best, worst)) = median(&loops) else {
            continue;
        };
        if let (Some(d), Some(r)) = (&job.plot, m.result.take()) {
            match crate::report::svg_plot::write_plots(&r, d) {
                Ok(files) => plots.extend(files),
                Err(e) => {
                    pb.finish_and_clear();
                    eprintln!("iomark mark: --plot={}: {e}", d.display());
                    return exit::ENVIRONMENT;
                }
            }
        }
        rows.push(Row {
            test: *t,
            loops_mb_s: loops.iter().map(|l| l.mb_s).collect(),
            median: m,
            best_mb_s: best,
            worst_mb_s: worst,
        });
    }
    pb.finish_and_clear();
    drop(guard);
    crate::out!("{}", table(&rows));
    for p in &plots {
        crate::outln!("iomark mark: wrote {}", p.display());
    }
    for r in &rows {
        let (rd, wr) = match r.test.op {
            Op::Write => (0.0, r.median.mb_s),
            _ => (r.median.mb_s, 0.0),
        };
        let set_by = diag.ceiling.as_ref().map_or("", |c| c.set_by.as_str());
        if let Some(m) =
            notes::exceeds_ceiling(rd, wr, diag.ceiling.as_ref().map(|c| c.raw_mb_s), set_by)
        {
            let m = format!("{}: {m}", r.test.name());
            crate::outln!("iomark: {m}");
            warnings.push(Warning {
                id: "RESULT_EXCEEDS_CEILING".into(),
                message: m,
            });
        }
    }
    for w in &warnings {
        if w.id != "RESULT_EXCEEDS_CEILING" {
            crate::outln!("iomark: {}: {}", w.id, w.message);
        }
    }
    if let Some(p) = &job.json {
        let r = result(job, &rows, &diag, warnings);
        if let Err(e) = json::write_atomic(p, &r) {
            eprintln!("iomark mark: cannot write --json={}: {e}", p.display());
            return exit::ENVIRONMENT;
        }
    }
    exit::OK
}

fn interrupted_or(signals: &Signals, code: i32, what: &str) -> i32 {
    match signals.exit_code() {
        Some(c) => {
            eprintln!("iomark mark: interrupted {what}; the test file was removed (exit {c})");
            c
        }
        None => {
            eprintln!("iomark mark: failed {what} (exit {code}); the test file was removed");
            code
        }
    }
}

/// The `RunResult` of a mark run: command `mark`, one phase per test (median loop).
pub fn result(job: &MarkJob, rows: &[Row], diag: &Diagnosis, warnings: Vec<Warning>) -> RunResult {
    let elapsed: f64 = rows.iter().map(|r| r.median.seconds).sum();
    RunResult {
        schema_version: json::SCHEMA_VERSION,
        tool: "iomark".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command: "mark".into(),
        argv: job.argv.clone(),
        status: Status::Ok,
        error: None,
        job: JobInfo {
            kind: format!("mark:{}", job.preset),
            engine: "io_uring (QD>1), psync (Q1)".into(),
            files: 1,
            file_size_bytes: job.size,
            total_size_bytes: job.size,
            time_limit_s: job.time_s,
            direct: true,
            data_pattern: Some(crate::job::fileio::DataPattern::Random),
            directory: crate::target::fileset::dir_name(&job.path),
            fsync_mode: "none".into(),
            ..Default::default()
        },
        elapsed_s: elapsed,
        period_s: elapsed,
        events: rows.iter().map(|r| r.median.ops).sum(),
        read: Default::default(),
        write: Default::default(),
        fsync: Default::default(),
        lat: Default::default(),
        threads: vec![],
        intervals: vec![],
        page_cache: None,
        warnings,
        diagnosis: Some(json::TargetDiagnosis {
            summary: diag.summary.clone(),
            ceiling_raw_mb_s: diag.ceiling.as_ref().map(|c| c.raw_mb_s),
            findings: diag.findings.iter().map(|f| f.id.clone()).collect(),
        }),
        phases: rows.iter().map(phase_of).collect(),
        clat: None,
        series: None,
        cpu: None,
    }
}
