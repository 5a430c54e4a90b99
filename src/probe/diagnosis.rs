//! `diagnose`: from a path to a [`Diagnosis`] — the stack, the ceiling, the findings
//! with their evidence, and what could not be read.
//!
//! This module owns the order of the walk (path → mount → filesystem → block devices →
//! transport → links) and the evaluation of the §6 verdict table; the facts come from
//! the small modules next to it. Every read goes through one [`Sys`] rooted at `/` or
//! at `--root`: with a fixture root the path is never looked at on the real machine
//! (its stat facts come from the fixture's optional `probe` file, diagnose.md §5.2).
//! Nothing here fails: whatever cannot be read becomes an [`Unknown`].

use super::blockdev::{self, BlockDevice, Transport};
use super::ceiling::{self, Ceiling, Rated};
use super::findings::{gb, gbytes, gib, Finding, Severity, Unknown};
use super::mountinfo::{self, Mount};
use super::pcie::{self, PciPath};
use super::sysroot::Sys;
use super::system::{self, Cpu, Memory};
use super::{sata, verdicts, Root};
use serde::{Deserialize, Serialize};

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

/// One line of the stack.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Layer {
    /// Nesting (0 = top).
    pub depth: u32,
    /// `path`, `mount`, `filesystem`, `partition`, `disk`, `md`, `nvme`, `pcie` …
    pub kind: String,
    /// Human description with the values read.
    pub text: String,
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

/// Filesystem name of a `statfs` magic (diagnose.md §1.3).
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

/// Collects the answer while walking.
pub(super) struct Walk<'a> {
    pub(super) sys: Sys<'a>,
    pub(super) stack: Vec<Layer>,
    pub(super) findings: Vec<Finding>,
    pub(super) unknowns: Vec<Unknown>,
    pub(super) mounts: Vec<Mount>,
}

impl Walk<'_> {
    pub(super) fn layer(&mut self, depth: u32, kind: &str, text: String) {
        self.stack.push(Layer {
            depth,
            kind: kind.into(),
            text,
        });
    }
    pub(super) fn unknown(&mut self, what: impl Into<String>, why: impl Into<String>) {
        self.unknowns.push(Unknown {
            what: what.into(),
            why: why.into(),
        });
    }
    pub(super) fn find(&mut self, f: Finding) {
        if !self
            .findings
            .iter()
            .any(|g| g.id == f.id && g.message == f.message)
        {
            self.findings.push(f);
        }
    }
}

