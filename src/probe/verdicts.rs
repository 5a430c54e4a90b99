//! The verdicts: given the facts the walk in [`super::diagnosis`]
//! collected (mount, block devices, transport links, memory, CPU), decide which
//! findings apply, with their numbers and evidence. Kept apart from the walk so the
//! rules can be read, and changed, as one table.

use super::blockdev::{BlockDevice, Transport};
use super::ceiling::{Ceiling, Rated};
use super::findings::{gb, gib, mb, Finding, Severity};
use super::mountinfo::Mount;
use super::pcie::{self, Link, PciFunction, PciPath};
use super::system::{self, Cpu, Memory};
use super::walk::Walk;
use super::walk_mounts::opt_u;
use super::{sata, usb};

// Platform findings (cgroup, RAID mode, APST, NUMA, AER, SD timing) live in their own
// file next to this one; declared here so the module list in probe/mod.rs stays as is.
pub(super) use super::platform::platform_findings;

/// Mount-option findings.
pub(super) fn fs_findings(w: &mut Walk, m: &Mount) {
    let ev = |o: &str| {
        (
            "/proc/self/mountinfo".to_string(),
            format!("{} {o}", m.mount_point),
        )
    };
    if m.has_option("sync") {
        let (f, v) = ev("sync");
        w.find(
            Finding::new(
                "FS_SYNC",
                Severity::Warn,
                "Filesystem mounted with sync: every write waits for the device.",
            )
            .with(f, v),
        );
    }
    if m.option("data") == Some("journal") {
        let (f, v) = ev("data=journal");
        w.find(
            Finding::new(
                "FS_DATA_JOURNAL",
                Severity::Warn,
                "ext4 data=journal writes all data twice: expect about half the write bandwidth.",
            )
            .with(f, v),
        );
    }
    if m.has_option("nobarrier") || m.option("barrier") == Some("0") {
        let (f, v) = ev("nobarrier");
        w.find(Finding::new("FS_NOBARRIER", Severity::Info, "Write barriers disabled: faster flushes, results not comparable with default mounts.").with(f, v));
    }
    if matches!(m.option("discard"), Some("") | Some("sync")) {
        let (f, v) = ev(&format!("super options {}", m.super_options));
        w.find(
            Finding::new(
                "FS_ONLINE_DISCARD",
                Severity::Info,
                "Mounted with online discard: deletes issue TRIM synchronously.",
            )
            .with(f, v),
        );
    }
}

/// Per-device findings over the whole tree.
pub(super) fn device_findings(w: &mut Walk, d: &BlockDevice, mount: &Option<Mount>) {
    match d.role.as_str() {
        "partition" => partition_findings(w, d),
        "md" => md_findings(w, d, mount),
        "dm" => dm_findings(w, d),
        "loop" => {
            if let Some((file, Some(0))) = &d.loop_backing {
                w.find(
                    Finding::new(
                        "LOOP_BUFFERED",
                        Severity::Cache,
                        format!("Target is a loop device over {file} without direct I/O: data is cached twice; results depend on the backing filesystem."),
                    )
                    .with(format!("{}/loop/dio", d.sysfs), "0"),
                );
            }
        }
        "zram" => w.find(
            Finding::new(
                "MEMORY_FS",
                Severity::Cache,
                format!(
                    "Target is on {} (compressed RAM): results are memory and CPU speed.",
                    d.name
                ),
            )
            .with(d.sysfs.clone(), "zram"),
        ),
        "disk" => disk_findings(w, d),
        _ => {}
    }
    for m in &d.members {
        device_findings(w, m, mount);
    }
}

/// A partition's alignment against its disk's physical block and optimal I/O size.
fn partition_findings(w: &mut Walk, d: &BlockDevice) {
    let disk = d.members.first();
    let p = d.partition.clone().unwrap_or_default();
    if let (Some(start), Some(disk)) = (p.start_sectors, disk) {
        let off = start.saturating_mul(512);
        let phys = disk.queue.physical_block_size.unwrap_or(512).max(1);
        let opt = disk.queue.optimal_io_size.unwrap_or(0);
        let bad_phys = off % phys != 0;
        let bad_opt = opt > 0 && off % opt != 0;
        let bad_kernel = p.alignment_offset.is_some_and(|a| a > 0);
        if bad_phys || bad_opt || bad_kernel {
            let why = if bad_phys {
                format!("misaligned by {} bytes against the {phys}-byte physical block: every write smaller than an aligned {} becomes read-modify-write", off % phys, iec_block(phys))
            } else if bad_opt {
                format!("not a multiple of the {opt}-byte optimal I/O size (RAID stripe)")
            } else {
                "the kernel reports a non-zero alignment_offset".into()
            };
            w.find(
                Finding::new(
                    "PART_MISALIGNED",
                    Severity::Warn,
                    format!(
                        "Partition {} starts at sector {start} ({off} bytes), {why}.",
                        d.name
                    ),
                )
                .with(format!("{}/start", d.sysfs), start.to_string())
                .with(
                    format!("{}/queue/physical_block_size", disk.sysfs),
                    phys.to_string(),
                ),
            );
        }
    }
}

