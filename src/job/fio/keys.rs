//! Values of the fio keys beyond the core ones of [`crate::job::fio::FioJob`]: access
//! distributions, rate and think time, start delay, I/O amount, alignment, buffer
//! contents, sync flavours, verify, logs, percentiles and job ordering, held in
//! [`JobMore`], with the parsers of their value syntaxes (pure, no I/O). The keys are
//! entries of the option table (`job/fio/options/`).
//!
//! Semantics and defaults follow the fio 3.x HOWTO for each key (quoted per field).
//! Rates are bytes/s per job thread, think times default to microseconds and start
//! delays to seconds, as in fio.

use crate::job::units::fio_size;
use std::time::Duration;

/// `random_distribution` and `rate_process` values are the one job model's
/// (`job/model/`), named here too.
pub use crate::job::model::{Distribution, RateProcess};

/// Smallest block a checksum verify can use, bytes (its header; see run/fio_verify).
pub const VERIFY_HEADER: u64 = 64;

/// Which jobs `exitall` ends when a job finishes (`exit_what`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ExitWhat {
    /// the jobs of the same reporting group (`group`, the default)
    #[default]
    Group,
    /// every running job; the next stonewall group still runs (`stonewall`)
    Stonewall,
    /// every job; later groups do not run (`all`)
    All,
}

/// `fadvise_hint` values (fio 3.33 HOWTO: 0, 1, sequential, random).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FadviseHint {
    /// `0`: no advice
    None,
    /// `1` (default): advice after the workload type (random or sequential)
    Type,
    /// `sequential`: POSIX_FADV_SEQUENTIAL
    Sequential,
    /// `random`: POSIX_FADV_RANDOM
    Random,
}

impl FadviseHint {
    /// The posix_fadvise(2) advice for a job whose offsets are random or not; `None`
    /// for `fadvise_hint=0`.
    pub fn advice(self, random: bool) -> Option<libc::c_int> {
        match self {
            FadviseHint::None => None,
            FadviseHint::Type if random => Some(libc::POSIX_FADV_RANDOM),
            FadviseHint::Type | FadviseHint::Sequential => Some(libc::POSIX_FADV_SEQUENTIAL),
            FadviseHint::Random => Some(libc::POSIX_FADV_RANDOM),
        }
    }
}

/// Options of the engines that move no data, with fio's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoDataOpts {
    /// `stat_type` (filestat, dirstat)
    pub stat: crate::util::engines::StatType,
    /// `cpuload`, percent of one CPU (cpuio; 0 = not given)
    pub cpuload: u32,
    /// `cpumode` (cpuio)
    pub cpumode: crate::util::engines::CpuMode,
    /// `cpuchunks`, µs per burn cycle (cpuio, fio's default 50000)
    pub cpuchunks_us: u64,
    /// `openfiles`: files open at once (None: all of them)
    pub openfiles: Option<u32>,
}

impl Default for NoDataOpts {
    fn default() -> Self {
        NoDataOpts {
            stat: Default::default(),
            cpuload: 0,
            cpumode: Default::default(),
            cpuchunks_us: 50_000,
            openfiles: None,
        }
    }
}

/// Options of the exec engine (src/engine/exec.rs), with fio's defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecKeys {
    /// `program` (required by ioengine=exec)
    pub program: Option<String>,
    /// `arguments` (`%r`, `%n` replaced when it starts)
    pub arguments: Option<String>,
    /// `grace_time`: seconds between SIGTERM and SIGKILL (fio's default 1)
    pub grace_time: std::time::Duration,
    /// `std_redirect`: the program's stdout/stderr to JOBNAME.stdout/.stderr (default on)
    pub std_redirect: bool,
}

impl Default for ExecKeys {
    fn default() -> Self {
        ExecKeys {
            program: None,
            arguments: None,
            grace_time: std::time::Duration::from_secs(1),
            std_redirect: true,
        }
    }
}

