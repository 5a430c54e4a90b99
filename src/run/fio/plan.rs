//! A job thread's plan (see [`crate::run::fio`]): its files (names from `filename`,
//! `filename_format`, `nrfiles`, `directory`), their I/O regions, the offset alignment,
//! byte limit and seed, resolved once from the job before the thread starts.

use crate::files::dataset::{self, FileSpec, FilesError};
use crate::job::fio::{FioJob, SizeSpec};
use crate::job::model::{BlockSizes, RandGen, RwMode, Workload};
use crate::job::thread::ThreadJob;
use crate::run::fio::replay;
use crate::run::fio::*;
use crate::run::gen::frand::{Draws, Frand, Seeding, FILE_SIZE_SLOT, SEQ_RAND_SLOT, ZONE_SLOT};
use std::path::{Path, PathBuf};

/// Everything a worker thread needs, resolved from a job.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub job: FioJob,
    /// what the thread's requests are in the one job model (`FioJob::model`'s
    /// `work`, job/model/workload.rs): picking, limits, pacing, data, syncs, verify,
    /// failure policy, queue; the worker reads these, not `job`'s fields
    pub work: Workload,
    /// what the thread starts from in the one job model (`FioJob::model`'s `thread`,
    /// job/thread.rs): its engine, depth, request sizes, open flags, pacing and limits
    pub thread_job: ThreadJob,
    pub files: Vec<FileSpec>,
    /// I/O region of each file: (first byte, length), bytes
    pub regions: Vec<(u64, u64)>,
    /// where each file's I/O starts in the loops after the first ([`loop_starts`]);
    /// empty: where the first loop's does
    pub loop_starts: Vec<u64>,
    /// the bytes fio 3.33's do_io issues at most before it stops asking for requests
    /// (`io_size`, else `size` in bytes, times `loops`; `u64::MAX`: neither in bytes)
    pub issue_limit: u64,
    /// `file_append`: a drawn request size fits before `len` past the file's size
    pub append: bool,
    /// offset alignment, bytes
    pub align: u64,
    /// bytes to move before stopping (0 = unlimited)
    pub byte_limit: u64,
    /// bytes of one pass over the files (each region's whole blocks of `align`; the
    /// regions' bytes, whole blocks or not, for a job whose files are never done): fio
    /// re-opens the files, and so drops their page cache, at every new pass
    pub pass_bytes: u64,
    /// a random job whose files are never done ([`endless_random`]): its loops end by
    /// their bytes
    pub endless: bool,
    /// bytes issued (reads and writes) after which a time-based writer with `verify=`
    /// stops to verify what it wrote, then goes on (0: never; [`verify_cycle_bytes`])
    pub verify_cycle: u64,
    /// write-then-verify rounds of a job that is not time based (each `verify_cycle`
    /// bytes at most, all of them `byte_limit`; [`verify_rounds`]); 0: the job's writes
    /// are verified once, at its end
    pub verify_rounds: u64,
    /// the rounds of a mixed job (`rw=rw`, `randrw`) with `verify=` that is not time
    /// based, each `verify_cycle` bytes at most: how many is decided at each round's end
    /// ([`MixRounds::more`]); None for every other job
    pub mix_rounds: Option<MixRounds>,
    pub seed: u64,
    /// thread number within the job, from 0
    pub thread: u32,
    /// thread number among all threads of all jobs, from 0 (fio's `thread_number` - 1:
    /// the N of its log file names)
    pub global: u32,
    /// the run's flows (`flow=`), shared by every thread
    pub flows: Option<std::sync::Arc<crate::run::control::flow::Flows>>,
    /// `zonemode=zbd`: the shared zone table of each file (empty otherwise)
    pub zones: crate::run::gen::zones::Tables,
    /// `read_iolog`: the log this thread replays (its I/Os instead of the generators')
    pub replay: Option<std::sync::Arc<replay::Replay>>,
    /// `verify_state_save`: where this thread saves its verify state when it ends
    /// (a job that writes with `verify=`; run/verify/state.rs)
    pub vstate_save: Option<PathBuf>,
    /// `verify_state_load`: the state loaded for this thread before the run
    pub vstate: Option<std::sync::Arc<crate::run::verify::state::State>>,
    /// the fio persona's rules for what fails a job, fio 3.33's: a short transfer's rest
    /// is issued again, and one that moved nothing is EIO on a synchronous engine, not
    /// done on an engine that queues (run/worker/fio/resid.rs); a file the thread cannot
    /// open is the job's error, reported with the other jobs
    /// ([`crate::run::fio::setup::open_failure`]). False (`iomark run`): any short
    /// transfer is the request's error and an open failure the run's
    pub fio_errors: bool,
    /// fio's stdout line before each `exec_prerun`/`exec_postrun` (the fio persona
    /// without `--output`: fio 3.33's line does not reach a `--output` file)
    pub say_hooks: bool,
    /// under the fio persona, `ioscheduler` the queue under one of the job's files did
    /// not take: the thread fails or goes on as fio 3.33's (set after the layout)
    pub iosched_miss: Option<IoschedMiss>,
    /// under the fio persona, the errno of the open of the `read_iolog` this thread
    /// could not open: the thread fails as fio 3.33's fails to set its log up
    pub iolog_unopened: Option<i32>,
}

/// How a job's `ioscheduler` missed, as fio 3.33's thread meets it (`set_ioscheduler`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IoschedMiss {
    /// the queue does not offer the scheduler: fio's `unable to set io scheduler to
    /// NAME`, the thread failed with EINVAL (`func=iosched_switch`)
    Unset(String),
    /// the queue offers none to choose (its file reads `none`): fio's `io scheduler is
    /// not tunable`, the thread goes on
    Untunable,
}

