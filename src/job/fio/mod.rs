//! fio's option model for `iomark run`: command-line jobs and INI job files → validated
//! [`FioJob`]s (stage 1 of DESIGN.md: pure, no I/O except reading job files).
//!
//! Units follow fio's `parse.c` (fio 3.x HOWTO "Parameter types"): with the default
//! `kb_base=1024`, `k/m/g/t/p` (and `kb`, `mb`…) are powers of 1024 while the IEC forms
//! `ki/kib/mi/mib…` are powers of 1000 (fio's "compatibility mode"); `kb_base=1000` swaps
//! them. Times default to seconds (`runtime=10`), with `us/ms/s/m/h/d` suffixes. Keys are
//! matched with `-` and `_` interchangeable. A key iomark does not implement is an error
//! naming it (and `file:line` for job files): nothing is silently ignored.

pub mod apply;
pub mod control;
pub mod extra;
pub mod ini;
pub mod keys;
pub mod keys_verify;
pub mod showcmd;
pub mod units;
pub mod zone_keys;

pub(crate) use crate::job::fio::apply::need;
pub use crate::job::fio::apply::{apply, SUPPORTED_KEYS};
use ini::{Entry, IniError, Origin};
pub use crate::job::fio::keys::JobMore;
pub(crate) use crate::job::fio::units::{bad, parse_bool, parse_u64};
pub use crate::job::fio::units::{parse_bssplit_dir, parse_range, parse_size, parse_time, BssplitError};
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

/// Errors while building fio jobs.
#[derive(Debug, Error)]
pub enum FioError {
    /// job file problems (read, `${VAR}`, include, syntax)
    #[error(transparent)]
    Ini(#[from] IniError),
    /// a key iomark does not implement
    #[error(
        "{origin}: option '{key}' is not supported by iomark{}",
        did_you_mean(key)
    )]
    UnsupportedKey {
        /// the key as written
        key: String,
        /// where
        origin: Origin,
    },
    /// an option of fio's xnvme / io_uring_cmd engines (NVMe FDP, protection information)
    #[error("{origin}: option '{key}' belongs to fio's xnvme and io_uring_cmd engines (NVMe passthrough), which iomark does not support")]
    EngineKey {
        /// the key as written
        key: String,
        /// where
        origin: Origin,
    },
    /// an engine iomark does not implement
    #[error("{origin}: ioengine '{engine}' is not supported by iomark (supported: psync, sync, pvsync, io_uring, libaio, posixaio, mmap, null)")]
    UnsupportedEngine {
        /// the engine as written
        engine: String,
        /// where
        origin: Origin,
    },
    /// a value that does not parse or is out of range
    #[error("{origin}: invalid value '{value}' for option '{key}': {why}")]
    BadValue {
        /// the key
        key: String,
        /// the value
        value: String,
        /// what is wrong / what is accepted
        why: String,
        /// where
        origin: Origin,
    },
    /// bssplit weights that do not add up to 100
    #[error("{origin}: bssplit '{value}': weights sum to {sum}, must be 100")]
    BssplitSum {
        /// the value
        value: String,
        /// the sum found
        sum: u64,
        /// where
        origin: Origin,
    },
    /// a job that cannot run as described
    #[error("job '{job}': {why}")]
    Job {
        /// job name
        job: String,
        /// what is missing or conflicting
        why: String,
    },
    /// a command-line argument that is not `--key[=value]` or a job file
    #[error("command line: {0}")]
    Usage(String),
}

/// Data direction pattern (`rw=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwMode {
    /// sequential reads
    Read,
    /// sequential writes
    Write,
    /// uniform random reads
    RandRead,
    /// uniform random writes
    RandWrite,
    /// sequential mixed (`rw`, `readwrite`)
    ReadWrite,
    /// random mixed
    RandRw,
    /// sequential trims (`trim`)
    Trim,
    /// random trims (`randtrim`)
    RandTrim,
    /// sequential trim then write of the same block (`trimwrite`)
    TrimWrite,
}

