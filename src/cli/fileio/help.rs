//! What `iomark fileio` documents about its options, in one table ([`OPTIONS`]): the
//! `fileio options:` block of `iomark fileio help` (sysbench 1.0.20's text, byte for
//! byte: [`FILEIO_HELP`]), `iomark fileio --help` ([`GLOBAL_HELP`], every option the
//! parser accepts) and the clap definition behind completions and the man page
//! ([`command`]) are all rendered from it.
//!
//! The parser keeps its own name lists (`args.rs`: `KNOWN_OPTS`, `BOOL_OPTS`), read in
//! sysbench's order by `options.rs`; the tests of this module hold the table and those
//! lists to the same names and kinds, so help, completions and parser cannot drift.

use clap::{Arg, ArgAction, Command, ValueHint};
use std::sync::LazyLock;

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

/// The value an option takes, as the help shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// `--name=N` and similar: the text after `=` names the value (`N`, `SIZE`, …)
    Is(&'static str),
    /// `--name[=on|off]`: a switch (bare = on)
    Switch,
}

/// One option of `iomark fileio`.
#[derive(Clone, Copy, Debug)]
pub struct Opt {
    /// name without `--`, with dashes
    pub name: &'static str,
    /// its value
    pub value: Value,
    /// the help text (with sysbench's `[default]` where sysbench shows one)
    pub help: &'static str,
    /// the block it is listed in
    pub group: Group,
    /// the words it accepts, for completion (empty: any value)
    pub words: &'static [&'static str],
    /// what kind of path it names, for completion
    pub hint: ValueHint,
}

const fn opt(name: &'static str, value: &'static str, help: &'static str, group: Group) -> Opt {
    Opt {
        name,
        value: Value::Is(value),
        help,
        group,
        words: &[],
        hint: ValueHint::Unknown,
    }
}

const fn switch(name: &'static str, help: &'static str, group: Group) -> Opt {
    Opt {
        name,
        value: Value::Switch,
        help,
        group,
        words: &["on", "off"],
        hint: ValueHint::Unknown,
    }
}

const fn words(mut o: Opt, w: &'static [&'static str]) -> Opt {
    o.words = w;
    o
}

const fn path(mut o: Opt, hint: ValueHint) -> Opt {
    o.hint = hint;
    o
}

use Group::{Deprecated, Fileio, General, Iomark, Random};

