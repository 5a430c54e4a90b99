//! fio's option model for `iomark run`: command-line jobs and INI job files → validated
//! [`FioJob`]s (stage 1 of DESIGN.md: pure, no I/O except reading job files).
//!
//! Rooms: `options/` is the one table of every key and command-line option (name,
//! aliases, group, help, type, apply), `args.rs` walks the command line and builds the
//! jobs, `getopt.rs` brings the command line's words to one form
//! (fio's getopt rules), `ini.rs` reads job files, `finish.rs` settles and checks a whole job, and
//! `keys.rs`, `control.rs`, `extra.rs`, `keys_verify.rs`, `zone_keys.rs` hold the value
//! types and parsers of the keys beyond the core fields of [`FioJob`]. Units follow
//! fio's (`job/units.rs`: `kb_base`-dependent sizes, times defaulting to seconds). Keys
//! are matched with `-` and `_` interchangeable. A key iomark does not implement is an
//! error naming it (and `file:line` for job files): nothing is silently ignored.

pub mod args;
pub mod cmdhelp;
pub mod control;
pub mod dirs;
pub mod extra;
pub mod finish;
pub mod fio333;
pub mod getopt;
pub mod ini;
pub mod keys;
pub mod keys_verify;
pub mod names;
pub mod notice;
pub mod on_error;
pub mod options;
pub mod showcmd;
pub mod strict;
pub mod tuning;
pub mod workload;
pub mod zone_keys;

