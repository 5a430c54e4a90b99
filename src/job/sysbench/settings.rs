//! A fileio call as the run and the result read it ([`Fileio`]): the job in the one job
//! model, the file set's geometry, and beside them the command's console and report
//! settings ([`Settings`]: the commands, the test mode, threads, report interval and
//! checkpoints, percentile, histogram, `--debug`, the seed, forced shutdown, notes,
//! progress, the outputs, the argv). The parser fills the `Settings` inside the
//! [`FileioJob`] it makes; [`FileioJob::translate`] hands them on as they are, beside the
//! model it makes once; `run::sysbench` and `result::job` read nothing else of the options.

use super::{Command, FileioJob, ForcedShutdown, Geometry, GeometryError, TestMode};
use crate::job::model::Job;
use std::path::PathBuf;

/// One fileio call: what its threads do, over which file set, and how it is reported.
#[derive(Clone, Debug)]
pub struct Fileio {
    /// The job in the one job model, over `geometry`; when the sizes make no file set,
    /// over the file count and block size as given with files of no bytes (what the
    /// result of a call that could not start records).
    pub model: Job,
    /// The file set's geometry, or why the sizes cannot make one (said when a command
    /// needs it).
    pub geometry: Result<Geometry, GeometryError>,
    /// The command's console and report settings.
    pub settings: Settings,
}

/// What a fileio call says and writes, beside the job itself; no job thread reads it.
/// Its `Default` asks for nothing (no command, no thread, no percentile, every switch
/// off), not sysbench's defaults, which the parser gives: a caller that builds one
/// sets what it runs.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// Commands to execute in order (sysbench takes one; iomark accepts several).
    pub commands: Vec<Command>,
    /// `--file-test-mode` as given, the one place it is kept: `None` for a call without
    /// one (a `prepare` or `cleanup` alone; `run` refuses it, the result names the mode
    /// or none). The model's direction, mix, `recreate` and words are made from it
    /// ([`FileioJob::model`]) and cannot say "none": a thread without a test mode is a
    /// sequential reader that writes nothing, like `seqrd`'s.
    pub test_mode: Option<TestMode>,
    /// `--threads` (≥ 1).
    pub threads: u32,
    /// `--report-interval` in seconds (0 = off).
    pub report_interval: u64,
    /// `--report-checkpoints` in seconds since start, ascending.
    pub report_checkpoints: Vec<u64>,
    /// `--percentile` (0 = disabled).
    pub percentile: u32,
    /// `--histogram`.
    pub histogram: bool,
    /// `--rand-seed` (0 = seed from the current time).
    pub rand_seed: u64,
    /// `--forced-shutdown` in seconds after the time limit (`None` = off).
    pub forced_shutdown: ForcedShutdown,
    /// `--debug`.
    pub debug: bool,
    /// `--json`: where to write the `RunResult`.
    pub json: Option<PathBuf>,
    /// `--plot`: directory the run's SVG charts are written to.
    pub plot: Option<PathBuf>,
    /// Sample the run over time (the series, its charts and the findings over time);
    /// `mark` sets it for the loops it samples.
    pub samples: bool,
    /// `--notes`: page-cache notes after the report, iomark's notices.
    pub notes: bool,
    /// Under the `sysbench` persona: sysbench's lines alone.
    pub sysbench_only: bool,
    /// The argv the call came from, recorded in results.
    pub argv: Vec<String>,
    /// Keep the completed result in the results history.
    pub history: bool,
    /// `--progress`: a live line on stderr when it is a terminal.
    pub progress: bool,
}

impl FileioJob {
    /// The call as the run reads it: the job in the one job model over its geometry
    /// ([`FileioJob::model`]), the geometry, and the console and report settings.
    pub fn translate(&self) -> Fileio {
        let geometry = self.geometry();
        // no file set: the sizes as given, files of no bytes
        let sizes = geometry.clone().unwrap_or(Geometry {
            files: self.file_num,
            file_size: 0,
            raw_file_size: 0,
            total: 0,
            block: self.block_size,
            request: self.block_size,
        });
        Fileio {
            model: self.model(&sizes),
            geometry,
            settings: self.settings.clone(),
        }
    }
}

impl Fileio {
    /// The file set's geometry, when the sizes make one.
    pub fn geometry(&self) -> Option<&Geometry> {
        self.geometry.as_ref().ok()
    }