/// Diagnose `inputs.path` on the machine under `root`.
pub fn diagnose(root: &Root, inputs: &Inputs) -> Diagnosis {
    let sys = Sys::new(root);
    let live = root.0 == std::path::Path::new("/");
    let mut target = inputs.path.clone();
    if !target.starts_with('/') {
        target = if live {
            std::env::current_dir()
                .map(|d| d.join(&target).to_string_lossy().into_owned())
                .unwrap_or_else(|_| format!("/{target}"))
        } else {
            format!("/{target}")
        };
    }
    // Live: resolve symlinks so the mount lookup sees the real location.
    let lookup = if live {
        std::fs::canonicalize(&target)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| mountinfo::normalize(&target))
    } else {
        mountinfo::normalize(&target)
    };
    let mut w = Walk {
        sys,
        stack: Vec::new(),
        findings: Vec::new(),
        unknowns: Vec::new(),
        mounts: Vec::new(),
    };
    let stat = if live {
        live_stat(&lookup)
    } else {
        probe_stat(&sys, &lookup)
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
            None => lookup.clone(),
        },
    );

    // Mount.
    match sys.read("/proc/self/mountinfo") {
        Some(t) => w.mounts = mountinfo::parse(&t),
        None => w.unknown(
            "/proc/self/mountinfo",
            "missing or unreadable: mount unknown",
        ),
    }
    let is_node = stat.as_ref().is_some_and(|s| s.kind == "blk");
    let node_dev = stat.as_ref().and_then(|s| s.rdev).filter(|_| is_node);
    let mount = if let Some((a, b)) = node_dev {
        mountinfo::find_by_dev(&w.mounts, a, b).cloned()
    } else {
        let by_id = stat
            .as_ref()
            .and_then(|s| s.mnt_id)
            .and_then(|id| w.mounts.iter().rev().find(|m| m.id == id).cloned());
        by_id.or_else(|| mountinfo::find(&w.mounts, &lookup).cloned())
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

    // Filesystem.
    let fs_type = mount.as_ref().map(|m| m.fs_type.clone());
    // For a device node, statfs describes devtmpfs, not the device's filesystem.
    let magic = stat.as_ref().filter(|_| !is_node).and_then(|s| s.fs_magic);
    if fs_type.is_some() || magic.is_some() {
        let mut t = fs_type.clone().unwrap_or_else(|| "?".into());
        if let Some(mg) = magic {
            t.push_str(&format!(
                " (statfs magic {mg:#x}{})",
                fs_name(mg).map(|n| format!(" = {n}")).unwrap_or_default()
            ));
        }
        if let Some(m) = &mount {
            if m.fs_root != "/" {
                t.push_str(&format!(", bind/subvolume root {}", m.fs_root));
            }
        }
        w.layer(0, "filesystem", t);
    }
    if let Some(m) = &mount {
        verdicts::fs_findings(&mut w, m);
    }

    // Block devices.
    let devnum = node_dev.or_else(|| mount.as_ref().map(|m| (m.major, m.minor)));
    let mut device = None;
    match devnum {
        Some((0, _)) => {
            if let Some(m) = mount.clone() {
                device = no_block_device(&mut w, &m, 0);
            }
        }
        Some((a, b)) => device = open_device(&mut w, a, b, 0),
        None => {}
    }
    if let Some(d) = &device {
        stack_of(&mut w, d, 0);
        verdicts::device_findings(&mut w, d, &mount);
    }
    verdicts::platform_findings(&mut w, device.as_ref());

    // Ceiling.
    let (ceiling, ceiling_unknown) = match &device {
        Some(d) => match ceiling::of(d, inputs.rated) {
            Ok(c) => (Some(c), None),
            Err(e) => (None, Some(e)),
        },
        None => (None, Some("no block device behind this path".to_string())),
    };
    if let Some(why) = &ceiling_unknown {
        w.unknown("bandwidth ceiling", why.clone());
    }
    verdicts::rated_findings(&mut w, device.as_ref(), ceiling.as_ref(), inputs.rated);

    // Memory, dirty limits, CPU.
    let memory = system::memory(&sys);
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
                verdicts::cache_findings(&mut w, m, inputs.working_set_bytes);
            }
        }
        None => w.unknown("memory", "/proc/meminfo missing or unreadable"),
    }
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

/// `/sys/dev/block/MAJ:MIN` → device tree; loop devices continue on their backing file.
fn open_device(w: &mut Walk, major: u64, minor: u64, depth: u32) -> Option<BlockDevice> {
    let link = format!("/sys/dev/block/{major}:{minor}");
    let dir = w.sys.real_path(&link).filter(|d| w.sys.is_dir(d));
    let Some(dir) = dir else {
        w.unknown(
            format!("block device {major}:{minor}"),
            format!("{link} missing"),
        );
        return None;
    };
    let mut d = blockdev::read(&w.sys, &dir, depth);
    attach_loop_backing(w, &mut d, depth);
    Some(d)
}

/// For every loop device in the tree, diagnose its backing file's device as a member.
fn attach_loop_backing(w: &mut Walk, d: &mut BlockDevice, depth: u32) {
    if depth > blockdev::MAX_DEPTH {
        return;
    }
    for m in &mut d.members {
        attach_loop_backing(w, m, depth + 1);
    }
    if d.role != "loop" || !d.members.is_empty() {
        return;
    }
    let Some((file, _)) = d.loop_backing.clone() else {
        w.unknown(
            format!("backing file of {}", d.name),
            "loop/backing_file missing (device not bound?)",
        );
        return;
    };
    let file = file.trim_end_matches(" (deleted)").to_string();
    let Some(m) = mountinfo::find(&w.mounts, &file).cloned() else {
        w.unknown(format!("backing file {file}"), "no mount found for it");
        return;
    };
    if m.major == 0 {
        if let Some(sub) = no_block_device(w, &m, depth + 1) {
            d.members.push(sub);
        }
        return;
    }
    if let Some(sub) = open_device(w, m.major, m.minor, depth + 1) {
        d.members.push(sub);
    }
}

