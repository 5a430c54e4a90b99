//! `RunResult`: the one versioned result schema (`schema_version` 2), what every
//! reporter renders and `compare` reads, written by `--json=FILE`. Units are in the key
//! names: `_bytes`, `_ns`, `_s`, `_per_s`; bandwidth is given in bytes/s plus MiB/s
//! (1048576) and MB/s (1000000).
//!
//! Shape (the doc text of docs/result-schema.md is in the branch report): the keys of
//! schema 1, unchanged in meaning (the run as one job: `job`, the totals `read`,
//! `write`, `fsync`, `lat`, `clat`, per-thread `threads`, `intervals`, `series`,
//! `phases`, `warnings`, `diagnosis`, `page_cache`, `cpu`), plus in schema 2 every job
//! × direction with its histograms (`jobs`, result/job.rs), the full diagnoses of the
//! targets (`targets`), the device counters (`devices`), fio's global options and the
//! time the run ended. A schema 1 file is read by the same struct: the keys added in 2
//! take their empty defaults.
//!
//! The result is built in one function ([`build::build`]); its file is written by the
//! output manager (cli/output.rs) through files/output.rs: [`placeholder_bytes`]
//! first, [`json_bytes`] of the result at the end.

pub mod build;
pub mod command;
pub mod flush;
pub mod hist;
pub mod history;
pub mod import;
pub mod job;
pub mod merge;
pub mod plat;
pub mod ranks;
pub mod status;
pub mod timeline;
pub mod truth;

pub use build::{build, Inputs, Recorded, Threads, Totals};
pub use hist::Hist;
pub use job::JobResult;

use crate::job::sysbench::{DataPattern, TestMode};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Current schema version.
pub const SCHEMA_VERSION: u32 = 2;

/// Percentiles always recorded, besides `--percentile`.
pub const STANDARD_PERCENTILES: [f64; 7] = [1.0, 5.0, 50.0, 90.0, 95.0, 99.0, 99.9];

/// How the run ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// limits reached normally
    #[default]
    Ok,
    /// stopped by SIGINT/SIGTERM; numbers cover the part that ran
    Interrupted,
    /// an I/O error or validation failure stopped the run
    Failed,
    /// `--forced-shutdown` expired
    ForcedShutdown,
}

/// Latency statistics of a set of events, nanoseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// number of events
    pub count: u64,
    /// smallest, ns
    pub min_ns: u64,
    /// largest, ns
    pub max_ns: u64,
    /// mean, ns (floor)
    pub mean_ns: u64,
    /// population standard deviation, ns
    pub stdev_ns: f64,
    /// sum, ns
    pub sum_ns: u64,
    /// percentiles keyed by their value as text ("95", "99.9"), ns
    pub percentiles_ns: BTreeMap<String, u64>,
    /// the HDR histogram of the events (result/hist.rs: non-empty buckets as
    /// `[value, count]` pairs); absent when empty and in schema 1 files
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<Hist>,
}

impl Latency {
    /// The histogram (an empty one when none was kept).
    pub fn hist(&self) -> &hdrhistogram::Histogram<u64> {
        static EMPTY: std::sync::OnceLock<hdrhistogram::Histogram<u64>> =
            std::sync::OnceLock::new();
        match &self.histogram {
            Some(h) => &h.0,
            None => EMPTY.get_or_init(crate::stats::new_hist),
        }
    }

    /// Percentile `p` (0–100) of the histogram, ns (0 when empty).
    pub fn percentile_ns(&self, p: f64) -> u64 {
        crate::stats::percentile_ns(self.hist(), p)
    }

    /// Exact mean, ns (`sum / count`; 0 when empty).
    pub fn mean(&self) -> f64 {
        match self.count {
            0 => 0.0,
            n => self.sum_ns as f64 / n as f64,
        }
    }
}

/// Counters of one operation type.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpStats {
    /// completed operations
    pub ops: u64,
    /// bytes moved
    pub bytes: u64,
    /// operations per second
    pub iops: f64,
    /// bytes per second
    pub bw_bytes_per_s: f64,
    /// MiB/s (1 MiB = 1048576 bytes)
    pub bw_mib_per_s: f64,
    /// MB/s (1 MB = 1000000 bytes)
    pub bw_mb_per_s: f64,
    /// latency of this operation's events (sync/mmap: the operation; async: submission)
    pub lat: Latency,
    /// per-I/O completion latency (submission to reaped completion) of queued requests;
    /// present for engines that queue (io_uring), absent otherwise (there `lat` already
    /// is the per-I/O latency). Added in schema 1 (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clat: Option<Latency>,
}