/// What fio's per-job services derive from the dialect's job for the worker, so the
/// worker reads the plan and its [`Workload`], never `job`'s fields.
impl Plan {
    /// The seed of generator `slot` of this thread (fio's per-thread seeds).
    pub(crate) fn seed_of(&self, slot: u64) -> u64 {
        fio_seed(&self.job, self.global, slot)
    }
    /// fio's generators of this thread's requests ([`Draws`]): the offsets'
    /// ([`offset_generator`]); the sizes' per worker slot (`Picking::slot_dirs`), seeded
    /// from the read, write and trim seed slots — the writes' from the reads' under
    /// `verify`, the trims' from the writes' in a trimwrite job; `percentage_random`'s,
    /// every direction's from one slot, 32 bits; `file_service_type=random`'s from the
    /// file slot.
    pub(crate) fn draws(&self) -> Draws {
        let pick = &self.work.pick;
        let verify = self.work.verify.kind.is_some();
        let trimwrite = matches!(pick.rw, RwMode::TrimWrite | RwMode::RandTrimWrite);
        // each seed read once: without randrepeat and randseed they come from the clock,
        // and the writes' (trims') must be the very seed of the reads' (writes')
        let [read, write, trim] = [0, 1, 2].map(|slot| self.seed_of(slot));
        let write = if verify { read } else { write };
        let seed = |d: usize| match d {
            0 => read,
            1 => write,
            _ if trimwrite => write,
            _ => trim,
        };
        let use64 = taus64(&self.job);
        let pct = self.seed_of(SEQ_RAND_SLOT);
        Draws {
            off: offset_generator(&self.job, self.global),
            bs: pick.slot_dirs().map(|d| Frand::new(seed(d), use64)),
            pct: [0; 3].map(|_| Frand::new(pct, false)),
            zone: Frand::new(self.seed_of(ZONE_SLOT), false),
        }
    }
    /// Whether fio's generators of this thread are 64-bit (`random_generator=tausworthe64`).
    pub(crate) fn taus64(&self) -> bool {
        taus64(&self.job)
    }
    /// The seed of file `i`'s zipf, pareto or normal state (fio 3.33's
    /// `__init_rand_distribution`): under `randrepeat` the hash of the file's name times
    /// fio's thread number, else the offsets' seed — which, with `randseed` given under
    /// `randrepeat`, is the repeatable one whatever `randseed` says (fio turns
    /// `randrepeat` off for a `randseed` after its first seeding, which set that seed).
    pub(crate) fn skew_seed(&self, i: usize) -> u64 {
        if self.work.pick.repeat {
            let name = self.files[i].path.display().to_string();
            crate::run::gen::skew::file_seed(&name, u64::from(self.global) + 1)
        } else {
            seeding(&self.job).block(u64::from(self.global) + 1)
        }
    }
    /// fio's LFSR of each file's random offsets (`random_generator=lfsr`, src/run/gen/lfsr.rs)
    /// over a region of `len` bytes: its blocks of the job's smallest size (fio's
    /// `rw_min_bs`), seeded with the thread's block seed (fio's
    /// `rand_seeds[FIO_RAND_BLOCK_OFF]`, [`Seeding::block`]), no spin. None: the job
    /// draws with another generator, or fio could not set the register up (no block, or
    /// the seed's bits all ones: fio fails the job there, iomark draws as tausworthe).
    pub(crate) fn lfsr(&self, len: u64) -> Option<crate::run::gen::lfsr::Lfsr> {
        if self.work.pick.generator != Some(RandGen::Lfsr) {
            return None;
        }
        let blocks = self.lfsr_blocks(len);
        let seed = seeding(&self.job).block(u64::from(self.global) + 1);
        (blocks > 0)
            .then(|| crate::run::gen::lfsr::Lfsr::new(blocks, seed, 0))
            .flatten()
    }
    /// The blocks of the job's smallest size (fio's `rw_min_bs`) in a region of `len`
    /// bytes: what the file's LFSR covers.
    pub(crate) fn lfsr_blocks(&self, len: u64) -> u64 {
        len / self.job.min_bs().max(1)
    }
    /// Whether the job's files are unlinked before each further loop
    /// (`unlink_each_loop`, run/worker/fio/open.rs's `Unlink`).
    pub(crate) fn unlink_each_loop(&self) -> bool {
        self.job.tuning.unlink_each_loop
    }
    /// Bandwidth and IOPS sampling intervals, ms ([`crate::run::fio::log::sample_intervals`]).
    pub(crate) fn sample_intervals(&self) -> [Option<u64>; 2] {
        crate::run::fio::log::sample_intervals(&self.job)
    }
    /// Whether bandwidth and IOPS are logged per request
    /// ([`crate::run::fio::log::unit_samples`]).
    pub(crate) fn unit_samples(&self) -> [bool; 2] {
        crate::run::fio::log::unit_samples(&self.job)
    }
    /// The shape `dedupe_percentage` gives the thread's writes over its regions (None:
    /// none).
    pub(crate) fn dedupe(&self) -> Option<crate::run::fio::dedupe::Dedupe> {
        let total = self.regions.iter().map(|r| r.1).sum();
        crate::run::fio::dedupe::Dedupe::new(&self.job, self.seed, total)
    }
    /// The thread's per-request priorities (`cmdprio_*`; None: all 0).
    pub(crate) fn cmd_prio(&self) -> Option<crate::run::fio::prio::CmdPrio> {
        crate::run::fio::prio::CmdPrio::new(
            &self.job.extra,
            self.job.engine.per_io_prio(),
            self.seed_of(crate::run::gen::frand::PRIO_CMDS_SLOT),
        )
    }
}

/// The plan of a thread of a job whose setup failed (run/fio/setup.rs): no file, no
/// region, nothing to do; it is never run, only reported.
pub(crate) fn stand_in(job: &FioJob, t: u32, global_index: u64) -> Plan {
    let model = job.model();
    Plan {
        job: job.clone(),
        thread_job: model.thread,
        work: model.work,
        files: Vec::new(),
        regions: Vec::new(),
        loop_starts: Vec::new(),
        issue_limit: u64::MAX,
        append: false,
        align: 1,
        byte_limit: 0,
        pass_bytes: 0,
        endless: false,
        verify_cycle: 0,
        verify_rounds: 0,
        mix_rounds: None,
        seed: 0,
        thread: t,
        global: u32::try_from(global_index).unwrap_or(u32::MAX),
        flows: None,
        zones: Vec::new(),
        replay: None,
        vstate_save: None,
        vstate: None,
        fio_errors: false,
        say_hooks: false,
        iosched_miss: None,
        iolog_unopened: None,
    }
}

/// fio's `filename_format` expansion: `$jobname`, `$jobnum`, `$filenum`, `$clientuid`
/// (fio 3.33's client address, empty outside its client/server mode: `f.$clientuid` is
/// `f.`).
pub fn format_filename(fmt: &str, job: &str, jobnum: u32, filenum: u32) -> String {
    fmt.replace("$jobname", job)
        .replace("$jobnum", &jobnum.to_string())
        .replace("$filenum", &filenum.to_string())
        .replace("$clientuid", "")
}

/// `job` with `io_size=N%` turned into bytes: N % of the thread's size, the sum of its
/// files' region lengths (fio 3.33: `--size=1m --io_size=50%` reads 512 KiB; with
/// `filesize=1m nrfiles=2`, 1 MiB), rounded down to a byte; 0 bytes means unset.
pub(crate) fn resolve_io_size(job: &FioJob, regions: &[Region]) -> FioJob {
    let mut job = job.clone();
    if let Some(pc) = job.more.io_size_pct.take() {
        let total: u128 = regions.iter().map(|r| u128::from(r.1)).sum();
        let bytes = u64::try_from(total * u128::from(pc) / 100).unwrap_or(u64::MAX);
        job.more.io_size = Some(size_cap(&job, bytes)).filter(|&n| n > 0);
    }
    job
}

/// `bytes` no more than `size=` when it is given in bytes (fio 3.33's setup_files keeps
/// the smaller of `size` and the files' I/O sizes as the job's size).
fn size_cap(job: &FioJob, bytes: u64) -> u64 {
    match job.size {
        Some(SizeSpec::Bytes(b)) if b > 0 => bytes.min(b),
        _ => bytes,
    }
}

