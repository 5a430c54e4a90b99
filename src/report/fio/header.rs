//! The lines fio 3.33 prints before its normal report (the text output only, not
//! `json`): per job section `NAME: (g=G): rw=RW, bs=(R) MIN-MAX, (W) MIN-MAX, (T)
//! MIN-MAX, ioengine=E, iodepth=D` and `...` when the section has more than one job
//! (numjobs), the version line, then `Starting N processes` (or `threads`, or `N threads
//! and M processes`). They come first in the output, before the JSON document when both
//! are asked for, and the normal report then follows after an empty line ([`Headed`]).
//! Sections are taken from the reported jobs: jobs merged by `group_reporting` from
//! several sections show as the first one. A many-hosts run (MPI) has fio's client
//! header instead ([`client_header`]): a probe line per host, then each host's header
//! lines after `<host> ` (report/fio/text/clients.rs says where they come from).

use crate::report::fio::num::{num2str, N2s, SIG_FIGS};
use crate::report::{ReportError, Reporter};
use crate::result::job::{EffectiveJob, JobResult};
use crate::result::ranks::RanksSummary;
use crate::result::RunResult;

/// The header of a run's reported `jobs` with its `global` options, `version` being
/// the version line (`fio-3.33`).
pub fn header(r: &RunResult, version: &str) -> String {
    header_of(r, version, true)
}

/// [`header`], with the lines fio said while it read each job
/// ([`EffectiveJob::said_lines`]) before its section line when `said` (stdout).
fn header_of(r: &RunResult, version: &str, said: bool) -> String {
    let Some((sections, after)) = parts(r, said) else {
        // nothing ran (a stop during layout): fio prints no header either
        return String::new();
    };
    format!("{sections}{version}\n{after}")
}

/// [`header`] without the [`thread_lines`]: the header fio 3.33 writes into an
/// `--output` file, where its job threads' lines never arrive.
pub fn header_to_file(r: &RunResult, version: &str) -> String {
    // (the lines fio said while it read the jobs stay on stdout)
    let full = header_of(r, version, false);
    let threads = thread_lines(r);
    match full.strip_suffix(threads.as_str()) {
        Some(rest) if !threads.is_empty() => rest.to_string(),
        _ => full,
    }
}

/// The lines fio 3.33's job threads print on stdout as they run, after the header's
/// other lines and before any report (normal, terse or JSON): each thread's start lines
/// as it starts ([`thread_start_lines`]: a pseudo-I/O engine's lines, the note of a
/// synchronous engine asked for a depth above 1), then fio's account of each thread a
/// failure ended ([`end_lines`]).
/// With `--output=FILE` fio prints them nowhere.
pub fn thread_lines(r: &RunResult) -> String {
    start_lines(r) + &end_lines(r)
}

/// The first part of [`thread_lines`]: each job thread's start lines
/// ([`thread_start_lines`]), said before the run's first I/O.
pub fn start_lines(r: &RunResult) -> String {
    r.jobs.iter().map(thread_start_lines).collect()
}

/// The last part of [`thread_lines`]: fio 3.33's `fio: pid=P, err=E/ACCOUNT` line of
/// each job thread a failure ended that fio accounts ([`FioAccount`](crate::result::job::FioAccount): a file it could not
/// open, its CPU binding or I/O scheduler, a missed minimum rate, a failed request, a
/// transfer that moved nothing, a verify mismatch), said as the thread fails.
pub fn end_lines(r: &RunResult) -> String {
    let mut s = String::new();
    for j in &r.jobs {
        // each thread a failure ended says its own line, `group_reporting` or not
        for t in &j.thread_failures {
            if let Some(a) = &t.account {
                s += &format!("fio: pid={}, err={}/{a}\n", t.pid, t.errno);
            }
        }
        if !j.thread_failures.is_empty() {
            continue;
        }
        if let Some(a) = &j.account {
            s += &format!("fio: pid={}, err={}/{a}\n", j.pid, j.errno);
        }
    }
    s
}

/// Whether job `j` failed as its thread set up, before any request (fio's account of
/// its open, CPU binding or I/O scheduler,
/// [`FioAccount::setup`](crate::result::job::FioAccount::setup)): fio counts no
/// request of it.
pub(crate) fn failed_in_setup(j: &JobResult) -> bool {
    j.account.as_ref().is_some_and(|a| a.setup)
}