/// A device-mapper target's dm-crypt finding (with the CPU's AES support).
fn dm_findings(w: &mut Walk, d: &BlockDevice) {
    let (name, uuid) = d.dm.clone().unwrap_or_default();
    if uuid.starts_with("CRYPT-") {
        let aes = w
            .sys
            .read("/proc/cpuinfo")
            .map(|t| super::system::has_cpu_flag(&t, "aes"));
        let note = match aes {
            Some(true) => " (the CPU has AES instructions)",
            Some(false) => " and the CPU has no AES instructions",
            None => "",
        };
        w.find(
            Finding::new("DMCRYPT", Severity::Warn, format!("Target is encrypted with dm-crypt ({name}): throughput bounded by CPU encryption speed{note}."))
                .with(format!("{}/dm/uuid", d.sysfs), uuid),
        );
    }
}

/// A whole disk's read-ahead and request-size findings, then its transport's.
fn disk_findings(w: &mut Walk, d: &BlockDevice) {
    let q = &d.queue;
    let qf = |f: &str| format!("{}/queue/{f}", d.sysfs);
    if let Some(ra) = q.read_ahead_kb.filter(|r| *r < 32) {
        w.find(
            Finding::new(
                "READAHEAD_TINY",
                Severity::Warn,
                format!(
                    "Read-ahead of {} is {ra} KiB: buffered sequential reads will be slow.",
                    d.name
                ),
            )
            .with(qf("read_ahead_kb"), ra.to_string()),
        );
    }
    if let (Some(ms), Some(hw)) = (q.max_sectors_kb, q.max_hw_sectors_kb) {
        if ms < 512 && hw > ms {
            w.find(Finding::new("MAX_SECTORS_SMALL", Severity::Info, format!("Requests to {} are limited to {ms} KiB although the device accepts {hw} KiB.", d.name)).with(qf("max_sectors_kb"), ms.to_string()).with(qf("max_hw_sectors_kb"), hw.to_string()));
        }
    }
    transport_findings(w, d);
}

/// Progress of a resync/recovery/check of array `name` from /proc/mdstat (kernel md
/// driver format: a `name : active …` stanza whose progress line holds
/// `resync = 23.4% (245760/1047552)`): the percentage and that line, trimmed.
pub fn mdstat_progress(text: &str, name: &str) -> Option<(f64, String)> {
    let mut inside = false;
    for line in text.lines() {
        if !line.starts_with(char::is_whitespace) {
            inside = line.split_whitespace().next() == Some(name);
            continue;
        }
        if !inside {
            continue;
        }
        for op in ["resync", "recovery", "reshape", "check", "repair"] {
            if let Some(rest) = line.split_once(&format!("{op} =")).map(|(_, r)| r) {
                let num = rest.trim_start().split('%').next()?.trim();
                if let Ok(p) = num.parse::<f64>() {
                    return Some((p, line.trim().to_string()));
                }
            }
        }
    }
    None
}

/// Per mille done of a sync, truncated as the md driver computes the `resync = 23.4%`
/// of /proc/mdstat (`done * 1000 / total`, integer division), so iomark prints the
/// figure mdstat shows (245760/1047552 → 234, "23.4 %", not a rounded 23.5).
pub fn sync_permille(done: u64, total: u64) -> u64 {
    if total == 0 {
        return 0;
    }
    (u128::from(done) * 1000 / u128::from(total)) as u64
}

fn iec_block(b: u64) -> String {
    if b.is_multiple_of(1024) {
        format!("{} KiB", b / 1024)
    } else {
        format!("{b}-byte block")
    }
}

fn md_findings(w: &mut Walk, d: &BlockDevice, mount: &Option<Mount>) {
    let Some(md) = d.md.clone() else { return };
    let mdf = |f: &str| format!("{}/md/{f}", d.sysfs);
    if let Some(deg) = md.degraded.filter(|x| *x > 0) {
        w.find(
            Finding::new(
                "MD_DEGRADED",
                Severity::Warn,
                format!(
                    "{} is degraded ({deg} of {} members missing).",
                    d.name,
                    opt_u(md.raid_disks)
                ),
            )
            .with(mdf("degraded"), deg.to_string()),
        );
    }
    md_resync_finding(w, d, &md);
    md_stripe_findings(w, d, &md, mount);
}

