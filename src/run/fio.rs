//! The `iomark run` runner: fio jobs → per-thread workers over an engine → per-thread
//! latency histograms, merged per job (or per group with `group_reporting`).
//!
//! Semantics follow fio (spec/peers.md "latency internals"): for each I/O, `slat` is
//! submit start → submit return (only for engines that queue: io_uring), `clat` is
//! submit return → completion (for engines that complete inside submit, the whole call,
//! slat then being absent as in fio's sync engines) and `lat` is start → completion.
//! Completions reaped together share one clock read, as in fio. Jobs run concurrently
//! except that `stonewall` starts a new group that waits for the previous one. I/O
//! during `ramp_time` is issued but neither recorded nor counted toward `size`.

use crate::engine::buffers::Slab;
use crate::engine::io_uring::{self, Uring};
use crate::engine::mmap::Mmap;
use crate::engine::null::Null;
use crate::engine::psync::Psync;
use crate::engine::IoErr;
use crate::job::fio::{EngineKind, FioCommand, FioJob, SizeSpec};
use crate::job::fio_keys::ExitWhat;
use crate::run::fio_cpu::{CpuTimes, Who};
use crate::run::fio_gen::Rng;
use crate::run::fio_log::{LogSpec, Logs};
use crate::run::fio_worker::{fill_buf, Live, Worker};
use crate::stats::clock::Clock;
use crate::target::fio_files::{self, FileSpec, FilesError};
use crate::target::strerror;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use thiserror::Error;

/// Offsets span of a null-engine job without `size`, bytes (nothing is touched).
pub const NULL_DEFAULT_SIZE: u64 = 1 << 30;

/// Errors of a run.
#[derive(Debug, Error)]
pub enum RunError {
    /// preparing or opening files failed
    #[error(transparent)]
    Files(#[from] FilesError),
    /// a job cannot run on its files
    #[error("job '{job}': {why}")]
    Plan {
        /// job name
        job: String,
        /// what is wrong
        why: String,
    },
    /// the engine could not be set up
    #[error("job '{job}': cannot start engine {engine}: {why}")]
    Engine {
        /// job
        job: String,
        /// engine name
        engine: &'static str,
        /// reason
        why: String,
    },
    /// an I/O failed during the run
    #[error("job '{job}': {op} of {len} bytes at offset {offset} in {}: {why}", .file.display())]
    Io {
        /// job
        job: String,
        /// read / write / fsync
        op: &'static str,
        /// file
        file: PathBuf,
        /// offset, bytes
        offset: u64,
        /// length, bytes
        len: usize,
        /// the error text (alignment explained for EINVAL with direct=1)
        why: String,
    },
    /// data read back did not match what was written (`verify=`)
    #[error("job '{job}': verify: {count} block(s) did not match; first: {first}")]
    Verify {
        /// job
        job: String,
        /// mismatching blocks
        count: u64,
        /// the first mismatch: file, offset and what differs
        first: String,
    },
    /// `ratemin`/`rate_iops_min` not met over a `ratecycle` window
    #[error("job '{job}': {what} not met: {got} over the last {window_ms} ms")]
    MinRate {
        /// job
        job: String,
        /// which limit, e.g. "ratemin=1024 B/s (reads)"
        what: String,
        /// the rate reached, with unit
        got: String,
        /// window, ms
        window_ms: u64,
    },
    /// the environment cannot do what the job asks
    #[error("job '{job}': {why}")]
    Refused {
        /// job
        job: String,
        /// why
        why: String,
    },
}

impl RunError {
    /// Exit code (DESIGN.md policy).
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Files(e) => e.exit_code(),
            RunError::Plan { .. } => crate::exit::INVALID,
            RunError::Engine { .. } => crate::exit::ENVIRONMENT,
            RunError::Io { .. } | RunError::Verify { .. } | RunError::MinRate { .. } => {
                crate::exit::FAILED
            }
            RunError::Refused { .. } => crate::exit::ENVIRONMENT,
        }
    }

    /// fio's `error` of a job that this error ended (its JSON `"error"` and the `err=`
    /// of the job line): the errno of a failed request (`EIO` for a short transfer),
    /// `ETIMEDOUT` for a missed `latency_target` at depth 1 (fio's `lat_fatal`), `EIO`
    /// for `ratemin` not met (fio's `check_min_rate`), `EILSEQ` for a verify mismatch;
    /// 0 for errors that are not a failed run (setup, usage, environment).
    pub fn errno(&self) -> i32 {
        match self {
            RunError::Io { why, .. } => {
                if why.starts_with("latency of ") {
                    return libc::ETIMEDOUT;
                }
                // `why` starts with the system's text of the errno (`io_why`)
                (1..=133)
                    .map(|n| (n, strerror(n)))
                    .filter(|(_, t)| why.starts_with(t.as_str()))
                    .max_by_key(|(_, t)| t.len())
                    .map_or(libc::EIO, |(n, _)| n)
            }
            RunError::Verify { .. } => libc::EILSEQ,
            RunError::MinRate { .. } => libc::EIO,
            _ => 0,
        }
    }
}

/// Latency histogram with exact count, sum, min and max, ns ([`crate::stats::LatAcc`]).
pub use crate::stats::LatAcc as Lat;

/// Counters and latencies of one direction.
#[derive(Clone, Debug, Default)]
pub struct DirStats {
    /// completed I/Os
    pub ios: u64,
    /// bytes moved
    pub bytes: u64,
    /// submission latency (queued engines only)
    pub slat: Lat,
    /// completion latency
    pub clat: Lat,
    /// total latency
    pub lat: Lat,
    /// synchronous completions (psync, mmap, null, trims: no slat, clat = lat), recorded
    /// once on the hot path and folded into `clat` and `lat` by [`DirStats::settle`]
    pub sync: Lat,
}

