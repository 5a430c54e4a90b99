//! Execution of `iomark tree`: a small-file workload shaped like a package tree or a
//! source checkout. A deterministic [`Plan`] (directories, file names and sizes from a
//! seed) is built first; then the phases run in order, each timed as a whole and per
//! operation (HDR histogram, ns): mkdir, create+write, fsync (`syncfs`), stat-all,
//! read-all, rename, delete, rmdir.
//!
//! Shape: for the phases that act on known names (create+write, stat-all, rename,
//! delete) the file list is sorted by directory and cut into `--threads` contiguous
//! partitions (one walker per partition, `std::thread::scope`), so each walker moves
//! through whole directories; walking the plan guarantees iomark only ever touches its
//! own names. read-all instead does what `tar cf -` does, a readdir walk of the tree on
//! disk (walkdir crate; see the `walk` module) with lstat, open, read and close per file,
//! and is checked against the plan (same files, same bytes). All files live in one fresh
//! directory made by [`Scratch`]; its planned names are registered before they exist, so
//! an error or Ctrl-C removes exactly them (`unlink`/`rmdir`, never recursive).
//! The plan and its size distribution are in `tree/plan.rs`; the JSON's top-level
//! `read`/`write` (the read_all and create_write phases) in `tree/totals.rs`. It prints
//! nothing: [`execute`] returns the result, the front end prints the live lines and the
//! report (report/tree_text.rs).

use crate::engine::fault::{self, Op};
use crate::files::preflight;
use crate::files::scratch::{self, Scratch};
use crate::result::{JobInfo, Phase, Recorded, Warning};
use crate::run::copy::{bar, check_dir, ended, short, waiting, Done, Live, PhaseRun, RunError};
use crate::run::sampler::IoCounts;
use crate::run::signals::Signals;
use crate::run::sysbench::rng::{GlibcRandom, Xoroshiro128Plus};
use crate::stats::{self, clock::Clock};
use crate::util::text::{iec, plural};
use hdrhistogram::Histogram;
use indicatif::ProgressBar;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

mod plan;
mod totals;
mod walk;
use plan::median;
pub use plan::{file_size, plan, renamed, Entry, Plan, BUCKETS, MAX_FILE, MEAN_ESTIMATE};

/// A validated tree job.
#[derive(Clone, Debug)]
pub struct TreeJob {
    /// directory the fresh tree directory is created in
    pub dir: PathBuf,
    /// files (> 0)
    pub files: u64,
    /// directories below the tree's root (> 0)
    pub dirs: u64,
    /// parallel walkers (> 0)
    pub threads: u32,
    /// seed of the plan and the data
    pub seed: u32,
    /// `--json=FILE`
    pub json: Option<PathBuf>,
    /// `--keep`: stop after read-all and leave the tree in place (no rename, delete or
    /// rmdir phases); still removed after an error or Ctrl-C
    pub keep: bool,
    /// argv after the command word
    pub argv: Vec<String>,
    /// `--drop-caches=auto` (true): before stat_all and read_all, drop the whole
    /// system's caches when root; `off` (false): never touch them
    pub drop_caches: bool,
}

/// Measured figures of one phase.
struct Measured {
    hist: Histogram<u64>,
    sum_ns: u64,
    bytes: u64,
    ops: u64,
    seconds: f64,
    /// a signal stopped it before its end: the figures cover the operations done
    stopped: bool,
}

/// One walker's figures: latency histogram, latency sum (ns), bytes and operations.
type Part = (Histogram<u64>, u64, u64, u64);

