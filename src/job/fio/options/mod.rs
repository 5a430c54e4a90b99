//! The one table of `iomark run`'s options: every fio job key iomark implements and every
//! command-line option of `iomark run` (fio's own and iomark's), one [`FioOption`] each
//! with its name, aliases, group, one-line help, value type and the `apply` that writes
//! the value. It drives command-line and job-file parsing ([`apply`],
//! `job/fio/args.rs`), "did you mean" over every key ([`did_you_mean`]), `--cmdhelp`
//! (`job/fio/cmdhelp.rs` renders [`FioOption::help_shown`]; [`cmdhelp_all`] is `iomark
//! run`'s list by group) and the group list of `iomark run --help`
//! ([`groups_help`]); each row also says where fio 3.33 has the option ([`Fio333`]), what
//! the fio persona checks job-file keys against (`job/fio/fio333.rs`).
//!
//! The entries are split by fio's option groups (fio's `optgroup.c` names) into the files
//! of this folder, one slice each, chained by [`all`] in the order `--cmdhelp` lists them.
//! The values still land in today's `FioJob` structs (`job/fio/mod.rs`, `keys.rs`,
//! `control.rs`, `extra.rs`, `keys_verify.rs`, `zone_keys.rs`), whose modules keep the
//! value types and their parsers. Help texts and defaults are those of `fio
//! --cmdhelp=KEY` (fio 3.33) where fio has the key; `kind`, `range` and `values` say
//! what iomark parses and accepts, and where fio shows otherwise (its type word, range,
//! listed values) or lists the option under a parent, the row says so apart ([`Shown`]),
//! so `--cmdhelp` prints fio's while parsing keeps iomark's bounds.

/// Boolean job keys: `NAME => FIELD;` makes `fn NAME`, the `apply` that sets
/// `job.FIELD` to the value as a fio boolean (a bare key is true).
macro_rules! bool_keys {
    ($($name:ident => $($field:ident).+;)+) => {$(
        fn $name(c: &mut JobCtx<'_>, v: Option<&str>) -> Result<(), FioError> {
            c.job.$($field).+ = c.bool(v)?;
            Ok(())
        }
    )+};
}

mod blank;
mod blocks;
mod cmdline;
mod data;
mod engine;
mod files;
mod fio_cmdline;
mod io;
mod more;
mod multipart;
mod net;
mod nodata;
mod random;
mod rate;
mod report;
mod run;
mod signed;
pub(crate) use signed::negative_cpumask_lines;
#[cfg(test)]
mod tests;

pub use cmdline::Parse;
pub use fio_cmdline::{
    engine_help, engine_option_names, engines_taking, options_of_engine, FioCli, IdleProf,
};
pub use more::{cpu_past_machine, cpus_configured, fio_cpu_list, fio_cpu_order};

use crate::job::fio::ini::Origin;
use crate::job::fio::notice::Notice;
use crate::job::fio::{FioError, FioJob};
use crate::job::units;
use std::time::Duration;

/// fio's option groups (`optgroup.c`), for `iomark run --help` and `--cmdhelp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// job names and descriptions
    Description,
    /// "General I/O": direction, engine, queue depth
    GeneralIo,
    /// "I/O": block sizes, amounts and offsets
    Io,
    /// "Read/write mix"
    RwMix,
    /// "I/O Type": O_DIRECT, O_SYNC, page cache
    IoType,
    /// "Filename"
    Filename,
    /// "File": sizes, syncs and creation of the files
    File,
    /// "Runtime"
    Runtime,
    /// "Process": threads, ordering and exits
    Process,
    /// "Rate"
    Rate,
    /// "I/O Thinktime"
    Thinktime,
    /// "I/O Flow"
    Flow,
    /// "Latency profiling"
    LatencyProfiling,
    /// "Randomizations"
    Random,
    /// "Zone"
    Zone,
    /// "Verify"
    Verify,
    /// "I/O buffers": contents of the write buffers
    Buffers,
    /// "Error handling"
    Errors,
    /// "Statistics"
    Statistics,
    /// "Logging"
    Logging,
    /// "General": units and NUMA
    General,
    /// "Job credentials / priority"
    Priority,
    /// "I/O engines": io_uring's own options
    Engine,
    /// "Tiobench profile"
    Tiobench,
    /// the options of the command line (fio's and iomark's), not of jobs
    CommandLine,
}

impl Group {
    /// fio's name of the group (`optgroup.c`); iomark's for the command line.
    pub fn name(self) -> &'static str {
        match self {
            Group::Description => "Description",
            Group::GeneralIo => "General I/O",
            Group::Io => "I/O",
            Group::RwMix => "Read/write mix",
            Group::IoType => "I/O Type",
            Group::Filename => "Filename",
            Group::File => "File",
            Group::Runtime => "Runtime",
            Group::Process => "Process",
            Group::Rate => "Rate",
            Group::Thinktime => "I/O Thinktime",
            Group::Flow => "I/O Flow",
            Group::LatencyProfiling => "Latency profiling",
            Group::Random => "Randomizations",
            Group::Zone => "Zone",
            Group::Verify => "Verify",
            Group::Buffers => "I/O buffers",
            Group::Errors => "Error handling",
            Group::Statistics => "Statistics",
            Group::Logging => "Logging",
            Group::General => "General",
            Group::Priority => "Job credentials / priority",
            Group::Engine => "I/O engines",
            Group::Tiobench => "Tiobench profile",
            Group::CommandLine => "Command line",
        }
    }
}

/// The value type of an option, as `fio --cmdhelp` names it (fio's `parse.c` types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// FIO_OPT_STR / FIO_OPT_STR_STORE
    Str,
    /// FIO_OPT_STR_VAL: a number with k/m/g units
    SizeStr,
    /// FIO_OPT_STR_VAL_TIME
    Time,
    /// FIO_OPT_RANGE
    Range,
    /// FIO_OPT_INT / FIO_OPT_ULL
    Int,
    /// FIO_OPT_BOOL
    Bool,
    /// FIO_OPT_FLOAT_LIST
    FloatList,
    /// FIO_OPT_STR_SET: a bare key sets it
    Flag,
}

impl Kind {
    /// The type `fio --cmdhelp=KEY` names for a value of this kind, unless the row says
    /// fio's own ([`FioOption::fio_type`]).
    pub fn fio_type(self) -> FioType {
        match self {
            Kind::Str => FioType::Str,
            Kind::SizeStr => FioType::StrMulti,
            Kind::Time => FioType::Time,
            Kind::Range => FioType::Range,
            Kind::Int => FioType::Int,
            Kind::Bool => FioType::Bool,
            Kind::FloatList => FioType::FloatList,
            Kind::Flag => FioType::StrSet,
        }
    }
}

/// An option's type as fio 3.33 names it in `--cmdhelp=KEY` (parse.c's option types):
/// what fio shows, apart from the [`Kind`] iomark parses the value as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FioType {
    /// FIO_OPT_STR, FIO_OPT_STR_ULL, FIO_OPT_STR_VAL, FIO_OPT_STR_STORE
    Str,
    /// FIO_OPT_STR_MULTI
    StrMulti,
    /// FIO_OPT_STR_VAL_ZONE, which fio's list of type words lacks: printed `(null)`
    StrValZone,
    /// FIO_OPT_STR_VAL_TIME
    Time,
    /// FIO_OPT_RANGE
    Range,
    /// FIO_OPT_INT, FIO_OPT_ULL
    Int,
    /// FIO_OPT_BOOL
    Bool,
    /// FIO_OPT_FLOAT_LIST
    FloatList,
    /// FIO_OPT_STR_SET
    StrSet,
}

impl FioType {
    /// The "type:" text of `fio --cmdhelp=KEY`.
    pub fn word(self) -> &'static str {
        match self {
            FioType::Str => "string (opt=bla)",
            FioType::StrMulti => "string with possible k/m/g postfix (opt=4k)",
            FioType::StrValZone => "(null)",
            FioType::Time => "string with time postfix (opt=10s)",
            FioType::Range => "one to three ranges (opt=1k-4k[,4k-8k[,1k-8k]])",
            FioType::Int => "integer value (opt=100)",
            FioType::Bool => "boolean value (opt=1)",
            FioType::FloatList => "list of floating point values separated by ':' (opt=5.9:7.8)",
            FioType::StrSet => "empty or boolean value ([0|1])",
        }
    }
}

