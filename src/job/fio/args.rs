//! `iomark run`'s arguments → [`FioCommand`]: `--key=value` / `--key value` options,
//! job files (`-` is standard input) and iomark's own options, in fio's order: the
//! command-line options before the first `--name` are global and apply to job-file jobs
//! too; each `--name` starts a job; command-line jobs come before the job files' jobs,
//! as fio 3.33 runs and reports them.
//! Which keys exist, which take the next word and what each does is the option table's
//! business (`job/fio/options/`); this module only walks the words and builds the jobs.

use crate::job::fio::finish::finish_job;
use crate::job::fio::ini::{self, Entry, Origin, Section};
use crate::job::fio::notice::{FioLine, Notice};
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
    parse_args_as(args, env, false)
}

/// [`parse_args_with`] for the fio persona when `job_setup_errors`: a job whose thread
/// setup fails as fio's does is kept for the run to report with its error
/// ([`FioCommand::job_setup_errors`]) rather than refused here.
pub fn parse_args_as(
    args: &[String],
    env: &dyn Fn(&str) -> Option<String>,
    job_setup_errors: bool,
) -> Result<FioCommand, FioError> {
    let Scan {
        mut p,
        mut sections,
        files,
        mut early,
        output_at,
        dry_at,
        stopped,
    } = scan(args, job_setup_errors)?;
    // fio's `--showcmd` prints the command line's globals with each job file's [global]
    // (and the options after a `--name` the `--section`s skip, which fio 3.33 gives its
    // default job)
    let cmdline: Vec<(String, Option<String>)> = sections
        .iter()
        .enumerate()
        .filter(|(i, (name, _))| *i == 0 || name == SKIPPED)
        .flat_map(|(_, (_, entries))| entries)
        .map(|e| (options::canonical(&e.key), e.value.clone()))
        .collect();
    let globals_out = |i: usize| output_at.is_some_and(|o| o <= (0, i));
    // fio 3.33 runs no option callback once `--parse-only` is read, so the entries after
    // it take a CPU set the machine lacks (the fio persona checks the ones before)
    let checks_cpus = move |at: (usize, usize)| job_setup_errors && dry_at.is_none_or(|d| at < d);
    let mut base = globals(
        &mut p.cmd,
        &sections.remove(0).1,
        (&globals_out, &|i| checks_cpus((0, i))),
    )
    .map_err(|e| cmdline_refused(&p.cmd, 0, e))?;
    early.remove(0);
    let tests = (output_at, &checks_cpus as &EntryTest);
    stopped_at(&mut p.cmd, (&sections, &early), &mut base, tests, stopped)?;
    // a refused option of a later command-line job: fio had added the jobs before it
    let mut finish_out = command_line_jobs(
        &mut p.cmd,
        &sections,
        &early,
        &mut base,
        (output_at, &checks_cpus),
    )
    .map_err(|e| cmdline_refused(&p.cmd, sections.len(), e))?;
    let cmdline_jobs = p.cmd.jobs.len();
    let heads = (&cmdline[..], &base, cmdline_jobs);
    all_file_jobs(
        &files,
        env,
        &mut p.cmd,
        heads,
        (output_at.is_some(), &mut finish_out),
    )?;
    if let Some((i, lines)) = fio_waitees(&p.cmd) {
        // fio 3.33 had added (and printed) the jobs before the refused one
        p.cmd.jobs.truncate(i);
        let output = p.cmd.output.clone();
        return Err(said_before(
            &p.cmd,
            cmdline_jobs,
            output,
            FioError::FioLines(lines),
        ));
    }
    check_command(&p.cmd)?;
    p.cmd.job_files = files.into_iter().filter(|f| f.as_os_str() != "-").collect();
    fio_lines(&mut p.cmd, finish_out);
    if let Some(ns) = p.reap_spin {
        for j in &mut p.cmd.jobs {
            j.reap_spin_ns = ns;
        }
    }
    Ok(p.cmd)
}