/// A resync, recovery or check in progress, with its progress from sysfs or
/// /proc/mdstat.
fn md_resync_finding(w: &mut Walk, d: &BlockDevice, md: &super::blockdev::Md) {
    let mdf = |f: &str| format!("{}/md/{f}", d.sysfs);
    if let Some(a) = md
        .sync_action
        .clone()
        .filter(|a| a != "idle" && !a.is_empty())
    {
        let from_sysfs = md
            .sync_completed
            .as_deref()
            .and_then(|s| s.split_once('/'))
            .and_then(|(a, b)| Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?)))
            .filter(|(_, b)| *b > 0)
            .map(|(a, b)| sync_permille(a, b) as f64 / 10.0);
        let mdstat = w.sys.read("/proc/mdstat");
        let from_mdstat = mdstat.as_deref().and_then(|t| mdstat_progress(t, &d.name));
        let pct = from_sysfs
            .or(from_mdstat.as_ref().map(|(p, _)| *p))
            .map(|p| format!(" {p:.1} %"))
            .unwrap_or_default();
        let mut f = Finding::new(
            "MD_RESYNC",
            Severity::Warn,
            format!(
                "{}: {a}{pct} in progress; background I/O will distort results.",
                d.name
            ),
        )
        .with(mdf("sync_action"), a);
        if let Some((_, line)) = from_mdstat {
            f = f.with("/proc/mdstat", line);
        }
        w.find(f);
    }
}

/// An XFS filesystem's stripe unit and width against the array's chunk and data disks.
fn md_stripe_findings(
    w: &mut Walk,
    d: &BlockDevice,
    md: &super::blockdev::Md,
    mount: &Option<Mount>,
) {
    let mdf = |f: &str| format!("{}/md/{f}", d.sysfs);
    let Some(m) = mount.as_ref().filter(|m| m.fs_type == "xfs") else {
        return;
    };
    let (Some(chunk), Some(data)) = (md.chunk_bytes, md.data_disks()) else {
        return;
    };
    let sunit = m.option("sunit").and_then(|v| v.parse::<u64>().ok());
    let swidth = m.option("swidth").and_then(|v| v.parse::<u64>().ok());
    let (Some(su), Some(sw)) = (sunit, swidth) else {
        return;
    };
    let (su_b, sw_b) = (su * 512, sw * 512);
    let ev_fs = format!("sunit={su},swidth={sw} (512-byte units)");
    if su_b == chunk && sw_b == chunk * data {
        w.find(
            Finding::new(
                "MD_XFS_STRIPE_OK",
                Severity::Info,
                format!(
                    "XFS stripe matches {}: sunit {} KiB = chunk, swidth {} KiB = chunk × {data} data disks.",
                    d.name,
                    su_b / 1024,
                    sw_b / 1024
                ),
            )
            .with("/proc/self/mountinfo", ev_fs)
            .with(mdf("chunk_size"), chunk.to_string()),
        );
    } else {
        w.find(
            Finding::new(
                "MD_XFS_STRIPE_MISMATCH",
                Severity::Warn,
                format!(
                    "XFS stripe (sunit {} KiB, swidth {} KiB) does not match {} chunk {} KiB × {data} data disks: allocations straddle chunks.",
                    su_b / 1024,
                    sw_b / 1024,
                    d.name,
                    chunk / 1024
                ),
            )
            .with("/proc/self/mountinfo", ev_fs)
            .with(mdf("chunk_size"), chunk.to_string()),
        );
    }
}

fn is_flash(d: &BlockDevice) -> bool {
    matches!(d.transport, Transport::Nvme { .. }) || d.queue.rotational == Some(0)
}

fn transport_findings(w: &mut Walk, d: &BlockDevice) {
    let q = &d.queue;
    let qf = |f: &str| format!("{}/queue/{f}", d.sysfs);
    if let Some(p) = &d.pci {
        pcie_findings(w, p);
    }
    if is_flash(d) && q.discard_max_bytes == Some(0) {
        w.find(Finding::new("NO_DISCARD", Severity::Info, format!("No TRIM/discard through this path to {} (typical for USB bridges): write speed may drop as the drive fills.", d.name)).with(qf("discard_max_bytes"), "0"));
    }
    match &d.transport {
        Transport::Nvme { .. } => nvme_findings(w, d),
        Transport::Sata {
            queue_depth,
            cache_type,
            scsi_device,
            link,
        } => {
            sata_findings(w, link);
            if *queue_depth == Some(1) {
                w.find(Finding::new("SATA_NCQ_OFF", Severity::Warn, "NCQ is off (queue depth 1): random I/O will be far below rating; check libata.force/noncq or error history.").with(format!("{scsi_device}/queue_depth"), "1"));
            }
            write_cache_finding(w, d, cache_type.as_deref());
            if q.rotational == Some(1) && link.non_rotating == Some(true) {
                w.find(Finding::new("ROTATIONAL_MEANINGLESS", Severity::Info, format!("rotational=1 on {} contradicts ATA word 217 (non-rotating): the flag says nothing about the medium.", d.name)).with(qf("rotational"), "1"));
            }
        }
        Transport::Scsi { cache_type, .. } => write_cache_finding(w, d, cache_type.as_deref()),
        Transport::Usb { link, .. } => {
            usb_findings(w, link);
            if q.rotational == Some(1) {
                w.find(Finding::new("ROTATIONAL_MEANINGLESS", Severity::Info, format!("rotational=1 is reported by the USB bridge of {} and says nothing about the medium.", d.name)).with(qf("rotational"), "1"));
            }
        }
        Transport::Virtio { .. } => virtio_findings(w, d),
        _ => {}
    }
}

