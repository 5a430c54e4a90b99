//! The one option table of `iomark fileio`, sysbench 1.0.20's dialect ([`OPTIONS`]):
//! for every option its name, the value it takes and what of it is accepted ([`Check`]:
//! whole-number and size ranges, word lists, switches), its help line and its block.
//!
//! Everything about an option is read from here: the parser's known names and switches
//! (`mod.rs`), the value checks in sysbench's order (`options.rs` asks [`within`] and
//! [`is_word`], so a range lives in this table only), the one-line hint after an error
//! (`iomark: --NAME accepts …`, [`accepted`]), the help texts and the clap definition behind
//! completions and the man page (`help.rs`), and the option words the argv fuzzing draws
//! from (`cli/props.rs`). sysbench's own messages (their text, stream, code and order)
//! stay with the reader of each option in `options.rs`.

use clap::ValueHint;

/// Which block of the help an option is listed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// sysbench's `fileio options:` (the text of `iomark fileio help`)
    Fileio,
    /// sysbench's general options
    General,
    /// sysbench's pseudo-random number options (checked, no effect on fileio)
    Random,
    /// sysbench's deprecated aliases
    Deprecated,
    /// iomark's own options
    Iomark,
}

/// What an option's value must be for the parser to take it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Check {
    /// `[=on|off]`: a sysbench boolean (`on|true|1`, `off|false|0`; bare = on)
    Switch,
    /// A whole number (sysbench's 32-bit integer) from `min` to `max`; `None` is the
    /// 32-bit limit, not shown in the hint. `unit` and `note` are what the hint adds.
    Int {
        /// smallest accepted value
        min: Option<i64>,
        /// largest accepted value
        max: Option<i64>,
        /// what is counted (`seconds`), or empty
        unit: &'static str,
        /// a parenthesised note on special values, or empty
        note: &'static str,
    },
    /// A sysbench SIZE (leading digits, then K/M/G/T in powers of 1024), from `min` to
    /// `max` bytes as sysbench reads it.
    Size {
        /// smallest accepted byte count
        min: i64,
        /// largest accepted byte count
        max: i64,
        /// the suffixes the hint names
        suffixes: &'static str,
        /// an example value for the hint
        example: &'static str,
    },
    /// A number (`inf` included) of at least `min`.
    Ratio {
        /// smallest accepted value
        min: i64,
        /// a parenthesised note, or empty
        note: &'static str,
    },
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// A comma-separated list of these words.
    ListOf(&'static [&'static str]),
    /// A comma-separated list of whole seconds, each at least `min`.
    Seconds {
        /// smallest accepted value
        min: i64,
    },
    /// `--forced-shutdown`: `off`, empty, whole seconds or `P%` of `--time`, each
    /// number at least `min`.
    Shutdown {
        /// smallest accepted number
        min: i64,
    },
    /// A real number (`0.8`) from `min` to `max` (`open`: both ends excluded); sysbench
    /// 1.0.20 reads any text there, the `sysbench` persona too, `iomark fileio` refuses
    /// what is not such a number. `example` is what the hint shows.
    Real {
        /// smallest accepted value (or the excluded lower end)
        min: f64,
        /// largest accepted value (or the excluded upper end); infinite: no upper end
        max: f64,
        /// whether both ends are excluded
        open: bool,
        /// an accepted value for the hint
        example: &'static str,
    },
    /// A deprecated alias: read as a whole number, it replaces the option named when set
    /// above that option's default, and is checked as it.
    AliasOf(&'static str),
    /// A path of this kind (completion's hint).
    Path(ValueHint),
    /// Any text (accepted, not read by fileio); completion offers the words.
    Text(&'static [&'static str]),
}

