//! The device view of a run: the `stat` counters of the block device under
//! the files and, through loop/md/dm stacks, of each physical member
//! (Documentation/block/stat.rst: 11 fields, 15 with discards since Linux 4.18, 17 with
//! flushes since 5.5), read before and after the run, with this process's own
//! `/proc/self/io` beside them. Whole disks are read (a partition's disk: the kernel
//! counts flushes on the disk only). Everything goes through a [`Root`].
//!
//! [`read_stat`] is the one reader of a device's counters (the sampler and fio's
//! `disk_util` call it too); [`Watch`] is the before/after pair a command keeps.

use super::Root;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The fields of `/sys/block/<dev>/stat` (Documentation/block/stat.rst), as read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DevStat {
    /// completed reads
    pub read_ios: u64,
    /// merged reads
    pub read_merges: u64,
    /// ms spent reading
    pub read_ticks: u64,
    /// completed writes
    pub write_ios: u64,
    /// merged writes
    pub write_merges: u64,
    /// ms spent writing
    pub write_ticks: u64,
    /// ms the device was busy
    pub io_ticks: u64,
    /// weighted ms in queue
    pub in_queue: u64,
    /// 512-byte sectors read
    #[serde(default)]
    pub read_sectors: u64,
    /// 512-byte sectors written
    #[serde(default)]
    pub write_sectors: u64,
    /// completed discards (kernels ≥ 4.18)
    #[serde(default)]
    pub discard_ios: u64,
    /// 512-byte sectors discarded
    #[serde(default)]
    pub discard_sectors: u64,
    /// ms spent discarding
    #[serde(default)]
    pub discard_ticks: u64,
    /// completed flush requests (kernels ≥ 5.5)
    #[serde(default)]
    pub flush_ios: u64,
    /// ms spent flushing
    #[serde(default)]
    pub flush_ticks: u64,
    /// fields in the line (11, 15 or 17): which counters the kernel keeps (0: unknown)
    #[serde(default)]
    pub fields: u32,
}

/// Parse one `stat` line; `None` when it has fewer than 11 fields.
pub fn parse_stat(s: &str) -> Option<DevStat> {
    let f: Vec<u64> = s
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    let at = |i: usize| f.get(i).copied().unwrap_or(0);
    (f.len() >= 11).then(|| DevStat {
        read_ios: f[0],
        read_merges: f[1],
        read_sectors: f[2],
        read_ticks: f[3],
        write_ios: f[4],
        write_merges: f[5],
        write_sectors: f[6],
        write_ticks: f[7],
        io_ticks: f[9],
        in_queue: f[10],
        discard_ios: at(11),
        discard_sectors: at(13),
        discard_ticks: at(14),
        flush_ios: at(15),
        flush_ticks: at(16),
        fields: f.len().min(17) as u32,
    })
}

/// The counters of block device `name` (`vda`, `loop3`, `vda1`), or `None`.
pub fn read_stat(root: &Root, name: &str) -> Option<DevStat> {
    parse_stat(&root.read(&format!("/sys/class/block/{name}/stat"))?)
}

/// The counters of the block device whose sysfs directory is `dir` (a machine path as
/// [`Root::block_dir`] gives it): the sampler's per-sample read, one open of a path
/// resolved once.
pub fn read_stat_at(root: &Root, dir: &str) -> Option<DevStat> {
    parse_stat(&root.read(&format!("{dir}/stat"))?)
}

/// Every disk's counters now (`/sys/block/*`, by name): the view of `iomark time`,
/// whose command may use any disk. Disks whose `stat` cannot be read are left out.
pub fn all_disks(root: &Root) -> Vec<(String, DevStat)> {
    let Ok(dir) = std::fs::read_dir(root.0.join("sys/block")) else {
        return vec![];
    };
    let mut names: Vec<String> = dir
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|n| Some((n.clone(), read_stat(root, &n)?)))
        .collect()
}

/// The whole disk of block device `name` (a partition's parent, else itself).
pub fn disk_of(root: &Root, name: &str) -> String {
    let sys = root.sys();
    let link = format!("/sys/class/block/{name}");
    match sys.real_path(&link) {
        Some(d) if sys.exists(&format!("{d}/partition")) => {
            super::sysroot::base(&super::sysroot::parent(&d)).to_string()
        }
        _ => name.to_string(),
    }
}

