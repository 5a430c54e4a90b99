//! A fio job once all its keys are read: keys that depend on each other are settled
//! (`atomic` implies O_DIRECT, `verify_pattern` alone means `verify=pattern`, `Nz`
//! values become bytes, the latency search takes its companions), then the job is
//! checked as a whole. Each check is one `Err(why)` naming the keys and what is
//! accepted, reported as `job 'NAME': why`.

use crate::job::fio::keys::VERIFY_HEADER;
use crate::job::fio::keys_verify::VerifyKind;
use crate::job::fio::notice::Notice;
use crate::job::fio::options;
use crate::job::fio::{
    BlockSizes, EngineKind, FioCommand, FioError, FioJob, IORING_MAX_ENTRIES, MAX_QUEUED_DEPTH,
};

/// Settle and check `job`, then add it to `cmd`.
pub(crate) fn finish_job(mut job: FioJob, cmd: &mut FioCommand) -> Result<(), FioError> {
    settle(&mut job, &mut cmd.notices);
    // fio's fixups run only when jobs will run: `--parse-only` skips them (init.c
    // `parse_dryrun`), their lines with them
    let mut fixups = Vec::new();
    blockalign_turns_off_randommap(&mut job, &mut fixups);
    let unaligned = bs_unaligned_on_raw_io(&job);
    fixups.extend(unaligned.map(String::from));
    drop_time_based_without_runtime(&mut job, &mut fixups);
    skewed_turns_off_randommap(&mut job);
    if !cmd.parse_only {
        let mut refused = rate_conflicts(&job);
        refused.extend(block_error_hist_on_many_files(&job));
        // each clone of the job runs the fixup again: a line whose condition the first
        // run does not clear is said once per job thread
        if refused.is_empty() {
            let clones = job.numjobs.saturating_sub(1) as usize;
            fixups.extend(unaligned.into_iter().cycle().take(clones).map(String::from));
        }
        cmd.fio_stderr.extend(fixups);
        if !refused.is_empty() {
            return Err(match cmd.job_setup_errors {
                true => FioError::FioLines(refused),
                false => FioError::Job {
                    job: job.name.clone(),
                    why: refused.join("; ").replace("fio: ", ""),
                },
            });
        }
    }
    verify_never_starts(&mut job);
    verifying_reader_reads_once(&mut job);
    crate::job::fio::zone_keys::settle(&mut job, cmd.parse_only)?;
    if job.readonly && (job.rw.writes() || job.rw.trims()) {
        return Err(FioError::ReadOnlyWrites(job.name.clone()));
    }
    validate(&job, cmd.job_setup_errors, cmd.parse_only).map_err(|why| {
        match cmd.job_setup_errors {
            // fio's line of its size fixup names no job
            true if why.starts_with(SIZE_TOO_SMALL) => {
                FioError::FioLines(vec![format!("fio: {why}")])
            }
            _ => FioError::Job {
                job: job.name.clone(),
                why,
            },
        }
    })?;
    // fio fills in nothing of a request to an engine of pseudo I/O (io_u.c
    // `fill_io_u`), so each one counts as a read whatever `rw=` asked
    if job.engine.pseudo_io() {
        job.rw = crate::job::fio::RwMode::Read;
    }
    cmd.jobs.push(job);
    Ok(())
}

/// Settle keys that depend on each other (fio: a `verify_pattern` alone means
/// `verify=pattern`).
fn settle(job: &mut FioJob, notices: &mut Vec<Notice>) {
    // fio --cmdhelp=atomic: "Use Atomic IO with O_DIRECT (implies O_DIRECT)"
    if job.more.x.atomic {
        job.direct = true;
    }
    if job.more.verify.is_none() && !job.more.verify_pattern.is_empty() {
        job.more.verify = Some(VerifyKind::Pattern);
    }
    fixup_verify_interval(job);
    log_windows(job);
    cpuio_think(job);
    exec_think(job);
    named_files_counted(job);
    job.start_lines = engine_start_lines(job);
    for n in crate::job::fio::control::finish_control(&mut job.control, &job.name) {
        let n = Notice::Note(n);
        if !notices.contains(&n) {
            notices.push(n);
        }
    }
}