/// One option of `iomark fileio`.
#[derive(Clone, Copy, Debug)]
pub struct Opt {
    /// name without `--`, with dashes
    pub name: &'static str,
    /// what the help shows after `=` (`N`, `SIZE`, …); unused by a [`Check::Switch`]
    pub value: &'static str,
    /// what is accepted
    pub check: Check,
    /// the help text (with sysbench's `[default]` where sysbench shows one)
    pub help: &'static str,
    /// the block it is listed in
    pub group: Group,
}

impl Opt {
    /// Whether the option is a `[=on|off]` switch.
    pub fn is_switch(&self) -> bool {
        self.check == Check::Switch
    }

    /// The words completion offers (empty: any value).
    pub fn words(&self) -> &'static [&'static str] {
        match self.check {
            Check::Switch => &["on", "off"],
            Check::OneOf(w) | Check::ListOf(w) | Check::Text(w) => w,
            _ => &[],
        }
    }

    /// The kind of path the option names, for completion.
    pub fn hint(&self) -> ValueHint {
        match self.check {
            Check::Path(h) => h,
            _ => ValueHint::Unknown,
        }
    }
}

/// Most worker threads iomark starts (each keeps about 1 MiB of latency histograms).
const MAX_THREADS: i64 = 1024;

const fn opt(name: &'static str, value: &'static str, check: Check, help: &'static str) -> Opt {
    Opt {
        name,
        value,
        check,
        help,
        group: Group::Fileio,
    }
}

const fn switch(name: &'static str, help: &'static str) -> Opt {
    opt(name, "", Check::Switch, help)
}

const fn in_group(mut o: Opt, group: Group) -> Opt {
    o.group = group;
    o
}

/// A whole number from `min` to `max` (`None`: up to the 32-bit limit).
const fn int(min: Option<i64>, max: Option<i64>) -> Check {
    Check::Int {
        min,
        max,
        unit: "",
        note: "",
    }
}

/// A whole number `>= min` with what it counts and a note.
const fn count(min: i64, unit: &'static str, note: &'static str) -> Check {
    Check::Int {
        min: Some(min),
        max: None,
        unit,
        note,
    }
}

/// Any 32-bit whole number (checked as sysbench reads it, no effect on fileio).
const ANY_INT: Check = int(None, None);

const TEST_MODES: &[&str] = &["seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"];
const RAND_TYPES: &[&str] = &["uniform", "gaussian", "special", "pareto", "zipfian"];

use Group::{Deprecated, General, Iomark, Random};

/// sysbench's `fileio options:`, in sysbench's order.
const FILEIO: &[Opt] = &[
    opt(
        "file-num",
        "N",
        int(Some(1), Some(i32::MAX as i64)),
        "number of files to create [128]",
    ),
    opt(
        "file-block-size",
        "N",
        Check::Size {
            min: 1,
            max: i32::MAX as i64,
            suffixes: "K, M or G",
            example: "16K",
        },
        "block size to use in all IO operations [16384]",
    ),
    opt(
        "file-total-size",
        "SIZE",
        Check::Size {
            min: 1,
            max: i64::MAX,
            suffixes: "K, M, G or T",
            example: "64M",
        },
        "total size of files to create [2G]",
    ),
    opt(
        "file-test-mode",
        "STRING",
        Check::OneOf(TEST_MODES),
        "test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}",
    ),
    opt(
        "file-io-mode",
        "STRING",
        Check::OneOf(&["sync", "async", "mmap"]),
        "file operations mode {sync,async,mmap} [sync]",
    ),
    opt(
        "file-async-backlog",
        "N",
        int(Some(1), Some(32768)),
        "number of asynchronous operatons to queue per thread [128]",
    ),
    opt(
        "file-extra-flags",
        "[LIST,...]",
        Check::ListOf(&["sync", "dsync", "direct"]),
        "list of additional flags to use to open files {sync,dsync,direct} []",
    ),
    opt(
        "file-fsync-freq",
        "N",
        count(0, "", "(0 = no periodic fsync)"),
        "do fsync() after this number of requests (0 - don't use fsync()) [100]",
    ),
    switch(
        "file-fsync-all",
        "do fsync() after each write operation [off]",
    ),
    switch("file-fsync-end", "do fsync() at the end of test [on]"),
    opt(
        "file-fsync-mode",
        "STRING",
        Check::OneOf(&["fsync", "fdatasync"]),
        "which method to use for synchronization {fsync, fdatasync} [fsync]",
    ),
    opt(
        "file-merged-requests",
        "N",
        count(0, "", "(0 = no merging)"),
        "merge at most this number of IO requests if possible (0 - don't merge) [0]",
    ),
    opt(
        "file-rw-ratio",
        "N",
        Check::Ratio {
            min: 0,
            note: "(reads per write; inf = reads only)",
        },
        "reads/writes ratio for combined test [1.5]",
    ),
];

