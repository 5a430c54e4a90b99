//! Flush cost, explained: when a run spent a large share of its time in
//! fsync on a disk with a volatile write cache (`write back`), the number measures how
//! fast that cache is written out on every flush more than how fast the disk writes —
//! drives with power-loss protection (and Optane) acknowledge a flush at once. This
//! finding ([`FLUSH_BOUND`]) says so in one sentence, with the fsync share, the disk's
//! own flush service time from the device view, and what to run to see the other side.
//! Absent for a write-through disk (the block layer drops flushes there), a run that
//! never syncs, or a sync share below [`FLUSH_BOUND_PCT`]. The other side of the same
//! cache, [`WRITE_CACHE_ACKED`]: `mark`'s O_DIRECT writes never flush, so on a
//! write-back disk its write figures are the cache's; said in one sentence with what to
//! run to see the medium's speed.

use super::{RunResult, Warning};
use crate::probe::devstat::{is_write_back, DeviceActivity};
use crate::util::text::plural;

/// The stable id of the finding.
pub const FLUSH_BOUND: &str = "fsync.flush_bound";

/// The stable id of the finding given instead when the disk's flushes are a small part
/// of each fsync: the fsync waited for the data's write-out, not for the cache flush.
pub const WRITEOUT_BOUND: &str = "fsync.writeout_bound";

/// The share of the mean fsync a device flush must take for the fsync to be called
/// flush-bound.
pub const FLUSH_SHARE_OF_FSYNC: f64 = 1.0 / 3.0;

/// Sync share of the wall time (%) from which the finding is given.
pub const FLUSH_BOUND_PCT: f64 = 20.0;

/// A duration in ns as text with its unit (`850 ns`, `386.2 µs`, `4.10 ms`, `2.50 s`).
pub fn dur(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// What to run to see the other side, in the command's dialect: without fsync, with
/// fdatasync, with O_DIRECT (left out when the run already used it).
fn other_side(command: &str, direct: bool) -> &'static str {
    match (command, direct) {
        ("fileio", false) => "--file-fsync-freq=0 (no fsync), --file-fsync-mode=fdatasync, or --file-extra-flags=direct (O_DIRECT)",
        ("fileio", true) => "--file-fsync-freq=0 (no fsync) or --file-fsync-mode=fdatasync",
        ("run", false) => "fsync=0 (no fsync), fdatasync=N instead of fsync=N, or direct=1 (O_DIRECT)",
        ("run", true) => "fsync=0 (no fsync) or fdatasync=N instead of fsync=N",
        (_, false) => "the same test without fsync, with fdatasync, or with O_DIRECT",
        (_, true) => "the same test without fsync or with fdatasync",
    }
}

/// The finding for `r`, when its facts call for it (see the module header).
pub fn flush_bound(r: &RunResult) -> Option<Warning> {
    let facts = Facts {
        command: &r.command,
        direct: r.job.direct,
        all: r.time.first()?,
        fsync: &r.fsync,
        view: r.device_view.as_ref()?,
    };
    facts.finding()
}

/// What the finding is decided from: the command (for its dialect), the run's time
/// shares, its fsync counters and the device view.
struct Facts<'a> {
    command: &'a str,
    /// the writes were O_DIRECT: no page-cache data for an fsync to write out
    direct: bool,
    all: &'a super::TimeShare,
    fsync: &'a super::FsyncStats,
    view: &'a super::DeviceView,
}

