//! `iomark mark [PATH]` front end: flags → [`MarkJob`]. It only translates and validates
//! values (preset name, sizes, counts); the target directory, free space and O_DIRECT
//! support are checked by [`crate::run::mark::execute`] / the fileio preflight. Its
//! outputs (`--json`, `--plot`, the table) are declared, rendered and written here
//! ([`MarkOutputs`], the run's [`mark::Emit`] hook) when the run says.
//!
//! Errors are one line on stderr (`iomark mark: …`), exit code 2 for invalid input.

use crate::cli::clap_common::{clap_exit, parse_bin_size};
use crate::cli::output::{cannot_write, Outputs};
use crate::job::units::{iomark_count, iomark_count_u32};
use crate::report::mark_table::MarkTable;
use crate::result::RunResult;
use crate::run::mark::{self, MarkJob, PRESETS};
use clap::Parser;
use std::path::{Path, PathBuf};

/// Command-line options of `iomark mark`.
#[derive(Debug, Parser)]
#[command(
    name = "iomark mark",
    version,
    about = "What does this drive score? CrystalDiskMark-style MB/s, IOPS and latency in one command",
    after_help = "Example (the default preset on the drive that holds /mnt/data, result kept as JSON):
  iomark mark /mnt/data --json=mark.json

Each test is O_DIRECT with incompressible data, time-based, median of --loops; MB/s = 10^6 B/s,
MiB/s = 2^20 B/s. A test directory iomark-mark.PID is created under PATH and removed afterwards.
On a terminal the table is coloured; --color=never or NO_COLOR turns colour off."
)]
pub struct Args {
    /// Directory on the drive to test (default: current directory). A directory
    /// `iomark-mark.<pid>` is created in it for the test file and removed afterwards.
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// Preset: default (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1), nvme (SEQ1M Q8T1,
    /// SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1), peak (SEQ1M Q8T1, RND4K Q32T1),
    /// realworld (SEQ1M Q1T1, RND4K Q1T1). Each slot is run as read and as write.
    /// sustained: one O_DIRECT sequential 1 MiB QD8 write until --size (default: 90 % of
    /// the free space) or --time (default 600 s), reported over time with its write cliff
    /// and the steady rate after it (`iomark run`'s report; docs/commands/mark.md).
    #[arg(long, default_value = "default", value_parser = parse_preset)]
    pub preset: String,
    /// Also run each random slot as a 70 % read / 30 % write mix.
    #[arg(long)]
    pub mix: bool,
    /// Test file size, binary units (K/M/G/T = 1024^n; KB/MB/GB/TB = 1000^n; a lower-case
    /// b, bits, is refused). Rounded
    /// down to a whole number of the preset's largest block (1 MiB); smaller is refused.
    /// [default: 1G; sustained: 90 % of the free space]
    #[arg(long, allow_negative_numbers = true, value_parser = parse_size)]
    pub size: Option<SizeArg>,
    /// Measured seconds per test loop (time-based, not size-capped) [default: 5;
    /// sustained: 600, the longest write]
    #[arg(long, allow_negative_numbers = true, value_parser = iomark_count(1, 3600, "seconds"))]
    pub time: Option<u64>,
    /// Loops per test; the median (by MB/s; an even count: the mean of the two middle loops) is reported, best and worst are kept in the JSON.
    #[arg(long, default_value_t = 3, allow_negative_numbers = true, value_parser = iomark_count_u32(1, 100, ""))]
    pub loops: u32,
    /// Unreported warm-up seconds before each test's loops (0 = none).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = iomark_count(0, 600, "seconds"))]
    pub warmup: u64,
    /// Write the RunResult (command "mark", one phase per test) to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write SVG charts of each test's median loop (throughput over time, latency
    /// percentiles) into DIR (created if missing).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
    /// Colour in the table: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = crate::cli::clap_common::color_when())]
    pub color: crate::util::color::When,
    /// Keep no copy of the result in the history (iomark history; IOMARK_HISTORY=off:
    /// never). Completed runs are kept by default.
    #[arg(long)]
    pub no_history: bool,
    /// Full-screen live view while the tests run (a terminal on stdout is needed):
    /// MB/s, IOPS and latency over the last 60 s, the device's utilisation and
    /// temperature; q or Ctrl-C stops as SIGINT does (the finished tests are kept).
    #[arg(long)]
    pub live: bool,
}

/// `--size` as parsed: bytes, and the text the user gave (for messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeArg {
    /// bytes (> 0)
    pub bytes: u64,
    /// the value as given, e.g. `10MB`
    pub text: String,
}

fn parse_size(s: &str) -> Result<SizeArg, String> {
    parse_bin_size(s).map(|bytes| SizeArg {
        bytes,
        text: s.to_string(),
    })
}

