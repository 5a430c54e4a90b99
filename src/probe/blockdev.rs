//! Block devices: from `/sys/dev/block/MAJ:MIN` to a tree of devices down to hardware.
//!
//! Owns the walk: partition → parent disk (the partition's
//! directory sits inside the disk's), stacked devices through `slaves/` (md, dm,
//! loop's backing file is followed by the caller), and the transport classified from
//! the components of the disk's resolved sysfs path (`nvme/nvmeX`, `ataN`, a USB
//! device, `virtioN`, `mmcN`, `hostN`, `virtual/`). Queue limits are read from the
//! disk because partitions have no `queue/`. Depth is bounded so a looped fixture
//! cannot recurse forever.

use super::pcie::PciPath;
use super::sata::SataLink;
use super::sysroot::{base, parent, Sys};
use super::usb::UsbLink;
use serde::{Deserialize, Serialize};

/// Deepest stack followed (md on dm on loop … is rarely more than 4).
pub const MAX_DEPTH: u32 = 8;

/// Request-queue attributes of a disk (`queue/*`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Queue {
    /// Active scheduler (the bracketed entry of `scheduler`, or the single word).
    pub scheduler: Option<String>,
    /// `rotational` (1 = the device claims to spin).
    pub rotational: Option<u64>,
    /// `write_cache` (`write back` / `write through`).
    pub write_cache: Option<String>,
    /// `read_ahead_kb`, KiB.
    pub read_ahead_kb: Option<u64>,
    /// `max_sectors_kb`, KiB.
    pub max_sectors_kb: Option<u64>,
    /// `max_hw_sectors_kb`, KiB.
    pub max_hw_sectors_kb: Option<u64>,
    /// `nr_requests`.
    pub nr_requests: Option<u64>,
    /// `logical_block_size`, bytes.
    pub logical_block_size: Option<u64>,
    /// `physical_block_size`, bytes.
    pub physical_block_size: Option<u64>,
    /// `minimum_io_size`, bytes.
    pub minimum_io_size: Option<u64>,
    /// `optimal_io_size`, bytes.
    pub optimal_io_size: Option<u64>,
    /// `discard_max_bytes` (0 = no discard).
    pub discard_max_bytes: Option<u64>,
}

/// The active entry of a `scheduler` line: `none [mq-deadline] kyber bfq ` → `mq-deadline`.
pub fn parse_scheduler(s: &str) -> Option<String> {
    let s = s.trim();
    if let (Some(a), Some(b)) = (s.find('['), s.find(']')) {
        return (a < b).then(|| s[a + 1..b].to_string());
    }
    (!s.is_empty() && !s.contains(' ')).then(|| s.to_string())
}

impl Queue {
    /// Read `disk/queue/*`.
    pub fn read(sys: &Sys, disk: &str) -> Queue {
        let q = |f: &str| format!("{disk}/queue/{f}");
        let n = |f: &str| sys.read_u64(&q(f));
        Queue {
            scheduler: sys
                .read(&q("scheduler"))
                .as_deref()
                .and_then(parse_scheduler),
            rotational: n("rotational"),
            write_cache: sys.read_trim(&q("write_cache")),
            read_ahead_kb: n("read_ahead_kb"),
            max_sectors_kb: n("max_sectors_kb"),
            max_hw_sectors_kb: n("max_hw_sectors_kb"),
            nr_requests: n("nr_requests"),
            logical_block_size: n("logical_block_size"),
            physical_block_size: n("physical_block_size"),
            minimum_io_size: n("minimum_io_size"),
            optimal_io_size: n("optimal_io_size"),
            discard_max_bytes: n("discard_max_bytes"),
        }
    }
}

/// A partition's placement.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Partition {
    /// `partition` (number).
    pub number: Option<u64>,
    /// `start`, 512-byte sectors whatever the logical block size.
    pub start_sectors: Option<u64>,
    /// `alignment_offset`, bytes (0 = aligned, the kernel's verdict).
    pub alignment_offset: Option<u64>,
}

