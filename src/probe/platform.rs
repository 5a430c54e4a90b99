//! Findings about the machine around the storage path rather than its links: cgroup I/O limits, Intel RAID mode hiding NVMe, NVMe
//! APST, NUMA placement, PCIe AER counters, SD bus timing and the NVMe LBA format.
//!
//! All of it is static — `diagnose` has no run — so counters are "since boot" and the
//! benchmark's CPUs are not known. Every read goes through [`Sys`](crate::probe::sysroot::Sys);
//! a missing file never produces a finding, at most an unknown.

use crate::probe::blockdev::{BlockDevice, Transport};
use crate::probe::findings::{Finding, Severity};
use crate::probe::walk::Walk;

/// Physical leaves of a device tree (the disks that do the I/O).
fn leaves(d: &BlockDevice) -> Vec<&BlockDevice> {
    if d.members.is_empty() {
        vec![d]
    } else {
        d.members.iter().flat_map(leaves).collect()
    }
}

/// Every device of the tree (top first), for `MAJ:MIN` matching.
fn all(d: &BlockDevice) -> Vec<&BlockDevice> {
    let mut v = vec![d];
    for m in &d.members {
        v.extend(all(m));
    }
    v
}

/// All platform findings for the target's device tree (`None`: no block device).
pub(in crate::probe) fn platform_findings(w: &mut Walk, device: Option<&BlockDevice>) {
    raid_mode(w, device);
    let Some(d) = device else { return };
    cgroup_io_limit(w, d);
    for leaf in leaves(d) {
        nvme_apst(w, leaf);
        lba_format(w, leaf);
        numa(w, leaf);
        aer(w, leaf);
        mmc_timing(w, leaf);
    }
}

// ---------------------------------------------------------------- CGROUP_IO_LIMIT

/// One `io.max` line: `MAJ:MIN rbps=… wbps=… riops=… wiops=…` (`max` = unlimited).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IoMax {
    /// Read bytes per second.
    pub rbps: Option<u64>,
    /// Write bytes per second.
    pub wbps: Option<u64>,
    /// Read I/O operations per second.
    pub riops: Option<u64>,
    /// Write I/O operations per second.
    pub wiops: Option<u64>,
}

impl IoMax {
    fn any(&self) -> bool {
        self.rbps.is_some() || self.wbps.is_some() || self.riops.is_some() || self.wiops.is_some()
    }
    /// The tighter of two limits, key by key (a child cannot exceed its parents).
    fn min(self, o: IoMax) -> IoMax {
        let m = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        IoMax {
            rbps: m(self.rbps, o.rbps),
            wbps: m(self.wbps, o.wbps),
            riops: m(self.riops, o.riops),
            wiops: m(self.wiops, o.wiops),
        }
    }
}

/// Parse an `io.max` file into `(MAJ:MIN, limits, line)`.
pub fn parse_io_max(text: &str) -> Vec<(String, IoMax, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let Some(dev) = it.next() else { continue };
        if !dev.contains(':') {
            continue;
        }
        let mut l = IoMax::default();
        for kv in it {
            let Some((k, v)) = kv.split_once('=') else {
                continue;
            };
            let v = if v == "max" {
                None
            } else {
                v.parse::<u64>().ok()
            };
            match k {
                "rbps" => l.rbps = v,
                "wbps" => l.wbps = v,
                "riops" => l.riops = v,
                "wiops" => l.wiops = v,
                _ => {}
            }
        }
        out.push((dev.to_string(), l, line.trim().to_string()));
    }
    out
}

/// Bytes/s as decimal MB/s (`100 MB/s`, `1.5 MB/s`).
fn mbps(b: u64) -> String {
    if b.is_multiple_of(1_000_000) {
        format!("{} MB/s", b / 1_000_000)
    } else {
        let v = format!("{:.2}", b as f64 / 1e6);
        format!("{} MB/s", v.trim_end_matches('0').trim_end_matches('.'))
    }
}