/// The extra options of one job, with fio's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct JobMore {
    /// `random_distribution` for reads and writes
    pub dist: [Distribution; 2],
    /// `randrepeat` (default 1: same seed every run)
    pub randrepeat: bool,
    /// `percentage_random`: percent of random-mode I/Os at random offsets, the rest
    /// continue sequentially (default 100)
    pub percentage_random: [u32; 3],
    /// `rate`, bytes/s per thread for reads, writes and trims (0 = unlimited)
    pub rate_bytes: [u64; 3],
    /// `rate_iops`, I/Os per second per thread for reads, writes and trims (0 = unlimited)
    pub rate_iops: [u64; 3],
    /// `rate_process`
    pub rate_process: RateProcess,
    /// `thinktime` (default unit µs): pause after every `thinktime_blocks` I/Os
    pub thinktime: Duration,
    /// `thinktime_spin`: part of the pause spent spinning instead of sleeping
    pub thinktime_spin: Duration,
    /// `thinktime_blocks` (default 1)
    pub thinktime_blocks: u64,
    /// `startdelay` (default unit s), a range picks a value per thread
    pub startdelay: (Duration, Duration),
    /// `startdelay=-N` (then `startdelay` is `(N, N)`): fio draws each thread's delay
    /// between -N and N, and a thread that draws a negative one never starts
    pub startdelay_negative: bool,
    /// `io_size` / `io_limit`: bytes to transfer per thread instead of `size`
    pub io_size: Option<u64>,
    /// `io_size=N%`: a whole percentage (1..=100) of the thread's size (all its files'
    /// regions), resolved to [`More::io_size`] when the thread is planned
    pub io_size_pct: Option<u64>,
    /// `blockalign` / `ba`: random offsets of reads, writes and trims are multiples
    /// of these (None: that direction's smallest size)
    pub blockalign: [Option<u64>; 3],
    /// per direction, its sizes came from `bsrange` or `bssplit`: a `bs` given before or
    /// after leaves them (fio 3.33 keeps `bs` apart and uses it only where no range or
    /// split set the direction's sizes)
    pub ranged: [bool; 3],
    /// `filename_format` (default `$jobname.$jobnum.$filenum`)
    pub filename_format: Option<String>,
    /// `iodepth_batch_submit` (0/1 = submit as soon as possible)
    pub iodepth_batch: u32,
    /// `iodepth_batch_complete_min` (default 1)
    pub iodepth_batch_complete_min: u32,
    /// `iodepth_batch_complete_max`: completions taken per reap (0 = fio's default, the
    /// same as `iodepth_batch_complete_min`)
    pub iodepth_batch_complete_max: u32,
    /// `iodepth_low`: once the queue is full, no request is submitted until those in
    /// flight drop to it (0 = fio's default, the depth: the queue is kept full)
    pub iodepth_low: u32,
    /// options of the engines that move no data (`stat_type`, cpuio's)
    pub nodata: NoDataOpts,
    /// `userspace_reap` (libaio): read completions from the kernel's mapped ring when
    /// `iodepth_batch_complete_min=0`, spinning instead of io_getevents
    pub userspace_reap: bool,
    /// `sync=1`/`sync`: open with O_SYNC
    pub sync_io: bool,
    /// `sync=dsync`: open with O_DSYNC
    pub dsync_io: bool,
    /// `fdatasync`: fdatasync after every N writes
    pub fdatasync: u64,
    /// `fsync_on_close`
    pub fsync_on_close: bool,
    /// `fadvise_hint` (fio's default 1: POSIX_FADV_RANDOM for random jobs,
    /// POSIX_FADV_SEQUENTIAL otherwise, on every file or block device the job opens)
    pub fadvise_hint: FadviseHint,
    /// `continue_on_error` (none, read, write, io, verify, all): failed requests of
    /// these kinds are counted as errors and the job goes on; never counted as done
    pub continue_on_error: crate::job::fio::on_error::ContinueOnError,
    /// `invalidate` (default 1): drop the files' page cache before the job
    pub invalidate: bool,
    /// `create_on_open`: no layout; a missing file is created when the job opens it
    pub create_on_open: bool,
    /// `fallocate` mode as written (`none`, `native`, `posix`, `keep`, `truncate`, 0, 1)
    pub fallocate: String,
    /// `zero_buffers`: write buffers are all zero
    pub zero_buffers: bool,
    /// `buffer_pattern` bytes, repeated over each write buffer (empty: none)
    pub buffer_pattern: Vec<u8>,
    /// `refill_buffers`: new random data before every write
    pub refill_buffers: bool,
    /// `buffer_compress_percentage`: each 512-byte chunk ends with this share of zeros
    pub buffer_compress_percentage: u32,
    /// `verify`
    pub verify: Option<super::keys_verify::VerifyKind>,
    /// `verify_pattern` bytes (repeated)
    pub verify_pattern: Vec<u8>,
    /// `do_verify` (default 1): read back what a write job wrote
    pub do_verify: bool,
    /// `verify_fatal`: stop at the first mismatch
    pub verify_fatal: bool,
    /// `write_bw_log` prefix
    pub bw_log: Option<String>,
    /// `write_iops_log` prefix
    pub iops_log: Option<String>,
    /// `write_lat_log` prefix
    pub lat_log: Option<String>,
    /// `write_iolog`: the file the job's issued I/Os are written to (fio's iolog v2)
    pub write_iolog: Option<String>,
    /// `read_iolog` and the `replay_*` keys: replay an I/O log (run/fio/replay.rs)
    pub replay: ReplayKeys,
    /// `donorname` (e4defrag): the donor file, under `directory`
    pub donorname: Option<String>,
    /// `inplace` (e4defrag): allocate and free the donor's range at each request
    pub inplace: bool,
    /// exec's `program`, `arguments`, `grace_time`, `std_redirect`
    pub exec: ExecKeys,
    /// the net engine's options (`hostname`, `port`, `protocol`, …)
    pub net: crate::util::engines::NetOpts,
    /// `log_avg_msec` (0 = one line per I/O)
    pub log_avg_msec: u64,
    /// `bw_avg_time`, ms: interval of the bandwidth samples (fio default 500)
    pub bw_avg_time: u64,
    /// `iops_avg_time`, ms: interval of the IOPS samples (fio default 500)
    pub iops_avg_time: u64,
    /// `bw_avg_time` / `iops_avg_time` were given: a windowed log then keeps them
    /// (job/fio/finish.rs `log_windows`)
    pub avg_time_set: [bool; 2],
    /// `log_offset`: logs carry the offset column
    pub log_offset: bool,
    /// `per_job_logs` (default on): log names carry the thread number
    /// (`PREFIX_bw.N.log`); off, `PREFIX_bw.log`
    pub per_job_logs: bool,
    /// `percentile_list` (percent values)
    pub percentile_list: Option<Vec<f64>>,
    /// the decimals of the text report's percentile labels: the most digits written
    /// after a point in `percentile_list` as typed (fio's `percentile_precision`:
    /// `25.0` gives `25.0th`, which the value alone cannot tell)
    pub percentile_precision: Option<u32>,
    /// `lat_percentiles`: report total-latency percentiles
    pub lat_percentiles: bool,
    /// `clat_percentiles` (default 1)
    pub clat_percentiles: bool,
    /// `wait_for`: start after the named job finished
    pub wait_for: Option<String>,
    /// `offset`: start of the I/O region in each file, bytes or percent
    pub offset: Option<crate::job::fio::SizeSpec>,
    /// `offset_increment`: added per thread (`offset + n × increment`)
    pub offset_increment: u64,
    /// `offset_increment=N%` (N a whole number in 1..=100, fio 3.33's reading): the
    /// increment is N % of each file's size, and the thread's start is aligned up to
    /// `offset_align` or the smallest block size (`offset_increment` is then 0)
    pub offset_increment_pct: Option<u64>,
    /// `exitall` was given (any value: fio 3.33's callback sets its run-wide flag for
    /// `exitall=0` too); with it on any job of the run, every job that finishes ends
    /// the jobs its own `exit_what` names (run/fio/group.rs)
    pub exitall: bool,
    /// `exit_what`
    pub exit_what: ExitWhat,
    /// `gtod_reduce`: do not record latencies (counts and bandwidth only)
    pub gtod_reduce: bool,
    /// `ratemin`: bytes/s per thread below which the job fails (reads, writes, trims)
    pub ratemin: [u64; 3],
    /// `rate_iops_min`: I/Os per second below which the job fails (reads, writes,
    /// trims)
    pub rate_iops_min: [u64; 3],
    /// `ratecycle`: window of the minimum-rate check (default 1000 ms)
    pub ratecycle: Duration,
    /// zone keys (`zonemode`, …) and `random_generator` / `random_sequence_stride`
    pub zones: crate::job::fio::zone_keys::ZoneOpts,
    /// verify-while-writing, error-list, fill and creation keys (`fio_keys_verify`)
    pub x: crate::job::fio::keys_verify::VerifyErrorOpts,
}