/// Run `op` on every file, `threads` walkers over contiguous partitions; per-op latency.
fn parallel<F>(
    files: &[Entry],
    threads: u32,
    clock: &Clock,
    stop: &AtomicBool,
    pb: &ProgressBar,
    op: F,
) -> Result<Measured, RunError>
where
    F: Fn(&Entry) -> Result<u64, RunError> + Sync,
{
    let n = (threads as usize).clamp(1, files.len().max(1));
    let chunk = files.len().div_ceil(n).max(1);
    let abort = AtomicBool::new(false);
    let first_err: Mutex<Option<RunError>> = Mutex::new(None);
    let t0 = Instant::now();
    let parts: Vec<Part> = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                let (abort, first_err, op) = (&abort, &first_err, &op);
                std::thread::Builder::new()
                    .spawn_scoped(s, move || {
                        walk_part(part, clock, (stop, abort), first_err, pb, op)
                    })
                    .inspect_err(|_| abort.store(true, Ordering::Relaxed))
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| match h {
                Ok(h) => Some(h.join().unwrap_or_else(|_| (stats::new_hist(), 0, 0, 0))),
                Err(e) => {
                    // The OS refused a thread: stop the others, report it (exit 3).
                    abort.store(true, Ordering::Relaxed);
                    let e = RunError::Env(format!("cannot start a walker thread: {e}"));
                    keep_first(&first_err, e);
                    None
                }
            })
            .collect()
    });
    let seconds = t0.elapsed().as_secs_f64();
    if let Some(e) = first_err.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    // a signal: the operations done so far are the phase's (marked partial)
    let mut m = Measured {
        hist: stats::new_hist(),
        sum_ns: 0,
        bytes: 0,
        ops: 0,
        seconds,
        stopped: stop.load(Ordering::Relaxed),
    };
    for (h, s, b, o) in parts {
        let _ = m.hist.add(&h);
        m.sum_ns += s;
        m.bytes += b;
        m.ops += o;
    }
    // a signal after the last file left the phase whole
    m.stopped &= m.ops < files.len() as u64;
    Ok(m)
}

/// One walker of [`parallel`]: `op` on each file of its partition, timed, until the
/// end, a signal (`stop`, which it passes on to the others through `abort`), another
/// walker's error (`abort`) or its own (kept in `first_err` when it is the first).
fn walk_part<F>(
    part: &[Entry],
    clock: &Clock,
    (stop, abort): (&AtomicBool, &AtomicBool),
    first_err: &Mutex<Option<RunError>>,
    pb: &ProgressBar,
    op: &F,
) -> Part
where
    F: Fn(&Entry) -> Result<u64, RunError> + Sync,
{
    let mut h = stats::new_hist();
    let (mut sum, mut bytes, mut ops) = (0u64, 0u64, 0u64);
    for e in part {
        if abort.load(Ordering::Relaxed) {
            break;
        }
        if stop.load(Ordering::Relaxed) {
            abort.store(true, Ordering::Relaxed);
            break;
        }
        let a = clock.now();
        match op(e) {
            Ok(b) => {
                let ns = clock.ns(a, clock.now());
                let _ = h.record(ns.clamp(1, stats::MAX_TRACKABLE_NS));
                sum += ns;
                bytes += b;
                ops += 1;
                pb.inc(1);
            }
            Err(err) => {
                abort.store(true, Ordering::Relaxed);
                keep_first(first_err, err);
                break;
            }
        }
    }
    (h, sum, bytes, ops)
}

/// Keep `e` as the phase's error unless a walker already kept one.
fn keep_first(first_err: &Mutex<Option<RunError>>, e: RunError) {
    let mut g = first_err.lock().unwrap_or_else(|p| p.into_inner());
    if g.is_none() {
        *g = Some(e);
    }
}

/// The `read_all` phase note: what the phase does with `threads` walkers.
fn read_all_note(threads: u32) -> String {
    let who = if threads <= 1 {
        "one walker, depth first in readdir order (walkdir crate; the order tar uses)".to_string()
    } else {
        format!("{threads} walkers sharing a work queue of directories")
    };
    format!(
        "what tar cf - does: readdir walk ({who}, symlinks not followed), per entry lstat, per regular file open, read to the end in 128 KiB requests, close; per-file latency covers lstat to close, directory reads count in the phase time only; checked: the walk found every file and every byte written"
    )
}