/// Add the jobs of every job file in `files` to `cmd`, after the command line's
/// (`cmdline`, its globals `base`, its `cmdline_jobs` jobs). fio 3.33 reads each job file
/// after the first from a fresh default job (its fill_def_thread: the command line's
/// globals and the global options said so far do not reach it) and stonewalls that
/// file's first job (parse_jobs_ini); fio's `--readonly` is the process's, not the
/// default job's: every file keeps it. `out`: whether `--output` was given, and the
/// lines fio 3.33 writes into it.
fn all_file_jobs(
    files: &[PathBuf],
    env: &dyn Fn(&str) -> Option<String>,
    cmd: &mut FioCommand,
    (cmdline, base, cmdline_jobs): (&[(String, Option<String>)], &FioJob, usize),
    (output, finish_out): (bool, &mut Vec<String>),
) -> Result<(), FioError> {
    let fresh = FioJob {
        fio_persona: cmd.job_setup_errors,
        readonly: base.readonly,
        ..FioJob::default()
    };
    for (i, f) in files.iter().enumerate() {
        let out = output.then_some(&mut *finish_out);
        let (base, first) = match i {
            0 => (base, None),
            _ => {
                cmd.global_options.clear();
                (&fresh, Some(cmd.jobs.len()))
            }
        };
        let read = file_jobs(f, env, cmd, (cmdline, base), out);
        if let Some(j) = first.and_then(|k| cmd.jobs.get_mut(k)) {
            j.stonewall = true;
        }
        read.map_err(|e| {
            // (fio had read every command-line option: its `--output` is open)
            let output = cmd.output.clone();
            said_before(cmd, cmdline_jobs, output, e)
        })?;
    }
    Ok(())
}

/// fio 3.33 stops reading its command line at a command-line option it refuses (init.c
/// `parse_cmd_line`: `do_exit`, then exit 1), such as `--section=global`: the jobs of the
/// `--name`s before it were added (their section lines said), the options of the job
/// being read were applied, so a refusal among those comes first, and that job is not
/// added; no job file is read. `stopped`: the option's refusal (none: nothing to do).
fn stopped_at(
    cmd: &mut FioCommand,
    (sections, early): (&[(String, Vec<Entry>)], &[Early]),
    base: &mut FioJob,
    (output_at, checks_cpus): (Option<(usize, usize)>, &EntryTest),
    stopped: Option<FioError>,
) -> Result<(), FioError> {
    let Some(e) = stopped else {
        return Ok(());
    };
    let never_late = sections.len() + 1;
    let Some(((name, entries), done)) = sections.split_last() else {
        return Err(cmdline_refused(cmd, never_late, e));
    };
    let tests = (output_at, checks_cpus);
    if let Err(first) = command_line_jobs(cmd, done, &early[..done.len()], base, tests) {
        return Err(cmdline_refused(cmd, never_late, first));
    }
    let section = sections.len();
    let cpus = |i| checks_cpus((section, i));
    let read = if ini::is_global(name) {
        apply_globals(cmd, base, entries, (&|_| false, &cpus))
    } else {
        let fio = cmd.job_setup_errors;
        let mut job = base.clone();
        apply_all(&mut job, entries, (&mut cmd.notices, fio, &cpus), &|_| {
            false
        })
    };
    Err(cmdline_refused(cmd, never_late, read.err().unwrap_or(e)))
}

/// The refusal `e` of the command line: [`said_before`] with the `--output` file when
/// fio 3.33 had opened it before the refused word ([`FioError::OutputOpen`]).
fn cmdline_refused(cmd: &FioCommand, cmdline_jobs: usize, e: FioError) -> FioError {
    match e {
        FioError::OutputOpen(e) => said_before(cmd, cmdline_jobs, cmd.output.clone(), *e),
        e => said_before(cmd, cmdline_jobs, None, e),
    }
}

/// `e`, refused where fio 3.33 had opened `--output` already when `opened`.
fn opened_if(opened: bool, e: FioError) -> FioError {
    if opened {
        FioError::OutputOpen(Box::new(e))
    } else {
        e
    }
}

