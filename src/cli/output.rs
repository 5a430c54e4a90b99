//! The output manager, the front ends' (it renders report/'s reporters and writes
//! through files/, which only cli/ may both use): a command declares its outputs before
//! it runs — the `--json` result file (checked, its write rehearsed in a temporary file
//! now; the file keeps its old content until the result replaces it), text reports for
//! stdout or an `--output=FILE` (checked now, replaced at the end), the `--plot=DIR`
//! charts (the directory is made now) — so a bad path fails before any work (exit 3); at
//! the end it renders each output's reporters over the one [`RunResult`] (the charts
//! too: [`write_plots`]) and writes them: files through files/output.rs (never through
//! a link, old content or the complete new one; a failed write is exit 1), stdout
//! through util/output.rs. Messages stay the command's: the errors carry the path and
//! the reason, the command says them.
//!
//! An output path that names a standard stream (`-`, `/dev/stdout`, `/dev/stderr`,
//! `/dev/null`: util/output.rs [`Stream`]) is that stream, for every command and every
//! output option ([`Sink::create`]); `--json=-` takes stdout for the JSON document alone
//! (every other stdout text then goes to stderr), so `iomark … --json=- | jq` works.
//!
//! A run may also write its text outputs while it goes on ([`Outputs::write_status`]:
//! fio's `--status-interval` reports): a stream gets them at once, and so does a file,
//! each report whole as it is made (files/output.rs's `Output::grow`: the first
//! replaces the file, the later ones and the final report are added to it).

use crate::files::output::{Output, OutputError};
use crate::report::svg_plot::{stem, DeviceChart, LatencyChart, ThroughputChart};
use crate::report::{ReportError, Reporter};
use crate::result::RunResult;
use crate::util::output::Stream;
use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

/// Where an output goes: a standard stream or a file checked now and replaced at the
/// end (old content or the complete new one).
pub enum Sink {
    Stream(Stream),
    /// stdout reserved for one document (`--json=-`, `compare --plot=-`)
    Document,
    File(Output),
}

impl Sink {
    /// The sink the path `p` of an output option names: a standard stream as it is
    /// spelled (`-`, `/dev/stdout`, `/dev/stderr`, `/dev/null`) or a pipe or character
    /// device this process has open (`/dev/fd/N`: bash's `>(cmd)`), written as it
    /// comes, with no rehearsal and no rename, else a file checked now
    /// (`Stage::Check` errors, exit 3: a link, a device, a FIFO refused).
    pub fn create(p: &Path) -> Result<Sink, OutputError> {
        match Stream::of(p) {
            Some(s) => Ok(Sink::Stream(s)),
            None => Output::create(p).map(Sink::File),
        }
    }

    /// [`Sink::create`] for a document (the `--json` result, a chart): on stdout it
    /// takes stdout alone, and every other stdout text goes to stderr from now on.
    pub fn document(p: &Path) -> Result<Sink, OutputError> {
        match Sink::create(p)? {
            Sink::Stream(Stream::Stdout) => {
                crate::util::output::reserve_for_document();
                Ok(Sink::Document)
            }
            sink => Ok(sink),
        }
    }

    /// Write `bytes` as the output's whole content: a file replaced (errors are
    /// `Stage::Write`, the file keeps its old content), a stream written to
    /// (stdout through util/output.rs's one rule for write errors).
    pub fn commit(&self, bytes: &[u8]) -> Result<(), OutputError> {
        match self {
            Sink::Stream(s) => s.write(bytes).map_err(|e| OutputError {
                path: PathBuf::from(s.name()),
                stage: crate::files::output::Stage::Write,
                reason: e
                    .raw_os_error()
                    .map_or_else(|| e.to_string(), crate::util::strerror),
                errno: e.raw_os_error(),
            }),
            Sink::Document => {
                crate::util::output::write_document(bytes);
                Ok(())
            }
            Sink::File(o) => o.commit(bytes),
        }
    }

