//! The truth layer: from the facts a result records — its page-cache check (memory-backed
//! target, holes read, RAM fit, device counters), its jobs' fsync policy and direct I/O —
//! the warnings that say whether the numbers measured the device. [`add`] is called by
//! the builder (result/build/mod.rs) for every result, so `fileio`, `run` and `mark` get
//! the same warnings with the same stable ids (listed in docs/result-schema.md); text
//! reporters print them as `iomark: WARNING [id]: message` ([`text_lines`]).

use super::{RunResult, Warning};
use crate::probe::pagecache::PageCacheCheck;
use crate::util::text::iec;

/// A memory filesystem holds the files (tmpfs, ramfs).
pub const MEMORY_FS: &str = "target.memory_fs";
/// A block device in RAM holds the files (zram, brd, a loop device over tmpfs).
pub const MEMORY_DEVICE: &str = "target.memory_device";
/// A buffered file set no larger than RAM.
pub const FITS_IN_RAM: &str = "page_cache.fits_in_ram";
/// The device counters show most read bytes never came from the device.
pub const READS_FROM_MEMORY: &str = "page_cache.reads_from_memory";
/// Buffered writes without any sync that the device did not write during the run.
pub const WRITES_IN_MEMORY: &str = "page_cache.writes_in_memory";
/// Files read had holes or unwritten extents (sparse, fallocated).
pub const UNWRITTEN: &str = "data.unwritten";

/// Reads served from memory at or above this share (%) are called out.
pub const READS_FROM_MEMORY_PCT: f64 = 50.0;

/// What a test did with the page cache, for the fits-in-RAM finding's words.
#[derive(Clone, Copy, Debug)]
pub struct CacheUse {
    /// the test reads
    pub reads: bool,
    /// the test writes buffered and never syncs
    pub unsynced_writes: bool,
    /// how to bypass the cache in the command's own dialect (`direct=1`, `--file-extra-flags=direct`)
    pub hint: &'static str,
}

/// The bypass hint of a command: fio's `direct=1` for `run`, sysbench's flag otherwise.
pub fn direct_hint(command: &str) -> &'static str {
    if command == "run" {
        "direct=1"
    } else {
        "--file-extra-flags=direct"
    }
}

/// The fits-in-RAM finding as plain text (JSON warning message), naming what the cache
/// can serve: reads, unsynced writes or both; `None` when neither (a write test that
/// syncs: its numbers include the device).
pub fn fits_in_ram_text(file_set: u64, mem_total: u64, u: CacheUse) -> Option<String> {
    let what = match (u.reads, u.unsynced_writes) {
        (true, false) => "reads may be served by the page cache, not the device",
        (false, true) => "buffered writes may end in the page cache, not on the device",
        (true, true) => "reads may be served by the page cache and buffered writes may end there, not on the device",
        (false, false) => return None,
    };
    Some(format!(
        "the buffered file set ({}) fits in RAM ({}): {what}; use {} or a file set larger than RAM",
        iec(file_set),
        iec(mem_total),
        u.hint
    ))
}

/// Whether the result's writing jobs sync (fsync/fdatasync at some point, O_SYNC/O_DSYNC).
fn synced(r: &RunResult, pc: &PageCacheCheck) -> bool {
    if let Some(s) = pc.synced {
        return s;
    }
    let writers: Vec<_> = r.jobs.iter().filter(|j| j.write.ios > 0).collect();
    if writers.is_empty() {
        let j = &r.job;
        return j.fsync_freq > 0 || j.fsync_end || j.fsync_all || j.sync || j.dsync;
    }
    writers.iter().all(|j| {
        let (e, f) = (&j.job, &j.job.fsync);
        e.sync || e.dsync || f.every_writes > 0 || f.after_each_write || f.at_end || f.on_close
    })
}

/// The id of the above-ceiling warning: a bandwidth above the path's
/// raw ceiling × 1.05 cannot have come from the device.
pub const ABOVE_CEILING: &str = "RESULT_EXCEEDS_CEILING";