/// `read_iolog=FILE` and fio's `replay_*` keys: the I/Os of a job come from an I/O log
/// (fio's iolog v2/v3) instead of its generators.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayKeys {
    /// `read_iolog`: the log to replay
    pub file: Option<String>,
    /// `replay_no_stall`: issue as fast as possible, ignoring the log's times
    pub no_stall: bool,
    /// `replay_redirect`: every I/O goes to this file instead of the log's
    pub redirect: Option<String>,
    /// `replay_scale` (default 1): offsets are divided by it
    pub scale: u64,
    /// `replay_align` (a power of 2, 0 = none): offsets are aligned down to it
    pub align: u64,
    /// `replay_time_scale` (percent, default 100): the log's delays × 100 / it
    pub time_scale: u64,
    /// `replay_skip`: the kinds not replayed (read, write, trim, sync)
    pub skip: ReplaySkip,
}

/// `replay_skip`: which kinds of a log's entries are left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplaySkip {
    pub read: bool,
    pub write: bool,
    pub trim: bool,
    pub sync: bool,
}

impl Default for ReplayKeys {
    fn default() -> Self {
        ReplayKeys {
            file: None,
            no_stall: false,
            redirect: None,
            scale: 1,
            align: 0,
            time_scale: 100,
            skip: ReplaySkip::default(),
        }
    }
}

