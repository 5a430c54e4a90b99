//! `diagnose`: from a path to a [`Diagnosis`] — the stack, the ceiling, the findings
//! with their evidence, and what could not be read.
//!
//! This module owns the order of the walk (path → mount → filesystem → block devices →
//! transport → links) and the evaluation of the verdict table; the facts come from
//! the small modules next to it. Every read goes through one [`Sys`] rooted at `/` or
//! at `--root`: with a fixture root the path is never looked at on the real machine
//! (its stat facts come from the fixture's optional `probe` file.2).
//! Nothing here fails: whatever cannot be read becomes an [`Unknown`].

use super::blockdev::{BlockDevice, Transport};
use super::ceiling::{self, Ceiling, Rated};
use super::findings::{gib, Finding, Unknown};
use super::mountinfo::{self, Mount};
use super::sysroot::Sys;
use super::system::{self, Cpu, Memory};
use super::walk::Walk;
use super::walk_links::*;
use super::walk_mounts::*;
use super::{verdicts, Root};
use serde::{Deserialize, Serialize};

pub use super::walk::Layer;

/// Version of the JSON layout of [`Diagnosis`].
pub const SCHEMA_VERSION: u32 = 1;

/// What the user asked about, plus the optional workload facts some findings need.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Inputs {
    /// File, directory or device node (absolute, or relative to the current directory).
    pub path: String,
    /// Advertised drive speeds.
    pub rated: Rated,
    /// Bytes the benchmark will touch (for `PAGE_CACHE_FITS`).
    pub working_set_bytes: Option<u64>,
    /// The workload uses O_DIRECT (no page-cache findings).
    pub direct_io: bool,
}

/// How the target was stat-ed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PathStat {
    /// `file`, `dir`, `blk`, `chr`, `other`.
    pub kind: String,
    /// `st_dev` as `(major, minor)`.
    pub dev: Option<(u64, u64)>,
    /// `st_rdev` for device nodes.
    pub rdev: Option<(u64, u64)>,
    /// `statfs` `f_type`.
    pub fs_magic: Option<u64>,
    /// `statx` mount ID.
    pub mnt_id: Option<u64>,
    /// Where these facts came from (`statx`, fixture `probe` file).
    pub source: String,
}

/// Compact facts for a benchmark result (`RunResult.diagnosis`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Physical device model(s).
    pub device_model: Option<String>,
    /// `nvme`, `sata`, `usb`, `virtio`, `md raid0 of nvme` …
    pub transport: Option<String>,
    /// Limiting link, e.g. `PCIe Gen2 x4 at 0000:00:1c.4`.
    pub link: Option<String>,
    /// Realistic ceiling, MB/s.
    pub ceiling_mb_s: Option<f64>,
    /// Filesystem type.
    pub filesystem: Option<String>,
    /// MemTotal, bytes.
    pub ram_bytes: Option<u64>,
    /// Scheduler of the top disk.
    pub scheduler: Option<String>,
}

/// The full answer of `iomark diagnose`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diagnosis {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The path asked about.
    pub target: String,
    /// Root the machine was read from (`/` live).
    pub root: String,
    /// Stat facts of the target.
    pub stat: Option<PathStat>,
    /// One line per layer, top first.
    pub stack: Vec<Layer>,
    /// The mount holding the target.
    pub mount: Option<Mount>,
    /// Filesystem type.
    pub filesystem: Option<String>,
    /// Block device tree (top device first).
    pub device: Option<BlockDevice>,
    /// Bandwidth ceiling, when one can be derived.
    pub ceiling: Option<Ceiling>,
    /// Why there is no ceiling.
    pub ceiling_unknown: Option<String>,
    /// Memory and dirty limits.
    pub memory: Option<Memory>,
    /// CPU facts.
    pub cpu: Cpu,
    /// Findings, most severe first.
    pub findings: Vec<Finding>,
    /// What could not be read, and why.
    pub unknowns: Vec<Unknown>,
    /// Compact form for benchmark results.
    pub summary: Summary,
}