impl Facts<'_> {
    fn finding(&self) -> Option<Warning> {
        let (all, view) = (self.all, self.view);
        let syncs = self.fsync.ops.max(self.fsync.lat.count);
        if syncs == 0 || all.sync_pct < FLUSH_BOUND_PCT {
            return None;
        }
        self.sentence(all, view)
    }

    fn sentence(&self, all: &super::TimeShare, view: &super::DeviceView) -> Option<Warning> {
        let chain = chain(view);
        let top = *chain.first()?;
        let mode = top.write_cache.as_deref()?;
        let l = &self.fsync.lat;
        let mut lat = vec![];
        if l.count > 0 {
            lat.push(format!("mean {}", dur(l.mean())));
            if let Some(p) = l.percentiles_ns.get("99") {
                lat.push(format!("p99 {}", dur(*p as f64)));
            }
        }
        let lat = if lat.is_empty() {
            String::new()
        } else {
            format!(" ({})", lat.join(", "))
        };
        let (id, levels, why) = match reach(&chain)? {
            Reach::Cache(disk) => {
                let (id, why) = self.bound(top, l);
                (id, cached_levels(&chain, disk), why)
            }
            Reach::WritesThrough(at) => (
                WRITEOUT_BOUND,
                format!(
                    "{} caches writes ({mode}) over {}, which writes through ({})",
                    top.name,
                    at.name,
                    at.write_cache.as_deref().unwrap_or_default()
                ),
                format!(
                    "a flush ends at {0} as writes to its medium, no volatile cache is flushed, so {0}'s write-out bounds each fsync: this test measures how fast {0} takes synchronous writes more than a cache flush",
                    at.name
                ),
            ),
            Reach::Dropped(cache) => (
                FLUSH_STOPPED,
                format!("{} writes through ({mode})", top.name),
                format!(
                    "the block layer drops flushes there, so the volatile write cache of {0} below it ({1}) is never flushed: {2} bounds each fsync (its writes down the stack), not {0}'s flush latency, and the data may not be on {0}'s medium when fsync returns",
                    cache.name,
                    cache.write_cache.as_deref().unwrap_or_default(),
                    top.name
                ),
            ),
        };
        Some(Warning {
            id: id.into(),
            message: format!(
                "{:.0} % of the run was fsync{lat}; {levels}: {why}; to see the other side run it with {}",
                all.sync_pct,
                other_side(self.command, self.direct)
            ),
        })
    }

    /// Which of the two an fsync waited for, from the disk's own flush service time
    /// against the mean fsync: the volatile write cache's flush ([`FLUSH_BOUND`]) when
    /// a flush takes at least [`FLUSH_SHARE_OF_FSYNC`] of an fsync (or the device view
    /// cannot tell), else the write-out of the data written since the last fsync
    /// ([`WRITEOUT_BOUND`]): blaming the cache there would be wrong.
    fn bound(
        &self,
        top: &crate::probe::devstat::DeviceActivity,
        l: &super::Latency,
    ) -> (&'static str, String) {
        let Some((n, flush_ns)) = top
            .flushes
            .zip(top.flush_ms_per_io)
            .filter(|(n, _)| *n > 0)
            .map(|(n, ms)| (n, ms * 1e6))
        else {
            return unmeasured();
        };
        // the disk counts flush time in whole milliseconds: none counted bounds each
        // flush by 1 ms / n, which is all that can be said of it
        let under = flush_ns == 0.0;
        let flush_ns = if under { 1e6 / n as f64 } else { flush_ns };
        let each = if under {
            format!(
                "under {} each (the disk counts flush time in whole milliseconds)",
                dur(flush_ns)
            )
        } else {
            format!("{} each", dur(flush_ns))
        };
        let small = l.count > 0 && flush_ns < FLUSH_SHARE_OF_FSYNC * l.mean();
        if under && !small {
            return unmeasured();
        }
        if small && self.direct {
            return (
                WRITEOUT_BOUND,
                format!(
                    "its {} took {each}, a small part of the mean fsync; the writes were O_DIRECT, so no page-cache data was left to write out and the rest of each fsync is the filesystem's own work (journal commit, metadata): this test measures that more than the disk's flush latency or its write speed",
                    plural(n, "flush", "flushes"),
                ),
            );
        }
        if small {
            return (
                WRITEOUT_BOUND,
                format!(
                    "its {} took {each}, a small part of the mean fsync, so most of each fsync wrote out the data written since the previous one: this test measures how fast the disk takes small batches of synchronous writes more than its flush latency or its streaming write speed",
                    plural(n, "flush", "flushes"),
                ),
            );
        }
        (
            FLUSH_BOUND,
            format!(
                "{} waited {} for the volatile write cache to be written out; {PLP}",
                match n {
                    1 => "its 1 flush".to_string(),
                    n => format!("each of its {n} flushes"),
                },
                dur(flush_ns)
            ),
        )
    }
}

/// The flush-bound reason when the device view cannot time the disk's flushes.
fn unmeasured() -> (&'static str, String) {
    (
        FLUSH_BOUND,
        format!("each flush waits for its volatile write cache to be written out; {PLP}"),
    )
}

