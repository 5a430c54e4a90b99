//! The per-job part of the result: the effective job ([`EffectiveJob`]: what ran, in one
//! vocabulary for fio jobs and fileio alike, sizes in bytes), the run's own outputs a
//! job report carries ([`SteadyReport`], [`LatTargetReport`], [`CoverageStats`]) and the
//! record the runner hands to the builder ([`JobRecord`]: the effective job, the
//! recorder's statistics and those outputs).
//!
//! The cut: the recorder (`stats/job.rs`) holds measurements only; the effective job
//! holds what was asked, resolved (report options like `kb_base` or `percentile_list`
//! included, since they belong to the job); decisions of the run (steady state reached,
//! the depth a latency target settled on, how much of the region random offsets
//! touched) are neither, so they are here, beside the measurements.

use crate::job::fio::{FioCommand, FioJob};
use crate::job::model::BlockSizes;
use crate::job::sysbench::{Fileio, TestMode};
use crate::job::thread::Pace;
use crate::result::JobInfo;
/// The recorder's plain counters a job result embeds as they are (CPU times, rate and
/// depth samples): part of the schema, so reporters name them from here.
pub use crate::stats::{
    cpu::CpuTimes, job::FioAccount, job::ThreadFailure, rates::DepthStats, rates::SampleStat,
};
use crate::util::engines::Kind;
use serde::{Deserialize, Serialize};

/// Block sizes of one direction, bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockSizeSpec {
    /// smallest request, bytes
    pub min_bytes: u64,
    /// largest request, bytes
    pub max_bytes: u64,
    /// `bssplit`: `[bytes, percent]` pairs (empty for a fixed size or a range)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub split: Vec<(u64, u32)>,
}

impl BlockSizeSpec {
    /// One fixed size.
    pub fn fixed(b: u64) -> BlockSizeSpec {
        BlockSizeSpec {
            min_bytes: b,
            max_bytes: b,
            split: vec![],
        }
    }

    /// No size recorded (a result without the direction's sizes).
    pub fn is_unset(&self) -> bool {
        self.max_bytes == 0
    }

    fn of(b: &BlockSizes) -> BlockSizeSpec {
        match b {
            BlockSizes::Fixed(b) => BlockSizeSpec::fixed(*b),
            BlockSizes::Range(a, b) => BlockSizeSpec {
                min_bytes: *a,
                max_bytes: *b,
                split: vec![],
            },
            BlockSizes::Split(v) => BlockSizeSpec {
                min_bytes: b.min(),
                max_bytes: b.max(),
                split: v.clone(),
            },
        }
    }
}

/// When the job syncs its files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FsyncPolicy {
    /// sync after every N writes (fio `fsync`/`fdatasync`, fileio `--file-fsync-freq`;
    /// 0 = never)
    pub every_writes: u64,
    /// `fdatasync` instead of `fsync`
    pub fdatasync: bool,
    /// sync after each write (fileio `--file-fsync-all`)
    pub after_each_write: bool,
    /// sync at the end of the job (fio `end_fsync`, fileio `--file-fsync-end`)
    pub at_end: bool,
    /// sync when closing each file (fio `fsync_on_close`)
    pub on_close: bool,
    /// the syncs are `sync_file_range` calls (fio `sync_file_range=FLAGS:N`)
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sync_file_range: bool,
}

/// Rate limits of the job (0 = unlimited).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatePolicy {
    /// bytes per second per thread, `[reads, writes]` (fio `rate`)
    pub bytes_per_s: [u64; 2],
    /// I/Os per second per thread, `[reads, writes]` (fio `rate_iops`)
    pub iops: [u64; 2],
    /// bytes per second per thread of trims (fio `rate`'s third part), absent when 0
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub trim_bytes_per_s: u64,
    /// I/Os per second per thread of trims (fio `rate_iops`'s third part), absent when 0
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub trim_iops: u64,
    /// events per second over all threads (fileio `--rate`)
    pub events_per_s: u64,
}