pub use crate::job::fio::args::{
    jobs_from_sections, parse_args, parse_args_as, parse_args_with, parse_job_file, STDIN_NAME,
};
pub use crate::job::fio::keys::JobMore;
pub use crate::job::fio::options::apply;
pub use crate::job::fio::options::{FioCli, IdleProf};
/// `rw=` and the block sizes (`bs`, `bsrange`, `bssplit`) are the one job model's
/// (`job/model/`), named here too.
pub use crate::job::model::{BlockSizes, RwMode};
/// fio's value parsers under their former names here (`tests/run_fio.rs`,
/// `tests/run_props.rs`, `tests/parser_props.rs` use them); defined in `job/units.rs`.
pub use crate::job::units::{
    fio_bssplit as parse_bssplit_dir, fio_range as parse_range, fio_size as parse_size,
    fio_time as parse_time, BssplitError,
};
use ini::{IniError, Origin};
use std::path::PathBuf;
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
        crate::job::fio::options::did_you_mean(key)
    )]
    UnsupportedKey {
        /// the key as written
        key: String,
        /// where
        origin: Origin,
    },
    /// a command-line option of `iomark run` written as a job key (in a job file)
    #[error("{origin}: option '{key}' is a command-line option of iomark run, not a job key (give it on the command line as --{key})")]
    CommandLineKey {
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
    #[error(
        "{origin}: ioengine '{engine}' is not supported by iomark (supported: {})",
        supported_engines()
    )]
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
    /// a direction that writes read for a job while `readonly` is set already (fio 3.33
    /// refuses the `rw` value itself then, options.c `rw_verify`)
    #[error("job '{job}': readonly=1 forbids a job that writes (rw=read or randread only)")]
    ReadOnlyRw {
        /// the job
        job: String,
        /// the `rw` value as given
        value: String,
        /// where the `rw` value was given
        origin: Origin,
    },
    /// a job that writes with `readonly` given after its direction (fio 3.33: its
    /// `fixup_options` line)
    #[error("job '{0}': readonly=1 forbids a job that writes (rw=read or randread only)")]
    ReadOnlyWrites(String),
    /// a single-dash word that is no option of fio's (getopt's refusal)
    #[error(
        "command line: unrecognized option '{}'{}",
        .0,
        crate::job::fio::options::did_you_mean(.0.trim_start_matches('-').split('=').next().unwrap_or(""))
    )]
    Unrecognized(String),
    /// an engine's option given where fio 3.33's getopt table holds the options of
    /// another engine or of none (`--ioengine=psync --nowait=1`): getopt's refusal of the
    /// word, guessed against that engine's table (the fio persona's)
    #[error("command line: '{word}' is an option of another engine than ioengine={}", .engine.as_deref().unwrap_or("psync"))]
    OtherEnginesOption {
        /// the word as given
        word: String,
        /// the engine whose options fio's table holds (`None`: none yet)
        engine: Option<String>,
    },
    /// a refusal after fio 3.33 had added jobs, whose section lines it printed as it
    /// added each (init.c add_job): those jobs with their reporting group (the ones it
    /// printed on stdout), the command's global options (the engine they name), and the
    /// refusal (the fio persona's: job/fio/args.rs)
    #[error("{error}")]
    AfterJobs {
        /// the jobs whose section line fio printed on stdout, each with its group
        said: Vec<(FioJob, u32)>,
        /// the `--output` file fio had opened before the refusal (a job file's), with
        /// the jobs whose section line it wrote there: fio's lines of the refusal go
        /// there too (as well as on stderr)
        output: Option<(PathBuf, Vec<(FioJob, u32)>)>,
        /// the command line's global options
        global: Vec<(String, String)>,
        /// the refusal
        error: Box<FioError>,
    },
    /// a word that is the beginning of several options and the whole name of none
    /// (getopt's refusal): the word as written, the options it begins in the order of
    /// fio's table, each written with the word's dashes, and fio's guess after it
    #[error(
        "command line: option '{word}' is ambiguous; possibilities: {}",
        .names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(" ")
    )]
    Ambiguous {
        /// the word as written
        word: String,
        /// the options it begins, with the word's dashes (`--output`, `-output`)
        names: Vec<String>,
        /// the option fio names in its `Did you mean X?` after it
        guess: Option<&'static str>,
    },
    /// an option that needs a value, written last on the command line without one
    /// (getopt's refusal; the word as written)
    #[error("command line: option '{0}' requires an argument ({0}=VALUE)")]
    NeedsValue(String),
    /// one of fio's short options that needs a value, last on the command line
    #[error("command line: -{0} needs a value (-{0} VALUE)")]
    ShortNeedsValue(char),
    /// the fio persona's refusal in fio 3.33's own lines, as fio prints them
    /// (`strict.rs`: `Bad option <KEY=VALUE>`, `fio: job NAME dropped`; the job file's
    /// lines fio says while it reads them, `ini.rs`)
    #[error("{}", .0.join("\n"))]
    FioLines(Vec<String>),
    /// the fio persona's refusal of an entry of a job file's section: the section, which
    /// fio 3.33 names in its `fio: job NAME dropped` after its own lines for the entry
    /// (cli/fio_refusal.rs), and the refusal, whose line iomark prints where fio's
    /// differ
    #[error("{error}")]
    InSection {
        /// the section (`global` too)
        section: String,
        /// the refusal
        error: Box<FioError>,
    },
    /// a refusal of the command line that fio 3.33 met after it had opened `--output`
    /// (its log_err lines go there too): args.rs turns it into [`FioError::AfterJobs`]
    /// naming the file, or back into the refusal outside the fio persona
    #[error("{0}")]
    OutputOpen(Box<FioError>),
    /// no job at all (the arguments, job files and `--section`s defined none): what is
    /// missing, and fio 3.33's `--showcmd` lines of the job files read (their globals).
    /// Under the fio persona fio's usage answers it (cli/run_front.rs `no_jobs`), or
    /// with `--showcmd` those lines
    #[error("command line: {0}")]
    NoJobs(String, Vec<String>),
}

/// The words `ioengine=` accepts, as the refusal of another one lists them (the
/// registry's engines and fio's aliases, in the order `--cmdhelp=ioengine` shows).
pub fn supported_engines() -> String {
    let words: Vec<&str> = crate::util::engines::ENGINE_WORDS
        .iter()
        .map(|w| w.0)
        .collect();
    words.join(", ")
}

/// Engine chosen by `ioengine=` (aliases resolved): the one list of engines
/// (src/util/engines.rs), which the registry (src/engine/registry.rs) builds from.
pub use crate::util::engines::Kind as EngineKind;