impl DirStats {
    /// Add another direction's counters and latencies.
    pub fn merge(&mut self, o: &DirStats) {
        self.ios += o.ios;
        self.bytes += o.bytes;
        self.slat.merge(&o.slat);
        self.clat.merge(&o.clat);
        self.lat.merge(&o.lat);
        self.sync.merge(&o.sync);
    }
    /// Fold the synchronous completions into `clat` and `lat` (each of them is both);
    /// called once when a job thread ends, before anything reads the latencies.
    pub fn settle(&mut self) {
        if !self.sync.hist.is_empty() {
            self.clat.merge(&self.sync);
            self.lat.merge(&self.sync);
            self.sync = Lat::default();
        }
    }
}

/// Result of one job thread, or of a merged job/group.
#[derive(Clone, Debug, Default)]
pub struct JobStats {
    /// job name
    pub name: String,
    /// stonewall group, from 0
    pub groupid: u32,
    /// threads merged into this result
    pub threads: u32,
    /// reads
    pub read: DirStats,
    /// writes
    pub write: DirStats,
    /// trims (punched holes)
    pub trim: DirStats,
    /// fsync/fdatasync calls (periodic, end_fsync, fsync_on_close) and their latency
    pub sync: DirStats,
    /// blocks read back and checked by the verify phase
    pub verified: u64,
    /// `percentile_list` (empty: fio's default list)
    pub percentiles: Vec<f64>,
    /// `clat_percentiles` (report clat percentiles)
    pub clat_percentiles: bool,
    /// `lat_percentiles` (report total-latency percentiles)
    pub lat_percentiles: bool,
    /// measured run time, ns (max over merged threads)
    pub runtime_ns: u64,
    /// the job's options, as written
    pub options: Vec<(String, String)>,
    /// engine actually used
    pub engine: &'static str,
    /// CPU used by the job's threads (RUSAGE_THREAD differences, summed)
    pub cpu: CpuTimes,
    /// wall time of the threads (setup, I/O and end_fsync) summed over the merged
    /// threads, ns: the denominator of the CPU percentages (fio's `total_run_time`)
    pub run_ns_sum: u64,
    /// failed requests the job went on after (`continue_on_error`); never counted as done
    pub errors: u64,
    /// the first of them: op, file, offset and the system's reason
    pub first_error: Option<String>,
    /// steady-state detection (`ss_dur`), per job thread or reporting group
    pub steady: Option<crate::run::fio_steady::SteadyReport>,
    /// the `latency_target` search (depth found), or the job's depth without one
    pub lat_target: Option<crate::run::fio_lat_target::LatTargetReport>,
    /// random jobs: blocks touched and issued block sizes (public case C13)
    pub coverage: Option<crate::run::fio_coverage::CoverageStats>,
    /// with per-request priorities: `(direction 0 read / 1 write, ioprio, latency)` of the
    /// requests that carried each value — clat, or lat with `lat_percentiles` (fio's
    /// `prios` / "clat prio C/L" report)
    pub prio_lat: Vec<(usize, u16, Lat)>,
    /// zone resets of a `zonemode=zbd` job (a full zone written again, `zone_reset_*`,
    /// trims); `None` for other jobs. fio prints them after the write line
    /// ("; N zone resets") and as the job's `zone_resets` JSON key (spec/peers.md 2.2)
    pub zone_resets: Option<u64>,
    /// fio's `error`: the errno of the failure that ended the job ([`RunError::errno`]),
    /// 0 when it ran to its end; a group keeps its first thread's non-zero value
    pub error: i32,
    /// the failure that ended the job, as printed on stderr (`None`: it ran to its end)
    pub failure: Option<String>,
    /// per-interval bandwidth (KiB/s) and IOPS samples (`bw_avg_time`/`iops_avg_time`),
    /// fio's `bw_min` … `iops_samples` (report/fio_levels.rs)
    pub rates: crate::stats::rates::RateSamples,
    /// fio's `iodepth_level` / `iodepth_submit` / `iodepth_complete` counts
    pub depth: crate::stats::rates::DepthStats,
    /// errno of the first error the job went on after (`continue_on_error`); 0 = none.
    /// fio's job `error` key
    pub first_errno: i32,
}

impl JobStats {
    fn merge(&mut self, o: &JobStats) {
        self.threads += o.threads;
        self.read.merge(&o.read);
        self.write.merge(&o.write);
        self.sync.merge(&o.sync);
        self.trim.merge(&o.trim);
        self.verified += o.verified;
        self.runtime_ns = self.runtime_ns.max(o.runtime_ns);
        self.cpu.add(&o.cpu);
        self.run_ns_sum += o.run_ns_sum;
        self.errors += o.errors;
        if let Some(n) = o.zone_resets {
            self.zone_resets = Some(self.zone_resets.unwrap_or(0) + n);
        }
        if self.first_error.is_none() {
            self.first_error.clone_from(&o.first_error);
        }
        if self.error == 0 {
            self.error = o.error;
        }
        if self.failure.is_none() {
            self.failure.clone_from(&o.failure);
        }
        if self.first_errno == 0 {
            self.first_errno = o.first_errno;
        }
        self.rates.merge(&o.rates);
        self.depth.merge(&o.depth);
        if self.lat_target.is_none() {
            self.lat_target = o.lat_target;
        }
        for (d, p, l) in &o.prio_lat {
            match self.prio_lat.iter_mut().find(|e| e.0 == *d && e.1 == *p) {
                Some(e) => e.2.merge(l),
                None => self.prio_lat.push((*d, *p, l.clone())),
            }
        }
        match (&mut self.coverage, &o.coverage) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.coverage = Some(b.clone()),
            _ => {}
        }
    }
}