/// The job as it ran: one vocabulary for fio jobs and fileio (sizes in bytes, times
/// in ns), with the report options that belong to it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EffectiveJob {
    /// job name (fio `name`; `fileio` for a sysbench job)
    pub name: String,
    /// fio's `rw` spelling: `read`, `write`, `randread`, `randwrite`, `rw`, `randrw`,
    /// `trim`, `randtrim`, `trimwrite` (fileio: seqrd = read, seqwr/seqrewr = write,
    /// rndrd = randread, rndwr = randwrite, rndrw = randrw)
    pub rw: String,
    /// fileio's `--file-test-mode` (sysbench name), absent for fio jobs
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_mode: Option<TestMode>,
    /// percent of mixed I/O that are reads (fio `rwmixread`; fileio: from
    /// `--file-rw-ratio`), absent for jobs that do not mix
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rwmixread: Option<f64>,
    /// read request sizes
    pub bs_read: BlockSizeSpec,
    /// write request sizes
    pub bs_write: BlockSizeSpec,
    /// trim request sizes (absent in results written before they were kept apart:
    /// the write sizes stood for them, [`EffectiveJob::trim_bs`])
    #[serde(default, skip_serializing_if = "BlockSizeSpec::is_unset")]
    pub bs_trim: BlockSizeSpec,
    /// bytes of the I/O region of one thread (all its files)
    pub size_bytes: u64,
    /// files per thread
    pub files: u32,
    /// bytes per file (the first file of a fio job)
    pub file_size_bytes: u64,
    /// where the files are (`directory`, `--file-dir`), or the first `filename`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// requests in flight per thread
    pub iodepth: u32,
    /// engine asked for (`psync`, `io_uring`, `mmap`, `null`); the one that ran is
    /// the job result's `engine`
    pub engine: String,
    /// threads of the job (fio `numjobs`, fileio `--threads`)
    pub numjobs: u32,
    /// time limit, ns (fio `runtime`, fileio `--time`; absent: none)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_ns: Option<u64>,
    /// run for the time limit whatever the size (fio `time_based`)
    pub time_based: bool,
    /// I/O done before measuring, ns (fio `ramp_time`)
    pub ramp_time_ns: u64,
    /// requests per thread (fio `number_ios`) or events of the run (fileio `--events`);
    /// absent: no limit
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_ios: Option<u64>,
    /// O_DIRECT
    pub direct: bool,
    /// O_SYNC
    pub sync: bool,
    /// O_DSYNC
    pub dsync: bool,
    /// when the files are synced
    pub fsync: FsyncPolicy,
    /// rate limits
    pub rate: RatePolicy,
    /// the seed asked for (absent: from the time)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rand_seed: Option<u64>,
    /// `kb_base`: 1024 (default) or 1000 (the text report's decimal form first)
    pub kb_base: u32,
    /// `unit_base`: 8 (bytes, default) or 1 (the text report's bandwidths in bits)
    pub unit_base: u32,
    /// percentiles the job's reports list (fio `percentile_list`, fileio
    /// `--percentile`); empty: the front end's default list
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub percentile_list: Vec<f64>,
    /// the decimals of the text report's percentile labels as the list was typed (fio's
    /// `percentile_precision`); `None`: the values' own decimals
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentile_precision: Option<u32>,
    /// fio `clat_percentiles`: the text and JSON reports list clat percentiles
    pub clat_percentiles: bool,
    /// fio `lat_percentiles`: they list total-latency percentiles
    pub lat_percentiles: bool,
    /// fio `group_reporting`
    pub group_reporting: bool,
    /// fio `thread`: the job's workers are threads, not processes (the text report's
    /// `Starting N threads`)
    #[serde(default)]
    pub thread: bool,
    /// fio options of the job as written, in order (JSON `job options`)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<(String, String)>,
    /// lines fio prints on its standard output while it sets the job up, once per job
    /// thread (init.c's log_info during fixup: "fio: verification read phase will
    /// never start …"); the text header and the JSON output print them first
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub setup_lines: Vec<String>,
    /// lines fio prints on its standard output while it reads the job's options (`fio:
    /// opendir added N files`), once, before the job's section line; on stdout only
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub said_lines: Vec<String>,
    /// lines the job's engine prints on fio's standard output as each job thread
    /// starts (fio's engine init: cpuio's `NAME (noop): ioengine=cpuio, cpuload=50,
    /// cpucycle=50000`, exec's `NAME : program=…` and `NAME : Saving output of …`): after
    /// the `Starting` line in the text header, before a JSON or terse report
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub start_lines: Vec<String>,
    /// fio printed the section line while it read its command line, so a JSON or terse
    /// report starts with it (job/fio/args.rs); not part of the result
    #[serde(skip)]
    pub early_header: bool,
    /// fio printed the section line on stdout while it read its command line, and the
    /// report went to `--output` (job/fio/args.rs): the report's header leaves it out;
    /// not part of the result
    #[serde(skip)]
    pub early_stdout: bool,
    /// an entry joined by later sections' jobs (group_reporting): its own section's
    /// options, for its header line, where `options` lists the last section's as fio's
    /// JSON does; not part of the result
    #[serde(skip)]
    pub header_options: Option<Vec<(String, String)>>,
    /// the later sections whose jobs joined this entry, one each, for their header
    /// lines (report/fio/header.rs); not part of the result
    #[serde(skip)]
    pub joined: Vec<EffectiveJob>,
    /// io_uring without SQPOLL/IOPOLL: how long the reaper spins for completions
    /// before sleeping, ns (`--reap-spin`, engine/io_uring.rs); absent otherwise
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reap_spin_ns: Option<u64>,
    /// fio `unified_rw_reporting`: 0 per direction, 1 `mixed` (the directions summed
    /// into `read`, reported as `mixed`), 2 `both`
    #[serde(default, skip_serializing_if = "is_zero_u8")]
    pub unified_rw: u8,
    /// fio `slat_percentiles`: the reports list submission-latency percentiles
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub slat_percentiles: bool,
    /// fio's `continue_on_error` covers some kind of error as the job ran (set, or added
    /// by an `ignore_error` list, in the order written): fio's reports then print the
    /// error count and first errno, 0 errors included; absent in fileio results and in
    /// results written before it was kept (the reports then read the options)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continue_on_error: Option<bool>,
}