/// Default reap spin budget of io_uring (5 µs, `--reap-spin`): covers the gaps between completions of a CPU-bound
/// queue (zram, fast NVMe at depth); a disk's 40 µs QD1 read fails it and backs off.
pub const DEFAULT_SPIN_NS: u64 = 5_000;

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
/// line; `json` together with `json+` is one json+ document. `terse` (also `minimal`,
/// `csv`, as fio) adds fio's terse lines, printed before the JSON document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputFormat {
    /// print fio's human summary ("normal")
    pub normal: bool,
    /// print fio's JSON document
    pub json: bool,
    /// the JSON document has the histogram bins (`json+`); implies `json`
    pub json_plus: bool,
    /// fio's terse lines (`terse`, `--minimal`, `--append-terse`)
    pub terse: bool,
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
        terse: false,
    };
    /// `json`: fio JSON, and nothing else, on stdout
    pub const JSON: Self = Self {
        normal: false,
        json: true,
        json_plus: false,
        terse: false,
    };
    /// `json+`: fio JSON with the clat histogram bins
    pub const JSON_PLUS: Self = Self {
        normal: false,
        json: true,
        json_plus: true,
        terse: false,
    };
    /// `terse` (`--minimal`): fio's terse lines, and nothing else
    pub const TERSE: Self = Self {
        normal: false,
        json: false,
        json_plus: false,
        terse: true,
    };

    /// Parse fio's `--output-format` value: names separated by `,`, each `normal`,
    /// `json` or `json+` (case-sensitive, no spaces, as fio 3.33). Errors: the text
    /// after "invalid value …:" naming the bad item and the accepted values.
    pub fn parse(list: &str) -> Result<Self, String> {
        const ACCEPTED: &str =
            "accepted: normal, json, json+, terse (or minimal, csv), or a comma list of them such as normal,json";
        if list.is_empty() {
            return Err(format!("a format is needed; {ACCEPTED}"));
        }
        let mut f = Self {
            normal: false,
            json: false,
            json_plus: false,
            terse: false,
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
                "terse" | "minimal" | "csv" => f.terse = true,
                other => return Err(format!("'{other}' is not a format; {ACCEPTED}")),
            }
        }
        Ok(f)
    }
}