impl OpStats {
    /// `ops` operations moving `bytes` in `secs` seconds, with their latency `lat`: the
    /// rates over those seconds (0 when no time passed), no completion latency.
    pub fn over(ops: u64, bytes: u64, secs: f64, lat: Latency) -> OpStats {
        let rate = |v: u64| if secs > 0.0 { v as f64 / secs } else { 0.0 };
        OpStats {
            ops,
            bytes,
            iops: rate(ops),
            bw_bytes_per_s: rate(bytes),
            bw_mib_per_s: rate(bytes) / 1_048_576.0,
            bw_mb_per_s: rate(bytes) / 1e6,
            lat,
            clat: None,
        }
    }
}

/// fsync counters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FsyncStats {
    /// all fsync/fdatasync/msync calls (periodic, fsync-all, end of test)
    pub ops: u64,
    /// calls per second
    pub ops_per_s: f64,
    /// latency of the periodic fsync events
    pub lat: Latency,
}

/// Per-thread figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadResult {
    /// events executed by the thread
    pub events: u64,
    /// sum of its event latencies, seconds
    pub exec_time_s: f64,
    /// reads completed (schema 2; fileio)
    #[serde(default)]
    pub reads: u64,
    /// writes completed (schema 2; fileio)
    #[serde(default)]
    pub writes: u64,
    /// fsync calls (schema 2; fileio)
    #[serde(default)]
    pub fsyncs: u64,
    /// bytes read (schema 2; fileio)
    #[serde(default)]
    pub bytes_read: u64,
    /// bytes written (schema 2; fileio)
    #[serde(default)]
    pub bytes_written: u64,
    /// ns in the end-of-test syncs (schema 2; fileio `--file-fsync-end`)
    #[serde(default)]
    pub end_fsync_ns: u64,
    /// latency of the thread's events, without histogram (schema 2; fileio)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat: Option<Latency>,
}

/// One `--report-interval` sample.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// seconds since start at the end of the interval
    pub t_s: f64,
    /// interval length, seconds
    pub dur_s: f64,
    /// bytes read in the interval
    pub read_bytes: u64,
    /// bytes written in the interval
    pub written_bytes: u64,
    /// fsync calls in the interval
    pub fsyncs: u64,
    /// which percentile `lat_pct_ns` is (`--percentile`)
    pub percentile: u32,
    /// the interval's `--percentile` latency, ns
    pub lat_pct_ns: u64,
}

/// The job as it ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobInfo {
    /// `fileio`
    pub kind: String,
    /// sysbench test mode
    pub test_mode: Option<TestMode>,
    /// engine name (`psync`, `io_uring`, `mmap`)
    pub engine: String,
    /// in-flight requests per thread
    pub iodepth: u32,
    /// worker threads
    pub threads: u32,
    /// files in the set
    pub files: u32,
    /// bytes per file
    pub file_size_bytes: u64,
    /// bytes in the set
    pub total_size_bytes: u64,
    /// block size, bytes
    pub block_size_bytes: u64,
    /// sequential request size, bytes
    pub request_size_bytes: u64,
    /// `--time`, seconds (0 = none)
    pub time_limit_s: u64,
    /// `--events` (0 = none)
    pub event_limit: u64,
    /// O_DIRECT
    pub direct: bool,
    /// O_SYNC
    pub sync: bool,
    /// O_DSYNC
    pub dsync: bool,
    /// periodic fsync frequency (0 = none)
    pub fsync_freq: u32,
    /// end-of-test fsync
    pub fsync_end: bool,
    /// fsync after every write
    pub fsync_all: bool,
    /// `fsync` or `fdatasync`
    pub fsync_mode: String,
    /// reads/writes ratio (null for +inf)
    pub rw_ratio: Option<f64>,
    /// `--rand-seed` as given (0 = from the current time)
    pub rand_seed: u64,
    /// the seed actually used (the time-derived one when `rand_seed` is 0)
    pub rand_seed_used: u64,
    /// `--validate`
    pub validate: bool,
    /// content of written blocks
    pub data_pattern: Option<DataPattern>,
    /// directory of the file set
    pub directory: String,
}

