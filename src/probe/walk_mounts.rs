//! The walk below a mount: which block device backs it (or why none does: tmpfs, NFS,
//! FUSE, overlay, btrfs multi-device) and the loop backing file. Split from `diagnosis.rs`,
//! which owns the order of the walk; these are its steps.

use super::blockdev::{self, BlockDevice, Transport};
use super::findings::{gib, Finding, Severity};
use super::mountinfo::{self, Mount};
use super::walk::*;

pub(super) fn open_device(w: &mut Walk, major: u64, minor: u64, depth: u32) -> Option<BlockDevice> {
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
pub(super) fn attach_loop_backing(w: &mut Walk, d: &mut BlockDevice, depth: u32) {
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

/// Filesystems without one block device: findings, and btrfs members.
pub(super) fn no_block_device(w: &mut Walk, m: &Mount, depth: u32) -> Option<BlockDevice> {
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
            let msg = overlay_message(w, m, nsb);
            w.find(Finding::new("OVERLAY_FS", Severity::Info, msg).with(ev.0, ev.1))
        }
        "zfs" => {
            let msg = zfs_message(w, m);
            w.find(Finding::new("ZFS_POOL", Severity::Info, msg).with(ev.0, ev.1))
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

/// Where an overlayfs mount's reads and writes go: its lower and upper layers' devices.
fn overlay_message(w: &Walk, m: &Mount, nsb: &str) -> String {
    let layer_dev = |dir: Option<&str>| -> String {
        dir.and_then(|d| mountinfo::find(&w.mounts, d))
            .map(|mm| format!("{} ({})", mm.source, mm.fs_type))
            .unwrap_or_else(|| "unknown".into())
    };
    let lower = m.option("lowerdir").and_then(|l| l.split(':').next_back());
    let upper = m.option("upperdir");
    format!(
        "Target is on overlayfs: reads come from lower layer {}, writes go to upper layer {}; {nsb}.",
        layer_dev(lower),
        layer_dev(upper)
    )
}

/// A ZFS dataset's pool and the ARC's size (arcstats `c_max`).
fn zfs_message(w: &Walk, m: &Mount) -> String {
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
    format!(
        "Target is on ZFS (pool {pool}): members not visible in sysfs (`zpool status -P`); ARC ({arc}) caches reads."
    )
}

/// btrfs: members from `/sys/fs/btrfs/<uuid>/devices`, profile from `allocation/data`.
pub(super) fn btrfs(w: &mut Walk, m: &Mount, depth: u32) -> Option<BlockDevice> {
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
    let profile = btrfs_profile(w, &base_dir);
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

/// The data profile of the btrfs filesystem at `base_dir` (`allocation/data/PROFILE`).
fn btrfs_profile(w: &Walk, base_dir: &str) -> String {
    w.sys
        .list(&format!("{base_dir}/allocation/data"))
        .unwrap_or_default()
        .into_iter()
        .find(|e| {
            [
                "single", "dup", "raid0", "raid1", "raid10", "raid5", "raid6", "raid1c3", "raid1c4",
            ]
            .contains(&e.as_str())
        })
        .unwrap_or_else(|| "unknown".into())
}

pub(super) fn opt_u(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "?".into())
}