/// One fio job (one `[section]` or one `--name=` group), validated.
#[derive(Clone, Debug, PartialEq)]
pub struct FioJob {
    /// the errno of a job file's `include` that could not be opened in this job's
    /// section or a `[global]` before it (fio persona, job/fio/ini.rs `parse_fio`): fio
    /// 3.33's job then fails its setup with that error (`job file open`)
    pub include_errno: Option<i32>,
    /// `name` (section name for job files; a section's `name=` replaces it): the name
    /// of the reports and of the log files (`NAME_bw.1.log`)
    pub name: String,
    /// the name `$jobname` stands for in data file names (`$jobname.$jobnum.$filenum`):
    /// the `[section]` of a job file even when it sets `name=` (fio 3.33's `add_job`
    /// gets the section name), a command-line job's `--name`; empty: [`FioJob::name`]
    pub file_jobname: String,
    /// `rw`
    pub rw: RwMode,
    /// `rw=…:N`: sequential jobs skip N bytes after each I/O (negative: go backwards;
    /// 0: no holes); random jobs draw a random offset every N requests and go on
    /// sequentially in between (fio's `ddir_seq_nr`: 1 without a suffix, every offset
    /// random; 0 never, a walk in order)
    pub rw_suffix: i64,
    /// `rwmixread`, percent of mixed I/Os that are reads (default 50)
    pub rwmixread: u32,
    /// `bs`/`bsrange`/`bssplit`: read sizes
    pub bs_read: BlockSizes,
    /// write sizes
    pub bs_write: BlockSizes,
    /// trim sizes (the third part of `bs`, `bsrange`, `bssplit`)
    pub bs_trim: BlockSizes,
    /// `size` per job thread (over all its files)
    pub size: Option<SizeSpec>,
    /// `filesize` (bytes per file), optional range
    pub filesize: Option<(u64, u64)>,
    /// `nrfiles`
    pub nrfiles: u32,
    /// `filename` as written (a `:`-separated list: [`FioJob::filenames`]), shared by
    /// all threads of the job
    pub filename: Option<String>,
    /// `directory`: its directories in order (empty: none); clone t's generated files
    /// are under the (t mod n)-th ([`FioJob::dir_of`])
    pub directory: Vec<PathBuf>,
    /// `numjobs`
    pub numjobs: u32,
    /// the engine that runs the job (`ioengine=`, fio's aliases resolved: `sync`,
    /// `pvsync2` run as psync)
    pub engine: EngineKind,
    /// the engine as fio knows it: the word `ioengine=` gave (`sync`, `pvsync2`,
    /// `io_uring`), inherited from `[global]`, else fio's default (`psync`). An engine's
    /// options are judged by it (finish.rs; fio's getopt table, getopt.rs, by the same
    /// name and the same list of engine options)
    pub ioengine: &'static str,
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
    /// options set for this job, each under fio's canonical name (`rw` for
    /// `readwrite`), its value as written (for JSON "job options")
    pub options: Vec<(String, String)>,
    /// its values are read as the fio persona reads them, fio 3.33's way: a boolean's
    /// words (`yes`, `on`, `true`…) are refused and a `bssplit`'s weights need not add up;
    /// `iomark run` takes the words and wants the weights to add up
    pub fio_persona: bool,
    /// options given a negative number that fio 3.33 reads in two parts (`size=-1`:
    /// options/signed.rs), as `(name, value)`: the fio persona runs them so, `iomark
    /// run` refuses them (finish.rs)
    pub negatives: Vec<(String, String)>,
    /// per-direction values fio 3.33 reads in a way `iomark run` refuses (`bs=4q` is 4
    /// bytes, `bs=1k-2k` reads of 1k and writes of 2k: options/multipart.rs), as `(name,
    /// value, why)`: the fio persona runs them so, `iomark run` refuses them (finish.rs)
    pub fio_readings: Vec<(String, String, String)>,
    /// lines fio prints on its standard output while it sets this job up, once per job
    /// thread (finish.rs: the verify phase a time-based writer never reaches)
    pub setup_lines: Vec<String>,
    /// lines fio prints on its standard output while it reads this job's options (its
    /// `opendir` callback: `fio: opendir added N files`), once, before the job's section
    /// line (a `[global]` section's go to [`FioCommand::fio_info`], before every job's)
    pub said_lines: Vec<String>,
    /// lines the job's engine prints as each job thread starts (finish.rs: fio's engine
    /// init of cpuio and exec)
    pub start_lines: Vec<String>,
    /// fio printed this command-line job's section line while it read the command line
    /// (the output format was still `normal` when the next `--name` came): the line comes
    /// before a JSON or terse report (job/fio/args.rs)
    pub early_header: bool,
    /// fio printed this command-line job's section line on stdout while it read the
    /// command line, before `--output` sent its report to a file: the line is on stdout,
    /// not in the report (job/fio/args.rs)
    pub early_stdout: bool,
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
    pub extra: crate::job::fio::extra::PrioNumaDedupeOpts,
    /// the keys of fio's list beyond the core job model ([`crate::job::fio::tuning`])
    pub tuning: crate::job::fio::tuning::Tuning,
}

impl Default for FioJob {
    fn default() -> Self {
        FioJob {
            include_errno: None,
            name: String::new(),
            file_jobname: String::new(),
            rw: RwMode::Read,
            rw_suffix: 0,
            rwmixread: 50,
            bs_read: BlockSizes::Fixed(4096),
            bs_write: BlockSizes::Fixed(4096),
            bs_trim: BlockSizes::Fixed(4096),
            size: None,
            filesize: None,
            nrfiles: 1,
            filename: None,
            directory: Vec::new(),
            numjobs: 1,
            engine: EngineKind::Psync,
            ioengine: crate::util::engines::FIO_DEFAULT,
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
            fio_persona: false,
            kb_base: 1024,
            unit_base_bits: false,
            options: Vec::new(),
            negatives: Vec::new(),
            fio_readings: Vec::new(),
            setup_lines: Vec::new(),
            said_lines: Vec::new(),
            start_lines: Vec::new(),
            early_header: false,
            early_stdout: false,
            more: JobMore::default(),
            new_group: false,
            allow_mounted_write: false,
            readonly: false,
            sqthread_poll: false,
            sqthread_poll_cpu: None,
            hipri: false,
            force_async: None,
            reap_spin_ns: DEFAULT_SPIN_NS,
            control: Default::default(),
            extra: Default::default(),
            tuning: Default::default(),
        }
    }
}