/// An NVMe drive's scheduler, temperature and I/O queue findings.
fn nvme_findings(w: &mut Walk, d: &BlockDevice) {
    let q = &d.queue;
    let qf = |f: &str| format!("{}/queue/{f}", d.sysfs);
    let Transport::Nvme {
        controller,
        controller_sysfs,
        io_queues,
        temp_c,
        temp_max_c,
        temp_alarm,
        hwmon,
        ..
    } = &d.transport
    else {
        return;
    };
    if q.scheduler.as_deref() == Some("bfq") {
        w.find(Finding::new("SCHED_BFQ_FAST", Severity::Warn, format!("I/O scheduler bfq on NVMe drive {} costs CPU per request; use none or mq-deadline for benchmarks.", d.name)).with(qf("scheduler"), "bfq"));
    }
    let hot = match (temp_c, temp_max_c) {
        (Some(t), Some(m)) if *t >= m - 5.0 => true,
        _ => *temp_alarm == Some(true),
    };
    if hot {
        let h = hwmon.clone().unwrap_or_default();
        w.find(
            Finding::new(
                "NVME_HOT",
                Severity::Warn,
                format!(
                    "NVMe composite temperature {:.0} °C near warning threshold {:.0} °C: thermal throttling likely during long runs.",
                    temp_c.unwrap_or(f64::NAN),
                    temp_max_c.unwrap_or(f64::NAN)
                ),
            )
            .with(format!("{h}/temp1_input"), temp_c.map(|t| format!("{}", (t * 1000.0) as i64)).unwrap_or_default())
            .with(format!("{h}/temp1_max"), temp_max_c.map(|t| format!("{}", (t * 1000.0) as i64)).unwrap_or_default()),
        );
    }
    let cpus = system::cpu(&w.sys).count;
    if let (Some(iq), Some(n)) = (io_queues, cpus) {
        if *iq < u64::from(n.min(4)) {
            w.find(
                Finding::new("NVME_FEW_QUEUES", Severity::Info, format!("NVMe controller {controller} has {iq} I/O queue(s) for {n} CPUs: submissions contend on one queue."))
                    .with(format!("{controller_sysfs}/queue_count"), iq.saturating_add(1).to_string()),
            );
        }
    }
}

/// A virtio disk's paravirtual, queue and rotational-flag findings.
fn virtio_findings(w: &mut Walk, d: &BlockDevice) {
    let q = &d.queue;
    let qf = |f: &str| format!("{}/queue/{f}", d.sysfs);
    let Transport::Virtio {
        multiqueue,
        hw_queues,
        tags,
        features_file,
        ..
    } = &d.transport
    else {
        return;
    };
    w.find(Finding::new("VIRTIO_PARAVIRT", Severity::Info, format!("Virtual disk {} (virtio-blk): the hypervisor and host storage decide throughput; no physical link to check.", d.name)).with(d.sysfs.clone(), "virtio-blk"));
    let cpus = system::cpu(&w.sys).count;
    if *multiqueue != Some(true) {
        if let Some(n) = cpus.filter(|n| *n > 1) {
            let hq = hw_queues.unwrap_or(1);
            if hq <= 1 {
                let mut f = Finding::new(
                    "VIRTIO_SINGLE_QUEUE",
                    Severity::Info,
                    format!(
                        "virtio disk {} has 1 request queue ({} tags) for {n} vCPUs.",
                        d.name,
                        opt_u(*tags)
                    ),
                );
                if let Some(m) = multiqueue {
                    f = f.with(
                        format!("{features_file} (bit 12, MQ)"),
                        if *m { "1" } else { "0" },
                    );
                }
                f = f.with(format!("{}/mq", d.sysfs), format!("{hq} queue(s)"));
                w.find(f);
            }
        }
    }
    if q.rotational == Some(1) {
        w.find(Finding::new("ROTATIONAL_MEANINGLESS", Severity::Info, format!("rotational=1 is reported by the virtual device {} and says nothing about the medium.", d.name)).with(qf("rotational"), "1"));
    }
}