/// A random job whose files are never done — `norandommap` (which a skewed
/// `random_distribution` implies) without fio's LFSR, or a non-uniform
/// `file_service_type`, which starts a file at its end over at once: fio 3.33 ends its
/// loop by the bytes issued only, at the job's `size` (the smaller of `size=` and the
/// files' I/O sizes, whole blocks or not: `size=1m nrfiles=3 bs=4k` is 256 requests,
/// one more than the files' 255 whole blocks).
fn endless_random(job: &FioJob) -> bool {
    use crate::job::model::FileService as F;
    let unmapped = job.norandommap && job.more.zones.random_generator != Some(RandGen::Lfsr);
    let restarts = matches!(
        job.tuning.file_service.0,
        F::Zipf(..) | F::Pareto(..) | F::Normal(..)
    );
    job.rw.random() && (unmapped || restarts)
}

/// I/O region of a file: (first byte, length), bytes.
type Region = (u64, u64);

/// The sizes the files of the jobs planned so far will have once they are laid out
/// (fio 3.33 sets every job's files up in job order before any I/O: a later job that
/// reads a file an earlier one lays out, in its group or after a stonewall, is sized
/// from the file as that job leaves it). Keyed by the absolute path as written.
#[derive(Default, Debug)]
pub(crate) struct Laid(std::collections::HashMap<PathBuf, u64>);

impl Laid {
    fn key(p: &Path) -> PathBuf {
        std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
    }

    /// The size `p` has when the job being planned starts: the larger of its size now
    /// and what an earlier job lays out (a layout only grows a file); a device or any
    /// other non-regular file as it is now.
    pub(crate) fn size(&self, p: &Path) -> Option<u64> {
        let now = dataset::existing_size(p);
        if std::fs::metadata(p).is_ok_and(|m| !m.is_file()) {
            return now;
        }
        now.max(self.0.get(&Self::key(p)).copied())
    }

    /// Record the files `job` lays out (`files`, a thread's): none for a job that
    /// reads only what exists (`readonly=1`) or whose engine lays out nothing.
    pub(crate) fn add(&mut self, job: &FioJob, files: &[FileSpec]) {
        let caps = job.engine.caps();
        if job.readonly || caps.no_io || caps.own_files || caps.stream {
            return;
        }
        for f in files {
            let e = self.0.entry(Self::key(&f.path)).or_insert(0);
            *e = (*e).max(f.size);
        }
    }
}

/// Files of thread `t` of `job` (`global`: its number among all threads of all jobs, from
/// 0) with their I/O regions (existing sizes looked up through target/, or what the
/// earlier jobs lay out, `laid`). A file's size is the end of its region.
pub(crate) fn files_for(
    job: &FioJob,
    t: u32,
    global: u32,
    laid: &Laid,
) -> Result<(Vec<FileSpec>, Vec<Region>), RunError> {
    if job.more.replay.file.is_some() {
        // the fio persona: a log that cannot be opened fails the thread (no file)
        if iolog_unopened(job, t).is_some() {
            return Ok((Vec::new(), Vec::new()));
        }
        return Ok(replay_files(job, t, &load_replay(job, t)?));
    }
    // a character device has no size of its own (fio: the job's size= is used)
    let no_size = |p: PathBuf| -> RunError {
        if dataset::is_char_device(&p) {
            FilesError::CharNoSize(p).into()
        } else {
            dataset::why_no_size(&p).into()
        }
    };
    let named = job.filename.is_some() || job.tuning.opendir.is_some();
    let paths = paths_of(job, t)?;
    let mut out = Vec::with_capacity(paths.len());
    let mut regions = Vec::with_capacity(paths.len());
    let mut sizes = RangeSizes::of(job, global);
    let mut shares = SizeShares::of(job, paths.len() as u64);
    let nfiles = paths.len();
    for p in paths {
        let existing = existing_size(job, laid, &p, nfiles);
        let start = start_of(job, t, existing);
        let len = match (job.filesize, job.size) {
            (Some(range), _) => sizes
                .io_len(range, existing, start)
                .ok_or_else(|| bad_offset(job))?,
            // a share of 0 bytes: the file as it is, from `start` (fio: "may be ignored";
            // a start past an existing file's end is fio's "valid offset" refusal)
            (None, Some(SizeSpec::Bytes(_))) => match shares.next() {
                0 => to_end(existing, start).ok_or_else(|| bad_offset(job))?,
                n => n,
            },
            (None, Some(SizeSpec::Percent(_))) => match existing {
                Some(e) => e.saturating_sub(start),
                None => return Err(no_size(p)),
            },
            (None, None) if job.engine.caps().no_io => NULL_DEFAULT_SIZE,
            (None, None) => match existing {
                // with an offset into an existing file (or device) and no size, the
                // region runs to its end
                Some(e) if !job.tuning.file_append => {
                    to_end(Some(e), start).ok_or_else(|| bad_offset(job))?
                }
                Some(e) => e,
                // fill_device: the region is the free space (fill_region below), so a
                // file that does not exist yet needs no size (fio creates it)
                None if crate::run::fio::errors::fills(job) && !dataset::is_char_device(&p) => 0,
                None => return Err(no_size(p)),
            },
        };
        let len = size_percent(job, start, len);
        // an engine that makes its files sizes each at one block (fio's get_file_size
        // of filecreate, dircreate, dirdelete: the minimum block size)
        let len = if job.engine.caps().own_files {
            job.min_bs()
        } else {
            len
        };
        let (len, on_disk) = laid_out(job, &p, existing, (start, len));
        out.push(FileSpec {
            path: p,
            size: on_disk,
            named,
        });
        regions.push((start, len));
    }
    Ok((out, regions))
}

/// fio 3.33's line for each file of `files` whose region (`regions`, the same order) is
/// empty because it starts at the file's end (setup_files: no `size=` or `filesize=`, so
/// a file's I/O size is its size less its offset, and that is 0), said on stdout as the
/// job's files are sized: `fio: file NAME may be ignored`.
pub(crate) fn may_be_ignored(job: &FioJob, files: &[FileSpec], regions: &[Region]) -> Vec<String> {
    let sized = job.size.is_some() || job.filesize.is_some();
    if sized || job.tuning.file_append || crate::run::fio::errors::fills(job) {
        return Vec::new();
    }
    files
        .iter()
        .zip(regions)
        .filter(|(f, &(start, len))| len == 0 && start == f.size && start > 0)
        .map(|(f, _)| format!("fio: file {} may be ignored", f.path.display()))
        .collect()
}

/// A file's region `(start, len)` and the size it is laid out at: fill_device without a
/// size has the free space as its region (written until ENOSPC), nothing laid out in
/// advance; a region that starts at or past the file's end (a clone's offset past it)
/// is empty and lays out nothing, the file keeping its size (fio 3.33). A start so
/// large that the region's end passes 2^64 (`offset=150%`, which fio reads as 2^64 −
/// 151 bytes) is fio's too: its end wraps, the file is laid out to that wrapped end
/// when it is smaller, and the region, past the file, is empty.
fn laid_out(job: &FioJob, p: &Path, existing: Option<u64>, (start, len): Region) -> (u64, u64) {
    match crate::run::fio::errors::fill_region(job, p, existing, start) {
        Some(r) => r,
        None if len == 0 => (0, existing.unwrap_or(start)),
        None => match start.checked_add(len) {
            Some(end) => (len, end),
            None => (0, existing.unwrap_or(0).max(start.wrapping_add(len))),
        },
    }
}

