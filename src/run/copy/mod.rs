//! Execution of `iomark copy`: create an incompressible source file, copy it with each
//! method the common tools use, time every copy to the last write and to the end of the
//! final `fsync`, verify the destination byte for byte, and return the result.
//!
//! Shape: one [`CopyJob`] (validated by `cli::copy`) → [`resolve`] (the environment
//! checks: directories, same file, permissions, free space, before any file is created)
//! → [`execute`] → [`PhaseRun`] (the result, the exit code); it prints nothing, the
//! front end prints the live lines and the report (report/copy_text.rs). Every file is created and removed through
//! [`crate::files::scratch::Scratch`], so only files iomark made are ever removed (also
//! after SIGINT/SIGTERM, which stop the copy loops between two requests).
//! The page cache is dropped with `posix_fadvise(POSIX_FADV_DONTNEED)` after `fsync`
//! before every phase and the residency is checked with `mincore(2)`; the durable time
//! (including `fsync`) is the honest figure, the other one shows what a tool that does
//! not sync appears to achieve.

use crate::files::preflight;
use crate::files::scratch::{self, Scratch, ScratchError};
use crate::result::{JobInfo, Phase, TimeShare, Warning};
use crate::run::sampler::IoCounts;
use crate::run::signals::Signals;
use crate::util::text::iec;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

mod methods;
mod phase;
use methods::{
    check_stop, copy_file_range, create_err, drop_cache, io_fail, read_write, write_source, Method,
};
pub use methods::{first_difference, Timing};
pub use phase::removing_line;
pub use phase::{
    bar, bytes_bar, check_dir, ended, measured_secs, short, steps_bar, waiting, Done, Live,
    MarkBar, PhaseRun, RunError,
};

/// Block size of the buffered (cp-like) method, bytes.
pub const BUFFERED_BLOCK: usize = 128 * 1024;
/// Block size of the O_DIRECT method, bytes.
pub const DIRECT_BLOCK: usize = 4 * 1024 * 1024;
/// Largest `copy_file_range` request, bytes (keeps the progress bar and Ctrl-C responsive).
pub const CFR_CHUNK: usize = 64 * 1024 * 1024;

/// A validated copy job.
#[derive(Clone, Debug)]
pub struct CopyJob {
    /// directory the source file is created in
    pub src_dir: PathBuf,
    /// directory the copies are written to
    pub dst_dir: PathBuf,
    /// source file size, bytes (> 0)
    pub size: u64,
    /// seed of the data generator
    pub seed: u32,
    /// `--json=FILE`
    pub json: Option<PathBuf>,
    /// `--keep`: leave the source and every destination file in place (no cleanup after
    /// a successful run; needs room for four files)
    pub keep: bool,
    /// argv after the command word
    pub argv: Vec<String>,
}

/// Stage 2 checks of a copy job, before anything is created: SRC and DST must be
/// existing directories (a file as SRC is named first, with a note when DST is the same
/// file or a path inside it), writable, with free space for the source and the copies
/// (statvfs). Errors: [`RunError::Env`] (exit 3) for all of these.
pub fn resolve(job: &CopyJob) -> Result<(), RunError> {
    let (s, d) = (&job.src_dir, &job.dst_dir);
    let sm = std::fs::metadata(s).ok();
    let dm = std::fs::metadata(d).ok();
    // A file given as SRC is the error to name first: "same file" or "DST inside SRC"
    // only follow from it, so they are added as a note.
    if let Some(a) = sm.as_ref().filter(|m| !m.is_dir()) {
        let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let note = if dm
            .as_ref()
            .is_some_and(|b| a.dev() == b.dev() && a.ino() == b.ino())
        {
            "; DST names the same file"
        } else if abs(d) != abs(s) && abs(d).starts_with(abs(s)) {
            "; DST is a path inside it"
        } else {
            ""
        };
        return Err(RunError::Env(format!(
            "SRC '{}' is not a directory{note} (iomark copy creates its own source file in the directory SRC; it never reads or changes your files)",
            s.display()
        )));
    }
    check_dir("SRC", s)?;
    check_dir("DST", d)?;
    let same_fs = sm.zip(dm).is_some_and(|(a, b)| a.dev() == b.dev());
    // Without --keep one copy exists at a time; with it, all three stay.
    let copies = if job.keep { 3 } else { 1 };
    let need = |n: u64| job.size.saturating_mul(n);
    let checks: Vec<(&Path, u64, String)> = if same_fs {
        vec![(
            s,
            need(1 + copies),
            format!(
                "source {} + {copies} cop{} of {}",
                iec(job.size),
                if copies == 1 { "y" } else { "ies" },
                iec(job.size)
            ),
        )]
    } else {
        vec![
            (s, need(1), format!("source {}", iec(job.size))),
            (
                d,
                need(copies),
                format!(
                    "{copies} cop{} of {}",
                    if copies == 1 { "y" } else { "ies" },
                    iec(job.size)
                ),
            ),
        ]
    };
    for (dir, need, what) in checks {
        if let Some(free) = preflight::free_space(dir) {
            if need > free {
                return Err(RunError::Env(format!(
                    "not enough free space in '{}': need {} ({what}), {} available ({} < {} bytes)",
                    dir.display(),
                    iec(need),
                    iec(free),
                    free,
                    need
                )));
            }
        }
    }
    Ok(())
}