impl Default for JobMore {
    fn default() -> Self {
        JobMore {
            ranged: [false; 3],
            dist: [Distribution::Random, Distribution::Random],
            randrepeat: true,
            percentage_random: [100; 3],
            rate_bytes: [0; 3],
            rate_iops: [0; 3],
            rate_process: RateProcess::Linear,
            thinktime: Duration::ZERO,
            thinktime_spin: Duration::ZERO,
            thinktime_blocks: 1,
            startdelay: (Duration::ZERO, Duration::ZERO),
            startdelay_negative: false,
            io_size: None,
            io_size_pct: None,
            blockalign: [None; 3],
            filename_format: None,
            iodepth_batch: 1,
            iodepth_batch_complete_min: 1,
            iodepth_batch_complete_max: 0,
            iodepth_low: 0,
            nodata: NoDataOpts::default(),
            userspace_reap: false,
            sync_io: false,
            dsync_io: false,
            fdatasync: 0,
            fsync_on_close: false,
            fadvise_hint: FadviseHint::Type,
            continue_on_error: Default::default(),
            invalidate: true,
            create_on_open: false,
            fallocate: "native".into(),
            zero_buffers: false,
            buffer_pattern: Vec::new(),
            refill_buffers: false,
            buffer_compress_percentage: 0,
            verify: None,
            verify_pattern: Vec::new(),
            do_verify: true,
            verify_fatal: false,
            bw_log: None,
            iops_log: None,
            lat_log: None,
            write_iolog: None,
            replay: ReplayKeys::default(),
            donorname: None,
            net: Default::default(),
            inplace: false,
            exec: ExecKeys::default(),
            log_avg_msec: 0,
            bw_avg_time: 500,
            iops_avg_time: 500,
            avg_time_set: [false; 2],
            log_offset: false,
            per_job_logs: true,
            percentile_list: None,
            percentile_precision: None,
            lat_percentiles: false,
            clat_percentiles: true,
            wait_for: None,
            offset: None,
            offset_increment: 0,
            offset_increment_pct: None,
            exitall: false,
            exit_what: ExitWhat::Group,
            gtod_reduce: false,
            ratemin: [0; 3],
            rate_iops_min: [0; 3],
            ratecycle: Duration::from_millis(1000),
            zones: Default::default(),
            x: Default::default(),
        }
    }
}

