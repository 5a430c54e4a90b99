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
use crate::engine::{Completion, Dir, Engine, IoErr, IoReq, SyncKind};
use crate::job::fio::{BlockSizes, EngineKind, FioCommand, FioJob, SizeSpec};
use crate::stats::clock::Clock;
use crate::stats::new_hist;
use crate::target::fio_files::{self, FileSpec, FilesError};
use crate::target::strerror;
use hdrhistogram::Histogram;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
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
}

impl RunError {
    /// Exit code (DESIGN.md policy).
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Files(e) => e.exit_code(),
            RunError::Plan { .. } => crate::exit::INVALID,
            RunError::Engine { .. } => crate::exit::ENVIRONMENT,
            RunError::Io { .. } => crate::exit::FAILED,
        }
    }
}

/// Latency histogram with exact sum, ns.
#[derive(Clone, Debug)]
pub struct Lat {
    /// HDR histogram, ns (3 significant digits)
    pub hist: Histogram<u64>,
    /// exact sum, ns
    pub sum_ns: u128,
}

impl Default for Lat {
    fn default() -> Self {
        Lat {
            hist: new_hist(),
            sum_ns: 0,
        }
    }
}

impl Lat {
    #[inline]
    fn add(&mut self, ns: u64) {
        self.hist.saturating_record(ns.max(1));
        self.sum_ns += u128::from(ns);
    }
    fn merge(&mut self, o: &Lat) {
        let _ = self.hist.add(&o.hist);
        self.sum_ns += o.sum_ns;
    }
    /// Mean, ns (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.hist.is_empty() {
            0.0
        } else {
            self.sum_ns as f64 / self.hist.len() as f64
        }
    }
}

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
}

impl DirStats {
    fn merge(&mut self, o: &DirStats) {
        self.ios += o.ios;
        self.bytes += o.bytes;
        self.slat.merge(&o.slat);
        self.clat.merge(&o.clat);
        self.lat.merge(&o.lat);
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
    /// fsync calls (periodic and end_fsync) and their latency
    pub sync: DirStats,
    /// measured run time, ns (max over merged threads)
    pub runtime_ns: u64,
    /// the job's options, as written
    pub options: Vec<(String, String)>,
    /// engine actually used
    pub engine: &'static str,
}

impl JobStats {
    fn merge(&mut self, o: &JobStats) {
        self.threads += o.threads;
        self.read.merge(&o.read);
        self.write.merge(&o.write);
        self.sync.merge(&o.sync);
        self.runtime_ns = self.runtime_ns.max(o.runtime_ns);
    }
}

/// Outcome of `execute`.
#[derive(Debug, Default)]
pub struct RunOutcome {
    /// one entry per reported job (per thread, or merged with `group_reporting`)
    pub jobs: Vec<JobStats>,
    /// stopped by a signal
    pub interrupted: bool,
}

/// xorshift64* generator: small, fast, reproducible from `randseed`.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        // splitmix64 of the seed, never 0
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }
    #[inline]
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `[0, n)` (n > 0), by multiply-shift.
    #[inline]
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }
}

/// Everything a worker thread needs, resolved from a job.
#[derive(Clone, Debug)]
struct Plan {
    job: FioJob,
    files: Vec<FileSpec>,
    /// offset alignment, bytes
    align: u64,
    /// bytes to move before stopping (0 = unlimited)
    byte_limit: u64,
    seed: u64,
}

fn pick_bs(bs: &BlockSizes, rng: &mut Rng) -> u64 {
    match bs {
        BlockSizes::Fixed(b) => *b,
        BlockSizes::Range(a, b) => {
            let steps = (b / a).max(1);
            (a * (1 + rng.below(steps))).min(*b)
        }
        BlockSizes::Split(v) => {
            let mut x = rng.below(100) as u32;
            for &(b, w) in v {
                if x < w {
                    return b;
                }
                x -= w;
            }
            v.last().map_or(4096, |e| e.0)
        }
    }
}