/// sysbench's general options iomark reads.
const GENERAL: &[Opt] = &[
    opt(
        "threads",
        "N",
        int(Some(1), Some(MAX_THREADS)),
        "number of threads to use [1]",
    ),
    opt(
        "events",
        "N",
        count(0, "", "(0 = no event limit)"),
        "limit for total number of events [0]",
    ),
    opt(
        "time",
        "N",
        count(0, "seconds", "(0 = no time limit)"),
        "limit for total execution time in seconds [10]",
    ),
    opt(
        "forced-shutdown",
        "STRING",
        Check::Shutdown { min: 0 },
        "seconds after --time to force shutdown, or 'P%' of --time, or 'off' [off]",
    ),
    opt(
        "thread-stack-size",
        "SIZE",
        ANY_INT,
        "size of stack per thread (checked, no effect in iomark) [64K]",
    ),
    opt(
        "thread-init-timeout",
        "N",
        ANY_INT,
        "seconds to wait for worker threads to start (checked, no effect in iomark) [30]",
    ),
    opt(
        "rate",
        "N",
        count(0, "events per second", "(0 = unlimited)"),
        "average event rate (0 for unlimited) [0]",
    ),
    opt(
        "report-interval",
        "N",
        count(0, "seconds", "(0 = off)"),
        "periodically report intermediate statistics every N seconds [0]",
    ),
    opt(
        "report-checkpoints",
        "[LIST,...]",
        Check::Seconds { min: 1 },
        "dump full statistics and reset all counters at these seconds []",
    ),
    switch("debug", "print more debugging info [off]"),
    switch(
        "validate",
        "write checksummed blocks and check them on read [off]",
    ),
    switch("histogram", "print latency histogram in report [off]"),
    opt(
        "percentile",
        "N",
        Check::Int {
            min: Some(0),
            max: Some(100),
            unit: "",
            note: "(0 = off)",
        },
        "percentile to calculate in latency statistics (1-100), 0 to disable [95]",
    ),
    opt(
        "verbosity",
        "N",
        int(Some(0), Some(5)),
        "verbosity level {5 - debug, 0 - only critical messages} [3]",
    ),
    switch("help", "print this help and exit (also -h) [off]"),
    switch("version", "print the version and exit [off]"),
    opt(
        "luajit-cmd",
        "STRING",
        Check::Text(&[]),
        "sysbench's LuaJIT control command (accepted, no effect in iomark)",
    ),
];