/// fio 3.33's type of an option (parse.h `enum fio_opt_type`), from its row of fio's
/// option table (options.c): how fio's parser reads a value of it, apart from the
/// [`Kind`] iomark parses the value as. Every row of one of fio's options says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptType {
    /// FIO_OPT_STR: one of listed words (or a callback's text)
    Str,
    /// FIO_OPT_STR_ULL: text a callback reads into a number
    StrUll,
    /// FIO_OPT_STR_MULTI: several listed words
    StrMulti,
    /// FIO_OPT_STR_VAL: a 64-bit number with k/m/g units
    StrVal,
    /// FIO_OPT_STR_VAL_TIME: a time with its unit
    StrValTime,
    /// FIO_OPT_STR_STORE: text kept as given
    StrStore,
    /// FIO_OPT_RANGE: one to three ranges
    Range,
    /// FIO_OPT_INT: a number checked and stored as a C `int`
    Int,
    /// FIO_OPT_ULL: an unsigned 64-bit number (its range checks are unsigned)
    Ull,
    /// FIO_OPT_BOOL
    Bool,
    /// FIO_OPT_FLOAT_LIST
    FloatList,
    /// FIO_OPT_STR_SET: a bare key sets it
    StrSet,
    /// FIO_OPT_STR_VAL_ZONE: a size or a count of zones (`4z`)
    StrValZone,
}

impl OptType {
    /// Whether fio reads a number for it (an integer, a size or a time, with a unit).
    pub fn is_number(self) -> bool {
        matches!(
            self,
            OptType::Int
                | OptType::Ull
                | OptType::StrVal
                | OptType::StrValTime
                | OptType::StrValZone
        )
    }
    /// The type word `fio --cmdhelp=KEY` shows for it (fio names several types alike).
    pub fn shown(self) -> FioType {
        match self {
            OptType::Str | OptType::StrUll | OptType::StrVal | OptType::StrStore => FioType::Str,
            OptType::StrMulti => FioType::StrMulti,
            OptType::StrValZone => FioType::StrValZone,
            OptType::StrValTime => FioType::Time,
            OptType::Range => FioType::Range,
            OptType::Int | OptType::Ull => FioType::Int,
            OptType::Bool => FioType::Bool,
            OptType::FloatList => FioType::FloatList,
            OptType::StrSet => FioType::StrSet,
        }
    }
}

/// Where fio 3.33 puts what it reads of an option's value (options.c: the option's
/// `off1`…`off3` and `cb`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    /// one slot (`off1`)
    One,
    /// one slot per direction: read, write and trim (`off1`, `off2`, `off3`;
    /// `READ,WRITE[,TRIM]`)
    PerDirection,
    /// the option's callback gets each value read (`cb`)
    Callback,
    /// a callback that caps a value above the option's maximum at it (`rwmixread`)
    CallbackCapped,
}

/// What `--cmdhelp` shows of an option where it differs from what iomark parses and
/// enforces (the row's `kind`, `range` and `values`): fio 3.33's range and listed values,
/// and the option it lists the row under (`--cmdhelp=all` indents a child under its
/// parent); its type is the row's [`FioOption::fio_type`]'s. `None`: the row's own.
#[derive(Clone, Copy, Debug)]
pub struct Shown {
    /// the option fio lists this one under (fio's `parent`)
    pub parent: Option<&'static str>,
    /// fio's range line, when not the row's range
    pub range: Option<Range>,
    /// fio's listed values, when not the row's
    pub values: Option<&'static [(&'static str, &'static str)]>,
}

/// Whether `--KEY` written without `=VALUE` takes the next command-line word as its value
/// (fio's getopt: `--bs 8k`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// takes the next word, whatever it is (fio's `required_argument`); none: getopt's
    /// `option '--KEY' requires an argument`
    Value,
    /// takes the next word; with none, `apply` gets no value and says what it needs
    ValueOwnMessage,
    /// never takes it (fio's FIO_OPT_STR_SET: `fio --time_based 1` reads job file `1`)
    Flag,
}

/// The range line of `--cmdhelp=KEY`, what iomark accepts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// no range line
    None,
    /// `range: min=MIN[, max=MAX]` (fio prints max=-1 for "no limit"; max=0 is left out)
    Int(i64, i64),
    /// `range: min=%f, max=%f`
    Float(f64, f64),
}

/// Where fio 3.33 has an option: what the fio persona checks job-file keys against and
/// walks, in fio's order, for its "Did you mean" (`job/fio/fio333.rs`, which adds fio's
/// options that iomark has no row for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fio333 {
    /// none of fio 3.33's job, profile or command-line options: iomark's own, a later
    /// fio's, or an engine's (those are their `--enghelp` table's)
    None,
    /// one of fio 3.33's job options, `at` its place (from 0) in the order of fio's
    /// option table; `aliases`: fio has the row's aliases too (else they are iomark's)
    Job { at: u16, aliases: bool },
    /// one of fio 3.33's built-in profiles' options (`act`, `tiobench`), `at` its place
    /// in their order
    Profile { at: u16 },
    /// one of fio 3.33's own command-line options (its getopt table's, before the job
    /// options), `at` its place in their order, under the row's name
    Command { at: u16 },
}