/// The stable id of the finding on `mark`'s write figures when the disk acknowledges
/// writes from a volatile cache: O_DIRECT writes without a flush complete once the data
/// is in the drive's cache, so the figures are the cache's, not the medium's.
pub const WRITE_CACHE_ACKED: &str = "write_cache.acknowledged";

/// [`WRITE_CACHE_ACKED`] for `r`: a `mark` result whose tests wrote (O_DIRECT, never a
/// flush: mark does not sync) on a disk whose `queue/write_cache` is `write back`
/// (the device view's disk under the files); `None` for `write through`, a run
/// without writes or without a device view, and every other command.
pub fn write_cache_acked(r: &RunResult) -> Option<Warning> {
    let synced = r.fsync.ops > 0 || r.job.fsync_freq > 0 || r.job.fsync_end;
    if r.command != "mark" || !r.job.direct || synced || r.write.ops == 0 {
        return None;
    }
    let (cache, stack) = acked_by(r.device_view.as_ref()?)?;
    let mode = cache.write_cache.as_deref()?;
    let tests: Vec<&str> = r
        .phases
        .iter()
        .filter(|p| !p.name.ends_with(" read"))
        .map(|p| p.name.as_str())
        .collect();
    let dir = match r.job.directory.as_str() {
        "" => "PATH",
        d => d,
    };
    Some(Warning {
        id: WRITE_CACHE_ACKED.into(),
        message: format!(
            "the write figures ({}) were acknowledged by {}'s volatile write cache ({mode}{stack}): O_DIRECT writes without a flush complete once the data is in the drive's cache, not on its medium; to see the medium's speed run writes that wait for it, e.g. iomark run --name=medium --directory={dir} --rw=write --bs=1M --size=1G --direct=1 --fdatasync=1 (a flush after every write), or iomark mark {dir} --preset=sustained (writes far past the cache)",
            tests.join(", "),
            cache.name
        ),
    })
}

/// The level whose volatile write cache acknowledges the writes sent to the disk under
/// the files, looked for at every level as the flush finding walks them ([`chains`]:
/// loop → the backing file's disk, md → each member, dm → its table's devices): the
/// deepest level in `write back` mode of the first chain that has one (a write-through
/// loop device or array over a write-back disk is the disk's cache), and — when that
/// is not the top — the stack in words (`; the files are on loop0 over vda`).
fn acked_by(view: &super::DeviceView) -> Option<(&DeviceActivity, String)> {
    chains(view).into_iter().find_map(|c| {
        let cache = *c
            .iter()
            .rev()
            .find(|d| d.write_cache.as_deref().is_some_and(is_write_back))?;
        let stack = match c.first() {
            Some(top) if top.name != cache.name => {
                let names: Vec<&str> = c.iter().map(|d| d.name.as_str()).collect();
                format!("; the files are on {}", names.join(" over "))
            }
            _ => String::new(),
        };
        Some((cache, stack))
    })
}

/// The stable id of the finding given when the disk under the files writes through
/// (the block layer drops flushes there) over a level that caches writes: the fsyncs
/// never reach that cache.
pub const FLUSH_STOPPED: &str = "fsync.flush_stopped";

/// The levels a flush from the disk under the files goes down: that disk, then through
/// loop/md/dm stacks each member below the one before (a loop device's backing file's
/// disk), as the device view lists them (`member_of`). With several members (md), the
/// first chain down to a disk that caches writes, else the first chain.
fn chain(view: &super::DeviceView) -> Vec<&DeviceActivity> {
    let leaves = chains(view);
    let writes_back = |c: &&Vec<&DeviceActivity>| {
        c.iter()
            .all(|d| d.write_cache.as_deref().is_none_or(is_write_back))
    };
    leaves
        .iter()
        .find(writes_back)
        .or(leaves.first())
        .cloned()
        .unwrap_or_default()
}