/// `size=N%` over a file's region as fio 3.33 applies it (setup_files): N % of the file's
/// end (`start + len`), no more than the region, rounded down to the smallest block size.
fn size_percent(job: &FioJob, start: u64, len: u64) -> u64 {
    let Some(SizeSpec::Percent(pc)) = job.size else {
        return len;
    };
    if pc >= 100.0 {
        return len;
    }
    let end = start.saturating_add(len);
    let part = ((end as f64) * pc / 100.0) as u64;
    let min_bs = job.min_bs().max(1);
    let part = part.min(len);
    part - part % min_bs
}

/// The shares of `size=` (bytes) among a thread's files as fio 3.33 deals them
/// (setup_files): each file `size / nrfiles`, and the first files one smallest block
/// more each while the rest of the division holds whole blocks.
struct SizeShares {
    each: u64,
    extra: u64,
    min_bs: u64,
}

impl SizeShares {
    fn of(job: &FioJob, n: u64) -> Self {
        let min_bs = job.min_bs().max(1);
        let total = match job.size {
            Some(SizeSpec::Bytes(b)) => b,
            _ => 0,
        };
        let n = n.max(1);
        let each = total / n;
        let extra = (total - each * n) / min_bs;
        SizeShares {
            each,
            extra,
            min_bs,
        }
    }

    fn next(&mut self) -> u64 {
        if self.extra > 0 {
            self.extra -= 1;
            return self.each + self.min_bs;
        }
        self.each
    }
}

/// The sizes of a thread's files under `filesize=` as fio 3.33 gives them: a file whose
/// size is already in the range keeps it; otherwise a fixed size is LOW and a range draws
/// each file's size (in file order, only for the files that need one) from fio's
/// file-size generator of this thread (run/gen/frand.rs), a multiple of the smallest block
/// size.
struct RangeSizes {
    rng: Option<Frand>,
    min_bs: u64,
}

/// fio's generator of seed `slot` for thread `global` (among all threads, from 0) of
/// `job`: seeded from `randseed`, `randrepeat`, `allrandrepeat`, 64 bits with
/// `random_generator=tausworthe64` (run/gen/frand.rs).
pub(crate) fn fio_generator(job: &FioJob, global: u32, slot: u64) -> Frand {
    let use64 = taus64(job);
    Frand::new(fio_seed(job, global, slot), use64)
}

/// fio's seed of `slot` for thread `global` (among all threads, from 0) of `job`.
pub(crate) fn fio_seed(job: &FioJob, global: u32, slot: u64) -> u64 {
    seeding(job).slot(u64::from(global) + 1, slot)
}

/// fio's generator of the uniform random offsets of thread `global` of `job` (its
/// `random_state`, [`Seeding::block`]), 64 bits with `random_generator=tausworthe64`.
pub(crate) fn offset_generator(job: &FioJob, global: u32) -> Frand {
    let use64 = taus64(job);
    Frand::new(seeding(job).block(u64::from(global) + 1), use64)
}

/// Whether `job`'s fio generators are 64-bit (`random_generator=tausworthe64`).
fn taus64(job: &FioJob) -> bool {
    job.more.zones.random_generator == Some(RandGen::Tausworthe64)
}

fn seeding(job: &FioJob) -> Seeding {
    Seeding {
        randseed: job.randseed,
        randrepeat: job.more.randrepeat,
        allrandrepeat: job.tuning.allrandrepeat,
    }
}

impl RangeSizes {
    fn of(job: &FioJob, global: u32) -> Self {
        let rng = job
            .filesize
            .filter(|(a, b)| a != b)
            .map(|_| fio_generator(job, global, FILE_SIZE_SLOT));
        let min_bs = job.min_bs();
        RangeSizes { rng, min_bs }
    }

    /// The length of a file's region from `start` (fio 3.33's setup_files): to the end
    /// of a file whose size is already in the range, else to the end of the size the
    /// range gives; None when `start` lies beyond that size (fio: "you need to specify
    /// valid offset=").
    fn io_len(
        &mut self,
        (low, high): (u64, u64),
        existing: Option<u64>,
        start: u64,
    ) -> Option<u64> {
        if let Some(e) = existing.filter(|e| (low..=high).contains(e)) {
            return Some(e.saturating_sub(start));
        }
        if start > low {
            return None;
        }
        let size = match &mut self.rng {
            Some(g) => g.size_between(low, high, self.min_bs),
            None => low,
        };
        Some(size.saturating_sub(start))
    }
}

/// The size file `p` of `job` already has, one of `files`: what is on disk or laid out
/// by an earlier job — except under a diskless engine (null, cpuio, exec, net), whose
/// files fio 3.33 never looks up: their size is none (fio's `-1`), which becomes `size=`
/// over the number of files when `size=` is given in bytes (fio's get_file_sizes). So
/// `filesize=64k-128k size=128k` on null keeps 128 KiB, already in the range, where a
/// file engine draws a size from it.
fn existing_size(job: &FioJob, laid: &Laid, p: &Path, files: usize) -> Option<u64> {
    if !job.engine.caps().no_io {
        return laid.size(p);
    }
    match job.size {
        Some(SizeSpec::Bytes(b)) if b > 0 => Some(b / (files.max(1) as u64)),
        _ => None,
    }
}

/// fio 3.33's words for a start past the end of a file's region (setup_files: `NAME:
/// you need to specify valid offset=`), which the fio persona prints as fio's line.
pub(crate) const VALID_OFFSET: &str = "you need to specify valid offset=";

/// fio 3.33's refusal of a start past the end of a file's region ([`VALID_OFFSET`]).
fn bad_offset(job: &FioJob) -> RunError {
    RunError::Plan {
        job: job.name.clone(),
        why: VALID_OFFSET.into(),
    }
}

/// The bytes from `start` to the end of a file of `existing` bytes (0 for a file that
/// does not exist yet); None when `start` lies past an existing file's end.
fn to_end(existing: Option<u64>, start: u64) -> Option<u64> {
    match existing {
        Some(e) if start > e => None,
        e => Some(e.unwrap_or(0).saturating_sub(start)),
    }
}

/// `name` under `dir` (a relative name; an absolute one stays as it is).
fn under_dir(dir: Option<&Path>, name: &str) -> PathBuf {
    match dir {
        Some(d) if !Path::new(name).is_absolute() => d.join(name),
        _ => PathBuf::from(name),
    }
}

/// fio 3.33's `subjob_number` of clone `t` of `job` (0 the job itself): fio adds the
/// clones counting down (`add_job`: the first clone is `numjobs − 1`, the last 1), so
/// with `numjobs=4` the thread after the job's own names its files `j.3.*` while its
/// seeds are the second thread's. The clone's file names, `directory`, `offset_increment`,
/// `read_iolog` name and net port go by it.
pub(crate) fn subjob(job: &FioJob, t: u32) -> u32 {
    match t {
        0 => 0,
        t => job.numjobs.saturating_sub(t).max(1),
    }
}