/// The refusal `e` of a job file under the fio persona, with the jobs fio 3.33 had
/// added before it ([`FioError::AfterJobs`]): it printed each one's section line as it
/// added it, on stdout when no `--output` took them — a command-line job's while the
/// output format was still `normal` (its early flags), the last one's and a job file's
/// when the format is `normal`; none under `--parse-only`. The first `cmdline_jobs` jobs are the command
/// line's. With `output` (the `--output` fio had opened before the refusal) the lines
/// that did not go to stdout went into it, with fio's lines of the refusal.
fn said_before(
    cmd: &FioCommand,
    cmdline_jobs: usize,
    output: Option<PathBuf>,
    e: FioError,
) -> FioError {
    if !cmd.job_setup_errors {
        return e;
    }
    let (mut groupid, mut in_group) = (0u32, 0u32);
    let (mut said, mut filed) = (Vec::new(), Vec::new());
    for (i, j) in cmd.jobs.iter().enumerate() {
        // fio's add_job: a stonewall or new_group job after others opens the next group
        if (j.stonewall || j.new_group) && in_group > 0 {
            groupid += 1;
            in_group = 0;
        }
        in_group += 1;
        // fio adds the command line's last job after reading every option, as it adds
        // the job files' jobs: their lines follow the output format given at the end
        let added_late = i + 1 >= cmdline_jobs;
        let printed = j.early_header || (added_late && cmd.output_format.normal && !cmd.parse_only);
        if j.early_stdout || (cmd.output.is_none() && printed) {
            said.push((j.clone(), groupid));
        } else if printed && output.is_some() {
            filed.push((j.clone(), groupid));
        }
    }
    if said.is_empty() && output.is_none() {
        return e;
    }
    FioError::AfterJobs {
        said,
        output: output.map(|o| (o, filed)),
        global: cmd.global_options.clone(),
        error: Box::new(e),
    }
}

/// A test of the command-line entry at `(section, entry)`.
type EntryTest = dyn Fn((usize, usize)) -> bool;

/// Add the command line's jobs to `cmd`: its `sections` after the globals (`base`), with
/// what held when fio added each (`early`), in fio's order (getopt reads every option
/// before the job files). fio 3.33 writes its log_err lines into `--output` too once it
/// is open (`output_at`: where the first entry after it is): the lines of the entries
/// after it, and the lines of the checks of the jobs added after it, which are returned.
fn command_line_jobs(
    cmd: &mut FioCommand,
    sections: &[(String, Vec<Entry>)],
    early: &[Early],
    base: &mut FioJob,
    (output_at, checks_cpus): (Option<(usize, usize)>, &EntryTest),
) -> Result<Vec<String>, FioError> {
    let after_output = |at: (usize, usize)| output_at.is_some_and(|o| o <= at);
    // the section line fio printed while reading the command line lands in the report's
    // stream when `--output` came before it or not at all (else on stdout: not printed)
    let to_report = |e: &Early| e.output_set || cmd.output.is_none();
    // (into the report's stream, or on stdout while the report goes to `--output`)
    let early: Vec<(bool, bool)> = early
        .iter()
        .map(|e| {
            let said = e.normal && !cmd.parse_only;
            (said && to_report(e), said && !to_report(e))
        })
        .collect();
    let mut finish_out = Vec::new();
    let last = sections.len();
    for (si, ((name, entries), early)) in sections.iter().zip(early).enumerate() {
        let section = si + 1;
        let cpus = |i| checks_cpus((section, i));
        // `--name=global…` adds no job: its options go to the default job, for the
        // jobs named after it (fio's get_new_job copies the default job when it adds one)
        if ini::is_global(name) {
            apply_globals(cmd, base, entries, (&|i| after_output((section, i)), &cpus))?;
            continue;
        }
        let mut job = base.clone();
        job.name = name.clone();
        job.file_jobname = name.clone();
        (job.early_header, job.early_stdout) = early;
        let fio = cmd.job_setup_errors;
        apply_all(&mut job, entries, (&mut cmd.notices, fio, &cpus), &|i| {
            after_output((section, i))
        })?;
        if job.name.is_empty() {
            return Err(FioError::Usage("--name needs a value".into()));
        }
        // fio adds the job at the next `--name`, the last one after every option
        let added_after = after_output((section + 1, 0)) || (si + 1 == last && output_at.is_some());
        let said = cmd.fio_stderr.len();
        finish_job(job, cmd).map_err(|e| opened_if(added_after, e))?;
        if added_after {
            finish_out.extend_from_slice(&cmd.fio_stderr[said..]);
        }
    }
    Ok(finish_out)
}