impl Diagnosis {
    /// The finding with `id`, if present.
    pub fn finding(&self, id: &str) -> Option<&Finding> {
        self.findings.iter().find(|f| f.id == id)
    }
}

/// Filesystem name of a `statfs` magic.
pub fn fs_name(magic: u64) -> Option<&'static str> {
    Some(match magic {
        0xEF53 => "ext2/3/4",
        0x5846_5342 => "xfs",
        0x9123_683E => "btrfs",
        0xF2F5_2010 => "f2fs",
        0x2011_BAB0 => "exfat",
        0x4D44 => "vfat",
        0x2FC1_2FC1 => "zfs",
        0x794C_7630 => "overlay",
        0x0102_1994 => "tmpfs",
        0x8584_58F6 => "ramfs",
        0x6969 => "nfs",
        0xFF53_4D42 => "cifs",
        0xFE53_4D42 => "smb2",
        0x0102_1997 => "9p",
        0x6573_5546 => "fuse",
        0x00C3_6400 => "ceph",
        0x7371_7368 => "squashfs",
        0x9FA0 => "proc",
        0x6265_6572 => "sysfs",
        _ => return None,
    })
}

/// Options a fixture's `probe` file supplies (`opt name=value` lines).
pub fn probe_options(root: &Root) -> Vec<(String, String)> {
    Sys::new(root)
        .read("/probe")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().strip_prefix("opt "))
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// Parse a `P stat` line's fields for `path` from the fixture `probe` file.
fn probe_stat(sys: &Sys, path: &str) -> Option<PathStat> {
    let text = sys.read("/probe")?;
    for l in text.lines() {
        let Some(rest) = l.trim().strip_prefix("stat ") else {
            continue;
        };
        let mut it = rest.split_whitespace();
        if mountinfo::normalize(it.next()?) != mountinfo::normalize(path) {
            continue;
        }
        let mut st = PathStat {
            source: "fixture probe file".into(),
            ..PathStat::default()
        };
        for kv in it {
            let Some((k, v)) = kv.split_once('=') else {
                continue;
            };
            match k {
                "dev" => st.dev = mountinfo::parse_majmin(v),
                "rdev" => st.rdev = mountinfo::parse_majmin(v),
                "kind" => st.kind = v.to_string(),
                "fs" => st.fs_magic = u64::from_str_radix(v.trim_start_matches("0x"), 16).ok(),
                "mnt" => st.mnt_id = v.parse().ok(),
                _ => {}
            }
        }
        return Some(st);
    }
    None
}

/// glibc's `gnu_dev_major/minor` split of a 64-bit `dev_t`.
fn split_dev(d: u64) -> (u64, u64) {
    (
        ((d >> 8) & 0xfff) | ((d >> 32) & !0xfff),
        (d & 0xff) | ((d >> 12) & !0xff),
    )
}

/// Stat a path on the live machine (statx for the mount ID, statfs for the magic).
#[allow(clippy::unnecessary_cast)]
fn live_stat(path: &str) -> Option<PathStat> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let m = std::fs::metadata(path).ok()?;
    let ft = m.file_type();
    let kind = if ft.is_block_device() {
        "blk"
    } else if ft.is_char_device() {
        "chr"
    } else if ft.is_dir() {
        "dir"
    } else if ft.is_file() {
        "file"
    } else {
        "other"
    };
    let mnt_id = rustix::fs::statx(
        rustix::fs::CWD,
        path,
        rustix::fs::AtFlags::empty(),
        rustix::fs::StatxFlags::BASIC_STATS | rustix::fs::StatxFlags::MNT_ID,
    )
    .ok()
    .filter(|s| s.stx_mask & rustix::fs::StatxFlags::MNT_ID.bits() != 0)
    .map(|s| s.stx_mnt_id);
    let fs_magic = rustix::fs::statfs(path)
        .ok()
        .map(|s| (s.f_type as i64 as u64) & 0xffff_ffff);
    Some(PathStat {
        kind: kind.into(),
        dev: Some(split_dev(m.dev())),
        rdev: (kind == "blk" || kind == "chr").then(|| split_dev(m.rdev())),
        fs_magic,
        mnt_id,
        source: "statx/statfs".into(),
    })
}