/// Parse `random_distribution` for one direction.
pub fn parse_distribution(s: &str, kb_base: u64) -> Result<Distribution, String> {
    let s = s.trim();
    let (kind, arg) = match s.split_once(':') {
        Some((k, a)) => (k.trim(), Some(a.trim())),
        None => (s, None),
    };
    let num = |what: &str| dist_param(kind, arg, what);
    match kind {
        "random" => Ok(Distribution::Random),
        "zipf" => {
            let t = num("theta > 0")?;
            if t <= 0.0 || t > 100.0 {
                return Err("zipf theta must be in (0, 100]".into());
            }
            // fio 3.33: "zipf theta must different than 1.0" (its zeta sums need θ ≠ 1)
            if t == 1.0 {
                return Err("zipf theta must be different from 1.0 (e.g. 0.99 or 1.01)".into());
            }
            Ok(Distribution::Zipf(t, None))
        }
        "pareto" => {
            let h = num("h in (0, 1)")?;
            if !(h > 0.0 && h < 1.0) {
                return Err("pareto h must be in (0, 1)".into());
            }
            Ok(Distribution::Pareto(h, None))
        }
        "normal" | "gauss" => {
            let d = num("sigma in percent")?;
            if !(d > 0.0 && d < 100.0) {
                return Err("normal sigma must be in (0, 100) percent".into());
            }
            Ok(Distribution::Normal(d, None))
        }
        "zoned" | "zoned_abs" => {
            let a = arg.ok_or("zoned needs access/range pairs like 60/10:30/20:10/70")?;
            let zones = parse_zones(a, kind == "zoned", kb_base)?;
            if kind == "zoned" {
                zoned_percent(zones)
            } else {
                zoned_abs(zones)
            }
        }
        "sequence" => parse_sequence(arg),
        _ => Err(
            "accepted: random, zipf:θ, pareto:h, normal:σ, zoned:A/R:…, zoned_abs:A/SIZE:…, sequence:I,J,…".into(),
        ),
    }
}

/// What follows `KIND` of a `zipf`, `pareto` or `normal` distribution read as fio 3.33
/// reads it (options.c `str_random_distribution_cb`, and `str_fst_cb` when
/// `file_service`): `VALUE[:CENTER]` after the first `:`, each number as C's
/// `sscanf("%lf")` reads one, a bare kind taking fio's default (zipf 1.1, pareto 0.2,
/// normal 0); a centre of -1 is none, as fio's unset one. `Err`: fio's own line.
pub fn fio_skew(
    kind: &str,
    post: Option<&str>,
    file_service: bool,
) -> Result<(f64, Option<f64>), String> {
    let mut val = match kind {
        "zipf" => 1.1,
        "pareto" => 0.2,
        _ => 0.0,
    };
    let mut center = -1.0;
    if let Some(p) = post {
        let (v, c) = match p.trim().split_once(':') {
            Some((v, c)) => (v, Some(c)),
            None => (p.trim(), None),
        };
        let read = c.map_or(Some(center), c_float).zip(c_float(v));
        let Some((c, v)) = read else {
            return Err(match file_service {
                true => "fio: file service type random postfix parsing failed".into(),
                false => "fio: random postfix parsing failed".into(),
            });
        };
        (val, center) = (v, c);
    }
    if center != -1.0 && !(0.0..=1.0).contains(&center) && !center.is_nan() {
        return Err("fio: distribution center out of range (0 <= center <= 1.0)".into());
    }
    // C's comparisons, which a NaN passes (fio takes `normal:nan`): no range `contains`
    #[allow(clippy::manual_range_contains)]
    let bad = match kind {
        "zipf" if val == 1.0 && file_service => "fio: zipf theta must be different than 1.0",
        "zipf" if val == 1.0 => "fio: zipf theta must different than 1.0",
        "pareto" if val <= 0.0 || val >= 1.0 => "fio: pareto input out of range (0 < input < 1.0)",
        "normal" if val < 0.0 || val >= 100.0 => {
            "fio: normal deviation out of range (0 <= input < 100.0)"
        }
        _ => return Ok((val, (center != -1.0).then_some(center))),
    };
    Err(bad.into())
}

/// The number C's `sscanf(s, "%lf")` reads at the start of `s` (blanks skipped, the
/// longest prefix that is a number; `None`: none starts it).
fn c_float(s: &str) -> Option<f64> {
    let t = s.trim_start();
    (1..=t.len())
        .rev()
        .filter(|&i| t.is_char_boundary(i))
        .find_map(|i| t[..i].parse::<f64>().ok())
}

/// The number after `KIND:` (`what` names it in errors); a center (`:c`) is refused.
fn dist_param(kind: &str, arg: Option<&str>, what: &str) -> Result<f64, String> {
    let a = arg.ok_or_else(|| format!("{kind} needs a parameter ({what})"))?;
    if a.contains(':') {
        return Err(format!("{kind}: a center (':') is not supported by iomark"));
    }
    a.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("'{a}' is not a number ({what})"))
}