/// `RESULT_EXCEEDS_CEILING: …` when the larger of the read and write bandwidth (MB/s,
/// decimal) is above `raw_ceiling_mb_s` × 1.05 (`set_by` names the link that sets it).
pub fn exceeds_ceiling(
    read_mb_s: f64,
    write_mb_s: f64,
    raw_ceiling_mb_s: Option<f64>,
    set_by: &str,
) -> Option<String> {
    let c = raw_ceiling_mb_s?;
    let (what, v) = if read_mb_s >= write_mb_s {
        ("read", read_mb_s)
    } else {
        ("write", write_mb_s)
    };
    (v > c * 1.05).then(|| {
        format!("{ABOVE_CEILING}: {what} bandwidth {v:.1} MB/s is above the path's ceiling of {c:.1} MB/s ({set_by}): the page cache, not the device, served it")
    })
}

/// The above-ceiling warning of a whole result: its aggregate read and write bandwidth
/// against the ceiling of its (last) target's diagnosis. `run` adds it (cli/run.rs);
/// `fileio` and `mark` check their own figures with [`exceeds_ceiling`].
pub fn above_ceiling(r: &RunResult) -> Option<Warning> {
    let c = r.targets.last()?.ceiling.as_ref()?;
    let m = exceeds_ceiling(
        r.read.bw_mb_per_s,
        r.write.bw_mb_per_s,
        Some(c.raw_mb_s),
        &c.set_by,
    )?;
    Some(Warning {
        id: ABOVE_CEILING.into(),
        message: m,
    })
}

/// The fsync policy of one job in words: `no fsync`, `fsync every 100 writes`,
/// `fdatasync every write`, `fsync at end`, `O_SYNC` … (joined with `+`).
fn policy_words(e: &crate::result::job::EffectiveJob) -> String {
    let f = &e.fsync;
    let call = if f.fdatasync { "fdatasync" } else { "fsync" };
    let mut v: Vec<String> = vec![];
    if e.sync {
        v.push("O_SYNC".into());
    }
    if e.dsync {
        v.push("O_DSYNC".into());
    }
    if f.after_each_write || f.every_writes == 1 {
        v.push(format!("{call} every write"));
    } else if f.every_writes > 1 {
        v.push(format!("{call} every {} writes", f.every_writes));
    }
    if f.at_end {
        v.push(format!("{call} at end"));
    }
    if f.on_close {
        v.push(format!("{call} on close"));
    }
    if v.is_empty() {
        "no fsync".into()
    } else {
        v.join(" + ")
    }
}

/// The fsync policy of `r`'s writing jobs in words (every job when none wrote), the
/// distinct policies joined with ` / `; `None` for a result without jobs (old files,
/// imported fio reports). `compare` calls out columns whose policies differ.
pub fn fsync_policy(r: &RunResult) -> Option<String> {
    let writers: Vec<_> = r.jobs.iter().filter(|j| j.write.ios > 0).collect();
    let jobs: Vec<_> = if writers.is_empty() {
        r.jobs.iter().collect()
    } else {
        writers
    };
    let mut v: Vec<String> = vec![];
    for j in jobs {
        let w = policy_words(&j.job);
        if !v.contains(&w) {
            v.push(w);
        }
    }
    (!v.is_empty()).then(|| v.join(" / "))
}

/// Where `r`'s files kept their data when that was memory: `tmpfs`, `ramfs` (a memory
/// filesystem) or `zram0`, `loop3 over tmpfs` (a block device in RAM); `None` on a
/// storage device or when not checked.
pub fn memory_target(r: &RunResult) -> Option<String> {
    let pc = r.page_cache.as_ref()?;
    pc.memory_fs.clone().or_else(|| pc.memory_device.clone())
}

/// The marker of a run whose figures came from memory ([`from_memory`]): `iomark
/// history`'s list and `compare`'s columns carry it.
pub const MEMORY_MARK: &str = "[memory]";

/// The legend line under a list or a comparison that carries [`MEMORY_MARK`].
pub const MEMORY_LEGEND: &str = "[memory]: the figures came from memory (files in RAM, the page cache, or above the path's ceiling), not from the drive: do not compare them as drive speed";

