//! fio's per-job log files (`write_bw_log`, `write_iops_log`, `write_lat_log`), one set
//! per job thread, named like fio: `PREFIX_bw.N.log`, `PREFIX_iops.N.log`,
//! `PREFIX_lat.N.log`, `PREFIX_clat.N.log`, `PREFIX_slat.N.log` (N = the thread's number among all jobs' threads
//! from 1, fio's thread_number, none with `per_job_logs=0`; PREFIX defaults to the job name). Lines are fio 3.x's:
//! `time_ms, value, ddir, bs, prio` — with `log_offset=1` the offset comes before prio
//! (`time_ms, value, ddir, bs, offset, prio`); ddir 0 = read, 1 = write, 2 = trim; prio is 1 for
//! an I/O of the realtime class, else 0, or with `log_prio=1` the I/O's ioprio value as
//! `0x%04x` (fio's iolog.c); windowed lines carry 0.
//!
//! Values: latency in ns; bandwidth in KiB/s (1024 bytes); IOPS per second. Without
//! `log_avg_msec` every I/O is one line (its bandwidth is its bytes over its latency;
//! its IOPS entry is 1). With `log_avg_msec=W` the lines are averages over windows of
//! W ms, per direction with I/O in it; bs and offset are 0 (`log_max_value=1`: the
//! window's maximum instead of its mean). Both kinds follow fio 3.33's `add_log_sample`:
//! a sample at T ms (since the job's start) joins its direction's window, and when T is
//! at least W past the window's base the window's line is written at T (the mean
//! rounded to the nearest unit) and the next base is T rounded down to a multiple of W;
//! at the job's end ([`Logs::end`]) what is left gets its line at that time. The
//! latency logs take one sample per completion (fio: a 2 s job at 500 ms has 4 lines,
//! the last at 2000; a 3 s one 6). The bandwidth and IOPS logs take the report's own
//! samples ([`Logs::rate`], stats/rates.rs `RateSampler`), whose interval is W unless
//! `bw_avg_time`/`iops_avg_time` was given (job/fio/finish.rs; the window is then the
//! shorter of the two), 1 ms short of W being enough (fio's `LOG_MSEC_SLACK` for a log
//! that is not inline): each sample is one line, and the log's lines and the report's
//! `bw_samples`/`iops_samples` agree.
//! `log_unix_epoch=1` writes times as ms since 1970.
//!
//! `write_hist_log=PREFIX` writes `PREFIX_clat_hist.N.log`, fio's histogram log: every
//! `log_hist_msec` (per direction, from its first completion) a line `time, ddir, bs,`
//! then the completion-latency counts since the previous line in fio's 1856 buckets
//! (src/result/plat.rs), 2^`log_hist_coarseness` of them summed per column — what
//! fio's tools/hist/fiologparser_hist.py reads.
//!
//! `write_iolog=FILE` is fio's I/O log, version 3 (what fio 3.33 writes): `fio version 3
//! iolog`, then `T NAME add` for each of the job's files, `T NAME open` when the job
//! opens a file (before its first request, again after it closed it), `T NAME
//! read|write|trim OFFSET LENGTH` for each request as it is issued, and `T NAME close`
//! when the job is done with a file (run/worker/fio/open.rs) or at the end, T being µs
//! since the log was opened — written by the thread that issues them. The clones of a
//! job (`numjobs` > 1) write one file, as fio's: each clone's log — its version line,
//! `add` lines and the rest — is added after what the file holds when the clone ends
//! (fio opens it in append mode and flushes each clone's lines; iomark adds each
//! clone's log whole, where fio's 8 KiB buffers interleave the clones' logs past that
//! size, cutting lines). fio also logs its syncs and appends to an existing file for
//! one thread too; iomark logs no syncs and a job of one thread replaces the file, as
//! it does the other logs.
//!
//! `log_store_compressed=1` stores the bw/iops/lat logs as fio's `PREFIX_KIND.N.log.fz`:
//! the same lines as fio's binary records in zlib streams (run/fio/fz.rs), which
//! `--inflate-log` prints back; a log without lines is an empty file, as fio's. The
//! histogram log is then `PREFIX_clat_hist.N.log.fz` as fio 3.33 writes it: one record
//! per histogram line (time, direction, block size) whose value is 0 — fio stores
//! there the address of the histogram in its memory, so neither file holds the counts.
//!
//! The files are output files of [`crate::files::output`]: checked when the thread
//! starts (a planted link or a hard-linked name is refused, exit 3), written to a
//! temporary file while the job runs and renamed into place by [`Logs::finish`] — a
//! log holds its old content or the complete new one.

use crate::files::output::{Output, OutputError, Staged};
use crate::util::output::Stream;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A file of the I/O log: its name and whether the log has it open.
type IologFile = (String, bool);

/// Which logs a job writes, and how.
#[derive(Clone, Debug, Default)]
pub struct LogSpec {
    /// bandwidth log prefix
    pub bw: Option<String>,
    /// IOPS log prefix
    pub iops: Option<String>,
    /// latency logs prefix
    pub lat: Option<String>,
    /// the latency logs fio leaves out, in the order `lat`, `clat`, `slat`: the ones
    /// `disable_lat`, `disable_clat`, `disable_slat` turn off (init.c `setup_log`)
    pub lat_off: [bool; 3],
    /// the per-I/O lines fio leaves out of the bandwidth and IOPS logs, `[bw, iops]`:
    /// fio's `disable_bw` (which `gtod_reduce=1` sets), and its `gtod_reduce` (the three
    /// `disable_*` with it) — the files are made, empty
    pub rate_off: [bool; 2],
    /// window, ms (0 = per I/O)
    pub avg_msec: u64,
    /// the bandwidth and IOPS logs' windows, ms: `avg_msec`, or `bw_avg_time`
    /// (`iops_avg_time`) when that is shorter (0: per I/O)
    pub rate_msec: [u64; 2],
    /// write the offset column
    pub offset: bool,
    /// `log_prio`: the prio column is the I/O's ioprio in hex
    pub prio: bool,
    /// `per_job_logs=0`: the thread number is not part of the name ([`LogSpec::path`])
    pub shared: bool,
    /// `write_iolog`: the I/O log's path
    pub iolog: Option<String>,
    /// `write_hist_log`: the histogram log's prefix ("" = the job's name)
    pub hist: Option<String>,
    /// `log_hist_msec`: interval of the histogram lines (0: none, as fio)
    pub hist_msec: u64,
    /// `log_hist_coarseness`: 2^N of fio's buckets summed per column
    pub hist_coarseness: u32,
    /// the job's end, ms (`ramp_time` + `runtime`): no histogram line at or past it
    pub end_ms: Option<u64>,
    /// `log_unix_epoch` / `log_alternate_epoch`: times are ms since the epoch of this
    /// clock (`log_alternate_epoch_clock_id`, default CLOCK_REALTIME: since 1970)
    /// rather than since the job's start
    pub epoch_clock: Option<i32>,
    /// `log_max_value`: a windowed latency line holds the window's maximum, not its mean
    pub max_value: bool,
    /// `log_store_compressed`: the bw/iops/lat logs are fio's compressed `.fz` files
    /// (run/fio/fz.rs) in streams of `log_compression` bytes of records (0: one)
    pub store_compressed: Option<u64>,
    /// `log_compression` or `log_store_compressed`: the bandwidth and IOPS logs take one
    /// sample per I/O, as the latency logs do (fio's `per_unit_log`), so with
    /// `log_avg_msec` their lines are the means of those samples in the latency windows,
    /// not the sampling thread's rates
    pub unit_rates: bool,
}