/// md array facts (`md/*`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Md {
    /// `level` (`raid0` …).
    pub level: Option<String>,
    /// `raid_disks`.
    pub raid_disks: Option<u64>,
    /// `chunk_size`, bytes.
    pub chunk_bytes: Option<u64>,
    /// `degraded`.
    pub degraded: Option<u64>,
    /// `sync_action`.
    pub sync_action: Option<String>,
    /// `sync_completed` (`done / total` or `none`).
    pub sync_completed: Option<String>,
    /// `array_state`.
    pub array_state: Option<String>,
}

impl Md {
    /// Members carrying data (raid0: all; raid1: 1; raid10: n/2; raid5: n−1; raid6: n−2).
    pub fn data_disks(&self) -> Option<u64> {
        let n = self.raid_disks?;
        match self.level.as_deref()? {
            "raid0" => Some(n),
            "raid1" | "linear" => Some(1),
            "raid10" => Some((n / 2).max(1)),
            "raid4" | "raid5" => n.checked_sub(1),
            "raid6" => n.checked_sub(2),
            _ => None,
        }
    }
}

/// How the device reaches hardware.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Transport {
    /// NVMe namespace.
    Nvme {
        /// Controller name (`nvme0`).
        controller: String,
        /// Controller sysfs path.
        controller_sysfs: String,
        /// `transport` (`pcie`, `tcp` …).
        fabric: Option<String>,
        /// `firmware_rev`.
        firmware: Option<String>,
        /// I/O queues (`queue_count` − 1).
        io_queues: Option<u64>,
        /// Queue depth (`sqsize` + 1).
        queue_depth: Option<u64>,
        /// Composite temperature, °C.
        temp_c: Option<f64>,
        /// Warning threshold, °C.
        temp_max_c: Option<f64>,
        /// `temp1_alarm`.
        temp_alarm: Option<bool>,
        /// hwmon directory read.
        hwmon: Option<String>,
    },
    /// SATA disk through libata.
    Sata {
        /// SCSI `queue_depth` (1 = NCQ off).
        queue_depth: Option<u64>,
        /// `scsi_disk/*/cache_type`.
        cache_type: Option<String>,
        /// SCSI device directory.
        scsi_device: String,
        /// Link facts.
        link: SataLink,
    },
    /// USB mass storage (UAS or BOT).
    Usb {
        /// SCSI `queue_depth`.
        queue_depth: Option<u64>,
        /// Link facts.
        link: UsbLink,
    },
    /// Other SCSI (SAS, virtio-scsi, iSCSI …).
    Scsi {
        /// SCSI `queue_depth`.
        queue_depth: Option<u64>,
        /// `scsi_disk/*/cache_type`.
        cache_type: Option<String>,
    },
    /// virtio-blk.
    Virtio {
        /// Virtio device name (`virtio1`).
        device: String,
        /// Feature bit 12 (MQ).
        multiqueue: Option<bool>,
        /// Entries in `mq/`.
        hw_queues: Option<u64>,
        /// `mq/0/nr_tags`.
        tags: Option<u64>,
        /// `features` file read.
        features_file: String,
    },
    /// SD/MMC card.
    Mmc {
        /// Card `type`.
        card_type: Option<String>,
    },
    /// md, dm, loop, zram, nbd … (no hardware of its own).
    Virtual,
    /// Could not be classified.
    Unknown,
}

/// One block device and the devices below it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockDevice {
    /// Kernel name (`nvme0n1p1`).
    pub name: String,
    /// `dev` (`259:1`).
    pub majmin: Option<String>,
    /// Resolved sysfs directory (machine path).
    pub sysfs: String,
    /// `partition`, `disk`, `md`, `dm`, `loop`, `zram`, `nbd`, `virtual`.
    pub role: String,
    /// Size, bytes (`size` × 512).
    pub size_bytes: Option<u64>,
    /// Model / identification string, trimmed.
    pub model: Option<String>,
    /// Queue attributes (of the parent disk for a partition).
    pub queue: Queue,
    /// Partition placement.
    pub partition: Option<Partition>,
    /// md facts.
    pub md: Option<Md>,
    /// dm `name` and `uuid`.
    pub dm: Option<(String, String)>,
    /// loop `backing_file` and `dio`.
    pub loop_backing: Option<(String, Option<u64>)>,
    /// Transport of a physical disk.
    pub transport: Transport,
    /// PCI path of a physical disk.
    pub pci: Option<PciPath>,
    /// Devices below (a partition's disk, md/dm slaves).
    pub members: Vec<BlockDevice>,
}

