//! fio's option model for `iomark run`: command-line jobs and INI job files → validated
//! [`FioJob`]s (stage 1 of DESIGN.md: pure, no I/O except reading job files).
//!
//! Units follow fio's `parse.c` (fio 3.x HOWTO "Parameter types"): with the default
//! `kb_base=1024`, `k/m/g/t/p` (and `kb`, `mb`…) are powers of 1024 while the IEC forms
//! `ki/kib/mi/mib…` are powers of 1000 (fio's "compatibility mode"); `kb_base=1000` swaps
//! them. Times default to seconds (`runtime=10`), with `us/ms/s/m/h/d` suffixes. Keys are
//! matched with `-` and `_` interchangeable. A key iomark does not implement is an error
//! naming it (and `file:line` for job files): nothing is silently ignored.

use super::fio_ini::{self, Entry, IniError, Origin};
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
    #[error("{origin}: option '{key}' is not supported by iomark")]
    UnsupportedKey {
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
}

impl RwMode {
    /// Random offsets?
    pub fn random(self) -> bool {
        matches!(self, RwMode::RandRead | RwMode::RandWrite | RwMode::RandRw)
    }
    /// Issues reads?
    pub fn reads(self) -> bool {
        !matches!(self, RwMode::Write | RwMode::RandWrite)
    }
    /// Issues writes?
    pub fn writes(self) -> bool {
        !matches!(self, RwMode::Read | RwMode::RandRead)
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

/// Output format of the run (`--output-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// fio-like human summary
    #[default]
    Normal,
    /// fio JSON, and nothing else, on stdout
    Json,
}

/// One fio job (one `[section]` or one `--name=` group), validated.
#[derive(Clone, Debug, PartialEq)]
pub struct FioJob {
    /// `name` (section name for job files)
    pub name: String,
    /// `rw`
    pub rw: RwMode,
    /// `rw=…:N`: sequential jobs skip N bytes after each I/O; random jobs issue N
    /// sequential I/Os per random offset (0 = none)
    pub rw_suffix: u64,
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
    /// options set for this job, as written (for JSON "job options")
    pub options: Vec<(String, String)>,
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
            options: Vec::new(),
            allow_mounted_write: false,
            readonly: false,
            sqthread_poll: false,
            sqthread_poll_cpu: None,
            hipri: false,
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
    /// `--allow-destructive-write=DEV` (command line only, repeatable): devices the
    /// block-device guard lets jobs write to
    pub allow_destructive_write: Vec<PathBuf>,
    /// `--engine-strict`: exit 3 instead of falling back to psync when io_uring is denied
    pub engine_strict: bool,
}

// ---------------------------------------------------------------- value parsers

fn bad(key: &str, value: &str, why: impl Into<String>, origin: &Origin) -> FioError {
    FioError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        why: why.into(),
        origin: origin.clone(),
    }
}

/// Multiplier of a size suffix (lower case, without the number); `None` if unknown.
fn size_mult(suffix: &str, kb_base: u64) -> Option<u64> {
    let (alt, pow) = match suffix {
        "" | "b" => return Some(1),
        "k" | "kb" => (false, 1),
        "m" | "mb" => (false, 2),
        "g" | "gb" => (false, 3),
        "t" | "tb" => (false, 4),
        "p" | "pb" => (false, 5),
        "ki" | "kib" => (true, 1),
        "mi" | "mib" => (true, 2),
        "gi" | "gib" => (true, 3),
        "ti" | "tib" => (true, 4),
        "pi" | "pib" => (true, 5),
        _ => return None,
    };
    // fio compatibility mode: with kb_base=1024 the IEC forms are decimal, and vice versa.
    let base = match (kb_base, alt) {
        (1000, false) => 1000u64,
        (1000, true) => 1024,
        (_, false) => 1024,
        (_, true) => 1000,
    };
    base.checked_pow(pow)
}