/// One bw/iops/lat log file: its text lines, or with `log_store_compressed` its
/// compressed records.
pub struct LogFile {
    out: Staged,
    fz: Option<crate::run::fio::fz::FzLog>,
}

/// The samples of one bandwidth or IOPS window since its last line.
#[derive(Default, Clone, Copy)]
struct RateWin {
    n: u64,
    sum: u128,
    max: u64,
}

#[derive(Default, Clone, Copy)]
struct Win {
    ios: u64,
    lat: u128,
    clat: u128,
    slat: u128,
    slat_n: u64,
    /// the sum of the per-I/O bandwidths ([`unit_bw`]) of a latency window
    bw: u128,
    /// the largest of each latency (`log_max_value`)
    max: [u64; 3],
}

/// The histogram log of one thread (`write_hist_log`): fio's clat bucket counts per
/// direction since the job's start, and those at the last line written.
struct HistLog {
    file: Staged,
    /// `log_store_compressed`: fio's records instead of the text lines
    fz: Option<crate::run::fio::fz::FzLog>,
    now: [Vec<u64>; 3],
    last: [Vec<u64>; 3],
    /// when the current interval started, ms (0: at the first completion)
    since: [u64; 3],
}

/// The job's interval sampling of bandwidth and IOPS, `[bw, iops]`: every
/// `bwavgtime`/`iopsavgtime` ms, `None` (no interval sample of that kind) for an interval
/// of 0, with `disable_bw_measurement=1` (fio 3.33 then reports no samples), or for a
/// kind sampled per I/O ([`unit_samples`]). The worker's sampler runs on these.
pub fn sample_intervals(job: &crate::job::fio::FioJob) -> [Option<u64>; 2] {
    let unit = unit_samples(job);
    let every = |ms: u64, unit: bool| (ms != 0 && !job.tuning.disable_bw && !unit).then_some(ms);
    [
        every(job.more.bw_avg_time, unit[0]),
        every(job.more.iops_avg_time, unit[1]),
    ]
}

/// Whether the job's report takes its bandwidth and IOPS samples per I/O, `[bw, iops]`
/// (fio 3.33's `per_unit_log`): a bw (iops) log without a window ([`rate_windows`]), or
/// with `log_compression`/`log_store_compressed`. fio's sampling thread then takes no
/// interval sample of that kind, and each measured completion adds one: its bandwidth
/// ([`unit_bw`]; not under `disable_bw_measurement`), or 1 I/O (not under
/// `gtod_reduce`) — the report's `bw_*`/`iops_*` keys are over those.
pub fn unit_samples(job: &crate::job::fio::FioJob) -> [bool; 2] {
    let (m, t) = (&job.more, &job.tuning);
    let unit = t.log_compression > 0 || t.log_store_compressed;
    let [bw, iops] = rate_windows(job).map(|w| unit || w == 0);
    [bw && m.bw_log.is_some(), iops && m.iops_log.is_some()]
}

/// The windows of the job's bandwidth and IOPS logs, ms (fio 3.33's log setup):
/// `log_avg_msec`, or the sampling interval when that is shorter (job/fio/finish.rs
/// makes the interval `log_avg_msec` unless it was given); 0 without `log_avg_msec`.
pub fn rate_windows(job: &crate::job::fio::FioJob) -> [u64; 2] {
    let m = &job.more;
    [m.bw_avg_time, m.iops_avg_time].map(|t| m.log_avg_msec.min(t))
}

/// The bandwidth sample of one I/O, as fio 3.33 logs it (`add_bw_sample`): its bytes
/// × 10^6 / its completion latency in ns (0 for a latency of 0).
pub fn unit_bw(bytes: u64, clat_ns: u64) -> u64 {
    match clat_ns {
        0 => 0,
        ns => u64::try_from(u128::from(bytes) * 1_000_000 / u128::from(ns)).unwrap_or(u64::MAX),
    }
}

/// Open log files of one thread.
pub struct Logs {
    spec: LogSpec,
    bw: Option<LogFile>,
    iops: Option<LogFile>,
    lat: Option<LogFile>,
    clat: Option<LogFile>,
    slat: Option<LogFile>,
    /// the I/O log, the names of the job's files in it (each with whether the log has it
    /// open) and when it was opened
    iolog: Option<(Staged, Vec<IologFile>, std::time::Instant)>,
    /// the bandwidth (0) and IOPS (1) windows of each direction, and their bases, ms
    /// since the job's start
    rwin: [[RateWin; 3]; 2],
    rate_last: [[u64; 3]; 2],
    /// the latency window of each direction and its base, ms since the job's start
    lwin: [Win; 3],
    lat_last: [u64; 3],
    /// ioprio of the next per-I/O line ([`Logs::set_prio`])
    cur_prio: u16,
    hist: Option<HistLog>,
    /// added to every time written: the job's start in ms since 1970 (`log_unix_epoch`)
    epoch_ms: u64,
}

