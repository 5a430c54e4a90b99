//! Many hosts under MPI: `mpirun -np N iomark run|fileio …` runs one
//! coordinated benchmark. This room owns everything about ranks, so the runners stay
//! single-host: the launch check ([`begin`]), rank, size and hostname, each rank's own
//! directory (`DIR/rank.N/`, rotated with `--mpi-rotate=K`), the start barrier after
//! layout ([`start_line`], called by the runners) with the start skew it measures, the
//! cross-rank stop (`--mpi-stonewall`, and a failed rank stops the others) through the
//! stop flag the runners already honour, and the gathering at rank 0 of every rank's
//! RunResult and recorder state ([`Session::conclude`], which takes the builder's inputs),
//! from which `result::ranks::aggregate` builds the one result there (the hub owns the
//! one definition). Rank 0 alone prints and writes outputs; the others' stdout
//! is silenced.
//!
//! The MPI calls sit behind [`Transport`] (src/ranks/mpi.rs, Cargo feature `mpi`), so a
//! default build needs no MPI at all: it still recognises a launcher's environment and
//! refuses with exit 3 instead of running N unrelated benchmarks. The options have an
//! `--mpi` prefix because fio's `--stonewall` is already a job option.

#[cfg(feature = "mpi")]
mod mpi;

use crate::result::ranks::{aggregate, Measured, RankRun};
use crate::result::{Inputs, RunResult, Status};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The messages and collectives a session needs from MPI (one implementation,
/// src/ranks/mpi.rs).
pub trait Transport: Send + Sync {
    /// this process's rank
    fn rank(&self) -> u32;
    /// number of ranks
    fn size(&self) -> u32;
    /// wait until every rank is here
    fn barrier(&self);
    /// tell rank `to` that this rank ended (`word`: [`DONE_FAILED`] or 0)
    fn send_done(&self, to: u32, word: u64);
    /// a done word from another rank, if one arrived
    fn poll_done(&self) -> Option<u64>;
    /// gather every rank's bytes at rank 0 (rank order there; `None` elsewhere)
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>>;
    /// end MPI (MPI_Finalize); nothing may be called after it
    fn finalize(&self);
}

/// Done word bit: the rank failed (the others stop even without `--mpi-stonewall`).
pub const DONE_FAILED: u64 = 1;

/// The options of a many-hosts run, taken out of the command's arguments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `--mpi`: require an MPI launch (exit 3 without one)
    pub mpi: bool,
    /// `--mpi-stonewall`: the first rank to finish stops the others
    pub stonewall: bool,
    /// `--mpi-rotate=K`: rank r uses the directory of rank (r+K) mod size
    pub rotate: u32,
}

/// Take `--mpi`, `--mpi-stonewall` and `--mpi-rotate=K` out of `args`; the rest is the
/// command's own. `Err`: a bad value, one line naming the option.
pub fn split_options(args: &[String]) -> Result<(Options, Vec<String>), String> {
    let mut o = Options::default();
    let mut rest = Vec::new();
    for a in args {
        match a.as_str() {
            "--mpi" => o.mpi = true,
            "--mpi-stonewall" => o.stonewall = true,
            _ => match a.strip_prefix("--mpi-rotate=") {
                Some(v) => {
                    o.rotate = v.parse().map_err(|_| {
                        format!(
                            "--mpi-rotate={v}: accepted: a whole number of ranks (0 = own files)"
                        )
                    })?
                }
                None => rest.push(a.clone()),
            },
        }
    }
    Ok((o, rest))
}

/// Environment variables in which launchers give the number of processes they started
/// (Open MPI's mpirun, MPICH's hydra and Slurm's srun with PMI, MVAPICH).
const SIZE_VARS: [&str; 3] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"];

/// The launcher's environment: the variable naming the process count, and the count.
pub fn launcher() -> Option<(&'static str, u32)> {
    SIZE_VARS.iter().find_map(|v| {
        let n = std::env::var(v).ok()?.trim().parse().ok()?;
        Some((*v, n))
    })
}

/// Refuse a benchmark command that has no many-hosts mode when a launcher started
/// several processes (they would run N unrelated benchmarks): the exit-3 line.
pub fn refuse_unsupported(cmd: &str) -> Option<String> {
    let (var, n) = launcher().filter(|l| l.1 > 1)?;
    Some(format!(
        "iomark {cmd}: started by an MPI launcher as {n} processes ({var}={n}); only `run` and `fileio` run as one benchmark over ranks"
    ))
}