/// Files of thread `t` of `job`, with sizes (existing sizes looked up through target/).
fn files_for(job: &FioJob, t: u32) -> Result<Vec<FileSpec>, RunError> {
    let dir = job.directory.clone();
    let join = |name: &str| -> PathBuf {
        let p = Path::new(name);
        match (&dir, p.is_absolute()) {
            (Some(d), false) => d.join(p),
            _ => p.to_path_buf(),
        }
    };
    let paths: Vec<PathBuf> = match &job.filename {
        Some(list) => list
            .split(':')
            .filter(|s| !s.is_empty())
            .map(join)
            .collect(),
        None => (0..job.nrfiles)
            .map(|i| join(&format!("{}.{}.{}", job.name, t, i)))
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
    for p in paths {
        let existing = fio_files::existing_size(&p);
        let size = match (job.filesize, job.size) {
            (Some((a, _)), _) => a,
            (None, Some(SizeSpec::Bytes(b))) => b / n,
            (None, Some(SizeSpec::Percent(pc))) => match existing {
                Some(e) => (e as f64 * pc / 100.0) as u64,
                None => return Err(FilesError::NoSize(p).into()),
            },
            (None, None) if job.engine == EngineKind::Null => NULL_DEFAULT_SIZE,
            (None, None) => match existing {
                Some(e) => e,
                None => return Err(FilesError::NoSize(p).into()),
            },
        };
        out.push(FileSpec { path: p, size });
    }
    Ok(out)
}

fn plan(job: &FioJob, t: u32, global_index: u64) -> Result<Plan, RunError> {
    let files = files_for(job, t)?;
    let max_bs = job.bs_read.max().max(job.bs_write.max());
    let align = job.bs_read.min().min(job.bs_write.min()).max(1);
    if let Some(f) = files.iter().find(|f| f.size < max_bs) {
        return Err(RunError::Plan {
            job: job.name.clone(),
            why: format!(
                "file {} has {} bytes, less than the largest block size {} bytes",
                f.path.display(),
                f.size,
                max_bs
            ),
        });
    }
    let total: u64 = files.iter().map(|f| f.size).sum();
    let byte_limit = if job.time_based {
        0
    } else {
        total.saturating_mul(job.loops)
    };
    let seed = job
        .randseed
        .unwrap_or(0x8960_9f0a)
        .wrapping_add(global_index.wrapping_mul(0x1_0000_0001));
    Ok(Plan {
        job: job.clone(),
        files,
        align,
        byte_limit,
        seed,
    })
}

#[derive(Clone, Copy, Default)]
struct Slot {
    t0: u64,
    t1: u64,
    dir: Option<Dir>,
    file: usize,
    offset: u64,
    len: usize,
    measured: bool,
}

fn io_why(e: IoErr, direct: bool, align: u64) -> String {
    match e {
        IoErr::Errno(libc::EINVAL) if direct => format!(
            "{} (direct=1 needs offsets, lengths and buffers aligned to the device's logical block size; offsets here are aligned to {align} bytes)",
            strerror(libc::EINVAL)
        ),
        IoErr::Errno(n) => strerror(n),
        IoErr::Short { done } => format!("short transfer ({done} bytes)"),
    }
}

struct Worker<'a> {
    plan: &'a Plan,
    clock: &'a Clock,
    stop: &'a AtomicBool,
    rng: Rng,
    cursors: Vec<u64>,
    rr: usize,
    seq_left: u64,
    last: (usize, u64),
}