/// Every chain of levels from the disk under the files down to a level with nothing
/// below it (through `member_of`: a loop device's backing disk, each md member), in the
/// device view's order; the top alone when nothing is below it, none without a top.
fn chains(view: &super::DeviceView) -> Vec<Vec<&DeviceActivity>> {
    let devs = &view.devices;
    let Some(top) = devs.iter().find(|d| d.member_of.is_none()) else {
        return vec![];
    };
    let leaves: Vec<Vec<&DeviceActivity>> = devs
        .iter()
        .filter(|d| !devs.iter().any(|m| m.member_of.as_deref() == Some(&d.name)))
        .map(|d| up_from(devs, d))
        .filter(|c| c.first().is_some_and(|t| t.name == top.name))
        .collect();
    match leaves.is_empty() {
        true => vec![vec![top]],
        false => leaves,
    }
}

/// The levels from the top of `devs` down to `d` (through `member_of`).
fn up_from<'a>(devs: &'a [DeviceActivity], d: &'a DeviceActivity) -> Vec<&'a DeviceActivity> {
    let mut v = vec![];
    let mut at = Some(d);
    while let Some(x) = at.filter(|_| v.len() <= devs.len()) {
        v.push(x);
        at = x
            .member_of
            .as_deref()
            .and_then(|p| devs.iter().find(|d| d.name == p));
    }
    v.reverse();
    v
}

/// Where a flush from the top of a [`chain`] ends.
enum Reach<'a> {
    /// every level down to this disk caches writes: the flush reaches its volatile cache
    Cache(&'a DeviceActivity),
    /// this level below the top writes through: the flush ends as writes to it
    WritesThrough(&'a DeviceActivity),
    /// the top writes through: flushes are dropped there, never reaching this caching
    /// level below
    Dropped(&'a DeviceActivity),
}

/// Which level bounds a flush (levels whose mode is unknown are passed over); `None`
/// when nothing caches: the top writes through and no level below caches.
fn reach<'a>(chain: &[&'a DeviceActivity]) -> Option<Reach<'a>> {
    let known: Vec<(&'a DeviceActivity, bool)> = chain
        .iter()
        .filter_map(|d| Some((*d, is_write_back(d.write_cache.as_deref()?))))
        .collect();
    let (top, top_wb) = *known.first()?;
    if top.member_of.is_some() {
        return None;
    }
    if !top_wb {
        return known
            .iter()
            .find(|(_, wb)| *wb)
            .map(|(d, _)| Reach::Dropped(d));
    }
    Some(match known.iter().find(|(_, wb)| !*wb) {
        Some((d, _)) => Reach::WritesThrough(d),
        None => Reach::Cache(known.last()?.0),
    })
}

/// The levels of a chain that caches all the way down to `disk`, naming the level that
/// bounds the flush: `loop0 caches writes (write back)` for one disk; `loop0 caches
/// writes (write back) over vda (write back), whose volatile write cache bounds the
/// flush` for a stack.
fn cached_levels(chain: &[&DeviceActivity], disk: &DeviceActivity) -> String {
    let mode = |d: &DeviceActivity| d.write_cache.clone().unwrap_or_else(|| "?".into());
    let top = chain[0];
    let below: Vec<String> = chain[1..]
        .iter()
        .filter(|d| d.write_cache.is_some())
        .map(|d| format!("{} ({})", d.name, mode(d)))
        .collect();
    if below.is_empty() || disk.name == top.name {
        return format!("{} caches writes ({})", top.name, mode(top));
    }
    format!(
        "{} caches writes ({}) over {}, whose volatile write cache bounds the flush",
        top.name,
        mode(top),
        below.join(" over ")
    )
}