/// An I/O error of a phase: the environment's (exit 3) for a full, read-only or
/// forbidden filesystem and for a name taken already where iomark creates its own
/// (EEXIST: a link or file planted inside its scratch directory, never followed or
/// reused), else a failed run (exit 1).
fn fail(what: &str, p: &Path, e: &io::Error) -> RunError {
    match e.raw_os_error() {
        Some(libc::ENOSPC | libc::EDQUOT | libc::EACCES | libc::EROFS | libc::EEXIST) => {
            RunError::Env(format!("{what} {}: {}", p.display(), short(e)))
        }
        _ => RunError::Failed(format!("{what} {}: {}", p.display(), short(e))),
    }
}

fn phase_of(name: &str, m: &Measured) -> Phase {
    let mut p = Phase::new(name, m.ops, m.bytes, m.seconds);
    p.lat = Some(crate::result::build::latency(
        stats::summarize(&m.hist, m.sum_ns),
        m.hist.clone(),
        0,
    ));
    if m.stopped {
        p.partial = true;
        p.notes.push(format!(
            "partial: stopped by a signal after {} operations; the figures cover those",
            m.ops
        ));
    }
    p
}

/// Keep phase `p`; a phase a signal cut short, or a signal during it, ends the run
/// there (exit 130/143), with every phase that ran in the result.
fn keep(phases: &mut Vec<Phase>, p: Phase, stop: &AtomicBool) -> Result<(), RunError> {
    let stopped = p.partial || stop.load(Ordering::Relaxed);
    phases.push(p);
    if stopped {
        return Err(RunError::Interrupted);
    }
    Ok(())
}

/// What `--drop-caches` will do in this run, said before the phases start: with
/// `drop` (auto) and root, the whole system's caches are dropped twice.
pub fn cache_plan(drop: bool, root: bool) -> String {
    match (drop, root) {
        (true, true) => "caches: --drop-caches=auto as root: before stat_all and read_all the whole system's page cache, dentries and inodes are dropped (sync; echo 3 > /proc/sys/vm/drop_caches); --drop-caches=off keeps them".into(),
        (true, false) => "caches: --drop-caches=auto without root: caches cannot be dropped, stat_all and read_all may be served from memory".into(),
        (false, _) => "caches: --drop-caches=off: caches are left alone, stat_all and read_all may be served from memory".into(),
    }
}

/// Try to drop every cache (root only) unless `drop` is off. Returns the `cache` text
/// of the phase.
fn cold_or_warm(dir: &std::path::Path, drop: bool) -> String {
    if let Some(fs) = crate::probe::pagecache::memory_fs(dir) {
        return format!("warm: the tree is on {fs} (memory), which no cache drop can evict");
    }
    if !drop {
        return "warm: caches not dropped (--drop-caches=off), metadata and data may come from memory".into();
    }
    let w = waiting("dropping caches: sync; echo 3 > /proc/sys/vm/drop_caches");
    let dropped = scratch::drop_all_caches();
    w.finish_and_clear();
    match dropped {
        Ok(()) => "cold: page cache, dentries and inodes dropped (sync; echo 3 > /proc/sys/vm/drop_caches, as root)".into(),
        Err(e) => format!(
            "warm: caches not dropped ({}: needs root), metadata and data may come from memory",
            short(&e)
        ),
    }
}

/// The job as the result's summary describes it.
fn summary(job: &TreeJob) -> JobInfo {
    JobInfo {
        kind: "tree".into(),
        engine: "psync".into(),
        iodepth: 1,
        threads: job.threads,
        files: u32::try_from(job.files).unwrap_or(u32::MAX),
        block_size_bytes: 128 * 1024,
        rand_seed: u64::from(job.seed),
        rand_seed_used: u64::from(job.seed),
        data_pattern: Some(crate::job::sysbench::DataPattern::Random),
        directory: std::fs::canonicalize(&job.dir)
            .unwrap_or_else(|_| job.dir.clone())
            .display()
            .to_string(),
        ..Default::default()
    }
}

