//! Execution of `iomark copy`: create an incompressible source file, copy it with each
//! method the common tools use, time every copy to the last write and to the end of the
//! final `fsync`, verify the destination byte for byte, and report.
//!
//! Shape: one [`CopyJob`] (validated by `cli::copy`) → [`execute`] → exit code. The
//! environment checks (directories, same file, permissions, free space) happen here,
//! before any file is created; every file is created and removed through
//! [`crate::target::scratch::Scratch`], so only files iomark made are ever removed (also
//! after SIGINT/SIGTERM, which stop the copy loops between two requests).
//! The page cache is dropped with `posix_fadvise(POSIX_FADV_DONTNEED)` after `fsync`
//! before every phase and the residency is checked with `mincore(2)`; the durable time
//! (including `fsync`) is the honest figure, the other one shows what a tool that does
//! not sync appears to achieve.

use crate::engine::buffers::{AlignedBuf, ALIGN};
use crate::exit;
use crate::job::values::iec;
use crate::report::json::{self, JobInfo, Phase, RunResult, Status, Warning};
use crate::run::rng::{GlibcRandom, Xoroshiro128Plus};
use crate::run::signals::Signals;
use crate::target::preflight;
use crate::target::scratch::{self, Scratch, ScratchError};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Block size of the buffered (cp-like) method, bytes.
pub const BUFFERED_BLOCK: usize = 128 * 1024;
/// Block size of the O_DIRECT method, bytes.
pub const DIRECT_BLOCK: usize = 4 * 1024 * 1024;
/// Largest `copy_file_range` request, bytes (keeps the progress bar and Ctrl-C responsive).
pub const CFR_CHUNK: usize = 64 * 1024 * 1024;

/// A validated copy job.
#[derive(Clone, Debug)]
pub struct CopyJob {
    /// directory the source file is created in
    pub src_dir: PathBuf,
    /// directory the copies are written to
    pub dst_dir: PathBuf,
    /// source file size, bytes (> 0)
    pub size: u64,
    /// seed of the data generator
    pub seed: u32,
    /// `--json=FILE`
    pub json: Option<PathBuf>,
    /// `--keep`: leave the source and every destination file in place (no cleanup after
    /// a successful run; needs room for four files)
    pub keep: bool,
    /// argv after the command word
    pub argv: Vec<String>,
}

/// What stopped a copy or tree run; maps to an exit code with [`RunError::code`].
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// bad input (exit 2)
    #[error("{0}")]
    Invalid(String),
    /// the environment cannot do it (exit 3)
    #[error("{0}")]
    Env(String),
    /// an I/O error or a verification failure (exit 1)
    #[error("{0}")]
    Failed(String),
    /// SIGINT/SIGTERM
    #[error("interrupted")]
    Interrupted,
}

impl RunError {
    /// Exit code (DESIGN.md policy); `sig` is the code of the signal received.
    pub fn code(&self, sig: Option<i32>) -> i32 {
        match self {
            RunError::Invalid(_) => exit::INVALID,
            RunError::Env(_) => exit::ENVIRONMENT,
            RunError::Failed(_) => exit::FAILED,
            RunError::Interrupted => sig.unwrap_or(exit::SIGINT),
        }
    }
}

/// A progress bar on stderr, drawn only when stderr is a terminal (hidden otherwise).
pub fn bar(len: u64, msg: &str, bytes: bool) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let tpl = if bytes {
        "{msg:>22} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}"
    } else {
        "{msg:>22} [{bar:30}] {pos}/{len} {per_sec} eta {eta}"
    };
    if let Ok(s) = ProgressStyle::with_template(tpl) {
        b.set_style(s.progress_chars("=> "));
    }
    b.set_message(msg.to_string());
    b
}