/// Filesystems without one block device (§1.4): findings, and btrfs members.
fn no_block_device(w: &mut Walk, m: &Mount, depth: u32) -> Option<BlockDevice> {
    let t = m.fs_type.as_str();
    let ev = (
        "/proc/self/mountinfo",
        format!("{} {} {}", m.mount_point, t, m.source),
    );
    let nsb = "no single block device behind this path";
    match t {
        "tmpfs" | "ramfs" | "devtmpfs" => w.find(
            Finding::new(
                "MEMORY_FS",
                Severity::Cache,
                format!(
                    "Target is on {t} (RAM): results are memory speed, even with O_DIRECT; {nsb}."
                ),
            )
            .with(ev.0, ev.1),
        ),
        "nfs" | "nfs4" | "cifs" | "smb3" | "9p" | "ceph" => {
            let vers = m
                .option("vers")
                .map(|v| format!(", vers={v}"))
                .unwrap_or_default();
            w.find(
                Finding::new(
                    "NETWORK_FS",
                    Severity::Info,
                    format!(
                        "Target is on {} ({}{vers}): the network and server set the limit; {nsb}.",
                        t.to_uppercase(),
                        m.source
                    ),
                )
                .with(ev.0, ev.1),
            )
        }
        "overlay" => {
            let layer_dev = |dir: Option<&str>| -> String {
                dir.and_then(|d| mountinfo::find(&w.mounts, d))
                    .map(|mm| format!("{} ({})", mm.source, mm.fs_type))
                    .unwrap_or_else(|| "unknown".into())
            };
            let lower = m.option("lowerdir").and_then(|l| l.split(':').next_back());
            let upper = m.option("upperdir");
            let msg = format!(
                "Target is on overlayfs: reads come from lower layer {}, writes go to upper layer {}; {nsb}.",
                layer_dev(lower),
                layer_dev(upper)
            );
            w.find(Finding::new("OVERLAY_FS", Severity::Info, msg).with(ev.0, ev.1))
        }
        "zfs" => {
            let pool = m.source.split('/').next().unwrap_or("").to_string();
            let arc = w
                .sys
                .read("/proc/spl/kstat/zfs/arcstats")
                .and_then(|a| {
                    a.lines()
                        .find(|l| l.starts_with("c_max "))
                        .and_then(|l| l.split_whitespace().nth(2)?.parse::<u64>().ok())
                })
                .map(|b| format!("max {}", gib(b)))
                .unwrap_or_else(|| "size unknown".into());
            w.find(
                Finding::new(
                    "ZFS_POOL",
                    Severity::Info,
                    format!(
                        "Target is on ZFS (pool {pool}): members not visible in sysfs (`zpool status -P`); ARC ({arc}) caches reads."
                    ),
                )
                .with(ev.0, ev.1),
            )
        }
        "btrfs" => return btrfs(w, m, depth),
        _ if t.starts_with("fuse") => {
            let name = t.strip_prefix("fuse.").unwrap_or(t);
            w.find(
                Finding::new(
                    "FUSE_FS",
                    Severity::Info,
                    format!(
                        "Target is on a FUSE filesystem ({name}): every I/O passes through a user-space daemon; O_DIRECT may be ignored."
                    ),
                )
                .with(ev.0, ev.1),
            )
        }
        _ => w.unknown(
            format!("device of {} ({t})", m.mount_point),
            format!("anonymous device {}:{}: {nsb}", m.major, m.minor),
        ),
    }
    None
}