/// The disks below disk `name` in a stack: a loop device's backing file's disk, the
/// `slaves/` of md and dm devices, each followed down to physical disks; `(disk, the
/// device it is a member of)` in order, each once, at most 16.
pub fn members(root: &Root, name: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![];
    let mut todo = vec![name.to_string()];
    while let Some(d) = todo.pop() {
        for m in below(root, &d) {
            let m = disk_of(root, &m);
            if m != name && !out.iter().any(|(x, _)| *x == m) && out.len() < 16 {
                out.push((m.clone(), d.clone()));
                todo.push(m);
            }
        }
    }
    out
}

/// The devices directly below disk `d`.
fn below(root: &Root, d: &str) -> Vec<String> {
    if d.starts_with("loop") {
        let Some(bf) = root.read(&format!("/sys/block/{d}/loop/backing_file")) else {
            return vec![];
        };
        let bf = bf.trim();
        let bf = bf.strip_suffix(" (deleted)").unwrap_or(bf);
        // the backing file's device: on the live machine from its own stat, on a
        // recorded one from the mount that holds it (the file only exists there)
        let dev = if root.is_live() {
            super::dev_of(std::path::Path::new(bf))
        } else {
            root.read("/proc/self/mountinfo").and_then(|t| {
                let mounts = super::mountinfo::parse(&t);
                super::mountinfo::find(&mounts, bf).map(|m| (m.major, m.minor))
            })
        };
        return dev
            .filter(|(maj, _)| *maj != 0)
            .and_then(|(a, b)| root.block_name(a, b))
            .into_iter()
            .collect();
    }
    root.sys()
        .list(&format!("/sys/block/{d}/slaves"))
        .unwrap_or_default()
}

/// The write-cache facts of disk `name`: `queue/write_cache` (`write back`, `write
/// through`; a SCSI disk's `cache_type` when it has one) and `queue/fua`.
pub fn write_cache(root: &Root, name: &str) -> (Option<String>, Option<bool>) {
    let sys = root.sys();
    let scsi = format!("/sys/block/{name}/device/scsi_disk");
    let cache_type = sys
        .list(&scsi)
        .and_then(|v| v.first().cloned())
        .and_then(|e| sys.read_trim(&format!("{scsi}/{e}/cache_type")));
    let wc = cache_type
        .map(|c| c.to_ascii_lowercase())
        .or_else(|| sys.read_trim(&format!("/sys/block/{name}/queue/write_cache")));
    let fua = sys
        .read_trim(&format!("/sys/block/{name}/queue/fua"))
        .map(|v| v == "1");
    (wc, fua)
}

/// Whether a write-cache mode holds writes in a volatile cache (`write back`, SCSI
/// `write back, no read (daft)`).
pub fn is_write_back(mode: &str) -> bool {
    mode.to_ascii_lowercase().starts_with("write back")
}

/// This process's I/O accounting (`/proc/self/io`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcIo {
    /// bytes passed to read calls (`rchar`)
    pub rchar: u64,
    /// bytes passed to write calls (`wchar`)
    pub wchar: u64,
    /// bytes the process caused to be fetched from storage (`read_bytes`)
    pub read_bytes: u64,
    /// bytes the process caused to be sent to storage (`write_bytes`, counted when
    /// dirtied)
    pub write_bytes: u64,
    /// dirtied bytes that were truncated before write-out (`cancelled_write_bytes`)
    pub cancelled_write_bytes: u64,
}

impl ProcIo {
    /// `self + o`, counter by counter (the processes of one run added up).
    pub fn add(&self, o: &ProcIo) -> ProcIo {
        ProcIo {
            rchar: self.rchar.saturating_add(o.rchar),
            wchar: self.wchar.saturating_add(o.wchar),
            read_bytes: self.read_bytes.saturating_add(o.read_bytes),
            write_bytes: self.write_bytes.saturating_add(o.write_bytes),
            cancelled_write_bytes: self
                .cancelled_write_bytes
                .saturating_add(o.cancelled_write_bytes),
        }
    }
}

/// Parse `/proc/PID/io`.
pub fn parse_proc_io(s: &str) -> Option<ProcIo> {
    let get = |k: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix(k)?.strip_prefix(':'))
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    Some(ProcIo {
        rchar: get("rchar")?,
        wchar: get("wchar")?,
        read_bytes: get("read_bytes")?,
        write_bytes: get("write_bytes")?,
        cancelled_write_bytes: get("cancelled_write_bytes").unwrap_or(0),
    })
}

/// This process's `/proc/self/io` now.
pub fn proc_io(root: &Root) -> Option<ProcIo> {
    parse_proc_io(&root.read("/proc/self/io")?)
}

