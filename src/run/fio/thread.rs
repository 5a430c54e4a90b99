//! One job thread of `iomark run` (see [`crate::run::fio`]): fio's plug-in of the one
//! job-thread shell (run/worker/thread.rs, which enters the thread, allocates its slots
//! and builds the engine): start delay, priorities and NUMA binding, the slots' data,
//! opening its files, the engine's options (io_uring's ring options, libaio's, the
//! mapped length, the no-data engines' options: the path engines get the paths, no
//! descriptors), driving the worker, fio's words for a refused engine; its CPU time.
//! The coordinator in [`crate::run::fio::execute`] spawns these. Nothing here builds an
//! engine itself.

use crate::engine::buffers::Slab;
use crate::engine::io_uring;
use crate::engine::registry::{NativeAio, NoData, Refused, Ring, Spec};
use crate::engine::{Engine, IoErr};
use crate::files::dataset::{self};
use crate::files::strerror;
use crate::job::fio::{EngineKind, FioJob};
use crate::job::model::workload::Queue;
use crate::result::job::{EffectiveJob, JobRecord};
use crate::run::fio::log::{LogSpec, Logs};
use crate::run::fio::plan::IoschedMiss;
use crate::run::fio::*;
use crate::run::gen::Rng;
use crate::run::worker::thread::{io_err_text, JobThread, ThreadDrive};
use crate::run::worker::{fill_buf, Live, Worker};
use crate::stats::clock::Clock;
use crate::stats::cpu::{CpuTimes, Who};
use crate::stats::job::FioAccount;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Error text of a failed I/O (EINVAL with direct=1 explains alignment).
pub(crate) fn io_why(e: IoErr, direct: bool, align: u64) -> String {
    match e {
        IoErr::Errno(libc::EINVAL) if direct => format!(
            "{} (direct=1: offsets and lengths must be multiples of the logical block size, buffers aligned to it; this job aligns offsets to {align} bytes)",
            strerror(libc::EINVAL)
        ),
        e => io_err_text(e),
    }
}

/// fio's `--debug` areas of a job thread's start: `process` (the thread), `random` (its
/// seed: offsets, buffers, mixes and sizes draw from generators seeded from it) and
/// `file` (each file with its size).
fn trace_start(plan: &Plan) {
    use crate::util::debug::trace;
    let j = &plan.job;
    trace("process", || {
        format!("iomark: job {} thread {} started\n", j.name, plan.thread)
    });
    trace("random", || {
        format!(
            "iomark: job {} thread {} seed {} (randseed={}, randrepeat={})\n",
            j.name,
            plan.thread,
            plan.seed,
            j.randseed.map_or("none".to_string(), |s| s.to_string()),
            u8::from(j.more.randrepeat)
        )
    });
    for f in &plan.files {
        trace("file", || {
            format!(
                "iomark: job {} file {} size {}\n",
                j.name,
                f.path.display(),
                f.size
            )
        });
    }
}

/// Run one thread of a job and account its CPU (RUSAGE_THREAD).
pub(crate) fn run_thread(
    plan: &Plan,
    clock: &Clock,
    stop: &AtomicBool,
    warn: &(dyn Fn(String) + Sync),
    live: Option<&Live>,
) -> Result<JobRecord, RunError> {
    // every descriptor of this thread is opened below and closed with it
    let mut t = JobThread::enter(&plan.thread_job);
    let c0 = CpuTimes::now(Who::Thread);
    let w0 = std::time::Instant::now();
    trace_start(plan);
    let (mut rec, failed) = run_thread_io(plan, &mut t, clock, stop, warn, live)?;
    // the engine is closed and freed with the thread's I/O (fio's words)
    for what in ["close", "free"] {
        crate::util::debug::trace("io", || {
            format!("{what} ioengine {}\n", plan.job.engine.name())
        });
    }
    crate::util::debug::trace("process", || {
        format!(
            "iomark: job {} thread {} ended\n",
            plan.job.name, plan.thread
        )
    });
    let st = &mut rec.stats;
    // fio's lines of a verify mismatch were said as it was found, a refused commit has
    // its account alone: under the fio persona iomark's explanation is a note
    let noted = plan.fio_errors && failed.as_ref().is_some_and(RunError::fio_says_it_otherwise);
    if let Some(e) = failed {
        // a failed run keeps the report of the I/O done before the failure (as fio,
        // with `err=`); errors of another kind end the run without a report
        if e.exit_code() != crate::util::error::exit::FAILED {
            return Err(e);
        }
        st.error = e.errno();
        // (the fio persona's words where fio has its own line for the failure)
        let fio = e.fio_words().filter(|_| plan.fio_errors);
        // fio says a missed minimum rate as the thread fails, with no `fio: ` before it
        if let (Some(line), RunError::MinRate { .. }) = (&fio, &e) {
            eprintln!("{line}");
            st.failure_said = true;
        }
        st.failure = Some(fio.unwrap_or_else(|| e.to_string()));
        st.account = e.account();
        st.failed_threads = 1;
    }
    st.cpu = CpuTimes::now(Who::Thread).since(&c0);
    // SAFETY: gettid(2) only returns the calling thread's id
    st.pid = u32::try_from(unsafe { libc::gettid() }).unwrap_or(0);
    if let Some(f) = st.failure.clone() {
        // this thread's failure first, then the requests that failed as it wound down
        let mut t = st.thread_failures.pop().unwrap_or_default();
        (t.pid, t.errno, t.noted) = (st.pid, st.error, noted);
        t.account.clone_from(&st.account);
        t.lines.insert(0, f);
        st.thread_failures = vec![t];
    }
    // fio's total_run_time: the I/O phase and the verify phase, each in whole ms
    st.runtime_ms_sum = st.runtime_ns / 1_000_000 + st.verify_ns / 1_000_000;
    // the thread's whole life (setup included), as the CPU time covers it too
    st.run_ns_sum = u64::try_from(w0.elapsed().as_nanos()).unwrap_or(u64::MAX);
    rec.job = effective_job(plan);
    Ok(rec)
}