/// Parse a fio size (`4k`, `1MiB`, `512`, `0x1000`) in bytes. `Err` explains why.
pub fn parse_size(s: &str, kb_base: u64) -> Result<u64, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("empty size".into());
    }
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).map_err(|_| format!("'{t}' is not a hex number"));
    }
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suf) = t.split_at(end);
    if num.is_empty() {
        return Err(format!("'{t}' does not start with a number"));
    }
    let mult = size_mult(&suf.trim().to_ascii_lowercase(), kb_base).ok_or_else(|| {
        format!("unknown unit '{suf}' (accepted: k, m, g, t, p, with optional b/ib, e.g. 4k, 1MiB)")
    })?;
    if num.contains('.') {
        let f: f64 = num
            .parse()
            .map_err(|_| format!("'{num}' is not a number"))?;
        let v = f * mult as f64;
        if !v.is_finite() || v >= u64::MAX as f64 {
            return Err("too large".into());
        }
        Ok(v as u64)
    } else {
        let n: u64 = num.parse().map_err(|_| format!("'{num}' is too large"))?;
        n.checked_mul(mult).ok_or_else(|| "too large".to_string())
    }
}

/// Parse `a-b` (or `a:b`) or a single size as a range `(min, max)`, min ≤ max.
pub fn parse_range(s: &str, kb_base: u64) -> Result<(u64, u64), String> {
    let parts: Vec<&str> = s.splitn(2, ['-', ':']).collect();
    let a = parse_size(parts[0], kb_base)?;
    let b = match parts.get(1) {
        Some(p) => parse_size(p, kb_base)?,
        None => a,
    };
    Ok((a.min(b), a.max(b)))
}

/// Parse a fio time value: default unit `default_unit_ns` (1e9 for seconds), suffixes
/// `us`, `ms`, `s`, `m`, `h`, `d` (and `usec`, `msec`, `sec`, `min`).
pub fn parse_time(s: &str, default_unit_ns: u64) -> Result<Duration, String> {
    let t = s.trim();
    let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, suf) = t.split_at(end);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("'{t}' is not a time (e.g. 10, 10s, 500ms, 1m)"))?;
    let unit: u64 = match suf.trim().to_ascii_lowercase().as_str() {
        "" => default_unit_ns,
        "ns" | "nsec" => 1,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => 1_000_000_000,
        "m" | "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        other => {
            return Err(format!(
                "unknown time unit '{other}' (accepted: us, ms, s, m, h, d)"
            ))
        }
    };
    n.checked_mul(unit)
        .map(Duration::from_nanos)
        .ok_or_else(|| "too large".to_string())
}

/// Parse one direction of `bssplit` (`4k/10:64k/50:32k/40`). Entries without a weight
/// share what the others leave of 100 equally (fio). Weights must sum to 100.
pub fn parse_bssplit_dir(s: &str, kb_base: u64) -> Result<Vec<(u64, u32)>, BssplitError> {
    let mut given: Vec<(u64, Option<u32>)> = Vec::new();
    for part in s.split(':').filter(|p| !p.trim().is_empty()) {
        let (bs, w) = match part.split_once('/') {
            Some((b, w)) if !w.trim().is_empty() => {
                let w: u32 = w.trim().parse().map_err(|_| {
                    BssplitError::Syntax(format!("weight '{w}' is not a whole percent"))
                })?;
                (b, Some(w))
            }
            Some((b, _)) => (b, None),
            None => (part, None),
        };
        let bs = parse_size(bs, kb_base).map_err(BssplitError::Syntax)?;
        if bs == 0 {
            return Err(BssplitError::Syntax("block size 0".into()));
        }
        given.push((bs, w));
    }
    if given.is_empty() {
        return Err(BssplitError::Syntax("no block sizes".into()));
    }
    let sum: u64 = given.iter().filter_map(|g| g.1).map(u64::from).sum();
    let open = given.iter().filter(|g| g.1.is_none()).count() as u64;
    if sum > 100 || (open == 0 && sum != 100) {
        return Err(BssplitError::Sum(sum));
    }
    let mut out = Vec::with_capacity(given.len());
    let mut left = 100 - sum;
    let mut open_left = open;
    for (bs, w) in given {
        let w = match w {
            Some(w) => w,
            None => {
                let share = left / open_left.max(1);
                left -= share;
                open_left -= 1;
                share as u32
            }
        };
        out.push((bs, w));
    }
    Ok(out)
}