impl RwMode {
    /// Random offsets?
    pub fn random(self) -> bool {
        matches!(
            self,
            RwMode::RandRead | RwMode::RandWrite | RwMode::RandRw | RwMode::RandTrim
        )
    }
    /// Issues reads?
    pub fn reads(self) -> bool {
        matches!(
            self,
            RwMode::Read | RwMode::RandRead | RwMode::ReadWrite | RwMode::RandRw
        )
    }
    /// Issues writes?
    pub fn writes(self) -> bool {
        matches!(
            self,
            RwMode::Write
                | RwMode::RandWrite
                | RwMode::ReadWrite
                | RwMode::RandRw
                | RwMode::TrimWrite
        )
    }
    /// fio's spelling (`randread`, `rw`, `trimwrite` …).
    pub fn fio_name(self) -> &'static str {
        match self {
            RwMode::Read => "read",
            RwMode::Write => "write",
            RwMode::RandRead => "randread",
            RwMode::RandWrite => "randwrite",
            RwMode::ReadWrite => "rw",
            RwMode::RandRw => "randrw",
            RwMode::Trim => "trim",
            RwMode::RandTrim => "randtrim",
            RwMode::TrimWrite => "trimwrite",
        }
    }
    /// Issues trims?
    pub fn trims(self) -> bool {
        matches!(self, RwMode::Trim | RwMode::RandTrim | RwMode::TrimWrite)
    }
}

/// Engine chosen by `ioengine=` (aliases resolved).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// pread/pwrite (`psync`, `sync`, `pvsync`)
    Psync,
    /// io_uring (`io_uring`, `libaio`, `posixaio`)
    IoUring,
    /// whole-file mappings
    Mmap,
    /// no I/O at all
    Null,
}

impl EngineKind {
    /// Name as recorded in results.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Psync => "psync",
            EngineKind::IoUring => "io_uring",
            EngineKind::Mmap => "mmap",
            EngineKind::Null => "null",
        }
    }
}

/// Block sizes of one direction, bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockSizes {
    /// one size
    Fixed(u64),
    /// uniform over `[min, max]`, in multiples of `min`
    Range(u64, u64),
    /// weighted sizes `(bytes, percent)`, weights sum to 100
    Split(Vec<(u64, u32)>),
}

impl BlockSizes {
    /// Smallest size.
    pub fn min(&self) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range(a, _) => *a,
            BlockSizes::Split(v) => v.iter().map(|x| x.0).min().unwrap_or(4096),
        }
    }
    /// Largest size.
    pub fn max(&self) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range(_, b) => *b,
            BlockSizes::Split(v) => v.iter().map(|x| x.0).max().unwrap_or(4096),
        }
    }
}

/// `size=`: bytes, or a percentage of the existing file/device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeSpec {
    /// bytes
    Bytes(u64),
    /// percent (0–100] of the target's current size
    Percent(f64),
}

/// Output formats of the run (`--output-format`): one of `normal`, `json`, `json+`, or a
/// comma list of them as fio accepts (`normal,json`). Whatever the list's order, fio 3.33
/// prints the JSON document first and the normal text after it, separated by one empty
/// line; `json` together with `json+` is one json+ document. fio's `terse` is not
/// supported (refused with the other unknown names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputFormat {
    /// print fio's human summary ("normal")
    pub normal: bool,
    /// print fio's JSON document
    pub json: bool,
    /// the JSON document has the histogram bins (`json+`); implies `json`
    pub json_plus: bool,
}

impl Default for OutputFormat {
    fn default() -> Self {
        Self::NORMAL
    }
}

impl OutputFormat {
    /// `normal`: fio-like human summary
    pub const NORMAL: Self = Self {
        normal: true,
        json: false,
        json_plus: false,
    };
    /// `json`: fio JSON, and nothing else, on stdout
    pub const JSON: Self = Self {
        normal: false,
        json: true,
        json_plus: false,
    };
    /// `json+`: fio JSON with the clat histogram bins
    pub const JSON_PLUS: Self = Self {
        normal: false,
        json: true,
        json_plus: true,
    };

    /// Parse fio's `--output-format` value: names separated by `,`, each `normal`,
    /// `json` or `json+` (case-sensitive, no spaces, as fio 3.33). Errors: the text
    /// after "invalid value …:" naming the bad item and the accepted values.
    pub fn parse(list: &str) -> Result<Self, String> {
        const ACCEPTED: &str =
            "accepted: normal, json, json+, or a comma list of them such as normal,json";
        if list.is_empty() {
            return Err(format!("a format is needed; {ACCEPTED}"));
        }
        let mut f = Self {
            normal: false,
            json: false,
            json_plus: false,
        };
        for item in list.split(',') {
            match item {
                "normal" => f.normal = true,
                "json" => f.json = true,
                "json+" => {
                    f.json = true;
                    f.json_plus = true;
                }
                "" => return Err(format!("an empty item in the list; {ACCEPTED}")),
                "terse" => return Err(format!("'terse' is not supported by iomark; {ACCEPTED}")),
                other => return Err(format!("'{other}' is not a format; {ACCEPTED}")),
            }
        }
        Ok(f)
    }
}