/// Why a flush-bound result is not the drive's write speed.
const PLP: &str = "drives with power-loss protection finish a flush in microseconds, so this test measures flush latency more than write speed";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::devstat::{DeviceActivity, DeviceView};
    use crate::result::TimeShare;

    fn check(sync_pct_of_100: u64, mode: &str, fsyncs: u64) -> Option<Warning> {
        check_with(sync_pct_of_100, mode, fsyncs, None)
    }

    /// `fsyncs` of `mean_ns` each, on a write-back disk.
    fn check_lat(sync_pct_of_100: u64, mean_ns: u64) -> Option<Warning> {
        check_with(sync_pct_of_100, "write back", 10, Some(mean_ns))
    }

    fn check_with(
        sync_pct_of_100: u64,
        mode: &str,
        fsyncs: u64,
        mean_ns: Option<u64>,
    ) -> Option<Warning> {
        check_io(sync_pct_of_100, mode, fsyncs, mean_ns, false, 0.4)
    }

    fn check_io(
        sync_pct_of_100: u64,
        mode: &str,
        fsyncs: u64,
        mean_ns: Option<u64>,
        direct: bool,
        flush_ms: f64,
    ) -> Option<Warning> {
        let view = DeviceView {
            devices: vec![DeviceActivity {
                name: "loop0".into(),
                write_cache: Some(mode.into()),
                flushes: Some(100),
                flush_ms_per_io: Some(flush_ms),
                ..Default::default()
            }],
            process: None,
            ranks: None,
        };
        let all = TimeShare::new("all", 100, 1, 1, sync_pct_of_100);
        let mut fsync = crate::result::FsyncStats {
            ops: fsyncs,
            ..Default::default()
        };
        if let Some(m) = mean_ns {
            fsync.lat.count = fsyncs;
            fsync.lat.sum_ns = m * fsyncs;
        }
        Facts {
            command: "fileio",
            direct,
            all: &all,
            fsync: &fsync,
            view: &view,
        }
        .finding()
    }

    #[test]
    fn present_for_write_back_and_a_large_share_only() {
        let w = check(87, "write back", 10).unwrap();
        assert_eq!(w.id, FLUSH_BOUND);
        assert!(
            w.message.starts_with("87 % of the run was fsync; loop0 caches writes (write back): each of its 100 flushes waited 400.0 µs"),
            "{}",
            w.message
        );
        assert!(w.message.contains("--file-fsync-freq=0"), "{}", w.message);
        assert!(check(87, "write through", 10).is_none());
        // a flush of 400 µs against fsyncs of 1.2 ms (a third): still the flush
        assert_eq!(check_lat(87, 1_200_000).unwrap().id, FLUSH_BOUND);
        // against fsyncs of 4 ms: the data's write-out, said as such
        let w = check_lat(87, 4_000_000).unwrap();
        assert_eq!(w.id, WRITEOUT_BOUND);
        assert!(
            w.message.starts_with("87 % of the run was fsync (mean 4.00 ms); loop0 caches writes (write back): its 100 flushes took 400.0 µs each, a small part of the mean fsync"),
            "{}",
            w.message
        );
        assert!(!w.message.contains("power-loss"), "{}", w.message);
        assert!(check(10, "write back", 10).is_none());
        assert!(check(87, "write back", 0).is_none());
    }

    /// Under O_DIRECT there is no page-cache data for an fsync to write out, and the
    /// advice does not suggest the flag already in use.
    #[test]
    fn o_direct_runs_get_o_direct_reasons_and_advice() {
        let w = check_io(87, "write back", 10, Some(4_000_000), true, 0.4).unwrap();
        assert_eq!(w.id, WRITEOUT_BOUND);
        assert!(
            w.message.contains("the writes were O_DIRECT"),
            "{}",
            w.message
        );
        assert!(!w.message.contains("wrote out the data"), "{}", w.message);
        assert!(!w.message.contains("extra-flags=direct"), "{}", w.message);
        let w = check_io(87, "write back", 10, Some(1_000_000), true, 0.4).unwrap();
        assert_eq!(w.id, FLUSH_BOUND);
        assert!(
            w.message
                .ends_with("--file-fsync-freq=0 (no fsync) or --file-fsync-mode=fdatasync"),
            "{}",
            w.message
        );
        assert_eq!(
            other_side("run", true),
            "fsync=0 (no fsync) or fdatasync=N instead of fsync=N"
        );
    }

    /// 100 flushes whose times add up to under 1 ms (the disk counts whole
    /// milliseconds): never "0 ns each"; each is under 10 µs, which is small beside
    /// fsyncs of 4 ms (the write-out) and cannot be weighed against fsyncs of 20 µs.
    #[test]
    fn flushes_the_disk_timed_at_zero_are_said_to_be_under_its_resolution() {
        let w = check_io(87, "write back", 10, Some(4_000_000), false, 0.0).unwrap();
        assert_eq!(w.id, WRITEOUT_BOUND);
        assert!(
            w.message.contains("its 100 flushes took under 10.0 µs each (the disk counts flush time in whole milliseconds)"),
            "{}",
            w.message
        );
        let w = check_io(87, "write back", 10, Some(20_000), false, 0.0).unwrap();
        assert_eq!(w.id, FLUSH_BOUND);
        assert!(!w.message.contains(" 0 ns"), "{}", w.message);
        assert!(
            w.message
                .contains("each flush waits for its volatile write cache"),
            "{}",
            w.message
        );
    }

    /// The chain loop0 → vda with the two modes given, loop0's flushes 400 µs, vda's 50 µs.
    fn stack(top: &str, below: &str) -> DeviceView {
        let dev = |name: &str, of: Option<&str>, mode: &str, ms: f64| DeviceActivity {
            name: name.into(),
            member_of: of.map(Into::into),
            write_cache: Some(mode.into()),
            flushes: Some(100),
            flush_ms_per_io: Some(ms),
            ..Default::default()
        };
        DeviceView {
            devices: vec![
                dev("loop0", None, top, 0.4),
                dev("vda", Some("loop0"), below, 0.05),
            ],
            process: None,
            ranks: None,
        }
    }

    fn finding_on(view: &DeviceView) -> Option<Warning> {
        let all = TimeShare::new("all", 100, 1, 1, 87);
        let fsync = crate::result::FsyncStats {
            ops: 10,
            ..Default::default()
        };
        Facts {
            command: "fileio",
            direct: false,
            all: &all,
            fsync: &fsync,
            view,
        }
        .finding()
    }

    /// Each level of a loop stack is considered, and the sentence names the
    /// level that bounds the flush: the disk's volatile cache when every level caches;
    /// the write-through disk's write-out under a caching loop device; a write-through
    /// loop device drops the flushes before the caching disk below it.
    #[test]
    fn each_level_of_a_stack_is_considered() {
        let w = finding_on(&stack("write back", "write back")).unwrap();
        assert_eq!(w.id, FLUSH_BOUND);
        assert!(w.message.starts_with("87 % of the run was fsync; loop0 caches writes (write back) over vda (write back), whose volatile write cache bounds the flush: each of its 100 flushes waited 400.0 µs"), "{}", w.message);
        let w = finding_on(&stack("write back", "write through")).unwrap();
        assert_eq!(w.id, WRITEOUT_BOUND);
        assert!(w.message.starts_with("87 % of the run was fsync; loop0 caches writes (write back) over vda, which writes through (write through): a flush ends at vda as writes to its medium, no volatile cache is flushed, so vda's write-out bounds each fsync"), "{}", w.message);
        assert!(!w.message.contains("power-loss"), "{}", w.message);
        let w = finding_on(&stack("write through", "write back")).unwrap();
        assert_eq!(w.id, FLUSH_STOPPED);
        assert!(w.message.starts_with("87 % of the run was fsync; loop0 writes through (write through): the block layer drops flushes there, so the volatile write cache of vda below it (write back) is never flushed: loop0 bounds each fsync"), "{}", w.message);
        assert!(finding_on(&stack("write through", "write through")).is_none());
        // a member whose mode is unknown is passed over
        let mut v = stack("write back", "write through");
        v.devices[1].write_cache = None;
        let w = finding_on(&v).unwrap();
        assert!(
            w.message
                .contains("; loop0 caches writes (write back): each"),
            "{}",
            w.message
        );
    }

    /// The same through the one sysfs reader on a recorded machine: loop0 (`write
    /// through`) over a file on /mnt/d, vda's filesystem (`write back`): the device view
    /// follows the backing file through the fixture's mountinfo to vda, reads both
    /// modes, and the finding says the flushes stop at loop0.
    #[test]
    fn a_recorded_loop_stack_is_followed_to_its_backing_disk() {
        use crate::probe::tests::put;
        use crate::probe::{devstat::Watch, Root};
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        let loop0 = "sys/devices/virtual/block/loop0";
        put(r, &format!("{loop0}/queue/write_cache"), "write through\n");
        put(
            r,
            &format!("{loop0}/loop/backing_file"),
            "/mnt/d/disk.img\n",
        );
        put(r, "sys/devices/pci/vda/queue/write_cache", "write back\n");
        put(
            r,
            "sys/devices/pci/vda/uevent",
            "MAJOR=254\nMINOR=0\nDEVNAME=vda\n",
        );
        put(
            r,
            "proc/self/mountinfo",
            "22 1 254:0 / /mnt/d rw,relatime - ext4 /dev/vda rw\n",
        );
        let stat = |n: &str, flushes: u64| {
            put(
                r,
                &format!("{n}/stat"),
                &format!("0 0 0 0 10 0 80 5 0 5 5 0 0 0 0 {flushes} 1\n"),
            );
        };
        stat(loop0, 0);
        stat("sys/devices/pci/vda", 10);
        for d in ["sys/class/block", "sys/block", "sys/dev/block"] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        let ln = |t: &str, l: &str| std::os::unix::fs::symlink(t, r.join(l)).unwrap();
        ln("../../devices/virtual/block/loop0", "sys/class/block/loop0");
        ln("../devices/virtual/block/loop0", "sys/block/loop0");
        ln("../../devices/pci/vda", "sys/class/block/vda");
        ln("../devices/pci/vda", "sys/block/vda");
        ln("../../devices/pci/vda", "sys/dev/block/254:0");
        let w = Watch::start(&Root(r.to_path_buf()), Some("loop0"));
        stat("sys/devices/pci/vda", 30);
        let v = w.finish();
        let names: Vec<(&str, Option<&str>, Option<&str>)> = v
            .devices
            .iter()
            .map(|d| {
                (
                    d.name.as_str(),
                    d.member_of.as_deref(),
                    d.write_cache.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            names,
            [
                ("loop0", None, Some("write through")),
                ("vda", Some("loop0"), Some("write back"))
            ]
        );
        assert_eq!(v.devices[1].flushes, Some(20));
        assert_eq!(finding_on(&v).unwrap().id, FLUSH_STOPPED);
    }

    #[test]
    fn durations_carry_their_unit() {
        assert_eq!(dur(850.0), "850 ns");
        assert_eq!(dur(386_200.0), "386.2 µs");
        assert_eq!(dur(4_100_000.0), "4.10 ms");
        assert_eq!(dur(2.5e9), "2.50 s");
    }

    /// A view of `(name, write_cache, member_of)` levels.
    fn levels(levels: &[(&str, &str, Option<&str>)]) -> DeviceView {
        DeviceView {
            devices: levels
                .iter()
                .map(|(n, wc, of)| DeviceActivity {
                    name: (*n).into(),
                    write_cache: Some((*wc).into()),
                    member_of: of.map(Into::into),
                    ..Default::default()
                })
                .collect(),
            process: None,
            ranks: None,
        }
    }

    /// mark's write figures are the cache's at whichever level caches: every level of
    /// the stack is looked at (the deepest in write back named, with the stack), not the
    /// top's mode alone.
    #[test]
    fn the_acknowledging_cache_is_looked_for_at_every_level() {
        let name = |v: &DeviceView| acked_by(v).map(|(d, s)| (d.name.clone(), s));
        let wt = "write through";
        let wb = "write back";
        assert_eq!(
            name(&levels(&[("sda", wb, None)])),
            Some(("sda".into(), "".into()))
        );
        assert_eq!(name(&levels(&[("sda", wt, None)])), None);
        // a write-through loop device over a write-back disk: the disk's cache
        let lo = levels(&[("loop0", wt, None), ("vda", wb, Some("loop0"))]);
        assert_eq!(
            name(&lo),
            Some(("vda".into(), "; the files are on loop0 over vda".into()))
        );
        let both = levels(&[("loop0", wb, None), ("vda", wb, Some("loop0"))]);
        assert_eq!(name(&both).unwrap().0, "vda");
        // a write-back loop device over a write-through disk: the loop device
        let top = levels(&[("loop0", wb, None), ("vda", wt, Some("loop0"))]);
        assert_eq!(name(&top), Some(("loop0".into(), "".into())));
        // md: the member that caches, whichever comes first
        let md = levels(&[
            ("md0", wt, None),
            ("sda", wt, Some("md0")),
            ("sdb", wb, Some("md0")),
        ]);
        assert_eq!(
            name(&md),
            Some(("sdb".into(), "; the files are on md0 over sdb".into()))
        );
        let none = levels(&[("md0", wt, None), ("sda", wt, Some("md0"))]);
        assert_eq!(name(&none), None);
    }
}