/// A phase-shaped [`RunResult`] (`copy`, `tree`): the fileio sections stay empty,
/// the numbers are in `phases`.
pub fn phase_result(
    command: &str,
    argv: &[String],
    job: JobInfo,
    status: Status,
    error: Option<String>,
    elapsed_s: f64,
    phases: Vec<Phase>,
) -> RunResult {
    RunResult {
        schema_version: json::SCHEMA_VERSION,
        tool: "iomark".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command: command.into(),
        argv: argv.to_vec(),
        status,
        error,
        job,
        elapsed_s,
        period_s: elapsed_s,
        events: phases.iter().map(|p| p.ops).sum(),
        read: Default::default(),
        write: Default::default(),
        fsync: Default::default(),
        lat: Default::default(),
        threads: vec![],
        intervals: vec![],
        page_cache: None,
        warnings: vec![],
        diagnosis: None,
        phases,
        cpu: None,
    }
}

/// How a phase-shaped command ended: report the error (or the interruption) on stderr
/// as `iomark CMD: …` and give the result status, error text and exit code.
pub fn outcome(
    cmd: &str,
    removed: &str,
    r: &Result<(), RunError>,
    signals: &Signals,
) -> (Status, Option<String>, i32) {
    match r {
        Ok(()) => (Status::Ok, None, exit::OK),
        Err(RunError::Interrupted) => {
            eprintln!("iomark {cmd}: interrupted; {removed}");
            (
                Status::Interrupted,
                None,
                RunError::Interrupted.code(signals.exit_code()),
            )
        }
        Err(e) => {
            eprintln!("iomark {cmd}: {e}");
            (Status::Failed, Some(e.to_string()), e.code(None))
        }
    }
}

/// Write the `{"status": "running"}` placeholder so a bad `--json` path fails before work.
pub fn json_placeholder(path: &Path) -> Result<(), RunError> {
    json::write_atomic(
        path,
        &serde_json::json!({"schema_version": json::SCHEMA_VERSION, "tool": "iomark", "status": "running"}),
    )
    .map_err(|e| RunError::Env(format!("--json={}: {e}", path.display())))
}

/// Check a directory argument: it must exist, be a directory and be writable.
/// `what` is `SRC`, `DST` or `DIR` for the messages.
pub fn check_dir(what: &str, dir: &Path) -> Result<(), RunError> {
    let md = std::fs::metadata(dir).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => {
            RunError::Env(format!("{what} '{}' does not exist", dir.display()))
        }
        _ => RunError::Env(format!("{what} '{}': {}", dir.display(), short(&e))),
    })?;
    if !md.is_dir() {
        return Err(RunError::Invalid(format!(
            "{what} '{}' is not a directory (iomark creates its own files in a directory; it never reads or changes yours)",
            dir.display()
        )));
    }
    let c = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(dir.as_os_str()))
        .map_err(|_| RunError::Invalid(format!("{what}: path contains a NUL byte")))?;
    // SAFETY: access(2) with a valid C string.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
        let e = io::Error::last_os_error();
        return Err(RunError::Env(format!(
            "cannot create files in {what} '{}': {}",
            dir.display(),
            short(&e)
        )));
    }
    Ok(())
}

/// OS error text without the "(os error N)" suffix.
pub fn short(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => crate::target::strerror(n),
        None => e.to_string(),
    }
}