/// First component matching `pred`, with the machine path up to it.
fn find_component(path: &str, pred: impl Fn(&str) -> bool) -> Option<(String, String)> {
    let mut prefix = String::new();
    for c in path.split('/').filter(|c| !c.is_empty()) {
        prefix.push('/');
        prefix.push_str(c);
        if pred(c) {
            return Some((c.to_string(), prefix.clone()));
        }
    }
    None
}

fn numbered(c: &str, stem: &str) -> bool {
    c.strip_prefix(stem)
        .is_some_and(|n| !n.is_empty() && n.chars().all(|d| d.is_ascii_digit()))
}

fn millideg(v: Option<i64>) -> Option<f64> {
    v.map(|m| m as f64 / 1000.0)
}

/// Read the device whose sysfs directory is `dir` (machine path, resolved).
pub fn read(sys: &Sys, dir: &str, depth: u32) -> BlockDevice {
    let name = base(dir).to_string();
    let is_part = sys.exists(&format!("{dir}/partition"));
    let r = |f: &str| sys.read_trim(&format!("{dir}/{f}"));
    let mut d = BlockDevice {
        name: name.clone(),
        majmin: r("dev"),
        sysfs: dir.to_string(),
        role: "disk".into(),
        size_bytes: sys
            .read_u64(&format!("{dir}/size"))
            .map(|s| s.saturating_mul(512)),
        model: None,
        queue: Queue::default(),
        partition: None,
        md: None,
        dm: None,
        loop_backing: None,
        transport: Transport::Unknown,
        pci: None,
        members: Vec::new(),
    };
    if is_part {
        d.role = "partition".into();
        d.partition = Some(Partition {
            number: sys.read_u64(&format!("{dir}/partition")),
            start_sectors: sys.read_u64(&format!("{dir}/start")),
            alignment_offset: sys.read_u64(&format!("{dir}/alignment_offset")),
        });
        let disk = parent(dir);
        if depth < MAX_DEPTH {
            let disk_dev = read(sys, &disk, depth + 1);
            d.queue = disk_dev.queue.clone();
            d.members.push(disk_dev);
        }
        return d;
    }
    d.queue = Queue::read(sys, dir);
    let slaves: Vec<String> = sys
        .list(&format!("{dir}/slaves"))
        .unwrap_or_default()
        .into_iter()
        .filter_map(|s| sys.real_path(&format!("{dir}/slaves/{s}")))
        .collect();
    set_role(sys, dir, &name, &mut d);
    if d.role != "disk" {
        d.transport = Transport::Virtual;
        if depth < MAX_DEPTH {
            d.members = slaves.iter().map(|s| read(sys, s, depth + 1)).collect();
        }
        return d;
    }
    classify(sys, &mut d);
    d
}

/// The role of the whole device at `dir` (md, dm, loop, zram, network; else it stays a
/// disk) and the facts that go with it.
fn set_role(sys: &Sys, dir: &str, name: &str, d: &mut BlockDevice) {
    if sys.is_dir(&format!("{dir}/md")) {
        d.role = "md".into();
        let m = |f: &str| sys.read_trim(&format!("{dir}/md/{f}"));
        let n = |f: &str| sys.read_u64(&format!("{dir}/md/{f}"));
        d.md = Some(Md {
            level: m("level").filter(|l| !l.is_empty()),
            raid_disks: n("raid_disks"),
            chunk_bytes: n("chunk_size"),
            degraded: n("degraded"),
            sync_action: m("sync_action"),
            sync_completed: m("sync_completed"),
            array_state: m("array_state"),
        });
    } else if sys.is_dir(&format!("{dir}/dm")) {
        d.role = "dm".into();
        d.dm = Some((
            sys.read_trim(&format!("{dir}/dm/name")).unwrap_or_default(),
            sys.read_trim(&format!("{dir}/dm/uuid")).unwrap_or_default(),
        ));
    } else if sys.is_dir(&format!("{dir}/loop")) || name.starts_with("loop") {
        d.role = "loop".into();
        if let Some(b) = sys.read_trim(&format!("{dir}/loop/backing_file")) {
            d.loop_backing = Some((b, sys.read_u64(&format!("{dir}/loop/dio"))));
        }
    } else if name.starts_with("zram") {
        d.role = "zram".into();
    } else if name.starts_with("nbd") || name.starts_with("rbd") {
        d.role = "network".into();
    }
}