/// One fio job (one `[section]` or one `--name=` group), validated.
#[derive(Clone, Debug, PartialEq)]
pub struct FioJob {
    /// `name` (section name for job files)
    pub name: String,
    /// `rw`
    pub rw: RwMode,
    /// `rw=…:N`: sequential jobs skip N bytes after each I/O (negative: go backwards);
    /// random jobs issue N sequential I/Os per random offset (0 = none)
    pub rw_suffix: i64,
    /// `rwmixread`, percent of mixed I/Os that are reads (default 50)
    pub rwmixread: u32,
    /// `bs`/`bsrange`/`bssplit`: read sizes
    pub bs_read: BlockSizes,
    /// write sizes
    pub bs_write: BlockSizes,
    /// `size` per job thread (over all its files)
    pub size: Option<SizeSpec>,
    /// `filesize` (bytes per file), optional range
    pub filesize: Option<(u64, u64)>,
    /// `nrfiles`
    pub nrfiles: u32,
    /// `filename` (`:`-separated list), shared by all threads of the job
    pub filename: Option<String>,
    /// `directory`
    pub directory: Option<PathBuf>,
    /// `numjobs`
    pub numjobs: u32,
    /// resolved engine
    pub engine: EngineKind,
    /// `iodepth`
    pub iodepth: u32,
    /// `direct` (O_DIRECT)
    pub direct: bool,
    /// `fsync`: fsync after every N writes (0 = never)
    pub fsync: u64,
    /// `end_fsync`
    pub end_fsync: bool,
    /// `runtime`
    pub runtime: Option<Duration>,
    /// `time_based`
    pub time_based: bool,
    /// `ramp_time` (I/O done, not recorded)
    pub ramp_time: Duration,
    /// `loops`
    pub loops: u64,
    /// `number_ios` (0 = unlimited)
    pub number_ios: u64,
    /// `randseed`
    pub randseed: Option<u64>,
    /// `norandommap` (iomark always draws offsets without a map; accepted)
    pub norandommap: bool,
    /// `group_reporting`
    pub group_reporting: bool,
    /// `thread` (iomark always uses threads; accepted)
    pub thread: bool,
    /// `stonewall`: wait for the previous jobs before starting
    pub stonewall: bool,
    /// `kb_base` (1024 or 1000)
    pub kb_base: u64,
    /// `unit_base=1`: the text report's bandwidths in bits/s (`0`/`8`: bytes, the default)
    pub unit_base_bits: bool,
    /// options set for this job, as written (for JSON "job options")
    pub options: Vec<(String, String)>,
    /// the other keys (distributions, rate, verify, logs, …)
    pub more: JobMore,
    /// `new_group`: this job starts a new reporting group
    pub new_group: bool,
    /// `allow_mounted_write`: lift only the device guard's mounted check (fio semantics)
    pub allow_mounted_write: bool,
    /// `readonly`: refuse any job that writes
    pub readonly: bool,
    /// `sqthread_poll`: io_uring with a kernel submission-polling thread (IORING_SETUP_SQPOLL)
    pub sqthread_poll: bool,
    /// `sqthread_poll_cpu`: CPU the polling thread is bound to
    pub sqthread_poll_cpu: Option<u32>,
    /// `hipri`: io_uring completion polling (IORING_SETUP_IOPOLL); needs direct=1
    pub hipri: bool,
    /// `force_async=N`: io_uring issues every N-th request with IOSQE_ASYNC (fio's key;
    /// unset or 0: never, fio's default)
    pub force_async: Option<u32>,
    /// `--reap-spin=TIME` (iomark's own, command line only): io_uring reap spin budget in
    /// ns before sleeping for completions (engine/io_uring.rs; 0: off, fio's behaviour)
    pub reap_spin_ns: u64,
    /// job control: flow, steady state, latency target, io_submit_mode
    pub control: crate::job::fio::control::Control,
    /// priorities, NUMA binding and dedupe keys ([`crate::job::fio::extra`])
    pub extra: crate::job::fio::extra::JobExtra,
}