/// The cgroup v2 path of this process (`0::/path`), if any.
fn own_cgroup(w: &mut Walk) -> Option<String> {
    let Some(text) = w.sys.read("/proc/self/cgroup") else {
        w.unknown(
            "cgroup I/O limits (io.max)",
            "/proc/self/cgroup missing or unreadable",
        );
        return None;
    };
    let v2 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("0::"))
        .map(str::to_string);
    if v2.is_none() {
        w.unknown(
            "cgroup I/O limits (io.max)",
            "no cgroup v2 entry (`0::/…`) in /proc/self/cgroup; v1 blkio.throttle.* is not checked",
        );
    }
    v2
}

fn cgroup_io_limit(w: &mut Walk, d: &BlockDevice) {
    let devs: Vec<(String, String)> = all(d)
        .into_iter()
        .filter_map(|x| Some((x.majmin.clone()?, x.name.clone())))
        .collect();
    if devs.is_empty() {
        return;
    }
    let Some(cg) = own_cgroup(w) else { return };
    let mount = w
        .mounts
        .iter()
        .rev()
        .find(|m| m.fs_type == "cgroup2")
        .map(|m| m.mount_point.clone())
        .unwrap_or_else(|| "/sys/fs/cgroup".into());
    let mount = mount.trim_end_matches('/').to_string();
    // The process's own cgroup, then every parent up to (and including) the mount root.
    let parts: Vec<&str> = cg.split('/').filter(|c| !c.is_empty()).collect();
    let mut files = Vec::new();
    for n in (0..=parts.len()).rev() {
        let rel = parts[..n].join("/");
        files.push(if rel.is_empty() {
            format!("{mount}/io.max")
        } else {
            format!("{mount}/{rel}/io.max")
        });
    }
    for (majmin, name) in devs {
        let mut eff = IoMax::default();
        let mut ev: Vec<(String, String)> = Vec::new();
        for f in &files {
            let Some(text) = w.sys.read(f) else { continue };
            for (dev, l, line) in parse_io_max(&text) {
                if dev == majmin && l.any() {
                    eff = eff.min(l);
                    ev.push((f.clone(), line));
                }
            }
        }
        if !eff.any() {
            continue;
        }
        let mut parts: Vec<String> = Vec::new();
        if let Some(v) = eff.rbps {
            parts.push(format!("{} read", mbps(v)));
        }
        if let Some(v) = eff.wbps {
            parts.push(format!("{} write", mbps(v)));
        }
        if let Some(v) = eff.riops {
            parts.push(format!("{v} read IOPS"));
        }
        if let Some(v) = eff.wiops {
            parts.push(format!("{v} write IOPS"));
        }
        let mut f = Finding::new(
            "CGROUP_IO_LIMIT",
            Severity::Warn,
            format!(
                "cgroup io.max limits {name} ({majmin}) to {} for this process (cgroup {cg}): results measure the throttle, not the device.",
                parts.join(", ")
            ),
        )
        .with("/proc/self/cgroup", format!("0::{cg}"));
        for (file, line) in ev {
            f = f.with(file, line);
        }
        w.find(f);
    }
}

// ---------------------------------------------------------------- RAID_MODE_HIDES_NVME

/// `0x0104xx` (RAID bus controller) from Intel (`0x8086`).
fn is_intel_raid(class: &str, vendor: &str) -> bool {
    let c = u64::from_str_radix(class.trim().trim_start_matches("0x"), 16).ok();
    c.is_some_and(|c| c >> 8 == 0x0104) && vendor.trim().eq_ignore_ascii_case("0x8086")
}