/// The preset of sustained writes (not a suite of slots: [`sustained`] runs it).
pub const SUSTAINED: &str = "sustained";

fn parse_preset(s: &str) -> Result<String, String> {
    if PRESETS.contains(&s) || s == SUSTAINED {
        Ok(s.to_string())
    } else {
        Err(format!(
            "unknown preset '{s}' (accepted: {}, {SUSTAINED})",
            PRESETS.join(", ")
        ))
    }
}

/// Seconds of a sustained write when `--time` is not given.
pub const SUSTAINED_TIME_S: u64 = 600;

/// The `iomark run` arguments of a sustained write of `size` bytes for at most `secs`
/// seconds into `file` (the job docs/jobs/sustained-writes.fio holds): O_DIRECT,
/// sequential 1 MiB writes, 8 in flight.
pub fn sustained_args(file: &std::path::Path, size: u64, secs: u64) -> Vec<String> {
    vec![
        "--name=sustained".into(),
        // one name, its colons escaped: `filename=` is a ':' list
        format!(
            "--filename={}",
            crate::job::fio::names::escape(&file.display().to_string())
        ),
        "--rw=write".into(),
        "--bs=1M".into(),
        "--iodepth=8".into(),
        "--ioengine=io_uring".into(),
        "--direct=1".into(),
        format!("--size={size}"),
        format!("--runtime={secs}"),
    ]
}

/// The size of a sustained write: `--size` rounded down to whole MiB, else 90 % of the
/// free space of `dir`; refused (one line, exit 3) when it does not fit in 90 % of the
/// free space or the free space is unknown without `--size`.
fn sustained_size(
    dir: &std::path::Path,
    size: Option<&SizeArg>,
) -> Result<u64, crate::util::error::Error> {
    use crate::util::error::{exit, Error};
    use crate::util::text::iec;
    let cap = crate::files::preflight::free_space(dir).map(|f| ((f / 10 * 9) >> 20) << 20);
    let refuse = |why: String| Error::new(exit::ENVIRONMENT, format!("iomark mark: {why}"));
    match (size, cap) {
        (Some(s), _) if s.bytes < 1 << 20 => Err(Error::new(
            exit::INVALID,
            format!(
                "iomark mark: invalid --size={}: the sustained write needs at least 1 MiB",
                s.text
            ),
        )),
        (Some(s), Some(c)) if s.bytes > c => Err(refuse(format!(
            "--size={} does not fit in 90 % of the free space of {} ({}); use a smaller --size",
            s.text,
            dir.display(),
            iec(c)
        ))),
        (Some(s), _) => Ok(s.bytes >> 20 << 20),
        (None, Some(c)) if c >= 1 << 20 => Ok(c),
        (None, Some(_)) => Err(refuse(format!(
            "not enough free space in {} for a sustained write",
            dir.display()
        ))),
        (None, None) => Err(refuse(format!(
            "the free space of {} is unknown: give --size",
            dir.display()
        ))),
    }
}

/// `mark --preset=sustained`: check PATH and the space, create
/// `PATH/iomark-mark.PID/` for iomark's own file, run the sustained write through
/// `iomark run` (its report, the series, the write cliff and the steady rate after it in
/// the notes; `--json`, `--plot` as `run` has them), then remove the file and the
/// directory — also after an error or Ctrl-C.
fn sustained(a: &Args) -> crate::util::error::Exit {
    use crate::util::error::{exit, Error};
    if !a.path.is_dir() {
        return Err(Error::new(
            exit::ENVIRONMENT,
            format!(
                "iomark mark: {} is not an existing directory",
                a.path.display()
            ),
        ));
    }
    crate::run::mark::sweep_leftovers(&a.path);
    let size = sustained_size(&a.path, a.size.as_ref())?;
    let dir = a.path.join(format!(
        "{}.{}",
        crate::files::leftover::MARK_DIR,
        std::process::id()
    ));
    let mut guard = crate::files::scratch::Scratch::new();
    guard.create_dir(&dir).map_err(|e| {
        Error::new(
            exit::ENVIRONMENT,
            format!("iomark mark: cannot create the test directory: {e}"),
        )
    })?;
    let file = dir.join(crate::files::leftover::MARK_FILES[1]);
    guard.register_files_in(&dir, [file.clone()]);
    let mut args = sustained_args(&file, size, a.time.unwrap_or(SUSTAINED_TIME_S));
    args.extend(a.json.iter().map(|p| format!("--json={}", p.display())));
    args.extend(a.plot.iter().map(|p| format!("--plot={}", p.display())));
    args.extend(a.live.then(|| "--live".to_string()));
    args.extend(a.no_history.then(|| "--no-history".to_string()));
    let code = crate::cli::run::run(&args);
    drop(guard);
    code
}