/// fio 3.33's fixup of its count of a job's files (init.c `fixup_options`): at most the
/// names `filename=` gave, the job's first ones (`--filename=f1 --nrfiles=3` is one
/// file). A job that reads a directory (`opendir`) counts its files when it runs.
fn named_files_counted(job: &mut FioJob) {
    if job.filename.is_some() && job.tuning.opendir.is_none() {
        let named = u32::try_from(job.filenames().len()).unwrap_or(u32::MAX);
        job.nrfiles = job.nrfiles.min(named);
    }
}

/// fio 3.33's log setup (init.c, where it opens the bw and IOPS logs): a job writing a
/// bandwidth (IOPS) log with `log_avg_msec` takes its bandwidth (IOPS) samples every
/// `log_avg_msec` unless `bw_avg_time` (`iops_avg_time`) was given — the report's
/// samples and the log's lines then come from the same intervals (run/fio/log.rs
/// `Logs::rate`). Given, the interval stays and the log averages over the shorter of
/// the two.
fn log_windows(job: &mut FioJob) {
    let m = &mut job.more;
    if m.log_avg_msec == 0 {
        return;
    }
    if m.bw_log.is_some() && !m.avg_time_set[0] {
        m.bw_avg_time = m.log_avg_msec;
    }
    if m.iops_log.is_some() && !m.avg_time_set[1] {
        m.iops_avg_time = m.log_avg_msec;
    }
}

/// fio's fixup (init.c, `fixup_options`): `time_based` without a `runtime` is not an
/// error, it is dropped with one line on stderr (log_err, under either persona), once per
/// job section; the job then ends at its size.
fn drop_time_based_without_runtime(job: &mut FioJob, fio_stderr: &mut Vec<String>) {
    if job.time_based && job.runtime.is_none() {
        job.time_based = false;
        fio_stderr.push(TIME_BASED_WITHOUT_RUNTIME.into());
    }
}

/// fio's fixup (init.c, `fixup_options`) of the rates, each a line that fails the job:
/// `rate` and `rate_iops` (or `rate_min` and `rate_iops_min`) both set, and a direction
/// whose minimum exceeds its rate (fio's `ddir` N: 0 reads, 1 writes, 2 trims).
fn rate_conflicts(job: &FioJob) -> Vec<String> {
    let m = &job.more;
    let set = |v: [u64; 3]| v.iter().any(|&x| x > 0);
    let mut lines = Vec::new();
    let both = set(m.rate_bytes) && set(m.rate_iops);
    if both || (set(m.ratemin) && set(m.rate_iops_min)) {
        lines.push("fio: rate and rate_iops are mutually exclusive".to_string());
    }
    for d in 0..3 {
        let bytes = m.rate_bytes[d] > 0 && m.rate_bytes[d] < m.ratemin[d];
        let iops = m.rate_iops[d] > 0 && m.rate_iops[d] < m.rate_iops_min[d];
        if bytes || iops {
            lines.push(format!("fio: minimum rate exceeds rate, ddir {d}"));
        }
    }
    lines
}

/// fio's fixup (init.c, `fixup_options`): `bs_unaligned` on O_DIRECT I/O is kept, with
/// one line on stderr (log_err) for each job thread; None when it does not apply.
fn bs_unaligned_on_raw_io(job: &FioJob) -> Option<&'static str> {
    (job.tuning.bs_unaligned && job.direct).then_some(BS_UNALIGNED_ON_RAW_IO)
}

/// fio 3.33's line for [`bs_unaligned_on_raw_io`].
pub const BS_UNALIGNED_ON_RAW_IO: &str = "fio: bs_unaligned may not work with raw io";