/// The header without its version line, in two parts: the section lines (with their
/// setup lines and `...`), then the `Starting …` line and the layout lines. `None`
/// when no job was reported. fio's server sends both parts to its client, which prints
/// each line after the host's name (report/fio/text/clients.rs); the version line is
/// the client's own.
pub(crate) fn parts(r: &RunResult, said: bool) -> Option<(String, String)> {
    if r.jobs.is_empty() {
        return None;
    }
    // (the lines fio printed on stdout before `--output` took the report: not here)
    let (s, threads, procs) = sections(r, |j| !j.job.early_stdout, (true, said));
    let mut after = starting(threads, procs);
    for l in &r.layout_lines {
        after += l;
        after.push('\n');
    }
    after += &thread_lines(r);
    Some((s, after))
}

/// fio 3.33's note from each job thread on a synchronous engine asked for an `iodepth`
/// above 1, printed as the thread starts, after the layout lines (backend.c
/// `thread_main`, engines flagged FIO_SYNCIO: all but io_uring, libaio, posixaio and —
/// queued at a depth above 1 — null).
pub const SYNC_DEPTH_NOTE: &str =
    "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1";

/// What each thread of `j` prints as it starts, once per thread: its engine's start
/// lines (fio's engine init, [`EffectiveJob::start_lines`]), then [`SYNC_DEPTH_NOTE`]
/// when it runs a synchronous engine at a depth above 1 — for the entry's own
/// section's threads and those of the sections that joined it.
fn thread_start_lines(j: &JobResult) -> String {
    let sync = |engine: &str, depth: u32| {
        depth > 1
            && crate::util::engines::Kind::named(engine)
                .is_some_and(|k| !k.queues() && k != crate::util::engines::Kind::Null)
    };
    let joined: u32 = j.job.joined.iter().map(|k| k.numjobs.max(1)).sum();
    let mut s = String::new();
    let mut add = |e: &EffectiveJob, threads: u32| {
        let note = sync(&e.engine, e.iodepth).then_some(SYNC_DEPTH_NOTE);
        for _ in 0..threads {
            for l in e.start_lines.iter().map(String::as_str).chain(note) {
                s += l;
                s.push('\n');
            }
        }
    };
    add(&j.job, j.threads.max(1).saturating_sub(joined).max(1));
    for k in &j.job.joined {
        add(k, k.numjobs.max(1));
    }
    s
}

/// The lines of each section of the reported jobs: the lines fio said while it read the
/// section (`said`), its jobs' setup lines (`setup`) and, for the sections `lined`
/// says, the section line after the first job's and `...` after the last of several;
/// with the counts of job threads and processes.
fn sections(
    r: &RunResult,
    lined: impl Fn(&JobResult) -> bool,
    (setup, said): (bool, bool),
) -> (String, u32, u32) {
    let (jobs, global) = (&r.jobs[..], &r.global_options[..]);
    let mut s = String::new();
    let (mut threads, mut procs) = (0u32, 0u32);
    let mut i = 0;
    while let Some(j) = jobs.get(i) {
        let n = j.job.numjobs.max(1);
        // fio sets up each of the section's jobs in turn: its setup lines, then the
        // section line after the first, `...` after the last of several
        if said {
            for l in &j.job.said_lines {
                s += l;
                s.push('\n');
            }
        }
        if setup {
            s += &setup_lines(j, 1);
        }
        if lined(j) {
            s += &section_line(j, global);
        }
        if setup {
            s += &setup_lines(j, n - 1);
        }
        if n > 1 && lined(j) {
            s += "...\n";
        }
        // without group_reporting each of the section's jobs is reported on its own;
        // with it one entry may hold later sections' jobs too (all its threads)
        let (jobs_here, entries) = match j.threads >= n {
            true => (j.threads, 1),
            false => (n, n as usize),
        };
        if j.job.thread {
            threads += jobs_here;
        } else {
            procs += jobs_here;
        }
        i += entries;
    }
    (s, threads, procs)
}

/// The lines of the reported jobs' sections that fio prints before a JSON or terse
/// report: every job's setup lines, and the section line of each command-line job fio
/// added while the output format was still `normal` (job/fio/args.rs).
pub fn setup_only(r: &RunResult) -> String {
    sections(r, |j| j.job.early_header, (true, false)).0
}

/// [`setup_only`] on stdout: with the lines fio said while it read each job
/// ([`EffectiveJob::said_lines`]) before its own.
pub fn setup_said(r: &RunResult) -> String {
    sections(r, |j| j.job.early_header, (true, true)).0
}