/// Every option of `iomark fileio`, in the order the help lists them.
pub const OPTIONS: &[Opt] = &[
    opt("file-num", "N", "number of files to create [128]", Fileio),
    opt(
        "file-block-size",
        "N",
        "block size to use in all IO operations [16384]",
        Fileio,
    ),
    opt(
        "file-total-size",
        "SIZE",
        "total size of files to create [2G]",
        Fileio,
    ),
    words(
        opt(
            "file-test-mode",
            "STRING",
            "test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}",
            Fileio,
        ),
        &["seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"],
    ),
    words(
        opt(
            "file-io-mode",
            "STRING",
            "file operations mode {sync,async,mmap} [sync]",
            Fileio,
        ),
        &["sync", "async", "mmap"],
    ),
    opt(
        "file-async-backlog",
        "N",
        "number of asynchronous operatons to queue per thread [128]",
        Fileio,
    ),
    words(
        opt(
            "file-extra-flags",
            "[LIST,...]",
            "list of additional flags to use to open files {sync,dsync,direct} []",
            Fileio,
        ),
        &["sync", "dsync", "direct"],
    ),
    opt(
        "file-fsync-freq",
        "N",
        "do fsync() after this number of requests (0 - don't use fsync()) [100]",
        Fileio,
    ),
    switch(
        "file-fsync-all",
        "do fsync() after each write operation [off]",
        Fileio,
    ),
    switch(
        "file-fsync-end",
        "do fsync() at the end of test [on]",
        Fileio,
    ),
    words(
        opt(
            "file-fsync-mode",
            "STRING",
            "which method to use for synchronization {fsync, fdatasync} [fsync]",
            Fileio,
        ),
        &["fsync", "fdatasync"],
    ),
    opt(
        "file-merged-requests",
        "N",
        "merge at most this number of IO requests if possible (0 - don't merge) [0]",
        Fileio,
    ),
    opt(
        "file-rw-ratio",
        "N",
        "reads/writes ratio for combined test [1.5]",
        Fileio,
    ),
    opt("threads", "N", "number of threads to use [1]", General),
    opt(
        "events",
        "N",
        "limit for total number of events [0]",
        General,
    ),
    opt(
        "time",
        "N",
        "limit for total execution time in seconds [10]",
        General,
    ),
    opt(
        "forced-shutdown",
        "STRING",
        "seconds after --time to force shutdown, or 'P%' of --time, or 'off' [off]",
        General,
    ),
    opt(
        "thread-stack-size",
        "SIZE",
        "size of stack per thread (checked, no effect in iomark) [64K]",
        General,
    ),
    opt(
        "thread-init-timeout",
        "N",
        "seconds to wait for worker threads to start (checked, no effect in iomark) [30]",
        General,
    ),
    opt(
        "rate",
        "N",
        "average event rate (0 for unlimited) [0]",
        General,
    ),
    opt(
        "report-interval",
        "N",
        "periodically report intermediate statistics every N seconds [0]",
        General,
    ),
    opt(
        "report-checkpoints",
        "[LIST,...]",
        "dump full statistics and reset all counters at these seconds []",
        General,
    ),
    switch("debug", "print more debugging info [off]", General),
    switch(
        "validate",
        "write checksummed blocks and check them on read [off]",
        General,
    ),
    switch(
        "histogram",
        "print latency histogram in report [off]",
        General,
    ),
    opt(
        "percentile",
        "N",
        "percentile to calculate in latency statistics (1-100), 0 to disable [95]",
        General,
    ),
    opt(
        "verbosity",
        "N",
        "verbosity level {5 - debug, 0 - only critical messages} [3]",
        General,
    ),
    switch("help", "print this help and exit (also -h) [off]", General),
    switch("version", "print the version and exit [off]", General),
    opt(
        "luajit-cmd",
        "STRING",
        "sysbench's LuaJIT control command (accepted, no effect in iomark)",
        General,
    ),
    opt(
        "rand-seed",
        "N",
        "seed for random number generator; 0 = current time [0]",
        Random,
    ),
    words(
        opt(
            "rand-type",
            "STRING",
            "random numbers distribution {uniform,gaussian,special,pareto,zipfian} [special]",
            Random,
        ),
        &["uniform", "gaussian", "special", "pareto", "zipfian"],
    ),
    opt(
        "rand-spec-iter",
        "N",
        "number of iterations for the special distribution [12]",
        Random,
    ),
    opt(
        "rand-spec-pct",
        "N",
        "percentage of values treated as 'special' [1]",
        Random,
    ),
    opt(
        "rand-spec-res",
        "N",
        "percentage of 'special' values to use [75]",
        Random,
    ),
    opt(
        "rand-pareto-h",
        "N",
        "parameter h of the pareto distribution [0.2]",
        Random,
    ),
    opt(
        "rand-zipfian-exp",
        "N",
        "exponent (theta) of the zipfian distribution [0.8]",
        Random,
    ),
    opt(
        "tx-rate",
        "N",
        "deprecated alias for --rate [0]",
        Deprecated,
    ),
    opt(
        "max-requests",
        "N",
        "deprecated alias for --events [0]",
        Deprecated,
    ),
    opt(
        "max-time",
        "N",
        "deprecated alias for --time [0]",
        Deprecated,
    ),
    opt(
        "num-threads",
        "N",
        "deprecated alias for --threads [1]",
        Deprecated,
    ),
    words(
        opt(
            "test",
            "STRING",
            "deprecated: the test name (--test=fileio; write `iomark fileio` instead)",
            Deprecated,
        ),
        &["fileio"],
    ),
    path(
        opt(
            "file-dir",
            "PATH",
            "directory holding the file set [current directory]",
            Iomark,
        ),
        ValueHint::DirPath,
    ),
    path(
        opt(
            "json",
            "FILE",
            "write the run's RunResult as JSON to FILE",
            Iomark,
        ),
        ValueHint::FilePath,
    ),
    path(
        opt(
            "plot",
            "DIR",
            "write SVG charts of the run (throughput over time, latency percentiles) to DIR",
            Iomark,
        ),
        ValueHint::DirPath,
    ),
    words(
        opt(
            "file-data",
            "STRING",
            "content of written blocks {zeros, random} [zeros]",
            Iomark,
        ),
        &["zeros", "random"],
    ),
    switch(
        "notes",
        "print page-cache notes after the report [on]",
        Iomark,
    ),
    switch(
        "history",
        "keep the result in the history (iomark history; IOMARK_HISTORY=off: never) [on]",
        Iomark,
    ),
    switch(
        "progress",
        "live line on a terminal: MB/s, IOPS, elapsed and remaining time [off]",
        Iomark,
    ),
];