fn is_zero_u8(v: &u8) -> bool {
    *v == 0
}

impl EffectiveJob {
    /// The trim sizes: [`EffectiveJob::bs_trim`], or in a result that has none the
    /// write sizes, which stood for them.
    pub fn trim_bs(&self) -> &BlockSizeSpec {
        if self.bs_trim.is_unset() {
            &self.bs_write
        } else {
            &self.bs_trim
        }
    }

    /// A fio job whose threads each cover `size_bytes` in `files` files, the first of
    /// `file_size_bytes` (resolved by the runner from the job's plan).
    pub fn of_fio(j: &FioJob, size_bytes: u64, files: u32, file_size_bytes: u64) -> EffectiveJob {
        let m = &j.more;
        let mixed = j.rw.reads() && j.rw.writes();
        EffectiveJob {
            name: j.name.clone(),
            rw: j.rw.fio_name().into(),
            test_mode: None,
            rwmixread: mixed.then_some(f64::from(j.rwmixread)),
            bs_read: BlockSizeSpec::of(&j.bs_read),
            bs_write: BlockSizeSpec::of(&j.bs_write),
            bs_trim: BlockSizeSpec::of(&j.bs_trim),
            size_bytes,
            files,
            file_size_bytes,
            path: j.directory_text().or_else(|| j.filename.clone()),
            iodepth: j.iodepth,
            engine: j.engine.name().into(),
            numjobs: j.numjobs,
            runtime_ns: j
                .runtime
                .map(|r| u64::try_from(r.as_nanos()).unwrap_or(u64::MAX)),
            time_based: j.time_based,
            ramp_time_ns: u64::try_from(j.ramp_time.as_nanos()).unwrap_or(u64::MAX),
            number_ios: (j.number_ios > 0).then_some(j.number_ios),
            direct: j.direct,
            sync: m.sync_io,
            dsync: m.dsync_io,
            fsync: FsyncPolicy {
                every_writes: if m.fdatasync > 0 {
                    m.fdatasync
                } else {
                    j.fsync
                },
                fdatasync: m.fdatasync > 0,
                after_each_write: false,
                at_end: j.end_fsync,
                on_close: m.fsync_on_close,
                sync_file_range: j.tuning.sync_file_range.is_some(),
            },
            rate: RatePolicy {
                bytes_per_s: [m.rate_bytes[0], m.rate_bytes[1]],
                iops: [m.rate_iops[0], m.rate_iops[1]],
                trim_bytes_per_s: m.rate_bytes[2],
                trim_iops: m.rate_iops[2],
                events_per_s: 0,
            },
            rand_seed: j.randseed,
            kb_base: if j.kb_base == 1000 { 1000 } else { 1024 },
            unit_base: if j.unit_base_bits { 1 } else { 8 },
            percentile_list: m.percentile_list.clone().unwrap_or_default(),
            percentile_precision: m.percentile_precision,
            // fio: disable_clat/disable_lat turn their percentiles off
            clat_percentiles: m.clat_percentiles && !j.tuning.disable_clat,
            lat_percentiles: m.lat_percentiles && !j.tuning.disable_lat,
            group_reporting: j.group_reporting,
            thread: j.thread,
            options: j.options.clone(),
            setup_lines: j.setup_lines.clone(),
            said_lines: j.said_lines.clone(),
            start_lines: j.start_lines.clone(),
            early_header: j.early_header,
            early_stdout: j.early_stdout,
            header_options: None,
            joined: Vec::new(),
            reap_spin_ns: (j.engine == crate::job::fio::EngineKind::IoUring
                && !j.sqthread_poll
                && !j.hipri)
                .then_some(j.reap_spin_ns),
            unified_rw: j.tuning.unified as u8,
            slat_percentiles: j.tuning.slat_percentiles && !j.no_slat(),
            continue_on_error: Some(
                m.continue_on_error != crate::job::fio::on_error::ContinueOnError::NONE,
            ),
        }
    }