/// Run `iomark mark` with the arguments after the command word (mark prints its own
/// lines while it runs, src/run/mark/).
pub fn run(args: &[String]) -> crate::util::error::Exit {
    let argv = std::iter::once("iomark mark".to_string()).chain(args.iter().cloned());
    let a = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => return clap_exit("mark", e),
    };
    if a.live {
        crate::cli::live::need_terminal("iomark mark")?;
    }
    if a.preset == SUSTAINED {
        return sustained(&a);
    }
    let size = a.size.unwrap_or_else(|| SizeArg {
        bytes: 1 << 30,
        text: "1G".into(),
    });
    let job = MarkJob {
        path: a.path,
        preset: a.preset,
        mix: a.mix,
        size: size.bytes,
        size_text: size.text,
        time_s: a.time.unwrap_or(5),
        loops: a.loops,
        warmup_s: a.warmup,
        json: a.json,
        plot: a.plot,
        paint: crate::util::color::Paint::new(a.color),
        argv: args.to_vec(),
        history: !a.no_history,
    };
    let planned = planned_s(&job);
    let remaining = move |el: u64| planned.map(|p| p.saturating_sub(el));
    let mut outs = MarkOutputs::default();
    Ok(crate::cli::live::around(
        a.live,
        "iomark mark",
        remaining,
        || mark::execute(&job, &mut outs),
    ))
}

/// The outputs of `iomark mark` through the output manager (cli/output.rs): the
/// `--json` result, the `--plot` charts of each test's median loop, the table
/// (report/mark_table.rs) on stdout; a failure is one line `iomark mark: …` on stderr.
#[derive(Default)]
struct MarkOutputs {
    outs: Outputs,
    /// the tests' fileio jobs: no outputs, their results stay in memory
    fileio: crate::cli::fileio::outputs::FileioOutputs,
}

impl mark::Emit for MarkOutputs {
    fn declare(&mut self, job: &MarkJob) -> Result<(), i32> {
        if let Some(p) = &job.json {
            if let Err(e) = self.outs.json(p) {
                eprintln!("iomark mark: {}", cannot_write("--json", p, &e));
                return Err(e.exit_code());
            }
        }
        if let Some(d) = &job.plot {
            if let Err((code, e)) = self.outs.plots(d) {
                eprintln!("iomark mark: {e}");
                return Err(code);
            }
        }
        let table = MarkTable { paint: job.paint };
        self.outs.stdout(vec![Box::new(table)], "");
        Ok(())
    }

    fn rehearse(&self) -> Result<(), i32> {
        self.outs.rehearse().map_err(|e| {
            let p = self.outs.json_path().unwrap_or(Path::new(""));
            eprintln!("iomark mark: {}", cannot_write("--json", p, &e));
            e.exit_code()
        })
    }

    fn table(&self, r: &RunResult) {
        let _ = self.outs.write_texts(r);
    }

    /// A failure is one line naming the file and the reason.
    fn save_json(&self, r: &RunResult) -> bool {
        match (self.outs.write_json(r), self.outs.json_path()) {
            (Err(e), Some(p)) => {
                eprintln!("iomark mark: {}", cannot_write("--json", p, &e));
                false
            }
            _ => true,
        }
    }

    fn plots(&self, r: &RunResult, dir: &Path) -> Result<Vec<PathBuf>, String> {
        crate::cli::output::write_plots(r, dir)
    }

    fn keep_history(&self, r: &RunResult, on: bool) -> Option<String> {
        crate::cli::output::keep_history(r, on)
    }

    fn fileio(&mut self) -> &mut dyn crate::run::sysbench::Emit {
        &mut self.fileio
    }
}