static SESSION: OnceLock<Session> = OnceLock::new();

/// The session of this process, once [`begin`] started one.
pub fn current() -> Option<&'static Session> {
    SESSION.get()
}

/// Start the many-hosts mode of `cmd` when the process was launched by MPI (several
/// processes, or `--mpi`): `Ok(None)` for a plain run, `Err(line)` (exit 3) for a
/// mismatched launch: `--mpi` without a launcher, a build without the feature under a
/// launcher, or an MPI world that is not the launcher's (a binary built for another MPI).
pub fn begin(cmd: &str, o: Options) -> Result<Option<&'static Session>, String> {
    let l = launcher();
    match l {
        None if o.mpi => {
            return Err(format!("iomark {cmd}: --mpi: no MPI launcher found ({} unset); start it with mpirun -np N or srun", SIZE_VARS.join(", ")))
        }
        Some((_, n)) if n > 1 || o.mpi => {}
        _ if o.stonewall || o.rotate > 0 => {
            return Err(format!("iomark {cmd}: --mpi-stonewall and --mpi-rotate need an MPI launch (mpirun -np N)"))
        }
        _ => return Ok(None),
    }
    let (var, n) = l.unwrap_or(("", 1));
    let net = connect(cmd, var, n)?;
    let s = Session::new(net, o);
    crate::util::output::silence_unless(s.rank == 0);
    Ok(Some(SESSION.get_or_init(|| s)))
}

#[cfg(feature = "mpi")]
fn connect(cmd: &str, var: &str, n: u32) -> Result<Box<dyn Transport>, String> {
    let net = mpi::World::init().map_err(|e| format!("iomark {cmd}: {e}"))?;
    if net.size() != n {
        return Err(format!(
            "iomark {cmd}: the launcher started {n} processes ({var}={n}) but MPI_Init found a world of {}: this iomark is built against another MPI than the launcher's; rebuild it against that MPI",
            net.size()
        ));
    }
    Ok(Box::new(net))
}

#[cfg(not(feature = "mpi"))]
fn connect(cmd: &str, var: &str, n: u32) -> Result<Box<dyn Transport>, String> {
    Err(format!(
        "iomark {cmd}: started by an MPI launcher as {n} processes ({var}={n}), but this iomark was built without the `mpi` feature; rebuild with `cargo build --release --features mpi` or run it without the launcher"
    ))
}