/// `ACCESS/RANGE:…` zones: access percents summing to 100, each with a range (a percent
/// when `percent`, else a size) or none (`ACCESS/`: a share of what is left).
fn parse_zones(a: &str, percent: bool, kb_base: u64) -> Result<Vec<(u32, Option<u64>)>, String> {
    let mut acc_sum = 0u32;
    let mut zones: Vec<(u32, Option<u64>)> = Vec::new();
    for z in a.split(':').filter(|z| !z.trim().is_empty()) {
        let (p, r) = z
            .split_once('/')
            .ok_or_else(|| format!("zone '{z}' is not ACCESS%/RANGE"))?;
        let p: u32 = p
            .trim()
            .parse()
            .ok()
            .filter(|&p| p <= 100)
            .ok_or_else(|| format!("zone '{z}': access percent 0-100"))?;
        acc_sum += p;
        let r = if r.trim().is_empty() {
            None
        } else if percent {
            Some(
                r.trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|&r| r <= 100)
                    .ok_or_else(|| format!("zone '{z}': range percent 0-100"))?,
            )
        } else {
            Some(fio_size(r, kb_base)?)
        };
        zones.push((p, r));
    }
    if zones.is_empty() || acc_sum != 100 {
        return Err(format!(
            "zone access percentages sum to {acc_sum}, must be 100"
        ));
    }
    Ok(zones)
}

/// `zoned:`: range percents summing to 100; zones without one share what is left.
fn zoned_percent(zones: Vec<(u32, Option<u64>)>) -> Result<Distribution, String> {
    let given: u64 = zones.iter().filter_map(|z| z.1).sum();
    let open = zones.iter().filter(|z| z.1.is_none()).count() as u64;
    if given > 100 || (open == 0 && given != 100) {
        return Err(format!("zone ranges sum to {given}%, must be 100%"));
    }
    let mut left = 100 - given;
    let mut open_left = open;
    let out = zones
        .into_iter()
        .map(|(p, r)| {
            let r = r.unwrap_or_else(|| {
                let share = left / open_left.max(1);
                left -= share;
                open_left -= 1;
                share
            });
            (p, r as u32)
        })
        .collect();
    Ok(Distribution::Zoned(out))
}

/// `zoned_abs:`: every zone has a size.
fn zoned_abs(zones: Vec<(u32, Option<u64>)>) -> Result<Distribution, String> {
    if zones.iter().any(|z| z.1.is_none()) {
        return Err("zoned_abs needs a size for every zone".into());
    }
    Ok(Distribution::ZonedAbs(
        zones
            .into_iter()
            .map(|(p, r)| (p, r.unwrap_or(0)))
            .collect(),
    ))
}

/// `sequence:I,J,…`: 1 to 65536 block indices.
fn parse_sequence(arg: Option<&str>) -> Result<Distribution, String> {
    let a = arg.ok_or("sequence needs block indices like sequence:2,0,1")?;
    let v = a
        .split([',', ':'])
        .map(|x| {
            x.trim()
                .parse::<u64>()
                .map_err(|_| format!("sequence: '{}' is not a block index", x.trim()))
        })
        .collect::<Result<Vec<u64>, String>>()?;
    if v.is_empty() || v.len() > 65_536 {
        return Err("sequence needs 1 to 65536 block indices".into());
    }
    Ok(Distribution::Sequence(v))
}

/// The decimals of the percentile labels a `percentile_list` asks for as typed: the
/// most digits after a point in any entry (`50:99.90` gives 2), as fio's parser counts.
pub fn typed_precision(s: &str) -> u32 {
    s.split(':')
        .filter_map(|p| p.trim().split_once('.'))
        .map(|(_, d)| d.chars().take_while(char::is_ascii_digit).count() as u32)
        .max()
        .unwrap_or(0)
}

/// Parse a `percentile_list` (`99:99.9:99.99`), each in (0, 100], at most 64 values.
pub fn parse_percentiles(s: &str) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for p in s.split(':').filter(|p| !p.trim().is_empty()) {
        let v: f64 = p
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v > 0.0 && *v <= 100.0)
            .ok_or_else(|| format!("'{p}' is not a percentile in (0, 100]"))?;
        out.push(v);
    }
    if out.is_empty() || out.len() > 64 {
        return Err("give 1 to 64 percentiles separated by ':'".into());
    }
    Ok(out)
}