/// Diagnose `inputs.path` on the machine under `root`: the path, its mount, filesystem
/// and block devices, the bandwidth ceiling, then memory and CPU, each a layer of the
/// stack with its findings.
pub fn diagnose(root: &Root, inputs: &Inputs) -> Diagnosis {
    let sys = Sys::new(root);
    let live = root.0 == std::path::Path::new("/");
    let lookup = lookup_path(&inputs.path, live);
    let mut w = Walk {
        sys,
        stack: Vec::new(),
        findings: Vec::new(),
        unknowns: Vec::new(),
        mounts: Vec::new(),
    };
    let stat = path_layer(&mut w, &lookup, live);
    let is_node = stat.as_ref().is_some_and(|s| s.kind == "blk");
    let node_dev = stat.as_ref().and_then(|s| s.rdev).filter(|_| is_node);
    let mount = mount_layer(&mut w, stat.as_ref(), node_dev, &lookup);
    let fs_type = mount.as_ref().map(|m| m.fs_type.clone());
    // For a device node, statfs describes devtmpfs, not the device's filesystem.
    let magic = stat.as_ref().filter(|_| !is_node).and_then(|s| s.fs_magic);
    filesystem_layer(&mut w, fs_type.as_deref(), magic, mount.as_ref());
    let devnum = node_dev.or_else(|| mount.as_ref().map(|m| (m.major, m.minor)));
    let device = device_layers(&mut w, devnum, &mount);
    let (ceiling, ceiling_unknown) = ceiling_of(&mut w, device.as_ref(), inputs.rated);
    let memory = memory_layer(&mut w, inputs);
    let cpu = system::cpu(&sys);
    verdicts::cpu_findings(&mut w, &cpu);

    let summary = summarize(
        device.as_ref(),
        ceiling.as_ref(),
        fs_type.clone(),
        memory.as_ref(),
    );
    let mut findings = w.findings;
    findings.sort_by_key(|f| f.severity);
    Diagnosis {
        schema_version: SCHEMA_VERSION,
        target: lookup,
        root: root.0.to_string_lossy().into_owned(),
        stat,
        stack: w.stack,
        mount,
        filesystem: fs_type,
        device,
        ceiling,
        ceiling_unknown,
        memory,
        cpu,
        findings,
        unknowns: w.unknowns,
        summary,
    }
}

/// The absolute path the mount lookup uses: relative paths against the working
/// directory (live) or `/` (a fixture); live, with symlinks resolved so the lookup sees
/// the real location.
fn lookup_path(path: &str, live: bool) -> String {
    let mut target = path.to_string();
    if !target.starts_with('/') {
        target = if live {
            std::env::current_dir()
                .map(|d| d.join(&target).to_string_lossy().into_owned())
                .unwrap_or_else(|_| format!("/{target}"))
        } else {
            format!("/{target}")
        };
    }
    if live {
        std::fs::canonicalize(&target)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| mountinfo::normalize(&target))
    } else {
        mountinfo::normalize(&target)
    }
}

/// The path's stat (live, or the fixture's probe file) and its layer.
fn path_layer(w: &mut Walk, lookup: &str, live: bool) -> Option<PathStat> {
    let stat = if live {
        live_stat(lookup)
    } else {
        probe_stat(&w.sys, lookup)
    };
    if stat.is_none() {
        let why = if live {
            "stat failed".to_string()
        } else {
            "no `stat` line for it in the fixture's probe file; using the mount table only".into()
        };
        w.unknown(format!("stat of {lookup}"), why);
    }
    w.layer(
        0,
        "path",
        match &stat {
            Some(s) => format!("{lookup} ({})", s.kind),
            None => lookup.to_string(),
        },
    );
    stat
}