/// Fill transport, model and PCI path of a whole disk from its resolved path.
fn classify(sys: &Sys, d: &mut BlockDevice) {
    let dir = d.sysfs.clone();
    let dev_link = sys.real_path(&format!("{dir}/device"));
    let scsi = |f: &str| {
        dev_link
            .as_ref()
            .and_then(|p| sys.read_trim(&format!("{p}/{f}")))
    };
    let cache_type = || {
        let p = dev_link.as_ref()?;
        let sd = sys.list(&format!("{p}/scsi_disk"))?.into_iter().next()?;
        sys.read_trim(&format!("{p}/scsi_disk/{sd}/cache_type"))
    };
    let scsi_model = || match (scsi("vendor"), scsi("model")) {
        (Some(v), Some(m)) if v != "ATA" => Some(format!("{v} {m}")),
        (_, m) => m,
    };
    if dir.contains("/virtual/") && !dir.contains("/nvme-subsystem/") {
        d.transport = Transport::Virtual;
        d.role = "virtual".into();
        return;
    }
    let mut hw_path = dir.clone();
    if let Some(ctrl) = nvme_controller(sys, &dir) {
        hw_path = nvme(sys, d, &ctrl).unwrap_or(ctrl);
    } else if let Some((_, ata)) = find_component(&dir, |c| numbered(c, "ata")) {
        d.model = scsi_model();
        d.transport = Transport::Sata {
            queue_depth: scsi("queue_depth").and_then(|q| q.parse().ok()),
            cache_type: cache_type(),
            scsi_device: dev_link.clone().unwrap_or_default(),
            link: super::sata::read(sys, &ata),
        };
    } else if let Some((_, usbdev)) = find_component(&dir, super::usb::is_usb_device) {
        let iface = dir
            .strip_prefix(&format!("{usbdev}/"))
            .and_then(|r| r.split('/').next())
            .filter(|c| c.contains(':'))
            .map(|c| format!("{usbdev}/{c}"));
        d.model = scsi_model();
        d.transport = Transport::Usb {
            queue_depth: scsi("queue_depth").and_then(|q| q.parse().ok()),
            link: super::usb::read(sys, &usbdev, iface.as_deref()),
        };
    } else if let Some((name, vdev)) = find_component(&dir, |c| numbered(c, "virtio")) {
        virtio(sys, d, &dir, name, &vdev);
    } else if let Some((_, mmc)) = find_component(&dir, |c| numbered(c, "mmc")) {
        let card = dev_link.clone().unwrap_or_else(|| mmc.clone());
        d.model = sys.read_trim(&format!("{card}/name"));
        d.transport = Transport::Mmc {
            card_type: sys.read_trim(&format!("{card}/type")),
        };
    } else if find_component(&dir, |c| numbered(c, "host")).is_some() {
        d.model = scsi_model();
        d.transport = Transport::Scsi {
            queue_depth: scsi("queue_depth").and_then(|q| q.parse().ok()),
            cache_type: cache_type(),
        };
    }
    let pci = PciPath::read(sys, &hw_path);
    if !pci.functions.is_empty() {
        d.pci = Some(pci);
    }
}