impl Default for FioJob {
    fn default() -> Self {
        FioJob {
            name: String::new(),
            rw: RwMode::Read,
            rw_suffix: 0,
            rwmixread: 50,
            bs_read: BlockSizes::Fixed(4096),
            bs_write: BlockSizes::Fixed(4096),
            size: None,
            filesize: None,
            nrfiles: 1,
            filename: None,
            directory: None,
            numjobs: 1,
            engine: EngineKind::Psync,
            iodepth: 1,
            direct: false,
            fsync: 0,
            end_fsync: false,
            runtime: None,
            time_based: false,
            ramp_time: Duration::ZERO,
            loops: 1,
            number_ios: 0,
            randseed: None,
            norandommap: false,
            group_reporting: false,
            thread: false,
            stonewall: false,
            kb_base: 1024,
            unit_base_bits: false,
            options: Vec::new(),
            more: JobMore::default(),
            new_group: false,
            allow_mounted_write: false,
            readonly: false,
            sqthread_poll: false,
            sqthread_poll_cpu: None,
            hipri: false,
            force_async: None,
            reap_spin_ns: crate::engine::io_uring::DEFAULT_SPIN_NS,
            control: Default::default(),
            extra: Default::default(),
        }
    }
}

/// Everything `iomark run` was asked to do.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FioCommand {
    /// jobs in order
    pub jobs: Vec<FioJob>,
    /// `--output-format`
    pub output_format: OutputFormat,
    /// `--json=FILE`: iomark's RunResult
    pub json_file: Option<PathBuf>,
    /// options of the global section / before the first `--name` (JSON "global options")
    pub global_options: Vec<(String, String)>,
    /// one-line notices for stderr (engine aliases, unit remarks)
    pub notices: Vec<String>,
    /// `--output=FILE`: the report goes to this file instead of stdout
    pub output: Option<PathBuf>,
    /// `--section=NAME` (repeatable): run only these job-file sections
    pub sections: Vec<String>,
    /// `--allow-destructive-write=DEV` (command line only, repeatable): devices the
    /// block-device guard lets jobs write to
    pub allow_destructive_write: Vec<PathBuf>,
    /// `--engine-strict`: exit 3 instead of falling back to psync when io_uring is denied
    pub engine_strict: bool,
    /// `--status-interval=TIME`: print a progress line (stderr) and record an interval
    /// sample this often
    pub status_interval: Option<Duration>,
    /// `--plot=DIR` (command line only): write SVG charts of the run (throughput over
    /// time, latency percentile curves) to DIR
    pub plot: Option<PathBuf>,
    /// iomark's own options that change how jobs run (`--reap-spin`, `--engine-strict`,
    /// `--allow-destructive-write`) as `(key, value)`, in command-line order, for
    /// `--showcmd` (value empty for a flag)
    pub own_options: Vec<(String, String)>,
    /// `--parse-only` (fio's): parse the jobs, print nothing, run nothing
    pub parse_only: bool,
    /// `--warnings-fatal` (fio's): a parse notice ([`FioCommand::notices`]) ends the run
    /// with exit 2 instead of being printed and run past; notices printed while the jobs
    /// run stay notices
    pub warnings_fatal: bool,
}

/// The kernel's io_uring ring size limit (IORING_MAX_ENTRIES, include/uapi/linux/io_uring.h
/// and io_uring/io_uring.c): a larger `iodepth` cannot be set up.
pub const IORING_MAX_ENTRIES: u32 = 32_768;