impl FioJob {
    /// The request sizes per direction: reads, writes, trims (fio's `ddir` order).
    pub fn bs_dirs(&self) -> [&BlockSizes; 3] {
        [&self.bs_read, &self.bs_write, &self.bs_trim]
    }

    /// The smallest request size of any direction (fio's `td_min_bs`, `rw_min_bs`).
    pub fn min_bs(&self) -> u64 {
        self.bs_dirs().iter().map(|b| b.min()).min().unwrap_or(0)
    }

    /// The largest request size of any direction (fio's `td_max_bs`).
    pub fn max_bs(&self) -> u64 {
        self.bs_dirs().iter().map(|b| b.max()).max().unwrap_or(0)
    }

    /// The smallest and largest request that moves data, which size the buffers: reads'
    /// and writes', and in a trimwrite job the trims' too, since its writes may take a
    /// trim's size (`randtrimwrite` writes each trimmed block whole); other trims move no
    /// data.
    pub fn request_sizes(&self) -> (u64, u64) {
        let min = self.bs_read.min().min(self.bs_write.min());
        let max = self.bs_read.max().max(self.bs_write.max());
        match self.rw {
            RwMode::TrimWrite | RwMode::RandTrimWrite => (min, max.max(self.bs_trim.max())),
            _ => (min, max),
        }
    }

    /// `ioengine=pvsync2`: psync through preadv2/pwritev2 with pvsync2's flags and options.
    pub fn pvsync2(&self) -> bool {
        self.ioengine == "pvsync2"
    }

    /// Whether the job reports no submission latency: `disable_slat`, or io_uring with
    /// `sqthread_poll` — the kernel's polling thread submits, and fio 3.33's commit
    /// (engines/io_uring.c) then skips the step that stamps each request's issue time,
    /// so fio records no slat sample (`slat_ns` N 0, no `slat` line or percentiles).
    pub fn no_slat(&self) -> bool {
        self.tuning.disable_slat || (self.engine == EngineKind::IoUring && self.sqthread_poll)
    }

    /// The job each of its threads starts from (run/worker/thread.rs): the `thread`
    /// half of [`FioJob::model`].
    fn thread_job(&self) -> crate::job::thread::ThreadJob {
        use crate::job::thread::{DataPattern, FsyncMode, Pace, Syncs, ThreadJob};
        let m = &self.more;
        let (bytes, iops) = (m.rate_bytes, m.rate_iops);
        ThreadJob {
            engine: self.engine,
            depth: self.iodepth as usize,
            request: self.request_sizes(),
            direct: self.direct,
            mem_align: usize::try_from(self.tuning.mem_align).unwrap_or(usize::MAX),
            sync: m.sync_io,
            dsync: m.dsync_io,
            files: self.nrfiles,
            file_size: self.filesize.filter(|(a, z)| a == z).map(|(a, _)| a),
            pace: if bytes == [0; 3] && iops == [0; 3] {
                Pace::Free
            } else {
                Pace::Thread { bytes, iops }
            },
            time: self.runtime,
            ios: (self.number_ios > 0).then_some(self.number_ios),
            dir: self.directory.first().cloned().unwrap_or_default(),
            writes: self.rw.writes(),
            data: match m.zero_buffers {
                true => DataPattern::Zeros,
                false => DataPattern::Random,
            },
            validate: m.verify.is_some(),
            syncs: Syncs {
                call: match m.fdatasync {
                    0 => FsyncMode::Fsync,
                    _ => FsyncMode::Fdatasync,
                },
                each_write: self.fsync == 1 || m.fdatasync == 1,
                at_end: self.end_fsync,
            },
        }
    }
}