/// Why a bssplit failed.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum BssplitError {
    /// malformed entry
    #[error("{0}")]
    Syntax(String),
    /// weights sum to this, not 100
    #[error("weights sum to {0}, must be 100")]
    Sum(u64),
}

fn parse_bool(key: &str, v: Option<&str>, origin: &Origin) -> Result<bool, FioError> {
    match v.map(str::trim) {
        None | Some("1") | Some("true") | Some("yes") | Some("on") => Ok(true),
        Some("0") | Some("false") | Some("no") | Some("off") => Ok(false),
        Some(o) => Err(bad(key, o, "expected 0 or 1", origin)),
    }
}

fn parse_u64(key: &str, v: &str, origin: &Origin) -> Result<u64, FioError> {
    v.trim()
        .parse()
        .map_err(|_| bad(key, v, "expected a whole number", origin))
}

// ---------------------------------------------------------------- option application

/// Keys iomark implements (canonical spelling, `_` form).
pub const SUPPORTED_KEYS: &[&str] = &[
    "name",
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "bsrange",
    "blocksize_range",
    "bssplit",
    "size",
    "filesize",
    "nrfiles",
    "nr_files",
    "filename",
    "directory",
    "numjobs",
    "ioengine",
    "iodepth",
    "direct",
    "buffered",
    "fsync",
    "end_fsync",
    "runtime",
    "timeout",
    "time_based",
    "ramp_time",
    "loops",
    "number_ios",
    "randseed",
    "norandommap",
    "group_reporting",
    "thread",
    "stonewall",
    "wait_for_previous",
    "kb_base",
    "description",
];

fn need<'a>(key: &str, v: Option<&'a str>, origin: &Origin) -> Result<&'a str, FioError> {
    v.ok_or_else(|| bad(key, "", "a value is required", origin))
}