/// Writes one job key's value into the job.
pub type JobFn = fn(&mut JobCtx<'_>, Option<&str>) -> Result<(), FioError>;
/// Acts on one command-line option.
pub type CmdFn = fn(&mut CmdCtx<'_>, Option<&str>) -> Result<(), FioError>;

/// What an option's value does.
#[derive(Clone, Copy)]
pub enum Apply {
    /// a job key (job files, and the command line before/after `--name`)
    Job(JobFn),
    /// a command-line option of `iomark run` (not a job key)
    Command(CmdFn),
    /// read by `iomark run` itself before parsing (`--help`, `--cmdhelp`, …)
    Front,
}

/// One option of `iomark run`.
#[derive(Clone, Copy)]
pub struct FioOption {
    /// canonical name (`_` spelling for job keys, `-` for command-line options)
    pub name: &'static str,
    /// other names that mean the same option
    pub aliases: &'static [&'static str],
    /// fio's option group
    pub group: Group,
    /// one-line help
    pub help: &'static str,
    /// value type (the `type:` line of `--cmdhelp`)
    pub kind: Kind,
    /// how the command line finds its value
    pub arg: Arg,
    /// default as fio prints it (`None`: "no default")
    pub default: Option<&'static str>,
    /// what iomark accepts, for `--cmdhelp`
    pub range: Range,
    /// accepted words and what each means, for `--cmdhelp`
    pub values: &'static [(&'static str, &'static str)],
    /// a value that parses (the table's own tests apply it); `None` for a bare key
    pub example: Option<&'static str>,
    /// what the value does
    pub apply: Apply,
    /// where fio 3.33 has it
    pub fio333: Fio333,
    /// what `--cmdhelp` shows where it is not what iomark enforces
    pub shown: Shown,
    /// fio 3.33's type of the option (`None`: no option of fio 3.33's table)
    pub fio_type: Option<OptType>,
    /// where fio 3.33 puts what it reads of a value
    pub store: Store,
    /// the option takes a negative number as one value, as written: its range goes below
    /// 0 (`nice=-5`), or it is a time that reads `-T` itself (`runtime=-1`, a limit never
    /// reached; `startdelay=-1`, a range around 0); any other `-N` is fio's reading in two
    /// parts (`signed.rs`), which `iomark run` refuses
    pub takes_negative: bool,
    /// accepted and checked as fio checks it, but iomark does not apply it: a job that
    /// gives it says so on stderr once (docs/compat/fio.md)
    pub not_applied: bool,
    /// an option with listed values whose own parser reads what follows the value
    /// (`rw`'s `:N`, an engine's `:ARGS`): the value is not cut at its first `,` or `:`
    /// as fio cuts the others' ([`listed_head`])
    pub reads_its_rest: bool,
}

impl FioOption {
    const fn new(
        name: &'static str,
        group: Group,
        kind: Kind,
        help: &'static str,
        apply: Apply,
    ) -> Self {
        FioOption {
            name,
            aliases: &[],
            group,
            help,
            kind,
            arg: match kind {
                Kind::Flag => Arg::Flag,
                Kind::Bool => Arg::Value,
                _ => Arg::Value,
            },
            default: None,
            range: match kind {
                Kind::Bool => Range::Int(0, 1),
                _ => Range::None,
            },
            values: &[],
            example: match kind {
                Kind::Flag | Kind::Bool => None,
                _ => Some("1"),
            },
            apply,
            fio333: Fio333::None,
            shown: Shown {
                parent: None,
                range: None,
                values: None,
            },
            fio_type: None,
            store: Store::One,
            takes_negative: false,
            not_applied: false,
            reads_its_rest: false,
        }
    }
    /// A job key.
    pub(super) const fn job(
        name: &'static str,
        group: Group,
        kind: Kind,
        help: &'static str,
        f: JobFn,
    ) -> Self {
        Self::new(name, group, kind, help, Apply::Job(f))
    }
    /// A command-line option.
    pub(super) const fn cmd(name: &'static str, kind: Kind, help: &'static str, f: CmdFn) -> Self {
        Self::new(name, Group::CommandLine, kind, help, Apply::Command(f))
    }
    /// A command-line option `iomark run` reads before parsing.
    pub(super) const fn front(name: &'static str, kind: Kind, help: &'static str) -> Self {
        Self::new(name, Group::CommandLine, kind, help, Apply::Front)
    }
    pub(super) const fn alias(mut self, a: &'static [&'static str]) -> Self {
        self.aliases = a;
        self
    }
    pub(super) const fn default(mut self, d: &'static str) -> Self {
        self.default = Some(d);
        self
    }
    pub(super) const fn range(mut self, min: i64, max: i64) -> Self {
        self.range = Range::Int(min, max);
        self
    }
    pub(super) const fn frange(mut self, min: f64, max: f64) -> Self {
        self.range = Range::Float(min, max);
        self
    }
    pub(super) const fn values(mut self, v: &'static [(&'static str, &'static str)]) -> Self {
        self.values = v;
        self
    }
    pub(super) const fn example(mut self, e: &'static str) -> Self {
        self.example = Some(e);
        self
    }
    pub(super) const fn arg(mut self, a: Arg) -> Self {
        self.arg = a;
        self
    }
    /// Its parser reads what follows a listed value itself ([`FioOption::reads_its_rest`]).
    pub(super) const fn reads_its_rest(mut self) -> Self {
        self.reads_its_rest = true;
        self
    }
    /// fio 3.33's job option at place `at` of its table, of fio's type `t`, with the
    /// row's aliases.
    pub(super) const fn fio_job(mut self, at: u16, t: OptType) -> Self {
        self.fio333 = Fio333::Job { at, aliases: true };
        self.fio_type = Some(t);
        self
    }
    /// fio 3.33's job option at place `at` of its table, of fio's type `t`, whose aliases
    /// are iomark's own.
    pub(super) const fn fio_job_alone(mut self, at: u16, t: OptType) -> Self {
        self.fio333 = Fio333::Job { at, aliases: false };
        self.fio_type = Some(t);
        self
    }
    /// fio keeps one value per direction ([`Store::PerDirection`]).
    pub(super) const fn per_direction(mut self) -> Self {
        self.store = Store::PerDirection;
        self
    }
    /// It takes a negative number as one value ([`FioOption::takes_negative`]).
    pub(super) const fn takes_negative(mut self) -> Self {
        self.takes_negative = true;
        self
    }
    /// fio's callback gets the values read ([`Store::Callback`]).
    pub(super) const fn callback(mut self) -> Self {
        self.store = Store::Callback;
        self
    }
    /// fio's callback gets the values read and caps them ([`Store::CallbackCapped`]).
    pub(super) const fn callback_capped(mut self) -> Self {
        self.store = Store::CallbackCapped;
        self
    }
    /// fio 3.33's command-line option at place `at` of its own command-line options.
    pub(super) const fn fio_command(mut self, at: u16) -> Self {
        self.fio333 = Fio333::Command { at };
        self
    }
    /// fio 3.33's profile option at place `at` of the profiles' options, of fio's type `t`.
    pub(super) const fn fio_profile(mut self, at: u16, t: OptType) -> Self {
        self.fio333 = Fio333::Profile { at };
        self.fio_type = Some(t);
        self
    }

    /// Accepted but not applied by iomark ([`FioOption::not_applied`]).
    pub(super) const fn not_applied(mut self) -> Self {
        self.not_applied = true;
        self
    }

    /// fio lists it under `p` (fio's `parent`).
    pub(super) const fn parent(mut self, p: &'static str) -> Self {
        self.shown.parent = Some(p);
        self
    }
    /// fio shows the range `min`..`max` (`-1`: no limit; `(0, 0)`: no range line), not
    /// the one iomark accepts.
    pub(super) const fn shows_range(mut self, min: i64, max: i64) -> Self {
        self.shown.range = Some(Range::Int(min, max));
        self
    }
    /// fio lists the values `v`, not the ones iomark lists.
    pub(super) const fn shows_values(mut self, v: &'static [(&'static str, &'static str)]) -> Self {
        self.shown.values = Some(v);
        self
    }

    /// What fio 3.33's `--cmdhelp=KEY` shows of it: fio's facts where the row holds
    /// them apart, else the row's own; fio's alias only.
    pub fn help_shown(&self) -> OptionHelp {
        let aliases: &'static [&'static str] = match self.fio333 {
            Fio333::Job { aliases: false, .. } => &[],
            _ => self.aliases,
        };
        OptionHelp {
            aliases,
            fio_type: self.fio_type.map_or(self.kind.fio_type(), OptType::shown),
            range: self.shown.range.unwrap_or(self.range),
            values: self.shown.values.unwrap_or(self.values),
            ..self.help_accepted()
        }
    }

    /// What `iomark run --cmdhelp=KEY` shows of it, in fio's layout: the type of its
    /// kind, the range and values iomark accepts, its aliases.
    pub fn help_accepted(&self) -> OptionHelp {
        OptionHelp {
            name: self.name,
            help: self.help,
            aliases: self.aliases,
            parent: self.shown.parent,
            fio_type: self.kind.fio_type(),
            default: self.default,
            range: self.range,
            values: self.values,
        }
    }

    /// Whether `key` (`-` and `_` alike) names this option.
    pub fn is(&self, key: &str) -> bool {
        same(self.name, key) || self.aliases.iter().any(|a| same(a, key))
    }
}

/// Names equal with `-` and `_` interchangeable.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .all(|(x, y)| x == y || (matches!(x, b'-' | b'_') && matches!(y, b'-' | b'_')))
}

/// The slices of the table, in `--cmdhelp` order.
static PARTS: &[&[FioOption]] = &[
    report::DESCRIPTION,
    io::OPTIONS,
    blocks::OPTIONS,
    files::OPTIONS,
    run::OPTIONS,
    rate::OPTIONS,
    random::OPTIONS,
    data::OPTIONS,
    report::OPTIONS,
    engine::OPTIONS,
    nodata::OPTIONS,
    net::OPTIONS,
    more::OPTIONS,
    cmdline::OPTIONS,
    fio_cmdline::OPTIONS,
];

/// Every option of `iomark run`.
pub fn all() -> impl Iterator<Item = &'static FioOption> {
    PARTS.iter().flat_map(|p| p.iter())
}

/// The option `key` names (its name or an alias; `-` and `_` alike, case matters).
pub fn find(key: &str) -> Option<&'static FioOption> {
    all().find(|o| o.is(key))
}

/// Keys of fio's xnvme and io_uring_cmd engines (NVMe passthrough): flexible data
/// placement, protection information, xNVMe backends. Not options of iomark: a job that
/// uses one gets an error saying whose keys they are.
pub const ENGINE_ONLY_KEYS: &[&str] = &[
    "fdp",
    "fdp_pli",
    "fdp_pli_select",
    "dataplacement",
    "plids",
    "plid_select",
    "md_per_io_size",
    "pi_act",
    "pi_chk",
    "apptag",
    "apptag_mask",
    "xnvme_async",
    "xnvme_sync",
    "xnvme_admin",
    "xnvme_dev_nsid",
    "xnvme_dev_subnqn",
    "xnvme_iovec",
    "xnvme_mem",
];

