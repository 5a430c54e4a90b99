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
/// `fdatasync every write`, `fsync at end`, `O_SYNC` … (joined with `+`). An imported
/// fio report describes its jobs with it too (result/import.rs).
pub fn job_fsync_words(e: &crate::result::job::EffectiveJob) -> String {
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
/// distinct policies joined with ` / `; a result without jobs, and an imported fio
/// report, has them in its phases' [`FSYNC_NOTE`] notes (its writing phases, else all);
/// `None` when neither says (old files, fio text reports). `compare` calls out columns whose
/// policies differ.
pub fn fsync_policy(r: &RunResult) -> Option<String> {
    // an imported report says its jobs' policies in its phases' notes (a text report
    // does not say them: unknown, never `no fsync`)
    if r.jobs.is_empty() || r.tool != "iomark" {
        return phase_fsync_policy(r);
    }
    let writers: Vec<_> = r.jobs.iter().filter(|j| j.write.ios > 0).collect();
    let jobs: Vec<_> = if writers.is_empty() {
        r.jobs.iter().collect()
    } else {
        writers
    };
    let mut v: Vec<String> = vec![];
    for j in jobs {
        let w = job_fsync_words(&j.job);
        if !v.contains(&w) {
            v.push(w);
        }
    }
    (!v.is_empty()).then(|| v.join(" / "))
}

/// The note of an imported fio report's phase that holds its job's fsync policy in
/// words (`fsync policy: no fsync`).
pub const FSYNC_NOTE: &str = "fsync policy: ";

/// [`fsync_policy`] of a result without jobs, from its phases' [`FSYNC_NOTE`] notes.
fn phase_fsync_policy(r: &RunResult) -> Option<String> {
    let of = |p: &crate::result::Phase| {
        p.notes
            .iter()
            .find_map(|n| n.strip_prefix(FSYNC_NOTE))
            .map(str::to_string)
    };
    let writers: Vec<String> = r
        .phases
        .iter()
        .filter(|p| p.name.ends_with(" write"))
        .filter_map(of)
        .collect();
    let all = if writers.is_empty() {
        r.phases.iter().filter_map(of).collect()
    } else {
        writers
    };
    let mut v: Vec<String> = vec![];
    for w in all {
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

/// Whether the test's reads reached the device (so the cache served none of them): this
/// process's own storage reads (`/proc/self/io` read_bytes, which other processes' I/O
/// does not move) at least what the test read; without them, the device-wide counters
/// (which other processes' reads inflate, so they only ever hide the finding).
fn reads_measured(r: &RunResult, pc: &PageCacheCheck) -> bool {
    let own = r
        .device_view
        .as_ref()
        .and_then(|v| v.process)
        .map(|p| p.read_bytes);
    pc.app_read_bytes > 0
        && own
            .or(pc.device_read_bytes)
            .is_some_and(|d| d >= pc.app_read_bytes)
}

/// The sentence of the reads served from memory, when the test read more than it had
/// read from storage: exact from this process's own counters (`/proc/self/io`) when
/// known, else a lower bound from the device's (which count other processes' reads too).
fn reads_from_memory(pc: &PageCacheCheck) -> Option<String> {
    let pct = pc.read_served_from_memory_pct?;
    let read = iec(pc.app_read_bytes);
    if let Some(own) = pc.process_read_bytes {
        return (pc.app_read_bytes > own).then(|| format!("the test read {read}, of which this process read {} from storage (/proc/self/io): {:.1}% of the reads came from the page cache, not the device", iec(own), exact_pct(pct)));
    }
    let dr = pc.device_read_bytes?;
    (pc.app_read_bytes > dr).then(|| format!("the test read {read}, the device {}: at least {:.1}% of the reads came from the page cache, not the device", iec(dr), lower_bound_pct(pct)))
}

/// The sentence of the [`READS_FROM_MEMORY`] warning: a buffered run on a storage
/// device whose reads came from the page cache for [`READS_FROM_MEMORY_PCT`] or more.
/// (The notes leave out their own line of the share when this says it.)
pub fn reads_from_memory_warning(pc: &PageCacheCheck) -> Option<String> {
    let in_ram = pc.memory_fs.is_some() || pc.memory_device.is_some();
    let pct = pc.read_served_from_memory_pct?;
    (!in_ram && pc.buffered && pct >= READS_FROM_MEMORY_PCT)
        .then(|| reads_from_memory(pc))
        .flatten()
}

/// An exact share printed to one decimal, never rounded up to 100.0 % while some of it
/// is missing (99.96 % prints 99.9 %), nor down to 0.0 % while some is there.
pub fn exact_pct(pct: f64) -> f64 {
    if (99.95..100.0).contains(&pct) {
        99.9
    } else if pct > 0.0 && pct < 0.05 {
        0.1
    } else {
        pct
    }
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
        reads: (pc.app_read_bytes > 0 || pc.app_written_bytes == 0) && !reads_measured(r, pc),
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
    if let Some(m) = reads_from_memory_warning(pc) {
        v.push(w(READS_FROM_MEMORY, m));
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
        .map(|w| text_line(&w.id, &w.message))
        .collect()
}

/// The text form of warning `id` saying `message`: `iomark: WARNING [id]: message` (a
/// reporter that words a warning its own way finds the line by its start,
/// `text_line(id, "")`).
pub fn text_line(id: &str, message: &str) -> String {
    format!("iomark: WARNING [{id}]: {message}")
}

/// A share printed as a lower bound ("at least N%"), to one decimal rounded down: 99.986 %
/// is "at least 99.9%", never "100.0%".
pub fn lower_bound_pct(pct: f64) -> f64 {
    (pct * 10.0).floor() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exceeding_the_ceiling_by_more_than_5_percent_is_flagged() {
        assert!(exceeds_ceiling(2099.0, 0.0, Some(2000.0), "x").is_none());
        let m = exceeds_ceiling(2101.0, 10.0, Some(2000.0), "PCIe Gen2 x4").unwrap();
        assert!(
            m.starts_with("RESULT_EXCEEDS_CEILING: read bandwidth 2101.0 MB/s"),
            "{m}"
        );
        assert!(exceeds_ceiling(1.0, 3000.0, Some(2000.0), "x")
            .unwrap()
            .contains("write bandwidth 3000.0"));
        assert!(exceeds_ceiling(1e9, 0.0, None, "x").is_none());
    }

    #[test]
    fn a_lower_bound_is_rounded_down() {
        assert_eq!(lower_bound_pct(99.986), 99.9);
        assert_eq!(lower_bound_pct(100.0), 100.0);
        assert_eq!(lower_bound_pct(87.06), 87.0);
    }
}