fn pct(r: Option<f64>) -> String {
    r.map_or("unknown".into(), |r| format!("{:.1} %", r * 100.0))
}

/// The diagnosis of a directory of the copy (its canonical path).
fn diagnose_dir(p: &Path) -> crate::probe::diagnosis::Diagnosis {
    crate::probe::diagnosis::diagnose(
        &crate::probe::Root::default(),
        &crate::probe::diagnosis::Inputs {
            path: abs(p),
            ..Default::default()
        },
    )
}

/// The job as the result's summary describes it.
fn summary(job: &CopyJob) -> JobInfo {
    JobInfo {
        kind: "copy".into(),
        engine: "psync+copy_file_range+direct".into(),
        iodepth: 1,
        threads: 1,
        files: 1,
        file_size_bytes: job.size,
        total_size_bytes: job.size,
        block_size_bytes: BUFFERED_BLOCK as u64,
        request_size_bytes: DIRECT_BLOCK as u64,
        fsync_end: true,
        rand_seed: u64::from(job.seed),
        rand_seed_used: u64::from(job.seed),
        data_pattern: Some(crate::job::sysbench::DataPattern::Random),
        directory: format!("{} -> {}", abs(&job.src_dir), abs(&job.dst_dir)),
        ..Default::default()
    }
}

/// Run a copy job whose directories passed [`resolve`]: `live` gets the warnings and
/// the start line while it runs; the result holds the phases that finished (all of
/// them after a success), with the diagnoses of SRC and DST. Prints nothing.
pub fn execute(job: &CopyJob, signals: &Signals, live: &dyn Fn(Live)) -> PhaseRun {
    let t0 = Instant::now();
    // the device view and the run over time: the destination's disk, where the copy is
    // written, and the source's when it is another, where the copy reads
    let roles = [
        ("DST", job.dst_dir.as_path()),
        ("SRC", job.src_dir.as_path()),
    ];
    let watch = crate::probe::devstat::Watch::of_roles(&crate::probe::Root::of_samples(), &roles);
    // the run over time: the bytes the methods read and write, and the disks
    let counts = std::sync::Arc::new(IoCounts::default());
    let sampler = crate::run::sampler::Background::of_roles(t0, &roles, &counts);
    let mut phases = Vec::new();
    let mut times = Vec::new();
    let mut warnings = Vec::new();
    let mut scratch = Scratch::new();
    let r = run(
        job,
        (&signals.stop, &counts),
        &mut scratch,
        (&mut phases, &mut times),
        &mut warnings,
        live,
    );
    let samples = sampler.and_then(|s| s.finish());
    let kept = if job.keep && r.is_ok() {
        scratch.release()
    } else {
        vec![]
    };
    let done = Done {
        cmd: "copy",
        argv: &job.argv,
        removed: "the files iomark created were removed",
        t0,
        phases,
        warnings,
        watch,
    };
    if let Some(l) = removing_line("copy", &scratch, signals.exit_code()) {
        live(Live::Err(l));
    }
    let (mut i, closing, code) = ended(done, &r, &mut scratch, signals.exit_code());
    i.summary = summary(job);
    i.recorded.time = times;
    if let Some(s) = samples {
        s.into_inputs(&mut i);
    }
    // the destination is where the copy is written: its path decides durability
    i.targets = vec![diagnose_dir(&job.src_dir), diagnose_dir(&job.dst_dir)];
    PhaseRun {
        result: crate::result::build(i),
        code,
        kept,
        closing,
    }
}