/// A stable-ID warning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    /// stable identifier, e.g. `page_cache.fits_in_ram`
    pub id: String,
    /// human text
    pub message: String,
}

/// `secs`, or the smallest positive number for a zero (or negative) period, so that a
/// rate over an empty run is 0 and never NaN: the one divisor of every per-second figure
/// taken from a result's `period_s`.
pub fn positive_secs(secs: f64) -> f64 {
    if secs > 0.0 {
        secs
    } else {
        f64::MIN_POSITIVE
    }
}

/// Result of one run: what every reporter and `compare` read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// schema version ([`SCHEMA_VERSION`])
    pub schema_version: u32,
    /// `iomark`
    pub tool: String,
    /// iomark version
    pub version: String,
    /// command (`fileio`)
    pub command: String,
    /// argv after the command
    pub argv: Vec<String>,
    /// how the run ended
    pub status: Status,
    /// the error that stopped a failed run
    pub error: Option<String>,
    /// the job
    pub job: JobInfo,
    /// seconds from the start to the end of the run (`total time`)
    pub elapsed_s: f64,
    /// seconds the rates are computed over (since the last checkpoint)
    pub period_s: f64,
    /// events (reads + writes + periodic fsync events)
    pub events: u64,
    /// reads
    pub read: OpStats,
    /// writes
    pub write: OpStats,
    /// fsyncs
    pub fsync: FsyncStats,
    /// latency of all events
    pub lat: Latency,
    /// per-thread figures
    pub threads: Vec<ThreadResult>,
    /// interval samples
    pub intervals: Vec<Interval>,
    /// page-cache honesty check
    pub page_cache: Option<PageCacheCheck>,
    /// warnings
    pub warnings: Vec<Warning>,
    /// compact diagnosis of the target (device, transport, link, ceiling, filesystem,
    /// RAM, scheduler, finding IDs), taken just before the run
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<TargetDiagnosis>,
    /// timed phases of phase-shaped commands (`copy`, `tree`); empty for `fileio`
    #[serde(default)]
    pub phases: Vec<Phase>,
    /// per-I/O completion latency of all queued reads and writes (see [`OpStats::clat`])
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clat: Option<Latency>,
    /// time series and latency curves for plots (`--plot`); optional in schema 1
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<Series>,
    /// CPU used by the whole process during the run (`iomark run`; absent elsewhere)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuUsage>,
    /// Unix time the run ended (the result was built), ms (schema 2)
    #[serde(default)]
    pub timestamp_ms: u64,
    /// every reported job with its directions, histograms, CPU and run outputs
    /// (schema 2; result/job.rs)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobResult>,
    /// fio's global options as written, in order (schema 2; `run`)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub global_options: Vec<(String, String)>,
    /// fio's `NAME: Laying out IO file (1 file / 8MiB)` lines of the files the run
    /// created or extended, in job order (`run`; printed after `Starting N process`)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layout_lines: Vec<String>,
    /// I/O counters of the block devices under the jobs' files, before and after the
    /// run (schema 2; `run`)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceCounters>,
    /// the full diagnosis of each target, taken before the run (schema 2; `copy`: SRC
    /// then DST; `diagnose`: the one asked about); `diagnosis` is the last one's summary
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<crate::probe::diagnosis::Diagnosis>,
    /// where the time went: the whole run (`who` = `all`, the threads' or
    /// jobs' times added up) first, then each fileio thread or `run` job (schema 2,
    /// optional)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub time: Vec<TimeShare>,
    /// what the disk under the files and its stack's members did during the run, with
    /// this process's own I/O counters (schema 2, optional; probe/devstat.rs)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_view: Option<DeviceView>,
    /// a many-hosts run (src/ranks/): every rank's own result, host and timing; the
    /// fields above are their aggregate (result/ranks.rs) (schema 2, optional)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<Box<ranks::RanksSummary>>,
    /// the machine that measured: hostname, kernel, CPU model and count, RAM, iomark
    /// version (schema 2, optional; probe/identity.rs)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<crate::probe::identity::Machine>,
    /// the identity of the target's device: model, serial, firmware, capacity,
    /// transport, filesystem, and the key the history tells devices apart by (schema 2,
    /// optional; probe/identity.rs)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<crate::probe::identity::DeviceIdentity>,
    /// `iomark time`: the command's process tree, its storage wait and the bound
    /// (schema 2, optional; result/command.rs)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed_command: Option<Box<command::TimedCommand>>,
}