/// The job a thread of `plan` ran, as its record reports it.
pub(crate) fn effective_job(plan: &Plan) -> EffectiveJob {
    EffectiveJob::of_fio(
        &plan.job,
        plan.regions.iter().map(|r| r.1).sum(),
        u32::try_from(plan.files.len()).unwrap_or(u32::MAX),
        plan.files.first().map_or(0, |f| f.size),
    )
}

/// The slots' data before the first write: zeros, a pattern or compressible random
/// bytes (`zero_buffers`, `buffer_pattern`, `buffer_compress_percentage`).
fn fill_slots(plan: &Plan, slab: &mut Slab) {
    let (job, m) = (&plan.job, &plan.job.more);
    let mut rng = Rng::new(plan.seed ^ 0x5151);
    for b in &mut slab.bufs {
        fill_buf(
            b.as_mut_slice(),
            &mut rng,
            m.zero_buffers,
            (
                m.buffer_compress_percentage,
                job.tuning.buffer_compress_chunk,
            ),
            &m.buffer_pattern,
        );
    }
}

/// Run one thread of a job entered as `t`: open files, fill the engine's options,
/// drive the worker on the engine the shell builds.
pub(crate) fn run_thread_io(
    plan: &Plan,
    t: &mut JobThread,
    clock: &Clock,
    stop: &AtomicBool,
    warn: &(dyn Fn(String) + Sync),
    live: Option<&Live>,
) -> Result<(JobRecord, Option<RunError>), RunError> {
    let job = &plan.job;
    let m = &job.more;
    // (a job with no file, an `opendir` that added none, runs without I/O too)
    let empty =
        plan.replay.is_none() && (plan.files.is_empty() || super::plan::no_region(&plan.regions));
    if m.x.create_only || empty {
        // create_only: `execute` laid the files out; no I/O runs, and the job is
        // reported with zeros (as fio reports it); its logs are created as fio's are,
        // empty. A thread whose regions are all empty (past its files' ends) runs no
        // I/O either
        idle_logs(plan, !m.x.create_only)?;
        let mut rec = empty_record(plan);
        // a job with no file or no region still begins its I/O loop in fio 3.33, which
        // sets its latency target up; create_only's is done before it
        if !m.x.create_only {
            rec.lat_target = Some(lat_target_set_up(plan));
        }
        return Ok((rec, None));
    }
    let caps = plan.thread_job.engine.caps();
    fill_slots(plan, &mut t.slab);
    let logs = logs_of(plan)?;
    if caps.no_io || caps.paths {
        let w = Worker::new(plan, clock, stop, Vec::new(), logs, live);
        return drive_no_descriptor(plan, t, FioDrive { w, warn });
    }
    let writes = job.rw.writes() || job.rw.trims();
    let rw_open = writes || caps.maps_files;
    if m.create_on_open && m.x.allow_file_create {
        // nothing was laid out: the job's open creates what is missing (fio 3.33)
        dataset::create_on_open(&plan.files)?;
    }
    let open = if m.sync_io || m.dsync_io {
        let flag = if m.sync_io {
            libc::O_SYNC
        } else {
            libc::O_DSYNC
        };
        dataset::open_osync(&plan.files, rw_open, job.direct, flag)?
    } else {
        dataset::open(&plan.files, rw_open, job.direct)?
    };
    let fds = open.fds();
    if let Some(r) = hint_writes(plan, &fds)? {
        return Ok((r, None));
    }
    // fadvise_hint (fio default 1): random or sequential read-ahead advice per open file
    // or block device, as fio gives it at every open; advice only, so a refusal (a
    // character device) is ignored, as fio goes on after its one-line warning
    let advice = m.fadvise_hint.advice(job.rw.random());
    if let Some(a) = advice {
        for &fd in &fds {
            // SAFETY: advice on an open descriptor; offset 0, len 0 = the whole file.
            unsafe { libc::posix_fadvise(fd, 0, 0, a) };
        }
    }
    // fio: pre_read clears invalidate (the files were read into the cache on purpose)
    if m.invalidate && !job.direct && !job.tuning.pre_read {
        crate::run::worker::drop_cache(&fds, &plan.files);
    }
    let w = Worker::new(plan, clock, stop, fds.clone(), logs, live);
    let spec = engine_spec(plan, t.spec(fds), advice);
    let st = drive(plan, t, spec, FioDrive { w, warn });
    drop(open);
    st
}