    /// A fileio call's job (the one job model over its file set, whose sizes are 0 when
    /// they are invalid) and its settings.
    pub fn of_fileio(f: &Fileio) -> EffectiveJob {
        let (t, s, g) = (&f.model.thread, &f.settings, f.geometry());
        let rw = s.test_mode.map_or("", fio_rw);
        let request = g.map_or(t.request.0, |g| g.request);
        let bs = BlockSizeSpec::fixed(request);
        EffectiveJob {
            name: "fileio".into(),
            rw: rw.into(),
            test_mode: s.test_mode,
            // rndrw's ratio alone
            rwmixread: f.model.work.pick.read_ratio.map(|ratio| {
                if ratio.is_finite() {
                    ratio * 100.0 / (1.0 + ratio)
                } else {
                    100.0
                }
            }),
            bs_read: bs.clone(),
            bs_write: bs,
            bs_trim: BlockSizeSpec::default(),
            size_bytes: g.map_or(0, |g| g.total),
            files: t.files,
            file_size_bytes: g.map_or(0, |g| g.file_size),
            path: Some(t.dir.display().to_string()),
            iodepth: fileio_iodepth(f),
            engine: fio_engine(t.engine).into(),
            numjobs: s.threads,
            runtime_ns: t.time.map(|d| d.as_secs().saturating_mul(1_000_000_000)),
            time_based: false,
            ramp_time_ns: 0,
            number_ios: t.ios,
            direct: t.direct,
            sync: t.sync,
            dsync: t.dsync,
            fsync: fileio_fsync(f),
            rate: RatePolicy {
                events_per_s: match t.pace {
                    Pace::Shared { events } => events,
                    _ => 0,
                },
                ..RatePolicy::default()
            },
            rand_seed: (s.rand_seed != 0).then_some(s.rand_seed),
            kb_base: 1024,
            unit_base: 8,
            percentile_list: if s.percentile > 0 {
                vec![f64::from(s.percentile)]
            } else {
                vec![]
            },
            percentile_precision: None,
            clat_percentiles: false,
            lat_percentiles: s.percentile > 0,
            group_reporting: true,
            thread: true,
            options: vec![],
            setup_lines: vec![],
            said_lines: vec![],
            start_lines: vec![],
            early_header: false,
            early_stdout: false,
            header_options: None,
            joined: Vec::new(),
            reap_spin_ns: None,
            unified_rw: 0,
            slat_percentiles: false,
            continue_on_error: None,
        }
    }
}

/// fio's `rw=` word for a fileio `--file-test-mode`.
fn fio_rw(m: TestMode) -> &'static str {
    match m {
        TestMode::Seqrd => "read",
        TestMode::Seqwr | TestMode::Seqrewr => "write",
        TestMode::Rndrd => "randread",
        TestMode::Rndwr => "randwrite",
        TestMode::Rndrw => "randrw",
    }
}

/// fio's engine for a fileio `--file-io-mode`'s engine (psync, io_uring, mmap).
fn fio_engine(k: Kind) -> &'static str {
    k.name()
}

/// The requests in flight of a fileio job: `--file-async-backlog` in async mode (the
/// engine that queues), else one.
fn fileio_iodepth(f: &Fileio) -> u32 {
    let t = &f.model.thread;
    match t.engine {
        Kind::IoUring => f.model.work.queue.depth,
        _ => 1,
    }
}

/// The syncs of a fileio job: every `--file-fsync-freq` writes (fsync or fdatasync by
/// `--file-fsync-mode`), after each write (`--file-fsync-all`), at the end
/// (`--file-fsync-end`).
fn fileio_fsync(f: &Fileio) -> FsyncPolicy {
    let y = &f.model.thread.syncs;
    FsyncPolicy {
        every_writes: f.model.work.syncs.series_every,
        fdatasync: y.call == crate::job::thread::FsyncMode::Fdatasync,
        after_each_write: y.each_write,
        at_end: y.at_end,
        on_close: false,
        sync_file_range: false,
    }
}

/// What the report says about a job's steady-state detection (`ss_dur`): fio JSON
/// `"steadystate"`, normal output `steadystate  : …` (report/fio/levels.rs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SteadyReport {
    /// the criterion as fio writes it (`iops_slope:0.010000%`)
    pub ss: String,
    /// what is measured: `iops`, `bw` or `lat`
    pub metric: String,
    /// a slope criterion (else the largest deviation from the window mean)
    pub slope: bool,
    /// the limit is a percentage of the window mean
    pub pct: bool,
    /// `ss_dur`, whole seconds (fio's `duration`)
    pub dur_s: u64,
    /// when steady state was attained (ns since the jobs started); None: not attained
    pub attained_after_ns: Option<u64>,
    /// the last criterion value (percent with a `%` limit)
    pub criterion: f64,
    /// the last largest deviation from the window mean (deviation criteria)
    pub max_deviation: f64,
    /// the last slope, per interval (slope criteria)
    pub slope_value: f64,
    /// the window's IOPS samples, oldest first, zero-padded to the window length
    pub iops: Vec<u64>,
    /// the window's bandwidth samples, bytes/s
    pub bw: Vec<u64>,
    /// the window's mean clat samples, ns
    pub lat: Vec<u64>,
}

/// What the report says about a job's `latency_target` search (fio JSON
/// `latency_depth`, `latency_target` (ns), `latency_percentile`, `latency_window` (µs)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatTargetReport {
    /// the depth found (or in use when the job ended)
    pub depth: u32,
    /// target, ns
    pub target_ns: u64,
    /// window, µs (fio's unit for this key)
    pub window_us: u64,
    /// percentile, %
    pub percentile: f64,
}

/// Coverage of a random job (public case C13, summed over merged threads).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CoverageStats {
    /// block unit, bytes (the job's offset alignment: smallest bs or blockalign)
    pub block_bytes: u64,
    /// distinct blocks touched by issued requests (ramp included)
    pub blocks_touched: u64,
    /// blocks in the I/O regions
    pub blocks_total: u64,
    /// issued requests per block size, bytes → count, ascending
    pub bs_hist: Vec<(u64, u64)>,
    /// requests shrunk to fill random-map gaps (run/gen/coverage.rs)
    pub shrunk: u64,
}