/// One help line: `  --name=VALUE` padded to sysbench's column, then the text.
fn line(o: &Opt) -> String {
    let left = match o.value {
        Value::Is(v) => format!("  --{}={v}", o.name),
        Value::Switch => format!("  --{}[=on|off]", o.name),
    };
    format!("{left:<31} {}\n", o.help)
}

fn block(g: Group) -> String {
    OPTIONS.iter().filter(|o| o.group == g).map(line).collect()
}

/// The `fileio options:` block of `sysbench fileio help` (transcript T1), exact.
pub static FILEIO_HELP: LazyLock<String> =
    LazyLock::new(|| format!("fileio options:\n{}", block(Fileio)));

/// `sysbench --help` under the sysbench persona: sysbench's usage and option blocks
/// (the options iomark accepts), and fileio as the one compiled-in test.
pub static SYSBENCH_HELP: LazyLock<String> = LazyLock::new(|| {
    format!(
        "Usage:\n  sysbench [options]... [testname] [command]\n\n\
         Commands implemented by most tests: prepare run cleanup help\n\n\
         General options:\n{}\n\
         Pseudo-Random Numbers Generator options:\n{}\n\
         Compiled-in tests:\n  fileio - File I/O test\n\n\
         See 'sysbench <testname> help' for a list of options for each test.\n",
        block(General),
        block(Random),
    )
});

/// What `iomark fileio` tells you, one line (also the `about` of [`command`]).
pub const ABOUT: &str =
    "What would `sysbench fileio` say, and did the page cache serve it? (a drop-in for sysbench 1.0.20)";

const INTRO: &str = "Usage: iomark fileio [options...] <prepare|run|cleanup|help>...

What would `sysbench fileio` say about this storage, and did the page cache serve the reads?
A drop-in for `sysbench fileio` (sysbench 1.0.20): same options, same semantics, same report,
then page-cache notes and, with --json, a RunResult. Options take the form --name=value;
'-' and '_' are interchangeable in names.

Example (a 1 GiB file set in ./data, 30 s of random reads and writes, then removed):
  iomark fileio --file-dir=data --file-total-size=1G --file-test-mode=rndrw --time=30 prepare run cleanup
";

/// What follows the option blocks (also the `after_help` of [`command`]).
const OUTRO: &str = "Several commands may be given in one call, e.g. `prepare run cleanup`;
`iomark fileio help` prints sysbench's own `fileio options:` list.
Exit codes: 0 ok, 1 sysbench error or failed run, 2 invalid input sysbench would
wrongly accept (or --forced-shutdown expiry), 3 environment cannot do it,
130 interrupted by SIGINT, 143 terminated by SIGTERM.
";

/// `iomark fileio --help` (and `-h`): every option the parser accepts, by block.
pub static GLOBAL_HELP: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{INTRO}\n{}\nGeneral options:\n{}\n\
         Pseudo-random numbers (checked as sysbench does; fileio's offsets are uniform whatever they say):\n{}\n\
         Deprecated aliases (accepted as sysbench accepts them):\n{}\n\
         iomark extensions (none of them changes the compatible report):\n{}\n{OUTRO}",
        *FILEIO_HELP,
        block(General),
        block(Random),
        block(Deprecated),
        block(Iomark)
    )
});

fn arg_of(o: &Opt) -> Arg {
    let mut a = Arg::new(o.name)
        .long(o.name)
        .help(o.help)
        .require_equals(true)
        .value_hint(o.hint);
    a = match o.value {
        Value::Is(v) => a.value_name(v.trim_matches(['[', ']'])).num_args(1),
        Value::Switch => a
            .value_name("on|off")
            .num_args(0..=1)
            .default_missing_value("on"),
    };
    if !o.words.is_empty() {
        a = a.value_parser(o.words.to_vec());
    }
    if o.name == "help" {
        a = a.short('h');
    }
    if o.group == Deprecated {
        a = a.hide(true);
    }
    a
}