/// btrfs: members from `/sys/fs/btrfs/<uuid>/devices`, profile from `allocation/data`.
fn btrfs(w: &mut Walk, m: &Mount, depth: u32) -> Option<BlockDevice> {
    let src = m.source.trim_start_matches("/dev/").to_string();
    let fsdir = w
        .sys
        .list("/sys/fs/btrfs")
        .unwrap_or_default()
        .into_iter()
        .find(|u| {
            w.sys
                .list(&format!("/sys/fs/btrfs/{u}/devices"))
                .is_some_and(|d| d.contains(&src))
        });
    let Some(u) = fsdir else {
        w.unknown(
            format!("btrfs members of {}", m.mount_point),
            format!("no /sys/fs/btrfs/<uuid>/devices/{src}"),
        );
        return None;
    };
    let base_dir = format!("/sys/fs/btrfs/{u}");
    let profile = w
        .sys
        .list(&format!("{base_dir}/allocation/data"))
        .unwrap_or_default()
        .into_iter()
        .find(|e| {
            [
                "single", "dup", "raid0", "raid1", "raid10", "raid5", "raid6", "raid1c3", "raid1c4",
            ]
            .contains(&e.as_str())
        })
        .unwrap_or_else(|| "unknown".into());
    let members: Vec<BlockDevice> = w
        .sys
        .list(&format!("{base_dir}/devices"))
        .unwrap_or_default()
        .into_iter()
        .filter_map(|e| w.sys.real_path(&format!("{base_dir}/devices/{e}")))
        .filter(|p| w.sys.is_dir(p))
        .map(|p| blockdev::read(&w.sys, &p, depth + 1))
        .collect();
    let n = members.len();
    let sum_note = match profile.as_str() {
        "raid0" => "ceiling is the sum of members",
        "raid1" | "raid1c3" | "raid1c4" | "raid10" => "reads ≈ sum of members, writes ≈ one member",
        _ => "ceiling is one member at a time",
    };
    w.find(
        Finding::new(
            "BTRFS_PROFILE",
            Severity::Info,
            format!("btrfs data profile {profile} across {n} devices: {sum_note}."),
        )
        .with(format!("{base_dir}/allocation/data"), profile.clone()),
    );
    let level = match profile.as_str() {
        "raid0" | "raid1" | "raid10" | "raid5" | "raid6" => profile.clone(),
        "raid1c3" | "raid1c4" => "raid1".into(),
        _ => "linear".into(),
    };
    Some(BlockDevice {
        name: format!("btrfs {}", m.source),
        majmin: None,
        sysfs: base_dir,
        role: "md".into(),
        size_bytes: None,
        model: None,
        queue: Default::default(),
        partition: None,
        md: Some(blockdev::Md {
            level: Some(level),
            raid_disks: Some(n as u64),
            ..Default::default()
        }),
        dm: None,
        loop_backing: None,
        transport: Transport::Virtual,
        pci: None,
        members,
    })
}

pub(super) fn opt_u(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "?".into())
}