/// fio's fixup (init.c, `fixup_options`): `block_error_percentiles` on a job of more
/// than one file fails the job with fio's line (the files `filename=` names, else
/// `nrfiles`).
fn block_error_hist_on_many_files(job: &FioJob) -> Option<String> {
    // (the names `filename=` gave are counted by `nrfiles` once settled)
    let files = job.nrfiles as usize;
    (job.tuning.block_error_percentiles && files != 1).then(|| {
        format!("fio: block error histogram only available with a single file per job, but {files} files provided")
    })
}

/// fio's fixup (init.c, `fixup_options`): on a random job a `blockalign` other than the
/// smallest block size turns the random map off, with one line on stderr (log_err);
/// fio then issues every request at its block size, at offsets aligned to it.
fn blockalign_turns_off_randommap(job: &mut FioJob, fio_stderr: &mut Vec<String>) {
    let mins = job.bs_dirs().map(BlockSizes::min);
    let aligns = job.more.blockalign;
    let other = (0..3).any(|d| aligns[d].is_some_and(|a| a != mins[d]));
    if job.rw.random() && other && !job.norandommap {
        job.norandommap = true;
        fio_stderr.push(BLOCKALIGN_TURNS_OFF_RANDOMMAP.into());
    }
}

/// fio's fixup (init.c, `fixup_options`): a `random_distribution` other than `random`
/// excludes the random map, silently — blocks repeat as drawn, with or without
/// `norandommap`, and what depends on the map (a pass of a random writer, its verify
/// rounds) is as with `norandommap`.
fn skewed_turns_off_randommap(job: &mut FioJob) {
    use crate::job::model::Distribution;
    if job.more.dist.iter().any(|d| *d != Distribution::Random) {
        job.norandommap = true;
    }
}

/// fio 3.33's line for [`blockalign_turns_off_randommap`].
pub const BLOCKALIGN_TURNS_OFF_RANDOMMAP: &str = "fio: Any use of blockalign= turns off randommap";

/// fio's warning (init.c) for a job that only writes, `time_based` with a `runtime`,
/// with `verify=` and `do_verify` but no `verify_backlog`: fio says on its standard
/// output (log_info, once per job thread, before the job's header line) that the verify
/// phase never starts. That holds on a synchronous engine, which writes until its
/// runtime and, ended by it, reads nothing back (iomark drops the verify phase there);
/// on an engine that queues, fio 3.33 writes and verifies in rounds of `size`
/// (`Plan::verify_cycle` in run/fio/plan.rs) whatever the line says, and so does iomark.
fn verify_never_starts(job: &mut FioJob) {
    let m = &job.more;
    let only_writes = job.rw.writes() && !job.rw.reads();
    let timed = job.time_based && job.runtime.is_some_and(|r| !r.is_zero());
    if only_writes && timed && m.verify.is_some() && m.do_verify && m.x.verify_backlog == 0 {
        if !job.engine.queues() {
            job.more.do_verify = false;
        }
        job.setup_lines.push(VERIFY_NEVER_STARTS.into());
    }
}

/// fio 3.33 (backend.c `do_io`): a time-based job that only reads, with `verify=`,
/// reads one pass of its `size` and ends — its I/O loop stops when the bytes issued
/// reach `size`, and only a writer goes round again (write, then verify). fio reads
/// 2 MiB in 140 ms of `--rw=randread --verify=md5 --time_based --runtime=3` on a 2 MiB
/// file, whatever `io_size` or `loops` say. iomark does the same: the job is no longer
/// time based (`runtime` still caps it), `io_size` and `loops` are dropped.
fn verifying_reader_reads_once(job: &mut FioJob) {
    let only_reads = job.rw.reads() && !job.rw.writes();
    if only_reads && job.time_based && job.more.verify.is_some() {
        job.time_based = false;
        job.loops = 1;
        job.more.io_size = None;
        job.more.io_size_pct = None;
    }
}