/// Stage 2 checks of a copy job, before anything is created: SRC/DST shape, same
/// file, DST inside a SRC file, permissions and free space (statvfs).
pub fn resolve(job: &CopyJob) -> Result<(), RunError> {
    let (s, d) = (&job.src_dir, &job.dst_dir);
    let sm = std::fs::metadata(s).ok();
    let dm = std::fs::metadata(d).ok();
    if let (Some(a), Some(b)) = (&sm, &dm) {
        if a.is_file() && a.dev() == b.dev() && a.ino() == b.ino() {
            return Err(RunError::Invalid(format!(
                "SRC '{}' and DST '{}' are the same file (both must be directories: iomark copy creates its own source file)",
                s.display(),
                d.display()
            )));
        }
    }
    if sm.as_ref().is_some_and(|m| !m.is_dir()) {
        let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        if abs(d).starts_with(abs(s)) {
            return Err(RunError::Invalid(format!(
                "DST '{}' is inside SRC '{}', which is a file (both must be directories)",
                d.display(),
                s.display()
            )));
        }
    }
    check_dir("SRC", s)?;
    check_dir("DST", d)?;
    let same_fs = sm.zip(dm).is_some_and(|(a, b)| a.dev() == b.dev());
    // Without --keep one copy exists at a time; with it, all three stay.
    let copies = if job.keep { 3 } else { 1 };
    let need = |n: u64| job.size.saturating_mul(n);
    let checks: Vec<(&Path, u64, String)> = if same_fs {
        vec![(
            s,
            need(1 + copies),
            format!(
                "source {} + {copies} cop{} of {}",
                iec(job.size),
                if copies == 1 { "y" } else { "ies" },
                iec(job.size)
            ),
        )]
    } else {
        vec![
            (s, need(1), format!("source {}", iec(job.size))),
            (
                d,
                need(copies),
                format!(
                    "{copies} cop{} of {}",
                    if copies == 1 { "y" } else { "ies" },
                    iec(job.size)
                ),
            ),
        ]
    };
    for (dir, need, what) in checks {
        if let Some(free) = preflight::free_space(dir) {
            if need > free {
                return Err(RunError::Env(format!(
                    "not enough free space in '{}': need {} ({what}), {} available ({} < {} bytes)",
                    dir.display(),
                    iec(need),
                    iec(free),
                    free,
                    need
                )));
            }
        }
    }
    Ok(())
}

/// Timing of one copy method.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// seconds from the first request to the return of the last write
    pub written_s: f64,
    /// seconds from the first request to the return of the final `fsync`
    pub durable_s: f64,
    /// write requests issued
    pub requests: u64,
    /// bytes copied
    pub bytes: u64,
}

/// Outcome of one method.
enum Method {
    Done(Timing),
    Skipped(String),
}

fn check_stop(stop: &AtomicBool) -> Result<(), RunError> {
    if stop.load(Ordering::Relaxed) {
        Err(RunError::Interrupted)
    } else {
        Ok(())
    }
}

fn io_fail(what: &str, p: &Path, e: &io::Error) -> RunError {
    match e.raw_os_error() {
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => {
            RunError::Env(format!("{what} {}: {}", p.display(), short(e)))
        }
        _ => RunError::Failed(format!("{what} {}: {}", p.display(), short(e))),
    }
}

fn create_err(e: ScratchError) -> RunError {
    match e.os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS) | Some(libc::ENOSPC) => {
            RunError::Env(e.to_string())
        }
        _ => RunError::Failed(e.to_string()),
    }
}

/// Write `size` bytes of xoroshiro128+ output (incompressible) to `f` in 4 MiB chunks.
fn write_source(
    f: &mut File,
    path: &Path,
    size: u64,
    seed: u32,
    stop: &AtomicBool,
    pb: &ProgressBar,
) -> Result<u64, RunError> {
    let mut rng = Xoroshiro128Plus::from_glibc(&mut GlibcRandom::new(seed));
    let mut buf = vec![0u8; DIRECT_BLOCK];
    let mut left = size;
    let mut reqs = 0;
    while left > 0 {
        check_stop(stop)?;
        let n = left.min(buf.len() as u64) as usize;
        rng.fill(&mut buf[..n]);
        f.write_all(&buf[..n])
            .map_err(|e| io_fail("cannot write", path, &e))?;
        left -= n as u64;
        reqs += 1;
        pb.inc(n as u64);
    }
    Ok(reqs)
}

fn buffered(
    src: &Path,
    dst_path: &Path,
    dst: &mut File,
    stop: &AtomicBool,
    pb: &ProgressBar,
) -> Result<Method, RunError> {
    let t0 = Instant::now();
    let mut s = scratch::open_read(src, false).map_err(|e| io_fail("cannot open", src, &e))?;
    // As cp does: tell the kernel the read is sequential (larger readahead).
    // SAFETY: fadvise on our descriptor.
    unsafe { libc::posix_fadvise(s.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL) };
    let mut buf = vec![0u8; BUFFERED_BLOCK];
    let (mut bytes, mut reqs) = (0u64, 0u64);
    loop {
        check_stop(stop)?;
        let n = match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_fail("cannot read", src, &e)),
        };
        dst.write_all(&buf[..n])
            .map_err(|e| io_fail("cannot write", dst_path, &e))?;
        bytes += n as u64;
        reqs += 1;
        pb.inc(n as u64);
    }
    let written_s = t0.elapsed().as_secs_f64();
    dst.sync_all()
        .map_err(|e| io_fail("cannot fsync", dst_path, &e))?;
    Ok(Method::Done(Timing {
        written_s,
        durable_s: t0.elapsed().as_secs_f64(),
        requests: reqs,
        bytes,
    }))
}