/// Run a tree job whose [`prepare`] gave `plan`: `live` gets the warnings, the start
/// line and the kept tree while it runs; the result holds the phases that finished.
/// Prints nothing.
pub fn execute(job: &TreeJob, plan: &Plan, signals: &Signals, live: &dyn Fn(Live)) -> PhaseRun {
    let t0 = Instant::now();
    let watch = crate::probe::devstat::Watch::of_path(&crate::probe::Root::of_samples(), &job.dir);
    // the run over time: the bytes the walkers write and read, and the disk under DIR
    let counts = std::sync::Arc::new(IoCounts::default());
    let sampler = crate::run::sampler::Background::of_path(t0, &job.dir, &counts);
    let mut phases = Vec::new();
    let mut warnings = Vec::new();
    let mut scratch = Scratch::new();
    let r = run(
        job,
        plan,
        (&signals.stop, &counts),
        &mut scratch,
        (&mut phases, &mut warnings),
        live,
    );
    let samples = sampler.and_then(|s| s.finish());
    let mut recorded = Recorded::totals(
        totals::dir_totals(&phases, totals::READ_PHASE),
        totals::dir_totals(&phases, totals::WRITE_PHASE),
        Some(crate::run::copy::measured_secs(&phases)),
    );
    recorded.time = totals::time_shares(&phases);
    let mut summary = summary(job);
    summary.total_size_bytes = phases
        .iter()
        .find(|p| p.name == "create_write")
        .map_or(0, |p| p.bytes);
    let done = Done {
        cmd: "tree",
        argv: &job.argv,
        removed: "the files and directories iomark created were removed",
        t0,
        phases,
        warnings,
        watch,
    };
    if let Some(l) = crate::run::copy::removing_line("tree", &scratch, signals.exit_code()) {
        live(Live::Err(l));
    }
    let (mut i, closing, code) = ended(done, &r, &mut scratch, signals.exit_code());
    (i.summary, i.recorded) = (summary, recorded);
    if let Some(s) = samples {
        s.into_inputs(&mut i);
    }
    let dir = std::fs::canonicalize(&job.dir).unwrap_or_else(|_| job.dir.clone());
    i.targets = vec![crate::probe::diagnosis::diagnose(
        &crate::probe::Root::default(),
        &crate::probe::diagnosis::Inputs {
            path: dir.display().to_string(),
            ..Default::default()
        },
    )];
    PhaseRun {
        result: crate::result::build(i),
        code,
        kept: vec![],
        closing,
    }
}

/// The checks before anything is created (DIR, inodes, space) and the plan: a plan
/// of 10^8 files takes gigabytes, so the cheap checks come first.
pub fn prepare(job: &TreeJob) -> Result<Plan, RunError> {
    check_dir("DIR", &job.dir)?;
    // Cheap checks before planning: inodes, and space for the distribution's mean
    // (≈ 15.2 KiB of data per file).
    if let Ok(s) = rustix::fs::statvfs(&job.dir) {
        let inodes = job.files + job.dirs + 1;
        if s.f_files > 0 && s.f_favail < inodes {
            return Err(RunError::Env(format!(
                "not enough free inodes in '{}': need {inodes} ({} files + {} directories + 1), {} available",
                job.dir.display(),
                job.files,
                job.dirs,
                s.f_favail
            )));
        }
    }
    if let Some(free) = preflight::free_space(&job.dir) {
        let est = job.files.saturating_mul(MEAN_ESTIMATE);
        if est > free {
            return Err(RunError::Env(format!(
                "not enough free space in '{}': {} files need about {} (mean {} per file), {} available",
                job.dir.display(),
                job.files,
                iec(est),
                iec(MEAN_ESTIMATE),
                iec(free)
            )));
        }
    }
    let plan = plan(job.files, job.dirs, job.seed);
    let total = plan.bytes();
    // Space: data rounded up to 4 KiB blocks plus one block per directory; inodes too.
    let need: u64 = plan
        .files
        .iter()
        .map(|f| f.size.div_ceil(4096) * 4096)
        .sum::<u64>()
        + (job.dirs + 1) * 4096;
    if let Some(free) = preflight::free_space(&job.dir) {
        if need > free {
            return Err(RunError::Env(format!(
                "not enough free space in '{}': need {} ({} files holding {} in all, each rounded up to 4 KiB blocks, plus {} directories), {} available ({} < {} bytes)",
                job.dir.display(), iec(need), job.files, iec(total), job.dirs + 1, iec(free), free, need
            )));
        }
    }
    Ok(plan)
}