/// Why `r`'s figures came from memory rather than a storage device, in a few words
/// (`files in tmpfs`, `reads from the page cache`, `writes left in the page cache`,
/// `above the path's ceiling`), from its memory target and its warnings; `None` when
/// nothing says so. `iomark history`'s list marks such runs so they are not compared as
/// drive speed.
pub fn from_memory(r: &RunResult) -> Option<String> {
    if let Some(m) = memory_target(r) {
        return Some(format!("files in {m}"));
    }
    let has = |id: &str| r.warnings.iter().any(|w| w.id == id);
    [
        (READS_FROM_MEMORY, "reads from the page cache"),
        (WRITES_IN_MEMORY, "writes left in the page cache"),
        (ABOVE_CEILING, "above the path's ceiling"),
    ]
    .into_iter()
    .find(|(id, _)| has(id))
    .map(|(_, why)| why.to_string())
}

/// Whether the device counters show the device read at least what the test read (so
/// the cache served none of it; the counters are device-wide, so a lower bound of
/// what came from memory is 0 %).
fn reads_measured(pc: &PageCacheCheck) -> bool {
    pc.app_read_bytes > 0 && pc.device_read_bytes.is_some_and(|d| d >= pc.app_read_bytes)
}

/// The truth warnings of `r` (empty without a page-cache check).
pub fn warnings(r: &RunResult) -> Vec<Warning> {
    let Some(pc) = &r.page_cache else {
        return vec![];
    };
    let w = |id: &str, message: String| Warning {
        id: id.into(),
        message,
    };
    let mut v = vec![];
    if let Some(fs) = &pc.memory_fs {
        v.push(w(MEMORY_FS, format!("the file set is on {fs} (memory)")));
    }
    if let Some(dev) = &pc.memory_device {
        v.push(w(MEMORY_DEVICE, format!("the files are on {dev}, a block device that keeps its data in RAM: these numbers measure memory, not a storage device")));
    }
    let used = CacheUse {
        // no bytes recorded either way (a check made before any I/O): the reads
        // wording, as for a read test; reads the device counters show reached the
        // device are not said to be served by the cache
        reads: (pc.app_read_bytes > 0 || pc.app_written_bytes == 0) && !reads_measured(pc),
        unsynced_writes: pc.app_written_bytes > 0 && !synced(r, pc),
        hint: direct_hint(&r.command),
    };
    if let Some(m) = pc
        .fits_in_ram
        .then(|| fits_in_ram_text(pc.file_set_bytes, pc.mem_total_bytes.unwrap_or(0), used))
        .flatten()
    {
        v.push(w(FITS_IN_RAM, m));
    }
    if let Some(u) = pc.unwritten_bytes.filter(|&u| u > 0) {
        v.push(w(UNWRITTEN, format!("{} of the files read ({} in all) were holes or unwritten extents (a sparse or fallocated file): reads there return zeros without reading the device; write the files first", iec(u), iec(pc.file_set_bytes))));
    }
    let in_ram = pc.memory_fs.is_some() || pc.memory_device.is_some();
    if let (false, true, Some(pct), Some(dr)) = (
        in_ram,
        pc.buffered,
        pc.read_served_from_memory_pct,
        pc.device_read_bytes,
    ) {
        if pct >= READS_FROM_MEMORY_PCT && pc.app_read_bytes > dr {
            v.push(w(READS_FROM_MEMORY, format!("the test read {}, the device {}: at least {pct:.1}% of the reads came from the page cache, not the device", iec(pc.app_read_bytes), iec(dr))));
        }
    }
    let unsynced = pc.buffered && pc.app_written_bytes > 0 && !synced(r, pc);
    if unsynced
        && !in_ram
        && pc
            .device_written_bytes
            .is_none_or(|d| d.saturating_mul(2) < pc.app_written_bytes)
    {
        let dev = pc
            .device_written_bytes
            .map_or("no device counters".into(), |d| {
                format!("the device wrote {}", iec(d))
            });
        v.push(w(WRITES_IN_MEMORY, format!("the test wrote {} buffered and never synced, {dev} during the run: the writes ended in the page cache, this measured memory; add fsync (--file-fsync-freq, fsync=, end_fsync=1) or O_DIRECT", iec(pc.app_written_bytes))));
    }
    v
}