/// sysbench's pseudo-random number options.
const RANDOM: &[Opt] = &[
    opt(
        "rand-seed",
        "N",
        Check::Int {
            min: None,
            max: None,
            unit: "",
            note: "(0 = seed from the current time)",
        },
        "seed for random number generator; 0 = current time [0]",
    ),
    opt(
        "rand-type",
        "STRING",
        Check::OneOf(RAND_TYPES),
        "random numbers distribution {uniform,gaussian,special,pareto,zipfian} [special]",
    ),
    opt(
        "rand-spec-iter",
        "N",
        ANY_INT,
        "number of iterations for the special distribution [12]",
    ),
    opt(
        "rand-spec-pct",
        "N",
        ANY_INT,
        "percentage of values treated as 'special' [1]",
    ),
    opt(
        "rand-spec-res",
        "N",
        ANY_INT,
        "percentage of 'special' values to use [75]",
    ),
    opt(
        "rand-pareto-h",
        "N",
        // sysbench's pareto power is log(h) / log(1 - h): h strictly between 0 and 1
        Check::Real {
            min: 0.0,
            max: 1.0,
            open: true,
            example: "0.2",
        },
        "parameter h of the pareto distribution [0.2]",
    ),
    opt(
        "rand-zipfian-exp",
        "N",
        // sysbench 1.1 takes 0 (uniform) and any larger exponent
        Check::Real {
            min: 0.0,
            max: f64::INFINITY,
            open: false,
            example: "0.8",
        },
        "exponent (theta) of the zipfian distribution [0.8]",
    ),
];

/// sysbench's deprecated aliases.
const DEPRECATED: &[Opt] = &[
    opt(
        "tx-rate",
        "N",
        Check::AliasOf("rate"),
        "deprecated alias for --rate [0]",
    ),
    opt(
        "max-requests",
        "N",
        Check::AliasOf("events"),
        "deprecated alias for --events [0]",
    ),
    opt(
        "max-time",
        "N",
        Check::AliasOf("time"),
        "deprecated alias for --time [0]",
    ),
    opt(
        "num-threads",
        "N",
        Check::AliasOf("threads"),
        "deprecated alias for --threads [1]",
    ),
    opt(
        "test",
        "STRING",
        Check::Text(&["fileio"]),
        "deprecated: the test name (--test=fileio; write `iomark fileio` instead)",
    ),
];

/// iomark's own options.
const IOMARK: &[Opt] = &[
    opt(
        "file-dir",
        "PATH",
        Check::Path(ValueHint::DirPath),
        "directory holding the file set [current directory]",
    ),
    opt(
        "json",
        "FILE",
        Check::Path(ValueHint::FilePath),
        "write the run's RunResult as JSON to FILE",
    ),
    opt(
        "plot",
        "DIR",
        Check::Path(ValueHint::DirPath),
        "write SVG charts of the run (throughput over time, latency percentiles) to DIR",
    ),
    opt(
        "file-data",
        "STRING",
        Check::OneOf(&["zeros", "random"]),
        "content of written blocks {zeros, random} [zeros]",
    ),
    switch("notes", "print page-cache notes after the report [on]"),
    switch(
        "history",
        "keep the result in the history (iomark history; IOMARK_HISTORY=off: never) [on]",
    ),
    switch(
        "no-history",
        "keep no copy of the result in the history, as --history=off and the other commands' switch [off]",
    ),
    switch(
        "progress",
        "live line on a terminal: MB/s, IOPS, elapsed and remaining time [off]",
    ),
];

/// Every option of `iomark fileio`, block by block, in the order the help lists them.
pub static OPTIONS: std::sync::LazyLock<Vec<Opt>> = std::sync::LazyLock::new(|| {
    let blocks = [
        (FILEIO, Group::Fileio),
        (GENERAL, General),
        (RANDOM, Random),
        (DEPRECATED, Deprecated),
        (IOMARK, Iomark),
    ];
    blocks
        .iter()
        .flat_map(|(opts, g)| opts.iter().map(|o| in_group(*o, *g)))
        .collect()
});

/// The option named `name` (dashes, no `--`), if iomark fileio has it.
pub fn find(name: &str) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.name == name)
}

/// What iomark reads from sysbench 1.1 that sysbench 1.0.20 refuses: the option
/// `--rand-zipfian-exp` and the `zipfian` word of `--rand-type`. The `sysbench` persona
/// refuses both as 1.0.20 does (scripts probe them to tell the versions apart).
pub fn newer_than_1_0_20(name: &str, word: Option<&str>) -> bool {
    name == "rand-zipfian-exp" || (name == "rand-type" && word == Some("zipfian"))
}