/// The paths of thread `t`'s files: `filename=` (a `:` list), the `filename_format`
/// names (by its [`subjob`] number), a net job's socket, and `opendir`'s files; an
/// error when there are none.
pub(crate) fn paths_of(job: &FioJob, t: u32) -> Result<Vec<PathBuf>, RunError> {
    let t = subjob(job, t);
    let fmt = job
        .more
        .filename_format
        .clone()
        .unwrap_or_else(|| "$jobname.$jobnum.$filenum".into());
    // `$jobname`: a job file's section name, even under `name=` (fio 3.33)
    let jobname = match job.file_jobname.as_str() {
        "" => job.name.as_str(),
        s => s,
    };
    let generated = || -> Vec<PathBuf> {
        (0..job.nrfiles)
            .map(|i| under_dir(job.dir_of(t), &format_filename(&fmt, jobname, t, i)))
            .collect()
    };
    let mut paths: Vec<PathBuf> = match &job.filename {
        // opendir without filename: only the directory's files
        None if job.tuning.opendir.is_some() => Vec::new(),
        // a net job's one "file" is its socket, named as fio names it (no directory)
        _ if job.engine == crate::engine::registry::Kind::Net => {
            vec![PathBuf::from(job.more.net.file_name())]
        }
        // fio's list rules ('\:' is a ':' inside a name: job::fio::names), every name
        // under the first directory (fio's add_file for clone 0)
        Some(_) => job
            .filenames()
            .iter()
            .map(|n| under_dir(job.dir_of(0), n))
            .collect(),
        // generated names: under clone t's directory
        None => generated(),
    };
    // fio's count of the job's files (`nrfiles`, which each name raised): its first names
    if job.filename.is_some() && job.tuning.opendir.is_none() {
        paths.truncate(job.nrfiles as usize);
    }
    // `nrfiles=0`, without `filename=` or after it: fio's job has no file; with `size=`
    // it runs and moves nothing, without it its setup fails (run/fio/setup.rs)
    let no_file = job.filename.is_none() || job.nrfiles == 0;
    if paths.is_empty() && no_file && job.tuning.opendir.is_none() {
        return Ok(paths);
    }
    if let Some(d) = &job.tuning.opendir {
        // opendir: every regular file under the directory is one of the job's files
        let found = dataset::files_under(Path::new(d)).map_err(|e| RunError::Plan {
            job: job.name.clone(),
            why: format!("opendir={d}: {e}"),
        })?;
        paths.extend(found);
        // fio 3.33: an opendir that added no file leaves a job that sets `nrfiles` after
        // it its generated names (opendir set fio's count of files to 0: without a later
        // `nrfiles` fio's job has no file and moves nothing)
        let nrfiles = nrfiles_after(job, "opendir");
        if nrfiles && nrfiles_after(job, "filename") && !paths.is_empty() {
            paths.truncate(job.nrfiles as usize);
        }
        if paths.is_empty() && job.fio_persona && job.filename.is_none() && nrfiles {
            paths = generated();
        }
        // without it fio's job has no file: with `size=` it runs and moves nothing, without
        // it its setup fails (run/fio/setup.rs, `you need to specify size=`)
        if paths.is_empty() && job.fio_persona && job.filename.is_none() {
            return Ok(paths);
        }
    }
    if paths.is_empty() {
        return Err(RunError::Plan {
            job: job.name.clone(),
            why: match &job.tuning.opendir {
                Some(d) => format!("opendir={d} holds no file"),
                None => "filename= names no file".into(),
            },
        });
    }
    Ok(paths)
}

/// Whether the job's last `nrfiles=` comes after its last `key=` (`filename`,
/// `opendir`): the names `key` added count then as fio 3.33 counts them, `nrfiles=N`
/// being its count of the job's files, which its file loops go up to: the first N
/// files added are the job's, N at most the files added (init.c fixup_options), none
/// for `nrfiles=0`.
fn nrfiles_after(job: &FioJob, key: &str) -> bool {
    let at = |k: &str| job.options.iter().rposition(|(o, _)| o == k);
    at("nrfiles") > at(key)
}

/// Where thread `t`'s I/O starts in a file of `existing` bytes (fio 3.33's
/// get_start_offset): `offset=` (bytes, or a percentage of the file) plus the clone's
/// [`subjob`] number times `offset_increment` (bytes, or a percentage of the file), or the
/// file's end with `file_append`. A percentage in either aligns the sum up to
/// `offset_align`, or else to the smallest block size. The file's size is the one it has
/// before the thread's layout (0 for a file that does not exist yet, what an earlier
/// thread lays out for a later one).
fn start_of(job: &FioJob, t: u32, existing: Option<u64>) -> u64 {
    // file_append: the I/O starts at the file's end (fio: offset = its size)
    if job.tuning.file_append {
        return existing.unwrap_or(0);
    }
    let size = existing.unwrap_or(0);
    let (inc, pct_inc) = match job.more.offset_increment_pct {
        Some(pc) => (pc.saturating_mul(size) / 100, true),
        None => (job.more.offset_increment, false),
    };
    let inc = u64::from(subjob(job, t)).saturating_mul(inc);
    let (base, pct_base) = match job.more.offset {
        None => (0, false),
        Some(SizeSpec::Bytes(b)) => (b, false),
        Some(SizeSpec::Percent(pc)) => ((size as f64 * pc / 100.0) as u64, true),
    };
    let raw = base.saturating_add(inc);
    if !(pct_inc || pct_base) {
        return raw;
    }
    let a = match job.tuning.offset_align {
        0 => job.min_bs().max(1),
        a => a,
    };
    raw.div_ceil(a).saturating_mul(a)
}

/// Where each file's I/O starts in the loops after the first, for a sequential job
/// whose `offset=` or `offset_increment=` is a percentage: fio 3.33's `clear_io_state`
/// takes `get_start_offset` again, of the file's size then — its size once laid out —
/// while the region keeps its end (`rw=write size=256k offset=10% loops=3`, a new
/// file: blocks 0–63, then 7–63 twice, 178 writes; a 256 KiB file: 7–70, then 8–70
/// twice). Empty for any other job, or a replay (every loop starts where the first did).
fn loop_starts(
    job: &FioJob,
    t: u32,
    files: &[FileSpec],
    regions: &[Region],
    replay: bool,
) -> Vec<u64> {
    let pct = matches!(job.more.offset, Some(SizeSpec::Percent(_)))
        || job.more.offset_increment_pct.is_some();
    if !pct || replay || job.loops < 2 || job.tuning.file_append || job.rw.random() {
        return Vec::new();
    }
    files
        .iter()
        .zip(regions)
        .map(|(f, &(start, len))| start_of(job, t, Some(f.size)).clamp(start, start + len))
        .collect()
}