impl CoverageStats {
    /// Touched share of the region, percent.
    pub fn percent(&self) -> f64 {
        if self.blocks_total == 0 {
            0.0
        } else {
            self.blocks_touched as f64 * 100.0 / self.blocks_total as f64
        }
    }

    /// Add another thread's coverage (its own files, or the same ones: an upper bound).
    pub fn merge(&mut self, o: &CoverageStats) {
        self.blocks_touched += o.blocks_touched;
        self.blocks_total += o.blocks_total;
        self.shrunk += o.shrunk;
        for &(b, n) in &o.bs_hist {
            match self.bs_hist.iter_mut().find(|e| e.0 == b) {
                Some(e) => e.1 += n,
                None => self.bs_hist.push((b, n)),
            }
        }
        self.bs_hist.sort_unstable();
    }
}

/// One reported job as the runner hands it to the builder: the effective job, its
/// reporting group and engine, the recorder's statistics and the run's outputs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct JobRecord {
    /// the job as it ran (the first job of a merged reporting group)
    pub job: EffectiveJob,
    /// fio's reporting group, from 0
    pub groupid: u32,
    /// the engine that ran (io_uring may have fallen back to psync)
    pub engine: String,
    /// what the recorder measured
    pub stats: crate::stats::job::JobStats,
    /// steady-state detection (`ss_dur`), per job thread or reporting group
    pub steady: Option<SteadyReport>,
    /// the `latency_target` search (depth found), or the job's depth without one
    pub lat_target: Option<LatTargetReport>,
    /// random jobs: blocks touched and issued block sizes (public case C13)
    pub coverage: Option<CoverageStats>,
    /// ms from the start of the run's I/O (after the files were laid out: fio's
    /// genesis) to its end, the same for every job (fio's JSON `elapsed`)
    pub elapsed_ms: u64,
    /// a report made while the run goes on (`--status-interval`): the run's remaining
    /// seconds then (fio's JSON `eta`); `None` for the final report
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eta_s: Option<u64>,
}

impl JobRecord {
    /// Add another thread of the same reporting group (`group_reporting`): the
    /// statistics add up, the first thread's latency-target report is kept, the
    /// coverage adds up.
    pub fn merge(&mut self, o: &JobRecord) {
        self.stats.merge(&o.stats);
        if self.lat_target.is_none() {
            self.lat_target = o.lat_target;
        }
        match (&mut self.coverage, &o.coverage) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.coverage = Some(b.clone()),
            _ => {}
        }
    }
}

/// One direction of a job: counters, rates over the job's run time, latencies with
/// their histograms, and fio's per-interval bandwidth / IOPS samples.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirResult {
    /// completed I/Os (fsync calls for `sync`)
    pub ios: u64,
    /// bytes moved
    pub bytes: u64,
    /// short transfers whose rest was issued again (fio's `short_ios`), not in `ios`
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub short: u64,
    /// requests that moved no byte (a read past a file's end), not in `ios`
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub unfilled: u64,
    /// requests that failed (an errno, or a short transfer under `iomark run`), not in `ios`
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub failed: u64,
    /// I/Os per second over the job's run time
    pub iops: f64,
    /// bytes per second over the job's run time
    pub bw_bytes_per_s: f64,
    /// submission latency (queued engines; fileio async: its event, the submission)
    pub slat: crate::result::Latency,
    /// completion latency (submission return to completion)
    pub clat: crate::result::Latency,
    /// total latency (submission start to completion)
    pub lat: crate::result::Latency,
    /// bandwidth samples, KiB/s, every `bw_avg_time` (fio's `bw_min` … `bw_samples`;
    /// `s` is the sum of squared deviations, so samples of several jobs merge)
    pub bw_samples: SampleStat,
    /// IOPS samples, every `iops_avg_time`
    pub iops_samples: SampleStat,
}

impl DirResult {
    /// fio's `total_ios` (the `issued rwts: total=` figure): every request issued —
    /// those done, each short transfer whose rest was issued again, those that moved
    /// nothing and those that failed (fio 3.33 counts a request as it is queued).
    pub fn issued(&self) -> u64 {
        self.ios + self.short + self.unfilled + self.failed
    }

    /// The requests the IOPS figures count: [`DirResult::issued`] without the failed
    /// ones (iomark never counts a failed request as done; fio 3.33's `iops` is its
    /// `total_ios` over the run time: docs/compat/fio.md).
    pub fn iops_ios(&self) -> u64 {
        self.ios + self.short + self.unfilled
    }
}

/// The latency of the requests of one direction that carried one I/O priority.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PrioLatency {
    /// `read` or `write`
    pub dir: String,
    /// the ioprio value (class << 13 | level)
    pub ioprio: u16,
    /// clat, or lat with `lat_percentiles`
    pub lat: crate::result::Latency,
}