/// The record of a job thread that ran no I/O (create_only; a net job whose connection
/// failed): one thread, every count zero.
pub(crate) fn empty_record(plan: &Plan) -> JobRecord {
    JobRecord {
        engine: plan.thread_job.engine.name().into(),
        stats: crate::stats::job::JobStats {
            threads: 1,
            ..Default::default()
        },
        ..JobRecord::default()
    }
}

/// The engine `plan`'s threads run: the one asked for, or psync when io_uring is not
/// permitted here (the registry's fallback, engine/registry.rs `build`).
pub(crate) fn engine_that_runs(plan: &Plan) -> crate::engine::registry::Kind {
    use crate::engine::registry::Kind;
    match plan.thread_job.engine {
        Kind::IoUring if Kind::IoUring.available().is_err() => Kind::Psync,
        k => k,
    }
}

/// A job whose engine gets no descriptor: it touches nothing (null, cpuio, page_fault,
/// exec, net) or works on the paths itself (the file/directory operations).
fn drive_no_descriptor(
    plan: &Plan,
    t: &JobThread,
    d: FioDrive<'_, '_>,
) -> Result<(JobRecord, Option<RunError>), RunError> {
    let job = &plan.job;
    let m = &job.more;
    let caps = plan.thread_job.engine.caps();
    let mut spec = t.spec(Vec::new());
    // null's engine is built for the job's iodepth (its loop still runs one slot)
    spec.depth = job.iodepth as usize;
    if caps.paths {
        spec.paths = plan.files.iter().map(|f| f.path.clone()).collect();
    }
    // page_fault maps the job's size; exec runs its program
    spec.map_len =
        usize::try_from(plan.files.iter().map(|f| f.size).sum::<u64>()).unwrap_or(usize::MAX);
    spec.program = program_of(job);
    let redirect = redirect_of(plan, &mut spec.program)?;
    let n = m.nodata;
    spec.nodata = NoData {
        stat: n.stat,
        cpumode: n.cpumode,
        cpu_cycle: std::time::Duration::from_micros(n.cpuchunks_us),
    };
    spec.net = crate::engine::net::Setup {
        opts: m.net.clone(),
        reads: job.rw.reads(),
        writes: job.rw.writes(),
        subjob: crate::run::fio::plan::subjob(job, plan.thread),
        runtime: job.runtime.map(|r| r + job.ramp_time),
    };
    let r = drive(plan, t, spec, d);
    // the program is reaped (the engine is gone): its output becomes the files'
    if let (Ok(_), Some(files)) = (&r, redirect) {
        for f in files {
            f.commit()
                .map_err(|source| output_error("exec std_redirect file", source))?;
        }
    }
    r
}

/// exec's program from the job's options (fio writes the redirected output to the
/// current directory).
fn program_of(job: &crate::job::fio::FioJob) -> crate::engine::exec::Program {
    let x = &job.more.exec;
    crate::engine::exec::Program {
        program: x.program.clone().unwrap_or_default(),
        arguments: x.arguments.clone(),
        grace: x.grace_time,
        redirect: x.std_redirect,
        job: job.name.clone(),
        runtime: job.runtime.unwrap_or_default(),
        dir: std::path::PathBuf::from("."),
        output: None,
    }
}

/// An exec job's `std_redirect` files (`p.output_paths()`), staged the one safe way
/// (src/files/output.rs: refused if a link or not a regular file; the old content stays
/// until the program has ended and its output replaces it), and given to `p`.
fn redirect_of(
    plan: &Plan,
    p: &mut crate::engine::exec::Program,
) -> Result<Option<[crate::files::output::Staged; 2]>, RunError> {
    if plan.thread_job.engine != crate::engine::registry::Kind::Exec || !p.redirect {
        return Ok(None);
    }
    let [out, err] = p.output_paths();
    let stage = |path: &Path| {
        crate::files::output::Output::create(path)
            .and_then(|o| o.stage())
            .map_err(|source| output_error("exec std_redirect file", source))
    };
    let mut staged = [stage(&out)?, stage(&err)?];
    let mut share = |i: usize| {
        staged[i].share().map_err(|e| RunError::Engine {
            job: plan.job.name.clone(),
            engine: "exec",
            why: format!("std_redirect file: {e}"),
        })
    };
    p.output = Some([share(0)?, share(1)?]);
    Ok(Some(staged))
}