/// Apply one job key `key_raw[=value]` to `job` (`-` and `_` alike). `notices` collects
/// one-line remarks. A key iomark does not implement is [`FioError::UnsupportedKey`]
/// naming the key (and `file:line`), with a "did you mean" when one is close.
pub fn apply(
    job: &mut FioJob,
    key_raw: &str,
    value: Option<&str>,
    origin: &Origin,
    notices: &mut Vec<Notice>,
) -> Result<(), FioError> {
    let key = key_raw.trim().replace('-', "_");
    let substituted = match origin {
        Origin::File { .. } => value
            .map(|v| keywords(v, &key, origin))
            .transpose()?
            .flatten(),
        Origin::CommandLine => None,
    };
    let value = substituted.as_deref().or(value);
    if let (Some(o), None, Origin::File { .. }) = (find(&key), value, origin) {
        needs_a_value(o, &key, origin)?;
    }
    // the JSON lists a value as typed, also when only its first part is used
    let typed = value;
    let unblanked = blank::read(find(&key), &key, value, origin)?;
    let value = unblanked.as_deref().or(value);
    let (mut first_part, mut tries) = (None, None);
    if let (Some(o), Some(v)) = (find(&key), value) {
        // a negative number the option takes as it is (`nice=-5`) is no two-part reading
        // for `iomark run` to refuse (finish.rs)
        if (signed_reading(o, v, job.kb_base) || negative_parts(o, v, job.kb_base))
            && !signed::one_value(o, v)
        {
            job.negatives
                .push((o.name.to_string(), v.trim().to_string()));
        }
        match value_read(o, v, (&key, origin), job.kb_base, notices)? {
            Taken::Value(part) => first_part = part,
            // what fio reads and `iomark run` refuses (finish.rs)
            Taken::Loose(part, why) => {
                let typed = (o.name.to_string(), v.trim().to_string(), why);
                job.fio_readings.push(typed);
                first_part = Some(part);
            }
            Taken::Tries(list) => tries = Some((o, list)),
            // the default stays
            Taken::Default => {
                job.options
                    .push((o.name.to_string(), typed.unwrap_or(v).to_string()));
                return Ok(());
            }
        }
    }
    let value = first_part.as_deref().or(value);
    let opt = find(&key);
    match tries {
        Some((o, list)) => apply_first(o, job, (&key, origin), notices, &list),
        None => apply_found(opt, job, (key_raw, &key, origin), notices, value)?,
    }
    // fio 3.33 refuses a direction that writes or trims (its write or trim bit) as it
    // reads it once `readonly` is set
    // (a `readonly` given after it is the whole job's check, finish.rs)
    if opt.is_some_and(|o| o.name == "rw") && job.readonly && (job.rw.writes() || job.rw.trims()) {
        return Err(FioError::ReadOnlyRw {
            job: job.name.clone(),
            value: typed.unwrap_or("").trim().to_string(),
            origin: origin.clone(),
        });
    }
    if let Some(line) = opt.and_then(|o| unapplied_notice(o, typed)) {
        if !notices.contains(&line) {
            notices.push(line);
        }
    }
    // `name` too: fio 3.33 lists `"name": "w"` for `--name=w` (and for `name=` in a
    // job-file section), in the order given; an alias under the option's own name, as
    // fio lists it (`readwrite=` as `rw`, `blocksize=` as `bs`, `timeout=` as `runtime`)
    let name = opt.map_or(key.as_str(), |o| o.name);
    job.options
        .push((name.to_string(), typed.unwrap_or("").to_string()));
    Ok(())
}

/// Apply the job option `opt` found for `key` (`key_raw` as written) with `value`; a
/// command-line-only key, an engine's key and an unknown key are refused, each with its
/// own error.
fn apply_found(
    opt: Option<&FioOption>,
    job: &mut FioJob,
    (key_raw, key, origin): (&str, &str, &Origin),
    notices: &mut Vec<Notice>,
    value: Option<&str>,
) -> Result<(), FioError> {
    match opt.map(|o| (o, o.apply)) {
        Some((o, Apply::Job(f))) => {
            apply_job(o, f, job, (key, origin), notices, value).map_err(|e| {
                match value.filter(|v| negative(o, v)) {
                    Some(v) => bad(key, v.trim(), range_text(o), origin),
                    None => e,
                }
            })
        }
        Some((_, Apply::Command(_) | Apply::Front)) => Err(FioError::CommandLineKey {
            key: key_raw.trim().to_string(),
            origin: origin.clone(),
        }),
        None if ENGINE_ONLY_KEYS.contains(&key) => Err(FioError::EngineKey {
            key: key.to_string(),
            origin: origin.clone(),
        }),
        // fio 3.33's integer iomark does not run: a value fio cannot read is refused as
        // fio refuses it, before iomark's own line for the option
        None if key_raw.trim() == "hugepage-size"
            && value
                .is_some_and(|v| units::fio_number(v, 1024).is_none_or(|n| !n.rest.is_empty())) =>
        {
            Err(bad(
                key_raw.trim(),
                value.unwrap_or(""),
                "not a size (a number with an optional unit: 2m, 1g)",
                origin,
            ))
        }
        None => Err(FioError::UnsupportedKey {
            key: key_raw.trim().to_string(),
            origin: origin.clone(),
        }),
    }
}

/// Apply job option `o` with the first of `tries` its `apply` takes (in its range, on a
/// copy of the job, so a refused one leaves no trace); none taken, the job keeps the
/// option's value as it was (a negative number's readings, `signed.rs`).
fn apply_first(
    o: &FioOption,
    job: &mut FioJob,
    (key, origin): (&str, &Origin),
    notices: &mut Vec<Notice>,
    tries: &[String],
) {
    let Apply::Job(f) = o.apply else { return };
    for t in tries.iter().filter(|t| in_range(o, t).is_ok()) {
        let (mut trial, mut said) = (job.clone(), Vec::new());
        if apply_job(o, f, &mut trial, (key, origin), &mut said, Some(t)).is_ok() {
            *job = trial;
            notices.extend(said);
            return;
        }
    }
}

/// A job file's bare boolean (`direct` on its own): fio 3.33 takes a value-less key
/// only for its "set" options (`time_based`, `thread`), else `Option direct requires
/// an argument` and the job is dropped (parse.c __handle_option).
fn needs_a_value(o: &FioOption, key: &str, origin: &Origin) -> Result<(), FioError> {
    // (the engines' flags, `fixedbufs`, are fio's "set" options)
    if o.kind == Kind::Bool && matches!(o.apply, Apply::Job(_)) && o.group != Group::Engine {
        return Err(bad(
            key,
            "",
            format!("needs a value ({key}=1 or {key}=0), as in fio 3.33"),
            origin,
        ));
    }
    Ok(())
}

/// The part of `v` option `o` takes, as fio 3.33 reads it: the listed value at its head
/// ([`listed_head`]), the number fio reads from its start (its unused parts said in
/// `notices`), checked against the option's range.
fn value_read(
    o: &FioOption,
    v: &str,
    (key, origin): (&str, &Origin),
    kb_base: u64,
    notices: &mut Vec<Notice>,
) -> Result<Taken, FioError> {
    let head = listed_head(o, v);
    let v = head.as_deref().unwrap_or(v);
    let mut first_part = head.clone();
    if let Some(r) = fio_reading(o, v, kb_base) {
        // fio says on stderr which parts it could not use
        notices.extend(r.fio_lines.into_iter().map(Notice::fio));
        if let (true, Some(n)) = (r.said, &r.value) {
            notices.push(Notice::Note(format!(
                "notice: {key}='{}' read as {n}, as fio 3.33 reads it (what follows the number is ignored)",
                v.trim()
            )));
        }
        match (r.value, r.more) {
            (Some(n), _) => first_part = Some(n),
            (None, more) if more.is_empty() => return Ok(Taken::Default),
            (None, more) => return Ok(Taken::Tries(more)),
        }
    } else if let Some(parts) = multipart::read(o, v, kb_base) {
        return parts_taken(o, v, parts, (key, origin), notices);
    }
    let v = first_part.as_deref().unwrap_or(v);
    in_range(o, v).map_err(|why| bad(key, v, why, origin))?;
    Ok(Taken::Value(first_part))
}