/// Outcome of `execute`.
#[derive(Debug, Default)]
pub struct RunOutcome {
    /// one entry per reported job (per thread, or merged with `group_reporting`)
    pub jobs: Vec<JobStats>,
    /// stopped by a signal
    pub interrupted: bool,
    /// `--status-interval` samples over all jobs (empty without it)
    pub intervals: Vec<crate::report::json::Interval>,
    /// `--plot` throughput samples over all jobs (empty without it), and their period
    pub samples: Vec<crate::report::json::Sample>,
}

/// Everything a worker thread needs, resolved from a job.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub job: FioJob,
    pub files: Vec<FileSpec>,
    /// I/O region of each file: (first byte, length), bytes
    pub regions: Vec<(u64, u64)>,
    /// offset alignment, bytes
    pub align: u64,
    /// bytes to move before stopping (0 = unlimited)
    pub byte_limit: u64,
    pub seed: u64,
    /// thread number within the job, from 0
    pub thread: u32,
    /// the run's flows (`flow=`), shared by every thread
    pub flows: Option<std::sync::Arc<crate::run::fio_flow::Flows>>,
    /// `zonemode=zbd`: the shared zone table of each file (empty otherwise)
    pub zones: super::fio_zones::Tables,
}

/// fio's `filename_format` expansion: `$jobname`, `$jobnum`, `$filenum`, `$clientuid`.
pub fn format_filename(fmt: &str, job: &str, jobnum: u32, filenum: u32) -> String {
    fmt.replace("$jobname", job)
        .replace("$jobnum", &jobnum.to_string())
        .replace("$filenum", &filenum.to_string())
        .replace("$clientuid", "0")
}

/// Files of thread `t` of `job` with their I/O regions (existing sizes looked up
/// through target/). A file's size is the end of its region.
/// I/O region of a file: (first byte, length), bytes.
type Region = (u64, u64);

fn files_for(job: &FioJob, t: u32) -> Result<(Vec<FileSpec>, Vec<Region>), RunError> {
    // a character device has no size of its own (fio: the job's size= is used)
    let no_size = |p: PathBuf| -> RunError {
        if fio_files::is_char_device(&p) {
            FilesError::CharNoSize(p).into()
        } else {
            FilesError::NoSize(p).into()
        }
    };
    let dir = job.directory.clone();
    let join = |name: &str| -> PathBuf {
        let p = Path::new(name);
        match (&dir, p.is_absolute()) {
            (Some(d), false) => d.join(p),
            _ => p.to_path_buf(),
        }
    };
    let fmt = job
        .more
        .filename_format
        .clone()
        .unwrap_or_else(|| "$jobname.$jobnum.$filenum".into());
    let paths: Vec<PathBuf> = match &job.filename {
        Some(list) => list
            .split(':')
            .filter(|s| !s.is_empty())
            .map(join)
            .collect(),
        None => (0..job.nrfiles)
            .map(|i| join(&format_filename(&fmt, &job.name, t, i)))
            .collect(),
    };
    if paths.is_empty() {
        return Err(RunError::Plan {
            job: job.name.clone(),
            why: "filename= names no file".into(),
        });
    }
    let n = paths.len() as u64;
    let mut out = Vec::with_capacity(paths.len());
    let mut regions = Vec::with_capacity(paths.len());
    for p in paths {
        let existing = fio_files::existing_size(&p);
        let size = match (job.filesize, job.size) {
            (Some((a, _)), _) => a,
            (None, Some(SizeSpec::Bytes(b))) => b / n,
            (None, Some(SizeSpec::Percent(pc))) => match existing {
                Some(e) => (e as f64 * pc / 100.0) as u64,
                None => return Err(no_size(p)),
            },
            (None, None) if job.engine == EngineKind::Null => NULL_DEFAULT_SIZE,
            (None, None) => match existing {
                Some(e) => e,
                // fill_device: the region is the free space (fill_region below), so a
                // file that does not exist yet needs no size (fio creates it)
                None if job.more.x.fill_device && !fio_files::is_char_device(&p) => 0,
                None => return Err(no_size(p)),
            },
        };
        let base = match job.more.offset {
            None => 0,
            Some(SizeSpec::Bytes(b)) => b,
            Some(SizeSpec::Percent(pc)) => (existing.unwrap_or(size) as f64 * pc / 100.0) as u64,
        };
        let start = base.saturating_add(u64::from(t).saturating_mul(job.more.offset_increment));
        // with an offset into an existing file (or device) and no explicit size, the
        // region runs to its end
        let len = match (existing, job.size, job.filesize) {
            (Some(e), None, None) if start > 0 => e.saturating_sub(start),
            _ => size,
        };
        // fill_device: size is ignored; the region is the free space (written until
        // ENOSPC), and nothing is laid out in advance
        let (len, on_disk) = match super::fio_errors::fill_region(job, &p, existing, start) {
            Some(r) => r,
            None => (len, start.saturating_add(len)),
        };
        out.push(FileSpec {
            path: p,
            size: on_disk,
        });
        regions.push((start, len));
    }
    Ok((out, regions))
}