/// fio 3.33's line for a time-based writer whose verify phase never starts (init.c).
pub const VERIFY_NEVER_STARTS: &str =
    "fio: verification read phase will never start because write phase uses all of runtime";

/// fio 3.33's line for `time_based` without `runtime` (init.c).
pub const TIME_BASED_WITHOUT_RUNTIME: &str = "fio: time_based requires a runtime/timeout setting";

/// cpuio's pause (fio's engine init, engines/cpu.c): after every request a think time
/// of `cpuchunks * (100 - cpuload) / cpuload` µs, all of it slept, and one file.
fn cpuio_think(job: &mut FioJob) {
    let n = job.more.nodata;
    if job.engine != EngineKind::Cpuio || n.cpuload == 0 {
        return;
    }
    let us = n.cpuchunks_us * u64::from(100 - n.cpuload) / u64::from(n.cpuload);
    job.more.thinktime = std::time::Duration::from_micros(us);
    job.more.thinktime_spin = std::time::Duration::ZERO;
    job.more.thinktime_blocks = 1;
    job.nrfiles = 1;
}

/// The lines fio 3.33's engine prints as each thread of `job` starts: cpuio's init
/// (`NAME (noop): ioengine=cpuio, cpuload=50, cpucycle=50000`, `(qsort)` for that mode),
/// exec's init (`NAME : program=P, arguments=A`, `(null)` for no arguments) and, as it
/// starts the program, `NAME : Saving output of P ARGS : stdout=NAME.stdout
/// stderr=NAME.stderr` (`NAME : Running P ARGS` without `std_redirect`), ARGS with `%r`
/// (the runtime in whole seconds) and `%n` (the job's name) replaced.
fn engine_start_lines(job: &FioJob) -> Vec<String> {
    let name = &job.name;
    match job.engine {
        EngineKind::Cpuio => {
            let n = job.more.nodata;
            let mode = match n.cpumode {
                crate::util::engines::CpuMode::Noop => "noop",
                crate::util::engines::CpuMode::Qsort => "qsort",
            };
            vec![format!(
                "{name} ({mode}): ioengine=cpuio, cpuload={}, cpucycle={}",
                n.cpuload.min(100),
                n.cpuchunks_us
            )]
        }
        EngineKind::Exec => {
            let e = &job.more.exec;
            let program = e.program.as_deref().unwrap_or("(null)");
            let secs = job.runtime.unwrap_or_default().as_secs().to_string();
            let expanded = e.arguments.as_deref().map_or("(null)".into(), |a| {
                a.replace("%r", &secs).replace("%n", name)
            });
            let started = match e.std_redirect {
                true => format!(
                    "{name} : Saving output of {program} {expanded} : stdout={name}.stdout stderr={name}.stderr"
                ),
                false => format!("{name} : Running {program} {expanded}"),
            };
            vec![
                format!(
                    "{name} : program={program}, arguments={}",
                    e.arguments.as_deref().unwrap_or("(null)")
                ),
                started,
            ]
        }
        _ => Vec::new(),
    }
}

/// exec's pause (fio's engine init, engines/exec.c): a think time of 50 ms after every
/// request, slept, and one file; the engine's own 50 ms wait per request is
/// src/engine/exec.rs's.
fn exec_think(job: &mut FioJob) {
    if job.engine != EngineKind::Exec {
        return;
    }
    job.more.thinktime = crate::util::engines::EXEC_POLL;
    job.more.thinktime_spin = std::time::Duration::ZERO;
    job.more.thinktime_blocks = 1;
    job.nrfiles = 1;
}