/// One reported job: the effective job, what it measured per direction, and what the
/// run decided for it (schema 2, `RunResult.jobs`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// the job as it ran
    pub job: EffectiveJob,
    /// fio's reporting group, from 0
    pub groupid: u32,
    /// the engine that ran
    pub engine: String,
    /// threads merged into this report (fio's `jobs=`)
    pub threads: u32,
    /// measured run time, ns (the longest thread's)
    pub runtime_ns: u64,
    /// the threads' measured run times in whole ms, summed (fio's `job_runtime`)
    pub runtime_ms_sum: u64,
    /// ms from the start of the run's I/O (fio's genesis: after the layout) to its end,
    /// the same for every job (0: not recorded, results written before it was)
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub elapsed_ms: u64,
    /// a report made while the run went on (fio's `--status-interval`): the run's
    /// remaining seconds then (fio's JSON `eta`); `None` for a final report
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eta_s: Option<u64>,
    /// the verify read-back phase, ns (the longest thread's; 0: none); the read
    /// direction's run time includes it, as fio's `runtime` of reads does
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub verify_ns: u64,
    /// the threads' wall times (setup, I/O, final syncs) summed, ns: the base of the
    /// CPU percentages
    pub run_ns_sum: u64,
    /// reads
    pub read: DirResult,
    /// writes
    pub write: DirResult,
    /// trims
    pub trim: DirResult,
    /// fsync/fdatasync calls
    pub sync: DirResult,
    /// blocks read back and checked by the verify phase
    pub verified: u64,
    /// ns in the final syncs of `end_fsync` / `fsync_on_close` (mean over the job's
    /// threads; inside the runtime, public case C15), which fio 3.33 does not count as sync I/Os
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub final_sync_ns: u64,
    /// the job thread's id (fio's `pid=` in the text report; a group's first thread);
    /// 0 when not recorded
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pid: u32,
    /// CPU of the job's threads (RUSAGE_THREAD, summed)
    pub cpu: CpuTimes,
    /// fio's `iodepth_level` / `iodepth_submit` / `iodepth_complete` counts
    pub depth: DepthStats,
    /// failed requests the job went on after (`continue_on_error`)
    pub errors: u64,
    /// the first of them: op, file, offset and the system's reason
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    /// its errno (0: none)
    pub first_errno: i32,
    /// errno of the failure that ended the job (0: it ran to its end)
    pub errno: i32,
    /// that failure, as printed on stderr
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// that failure is a failed setup's, said on stderr while the job was set up
    /// (not saved: the run's exit code reads it)
    #[serde(skip)]
    pub failure_said: bool,
    /// fio 3.33's account of that failure (`file:F:L, func=X, error=TEXT`), where fio
    /// has one: what the fio reports print of it; absent from results written before
    /// it was kept
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<FioAccount>,
    /// threads that ended in error, in the run or in their setup (the fio persona's
    /// exit code counts them, as fio 3.33's exit value does; kept, so compare and
    /// history say how many failed)
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed_threads: u32,
    /// each thread a failure ended, in order: its id, errno and the lines said of it
    /// (stderr's lines and fio's `fio: pid=…` lines are made from them; kept, so compare
    /// and history name the failure)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thread_failures: Vec<ThreadFailure>,
    /// zone resets of a `zonemode=zbd` job
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_resets: Option<u64>,
    /// per-priority latencies (cmdprio_*), by direction and ioprio as recorded
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prios: Vec<PrioLatency>,
    /// steady-state detection
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyReport>,
    /// the latency-target search
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_target: Option<LatTargetReport>,
    /// coverage of random offsets
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<CoverageStats>,
}

impl JobResult {
    /// Direction `d` (0 read, 1 write, 2 trim).
    pub fn dir(&self, d: usize) -> &DirResult {
        match d {
            0 => &self.read,
            1 => &self.write,
            _ => &self.trim,
        }
    }
}

impl JobInfo {
    /// The schema-1 summary of a fileio call (the one job model over its file set, and
    /// its settings); `seed_used` is the seed the run drew from (the time-derived one
    /// when `--rand-seed` is 0).
    pub fn of_fileio(f: &Fileio, seed_used: u32) -> JobInfo {
        let (t, w, s, g) = (&f.model.thread, &f.model.work, &f.settings, f.geometry());
        let block = t.request.0;
        let ratio = w.labels.rw_ratio;
        JobInfo {
            kind: "fileio".into(),
            test_mode: s.test_mode,
            engine: fio_engine(t.engine).into(),
            iodepth: fileio_iodepth(f),
            threads: s.threads,
            files: t.files,
            file_size_bytes: g.map_or(0, |g| g.file_size),
            total_size_bytes: g.map_or(0, |g| g.total),
            block_size_bytes: block,
            request_size_bytes: g.map_or(block, |g| g.request),
            time_limit_s: f.time_limit(),
            event_limit: t.ios.unwrap_or(0),
            direct: t.direct,
            sync: t.sync,
            dsync: t.dsync,
            fsync_freq: u32::try_from(w.syncs.series_every).unwrap_or(u32::MAX),
            fsync_end: t.syncs.at_end,
            fsync_all: t.syncs.each_write,
            fsync_mode: format!("{:?}", t.syncs.call).to_lowercase(),
            rw_ratio: ratio.is_finite().then_some(ratio),
            rand_seed: s.rand_seed,
            rand_seed_used: u64::from(seed_used),
            validate: t.validate,
            data_pattern: Some(t.data),
            directory: std::fs::canonicalize(&t.dir)
                .unwrap_or_else(|_| t.dir.clone())
                .display()
                .to_string(),
        }
    }