fn plan(job: &FioJob, t: u32, global_index: u64) -> Result<Plan, RunError> {
    let (files, regions) = files_for(job, t)?;
    let max_bs = job.bs_read.max().max(job.bs_write.max());
    let align = job
        .more
        .blockalign
        .unwrap_or_else(|| job.bs_read.min().min(job.bs_write.min()))
        .max(1);
    if job.rw.trims() {
        if let Some(f) = files.iter().find(|f| fio_files::is_char_device(&f.path)) {
            // trims punch holes (fallocate) in files and discard on block devices;
            // a character device takes neither
            return Err(RunError::Plan {
                job: job.name.clone(),
                why: format!(
                    "{} is a character device: trim is supported on files and block devices only",
                    f.path.display()
                ),
            });
        }
    }
    if let Some((f, r)) = files.iter().zip(&regions).find(|(_, r)| r.1 < max_bs) {
        return Err(RunError::Plan {
            job: job.name.clone(),
            why: format!(
                "file {} has an I/O region of {} bytes, less than the largest block size {} bytes",
                f.path.display(),
                r.1,
                max_bs
            ),
        });
    }
    let total: u64 = regions.iter().map(|r| r.1).sum();
    // (fill_device: the region is the free space, so the job ends at ENOSPC, or at the
    // latest once it has written all of it)
    let byte_limit = if job.time_based {
        0
    } else {
        job.more.io_size.unwrap_or(total).saturating_mul(job.loops)
    };
    let base_seed = match (job.randseed, job.more.randrepeat) {
        (Some(s), _) => s,
        (None, true) => 0x8960_9f0a,
        (None, false) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64),
    };
    let seed = base_seed.wrapping_add(global_index.wrapping_mul(0x1_0000_0001));
    Ok(Plan {
        job: job.clone(),
        files,
        regions,
        align,
        byte_limit,
        seed,
        thread: t,
        flows: None,
        zones: Vec::new(),
    })
}

/// Error text of a failed I/O (EINVAL with direct=1 explains alignment).
pub(crate) fn io_why(e: IoErr, direct: bool, align: u64) -> String {
    match e {
        IoErr::Errno(libc::EINVAL) if direct => format!(
            "{} (direct=1 needs offsets, lengths and buffers aligned to the device's logical block size; offsets here are aligned to {align} bytes)",
            strerror(libc::EINVAL)
        ),
        IoErr::Errno(n) => strerror(n),
        IoErr::Short { done } => format!("short transfer ({done} bytes)"),
    }
}

/// Run one thread of a job and account its CPU (RUSAGE_THREAD).
fn run_thread(
    plan: &Plan,
    clock: &Clock,
    stop: &AtomicBool,
    warn: &(dyn Fn(String) + Sync),
    live: Option<&Live>,
) -> Result<JobStats, RunError> {
    // every descriptor of this thread is opened below and closed with it: a private
    // table makes each pread/pwrite skip the kernel's file reference count (fio's
    // jobs are processes, whose table is never shared)
    crate::engine::private_fd_table();
    let c0 = CpuTimes::now(Who::Thread);
    let w0 = std::time::Instant::now();
    let (mut st, failed) = run_thread_io(plan, clock, stop, warn, live)?;
    if let Some(e) = failed {
        // a failed run keeps the report of the I/O done before the failure (as fio,
        // with `err=`); errors of another kind end the run without a report
        if e.exit_code() != crate::exit::FAILED {
            return Err(e);
        }
        st.error = e.errno();
        st.failure = Some(e.to_string());
    }
    st.cpu = CpuTimes::now(Who::Thread).since(&c0);
    // the thread's whole life (setup included), as the CPU time covers it too
    st.run_ns_sum = u64::try_from(w0.elapsed().as_nanos()).unwrap_or(u64::MAX);
    Ok(st)
}