/// Wall clock, ns since the Unix epoch (comparable between hosts as far as their
/// clocks agree).
fn wall_ns() -> u64 {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn hostname() -> String {
    let mut b = [0u8; 256];
    // SAFETY: gethostname writes at most b.len() bytes into the buffer we own.
    let rc = unsafe { libc::gethostname(b.as_mut_ptr().cast(), b.len()) };
    let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    if rc == 0 {
        String::from_utf8_lossy(&b[..n]).into_owned()
    } else {
        "unknown".into()
    }
}

/// What one rank sends to rank 0 at the end.
#[derive(Serialize, Deserialize)]
struct Wire {
    rank: u32,
    hostname: String,
    start_ns: u64,
    end_ns: u64,
    stopped_by_peer: bool,
    result: RunResult,
    measured: Measured,
}

/// One rank's part of a many-hosts run.
pub struct Session {
    net: Box<dyn Transport>,
    /// MPI rank, from 0
    pub rank: u32,
    /// number of ranks
    pub size: u32,
    /// this host
    pub hostname: String,
    /// the options
    pub opts: Options,
    stop: Mutex<Option<Arc<AtomicBool>>>,
    started: AtomicBool,
    start_ns: AtomicU64,
    end_ns: AtomicU64,
    peer_stop: AtomicBool,
    concluded: AtomicBool,
    watcher: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// rank 0: the aggregate's failure line, once concluded; others: empty
    verdict: Mutex<Option<Option<String>>>,
}

impl Session {
    fn new(net: Box<dyn Transport>, opts: Options) -> Session {
        Session {
            rank: net.rank(),
            size: net.size(),
            net,
            hostname: hostname(),
            opts,
            stop: Mutex::new(None),
            started: AtomicBool::new(false),
            start_ns: AtomicU64::new(0),
            end_ns: AtomicU64::new(0),
            peer_stop: AtomicBool::new(false),
            concluded: AtomicBool::new(false),
            watcher: Mutex::new(None),
            verdict: Mutex::new(None),
        }
    }

    /// This rank's directory under `base` (`base/rank.N`, N = (rank + rotate) mod
    /// size), created when missing (one level: `base` must exist).
    pub fn dir(&self, base: &Path) -> Result<PathBuf, String> {
        let n = (self.rank + self.opts.rotate % self.size.max(1)) % self.size.max(1);
        let d = base.join(format!("rank.{n}"));
        match std::fs::create_dir(&d) {
            Ok(()) => Ok(d),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(d),
            Err(e) => Err(format!(
                "cannot create the rank directory {}: {e}",
                d.display()
            )),
        }
    }

    /// Give the session the run's stop flag and start watching for the other ranks'
    /// ends: the first one stops this rank with `--mpi-stonewall`, a failed one always.
    pub fn arm(&'static self, stop: &Arc<AtomicBool>) {
        *lock(&self.stop) = Some(Arc::clone(stop));
        let h = std::thread::Builder::new()
            .name("iomark-ranks".into())
            .spawn(move || self.watch());
        *lock(&self.watcher) = h.ok();
    }

    fn watch(&self) {
        let mut heard = 1;
        while heard < self.size {
            let Some(word) = self.net.poll_done() else {
                std::thread::sleep(std::time::Duration::from_millis(1));
                continue;
            };
            heard += 1;
            let ends_me = self.opts.stonewall || word & DONE_FAILED != 0;
            if ends_me && self.end_ns.load(Ordering::SeqCst) == 0 {
                if let Some(s) = lock(&self.stop).as_ref() {
                    if !s.swap(true, Ordering::SeqCst) {
                        self.peer_stop.store(true, Ordering::SeqCst);
                    }
                }
            }
        }
    }

    /// The stop flag was set by another rank (not by a signal): the run ended as
    /// `--mpi-stonewall` asked (or because a rank failed), not interrupted.
    pub fn stopped_by_peer(&self) -> bool {
        self.peer_stop.load(Ordering::SeqCst)
    }

    /// The start barrier (once): every rank has laid out its files; I/O starts now.
    fn start(&self) {
        if !self.started.swap(true, Ordering::SeqCst) {
            self.net.barrier();
            self.start_ns.store(wall_ns(), Ordering::SeqCst);
        }
    }

    /// This rank's I/O ended (once): the others hear of it. A rank that ends before
    /// the start line still passes the barrier, so the others never wait for it.
    fn finished(&self, failed: bool) {
        self.start();
        if self.end_ns.swap(wall_ns(), Ordering::SeqCst) != 0 {
            return;
        }
        let word = if failed { DONE_FAILED } else { 0 };
        for to in (0..self.size).filter(|&r| r != self.rank) {
            self.net.send_done(to, word);
        }
    }

    /// The end of this rank's run with its builder inputs `i`: rank 0 gets the
    /// aggregate built from every rank's recorder state (and prints a line per rank on
    /// stderr when `table_lines`), the others their own result. Once; a second call
    /// builds `i` alone.
    pub fn conclude(&self, i: Inputs, table_lines: bool) -> RunResult {
        if self.concluded.swap(true, Ordering::SeqCst) {
            return crate::result::build(i);
        }
        self.finished(i.status == Status::Failed);
        if let Some(h) = lock(&self.watcher).take() {
            let _ = h.join();
        }
        let measured = Measured::of(&i);
        let base = (self.rank == 0).then(|| i.clone());
        let wire = Wire {
            rank: self.rank,
            hostname: self.hostname.clone(),
            start_ns: self.start_ns.load(Ordering::SeqCst),
            end_ns: self.end_ns.load(Ordering::SeqCst),
            stopped_by_peer: self.stopped_by_peer(),
            result: crate::result::build(i),
            measured,
        };
        let bytes = serde_json::to_vec(&wire).unwrap_or_default();
        let (Some(all), Some(base)) = (self.net.gather(&bytes), base) else {
            return wire.result;
        };
        let agg = aggregate(runs(all), base, self.opts.stonewall, self.opts.rotate);
        for l in table(&agg).iter().filter(|_| table_lines) {
            eprintln!("{l}");
        }
        *lock(&self.verdict) = Some(
            (agg.status == Status::Failed)
                .then(|| agg.error.clone().unwrap_or_else(|| failed_job(&agg))),
        );
        agg
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn failed_job(r: &RunResult) -> String {
    let f = r
        .jobs
        .iter()
        .find_map(|j| j.failure.clone().or(j.first_error.clone()));
    f.unwrap_or_else(|| "a rank failed".into())
}

/// The gathered ranks with their offsets from the earliest start and what each
/// measured; an unreadable part becomes a failed rank saying so, that measured nothing.
fn runs(all: Vec<Vec<u8>>) -> Vec<(RankRun, Measured)> {
    let wires: Vec<Wire> = all
        .iter()
        .enumerate()
        .map(|(i, b)| {
            serde_json::from_slice(b).unwrap_or_else(|e| {
                let mut r =
                    crate::result::build(crate::result::Inputs::new("", &[], Status::Failed));
                r.error = Some(format!("its result could not be read: {e}"));
                Wire {
                    rank: i as u32,
                    hostname: "unknown".into(),
                    start_ns: 0,
                    end_ns: 0,
                    stopped_by_peer: false,
                    result: r,
                    measured: Measured::default(),
                }
            })
        })
        .collect();
    let t0 = wires
        .iter()
        .map(|w| w.start_ns)
        .filter(|&t| t > 0)
        .min()
        .unwrap_or(0);
    wires
        .into_iter()
        .map(|w| {
            let run = RankRun {
                rank: w.rank,
                hostname: w.hostname,
                start_offset_ns: w.start_ns.saturating_sub(t0),
                end_offset_ns: w.end_ns.saturating_sub(t0),
                stopped_by_peer: w.stopped_by_peer,
                result: w.result,
            };
            (run, w.measured)
        })
        .collect()
}

/// The per-rank lines rank 0 prints on stderr after the run.
fn table(agg: &RunResult) -> Vec<String> {
    let Some(s) = agg.ranks.as_ref() else {
        return vec![];
    };
    let mut v = vec![format!(
        "iomark: {} ranks: start skew {:.1} us, first done {:.3} s, last done {:.3} s{}",
        s.size,
        s.start_skew_ns as f64 / 1e3,
        s.first_done_ns as f64 / 1e9,
        s.last_done_ns as f64 / 1e9,
        if s.stonewall {
            " (--mpi-stonewall)"
        } else {
            ""
        }
    )];
    for r in &s.per_rank {
        let x = &r.result;
        v.push(format!(
            "iomark: rank {} ({}): {} reads, {} writes, start +{:.1} us, end {:.3} s{}, {:?}",
            r.rank,
            r.hostname,
            x.read.ops,
            x.write.ops,
            r.start_offset_ns as f64 / 1e3,
            r.end_offset_ns as f64 / 1e9,
            if r.stopped_by_peer {
                " (stopped by another rank)"
            } else {
                ""
            },
            x.status
        ));
    }
    v
}

/// Give the session (if any) the run's stop flag ([`Session::arm`]).
pub fn arm(stop: &Arc<AtomicBool>) {
    if let Some(s) = current() {
        s.arm(stop);
    }
}

/// The result to report from the builder inputs `i`: under MPI rank 0 gets the
/// aggregate of every rank ([`Session::conclude`]); the other ranks, and a plain run,
/// their own `result::build(i)`.
pub fn conclude(i: Inputs) -> RunResult {
    match current() {
        Some(s) => s.conclude(i, true),
        None => crate::result::build(i),
    }
}

/// The runner returned (`failed`: it ended with an error): under MPI the end time is
/// taken and the other ranks hear of it now, before the result is built.
pub fn ended(failed: bool) {
    if let Some(s) = current() {
        s.finished(failed);
    }
}

/// Runners: every file is laid out, the I/O starts now. Under MPI this is the start
/// barrier of all ranks (the first call only); otherwise nothing.
pub fn start_line() {
    if let Some(s) = current() {
        s.start();
    }
}

/// The end of the process with exit code `code`: a rank that never concluded (it
/// stopped before its result) concludes with a failed one, so rank 0 never waits for it;
/// every rank waits for rank 0 to have printed all; MPI is finalized. Returns, on rank
/// 0 whose own `code` is 0, the failure of another rank (the caller says it and exits
/// 1); otherwise, and without a session, `None`.
pub fn close(code: i32) -> Option<String> {
    let s = current()?;
    if !s.concluded.load(Ordering::SeqCst) {
        let status = if code == 0 {
            Status::Ok
        } else {
            Status::Failed
        };
        let mut i = Inputs::new("", &[], status);
        i.error = (code != 0).then(|| format!("ended with exit code {code} before its result"));
        let _ = s.conclude(i, false);
    }
    let failure = lock(&s.verdict).clone().flatten();
    // every rank leaves after rank 0 has printed all: a launcher that ends the job at
    // the first non-zero exit cannot cut rank 0's report short
    s.net.barrier();
    s.net.finalize();
    failure.filter(|_| code == 0)
}