impl LogSpec {
    /// The logs `job` asks for (`write_bw_log`, `write_iops_log`, `write_lat_log` and
    /// their options); `None` when it writes none.
    pub fn of(job: &crate::job::fio::FioJob) -> Option<LogSpec> {
        let m = &job.more;
        let t = &job.tuning;
        let any = m.bw_log.is_some() || m.iops_log.is_some() || m.lat_log.is_some();
        let any = any || t.hist_log.is_some();
        // `/dev/null` is nowhere, as for every output (fio 3.33 writes its log there,
        // which changes nothing): no file is checked or written
        let null = |p: &&String| Stream::of(Path::new(p.as_str())) == Some(Stream::Null);
        let iolog = m.write_iolog.as_ref().filter(|p| !null(p)).cloned();
        (any || iolog.is_some()).then(|| LogSpec {
            bw: m.bw_log.clone(),
            iops: m.iops_log.clone(),
            lat: m.lat_log.clone(),
            // (`gtod_reduce=1` sets the three as it is read, fio's `str_gtod_reduce_cb`)
            lat_off: [t.disable_lat, t.disable_clat, t.disable_slat],
            rate_off: {
                let no_bw = t.disable_bw || m.gtod_reduce;
                [no_bw, no_bw && t.disable_clat && t.disable_slat]
            },
            avg_msec: m.log_avg_msec,
            rate_msec: rate_windows(job),
            offset: m.log_offset,
            prio: job.extra.log_prio,
            shared: !m.per_job_logs,
            iolog,
            hist: t.hist_log.clone(),
            hist_msec: t.log_hist_msec,
            hist_coarseness: t.log_hist_coarseness,
            end_ms: job
                .runtime
                .map(|r| u64::try_from((job.ramp_time + r).as_millis()).unwrap_or(u64::MAX)),
            epoch_clock: (t.log_unix_epoch || t.log_alternate_epoch).then_some(
                t.log_alternate_epoch_clock_id
                    .unwrap_or(libc::CLOCK_REALTIME),
            ),
            max_value: t.log_max_value,
            store_compressed: t.log_store_compressed.then_some(t.log_compression),
            unit_rates: t.log_compression > 0 || t.log_store_compressed,
        })
    }

    /// One log's file: [`log_path`], or `DIR/PREFIX_KIND.log` with `per_job_logs=0`;
    /// `.log.fz` for a compressed log (fio's `log_store_compressed`).
    fn path(&self, dir: &Path, prefix: &str, kind: &str, thread: u32) -> PathBuf {
        let p = if self.shared {
            dir.join(format!("{prefix}_{kind}.log"))
        } else {
            log_path(dir, prefix, kind, thread)
        };
        match self.store_compressed {
            Some(_) => p.with_extension("log.fz"),
            None => p,
        }
    }

    /// Whether `kind`, a latency log's, is one the job leaves out ([`LogSpec::lat_off`]).
    fn lat_kind_off(&self, kind: &str) -> bool {
        let i = ["lat", "clat", "slat"].iter().position(|k| *k == kind);
        i.is_some_and(|i| self.lat_off[i])
    }

    /// The files of thread `thread` (0-based) of job `job` in `dir`.
    pub fn paths(&self, job: &str, thread: u32, dir: &Path) -> Vec<PathBuf> {
        let mut v = Vec::new();
        for (p, kinds) in [
            (&self.bw, &["bw"][..]),
            (&self.iops, &["iops"][..]),
            (&self.lat, &["lat", "clat", "slat"][..]),
            (&self.hist, &["clat_hist"][..]),
        ] {
            if let Some(pre) = p {
                let pre = if pre.is_empty() { job } else { pre.as_str() };
                let on = |k: &&&str| !self.lat_kind_off(k);
                v.extend(
                    kinds
                        .iter()
                        .filter(on)
                        .map(|k| self.path(dir, pre, k, thread)),
                );
            }
        }
        v.extend(self.iolog.iter().map(|p| dir.join(p)));
        v
    }

    /// Check the files of thread `thread` of job `job` in `dir` before any file is laid
    /// out ([`Output::create`]: absent, or a regular file with one link): a planted
    /// link fails the run at once (exit 3), not after the layout.
    pub fn check(&self, job: &str, thread: u32, dir: &Path) -> Result<(), OutputError> {
        for p in self.paths(job, thread, dir) {
            Output::create(&p)?;
        }
        Ok(())
    }
}

/// Now on clock `id` (clock_gettime(2)), ms; 0 for a clock the kernel refuses.
fn clock_ms(id: i32) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec passed
    if unsafe { libc::clock_gettime(id as libc::clockid_t, &mut ts) } != 0 {
        return 0;
    }
    ts.tv_sec.max(0) as u64 * 1000 + ts.tv_nsec.max(0) as u64 / 1_000_000
}

/// Path of a log: `DIR/PREFIX_KIND.N.log`.
pub fn log_path(dir: &Path, prefix: &str, kind: &str, thread: u32) -> PathBuf {
    dir.join(format!("{prefix}_{kind}.{}.log", thread + 1))
}

impl Logs {
    /// Check the files of thread `thread` (0-based) of job `job` in `dir` and start
    /// their temporary files.
    pub fn create(spec: &LogSpec, job: &str, thread: u32, dir: &Path) -> Result<Logs, OutputError> {
        let open = |p: &Option<String>, kind: &str| -> Result<Option<Staged>, OutputError> {
            match p {
                None => Ok(None),
                Some(pre) => {
                    let pre = if pre.is_empty() { job } else { pre.as_str() };
                    Ok(Some(
                        Output::create(&spec.path(dir, pre, kind, thread))?.stage()?,
                    ))
                }
            }
        };
        let log = |p: &Option<String>, kind: &str| -> Result<Option<LogFile>, OutputError> {
            let fz = |c| crate::run::fio::fz::FzLog::new(c, spec.prio);
            Ok(open(p, kind)?.map(|out| LogFile {
                out,
                fz: spec.store_compressed.map(fz),
            }))
        };
        let lat_of = |kind| {
            if spec.lat_kind_off(kind) {
                &None
            } else {
                &spec.lat
            }
        };
        Ok(Logs {
            bw: log(&spec.bw, "bw")?,
            iops: log(&spec.iops, "iops")?,
            lat: log(lat_of("lat"), "lat")?,
            clat: log(lat_of("clat"), "clat")?,
            slat: log(lat_of("slat"), "slat")?,
            iolog: match &spec.iolog {
                Some(p) => Some((
                    Output::create(&dir.join(p))?.stage()?,
                    Vec::new(),
                    std::time::Instant::now(),
                )),
                None => None,
            },
            hist: open(&spec.hist, "clat_hist")?.map(|file| HistLog {
                file,
                fz: spec
                    .store_compressed
                    .map(|c| crate::run::fio::fz::FzLog::new(c, false)),
                now: std::array::from_fn(|_| vec![0; crate::result::plat::BUCKETS]),
                last: std::array::from_fn(|_| vec![0; crate::result::plat::BUCKETS]),
                since: [0; 3],
            }),
            epoch_ms: spec.epoch_clock.map_or(0, clock_ms),
            spec: spec.clone(),
            rwin: Default::default(),
            rate_last: [[0; 3]; 2],
            lwin: [Win::default(); 3],
            lat_last: [0; 3],
            cur_prio: 0,
        })
    }