/// What a per-direction option takes of `v` read in fio's rounds ([`multipart::read`]):
/// fio's lines for the rounds that failed in `notices`, and the refusal when none was read.
fn parts_taken(
    o: &FioOption,
    v: &str,
    parts: Result<multipart::Parts, Vec<String>>,
    (key, origin): (&str, &Origin),
    notices: &mut Vec<Notice>,
) -> Result<Taken, FioError> {
    let (lines, got) = match parts {
        Ok(p) => (p.lines, Ok((p.value, p.loose))),
        Err(lines) => (lines, Err(())),
    };
    notices.extend(lines.into_iter().map(Notice::fio));
    match got {
        Ok((value, None)) => Ok(Taken::Value(Some(value))),
        Ok((value, Some(why))) => Ok(Taken::Loose(value, why)),
        Err(()) => Err(bad(
            key,
            v.trim(),
            format!(
                "no number in it (accepted: a number such as 4k or 1m, one per direction as 4k,8k; {})",
                range_text(o).trim_start_matches("out of range: ")
            ),
            origin,
        )),
    }
}

/// What an option takes of the value given ([`value_read`]).
enum Taken {
    /// this part of it (`None`: the value as given)
    Value(Option<String>),
    /// this part of it, which `iomark run` refuses for the reason given (fio reads it
    /// so: [`multipart::Parts::loose`])
    Loose(String, String),
    /// nothing: the option keeps its default
    Default,
    /// the first of these the key's `apply` takes, else nothing (a negative number,
    /// `signed.rs`)
    Tries(Vec<String>),
}

/// Options with listed values whose parser reads a `:` postfix after the value (fio's
/// `get_opt_postfix`, from the value's first `:`): `mem=mmap:FILE`,
/// `file_service_type=random:N`.
const POSTFIX: [&str; 2] = ["mem", "file_service_type"];

/// The value fio 3.33 reads from `v` for an option with listed values (parse.c
/// `str_match_len`): the value up to its first `,`, else its first `:`, that names a
/// listed value whole (`fallocate=none,zz` is `none`), with the `:` postfix for the
/// options that read one ([`POSTFIX`]). `None` when `v` is a listed value itself, names
/// none of them (the option's parser refuses it) or belongs to an option whose parser
/// reads the rest itself ([`FioOption::reads_its_rest`]).
fn listed_head(o: &FioOption, v: &str) -> Option<String> {
    let v = v.trim();
    if o.values.is_empty() || o.reads_its_rest {
        return None;
    }
    let listed = |w: &str| o.values.iter().any(|(x, _)| *x == w);
    let at = v.find(',').or_else(|| v.find(':'))?;
    let head = &v[..at];
    if listed(v) || !listed(head) {
        return None;
    }
    let post = v
        .split_once(':')
        .map(|(_, p)| p)
        .filter(|_| POSTFIX.contains(&o.name));
    Some(match post {
        Some(p) => format!("{head}:{p}"),
        None => head.to_string(),
    })
}

/// Apply the job key `o` (its `f`) with `value`. A value that `f` refuses and that is a
/// first part followed by junk (`iodepth=4-x`, `direct=1,x`, `bs=8k:x`) is read as fio
/// 3.33 reads it: fio splits the value of a numeric option at the first `,`, else `:`,
/// else `-` (a range option's at `,` only), reads each part on its own and keeps the
/// parts that parse, silently. So the first part is applied alone — to the first
/// direction only for an option fio keeps per direction ([`Store::PerDirection`]:
/// `bs=8k,x` sets the read size; the write size keeps its value) — when the rest does
/// not parse as a value of the option and the first part is in its range; otherwise
/// `f`'s refusal stands.
fn apply_job(
    o: &FioOption,
    f: JobFn,
    job: &mut FioJob,
    (key, origin): (&str, &Origin),
    notices: &mut Vec<Notice>,
    value: Option<&str>,
) -> Result<(), FioError> {
    let run = |job: &mut FioJob, notices: &mut Vec<Notice>, v: Option<&str>| {
        f(
            &mut JobCtx {
                job,
                key,
                origin,
                notices,
            },
            v,
        )
    };
    let Some((first, rest)) = value.and_then(|v| first_and_rest(o, v)) else {
        return run(job, notices, value);
    };
    // a trial on a copy: a refused value leaves the job as it was
    let attempt = |job: &mut FioJob, notices: &mut Vec<Notice>, v: &str| {
        let (mut trial, mut said) = (job.clone(), Vec::new());
        run(&mut trial, &mut said, Some(v))?;
        *job = trial;
        notices.extend(said);
        Ok::<(), FioError>(())
    };
    let Err(refused) = attempt(job, notices, value.unwrap_or_default()) else {
        return Ok(());
    };
    let rest_parses = run(&mut job.clone(), &mut Vec::new(), Some(rest)).is_ok();
    if rest_parses || in_range(o, first).is_err() {
        return Err(refused);
    }
    let first = if o.store == Store::PerDirection {
        format!("{first},")
    } else {
        first.to_string()
    };
    attempt(job, notices, &first).map_err(|_| refused)
}

/// A numeric option's value split where fio splits it (see [`apply_job`]): the first
/// part and the rest. `None` for a value with no split, one that starts with the
/// separator (a negative number) and options whose value is text or a list.
fn first_and_rest<'v>(o: &FioOption, v: &'v str) -> Option<(&'v str, &'v str)> {
    let v = v.trim();
    let at = match o.kind {
        Kind::Range => v.find(','),
        Kind::Int | Kind::Bool | Kind::SizeStr | Kind::Time | Kind::Flag => {
            v.find(',').or_else(|| v.find(':')).or_else(|| v.find('-'))
        }
        Kind::Str | Kind::FloatList => None,
    }?;
    (at > 0).then(|| (&v[..at], &v[at + 1..]))
}

/// The rank fio 3.33 reads a job-file section's option `key` by (parse.c `sort_options`,
/// a stable sort by each option's priority: `kb_base`, `unit_base`, `lockfile` and
/// `cpus_allowed_policy` first, `filename` and `filename_format` last), the engine's
/// options after all others, as fio reads them once the engine is loaded. So a
/// `kb_base=1000` written after `bs=4k` still makes it 4000 bytes, as in fio. (The
/// command line is read in the order given, as fio's getopt reads it.)
pub fn fio_read_rank(key: &str) -> (bool, u8) {
    let k = canonical(key);
    let engine = find(&k).is_some_and(|o| o.group == Group::Engine);
    let prio = match k.as_str() {
        "kb_base" | "unit_base" | "lockfile" | "cpus_allowed_policy" => 0,
        "filename" | "filename_format" => 2,
        _ => 1,
    };
    (engine, prio)
}

/// fio's own name of the job option `key` (`rw` for `readwrite`, `-` and `_` alike);
/// `key` itself when no option has that name.
pub fn canonical(key: &str) -> String {
    let k = key.trim().replace('-', "_");
    find(&k).map_or(k, |o| o.name.to_string())
}

/// The notice of `o` given `typed`: only for an option iomark does not apply, and not for
/// its default value, which asks for nothing left undone (`lockfile=none`, also
/// `lockfile=none,x`: the part fio takes, [`listed_head`], else a number's first part,
/// [`first_and_rest`]).
fn unapplied_notice(o: &FioOption, typed: Option<&str>) -> Option<Notice> {
    let v = typed.unwrap_or("").trim();
    let listed = listed_head(o, v);
    let head = match &listed {
        Some(h) => h.as_str(),
        None => first_and_rest(o, v).map_or(v, |(first, _)| first),
    };
    let default = o.default.is_some_and(|d| d.eq_ignore_ascii_case(head));
    (o.not_applied && !default).then(|| Notice::not_applied(o.name))
}