fn write_cache_finding(w: &mut Walk, d: &BlockDevice, cache_type: Option<&str>) {
    let (file, v) = match (cache_type, &d.queue.write_cache) {
        (Some(c), _) => ("scsi_disk cache_type", c.to_string()),
        (None, Some(q)) => ("queue/write_cache", q.clone()),
        _ => return,
    };
    if v == "write through" {
        w.find(Finding::new("WRITE_CACHE_OFF", Severity::Warn, format!("Drive write cache of {} is disabled: writes wait for the media; enable it (hdparm -W1 / sdparm) if data safety allows.", d.name)).with(format!("{}/{file}", d.sysfs), v));
    }
}

fn pcie_findings(w: &mut Walk, p: &PciPath) {
    let Some(ep) = p.endpoint() else { return };
    pcie_device_findings(w, p, ep);
    let Some(l) = p.endpoint_link() else { return };
    pcie_link_findings(w, p, ep, l);
    pcie_upstream_finding(w, p, l);
}

/// Findings of the drive's PCIe function itself: link state unreadable, L1 substates,
/// a chipset root port.
fn pcie_device_findings(w: &mut Walk, p: &PciPath, ep: &PciFunction) {
    let epf = |f: &str| format!("{}/{f}", ep.sysfs);
    if ep.has_link_files() && (ep.current_gen.is_none() || ep.current_width.is_none()) {
        w.find(
            Finding::new("PCIE_INFO_UNKNOWN", Severity::Info, format!("No PCIe link information for {} (not a PCIe device, or link state unreadable).", ep.address))
                .with(epf("current_link_speed"), ep.current_speed_raw.clone().unwrap_or_default()),
        );
    }
    if ep.l1ss_enabled {
        w.find(Finding::new("PCIE_ASPM_L1SS", Severity::Info, format!("PCIe L1 substates are enabled on the drive's link: expect extra latency after idle; disable for latency tests (`{}`).", epf("link/l1_2_aspm"))).with(epf("link/l1_2_aspm"), "1"));
    }
    if let Some(root_port) = p.functions.first().filter(|f| f.is_bridge()) {
        if pcie::is_chipset_root_port(
            root_port.vendor.as_deref().unwrap_or(""),
            root_port.device.as_deref().unwrap_or(""),
        ) {
            w.find(
                Finding::new("PCIE_CHIPSET_PATH", Severity::Info, format!("The drive hangs off the chipset (root port {}): its uplink to the CPU (DMI) is shared with SATA/USB/network.", root_port.address))
                    .with(format!("{}/device", root_port.sysfs), root_port.device.clone().unwrap_or_default()),
            );
        }
    }
}

/// The evidence of a link finding: both ends' link speed and width files.
fn link_evidence(f: Finding, p: &PciPath, ep: &PciFunction, l: &Link) -> Finding {
    let epf = |f: &str| format!("{}/{f}", ep.sysfs);
    let port = p.functions.iter().find(|f| f.address == l.upstream);
    let portf = |f: &str| port.map(|p| format!("{}/{f}", p.sysfs)).unwrap_or_default();
    f.with(
        epf("current_link_speed"),
        ep.current_speed_raw.clone().unwrap_or_default(),
    )
    .with(epf("current_link_width"), l.width.to_string())
    .with(
        epf("max_link_speed"),
        ep.max_speed_raw.clone().unwrap_or_default(),
    )
    .with(epf("max_link_width"), opt_u(ep.max_width.map(u64::from)))
    .with(
        portf("max_link_speed"),
        port.and_then(|p| p.max_speed_raw.clone())
            .unwrap_or_default(),
    )
}

/// The sentences that say which share of the drive's link capability is left: for the
/// speed finding, and for the width finding when the width is reduced (`width_dev`).
///
/// Shares of the drive's own link capability (public case C28: Gen3 x2 of a Gen4 x4
/// drive). Each link finding names its own factor (the speed finding the per-lane
/// rate, the width finding the lanes); the whole share is said once, in the width
/// finding when both are reduced, else in the one finding there is.
fn link_shares(
    l: &Link,
    dev_cap: Option<(pcie::Gen, u32)>,
    width_dev: Option<u32>,
) -> (String, Option<String>) {
    // both speed findings need the port's maximum too; either fires when the link is
    // slower than the drive
    let speed_low = l.port_max_gen.is_some() && l.device_max_gen.is_some_and(|d| l.gen < d);
    let total = dev_cap
        .map(|(g, wd)| l.raw_mb_s / pcie::raw_mb_s(g, wd) * 100.0)
        .filter(|p| p.is_finite() && *p < 99.5);
    let total_txt = |lead: &str| {
        total
            .map(|p| format!(" {lead}{p:.0} % of the drive's link capability."))
            .unwrap_or_default()
    };
    let speed_share = match (l.device_max_gen, width_dev) {
        (Some(d), Some(_)) => {
            let p = l.gen.lane_mb_s() / d.lane_mb_s() * 100.0;
            format!(
                " The speed alone gives {p:.0} % of the drive's per-lane rate ({} of {} GT/s).",
                l.gen.gts(),
                d.gts()
            )
        }
        _ => total_txt("Running at "),
    };
    let width_share = width_dev.map(|dw| {
        let lanes = format!(
            " The width alone gives {:.0} % of the drive's lanes (x{} of x{dw})",
            f64::from(l.width) / f64::from(dw) * 100.0,
            l.width
        );
        if speed_low {
            format!(
                "{lanes};{}",
                total_txt("with the lower speed the link runs at ")
            )
        } else {
            format!("{lanes}.{}", total_txt("Running at "))
        }
    });
    (speed_share, width_share)
}