    /// One line (`prio`: the I/O's ioprio, printed in hex with `log_prio`, else as the
    /// realtime flag; 0 for a window's line), or its record in a compressed log; a
    /// write error is kept by the file and reported by [`Logs::finish`].
    #[allow(clippy::too_many_arguments)]
    fn line(
        f: &mut Option<LogFile>,
        with_off: bool,
        (prio, hex): (u16, bool),
        t: u64,
        v: u64,
        d: usize,
        bs: u64,
        off: u64,
    ) {
        let Some(LogFile { out: w, fz }) = f else {
            return;
        };
        let r = match fz {
            Some(z) => {
                let s = crate::run::fio::fz::Sample {
                    time: t,
                    val: v,
                    ddir: d as u32,
                    prio,
                    bs,
                    offset: with_off.then_some(off),
                };
                w.write_all(&z.push(&s))
            }
            None if hex && with_off => writeln!(w, "{t}, {v}, {d}, {bs}, {off}, 0x{prio:04x}"),
            None if hex => writeln!(w, "{t}, {v}, {d}, {bs}, 0x{prio:04x}"),
            None => {
                let rt = u8::from(prio >> 13 == 1);
                match with_off {
                    true => writeln!(w, "{t}, {v}, {d}, {bs}, {off}, {rt}"),
                    false => writeln!(w, "{t}, {v}, {d}, {bs}, {rt}"),
                }
            }
        };
        if let Err(e) = r {
            w.keep_error(e);
        }
    }

    /// The I/O log's header and its `add` lines for the job's `files` (their names as
    /// the job gives them); nothing without `write_iolog`. A file's `open` and `close`
    /// lines are written as the job opens and closes it ([`Logs::iolog_file`]).
    pub fn iolog_files(&mut self, files: &[&Path]) {
        if let Some((w, names, t0)) = &mut self.iolog {
            *names = files
                .iter()
                .map(|p| (p.display().to_string(), false))
                .collect();
            let mut r = writeln!(w, "fio version 3 iolog");
            for (n, _) in names.iter() {
                let t = t0.elapsed().as_micros();
                r = r.and_then(|()| writeln!(w, "{t} {n} add"));
            }
            if let Err(e) = r {
                w.keep_error(e);
            }
        }
    }

    /// `file` opened (`open`) or closed (`open` false) in the I/O log: its `open` or
    /// `close` line, written once per change (a file the log has open is not opened
    /// again); [`Logs::finish`] closes the files still open.
    pub fn iolog_file(&mut self, file: usize, open: bool) {
        if let Some((w, names, t0)) = &mut self.iolog {
            let Some((n, was)) = names.get_mut(file) else {
                return;
            };
            if *was == open {
                return;
            }
            *was = open;
            let t = t0.elapsed().as_micros();
            let act = if open { "open" } else { "close" };
            if let Err(e) = writeln!(w, "{t} {n} {act}") {
                w.keep_error(e);
            }
        }
    }

    /// One issued request in the I/O log: `act` is fio's name of the operation
    /// (`read`, `write`, `trim`).
    pub fn iolog(&mut self, file: usize, act: &str, offset: u64, len: u64) {
        if let Some((w, names, t0)) = &mut self.iolog {
            let n = names.get(file).map_or("?", |(n, _)| n.as_str());
            let t = t0.elapsed().as_micros();
            if let Err(e) = writeln!(w, "{t} {n} {act} {offset} {len}") {
                w.keep_error(e);
            }
        }
    }

    /// Set the ioprio (`class << 13 | hint << 3 | level`) the next [`Logs::io`] lines
    /// report in their prio column.
    pub fn set_prio(&mut self, ioprio: u16) {
        self.cur_prio = ioprio;
    }

    /// One completed I/O at `t_ms` since the job start: direction (0 read, 1 write, 2 trim),
    /// bytes, offset, latencies in ns (`slat` None for engines without submission time).
    #[allow(clippy::too_many_arguments)]
    pub fn io(
        &mut self,
        t_ms: u64,
        d: usize,
        bytes: u64,
        off: u64,
        slat: Option<u64>,
        clat: u64,
        lat: u64,
    ) {
        self.hist_io(t_ms, d, bytes, clat);
        if self.spec.avg_msec > 0 {
            // windowed: the bandwidth and IOPS lines come from the report's samples
            // ([`Logs::rate`]), or with `unit_rates` from these latency windows
            self.lat_io(t_ms, d.min(2), slat, (clat, lat), unit_bw(bytes, clat));
            return;
        }
        let t_ms = t_ms + self.epoch_ms;
        let o = self.spec.offset;
        let p = (self.cur_prio, self.spec.prio);
        let bw = unit_bw(bytes, clat);
        if !self.spec.rate_off[0] {
            Self::line(&mut self.bw, o, p, t_ms, bw, d, bytes, off);
        }
        if !self.spec.rate_off[1] {
            Self::line(&mut self.iops, o, p, t_ms, 1, d, bytes, off);
        }
        Self::line(&mut self.lat, o, p, t_ms, lat, d, bytes, off);
        Self::line(&mut self.clat, o, p, t_ms, clat, d, bytes, off);
        if let Some(s) = slat {
            Self::line(&mut self.slat, o, p, t_ms, s, d, bytes, off);
        }
    }

    /// One completion in its direction's latency window (fio's `add_log_sample` of an
    /// inline log): the window's lines are written at `t_ms` once it is `log_avg_msec`
    /// or more past the window's base.
    fn lat_io(&mut self, t_ms: u64, d: usize, slat: Option<u64>, (clat, lat): (u64, u64), bw: u64) {
        let w = &mut self.lwin[d];
        w.ios += 1;
        w.bw += u128::from(bw);
        w.lat += u128::from(lat);
        w.clat += u128::from(clat);
        w.max[0] = w.max[0].max(lat);
        w.max[1] = w.max[1].max(clat);
        if let Some(s) = slat {
            w.slat += u128::from(s);
            w.slat_n += 1;
            w.max[2] = w.max[2].max(s);
        }
        let (avg, last) = (self.spec.avg_msec, self.lat_last[d]);
        if t_ms < last || t_ms - last < avg {
            return;
        }
        self.lat_lines(d, t_ms);
        self.lat_last[d] = t_ms - t_ms % avg;
    }