impl Worker<'_> {
    fn next_req(&mut self, buf: *mut u8, buf_index: u16) -> IoReq {
        let job = &self.plan.job;
        let dir = match (job.rw.reads(), job.rw.writes()) {
            (true, true) => {
                if (self.rng.below(100) as u32) < job.rwmixread {
                    Dir::Read
                } else {
                    Dir::Write
                }
            }
            (false, _) => Dir::Write,
            _ => Dir::Read,
        };
        let bs = match dir {
            Dir::Read => pick_bs(&job.bs_read, &mut self.rng),
            Dir::Write => pick_bs(&job.bs_write, &mut self.rng),
        };
        let file = self.rr;
        self.rr = (self.rr + 1) % self.plan.files.len();
        let fsize = self.plan.files[file].size;
        let align = self.plan.align;
        let offset = if job.rw.random() {
            if self.seq_left > 0 && self.last.0 == file {
                self.seq_left -= 1;
                let o = self.last.1;
                if o + bs <= fsize {
                    o
                } else {
                    0
                }
            } else {
                let slots = (fsize - bs) / align + 1;
                if job.rw_suffix > 1 {
                    self.seq_left = job.rw_suffix - 1;
                }
                self.rng.below(slots) * align
            }
        } else {
            let mut o = self.cursors[file];
            if o + bs > fsize {
                o = 0;
            }
            self.cursors[file] = o + bs + job.rw_suffix;
            o
        };
        self.last = (file, offset + bs);
        IoReq {
            dir,
            file,
            offset,
            len: bs as usize,
            buf,
            buf_index,
        }
    }

    fn run<E: Engine>(
        &mut self,
        eng: &mut E,
        slab: &Slab,
        depth: usize,
    ) -> Result<JobStats, RunError> {
        let plan = self.plan;
        let job = &plan.job;
        let clock = self.clock;
        let mut st = JobStats {
            name: job.name.clone(),
            threads: 1,
            options: job.options.clone(),
            engine: eng.name(),
            ..JobStats::default()
        };
        let start = clock.now();
        let ramp_end = start + clock.ticks(job.ramp_time);
        let mut measuring = job.ramp_time.is_zero();
        let mut measure_start = start;
        let deadline = job.runtime.map(|r| ramp_end + clock.ticks(r));
        let mut slots = vec![Slot::default(); depth];
        let mut free: Vec<usize> = (0..depth).rev().collect();
        let mut in_flight = 0usize;
        let mut issued_bytes = 0u64;
        let mut issued_ios = 0u64;
        let mut writes_since_sync = 0u64;
        let mut comps: Vec<Completion> = Vec::with_capacity(depth);
        // slots queued since the last flush: their submission ends at the flush (fio
        // stamps issue_time at commit), so t1 is set there
        let mut batch: Vec<usize> = Vec::with_capacity(depth);
        let err = |s: &Slot, e: IoErr| RunError::Io {
            job: job.name.clone(),
            op: if s.dir == Some(Dir::Write) {
                "write"
            } else {
                "read"
            },
            file: plan.files[s.file].path.clone(),
            offset: s.offset,
            len: s.len,
            why: io_why(e, job.direct, plan.align),
        };
        let record = |st: &mut JobStats, s: &Slot, slat: Option<u64>, clat: u64, lat: u64| {
            if !s.measured {
                return;
            }
            let d = if s.dir == Some(Dir::Write) {
                &mut st.write
            } else {
                &mut st.read
            };
            d.ios += 1;
            d.bytes += s.len as u64;
            if let Some(x) = slat {
                d.slat.add(x);
            }
            d.clat.add(clat);
            d.lat.add(lat);
        };
        loop {
            let now = clock.now();
            if !measuring && now >= ramp_end {
                measuring = true;
                measure_start = now;
            }
            let done = self.stop.load(Ordering::Relaxed)
                || deadline.is_some_and(|d| now >= d)
                || (measuring && plan.byte_limit > 0 && issued_bytes >= plan.byte_limit)
                || (measuring && job.number_ios > 0 && issued_ios >= job.number_ios);
            if !done {
                while let Some(slot) = free.pop() {
                    let buf = slab.bufs[slot].ptr();
                    let req = self.next_req(buf, slot as u16);
                    if measuring {
                        issued_bytes += req.len as u64;
                        issued_ios += 1;
                    }
                    let t0 = clock.now();
                    let r = eng.submit(slot, &req);
                    let t1 = clock.now();
                    let s = Slot {
                        t0,
                        t1,
                        dir: Some(req.dir),
                        file: req.file,
                        offset: req.offset,
                        len: req.len,
                        measured: measuring,
                    };
                    match r {
                        Ok(Some(n)) => {
                            if n != req.len {
                                return Err(err(&s, IoErr::Short { done: n }));
                            }
                            record(&mut st, &s, None, clock.ns(t0, t1), clock.ns(t0, t1));
                            free.push(slot);
                        }
                        Ok(None) => {
                            slots[slot] = s;
                            in_flight += 1;
                            batch.push(slot);
                        }
                        Err(e) => return Err(err(&s, e)),
                    }
                    if req.dir == Dir::Write && job.fsync > 0 {
                        writes_since_sync += 1;
                        if writes_since_sync >= job.fsync {
                            writes_since_sync = 0;
                            flush_batch(eng, clock, &mut slots, &mut batch)
                                .map_err(|e| err(&s, e))?;
                            // drain, then sync the file (fio orders the sync after the writes)
                            while in_flight > 0 {
                                comps.clear();
                                eng.reap(in_flight, &mut comps).map_err(|e| err(&s, e))?;
                                let t = clock.now();
                                for c in &comps {
                                    let cs = slots[c.slot];
                                    in_flight -= 1;
                                    free.push(c.slot);
                                    if c.res != cs.len as i64 {
                                        return Err(err(&cs, completion_err(c.res)));
                                    }
                                    record(
                                        &mut st,
                                        &cs,
                                        Some(clock.ns(cs.t0, cs.t1)),
                                        clock.ns(cs.t1, t),
                                        clock.ns(cs.t0, t),
                                    );
                                }
                            }
                            let a = clock.now();
                            eng.sync(req.file, SyncKind::Fsync)
                                .map_err(|e| RunError::Io {
                                    job: job.name.clone(),
                                    op: "fsync",
                                    file: plan.files[req.file].path.clone(),
                                    offset: 0,
                                    len: 0,
                                    why: io_why(e, false, 0),
                                })?;
                            let b = clock.now();
                            if measuring {
                                st.sync.ios += 1;
                                st.sync.lat.add(clock.ns(a, b));
                            }
                        }
                    }
                    if self.stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if plan.byte_limit > 0 && measuring && issued_bytes >= plan.byte_limit {
                        break;
                    }
                    if job.number_ios > 0 && measuring && issued_ios >= job.number_ios {
                        break;
                    }
                    if free.is_empty() {
                        break;
                    }
                    // synchronous engines: re-check the clock limits after each I/O
                    if in_flight == 0 {
                        break;
                    }
                }
            }
            if !batch.is_empty() {
                let s0 = slots[batch[0]];
                flush_batch(eng, clock, &mut slots, &mut batch).map_err(|e| err(&s0, e))?;
            }
            if in_flight == 0 {
                if done {
                    break;
                }
                continue;
            }
            comps.clear();
            eng.reap(1, &mut comps)
                .map_err(|e| err(&Slot::default(), e))?;
            let t = clock.now();
            for c in &comps {
                let cs = slots[c.slot];
                in_flight -= 1;
                free.push(c.slot);
                if c.res != cs.len as i64 {
                    return Err(err(&cs, completion_err(c.res)));
                }
                record(
                    &mut st,
                    &cs,
                    Some(clock.ns(cs.t0, cs.t1)),
                    clock.ns(cs.t1, t),
                    clock.ns(cs.t0, t),
                );
            }
        }
        if job.end_fsync && job.rw.writes() {
            for f in 0..plan.files.len() {
                let a = clock.now();
                eng.sync(f, SyncKind::Fsync).map_err(|e| RunError::Io {
                    job: job.name.clone(),
                    op: "fsync",
                    file: plan.files[f].path.clone(),
                    offset: 0,
                    len: 0,
                    why: io_why(e, false, 0),
                })?;
                st.sync.ios += 1;
                st.sync.lat.add(clock.ns(a, clock.now()));
            }
        }
        st.runtime_ns = if measuring {
            clock.ns(measure_start, clock.now())
        } else {
            0
        };
        Ok(st)
    }
}

