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
    late_signal(cmd, &ended);
    // the results history: a completed run, its line last
    if let Some(l) = crate::cli::output::keep_history(&run.result, history) {
        eprintln!("{l}");
    }
    ended
}

/// A stop signal the run did not stop for (it came during its last checks, its cleanup
/// or its report): the result is complete (status ok) and the exit code is the signal's
/// all the same (src/cli/mod.rs), which this line explains.
fn late_signal(cmd: &str, ended: &Exit) {
    let Some(s) = crate::run::signals::Signals::installed() else {
        return;
    };
    if let Some(l) = late_signal_line(cmd, ended, s.exit_code(), s.name()) {
        eprintln!("{l}");
    }
}

/// The line of [`late_signal`]: only after a run that ended well and a stop signal.
fn late_signal_line(
    cmd: &str,
    ended: &Exit,
    code: Option<i32>,
    name: Option<&str>,
) -> Option<String> {
    match (ended, code, name) {
        (Ok(exit::OK), Some(code), Some(name)) => Some(format!(
            "iomark {cmd}: {name} came too late to stop the run: its result is complete (status ok); exit {code}, as for any stop signal"
        )),
        _ => None,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_late_signal_is_said_only_after_a_run_that_ended_well() {
        assert_eq!(
            late_signal_line("copy", &Ok(exit::OK), Some(130), Some("SIGINT")).as_deref(),
            Some("iomark copy: SIGINT came too late to stop the run: its result is complete (status ok); exit 130, as for any stop signal")
        );
        assert!(late_signal_line("copy", &Ok(exit::OK), None, None).is_none());
        assert!(late_signal_line("tree", &Ok(exit::FAILED), Some(143), Some("SIGTERM")).is_none());
        let failed: Exit = Err(Error::new(exit::FAILED, "x"));
        assert!(late_signal_line("tree", &failed, Some(143), Some("SIGTERM")).is_none());
    }
}