    /// The latency lines of direction `d`'s window at `t_ms` since the job's start (none
    /// for an empty window), and a new window.
    fn lat_lines(&mut self, d: usize, t_ms: u64) {
        let w = std::mem::take(&mut self.lwin[d]);
        if w.ios == 0 {
            return;
        }
        let mean = |sum: u128, n: u64| ((sum + u128::from(n) / 2) / u128::from(n.max(1))) as u64;
        let (lat, clat, slat) = if self.spec.max_value {
            (w.max[0], w.max[1], w.max[2])
        } else {
            (
                mean(w.lat, w.ios),
                mean(w.clat, w.ios),
                mean(w.slat, w.slat_n),
            )
        };
        let (o, p, t) = (self.spec.offset, (0, self.spec.prio), t_ms + self.epoch_ms);
        Self::line(&mut self.lat, o, p, t, lat, d, 0, 0);
        Self::line(&mut self.clat, o, p, t, clat, d, 0, 0);
        if w.slat_n > 0 {
            Self::line(&mut self.slat, o, p, t, slat, d, 0, 0);
        }
        if self.spec.unit_rates {
            // each I/O's IOPS sample is 1 (fio's add_iops_sample), so is their mean
            Self::line(&mut self.bw, o, p, t, mean(w.bw, w.ios), d, 0, 0);
            Self::line(&mut self.iops, o, p, t, 1, d, 0, 0);
        }
    }

    /// The job's end, `t_ms` since its start: with `log_avg_msec`, what is left in the
    /// windows gets its lines at that time (fio's `finalize_logs`). The bandwidth and
    /// IOPS windows are empty then unless `bw_avg_time`/`iops_avg_time` is shorter than
    /// `log_avg_msec`: each sample of an interval of the window's length closes it.
    pub fn end(&mut self, t_ms: u64) {
        if self.spec.avg_msec > 0 {
            for d in 0..3 {
                self.lat_lines(d, t_ms);
                self.rate_line(0, d, t_ms);
                self.rate_line(1, d, t_ms);
            }
        }
    }

    /// Whether a bandwidth or IOPS log of these takes the report's samples
    /// ([`Logs::rate`]): it is windowed, and not per I/O.
    pub fn takes_rates(&self) -> bool {
        let live = self.spec.avg_msec > 0 && !self.spec.unit_rates;
        let bw = self.bw.is_some() && self.spec.rate_msec[0] > 0;
        let iops = self.iops.is_some() && self.spec.rate_msec[1] > 0;
        live && (bw || iops)
    }

    /// One of the report's bandwidth (`iops` false; KiB/s) or IOPS samples, `v`, of
    /// direction `d`, taken at `t_ms` since the job's start (fio's `add_log_sample` of a
    /// log that is not inline): it joins the direction's window, whose line is written
    /// once `t_ms` is within 1 ms of the window's length past its base. Nothing for a
    /// log written per I/O.
    pub fn rate(&mut self, iops: bool, t_ms: u64, d: usize, v: u64) {
        let k = usize::from(iops);
        let avg = self.spec.rate_msec[k];
        let file = if iops { &self.iops } else { &self.bw };
        if avg == 0 || self.spec.unit_rates || file.is_none() {
            return;
        }
        let d = d.min(2);
        let w = &mut self.rwin[k][d];
        w.n += 1;
        w.sum += u128::from(v);
        w.max = w.max.max(v);
        let last = self.rate_last[k][d];
        // fio's LOG_MSEC_SLACK: a sampled log's window may close 1 ms early
        if t_ms < last || t_ms - last + 1 < avg {
            return;
        }
        self.rate_line(k, d, t_ms);
        self.rate_last[k][d] = t_ms - t_ms % avg;
    }

    /// The line of bandwidth (`k` 0) or IOPS (1) window `d` at `t_ms` since the job's
    /// start (none for an empty window), and a new window.
    fn rate_line(&mut self, k: usize, d: usize, t_ms: u64) {
        let w = std::mem::take(&mut self.rwin[k][d]);
        if w.n == 0 {
            return;
        }
        let v = match self.spec.max_value {
            true => w.max,
            false => ((w.sum * 2 + u128::from(w.n)) / (2 * u128::from(w.n))) as u64,
        };
        let (o, p, t) = (self.spec.offset, (0, self.spec.prio), t_ms + self.epoch_ms);
        let f = if k == 1 { &mut self.iops } else { &mut self.bw };
        Self::line(f, o, p, t, v, d, 0, 0);
    }

    /// Count one completion in the histogram log and write its line when the
    /// direction's interval is over (fio's `add_clat_sample`: the interval starts at the
    /// first completion, the line carries the counts since the previous line, and the
    /// next interval starts where this one should have ended).
    fn hist_io(&mut self, t_ms: u64, d: usize, bytes: u64, clat: u64) {
        let (msec, coarse) = (self.spec.hist_msec, self.spec.hist_coarseness);
        let past_end = self.spec.end_ms.is_some_and(|e| t_ms >= e);
        let (epoch, offset) = (self.epoch_ms, self.spec.offset);
        let Some(h) = &mut self.hist else {
            return;
        };
        let d = d.min(2);
        h.now[d][crate::result::plat::index(clat)] += 1;
        if h.since[d] == 0 {
            h.since[d] = t_ms;
        }
        let window = t_ms - h.since[d].min(t_ms);
        // fio 3.33 writes histogram lines only with an interval (stat.c add_clat_sample:
        // `iolog->hist_msec` must be set): `log_hist_msec=0`, its default, leaves the
        // file empty
        if msec == 0 || window < msec || past_end {
            return;
        }
        let t = t_ms + epoch;
        if let Some(z) = &mut h.fz {
            // fio 3.33 stores the address of its histogram in the record's value,
            // which means nothing in a file: iomark stores 0 (docs/compat/fio.md)
            let s = crate::run::fio::fz::Sample {
                time: t,
                ddir: d as u32,
                bs: bytes,
                offset: offset.then_some(0),
                ..Default::default()
            };
            if let Err(e) = h.file.write_all(&z.push(&s)) {
                h.file.keep_error(e);
            }
            h.since[d] = t_ms - (window - msec);
            return;
        }
        let stride = 1usize << coarse.min(6);
        let cols: Vec<String> = (0..crate::result::plat::BUCKETS)
            .step_by(stride)
            .map(|j| {
                (j..j + stride)
                    .map(|k| h.now[d][k] - h.last[d][k])
                    .sum::<u64>()
                    .to_string()
            })
            .collect();
        if let Err(e) = writeln!(h.file, "{t}, {d}, {bytes}, {}", cols.join(", ")) {
            h.file.keep_error(e);
        }
        h.last[d].clone_from(&h.now[d]);
        h.since[d] = t_ms - (window - msec);
    }