/// fio 3.33's integer options with one value slot that still read a value of two parts
/// (`4-8`, `4,8`, `4:8`, and `-N`, which is `-N` then `N`), with fio's maximum (`None`:
/// none; iomark's table may hold a limit of its own). fio splits the value at the first
/// `,`, else `:`, else `-`, checks each part against the option's range (a line on
/// stderr for each that fails) and stores the first part when it passes; the second part
/// has no slot, so it changes nothing. The job runs when any part passes (the default
/// stays when the first fails) and fails when every part does.
const SECOND_PART_IGNORED: [(&str, Option<i64>); 6] = [
    ("iodepth", None),
    ("replay_time_scale", None),
    ("significant_figures", Some(10)),
    ("verify_offset", None),
    ("log_entries", Some(1048576)),
    ("log_compression", Some(536870912)),
];

/// How fio 3.33 reads a numeric option's value where iomark's `apply` of the key would
/// not read it so: what the key gets instead, and what is said about it.
#[derive(Debug, PartialEq)]
struct Reading {
    /// what the key's `apply` gets; `None`: nothing is applied, the default stays
    value: Option<String>,
    /// with `value` `None`: what the key's `apply` is tried with, in order (a negative
    /// number's readings, `signed.rs`); none taken, the default stays
    more: Vec<String>,
    /// iomark says how it read the value (text after the number was ignored)
    said: bool,
    /// fio's own stderr lines (a part out of range)
    fio_lines: Vec<String>,
}

/// A numeric option's value read the way fio 3.33 reads a number ([`units::fio_number`],
/// parse.c `str_to_decimal` and `check_int`), one reader for every numeric kind:
/// - a negative zero, which is 0 ([`negative_zero`]);
/// - a boolean given `-N` ([`negative_bool`]);
/// - a [`SECOND_PART_IGNORED`] option given two parts or `-N` ([`parts_as_range`]);
/// - an integer or boolean written in hex (`iodepth=0x10` is 16, `direct=0x1` on);
/// - an integer, boolean or size with a blank and text after the number
///   (`numjobs=1  // num of processes`, `iodepth=4k junk`, `size=1m x`): the number
///   times the unit whose letters follow it at once (`k`…`p` and their `ib` forms, by
///   prefix, in `kb_base`), the rest ignored and said; letters of another unit before
///   the blank (`thinktime_iotime=1s  // note`) stay with the number for the key to
///   judge (`1s`; `4q` is refused as a typo, where fio reads 4); a boolean's number
///   is its digits alone (fio's `check_int`: `1k x` is on).
///
/// `None` for a value the key reads as it is: a plain or signed number, `8k`, an
/// expression, a fraction (`1.5k`), a size's hex number, a value with `,` `:` or `-`
/// (read part by part: `apply_job`, the per-direction split), letters with no blank
/// after them (`2x`, `30x`: refused as a typo where fio reads 2 and 0x30), and every
/// time (fio matches a time's unit by the whole word, so `10s x` is 10 µs to fio).
/// Whether [`fio_reading`] reads `v` as a negative number in fio's two parts
/// (signed.rs), not by one of the readings it tries first.
fn signed_reading(o: &FioOption, v: &str, kb_base: u64) -> bool {
    let t = v.trim();
    t.starts_with('-')
        && negative_bool(o, t).is_none()
        && parts_as_range(o, t, kb_base).is_none()
        && negative_zero(o, t, kb_base).is_none()
        && signed::negative_number(o, t, kb_base).is_some()
}

/// Whether `v` is a negative number a [`SECOND_PART_IGNORED`] option reads in fio's
/// two parts (`iodepth=-1`: `-1` out of range, said, then `1`): taken by iomark as
/// `fio`, refused by `iomark run` as every other negative number.
fn negative_parts(o: &FioOption, v: &str, kb_base: u64) -> bool {
    let t = v.trim();
    t.starts_with('-') && parts_as_range(o, t, kb_base).is_some()
}

fn fio_reading(o: &FioOption, v: &str, kb_base: u64) -> Option<Reading> {
    let t = v.trim();
    let signed = negative_bool(o, t)
        .or_else(|| parts_as_range(o, t, kb_base))
        .or_else(|| negative_zero(o, t, kb_base))
        .or_else(|| signed::negative_number(o, t, kb_base));
    if signed.is_some() {
        return signed;
    }
    if !matches!(o.kind, Kind::Int | Kind::Bool | Kind::Flag | Kind::SizeStr)
        || t.is_empty()
        || units::expr::is_expression(t)
    {
        return None;
    }
    // parts at `,` `:` `-` are read one by one first (`bs=8k,x`)
    if t.contains([',', ':', '-']) || t.parse::<i64>().is_ok() {
        return None;
    }
    let num = units::fio_number(t, kb_base)?;
    let plain = |value: String| Reading {
        value: Some(value),
        more: Vec::new(),
        said: false,
        fio_lines: Vec::new(),
    };
    if num.rest.is_empty() {
        // a size reads its own hex; `8k`, `2x` are the key's own to read or refuse
        return (num.hex && o.kind != Kind::SizeStr).then(|| plain(num.n.to_string()));
    }
    // only text after a blank is ignored; `1.5k` is a size's to read
    if !num.rest.starts_with(char::is_whitespace) {
        return None;
    }
    let value = match num.mult {
        // a boolean's check_int reads the digits alone
        _ if matches!(o.kind, Kind::Bool | Kind::Flag) => num.n.to_string(),
        Some(_) => num.value()?.to_string(),
        None if num.letters.is_empty() || num.hex => num.n.to_string(),
        // another unit (a time's `1s`, a typo's `4q`): the key judges the word alone
        None => t[..t.len() - num.rest.len()].to_string(),
    };
    Some(Reading {
        said: true,
        ..plain(value)
    })
}

/// A value of two number parts given to a [`SECOND_PART_IGNORED`] option `o`, read as
/// fio reads it: the first part to apply (`value` `None`: the default stays) and fio's
/// lines for the parts out of range (`iodepth: min value out of range: -1 (1 min)`).
/// Each part is a number with its unit ([`units::fio_number`] in `kb_base`: `-4k` is
/// -4096) and nothing after it. `None` when the value is not of that form, or when no
/// part passes (refused as any bad value).
fn parts_as_range(o: &FioOption, v: &str, kb_base: u64) -> Option<Reading> {
    let &(_, max) = SECOND_PART_IGNORED.iter().find(|(n, _)| *n == o.name)?;
    let Range::Int(min, _) = o.range else {
        return None;
    };
    let at = v
        .find(',')
        .or_else(|| v.find(':'))
        .or_else(|| v.find('-'))?;
    // `-N`: the first part is the whole value
    let first = if at == 0 { v } else { &v[..at] };
    let part = |s: &str| {
        units::fio_number(s, kb_base)
            .filter(|n| !n.hex && n.rest.is_empty() && !s.starts_with([' ', '+']))
            .filter(|n| n.letters.is_empty() || n.mult.is_some())
            .and_then(|n| n.value())
    };
    let (a, b) = (part(first)?, part(&v[at + 1..])?);
    let check = |n: i64| match max {
        _ if n < min => Err(format!(
            "{}: min value out of range: {n} ({min} min)",
            o.name
        )),
        Some(m) if n > m => Err(format!("{}: max value out of range: {n} ({m} max)", o.name)),
        _ => Ok(n),
    };
    let (a, b) = (check(a), check(b));
    if a.is_err() && b.is_err() {
        return None;
    }
    let fio_lines = [&a, &b]
        .into_iter()
        .filter_map(|r| r.clone().err())
        .collect();
    Some(Reading {
        value: a.ok().map(|n| n.to_string()),
        more: Vec::new(),
        said: false,
        fio_lines,
    })
}

/// A boolean given `-N` (`direct=-1`, `direct=-4k`), read as fio 3.33 reads it: the two
/// parts `-N` and `N`, each a number ([`units::fio_number`]) whose digits alone count
/// (fio's `check_int`: `4k` is 4), of which `-N` passes (a boolean has no minimum) and
/// is stored, so any `N` but 0 is on — `"1"` or `"0"` — with fio's line for the part
/// `N` above the maximum (`max value out of range: 5 (1 max)`; a bare-key flag has
/// none). `None` for any other value or option.
fn negative_bool(o: &FioOption, v: &str) -> Option<Reading> {
    if !matches!(o.kind, Kind::Bool | Kind::Flag) {
        return None;
    }
    let second = v.strip_prefix('-')?;
    if second.starts_with([' ', '+', '-']) {
        return None;
    }
    let n = units::fio_number(second, 1024)
        .filter(|n| n.rest.is_empty())?
        .n;
    let max = match o.range {
        Range::Int(min, max) if o.kind == Kind::Bool && max >= min => Some(max),
        _ => None,
    };
    let fio_lines = max
        .filter(|&m| n > m)
        .map(|m| format!("max value out of range: {n} ({m} max)"))
        .into_iter()
        .collect();
    Some(Reading {
        value: Some(if n == 0 { "0" } else { "1" }.to_string()),
        more: Vec::new(),
        said: false,
        fio_lines,
    })
}