/// Add the jobs of job file `f` (`-`: standard input) to `cmd`, after the command line's
/// globals (`base`; `cmdline`: as written, for `--showcmd`), the sections `--section`
/// names only. With `finish_out` (`--output` given), fio's lines of reading them and of
/// their checks go into `--output` too (those of the checks added to `finish_out`).
fn file_jobs(
    f: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    cmd: &mut FioCommand,
    (cmdline, base): (&[(String, Option<String>)], &FioJob),
    finish_out: Option<&mut Vec<String>>,
) -> Result<(), FioError> {
    let fio = cmd.job_setup_errors;
    let (read, said) = job_file(f, env, fio)?;
    let read: Vec<Section> = read
        .into_iter()
        .filter(|s| {
            cmd.sections.is_empty() || ini::is_global(&s.name) || cmd.sections.contains(&s.name)
        })
        .collect();
    let include_errnos = include_errnos(&read);
    let pairs: Vec<(String, Vec<Entry>)> = read.into_iter().map(|s| (s.name, s.entries)).collect();
    // the fio persona reads the sections as fio 3.33 first, after the lines it
    // said while reading the file
    if fio {
        if let Some((k, l)) = crate::job::fio::strict::first_refused(&pairs, base.ioengine) {
            // fio had added the jobs of the sections before the refused one
            jobs_from_sections(&pairs[..k], cmd, base)?;
            return Err(FioError::FioLines(said.into_iter().chain(l).collect()));
        }
    }
    let (from, from_notes) = (cmd.jobs.len(), cmd.notices.len());
    cmd.notices.extend(said.into_iter().map(Notice::fio));
    cmd.fio_showcmd
        .push(crate::job::fio::showcmd::fio_line(cmdline, &pairs));
    let (notes, said) = (from_notes, cmd.fio_stderr.len());
    jobs_from_sections(&pairs, cmd, base)?;
    for (j, e) in cmd.jobs[from..].iter_mut().zip(include_errnos) {
        j.include_errno = e;
    }
    if let Some(finish_out) = finish_out {
        to_output(&mut cmd.notices[notes..]);
        finish_out.extend_from_slice(&cmd.fio_stderr[said..]);
    }
    Ok(())
}

/// Move fio's own lines out of the notices into [`FioCommand::fio_stderr`] (the parse
/// lines, then `finish`, the lines of the jobs' checks) and those fio also writes into
/// `--output` (marked by [`to_output`], and `finish`) into [`FioCommand::fio_output`].
/// A not-applied option's line is said only when a job runs (not under `--parse-only`).
fn fio_lines(cmd: &mut FioCommand, finish: Vec<String>) {
    let mut lines = Vec::new();
    let mut notes = Vec::new();
    for n in std::mem::take(&mut cmd.notices) {
        let (line, to_output) = match n {
            Notice::Fio { line, to_output } => (line, to_output),
            Notice::Info(line) => {
                cmd.fio_info.push(line);
                continue;
            }
            note => {
                notes.push(note);
                continue;
            }
        };
        if cmd.parse_only && matches!(line, FioLine::NotApplied(_)) {
            continue;
        }
        if to_output {
            cmd.fio_output.push(line.to_string());
        }
        lines.push(line.to_string());
    }
    cmd.notices = notes;
    lines.append(&mut cmd.fio_stderr);
    cmd.fio_stderr = lines;
    cmd.fio_output.extend(finish);
}