/// What iomark reads that sysbench 1.0.20 has no option for: iomark's own options
/// ([`Group::Iomark`]), `--thread-init-timeout` and `--luajit-cmd` (options of later sysbench releases) and
/// what [`newer_than_1_0_20`] names. The `sysbench` persona refuses them as 1.0.20 does
/// (`invalid option: WORD`, exit 1).
pub fn not_in_1_0_20(name: &str) -> bool {
    let own = find(name).is_some_and(|o| o.group == Group::Iomark);
    own || matches!(name, "thread-init-timeout" | "luajit-cmd") || newer_than_1_0_20(name, None)
}

/// sysbench 1.0.20's database driver options (its `--help` lists them): the `sysbench`
/// persona accepts them and reads nothing from them, as sysbench's fileio test does;
/// `true`: a `[=on|off]` switch, whose value sysbench checks when it is set.
pub const SYSBENCH_DB_OPTIONS: &[(&str, bool)] = &[
    ("db-driver", false),
    ("db-ps-mode", false),
    ("db-debug", true),
    ("mysql-host", false),
    ("mysql-port", false),
    ("mysql-socket", false),
    ("mysql-user", false),
    ("mysql-password", false),
    ("mysql-db", false),
    ("mysql-ssl", true),
    ("mysql-ssl-cipher", false),
    ("mysql-compression", true),
    ("mysql-debug", true),
    ("mysql-ignore-errors", false),
    ("mysql-dry-run", true),
    ("pgsql-host", false),
    ("pgsql-port", false),
    ("pgsql-user", false),
    ("pgsql-password", false),
    ("pgsql-db", false),
];

/// The options sysbench 1.0.20 lets a `--config-file` set: those it registers before it
/// reads the command line (general, deprecated, random-number and output options). The
/// test's own options (`--file-*`) are reset to their defaults when the test is found,
/// so a config file cannot set them; names it does not know are kept and never read.
pub const CONFIG_FILE_OPTIONS: &[&str] = &[
    "threads",
    "events",
    "time",
    "forced-shutdown",
    "thread-stack-size",
    "rate",
    "report-interval",
    "report-checkpoints",
    "debug",
    "validate",
    "help",
    "version",
    "tx-rate",
    "max-requests",
    "max-time",
    "num-threads",
    "rand-type",
    "rand-spec-iter",
    "rand-spec-pct",
    "rand-spec-res",
    "rand-seed",
    "rand-pareto-h",
    "verbosity",
    "percentile",
    "histogram",
];

/// The check of option `name`, an alias's being its target's.
fn check_of(name: &str) -> Option<Check> {
    match find(name)?.check {
        Check::AliasOf(target) => find(target).map(|o| o.check),
        c => Some(c),
    }
}

/// The smallest and largest accepted number of option `name` (an alias: its target's);
/// the 32-bit limits for an unbounded whole number, the `i64` limits for an option that
/// is not a number.
pub fn bounds(name: &str) -> (i64, i64) {
    let (lo, hi) = (i64::from(i32::MIN), i64::from(i32::MAX));
    match check_of(name) {
        Some(Check::Int { min, max, .. }) => (min.unwrap_or(lo), max.unwrap_or(hi)),
        Some(Check::Size { min, max, .. }) => (min, max),
        Some(Check::Ratio { min, .. } | Check::Seconds { min } | Check::Shutdown { min }) => {
            (min, i64::MAX)
        }
        _ => (i64::MIN, i64::MAX),
    }
}

/// Which side of its option's range a refused number fell on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outside {
    /// below the smallest accepted value
    Below,
    /// above the largest accepted value
    Above,
}