/// A negative zero (`-0`, `-0k`) given to a numeric key is 0, as fio 3.33 reads it: its
/// two parts `-0` and `0` ([`units::fio_number`]) are both 0, so the key gets 0 and is
/// judged as `0` is. `None` for any other value.
fn negative_zero(o: &FioOption, v: &str, kb_base: u64) -> Option<Reading> {
    if !matches!(
        o.kind,
        Kind::Int | Kind::Bool | Kind::Flag | Kind::SizeStr | Kind::Time
    ) {
        return None;
    }
    units::fio_number(v, kb_base)
        .filter(|n| v.starts_with('-') && n.n == 0 && n.rest.is_empty() && !n.hex)
        .filter(|n| n.letters.is_empty() || n.mult.is_some())?;
    Some(Reading {
        value: Some("0".to_string()),
        more: Vec::new(),
        said: false,
        fio_lines: Vec::new(),
    })
}

/// The table's `range` of an integer or boolean option, checked for a value written as
/// a plain whole number (a value with units or a word is its `apply`'s to judge): the
/// minimum, and the maximum unless it is below the minimum (fio's -1, "no limit").
fn in_range(o: &FioOption, v: &str) -> Result<(), String> {
    let Range::Int(min, max) = o.range else {
        return Ok(());
    };
    if o.kind == Kind::Bool {
        return bool_in_range(o, v, max);
    }
    if o.kind != Kind::Int {
        return Ok(());
    }
    let Ok(n) = v.trim().parse::<i64>() else {
        return Ok(());
    };
    if n < min || (max >= min && n > max) {
        return Err(range_text(o));
    }
    Ok(())
}

/// A boolean's value against its maximum as fio 3.33 checks it: the `int` fio reads
/// ([`units::fio_check_int`]: `0x3` is 3, `4294967298` is 2, `4294967295` is -1) above the
/// maximum is refused; fio checks no minimum of 0, so a negative one is taken (and on). A
/// value with no number is its `apply`'s to refuse.
fn bool_in_range(o: &FioOption, v: &str, max: i64) -> Result<(), String> {
    match units::fio_check_int(v) {
        Some(n) if i64::from(n) > max => Err(range_text(o)),
        _ => Ok(()),
    }
}

/// `out of range: MIN to MAX` (or `at least MIN`) of the table's range; a size or time
/// with none: `at least 0`.
fn range_text(o: &FioOption) -> String {
    match o.range {
        Range::Int(min, max) if max >= min => format!("out of range: {min} to {max}"),
        Range::Int(min, _) => format!("out of range: at least {min}"),
        _ => "out of range: at least 0".to_string(),
    }
}

/// A negative number given to an integer, size or time option (`size=-1`, `offset=-4k`,
/// `thinktime=-1`). Where the key's `apply` does not take it (fio 3.33 reads it as the
/// parts `-N` and `N` and stores the first wrapped: a run that never ends or fails, or a
/// callback that keeps `N` — docs/compat/fio.md), the refusal names the option's range.
fn negative(o: &FioOption, v: &str) -> bool {
    matches!(o.kind, Kind::Int | Kind::SizeStr | Kind::Time)
        && v.trim_start().starts_with('-')
        && units::fio_number(v, 1024).is_some()
}

/// fio's reserved words in job-file values (options.c `fio_keywords`): each is replaced
/// by this machine's figure, wherever it stands.
const KEYWORDS: [&str; 3] = ["$pagesize", "$mb_memory", "$ncpus"];

/// This machine's figure for a [`KEYWORDS`] word: the page size, MiB of physical
/// memory, CPUs configured (sysconf, as fio's os-linux.h).
fn keyword_value(word: &str) -> i64 {
    // SAFETY: sysconf only reads system configuration
    let conf = |n| unsafe { libc::sysconf(n) }.max(0) as i64;
    match word {
        "$pagesize" => conf(libc::_SC_PAGESIZE),
        "$mb_memory" => conf(libc::_SC_PHYS_PAGES).saturating_mul(conf(libc::_SC_PAGESIZE)) >> 20,
        _ => cpus_configured(),
    }
}

/// A job-file value with fio's [`KEYWORDS`] replaced (`None`: it holds none) and, when
/// one was and the value has `+ - * /` (and no `'`), computed as a whole number — fio
/// hands that to bc(1) (options.c `bc_calc`); iomark evaluates it with
/// [`units::expr`], whose precedence matches bc's for these four operators.
fn keywords(v: &str, key: &str, origin: &Origin) -> Result<Option<String>, FioError> {
    if !KEYWORDS.iter().any(|w| v.contains(w)) {
        return Ok(None);
    }
    let mut out = v.to_string();
    for w in KEYWORDS {
        if out.contains(w) {
            out = out.replace(w, &keyword_value(w).to_string());
        }
    }
    if !out.contains(['+', '-', '*', '/']) || out.contains('\'') {
        return Ok(Some(out));
    }
    let n = units::expr::eval(&format!("({out})"), false)
        .map_err(|e| bad(key, v, format!("{out}: {e}"), origin))?;
    Ok(Some(n.int.to_string()))
}

/// A job-file value of `key` as fio 3.33 reads it: its [`KEYWORDS`] replaced and
/// computed (the value itself when it holds none, or when it cannot be computed).
pub fn as_fio_reads(key: &str, v: &str) -> String {
    let origin = Origin::File {
        path: std::path::PathBuf::new(),
        line: 0,
    };
    match keywords(v, key, &origin) {
        Ok(Some(out)) => out,
        _ => v.to_string(),
    }
}

/// What a job key's `apply` works on: the job, the key as written (`_` spelling, for
/// messages) and where it was written.
pub struct JobCtx<'a> {
    /// the job being built
    pub job: &'a mut FioJob,
    /// the key as written, `-` turned into `_`
    pub key: &'a str,
    /// where it was written
    pub origin: &'a Origin,
    /// one-line remarks (each kept once)
    pub notices: &'a mut Vec<Notice>,
}