/// Parse a `verify_pattern`: fio's pattern syntax ([`parse_fill_pattern`]); a lone
/// decimal number is a little-endian 32-bit value (iomark's integer form; fio's parser
/// stores only its significant bytes).
pub fn parse_pattern(s: &str) -> Result<Vec<u8>, String> {
    let t = s.trim();
    if let Ok(n) = t.parse::<u32>() {
        return Ok(n.to_le_bytes().to_vec());
    }
    parse_fill_pattern(t)
}

/// The longest pattern fio takes (its MAX_PATTERN_SIZE).
const MAX_PATTERN: usize = 512;

/// Parse fio's pattern syntax (`buffer_pattern`, `verify_pattern`): a sequence of
/// `"text"` (the bytes between the quotes), `0x…` hex (each two digits one byte, a
/// leading odd digit its own byte; a following `0x` starts the next number) and decimal
/// numbers in the 32-bit int range (their bytes little-endian, as many as the value
/// needs: `300` is 2c 01, `-12` is f4 ff ff ff, `0` one zero byte), written together:
/// `"abcd"-120xdeadface` is 61 62 63 64 f4 ff ff ff de ad fa ce. At most 512 bytes.
pub fn parse_fill_pattern(s: &str) -> Result<Vec<u8>, String> {
    let bad = |why: &str| {
        format!("'{s}' is not a pattern ({why}; give \"text\", 0xHEX or decimal numbers)")
    };
    let mut out = Vec::new();
    let mut rest = s.trim();
    if rest.is_empty() {
        return Err(bad("empty"));
    }
    while !rest.is_empty() {
        if let Some(q) = rest.strip_prefix('"') {
            let end = q.find('"').ok_or_else(|| bad("a quote is not closed"))?;
            out.extend_from_slice(&q.as_bytes()[..end]);
            rest = &q[end + 1..];
        } else if let Some(h) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            let mut n = h.bytes().take_while(u8::is_ascii_hexdigit).count();
            // `0xff0x14`: the 0 before the next x belongs to the next number
            if n > 0 && h[n..].starts_with(['x', 'X']) {
                n -= 1;
            }
            if n == 0 {
                return Err(bad("0x without hex digits"));
            }
            let digits = &h[..n];
            let (head, tail) = digits.split_at(n % 2);
            out.extend(u8::from_str_radix(head, 16).ok());
            for i in (0..tail.len()).step_by(2) {
                out.push(u8::from_str_radix(&tail[i..i + 2], 16).map_err(|_| bad("bad hex"))?);
            }
            rest = &h[n..];
        } else {
            let b = rest.as_bytes();
            let sign = usize::from(b[0] == b'-' || b[0] == b'+');
            let mut n = sign + b[sign..].iter().take_while(|c| c.is_ascii_digit()).count();
            // a decimal ends where a hex number starts: `-120xab` is -12, then 0xab
            if let Some(x) = rest.to_ascii_lowercase().find("0x").filter(|&x| x < n) {
                n = x;
            }
            if n <= sign {
                return Err(bad("not a string, hex or decimal number"));
            }
            let v: i64 = rest[..n].parse().map_err(|_| bad("not a decimal number"))?;
            let v = i32::try_from(v).map_err(|_| bad("a decimal outside the 32-bit int range"))?;
            let mut u = v as u32;
            if u == 0 {
                out.push(0);
            }
            while u != 0 {
                out.push((u & 0xff) as u8);
                u >>= 8;
            }
            rest = &rest[n..];
        }
        if out.len() > MAX_PATTERN {
            return Err(bad("longer than 512 bytes"));
        }
    }
    if out.is_empty() {
        return Err(bad("empty"));
    }
    Ok(out)
}