/// The drive's own link: trained below the drive (slot limit or low training) and
/// reduced width.
fn pcie_link_findings(w: &mut Walk, p: &PciPath, ep: &PciFunction, l: &Link) {
    let ev = |f: Finding| link_evidence(f, p, ep, l);
    let dev_cap = match (ep.max_gen, ep.max_width) {
        (Some(g), Some(wd)) => Some((g, wd)),
        _ => None,
    };
    let cap_txt = dev_cap
        .map(|(g, wd)| {
            format!(
                "{} (≈ {} raw)",
                pcie::label(g, wd),
                gb(pcie::raw_mb_s(g, wd))
            )
        })
        .unwrap_or_else(|| "more".into());
    let width_dev = l.device_max_width.filter(|dw| l.width < *dw);
    let (speed_share, width_share) = link_shares(l, dev_cap, width_dev);
    let link_txt = format!(
        "{} ({} GT/s): ceiling ≈ {} raw, ≈ {} real",
        pcie::label(l.gen, l.width),
        l.gen.gts(),
        gb(l.raw_mb_s),
        gb(l.realistic_mb_s)
    );
    if let (Some(dmax), Some(pmax)) = (l.device_max_gen, l.port_max_gen) {
        if l.gen < dmax && pmax <= l.gen {
            let target = dev_cap
                .map(|(g, wd)| pcie::label(g, wd))
                .unwrap_or_else(|| format!("Gen{}", dmax.0));
            w.find(ev(Finding::new(
                "PCIE_LINK_BELOW_DEVICE",
                Severity::Limit,
                format!(
                    "PCIe link runs at {link_txt}; the drive supports {cap_txt}; the slot at {} tops out at Gen{} — move it to a {target} slot (usually one wired to the CPU).{speed_share}",
                    l.upstream,
                    pmax.0,
                ),
            )));
        } else if l.gen < dmax.min(pmax) {
            w.find(ev(Finding::new(
                "PCIE_LINK_TRAINED_LOW",
                Severity::Limit,
                format!(
                    "PCIe link trained at {} GT/s although both ends support {} GT/s: check BIOS PCIe speed setting, riser/adapter and seating, and re-check under load (some drives lower the link speed when idle: read current_link_speed while `iomark run` reads from the drive); ceiling now ≈ {} raw.{speed_share}",
                    l.gen.gts(),
                    dmax.min(pmax).gts(),
                    gb(l.raw_mb_s)
                ),
            )));
        }
    }
    if let (Some(dw), Some(share)) = (width_dev, width_share) {
        w.find(ev(Finding::new(
            "PCIE_WIDTH_REDUCED",
            Severity::Limit,
            format!(
                "PCIe link is x{} but the drive supports x{dw}: ceiling ≈ {} raw ({}); the slot is wired narrower or shares lanes — use a full x{dw} slot or free the shared lanes.{share}",
                l.width,
                gb(l.raw_mb_s),
                pcie::label(l.gen, l.width),
            ),
        )));
    }
}

/// A bridge uplink slower than the drive's own link.
fn pcie_upstream_finding(w: &mut Walk, p: &PciPath, l: &Link) {
    if let Some(lim) = p.limiting().filter(|m| m.raw_mb_s < l.raw_mb_s) {
        w.find(
            Finding::new(
                "PCIE_UPSTREAM_LIMIT",
                Severity::Limit,
                format!(
                    "The bridge uplink ({} → {}) runs at {}: all drives behind it share ≈ {} raw.",
                    lim.downstream,
                    lim.upstream,
                    pcie::label(lim.gen, lim.width),
                    gb(lim.raw_mb_s)
                ),
            )
            .with(
                format!(
                    "{}/current_link_speed",
                    p.functions
                        .iter()
                        .find(|f| f.address == lim.downstream)
                        .map(|f| f.sysfs.as_str())
                        .unwrap_or("")
                ),
                lim.gen.gts().to_string() + " GT/s",
            ),
        );
    }
}