    /// The file, when the sink is one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Sink::File(o) => Some(o.path()),
            Sink::Stream(_) | Sink::Document => None,
        }
    }
}

/// The `--json` output: the path as given, where it goes, whether it was written.
struct Json {
    path: PathBuf,
    sink: Sink,
    done: Cell<bool>,
}

/// One text output: reporters whose outputs are joined with `sep`; `opt` the option
/// that named it (none: stdout by default).
struct Text {
    opt: Option<String>,
    sink: Sink,
    reporters: Vec<Box<dyn Reporter>>,
    sep: &'static str,
    /// reports rendered while the run went on, kept for a file (written before the
    /// final report)
    early: RefCell<Vec<u8>>,
}

/// The outputs of one command run.
#[derive(Default)]
pub struct Outputs {
    json: Option<Json>,
    texts: Vec<Text>,
    plots: Option<PathBuf>,
}

/// A text output that could not be written: the option, the error.
pub type TextError = (String, OutputError);

impl Outputs {
    /// No outputs yet.
    pub fn new() -> Outputs {
        Outputs::default()
    }

    /// `--json=FILE`: checked now (`Stage::Check` errors, exit 3); a result-sized
    /// write is rehearsed by [`Outputs::rehearse`], once every output passed its check.
    /// A standard stream is that stream (`--json=-`: stdout holds the document alone).
    pub fn json(&mut self, path: &Path) -> Result<(), OutputError> {
        let sink = Sink::document(path)?;
        self.json = Some(Json {
            path: path.to_path_buf(),
            sink,
            done: Cell::new(false),
        });
        Ok(())
    }

    /// Rehearse the `--json` write (nothing without `--json`): a temporary file in its
    /// directory takes a small document and is removed; the file itself keeps its old
    /// content until the result replaces it (a SIGKILL leaves the previous result).
    pub fn rehearse(&self) -> Result<(), OutputError> {
        match self.json.as_ref().map(|j| &j.sink) {
            Some(Sink::File(o)) => o.rehearse(&crate::result::placeholder_bytes()),
            Some(Sink::Stream(_) | Sink::Document) | None => Ok(()),
        }
    }

    /// The `--json` file, if one was asked for.
    pub fn json_path(&self) -> Option<&Path> {
        self.json.as_ref().map(|j| j.path.as_path())
    }

    /// Whether the `--json` file still owes its result (created, not yet written).
    pub fn json_pending(&self) -> bool {
        self.json.as_ref().is_some_and(|j| !j.done.get())
    }

    /// A text output to stdout.
    pub fn stdout(&mut self, reporters: Vec<Box<dyn Reporter>>, sep: &'static str) {
        self.texts.push(Text {
            opt: None,
            sink: Sink::Stream(Stream::Stdout),
            reporters,
            sep,
            early: RefCell::default(),
        });
    }

    /// A text output to stderr.
    pub fn stderr(&mut self, reporters: Vec<Box<dyn Reporter>>) {
        self.texts.push(Text {
            opt: None,
            sink: Sink::Stream(Stream::Stderr),
            reporters,
            sep: "",
            early: RefCell::default(),
        });
    }

    /// Make each text output's file, empty, where nothing is at its name yet (the fio
    /// persona's `--output`, which fio 3.33 creates before its jobs run;
    /// files/output.rs `Output::create_if_absent`): a file that exists is left as it is.
    pub fn create_absent_files(&self) -> Result<(), TextError> {
        for t in &self.texts {
            if let (Sink::File(o), Some(opt)) = (&t.sink, &t.opt) {
                o.create_if_absent().map_err(|e| (opt.clone(), e))?;
            }
        }
        Ok(())
    }

    /// Remove the files [`Outputs::create_absent_files`] made that are still empty: a
    /// run that ends without its report leaves the names as it found them.
    pub fn remove_unwritten_files(&self) {
        for t in &self.texts {
            if let Sink::File(o) = &t.sink {
                o.remove_if_made_empty();
            }
        }
    }