/// Whether number `v` is in option `name`'s range ([`bounds`]).
pub fn within(name: &str, v: i128) -> Result<(), Outside> {
    let (lo, hi) = bounds(name);
    if v < i128::from(lo) {
        Err(Outside::Below)
    } else if v > i128::from(hi) {
        Err(Outside::Above)
    } else {
        Ok(())
    }
}

/// Whether ratio `r` is at least option `name`'s smallest value.
pub fn ratio_within(name: &str, r: f64) -> bool {
    r >= bounds(name).0 as f64
}

/// Whether `v` is a real number option `name` accepts (an option that is not a
/// [`Check::Real`] accepts any text here).
pub fn real_within(name: &str, v: &str) -> bool {
    let Some(Check::Real { min, max, open, .. }) = check_of(name) else {
        return true;
    };
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && open => x > min && x < max,
        Ok(x) if x.is_finite() => x >= min && x <= max,
        _ => false,
    }
}

/// Whether `w` is one of the words option `name` accepts (one word, or one item of a list).
pub fn is_word(name: &str, w: &str) -> bool {
    matches!(check_of(name), Some(Check::OneOf(ws) | Check::ListOf(ws)) if ws.contains(&w))
}

/// A byte count as the hint says it: `1 byte`, whole EiB for the largest file offset
/// (`2^63 - 1` → `8 EiB`), else `N bytes`.
fn bytes(n: i64) -> String {
    const EIB: i128 = 1 << 60;
    let next = i128::from(n) + 1;
    match n {
        1 => "1 byte".to_string(),
        _ if next % EIB == 0 => format!("{} EiB", next / EIB),
        _ => format!("{n} bytes"),
    }
}

/// What a whole-number check accepts: `a whole number of seconds >= 0 (0 = off)`.
fn whole(min: Option<i64>, max: Option<i64>, unit: &str, note: &str) -> String {
    let mut s = String::from("a whole number");
    if !unit.is_empty() {
        s += &format!(" of {unit}");
    }
    match (min, max) {
        (Some(a), Some(b)) => s += &format!(" from {a} to {b}"),
        (Some(a), None) => s += &format!(" >= {a}"),
        _ => {}
    }
    match (note, min.or(max)) {
        ("", None) => s += " (decimal, 32-bit)",
        ("", Some(_)) => {}
        (n, _) => s += &format!(" {n}"),
    }
    s
}

/// What option `name` (dashes, no `--`) accepts, for the hint line after an error: a
/// whole number's range, a size's syntax or the list of words (an alias: its target's).
pub fn accepted(name: &str) -> String {
    let Some(check) = check_of(name) else {
        return whole(None, None, "", "");
    };
    match check {
        Check::Switch => "on, off (also true, false, 1, 0) or no value (on)".to_string(),
        Check::Int { min, max, unit, note } => whole(min, max, unit, note),
        Check::Size { min, max, suffixes, example } => format!(
            "a size from {} to {}: digits with an optional {suffixes} suffix (binary, e.g. {example})",
            bytes(min),
            bytes(max)
        ),
        Check::Ratio { min, note } => format!("a number >= {min} {note}"),
        Check::OneOf(ws) => ws.join(", "),
        Check::ListOf(ws) => format!("a comma-separated list of {}", ws.join(", ")),
        Check::Seconds { min } => format!("a comma-separated list of whole seconds >= {min}"),
        Check::Shutdown { .. } => {
            "off, a whole number of seconds after --time, P% of --time, or empty (5 % of --time)"
                .to_string()
        }
        Check::Real {
            min,
            max,
            open: true,
            example,
        } => format!("a number between {min} and {max}, both excluded (e.g. {example})"),
        Check::Real { min, max, example, .. } if max.is_infinite() => {
            format!("a number >= {min} (e.g. {example})")
        }
        Check::Real { min, max, example, .. } => {
            format!("a number from {min} to {max} (e.g. {example})")
        }
        Check::Path(_) => "a path".to_string(),
        Check::Text(_) | Check::AliasOf(_) => "any text".to_string(),
    }
}