/// Stack lines for the device tree.
fn stack_of(w: &mut Walk, d: &BlockDevice, depth: u32) {
    let id = format!(
        "{}{}",
        d.name,
        d.majmin
            .as_ref()
            .map(|m| format!(" ({m})"))
            .unwrap_or_default()
    );
    let size = d
        .size_bytes
        .map(|b| format!(", {}", gbytes(b)))
        .unwrap_or_default();
    match d.role.as_str() {
        "partition" => {
            let p = d.partition.clone().unwrap_or_default();
            let start = p
                .start_sectors
                .map(|s| {
                    format!(
                        "starts at sector {s} ({:.1} MiB)",
                        s as f64 * 512.0 / 1048576.0
                    )
                })
                .unwrap_or_else(|| "start unknown".into());
            w.layer(
                depth,
                "partition",
                format!("{id}: partition {}, {start}{size}", opt_u(p.number)),
            );
        }
        "md" => {
            let md = d.md.clone().unwrap_or_default();
            w.layer(
                depth,
                "md",
                format!(
                    "{id}: {}, {} member slots, chunk {}, state {}{size}",
                    md.level.as_deref().unwrap_or("level unknown"),
                    opt_u(md.raid_disks),
                    md.chunk_bytes
                        .map(|c| format!("{} KiB", c / 1024))
                        .unwrap_or_else(|| "?".into()),
                    md.array_state.as_deref().unwrap_or("?"),
                ),
            );
        }
        "dm" => {
            let (name, uuid) = d.dm.clone().unwrap_or_default();
            let class = uuid.split('-').next().unwrap_or("");
            w.layer(depth, "dm", format!("{id}: {name} ({class}){size}"));
        }
        "loop" => {
            let (file, dio) = d.loop_backing.clone().unwrap_or_default();
            w.layer(
                depth,
                "loop",
                format!("{id}: backing file {file}, direct I/O {}{size}", opt_u(dio)),
            );
        }
        "disk" => {
            let q = &d.queue;
            let mut parts: Vec<String> = Vec::new();
            let mut add = |label: &str, v: Option<String>| {
                if let Some(v) = v {
                    parts.push(format!("{label} {v}"));
                }
            };
            add("scheduler", q.scheduler.clone());
            add("rotational", q.rotational.map(|v| v.to_string()));
            add("write cache", q.write_cache.clone());
            add("read-ahead", q.read_ahead_kb.map(|v| format!("{v} KiB")));
            add(
                "requests ≤",
                q.max_sectors_kb.map(|v| {
                    format!(
                        "{v} KiB{}",
                        q.max_hw_sectors_kb
                            .map(|h| format!(" (hw {h} KiB)"))
                            .unwrap_or_default()
                    )
                }),
            );
            add("nr_requests", q.nr_requests.map(|v| v.to_string()));
            add(
                "blocks",
                q.logical_block_size.map(|l| {
                    format!(
                        "{l}/{} B",
                        q.physical_block_size
                            .map(|p| p.to_string())
                            .unwrap_or_else(|| "?".into())
                    )
                }),
            );
            w.layer(depth, "disk", format!("{id}{size}: {}", parts.join(", ")));
            transport_layer(w, d, depth + 1);
            if let Some(p) = &d.pci {
                pci_layers(w, p, depth + 1);
            }
        }
        other => w.layer(depth, other, format!("{id}{size}")),
    }
    for m in &d.members {
        stack_of(w, m, depth + 1);
    }
}