/// What every phase needs: the job, its plan, the clock and the stop flag.
/// What every phase reads: the job, the plan, the clock, the stop flag and the
/// counters the run's sampler reads.
type Ctx<'a> = (
    &'a TreeJob,
    &'a Plan,
    &'a Clock,
    &'a AtomicBool,
    &'a IoCounts,
);

/// Time `op` once per directory of the plan, single-threaded (`rev`: children first);
/// a set `stop` ends it between two directories (partial).
fn dirs_phase(
    (plan, clock, stop): (&Plan, &Clock, &AtomicBool),
    root: &Path,
    rev: bool,
    mut op: impl FnMut(&Path) -> Result<(), RunError>,
) -> Result<Measured, RunError> {
    let mut h = stats::new_hist();
    let (mut sum, mut ops, t) = (0u64, 0u64, Instant::now());
    let dirs: Vec<&PathBuf> = if rev {
        plan.dirs.iter().rev().collect()
    } else {
        plan.dirs.iter().collect()
    };
    let mut stopped = false;
    for d in dirs {
        if stop.load(Ordering::Relaxed) {
            stopped = true;
            break;
        }
        let p = root.join(d);
        let a = clock.now();
        op(&p)?;
        let ns = clock.ns(a, clock.now());
        let _ = h.record(ns.clamp(1, stats::MAX_TRACKABLE_NS));
        sum += ns;
        ops += 1;
    }
    Ok(Measured {
        hist: h,
        sum_ns: sum,
        bytes: 0,
        ops,
        seconds: t.elapsed().as_secs_f64(),
        stopped,
    })
}

/// mkdir: single-threaded, parents before children.
fn mkdir_phase((_, plan, clock, stop, _): Ctx, root: &Path) -> Result<Phase, RunError> {
    let pb = bar(plan.dirs.len() as u64, "mkdir", false);
    let m = dirs_phase((plan, clock, stop), root, false, |p| {
        let creating = fault::create_hook();
        scratch::mkdir(p).map_err(|e| fail("cannot create directory", p, &e))?;
        drop(creating);
        pb.inc(1);
        Ok(())
    })?;
    pb.finish_and_clear();
    let mut p = phase_of("mkdir", &m);
    p.notes
        .push("single-threaded, parents before children".into());
    Ok(p)
}

/// A phase over every file of the plan with `threads` walkers.
fn files_phase(
    (job, plan, clock, stop, _): Ctx,
    name: &str,
    label: &str,
    op: impl Fn(&Entry) -> Result<u64, RunError> + Sync,
) -> Result<Phase, RunError> {
    let pb = bar(plan.files.len() as u64, label, false);
    let m = parallel(&plan.files, job.threads, clock, stop, &pb, op)?;
    pb.finish_and_clear();
    Ok(phase_of(name, &m))
}

/// create+write: O_EXCL create, one write of the whole file, close.
fn create_phase(ctx: Ctx, root: &Path) -> Result<Phase, RunError> {
    let counts = ctx.4;
    let mut data = vec![0u8; MAX_FILE as usize];
    Xoroshiro128Plus::from_glibc(&mut GlibcRandom::new(ctx.0.seed ^ 0x5eed)).fill(&mut data);
    let mut p = files_phase(ctx, "create_write", "create+write", |e| {
        let p = root.join(&e.rel);
        let creating = fault::create_hook();
        let mut f = scratch::create_excl(&p, false).map_err(|er| fail("cannot create", &p, &er))?;
        drop(creating);
        let off = (e.rel.as_os_str().len() * 4099) as u64 % (MAX_FILE - e.size + 1);
        fault::io_hook(Op::Write)
            .and_then(|_| f.write_all(&data[off as usize..(off + e.size) as usize]))
            .map_err(|er| fail("cannot write at offset 0 of", &p, &er))?;
        counts.write(e.size);
        Ok(e.size)
    })?;
    p.notes.push(
        "per file: open(O_CREAT|O_EXCL), one write, close; no fsync (see the fsync phase)".into(),
    );
    Ok(p)
}