    /// A text output to the path `path` of option `opt` (`--output`): a standard stream
    /// (`-` and `/dev/stdout` stdout, `/dev/stderr`, `/dev/null` nothing), or a file
    /// checked now that keeps its old content until the report replaces it.
    pub fn file(
        &mut self,
        opt: &str,
        path: &Path,
        reporters: Vec<Box<dyn Reporter>>,
        sep: &'static str,
    ) -> Result<(), OutputError> {
        let sink = Sink::create(path)?;
        self.texts.push(Text {
            opt: Some(opt.into()),
            sink,
            reporters,
            sep,
            early: RefCell::default(),
        });
        Ok(())
    }

    /// `--plot=DIR`: makes the directory now (its parent must exist). `Err` is the exit
    /// code and the line: a standard stream (`-`, `/dev/stdout`, `/dev/null`: [`Stream`])
    /// cannot hold the several charts of a run, refused as bad input (exit 2); a path
    /// that cannot be a directory, exit 3.
    pub fn plots(&mut self, dir: &Path) -> Result<(), (i32, String)> {
        use crate::util::error::exit;
        if Stream::of(dir).is_some() {
            return Err((exit::INVALID, plot_dir_is_a_stream(dir)));
        }
        // before the directory is made: an output named as it, or as a chart in it
        use crate::files::output::{COLLISION, UNUSABLE_PATH};
        crate::files::output::refuse_outputs_in_plot_dir(&self.files(), dir)
            .map_err(|e| (COLLISION, e))?;
        crate::files::output::ensure_dir(dir, "--plot").map_err(|e| (UNUSABLE_PATH, e))?;
        self.plots = Some(dir.to_path_buf());
        Ok(())
    }

    /// Replace the `--json` file's content with `r` (nothing without `--json`).
    pub fn write_json(&self, r: &RunResult) -> Result<(), OutputError> {
        let Some(j) = &self.json else { return Ok(()) };
        let text = crate::report::iomark_json::IomarkJson
            .render(r)
            .unwrap_or_else(|_| crate::result::json_bytes(r));
        j.done.set(true);
        j.sink.commit(&text)
    }

    /// Write the charts of `r` into the `--plot` directory; the files written (none
    /// without `--plot`). The error is `--plot=DIR: why`.
    pub fn write_plots(&self, r: &RunResult) -> Result<Vec<PathBuf>, String> {
        match &self.plots {
            Some(d) => write_plots(r, d).map_err(|e| format!("--plot={}: {e}", d.display())),
            None => Ok(vec![]),
        }
    }

    /// Refuse outputs that are the same file as each other or as one of the run's data
    /// files (`data`: role and path), by path or by device and inode, and two outputs
    /// on one standard stream, before anything is written: `Err` is the one line naming
    /// both (exit 2; files/output.rs).
    pub fn refuse_collisions(&self, data: &[crate::files::output::Named]) -> Result<(), String> {
        let outs = self.files();
        if outs.is_empty() {
            return Ok(());
        }
        crate::files::output::refuse_collisions(&outs, data)
    }

    /// The outputs declared so far that are files: `--json` and the text outputs given
    /// a file, each with its option.
    fn files(&self) -> Vec<crate::files::output::Named> {
        let json = self
            .json
            .iter()
            .map(|j| ("--json".to_string(), j.path.clone()));
        let texts = self.texts.iter().filter_map(|t| match (&t.opt, &t.sink) {
            (Some(opt), Sink::File(o)) => Some((opt.clone(), o.path().to_path_buf())),
            _ => None,
        });
        json.chain(texts).collect()
    }

    /// Whether the run's result is written anywhere (`--json` or `--plot`).
    pub fn wants_result(&self) -> bool {
        self.json.is_some() || self.plots.is_some()
    }