/// fio 3.33's fixup of `verify_interval` (init.c `fixup_options`, for a job that
/// verifies): a write block size range without it gets the smallest write block; one
/// larger than the smallest write block is that block size ("must be smaller or equal to
/// the write size"), else larger than the smallest read block of a job that reads, that
/// read block size; then one that does not divide both the smallest and the largest write
/// block is their greatest common divisor ("must be a factor of both min and max write
/// size"): `bs=12k verify_interval=8k` verifies every 12 KiB.
fn fixup_verify_interval(job: &mut FioJob) {
    if job.more.verify.is_none() {
        return;
    }
    let (w, wmax, r) = (job.bs_write.min(), job.bs_write.max(), job.bs_read.min());
    let asked = job.more.x.verify_interval;
    let Some(mut iv) = asked.or((wmax != w).then_some(w)) else {
        return;
    };
    if iv > w {
        iv = w;
    } else if job.rw.reads() && iv > r {
        iv = r;
    }
    if iv == 0 || w % iv != 0 || wmax % iv != 0 {
        iv = gcd(w, wmax);
    }
    // not asked for, and a `bssplit` size between the extremes it does not divide: one
    // header per block (fio's headers every `iv` bytes would run past such a block's end)
    let sizes = crate::job::fio::keys_verify::block_sizes(job);
    let hdr = job
        .more
        .verify
        .map_or(0, |k| k.header_len())
        .max(VERIFY_HEADER);
    if asked.is_none() && (iv < hdr || sizes.iter().any(|b| b % iv != 0)) {
        return;
    }
    job.more.x.verify_interval = Some(iv);
}