/// `READ[,WRITE[,TRIM]]` of a per-direction value through `f`, as fio fills the
/// directions: part N sets direction N and the last part the directions after it; an
/// empty part keeps that direction's `old` value (fio keeps a direction no part names).
pub(crate) fn per_dir(
    v: &str,
    old: [u64; 3],
    f: &dyn Fn(&str) -> Result<u64, String>,
) -> Result<[u64; 3], String> {
    let parts: Vec<&str> = v.split(',').take(3).collect();
    let mut out = old;
    let mut last = None;
    for (d, slot) in out.iter_mut().enumerate() {
        match parts.get(d) {
            Some(p) if p.trim().is_empty() => last = None,
            Some(p) => {
                *slot = f(p)?;
                last = Some(*slot);
            }
            None => *slot = last.unwrap_or(*slot),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_precision_counts_the_typed_decimals() {
        assert_eq!(typed_precision("25.0:50.0:99.0"), 1);
        assert_eq!(typed_precision("50:99.90"), 2);
        assert_eq!(typed_precision("50:99"), 0);
        assert_eq!(typed_precision("1:99.999"), 3);
        assert_eq!(typed_precision("99.5x"), 1);
    }

    #[test]
    fn distributions_parse_with_fio_defaults() {
        assert_eq!(
            parse_distribution("zipf:1.2", 1024),
            Ok(Distribution::Zipf(1.2, None))
        );
        assert_eq!(
            parse_distribution("pareto:0.9", 1024),
            Ok(Distribution::Pareto(0.9, None))
        );
        assert_eq!(
            parse_distribution("zoned:50/5:30/15:20/", 1024),
            Ok(Distribution::Zoned(vec![(50, 5), (30, 15), (20, 80)]))
        );
        assert!(parse_distribution("zoned:50/5:30/15", 1024).is_err());
        assert!(parse_distribution("pareto:1.5", 1024).is_err());
        assert!(parse_distribution("zipf", 1024).is_err());
        // fio 3.33's ranges: zipf θ ≠ 1, pareto 0 < h < 1, normal σ < 100
        for bad in [
            "zipf:1",
            "zipf:1.0",
            "pareto:0",
            "pareto:1",
            "pareto:-0.5",
            "normal:100",
        ] {
            let e = parse_distribution(bad, 1024).unwrap_err();
            assert!(e.contains("must be"), "{bad}: {e}");
        }
        assert_eq!(
            parse_distribution("zipf:1.00001", 1024),
            Ok(Distribution::Zipf(1.00001, None))
        );
        assert_eq!(
            parse_distribution("pareto:0.999", 1024),
            Ok(Distribution::Pareto(0.999, None))
        );
        assert_eq!(
            parse_distribution("normal:99.5", 1024),
            Ok(Distribution::Normal(99.5, None))
        );
        assert_eq!(
            parse_distribution("zoned_abs:60/1m:40/3m", 1024),
            Ok(Distribution::ZonedAbs(vec![(60, 1 << 20), (40, 3 << 20)]))
        );
    }

    #[test]
    fn patterns_and_percentiles() {
        assert_eq!(
            parse_pattern("0xaa555aa5"),
            Ok(vec![0xaa, 0x55, 0x5a, 0xa5])
        );
        assert_eq!(parse_pattern("\"ab\""), Ok(b"ab".to_vec()));
        assert_eq!(parse_pattern("1"), Ok(vec![1, 0, 0, 0]));
        assert!(parse_pattern("0xzz").is_err());
        // fio's compound patterns, bytes as fio 3.33 writes them (`buffer_pattern`, xxd)
        assert_eq!(
            parse_fill_pattern("\"abcd\"-120xdeadface"),
            Ok(vec![
                0x61, 0x62, 0x63, 0x64, 0xf4, 0xff, 0xff, 0xff, 0xde, 0xad, 0xfa, 0xce
            ])
        );
        assert_eq!(parse_fill_pattern("300"), Ok(vec![0x2c, 0x01]));
        assert_eq!(parse_fill_pattern("0x12345"), Ok(vec![0x01, 0x23, 0x45]));
        assert_eq!(parse_fill_pattern("0xFF0X1"), Ok(vec![0xff, 0x01]));
        assert_eq!(
            parse_fill_pattern("\"123\"0xFFeeCC"),
            Ok(vec![0x31, 0x32, 0x33, 0xff, 0xee, 0xcc])
        );
        assert_eq!(
            parse_fill_pattern("-1024"),
            Ok(vec![0x00, 0xfc, 0xff, 0xff])
        );
        assert!(parse_fill_pattern("\"ab").is_err());
        assert!(parse_fill_pattern("\"ab\" 0x01").is_err());
        assert!(parse_fill_pattern("3000000000").is_err());
        assert_eq!(parse_percentiles("50:99.9"), Ok(vec![50.0, 99.9]));
        assert!(parse_percentiles("101").is_err());
        assert!(parse_percentiles("").is_err());
    }
}