    /// Put every file in place (the logs of the
    /// I/O done so far, also after a failed job, as fio keeps them). Returns the first
    /// error (a line that could not be written, or the file itself); each file is
    /// committed at most once, so a second call does nothing.
    pub fn finish(&mut self) -> Result<(), OutputError> {
        if let Some(n) = self.iolog.as_ref().map(|l| l.1.len()) {
            for f in 0..n {
                self.iolog_file(f, false);
            }
        }
        let mut first = Ok(());
        let shared = self.spec.shared;
        if let Some((s, _, _)) = self.iolog.take() {
            // fio opens `write_iolog` in append mode (iolog.c `fopen(…, "a")`): a run
            // adds to what an earlier one (or another clone) left
            first = commit(s, true);
        }
        if let Some(mut h) = self.hist.take() {
            if let Some(rest) = h.fz.map(|mut z| z.finish()) {
                if let Err(e) = h.file.write_all(&rest) {
                    h.file.keep_error(e);
                }
            }
            let r = commit(h.file, shared);
            if first.is_ok() {
                first = r;
            }
        }
        for f in [
            &mut self.bw,
            &mut self.iops,
            &mut self.lat,
            &mut self.clat,
            &mut self.slat,
        ] {
            if let Some(LogFile { mut out, fz }) = f.take() {
                if let Some(rest) = fz.map(|mut z| z.finish()) {
                    if let Err(e) = out.write_all(&rest) {
                        out.keep_error(e);
                    }
                }
                let r = commit(out, shared);
                if first.is_ok() {
                    first = r;
                }
            }
        }
        first
    }
}

