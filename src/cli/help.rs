//! The command tree of `iomark` and what is made from it: the top-level help,
//! `iomark help CMD`, "did you mean" for a mistyped command, `iomark completions SHELL`
//! (clap_complete) and `iomark man [CMD]` (clap_mangen).
//!
//! Each command's clap definition lives with its front end (`Args` of compare, copy,
//! diagnose, mark, tree; `fileio::help::command`, `run_args::command` for the two
//! commands whose parsing follows sysbench's and fio's own rules); [`command`] only
//! gathers them, so the help, the completions and the man page say the same thing.
//! Everything is printed through [`crate::util::output`].

use crate::cli::clap_common::version_line;
use crate::util::error::{exit, Error, Exit};
use crate::util::output;
use clap::{Arg, Command, CommandFactory};

const ABOUT: &str =
    "Storage benchmark and diagnosis: how fast is this storage, and why not faster?";

const AFTER: &str = "Examples, one per command:
  Is my NVMe in a PCIe 2.0 x4 slot? Is the SATA link at 3 Gb/s, the USB port at 480 Mb/s?
  Is a RAID, the write cache or a misaligned partition in the way?
    iomark diagnose /mnt/data
    (each link's negotiated speed and width against the drive's maximum; a recorded Gen2 slot:
    iomark diagnose /data/big.bin --fixture a-nvme-gen2-slot)
  What does this drive score (MB/s, IOPS, latency), CrystalDiskMark-style?
    iomark mark /mnt/data
  What would sysbench fileio say, and did the page cache serve the reads?
    iomark fileio --file-total-size=1G --file-test-mode=rndrd prepare run cleanup
  What would fio measure for this job?
    iomark run --name=rr --rw=randread --bs=4k --size=1g --direct=1
  How do two results differ? Did this drive get slower since last time?
    iomark compare a.json b.json
    iomark compare --baseline=last
  How long does a big copy take, until the data is durable?
    iomark copy /mnt/data
  How fast are many small files?
    iomark tree /mnt/data
  Is this build waiting for storage? What would a faster drive save?
    sudo iomark time -- make -j8

`iomark help COMMAND` (or `iomark COMMAND --help`) says what a command tells you, its
options, an example and its exit status (0 ok, 1 the run failed, 2 invalid options or input,
3 the environment cannot do it, 128 + the signal when stopped by one).

Every completed result of fileio, run, mark, copy, tree and time is kept in the history
($XDG_DATA_HOME/iomark/results, or IOMARK_RESULTS): `iomark history` lists them;
--no-history on a run, or IOMARK_HISTORY=off, keeps none.";

/// The commands a user types, in the order the help lists them.
pub const COMMANDS: &[&str] = &[
    "diagnose",
    "mark",
    "fileio",
    "run",
    "compare",
    "history",
    "report",
    "copy",
    "tree",
    "time",
    "completions",
    "man",
    "help",
];

/// Shells `iomark completions` writes a script for.
pub const SHELLS: &[&str] = &["bash", "zsh", "fish"];

/// A derive-made command under its command word (`iomark mark` → `mark`).
fn sub<A: CommandFactory>(name: &'static str) -> Command {
    A::command().name(name).bin_name(format!("iomark {name}"))
}