/// The seconds the tests of `job` are planned to take: each test's warm-up and loops
/// (the test file's preparation not counted); `None` for an unknown preset.
fn planned_s(job: &MarkJob) -> Option<u64> {
    let tests = crate::run::mark::expand(&job.preset, job.mix)?;
    let per = job.warmup_s + u64::from(job.loops) * job.time_s;
    Some(tests.len() as u64 * per)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::fileio::Outcome;
    use crate::job::presets::{expand, fileio_run, Op, Pattern, Test};
    use crate::job::sysbench::Command as FileioCommand;
    use std::path::Path;

    /// The `iomark fileio` command line of one mark test: what a user types to run the
    /// very call mark builds in memory (job/presets.rs `fileio_run`).
    fn command_line(t: &Test, size: u64, time_s: u64, dir: &Path) -> Vec<String> {
        let mode = match (t.slot.pattern, t.op) {
            (Pattern::Seq, Op::Read) => "seqrd",
            (Pattern::Seq, Op::Write) => "seqrewr",
            (Pattern::Rnd, Op::Read) => "rndrd",
            (Pattern::Rnd, Op::Write) => "rndwr",
            (_, Op::Mix) => "rndrw",
        };
        let mut a = vec![
            "--file-num=1".to_string(),
            format!("--file-total-size={size}"),
            format!("--file-block-size={}", t.slot.block),
            format!("--file-test-mode={mode}"),
        ];
        if t.slot.qd > 1 {
            a.push("--file-io-mode=async".into());
            a.push(format!("--file-async-backlog={}", t.slot.qd));
        } else {
            a.push("--file-io-mode=sync".into());
        }
        a.extend([
            "--file-extra-flags=direct".to_string(),
            "--file-fsync-freq=0".into(),
            "--file-fsync-end=off".into(),
            "--file-rw-ratio=2.3333333333".into(),
            format!("--threads={}", t.slot.threads),
            format!("--time={time_s}"),
            "--events=0".into(),
            format!("--file-dir={}", dir.display()),
            "--file-data=random".into(),
            "--percentile=99".into(),
            "--notes=off".into(),
            "--history=off".into(),
            "--verbosity=0".into(),
            "run".into(),
        ]);
        a
    }

    #[test]
    fn each_mark_test_is_the_job_fileio_parses_of_its_command_line() {
        let d = Path::new("/d");
        // every test of every preset is the call fileio makes of its command line, as the
        // run reads it (mark adds only fio's reaping: one completion, then refill its slot)
        for p in ["default", "nvme", "peak", "realworld"] {
            for t in expand(p, true).unwrap() {
                let args = command_line(&t, 1 << 30, 5, d);
                let parsed = match crate::cli::fileio::parse(&args).outcome {
                    Outcome::Job(j) => j,
                    Outcome::Exit(c) => panic!("{}: exit {c}", args.join(" ")),
                };
                let mut want = *parsed;
                want.settings.argv.clear();
                want.settings.commands = vec![FileioCommand::Run];
                want.reap_max = 1;
                let (want, got) = (want.translate(), fileio_run(&t, 1 << 30, 5, d));
                assert_eq!(
                    format!("{got:?}"),
                    format!("{want:?}"),
                    "{}",
                    args.join(" ")
                );
            }
        }
    }

    #[test]
    fn defaults_match_kdiskmark_except_loops() {
        // --size and --time default in `run` (1G and 5 s; sustained: free space, 600 s)
        let a = Args::try_parse_from(["iomark mark"]).unwrap();
        assert_eq!((a.size, a.time, a.loops, a.warmup), (None, None, 3, 1));
        assert_eq!(a.preset, "default");
        let a = Args::try_parse_from(["iomark mark", "--size", "10MB"]).unwrap();
        let s = a.size.unwrap();
        assert_eq!((s.bytes, s.text.as_str()), (10_000_000, "10MB"));
        assert!(Args::try_parse_from(["iomark mark", "--preset=sustained"]).is_ok());
        assert!(Args::try_parse_from(["iomark mark", "--preset=fast"]).is_err());
        assert!(Args::try_parse_from(["iomark mark", "--loops=0"]).is_err());
    }

    #[test]
    fn numeric_errors_name_the_option_and_the_range() {
        for (args, want) in [
            (vec!["--time=abc"], "invalid value 'abc' for '--time <TIME>': expected a whole number of seconds from 1 to 3600"),
            (vec!["--time=99999"], "invalid value '99999' for '--time <TIME>': expected a whole number of seconds from 1 to 3600"),
            (vec!["--loops=-2"], "invalid value '-2' for '--loops <LOOPS>': expected a whole number from 1 to 100"),
            (vec!["--loops", "-2"], "invalid value '-2' for '--loops <LOOPS>'"),
            (vec!["--warmup=1.5"], "invalid value '1.5' for '--warmup <WARMUP>': expected a whole number of seconds from 0 to 600"),
            (vec!["--size=xyz"], "for '--size <SIZE>': 'xyz' is not a size"),
        ] {
            let argv = std::iter::once("iomark mark").chain(args.iter().copied());
            let e = Args::try_parse_from(argv).unwrap_err();
            let line = crate::cli::clap_common::clap_line(&e.to_string());
            assert!(line.contains(want), "{args:?}: {line}");
            assert!(!line.contains("invalid digit"), "{line}");
        }
        let a = Args::try_parse_from(["iomark mark", "--warmup=0", "--loops=100"]).unwrap();
        assert_eq!((a.warmup, a.loops), (0, 100));
    }
}