    /// The schema-1 summary of `iomark run`: the first job's pattern, sizes and limits
    /// (what charts and `compare` name a run by), threads and files of every job;
    /// `ran` is the engine the first reported job ran (io_uring may have fallen back to
    /// psync), else the asked one is given.
    pub fn of_fio(cmd: &FioCommand, ran: Option<&str>) -> JobInfo {
        let first = cmd.jobs.first();
        JobInfo {
            // fio's rw of the first job (`randread` …): what charts and compare name it by
            kind: first.map_or_else(|| "run".into(), |j| j.rw.fio_name().to_string()),
            engine: ran.map_or_else(
                || first.map_or(String::new(), |j| j.engine.name().into()),
                str::to_string,
            ),
            iodepth: first.map_or(1, |j| j.iodepth),
            threads: cmd.jobs.iter().map(|j| j.numjobs).sum(),
            files: cmd.jobs.iter().map(|j| j.nrfiles * j.numjobs).sum(),
            block_size_bytes: first.map_or(0, |j| j.bs_read.min()),
            request_size_bytes: first.map_or(0, |j| j.bs_read.min()),
            time_limit_s: first.and_then(|j| j.runtime).map_or(0, |r| r.as_secs()),
            event_limit: first.map_or(0, |j| j.number_ios),
            direct: first.is_some_and(|j| j.direct),
            fsync_freq: first.map_or(0, |j| u32::try_from(j.fsync).unwrap_or(u32::MAX)),
            fsync_end: first.is_some_and(|j| j.end_fsync),
            fsync_mode: "fsync".into(),
            rand_seed: first.and_then(|j| j.randseed).unwrap_or(0),
            directory: first.and_then(FioJob::directory_text).unwrap_or_default(),
            ..JobInfo::default()
        }
    }
}

/// serde: leave a zero out.
/// The run time of direction `dir` (0 read, 1 write, 2 trim) of a job of `rw` whose I/O
/// phase took `runtime_ns` and verify read-back phase `verify_ns`, ns: fio adds each
/// phase's time to the directions it moved, so reads get the verify phase (after the
/// I/O phase's when the job reads too); the other directions the I/O phase.
pub fn dir_runtime_ns(rw: &str, runtime_ns: u64, verify_ns: u64, dir: usize) -> u64 {
    if dir != 0 || verify_ns == 0 {
        return runtime_ns;
    }
    // the job model's one list of reading modes (`readwrite` is fio's other name of `rw`)
    let mode = crate::job::model::RwMode::from_fio_name(if rw == "readwrite" { "rw" } else { rw });
    if mode.is_some_and(crate::job::model::RwMode::reads) {
        runtime_ns + verify_ns
    } else {
        verify_ns
    }
}

impl JobResult {
    /// [`dir_runtime_ns`] of this job, in ms as fio counts a direction's `runtime`: whole
    /// µs rounded up to the next ms (fio `backend.c` `update_runtime`: `(us + 999) / 1000`),
    /// so 2.0004 ms is 3 ms and any I/O at all is at least 1 ms.
    pub fn dir_runtime_ms(&self, dir: usize) -> u64 {
        runtime_ms_of(dir_runtime_ns(
            &self.job.rw,
            self.runtime_ns,
            self.verify_ns,
            dir,
        ))
    }
}