fn word_arg(name: &'static str, help: &'static str, words: &[&'static str]) -> Arg {
    Arg::new(name)
        .value_name(name.to_ascii_uppercase())
        .help(help)
        .value_parser(words.to_vec())
}

/// The whole command tree.
pub fn command() -> Command {
    let commands: Vec<&'static str> = COMMANDS.to_vec();
    let subs: Vec<Command> = vec![
        sub::<crate::cli::diagnose::Args>("diagnose"),
        sub::<crate::cli::mark::Args>("mark"),
        crate::cli::fileio::help::command(),
        crate::cli::run_args::command(),
        sub::<crate::cli::compare::Args>("compare"),
        sub::<crate::cli::history::Args>("history"),
        sub::<crate::cli::report::Args>("report"),
        sub::<crate::cli::copy::Args>("copy"),
        sub::<crate::cli::tree::Args>("tree"),
        sub::<crate::cli::time::Args>("time"),
        Command::new("completions")
            .bin_name("iomark completions")
            .about("Print a shell completion script: bash, zsh or fish (docs/packaging.md)")
            .arg(word_arg("shell", "the shell", SHELLS).required(true)),
        Command::new("man")
            .bin_name("iomark man")
            .about("Print the man page (roff) of iomark, or of one command: iomark man | man -l -")
            .arg(word_arg(
                "command",
                "the command (default: iomark itself)",
                &commands,
            )),
        Command::new("help")
            .bin_name("iomark help")
            .about("Print this help, or one command's: iomark help diagnose")
            .arg(word_arg("command", "the command", &commands)),
    ];
    Command::new("iomark")
        .version(env!("CARGO_PKG_VERSION"))
        .about(ABOUT)
        .after_help(AFTER)
        .disable_help_subcommand(true)
        .override_usage("iomark <command> [options...]")
        .max_term_width(100)
        .subcommands(subs)
}

/// The top-level help text.
pub fn top_text() -> String {
    command().render_help().to_string()
}

/// `iomark --help`: the top-level help on stdout, exit 0.
pub fn top() -> Exit {
    output::holds(output::Holds::Help);
    output::write(top_text().as_bytes());
    Ok(exit::OK)
}

/// Bare `iomark`: the top-level help on stdout, exit 2 (a command is missing).
pub fn no_command() -> Exit {
    output::holds(output::Holds::Help);
    output::write(top_text().as_bytes());
    Ok(exit::INVALID)
}

/// `iomark --version`.
pub fn version() -> Exit {
    output::holds(output::Holds::Version);
    output::write(version_line().as_bytes());
    Ok(exit::OK)
}

/// `iomark help [CMD]`: the command's own `--help` (same text, same code).
pub fn help(args: &[String]) -> Exit {
    let help = vec!["--help".to_string()];
    match args.first().map(String::as_str) {
        None | Some("help") => top(),
        Some("fileio") => Ok(crate::cli::fileio::run(&help)),
        Some("run") => crate::cli::run::run(&help),
        Some("diagnose") => crate::cli::diagnose::run(&help),
        Some("mark") => crate::cli::mark::run(&help),
        Some("compare") => crate::cli::compare::run(&help),
        Some("history") => crate::cli::history::run(&help),
        Some("report") => crate::cli::report::run(&help),
        Some("copy") => crate::cli::copy::run(&help),
        Some("tree") => crate::cli::tree::run(&help),
        Some("time") => crate::cli::time::run(&help),
        Some(c @ ("completions" | "man")) => {
            let text = command()
                .find_subcommand_mut(c)
                .map(|s| s.render_help().to_string())
                .unwrap_or_default();
            output::holds(output::Holds::Help);
            output::write(text.as_bytes());
            Ok(exit::OK)
        }
        Some(other) => unknown_command(other),
    }
}

/// The command most like `word` (normalised Damerau–Levenshtein similarity ≥ 0.5, or
/// `word` a prefix of it), if any: `fileo` → `fileio`.
pub fn did_you_mean(word: &str) -> Option<&'static str> {
    let w = word.to_ascii_lowercase();
    COMMANDS
        .iter()
        .map(|c| {
            let s = strsim::normalized_damerau_levenshtein(&w, c);
            (
                if w.len() >= 2 && c.starts_with(&w) {
                    s.max(0.9)
                } else {
                    s
                },
                *c,
            )
        })
        .filter(|(s, _)| *s >= 0.5)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// An unknown command word: one line (stderr), exit 2.
pub fn unknown_command(word: &str) -> Exit {
    let hint = did_you_mean(word).map_or(String::new(), |c| format!("; did you mean '{c}'?"));
    Err(Error::new(
        exit::INVALID,
        format!(
            "iomark: unknown command '{word}'{hint} (accepted: {}; see iomark --help)",
            COMMANDS.join(", ")
        ),
    ))
}

/// `iomark completions SHELL`: the completion script of every command on stdout.
pub fn completions(args: &[String]) -> Exit {
    use clap_complete::Shell;
    let shell = match args {
        [s] if s == "-h" || s == "--help" => return help(&["completions".into()]),
        [s] => match s.as_str() {
            "bash" => Shell::Bash,
            "zsh" => Shell::Zsh,
            "fish" => Shell::Fish,
            _ => return usage_error("completions", &format!("unknown shell '{s}'"), SHELLS),
        },
        _ => return usage_error("completions", "one shell is expected", SHELLS),
    };
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut command(), "iomark", &mut buf);
    output::holds(output::Holds::Completions);
    output::write(&buf);
    Ok(exit::OK)
}