fn validate(job: &FioJob) -> Result<(), FioError> {
    let err = |why: String| FioError::Job {
        job: job.name.clone(),
        why,
    };
    if job.engine != EngineKind::Null
        && job.size.is_none()
        && job.filesize.is_none()
        && job.filename.is_none()
    {
        return Err(err(
            "no size given (set size= or filesize=, or a filename= of an existing file)".into(),
        ));
    }
    if job.engine == EngineKind::Null
        && job.size.is_none()
        && job.filesize.is_none()
        && !job.time_based
        && job.number_ios == 0
    {
        return Err(err(
            "ioengine=null needs size=, number_ios= or time_based with runtime=".into(),
        ));
    }
    if job.engine == EngineKind::IoUring && job.iodepth > IORING_MAX_ENTRIES {
        return Err(err(format!(
            "iodepth={} is above io_uring's limit of {IORING_MAX_ENTRIES} ring entries (IORING_MAX_ENTRIES); use iodepth of at most {IORING_MAX_ENTRIES}",
            job.iodepth
        )));
    }
    if job.time_based && job.runtime.is_none() {
        return Err(err("time_based needs runtime=".into()));
    }
    let m = &job.more;
    if let Some(k) = m.verify {
        use crate::job::fio::keys::VerifyKind;
        if job.engine == EngineKind::Null {
            return Err(err(format!(
                "verify={} needs an engine that moves data (ioengine=null does none)",
                k.name()
            )));
        }
        if k == VerifyKind::Pattern && m.verify_pattern.is_empty() {
            return Err(err("verify=pattern needs verify_pattern=".into()));
        }
        let min = job.bs_read.min().min(job.bs_write.min());
        if k != VerifyKind::Pattern && min < crate::job::fio::keys::VERIFY_HEADER {
            return Err(err(format!(
                "verify={} needs block sizes of at least {} bytes (the verify header); got {min}",
                k.name(),
                crate::job::fio::keys::VERIFY_HEADER
            )));
        }
    }
    crate::job::fio::keys_verify::validate_extra(job).map_err(err)?;
    if job.readonly && job.rw.writes() {
        return Err(err(
            "readonly=1 forbids a job that writes (rw=read or randread only)".into(),
        ));
    }
    if (job.hipri
        || job.sqthread_poll
        || job.sqthread_poll_cpu.is_some()
        || job.force_async.is_some_and(|n| n > 0))
        && job.engine != EngineKind::IoUring
    {
        return Err(err(format!(
            "hipri, sqthread_poll, sqthread_poll_cpu and force_async apply to ioengine=io_uring only (ioengine={})",
            job.engine.name()
        )));
    }
    if job.hipri && !job.direct {
        return Err(err(
            "hipri=1 (completion polling) needs direct=1: polling works on O_DIRECT I/O only"
                .into(),
        ));
    }
    crate::job::fio::control::validate_control(&job.control, job.engine == EngineKind::IoUring)
        .map_err(err)?;
    crate::job::fio::extra::validate(
        &job.extra,
        job.engine == EngineKind::IoUring,
        job.engine.name(),
    )
    .map_err(err)?;
    for bs in [&job.bs_read, &job.bs_write] {
        if job.direct && bs.min() % 512 != 0 {
            return Err(err(format!(
                "direct=1 needs block sizes that are multiples of the device's logical block size (at least 512); got {} bytes",
                bs.min()
            )));
        }
    }
    Ok(())
}

/// Build jobs from `(section name, entries)` pairs, the section named `global` applying
/// to every later job (fio semantics: a later `[global]` changes jobs after it only).
pub fn jobs_from_sections(
    sections: &[(String, Vec<Entry>)],
    cmd: &mut FioCommand,
    base: &FioJob,
) -> Result<(), FioError> {
    let mut global = base.clone();
    for (name, entries) in sections {
        if name == "global" {
            for e in entries {
                apply(
                    &mut global,
                    &e.key,
                    e.value.as_deref(),
                    &e.origin,
                    &mut cmd.notices,
                )?;
                cmd.global_options
                    .push((e.key.clone(), e.value.clone().unwrap_or_default()));
            }
            continue;
        }
        let mut job = global.clone();
        job.options.clear();
        job.name = name.clone();
        for e in entries {
            apply(
                &mut job,
                &e.key,
                e.value.as_deref(),
                &e.origin,
                &mut cmd.notices,
            )?;
        }
        finish(&mut job, &mut cmd.notices);
        crate::job::fio::zone_keys::settle(&mut job)?;
        validate(&job)?;
        cmd.jobs.push(job);
    }
    Ok(())
}

/// Settle keys that depend on each other (fio: a `verify_pattern` alone means
/// `verify=pattern`).
fn finish(job: &mut FioJob, notices: &mut Vec<String>) {
    // fio --cmdhelp=atomic: "Use Atomic IO with O_DIRECT (implies O_DIRECT)"
    if job.more.x.atomic {
        job.direct = true;
    }
    if job.more.verify.is_none() && !job.more.verify_pattern.is_empty() {
        job.more.verify = Some(crate::job::fio::keys::VerifyKind::Pattern);
    }
    for n in crate::job::fio::control::finish_control(&mut job.control, &job.name) {
        if !notices.contains(&n) {
            notices.push(n);
        }
    }
}

/// `--reap-spin=TIME` in nanoseconds: a time up to 1ms with unit ns, us, ms or s (a plain
/// number is µs); decimals are accepted (`1.5us` = 1500 ns, rounded to whole ns).
/// The error is the accepted form, one line.
fn parse_reap_spin(t: &str) -> Result<u64, String> {
    const FORM: &str = "a time up to 1ms: 5us, 800ns, 1.5us, 0 (off); a plain number is µs";
    let t = t.trim();
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(end);
    let n: f64 = num.parse().map_err(|_| FORM.to_string())?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "ns" | "nsec" => 1.0,
        "" | "us" | "usec" => 1e3,
        "ms" | "msec" => 1e6,
        "s" | "sec" => 1e9,
        _ => return Err(FORM.to_string()),
    };
    let ns = (n * scale).round();
    if !(0.0..=1e6).contains(&ns) {
        return Err(FORM.to_string());
    }
    Ok(ns as u64)
}