/// Fields of `/sys/block/<dev>/stat` (the probe's, probe/devstat.rs).
pub use crate::probe::devstat::{DevStat, DeviceActivity, DeviceView, ProcIo};

/// The probe's facts a result records (`page_cache`, `targets`, `device`), the types
/// reporters read them by: defined and measured in probe/, part of the schema here.
pub use crate::probe::{
    ceiling::Ceiling, diagnosis::Diagnosis, identity::DeviceIdentity, pagecache::PageCacheCheck,
};

/// Where the wall time of a thread, a job or the whole run went: time inside
/// reads, writes and syncs (fsync/fdatasync/sync_file_range/msync), waits when the
/// recorder times them, and the rest (request generation, bookkeeping, the time
/// between requests). Each is the sum of the calls' own latencies, so with more than
/// one request in flight (iodepth > 1) reads and writes overlap and their shares may
/// add up to more than 100 %.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeShare {
    /// `all`, `thread N` (fileio) or the job's name (`run`)
    pub who: String,
    /// wall time, ns (summed over the threads)
    pub wall_ns: u64,
    /// ns inside reads
    pub read_ns: u64,
    /// ns inside writes
    pub write_ns: u64,
    /// ns inside fsync/fdatasync/sync_file_range/msync
    pub sync_ns: u64,
    /// ns waiting (rate limits, thinktime, barriers); `None`: not timed, inside `other`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ns: Option<u64>,
    /// the rest of the wall time, ns (0 when the parts overlap past it)
    pub other_ns: u64,
    /// shares of `wall_ns`, %
    pub read_pct: f64,
    /// write share, %
    pub write_pct: f64,
    /// sync share, %
    pub sync_pct: f64,
    /// wait share, %
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_pct: Option<f64>,
    /// the rest, %
    pub other_pct: f64,
    /// the time of the I/O phase inside `wall_ns` (fio's run time, summed over the
    /// threads), ns: what the requests in flight are counted over (Little's law) when the
    /// wall time also holds a long setup (a file laid out); `None`: not kept (fileio,
    /// mark, older results), the wall time stands for it
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_ns: Option<u64>,
}

impl TimeShare {
    /// The shares of `wall_ns` taken by the parts.
    pub fn new(who: &str, wall_ns: u64, read_ns: u64, write_ns: u64, sync_ns: u64) -> TimeShare {
        let pct = |v: u64| {
            if wall_ns > 0 {
                v as f64 * 100.0 / wall_ns as f64
            } else {
                0.0
            }
        };
        let other_ns = wall_ns.saturating_sub(read_ns + write_ns + sync_ns);
        TimeShare {
            who: who.into(),
            wall_ns,
            read_ns,
            write_ns,
            sync_ns,
            wait_ns: None,
            other_ns,
            read_pct: pct(read_ns),
            write_pct: pct(write_ns),
            sync_pct: pct(sync_ns),
            wait_pct: None,
            other_pct: pct(other_ns),
            io_ns: None,
        }
    }

    /// The same shares with the I/O phase's time kept ([`TimeShare::io_ns`]; 0: not kept).
    pub fn with_io(self, io_ns: u64) -> TimeShare {
        TimeShare {
            io_ns: (io_ns > 0).then_some(io_ns),
            ..self
        }
    }

    /// The time the requests in flight are counted over: the I/O phase's, else the
    /// wall time, with its name.
    pub fn io_base(&self) -> (u64, &'static str) {
        match self.io_ns {
            Some(n) if n > 0 => (n, "the I/O time"),
            _ => (self.wall_ns, "the wall time"),
        }
    }