/// The layout lines fio 3.33 says whatever the output format (its `Laying out` lines are
/// the normal output's only): `fio: file F may be ignored` of each file whose region an
/// offset at its end leaves empty.
fn ignored_files(r: &RunResult) -> String {
    let ignored = |l: &&String| l.starts_with("fio: file ") && l.ends_with(" may be ignored");
    r.layout_lines
        .iter()
        .filter(ignored)
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The section lines (and `...`) of the command-line jobs fio 3.33 printed on stdout
/// while it read its command line, before an `--output=FILE` given after them sent the
/// report to the file: printed on stdout, the report's header leaves them out.
pub fn said_on_stdout(r: &RunResult) -> String {
    sections(r, |j| j.job.early_stdout, (false, false)).0
}

/// The lines fio prints while it sets up `clones` of `j`'s section's jobs (each job's
/// [`setup_lines`](crate::result::job::EffectiveJob::setup_lines)).
fn setup_lines(j: &JobResult, clones: u32) -> String {
    let mut s = String::new();
    for _ in 0..clones {
        for l in &j.job.setup_lines {
            s += l;
            s.push('\n');
        }
    }
    s
}

/// `Starting 2 threads and 1 process` (fio backend.c's wording).
fn starting(threads: u32, procs: u32) -> String {
    let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n > 1 { many } else { one });
    let mut s = String::from("Starting ");
    if threads > 0 {
        s += &plural(threads, "thread", "threads");
    }
    if procs > 0 {
        if threads > 0 {
            s += " and ";
        }
        s += &plural(procs, "process", "processes");
    }
    s + "\n"
}

/// The section line fio 3.33 prints as it adds job `e` in reporting group `groupid`
/// (`...` after it for a section of several jobs), `global` the command's global
/// options: what it had said of the jobs it added before a refusal ended the parse.
pub fn added_line(e: &EffectiveJob, groupid: u32, global: &[(String, String)]) -> String {
    let mut s = line_of(e, &e.options, groupid, None, global);
    if e.numjobs > 1 && !s.is_empty() {
        s += "...\n";
    }
    s
}

/// One section's line: sizes in fio's form (`4096B`, `64.0KiB`; decimal with kb_base=1000).
fn section_line(j: &JobResult, global: &[(String, String)]) -> String {
    // a fallback (io_uring not permitted: psync) names the engine that ran; an entry
    // holding later sections' jobs too (`joined`) ran theirs as well, so its own
    // section's name stands
    let ran = (j.job.joined.is_empty() && !j.engine.is_empty()).then_some(j.engine.as_str());
    let own = j.job.header_options.as_deref().unwrap_or(&j.job.options);
    let mut s = line_of(&j.job, own, j.groupid, ran, global);
    // the sections whose jobs joined this entry (group_reporting), as fio set them up
    for k in &j.job.joined {
        s += &line_of(k, &k.options, j.groupid, None, global);
        if k.numjobs > 1 {
            s += "...\n";
        }
    }
    s
}

/// The section line of job `e` whose options are `own`, in group `groupid`, `ran`
/// naming the engine that ran when it is not the one asked for.
fn line_of(
    e: &EffectiveJob,
    own: &[(String, String)],
    groupid: u32,
    ran: Option<&str>,
    global: &[(String, String)],
) -> String {
    // fio prints none for an engine of pseudo I/O (FIO_NOIO: cpuio, exec)
    if crate::util::engines::Kind::named(&e.engine).is_some_and(|k| k.pseudo_io()) {
        return String::new();
    }
    let pow2 = e.kb_base != 1000;
    let sz = |b: u64| num2str(b, SIG_FIGS, pow2, N2s::Byte);
    let (r, w, t) = (&e.bs_read, &e.bs_write, e.trim_bs());
    // the engine as named (`sync`, `libaio`), else the one that ran
    let named = |o: &[(String, String)]| {
        o.iter()
            .rev()
            .find(|(k, _)| k == "ioengine")
            .map(|(_, v)| v.clone())
    };
    let engine = match named(own).or_else(|| named(global)) {
        _ if ran.is_some_and(|x| x != e.engine) => ran.unwrap_or_default().to_string(),
        Some(x) => x,
        None => e.engine.clone(),
    };
    format!(
        "{}: (g={groupid}): rw={}, bs=(R) {}-{}, (W) {}-{}, (T) {}-{}, ioengine={engine}, iodepth={}\n",
        e.name,
        e.rw,
        sz(r.min_bytes),
        sz(r.max_bytes),
        sz(w.min_bytes),
        sz(w.max_bytes),
        sz(t.min_bytes),
        sz(t.max_bytes),
        e.iodepth,
    )
}