/// Apply one `key[=value]` to `job`. `notices` collects one-line remarks.
pub fn apply(
    job: &mut FioJob,
    key_raw: &str,
    value: Option<&str>,
    origin: &Origin,
    notices: &mut Vec<String>,
) -> Result<(), FioError> {
    let key = key_raw.trim().replace('-', "_");
    let kb = job.kb_base;
    let size = |v: &str| parse_size(v, kb).map_err(|e| bad(&key, v, e, origin));
    match key.as_str() {
        "name" => job.name = need(&key, value, origin)?.to_string(),
        "description" => {}
        "rw" | "readwrite" => {
            let v = need(&key, value, origin)?;
            let (mode, suffix) = match v.split_once(':') {
                Some((m, n)) => (m.trim(), Some(n.trim())),
                None => (v.trim(), None),
            };
            job.rw = match mode {
                "read" => RwMode::Read,
                "write" => RwMode::Write,
                "randread" => RwMode::RandRead,
                "randwrite" => RwMode::RandWrite,
                "rw" | "readwrite" => RwMode::ReadWrite,
                "randrw" => RwMode::RandRw,
                "trim" | "randtrim" | "trimwrite" | "randtrimwrite" => {
                    return Err(bad(&key, v, "trim modes are not supported by iomark", origin))
                }
                _ => {
                    return Err(bad(
                        &key,
                        v,
                        "accepted: read, write, randread, randwrite, rw, readwrite, randrw (optionally :N)",
                        origin,
                    ))
                }
            };
            job.rw_suffix = match suffix {
                None | Some("") => 0,
                Some(n) if job.rw.random() => parse_u64(&key, n, origin)?,
                Some(n) => size(n)?,
            };
        }
        "rwmixread" | "rwmixwrite" => {
            let v = need(&key, value, origin)?;
            let n = parse_u64(&key, v, origin)?;
            if n > 100 {
                return Err(bad(&key, v, "a percentage 0-100", origin));
            }
            job.rwmixread = if key == "rwmixread" {
                n as u32
            } else {
                100 - n as u32
            };
        }
        "bs" | "blocksize" => {
            let v = need(&key, value, origin)?;
            let parts: Vec<&str> = v.split(',').collect();
            if parts.len() > 3 {
                return Err(bad(&key, v, "at most read,write,trim sizes", origin));
            }
            let one = |p: &str| -> Result<Option<u64>, FioError> {
                if p.trim().is_empty() {
                    return Ok(None);
                }
                let b = size(p)?;
                if b == 0 {
                    return Err(bad(&key, v, "block size must be > 0", origin));
                }
                Ok(Some(b))
            };
            let r = one(parts[0])?;
            let w = match parts.get(1) {
                Some(p) => one(p)?,
                None => r,
            };
            if let Some(r) = r {
                job.bs_read = BlockSizes::Fixed(r);
            }
            if let Some(w) = w {
                job.bs_write = BlockSizes::Fixed(w);
            }
        }
        "bsrange" | "blocksize_range" => {
            let v = need(&key, value, origin)?;
            let parts: Vec<&str> = v.split(',').collect();
            let one = |p: &str| -> Result<Option<BlockSizes>, FioError> {
                if p.trim().is_empty() {
                    return Ok(None);
                }
                let (a, b) = parse_range(p, kb).map_err(|e| bad(&key, v, e, origin))?;
                if a == 0 {
                    return Err(bad(&key, v, "block size must be > 0", origin));
                }
                Ok(Some(if a == b {
                    BlockSizes::Fixed(a)
                } else {
                    BlockSizes::Range(a, b)
                }))
            };
            let r = one(parts[0])?;
            let w = match parts.get(1) {
                Some(p) => one(p)?,
                None => r.clone(),
            };
            if let Some(r) = r {
                job.bs_read = r;
            }
            if let Some(w) = w {
                job.bs_write = w;
            }
        }
        "bssplit" => {
            let v = need(&key, value, origin)?;
            let parts: Vec<&str> = v.split(',').collect();
            let one = |p: &str| -> Result<Option<BlockSizes>, FioError> {
                if p.trim().is_empty() {
                    return Ok(None);
                }
                match parse_bssplit_dir(p, kb) {
                    Ok(s) => Ok(Some(BlockSizes::Split(s))),
                    Err(BssplitError::Sum(sum)) => Err(FioError::BssplitSum {
                        value: v.to_string(),
                        sum,
                        origin: origin.clone(),
                    }),
                    Err(BssplitError::Syntax(e)) => Err(bad(&key, v, e, origin)),
                }
            };
            let r = one(parts[0])?;
            let w = match parts.get(1) {
                Some(p) => one(p)?,
                None => r.clone(),
            };
            if let Some(r) = r {
                job.bs_read = r;
            }
            if let Some(w) = w {
                job.bs_write = w;
            }
        }
        "size" => {
            let v = need(&key, value, origin)?;
            job.size = Some(match v.trim().strip_suffix('%') {
                Some(p) => {
                    let f: f64 = p
                        .trim()
                        .parse()
                        .map_err(|_| bad(&key, v, "a percentage like 50%", origin))?;
                    if !(f > 0.0 && f <= 100.0) {
                        return Err(bad(&key, v, "percentage must be in (0, 100]", origin));
                    }
                    SizeSpec::Percent(f)
                }
                None => SizeSpec::Bytes(size(v)?),
            });
        }
        "filesize" => {
            let v = need(&key, value, origin)?;
            job.filesize = Some(parse_range(v, kb).map_err(|e| bad(&key, v, e, origin))?);
        }
        "nrfiles" | "nr_files" => {
            let v = need(&key, value, origin)?;
            let n = parse_u64(&key, v, origin)?;
            if n == 0 || n > 1_000_000 {
                return Err(bad(&key, v, "between 1 and 1000000", origin));
            }
            job.nrfiles = n as u32;
        }
        "filename" => job.filename = Some(need(&key, value, origin)?.to_string()),
        "directory" => job.directory = Some(PathBuf::from(need(&key, value, origin)?)),
        "numjobs" => {
            let v = need(&key, value, origin)?;
            let n = parse_u64(&key, v, origin)?;
            if n == 0 || n > 4096 {
                return Err(bad(&key, v, "between 1 and 4096", origin));
            }
            job.numjobs = n as u32;
        }
        "ioengine" => {
            let v = need(&key, value, origin)?.trim();
            job.engine = match v {
                "psync" | "sync" | "pvsync" => EngineKind::Psync,
                "io_uring" => EngineKind::IoUring,
                "libaio" | "posixaio" => {
                    let n = format!("note: ioengine={v} runs on io_uring in iomark");
                    if !notices.contains(&n) {
                        notices.push(n);
                    }
                    EngineKind::IoUring
                }
                "mmap" => EngineKind::Mmap,
                "null" => EngineKind::Null,
                _ => {
                    return Err(FioError::UnsupportedEngine {
                        engine: v.to_string(),
                        origin: origin.clone(),
                    })
                }
            };
        }
        "iodepth" => {
            let v = need(&key, value, origin)?;
            let n = parse_u64(&key, v, origin)?;
            if n == 0 || n > 65_536 {
                return Err(bad(&key, v, "between 1 and 65536", origin));
            }
            job.iodepth = n as u32;
        }
        "direct" => job.direct = parse_bool(&key, value, origin)?,
        "buffered" => job.direct = !parse_bool(&key, value, origin)?,
        "fsync" => job.fsync = parse_u64(&key, need(&key, value, origin)?, origin)?,
        "end_fsync" => job.end_fsync = parse_bool(&key, value, origin)?,
        "runtime" | "timeout" => {
            let v = need(&key, value, origin)?;
            let d = parse_time(v, 1_000_000_000).map_err(|e| bad(&key, v, e, origin))?;
            job.runtime = (!d.is_zero()).then_some(d);
        }
        "time_based" => job.time_based = parse_bool(&key, value, origin)?,
        "ramp_time" => {
            let v = need(&key, value, origin)?;
            job.ramp_time = parse_time(v, 1_000_000_000).map_err(|e| bad(&key, v, e, origin))?;
        }
        "loops" => {
            let v = need(&key, value, origin)?;
            job.loops = parse_u64(&key, v, origin)?.max(1);
        }
        "number_ios" => job.number_ios = parse_u64(&key, need(&key, value, origin)?, origin)?,
        "randseed" => job.randseed = Some(parse_u64(&key, need(&key, value, origin)?, origin)?),
        "norandommap" => job.norandommap = parse_bool(&key, value, origin)?,
        "group_reporting" => job.group_reporting = parse_bool(&key, value, origin)?,
        "thread" => job.thread = parse_bool(&key, value, origin)?,
        "stonewall" | "wait_for_previous" => job.stonewall = parse_bool(&key, value, origin)?,
        "allow_mounted_write" => job.allow_mounted_write = parse_bool(&key, value, origin)?,
        "readonly" | "read_only" => job.readonly = parse_bool(&key, value, origin)?,
        "sqthread_poll" => job.sqthread_poll = parse_bool(&key, value, origin)?,
        "sqthread_poll_cpu" => {
            let v = need(&key, value, origin)?;
            let n = parse_u64(&key, v, origin)?;
            job.sqthread_poll_cpu =
                Some(u32::try_from(n).map_err(|_| bad(&key, v, "a CPU number", origin))?);
        }
        "hipri" => job.hipri = parse_bool(&key, value, origin)?,
        "kb_base" => {
            let v = need(&key, value, origin)?;
            job.kb_base = match v.trim() {
                "1024" => 1024,
                "1000" => 1000,
                _ => return Err(bad(&key, v, "1024 or 1000", origin)),
            };
        }
        _ => {
            return Err(FioError::UnsupportedKey {
                key: key_raw.trim().to_string(),
                origin: origin.clone(),
            })
        }
    }
    if key != "name" {
        job.options
            .push((key_raw.trim().to_string(), value.unwrap_or("").to_string()));
    }
    Ok(())
}

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
    if job.time_based && job.runtime.is_none() {
        return Err(err("time_based needs runtime=".into()));
    }
    if job.readonly && job.rw.writes() {
        return Err(err(
            "readonly=1 forbids a job that writes (rw=read or randread only)".into(),
        ));
    }
    if (job.hipri || job.sqthread_poll || job.sqthread_poll_cpu.is_some())
        && job.engine != EngineKind::IoUring
    {
        return Err(err(format!(
            "hipri, sqthread_poll and sqthread_poll_cpu apply to ioengine=io_uring only (ioengine={})",
            job.engine.name()
        )));
    }
    if job.hipri && !job.direct {
        return Err(err(
            "hipri=1 (completion polling) needs direct=1: polling works on O_DIRECT I/O only"
                .into(),
        ));
    }
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
        validate(&job)?;
        cmd.jobs.push(job);
    }
    Ok(())
}