    /// The same shares with `wait_ns` of the wall time timed as waits (rate limits,
    /// thinktime, the flow's sleeps): taken from the rest, as its own share.
    pub fn with_wait(self, wait_ns: u64) -> TimeShare {
        let wall = self.wall_ns;
        let pct = |v: u64| {
            if wall > 0 {
                v as f64 * 100.0 / wall as f64
            } else {
                0.0
            }
        };
        let other_ns = wall.saturating_sub(self.read_ns + self.write_ns + self.sync_ns + wait_ns);
        TimeShare {
            wait_ns: Some(wait_ns),
            wait_pct: Some(pct(wait_ns)),
            other_ns,
            other_pct: pct(other_ns),
            ..self
        }
    }

    /// The sum of several threads' or jobs' shares, named `who` (waits timed when any
    /// part timed them).
    pub fn total(who: &str, parts: &[TimeShare]) -> TimeShare {
        let s = |f: fn(&TimeShare) -> u64| parts.iter().map(f).sum::<u64>();
        let t = TimeShare::new(
            who,
            s(|t| t.wall_ns),
            s(|t| t.read_ns),
            s(|t| t.write_ns),
            s(|t| t.sync_ns),
        );
        // the I/O time is the parts' sum when every part kept one
        let io = parts
            .iter()
            .map(|p| p.io_ns)
            .sum::<Option<u64>>()
            .unwrap_or(0);
        let t = t.with_io(io);
        match parts.iter().any(|p| p.wait_ns.is_some()) {
            true => t.with_wait(s(|p| p.wait_ns.unwrap_or(0))),
            false => t,
        }
    }
}

/// A block device's counters around a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceCounters {
    /// device name (`vda`, `nvme0n1`)
    pub name: String,
    /// counters when the run started
    pub before: DevStat,
    /// counters when it ended
    pub after: DevStat,
    /// ms between the two readings
    pub elapsed_ms: u64,
}

/// Time series and latency percentile curves of a run, what `--plot` draws.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// nominal sampling period of `samples`, seconds (0 when there are none)
    pub period_s: f64,
    /// throughput samples in time order (taken every `period_s` while the run goes on)
    #[serde(default)]
    pub samples: Vec<Sample>,
    /// latency percentile curves, one per operation type that ran
    #[serde(default)]
    pub latency_curves: Vec<LatencyCurve>,
    /// where the samples' `device`, `temp_c` and `cpu_mhz` come from (schema 2, absent
    /// when the sampler read only the app counters)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<SeriesSources>,
    /// what the series shows changed during the run, with the moment (result/timeline.rs;
    /// each is also a warning with the same id)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<TimeFinding>,
}

/// Where a series' device, temperature and CPU-clock values were read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesSources {
    /// the block device under the files (`nvme0n1`, `loop3`) whose `/sys/block/DEV/stat`
    /// differences are `samples[].device`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// the drive's hwmon sensor (`nvme`, `drivetemp`) read for `samples[].temp_c`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensor: Option<String>,
    /// the sensor's `temp*_max` (the drive's warning threshold), °C
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temp_max_c: Option<f64>,
    /// the sensor's `temp*_crit`, °C
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temp_crit_c: Option<f64>,
    /// the CPUs the jobs may run on, whose mean cpufreq clock is `samples[].cpu_mhz`
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpus: Vec<usize>,
    /// further block devices sampled, each with its role (`copy`: its `SRC` when it is on
    /// another disk than DST, `device`): (device, role); their differences are
    /// `samples[].more_devices`, in this order
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_devices: Vec<(String, String)>,
}

/// A change over time found in a series (result/timeline.rs), with its moment.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeFinding {
    /// stable id, the same as the warning's (`over_time.write_cliff`, …)
    pub id: String,
    /// seconds since the start of the run when it happened
    pub at_s: f64,
    /// bytes the run had written by then
    pub written_bytes: u64,
    /// the rate before, bytes/s (writes for the cliff, all I/O for throttling; the
    /// app's writes for write-back bursts; 0 for other I/O)
    pub before_bytes_s: f64,
    /// the rate after (the device's peak for write-back bursts, the other I/O's mean for
    /// other I/O), bytes/s
    pub after_bytes_s: f64,
    /// seconds it lasted (to the end of the run for a cliff)
    pub for_s: f64,
    /// the drive's temperature then, °C (throttling)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temp_c: Option<f64>,
}