/// fio's `arch=` name of this build's architecture (fio's `arch_t` strings).
fn arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x86-64",
        "x86" => "x86",
        "aarch64" => "aarch64",
        "arm" => "arm",
        "powerpc" | "powerpc64" => "ppc",
        "s390x" => "s390",
        "mips" | "mips64" => "mips",
        "riscv64" => "riscv64",
        "loongarch64" => "loongarch64",
        "sparc64" => "sparc64",
        _ => "generic",
    }
}

/// The lines before the reports of a many-hosts run (fio's client for several hosts,
/// report/fio/text/clients.rs): every host's probe line, then each host's text lines
/// after `<H> `, ending with its empty one. `version`: the `fio=` of the probe lines.
pub fn client_header(ranks: &RanksSummary, version: &str) -> Vec<u8> {
    let mut s = String::new();
    let be = u8::from(cfg!(target_endian = "big"));
    let bits = usize::BITS;
    for p in &ranks.per_rank {
        s += &format!(
            "hostname={}, be={be}, {bits}-bit, os=Linux, arch={}, fio={version}, flags=1\n",
            p.hostname,
            arch()
        );
    }
    for p in &ranks.per_rank {
        let Some((sections, after)) = parts(&p.result, true) else {
            continue;
        };
        for l in sections.lines().chain(after.lines()).chain([""]) {
            s += &format!("<{}> {l}\n", p.hostname);
        }
    }
    s.into_bytes()
}

/// A reporter with fio's header before it: `body` is the first report of a text output;
/// when it is the normal report (`blank`), an empty line separates them, as in fio.
pub struct Headed {
    /// the first report of the output
    pub body: Box<dyn Reporter>,
    /// the version line
    pub version: String,
    /// an empty line after the header (the body is the normal report)
    pub blank: bool,
    /// the whole header; `false`: only the jobs' setup lines (a JSON-only output,
    /// [`setup_only`])
    pub full: bool,
    /// the header is printed once: before the run's first I/O ([`Reporter::lead`], the
    /// fio persona), else at the first of reports rendered one after the other (fio's
    /// `--status-interval` reports, then the final one); raised then, later renders
    /// start with the body (a normal report with its empty line)
    pub said: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// fio's own stop: the SIGINT or SIGTERM that ended the run, if any (asked at
    /// render time); fio prints `fio: terminating on signal N` after its header, before
    /// the report (the fio persona's, cli/run.rs)
    pub stopped_by: Option<fn() -> Option<i32>>,
    /// fio's own lines said while it read the jobs, which fio 3.33 writes into its
    /// `--output` file before the header (cli/run.rs gives them to that output only),
    /// or, on stdout, those it says there as it reads them
    pub fio_lines: Vec<String>,
    /// the output is stdout: the job threads' lines ([`thread_lines`]) come after the
    /// header's, before the report in every format; an `--output` file has none
    pub threads: bool,
    /// the threads' lines come before a JSON or terse document too (the fio persona;
    /// `iomark run` keeps such a document stdout's alone)
    pub before_documents: bool,
    /// with `said`: the threads' error lines ([`end_lines`]) an earlier render printed
    pub ends_said: std::sync::Mutex<Vec<String>>,
}

impl Headed {
    /// What the output starts with, before any report: fio's own lines said while it
    /// read the jobs, then the header (on stdout with the threads' start lines), or,
    /// before a JSON or terse document, the jobs' setup lines (with the threads' start
    /// lines on the fio persona's stdout).
    fn opening(&self, r: &RunResult) -> Vec<u8> {
        let head = if self.full && self.threads {
            let whole = header(r, &self.version);
            let ends = end_lines(r);
            match whole.strip_suffix(ends.as_str()) {
                Some(rest) => rest.to_string(),
                None => whole,
            }
        } else if self.full {
            header_to_file(r, &self.version)
        } else if self.threads && self.before_documents {
            setup_said(r) + &ignored_files(r) + &start_lines(r)
        } else {
            setup_only(r)
        };
        let said: String = self.fio_lines.iter().map(|l| format!("{l}\n")).collect();
        (said + &head).into_bytes()
    }

    /// The threads' error lines ([`end_lines`]) of the outputs that have them (stdout,
    /// where the threads' lines go), each once over reports rendered in turn.
    fn ends(&self, r: &RunResult) -> Vec<u8> {
        if !(self.threads && (self.full || self.before_documents)) {
            return Vec::new();
        }
        let lines = end_lines(r);
        if self.said.is_none() {
            return lines.into_bytes();
        }
        let mut said = self.ends_said.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = String::new();
        // a line that goes on the next (an account whose call name ends in a newline,
        // `, error=TEXT` alone) follows its first line: said with it, never on its own
        let mut new = false;
        for l in lines.lines() {
            if !l.starts_with(", ") {
                new = !said.iter().any(|s| s == l);
                if new {
                    said.push(l.to_string());
                }
            }
            if new {
                out += l;
                out.push('\n');
            }
        }
        out.into_bytes()
    }
}