    /// Write the `--json` result of `r` and, when `charts`, its `--plot` charts; each
    /// chart file written (`Ok`) and each output that could not be written (`Err`: the
    /// line `cannot write --json=FILE: why` or `--plot=DIR: why`) is told to `say`, in
    /// that order. Whether every output was written.
    pub fn save(
        &self,
        r: &RunResult,
        charts: bool,
        say: &mut dyn FnMut(Result<&Path, String>),
    ) -> bool {
        let mut written = true;
        if let (Err(e), Some(p)) = (self.write_json(r), self.json_path()) {
            say(Err(cannot_write("--json", p, &e)));
            written = false;
        }
        if charts {
            match self.write_plots(r) {
                Ok(files) => files.iter().for_each(|f| say(Ok(f))),
                Err(e) => {
                    say(Err(e));
                    written = false;
                }
            }
        }
        written
    }

    /// Render the text outputs of `r` and write them: stdout through util/output.rs
    /// (a closed pipe loses the text quietly), files through files/output.rs.
    pub fn write_texts(&self, r: &RunResult) -> Result<(), TextError> {
        for t in &self.texts {
            let mut out = t.early.take();
            out.extend(t.render(r)?);
            t.sink
                .commit(&out)
                .map_err(|e| (t.opt.clone().unwrap_or_default(), e))?;
        }
        Ok(())
    }

    /// Write what each text output prints before the run's first I/O (its first
    /// reporter's [`Reporter::lead`] over `r`, the run as it stands then: fio's header
    /// lines): a stream at once, a file's kept to start its content (fio 3.33 buffers
    /// its `--output` file). Whether any output had something to print.
    pub fn write_lead(&self, r: &RunResult) -> bool {
        let mut any = false;
        for t in &self.texts {
            let lead = t
                .reporters
                .first()
                .map(|rep| rep.lead(r))
                .unwrap_or_default();
            if lead.is_empty() {
                continue;
            }
            any = true;
            match &t.sink {
                Sink::File(_) => t.early.borrow_mut().extend(lead),
                sink => {
                    let _ = sink.commit(&lead);
                }
            }
        }
        any
    }

    /// Render every text output over `r` (a report of the run so far) now and write it:
    /// a stream at once, a file added to (kept for [`Outputs::write_texts`] when it
    /// cannot be written now). An output that
    /// cannot be rendered or written is said at the end, by the final write.
    pub fn write_status(&self, r: &RunResult) {
        for t in &self.texts {
            let Ok(out) = t.render(r) else { continue };
            match &t.sink {
                Sink::File(o) => {
                    // written at once, as fio does; a part that could not be written
                    // is kept for the final write, which says why it fails
                    let mut early = t.early.borrow_mut();
                    early.extend(out);
                    if o.grow(&early).is_ok() {
                        early.clear();
                    }
                }
                sink => {
                    let _ = sink.commit(&out);
                }
            }
        }
    }
}