/// Add the truth warnings to `r`, after the command's own, each id once.
pub fn add(r: &mut RunResult) {
    let flush = super::flush::flush_bound(r);
    let cache = super::flush::write_cache_acked(r);
    for w in warnings(r).into_iter().chain(flush).chain(cache) {
        if !r.warnings.iter().any(|x| x.id == w.id) {
            r.warnings.push(w);
        }
    }
}

/// The text line of each truth warning of `r` and of each finding over time
/// (result/timeline.rs), for the text reports.
pub fn text_lines(r: &RunResult) -> Vec<String> {
    let ids = [
        MEMORY_FS,
        MEMORY_DEVICE,
        FITS_IN_RAM,
        READS_FROM_MEMORY,
        WRITES_IN_MEMORY,
        UNWRITTEN,
        super::flush::FLUSH_BOUND,
        super::flush::WRITEOUT_BOUND,
        super::flush::FLUSH_STOPPED,
        super::flush::WRITE_CACHE_ACKED,
    ];
    r.warnings
        .iter()
        .filter(|w| ids.contains(&w.id.as_str()) || super::timeline::IDS.contains(&w.id.as_str()))
        .map(|w| format!("iomark: WARNING [{}]: {}", w.id, w.message))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::build::{build, Inputs};
    use crate::result::Status;

    /// A built result with page-cache check `pc` and the job `fsync_freq`.
    fn result(pc: PageCacheCheck, fsync_freq: u32) -> RunResult {
        let mut i = Inputs::new("fileio", &[], Status::Ok);
        i.summary.fsync_freq = fsync_freq;
        i.page_cache = Some(pc);
        build(i)
    }

    fn ids(r: &RunResult) -> Vec<&str> {
        r.warnings.iter().map(|w| w.id.as_str()).collect()
    }

    /// The fits-in-RAM words name what the cache can serve, and the bypass in the
    /// command's own dialect; a write test that syncs gets none.
    #[test]
    fn fits_in_ram_names_reads_or_unsynced_writes_and_the_dialects_hint() {
        let u = |reads, unsynced_writes, cmd| CacheUse {
            reads,
            unsynced_writes,
            hint: direct_hint(cmd),
        };
        let t = |c| fits_in_ram_text(64 << 20, 1 << 30, c);
        assert_eq!(
            t(u(true, false, "fileio")).unwrap(),
            "the buffered file set (64.0 MiB) fits in RAM (1.0 GiB): reads may be served by the page cache, not the device; use --file-extra-flags=direct or a file set larger than RAM"
        );
        let w = t(u(false, true, "fileio")).unwrap();
        assert!(
            w.contains(": buffered writes may end in the page cache, not on the device;"),
            "{w}"
        );
        assert!(
            !w.contains("reads"),
            "a write test is not told about reads: {w}"
        );
        let both = t(u(true, true, "run")).unwrap();
        assert!(
            both.contains(
                "reads may be served by the page cache and buffered writes may end there"
            ),
            "{both}"
        );
        assert!(
            both.contains("; use direct=1 or a file set larger than RAM"),
            "run's hint is fio's: {both}"
        );
        assert_eq!(
            t(u(false, false, "fileio")),
            None,
            "synced writes reach the device"
        );
    }

    /// In a built result the words follow the bytes the test read and wrote.
    #[test]
    fn fits_in_ram_warning_of_a_write_test_speaks_of_writes() {
        let pc = |read: u64, written: u64| PageCacheCheck {
            buffered: true,
            fits_in_ram: true,
            file_set_bytes: 64 << 20,
            mem_total_bytes: Some(1 << 30),
            app_read_bytes: read,
            app_written_bytes: written,
            ..Default::default()
        };
        let msg = |r: &RunResult| {
            r.warnings
                .iter()
                .find(|w| w.id == FITS_IN_RAM)
                .map(|w| w.message.clone())
        };
        let rd = result(pc(1 << 20, 0), 0);
        assert!(
            msg(&rd).unwrap().contains("reads may be served"),
            "{:?}",
            msg(&rd)
        );
        let wr = result(pc(0, 1 << 20), 0);
        let m = msg(&wr).unwrap();
        assert!(
            m.contains("buffered writes may end in the page cache") && !m.contains("reads"),
            "{m}"
        );
        let synced = result(pc(0, 1 << 20), 100);
        assert_eq!(
            msg(&synced),
            None,
            "fsync every 100 writes: the writes reached the device"
        );
    }

    /// The fsync policy in words, per writing job, each once (compare calls it out).
    #[test]
    fn fsync_policy_names_each_writing_jobs_policy_once() {
        use crate::result::job::{EffectiveJob, FsyncPolicy, JobResult};
        let job = |fsync: FsyncPolicy, sync: bool, writes: u64| {
            let mut j = JobResult {
                job: EffectiveJob {
                    fsync,
                    sync,
                    ..Default::default()
                },
                ..Default::default()
            };
            j.write.ios = writes;
            j
        };
        let mut r = build(Inputs::new("run", &[], Status::Ok));
        r.jobs.clear();
        assert_eq!(fsync_policy(&r), None);
        r.jobs = vec![job(FsyncPolicy::default(), false, 5)];
        assert_eq!(fsync_policy(&r).as_deref(), Some("no fsync"));
        let every = |n| FsyncPolicy {
            every_writes: n,
            ..Default::default()
        };
        r.jobs = vec![job(every(1), false, 5), job(every(1), false, 5)];
        assert_eq!(fsync_policy(&r).as_deref(), Some("fsync every write"));
        let dend = FsyncPolicy {
            every_writes: 100,
            fdatasync: true,
            at_end: true,
            ..Default::default()
        };
        r.jobs = vec![job(dend, false, 5), job(FsyncPolicy::default(), true, 5)];
        assert_eq!(
            fsync_policy(&r).as_deref(),
            Some("fdatasync every 100 writes + fdatasync at end / O_SYNC")
        );
        // a reader beside a writer: the writer's policy only
        r.jobs = vec![
            job(FsyncPolicy::default(), false, 0),
            job(every(8), false, 5),
        ];
        assert_eq!(fsync_policy(&r).as_deref(), Some("fsync every 8 writes"));
    }

    #[test]
    fn each_fact_gives_its_id_once_and_only_when_it_holds() {
        let base = PageCacheCheck {
            file_set_bytes: 1 << 30,
            buffered: true,
            device_read_bytes: Some(0),
            device_written_bytes: Some(0),
            ..Default::default()
        };
        // nothing read or written, on a device: nothing to say
        assert!(ids(&result(base.clone(), 0)).is_empty());
        // 100 MiB read, 10 MiB from the device: 90 % from memory
        let mut pc = PageCacheCheck {
            app_read_bytes: 100 << 20,
            device_read_bytes: Some(10 << 20),
            ..base.clone()
        };
        crate::probe::pagecache::account(&mut pc, 100 << 20, 0);
        assert_eq!(ids(&result(pc.clone(), 0)), [READS_FROM_MEMORY]);
        // 60 % from the device: below the threshold
        pc.device_read_bytes = Some(60 << 20);
        crate::probe::pagecache::account(&mut pc, 100 << 20, 0);
        assert!(ids(&result(pc, 0)).is_empty());
        // writes never synced and not on the device; with fsync_freq they are synced
        let w = PageCacheCheck {
            app_written_bytes: 8 << 20,
            ..base.clone()
        };
        assert_eq!(ids(&result(w.clone(), 0)), [WRITES_IN_MEMORY]);
        assert!(ids(&result(w.clone(), 100)).is_empty());
        // the device wrote most of them: said nothing
        let w2 = PageCacheCheck {
            device_written_bytes: Some(6 << 20),
            ..w
        };
        assert!(ids(&result(w2, 0)).is_empty());
        // memory targets, holes, RAM fit
        let m = PageCacheCheck {
            memory_device: Some("zram1".into()),
            unwritten_bytes: Some(4096),
            fits_in_ram: true,
            ..base
        };
        assert_eq!(ids(&result(m, 0)), [MEMORY_DEVICE, FITS_IN_RAM, UNWRITTEN]);
    }

    /// A buffered set that fits in RAM: its reads are said to be the cache's only while
    /// the device counters do not show the device read them all; writes never synced
    /// are still said.
    #[test]
    fn fits_in_ram_does_not_claim_reads_the_device_served() {
        let mut pc = PageCacheCheck {
            file_set_bytes: 16 << 20,
            buffered: true,
            fits_in_ram: true,
            mem_total_bytes: Some(1 << 30),
            device_read_bytes: Some(16 << 20),
            device_written_bytes: Some(0),
            ..Default::default()
        };
        crate::probe::pagecache::account(&mut pc, 16 << 20, 0);
        assert_eq!(pc.read_served_from_memory_pct, Some(0.0));
        assert!(ids(&result(pc.clone(), 0)).is_empty());
        // the device read three quarters: the cache may have served the rest (below
        // the reads-from-memory threshold, so the RAM fit alone is said)
        pc.device_read_bytes = Some(12 << 20);
        crate::probe::pagecache::account(&mut pc, 16 << 20, 0);
        assert_eq!(ids(&result(pc.clone(), 0)), [FITS_IN_RAM]);
        // no device counters: not measured, said
        pc.device_read_bytes = None;
        crate::probe::pagecache::account(&mut pc, 16 << 20, 0);
        assert_eq!(ids(&result(pc.clone(), 0)), [FITS_IN_RAM]);
        // reads measured, writes never synced: the warning speaks of the writes only
        pc.device_read_bytes = Some(16 << 20);
        crate::probe::pagecache::account(&mut pc, 16 << 20, 4 << 20);
        let r = result(pc, 0);
        let w = r.warnings.iter().find(|w| w.id == FITS_IN_RAM).unwrap();
        assert!(
            w.message
                .contains("buffered writes may end in the page cache, not on the device"),
            "{}",
            w.message
        );
        assert!(!w.message.contains("reads"), "{}", w.message);
    }

    /// A mark result over a disk whose write cache is `mode`, with `writes` write I/O.
    fn mark_on(mode: &str, writes: u64) -> RunResult {
        let mut i = Inputs::new("mark", &[], Status::Ok);
        i.summary.direct = true;
        i.summary.directory = "/mnt/x".into();
        i.phases = ["SEQ1M Q1T1 read", "SEQ1M Q1T1 write", "RND4K Q1T1 mix"]
            .iter()
            .map(|n| crate::result::Phase::new(n, 1, 1, 1.0))
            .collect();
        let write = crate::result::OpStats {
            ops: writes,
            ..Default::default()
        };
        i.recorded = crate::result::Recorded::Jobs {
            jobs: vec![],
            read: Default::default(),
            write,
            period_s: None,
        };
        i.device_view = Some(crate::probe::devstat::DeviceView {
            devices: vec![crate::probe::devstat::DeviceActivity {
                name: "sda".into(),
                write_cache: Some(mode.into()),
                ..Default::default()
            }],
            process: None,
            ranks: None,
        });
        build(i)
    }

    /// Issue 26: mark's write figures on a write-back disk are explained, once, with
    /// what to run to see the medium's speed; not on a write-through disk, not
    /// without writes, not for another command.
    #[test]
    fn mark_writes_on_a_write_back_disk_are_the_caches() {
        use crate::result::flush::{write_cache_acked, WRITE_CACHE_ACKED};
        let r = mark_on("write back", 10);
        let w: Vec<&crate::result::Warning> = r
            .warnings
            .iter()
            .filter(|w| w.id == WRITE_CACHE_ACKED)
            .collect();
        assert_eq!(w.len(), 1, "{:?}", r.warnings);
        assert_eq!(
            w[0].message,
            "the write figures (SEQ1M Q1T1 write, RND4K Q1T1 mix) were acknowledged by sda's volatile write cache (write back): O_DIRECT writes without a flush complete once the data is in the drive's cache, not on its medium; to see the medium's speed run writes that wait for it, e.g. iomark run --name=medium --directory=/mnt/x --rw=write --bs=1M --size=1G --direct=1 --fdatasync=1 (a flush after every write), or iomark mark /mnt/x --preset=sustained (writes far past the cache)"
        );
        assert!(text_lines(&r).contains(&format!(
            "iomark: WARNING [{WRITE_CACHE_ACKED}]: {}",
            w[0].message
        )));
        assert!(write_cache_acked(&mark_on("write through", 10)).is_none());
        assert!(write_cache_acked(&mark_on("write back", 0)).is_none());
        let mut other = mark_on("write back", 10);
        other.command = "fileio".into();
        assert!(write_cache_acked(&other).is_none());
    }
}