/// Run one thread of a job: open files, build the engine, drive it.
fn run_thread_io(
    plan: &Plan,
    clock: &Clock,
    stop: &AtomicBool,
    _warn: &(dyn Fn(String) + Sync),
    live: Option<&Live>,
) -> Result<(JobStats, Option<RunError>), RunError> {
    let job = &plan.job;
    let m = &job.more;
    let max_bs = job.bs_read.max().max(job.bs_write.max()) as usize;
    let depth = match job.engine {
        EngineKind::IoUring | EngineKind::Null => job.iodepth as usize,
        _ => 1,
    };
    let mut slab = Slab::new(depth, max_bs);
    let mut rng = Rng::new(plan.seed ^ 0x5151);
    for b in &mut slab.bufs {
        fill_buf(
            b.as_mut_slice(),
            &mut rng,
            m.zero_buffers,
            m.buffer_compress_percentage,
        );
    }
    let logs = if m.bw_log.is_some() || m.iops_log.is_some() || m.lat_log.is_some() {
        let spec = LogSpec {
            bw: m.bw_log.clone(),
            iops: m.iops_log.clone(),
            lat: m.lat_log.clone(),
            avg_msec: m.log_avg_msec,
            offset: m.log_offset,
            prio: job.extra.log_prio,
        };
        Some(
            Logs::create(&spec, &job.name, plan.thread, Path::new(".")).map_err(|e| {
                RunError::Plan {
                    job: job.name.clone(),
                    why: format!("cannot create log files: {e}"),
                }
            })?,
        )
    } else {
        None
    };
    let engine_err = |engine, why: String| RunError::Engine {
        job: job.name.clone(),
        engine,
        why,
    };
    if job.engine == EngineKind::Null {
        let mut w = Worker::new(plan, clock, stop, Vec::new(), logs, live);
        return Ok(crate::maybe_faulty!(Null::new(depth), |e| w.run(e, &slab, 1)));
    }
    let writes = job.rw.writes() || job.rw.trims();
    let rw_open = writes || job.engine == EngineKind::Mmap;
    let open = if m.sync_io {
        fio_files::open_osync(&plan.files, rw_open, job.direct)?
    } else {
        fio_files::open(&plan.files, rw_open, job.direct)?
    };
    let fds = open.fds();
    if m.invalidate && !job.direct {
        for &fd in &fds {
            // SAFETY: advice on an open descriptor; failure only means the cache stays.
            unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
    }
    let mut w = Worker::new(plan, clock, stop, fds.clone(), logs, live);
    // atomic=1: RWF_ATOMIC on every write (checked by the statx preflight in `execute`)
    let atomic_flags = if m.x.atomic { libc::RWF_ATOMIC } else { 0 };
    let st = match job.engine {
        EngineKind::IoUring => match io_uring::probe() {
            Ok(()) => {
                let bufs: Vec<(*mut u8, usize)> =
                    slab.bufs.iter().map(|b| (b.ptr(), b.len())).collect();
                let setup = io_uring::Setup {
                    sqpoll: job.sqthread_poll,
                    sqpoll_cpu: job.sqthread_poll_cpu,
                    iopoll: job.hipri,
                };
                let punt = punted_files(plan, _warn);
                let e = Uring::with_setup(fds, depth, &bufs, setup)
                    .map_err(|e| engine_err("io_uring", io_uring::unavailable_why(&e)))?
                    // one io_uring_enter per I/O, fio's default (iodepth_batch_submit=1):
                    // on virtio it measured faster than batching (bench/RUN_RESULTS.md);
                    // batch mode is for iodepth_batch_submit > 1
                    .batched(false)
                    // fio takes iodepth_batch_complete_max completions per reap (default:
                    // iodepth_batch_complete_min), then refills those slots at once
                    .reap_max(reap_max(job))
                    .write_flags(atomic_flags)
                    .punt_async(punt, job.force_async.unwrap_or(0));
                // IOMARK_FAULT (test-only) wraps the engine; otherwise it runs as is
                crate::maybe_faulty!(e, |e| w.run(e, &slab, depth))
            }
            Err(_) => {
                // denied: `execute` already warned once (or refused with --engine-strict)
                let e = Psync::new(fds).write_flags(atomic_flags);
                crate::maybe_faulty!(e, |e| w.run(e, &slab, 1))
            }
        },
        EngineKind::Mmap => {
            let len = if m.zones.mode == crate::job::fio_zone_keys::ZoneMode::Strided {
                // strided zones run on to the end of the files (run/fio_zones.rs)
                super::fio_zones::strided_ends(plan).into_iter().min()
            } else {
                plan.files.iter().map(|f| f.size).min()
            };
            let len = len.unwrap_or(0) as usize;
            let e = Mmap::new(&fds, len).map_err(|e| engine_err("mmap", io_why(e, false, 0)))?;
            crate::maybe_faulty!(e, |e| w.run(e, &slab, 1))
        }
        _ => {
            let e = Psync::new(fds).write_flags(atomic_flags);
            crate::maybe_faulty!(e, |e| w.run(e, &slab, 1))
        }
    };
    drop(open);
    Ok(st)
}

/// Files whose io_uring requests go to io-wq at once (IOSQE_ASYNC): with `force_async`
/// unset and direct=1, the block devices served by a synchronous bio-based driver
/// (zram, brd, pmem), where an inline attempt would run each request in the submitting
/// thread and a queue of N be served one at a time. Thread 0 says so once.
fn punted_files(plan: &Plan, warn: &(dyn Fn(String) + Sync)) -> Vec<bool> {
    let job = &plan.job;
    if job.force_async.is_some() || !job.direct {
        return vec![false; plan.files.len()];
    }
    let found: Vec<Option<String>> = plan
        .files
        .iter()
        .map(|f| fio_files::sync_bio_device(&f.path))
        .collect();
    if plan.thread == 0 {
        if let Some(dev) = found.iter().flatten().next() {
            warn(format!(
                "note: job '{}': {dev} is a bio-based device (completes requests in the submitting thread): io_uring requests go to the kernel's io-wq workers at once (IOSQE_ASYNC), so iodepth={} requests run side by side; force_async=0 issues them inline as fio does",
                job.name, job.iodepth
            ));
        }
    }
    found.iter().map(Option::is_some).collect()
}

/// One `--status-interval` sample from the live counters now (`sum`) and at the last
/// sample (`prev`): bytes in the interval, `dur_s` long, ending `t_s` after the start.
/// Every block size a job can issue (the ends of a range: sizes in between are
/// multiples of its minimum).
fn block_sizes(b: &crate::job::fio::BlockSizes) -> Vec<u64> {
    use crate::job::fio::BlockSizes;
    match b {
        BlockSizes::Fixed(x) => vec![*x],
        BlockSizes::Range(a, z) => vec![*a, *z],
        BlockSizes::Split(v) => v.iter().map(|e| e.0).collect(),
    }
}

/// Sampling period of `--plot` throughput series.
pub const PLOT_PERIOD: std::time::Duration = std::time::Duration::from_millis(250);

/// Sum of the live counters of every thread: [read bytes, written bytes, reads, writes].
fn live_sum(lives: &[Live]) -> [u64; 4] {
    let mut sum = [0u64; 4];
    for l in lives {
        for (k, x) in sum.iter_mut().enumerate() {
            *x += l[k].load(Ordering::Relaxed);
        }
    }
    sum
}

/// A `--plot` sample: I/O completed since `prev` (live counter sums), over `dur_s`
/// seconds ending `t_s` seconds after the run started.
pub fn plot_sample(
    sum: &[u64; 4],
    prev: &[u64; 4],
    dur_s: f64,
    t_s: f64,
) -> crate::report::json::Sample {
    crate::report::json::Sample {
        t_s,
        dur_s,
        read_bytes: sum[0].saturating_sub(prev[0]),
        written_bytes: sum[1].saturating_sub(prev[1]),
        reads: sum[2].saturating_sub(prev[2]),
        writes: sum[3].saturating_sub(prev[3]),
    }
}

pub fn status_sample(
    sum: &[u64; 4],
    prev: &[u64; 4],
    dur_s: f64,
    t_s: f64,
) -> crate::report::json::Interval {
    crate::report::json::Interval {
        t_s,
        dur_s,
        read_bytes: sum[0].saturating_sub(prev[0]),
        written_bytes: sum[1].saturating_sub(prev[1]),
        ..Default::default()
    }
}

/// The stderr line of a status sample: `[t=2.0s] read: IOPS=…, BW=…MiB/s (…MB/s); write: …`.
pub fn status_line(iv: &crate::report::json::Interval, reads: u64, writes: u64) -> String {
    let d = iv.dur_s.max(f64::MIN_POSITIVE);
    let part = |name: &str, ios: u64, bytes: u64| {
        format!(
            "{name}: IOPS={:.0}, BW={:.1}MiB/s ({:.1}MB/s)",
            ios as f64 / d,
            bytes as f64 / d / 1_048_576.0,
            bytes as f64 / d / 1e6
        )
    };
    format!(
        "[t={:.1}s] {}; {}",
        iv.t_s,
        part("read", reads, iv.read_bytes),
        part("write", writes, iv.written_bytes)
    )
}

/// Wait for `wait_for` and `startdelay` (both interruptible), then run the thread.
fn start_thread(
    plan: &Plan,
    clock: &Clock,
    stop: &AtomicBool,
    warn: &(dyn Fn(String) + Sync),
    wait: Option<(&AtomicU32, u32)>,
    live: Option<&Live>,
) -> Result<JobStats, RunError> {
    if let Some((done, n)) = wait {
        while done.load(Ordering::Acquire) < n && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    let (a, b) = plan.job.more.startdelay;
    if !b.is_zero() {
        let span = clock.ticks(b - a);
        let extra = if span > 0 {
            Rng::new(plan.seed ^ 0x57a7).below(span + 1)
        } else {
            0
        };
        let until = clock.now() + clock.ticks(a) + extra;
        while clock.now() < until && !stop.load(Ordering::Relaxed) {
            let left = clock.ns(clock.now(), until).min(20_000_000);
            std::thread::sleep(std::time::Duration::from_nanos(left));
        }
    }
    // thread I/O priority and NUMA binding (before the buffers are allocated)
    let refused = |why: String| RunError::Refused {
        job: plan.job.name.clone(),
        why,
    };
    crate::run::fio_prio::set_thread_prio(&plan.job).map_err(refused)?;
    if let Some(what) = crate::run::fio_numa::apply(&plan.job, Path::new("/")).map_err(refused)? {
        if plan.thread == 0 {
            warn(format!("note: job '{}': {what}", plan.job.name));
        }
    }
    run_thread(plan, clock, stop, warn, live)
}

/// Run every job of `cmd`: lay out files, then each stonewall group in turn, its jobs'
/// threads concurrently. `note` receives progress lines (for stderr), `warn` warnings.
pub fn execute(
    cmd: &FioCommand,
    stop: &AtomicBool,
    note: &(dyn Fn(String) + Sync),
) -> Result<RunOutcome, RunError> {
    let clock = Clock::new();
    // groups of job indices, split at stonewall
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, j) in cmd.jobs.iter().enumerate() {
        if groups.is_empty() || (j.stonewall && i > 0) {
            groups.push(Vec::new());
        }
        if let Some(g) = groups.last_mut() {
            g.push(i);
        }
    }
    // io_uring permission, checked once before any file is touched (issue 3 item 1)
    if let Some(j) = cmd.jobs.iter().find(|j| j.engine == EngineKind::IoUring) {
        if let Err(e) = io_uring::probe_os() {
            let why = io_uring::unavailable_why(&e);
            if cmd.engine_strict {
                return Err(RunError::Engine {
                    job: j.name.clone(),
                    engine: "io_uring",
                    why: format!("{why} (--engine-strict: no fallback to psync)"),
                });
            }
            note(format!(
                "warning: {why}; io_uring jobs run on psync instead (--engine-strict makes this an error)"
            ));
            if let Some(k) = cmd.jobs.iter().find_map(|j| j.extra.uses_cmdprio()) {
                note(format!(
                    "warning: {k} has no effect on psync: requests run with the thread's priority"
                ));
            }
        }
    }
    // device safety: every job that writes is checked before any file is created
    for j in &cmd.jobs {
        let policy = crate::target::blockguard::WritePolicy {
            allow_destructive: cmd.allow_destructive_write.clone(),
            allow_mounted_write: j.allow_mounted_write,
            readonly: j.readonly,
        };
        for t in 0..j.numjobs {
            let files = files_for(j, t)?;
            // mmap maps files read-write, so it opens them with write access too
            let writes = j.rw.writes() || j.rw.trims() || j.engine == EngineKind::Mmap;
            fio_files::guard(&files.0, writes, &policy)?;
            if j.hipri {
                fio_files::check_polling(&files.0)?;
            }
        }
        // NUMA nodes named by the job must exist here
        crate::run::fio_numa::check(j, Path::new("/")).map_err(|why| RunError::Refused {
            job: j.name.clone(),
            why,
        })?;
    }
    // plans, then the checks that need no file (space, O_DIRECT, alignment), then layout
    let mut plans: Vec<Vec<Plan>> = Vec::new();
    let mut idx = 0u64;
    for j in &cmd.jobs {
        let mut ps = Vec::new();
        for t in 0..j.numjobs {
            ps.push(plan(j, t, idx)?);
            idx += 1;
        }
        plans.push(ps);
    }
    if cmd.jobs.iter().any(|j| j.control.flow > 0) {
        let flows = std::sync::Arc::new(crate::run::fio_flow::Flows::default());
        plans
            .iter_mut()
            .flatten()
            .for_each(|p| p.flows = Some(flows.clone()));
    }
    super::fio_zones::attach(&mut plans, note)?;
    super::fio_sprandom::prepare(&mut plans)?;
    let checks: Vec<(&[FileSpec], bool, Vec<u64>)> = cmd
        .jobs
        .iter()
        .zip(&plans)
        .filter(|(j, _)| j.engine != EngineKind::Null)
        .flat_map(|(j, ps)| {
            let mut sizes = block_sizes(&j.bs_read);
            sizes.extend(block_sizes(&j.bs_write));
            ps.iter()
                .map(move |p| (p.files.as_slice(), j.direct, sizes.clone()))
        })
        .collect();
    fio_files::preflight(&checks)?;
    for (j, ps) in cmd.jobs.iter().zip(&plans) {
        if !j.more.x.allow_file_create && j.engine != EngineKind::Null {
            for p in ps {
                let paths: Vec<&Path> = p.files.iter().map(|f| f.path.as_path()).collect();
                super::fio_errors::check_allow_create(&paths).map_err(|why| RunError::Refused {
                    job: j.name.clone(),
                    why,
                })?;
            }
        }
    }
    for (j, ps) in cmd.jobs.iter().zip(&plans) {
        if j.engine == EngineKind::Null {
            continue;
        }
        for p in ps {
            for m in fio_files::layout(&p.files, j.rw.reads(), j.rw.writes())? {
                note(format!("{}: {m}", j.name));
            }
        }
    }
    // atomic=1: the files take RWF_ATOMIC writes of the job's sizes, checked before I/O
    for (j, ps) in cmd.jobs.iter().zip(&plans) {
        if j.more.x.atomic {
            for p in ps {
                let paths: Vec<&Path> = p.files.iter().map(|f| f.path.as_path()).collect();
                super::fio_errors::check_atomic(&paths, &block_sizes(&j.bs_write)).map_err(
                    |why| RunError::Refused {
                        job: j.name.clone(),
                        why,
                    },
                )?;
            }
        }
    }
    // wait_for targets (validated to name an earlier job) and their finished threads
    let wait_idx: Vec<Option<usize>> = cmd
        .jobs
        .iter()
        .map(|j| {
            j.more
                .wait_for
                .as_ref()
                .and_then(|w| cmd.jobs.iter().position(|x| &x.name == w))
        })
        .collect();
    let done: Vec<AtomicU32> = cmd.jobs.iter().map(|_| AtomicU32::new(0)).collect();
    // reporting groups: a new one at every stonewall or new_group
    let mut report_gid = Vec::with_capacity(cmd.jobs.len());
    let mut rg = 0u32;
    for (i, j) in cmd.jobs.iter().enumerate() {
        if i > 0 && (j.stonewall || j.new_group) {
            rg += 1;
        }
        report_gid.push(rg);
    }
    let mut out = RunOutcome::default();
    let mut abort_rest = false;
    let run_t0 = std::time::Instant::now();
    let mut intervals = Vec::new();
    let mut samples = Vec::new();
    for g in &groups {
        if stop.load(Ordering::Relaxed) || abort_rest {
            break;
        }
        // one stop flag per thread, so exitall can end some threads and not others;
        // this thread coordinates: it forwards signals and applies exitall/exit_what
        let members: Vec<(usize, &Plan)> = g
            .iter()
            .flat_map(|&ji| plans[ji].iter().map(move |p| (ji, p)))
            .collect();
        let tstops: Vec<AtomicBool> = members.iter().map(|_| AtomicBool::new(false)).collect();
        let fin: Vec<AtomicBool> = members.iter().map(|_| AtomicBool::new(false)).collect();
        let lives: Vec<Live> = members.iter().map(|_| Default::default()).collect();
        // steady-state detectors (run/fio_steady.rs) read the live counters too
        let member_jobs: Vec<&FioJob> = members.iter().map(|&(ji, _)| &cmd.jobs[ji]).collect();
        let member_gids: Vec<u32> = members.iter().map(|&(ji, _)| report_gid[ji]).collect();
        let mut steadies = crate::run::fio_steady::detectors(&member_jobs, &member_gids);
        let group_t0 = std::time::Instant::now();
        let use_live = cmd.status_interval.is_some() || cmd.plot.is_some() || !steadies.is_empty();
        let results: Vec<(usize, Result<JobStats, RunError>)> = std::thread::scope(|s| {
            let mut hs = Vec::new();
            for (i, &(ji, p)) in members.iter().enumerate() {
                let clock = &clock;
                let done = &done;
                let (tstop, fin) = (&tstops[i], &fin[i]);
                let live = use_live.then_some(&lives[i]);
                let wait = wait_idx[ji].map(|t| (&done[t], cmd.jobs[t].numjobs));
                // flow weights count from the group's start to each thread's end
                let c = &cmd.jobs[ji].control;
                let flow = p
                    .flows
                    .as_ref()
                    .filter(|_| c.flow > 0)
                    .map(|f| (f, c.flow_id, c.flow));
                if let Some((f, id, w)) = flow {
                    f.reserve(id, w);
                }
                hs.push((
                    ji,
                    s.spawn(move || {
                        let r = start_thread(p, clock, tstop, note, wait, live);
                        if let Some((f, id, w)) = flow {
                            f.release(id, w);
                        }
                        done[ji].fetch_add(1, Ordering::Release);
                        fin.store(true, Ordering::Release);
                        r
                    }),
                ));
            }
            let mut handled = vec![false; members.len()];
            let mut last = (std::time::Instant::now(), [0u64; 4]);
            let mut last_plot = (std::time::Instant::now(), [0u64; 4]);
            loop {
                if cmd.plot.is_some() && last_plot.0.elapsed() >= PLOT_PERIOD {
                    let sum = live_sum(&lives);
                    samples.push(plot_sample(
                        &sum,
                        &last_plot.1,
                        last_plot.0.elapsed().as_secs_f64(),
                        run_t0.elapsed().as_secs_f64(),
                    ));
                    last_plot = (std::time::Instant::now(), sum);
                }
                if let Some(every) = cmd.status_interval {
                    if last.0.elapsed() >= every {
                        let mut sum = [0u64; 4];
                        for l in &lives {
                            for (k, x) in sum.iter_mut().enumerate() {
                                *x += l[k].load(Ordering::Relaxed);
                            }
                        }
                        let dur = last.0.elapsed().as_secs_f64();
                        let iv = status_sample(&sum, &last.1, dur, run_t0.elapsed().as_secs_f64());
                        note(status_line(&iv, sum[2] - last.1[2], sum[3] - last.1[3]));
                        intervals.push(iv);
                        last = (std::time::Instant::now(), sum);
                    }
                }
                let el = group_t0.elapsed();
                for (watch, d) in steadies.iter_mut().filter(|(_, d)| d.due(el)) {
                    let mut sum = [0u64; 4];
                    for &k in watch.iter() {
                        let l = &lives[k];
                        let v = |i: usize| l[i].load(Ordering::Relaxed);
                        sum[0] += v(2) + v(3);
                        sum[1] += v(0) + v(1);
                        sum[2] += v(4);
                        sum[3] += v(5);
                    }
                    if d.check(el, sum) {
                        // steady state attained: the job (or its reporting group) stops
                        watch
                            .iter()
                            .for_each(|&k| tstops[k].store(true, Ordering::Relaxed));
                    }
                }
                let all_done = fin.iter().all(|f| f.load(Ordering::Acquire));
                if stop.load(Ordering::Relaxed) {
                    tstops.iter().for_each(|t| t.store(true, Ordering::Relaxed));
                }
                for (i, &(ji, _)) in members.iter().enumerate() {
                    let job = &cmd.jobs[ji];
                    if handled[i] || !job.more.exitall || !fin[i].load(Ordering::Acquire) {
                        continue;
                    }
                    handled[i] = true;
                    for (k, &(jk, _)) in members.iter().enumerate() {
                        let hit = match job.more.exit_what {
                            ExitWhat::Group => report_gid[jk] == report_gid[ji],
                            ExitWhat::Stonewall | ExitWhat::All => true,
                        };
                        if hit {
                            tstops[k].store(true, Ordering::Relaxed);
                        }
                    }
                    if job.more.exit_what == ExitWhat::All {
                        abort_rest = true;
                    }
                }
                if all_done {
                    if cmd.plot.is_some() {
                        // the tail since the last sample, so the samples add up to the run
                        let sum = live_sum(&lives);
                        if sum != last_plot.1 {
                            samples.push(plot_sample(
                                &sum,
                                &last_plot.1,
                                last_plot.0.elapsed().as_secs_f64(),
                                run_t0.elapsed().as_secs_f64(),
                            ));
                        }
                    }
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            hs.into_iter()
                .map(|(ji, h)| {
                    let r = h.join().unwrap_or_else(|_| {
                        Err(RunError::Plan {
                            job: cmd.jobs[ji].name.clone(),
                            why: "worker thread panicked".into(),
                        })
                    });
                    (ji, r)
                })
                .collect()
        });
        let mut merged: Vec<JobStats> = Vec::new();
        for (i, (ji, r)) in results.into_iter().enumerate() {
            let mut st = r?;
            st.groupid = report_gid[ji];
            if let Some((_, d)) = steadies.iter().find(|(w, _)| w.contains(&i)) {
                st.steady = Some(d.report());
            }
            if cmd.jobs[ji].group_reporting {
                match merged.iter_mut().find(|m| m.groupid == st.groupid) {
                    Some(m) => m.merge(&st),
                    None => merged.push(st),
                }
            } else {
                out.jobs.push(st);
            }
        }
        out.jobs.extend(merged);
    }
    out.interrupted = stop.load(Ordering::Relaxed);
    out.intervals = intervals;
    out.samples = samples;
    Ok(out)
}

/// Completions one reap may take, fio's `iodepth_batch_complete_max` (0 or unset: the
/// same as `iodepth_batch_complete_min`, fio's default; never below that minimum).
fn reap_max(job: &FioJob) -> usize {
    let m = &job.more;
    let min = m.iodepth_batch_complete_min.max(1);
    let max = if m.iodepth_batch_complete_max == 0 {
        min
    } else {
        m.iodepth_batch_complete_max.max(min)
    };
    max as usize
}

#[cfg(test)]
mod tests {
    use super::RunError;

    fn io(why: &str) -> RunError {
        RunError::Io {
            job: "j".into(),
            op: "write",
            file: "f".into(),
            offset: 0,
            len: 4096,
            why: why.into(),
        }
    }

    #[test]
    fn errno_of_a_failure_is_fios() {
        assert_eq!(io("Input/output error").errno(), libc::EIO);
        assert_eq!(io("No space left on device").errno(), libc::ENOSPC);
        // the longest matching text wins: ENXIO's starts with ENODEV's
        assert_eq!(io("No such device or address").errno(), libc::ENXIO);
        assert_eq!(io("No such device").errno(), libc::ENODEV);
        assert_eq!(
            io("Invalid argument (direct=1 needs offsets ...)").errno(),
            libc::EINVAL
        );
        assert_eq!(io("short transfer (2048 bytes)").errno(), libc::EIO);
        assert_eq!(
            io("latency of 9 ns exceeds latency_target").errno(),
            libc::ETIMEDOUT
        );
        let v = RunError::Verify {
            job: "j".into(),
            count: 1,
            first: String::new(),
        };
        assert_eq!(v.errno(), libc::EILSEQ);
        let p = RunError::Plan {
            job: "j".into(),
            why: "x".into(),
        };
        assert_eq!(p.errno(), 0);
    }
}