/// This process's own counters beside a device view: always the live machine's, where
/// this process runs, whatever root the devices are read through (a recorded machine
/// under the test hook holds no counters of this process).
fn own_io() -> Option<ProcIo> {
    proc_io(&Root::default())
}

/// What one disk did during a run: the counters before and after and what follows
/// from their differences.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceActivity {
    /// disk name (`vda`, `loop3`, `md0`)
    pub name: String,
    /// the stacked device this disk is a member of (`loop3`), `None` for the disk
    /// under the files
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member_of: Option<String>,
    /// what the command does on this disk when its paths are on several disks (`copy`:
    /// `DST`, `SRC`), on the disk and its stack's members; `None`: the run's one disk
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// `queue/write_cache` (or SCSI `cache_type`): `write back`, `write through`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cache: Option<String>,
    /// `queue/fua`: the disk takes forced-unit-access writes
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fua: Option<bool>,
    /// ms between the two readings
    pub elapsed_ms: u64,
    /// counters when the run started
    pub before: DevStat,
    /// counters when it ended
    pub after: DevStat,
    /// reads completed during the run
    pub reads: u64,
    /// writes completed
    pub writes: u64,
    /// discards completed (`None`: the kernel does not count them)
    pub discards: Option<u64>,
    /// flushes completed (`None`: the kernel does not count them, before 5.5)
    pub flushes: Option<u64>,
    /// bytes read
    pub read_bytes: u64,
    /// bytes written
    pub write_bytes: u64,
    /// bytes discarded
    pub discard_bytes: u64,
    /// mean device time per read, ms (`None`: no reads)
    pub read_ms_per_io: Option<f64>,
    /// mean device time per write, ms
    pub write_ms_per_io: Option<f64>,
    /// mean device time per flush, ms
    pub flush_ms_per_io: Option<f64>,
    /// average requests in the device queue (time_in_queue / elapsed)
    pub queue_depth: f64,
    /// share of the elapsed time the device was busy, % (at most 100)
    pub util_pct: f64,
}

impl DeviceActivity {
    /// The activity between two readings `ms` apart.
    pub fn between(name: &str, a: DevStat, b: DevStat, ms: u64) -> DeviceActivity {
        let d = |x: u64, y: u64| y.saturating_sub(x);
        let per = |ticks: u64, n: u64| (n > 0).then(|| ticks as f64 / n as f64);
        let (reads, writes) = (d(a.read_ios, b.read_ios), d(a.write_ios, b.write_ios));
        let flushes = d(a.flush_ios, b.flush_ios);
        let msf = ms.max(1) as f64;
        DeviceActivity {
            name: name.into(),
            elapsed_ms: ms,
            before: a,
            after: b,
            reads,
            writes,
            discards: (b.fields >= 15).then(|| d(a.discard_ios, b.discard_ios)),
            flushes: (b.fields >= 17).then_some(flushes),
            read_bytes: d(a.read_sectors, b.read_sectors) * 512,
            write_bytes: d(a.write_sectors, b.write_sectors) * 512,
            discard_bytes: d(a.discard_sectors, b.discard_sectors) * 512,
            read_ms_per_io: per(d(a.read_ticks, b.read_ticks), reads),
            write_ms_per_io: per(d(a.write_ticks, b.write_ticks), writes),
            flush_ms_per_io: per(d(a.flush_ticks, b.flush_ticks), flushes),
            queue_depth: d(a.in_queue, b.in_queue) as f64 / msf,
            util_pct: (d(a.io_ticks, b.io_ticks) as f64 * 100.0 / msf).min(100.0),
            ..Default::default()
        }
    }
}

/// The device view of a run: every disk's activity, the process's own counters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceView {
    /// the disk under the files first, then its stack's members
    pub devices: Vec<DeviceActivity>,
    /// this process's `/proc/self/io` differences over the run; in the aggregate of a
    /// many-hosts run, the sum over the ranks on rank 0's host ([`DeviceView::ranks`])
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<ProcIo>,
    /// a many-hosts aggregate: how many ranks (processes of the run on the host of
    /// `devices`) `process` adds up; `None` for one process
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<u32>,
}

/// The readings at the start of a run, finished by [`Watch::finish`].
#[derive(Clone, Debug)]
pub struct Watch {
    root: Root,
    t0: Instant,
    /// (disk, member of, role, counters at the start)
    disks: Vec<(String, Option<String>, Option<String>, DevStat)>,
    io: Option<ProcIo>,
}