/// The name a job file read from standard input (`iomark run -`) has in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// Parse `iomark run` arguments: `--key=value` or `--key value` options (those before the
/// first `--name` are global; see [`separate_value`] for which keys take the next word),
/// `--output-format`, `--json=FILE`, and job files (any non-option word; `-` is standard
/// input, named `<stdin>` in messages).
/// Command-line globals apply to jobs from files too, as in fio.
pub fn parse_args(args: &[String]) -> Result<FioCommand, FioError> {
    parse_args_with(args, &|v| std::env::var(v).ok())
}

/// [`parse_args`] with an explicit environment lookup for `${VAR}` in job files.
pub fn parse_args_with(
    args: &[String],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<FioCommand, FioError> {
    let mut cmd = FioCommand::default();
    let mut reap_spin: Option<u64> = None;
    let mut cli_sections: Vec<(String, Vec<Entry>)> = vec![("global".into(), Vec::new())];
    let mut files: Vec<PathBuf> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let Some(opt) = a.strip_prefix("--") else {
            if a.starts_with('-') && a.len() > 1 {
                return Err(FioError::Usage(format!(
                    "'{a}': options are written --key=value or --key value"
                )));
            }
            files.push(PathBuf::from(a));
            continue;
        };
        let (k, v) = match opt.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => match separate_value(opt, args.get(i).map(String::as_str))? {
                Some(next) => {
                    i += 1;
                    (opt, Some(next.to_string()))
                }
                None => (opt, None),
            },
        };
        match k.replace('-', "_").as_str() {
            "output_format"
                if v.as_deref().is_some_and(|f| f.split(',').any(|x| x == "terse")) =>
            {
                return Err(FioError::BadValue {
                    key: "output-format".into(),
                    value: v.unwrap_or_default(),
                    why: "terse output is not supported by iomark; accepted: normal, json, json+"
                        .into(),
                    origin: Origin::CommandLine,
                });
            }
            "output_format" => {
                let list = v.as_deref().unwrap_or("");
                cmd.output_format =
                    OutputFormat::parse(list).map_err(|why| FioError::BadValue {
                        key: "output-format".into(),
                        value: list.into(),
                        why,
                        origin: Origin::CommandLine,
                    })?;
                continue;
            }
            // fio's progress line: iomark prints none, so these are checked and ignored
            "eta" => {
                let t = v.as_deref().unwrap_or("");
                if !["never", "always", "auto"].contains(&t) {
                    return Err(FioError::BadValue {
                        key: "eta".into(),
                        value: t.into(),
                        why: "accepted: never, always, auto (iomark prints no ETA line)".into(),
                        origin: Origin::CommandLine,
                    });
                }
                continue;
            }
            "eta_newline" | "eta_interval" => {
                let t = v.as_deref().unwrap_or("");
                // fio: eta-newline's plain number is seconds, eta-interval's milliseconds
                let unit = if k.contains("newline") { 1_000_000_000 } else { 1_000_000 };
                parse_time(t, unit).map_err(|e| FioError::BadValue {
                    key: k.into(),
                    value: t.into(),
                    why: e,
                    origin: Origin::CommandLine,
                })?;
                continue;
            }
            "parse_only" | "warnings_fatal" | "minimal" if v.is_some() => {
                return Err(FioError::Usage(format!(
                    "--{k} takes no value (write --{k})"
                )));
            }
            "parse_only" => {
                cmd.parse_only = true;
                continue;
            }
            "warnings_fatal" => {
                cmd.warnings_fatal = true;
                continue;
            }
            "minimal" => {
                return Err(FioError::Usage(
                    "--minimal: terse output is not supported by iomark (accepted: --output-format=normal, json, json+)".into(),
                ));
            }
            "output" => {
                let Some(f) = v.filter(|f| !f.is_empty()) else {
                    return Err(FioError::Usage(
                        "--output needs a file name (--output=FILE)".into(),
                    ));
                };
                cmd.output = Some(PathBuf::from(f));
                continue;
            }
            "status_interval" => {
                let t = v.as_deref().unwrap_or("");
                let d = parse_time(t, 1_000_000_000).map_err(|e| FioError::BadValue {
                    key: "status-interval".into(),
                    value: t.into(),
                    why: e,
                    origin: Origin::CommandLine,
                })?;
                if d < Duration::from_millis(100) {
                    return Err(FioError::BadValue {
                        key: "status-interval".into(),
                        value: t.into(),
                        why: "at least 100ms".into(),
                        origin: Origin::CommandLine,
                    });
                }
                cmd.status_interval = Some(d);
                continue;
            }
            "section" => {
                let Some(f) = v.filter(|f| !f.is_empty()) else {
                    return Err(FioError::Usage(
                        "--section needs a job-file section name (--section=NAME)".into(),
                    ));
                };
                cmd.sections.push(f);
                continue;
            }
            "plot" => {
                let Some(f) = v.clone().filter(|f| !f.is_empty()) else {
                    return Err(FioError::Usage(
                        "--plot needs a directory (--plot=DIR)".into(),
                    ));
                };
                cmd.plot = Some(PathBuf::from(f));
                continue;
            }
            "json" => {
                let Some(f) = v.filter(|f| !f.is_empty()) else {
                    return Err(FioError::Usage(
                        "--json needs a file name (--json=FILE)".into(),
                    ));
                };
                cmd.json_file = Some(PathBuf::from(f));
                continue;
            }
            "allow_destructive_write" => {
                let Some(f) = v.filter(|f| !f.is_empty()) else {
                    return Err(FioError::Usage(
                        "--allow-destructive-write needs the device it allows (--allow-destructive-write=/dev/sdX)".into(),
                    ));
                };
                cmd.own_options
                    .push(("allow-destructive-write".into(), f.clone()));
                cmd.allow_destructive_write.push(PathBuf::from(f));
                continue;
            }
            "reap_spin" => {
                let t = v.as_deref().unwrap_or("");
                reap_spin = Some(parse_reap_spin(t).map_err(|why| FioError::BadValue {
                    key: "reap-spin".into(),
                    value: t.into(),
                    why,
                    origin: Origin::CommandLine,
                })?);
                cmd.own_options.push(("reap-spin".into(), t.trim().into()));
                continue;
            }
            "engine_strict" => {
                cmd.engine_strict =
                    parse_bool("engine-strict", v.as_deref(), &Origin::CommandLine)?;
                cmd.own_options.push((
                    "engine-strict".into(),
                    if cmd.engine_strict { "" } else { "0" }.into(),
                ));
                continue;
            }
            "name" => {
                let n = v.clone().unwrap_or_default();
                cli_sections.push((n, Vec::new()));
            }
            _ => {}
        }
        let entry = Entry {
            key: k.to_string(),
            value: v,
            origin: Origin::CommandLine,
        };
        if let Some(last) = cli_sections.last_mut() {
            last.1.push(entry);
        }
    }
    // Command-line globals first (they apply to job-file jobs too).
    let mut base = FioJob::default();
    let globals = cli_sections.remove(0).1;
    for e in &globals {
        apply(
            &mut base,
            &e.key,
            e.value.as_deref(),
            &e.origin,
            &mut cmd.notices,
        )?;
        cmd.global_options
            .push((e.key.clone(), e.value.clone().unwrap_or_default()));
    }
    base.options.clear();
    for f in &files {
        let secs = if f.as_os_str() == "-" {
            // fio: `-` reads the job file from standard input
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|e| {
                FioError::Usage(format!(
                    "cannot read the job file from standard input (-): {e}"
                ))
            })?;
            ini::parse_str_with(&text, Path::new(STDIN_NAME), env)?
        } else {
            ini::parse_file_with(f, env)?
        };
        let pairs: Vec<(String, Vec<Entry>)> = secs
            .into_iter()
            .filter(|s| {
                cmd.sections.is_empty() || s.name == "global" || cmd.sections.contains(&s.name)
            })
            .map(|s| (s.name, s.entries))
            .collect();
        jobs_from_sections(&pairs, &mut cmd, &base)?;
    }
    for (name, entries) in &cli_sections {
        let mut job = base.clone();
        job.name = name.clone();
        for e in entries {
            apply(
                &mut job,
                &e.key,
                e.value.as_deref(),
                &e.origin,
                &mut cmd.notices,
            )?;
        }
        if job.name.is_empty() {
            return Err(FioError::Usage("--name needs a value".into()));
        }
        finish(&mut job, &mut cmd.notices);
        crate::job::fio::zone_keys::settle(&mut job)?;
        validate(&job)?;
        cmd.jobs.push(job);
    }
    for s in &cmd.sections {
        if !cmd.jobs.iter().any(|j| &j.name == s) {
            return Err(FioError::Usage(format!(
                "--section={s}: no job-file section of that name"
            )));
        }
    }
    for (i, j) in cmd.jobs.iter().enumerate() {
        if let Some(w) = &j.more.wait_for {
            if !cmd.jobs[..i].iter().any(|x| &x.name == w) {
                return Err(FioError::Job {
                    job: j.name.clone(),
                    why: format!("wait_for={w} names no job defined before it"),
                });
            }
        }
    }
    if cmd.jobs.is_empty() {
        return Err(FioError::Usage(
            "no jobs: give --name=NAME with options, or a job file".into(),
        ));
    }
    if let Some(ns) = reap_spin {
        for j in &mut cmd.jobs {
            j.reap_spin_ns = ns;
        }
    }
    Ok(cmd)
}