/// The mount holding the path (by device number for a device node, else by mount id,
/// else the longest prefix in mountinfo) and its layer; `w.mounts` keeps the table.
fn mount_layer(
    w: &mut Walk,
    stat: Option<&PathStat>,
    node_dev: Option<(u64, u64)>,
    lookup: &str,
) -> Option<Mount> {
    match w.sys.read("/proc/self/mountinfo") {
        Some(t) => w.mounts = mountinfo::parse(&t),
        None => w.unknown(
            "/proc/self/mountinfo",
            "missing or unreadable: mount unknown",
        ),
    }
    let mount = if let Some((a, b)) = node_dev {
        mountinfo::find_by_dev(&w.mounts, a, b).cloned()
    } else {
        let by_id = stat
            .and_then(|s| s.mnt_id)
            .and_then(|id| w.mounts.iter().rev().find(|m| m.id == id).cloned());
        by_id.or_else(|| mountinfo::find(&w.mounts, lookup).cloned())
    };
    if let Some(m) = &mount {
        w.layer(
            0,
            "mount",
            format!(
                "{} (mount {}, {} from {}; options {} | {})",
                m.mount_point, m.id, m.fs_type, m.source, m.mount_options, m.super_options
            ),
        );
    } else if !w.mounts.is_empty() && node_dev.is_none() {
        w.unknown(
            "mount",
            format!("no mount point in mountinfo is a prefix of {lookup}"),
        );
    }
    mount
}

/// The filesystem layer (mount's type, statfs magic, bind root) and its findings.
fn filesystem_layer(
    w: &mut Walk,
    fs_type: Option<&str>,
    magic: Option<u64>,
    mount: Option<&Mount>,
) {
    if fs_type.is_some() || magic.is_some() {
        let mut t = fs_type.unwrap_or("?").to_string();
        if let Some(mg) = magic {
            t.push_str(&format!(
                " (statfs magic {mg:#x}{})",
                fs_name(mg).map(|n| format!(" = {n}")).unwrap_or_default()
            ));
        }
        if let Some(m) = mount {
            if m.fs_root != "/" {
                t.push_str(&format!(", bind/subvolume root {}", m.fs_root));
            }
        }
        w.layer(0, "filesystem", t);
    }
    if let Some(m) = mount {
        verdicts::fs_findings(w, m);
    }
}

/// The block device behind `devnum` (none for major 0: a filesystem without one), its
/// stack of layers and the device and platform findings.
fn device_layers(
    w: &mut Walk,
    devnum: Option<(u64, u64)>,
    mount: &Option<Mount>,
) -> Option<BlockDevice> {
    let mut device = None;
    match devnum {
        Some((0, _)) => {
            if let Some(m) = mount.clone() {
                device = no_block_device(w, &m, 0);
            }
        }
        Some((a, b)) => device = open_device(w, a, b, 0),
        None => {}
    }
    if let Some(d) = &device {
        stack_of(w, d, 0);
        verdicts::device_findings(w, d, mount);
    }
    verdicts::platform_findings(w, device.as_ref());
    device
}

/// The bandwidth ceiling of the device, or why it is unknown; the rated findings.
fn ceiling_of(
    w: &mut Walk,
    device: Option<&BlockDevice>,
    rated: Rated,
) -> (Option<Ceiling>, Option<String>) {
    let (ceiling, ceiling_unknown) = match device {
        Some(d) => match ceiling::of(d, rated) {
            Ok(c) => (Some(c), None),
            Err(e) => (None, Some(e)),
        },
        None => (None, Some("no block device behind this path".to_string())),
    };
    if let Some(why) = &ceiling_unknown {
        w.unknown("bandwidth ceiling", why.clone());
    }
    verdicts::rated_findings(w, device, ceiling.as_ref(), rated);
    (ceiling, ceiling_unknown)
}