fn raid_mode(w: &mut Walk, device: Option<&BlockDevice>) {
    const BUS: &str = "/sys/bus/pci/devices";
    let Some(fns) = w.sys.list(BUS) else { return };
    let target_is_nvme = device.is_some_and(|d| {
        leaves(d)
            .iter()
            .any(|l| matches!(l.transport, Transport::Nvme { .. }))
    });
    let nvme = w.sys.list("/sys/class/nvme").unwrap_or_default();
    if target_is_nvme || !nvme.is_empty() {
        return;
    }
    for a in fns {
        let dir = format!("{BUS}/{a}");
        let (Some(class), Some(vendor)) = (
            w.sys.read_trim(&format!("{dir}/class")),
            w.sys.read_trim(&format!("{dir}/vendor")),
        ) else {
            continue;
        };
        if !is_intel_raid(&class, &vendor) {
            continue;
        }
        let dev = w
            .sys
            .read_trim(&format!("{dir}/device"))
            .unwrap_or_default();
        let drv = w
            .sys
            .link_name(&format!("{dir}/driver"))
            .map(|d| format!(", driver {d}"))
            .unwrap_or_default();
        w.find(
            Finding::new(
                "RAID_MODE_HIDES_NVME",
                Severity::Info,
                format!(
                    "Storage controller {a} [8086:{}]{drv} is in RAID mode (Intel RST) and no NVMe controller is visible: NVMe drives behind it may be hidden or slowed; switch the BIOS SATA/NVMe mode to AHCI/NVMe to see them.",
                    dev.trim_start_matches("0x")
                ),
            )
            .with(format!("{dir}/class"), class)
            .with(format!("{dir}/vendor"), vendor)
            .with("/sys/class/nvme", "no controllers"),
        );
    }
}

// ---------------------------------------------------------------- NVME_APST, LBA_FORMAT_512

fn is_pcie_nvme(d: &BlockDevice) -> bool {
    matches!(&d.transport, Transport::Nvme { fabric, .. }
        if fabric.as_deref().is_none_or(|f| f == "pcie"))
}

fn nvme_apst(w: &mut Walk, d: &BlockDevice) {
    const P: &str = "/sys/module/nvme_core/parameters/default_ps_max_latency_us";
    if !is_pcie_nvme(d) {
        return;
    }
    let Some(raw) = w.sys.read_trim(P) else {
        w.unknown(
            format!("NVMe APST policy ({})", d.name),
            format!("{P} missing"),
        );
        return;
    };
    let Ok(us) = raw.parse::<u64>() else {
        w.unknown(
            format!("NVMe APST policy ({})", d.name),
            format!("{P} = {raw:?}: not a number"),
        );
        return;
    };
    if us == 0 {
        return;
    }
    let ms = us as f64 / 1000.0;
    w.find(
        Finding::new(
            "NVME_APST",
            Severity::Info,
            format!(
                "Autonomous power states allowed (max exit latency {ms} ms, nvme_core.default_ps_max_latency_us={us}): idle gaps can add ms-scale wake-up latency — matters for QD1 and workloads with idle gaps, not for sustained bandwidth; the drive's own states need `nvme get-feature -f 0x0c -H` (root)."
            ),
        )
        .with(P, raw),
    );
}

fn lba_format(w: &mut Walk, d: &BlockDevice) {
    if matches!(d.transport, Transport::Nvme { .. }) && d.queue.logical_block_size == Some(512) {
        w.unknown(
            format!("LBA_FORMAT_512 ({})", d.name),
            "the namespace uses 512-byte LBAs; needs `nvme id-ns -H` (root) to see other LBA formats and their relative performance",
        );
    }
}

// ---------------------------------------------------------------- NUMA_REMOTE