fn abs(p: &Path) -> String {
    std::fs::canonicalize(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}

/// The source file: written, fsync-ed, then dropped from the page cache; its phase
/// and where its time went (inside the writes, the final fsync, the rest: generating
/// the data).
fn create_source(
    job: &CopyJob,
    src: &Path,
    io: (&AtomicBool, &IoCounts),
    scratch: &mut Scratch,
) -> Result<(Phase, TimeShare), RunError> {
    let mut f = scratch.create_file(src, false).map_err(create_err)?;
    let pb = bytes_bar(job.size, "create source", 4 << 20);
    let t = Instant::now();
    let (reqs, inside) = write_source(&mut f, src, job.size, job.seed, io, &pb)?;
    let written_s = t.elapsed().as_secs_f64();
    pb.finish_and_clear();
    let w = waiting("create source: final fsync, waiting for the device");
    crate::engine::fault::io_hook(crate::engine::fault::Op::Fsync)
        .and_then(|_| f.sync_all())
        .map_err(|e| io_fail("cannot fsync", src, &e))?;
    let durable_s = t.elapsed().as_secs_f64();
    w.finish_and_clear();
    drop(f);
    drop_cache(src)?;
    let mut p = Phase::new("create_source_durable", reqs, job.size, durable_s);
    p.notes.push(format!(
        "4 MiB buffered writes of xoroshiro128+ data, then fsync; {written_s:.3} s to the last write"
    ));
    let time = share(&p.name, durable_s, (0.0, inside.as_secs_f64()), written_s);
    Ok((p, time))
}

/// A phase's time breakdown: `wall_s` of which `read_s` and `write_s` inside its read
/// and write calls and the final fsync after `written_s` (the last write's return).
fn share(who: &str, wall_s: f64, (read_s, write_s): (f64, f64), written_s: f64) -> TimeShare {
    let ns = |s: f64| (s.max(0.0) * 1e9) as u64;
    TimeShare::new(
        who,
        ns(wall_s),
        ns(read_s),
        ns(write_s),
        ns(wall_s - written_s),
    )
}

/// The two phases of a finished method: to the last write, and durable (with the
/// page-cache residency the mincore check saw before and after).
fn method_phases(name: &str, t: &Timing, cache: String, resident: String) -> [Phase; 2] {
    let mut pw = Phase::new(&format!("{name}_written"), t.requests, t.bytes, t.written_s);
    pw.cache = Some(cache.clone());
    // each call's latency, from the one recorder's accumulators
    let lat = |d: &crate::stats::job::DirStats| {
        (d.ios > 0).then(|| {
            let mut l = crate::result::build::acc_latency(d.lat.clone());
            // a histogram bucket's value can lie past the calls' own extremes (p50 of
            // one call above its max): the table says what the calls took
            for v in l.percentiles_ns.values_mut() {
                *v = (*v).clamp(l.min_ns, l.max_ns);
            }
            l
        })
    };
    (pw.read_lat, pw.write_lat) = (lat(&t.calls.read), lat(&t.calls.write));
    pw.notes
        .push("up to the return of the last write; data may still be in the page cache".into());
    let mut pd = Phase::new(&format!("{name}_durable"), t.requests, t.bytes, t.durable_s);
    pd.cache = Some(cache);
    pd.notes
        .push("includes the final fsync: the honest figure".into());
    pd.notes
        .push("destination verified byte-identical to the source".into());
    if name == "copy_file_range" {
        pd.notes.push("on btrfs/XFS/NFS the kernel may share extents (reflink) or copy server-side instead of moving data".into());
    }
    pd.notes.push(resident);
    [pw, pd]
}

/// The destination `dst` must hold the source `src` byte for byte.
fn verify(src: &Path, dst: &Path) -> Result<(), RunError> {
    match first_difference(src, dst) {
        Ok(None) => Ok(()),
        Ok(Some(off)) => Err(RunError::Failed(format!(
            "verification failed: {} differs from the source at byte {off}",
            dst.display()
        ))),
        Err(e) => Err(io_fail("cannot verify", dst, &e)),
    }
}

/// Copy the source with one method, verify the destination and record its phases (or
/// why it was skipped).
fn copy_with(
    job: &CopyJob,
    (name, label, is_direct): (&str, &'static str, bool),
    src: &Path,
    io: (&AtomicBool, &IoCounts),
    scratch: &mut Scratch,
    out: (&mut Vec<Phase>, &mut Vec<Warning>, &mut Vec<TimeShare>),
) -> Result<(), RunError> {
    let (phases, warnings, times) = out;
    let dst = job
        .dst_dir
        .join(format!("iomark-copy.{}.{name}.dst", std::process::id()));
    drop_cache(src)?;
    let src_res = scratch::resident_fraction(src);
    let cache = format!(
        "source dropped with posix_fadvise(POSIX_FADV_DONTNEED) after fsync; mincore: {} resident at start",
        pct(src_res)
    );
    let skipped = |why: String| Warning {
        id: format!("copy.{name}_skipped"),
        message: why,
    };
    let mut d = match scratch.create_file(&dst, is_direct) {
        Ok(d) => d,
        Err(ScratchError::DirectRefused(_)) => {
            warnings.push(skipped(
                "O_DIRECT refused by DST's filesystem (EINVAL): skipped".into(),
            ));
            return Ok(());
        }
        Err(e) => return Err(create_err(e)),
    };
    let block = match name {
        "buffered_128k" => BUFFERED_BLOCK,
        "copy_file_range" => CFR_CHUNK,
        _ => DIRECT_BLOCK,
    };
    let pb = bytes_bar(job.size, label, block as u64);
    let m = match name {
        "buffered_128k" => read_write(src, &dst, &mut d, false, BUFFERED_BLOCK, io, &pb)?,
        "copy_file_range" => copy_file_range(src, &dst, &mut d, io, &pb)?,
        _ => read_write(src, &dst, &mut d, true, DIRECT_BLOCK, io, &pb)?,
    };
    pb.finish_and_clear();
    drop(d);
    match m {
        Method::Skipped(why) => warnings.push(skipped(why)),
        Method::Done(t) => {
            drop_cache(&dst)?;
            let resident = format!(
                "mincore: source {} at start, destination {} after",
                pct(src_res),
                pct(scratch::resident_fraction(&dst))
            );
            verify(src, &dst)?;
            let durable = format!("{name}_durable");
            times.push(share(
                &durable,
                t.durable_s,
                (t.read_s, t.write_s),
                t.written_s,
            ));
            phases.extend(method_phases(name, &t, cache, resident));
        }
    }
    if !job.keep {
        scratch
            .remove_file(&dst)
            .map_err(|e| io_fail("cannot remove", &dst, &e))?;
    }
    // The verification read the source back in: drop it again.
    drop_cache(src)
}

fn run(
    job: &CopyJob,
    io: (&AtomicBool, &IoCounts),
    scratch: &mut Scratch,
    (phases, times): (&mut Vec<Phase>, &mut Vec<TimeShare>),
    warnings: &mut Vec<Warning>,
    live: &dyn Fn(Live),
) -> Result<(), RunError> {
    for (what, d) in [("SRC", &job.src_dir), ("DST", &job.dst_dir)] {
        if let Some(fs) = crate::probe::pagecache::memory_fs(d) {
            warnings.push(Warning {
                id: "target.memory_fs".into(),
                message: format!(
                    "{what} '{}' is on {fs}: the copy measures memory, not a drive",
                    d.display()
                ),
            });
        }
    }
    for w in warnings.iter() {
        live(Live::Err(format!("WARNING: {}", w.message)));
    }
    let src = job
        .src_dir
        .join(format!("iomark-copy.{}.src", std::process::id()));
    live(Live::Out(format!(
        "iomark copy: {} source file (incompressible), {} -> {}",
        iec(job.size),
        abs(&job.src_dir),
        abs(&job.dst_dir)
    )));
    let stop = io.0;
    let (source, time) = create_source(job, &src, io, scratch)?;
    phases.push(source);
    times.push(time);
    for m in crate::result::COPY_METHODS {
        check_stop(stop)?;
        let out = (&mut *phases, &mut *warnings, &mut *times);
        copy_with(job, m, &src, io, scratch, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn difference_offsets() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        std::fs::write(&a, vec![1u8; 3_000_000]).unwrap();
        std::fs::write(&b, vec![1u8; 3_000_000]).unwrap();
        assert_eq!(first_difference(&a, &b).unwrap(), None);
        let mut v = vec![1u8; 3_000_000];
        v[2_500_000] = 0;
        std::fs::write(&b, &v).unwrap();
        assert_eq!(first_difference(&a, &b).unwrap(), Some(2_500_000));
        std::fs::write(&b, vec![1u8; 1000]).unwrap();
        assert_eq!(first_difference(&a, &b).unwrap(), Some(1000));
    }

    #[test]
    fn exit_codes() {
        assert_eq!(RunError::Invalid("x".into()).code(None), 2);
        assert_eq!(RunError::Env("x".into()).code(None), 3);
        assert_eq!(RunError::Failed("x".into()).code(None), 1);
        assert_eq!(RunError::Interrupted.code(Some(143)), 143);
    }

    #[test]
    fn a_src_file_is_named_as_not_a_directory() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        let job = |s: &Path, t: &Path| CopyJob {
            src_dir: s.into(),
            dst_dir: t.into(),
            size: 1 << 20,
            seed: 1,
            json: None,
            keep: false,
            argv: vec![],
        };
        let src_file = |dst: &Path, note: &str| {
            matches!(resolve(&job(&f, dst)), Err(RunError::Env(m))
                if m.starts_with(&format!("SRC '{}' is not a directory{note} (", f.display())))
        };
        assert!(src_file(&f, "; DST names the same file"));
        assert!(src_file(&f.join("sub"), "; DST is a path inside it"));
        assert!(src_file(d.path(), ""));
        assert!(
            matches!(resolve(&job(&d.path().join("nope"), d.path())), Err(RunError::Env(m)) if m.contains("does not exist"))
        );
        assert!(resolve(&job(d.path(), d.path())).is_ok());
        assert_eq!(std::fs::read(&f).unwrap(), b"x");
    }
}