impl JobCtx<'_> {
    /// `invalid value 'VALUE' for option 'KEY': WHY` at this key's origin.
    pub fn bad(&self, value: &str, why: impl Into<String>) -> FioError {
        bad(self.key, value, why, self.origin)
    }
    /// The value, which must be there and not blank (fio: "option bs requires an
    /// argument"; `--bs=` is no value either).
    pub fn need<'v>(&self, v: Option<&'v str>) -> Result<&'v str, FioError> {
        v.filter(|s| !s.trim().is_empty())
            .ok_or_else(|| self.bad("", "a value is required"))
    }
    /// A fio size in the job's `kb_base` ([`units::fio_size`]).
    pub fn size(&self, v: &str) -> Result<u64, FioError> {
        units::fio_size(v, self.job.kb_base).map_err(|e| self.bad(v, e))
    }
    /// A fio time whose plain number is `unit_ns` ([`units::fio_time`]). Under the fio
    /// persona a number with a fraction is its whole part, as fio 3.33 reads it
    /// ([`units::fio_time_whole`]: `runtime=1.5` is 1 s); `iomark run` refuses the
    /// fraction naming the same time in a smaller unit. The fio persona reads the letters
    /// after the digits of a time counted in µs or s (fio's time options) as fio 3.33
    /// does ([`units::fio_time_lettered`]: `runtime=4k` is 4 µs, `runtime=2sec` 2 µs);
    /// `iomark run` refuses letters that name no unit and reads `ns`, `sec`, `min` by
    /// their names.
    pub fn time(&self, v: &str, unit_ns: u64) -> Result<Duration, FioError> {
        let fios = matches!(unit_ns, 1_000 | 1_000_000_000) && self.job.fio_persona;
        if let Some(d) = units::fio_time_lettered(v).filter(|_| fios) {
            return Ok(d);
        }
        let whole = || units::fio_time_whole(v, unit_ns).filter(|_| self.job.fio_persona);
        match units::fio_time(v, unit_ns) {
            Err(e) => whole().ok_or_else(|| self.bad(v, e)),
            ok => ok.map_err(|e| self.bad(v, e)),
        }
    }
    /// A fio boolean ([`units::fio_bool`]: a bare key is true, a number is on unless
    /// its C `int` is 0); `iomark run` also takes the words of [`units::iomark_switch`]
    /// (`yes`, `off`…), which the fio persona refuses as fio 3.33 does.
    pub fn bool(&self, v: Option<&str>) -> Result<bool, FioError> {
        let fio = units::fio_bool(v);
        let words = || units::iomark_switch(v).filter(|_| !self.job.fio_persona);
        fio.or_else(words).ok_or_else(|| {
            let why = match self.job.fio_persona {
                true => "a boolean is a number as fio reads it: 0 is off, any other on",
                false => {
                    "a boolean: a number (0 is off, any other on), true, false, yes, no, on or off"
                }
            };
            self.bad(v.unwrap_or("").trim(), why)
        })
    }
    /// A whole number (blanks around it ignored), or fio's `(...)` expression of one.
    pub fn u64(&self, v: &str) -> Result<u64, FioError> {
        if units::expr::is_expression(v) {
            return units::fio_whole_expr(v.trim()).map_err(|e| self.bad(v, e));
        }
        v.trim()
            .parse()
            .map_err(|_| self.bad(v, "expected a whole number"))
    }
    /// The required value as a whole number.
    pub fn need_u64(&self, v: Option<&str>) -> Result<u64, FioError> {
        self.u64(self.need(v)?)
    }
    /// A whole number in `0..=max` (`why` says what is accepted).
    pub fn need_at_most(&self, v: Option<&str>, max: u64, why: &str) -> Result<u64, FioError> {
        let v = self.need(v)?;
        let n = self.u64(v)?;
        if n > max {
            return Err(self.bad(v, why));
        }
        Ok(n)
    }
    /// Add a one-line remark once.
    pub fn notice(&mut self, n: String) {
        let n = Notice::Note(n);
        if !self.notices.contains(&n) {
            self.notices.push(n);
        }
    }
}

/// [`FioError::BadValue`]: `ORIGIN: invalid value 'VALUE' for option 'KEY': WHY`.
pub(crate) fn bad(key: &str, value: &str, why: impl Into<String>, origin: &Origin) -> FioError {
    FioError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        why: why.into(),
        origin: origin.clone(),
    }
}

/// An iomark switch of the command line (`--engine-strict`, [`units::iomark_switch`]),
/// or the error naming the words.
pub(crate) fn iomark_switch(key: &str, v: Option<&str>) -> Result<bool, FioError> {
    units::iomark_switch(v).ok_or_else(|| {
        bad(
            key,
            v.unwrap_or("").trim(),
            "a switch: 1, 0, true, false, yes, no, on or off",
            &Origin::CommandLine,
        )
    })
}

/// What a command-line option's `apply` works on.
pub struct CmdCtx<'a> {
    /// the parse so far
    pub p: &'a mut Parse,
    /// the option as written after `--` (dashes kept), for messages
    pub key: &'a str,
}

/// "; did you mean 'KEY'?" when an option's name or alias is spelled almost like `key`,
/// else nothing: a typo such as `iodpeth` gets the right name, an option iomark lacks
/// gets no misleading guess. Close means one edit (insert, delete, substitute or swap
/// two neighbours) for a key of at least 3 characters, or a normalised
/// Damerau–Levenshtein similarity of at least 0.8 (strsim) for longer ones; over every
/// option of the table, command-line options included. The closest wins, the first in
/// table order among equals.
pub fn did_you_mean(key: &str) -> String {
    let k = key.trim().replace('-', "_").to_ascii_lowercase();
    if k.len() < 3 {
        return String::new();
    }
    let mut best: Option<(f64, &str)> = None;
    for name in all().flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied())) {
        let c = name.replace('-', "_");
        let close = strsim::damerau_levenshtein(&k, &c) <= 1
            || strsim::normalized_damerau_levenshtein(&k, &c) >= 0.8;
        let score = strsim::normalized_damerau_levenshtein(&k, &c);
        if close && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, name));
        }
    }
    best.map_or_else(String::new, |(_, c)| format!("; did you mean '{c}'?"))
}

/// One option as `--cmdhelp` shows it: a row's [`FioOption::help_shown`], or one of fio
/// 3.33's options iomark has no row for (`job/fio/fio333.rs`).
#[derive(Clone, Copy, Debug)]
pub struct OptionHelp {
    /// fio's name
    pub name: &'static str,
    /// its line of help
    pub help: &'static str,
    /// its aliases (fio's options have one at most)
    pub aliases: &'static [&'static str],
    /// the option fio lists it under in `--cmdhelp=all`
    pub parent: Option<&'static str>,
    /// the type fio names
    pub fio_type: FioType,
    /// the default fio prints (`None`: "no default")
    pub default: Option<&'static str>,
    /// the range line (left out when values are listed)
    pub range: Range,
    /// the listed values and what each means
    pub values: &'static [(&'static str, &'static str)],
}

impl OptionHelp {
    /// `--cmdhelp=KEY` as fio 3.33 prints it (`parse.c: show_option_help`): the name and
    /// help, then `alias`, `type`, `default`, `range` and `valid values` lines, names
    /// right aligned in 20 columns, and an empty line.
    pub fn render(&self) -> String {
        let mut s = format!("{:>20}: {}\n", self.name, self.help);
        for a in self.aliases {
            s += &format!("{:>20}: {a}\n", "alias");
        }
        s += &format!("{:>20}: {}\n", "type", self.fio_type.word());
        s += &format!(
            "{:>20}: {}\n",
            "default",
            self.default.unwrap_or("no default")
        );
        if self.values.is_empty() {
            match self.range {
                Range::None | Range::Int(0, 0) => {}
                Range::Int(min, 0) => s += &format!("{:>20}: min={min}\n", "range"),
                Range::Int(min, max) => s += &format!("{:>20}: min={min}, max={max}\n", "range"),
                Range::Float(min, max) => {
                    s += &format!("{:>20}: min={min:.6}, max={max:.6}\n", "range")
                }
            }
        }
        for (i, (v, help)) in self.values.iter().enumerate() {
            let label = if i == 0 { "valid values" } else { "" };
            s += &format!("{label:>20}: {v:<10}");
            if !help.is_empty() {
                s += &format!(" {help}");
            }
            s += "\n";
        }
        s.push('\n');
        s
    }
}

/// The options by group, groups in the order they first appear in the table.
fn grouped() -> Vec<(Group, Vec<&'static FioOption>)> {
    let mut groups: Vec<(Group, Vec<&FioOption>)> = Vec::new();
    for o in all() {
        match groups.iter_mut().find(|g| g.0 == o.group) {
            Some(g) => g.1.push(o),
            None => groups.push((o.group, vec![o])),
        }
    }
    groups
}

/// `--cmdhelp` (or `--cmdhelp=all`): every option with its one-line help, as fio's
/// `NAME: help` list (`%-24s: %s`), under a line naming each group.
pub fn cmdhelp_all() -> String {
    let mut s = String::new();
    for (i, (g, opts)) in grouped().into_iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s += &format!("{}:\n", g.name());
        for o in opts {
            s += &format!("{:<24}: {}\n", o.name, o.help);
        }
    }
    s
}

/// The groups of options with their keys, wrapped to lines of at most `width`
/// characters, for `iomark run --help`.
pub fn groups_help(width: usize) -> String {
    let mut s = String::new();
    for (g, opts) in grouped() {
        let mut line = format!("  {}:", g.name());
        for o in opts {
            if line.len() + 1 + o.name.len() > width {
                s += &line;
                s.push('\n');
                line = "     ".to_string();
            }
            line += " ";
            line += o.name;
        }
        s += &line;
        s.push('\n');
    }
    s
}