fn transport_layer(w: &mut Walk, d: &BlockDevice, depth: u32) {
    let model = d.model.clone().unwrap_or_else(|| "model unknown".into());
    match &d.transport {
        Transport::Nvme {
            controller,
            fabric,
            firmware,
            io_queues,
            queue_depth,
            temp_c,
            temp_max_c,
            ..
        } => {
            let temp = temp_c
                .map(|t| {
                    format!(
                        ", {t:.1} °C{}",
                        temp_max_c.map(|m| format!(" (warning at {m:.1} °C)")).unwrap_or_default()
                    )
                })
                .unwrap_or_default();
            w.layer(
                depth,
                "nvme",
                format!(
                    "{controller} over {}: {model}, firmware {}, {} I/O queues × {}{temp}",
                    fabric.as_deref().unwrap_or("?"),
                    firmware.as_deref().unwrap_or("?"),
                    opt_u(*io_queues),
                    opt_u(*queue_depth),
                ),
            );
        }
        Transport::Sata { queue_depth, link, .. } => w.layer(
            depth,
            "sata",
            format!(
                "{}: {model}, link {}, drive supports {}, NCQ depth {}{}",
                link.port,
                link.spd_raw.as_deref().unwrap_or("?"),
                link.drive_max.map(sata::gen_label).unwrap_or("?"),
                opt_u(*queue_depth),
                match link.non_rotating {
                    Some(true) => ", non-rotating (ATA word 217)",
                    Some(false) => ", rotating (ATA word 217)",
                    None => "",
                }
            ),
        ),
        Transport::Usb { link, .. } => w.layer(
            depth,
            "usb",
            format!(
                "{}: {}, {} Mb/s, bcdUSB {}, driver {}{}{}",
                link.device,
                link.product.clone().unwrap_or(model),
                link.speed_mbit.map(|s| s.to_string()).unwrap_or_else(|| "?".into()),
                link.version.as_deref().unwrap_or("?"),
                link.driver.as_deref().unwrap_or("?"),
                match link.bos {
                    Some(b) if b.superspeed || b.superspeed_plus => ", SuperSpeed capable (BOS)",
                    Some(_) => ", no SuperSpeed capability in BOS",
                    None => "",
                },
                link.peer_port
                    .as_deref()
                    .map(|p| format!(
                        "; SuperSpeed peer {} {} (root hub {} Mb/s)",
                        super::sysroot::base(p),
                        link.peer_state.as_deref().unwrap_or("state unknown"),
                        link.peer_hub_speed.map(|s| s.to_string()).unwrap_or_else(|| "?".into())
                    ))
                    .unwrap_or_default()
            ),
        ),
        Transport::Virtio {
            device,
            multiqueue,
            hw_queues,
            tags,
            ..
        } => w.layer(
            depth,
            "virtio",
            format!(
                "{device}: virtio-blk ({model}), {} hardware queue(s) ({} tags), multiqueue feature {}",
                opt_u(*hw_queues),
                opt_u(*tags),
                match multiqueue {
                    Some(true) => "on",
                    Some(false) => "off",
                    None => "unknown",
                }
            ),
        ),
        Transport::Scsi { queue_depth, .. } => w.layer(
            depth,
            "scsi",
            format!("{model}, queue depth {}", opt_u(*queue_depth)),
        ),
        Transport::Mmc { card_type } => w.layer(
            depth,
            "mmc",
            format!("{} card {model}", card_type.as_deref().unwrap_or("?")),
        ),
        Transport::Virtual => {}
        Transport::Unknown => {
            w.layer(depth, "transport", format!("unknown ({})", d.sysfs));
            w.unknown(format!("transport of {}", d.name), format!("path {} not recognised", d.sysfs));
        }
    }
}

fn pci_layers(w: &mut Walk, p: &PciPath, depth: u32) {
    for (i, f) in p.functions.iter().enumerate() {
        let ids = format!(
            "[{}:{}] class {}{}",
            f.vendor.as_deref().unwrap_or("?").trim_start_matches("0x"),
            f.device.as_deref().unwrap_or("?").trim_start_matches("0x"),
            f.class.as_deref().unwrap_or("?"),
            f.driver
                .as_ref()
                .map(|d| format!(" driver {d}"))
                .unwrap_or_default()
        );
        let link = p.links.iter().find(|l| l.downstream == f.address);
        let text = match link {
            Some(l) => format!(
                "{} {ids}: link to {} at {} GT/s x{} ({}, {} raw, ≈ {} real); own max {}, port max {}",
                f.address,
                l.upstream,
                l.gen.gts(),
                l.width,
                pcie::label(l.gen, l.width),
                gb(l.raw_mb_s),
                gb(l.realistic_mb_s),
                gen_w(l.device_max_gen, l.device_max_width),
                gen_w(l.port_max_gen, l.port_max_width),
            ),
            None if i == 0 && p.functions.len() > 1 => format!(
                "{} {ids}: {}, max {}",
                f.address,
                if f.is_bridge() { "root port" } else { "first function" },
                gen_w(f.max_gen, f.max_width)
            ),
            None => format!("{} {ids}: no PCIe link information", f.address),
        };
        w.layer(depth, "pci", text);
    }
    for (addr, why) in &p.unreadable {
        w.unknown(format!("PCIe link of {addr}"), why.clone());
    }
}

fn gen_w(g: Option<pcie::Gen>, wd: Option<u32>) -> String {
    match (g, wd) {
        (Some(g), Some(wd)) => pcie::label(g, wd),
        (Some(g), None) => format!("Gen{} x?", g.0),
        (None, Some(wd)) => format!("Gen? x{wd}"),
        _ => "unknown".into(),
    }
}

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
    s
}