impl Watch {
    /// [`Watch::start`] on the block device under `path` (a directory, a file or a
    /// device node; none for a filesystem without one): the device view of the
    /// commands that name a directory (`mark`, `copy`, `tree`), as fileio's.
    pub fn of_path(root: &Root, path: &std::path::Path) -> Watch {
        let under = super::pagecache::before(root, path);
        Watch::start(root, under.device.as_deref())
    }

    /// Read the counters of the disk of block device `name` (`None`: a filesystem
    /// without one, nothing watched) and of its stack's members through `root`, and this
    /// process's `/proc/self/io` (the live machine's, [`own_io`]).
    pub fn start(root: &Root, name: Option<&str>) -> Watch {
        let mut w = Watch {
            root: root.clone(),
            t0: Instant::now(),
            disks: vec![],
            io: own_io(),
        };
        if let Some(n) = name {
            w.add(&disk_of(root, n), None);
        }
        w
    }

    /// [`Watch::of_path`] over the paths of a command's roles (`copy`: `DST`, then
    /// `SRC`): the disk under each path in turn with its stack's members, a disk under
    /// two paths once. When the paths are on different disks, each disk (and its members)
    /// says its role; on one disk the view is [`Watch::of_path`]'s.
    pub fn of_roles(root: &Root, paths: &[(&str, &std::path::Path)]) -> Watch {
        let mut tops: Vec<(String, &str)> = vec![];
        for (role, p) in paths {
            let under = super::pagecache::before(root, p);
            if let Some(n) = under.device.as_deref() {
                let top = disk_of(root, n);
                if !tops.iter().any(|(t, _)| *t == top) {
                    tops.push((top, role));
                }
            }
        }
        let mut w = Watch::start(root, None);
        let named = tops.len() > 1;
        for (top, role) in tops {
            w.add(&top, named.then(|| role.to_string()));
        }
        w
    }

    /// Watch disk `top` and its stack's members, in role `role`.
    fn add(&mut self, top: &str, role: Option<String>) {
        let stack = std::iter::once((top.to_string(), None)).chain(
            members(&self.root, top)
                .into_iter()
                .map(|(m, of)| (m, Some(of))),
        );
        for (d, of) in stack {
            // a disk already watched (SRC's disk under DST's loop device): once
            if self.disks.iter().any(|w| w.0 == d) {
                continue;
            }
            if let Some(st) = read_stat(&self.root, &d) {
                self.disks.push((d, of, role.clone(), st));
            }
        }
    }

