//! What `iomark fileio` shows of its options, all rendered from the one option table
//! (`table.rs`): the `fileio options:` block of `iomark fileio help` (sysbench 1.0.20's
//! text, byte for byte: [`FILEIO_HELP`]), `iomark fileio --help` ([`GLOBAL_HELP`], every
//! option the parser accepts), `sysbench --help` under the sysbench persona
//! ([`SYSBENCH_HELP`]) and the clap definition behind completions and the man page
//! ([`command`]).

use super::table::{Group, Opt, OPTIONS};
use clap::{Arg, ArgAction, Command};
use std::sync::LazyLock;
use Group::{Deprecated, Fileio, General, Iomark, Random};

/// One help line: `  --name=VALUE` padded to sysbench's column, then the text.
fn line(o: &Opt) -> String {
    let left = if o.is_switch() {
        format!("  --{}[=on|off]", o.name)
    } else {
        format!("  --{}={}", o.name, o.value)
    };
    format!("{left:<31} {}\n", o.help)
}

fn block(g: Group) -> String {
    OPTIONS.iter().filter(|o| o.group == g).map(line).collect()
}

/// The `fileio options:` block of `sysbench fileio help` (transcript T1), exact.
pub static FILEIO_HELP: LazyLock<String> =
    LazyLock::new(|| format!("fileio options:\n{}", block(Fileio)));

/// Block `g` without what sysbench 1.0.20 has no option for (the persona refuses those).
fn block_1_0_20(g: Group) -> String {
    OPTIONS
        .iter()
        .filter(|o| o.group == g && !super::table::not_in_1_0_20(o.name))
        .map(line)
        .collect()
}

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
        block_1_0_20(General),
        block_1_0_20(Random),
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
";

/// What fileio's codes mean beyond the "Exit status" section.
const CODES_NOTE: &str =
    "  fileio: 1 is also sysbench's code for its own messages, 2 also --forced-shutdown's expiry.\n";

/// `iomark fileio --help` (and `-h`): every option the parser accepts, by block.
pub static GLOBAL_HELP: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{INTRO}\n{}\nGeneral options:\n{}\n\
         Pseudo-random numbers (checked as sysbench does; fileio's offsets are uniform whatever they say):\n{}\n\
         Deprecated aliases (accepted as sysbench accepts them):\n{}\n\
         iomark extensions (none of them changes the compatible report):\n{}\n{OUTRO}{}{CODES_NOTE}",
        *FILEIO_HELP,
        block(General),
        block(Random),
        block(Deprecated),
        block(Iomark),
        crate::util::error::exit::help_section(crate::util::error::exit::Does::RunsIo)
    )
});

fn arg_of(o: &Opt) -> Arg {
    let mut a = Arg::new(o.name)
        .long(o.name)
        .help(o.help)
        .require_equals(true)
        .value_hint(o.hint());
    a = if o.is_switch() {
        a.value_name("on|off")
            .num_args(0..=1)
            .default_missing_value("on")
    } else {
        a.value_name(o.value.trim_matches(['[', ']'])).num_args(1)
    };
    if !o.words().is_empty() {
        a = a.value_parser(o.words().to_vec());
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
    fn clap_definition_has_each_option_of_the_table_with_its_words() {
        let cmd = command();
        let longs: BTreeSet<&str> = cmd.get_arguments().filter_map(|a| a.get_long()).collect();
        let table: BTreeSet<&str> = OPTIONS.iter().map(|o| o.name).collect();
        assert_eq!(longs, table);
        for o in OPTIONS.iter() {
            let arg = cmd
                .get_arguments()
                .find(|a| a.get_long() == Some(o.name))
                .unwrap();
            let offered: Vec<String> = arg
                .get_possible_values()
                .iter()
                .map(|v| v.get_name().to_string())
                .collect();
            assert_eq!(offered, o.words(), "--{}", o.name);
            assert_eq!(arg.get_value_hint(), o.hint(), "--{}", o.name);
            assert_eq!(arg.is_hide_set(), o.group == Deprecated, "--{}", o.name);
        }
    }

    #[test]
    fn global_help_lists_every_option_once() {
        for o in OPTIONS.iter() {
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