fn sata_findings(w: &mut Walk, link: &sata::SataLink) {
    let (Some(g), Some(max)) = (link.gen, link.drive_max) else {
        if link.gen.is_some() && link.drive_max.is_none() {
            w.unknown(
                format!("SATA capability of the drive on {}", link.port),
                "IDENTIFY dump (ata_device/…/id) missing or unreadable",
            );
        }
        return;
    };
    let id_ev = |f: Finding| {
        f.with(
            link.spd_file.clone(),
            link.spd_raw.clone().unwrap_or_default(),
        )
        .with(
            format!("{} (word 76)", link.id_file.clone().unwrap_or_default()),
            format!("supports up to {}", sata::gen_label(max)),
        )
    };
    if g < max {
        w.find(id_ev(Finding::new(
            "SATA_LINK_BELOW_DEVICE",
            Severity::Limit,
            format!(
                "SATA link negotiated {}: ceiling ≈ {} (≈ {} real); the drive supports {} (≈ {}) — use a {} port (on some chipsets only the first two are) and a good cable.",
                sata::gen_label(g),
                mb(sata::raw_mb_s(g)),
                mb(sata::realistic_mb_s(g)).trim_end_matches(" MB/s"),
                sata::gen_label(max),
                mb(sata::realistic_mb_s(max)),
                sata::gen_label(max).replace("Gbps", "Gb/s")
            ),
        )));
    }
    if let Some(lim) = link.limit.filter(|l| *l < max) {
        w.find(id_ev(Finding::new(
            "SATA_LINK_LIMITED",
            Severity::Warn,
            format!("SATA speed is capped to {} by configuration (libata.force or after link errors, see spdn_cnt).", sata::gen_label(lim)),
        )));
    }
}

fn usb_findings(w: &mut Walk, link: &usb::UsbLink) {
    let Some(speed) = link.speed_mbit else {
        w.unknown(
            format!("USB speed of {}", link.device),
            "speed file missing",
        );
        return;
    };
    let devf = |f: &str| format!("{}/{f}", link.sysfs);
    let peer_free = link.peer_state.as_deref() == Some("not attached")
        || (link.peer_state.is_none() && link.peer_port.is_some());
    if speed <= 480.0 && peer_free {
        let ss = link.bos.map(|b| b.superspeed || b.superspeed_plus);
        let v210 = link.version.as_deref().map(str::trim) == Some("2.10");
        let certain = ss == Some(true);
        let probable = ss.is_none() && v210;
        if certain || probable {
            let hub = link.peer_hub_speed.unwrap_or(5000.0);
            let mut f = Finding::new(
                "USB_SS_DEVICE_AT_HIGH_SPEED",
                Severity::Limit,
                format!(
                    "USB link is {speed} Mb/s (USB 2): ceiling ≈ {} ({} raw); the drive is {} a USB 3 device and the port's SuperSpeed side is not connected — use a USB 3 cable/port (≥ {} at 5 Gb/s{}).",
                    mb(usb::realistic_mb_s(speed)),
                    mb(usb::raw_mb_s(speed)),
                    if certain { "" } else { "probably" },
                    mb(usb::realistic_mb_s(5000.0)),
                    if hub >= 10000.0 { format!(", ≈ {} at 10 Gb/s on this {hub} Mb/s root hub", gb(usb::realistic_mb_s(10000.0))) } else { String::new() }
                ).replace("is  a", "is a"),
            )
            .with(devf("speed"), speed.to_string())
            .with(devf("version"), link.version.clone().unwrap_or_default());
            if certain {
                f = f.with(
                    devf("bos_descriptors"),
                    "SuperSpeed USB device capability present",
                );
            }
            if let Some(p) = &link.peer_port {
                f = f.with(
                    format!("{p}/state"),
                    link.peer_state.clone().unwrap_or_else(|| "absent".into()),
                );
            }
            w.find(f);
        }
    }
    if speed >= 5000.0 {
        if let Some(hub) = link.peer_hub_speed.filter(|h| *h > speed) {
            if link.bos.is_some_and(|b| b.superspeed_plus) {
                w.find(
                    Finding::new(
                        "USB_LINK_SLOW",
                        Severity::Limit,
                        format!(
                            "USB link {} Gb/s on a {} Gb/s-capable port: ceiling ≈ {}.",
                            speed / 1000.0,
                            hub / 1000.0,
                            mb(usb::realistic_mb_s(speed))
                        ),
                    )
                    .with(devf("speed"), speed.to_string()),
                );
            }
        }
        let bot =
            link.driver.as_deref() == Some("usb-storage") || link.protocol.as_deref() == Some("50");
        if bot {
            w.find(Finding::new("USB_BOT_NOT_UAS", Severity::Info, "Drive uses Bulk-Only transport (usb-storage), not UAS: one command at a time, lower random I/O.").with(devf("…/driver"), link.driver.clone().unwrap_or_default()));
        }
    }
}

