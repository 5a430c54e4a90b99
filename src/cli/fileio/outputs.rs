//! What an `iomark fileio` call shows and writes from report/, handed to the run as its
//! hook ([`crate::run::sysbench::Emit`]): the outputs declared through the output
//! manager (cli/output.rs) before any command runs — `--json` checked and its write
//! rehearsed, the `--plot` directory made — and written with the result of `run`, and
//! sysbench's report, histogram and `--debug` lines and iomark's notes rendered by
//! report/'s reporters. The run decides when each is printed (run/sysbench/run.rs).

use crate::cli::output::{cannot_write, Outputs};
use crate::files::fileset;
use crate::job::sysbench::{Command, Fileio};
use crate::report::notes::Notes;
use crate::report::sysbench::{SysbenchHistogram, SysbenchReport, SysbenchThreads};
use crate::report::Reporter;
use crate::result::RunResult;
use crate::util::console::{level, Console};

/// The outputs of one fileio call (none until declared; none for mark's tests, whose
/// results stay in memory) and the reporters of its text.
#[derive(Default)]
pub struct FileioOutputs {
    outs: Outputs,
}

/// A reporter's text output (the sysbench reporters never fail).
fn text(rep: &dyn Reporter, r: &RunResult) -> String {
    rep.render(r)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

impl crate::run::sysbench::Emit for FileioOutputs {
    fn declare(&mut self, job: &Fileio, console: &Console) -> Result<(), i32> {
        self.outs = declare_outputs(job, console)?;
        Ok(())
    }

    fn json_pending(&self) -> bool {
        self.outs.json_pending()
    }

    /// A chart written is its `iomark: wrote` line, an output that could not be written
    /// its FATAL line.
    fn save(&self, r: &RunResult, charts: bool, console: &Console) -> bool {
        self.outs.save(r, charts, &mut |said| match said {
            Ok(f) => console.line(level::NOTICE, &format!("iomark: wrote {}", f.display())),
            Err(line) => console.line(level::FATAL, &format!("FATAL: {line}")),
        })
    }

    fn report(&self, r: &RunResult) -> String {
        text(&SysbenchReport, r)
    }

    fn histogram(&self, r: &RunResult) -> String {
        text(&SysbenchHistogram, r)
    }

    fn threads(&self, r: &RunResult) -> String {
        text(&SysbenchThreads, r)
    }

    fn notes(&self, r: &RunResult) -> String {
        text(&Notes, r)
    }
}

/// The outputs of the call, declared through the output manager (cli/output.rs)
/// before any command runs, and only when `run` is among the commands: `--json` checked
/// (new, or a regular file with one link) and refused when it is one of the test files,
/// the `--plot` directory made, then the `--json` write rehearsed aside. A failed check
/// is its FATAL line and exit 3 (exit 2 for a test file), nothing written.
fn declare_outputs(job: &Fileio, console: &Console) -> Result<Outputs, i32> {
    let (s, t) = (&job.settings, &job.model.thread);
    let mut outs = Outputs::new();
    if !s.commands.contains(&Command::Run) {
        if s.json.is_some() {
            console.err("iomark: WARNING: --json writes the result of 'run'; no 'run' command was given, so no JSON file is written");
        }
        return Ok(outs);
    }
    let fatal = |m: String, code: i32| {
        console.line(level::FATAL, &format!("FATAL: {m}"));
        code
    };
    let cannot =
        |p: &std::path::Path, e: crate::files::output::OutputError| cannot_write("--json", p, &e);
    // the result must not be one of the test files (`--json=test_file.1`, or a hard
    // link to one: said as such before the link rule of the output refuses it)
    let data: Vec<_> = (0..t.files)
        .map(|i| (format!("test file {i}"), fileset::display(&t.dir, i).into()))
        .collect();
    let json: Vec<_> = s
        .json
        .iter()
        .map(|p| ("--json".to_string(), p.clone()))
        .collect();
    crate::files::output::refuse_collisions(&json, &data)
        .map_err(|m| fatal(m, crate::files::output::COLLISION))?;
    if let Some(p) = &s.json {
        outs.json(p)
            .map_err(|e| fatal(cannot(p, e), crate::files::output::UNUSABLE_PATH))?;
    }
    if let Some(d) = &s.plot {
        outs.plots(d).map_err(|(code, m)| fatal(m, code))?;
    }
    if let (Err(e), Some(p)) = (outs.rehearse(), outs.json_path()) {
        return Err(fatal(cannot(p, e), crate::files::output::UNUSABLE_PATH));
    }
    Ok(outs)
}