/// The smallest direction's unit: its `blockalign`, else its smallest size.
fn align_of(job: &FioJob) -> u64 {
    (job.bs_dirs().iter().zip(job.more.blockalign))
        .map(|(b, a)| a.unwrap_or(b.min()))
        .min()
        .unwrap_or(1)
        .max(1)
}

/// fio 3.33's bound on the bytes a job issues (backend.c `io_issue_bytes_exceeded`):
/// `io_size`, else `size`, times `loops`; `u64::MAX` when neither is in bytes.
fn issue_limit(job: &FioJob) -> u64 {
    let size = match (job.more.io_size, job.size.as_ref()) {
        (Some(b), _) => b,
        (None, Some(SizeSpec::Bytes(b))) => *b,
        _ => return u64::MAX,
    };
    size.saturating_mul(job.loops.max(1))
}

/// The log thread `t` of `job` replays (`read_iolog`).
/// Under the fio persona, the errno of thread `t`'s `read_iolog` that cannot be opened:
/// fio 3.33's thread fails setting its log up (`Plan::iolog_unopened`).
fn iolog_unopened(job: &FioJob, t: u32) -> Option<i32> {
    job.fio_persona
        .then(|| replay::unopened(&job.more.replay, subjob(job, t)))
        .flatten()
}

fn load_replay(job: &FioJob, t: u32) -> Result<replay::Replay, RunError> {
    replay::load(&job.more.replay, subjob(job, t)).map_err(|why| RunError::Plan {
        job: job.name.clone(),
        why,
    })
}

/// The files of thread `t`'s replayed log: those it adds (relative names under its
/// directory of `directory`, as fio's add_file), each at least as large as its furthest
/// I/O, its region the whole file.
fn replay_files(job: &FioJob, t: u32, r: &replay::Replay) -> (Vec<FileSpec>, Vec<Region>) {
    let mut out = Vec::with_capacity(r.files.len());
    let mut regions = Vec::with_capacity(r.files.len());
    for (name, &end) in r.files.iter().zip(&r.file_end) {
        // fio's iolog add_file: under clone t's directory
        let p = under_dir(job.dir_of(subjob(job, t)), name);
        let size = dataset::existing_size(&p).unwrap_or(0).max(end);
        out.push(FileSpec {
            path: p,
            size,
            named: true,
        });
        regions.push((0, size));
    }
    (out, regions)
}

/// A replaying job as its thread runs it: the direction and the largest read and write
/// sizes are the log's (fio's read_iolog sets td_ddir and raises max_bs); no byte limit, no
/// `time_based` (the job ends with the log, or at `runtime`), no `write_iolog` (fio
/// writes no log while it replays one).
fn replay_job(job: &FioJob, r: &replay::Replay) -> FioJob {
    let mut j = job.clone();
    j.rw = match (r.reads(), r.writes(), r.trims()) {
        (_, true, true) => RwMode::TrimWrite,
        (true, true, false) => RwMode::ReadWrite,
        (false, true, false) => RwMode::Write,
        (false, false, true) => RwMode::Trim,
        _ => RwMode::Read,
    };
    // trims move no data: their lengths size no buffer (fio's test t0038: 2 GiB trims
    // with 4 KiB writes at iodepth 128)
    let [rd, wr, _] = r.max_len;
    if rd > 0 {
        j.bs_read = BlockSizes::Fixed(rd);
    }
    if wr > 0 {
        j.bs_write = BlockSizes::Fixed(wr);
    }
    j.rw_suffix = 0;
    j.time_based = false;
    j.more.io_size = None;
    j.more.io_size_pct = None;
    j.more.write_iolog = None;
    j
}

/// fio 3.33's write-then-verify rounds of a time-based job (backend.c `do_io`): its I/O
/// loop breaks when the bytes issued reach `size` (`io_size` when larger, for random
/// writes without a random map; `size` more with `verify_backlog`), the thread verifies
/// the writes of that round, and the next round starts, until the runtime ends either.
/// fio counts the bytes issued only for requests an engine queues, so a job on a
/// synchronous engine (psync, mmap) never breaks: it writes until its runtime and, ended
/// by it, verifies nothing. 0 when the job has no such rounds.
fn verify_cycle_bytes(job: &FioJob, pass_bytes: u64) -> u64 {
    let m = &job.more;
    if !job.time_based || m.verify.is_none() || !m.do_verify || !job.rw.writes() {
        return 0;
    }
    if !job.engine.queues() {
        return 0;
    }
    let mut total = pass_bytes;
    if job.rw.random() && job.norandommap {
        total = total.max(m.io_size.unwrap_or(0));
    }
    if m.x.verify_backlog > 0 {
        total = total.saturating_add(pass_bytes);
    }
    total
}

/// fio 3.33's thread loop for a writer with `verify=` that is not time based (backend.c
/// `thread_main`, `keep_running`, `do_io`): a round writes one pass over the files at
/// most (`pass_bytes`; its I/O loop ends when the files are done or, on an engine that
/// queues, at `size` bytes issued), never past the job's byte limit (`io_size`, or
/// `size`, times `loops`, counted from the start), then reads back and checks the
/// round's writes. A new round starts while `loops` has rounds left and then while the
/// bytes moved, written and read back, are under `io_size` (`size` without it) by a
/// block or more; a round that would write nothing ends the job. So `size=256k
/// io_size=512k` writes 256 KiB and reads them back once, and `loops=2` verifies each
/// of its two passes. The number of rounds (each verified; the last one by the job's
/// end) and the bytes they write; None for a job this does not apply to: `rw=randrw`/`rw=rw`
/// (whose rounds depend on the mix drawn: [`MixRounds`]), `verify_backlog` (rounds of twice `size`),
/// `norandommap` random writes (a round is not a pass), `number_ios`, `ramp_time`,
/// trims and replayed logs keep the one verify at the end.
fn verify_rounds(job: &FioJob, pass_bytes: u64, byte_limit: u64) -> Option<(u64, u64)> {
    let m = &job.more;
    let plain = matches!(job.rw, RwMode::Write | RwMode::RandWrite)
        && !(job.rw.random() && job.norandommap);
    let verifies = m.verify.is_some() && m.do_verify && !job.tuning.verify_only;
    let other = job.time_based
        || m.x.verify_backlog > 0
        || job.number_ios > 0
        || !job.ramp_time.is_zero()
        || m.replay.file.is_some();
    if !plain || !verifies || other || pass_bytes == 0 || byte_limit == 0 {
        return None;
    }
    let limit = m.io_size.unwrap_or(pass_bytes);
    let max_bs = job.bs_write.max().max(1);
    let (mut rounds, mut issued, mut moved) = (0u64, 0u64, 0u64);
    loop {
        let more = rounds < job.loops || (moved < limit && limit - moved >= max_bs);
        let round = pass_bytes.min(byte_limit - issued);
        if !more || round == 0 {
            break;
        }
        rounds += 1;
        issued += round;
        // the round's writes and their read-back
        moved += 2 * round;
    }
    Some((rounds, issued))
}