/// fio keys of type `FIO_OPT_STR_SET` (fio's `--key` is `optional_argument`: a bare key
/// sets it, and the next word is never its value; `fio --time_based 1` reads job file `1`),
/// plus iomark's own flag `--engine-strict`.
const FLAG_KEYS: &[&str] = &[
    "time_based",
    "group_reporting",
    "thread",
    "threads",
    "norandommap",
    "zero_buffers",
    "refill_buffers",
    "stonewall",
    "wait_for_previous",
    "new_group",
    "exitall",
    "exitall_on_error",
    "sqthread_poll",
    "hipri",
    "verify_only",
    "engine_strict",
    "showcmd",
];

/// iomark's own command-line options that take a value.
const OWN_VALUE_KEYS: &[&str] = &[
    "output_format",
    "output",
    "status_interval",
    "section",
    "plot",
    "json",
    "allow_destructive_write",
    "reap_spin",
    "eta",
    "eta_newline",
    "eta_interval",
];

/// For `--KEY` written without `=VALUE`, whether the next word `next` is its value, as
/// fio's getopt does (`--bs 8k`): `Some(next)` when it is. Keys that need a value take the
/// next word, and error `--KEY needs a value (--KEY=VALUE)` (exit 2) when there is none or
/// it is another `--option`; flag keys ([`FLAG_KEYS`]) never take it; other boolean keys
/// (fio `FIO_OPT_BOOL`, e.g. `--direct 1`) take it only when it is a boolean word, so
/// `--direct job.fio` still reads `job.fio`. Unknown keys take nothing (they are reported
/// later with their own message).
fn separate_value<'a>(key: &str, next: Option<&'a str>) -> Result<Option<&'a str>, FioError> {
    let k = key.trim().replace('-', "_");
    if FLAG_KEYS.contains(&k.as_str()) {
        return Ok(None);
    }
    let needs_value = OWN_VALUE_KEYS.contains(&k.as_str())
        || match apply(
            &mut FioJob::default(),
            key,
            None,
            &Origin::CommandLine,
            &mut Vec::new(),
        ) {
            Ok(()) => false,
            Err(FioError::UnsupportedKey { .. } | FioError::EngineKey { .. }) => return Ok(None),
            Err(_) => true,
        };
    if !needs_value {
        const BOOL_WORDS: &[&str] = &["0", "1", "true", "false", "yes", "no", "on", "off"];
        return Ok(next.filter(|n| BOOL_WORDS.contains(&n.to_ascii_lowercase().as_str())));
    }
    match next {
        Some(n) if !n.starts_with("--") => Ok(Some(n)),
        // these have their own `--KEY needs a ... (--KEY=FORM)` message
        _ if [
            "output",
            "section",
            "plot",
            "json",
            "allow_destructive_write",
        ]
        .contains(&k.as_str()) =>
        {
            Ok(None)
        }
        _ => Err(FioError::Usage(format!(
            "--{key} needs a value (--{key}=VALUE)"
        ))),
    }
}

/// Parse one job file into a command (no command-line options).
pub fn parse_job_file(path: &Path) -> Result<FioCommand, FioError> {
    parse_args(&[path.display().to_string()])
}

/// "; did you mean 'KEY'?" when an accepted key is spelled almost like `key` (normalised
/// Damerau–Levenshtein similarity ≥ 0.8, strsim), else nothing: a typo such as `iodpeth`
/// gets the right name, an option iomark lacks gets no misleading guess.
fn did_you_mean(key: &str) -> String {
    let k = key.trim().replace('-', "_").to_ascii_lowercase();
    if k.len() < 3 {
        return String::new();
    }
    crate::job::fio::apply::SUPPORTED_KEYS
        .iter()
        .chain(crate::job::fio::keys::MORE_KEYS)
        .map(|c| (strsim::normalized_damerau_levenshtein(&k, c), *c))
        .filter(|(s, _)| *s >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or_else(String::new, |(_, c)| format!("; did you mean '{c}'?"))
}

#[cfg(test)]
mod tests;