/// Completed I/O in one sampling period.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// seconds since the start at the end of the sample
    pub t_s: f64,
    /// sample length, seconds
    pub dur_s: f64,
    /// reads completed in the sample
    pub reads: u64,
    /// writes completed in the sample
    pub writes: u64,
    /// bytes read in the sample
    pub read_bytes: u64,
    /// bytes written in the sample
    pub written_bytes: u64,
    /// what the device under the files did in the sample (schema 2; absent without one)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceSample>,
    /// what each further device of `sources.more_devices` did in the sample, in that
    /// order (`copy`'s SRC disk when it is not DST's)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_devices: Vec<DeviceSample>,
    /// the drive's temperature at the end of the sample, °C (schema 2)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temp_c: Option<f64>,
    /// mean clock of the job CPUs at the end of the sample, MHz (schema 2)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_mhz: Option<f64>,
}

/// A block device's own I/O in one sample (`/sys/block/DEV/stat` differences): every
/// process's, the page cache's write-back included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceSample {
    /// reads completed
    pub reads: u64,
    /// writes completed
    pub writes: u64,
    /// bytes read
    pub read_bytes: u64,
    /// bytes written
    pub written_bytes: u64,
    /// ms the device had I/O in flight
    pub busy_ms: u64,
}

/// A latency percentile curve: latency (ns) at increasing percentiles.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyCurve {
    /// `read`, `write` or `all`
    pub op: String,
    /// `completion` (per I/O, submission to completion) or `event` (sysbench event)
    pub measure: String,
    /// points in increasing percentile order
    pub points: Vec<CurvePoint>,
}

/// One point of a [`LatencyCurve`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// percentile, 0–100
    pub percentile: f64,
    /// latency at that percentile, ns
    pub ns: u64,
}

/// Percentiles a [`LatencyCurve`] is sampled at (dense towards the tail, as the curve
/// is drawn on a "nines" axis).
pub const CURVE_PERCENTILES: [f64; 16] = [
    1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999,
    100.0,
];

/// CPU used during a run: `getrusage(RUSAGE_SELF)` after minus before.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuUsage {
    /// user CPU time, seconds
    pub usr_s: f64,
    /// system CPU time, seconds
    pub sys_s: f64,
    /// voluntary context switches
    pub ctx_voluntary: u64,
    /// involuntary context switches
    pub ctx_involuntary: u64,
}

/// The diagnosis attached to a result (see `iomark diagnose` for the full form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TargetDiagnosis {
    /// device model, transport, limiting link, realistic ceiling, filesystem, RAM, scheduler
    pub summary: crate::probe::diagnosis::Summary,
    /// raw usable bandwidth of the path, MB/s (1 MB = 1000000 bytes), when known
    pub ceiling_raw_mb_s: Option<f64>,
    /// IDs of the findings, most severe first
    pub findings: Vec<String>,
}

impl TargetDiagnosis {
    /// The compact form of a diagnosis.
    pub fn of(d: &crate::probe::diagnosis::Diagnosis) -> TargetDiagnosis {
        TargetDiagnosis {
            summary: d.summary.clone(),
            ceiling_raw_mb_s: d.ceiling.as_ref().map(|c| c.raw_mb_s),
            findings: d.findings.iter().map(|f| f.id.clone()).collect(),
        }
    }
}

/// The methods of `iomark copy`, in order: phase name stem (`NAME_written`,
/// `NAME_durable`, warning `copy.NAME_skipped`), label of the report, O_DIRECT.
pub const COPY_METHODS: [(&str, &str, bool); 3] = [
    ("buffered_128k", "buffered 128 KiB", false),
    ("copy_file_range", "copy_file_range", false),
    ("direct_4m", "O_DIRECT 4 MiB", true),
];

/// A mark phase is named by its slot's label and its direction (`SEQ1M Q8T1 read`):
/// the slot (job/presets.rs) is read back from the name with [`Slot::parse_label`].
pub use crate::job::presets::Slot;