/// Parse `iomark run` arguments: `--key=value` options (those before the first `--name`
/// are global), `--output-format`, `--json=FILE`, and job files (any non-option word).
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
    let mut cli_sections: Vec<(String, Vec<Entry>)> = vec![("global".into(), Vec::new())];
    let mut files: Vec<PathBuf> = Vec::new();
    for a in args {
        let Some(opt) = a.strip_prefix("--") else {
            if a.starts_with('-') && a.len() > 1 {
                return Err(FioError::Usage(format!(
                    "'{a}': options are written --key=value"
                )));
            }
            files.push(PathBuf::from(a));
            continue;
        };
        let (k, v) = match opt.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (opt, None),
        };
        match k.replace('-', "_").as_str() {
            "output_format" => {
                cmd.output_format = match v.as_deref() {
                    Some("normal") => OutputFormat::Normal,
                    Some("json") => OutputFormat::Json,
                    other => {
                        return Err(FioError::BadValue {
                            key: "output-format".into(),
                            value: other.unwrap_or("").into(),
                            why: "accepted: normal, json".into(),
                            origin: Origin::CommandLine,
                        })
                    }
                };
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
                cmd.allow_destructive_write.push(PathBuf::from(f));
                continue;
            }
            "engine_strict" => {
                cmd.engine_strict =
                    parse_bool("engine-strict", v.as_deref(), &Origin::CommandLine)?;
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
        let secs = fio_ini::parse_file_with(f, env)?;
        let pairs: Vec<(String, Vec<Entry>)> =
            secs.into_iter().map(|s| (s.name, s.entries)).collect();
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
        validate(&job)?;
        cmd.jobs.push(job);
    }
    if cmd.jobs.is_empty() {
        return Err(FioError::Usage(
            "no jobs: give --name=NAME with options, or a job file".into(),
        ));
    }
    Ok(cmd)
}