/// Submit the queued batch (one system call for io_uring) and stamp its requests'
/// submission end.
#[inline]
fn flush_batch<E: Engine>(
    eng: &mut E,
    clock: &Clock,
    slots: &mut [Slot],
    batch: &mut Vec<usize>,
) -> Result<(), IoErr> {
    if batch.is_empty() {
        return Ok(());
    }
    if eng.flush()? {
        let t1 = clock.now();
        for &b in batch.iter() {
            slots[b].t1 = t1;
        }
    }
    batch.clear();
    Ok(())
}

fn completion_err(res: i64) -> IoErr {
    if res < 0 {
        IoErr::Errno(i32::try_from(-res).unwrap_or(libc::EIO))
    } else {
        IoErr::Short { done: res as usize }
    }
}

/// Run one thread of a job: open files, build the engine, drive it.
fn run_thread(
    plan: &Plan,
    clock: &Clock,
    stop: &AtomicBool,
    _warn: &(dyn Fn(String) + Sync),
) -> Result<JobStats, RunError> {
    let job = &plan.job;
    let max_bs = job.bs_read.max().max(job.bs_write.max()) as usize;
    let depth = match job.engine {
        EngineKind::IoUring | EngineKind::Null => job.iodepth as usize,
        _ => 1,
    };
    let mut slab = Slab::new(depth, max_bs);
    let mut rng = Rng::new(plan.seed ^ 0x5151);
    for b in &mut slab.bufs {
        for c in b.as_mut_slice().chunks_mut(8) {
            let v = rng.next().to_le_bytes();
            c.copy_from_slice(&v[..c.len()]);
        }
    }
    let mut w = Worker {
        plan,
        clock,
        stop,
        rng: Rng::new(plan.seed),
        cursors: vec![0; plan.files.len()],
        rr: 0,
        seq_left: 0,
        last: (0, 0),
    };
    let engine_err = |engine, why: String| RunError::Engine {
        job: job.name.clone(),
        engine,
        why,
    };
    if job.engine == EngineKind::Null {
        let mut e = Null::new(depth);
        return w.run(&mut e, &slab, 1);
    }
    let writes = job.rw.writes();
    let open = fio_files::open(
        &plan.files,
        writes || job.engine == EngineKind::Mmap,
        job.direct,
    )?;
    let fds = open.fds();
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
                let mut e = Uring::with_setup(fds, depth, &bufs, setup)
                    .map_err(|e| engine_err("io_uring", io_uring::unavailable_why(&e)))?
                    // one io_uring_enter per I/O, fio's default (iodepth_batch_submit=1):
                    // on virtio it measured faster than batching (bench/RUN_RESULTS.md);
                    // batch mode is for iodepth_batch_submit > 1
                    .batched(false);
                w.run(&mut e, &slab, depth)
            }
            Err(_) => {
                // denied: `execute` already warned once (or refused with --engine-strict)
                let mut e = Psync::new(fds);
                w.run(&mut e, &slab, 1)
            }
        },
        EngineKind::Mmap => {
            let len = plan.files.iter().map(|f| f.size).min().unwrap_or(0) as usize;
            let mut e =
                Mmap::new(&fds, len).map_err(|e| engine_err("mmap", io_why(e, false, 0)))?;
            w.run(&mut e, &slab, 1)
        }
        _ => {
            let mut e = Psync::new(fds);
            w.run(&mut e, &slab, 1)
        }
    };
    drop(open);
    st
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
            let writes = j.rw.writes() || j.engine == EngineKind::Mmap;
            fio_files::guard(&files, writes, &policy)?;
            if j.hipri {
                fio_files::check_polling(&files)?;
            }
        }
    }
    // plans and file layout before anything runs
    let mut plans: Vec<Vec<Plan>> = Vec::new();
    let mut idx = 0u64;
    for j in &cmd.jobs {
        let mut ps = Vec::new();
        for t in 0..j.numjobs {
            let p = plan(j, t, idx)?;
            idx += 1;
            if j.engine != EngineKind::Null {
                for m in fio_files::layout(&p.files, j.rw.reads(), j.rw.writes())? {
                    note(format!("{}: {m}", j.name));
                }
            }
            ps.push(p);
        }
        plans.push(ps);
    }
    let mut out = RunOutcome::default();
    for (gid, g) in groups.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let results: Vec<(usize, Result<JobStats, RunError>)> = std::thread::scope(|s| {
            let mut hs = Vec::new();
            for &ji in g {
                for p in &plans[ji] {
                    let clock = &clock;
                    hs.push((ji, s.spawn(move || run_thread(p, clock, stop, note))));
                }
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
        let mut merged: Option<JobStats> = None;
        for (ji, r) in results {
            let mut st = r?;
            st.groupid = gid as u32;
            if cmd.jobs[ji].group_reporting {
                match &mut merged {
                    Some(m) => m.merge(&st),
                    None => merged = Some(st),
                }
            } else {
                out.jobs.push(st);
            }
        }
        if let Some(m) = merged {
            out.jobs.push(m);
        }
    }
    out.interrupted = stop.load(Ordering::Relaxed);
    Ok(out)
}