/// One timed phase of a phase-shaped command (a copy method, a tree pass).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// stable phase name, e.g. `buffered_128k`, `create_write`, `stat_all`
    pub name: String,
    /// operations done (files, requests)
    pub ops: u64,
    /// bytes moved
    pub bytes: u64,
    /// wall-clock seconds of the phase
    pub seconds: f64,
    /// operations per second
    pub ops_per_s: f64,
    /// MB/s (1 MB = 1000000 bytes)
    pub mb_per_s: f64,
    /// MiB/s (1 MiB = 1048576 bytes)
    pub mib_per_s: f64,
    /// per-operation latency, when measured
    pub lat: Option<Latency>,
    /// per-operation completion latency apart from `lat`, where the result has it: an
    /// imported fio report's direction (fio's `clat`, with the percentiles fio printed;
    /// its `lat` has them only with `lat_percentiles=1`); absent elsewhere
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clat: Option<Latency>,
    /// how the page cache was handled before the phase (e.g. "dropped with posix_fadvise")
    pub cache: Option<String>,
    /// free-form notes (e.g. "includes the final fsync")
    pub notes: Vec<String>,
    /// `run` random jobs: distinct blocks touched and issued block sizes of the job
    /// (the same value on each of its phases; public case C13)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<crate::result::job::CoverageStats>,
    /// a signal stopped the phase before its end (`tree`): its figures cover the
    /// operations done until then; absent (false) for a phase that ran to its end
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// `copy`: the latency of each read call of the method, from its first request to
    /// its last write (none for `copy_file_range`, whose calls read and write in the
    /// kernel: they are its writes)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_lat: Option<Latency>,
    /// `copy`: the latency of each write call (each `copy_file_range` call) of the method
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_lat: Option<Latency>,
}

impl Phase {
    /// A phase of `ops` operations moving `bytes` in `seconds`, with derived rates
    /// (0 when no time passed: a rate must stay a finite number in the JSON).
    pub fn new(name: &str, ops: u64, bytes: u64, seconds: f64) -> Phase {
        let rate = |v: u64| {
            if seconds > 0.0 {
                v as f64 / seconds
            } else {
                0.0
            }
        };
        Phase {
            name: name.into(),
            ops,
            bytes,
            seconds,
            ops_per_s: rate(ops),
            mb_per_s: rate(bytes) / 1e6,
            mib_per_s: rate(bytes) / 1_048_576.0,
            ..Default::default()
        }
    }
}

/// The `--json` placeholder: a valid document saying the run has not finished
/// (`compare` refuses it by name, as older iomark wrote it at the final name). Now only
/// the bytes of the write rehearsed in a temporary file before the run
/// (`Output::rehearse`): the final name keeps its old result until the new one.
pub fn placeholder_bytes() -> Vec<u8> {
    json_bytes(&serde_json::json!({
        "schema_version": SCHEMA_VERSION,
        "tool": "iomark",
        "status": "running"
    }))
}

/// The bytes of a `--json` file: `value` as pretty JSON and a newline (written with
/// `files::output::Output::commit`).
pub fn json_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(value).unwrap_or_else(|e| {
        // every RunResult field serialises (no maps with non-string keys): unreachable
        let failed =
            serde_json::json!({"tool": "iomark", "status": "failed", "error": e.to_string()});
        serde_json::to_vec(&failed).unwrap_or_default()
    });
    v.push(b'\n');
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_rates_use_decimal_and_binary_units() {
        let p = Phase::new("x", 10, 2_000_000, 2.0);
        assert_eq!((p.ops_per_s, p.mb_per_s), (5.0, 1.0));
        assert!((p.mib_per_s - 0.953674).abs() < 1e-6);
    }

    /// The bytes of `--json` files (the atomic replace is files/output.rs's, tested
    /// there): valid JSON ending in a newline.
    #[test]
    fn json_bytes_and_the_placeholder() {
        let v: serde_json::Value = serde_json::from_slice(&placeholder_bytes()).unwrap();
        assert_eq!(v["status"], "running");
        assert_eq!(v["tool"], "iomark");
        assert_eq!(v["schema_version"], SCHEMA_VERSION);
        let b = json_bytes(&serde_json::json!({"a": 1}));
        assert_eq!(b.last(), Some(&b'\n'));
        let v: serde_json::Value = serde_json::from_slice(&b).unwrap();
        assert_eq!(v["a"], 1);
    }
}