/// Mark fio's own lines among `notices` as lines fio also writes into `--output`.
fn to_output(notices: &mut [Notice]) {
    notices.iter_mut().for_each(Notice::into_output);
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
    // the fio persona names the section of a refused entry, as fio's `job NAME dropped`
    let fio = cmd.job_setup_errors;
    // fio 3.33 runs no option callback on a dry run, so `--parse-only` (read before any
    // job file) takes a CPU set the machine lacks
    let cpus = fio && !cmd.parse_only;
    let in_section = |name: &String| {
        let name = name.clone();
        move |e: FioError| match e {
            FioError::Ini(_) | FioError::FioLines(_) => e,
            _ if fio => FioError::InSection {
                section: name,
                error: Box::new(e),
            },
            _ => e,
        }
    };
    for (name, written) in sections {
        // a section's options in the order fio reads them (kb_base first)
        let mut entries: Vec<&Entry> = written.iter().collect();
        entries.sort_by_key(|e| options::fio_read_rank(&e.key));
        if ini::is_global(name) {
            for e in entries {
                apply_entry(&mut global, e, &mut cmd.notices, (fio, cpus))
                    .map_err(in_section(name))?;
                said_in_global(&mut global, &mut cmd.notices);
            }
            // (listed as written)
            cmd.global_options.extend(written.iter().map(|e| {
                let value = e.value.clone().unwrap_or_default();
                (options::canonical(&e.key), value)
            }));
            continue;
        }
        let mut job = global.clone();
        job.options.clear();
        job.name = name.clone();
        job.file_jobname = name.clone();
        apply_all(
            &mut job,
            entries,
            (&mut cmd.notices, fio, &|_| cpus),
            &|_| false,
        )
        .map_err(in_section(name))?;
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
    /// `(section, entry)`: where the first entry after `--output` goes
    output_at: Option<(usize, usize)>,
    /// `(section, entry)`: where the first entry after `--parse-only` goes
    dry_at: Option<(usize, usize)>,
    /// the refusal of the command-line option fio 3.33 stopped reading at (no word
    /// after it was read)
    stopped: Option<FioError>,
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

fn scan(args: &[String], job_setup_errors: bool) -> Result<Scan, FioError> {
    let mut p = Parse::default();
    // the persona's rules hold from the first option on (`--status-interval`'s reading)
    p.cmd.job_setup_errors = job_setup_errors;
    let mut s = Scan {
        p,
        sections: vec![("global".into(), Vec::new())],
        files: Vec::new(),
        early: vec![Early::default()],
        output_at: None,
        dry_at: None,
        stopped: None,
    };
    // after `--` every word is a job file (getopt's end of options), after the others
    let (args, after_end) = super::getopt::split_at_end(args);
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
        if s.stopped.is_some() {
            s.files.clear();
            return Ok(s);
        }
    }
    s.files.extend(after_end.iter().map(PathBuf::from));
    Ok(s)
}

/// The command-line section of the options after a `--name` the `--section`s skip: a
/// global one ([`ini::is_global`]), which the globals `--showcmd` prints include.
const SKIPPED: &str = "global (a --name no --section names)";

impl Scan {
    /// Whether fio 3.33 skips a command-line job named `name`: `--section`s were given
    /// before it and none names it (init.c `skip_this_section`: a name that starts with
    /// `global` is never skipped).
    fn skips(&self, name: &str) -> bool {
        let sections = &self.p.cmd.sections;
        !sections.is_empty() && !ini::is_global(name) && !sections.iter().any(|s| s == name)
    }

    /// One `--k[=v]`: a command-line option acts now; a job key (known or not: an unknown
    /// one is reported when its job is built) joins the current section; `--name` starts
    /// a section.
    fn option(&mut self, k: &str, v: Option<String>) -> Result<(), FioError> {
        let key = k.replace('-', "_");
        match options::find(&key).map(|o| o.apply) {
            Some(Apply::Command(f)) => {
                let done = f(
                    &mut CmdCtx {
                        p: &mut self.p,
                        key: k,
                    },
                    v.as_deref(),
                );
                let at = self.sections.len() - 1;
                let here = Some((at, self.sections[at].1.len()));
                if self.output_at.is_none() && self.p.cmd.output.is_some() {
                    self.output_at = here;
                }
                if self.dry_at.is_none() && self.p.cmd.parse_only {
                    self.dry_at = here;
                }
                // a refused command-line option ends the reading ([`stopped_at`])
                self.stopped = done.err();
                return Ok(());
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
            self.early.push(Early::default());
            let name = v.clone().unwrap_or_default();
            if self.skips(&name) {
                // fio 3.33 (init.c, its getopt's job options): a `--name` no `--section`
                // given before it names adds no job, and the options up to the next
                // `--name` go to the default job, as globals of the jobs added after
                self.sections.push((SKIPPED.into(), Vec::new()));
                return Ok(());
            }
            self.sections.push((name, Vec::new()));
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
/// `to_out(i)`: fio also writes the lines of entry `i` into `--output`; `cpus(i)`: entry
/// `i` is checked for CPUs the machine lacks ([`cpus_past_machine`]).
fn globals(
    cmd: &mut FioCommand,
    entries: &[Entry],
    tests: (&dyn Fn(usize) -> bool, &dyn Fn(usize) -> bool),
) -> Result<FioJob, FioError> {
    let mut base = FioJob {
        fio_persona: cmd.job_setup_errors,
        ..FioJob::default()
    };
    apply_globals(cmd, &mut base, entries, tests)?;
    Ok(base)
}

/// Apply the global `entries` to `base` (the default job the later jobs copy), each
/// recorded as a global option ([`globals`]).
fn apply_globals(
    cmd: &mut FioCommand,
    base: &mut FioJob,
    entries: &[Entry],
    (to_out, cpus): (&dyn Fn(usize) -> bool, &dyn Fn(usize) -> bool),
) -> Result<(), FioError> {
    for (i, e) in entries.iter().enumerate() {
        let said = cmd.notices.len();
        apply_entry(base, e, &mut cmd.notices, (cmd.job_setup_errors, cpus(i)))
            .map_err(|err| opened_if(to_out(i), err))?;
        said_in_global(base, &mut cmd.notices);
        if to_out(i) {
            to_output(&mut cmd.notices[said..]);
        }
        cmd.global_options.push((
            options::canonical(&e.key),
            e.value.clone().unwrap_or_default(),
        ));
    }
    base.options.clear();
    Ok(())
}

/// Apply entry `e` to `job`. `fio`: the fio persona, which reads a `cpus_allowed` list
/// iomark refuses as fio 3.33 reads it (each CPU with `atoi`: `zz` is CPU 0,
/// [`options::fio_cpu_list`]); the job's options keep the value as written. `cpus`: a
/// CPU set naming CPUs the machine lacks is refused as fio's parse refuses it.
fn apply_entry(
    job: &mut FioJob,
    e: &Entry,
    notices: &mut Vec<Notice>,
    (fio, cpus): (bool, bool),
) -> Result<(), FioError> {
    let typed = e.value.as_deref();
    let refused = |v: &str| {
        let mut trial = job.clone();
        options::apply(&mut trial, &e.key, Some(v), &e.origin, &mut Vec::new()).is_err()
    };
    let as_fio = typed
        .filter(|_| fio && options::canonical(&e.key) == "cpus_allowed")
        .filter(|v| refused(v))
        .and_then(options::fio_cpu_list);
    let Some(list) = as_fio else {
        options::apply(job, &e.key, typed, &e.origin, notices)?;
        cpus_past_machine(job, e, cpus)?;
        return dirs_as_fio(job, e, cpus);
    };
    // a list that sets no CPU (`5-1`) is read as a CPU that stands for it, then
    // emptied: fio's thread fails to set that affinity (EINVAL), as `cpumask=0`'s
    let none = list.is_empty();
    let list = if none { "0".to_string() } else { list };
    // (a refusal names the value as written, as fio's `failed parsing` line does)
    options::apply(job, &e.key, Some(&list), &e.origin, notices).map_err(|err| match err {
        FioError::BadValue {
            key, why, origin, ..
        } => FioError::BadValue {
            key,
            value: typed.unwrap_or_default().to_string(),
            why,
            origin,
        },
        err => err,
    })?;
    if let (Some(last), Some(v)) = (job.options.last_mut(), typed) {
        last.1 = v.to_string();
    }
    if none {
        job.tuning.cpus = Some(Vec::new());
    }
    cpus_past_machine(job, e, cpus)
}

/// The lines a `[global]` section's callbacks said (`job`: the global job being read):
/// fio says them as it reads the section, before any job's lines, so they are the
/// command's ([`FioCommand::fio_info`]), not each job's.
fn said_in_global(job: &mut FioJob, notices: &mut Vec<Notice>) {
    notices.extend(job.said_lines.drain(..).map(Notice::Info));
}

/// fio 3.33's `directory` and `opendir` callbacks, which look at the file system as the
/// job is read (job/fio/dirs.rs): a name that is no directory refused with fio's line,
/// opendir's count kept as the job's line (`FioJob::said_lines`). `fio`: the fio persona outside
/// `--parse-only` (fio runs no callback on a dry run).
fn dirs_as_fio(job: &mut FioJob, e: &Entry, fio: bool) -> Result<(), FioError> {
    let value = e.value.as_deref().unwrap_or_default();
    match options::canonical(&e.key).as_str() {
        _ if !fio => Ok(()),
        "directory" => match crate::job::fio::dirs::first_not_directory(&job.directory) {
            Some(n) => Err(options::bad("directory", value, n.line, &e.origin)),
            None => Ok(()),
        },
        "opendir" => {
            let dir = job.tuning.opendir.as_deref().unwrap_or(value);
            match crate::job::fio::dirs::opendir_count(dir) {
                Ok(n) => {
                    let line = crate::job::fio::dirs::opendir_added(n);
                    job.said_lines.push(line);
                    Ok(())
                }
                Err(account) => Err(options::bad("opendir", value, account, &e.origin)),
            }
        }
        _ => Ok(()),
    }
}

/// The fio persona refuses a CPU set (`cpus_allowed`, `cpumask`) that names a CPU this
/// machine lacks while it reads the option, with fio 3.33's line as the reason (`fio:
/// CPU 100 too large (max=1)`), and a `numa_cpu_nodes` list naming a node this process
/// may not use (libnuma's lines, cli/fio_refusal.rs); `iomark run` refuses them when the
/// job starts (exit 3, run/fio/hooks.rs). `fio` false: not checked (`iomark run`, or
/// after `--parse-only`: fio 3.33 runs no option callback on a dry run).
fn cpus_past_machine(job: &FioJob, e: &Entry, fio: bool) -> Result<(), FioError> {
    let key = options::canonical(&e.key);
    let value = e.value.as_deref().unwrap_or_default();
    let order = match key.as_str() {
        _ if !fio => return Ok(()),
        "cpus_allowed" => options::fio_cpu_order(value),
        // (a negative mask: fio 3.33 reads it wrapped and its parse passes; the run's
        // affinity call refuses it)
        "cpumask" if !value.trim_start().starts_with('-') => {
            job.tuning.cpus.clone().unwrap_or_default()
        }
        "cpumask" => {
            return match options::negative_cpumask_lines(value, job.kb_base) {
                Some(lines) => Err(options::bad(&key, value, lines, &e.origin)),
                None => Ok(()),
            };
        }
        // libnuma's parse checks each node named and a range's ends
        "numa_cpu_nodes" => {
            let read =
                crate::job::fio::extra::libnuma_nodes(value, crate::job::fio::extra::node_allowed);
            return match read {
                Err(Some(why)) => Err(options::bad(&key, value, why, &e.origin)),
                _ => Ok(()),
            };
        }
        _ => return Ok(()),
    };
    match options::cpu_past_machine(order) {
        Some(line) => Err(options::bad(&key, value, line, &e.origin)),
        None => Ok(()),
    }
}

/// Apply `entries` to `job`; `to_out(i)`: fio also writes the lines of entry `i` into
/// `--output`.
fn apply_all<'e>(
    job: &mut FioJob,
    entries: impl IntoIterator<Item = &'e Entry>,
    (notices, fio, cpus): (&mut Vec<Notice>, bool, &dyn Fn(usize) -> bool),
    to_out: &dyn Fn(usize) -> bool,
) -> Result<(), FioError> {
    for (i, e) in entries.into_iter().enumerate() {
        let said = notices.len();
        apply_entry(job, e, notices, (fio, cpus(i))).map_err(|err| opened_if(to_out(i), err))?;
        if to_out(i) {
            to_output(&mut notices[said..]);
        }
    }
    Ok(())
}

/// The sections of job file `f` (`-`: standard input) and the lines fio 3.33 said
/// while reading it: under fio 3.33's rules for `fio` (the fio persona, [`ini::parse_fio`]).
fn job_file(
    f: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    fio: bool,
) -> Result<(Vec<Section>, Vec<String>), FioError> {
    if f.as_os_str() != "-" {
        if fio {
            return Ok(ini::parse_fio(f, None, env)?);
        }
        return Ok((ini::parse_file_with(f, env)?, Vec::new()));
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|e| {
        FioError::Usage(format!(
            "cannot read the job file from standard input (-): {}",
            crate::util::errno::describe(&e)
        ))
    })?;
    if fio {
        return Ok(ini::parse_fio(Path::new(STDIN_NAME), Some(&text), env)?);
    }
    Ok((
        ini::parse_str_with(&text, Path::new(STDIN_NAME), env)?,
        Vec::new(),
    ))
}

/// Per job section of `sections` (the `[global]` ones left out), the errno of an
/// include it could not open, or of one in a `[global]` before it (fio 3.33 marks the
/// job with it: its default job keeps the error for every later job).
fn include_errnos(sections: &[Section]) -> Vec<Option<i32>> {
    let mut global = None;
    let mut out = Vec::new();
    for s in sections {
        if ini::is_global(&s.name) {
            global = global.or(s.include_errno);
        } else {
            out.push(s.include_errno.or(global));
        }
    }
    out
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
        let why = unmatched
            .unwrap_or_else(|| "no jobs: give --name=NAME with options, or a job file".into());
        return Err(FioError::NoJobs(why, cmd.fio_showcmd.clone()));
    }
    // fio 3.33 runs the sections it found and says nothing of the others; `iomark run`
    // names a `--section` that matched nothing
    if let Some(why) = unmatched.filter(|_| !cmd.job_setup_errors) {
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

/// The fio persona's reading of `wait_for` as fio 3.33's `wait_for_ok` (init.c, as it
/// adds each job): the first job whose `wait_for` names itself, no job added before it,
/// or more than one, with fio's lines for it.
fn fio_waitees(cmd: &FioCommand) -> Option<(usize, Vec<String>)> {
    if !cmd.job_setup_errors {
        return None;
    }
    cmd.jobs.iter().enumerate().find_map(|(i, j)| {
        let w = j.more.wait_for.as_ref()?;
        let named = cmd.jobs[..i].iter().filter(|x| &x.name == w).count();
        let lines = if *w == j.name {
            vec![format!(
                "{}: a job cannot wait for itself (wait_for={w}).",
                j.name
            )]
        } else if named == 0 {
            vec![format!("{}: waitee job {w} unknown.", j.name)]
        } else if named > 1 {
            vec![
                format!("{}: multiple waitees {w} found,", j.name),
                "please avoid duplicates when using wait_for option.".into(),
            ]
        } else {
            return None;
        };
        Some((i, lines))
    })
}

/// For `--KEY` written without `=VALUE`, whether the next word `next` is its value, as
/// fio's getopt does (`--bs 8k`): `Some(next)` when it is, by the option's [`Arg`] in the
/// table ([`super::getopt::takes_next`]: keys that need a value take it whatever it is,
/// flag keys never). Unknown keys take nothing (they are reported later with their own
/// message).
fn separate_value<'a>(key: &str, next: Option<&'a str>) -> Result<Option<&'a str>, FioError> {
    let Some(o) = options::find(&key.trim().replace('-', "_")) else {
        return Ok(None);
    };
    super::getopt::takes_next(o, &format!("--{key}"), next)
}