fn copy_file_range(
    src: &Path,
    dst_path: &Path,
    dst: &mut File,
    stop: &AtomicBool,
    pb: &ProgressBar,
) -> Result<Method, RunError> {
    let t0 = Instant::now();
    let s = scratch::open_read(src, false).map_err(|e| io_fail("cannot open", src, &e))?;
    let (mut bytes, mut reqs) = (0u64, 0u64);
    loop {
        check_stop(stop)?;
        // SAFETY: copy_file_range on two descriptors we own, using their file offsets.
        let n = unsafe {
            libc::copy_file_range(
                s.as_raw_fd(),
                std::ptr::null_mut(),
                dst.as_raw_fd(),
                std::ptr::null_mut(),
                CFR_CHUNK,
                0,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EXDEV | libc::ENOSYS | libc::EOPNOTSUPP | libc::EINVAL)
                    if bytes == 0 =>
                {
                    return Ok(Method::Skipped(format!(
                        "copy_file_range refused between these filesystems ({}): skipped",
                        short(&e)
                    )));
                }
                _ => return Err(io_fail("copy_file_range to", dst_path, &e)),
            }
        }
        if n == 0 {
            break;
        }
        bytes += n as u64;
        reqs += 1;
        pb.inc(n as u64);
    }
    let written_s = t0.elapsed().as_secs_f64();
    dst.sync_all()
        .map_err(|e| io_fail("cannot fsync", dst_path, &e))?;
    Ok(Method::Done(Timing {
        written_s,
        durable_s: t0.elapsed().as_secs_f64(),
        requests: reqs,
        bytes,
    }))
}

fn direct(
    src: &Path,
    dst_path: &Path,
    dst: &mut File,
    size: u64,
    stop: &AtomicBool,
    pb: &ProgressBar,
) -> Result<Method, RunError> {
    let t0 = Instant::now();
    let s = match scratch::open_read(src, true) {
        Ok(s) => s,
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            return Ok(Method::Skipped(format!(
                "O_DIRECT refused on the source's filesystem ({}): skipped",
                short(&e)
            )))
        }
        Err(e) => return Err(io_fail("cannot open", src, &e)),
    };
    let mut buf = AlignedBuf::new(DIRECT_BLOCK);
    let (mut bytes, mut reqs) = (0u64, 0u64);
    loop {
        check_stop(stop)?;
        // SAFETY: read into our aligned buffer of buf.len() bytes.
        let n = unsafe { libc::read(s.as_raw_fd(), buf.ptr().cast(), buf.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            if e.raw_os_error() == Some(libc::EINVAL) && bytes == 0 {
                return Ok(Method::Skipped(format!(
                    "O_DIRECT read refused ({}): skipped",
                    short(&e)
                )));
            }
            return Err(io_fail("cannot read", src, &e));
        }
        if n == 0 {
            break;
        }
        let n = n as usize;
        // O_DIRECT writes whole aligned blocks: a short tail is padded, then truncated.
        let len = n.div_ceil(ALIGN) * ALIGN;
        if len > n {
            buf.as_mut_slice()[n..len].fill(0);
        }
        let mut off = 0;
        while off < len {
            // SAFETY: write from our aligned buffer; off and len are multiples of ALIGN.
            let w = unsafe { libc::write(dst.as_raw_fd(), buf.ptr().add(off).cast(), len - off) };
            if w < 0 {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EINTR) => continue,
                    Some(libc::EINVAL) if bytes == 0 => {
                        return Ok(Method::Skipped(format!(
                            "O_DIRECT write refused ({}): skipped",
                            short(&e)
                        )))
                    }
                    _ => return Err(io_fail("cannot write", dst_path, &e)),
                }
            }
            if w == 0 {
                return Err(RunError::Failed(format!(
                    "cannot write {}: zero-length write",
                    dst_path.display()
                )));
            }
            off += w as usize;
        }
        bytes += n as u64;
        reqs += 1;
        pb.inc(n as u64);
    }
    if bytes % ALIGN as u64 != 0 || bytes != size {
        dst.set_len(bytes)
            .map_err(|e| io_fail("cannot truncate", dst_path, &e))?;
    }
    let written_s = t0.elapsed().as_secs_f64();
    dst.sync_all()
        .map_err(|e| io_fail("cannot fsync", dst_path, &e))?;
    Ok(Method::Done(Timing {
        written_s,
        durable_s: t0.elapsed().as_secs_f64(),
        requests: reqs,
        bytes,
    }))
}