/// `iomark man [CMD]`: the man page of iomark (section 1, the commands listed), or of one
/// command (`iomark-CMD(1)`, its options), in roff on stdout.
pub fn man(args: &[String]) -> Exit {
    let cmd = match args {
        [] => command(),
        [s] if s == "-h" || s == "--help" => return help(&["man".into()]),
        [c] => match command().find_subcommand(c) {
            Some(s) => s.clone().name(format!("iomark-{c}")),
            None => return usage_error("man", &format!("unknown command '{c}'"), COMMANDS),
        },
        _ => return usage_error("man", "at most one command is expected", COMMANDS),
    };
    let mut buf = Vec::new();
    if let Err(e) = clap_mangen::Man::new(cmd).render(&mut buf) {
        return Err(Error::new(
            exit::FAILED,
            format!("iomark man: cannot render the page: {e}"),
        ));
    }
    output::holds(output::Holds::Man);
    output::write(&buf);
    Ok(exit::OK)
}

fn usage_error(cmd: &str, what: &str, accepted: &[&str]) -> Exit {
    Err(Error::new(
        exit::INVALID,
        format!("iomark {cmd}: {what} (accepted: {})", accepted.join(", ")),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_is_valid_and_lists_every_command() {
        let c = command();
        c.clone().debug_assert();
        let names: Vec<&str> = c.get_subcommands().map(|s| s.get_name()).collect();
        assert_eq!(names, COMMANDS);
    }

    #[test]
    fn an_unknown_command_lists_every_command() {
        let e = unknown_command("frobnicate").unwrap_err();
        for c in COMMANDS {
            assert!(e.to_string().contains(c), "{c} missing from: {e}");
        }
    }

    #[test]
    fn mistyped_commands_get_the_nearest_one() {
        assert_eq!(did_you_mean("fileo"), Some("fileio"));
        assert_eq!(did_you_mean("diagnsoe"), Some("diagnose"));
        assert_eq!(did_you_mean("cmopare"), Some("compare"));
        assert_eq!(did_you_mean("mak"), Some("mark"));
        assert_eq!(did_you_mean("diag"), Some("diagnose"));
        assert_eq!(did_you_mean("completion"), Some("completions"));
        assert_eq!(did_you_mean("xyzzy"), None);
        assert_eq!(did_you_mean("benchmark"), None);
    }

    #[test]
    fn the_top_help_leads_a_pcie_question_to_diagnose() {
        let t = top_text();
        let line = t
            .lines()
            .position(|l| l.contains("PCIe 2.0 x4"))
            .expect("the PCIe question");
        let answer = t.lines().skip(line).take(3).collect::<String>();
        assert!(answer.contains("iomark diagnose"), "{answer}");
        for c in COMMANDS {
            assert!(t.contains(&format!("  {c} ")), "{c} missing from:\n{t}");
        }
    }
}

#[cfg(test)]
mod option_coverage;