impl Reporter for Headed {
    /// The header before the run's first I/O, as fio 3.33 prints it (when the header is
    /// printed once, `said`): later renders leave it out. Nothing for a many-hosts
    /// run, whose client header gathers every host's lines after the run.
    fn lead(&self, r: &RunResult) -> Vec<u8> {
        use std::sync::atomic::Ordering;
        let Some(said) = self.said.as_ref().filter(|_| r.ranks.is_none()) else {
            return Vec::new();
        };
        if said.load(Ordering::Relaxed) {
            return Vec::new();
        }
        let out = self.opening(r);
        if !out.is_empty() {
            said.store(true, Ordering::Relaxed);
        }
        out
    }

    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        // many hosts: fio's client header (its hosts' lines, each ending its blank one)
        if let Some(ranks) = r.ranks.as_ref().filter(|_| self.full) {
            let mut out = client_header(ranks, &self.version);
            out.extend(self.body.render(r)?);
            return Ok(out);
        }
        let again = self
            .said
            .as_ref()
            .is_some_and(|s| s.swap(true, std::sync::atomic::Ordering::Relaxed));
        let mut out = match again {
            true => Vec::new(),
            false => self.opening(r),
        };
        out.extend(self.ends(r));
        if let Some(sig) = self.stopped_by.and_then(|f| f()) {
            out.extend(format!("\nfio: terminating on signal {sig}\n").into_bytes());
        }
        if self.blank && (again || !out.is_empty()) {
            out.push(b'\n');
        }
        out.extend(self.body.render(r)?);
        Ok(out)
    }
}