fn numa(w: &mut Walk, d: &BlockDevice) {
    let Some(ep) = d.pci.as_ref().and_then(|p| p.functions.last()) else {
        return;
    };
    let Some(node) = ep.numa_node.filter(|n| *n >= 0) else {
        return;
    };
    const NODES: &str = "/sys/devices/system/node";
    let nodes: Vec<String> = w
        .sys
        .list(NODES)
        .unwrap_or_default()
        .into_iter()
        .filter(|n| {
            n.strip_prefix("node")
                .is_some_and(|x| !x.is_empty() && x.chars().all(|c| c.is_ascii_digit()))
        })
        .collect();
    if nodes.len() < 2 {
        return;
    }
    let cpus = w
        .sys
        .read_trim(&format!("{}/local_cpulist", ep.sysfs))
        .or_else(|| w.sys.read_trim(&format!("{NODES}/node{node}/cpulist")))
        .map(|c| format!(" (CPUs {c})"))
        .unwrap_or_default();
    w.find(
        Finding::new(
            "NUMA_REMOTE",
            Severity::Info,
            format!(
                "Drive {} ({}) is on NUMA node {node} of {}{cpus}: pin the benchmark there (`numactl --cpunodebind={node} --membind={node}`); diagnose cannot know which CPUs the benchmark will run on, so cross-node traffic is possible, not certain.",
                d.name,
                ep.address,
                nodes.len()
            ),
        )
        .with(format!("{}/numa_node", ep.sysfs), node.to_string())
        .with(NODES, nodes.join(" ")),
    );
}

// ---------------------------------------------------------------- PCIE_AER_ERRORS

/// `aer_dev_correctable` lines (`BadTLP 3`) → (name, count).
pub fn parse_aer(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let k = it.next()?;
            let v = it.next()?.parse().ok()?;
            Some((k.to_string(), v))
        })
        .collect()
}

fn aer(w: &mut Walk, d: &BlockDevice) {
    let Some(p) = &d.pci else { return };
    for f in &p.functions {
        let file = format!("{}/aer_dev_correctable", f.sysfs);
        let Some(text) = w.sys.read(&file) else {
            continue;
        };
        let counts = parse_aer(&text);
        let Some(total) = counts
            .iter()
            .find(|(k, _)| k == "TOTAL_ERR_COR")
            .map(|(_, v)| *v)
            .filter(|t| *t > 0)
        else {
            continue;
        };
        let which: Vec<String> = counts
            .iter()
            .filter(|(k, v)| *v > 0 && k != "TOTAL_ERR_COR")
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let which = if which.is_empty() {
            String::new()
        } else {
            format!(" ({})", which.join(", "))
        };
        w.find(
            Finding::new(
                "PCIE_AER_ERRORS",
                Severity::Warn,
                format!(
                    "PCIe function {} on the path to {} has logged {total} correctable errors since boot{which}: retransmissions lower throughput; check riser/adapter/seating. This is a static count — a benchmark run could compare it before and after to see whether errors rise under load.",
                    f.address, d.name
                ),
            )
            .with(file, format!("TOTAL_ERR_COR {total}")),
        );
    }
}

// ---------------------------------------------------------------- MMC_SLOW_TIMING

/// Host capability bits for UHS SDR50/SDR104/DDR50 that mean the same in both
/// layouts of `MMC_CAP_*` seen in kernels (bits 18 and 19; older kernels numbered the
/// UHS bits from 15, newer from 16).
const MMC_CAP_UHS_FAST: u64 = (1 << 18) | (1 << 19);

/// `timing spec: 2 (sd high-speed)` → `sd high-speed`; also `clock` and `bus width`.
pub fn parse_ios(text: &str) -> (Option<String>, Option<String>, Option<String>) {
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map(|r| r.trim_start_matches(':').trim().to_string())
    };
    let timing = field("timing spec").map(|t| match (t.find('('), t.rfind(')')) {
        (Some(a), Some(b)) if b > a => t[a + 1..b].trim().to_string(),
        _ => t,
    });
    (timing, field("clock"), field("bus width"))
}