/// RATED_ABOVE_CEILING per direction, against the per-drive link ceiling.
pub(super) fn rated_findings(
    w: &mut Walk,
    d: Option<&BlockDevice>,
    c: Option<&Ceiling>,
    rated: Rated,
) {
    if rated.read_mb_s.is_none() && rated.write_mb_s.is_none() {
        return;
    }
    let Some(c) = c else {
        w.unknown(
            "RATED_ABOVE_CEILING",
            "no ceiling could be derived to compare the rating with",
        );
        return;
    };
    // Per drive: the ceiling divided over the paths for striped sets.
    let per_path = c.realistic_mb_s / f64::from(c.paths.max(1));
    let name = d.map(|d| d.name.clone()).unwrap_or_default();
    for (dir, r) in [("read", rated.read_mb_s), ("write", rated.write_mb_s)] {
        let Some(r) = r else { continue };
        if r > per_path {
            w.find(
                Finding::new(
                    "RATED_ABOVE_CEILING",
                    Severity::Limit,
                    format!(
                        "Rated {} {dir}, but this path allows ≈ {}: the drive cannot reach its rating here.",
                        mb(r),
                        mb(per_path)
                    ),
                )
                .with(format!("--rated-{dir}"), format!("{r}"))
                .with(format!("ceiling of {name}"), format!("{:.0} MB/s, set by {}", per_path, c.set_by)),
            );
        }
    }
}

pub(super) fn cache_findings(w: &mut Walk, m: &Memory, ws: Option<u64>) {
    let (Some(avail), Some(total)) = (m.available_bytes, m.total_bytes) else {
        w.unknown(
            "page-cache check",
            "MemTotal/MemAvailable missing from /proc/meminfo",
        );
        return;
    };
    let ev_mi = format!(
        "MemTotal {} KiB, MemAvailable {} KiB",
        total / 1024,
        avail / 1024
    );
    match ws {
        Some(ws) if ws <= avail => w.find(
            Finding::new(
                "PAGE_CACHE_FITS",
                Severity::Cache,
                format!(
                    "Working set {} fits in RAM ({}): buffered reads after the first pass come from the page cache; use direct I/O or a working set > 2× RAM.",
                    gib(ws),
                    gib(total)
                ),
            )
            .with("/proc/meminfo", ev_mi.clone()),
        ),
        Some(_) => {}
        None => w.find(
            Finding::new(
                "PAGE_CACHE_FITS",
                Severity::Cache,
                format!(
                    "Any working set up to {} (MemAvailable; RAM {}) fits in the page cache: buffered re-reads of it come from RAM; use direct I/O or a working set > 2× RAM ({}).",
                    gib(avail),
                    gib(total),
                    gib(total.saturating_mul(2))
                ),
            )
            .with("/proc/meminfo", ev_mi.clone()),
        ),
    }
    if let Some(limit) = m.dirty_limit_bytes {
        if limit >= 1 << 30 || ws.is_some_and(|ws| limit >= ws) {
            let how = match m.dirty_bytes_setting {
                Some(b) if b > 0 => format!("vm.dirty_bytes={b}"),
                _ => format!("vm.dirty_ratio={}", opt_u(m.dirty_ratio)),
            };
            w.find(
                Finding::new(
                    "DIRTY_BUFFER_LARGE",
                    Severity::Cache,
                    format!(
                        "Up to ≈ {} of writes can sit in RAM ({how}): short buffered write tests measure memory; include fsync or use direct I/O.",
                        gib(limit)
                    ),
                )
                .with("/proc/sys/vm/dirty_ratio", opt_u(m.dirty_ratio))
                .with("/proc/meminfo", ev_mi),
            );
        }
    }
}

pub(super) fn cpu_findings(w: &mut Walk, c: &Cpu) {
    const P: &str = "/sys/devices/system/cpu";
    if c.cpu_dir_missing {
        w.unknown("CPU frequency scaling", format!("{P} missing"));
        return;
    }
    if c.cpufreq_absent {
        w.find(
            Finding::new(
                "CPUFREQ_UNKNOWN",
                Severity::Info,
                "CPU frequency scaling not visible (virtual machine?).",
            )
            .with(format!("{P}/cpufreq"), "no policy* entries"),
        );
        return;
    }
    let slow = (c.governor.as_deref() == Some("powersave")
        && c.scaling_driver.as_deref() == Some("acpi-cpufreq"))
        || c.epp.as_deref() == Some("power");
    if slow {
        w.find(
            Finding::new(
                "CPU_GOVERNOR_SLOW",
                Severity::Warn,
                format!(
                    "CPU frequency governor {} ({}{}) keeps clocks low: high-IOPS tests become CPU-bound.",
                    c.governor.as_deref().unwrap_or("?"),
                    c.scaling_driver.as_deref().unwrap_or("?"),
                    c.epp.as_ref().map(|e| format!(", EPP {e}")).unwrap_or_default()
                ),
            )
            .with(format!("{P}/cpufreq/…/scaling_governor"), c.governor.clone().unwrap_or_default()),
        );
    }
}