/// An interval the fixup made smaller than the verify header (the write sizes' greatest
/// common divisor) is refused; fio 3.33 fails such a job with EINVAL (verify.c).
fn check_interval_header(job: &FioJob) -> Result<(), String> {
    let hdr = job.more.verify.map_or(0, |k| k.header_len());
    match job.more.x.verify_interval {
        Some(iv) if iv < hdr => Err(format!(
            "verify_interval: fio's fixup makes it {iv} (the greatest common divisor of the write block sizes), below the {hdr}-byte verify header of verify={}",
            job.more.verify.map_or("", |k| k.name())
        )),
        _ => Ok(()),
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Every check of a whole job, in order; the first that fails is the reason.
/// `setup_errors`: the fio persona's rule, which leaves the failures of a job's thread
/// setup to the run (run/fio/setup.rs); `parse_only`: `--parse-only`, under which fio
/// runs none of its fixups (init.c `parse_dryrun`).
fn validate(job: &FioJob, setup_errors: bool, parse_only: bool) -> Result<(), String> {
    if let (false, Some((key, v))) = (setup_errors, job.negatives.first()) {
        return Err(format!(
            "invalid value '{v}' for option '{key}': a negative number (fio 3.33 reads it in two parts, -N wrapped and N, and iomark as `fio` does so; iomark run takes none)"
        ));
    }
    if let (false, Some((key, v, why))) = (setup_errors, job.fio_readings.first()) {
        return Err(format!("invalid value '{v}' for option '{key}': {why}"));
    }
    if !setup_errors {
        check_engine_options(job)?;
    }
    check_amount(job, setup_errors)?;
    // a fixup of fio's, which `--parse-only` skips (`size= 50%` is 50 bytes there)
    if !parse_only {
        check_size_holds_a_block(job)?;
    }
    check_verify(job)?;
    check_interval_header(job)?;
    crate::job::fio::keys_verify::validate_extra(job)?;
    check_io_uring_keys(job)?;
    check_net(job)?;
    // the fio persona takes `io_submit_mode=offload` on a synchronous engine as fio
    // 3.33 does: nothing is ever in flight there, so it runs as inline
    let queued = job.engine.queues() || setup_errors;
    crate::job::fio::control::validate_control(&job.control, queued)?;
    crate::job::fio::extra::validate(&job.extra)?;
    for bs in job.bs_dirs() {
        if job.direct && bs.min() % 512 != 0 {
            return Err(format!(
                "direct=1 needs block sizes that are multiples of the device's logical block size (at least 512); got {} bytes",
                bs.min()
            ));
        }
    }
    Ok(())
}

/// fio 3.33's words for a `size` below the smallest block size (init.c), without its
/// figures.
pub const SIZE_TOO_SMALL: &str = "size too small, must not be less than minimum block size";

/// fio's fixup (init.c, `fixup_options`): a `size=` in bytes, not 0, below the smallest
/// block size of any direction (read, write or trim, whatever `rw=` does) refuses the job
/// with fio 3.33's words, before any file is looked at (`size=4k bs=8k`, `size=1`).
fn check_size_holds_a_block(job: &FioJob) -> Result<(), String> {
    let min_bs = job.min_bs();
    match job.size {
        Some(crate::job::fio::SizeSpec::Bytes(size)) if size > 0 && size < min_bs => {
            Err(format!("{SIZE_TOO_SMALL}: {size} < {min_bs}"))
        }
        _ => Ok(()),
    }
}

/// fio's checks of a net job (src/util/engines.rs `NetOpts::check`); verify is not
/// carried over a socket here.
fn check_net(job: &FioJob) -> Result<(), String> {
    if job.engine != EngineKind::Net {
        return Ok(());
    }
    if job.more.verify.is_some() {
        return Err("verify= with ioengine=net is not implemented (accepted: verify=0)".into());
    }
    job.more
        .net
        .check(job.rw.reads(), job.rw.writes(), job.rw.random())
}

/// The job knows how much to do (a size, a file, an I/O count or a time) and its depth
/// fits the engine. With `setup_errors` a null-engine job without any is left to the
/// run, which reports it as fio 3.33 does (`you need to specify size=`, err 22), and so
/// is a libaio or io_uring depth the kernel refuses (the thread fails at
/// `io_queue_init`, err 11 or 22, after the files are laid out).
fn check_amount(job: &FioJob, setup_errors: bool) -> Result<(), String> {
    let sized = job.size.is_some() || job.filesize.is_some();
    if job.engine == EngineKind::Cpuio && job.more.nodata.cpuload == 0 {
        return Err("ioengine=cpuio needs cpuload= (a percentage of one CPU, 1-100)".into());
    }
    if job.engine == EngineKind::E4Defrag && job.more.donorname.is_none() {
        return Err(
            "ioengine=e4defrag needs donorname= (the donor file the blocks are moved to)".into(),
        );
    }
    if job.engine == EngineKind::Exec && job.more.exec.program.is_none() {
        return Err("ioengine=exec needs program= (the program to run; fio: \"no program is defined, it is mandatory to define one\")".into());
    }
    // fio's page_fault init: one mapping of `size` from offset 0
    if job.engine == EngineKind::PageFault && (job.nrfiles > 1 || job.more.offset.is_some()) {
        return Err(format!(
            "ioengine=page_fault maps one region of size= from offset 0: nrfiles={} and offset= are not accepted (fio: \"does not support multiple files\" / \"start_offset\")",
            job.nrfiles
        ));
    }
    let no_size = matches!(
        job.engine,
        EngineKind::Null | EngineKind::Cpuio | EngineKind::Exec
    );
    // a replayed log (read_iolog) names and sizes the files itself
    let replay = job.more.replay.file.is_some();
    // without size= the files' own sizes are used, whether filename= names them or
    // iomark makes their names (`$jobname.$jobnum.$filenum`, `filename_format`), as in
    // fio; a file that does not exist then has no size (run/fio/plan.rs says so)
    let left_to_setup = setup_errors && job.engine == EngineKind::Null;
    if no_size && !sized && !job.time_based && job.number_ios == 0 && !replay && !left_to_setup {
        return Err(format!(
            "ioengine={} needs size=, number_ios= or time_based with runtime=",
            job.engine.name()
        ));
    }
    // the fio persona leaves a queue the kernel refuses to the job's thread, which fails
    // at the engine's setup as fio 3.33's `io_queue_init` (run/fio/thread.rs)
    let kernel_refuses =
        setup_errors && matches!(job.engine, EngineKind::IoUring | EngineKind::Libaio);
    if kernel_refuses {
        return Ok(());
    }
    if job.engine == EngineKind::IoUring && job.iodepth > IORING_MAX_ENTRIES {
        return Err(format!(
            "iodepth={} is above io_uring's limit of {IORING_MAX_ENTRIES} ring entries (IORING_MAX_ENTRIES); use iodepth of at most {IORING_MAX_ENTRIES}",
            job.iodepth
        ));
    }
    if job.engine.queues() && job.iodepth > MAX_QUEUED_DEPTH {
        return Err(format!(
            "iodepth={} is above iomark's limit of {MAX_QUEUED_DEPTH} requests in flight for ioengine={} (each holds its own buffer); use iodepth of at most {MAX_QUEUED_DEPTH}",
            job.iodepth,
            job.engine.name()
        ));
    }
    Ok(())
}

/// `verify=` has data to check, a pattern when it needs one, and blocks that hold its
/// header.
fn check_verify(job: &FioJob) -> Result<(), String> {
    let m = &job.more;
    let Some(k) = m.verify else {
        return Ok(());
    };
    if job.engine == EngineKind::PageFault {
        return Err(format!(
            "verify={} with ioengine=page_fault is not implemented by iomark (its anonymous memory is not read back by the verifier)",
            k.name()
        ));
    }
    if job.engine == EngineKind::Net {
        return Err(format!(
            "verify={} over the network (ioengine=net) is not implemented in iomark",
            k.name()
        ));
    }
    if job.engine.moves_no_data() {
        return Err(format!(
            "verify={} needs an engine that moves data (ioengine={} does none)",
            k.name(),
            job.engine.name()
        ));
    }
    if k == VerifyKind::Pattern && m.verify_pattern.is_empty() {
        return Err("verify=pattern needs verify_pattern=".into());
    }
    let min = job.bs_read.min().min(job.bs_write.min());
    let hdr = k.header_len();
    if min < hdr {
        return Err(format!(
            "verify={} needs block sizes of at least {hdr} bytes (the verify header); got {min}",
            k.name()
        ));
    }
    match job.tuning.verify_offset {
        Some(at) if hdr > 0 && at < hdr => Err(format!(
            "verify_offset={at} must be at least the {hdr}-byte verify header of verify={}",
            k.name()
        )),
        _ => Ok(()),
    }
}

/// io_uring's completion polling needs O_DIRECT. (Which engines take `hipri`,
/// `sqthread_poll` and the other engine options is [`check_engine_options`]'s under
/// `iomark run` and fio's getopt table's under the fio persona, where a job that
/// changed its engine after such an option runs without it, as fio 3.33's does.)
fn check_io_uring_keys(job: &FioJob) -> Result<(), String> {
    if job.hipri && job.engine == EngineKind::IoUring && !job.direct {
        return Err(
            "hipri=1 (completion polling) needs direct=1: polling works on O_DIRECT I/O only"
                .into(),
        );
    }
    Ok(())
}

/// `iomark run`'s refusal of an engine's option given to a job of another engine
/// (`--ioengine=psync --nowait=1`): fio 3.33 knows an engine's options only in a job of
/// that engine (the fio persona answers as fio: job/fio/getopt.rs, strict.rs). The line
/// names the option and the engines that take it.
fn check_engine_options(job: &FioJob) -> Result<(), String> {
    let engine = job.ioengine;
    let takes = options::options_of_engine(engine);
    for (key, _) in &job.options {
        if takes.contains(&key.as_str())
            || !options::engine_option_names().any(|n| n == key.as_str())
        {
            continue;
        }
        let takers: Vec<String> = options::engines_taking(key)
            .map(|e| format!("ioengine={e}"))
            .collect();
        return Err(format!(
            "{key} is an option of {}, not of ioengine={engine}",
            takers.join(" or ")
        ));
    }
    Ok(())
}