/// The clap definition of `iomark fileio` (completions, man page, the command list of
/// `iomark --help`). Parsing stays with sysbench's rules in `fileio::parse`.
pub fn command() -> Command {
    Command::new("fileio")
        .bin_name("iomark fileio")
        .about(ABOUT)
        .after_help(OUTRO)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(
            Arg::new("command")
                .value_name("COMMAND")
                .help("prepare (create the file set), run (the test), cleanup (remove the files), help (sysbench's option list)")
                .value_parser(["prepare", "run", "cleanup", "help"])
                .num_args(0..)
                .action(ArgAction::Append),
        )
        .args(OPTIONS.iter().map(arg_of))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::fileio::args::{BOOL_OPTS, KNOWN_OPTS};
    use std::collections::BTreeSet;

    #[test]
    fn fileio_help_is_sysbench_text_byte_for_byte() {
        // `sysbench fileio help` of sysbench 1.0.20 (transcript T1), typo included
        let want = "fileio options:
  --file-num=N                  number of files to create [128]
  --file-block-size=N           block size to use in all IO operations [16384]
  --file-total-size=SIZE        total size of files to create [2G]
  --file-test-mode=STRING       test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}
  --file-io-mode=STRING         file operations mode {sync,async,mmap} [sync]
  --file-async-backlog=N        number of asynchronous operatons to queue per thread [128]
  --file-extra-flags=[LIST,...] list of additional flags to use to open files {sync,dsync,direct} []
  --file-fsync-freq=N           do fsync() after this number of requests (0 - don't use fsync()) [100]
  --file-fsync-all[=on|off]     do fsync() after each write operation [off]
  --file-fsync-end[=on|off]     do fsync() at the end of test [on]
  --file-fsync-mode=STRING      which method to use for synchronization {fsync, fdatasync} [fsync]
  --file-merged-requests=N      merge at most this number of IO requests if possible (0 - don't merge) [0]
  --file-rw-ratio=N             reads/writes ratio for combined test [1.5]
";
        assert_eq!(*FILEIO_HELP, want);
    }

    #[test]
    fn the_table_lists_exactly_what_the_parser_accepts() {
        let table: BTreeSet<&str> = OPTIONS.iter().map(|o| o.name).collect();
        let parser: BTreeSet<&str> = KNOWN_OPTS.iter().copied().collect();
        assert_eq!(table.len(), OPTIONS.len(), "a name listed twice");
        assert_eq!(
            table.difference(&parser).collect::<Vec<_>>(),
            Vec::<&&str>::new(),
            "documented but refused by the parser"
        );
        assert_eq!(
            parser.difference(&table).collect::<Vec<_>>(),
            Vec::<&&str>::new(),
            "accepted by the parser but not documented"
        );
        for o in OPTIONS {
            assert_eq!(
                o.value == Value::Switch,
                BOOL_OPTS.contains(&o.name),
                "--{}: switch in the help iff [=on|off] in the parser",
                o.name
            );
        }
    }

    #[test]
    fn clap_definition_and_parser_agree() {
        let cmd = command();
        let longs: BTreeSet<String> = cmd
            .get_arguments()
            .filter_map(|a| a.get_long().map(str::to_string))
            .collect();
        let parser: BTreeSet<String> = KNOWN_OPTS.iter().map(|s| s.to_string()).collect();
        assert_eq!(longs, parser);
        // each option is accepted by the real parser (no "invalid option" line), with
        // a value of its own kind; `help`/`version` end the parse with exit 0
        for o in OPTIONS {
            let word = match (o.value, o.words.first()) {
                (Value::Switch, _) => format!("--{}", o.name),
                (Value::Is(_), Some(w)) => format!("--{}={w}", o.name),
                (Value::Is(_), None) => format!("--{}=1", o.name),
            };
            let p = crate::cli::fileio::parse(&[word.clone(), "cleanup".into()]);
            let refused = p.pre.iter().chain(&p.post).find(|m| {
                m.text.starts_with("invalid option") || m.text.contains("not a fileio option")
            });
            assert!(refused.is_none(), "{word}: {refused:?}");
        }
        // and a name outside the table is refused by the parser
        let p = crate::cli::fileio::parse(&["--file-nmu=1".into(), "cleanup".into()]);
        assert!(p
            .post
            .iter()
            .any(|m| m.text == "invalid option: --file-nmu=1"));
    }

    #[test]
    fn global_help_lists_every_option_once() {
        for o in OPTIONS {
            let n = GLOBAL_HELP.matches(&format!("  --{}=", o.name)).count()
                + GLOBAL_HELP
                    .matches(&format!("  --{}[=on|off]", o.name))
                    .count();
            assert_eq!(n, 1, "--{}", o.name);
        }
        assert!(GLOBAL_HELP.starts_with("Usage: iomark fileio"));
        assert!(GLOBAL_HELP.contains("prepare run cleanup"));
    }
}