fn mmc_timing(w: &mut Walk, d: &BlockDevice) {
    let Transport::Mmc { card_type } = &d.transport else {
        return;
    };
    let Some(host) = d.sysfs.split('/').find(|c| {
        c.strip_prefix("mmc")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|x| x.is_ascii_digit()))
    }) else {
        return;
    };
    let ios_file = format!("/sys/kernel/debug/{host}/ios");
    let Some(ios) = w.sys.read(&ios_file) else {
        w.unknown(
            format!("SD/MMC bus timing of {host}"),
            format!("{ios_file} unreadable (debugfs needs root)"),
        );
        return;
    };
    let (Some(timing), clock, width) = parse_ios(&ios) else {
        w.unknown(
            format!("SD/MMC bus timing of {host}"),
            format!("no `timing spec` line in {ios_file}"),
        );
        return;
    };
    let slow = match timing.as_str() {
        "legacy" => Some(12.5),
        "sd high-speed" => Some(25.0),
        _ => None,
    };
    let Some(cap_mb) = slow else { return };
    if card_type.as_deref() != Some("SD") {
        return;
    }
    let caps_file = format!("/sys/kernel/debug/{host}/caps");
    let caps = w.sys.read_u64(&caps_file);
    let mode = if timing == "legacy" {
        "default (legacy) mode"
    } else {
        "high-speed mode"
    };
    let bus = [
        clock.map(|c| format!("clock {c}")),
        width.map(|b| format!("bus width {b}")),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(", ");
    let bus = if bus.is_empty() {
        String::new()
    } else {
        format!(" ({bus})")
    };
    let mut f = match caps {
        Some(c) if c & MMC_CAP_UHS_FAST != 0 => Finding::new(
            "MMC_SLOW_TIMING",
            Severity::Limit,
            format!(
                "SD card {} runs in {mode} (≤ {cap_mb} MB/s){bus}, although the host {host} supports UHS-I (SDR50/SDR104, ≤ 104 MB/s): a UHS-I card should negotiate UHS — check the card's U1/U3 marking, the reader and 1.8 V signalling.",
                d.name
            ),
        ),
        Some(_) => return,
        None => Finding::new(
            "MMC_SLOW_TIMING",
            Severity::Info,
            format!(
                "SD card {} runs in {mode} (≤ {cap_mb} MB/s){bus}; whether host {host} and card could do UHS-I (≤ 104 MB/s) is not visible ({caps_file} unreadable).",
                d.name
            ),
        ),
    };
    f = f.with(ios_file, format!("timing spec: {timing}"));
    if let Some(c) = caps {
        f = f.with(caps_file, format!("{c:#010x}"));
    }
    w.find(f);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_io_max_aer_and_ios() {
        let v = parse_io_max("8:0 rbps=max wbps=max riops=max wiops=max\n259:0 rbps=100000000 wbps=max riops=max wiops=5000\n");
        assert_eq!(v.len(), 2);
        assert!(!v[0].1.any());
        assert_eq!(v[1].1.rbps, Some(100_000_000));
        assert_eq!(v[1].1.wiops, Some(5000));
        assert_eq!(mbps(100_000_000), "100 MB/s");
        assert_eq!(mbps(1_500_000), "1.5 MB/s");
        let a = parse_aer("RxErr 0\nBadTLP 3\nBadDLLP 2\nTOTAL_ERR_COR 5\n");
        assert_eq!(a.last().unwrap(), &("TOTAL_ERR_COR".to_string(), 5));
        let (t, c, b) = parse_ios(
            "clock:\t\t50000000 Hz\nbus width:\t2 (4 bits)\ntiming spec:\t2 (sd high-speed)\n",
        );
        assert_eq!(t.as_deref(), Some("sd high-speed"));
        assert_eq!(c.as_deref(), Some("50000000 Hz"));
        assert_eq!(b.as_deref(), Some("2 (4 bits)"));
        assert!(is_intel_raid("0x010400", "0x8086"));
        assert!(!is_intel_raid("0x010601", "0x8086"));
        assert!(!is_intel_raid("0x010400", "0x1022"));
    }
}