/// Everything `iomark run` was asked to do.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FioCommand {
    /// a job whose thread setup fails as fio's does (no size for a file that does not
    /// exist, a layout refused) is that job's error, reported with the others, which
    /// run (run/fio/setup.rs): the fio persona's rule; `iomark run` refuses it first
    pub job_setup_errors: bool,
    /// sample the run over time (run/sampler.rs: the series and its findings): iomark's
    /// own `run`; under the fio persona only with `--plot`
    pub sample: bool,
    /// jobs in order
    pub jobs: Vec<FioJob>,
    /// `--output-format`
    pub output_format: OutputFormat,
    /// `--json=FILE`: iomark's RunResult
    pub json_file: Option<PathBuf>,
    /// options of the global section / before the first `--name` (JSON "global options")
    pub global_options: Vec<(String, String)>,
    /// one-line notices for stderr (engine aliases, unit remarks); while the jobs are
    /// read, fio's own lines too (moved into `fio_stderr` once read)
    pub notices: Vec<notice::Notice>,
    /// fio 3.33's `--showcmd` line of each job file, in order (`showcmd::fio_line`)
    pub fio_showcmd: Vec<String>,
    /// lines fio itself prints on stderr while it reads the jobs (its log_err during
    /// option fixup): printed under either persona, before any job runs
    pub fio_stderr: Vec<String>,
    /// the lines of `fio_stderr` fio 3.33 also writes into `--output` (its log_err
    /// writes to both once the file is open): written there before the report
    pub fio_output: Vec<String>,
    /// lines fio 3.33 prints on its output (stdout, or the `--output` file) while it
    /// reads the jobs (`fio: opendir added N files`): the fio persona's, before the header
    pub fio_info: Vec<String>,
    /// `--output=FILE`: the report goes to this file instead of stdout
    pub output: Option<PathBuf>,
    /// the job files read, as named (`-`, stdin, excepted): inputs no output may be
    pub job_files: Vec<PathBuf>,
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
    /// `--max-jobs=N` (fio's): accepted and not acted on, as fio 3.33 ("we don't
    /// track/need this anymore")
    pub max_jobs: Option<u32>,
    /// the rest of fio's command-line options (terse version, debug areas, triggers,
    /// idle profiling, allocator size, aggregate bandwidth logs)
    pub fio_cli: options::FioCli,
    /// `--aux-path=DIR` (fio's): the verify state files are in DIR, not the current
    /// directory
    pub aux_path: Option<PathBuf>,
    /// `--notes`: print the notices on stderr even when invoked as `fio` (None: the
    /// front end's default, on for `iomark run`, off for the fio persona)
    pub notes: Option<bool>,
    /// `--no-history` (iomark's): keep no copy of the result in the results history
    pub no_history: bool,
    /// `--live` (iomark's): the full-screen live view on a terminal (src/cli/live/)
    pub live: bool,
    /// `--eta`, `--eta-newline`, `--eta-interval`: fio's status line on stdout
    pub eta: EtaOptions,
}

/// When fio's status line (`Jobs: 1 (f=1): [r(1)][50.0%]…[eta 00m:08s]`) is printed:
/// `--eta=auto` (the default) when stdout is a terminal, `always` even into a pipe or
/// file, `never` not at all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EtaWhen {
    /// stdout is a terminal
    #[default]
    Auto,
    /// always
    Always,
    /// never
    Never,
}

/// fio's status-line options of the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EtaOptions {
    /// `--eta`
    pub when: EtaWhen,
    /// `--eta-newline=T`: start a new line after T has passed (fio: at least 1 ms)
    pub newline: Option<Duration>,
    /// `--eta-interval=T`: refresh period (fio: default 1 s, at least 250 ms)
    pub interval: Duration,
}

impl Default for EtaOptions {
    fn default() -> Self {
        EtaOptions {
            when: EtaWhen::Auto,
            newline: None,
            interval: Duration::from_secs(1),
        }
    }
}

/// The kernel's io_uring ring size limit (IORING_MAX_ENTRIES, include/uapi/linux/io_uring.h
/// and io_uring/io_uring.c): a larger `iodepth` cannot be set up.
pub const IORING_MAX_ENTRIES: u32 = 32_768;

/// The deepest queue iomark sets up for an engine that queues (libaio, posixaio): each
/// request in flight holds its own buffer, all allocated before the first I/O (fio 3.33
/// sets no limit and allocates `iodepth` × the largest block too).
pub const MAX_QUEUED_DEPTH: u32 = 65_536;

#[cfg(test)]
mod tests;