fn output_error(what: &'static str, source: crate::files::output::OutputError) -> RunError {
    FilesError::Output { what, source }.into()
}

/// The job's log files (`write_bw_log`, `write_iops_log`, `write_lat_log`), if any.
fn logs_of(plan: &Plan) -> Result<Option<Logs>, RunError> {
    let job = &plan.job;
    let Some(spec) = LogSpec::of(job) else {
        return Ok(None);
    };
    Logs::create(&spec, &job.name, plan.global, Path::new("."))
        .map(|mut l| {
            let files: Vec<&Path> = plan.files.iter().map(|f| f.path.as_path()).collect();
            l.iolog_files(&files);
            Some(l)
        })
        .map_err(|source| output_error("log file", source))
}

/// The engine a job thread asks the registry for: the ring's options (fio's io_uring
/// engine options), `atomic=1`'s RWF_ATOMIC, the mapped length and read-ahead advice
/// (mmap), psync when io_uring is denied here; `spec` is the shell's, over the files.
fn engine_spec(plan: &Plan, spec: Spec<'static>, advice: Option<libc::c_int>) -> Spec<'static> {
    let job = &plan.job;
    let depth = spec.depth;
    let mut spec = spec;
    spec.ring = Ring {
        setup: io_uring::Setup {
            sqpoll: job.sqthread_poll,
            sqpoll_cpu: job.sqthread_poll_cpu,
            iopoll: job.hipri,
            spin_ns: job.reap_spin_ns,
        },
        // one io_uring_enter per I/O at fio's default (iodepth_batch_submit=1), one
        // per batch of iodepth_batch_submit requests otherwise, as fio commits
        batched: submit_batch(&plan.work.queue, depth),
        // fio takes iodepth_batch_complete_max completions per reap (default:
        // iodepth_batch_complete_min), then refills those slots at once
        reap_max: reap_max(&plan.work.queue),
        wait_when_full: false,
        force_async: job.force_async.unwrap_or(0),
    };
    spec.aio = NativeAio {
        batch: submit_batch(&plan.work.queue, depth),
        reap_max: reap_max(&plan.work.queue),
        // userspace_reap works where fio's does: iodepth_batch_complete_min=0
        user_reap: job.more.userspace_reap && plan.work.queue.reap_min == 0,
    };
    let flags = rw_flags(job);
    spec.write_flags = flags
        | if job.more.x.atomic {
            libc::RWF_ATOMIC
        } else {
            0
        };
    spec.read_flags = flags;
    // pvsync2: preadv2/pwritev2, hipri's RWF_HIPRI on hipri_percentage of the requests
    let pvsync2 = job.pvsync2();
    spec.v2 = pvsync2;
    spec.hipri = (pvsync2 && job.hipri).then_some(job.tuning.hipri_percentage);
    if plan.thread_job.engine.caps().maps_files {
        let len = if job.more.zones.mode == crate::job::fio::zone_keys::ZoneMode::Strided {
            // strided zones run on to the end of the files (run/gen/zones.rs)
            crate::run::fio::zoned::strided_ends(plan).into_iter().min()
        } else {
            plan.files.iter().map(|f| f.size).min()
        };
        spec.map_len = len.unwrap_or(0) as usize;
        spec.madvise = advice.map(|a| {
            if a == libc::POSIX_FADV_RANDOM {
                libc::POSIX_MADV_RANDOM
            } else {
                libc::POSIX_MADV_SEQUENTIAL
            }
        });
    }
    spec.donor = spec_donor(plan);
    // denied: `execute` already warned once (or refused with --engine-strict)
    spec.fallback = plan.thread_job.engine.available().is_err();
    spec
}

/// fio 3.33's `RWF_UNCACHED` (os-linux.h), the value its io_uring and pvsync2 engines
/// send for `uncached` on buffered I/O (kernels from 6.11 read it as RWF_ATOMIC and
/// refuse it on buffered I/O with EOPNOTSUPP, as they refuse fio's).
const FIO333_RWF_UNCACHED: i32 = 0x40;

/// The flags of every request of `job` beside `atomic=1`'s (checked by the statx
/// preflight in `execute`), as fio 3.33's engines set them: `nowait=1` (io_uring,
/// libaio, pvsync2) RWF_NOWAIT, so a request that would block fails with EAGAIN (a job
/// error, as in fio); `uncached` (io_uring, pvsync2) on buffered I/O, fio's RWF_UNCACHED.
fn rw_flags(job: &FioJob) -> i32 {
    let pvsync2 = job.pvsync2();
    let nowait_engine = pvsync2 || matches!(job.engine, EngineKind::IoUring | EngineKind::Libaio);
    let uncached_engine = pvsync2 || job.engine == EngineKind::IoUring;
    let mut flags = 0;
    if job.tuning.nowait && nowait_engine {
        flags |= libc::RWF_NOWAIT;
    }
    if job.tuning.uncached != 0 && !job.direct && uncached_engine {
        flags |= FIO333_RWF_UNCACHED;
    }
    flags
}

/// e4defrag's donor: `directory/donorname` (joined with a '/' as fio joins them; under
/// the first directory of a list), allocated over the job's range of its largest file.
fn spec_donor(plan: &Plan) -> crate::engine::e4defrag::Donor {
    let job = &plan.job;
    let name = job.more.donorname.clone().unwrap_or_default();
    let path = match job.dir_of(0) {
        Some(d) => format!("{}/{name}", d.display()),
        None => name,
    };
    let start = plan.regions.first().map_or(0, |r| r.0);
    let end = plan.files.iter().map(|f| f.size).max().unwrap_or(0);
    crate::engine::e4defrag::Donor {
        path: path.into(),
        inplace: job.more.inplace,
        range: (start, end.saturating_sub(start)),
    }
}

/// Run the worker on the engine the shell builds; a refused engine is the job's error
/// (a socket that cannot be set up fails the job, as in fio: its report kept, with the
/// errno).
fn drive(
    plan: &Plan,
    t: &JobThread,
    spec: Spec<'_>,
    d: FioDrive<'_, '_>,
) -> Result<(JobRecord, Option<RunError>), RunError> {
    let job = plan.job.name.clone();
    t.run(spec, d).or_else(|r| {
        // the fio persona: a queue the kernel refused fails the thread as fio's
        if let Some(account) = queue_init_failure(&r).filter(|_| plan.fio_errors) {
            return Ok((failed_thread(plan, account.in_setup()), None));
        }
        match r.net_errno() {
            Some(errno) => {
                let e = RunError::Net {
                    job,
                    why: r.why(),
                    errno,
                };
                Ok((empty_record(plan), Some(e)))
            }
            None => Err(RunError::Engine {
                job,
                engine: r.engine.name(),
                why: r.why(),
            }),
        }
    })
}

/// fio 3.33's account of a queue the kernel refused as the engine set it up
/// (`io_queue_init`: libaio's io_setup, io_uring's io_uring_setup — an `iodepth` above
/// aio-max-nr or IORING_MAX_ENTRIES): the thread fails before any request.
fn queue_init_failure(r: &crate::run::worker::thread::Refusal) -> Option<FioAccount> {
    let (file, line, e) = match &r.cause {
        Refused::Aio(e) => ("engines/libaio.c", 485, e),
        Refused::Ring(e) => ("engines/io_uring.c", 998, e),
        _ => return None,
    };
    let errno = e.raw_os_error()?;
    Some(FioAccount::new(file, line, "io_queue_init", errno))
}

/// The worker of one job thread, driven on the engine the shell built.
struct FioDrive<'w, 'a> {
    w: Worker<'a>,
    /// warnings of the thread (a verify state that could not be saved)
    warn: &'w (dyn Fn(String) + Sync),
}

impl ThreadDrive for FioDrive<'_, '_> {
    type Out = (JobRecord, Option<RunError>);
    fn drive<E: Engine>(self, eng: &mut E, slab: &Slab, depth: usize) -> Self::Out {
        self.w.run(eng, slab, depth, self.warn)
    }
}

/// One `--status-interval` sample from the live counters now (`sum`) and at the last
/// sample (`prev`): bytes in the interval, `dur_s` long, ending `t_s` after the start.
/// Every block size a job can issue (the ends of a range: sizes in between are
/// multiples of its minimum).
pub(crate) fn block_sizes(b: &crate::job::model::BlockSizes) -> Vec<u64> {
    use crate::job::model::BlockSizes;
    match b {
        BlockSizes::Fixed(x) => vec![*x],
        BlockSizes::Range(a, z) => vec![*a, *z],
        BlockSizes::Split(v) => v.iter().map(|e| e.0).collect(),
    }
}

/// The thread's `startdelay` as fio 3.33 draws it (init.c `fixup_options`): µs from the
/// range's start to its end, `rand_between` of fio's start-delay generator of this
/// thread, so a range gives fio's own delays; `None` for a negative draw of
/// `startdelay=-N` (its range runs from -N to N, which fio stores wrapped: the thread
/// never starts).
fn start_delay(plan: &Plan) -> Option<std::time::Duration> {
    let more = &plan.job.more;
    let us = |d: std::time::Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
    let (a, b) = (us(more.startdelay.0), us(more.startdelay.1));
    let start = if more.startdelay_negative {
        b.wrapping_neg()
    } else {
        a
    };
    let slot = crate::run::gen::frand::START_DELAY_SLOT;
    let mut g = crate::run::fio::plan::fio_generator(&plan.job, plan.global, slot);
    let delay = g.between(start, b);
    (delay <= b).then(|| std::time::Duration::from_micros(delay))
}

/// Wait out `startdelay` (counted from `genesis`), or until `stop`.
fn wait_start_delay(
    plan: &Plan,
    (clock, genesis): (&Clock, std::time::Instant),
    stop: &AtomicBool,
) {
    if !plan.job.more.startdelay.1.is_zero() {
        match start_delay(plan) {
            Some(delay) => {
                let spent = clock.ticks(genesis.elapsed());
                let until = (clock.now() + clock.ticks(delay)).saturating_sub(spent);
                while clock.now() < until && !stop.load(Ordering::Relaxed) {
                    let left = clock.ns(clock.now(), until).min(20_000_000);
                    std::thread::sleep(std::time::Duration::from_nanos(left));
                }
            }
            // a negative delay: fio waits for it until the run is stopped
            None => {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            }
        }
    }
}

/// Wait for `wait_for` and `startdelay` (both interruptible), then run the thread;
/// `created` says whether it began (it was not stopped while it waited).
/// `startdelay` counts from `genesis`, the start of the run's I/O (fio's run_threads
/// compares it with the time since genesis): a job after a stonewall waits only for
/// what is left of it.
pub(crate) fn start_thread(
    plan: &Plan,
    (clock, genesis): (&Clock, std::time::Instant),
    (stop, created): (&AtomicBool, &AtomicBool),
    warn: &(dyn Fn(String) + Sync),
    wait: Option<(&AtomicU32, u32)>,
    live: Option<&Live>,
) -> Result<JobRecord, RunError> {
    // held at `wait_for`: timed (one clock pair) only when the job must wait
    let mut held_ns = 0;
    if let Some((done, n)) = wait.filter(|(done, n)| done.load(Ordering::Acquire) < *n) {
        let t0 = clock.now();
        while done.load(Ordering::Acquire) < n && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        held_ns = clock.ns(t0, clock.now());
    }
    wait_start_delay(plan, (clock, genesis), stop);
    // stopped while it waited for its turn (an `exitall` job ended it, the run was
    // interrupted): fio 3.33 never creates the thread, so it lists no disk for it and
    // its report has no latency target (its `latency_depth` is never set)
    let began = !stop.load(Ordering::Relaxed);
    if began {
        created.store(true, Ordering::Release);
    }
    // thread I/O priority and NUMA binding (before the buffers are allocated)
    let refused = |why: String| RunError::Refused {
        job: plan.job.name.clone(),
        why,
    };
    crate::run::fio::prio::set_thread_prio(&plan.job).map_err(refused)?;
    let _locked = match hooks::place(&plan.job, plan.global) {
        Ok(l) => l,
        // the fio persona: the thread fails as fio's, before any I/O
        Err(hooks::PlaceError::Affinity { errno, .. }) if plan.fio_errors => {
            return Ok(affinity_failure(plan, errno));
        }
        Err(e) => return Err(refused(e.to_string())),
    };
    if let Some(r) = iosched_miss(plan) {
        return Ok(r);
    }
    if let Some(r) = numa_unbound(plan) {
        return Ok(r);
    }
    if let Some(r) = iolog_unopened(plan) {
        return Ok(r);
    }
    let root = crate::probe::Root::default();
    if let Some(what) = crate::run::fio::numa::apply(&plan.job, &root).map_err(refused)? {
        if plan.thread == 0 {
            warn(format!("note: job '{}': {what}", plan.job.name));
        }
    }
    if let Some(r) = skipped_before_io(plan) {
        return r;
    }
    let r = run_thread(plan, clock, stop, warn, live);
    if let Err(e) = hooks::exec(&plan.job, true, Path::new("."), plan.say_hooks) {
        warn(format!("job '{}': {e}", plan.job.name));
    }
    r.map(|mut rec| {
        rec.stats.held_ns += held_ns;
        if !began {
            rec.lat_target = None;
        }
        rec
    })
}

/// Under the fio persona, a thread fio 3.33 ends before its I/O without an error (its
/// `goto err` with no errno set): an LFSR it cannot set up for one of its files
/// (`init_random_map`: `fio: failed initializing LFSR` on stderr) or an `exec_prerun`
/// that exited with a failure status (after its `Saving output` line). Its record is a
/// thread that did nothing, error 0 (fio's JSON lists it with zeros, its text leaves it
/// out), and its `exec_postrun` does not run. `iomark run` runs the job with a
/// tausworthe draw for that file, and fails a job whose prerun fails (exit 3).
fn skipped_before_io(plan: &Plan) -> Option<Result<JobRecord, RunError>> {
    if plan.fio_errors && crate::run::worker::fio::lfsr_unset(plan) {
        eprintln!("fio: failed initializing LFSR");
        return Some(Ok(skipped_thread(plan)));
    }
    match hooks::exec(&plan.job, false, Path::new("."), plan.say_hooks) {
        Ok(()) => None,
        Err(hooks::HookError::Failed(_)) if plan.fio_errors => Some(Ok(skipped_thread(plan))),
        Err(e) => Some(Err(RunError::Refused {
            job: plan.job.name.clone(),
            why: e.to_string(),
        })),
    }
}

/// The record of the calling job thread of `plan`, ended before its I/O without an
/// error ([`skipped_before_io`]).
fn skipped_thread(plan: &Plan) -> JobRecord {
    let mut r = empty_record(plan);
    r.job = effective_job(plan);
    // SAFETY: gettid(2) only returns the calling thread's id
    r.stats.pid = u32::try_from(unsafe { libc::gettid() }).unwrap_or(0);
    r
}

/// Requests handed to the kernel at once, the model's `queue.batch` (fio's
/// `iodepth_batch_submit`, default 1), at most the job's depth: the worker waits for
/// that many free slots before it submits, and a batching engine (libaio, io_uring)
/// submits them with one call.
pub(crate) fn submit_batch(q: &Queue, depth: usize) -> usize {
    (q.batch.max(1) as usize).min(depth)
}

/// Completions one reap may take, the model's `queue.reap_max` (fio's
/// `iodepth_batch_complete_max`; 0: the same as `queue.reap_min`, fio's
/// `iodepth_batch_complete_min`, its default; never below that minimum).
pub(crate) fn reap_max(q: &Queue) -> usize {
    let min = q.reap_min.max(1);
    let max = if q.reap_max == 0 {
        min
    } else {
        q.reap_max.max(min)
    };
    max as usize
}

/// Under the fio persona, called on the job's thread whose CPU affinity call failed
/// with `errno` (`cpumask=0`, a set of CPUs none of which is online): fio 3.33's thread
/// fails before any I/O — the thread's record with nothing done, `error` the errno and
/// fio's account `file:backend.c:1716, func=cpu_set_affinity, error=TEXT`, printed as
/// the thread's `fio: pid=P, err=N/…` line; the thread counts one in the exit value.
fn affinity_failure(plan: &Plan, errno: i32) -> JobRecord {
    let account = FioAccount::new("backend.c", 1716, "cpu_set_affinity", errno);
    failed_thread(plan, account.in_setup())
}

/// `write_hint` on the thread's open files `fds`: a refusal is the thread's failed
/// record under the fio persona ([`write_hint_failure`]), else the run's refusal.
fn hint_writes(plan: &Plan, fds: &[std::os::fd::RawFd]) -> Result<Option<JobRecord>, RunError> {
    let job = &plan.job;
    let Some(h) = job.tuning.write_hint else {
        return Ok(None);
    };
    match hooks::write_hint(fds, h, job.direct) {
        Ok(()) => Ok(None),
        Err((errno, _)) if plan.fio_errors => Ok(Some(write_hint_failure(plan, errno))),
        Err((_, why)) => Err(RunError::Refused {
            job: job.name.clone(),
            why,
        }),
    }
}

/// The latency target of a thread that began its I/O loop, as fio 3.33 reports it
/// before any request (`lat_target_init` at the start of `do_io`): the job's depth, its
/// `latency_target`, `latency_window` and `latency_percentile` as given.
pub(crate) fn lat_target_set_up(plan: &Plan) -> crate::result::job::LatTargetReport {
    let spec = plan.job.control.lat_target.as_ref();
    crate::result::job::LatTargetReport {
        depth: plan.job.iodepth,
        target_ns: spec.map_or(0, |t| {
            u64::try_from(t.target.as_nanos()).unwrap_or(u64::MAX)
        }),
        window_us: spec.map_or(0, |t| {
            u64::try_from(t.window.as_micros()).unwrap_or(u64::MAX)
        }),
        percentile: spec.map_or(100.0, |t| t.percentile),
    }
}

/// Under the fio persona, the record of a thread whose `write_hint` its file refused
/// with `errno` as fio 3.33 opens it in its I/O loop (`file:ioengines.c:596,
/// func=fcntl write hint`): nothing done, the latency target set up, the failure the
/// thread's (its line is made with the thread's end, `run_thread`).
fn write_hint_failure(plan: &Plan, errno: i32) -> JobRecord {
    let account = FioAccount::new("ioengines.c", 596, "fcntl write hint", errno);
    let mut r = failed_thread(plan, account.in_setup());
    r.stats.thread_failures.clear();
    r.lat_target = Some(lat_target_set_up(plan));
    r
}

/// Under the fio persona, a `numa_cpu_nodes` list libnuma read without a node (`!0` on
/// a machine of one node): fio 3.33's thread asks libnuma to run on an empty node mask,
/// whose affinity call fails — libnuma's line on stderr, then the thread fails with
/// EINVAL (`file:backend.c:1737, func=numa_run_on_node_mask failed`, the newline of
/// fio's text kept), before any I/O.
fn numa_unbound(plan: &Plan) -> Option<JobRecord> {
    let nodes = plan.job.extra.numa_cpu_nodes.as_ref()?;
    if !plan.fio_errors || !nodes.is_empty() {
        return None;
    }
    eprintln!("numa_sched_setaffinity_v2_int() failed: Invalid argument");
    let func = "numa_run_on_node_mask failed\n";
    let account = FioAccount::new("backend.c", 1737, func, libc::EINVAL);
    Some(failed_thread(plan, account.in_setup()))
}

/// The logs of a thread that runs no I/O, as fio 3.33 leaves them: empty, the I/O log
/// with its header and `add` lines, and with `opened` (a thread whose regions hold no
/// request, not `create_only`'s) each file's `open` and `close`, as fio opens each file
/// in turn, finds no request to make and closes it.
fn idle_logs(plan: &Plan, opened: bool) -> Result<(), RunError> {
    let Some(mut logs) = logs_of(plan)? else {
        return Ok(());
    };
    if opened {
        for i in 0..plan.files.len() {
            logs.iolog_file(i, true);
            logs.iolog_file(i, false);
        }
    }
    logs.finish()
        .map_err(|source| output_error("log file", source))
}

/// Under the fio persona, a `read_iolog` the thread cannot open, met as fio 3.33's
/// thread meets it (iolog.c `init_iolog`): the open's error on stderr (`fopen read
/// iolog: TEXT`, perror's form), then the thread fails with EINVAL
/// (`file:iolog.c:795, func=failed initializing iolog`), before any I/O.
fn iolog_unopened(plan: &Plan) -> Option<JobRecord> {
    let errno = plan.iolog_unopened?;
    eprintln!("fopen read iolog: {}", crate::util::strerror(errno));
    let func = "failed initializing iolog";
    let account = FioAccount::new("iolog.c", 795, func, libc::EINVAL);
    Some(failed_thread(plan, account.in_setup()))
}

/// Under the fio persona, the job's `ioscheduler` its device did not take, met as fio
/// 3.33's thread meets it: fio's line on stderr, then the thread fails with EINVAL
/// (`file:backend.c:1450, func=iosched_switch`) or, on a queue without a choice, goes on.
fn iosched_miss(plan: &Plan) -> Option<JobRecord> {
    match plan.iosched_miss.as_ref()? {
        IoschedMiss::Untunable => {
            eprintln!("fio: io scheduler is not tunable");
            None
        }
        IoschedMiss::Unset(name) => {
            eprintln!("fio: unable to set io scheduler to {name}");
            let account = FioAccount::new("backend.c", 1450, "iosched_switch", libc::EINVAL);
            Some(failed_thread(plan, account.in_setup()))
        }
    }
}

/// The record of the calling job thread of `plan`, failed before any I/O: fio's
/// `account` of the call that failed, its errno the thread's error, its text the
/// thread's failure.
pub(crate) fn failed_thread(plan: &Plan, account: FioAccount) -> JobRecord {
    let errno = account.errno;
    let failure = account.to_string();
    let mut r = empty_record(plan);
    r.stats.error = errno;
    r.stats.failure_said = true;
    r.stats.failed_threads = 1;
    r.job = effective_job(plan);
    // called on the job's thread: fio's line names the thread that failed
    // SAFETY: gettid(2) only returns the calling thread's id
    r.stats.pid = u32::try_from(unsafe { libc::gettid() }).unwrap_or(0);
    // each thread says its own line, `group_reporting` or not
    r.stats.thread_failures = vec![crate::stats::job::ThreadFailure {
        pid: r.stats.pid,
        errno,
        lines: vec![failure.clone()],
        account: Some(account.clone()),
        noted: false,
    }];
    r.stats.failure = Some(failure);
    r.stats.account = Some(account);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Completions per reap and requests per submit come from the model's queue, which
    /// fio's keys fill: max unset is the min, a max below the min is the min, 0 is 1;
    /// the batch is at most the depth.
    #[test]
    fn reaps_and_batches_read_the_models_queue() {
        let mut f = FioJob {
            iodepth: 16,
            ..FioJob::default()
        };
        let q = |f: &FioJob| f.model().work.queue;
        assert_eq!((reap_max(&q(&f)), submit_batch(&q(&f), 16)), (1, 1));
        (
            f.more.iodepth_batch_complete_min,
            f.more.iodepth_batch_complete_max,
        ) = (4, 0);
        assert_eq!(reap_max(&q(&f)), 4);
        (
            f.more.iodepth_batch_complete_min,
            f.more.iodepth_batch_complete_max,
        ) = (4, 2);
        assert_eq!(reap_max(&q(&f)), 4);
        (
            f.more.iodepth_batch_complete_min,
            f.more.iodepth_batch_complete_max,
        ) = (2, 8);
        assert_eq!((q(&f).reap_min, reap_max(&q(&f))), (2, 8));
        // a batch above the job's depth is that depth in the model (fio's fixup)
        f.more.iodepth_batch = 32;
        assert_eq!(
            (submit_batch(&q(&f), 16), submit_batch(&q(&f), 64)),
            (16, 16)
        );
    }
}