/// fio 3.33's thread loop for a mixed job (`rw=rw`, `randrw`) with `verify=` that is
/// not time based (backend.c `thread_main`, `keep_running`, `do_io`): a round reads and
/// writes as the mix draws, one pass over the files at most (never past `io_size`, or
/// `size`, times `loops` issued in all), then reads back and checks the round's writes
/// (only those: fio checks no read of the mix). Another round starts while `loops` has
/// rounds left, then while the bytes moved — the mix's reads and writes and the
/// read-back — are under `io_size` (`size` without it) by the largest block or more.
/// A round's share of writes is the mix's draw, so the worker decides at each round's
/// end. So `size=4m io_size=7m` moves 4 MiB, reads back what it wrote (under 3 MiB
/// with `rwmixread=50`), then moves the 3 MiB left and reads those writes back: its
/// reads, the mix's and the read-back's, are `io_size` whatever the mix drew.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MixRounds {
    /// `io_size`, or the pass's bytes without it
    pub limit: u64,
    /// `loops`
    pub loops: u64,
    /// the largest block, read or write
    pub max_bs: u64,
    /// a round ends where one direction reaches the end of the file, not at a pass's
    /// bytes: a sequential mix (`rw=rw`) of one file on a synchronous engine, where
    /// fio 3.33 counts no bytes issued for requests that complete at once (`do_io`'s
    /// `bytes_issued`), so its round goes on until a direction drawn finds no block
    /// left (its `last_pos`), or until `io_size` × `loops` issued in all
    pub at_eof: bool,
}

impl MixRounds {
    /// Another round after `done` rounds, which moved `moved` bytes in all.
    pub fn more(&self, done: u64, moved: u64) -> bool {
        done < self.loops || (moved < self.limit && self.limit - moved >= self.max_bs)
    }
}

/// The rounds of a mixed job with `verify=` ([`MixRounds`]); None for other jobs, and
/// for those the one verify at the end keeps: `norandommap`, `number_ios`,
/// `ramp_time`, replayed logs, a time-based job (its rounds are `verify_cycle`'s).
fn mix_rounds(job: &FioJob, pass_bytes: u64, byte_limit: u64) -> Option<MixRounds> {
    let m = &job.more;
    let mixed = matches!(job.rw, RwMode::ReadWrite | RwMode::RandRw)
        && !(job.rw.random() && job.norandommap);
    let verifies = m.verify.is_some() && m.do_verify && !job.tuning.verify_only;
    let other =
        job.time_based || job.number_ios > 0 || !job.ramp_time.is_zero() || m.replay.file.is_some();
    if !mixed || !verifies || other || pass_bytes == 0 || byte_limit == 0 {
        return None;
    }
    Some(MixRounds {
        limit: m.io_size.unwrap_or(pass_bytes),
        loops: job.loops,
        max_bs: job.max_bs().max(1),
        at_eof: job.rw == RwMode::ReadWrite
            && !job.engine.queues()
            && job.nrfiles <= 1
            && job.rw_suffix == 0,
    })
}

/// `verify_only=1`: the job's writes are not done; the blocks they would have written
/// (the same seed, so the same offsets) are read and their verify headers checked — a
/// write job run as the read of the same pattern (fio's dry run, then its verify phase).
fn verify_only_job(job: &FioJob) -> Result<Option<FioJob>, RunError> {
    if !job.tuning.verify_only || !job.rw.writes() {
        return Ok(None);
    }
    let rw = match job.rw {
        RwMode::Write => RwMode::Read,
        RwMode::RandWrite => RwMode::RandRead,
        other => {
            return Err(RunError::Plan {
                job: job.name.clone(),
                why: format!(
                "verify_only with rw={}: iomark verifies a write or randwrite job's blocks only",
                other.fio_name()
            ),
            })
        }
    };
    let mut j = job.clone();
    j.rw = rw;
    j.more.do_verify = false;
    Ok(Some(j))
}

/// A sequential job of reads and writes (`rw`): each direction walks the files from
/// its own position, so neither reaches a file's end before the job's size is issued —
/// fio 3.33 ends its pass by the bytes issued, at the job's `size` whole blocks or not
/// (`rw=rw bs=3k size=1m` is 342 requests, `read` 341).
fn sequential_mix(job: &FioJob) -> bool {
    job.rw.reads() && job.rw.writes() && !job.rw.random()
}

/// The bytes a job issues at most (0: no limit, time based or a replay): `io_size`, or
/// a pass's bytes, × `loops`. A sequential walk with holes wraps at the files' end
/// instead of ending there: its pass is the regions' bytes as given, whole blocks or
/// not, a last request passing it as in fio (`read:12k bs=8k size=100k`: 13 requests).
fn byte_limit_of(job: &FioJob, regions: &[Region], pass_bytes: u64, replay: bool) -> u64 {
    if job.time_based || replay {
        return 0;
    }
    let holed = job.rw_suffix > 0 && !job.rw.random();
    let pass = if holed {
        size_cap(job, regions.iter().map(|r| r.1).sum())
    } else {
        pass_bytes
    };
    job.more.io_size.unwrap_or(pass).saturating_mul(job.loops)
}

/// The plan of thread `t` of `job` (`global_index` among all threads), its files sized
/// as they are once the earlier jobs are laid out (`laid`).
pub(crate) fn plan(job: &FioJob, t: u32, global_index: u64, laid: &Laid) -> Result<Plan, RunError> {
    // the fio persona: a `read_iolog` the thread cannot open fails the thread
    if let Some(errno) = job.more.replay.file.as_ref().and(iolog_unopened(job, t)) {
        return Ok(Plan {
            iolog_unopened: Some(errno),
            ..stand_in(job, t, global_index)
        });
    }
    planned(job, t, global_index, laid)
}