/// First offset where the files `a` and `b` differ (`Some(len)` of the shorter when
/// one is a prefix of the other); `None` when they are byte-identical.
pub fn first_difference(a: &Path, b: &Path) -> io::Result<Option<u64>> {
    let mut fa = File::open(a)?;
    let mut fb = File::open(b)?;
    let mut ba = vec![0u8; 1 << 20];
    let mut bb = vec![0u8; 1 << 20];
    let mut off = 0u64;
    loop {
        let na = read_full(&mut fa, &mut ba)?;
        let nb = read_full(&mut fb, &mut bb)?;
        if let Some(i) = ba[..na.min(nb)]
            .iter()
            .zip(&bb[..na.min(nb)])
            .position(|(x, y)| x != y)
        {
            return Ok(Some(off + i as u64));
        }
        if na != nb {
            return Ok(Some(off + na.min(nb) as u64));
        }
        if na == 0 {
            return Ok(None);
        }
        off += na as u64;
    }
}

fn read_full(f: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// fsync + `POSIX_FADV_DONTNEED` on a path (drops its clean page-cache pages).
fn drop_cache(p: &Path) -> Result<(), RunError> {
    let f = scratch::open_read(p, false).map_err(|e| io_fail("cannot open", p, &e))?;
    f.sync_all().map_err(|e| io_fail("cannot fsync", p, &e))?;
    scratch::drop_file_cache(&f).map_err(|e| io_fail("posix_fadvise", p, &e))
}

fn pct(r: Option<f64>) -> String {
    r.map_or("unknown".into(), |r| format!("{:.1} %", r * 100.0))
}

/// One printed row.
struct Row {
    label: &'static str,
    timing: Option<Timing>,
    note: Option<String>,
}

fn fmt_rate(bytes: u64, s: f64) -> String {
    let t = if s > 0.0 { s } else { f64::MIN_POSITIVE };
    format!(
        "{:>8.3} s {:>9.1} MB/s {:>9.1} MiB/s",
        s,
        bytes as f64 / t / 1e6,
        bytes as f64 / t / 1_048_576.0
    )
}

/// The path's ceiling from the diagnosis: (text line, lower of read/write MB/s).
fn ceiling(src: &Path, dst: &Path) -> (String, Option<f64>) {
    use crate::probe::diagnosis::{diagnose, Inputs};
    let root = crate::probe::Root::default();
    let get = |p: &Path| {
        diagnose(
            &root,
            &Inputs {
                path: p.display().to_string(),
                ..Default::default()
            },
        )
    };
    let (ds, dd) = (get(src), get(dst));
    let r = ds.ceiling.as_ref().and_then(|c| c.read_mb_s);
    let w = dd.ceiling.as_ref().and_then(|c| c.write_mb_s);
    match (r, w) {
        (Some(r), Some(w)) => (
            format!(
                "ceiling: read {} on SRC (set by {}), write {} on DST (set by {}); a copy cannot beat the lower, {:.0} MB/s",
                crate::probe::ceiling::Ceiling::describe(r),
                ds.ceiling.as_ref().map_or("", |c| c.set_by.as_str()),
                crate::probe::ceiling::Ceiling::describe(w),
                dd.ceiling.as_ref().map_or("", |c| c.set_by.as_str()),
                r.min(w)
            ),
            Some(r.min(w)),
        ),
        _ => {
            let why: Vec<String> = [&ds, &dd]
                .iter()
                .filter(|d| d.ceiling.is_none())
                .filter_map(|d| d.ceiling_unknown.clone())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            (
                format!(
                    "ceiling: unknown ({})",
                    if why.is_empty() {
                        "the diagnosis found no link rate".to_string()
                    } else {
                        why.join("; ")
                    }
                ),
                None,
            )
        }
    }
}

/// Run a copy job; prints the report on stdout and returns the exit code.
pub fn execute(job: &CopyJob) -> i32 {
    let signals = Signals::install();
    let t0 = Instant::now();
    let mut phases = Vec::new();
    let mut warnings = Vec::new();
    let mut scratch = Scratch::new();
    let mut started = false;
    let r = run(
        job,
        &signals.stop,
        &mut scratch,
        &mut phases,
        &mut warnings,
        &mut started,
    );
    if job.keep && r.is_ok() {
        for f in scratch.release() {
            crate::outln!("kept: {}", f.display());
        }
    }
    for e in scratch.cleanup() {
        eprintln!("iomark copy: {e}");
    }
    let (status, error, code) = outcome(
        "copy",
        "the files iomark created were removed",
        &r,
        &signals,
    );
    // Errors found before the placeholder was written leave no JSON file; after it, the
    // result (ok, failed or interrupted) always replaces the placeholder.
    if let (Some(p), true) = (&job.json, started) {
        let info = JobInfo {
            kind: "copy".into(),
            engine: "psync+copy_file_range+direct".into(),
            iodepth: 1,
            threads: 1,
            files: 1,
            file_size_bytes: job.size,
            total_size_bytes: job.size,
            block_size_bytes: BUFFERED_BLOCK as u64,
            request_size_bytes: DIRECT_BLOCK as u64,
            fsync_end: true,
            rand_seed: u64::from(job.seed),
            rand_seed_used: u64::from(job.seed),
            data_pattern: Some(crate::job::fileio::DataPattern::Random),
            directory: format!("{} -> {}", abs(&job.src_dir), abs(&job.dst_dir)),
            ..Default::default()
        };
        let mut res = phase_result(
            "copy",
            &job.argv,
            info,
            status,
            error,
            t0.elapsed().as_secs_f64(),
            phases,
        );
        res.warnings = warnings;
        // the destination is where the copy is written: its path decides durability
        res.diagnosis = Some(json::TargetDiagnosis::of(&job.dst_dir, None, false));
        if let Err(e) = json::write_atomic(p, &res) {
            eprintln!("iomark copy: --json={}: {e}", p.display());
            return if code == exit::OK {
                exit::ENVIRONMENT
            } else {
                code
            };
        }
    }
    code
}

fn abs(p: &Path) -> String {
    std::fs::canonicalize(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}

fn run(
    job: &CopyJob,
    stop: &AtomicBool,
    scratch: &mut Scratch,
    phases: &mut Vec<Phase>,
    warnings: &mut Vec<Warning>,
    started: &mut bool,
) -> Result<(), RunError> {
    resolve(job)?;
    if let Some(p) = &job.json {
        json_placeholder(p)?;
    }
    // From here on the JSON file holds the placeholder: it is always rewritten.
    *started = true;
    for (what, d) in [("SRC", &job.src_dir), ("DST", &job.dst_dir)] {
        if let Some(fs) = preflight::memory_fs(d) {
            warnings.push(Warning {
                id: "target.memory_fs".into(),
                message: format!(
                    "{what} '{}' is on {fs}: the copy measures memory, not a drive",
                    d.display()
                ),
            });
        }
    }
    for w in warnings.iter() {
        eprintln!("WARNING: {}", w.message);
    }
    let pid = std::process::id();
    let src = job.src_dir.join(format!("iomark-copy.{pid}.src"));
    crate::outln!(
        "iomark copy: {} source file (incompressible), {} -> {}",
        iec(job.size),
        abs(&job.src_dir),
        abs(&job.dst_dir)
    );

    // The source: written, fsync-ed, then dropped from the page cache.
    let mut f = scratch.create_file(&src, false).map_err(create_err)?;
    let pb = bar(job.size, "create source", true);
    let t = Instant::now();
    let reqs = write_source(&mut f, &src, job.size, job.seed, stop, &pb)?;
    let written_s = t.elapsed().as_secs_f64();
    f.sync_all()
        .map_err(|e| io_fail("cannot fsync", &src, &e))?;
    let durable_s = t.elapsed().as_secs_f64();
    pb.finish_and_clear();
    drop(f);
    drop_cache(&src)?;
    let mut p = Phase::new("create_source_durable", reqs, job.size, durable_s);
    p.notes.push(format!(
        "4 MiB buffered writes of xoroshiro128+ data, then fsync; {written_s:.3} s to the last write"
    ));
    phases.push(p);

    let methods: [(&str, &'static str, bool); 3] = [
        ("buffered_128k", "buffered 128 KiB", false),
        ("copy_file_range", "copy_file_range", false),
        ("direct_4m", "O_DIRECT 4 MiB", true),
    ];
    let mut rows = Vec::new();
    let mut resident_notes = Vec::new();
    for (name, label, is_direct) in methods {
        check_stop(stop)?;
        let dst = job.dst_dir.join(format!("iomark-copy.{pid}.{name}.dst"));
        drop_cache(&src)?;
        let src_res = scratch::resident_fraction(&src);
        let cache = format!(
            "source dropped with posix_fadvise(POSIX_FADV_DONTNEED) after fsync; mincore: {} resident at start",
            pct(src_res)
        );
        let mut d = match scratch.create_file(&dst, is_direct) {
            Ok(d) => d,
            Err(ScratchError::DirectRefused(_)) => {
                rows.push(Row {
                    label,
                    timing: None,
                    note: Some("O_DIRECT refused by DST's filesystem (EINVAL): skipped".into()),
                });
                continue;
            }
            Err(e) => return Err(create_err(e)),
        };
        let pb = bar(job.size, label, true);
        let m = match name {
            "buffered_128k" => buffered(&src, &dst, &mut d, stop, &pb)?,
            "copy_file_range" => copy_file_range(&src, &dst, &mut d, stop, &pb)?,
            _ => direct(&src, &dst, &mut d, job.size, stop, &pb)?,
        };
        pb.finish_and_clear();
        drop(d);
        match m {
            Method::Skipped(why) => {
                warnings.push(Warning {
                    id: format!("copy.{name}_skipped"),
                    message: why.clone(),
                });
                rows.push(Row {
                    label,
                    timing: None,
                    note: Some(why),
                });
            }
            Method::Done(t) => {
                drop_cache(&dst)?;
                let dst_res = scratch::resident_fraction(&dst);
                resident_notes.push(format!(
                    "{label}: source {} at start, destination {} after",
                    pct(src_res),
                    pct(dst_res)
                ));
                match first_difference(&src, &dst) {
                    Ok(None) => {}
                    Ok(Some(off)) => {
                        return Err(RunError::Failed(format!(
                            "verification failed: {} differs from the source at byte {off}",
                            dst.display()
                        )))
                    }
                    Err(e) => return Err(io_fail("cannot verify", &dst, &e)),
                }
                let mut pw =
                    Phase::new(&format!("{name}_written"), t.requests, t.bytes, t.written_s);
                pw.cache = Some(cache.clone());
                pw.notes.push(
                    "up to the return of the last write; data may still be in the page cache"
                        .into(),
                );
                let mut pd =
                    Phase::new(&format!("{name}_durable"), t.requests, t.bytes, t.durable_s);
                pd.cache = Some(cache);
                pd.notes
                    .push("includes the final fsync: the honest figure".into());
                pd.notes
                    .push("destination verified byte-identical to the source".into());
                if name == "copy_file_range" {
                    pd.notes.push("on btrfs/XFS/NFS the kernel may share extents (reflink) or copy server-side instead of moving data".into());
                }
                phases.push(pw);
                phases.push(pd);
                rows.push(Row {
                    label,
                    timing: Some(t),
                    note: None,
                });
            }
        }
        if !job.keep {
            scratch
                .remove_file(&dst)
                .map_err(|e| io_fail("cannot remove", &dst, &e))?;
        }
        // The verification read the source back in: drop it again.
        drop_cache(&src)?;
    }

    crate::outln!(
        "page cache: dropped with posix_fadvise(POSIX_FADV_DONTNEED) after fsync before every phase (no root needed); mincore check:"
    );
    for n in &resident_notes {
        crate::outln!("  {n}");
    }
    crate::outln!();
    crate::outln!(
        "{:<18} {:^41}   {:^41}",
        "method",
        "to last write",
        "durable (incl. final fsync)"
    );
    for r in &rows {
        match (&r.timing, &r.note) {
            (Some(t), _) => crate::outln!(
                "{:<18} {}   {}",
                r.label,
                fmt_rate(t.bytes, t.written_s),
                fmt_rate(t.bytes, t.durable_s)
            ),
            (None, Some(n)) => crate::outln!("{:<18} {n}", r.label),
            (None, None) => {}
        }
    }
    crate::outln!();
    crate::outln!("MB = 1000000 bytes, MiB = 1048576 bytes. The durable figure (until fsync returned) is the honest one;");
    crate::outln!("\"to last write\" is what a copy that does not sync appears to take. Every destination was verified byte-identical.");
    let (line, ceil) = ceiling(&job.src_dir, &job.dst_dir);
    crate::outln!("{line}");
    if let Some(c) = ceil {
        for r in &rows {
            if let Some(t) = &r.timing {
                let mbs = t.bytes as f64 / t.durable_s.max(f64::MIN_POSITIVE) / 1e6;
                crate::outln!(
                    "  {:<18} durable {:.0} MB/s = {:.0} % of the ceiling",
                    r.label,
                    mbs,
                    mbs / c * 100.0
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn difference_offsets() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        std::fs::write(&a, vec![1u8; 3_000_000]).unwrap();
        std::fs::write(&b, vec![1u8; 3_000_000]).unwrap();
        assert_eq!(first_difference(&a, &b).unwrap(), None);
        let mut v = vec![1u8; 3_000_000];
        v[2_500_000] = 0;
        std::fs::write(&b, &v).unwrap();
        assert_eq!(first_difference(&a, &b).unwrap(), Some(2_500_000));
        std::fs::write(&b, vec![1u8; 1000]).unwrap();
        assert_eq!(first_difference(&a, &b).unwrap(), Some(1000));
    }

    #[test]
    fn exit_codes() {
        assert_eq!(RunError::Invalid("x".into()).code(None), 2);
        assert_eq!(RunError::Env("x".into()).code(None), 3);
        assert_eq!(RunError::Failed("x".into()).code(None), 1);
        assert_eq!(RunError::Interrupted.code(Some(143)), 143);
    }

    #[test]
    fn same_file_and_inside_file_are_invalid() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        let job = |s: &Path, t: &Path| CopyJob {
            src_dir: s.into(),
            dst_dir: t.into(),
            size: 1 << 20,
            seed: 1,
            json: None,
            keep: false,
            argv: vec![],
        };
        assert!(
            matches!(resolve(&job(&f, &f)), Err(RunError::Invalid(m)) if m.contains("same file"))
        );
        assert!(
            matches!(resolve(&job(&f, &f.join("sub"))), Err(RunError::Invalid(m)) if m.contains("inside SRC"))
        );
        assert!(
            matches!(resolve(&job(&d.path().join("nope"), d.path())), Err(RunError::Env(m)) if m.contains("does not exist"))
        );
        assert!(resolve(&job(d.path(), d.path())).is_ok());
        assert_eq!(std::fs::read(&f).unwrap(), b"x");
    }
}