/// Parse one job file into a command (no command-line options).
pub fn parse_job_file(path: &Path) -> Result<FioCommand, FioError> {
    parse_args(&[path.display().to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_units() {
        assert_eq!(parse_size("4k", 1024), Ok(4096));
        assert_eq!(parse_size("4KiB", 1024), Ok(4000));
        assert_eq!(parse_size("4KiB", 1000), Ok(4096));
        assert_eq!(parse_size("4k", 1000), Ok(4000));
        assert_eq!(parse_size("1m", 1024), Ok(1_048_576));
        assert_eq!(parse_size("1g", 1024), Ok(1 << 30));
        assert_eq!(parse_size("512", 1024), Ok(512));
        assert_eq!(parse_size("0x1000", 1024), Ok(4096));
        assert!(parse_size("4q", 1024).is_err());
        assert!(parse_size("", 1024).is_err());
        assert!(parse_size("99999999999999999999", 1024).is_err());
    }

    #[test]
    fn fio_times() {
        assert_eq!(parse_time("10", 1_000_000_000), Ok(Duration::from_secs(10)));
        assert_eq!(
            parse_time("500ms", 1_000_000_000),
            Ok(Duration::from_millis(500))
        );
        assert_eq!(parse_time("1m", 1_000_000_000), Ok(Duration::from_secs(60)));
        assert!(parse_time("1y", 1_000_000_000).is_err());
    }
}