/// fio's ms of a direction's run time of `ns`: whole µs, rounded up to whole ms.
pub fn runtime_ms_of(ns: u64) -> u64 {
    (ns / 1_000).div_ceil(1_000)
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio rounds a direction's run time up to whole ms from whole µs: 1 µs is 1 ms,
    /// 1000.999 µs is 1 ms, 1001 µs is 2 ms, nothing is 0.
    #[test]
    fn a_directions_runtime_is_whole_us_rounded_up_to_ms() {
        for (ns, ms) in [
            (0, 0),
            (999, 0),
            (1_000, 1),
            (1_000_999, 1),
            (1_001_000, 2),
            (2_999_999_999, 3000),
            (3_000_000_000, 3000),
            (3_000_001_000, 3001),
        ] {
            assert_eq!(runtime_ms_of(ns), ms, "{ns} ns");
        }
    }

    /// fio adds the verify read-back to the reads' time: after the I/O phase's for a
    /// job that reads, alone for one that only writes or trims; other directions keep
    /// the I/O phase's time. One row per `rw=` spelling a result records.
    #[test]
    fn the_verify_phase_counts_in_the_read_time_of_every_mode() {
        let rows = [
            ("read", 15),
            ("write", 5),
            ("randread", 15),
            ("randwrite", 5),
            ("rw", 15),
            ("readwrite", 15),
            ("randrw", 15),
            ("trim", 5),
            ("randtrim", 5),
            ("trimwrite", 5),
            ("randtrimwrite", 5),
        ];
        for (rw, reads) in rows {
            assert_eq!(dir_runtime_ns(rw, 10, 5, 0), reads, "{rw} reads");
            assert_eq!(dir_runtime_ns(rw, 10, 5, 1), 10, "{rw} writes");
            assert_eq!(dir_runtime_ns(rw, 10, 0, 0), 10, "{rw} without verify");
        }
        for m in crate::job::model::RwMode::ALL {
            assert_eq!(
                crate::job::model::RwMode::from_fio_name(m.fio_name()),
                Some(m)
            );
        }
        assert_eq!(crate::job::model::RwMode::from_fio_name("randread:8"), None);
    }
    /// The summary and the effective job of a fileio call, read from the one job model
    /// and the settings its options translate into, state the options as given.
    #[test]
    fn a_fileio_summary_states_the_options_through_the_model() {
        use crate::job::sysbench::{DataPattern, FsyncMode, IoMode, TestMode};
        let mut j = crate::job::sysbench::tests::job(64 << 20, 4, 16384);
        (j.settings.test_mode, j.io_mode, j.async_backlog) =
            (Some(TestMode::Rndrw), IoMode::Async, 24);
        (j.settings.threads, j.time_limit, j.event_limit, j.rate) = (3, 12, 900, 250);
        (j.fsync_freq, j.fsync_end, j.fsync_mode) = (7, false, FsyncMode::Fdatasync);
        (j.rw_ratio, j.settings.rand_seed, j.validate) = (3.0, 11, true);
        (j.data, j.merged_requests, j.settings.percentile) = (DataPattern::Random, 2, 99);
        (j.extra_flags.direct, j.extra_flags.dsync) = (true, true);
        j.dir = "/nonexistent/iomark-dir".into();
        let f = j.translate();
        let i = JobInfo::of_fileio(&f, 5);
        assert_eq!(
            (i.kind.as_str(), i.test_mode),
            ("fileio", Some(TestMode::Rndrw))
        );
        assert_eq!(
            (i.engine.as_str(), i.iodepth, i.threads),
            ("io_uring", 24, 3)
        );
        assert_eq!(
            (i.files, i.file_size_bytes, i.total_size_bytes),
            (4, 16 << 20, 64 << 20)
        );
        assert_eq!((i.block_size_bytes, i.request_size_bytes), (16384, 32768));
        assert_eq!((i.time_limit_s, i.event_limit), (12, 900));
        assert_eq!((i.direct, i.sync, i.dsync), (true, false, true));
        assert_eq!((i.fsync_freq, i.fsync_end, i.fsync_all), (7, false, false));
        assert_eq!(
            (i.fsync_mode.as_str(), i.rw_ratio),
            ("fdatasync", Some(3.0))
        );
        assert_eq!((i.rand_seed, i.rand_seed_used, i.validate), (11, 5, true));
        assert_eq!(i.data_pattern, Some(DataPattern::Random));
        assert_eq!(i.directory, "/nonexistent/iomark-dir");
        let e = EffectiveJob::of_fileio(&f);
        assert_eq!((e.rw.as_str(), e.rwmixread), ("randrw", Some(75.0)));
        assert_eq!(
            (e.engine.as_str(), e.iodepth, e.numjobs),
            ("io_uring", 24, 3)
        );
        assert_eq!(
            (e.runtime_ns, e.number_ios),
            (Some(12_000_000_000), Some(900))
        );
        assert_eq!((e.rate.events_per_s, e.rand_seed), (250, Some(11)));
        assert_eq!(
            (e.fsync.every_writes, e.fsync.fdatasync, e.fsync.at_end),
            (7, true, false)
        );
        assert_eq!(
            (e.percentile_list.clone(), e.lat_percentiles),
            (vec![99.0], true)
        );
        // a synchronous call with no limits, an infinite ratio and sizes that make no
        // file set: depth 1, no runtime, the block as the request, no sizes
        (j.io_mode, j.time_limit, j.event_limit, j.rate) = (IoMode::Sync, 0, 0, 0);
        (j.rw_ratio, j.total_size, j.settings.percentile) = (f64::INFINITY, 100, 0);
        let f = j.translate();
        let i = JobInfo::of_fileio(&f, 5);
        assert_eq!((i.engine.as_str(), i.iodepth, i.files), ("psync", 1, 4));
        assert_eq!((i.file_size_bytes, i.total_size_bytes), (0, 0));
        assert_eq!((i.block_size_bytes, i.request_size_bytes), (16384, 16384));
        assert_eq!((i.time_limit_s, i.event_limit, i.rw_ratio), (0, 0, None));
        let e = EffectiveJob::of_fileio(&f);
        assert_eq!(
            (e.rwmixread, e.runtime_ns, e.number_ios),
            (Some(100.0), None, None)
        );
        assert_eq!(
            (e.rate.events_per_s, e.size_bytes, e.lat_percentiles),
            (0, 0, false)
        );
    }
}