    /// The `--time` limit in seconds (0: none).
    pub fn time_limit(&self) -> u64 {
        self.model.thread.time.map_or(0, |d| d.as_secs())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::job;
    use super::super::{DataPattern, IoMode};
    use super::*;
    use crate::job::model::RwMode;
    use crate::util::engines::Kind;

    #[test]
    fn the_settings_carry_the_console_and_report_options() {
        let mut j = job(1 << 20, 4, 4096);
        let js = &mut j.settings;
        js.commands = vec![Command::Prepare, Command::Run];
        js.test_mode = Some(TestMode::Rndrw);
        (js.threads, js.report_interval, js.percentile) = (8, 3, 99);
        (js.report_checkpoints, js.histogram, js.debug) = (vec![2, 5], true, true);
        (js.rand_seed, js.forced_shutdown) = (42, Some(7));
        (js.json, js.plot) = (Some("r.json".into()), Some("charts".into()));
        (js.samples, js.notes, js.sysbench_only) = (false, false, true);
        (js.history, js.progress) = (true, true);
        js.argv = vec!["--threads=8".into(), "run".into()];
        let f = j.translate();
        let s = &f.settings;
        assert_eq!(s.commands, vec![Command::Prepare, Command::Run]);
        assert_eq!(s.test_mode, Some(TestMode::Rndrw));
        assert_eq!((s.threads, s.report_interval, s.percentile), (8, 3, 99));
        assert_eq!(s.report_checkpoints, vec![2, 5]);
        assert!(s.histogram && s.debug && s.sysbench_only && s.history && s.progress);
        assert!(!s.samples && !s.notes);
        assert_eq!((s.rand_seed, s.forced_shutdown), (42, Some(7)));
        assert_eq!(s.json.as_deref(), Some(std::path::Path::new("r.json")));
        assert_eq!(s.plot.as_deref(), Some(std::path::Path::new("charts")));
        assert_eq!(s.argv, ["--threads=8", "run"]);
        // the model's words and direction are the settings' test mode
        let w = &f.model.work;
        assert_eq!((w.labels.mode, w.pick.rw), ("rndrw", RwMode::RandRw));
        // the defaults of the test job: sysbench's --percentile=95, one thread
        let f = job(1 << 20, 4, 4096).translate();
        let s = &f.settings;
        assert_eq!((s.threads, s.report_interval, s.percentile), (1, 0, 95));
        assert_eq!((s.test_mode, s.forced_shutdown), (None, None));
        // no test mode: no words, a sequential reader that writes nothing
        let (w, t) = (&f.model.work, &f.model.thread);
        assert_eq!(
            (w.labels.mode, w.pick.rw, t.writes),
            ("", RwMode::Read, false)
        );
    }

    #[test]
    fn the_model_is_the_job_over_its_geometry() {
        let mut j = job(1 << 20, 4, 4096);
        (j.settings.test_mode, j.io_mode) = (Some(TestMode::Rndwr), IoMode::Async);
        j.async_backlog = 16;
        (j.time_limit, j.data) = (30, DataPattern::Random);
        let f = j.translate();
        let g = j.geometry().unwrap();
        assert_eq!(f.geometry(), Some(&g));
        assert_eq!(f.model, j.model(&g));
        assert_eq!(
            (f.model.thread.files, f.model.thread.file_size),
            (4, Some(256 << 10))
        );
        assert_eq!(
            (f.model.thread.engine, f.model.thread.depth),
            (Kind::IoUring, 16)
        );
        assert_eq!(f.time_limit(), 30);
        j.time_limit = 0;
        assert_eq!(j.translate().time_limit(), 0);
    }

    #[test]
    fn sizes_that_make_no_file_set_keep_the_count_and_the_block() {
        // 8 KiB over one file cannot hold a 16 KiB block
        let j = job(8 << 10, 1, 16384);
        let f = j.translate();
        assert_eq!(
            f.geometry,
            Err(GeometryError::FileSmallerThanBlock {
                per_file: 8192,
                block: 16384
            })
        );
        assert_eq!(f.geometry(), None);
        let t = &f.model.thread;
        assert_eq!(
            (t.files, t.file_size, t.request),
            (1, Some(0), (16384, 16384))
        );
        // fewer bytes than files
        let f = job(100, 128, 4096).translate();
        assert!(matches!(f.geometry, Err(GeometryError::EmptyFiles { .. })));
        assert_eq!(f.model.thread.files, 128);
    }
}
