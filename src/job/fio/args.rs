//! `iomark run`'s arguments → [`FioCommand`]: `--key=value` / `--key value` options,
//! job files (`-` is standard input) and iomark's own options, in fio's order: the
//! command-line options before the first `--name` are global and apply to job-file jobs
//! too; each `--name` starts a job; command-line jobs come before the job files' jobs,
//! as fio 3.33 runs and reports them.
//! Which keys exist, which take the next word and what each does is the option table's
//! business (`job/fio/options/`); this module only walks the words and builds the jobs.

use crate::job::fio::finish::finish_job;
use crate::job::fio::ini::{self, Entry, Origin, Section};
use crate::job::fio::options::{self, Apply, CmdCtx, Parse};
use crate::job::fio::{FioCommand, FioError, FioJob};
use std::path::{Path, PathBuf};

/// The name a job file read from standard input (`iomark run -`) has in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// Parse `iomark run` arguments: `--key=value` or `--key value` options (those before the
/// first `--name` are global; see [`separate_value`] for which keys take the next word),
/// `--output-format`, `--json=FILE`, and job files (any non-option word; `-` is standard
/// input, named `<stdin>` in messages).
/// Command-line globals apply to jobs from files too, as in fio.
pub fn parse_args(args: &[String]) -> Result<FioCommand, FioError> {
    parse_args_with(args, &|v| std::env::var(v).ok())
}

/// [`parse_args`] with an explicit environment lookup for `${VAR}` in job files.
pub fn parse_args_with(
    args: &[String],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<FioCommand, FioError> {
    let Scan {
        mut p,
        mut sections,
        files,
        mut early,
    } = scan(args)?;
    let base = globals(&mut p.cmd, &sections.remove(0).1)?;
    early.remove(0);
    // the section line fio printed while reading the command line lands in the report's
    // stream when `--output` came before it or not at all (else on stdout: not printed)
    let to_report = |e: &Early| e.output_set || p.cmd.output.is_none();
    // (into the report's stream, or on stdout while the report goes to `--output`)
    let early: Vec<(bool, bool)> = early
        .iter()
        .map(|e| {
            let said = e.normal && !p.cmd.parse_only;
            (said && to_report(e), said && !to_report(e))
        })
        .collect();
    // fio's order: the command line's jobs (getopt reads every option before the job
    // files), then each job file's
    for ((name, entries), early) in sections.iter().zip(early) {
        let mut job = base.clone();
        job.name = name.clone();
        job.file_jobname = name.clone();
        (job.early_header, job.early_stdout) = early;
        apply_all(&mut job, entries, &mut p.cmd.notices)?;
        if job.name.is_empty() {
            return Err(FioError::Usage("--name needs a value".into()));
        }
        finish_job(job, &mut p.cmd)?;
    }
    for f in &files {
        let pairs: Vec<(String, Vec<Entry>)> = job_file(f, env)?
            .into_iter()
            .filter(|s| {
                p.cmd.sections.is_empty() || s.name == "global" || p.cmd.sections.contains(&s.name)
            })
            .map(|s| (s.name, s.entries))
            .collect();
        jobs_from_sections(&pairs, &mut p.cmd, &base)?;
    }
    check_command(&p.cmd)?;
    let (fio_lines, notes) = std::mem::take(&mut p.cmd.notices)
        .into_iter()
        .partition::<Vec<_>, _>(|n| n.starts_with(options::FIO_STDERR));
    p.cmd.notices = notes;
    let mut lines: Vec<String> = fio_lines
        .iter()
        .map(|l| l[options::FIO_STDERR.len()..].to_string())
        .collect();
    lines.append(&mut p.cmd.fio_stderr);
    p.cmd.fio_stderr = lines;
    if let Some(ns) = p.reap_spin {
        for j in &mut p.cmd.jobs {
            j.reap_spin_ns = ns;
        }
    }
    Ok(p.cmd)
}

/// Parse one job file into a command (no command-line options).
pub fn parse_job_file(path: &Path) -> Result<FioCommand, FioError> {
    parse_args(&[path.display().to_string()])
}

/// Build jobs from `(section name, entries)` pairs, the section named `global` applying
/// to every later job (fio semantics: a later `[global]` changes jobs after it only).
pub fn jobs_from_sections(
    sections: &[(String, Vec<Entry>)],
    cmd: &mut FioCommand,
    base: &FioJob,
) -> Result<(), FioError> {
    let mut global = base.clone();
    for (name, entries) in sections {
        if name == "global" {
            for e in entries {
                apply_entry(&mut global, e, &mut cmd.notices)?;
                cmd.global_options.push((
                    options::canonical(&e.key),
                    e.value.clone().unwrap_or_default(),
                ));
            }
            continue;
        }
        let mut job = global.clone();
        job.options.clear();
        job.name = name.clone();
        job.file_jobname = name.clone();
        apply_all(&mut job, entries, &mut cmd.notices)?;
        finish_job(job, cmd)?;
    }
    Ok(())
}

/// The words of the command line, sorted: the options acted on, the job entries of each
/// command-line section (the first is `global`), and the job files.
struct Scan {
    p: Parse,
    sections: Vec<(String, Vec<Entry>)>,
    files: Vec<PathBuf>,
    /// per section, what held when fio added its job (at the next `--name`)
    early: Vec<Early>,
}

/// What held when fio 3.33 added a command-line job: it adds one when the next `--name`
/// comes (the last one after every option) and prints its section line then if the
/// output format was still `normal` (init.c add_job), into `--output` if given by then.
#[derive(Default)]
struct Early {
    /// the output format held `normal` (a job not followed by `--name`: false)
    normal: bool,
    /// `--output` had been given
    output_set: bool,
}

fn scan(args: &[String]) -> Result<Scan, FioError> {
    let mut s = Scan {
        p: Parse::default(),
        sections: vec![("global".into(), Vec::new())],
        files: Vec::new(),
        early: vec![Early::default()],
    };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let Some(opt) = a.strip_prefix("--") else {
            if a.starts_with('-') && a.len() > 1 {
                return Err(FioError::Usage(format!(
                    "'{a}': options are written --key=value or --key value"
                )));
            }
            s.files.push(PathBuf::from(a));
            continue;
        };
        let (k, v) = match opt.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => match separate_value(opt, args.get(i).map(String::as_str))? {
                Some(next) => {
                    i += 1;
                    (opt, Some(next.to_string()))
                }
                None => (opt, None),
            },
        };
        s.option(k, v)?;
    }
    Ok(s)
}

