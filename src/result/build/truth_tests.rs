//! The truth layer (result/truth.rs) as the builder applies it: results built from
//! chosen facts carry the warnings and words the facts call for, and only those. Here,
//! beside the builder, so truth.rs never names the builder (no import cycle).

use super::{build, Inputs};
use crate::probe::pagecache::PageCacheCheck;
use crate::result::truth::*;
use crate::result::{RunResult, Status};

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
        both.contains("reads may be served by the page cache and buffered writes may end there"),
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
    crate::probe::pagecache::account(&mut pc, 100 << 20, 0, None);
    assert_eq!(ids(&result(pc.clone(), 0)), [READS_FROM_MEMORY]);
    // 60 % from the device: below the threshold
    pc.device_read_bytes = Some(60 << 20);
    crate::probe::pagecache::account(&mut pc, 100 << 20, 0, None);
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
    crate::probe::pagecache::account(&mut pc, 16 << 20, 0, None);
    assert_eq!(pc.read_served_from_memory_pct, Some(0.0));
    assert!(ids(&result(pc.clone(), 0)).is_empty());
    // the device read three quarters: the cache may have served the rest (below
    // the reads-from-memory threshold, so the RAM fit alone is said)
    pc.device_read_bytes = Some(12 << 20);
    crate::probe::pagecache::account(&mut pc, 16 << 20, 0, None);
    assert_eq!(ids(&result(pc.clone(), 0)), [FITS_IN_RAM]);
    // no device counters: not measured, said
    pc.device_read_bytes = None;
    crate::probe::pagecache::account(&mut pc, 16 << 20, 0, None);
    assert_eq!(ids(&result(pc.clone(), 0)), [FITS_IN_RAM]);
    // reads measured, writes never synced: the warning speaks of the writes only
    pc.device_read_bytes = Some(16 << 20);
    crate::probe::pagecache::account(&mut pc, 16 << 20, 4 << 20, None);
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
    i.recorded = crate::result::Recorded::built(
        vec![],
        crate::result::Totals {
            write,
            ..Default::default()
        },
    );
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

/// Mark's write figures on a write-back disk are explained, once, with
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

/// A buffered 4 MiB read test on a disk whose device-wide counters read 100 MiB (other
/// processes' reads): the fits-in-RAM finding follows this process's own storage reads
/// when the device view has them, the device-wide count without.
#[test]
fn reads_reaching_the_device_are_this_process_s_own_when_known() {
    let fits = |own: Option<u64>| {
        let pc = PageCacheCheck {
            file_set_bytes: 4 << 20,
            buffered: true,
            mem_total_bytes: Some(24 << 30),
            fits_in_ram: true,
            app_read_bytes: 4 << 20,
            device_read_bytes: Some(100 << 20),
            ..Default::default()
        };
        let mut r = result(pc, 0);
        r.device_view = own.map(|b| crate::result::DeviceView {
            process: Some(crate::result::ProcIo {
                read_bytes: b,
                ..Default::default()
            }),
            ..Default::default()
        });
        warnings(&r).iter().any(|w| w.id == FITS_IN_RAM)
    };
    assert!(fits(Some(0)), "none of its own reads reached the device");
    assert!(
        fits(Some((4 << 20) - 4096)),
        "one page short of all of them"
    );
    assert!(!fits(Some(4 << 20)), "all of them reached the device");
    assert!(!fits(None), "device-wide counters read at least as much");
}

/// The share of reads served from memory comes from this process's own reads from
/// storage (`/proc/self/io`) when known, exact, whatever the device's counters (which
/// count other processes' reads) say; without them from the device's, a lower bound.
#[test]
fn the_process_counters_give_the_exact_share_of_reads_from_memory() {
    let mut pc = PageCacheCheck {
        file_set_bytes: 1 << 30,
        buffered: true,
        device_read_bytes: Some(100 << 20),
        device_written_bytes: Some(0),
        ..Default::default()
    };
    // the device read all 100 MiB (another process's I/O); this process 2 MiB
    crate::probe::pagecache::account(&mut pc, 100 << 20, 0, Some(2 << 20));
    assert_eq!(pc.read_served_from_memory_pct, Some(98.0));
    let r = result(pc.clone(), 0);
    let w = r
        .warnings
        .iter()
        .find(|w| w.id == READS_FROM_MEMORY)
        .unwrap();
    assert_eq!(w.message, "the test read 100.0 MiB, of which this process read 2.0 MiB from storage (/proc/self/io): 98.0% of the reads came from the page cache, not the device");
    // the device counters alone: 0 % from memory, nothing said
    crate::probe::pagecache::account(&mut pc, 100 << 20, 0, None);
    assert_eq!(pc.read_served_from_memory_pct, Some(0.0));
    assert!(ids(&result(pc.clone(), 0)).is_empty());
    // this process read 60 MiB of the 100 from storage: 40 %, below the threshold
    crate::probe::pagecache::account(&mut pc, 100 << 20, 0, Some(60 << 20));
    assert_eq!(pc.read_served_from_memory_pct, Some(40.0));
    assert!(ids(&result(pc, 0)).is_empty());
    // an exact share is not rounded to a whole 100 % or 0 % it did not reach
    assert_eq!(exact_pct(99.96), 99.9);
    assert_eq!(exact_pct(0.01), 0.1);
    assert_eq!(exact_pct(100.0), 100.0);
    assert_eq!(exact_pct(42.25), 42.25);
}
