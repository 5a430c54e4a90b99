//! The front-end half shared by the phase-shaped commands (`copy`, `tree`): after the
//! run's own checks passed, the outputs are created (`--json` checked, its write
//! rehearsed aside; the text report for stdout); while it runs its live lines are
//! printed; at the end the report, the kept files, the closing lines, the result file
//! and the results history (its line last), in that order.

use crate::cli::output::{cannot_write, Outputs};
use crate::report::Reporter;
use crate::run::copy::{Live, PhaseRun};
use crate::util::error::{exit, Error, Exit};
use std::path::Path;

/// Run `iomark CMD` after its own checks passed: create the outputs, `execute` the
/// run with the live printer, print its end.
pub fn run(
    cmd: &str,
    (json, history): (Option<&Path>, bool),
    report: Box<dyn Reporter>,
    execute: impl FnOnce(&dyn Fn(Live)) -> PhaseRun,
) -> Exit {
    let outs = outputs(cmd, json, report)?;
    let run = execute(&live);
    let ended = finish(cmd, &run, &outs);
    // the results history: a completed run, its line last
    if let Some(l) = crate::cli::output::keep_history(&run.result, history) {
        eprintln!("{l}");
    }
    ended
}

/// The outputs of `iomark CMD`: `--json` (checked and its write rehearsed now) and
/// `report` on stdout.
fn outputs(cmd: &str, json: Option<&Path>, report: Box<dyn Reporter>) -> Result<Outputs, Error> {
    let mut outs = Outputs::new();
    if let Some(p) = json {
        if let Err(e) = outs.json(p).and_then(|_| outs.rehearse()) {
            let line = format!("iomark {cmd}: {}", cannot_write("--json", p, &e));
            return Err(Error::new(e.exit_code(), line));
        }
    }
    outs.stdout(vec![report], "");
    Ok(outs)
}

/// Print a live line of the run.
fn live(l: Live) {
    match l {
        Live::Out(s) => crate::outln!("{s}"),
        Live::Err(s) => eprintln!("{s}"),
    }
}

/// Print the end of a run and write its result (old content or the complete result);
/// the run's exit code, or an error (exit 1 after a run that went well) when the result
/// file cannot be written.
fn finish(cmd: &str, run: &PhaseRun, outs: &Outputs) -> Exit {
    let _ = outs.write_texts(&run.result);
    for f in &run.kept {
        crate::outln!("kept: {}", f.display());
    }
    for l in &run.closing {
        eprintln!("{l}");
    }
    if let (Err(e), Some(p)) = (outs.write_json(&run.result), outs.json_path()) {
        let code = if run.code == exit::OK {
            exit::FAILED
        } else {
            run.code
        };
        let line = format!("iomark {cmd}: {}", cannot_write("--json", p, &e));
        return Err(Error::new(code, line));
    }
    Ok(run.code)
}