impl Text {
    /// The output's reporters over `r`, joined with its separator.
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, TextError> {
        let t = self;
        let mut out = Vec::new();
        {
            for (i, rep) in t.reporters.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(t.sep.as_bytes());
                }
                match rep.render(r) {
                    Ok(b) => out.extend(b),
                    Err(ReportError::Empty) => {}
                    Err(ReportError::Failed(why)) => {
                        let path = t.sink.file().unwrap_or(Path::new("-")).to_path_buf();
                        let opt = match (&t.opt, &t.sink) {
                            (Some(opt), _) => opt.clone(),
                            (None, Sink::Stream(Stream::Stderr)) => "stderr".into(),
                            (None, _) => "stdout".into(),
                        };
                        let stage = crate::files::output::Stage::Write;
                        return Err((
                            opt,
                            OutputError {
                                path,
                                stage,
                                reason: why,
                                errno: None,
                            },
                        ));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The one wording of an output that cannot be written — refused by its check before
/// the run (a link, a device, a FIFO, a missing directory) or failed at its final
/// write: `cannot write --json=FILE: why` (`cannot write -o FILE: why` for a short
/// option). Every command says it so, after its own prefix (`iomark copy: `, `FATAL: `).
pub fn cannot_write(opt: &str, path: &Path, why: &dyn std::fmt::Display) -> String {
    let sep = if opt.starts_with("--") { "=" } else { " " };
    format!("cannot write {opt}{sep}{}: {why}", path.display())
}

/// The line refusing `--plot=DIR` when DIR names a standard stream: a run's charts are
/// several files (one SVG per chart), so only a directory is accepted.
pub fn plot_dir_is_a_stream(dir: &Path) -> String {
    format!(
        "--plot={}: is a standard stream, and a run's charts are several SVG files; accepted: a directory (made if missing, its parent must exist), e.g. --plot=charts",
        dir.display()
    )
}

/// Keep `r` in the results history when it completed and the history is on (`on`:
/// no `--no-history`): the line that ends the run's output (files/history.rs [`keep`]).
///
/// [`keep`]: crate::files::history::keep
pub fn keep_history(r: &RunResult, on: bool) -> Option<String> {
    let name = crate::result::history::name(r, std::process::id());
    let ok = r.status == crate::result::Status::Ok;
    crate::files::history::keep(&name, &crate::result::json_bytes(r), on && ok)
}

/// Write `svg` to the chart file `path` through [`crate::files::output`] (never
/// through a link, old content or the complete chart).
fn write_chart(path: &Path, svg: &[u8]) -> Result<(), String> {
    crate::files::output::Output::create(path)
        .and_then(|o| o.commit(svg))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Write the charts of `result` into `dir` (created if missing, one level):
/// `STEM-throughput.svg` (when the result has samples or intervals),
/// `STEM-latency.svg` (when it has latency data) and `STEM-device.svg` (when its samples
/// hold the device's counters, the drive's temperature or the CPUs' clock), `STEM` from [`stem`], each through
/// files/output.rs (each drawn by report/svg_plot.rs). Returns the files written; an error (a message
/// naming the file) when a file cannot be written or the result holds nothing to draw.
pub fn write_plots(result: &RunResult, dir: &Path) -> Result<Vec<PathBuf>, String> {
    crate::files::output::ensure_dir(dir, "--plot")?;
    let s = stem(result);
    let mut out = vec![];
    let charts: [(&str, &dyn Reporter); 3] = [
        ("throughput", &ThroughputChart),
        ("latency", &LatencyChart),
        ("device", &DeviceChart),
    ];
    for (name, chart) in charts {
        let p = dir.join(format!("{s}-{name}.svg"));
        match chart.render(result) {
            Ok(svg) => {
                write_chart(&p, &svg)?;
                out.push(p);
            }
            Err(ReportError::Empty) => {}
            Err(ReportError::Failed(e)) => {
                return Err(format!("cannot write {}: {e}", p.display()))
            }
        }
    }
    if out.is_empty() {
        return Err("the result has no samples, intervals or latency data to draw".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_old_result_stays_until_the_new_one() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        let mut outs = Outputs::new();
        outs.json(&p).unwrap();
        assert!(!p.exists(), "checked, not written");
        outs.rehearse().unwrap();
        assert!(outs.json_pending());
        assert!(
            !p.exists(),
            "rehearsed in a temporary file, the final name untouched"
        );
        std::fs::write(&p, b"last month").unwrap();
        outs.rehearse().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"last month");
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            1,
            "no temporary file"
        );
        let r = crate::result::build(crate::result::Inputs::new(
            "copy",
            &[],
            crate::result::Status::Ok,
        ));
        outs.write_json(&r).unwrap();
        assert!(!outs.json_pending());
        let back: RunResult = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(back.command, "copy");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        assert!(Outputs::new().json(Path::new("/dev/zero")).is_err());
        assert!(
            Outputs::new().json(Path::new("./-")).is_ok(),
            "a file named -"
        );
    }
}