/// Each kind of failure fio 3.33 accounts, as a value, with the `err=E/ACCOUNT` fio's
/// thread prints of it: the lines fio 3.33 gives for a file it cannot open (`--filename`
/// of mode 000 as nobody), `--cpumask=0`, an `ioscheduler` the device refuses,
/// `ratemin` not met, a write on /dev/full, a read past the file's end on psync, a
/// verify mismatch on libaio and on psync.
#[cfg(test)]
pub(crate) fn account_kinds() -> Vec<(crate::result::job::FioAccount, String)> {
    use crate::result::job::FioAccount;
    let eilseq = "Invalid or incomplete multibyte or wide character";
    vec![
        (
            FioAccount::new("filesetup.c", 805, "open(/d/f)", libc::EACCES).in_setup(),
            "err=13/file:filesetup.c:805, func=open(/d/f), error=Permission denied".into(),
        ),
        (
            FioAccount::new("backend.c", 1716, "cpu_set_affinity", libc::EINVAL).in_setup(),
            "err=22/file:backend.c:1716, func=cpu_set_affinity, error=Invalid argument".into(),
        ),
        (
            FioAccount::new("backend.c", 1450, "iosched_switch", libc::EINVAL).in_setup(),
            "err=22/file:backend.c:1450, func=iosched_switch, error=Invalid argument".into(),
        ),
        (
            FioAccount::new("backend.c", 1131, "check_min_rate", libc::EIO),
            "err=5/file:backend.c:1131, func=check_min_rate, error=Input/output error".into(),
        ),
        (
            FioAccount::new("io_u.c", 1876, "io_u error", libc::ENOSPC),
            "err=28/file:io_u.c:1876, func=io_u error, error=No space left on device".into(),
        ),
        (
            FioAccount::new("backend.c", 471, "full resid", libc::EIO),
            "err=5/file:backend.c:471, func=full resid, error=Input/output error".into(),
        ),
        (
            FioAccount::new("io_u.c", 2190, "io_u_queued_complete", libc::EILSEQ),
            format!("err=84/file:io_u.c:2190, func=io_u_queued_complete, error={eilseq}"),
        ),
        (
            FioAccount::new("io_u.c", 2152, "io_u_sync_complete", libc::EILSEQ),
            format!("err=84/file:io_u.c:2152, func=io_u_sync_complete, error={eilseq}"),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::job::{BlockSizeSpec, ThreadFailure};

    fn job(name: &str, numjobs: u32, threads: u32, thread: bool) -> JobResult {
        let mut j = JobResult::default();
        j.job.name = name.into();
        j.job.rw = "randrw".into();
        j.job.bs_read = BlockSizeSpec::fixed(4096);
        j.job.bs_write = BlockSizeSpec {
            min_bytes: 4096,
            max_bytes: 16384,
            split: vec![],
        };
        j.job.iodepth = 4;
        j.job.engine = "io_uring".into();
        j.job.numjobs = numjobs;
        j.job.thread = thread;
        j.threads = threads;
        j
    }

    /// The header of a run of `jobs` without global options.
    fn of(jobs: &[JobResult], version: &str) -> String {
        let mut r = crate::result::build(crate::result::Inputs::new(
            "run",
            &[],
            crate::result::Status::Ok,
        ));
        r.jobs = jobs.to_vec();
        header(&r, version)
    }

    /// Reports rendered one after the other (fio's `--status-interval` reports, then the
    /// final one): the header at the first only, each later one starting with the
    /// normal report's empty line; without `said` every render has the header.
    #[test]
    fn header_once_for_reports_in_turn() {
        struct Body;
        impl Reporter for Body {
            fn render(&self, _: &RunResult) -> Result<Vec<u8>, ReportError> {
                Ok(b"BODY\n".to_vec())
            }
        }
        let headed = |said| Headed {
            body: Box::new(Body),
            version: "fio-3.33".into(),
            blank: true,
            full: true,
            said,
            stopped_by: None,
            fio_lines: Vec::new(),
            threads: true,
            before_documents: true,
            ends_said: Default::default(),
        };
        let mut r = crate::result::build(crate::result::Inputs::new(
            "run",
            &[],
            crate::result::Status::Ok,
        ));
        r.jobs = vec![job("a", 1, 1, false)];
        let text = |h: &Headed| String::from_utf8(h.render(&r).unwrap()).unwrap();
        let whole = format!("{}\nBODY\n", header(&r, "fio-3.33"));
        assert!(whole.starts_with("a: (g=0): rw=randrw"), "{whole}");
        let once = headed(Some(Default::default()));
        assert_eq!(text(&once), whole);
        assert_eq!(text(&once), "\nBODY\n");
        assert_eq!(text(&once), "\nBODY\n");
        let each = headed(None);
        assert_eq!((text(&each), text(&each)), (whole.clone(), whole.clone()));
        // stopped by SIGTERM: fio's line after the header, then the empty line and the
        // report; alone before a JSON document
        let stopped = Headed {
            stopped_by: Some(|| Some(15)),
            ..headed(None)
        };
        let (head, body) = whole.split_once("\nBODY\n").unwrap();
        assert_eq!(
            text(&stopped),
            format!("{head}\nfio: terminating on signal 15\n\nBODY\n")
        );
        assert!(body.is_empty());
        let json_only = Headed {
            blank: false,
            full: false,
            stopped_by: Some(|| Some(2)),
            ..headed(None)
        };
        assert_eq!(text(&json_only), "\nfio: terminating on signal 2\nBODY\n");
    }

    /// fio 3.33 with `--name=a --rw=read --bs=1m --size=8m --nrfiles=2`: the layout
    /// line after the starting line, as fio's run_threads lays files out after it.
    #[test]
    fn layout_lines_follow_the_starting_line() {
        let mut r = crate::result::build(crate::result::Inputs::new(
            "run",
            &[],
            crate::result::Status::Ok,
        ));
        r.jobs = vec![job("a", 1, 1, false)];
        r.layout_lines = vec!["a: Laying out IO files (2 files / total 8MiB)".into()];
        let h = header(&r, "fio-3.33");
        assert!(
            h.ends_with(
                "fio-3.33\nStarting 1 process\na: Laying out IO files (2 files / total 8MiB)\n"
            ),
            "{h}"
        );
        // not before a JSON document (fio prints it for the normal output only)
        assert_eq!(setup_only(&r), "");
    }

    /// fio 3.33: `--name=a --rw=randrw --bs=4k,4k-16k --ioengine=io_uring --iodepth=4
    /// --numjobs=2 --name=b --thread --ioengine=sync`
    #[test]
    fn header_as_fio_prints_it() {
        let mut b = job("b", 1, 1, true);
        b.job.options = vec![("ioengine".into(), "sync".into())];
        let jobs = vec![job("a", 2, 1, false), job("a", 2, 1, false), b];
        assert_eq!(
            of(&jobs, "fio-3.33"),
            "a: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-16.0KiB, (T) 4096B-16.0KiB, ioengine=io_uring, iodepth=4\n\
             ...\n\
             b: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-16.0KiB, (T) 4096B-16.0KiB, ioengine=sync, iodepth=4\n\
             fio-3.33\n\
             Starting 1 thread and 2 processes\n"
        );
        // group_reporting: one result for the section's three jobs
        let h = of(&[job("a", 3, 3, false)], "v");
        assert!(h.ends_with("...\nv\nStarting 3 processes\n"), "{h}");
        let h = of(&[job("t", 1, 1, true)], "v");
        assert!(h.ends_with("\nStarting 1 thread\n"), "{h}");
        // fio 3.33, one group of `[a] ioengine=sync` and `[b] ioengine=libaio numjobs=3`
        // with group_reporting: one entry of 4 jobs, its JSON `job options` b's; the
        // header has a's line with a's engine, b's with `...`, `Starting 4 processes`
        let mut a = job("a", 1, 4, false);
        let mut b = job("b", 3, 1, false).job;
        b.options = vec![("ioengine".into(), "libaio".into())];
        a.job.header_options = Some(vec![("ioengine".into(), "sync".into())]);
        a.job.options = b.options.clone();
        a.job.engine = "psync".into();
        a.engine = "libaio".into();
        a.job.joined = vec![b];
        let h = of(&[a], "v");
        let lines: Vec<&str> = h.lines().collect();
        assert!(lines[0].starts_with("a: (g=0): "), "{h}");
        assert!(lines[0].ends_with("ioengine=sync, iodepth=4"), "{h}");
        assert!(lines[1].starts_with("b: (g=0): "), "{h}");
        assert!(lines[1].ends_with("ioengine=libaio, iodepth=4"), "{h}");
        // a's thread runs psync at iodepth 4: fio's note as it starts
        assert_eq!(
            &lines[2..],
            ["...", "v", "Starting 4 processes", SYNC_DEPTH_NOTE],
            "{h}"
        );
    }

    /// Each kind of failure fio 3.33 accounts ([`account_kinds`]), rendered from its
    /// value alone: the thread's `fio: pid=P, err=E/…` line as fio prints it, from the
    /// thread's entry, or from the job's own account in a result without the entries. A
    /// failure without an account prints no line, whatever its words say.
    #[test]
    fn each_account_renders_as_fio_from_its_value() {
        let mut r = crate::result::build(crate::result::Inputs::new(
            "run",
            &[],
            crate::result::Status::Ok,
        ));
        for (a, want) in account_kinds() {
            let mut j = job("j", 1, 1, false);
            (j.pid, j.errno) = (3984, a.errno);
            // the words are not read: only the account is
            j.failure = Some("io_u error on file f: job 'j': verify: x".into());
            j.thread_failures = vec![ThreadFailure {
                pid: 3985,
                errno: a.errno,
                lines: vec!["words".into()],
                account: Some(a.clone()),
                ..ThreadFailure::default()
            }];
            j.account = Some(a.clone());
            r.jobs = vec![j.clone()];
            let line = format!("fio: pid=3985, {want}\n");
            assert_eq!(end_lines(&r), line);
            // a job without its threads' entries (an older result) says the job's own
            j.thread_failures.clear();
            r.jobs = vec![j];
            assert_eq!(end_lines(&r), line.replace("pid=3985", "pid=3984"));
        }
        // a failure fio words by its errno alone: no account, no line, whatever it says
        let mut j = job("j", 1, 1, false);
        (j.pid, j.errno) = (3984, libc::EIO);
        j.failure = Some("io_u error on file f: Input/output error (full resid: 0)".into());
        j.thread_failures = vec![ThreadFailure {
            pid: 3985,
            errno: libc::EIO,
            lines: vec!["file:backend.c:1716, func=cpu_set_affinity, error=x".into()],
            account: None,
            noted: false,
        }];
        r.jobs = vec![j];
        assert_eq!(end_lines(&r), "");
    }

    /// fio 3.33 with `--name=s --ioengine=psync --iodepth=4 --numjobs=2 --name=m
    /// --ioengine=mmap --iodepth=2 --name=q --ioengine=libaio --iodepth=4 --name=n
    /// --ioengine=null --iodepth=4 --name=one --ioengine=psync`: the note once per thread
    /// of a synchronous engine at a depth above 1 (s twice, m), after the layout lines;
    /// none for libaio, for null (queued at that depth) or at iodepth 1.
    #[test]
    fn a_synchronous_engine_at_depth_notes_it_per_thread() {
        let with = |name: &str, engine: &str, depth: u32, threads: u32| {
            let mut j = job(name, threads, threads, false);
            j.job.engine = engine.into();
            j.job.iodepth = depth;
            j
        };
        let mut r = crate::result::build(crate::result::Inputs::new(
            "run",
            &[],
            crate::result::Status::Ok,
        ));
        r.jobs = vec![
            with("s", "psync", 4, 2),
            with("m", "mmap", 2, 1),
            with("q", "libaio", 4, 1),
            with("n", "null", 4, 1),
            with("one", "psync", 1, 1),
        ];
        r.layout_lines = vec!["s: Laying out IO file (1 file / 1MiB)".into()];
        let h = header(&r, "fio-3.33");
        let n = format!("{SYNC_DEPTH_NOTE}\n");
        let tail = format!("s: Laying out IO file (1 file / 1MiB)\n{n}{n}{n}");
        assert!(h.ends_with(&tail), "{h}");
        assert_eq!(h.matches(SYNC_DEPTH_NOTE).count(), 3, "{h}");
        // the threads' lines: before a JSON document too, never in an `--output` file
        assert_eq!(thread_lines(&r), n.repeat(3));
        assert!(!setup_only(&r).contains("note:"));
        let to_file = header_to_file(&r, "fio-3.33");
        assert!(
            to_file.ends_with("s: Laying out IO file (1 file / 1MiB)\n"),
            "{to_file}"
        );
    }

    /// fio 3.33 with `--name=v --rw=write --time_based --runtime=1 --verify=crc32c
    /// --numjobs=3 --name=w --rw=read`: the setup line before the section line, once
    /// more for each further job of the section, then `...`; before a JSON document
    /// alone when `--output-format=json` came first, with v's section line and `...`
    /// when it came last (v was added while the format was still normal).
    #[test]
    fn setup_lines_come_per_job_as_fio_prints_them() {
        const L: &str =
            "fio: verification read phase will never start because write phase uses all of runtime";
        let mut v = job("v", 3, 1, false);
        v.job.setup_lines = vec![L.into()];
        let jobs = vec![v.clone(), v.clone(), v, job("w", 1, 1, false)];
        let h = of(&jobs, "fio-3.33");
        let lines: Vec<&str> = h.lines().collect();
        assert_eq!(lines[0], L, "{h}");
        assert!(lines[1].starts_with("v: (g=0): "), "{h}");
        assert_eq!((lines[2], lines[3], lines[4]), (L, L, "..."), "{h}");
        assert!(lines[5].starts_with("w: (g=0): "), "{h}");
        let mut r = crate::result::build(crate::result::Inputs::new(
            "run",
            &[],
            crate::result::Status::Ok,
        ));
        r.jobs = jobs;
        assert_eq!(setup_only(&r), format!("{L}\n{L}\n{L}\n"));
        for j in &mut r.jobs[..3] {
            j.job.early_header = true;
        }
        let early = setup_only(&r);
        let lines: Vec<&str> = early.lines().collect();
        assert_eq!(lines.len(), 5, "{early}");
        assert_eq!((lines[0], lines[2], lines[3], lines[4]), (L, L, L, "..."));
        assert!(lines[1].starts_with("v: (g=0): rw=randrw"), "{early}");
    }

    /// fio 3.33 with `--name=c --ioengine=cpuio --cpuload=50 --numjobs=2 --name=p
    /// --ioengine=psync --iodepth=2`: an engine of pseudo I/O has no section line but its
    /// `...`, and each of its threads prints the engine's start line as it starts, before
    /// the other job's sync-engine note; not before a JSON document.
    #[test]
    fn pseudo_io_jobs_have_no_section_line_and_their_start_lines() {
        const L: &str = "c (noop): ioengine=cpuio, cpuload=50, cpucycle=50000";
        let mut c = job("c", 2, 1, false);
        c.job.engine = "cpuio".into();
        c.job.iodepth = 1;
        c.job.start_lines = vec![L.into()];
        let mut p = job("p", 1, 1, false);
        p.job.engine = "psync".into();
        p.job.iodepth = 2;
        let jobs = vec![c.clone(), c, p];
        let h = of(&jobs, "fio-3.33");
        let lines: Vec<&str> = h.lines().collect();
        assert_eq!(lines[0], "...", "{h}");
        assert!(lines[1].starts_with("p: (g=0): rw=randrw"), "{h}");
        assert_eq!(
            lines[2..],
            ["fio-3.33", "Starting 3 processes", L, L, SYNC_DEPTH_NOTE],
            "{h}"
        );
        let mut r = crate::result::build(crate::result::Inputs::new(
            "run",
            &[],
            crate::result::Status::Ok,
        ));
        r.jobs = jobs;
        assert_eq!(setup_only(&r), "");
    }
}