impl Scan {
    /// One `--k[=v]`: a command-line option acts now; a job key (known or not: an unknown
    /// one is reported when its job is built) joins the current section; `--name` starts
    /// a section.
    fn option(&mut self, k: &str, v: Option<String>) -> Result<(), FioError> {
        let key = k.replace('-', "_");
        match options::find(&key).map(|o| o.apply) {
            Some(Apply::Command(f)) => {
                return f(
                    &mut CmdCtx {
                        p: &mut self.p,
                        key: k,
                    },
                    v.as_deref(),
                )
            }
            Some(Apply::Front) => {
                return Err(FioError::Usage(format!(
                    "--{k} is read by `iomark run` itself, before the jobs are parsed"
                )))
            }
            _ => {}
        }
        if key == "name" {
            if let Some(e) = self.early.last_mut().filter(|_| self.sections.len() > 1) {
                e.normal = self.p.cmd.output_format.normal;
                e.output_set = self.p.cmd.output.is_some();
            }
            self.sections
                .push((v.clone().unwrap_or_default(), Vec::new()));
            self.early.push(Early::default());
        }
        if let Some(last) = self.sections.last_mut() {
            last.1.push(Entry {
                key: k.to_string(),
                value: v,
                origin: Origin::CommandLine,
            });
        }
        Ok(())
    }
}

/// The job every command-line global applies to, its entries recorded as global options.
fn globals(cmd: &mut FioCommand, entries: &[Entry]) -> Result<FioJob, FioError> {
    let mut base = FioJob::default();
    for e in entries {
        apply_entry(&mut base, e, &mut cmd.notices)?;
        cmd.global_options.push((
            options::canonical(&e.key),
            e.value.clone().unwrap_or_default(),
        ));
    }
    base.options.clear();
    Ok(base)
}

fn apply_entry(job: &mut FioJob, e: &Entry, notices: &mut Vec<String>) -> Result<(), FioError> {
    options::apply(job, &e.key, e.value.as_deref(), &e.origin, notices)
}

fn apply_all(
    job: &mut FioJob,
    entries: &[Entry],
    notices: &mut Vec<String>,
) -> Result<(), FioError> {
    entries
        .iter()
        .try_for_each(|e| apply_entry(job, e, notices))
}

/// The sections of job file `f` (`-`: standard input, as fio).
fn job_file(f: &Path, env: &dyn Fn(&str) -> Option<String>) -> Result<Vec<Section>, FioError> {
    if f.as_os_str() != "-" {
        return Ok(ini::parse_file_with(f, env)?);
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|e| {
        FioError::Usage(format!(
            "cannot read the job file from standard input (-): {e}"
        ))
    })?;
    Ok(ini::parse_str_with(&text, Path::new(STDIN_NAME), env)?)
}

/// Checks over all jobs: there is a job at all ([`FioError::NoJobs`], naming the
/// `--section` that matched nothing when one did), every `--section` names one, and
/// `wait_for` names an earlier job.
fn check_command(cmd: &FioCommand) -> Result<(), FioError> {
    let unmatched = cmd
        .sections
        .iter()
        .find(|s| !cmd.jobs.iter().any(|j| &j.name == *s))
        .map(|s| format!("--section={s}: no job-file section of that name"));
    if cmd.jobs.is_empty() {
        return Err(FioError::NoJobs(unmatched.unwrap_or_else(|| {
            "no jobs: give --name=NAME with options, or a job file".into()
        })));
    }
    if let Some(why) = unmatched {
        return Err(FioError::Usage(why));
    }
    for (i, j) in cmd.jobs.iter().enumerate() {
        if let Some(w) = &j.more.wait_for {
            if !cmd.jobs[..i].iter().any(|x| &x.name == w) {
                return Err(FioError::Job {
                    job: j.name.clone(),
                    why: format!("wait_for={w} names no job defined before it"),
                });
            }
        }
    }
    Ok(())
}

/// For `--KEY` written without `=VALUE`, whether the next word `next` is its value, as
/// fio's getopt does (`--bs 8k`): `Some(next)` when it is, by the option's [`Arg`] in the
/// table. Keys that need a value take the next word, and error `--KEY needs a value
/// (--KEY=VALUE)` (exit 2) when there is none or it is another `--option` (except those
/// with their own message, such as `--output needs a file name`); flag keys never take
/// it; other boolean keys (fio `FIO_OPT_BOOL`, e.g. `--direct 1`) take it only when it
/// is a boolean word, so `--direct job.fio` still reads `job.fio`. Unknown keys take
/// nothing (they are reported later with their own message).
fn separate_value<'a>(key: &str, next: Option<&'a str>) -> Result<Option<&'a str>, FioError> {
    let Some(o) = options::find(&key.trim().replace('-', "_")) else {
        return Ok(None);
    };
    super::getopt::takes_next(o, key, next, false)
}