/// The memory layer (RAM, page cache, dirty limits) and, for buffered I/O, the cache
/// findings.
fn memory_layer(w: &mut Walk, inputs: &Inputs) -> Option<Memory> {
    let memory = system::memory(&w.sys);
    match &memory {
        Some(m) => {
            w.layer(
                0,
                "memory",
                format!(
                    "RAM {} total, {} available, page cache {}; vm.dirty_ratio {}, vm.dirty_bytes {}",
                    m.total_bytes.map(gib).unwrap_or_else(|| "?".into()),
                    m.available_bytes.map(gib).unwrap_or_else(|| "?".into()),
                    m.cached_bytes.map(gib).unwrap_or_else(|| "?".into()),
                    m.dirty_ratio.map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
                    m.dirty_bytes_setting.map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
                ),
            );
            if !inputs.direct_io {
                verdicts::cache_findings(w, m, inputs.working_set_bytes);
            }
        }
        None => w.unknown("memory", "/proc/meminfo missing or unreadable"),
    }
    memory
}

/// `/sys/dev/block/MAJ:MIN` → device tree; loop devices continue on their backing file.
/// Physical leaves of a tree.
fn leaves(d: &BlockDevice) -> Vec<&BlockDevice> {
    if d.members.is_empty() {
        vec![d]
    } else {
        d.members.iter().flat_map(leaves).collect()
    }
}

fn summarize(
    d: Option<&BlockDevice>,
    c: Option<&Ceiling>,
    fs: Option<String>,
    m: Option<&Memory>,
) -> Summary {
    let mut s = Summary {
        filesystem: fs,
        ram_bytes: m.and_then(|m| m.total_bytes),
        ceiling_mb_s: c.map(|c| c.realistic_mb_s),
        link: c.map(|c| c.set_by.clone()),
        ..Summary::default()
    };
    let Some(d) = d else { return s };
    let lv = leaves(d);
    let mut models: Vec<String> = lv.iter().filter_map(|l| l.model.clone()).collect();
    models.dedup();
    s.device_model = (!models.is_empty()).then(|| models.join(" + "));
    let kind = |l: &BlockDevice| match l.transport {
        Transport::Nvme { .. } => "nvme",
        Transport::Sata { .. } => "sata",
        Transport::Usb { .. } => "usb",
        Transport::Scsi { .. } => "scsi",
        Transport::Virtio { .. } => "virtio",
        Transport::Mmc { .. } => "mmc",
        Transport::Virtual => "virtual",
        Transport::Unknown => "unknown",
    };
    let t = lv.first().map(|l| kind(l)).unwrap_or("unknown");
    s.transport = Some(match d.md.as_ref().and_then(|m| m.level.clone()) {
        Some(level) => format!("md {level} of {} × {t}", lv.len()),
        None => t.to_string(),
    });
    s.scheduler = lv.first().and_then(|l| l.queue.scheduler.clone());
    // a loop device is a file on the devices below it: named as itself, so a result on
    // it is not labelled as (and compared as) the disk that holds its backing file
    if let Some(l) = loop_of(d) {
        s.device_model = Some(match s.device_model.take() {
            Some(below) => format!("{} on {below}", l.name),
            None => l.name.clone(),
        });
        s.transport = s.transport.take().map(|t| format!("loop over {t}"));
    }
    s
}

/// The loop device of a chain: the device itself or the disk of its partition.
fn loop_of(d: &BlockDevice) -> Option<&BlockDevice> {
    match (d.role.as_str(), d.members.as_slice()) {
        ("loop", _) => Some(d),
        ("partition", [disk]) => loop_of(disk),
        _ => None,
    }
}