/// fsync: one syncfs for the whole filesystem.
fn fsync_phase(root: &Path, clock: &Clock, total: u64) -> Result<Phase, RunError> {
    let w = waiting("fsync: syncfs, waiting for the filesystem to write the tree back");
    let t = Instant::now();
    let a = clock.now();
    fault::io_hook(Op::Fsync)
        .and_then(|_| scratch::syncfs(root))
        .map_err(|e| fail("syncfs", root, &e))?;
    let ns = clock.ns(a, clock.now());
    w.finish_and_clear();
    let mut h = stats::new_hist();
    let _ = h.record(ns.clamp(1, stats::MAX_TRACKABLE_NS));
    let m = Measured {
        hist: h,
        sum_ns: ns,
        bytes: total,
        ops: 1,
        seconds: t.elapsed().as_secs_f64(),
        stopped: false,
    };
    let mut p = phase_of("fsync", &m);
    // Most data was written back during create_write already: a bandwidth over the
    // syncfs time would be meaningless, so the phase carries no bytes.
    p.bytes = 0;
    p.mb_per_s = 0.0;
    p.mib_per_s = 0.0;
    p.notes.push("one syncfs(2) on the filesystem: makes the created tree durable (no bandwidth: much of the data was written back during create_write)".into());
    Ok(p)
}

/// read-all: the read tar does — readdir walk, lstat, open + read + close per file.
fn read_phase((job, plan, clock, stop, counts): Ctx, root: &Path) -> Result<Phase, RunError> {
    let cache = cold_or_warm(root, job.drop_caches);
    let pb = bar(plan.files.len() as u64, "read", false);
    let mut m = walk::read_all(root, job.threads, clock, stop, (&pb, counts))?;
    m.stopped &= m.ops < plan.files.len() as u64;
    pb.finish_and_clear();
    let total = plan.bytes();
    if !m.stopped && (m.ops != plan.files.len() as u64 || m.bytes != total) {
        return Err(RunError::Failed(format!(
            "{}: the walk found {} holding {} bytes, {} holding {total} bytes were written",
            root.display(),
            plural(m.ops, "file", "files"),
            m.bytes,
            plural(plan.files.len() as u64, "file", "files")
        )));
    }
    let mut p = phase_of("read_all", &m);
    p.cache = Some(cache);
    p.notes.push(read_all_note(job.threads));
    Ok(p)
}

/// rename, delete, rmdir: the tree goes away.
fn teardown(
    ctx: Ctx,
    root: &Path,
    scratch: &Scratch,
    phases: &mut Vec<Phase>,
) -> Result<(), RunError> {
    scratch.verify_dirs().map_err(RunError::Failed)?;
    let mut p = files_phase(ctx, "rename", "rename", |e| {
        let p = root.join(&e.rel);
        scratch::rename_noreplace(&p, &renamed(&p)).map_err(|er| fail("cannot rename", &p, &er))?;
        Ok(0)
    })?;
    p.notes
        .push("renameat2(RENAME_NOREPLACE) within the same directory".into());
    keep(phases, p, ctx.3)?;
    scratch.verify_dirs().map_err(RunError::Failed)?;
    let mut p = files_phase(ctx, "delete", "delete", |e| {
        let p = renamed(&root.join(&e.rel));
        scratch::unlink(&p).map_err(|er| fail("cannot delete", &p, &er))?;
        Ok(0)
    })?;
    p.notes.push("unlink per file".into());
    keep(phases, p, ctx.3)?;
    scratch.verify_dirs().map_err(RunError::Failed)?;
    let pb = bar(ctx.1.dirs.len() as u64, "rmdir", false);
    let m = dirs_phase((ctx.1, ctx.2, ctx.3), root, true, |p| {
        scratch::rmdir(p).map_err(|e| fail("cannot remove directory", p, &e))?;
        pb.inc(1);
        Ok(())
    })?;
    pb.finish_and_clear();
    keep(phases, phase_of("rmdir", &m), ctx.3)
}

