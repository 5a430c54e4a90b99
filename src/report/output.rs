//! The output manager: a command declares its outputs before it runs — the `--json`
//! result file (its placeholder is written now), text reports for stdout or an
//! `--output=FILE` (created empty now), the `--plot=DIR` charts (the directory is made
//! now) — so a bad path fails before any work; at the end it renders each output's
//! reporters over the one [`RunResult`] and writes them, files through the one writer
//! (result/write.rs). Messages stay the command's: every error here names the option
//! and the path and says why, and the command decides the exit code.

use crate::report::{ReportError, Reporter};
use crate::result::write::{write_file, ResultFile};
use crate::result::RunResult;
use std::path::{Path, PathBuf};

/// Where a text output goes.
enum Sink {
    Stdout,
    File(String, PathBuf),
}

/// One text output: reporters whose outputs are joined with `sep`.
struct Text {
    sink: Sink,
    reporters: Vec<Box<dyn Reporter>>,
    sep: &'static str,
}

/// The outputs of one command run.
#[derive(Default)]
pub struct Outputs {
    json: Option<ResultFile>,
    texts: Vec<Text>,
    plots: Option<PathBuf>,
}

/// What [`Outputs::write_plots`] wrote.
pub type Written = Vec<PathBuf>;

impl Outputs {
    /// No outputs yet.
    pub fn new() -> Outputs {
        Outputs::default()
    }

    /// `--json=FILE`: writes the placeholder now.
    pub fn json(&mut self, path: &Path) -> std::io::Result<()> {
        self.json = Some(ResultFile::create(path)?);
        Ok(())
    }

    /// The `--json` file, if one was asked for.
    pub fn json_path(&self) -> Option<&Path> {
        self.json.as_ref().map(ResultFile::path)
    }

    /// A text output to stdout.
    pub fn stdout(&mut self, reporters: Vec<Box<dyn Reporter>>, sep: &'static str) {
        self.texts.push(Text {
            sink: Sink::Stdout,
            reporters,
            sep,
        });
    }

    /// A text output to the file `path` of option `opt` (`--output`), created empty
    /// now. The error is `cannot write OPT=FILE: why`.
    pub fn file(
        &mut self,
        opt: &str,
        path: &Path,
        reporters: Vec<Box<dyn Reporter>>,
        sep: &'static str,
    ) -> Result<(), String> {
        write_file(path, b"").map_err(|e| format!("cannot write {opt}={}: {e}", path.display()))?;
        self.texts.push(Text {
            sink: Sink::File(opt.into(), path.to_path_buf()),
            reporters,
            sep,
        });
        Ok(())
    }

    /// `--plot=DIR`: makes the directory now (its parent must exist).
    pub fn plots(&mut self, dir: &Path) -> Result<(), String> {
        crate::report::svg_plot::ensure_dir(dir)?;
        self.plots = Some(dir.to_path_buf());
        Ok(())
    }

    /// Replace the `--json` placeholder with `r` (nothing without `--json`).
    pub fn write_json(&self, r: &RunResult) -> std::io::Result<()> {
        let Some(f) = &self.json else { return Ok(()) };
        let text = crate::report::iomark_json::IomarkJson
            .render(r)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        f.replace(&text)
    }

    /// Write the charts of `r` into the `--plot` directory; the files written (none
    /// without `--plot`). The error is `--plot=DIR: why`.
    pub fn write_plots(&self, r: &RunResult) -> Result<Written, String> {
        match &self.plots {
            Some(d) => crate::report::svg_plot::write_plots(r, d)
                .map_err(|e| format!("--plot={}: {e}", d.display())),
            None => Ok(vec![]),
        }
    }

    /// Render the text outputs of `r` and write them (stdout never fails: a closed pipe
    /// loses the text). The error is `cannot write OPT=FILE: why`.
    pub fn write_texts(&self, r: &RunResult) -> Result<(), String> {
        for t in &self.texts {
            let mut out = Vec::new();
            for (i, rep) in t.reporters.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(t.sep.as_bytes());
                }
                match rep.render(r) {
                    Ok(b) => out.extend(b),
                    Err(ReportError::Empty) => {}
                    Err(ReportError::Failed(why)) => return Err(why),
                }
            }
            match &t.sink {
                Sink::Stdout => {
                    use std::io::Write;
                    let mut o = std::io::stdout().lock();
                    let _ = o.write_all(&out).and_then(|_| o.flush());
                }
                Sink::File(opt, p) => write_file(p, &out)
                    .map_err(|e| format!("cannot write {opt}={}: {e}", p.display()))?,
            }
        }
        Ok(())
    }
}