    /// The counters now against the start (devices that cannot be read again are left
    /// out; no process counters when either reading failed).
    pub fn finish(&self) -> DeviceView {
        let ms = self.t0.elapsed().as_millis() as u64;
        let io = own_io();
        let devices = self
            .disks
            .iter()
            .filter_map(|(name, of, role, a)| {
                let b = read_stat(&self.root, name)?;
                let (wc, fua) = write_cache(&self.root, name);
                Some(DeviceActivity {
                    member_of: of.clone(),
                    role: role.clone(),
                    write_cache: wc,
                    fua,
                    ..DeviceActivity::between(name, *a, b, ms)
                })
            })
            .collect();
        let process = match (self.io, io) {
            (Some(a), Some(b)) => Some(ProcIo {
                rchar: b.rchar.saturating_sub(a.rchar),
                wchar: b.wchar.saturating_sub(a.wchar),
                read_bytes: b.read_bytes.saturating_sub(a.read_bytes),
                write_bytes: b.write_bytes.saturating_sub(a.write_bytes),
                cancelled_write_bytes: b
                    .cancelled_write_bytes
                    .saturating_sub(a.cancelled_write_bytes),
            }),
            _ => None,
        };
        DeviceView {
            devices,
            process,
            ranks: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::probe::tests::put;

    #[test]
    fn stat_fields_by_kernel_generation() {
        let a = parse_stat("10 1 80 5 20 2 160 9 0 100 14").unwrap();
        assert_eq!((a.fields, a.read_sectors, a.write_sectors), (11, 80, 160));
        let b = parse_stat("10 1 80 5 20 2 160 9 0 100 14 3 0 24 2 7 21").unwrap();
        assert_eq!(
            (b.discard_ios, b.discard_sectors, b.discard_ticks),
            (3, 24, 2)
        );
        assert_eq!((b.flush_ios, b.flush_ticks, b.fields), (7, 21, 17));
        assert!(parse_stat("1 2 3").is_none());
        // an 11-field kernel: no discard or flush counts claimed
        let v = DeviceActivity::between("sda", a, a, 1000);
        assert_eq!((v.discards, v.flushes), (None, None));
    }

    /// Ticks per request, queue depth = time_in_queue / elapsed, utilisation capped at 100.
    #[test]
    fn activity_is_the_difference() {
        let a = parse_stat("10 0 80 5 20 0 160 9 0 100 14 0 0 0 0 7 21").unwrap();
        let b = parse_stat("30 0 480 45 120 0 960 209 0 600 2014 0 0 0 0 57 71").unwrap();
        let v = DeviceActivity::between("vdz", a, b, 1000);
        assert_eq!((v.reads, v.writes, v.flushes), (20, 100, Some(50)));
        assert_eq!((v.read_bytes, v.write_bytes), (400 * 512, 800 * 512));
        assert_eq!(v.read_ms_per_io, Some(2.0));
        assert_eq!(v.write_ms_per_io, Some(2.0));
        assert_eq!(v.flush_ms_per_io, Some(1.0));
        assert_eq!((v.queue_depth, v.util_pct), (2.0, 50.0));
        let w = DeviceActivity::between("vdz", a, b, 100);
        assert_eq!(w.util_pct, 100.0);
    }

    #[test]
    fn proc_io_fields() {
        let p = parse_proc_io("rchar: 10\nwchar: 20\nsyscr: 1\nsyscw: 2\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n").unwrap();
        assert_eq!((p.read_bytes, p.write_bytes, p.wchar), (4096, 8192, 20));
        assert!(parse_proc_io("rchar: 1\n").is_none());
    }

    /// A recorded md0 over two disks: the members are found through `slaves/`, a
    /// partition member is counted on its disk, the write cache is read per disk.
    #[test]
    fn md_members_and_write_cache_from_a_fixture() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        put(
            r,
            "sys/devices/virtual/block/md0/stat",
            "1 0 8 0 2 0 16 0 0 0 0 0 0 0 0 3 1\n",
        );
        put(
            r,
            "sys/devices/pci/sda/stat",
            "1 0 8 0 2 0 16 0 0 0 0 0 0 0 0 3 1\n",
        );
        put(r, "sys/devices/pci/sda/sda1/partition", "1\n");
        put(r, "sys/devices/pci/sda/queue/write_cache", "write back\n");
        put(
            r,
            "sys/devices/pci/sdb/queue/write_cache",
            "write through\n",
        );
        put(r, "sys/devices/pci/sdb/queue/fua", "1\n");
        std::fs::create_dir_all(r.join("sys/class/block")).unwrap();
        std::fs::create_dir_all(r.join("sys/block")).unwrap();
        std::fs::create_dir_all(r.join("sys/devices/virtual/block/md0/slaves")).unwrap();
        let ln = |t: &str, l: &str| std::os::unix::fs::symlink(t, r.join(l)).unwrap();
        ln("../../devices/virtual/block/md0", "sys/class/block/md0");
        ln("../devices/virtual/block/md0", "sys/block/md0");
        ln("../../devices/pci/sda", "sys/class/block/sda");
        ln("../devices/pci/sda", "sys/block/sda");
        ln("../../devices/pci/sda/sda1", "sys/class/block/sda1");
        ln("../../devices/pci/sdb", "sys/class/block/sdb");
        ln("../devices/pci/sdb", "sys/block/sdb");
        ln(
            "../../../../pci/sda/sda1",
            "sys/devices/virtual/block/md0/slaves/sda1",
        );
        ln(
            "../../../../pci/sdb",
            "sys/devices/virtual/block/md0/slaves/sdb",
        );
        let root = Root(r.to_path_buf());
        assert_eq!(disk_of(&root, "sda1"), "sda");
        let m = members(&root, "md0");
        assert_eq!(
            m,
            vec![("sda".into(), "md0".into()), ("sdb".into(), "md0".into())]
        );
        assert_eq!(write_cache(&root, "sda"), (Some("write back".into()), None));
        assert_eq!(
            write_cache(&root, "sdb"),
            (Some("write through".into()), Some(true))
        );
        let w = Watch::start(&root, Some("md0"));
        let v = w.finish();
        // sdb has no stat file in the fixture: left out
        let names: Vec<&str> = v.devices.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["md0", "sda"]);
        assert_eq!(v.devices[1].member_of.as_deref(), Some("md0"));
        assert_eq!(v.devices[0].flushes, Some(0));
    }
}