/// [`plan`] of a thread that runs.
fn planned(job: &FioJob, t: u32, global_index: u64, laid: &Laid) -> Result<Plan, RunError> {
    let verify_only = verify_only_job(job)?;
    let job = verify_only.as_ref().unwrap_or(job);
    let replay = match job.more.replay.file {
        Some(_) => Some(std::sync::Arc::new(load_replay(job, t)?)),
        None => None,
    };
    let replayed;
    let (job, (files, regions)) = match &replay {
        Some(r) => {
            replayed = replay_job(job, r);
            (&replayed, replay_files(job, t, r))
        }
        None => (job, files_for(job, t, global_index as u32, laid)?),
    };
    let job = &resolve_io_size(job, &regions);
    let align = align_of(job);
    check_regions(job, &files, &regions)?;
    // a pass moves each region's whole blocks only (fio: a file is done when the next
    // block no longer fits; bs=3k over 1 MiB is 341 requests, not 342)
    // (a replay makes no passes: its I/Os are the log's)
    // (`size=` in bytes below the regions' sum, as with a larger `filesize=`, ends the
    // pass there: fio's size is the smaller of the two)
    let pass_bytes: u64 = match replay {
        Some(_) => 0,
        None if endless_random(job) || sequential_mix(job) => {
            size_cap(job, regions.iter().map(|r| r.1).sum())
        }
        None => size_cap(job, regions.iter().map(|r| r.1 / align * align).sum()),
    };
    // (fill_device: the region is the free space, so the job ends at ENOSPC, or at the
    // latest once it has written all of it)
    let byte_limit = byte_limit_of(job, &regions, pass_bytes, replay.is_some());
    let seed = thread_seed(job, global_index);
    // a writer's rounds of writes and read-backs: the bytes they write are the limit
    let mix_rounds = mix_rounds(job, pass_bytes, byte_limit);
    let (byte_limit, verify_cycle, verify_rounds) = match verify_rounds(job, pass_bytes, byte_limit)
    {
        Some((n, bytes)) if n > 1 => (bytes, pass_bytes, n),
        Some((_, bytes)) => (bytes, 0, 0),
        // a round at a pass's bytes, or until a direction reaches the file's end
        None => match mix_rounds {
            Some(m) if m.at_eof => (byte_limit, u64::MAX, 0),
            Some(_) => (byte_limit, pass_bytes, 0),
            None => (byte_limit, verify_cycle_bytes(job, pass_bytes), 0),
        },
    };
    let model = job.model();
    let loop_starts = loop_starts(job, t, &files, &regions, replay.is_some());
    Ok(Plan {
        job: job.clone(),
        thread_job: model.thread,
        work: model.work,
        files,
        regions,
        loop_starts,
        issue_limit: issue_limit(job),
        append: job.tuning.file_append,
        align,
        byte_limit,
        pass_bytes,
        endless: endless_random(job),
        verify_cycle,
        verify_rounds,
        mix_rounds,
        seed,
        thread: t,
        global: u32::try_from(global_index).unwrap_or(u32::MAX),
        flows: None,
        zones: Vec::new(),
        replay,
        vstate_save: None,
        vstate: None,
        fio_errors: false,
        say_hooks: false,
        iosched_miss: None,
        iolog_unopened: None,
    })
}

/// The checks of a thread's files against its job before it runs: a trim job names no
/// character device, and some I/O region holds the smallest block. (A region smaller
/// than a larger block runs, as fio's: a request that does not fit before the region's
/// end ends the file, so `bs=4k,1m size=64k rw=randrw` reads until its first write; a
/// file whose region holds no block at all — `opendir`'s file smaller than `bs` — is
/// opened and closed without I/O while the others run, as fio 3.33 does. A job none of
/// whose regions holds a block is refused where fio runs it without I/O:
/// docs/compat/fio.md.)
fn check_regions(job: &FioJob, files: &[FileSpec], regions: &[Region]) -> Result<(), RunError> {
    let min_bs = job.min_bs();
    // (an engine that touches nothing, null, trims nothing either)
    if job.rw.trims() && !job.engine.caps().no_io {
        if let Some(f) = files.iter().find(|f| dataset::is_char_device(&f.path)) {
            // trims punch holes (fallocate) in files and discard on block devices;
            // a character device takes neither
            return Err(RunError::Plan {
                job: job.name.clone(),
                why: format!(
                    "{} is a character device: trim is supported on files and block devices only",
                    f.path.display()
                ),
            });
        }
    }
    // every region empty (each starts at or past its file's end): fio 3.33 runs the
    // thread without I/O (`no_region`)
    if no_region(regions) {
        return Ok(());
    }
    if regions.iter().any(|r| r.1 >= min_bs) {
        return Ok(());
    }
    if let Some((f, r)) = files.iter().zip(regions).find(|(_, r)| r.1 < min_bs) {
        return Err(RunError::Plan {
            job: job.name.clone(),
            why: format!(
                "file {} has an I/O region of {} bytes, less than the smallest block size {} bytes",
                f.path.display(),
                r.1,
                min_bs
            ),
        });
    }
    Ok(())
}

/// Whether a thread's files all have empty I/O regions (a clone whose `offset` plus
/// `offset_increment` lies at or past each file's end): fio 3.33 runs it, with no I/O,
/// and reports it with zeros.
pub(crate) fn no_region(regions: &[Region]) -> bool {
    !regions.is_empty() && regions.iter().all(|r| r.1 == 0)
}

/// The seed of thread `global_index` (among all threads of all jobs, from 0).
fn thread_seed(job: &FioJob, global_index: u64) -> u64 {
    // one seed drives every generator of a thread (offsets, sizes, mixes, buffers):
    // `randrepeat` (default 1) repeats them all, as fio's `allrandrepeat=1` does, and
    // `allrandrepeat=1` makes them repeat even with `randrepeat=0`
    let repeat = job.more.randrepeat || job.tuning.allrandrepeat;
    let base_seed = match (job.randseed, repeat) {
        (Some(s), _) => s,
        (None, true) => 0x8960_9f0a,
        (None, false) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64),
    };
    base_seed.wrapping_add(global_index.wrapping_mul(0x1_0000_0001))
}

#[cfg(test)]
mod tests {
    use super::MixRounds;

    const M: u64 = 1 << 20;

    /// fio 3.33's keywords of `filename_format` (`$clientuid` empty outside its
    /// client/server mode: fio lays out `f.` for `f.$clientuid`).
    #[test]
    fn filename_format_keywords_are_fios() {
        let f = super::format_filename("$jobname.$jobnum.$filenum.$clientuid", "j", 2, 3);
        assert_eq!(f, "j.2.3.");
    }

    /// The bytes a mixed job of a 4 MiB pass issues (its reads and writes; each write
    /// is read back in its round) under fio 3.33's loop, when `written` of every 4 MiB
    /// it issues are writes: `limit` is `io_size` (the pass without it).
    fn issued(limit: u64, loops: u64, written: u64) -> u64 {
        let pass = 4 * M;
        let rules = MixRounds {
            limit,
            loops,
            max_bs: 4096,
            at_eof: false,
        };
        let all = limit * loops;
        let (mut done, mut issued, mut moved) = (0, 0, 0);
        loop {
            let round = pass.min(all - issued);
            if round == 0 {
                break;
            }
            done += 1;
            issued += round;
            moved += round + round * written / pass;
            if !rules.more(done, moved) {
                break;
            }
        }
        issued
    }

    /// fio 3.33, `rw=randrw size=4m bs=4k verify=crc32c` (528 of 1024 blocks written per
    /// pass): `read.io_bytes` is what the rule issues, each write read back once.
    #[test]
    fn mixed_rounds_as_fio_counts_them() {
        let w = 528 * 4096;
        assert_eq!(issued(4 * M, 1, w), 4 * M, "no io_size: one pass");
        assert_eq!(issued(2 * M, 1, w), 2 * M, "io_size=2m");
        assert_eq!(issued(6 * M, 1, w), 4 * M, "io_size=6m: 4m + 2.06m moved");
        assert_eq!(
            issued(7 * M, 1, w),
            7 * M,
            "io_size=7m: a second round of 3m"
        );
        assert_eq!(issued(4 * M, 3, w), 12 * M, "loops=3");
        assert_eq!(
            issued(16 * M, 2, w),
            12 * M,
            "io_size=16m loops=2: 3 rounds"
        );
    }
}
