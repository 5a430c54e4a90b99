//! One job thread of `iomark run` (see [`crate::run::fio`]): start delay, priorities and
//! NUMA binding, a private descriptor table, opening its files, building the engine
//! (io_uring with the job's ring options, psync, mmap, null) and driving the worker;
//! its CPU time. The coordinator in [`crate::run::fio::execute`] spawns these.

use crate::run::fio::*;
use crate::engine::buffers::Slab;
use crate::engine::io_uring::{self, Uring};
use crate::engine::mmap::Mmap;
use crate::engine::null::Null;
use crate::engine::psync::Psync;
use crate::engine::IoErr;
use crate::job::fio::{EngineKind, FioJob};
use crate::run::fio::cpu::{CpuTimes, Who};
use crate::run::gen::Rng;
use crate::run::fio::log::{LogSpec, Logs};
use crate::run::worker::{fill_buf, Live, Worker};
use crate::stats::clock::Clock;
use crate::files::dataset::{self};
use crate::files::strerror;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Error text of a failed I/O (EINVAL with direct=1 explains alignment).
pub(crate) fn io_why(e: IoErr, direct: bool, align: u64) -> String {
    match e {
        IoErr::Errno(libc::EINVAL) if direct => format!(
            "{} (direct=1: offsets and lengths must be multiples of the logical block size, buffers aligned to it; this job aligns offsets to {align} bytes)",
            strerror(libc::EINVAL)
        ),
        IoErr::Errno(n) => strerror(n),
        IoErr::Short { done } => format!("short transfer ({done} bytes)"),
    }
}

/// Run one thread of a job and account its CPU (RUSAGE_THREAD).
pub(crate) fn run_thread(
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
    st.runtime_ms_sum = st.runtime_ns / 1_000_000;
    // the thread's whole life (setup included), as the CPU time covers it too
    st.run_ns_sum = u64::try_from(w0.elapsed().as_nanos()).unwrap_or(u64::MAX);
    Ok(st)
}

/// Run one thread of a job: open files, build the engine, drive it.
pub(crate) fn run_thread_io(
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
    let logs = if let Some(spec) = LogSpec::of(job) {
        Some(
            Logs::create(&spec, &job.name, plan.thread, Path::new(".")).map_err(|source| {
                FilesError::Output {
                    what: "log file",
                    source,
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
        dataset::open_osync(&plan.files, rw_open, job.direct)?
    } else {
        dataset::open(&plan.files, rw_open, job.direct)?
    };
    let fds = open.fds();
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
                    spin_ns: job.reap_spin_ns,
                };
                let e = Uring::with_setup(fds, depth, &bufs, setup)
                    .map_err(|e| engine_err("io_uring", ring_setup_why(&e, depth)))?
                    // one io_uring_enter per I/O, fio's default (iodepth_batch_submit=1):
                    // on virtio it measured faster than batching (bench/RUN_RESULTS.md);
                    // batch mode is for iodepth_batch_submit > 1
                    .batched(false)
                    // fio takes iodepth_batch_complete_max completions per reap (default:
                    // iodepth_batch_complete_min), then refills those slots at once
                    .reap_max(reap_max(job))
                    .write_flags(atomic_flags)
                    .force_async(job.force_async.unwrap_or(0));
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
            let len = if m.zones.mode == crate::job::fio::zone_keys::ZoneMode::Strided {
                // strided zones run on to the end of the files (run/gen/zones.rs)
                crate::run::gen::zones::strided_ends(plan).into_iter().min()
            } else {
                plan.files.iter().map(|f| f.size).min()
            };
            let len = len.unwrap_or(0) as usize;
            let madv = advice.map(|a| {
                if a == libc::POSIX_FADV_RANDOM {
                    libc::POSIX_MADV_RANDOM
                } else {
                    libc::POSIX_MADV_SEQUENTIAL
                }
            });
            let e = Mmap::new(&fds, len)
                .map_err(|e| engine_err("mmap", io_why(e, false, 0)))?
                .madvise(madv);
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

/// One `--status-interval` sample from the live counters now (`sum`) and at the last
/// sample (`prev`): bytes in the interval, `dur_s` long, ending `t_s` after the start.
/// Every block size a job can issue (the ends of a range: sizes in between are
/// multiples of its minimum).
pub(crate) fn block_sizes(b: &crate::job::fio::BlockSizes) -> Vec<u64> {
    use crate::job::fio::BlockSizes;
    match b {
        BlockSizes::Fixed(x) => vec![*x],
        BlockSizes::Range(a, z) => vec![*a, *z],
        BlockSizes::Split(v) => v.iter().map(|e| e.0).collect(),
    }
}

/// Wait for `wait_for` and `startdelay` (both interruptible), then run the thread.
pub(crate) fn start_thread(
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
    crate::run::fio::prio::set_thread_prio(&plan.job).map_err(refused)?;
    let root = crate::probe::Root::default();
    if let Some(what) = crate::run::fio::numa::apply(&plan.job, &root).map_err(refused)? {
        if plan.thread == 0 {
            warn(format!("note: job '{}': {what}", plan.job.name));
        }
    }
    run_thread(plan, clock, stop, warn, live)
}

/// Completions one reap may take, fio's `iodepth_batch_complete_max` (0 or unset: the
/// same as `iodepth_batch_complete_min`, fio's default; never below that minimum).
pub(crate) fn reap_max(job: &FioJob) -> usize {
    let m = &job.more;
    let min = m.iodepth_batch_complete_min.max(1);
    let max = if m.iodepth_batch_complete_max == 0 {
        min
    } else {
        m.iodepth_batch_complete_max.max(min)
    };
    max as usize
}

/// Why a thread's ring could not be set up: EINVAL means the kernel refused these ring
/// parameters (io_uring itself works: `execute` probed it), anything else is
/// [`io_uring::unavailable_why`].
fn ring_setup_why(e: &std::io::Error, depth: usize) -> String {
    if e.raw_os_error() == Some(libc::EINVAL) {
        format!("the kernel refused the ring for iodepth={depth} (io_uring_setup: {e})")
    } else {
        io_uring::unavailable_why(e)
    }
}