/// The tree directory with every planned name registered (so an error or a signal
/// removes exactly them), and the start line.
fn make_root(
    job: &TreeJob,
    plan: &Plan,
    scratch: &mut Scratch,
    live: &dyn Fn(Live),
) -> Result<PathBuf, RunError> {
    let root = job.dir.join(format!("iomark-tree.{}", std::process::id()));
    scratch
        .create_dir(&root)
        .map_err(|e| match e.is_environment() {
            true => RunError::Env(e.to_string()),
            false => RunError::Failed(e.to_string()),
        })?;
    scratch.register_dirs_in(&root, plan.dirs.iter().map(|d| root.join(d)));
    scratch.register_files_in(
        &root,
        plan.files
            .iter()
            .flat_map(|f| [root.join(&f.rel), root.join(renamed(&f.rel))]),
    );
    live(Live::Out(format!(
        "iomark tree: {} ({}, median {}) in {} under {}, {}",
        plural(plan.files.len() as u64, "file", "files"),
        iec(plan.bytes()),
        iec(median(plan)),
        plural(plan.dirs.len() as u64, "directory", "directories"),
        root.display(),
        plural(job.threads as u64, "walker thread", "walker threads")
    )));
    Ok(root)
}

fn run(
    job: &TreeJob,
    plan: &Plan,
    (stop, counts): (&AtomicBool, &IoCounts),
    scratch: &mut Scratch,
    (phases, warnings): (&mut Vec<Phase>, &mut Vec<Warning>),
    live: &dyn Fn(Live),
) -> Result<(), RunError> {
    if let Some(fs) = crate::probe::pagecache::memory_fs(&job.dir) {
        let w = Warning {
            id: "target.memory_fs".into(),
            message: format!(
                "DIR '{}' is on {fs}: the tree measures memory, not a drive",
                job.dir.display()
            ),
        };
        live(Live::Err(format!("WARNING: {}", w.message)));
        warnings.push(w);
    }
    let root = make_root(job, plan, scratch, live)?;
    live(Live::Out(cache_plan(
        job.drop_caches,
        rustix::process::geteuid().is_root(),
    )));
    let clock = crate::run::clock();
    let ctx = (job, plan, &clock, stop, counts);
    keep(phases, mkdir_phase(ctx, &root)?, stop)?;
    scratch.verify_dirs().map_err(RunError::Failed)?;
    keep(phases, create_phase(ctx, &root)?, stop)?;
    keep(phases, fsync_phase(&root, &clock, plan.bytes())?, stop)?;
    scratch.verify_dirs().map_err(RunError::Failed)?;
    let cache = cold_or_warm(&root, job.drop_caches);
    let mut p = files_phase(ctx, "stat_all", "stat", |e| {
        let p = root.join(&e.rel);
        std::fs::symlink_metadata(&p).map_err(|er| fail("cannot stat", &p, &er))?;
        Ok(0)
    })?;
    p.cache = Some(cache);
    p.notes.push("lstat per file".into());
    keep(phases, p, stop)?;
    scratch.verify_dirs().map_err(RunError::Failed)?;
    keep(phases, read_phase(ctx, &root)?, stop)?;
    if job.keep {
        // --keep: leave the tree for another tool (bench/copy-tree-vs-shell.sh reads it).
        scratch.release();
        live(Live::Out(format!("kept: {}", root.display())));
        return Ok(());
    }
    teardown(ctx, &root, scratch, phases)
}