/// Put one log's file in place: a thread's own file replaces what was there; a file
/// the threads share (`per_job_logs=0`, the I/O log of a job's clones) gets this
/// thread's lines after what it holds, as fio appends each thread's log when the thread
/// flushes it (so the lines come thread by thread, and a run adds to an earlier run's
/// file).
fn commit(out: Staged, shared: bool) -> Result<(), OutputError> {
    if shared {
        out.commit_appended()
    } else {
        out.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windowed_lines_average_per_direction() {
        let d = tempfile::tempdir().unwrap();
        let spec = LogSpec {
            bw: Some(String::new()),
            iops: Some("x".into()),
            lat: Some(String::new()),
            avg_msec: 100,
            rate_msec: [100, 100],
            ..Default::default()
        };
        let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
        // window [0,100): two 4 KiB reads of 1000 and 3000 ns; window [100,200): one write
        l.io(10, 0, 4096, 0, None, 1000, 1000);
        l.io(50, 0, 4096, 4096, None, 3000, 3000);
        // the report's samples at 100 ms: 8192 bytes in 100 ms = 80 KiB/s, 20 IOPS
        l.rate(false, 100, 0, 80);
        l.rate(true, 100, 0, 20);
        l.io(150, 1, 8192, 0, None, 500, 500);
        l.end(160);
        l.finish().unwrap();
        // one line per sample; none at the job's end (no sample was taken for the
        // write's interval)
        let bw = std::fs::read_to_string(log_path(d.path(), "job", "bw", 0)).unwrap();
        assert_eq!(bw, "100, 80, 0, 0, 0\n");
        let iops = std::fs::read_to_string(log_path(d.path(), "x", "iops", 0)).unwrap();
        assert_eq!(iops, "100, 20, 0, 0, 0\n");
        // latency: the write at 150 ms is 100 ms past its window's base (0), so its line
        // is written then; the reads' window is still open at the job's end (160 ms)
        let lat = std::fs::read_to_string(log_path(d.path(), "job", "lat", 0)).unwrap();
        assert_eq!(lat, "150, 500, 1, 0, 0\n160, 2000, 0, 0, 0\n");
        assert!(log_path(d.path(), "job", "slat", 0).exists());
    }

    /// The bandwidth and IOPS lines are fio's `add_log_sample` over the report's
    /// samples: a sample 1 ms short of the window closes it (fio's LOG_MSEC_SLACK), one
    /// 2 ms short waits in it, the next base is rounded down to the window, and what
    /// is left gets its line at the job's end (mean rounded, or `log_max_value`'s
    /// maximum).
    #[test]
    fn rate_lines_are_the_reports_samples() {
        let d = tempfile::tempdir().unwrap();
        for max_value in [false, true] {
            let pre = format!("r{max_value}");
            let spec = LogSpec {
                bw: Some(pre.clone()),
                iops: Some(pre.clone()),
                avg_msec: 500,
                rate_msec: [500, 250],
                max_value,
                ..Default::default()
            };
            let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
            for (t, v) in [(499, 10), (998, 20), (1503, 31), (1700, 5)] {
                l.rate(false, t, 0, v);
                l.rate(true, t, 1, v);
            }
            assert!(l.takes_rates());
            l.end(1800);
            l.finish().unwrap();
            let read = |k| std::fs::read_to_string(log_path(d.path(), &pre, k, 0)).unwrap();
            // bw (500 ms): 499 is 1 ms short of the window and closes it, base 0 (499
            // rounded down); 998 closes it again, base 500; 1503 too, base 1500; 1700
            // waits and is written at the end
            assert_eq!(
                read("bw"),
                "499, 10, 0, 0, 0\n998, 20, 0, 0, 0\n1503, 31, 0, 0, 0\n1800, 5, 0, 0, 0\n"
            );
            // iops (250 ms), direction 1: 499 closes, base 250; 998 closes, base 750;
            // 1503 closes, base 1500; 1700 (200 past) waits and is written at the end
            assert_eq!(
                read("iops"),
                "499, 10, 1, 0, 0\n998, 20, 1, 0, 0\n1503, 31, 1, 0, 0\n1800, 5, 1, 0, 0\n"
            );
        }
        // a sample 2 ms short of the window waits: its line is the mean with the next
        let spec = LogSpec {
            bw: Some("m".into()),
            avg_msec: 1000,
            rate_msec: [1000, 1000],
            ..Default::default()
        };
        let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
        l.rate(false, 998, 0, 10);
        l.rate(false, 999, 0, 13);
        l.rate(false, 1500, 0, 7);
        l.rate(true, 1500, 0, 7);
        l.end(1600);
        l.finish().unwrap();
        let bw = std::fs::read_to_string(log_path(d.path(), "m", "bw", 0)).unwrap();
        // (10 + 13) / 2 = 11.5 rounds to 12, base 0: 1500 closes the next window; nothing
        // is left for the end; the IOPS sample has no log to go to
        assert_eq!(bw, "999, 12, 0, 0, 0\n1500, 7, 0, 0, 0\n");
    }

    /// A windowed log's window is `log_avg_msec`, or the given sampling interval when
    /// that is shorter; 0 (per I/O) without `log_avg_msec`.
    #[test]
    fn rate_windows_are_fios() {
        let windows = |v: &[&str]| {
            let mut a = vec!["--name=j".to_string(), "--size=1m".into()];
            a.extend(v.iter().map(|s| s.to_string()));
            let c = crate::job::fio::parse_args(&a).unwrap();
            (rate_windows(&c.jobs[0]), unit_samples(&c.jobs[0]))
        };
        let w = windows(&["--write_bw_log=b", "--log_avg_msec=1000"]);
        assert_eq!(w, ([1000, 500], [false, false]));
        let w = windows(&["--write_bw_log=b", "--log_avg_msec=1000", "--bwavgtime=300"]);
        assert_eq!(w, ([300, 500], [false, false]));
        let w = windows(&[
            "--write_bw_log=b",
            "--log_avg_msec=1000",
            "--bwavgtime=2000",
        ]);
        assert_eq!(w, ([1000, 500], [false, false]));
        let w = windows(&["--write_bw_log=b", "--write_iops_log=b"]);
        assert_eq!(w, ([0, 0], [true, true]));
        // a given interval of 0 makes that log per I/O (fio's window is the shorter)
        let w = windows(&["--write_bw_log=b", "--log_avg_msec=1000", "--bwavgtime=0"]);
        assert_eq!(w, ([0, 500], [true, false]));
    }

    /// The worker samples bandwidth and IOPS at `bwavgtime`/`iopsavgtime`; not at all
    /// for an interval of 0, under `disable_bw_measurement`, or for a kind its log
    /// samples per I/O.
    #[test]
    fn sample_intervals_are_fios() {
        let every = |v: &[&str]| {
            let mut a = vec!["--name=j".to_string(), "--size=1m".into()];
            a.extend(v.iter().map(|s| s.to_string()));
            sample_intervals(&crate::job::fio::parse_args(&a).unwrap().jobs[0])
        };
        assert_eq!(every(&[]), [Some(500), Some(500)]);
        assert_eq!(
            every(&["--bwavgtime=250", "--iopsavgtime=0"]),
            [Some(250), None]
        );
        assert_eq!(every(&["--disable_bw_measurement=1"]), [None, None]);
        assert_eq!(every(&["--write_bw_log=b"]), [None, Some(500)]);
        // a windowed log samples at its window (job/fio/finish.rs sets the interval)
        assert_eq!(
            every(&["--write_bw_log=b", "--log_avg_msec=1000"]),
            [Some(1000), Some(500)]
        );
    }

    #[test]
    fn latency_windows_close_at_completions() {
        let d = tempfile::tempdir().unwrap();
        let spec = LogSpec {
            lat: Some(String::new()),
            avg_msec: 500,
            end_ms: Some(2000),
            max_value: true,
            ..Default::default()
        };
        let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
        // a 2 s job: I/O every 100 ms up to 2010 ms (one past its time)
        for t in (100..=2010).step_by(100) {
            l.io(t, 0, 4096, 0, None, t * 10, t * 10);
        }
        assert!(!l.takes_rates());
        l.io(2010, 0, 4096, 0, None, 7, 7);
        l.end(2012);
        l.finish().unwrap();
        // log_max_value: the largest latency of each window, written by the completion
        // that closes it (500, 1000, … ms), and the rest at the job's end (2012 ms)
        let lat = std::fs::read_to_string(log_path(d.path(), "job", "lat", 0)).unwrap();
        assert_eq!(
            lat,
            "500, 5000, 0, 0, 0\n1000, 10000, 0, 0, 0\n1500, 15000, 0, 0, 0\n2000, 20000, 0, 0, 0\n2012, 7, 0, 0, 0\n"
        );
    }

    #[test]
    fn hist_log_lines_are_fio_s() {
        let d = tempfile::tempdir().unwrap();
        let spec = LogSpec {
            hist: Some("h".into()),
            hist_msec: 100,
            hist_coarseness: 1,
            ..Default::default()
        };
        let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
        // the interval starts at the first completion (10 ms); the one at 120 ends it
        l.io(10, 0, 4096, 0, None, 5, 5);
        l.io(60, 0, 4096, 0, None, 5, 5);
        l.io(120, 0, 4096, 0, None, 1000, 1000);
        l.io(130, 1, 8192, 0, None, 3, 3);
        l.finish().unwrap();
        let s = std::fs::read_to_string(d.path().join("h_clat_hist.1.log")).unwrap();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines.len(), 1, "{s}");
        let cols: Vec<u64> = lines[0].split(", ").map(|c| c.parse().unwrap()).collect();
        // time, ddir, bs, then 1856 / 2 columns of two buckets each
        assert_eq!(&cols[..3], &[120, 0, 4096]);
        assert_eq!(cols.len(), 3 + crate::result::plat::BUCKETS / 2);
        let bins = &cols[3..];
        assert_eq!(bins[2], 2, "5 ns is bucket 5, column 2");
        let k = crate::result::plat::index(1000) / 2;
        assert_eq!(bins[k], 1);
        assert_eq!(bins.iter().sum::<u64>(), 3);
        // log_hist_msec=0 (fio's default): the file is there and empty, as fio leaves it
        let spec = LogSpec {
            hist: Some("z".into()),
            hist_msec: 0,
            ..Default::default()
        };
        let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
        for t in 0..50 {
            l.io(t * 10, 0, 4096, 0, None, 5, 5);
        }
        l.finish().unwrap();
        let s = std::fs::read_to_string(d.path().join("z_clat_hist.1.log")).unwrap();
        assert_eq!(s, "");
    }

    #[test]
    fn per_io_lines_with_offsets() {
        let d = tempfile::tempdir().unwrap();
        let spec = LogSpec {
            lat: Some("p".into()),
            offset: true,
            ..Default::default()
        };
        let mut l = Logs::create(&spec, "job", 1, d.path()).unwrap();
        l.io(3, 1, 4096, 12288, Some(100), 900, 1000);
        l.finish().unwrap();
        let s = std::fs::read_to_string(d.path().join("p_lat.2.log")).unwrap();
        assert_eq!(s, "3, 1000, 1, 4096, 12288, 0\n");
        let s = std::fs::read_to_string(d.path().join("p_slat.2.log")).unwrap();
        assert_eq!(s, "3, 100, 1, 4096, 12288, 0\n");
    }

    #[test]
    fn shared_logs_have_no_thread_number() {
        let d = tempfile::tempdir().unwrap();
        let spec = LogSpec {
            bw: Some("s".into()),
            shared: true,
            ..Default::default()
        };
        let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
        l.io(3, 0, 4096, 0, None, 900, 1000);
        l.finish().unwrap();
        assert!(d.path().join("s_bw.log").exists());
        assert!(!d.path().join("s_bw.1.log").exists());
    }

    /// fio 3.33's bandwidth sample of one I/O is bytes × 10^6 / clat ns (its log shows
    /// 5312581 beside a clat of 771 for 4 KiB), 0 for a clat of 0; with
    /// `log_compression` the bw and IOPS logs average those samples in the latency
    /// windows (fio's per-unit logs): a job shorter than the window gets one line each at
    /// its end, and the sampling thread's windows write nothing.
    #[test]
    fn per_io_bw_is_fios_and_compression_makes_rates_per_unit() {
        let d = tempfile::tempdir().unwrap();
        let read = |kind| std::fs::read_to_string(log_path(d.path(), "job", kind, 0)).unwrap();
        let spec = LogSpec {
            bw: Some(String::new()),
            ..Default::default()
        };
        let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
        l.io(0, 0, 4096, 0, None, 771, 781);
        l.io(0, 0, 4096, 4096, None, 0, 0);
        l.finish().unwrap();
        assert_eq!(read("bw"), "0, 5312581, 0, 4096, 0\n0, 0, 0, 4096, 0\n");
        let spec = LogSpec {
            bw: Some(String::new()),
            iops: Some(String::new()),
            avg_msec: 1000,
            unit_rates: true,
            ..Default::default()
        };
        let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
        l.io(1, 0, 4096, 0, None, 1000, 1000);
        l.io(1500, 0, 4096, 4096, None, 3000, 3000);
        l.io(1600, 0, 4096, 8192, None, 2000, 2000);
        l.end(1700);
        l.finish().unwrap();
        // the first window closes at the completion 1000 ms or more past its base with
        // the mean of its two samples ((4096000 + 1365333) / 2, rounded), the job's end
        // writes the rest (4096e6/2000)
        assert_eq!(
            read("bw"),
            "1500, 2730667, 0, 0, 0\n1700, 2048000, 0, 0, 0\n"
        );
        assert_eq!(read("iops"), "1500, 1, 0, 0, 0\n1700, 1, 0, 0, 0\n");
    }

    #[test]
    fn prio_column_is_rt_flag_or_hex_ioprio() {
        let d = tempfile::tempdir().unwrap();
        for (log_prio, want) in [(false, "1\n"), (true, "0x2001\n")] {
            let spec = LogSpec {
                lat: Some(format!("p{log_prio}")),
                prio: log_prio,
                ..Default::default()
            };
            let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
            l.set_prio(0x2001);
            l.io(3, 0, 4096, 0, None, 900, 1000);
            l.set_prio(0x6000);
            l.io(4, 0, 4096, 0, None, 900, 1000);
            l.finish().unwrap();
            let s =
                std::fs::read_to_string(d.path().join(format!("p{log_prio}_clat.1.log"))).unwrap();
            let first = s.lines().next().unwrap();
            assert!(format!("{first}\n").ends_with(&format!(", {want}")), "{s}");
            let second = if log_prio { "0x6000" } else { "0" };
            assert!(
                s.lines().nth(1).unwrap().ends_with(&format!(", {second}")),
                "{s}"
            );
        }
    }

    /// A window's line has no I/O's priority: fio 3.33 prints `0x0000` with `log_prio`
    /// (`--log_avg_msec=500 --log_prio=1`: `503, 2051, 1, 0, 0x0000`), else `0`.
    #[test]
    fn window_lines_carry_priority_zero_in_the_columns_form() {
        let d = tempfile::tempdir().unwrap();
        let first_line = |log_prio: bool| {
            let bw = Some(format!("w{log_prio}"));
            let (avg_msec, prio) = (500, log_prio);
            let spec = LogSpec {
                bw,
                avg_msec,
                rate_msec: [500, 500],
                prio,
                ..Default::default()
            };
            let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
            l.set_prio(0x2001);
            l.io(100, 1, 4096, 0, None, 900, 1000);
            // the report's sample at 503 ms: 2051 KiB/s of writes
            l.rate(false, 503, 1, 2051);
            l.io(600, 1, 4096, 0, None, 900, 1000);
            l.finish().unwrap();
            let p = d.path().join(format!("w{log_prio}_bw.1.log"));
            let s = std::fs::read_to_string(p).unwrap();
            s.lines().next().map(str::to_string)
        };
        assert_eq!(first_line(false).as_deref(), Some("503, 2051, 1, 0, 0"));
        assert_eq!(first_line(true).as_deref(), Some("503, 2051, 1, 0, 0x0000"));
    }

    /// `log_store_compressed`: the bw log is `PREFIX_bw.N.log.fz`, fio's compressed
    /// records, which inflate to the lines the plain log has.
    #[test]
    fn compressed_logs_are_fz_files_of_the_same_lines() {
        let d = tempfile::tempdir().unwrap();
        let mut text = Vec::new();
        for z in [None, Some(64)] {
            let spec = LogSpec {
                bw: Some(format!("z{}", z.is_some())),
                offset: true,
                store_compressed: z,
                ..Default::default()
            };
            let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
            for i in 0..5 {
                l.io(10 + i, 0, 4096, i * 4096, None, 900, 1000);
            }
            l.finish().unwrap();
            let name = |ext| d.path().join(format!("z{}_bw.1.{ext}", z.is_some()));
            text.push(match z {
                None => std::fs::read_to_string(name("log")).unwrap(),
                Some(_) => {
                    assert!(!name("log").exists());
                    let raw = std::fs::read(name("log.fz")).unwrap();
                    crate::run::fio::fz::inflate(&raw).unwrap()
                }
            });
        }
        assert_eq!(text[0].lines().count(), 5);
        assert_eq!(text[0], text[1]);
    }

    #[test]
    fn compressed_hist_and_empty_logs_are_fios_fz_files() {
        let d = tempfile::tempdir().unwrap();
        let spec = LogSpec {
            lat: Some("e".into()),
            hist: Some("h".into()),
            hist_msec: 100,
            store_compressed: Some(0),
            ..Default::default()
        };
        let mut l = Logs::create(&spec, "job", 0, d.path()).unwrap();
        for t in [10, 60, 120, 180, 230] {
            l.io(t, 1, 4096, 0, None, 900, 1000);
        }
        l.finish().unwrap();
        // one record per histogram line (at 120 and 230 ms: fio's intervals from the
        // first completion), its value 0 where fio stores its histogram's address
        let raw = std::fs::read(d.path().join("h_clat_hist.1.log.fz")).unwrap();
        let text = crate::run::fio::fz::inflate(&raw).unwrap();
        assert_eq!(text, "120, 0, 1, 4096, 0\n230, 0, 1, 4096, 0\n");
        assert!(!d.path().join("h_clat_hist.1.log").exists());
        // psync has no submission latency: its slat log is an empty file, as fio's
        let slat = std::fs::read(d.path().join("e_slat.1.log.fz")).unwrap();
        assert!(slat.is_empty());
    }
}