/// The NVMe controller of a disk's sysfs path: the first controller of the subsystem
/// for a native multipath head, else the `nvmeN` component of the path.
fn nvme_controller(sys: &Sys, dir: &str) -> Option<String> {
    if dir.contains("/nvme-subsystem/") {
        // native multipath head: use the first controller listed in the subsystem
        let subsys = parent(dir);
        sys.list(&subsys)
            .unwrap_or_default()
            .into_iter()
            .find(|e| numbered(e, "nvme"))
            .and_then(|c| sys.real_path(&format!("{subsys}/{c}")))
    } else {
        find_component(dir, |c| c == "nvme").and_then(|(_, p)| {
            let rest = dir.strip_prefix(&format!("{p}/"))?;
            let ctrl = rest.split('/').next()?;
            Some(format!("{p}/{ctrl}"))
        })
    }
}

/// Model and transport of an NVMe namespace from its controller `ctrl`; the
/// controller's PCI function, when it has one.
fn nvme(sys: &Sys, d: &mut BlockDevice, ctrl: &str) -> Option<String> {
    let c = |f: &str| sys.read_trim(&format!("{ctrl}/{f}"));
    let pci_fn = sys.real_path(&format!("{ctrl}/device"));
    let hwmon = sys
        .list(ctrl)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.starts_with("hwmon"))
        .map(|e| format!("{ctrl}/{e}"))
        .chain(pci_fn.iter().flat_map(|p| {
            sys.list(&format!("{p}/hwmon"))
                .unwrap_or_default()
                .into_iter()
                .map(move |e| format!("{p}/hwmon/{e}"))
        }))
        .find(|h| sys.read_trim(&format!("{h}/name")).as_deref() == Some("nvme"));
    let h = |f: &str| {
        hwmon
            .as_ref()
            .and_then(|h| sys.read_i64(&format!("{h}/{f}")))
    };
    d.model = c("model");
    d.transport = Transport::Nvme {
        controller: base(ctrl).to_string(),
        controller_sysfs: ctrl.to_string(),
        fabric: c("transport"),
        firmware: c("firmware_rev"),
        io_queues: sys
            .read_u64(&format!("{ctrl}/queue_count"))
            .and_then(|q| q.checked_sub(1)),
        queue_depth: sys
            .read_u64(&format!("{ctrl}/sqsize"))
            .map(|q| q.saturating_add(1)),
        temp_c: millideg(h("temp1_input")),
        temp_max_c: millideg(h("temp1_max")),
        temp_alarm: h("temp1_alarm").map(|a| a == 1),
        hwmon,
    };
    pci_fn
}

/// Model and transport of a virtio disk (`name`, its device directory `vdev`).
fn virtio(sys: &Sys, d: &mut BlockDevice, dir: &str, name: String, vdev: &str) {
    let features_file = format!("{vdev}/features");
    let mq = sys
        .read_trim(&features_file)
        .and_then(|f| f.chars().nth(12))
        .map(|c| c == '1');
    let hw_queues = sys
        .list(&format!("{dir}/mq"))
        .map(|v| v.len() as u64)
        .filter(|n| *n > 0);
    // a virtio disk has no model; its serial is what the VM's host named it
    d.model = Some(match r_serial(sys, dir) {
        Some(s) => format!("virtio disk, serial {s}"),
        None => "virtio disk".into(),
    });
    d.transport = Transport::Virtio {
        device: name,
        multiqueue: mq,
        hw_queues,
        tags: sys.read_u64(&format!("{dir}/mq/0/nr_tags")),
        features_file,
    };
}

fn r_serial(sys: &Sys, dir: &str) -> Option<String> {
    sys.read_trim(&format!("{dir}/serial"))
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_lines() {
        assert_eq!(
            parse_scheduler("none [mq-deadline] kyber bfq \n").unwrap(),
            "mq-deadline"
        );
        assert_eq!(parse_scheduler("none\n").unwrap(), "none");
        assert_eq!(parse_scheduler(""), None);
        assert_eq!(parse_scheduler("] x ["), None);
        let md = Md {
            level: Some("raid6".into()),
            raid_disks: Some(1),
            ..Md::default()
        };
        assert_eq!(md.data_disks(), None);
    }
}
