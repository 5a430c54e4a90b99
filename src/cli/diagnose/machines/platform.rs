//! Platform findings (src/probe/platform.rs) on fixture g and edits of it: cgroup I/O
//! limits, PCIe AER errors, the NUMA node of the drive, NVMe APST, the LBA format,
//! Intel RST RAID mode, SD cards in high-speed mode.

use super::*;
use crate::probe::findings::Severity;

const G: &str = "g-platform-nvme";
const G_PATH: &str = "/data/big.bin";
const G_EP: &str = "sys/devices/pci0000:00/0000:00:1c.4/0000:04:00.0";

#[test]
fn platform_cgroup_io_max_limit_walks_parents_and_takes_the_minimum() {
    let d = diag(G, G_PATH);
    let f = finding(&d, "CGROUP_IO_LIMIT");
    assert_eq!(f.severity, Severity::Warn);
    assert!(
        f.message.starts_with("cgroup io.max limits nvme0n1 (259:0) to 100 MB/s read, 50 MB/s write, 5000 write IOPS for this process (cgroup /system.slice/bench.service)"),
        "{}",
        f.message
    );
    assert!(f
        .evidence
        .iter()
        .any(|e| e.file == "/sys/fs/cgroup/system.slice/io.max"
            && e.value.starts_with("259:0 rbps=100000000")));
    assert!(f
        .evidence
        .iter()
        .any(|e| e.file == "/sys/fs/cgroup/system.slice/bench.service/io.max"));
    assert_eq!(
        d.findings
            .iter()
            .filter(|f| f.id == "CGROUP_IO_LIMIT")
            .count(),
        1
    );
}

#[test]
fn platform_cgroup_without_an_entry_for_the_device_is_silent() {
    let t = tree(G);
    write(
        &t,
        "sys/fs/cgroup/system.slice/io.max",
        "8:0 rbps=1000000 wbps=max riops=max wiops=max\n",
    );
    write(
        &t,
        "sys/fs/cgroup/system.slice/bench.service/io.max",
        "259:0 rbps=max wbps=max riops=max wiops=max\n",
    );
    let d = diag_dir(&t, G_PATH);
    assert!(!has(&d, "CGROUP_IO_LIMIT"), "{:?}", ids(&d));
    // v1 only: unknown, no finding
    write(&t, "proc/self/cgroup", "12:blkio:/user.slice\n");
    let v1 = diag_dir(&t, G_PATH);
    assert!(!has(&v1, "CGROUP_IO_LIMIT"));
    assert!(unknown(&v1, "cgroup I/O limits")
        .unwrap()
        .why
        .contains("v1"));
    // the recorded machines (a)–(e) have no /proc/self/cgroup: unknown, never a finding
    let a = diag("a-nvme-gen2-slot", G_PATH);
    assert!(!has(&a, "CGROUP_IO_LIMIT"));
    assert!(unknown(&a, "cgroup I/O limits").is_some());
}

#[test]
fn platform_pcie_aer_correctable_errors_since_boot() {
    let d = diag(G, G_PATH);
    let f = finding(&d, "PCIE_AER_ERRORS");
    assert_eq!(f.severity, Severity::Warn);
    for s in [
        "PCIe function 0000:04:00.0 on the path to nvme0n1 has logged 7 correctable errors since boot (BadTLP 3, BadDLLP 4)",
        "check riser/adapter/seating",
        "compare it before and after",
    ] {
        assert!(f.message.contains(s), "{s:?} not in {}", f.message);
    }
    assert!(f.evidence[0]
        .file
        .ends_with("0000:04:00.0/aer_dev_correctable"));
    assert_eq!(
        d.findings
            .iter()
            .filter(|f| f.id == "PCIE_AER_ERRORS")
            .count(),
        1,
        "the root port's zero counters are no finding"
    );
    let t = tree(G);
    write(
        &t,
        &format!("{G_EP}/aer_dev_correctable"),
        "RxErr 0\nBadTLP 0\nTOTAL_ERR_COR 0\n",
    );
    assert!(!has(&diag_dir(&t, G_PATH), "PCIE_AER_ERRORS"));
    assert!(!has(&diag("a-nvme-gen2-slot", G_PATH), "PCIE_AER_ERRORS"));
}

#[test]
fn platform_numa_node_of_the_drive_on_a_two_node_machine() {
    let d = diag(G, G_PATH);
    let f = finding(&d, "NUMA_REMOTE");
    assert_eq!(f.severity, Severity::Info);
    assert!(
        f.message.starts_with("Drive nvme0n1 (0000:04:00.0) is on NUMA node 1 of 2 (CPUs 8-15): pin the benchmark there (`numactl --cpunodebind=1 --membind=1`); diagnose cannot know which CPUs"),
        "{}",
        f.message
    );
    // one node only, or numa_node -1: nothing to say
    let t = tree(G);
    std::fs::remove_dir_all(t.path().join("sys/devices/system/node/node1")).unwrap();
    assert!(!has(&diag_dir(&t, G_PATH), "NUMA_REMOTE"));
    let t = tree(G);
    write(&t, &format!("{G_EP}/numa_node"), "-1\n");
    assert!(!has(&diag_dir(&t, G_PATH), "NUMA_REMOTE"));
}

#[test]
fn platform_nvme_apst_enabled_and_disabled() {
    let d = diag(G, G_PATH);
    let f = finding(&d, "NVME_APST");
    assert_eq!(f.severity, Severity::Info);
    assert!(
        f.message.starts_with("Autonomous power states allowed (max exit latency 100 ms, nvme_core.default_ps_max_latency_us=100000): idle gaps can add ms-scale wake-up latency — matters for QD1"),
        "{}",
        f.message
    );
    assert!(has(&diag("a-nvme-gen2-slot", G_PATH), "NVME_APST"));
    let t = tree(G);
    write(
        &t,
        "sys/module/nvme_core/parameters/default_ps_max_latency_us",
        "0\n",
    );
    assert!(!has(&diag_dir(&t, G_PATH), "NVME_APST"));
    // not NVMe: the parameter does not matter
    let t = tree("c-sata-3gbps");
    write(
        &t,
        "sys/module/nvme_core/parameters/default_ps_max_latency_us",
        "100000\n",
    );
    assert!(!has(&diag_dir(&t, "/home/user/data.bin"), "NVME_APST"));
}

#[test]
fn platform_lba_format_512_is_an_unknown_never_a_finding() {
    let d = diag(G, G_PATH);
    assert!(!has(&d, "LBA_FORMAT_512"));
    let u = unknown(&d, "LBA_FORMAT_512 (nvme0n1)").expect("unknown for the 512-byte namespace");
    assert!(
        u.why
            .contains("needs `nvme id-ns -H` (root) to see other LBA formats"),
        "{}",
        u.why
    );
    let t = tree(G);
    write(
        &t,
        "sys/devices/pci0000:00/0000:00:1c.4/0000:04:00.0/nvme/nvme0/nvme0n1/queue/logical_block_size",
        "4096\n",
    );
    assert!(unknown(&diag_dir(&t, G_PATH), "LBA_FORMAT_512").is_none());
    // SATA 512-byte sectors are not NVMe LBA formats
    assert!(unknown(
        &diag("c-sata-3gbps", "/home/user/data.bin"),
        "LBA_FORMAT_512"
    )
    .is_none());
}

#[test]
fn platform_intel_rst_raid_mode_without_visible_nvme() {
    let p = "/home/user/data.bin";
    let d = diag("h-rst-raid-mode", p);
    let f = finding(&d, "RAID_MODE_HIDES_NVME");
    assert_eq!(f.severity, Severity::Info);
    assert!(
        f.message.starts_with("Storage controller 0000:00:1f.2 [8086:2822], driver ahci is in RAID mode (Intel RST) and no NVMe controller is visible: NVMe drives behind it may be hidden or slowed"),
        "{}",
        f.message
    );
    assert!(f
        .evidence
        .iter()
        .any(|e| e.file.ends_with("0000:00:1f.2/class") && e.value == "0x010400"));
    // an NVMe controller is visible (e.g. VMD): no finding
    let t = tree("h-rst-raid-mode");
    std::fs::create_dir_all(t.path().join("sys/class/nvme/nvme0")).unwrap();
    assert!(!has(&diag_dir(&t, p), "RAID_MODE_HIDES_NVME"));
    // AHCI mode (class 0x010601): no finding
    let t = tree("h-rst-raid-mode");
    write(
        &t,
        "sys/devices/pci0000:00/0000:00:1f.2/class",
        "0x010601\n",
    );
    assert!(!has(&diag_dir(&t, p), "RAID_MODE_HIDES_NVME"));
    // the target itself is NVMe: NVMe is visible
    assert!(!has(&diag(G, G_PATH), "RAID_MODE_HIDES_NVME"));
}

#[test]
fn platform_sd_card_in_high_speed_mode_on_a_uhs_host() {
    let p = "/home/pi/data.bin";
    let d = diag("i-sd-card-high-speed", p);
    assert!(
        layer(&d, "mmc")[0].contains("SD card SC64G"),
        "{:?}",
        layer(&d, "mmc")
    );
    let f = finding(&d, "MMC_SLOW_TIMING");
    assert_eq!(f.severity, Severity::Limit);
    assert!(
        f.message.starts_with("SD card mmcblk0 runs in high-speed mode (≤ 25 MB/s) (clock 50000000 Hz, bus width 2 (4 bits)), although the host mmc0 supports UHS-I (SDR50/SDR104, ≤ 104 MB/s)"),
        "{}",
        f.message
    );
    assert!(
        f.evidence
            .iter()
            .any(|e| e.file == "/sys/kernel/debug/mmc0/ios"
                && e.value == "timing spec: sd high-speed")
    );
    // host capability not readable: the timing only, as INFO
    let t = tree("i-sd-card-high-speed");
    std::fs::remove_file(t.path().join("sys/kernel/debug/mmc0/caps")).unwrap();
    let info = diag_dir(&t, p);
    let f = finding(&info, "MMC_SLOW_TIMING");
    assert_eq!(f.severity, Severity::Info);
    assert!(f.message.contains("is not visible"), "{}", f.message);
    // host without UHS: high-speed is the best it can do
    let t = tree("i-sd-card-high-speed");
    write(&t, "sys/kernel/debug/mmc0/caps", "0x00000219\n");
    assert!(!has(&diag_dir(&t, p), "MMC_SLOW_TIMING"));
    // already UHS SDR104: no finding
    let t = tree("i-sd-card-high-speed");
    write(
        &t,
        "sys/kernel/debug/mmc0/ios",
        "clock:\t\t208000000 Hz\nbus width:\t2 (4 bits)\ntiming spec:\t6 (sd uhs SDR104)\n",
    );
    assert!(!has(&diag_dir(&t, p), "MMC_SLOW_TIMING"));
    // eMMC (type MMC) is not judged by the SD rule
    let t = tree("i-sd-card-high-speed");
    write(
        &t,
        "sys/devices/platform/emmc2bus/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa/type",
        "MMC\n",
    );
    assert!(!has(&diag_dir(&t, p), "MMC_SLOW_TIMING"));
    // no debugfs (not root): unknown, no finding
    let t = tree("i-sd-card-high-speed");
    std::fs::remove_dir_all(t.path().join("sys/kernel/debug")).unwrap();
    let nd = diag_dir(&t, p);
    assert!(!has(&nd, "MMC_SLOW_TIMING"));
    assert!(unknown(&nd, "SD/MMC bus timing of mmc0")
        .unwrap()
        .why
        .contains("debugfs needs root"));
}

#[test]
fn platform_fixtures_survive_deleted_files_without_new_findings() {
    for (name, path) in [
        (G, G_PATH),
        ("h-rst-raid-mode", "/home/user/data.bin"),
        ("i-sd-card-high-speed", "/home/pi/data.bin"),
    ] {
        let full = diag(name, path);
        let t = tree(name);
        let mut files = Vec::new();
        entries(t.path(), &mut files);
        files.sort();
        for (i, f) in files.iter().enumerate() {
            let t2 = tree(name);
            let rel = f.strip_prefix(t.path()).unwrap();
            std::fs::remove_file(t2.path().join(rel)).unwrap();
            let d = diag_dir(&t2, path);
            for g in &d.findings {
                assert!(
                    g.id == "PCIE_INFO_UNKNOWN" || full.findings.iter().any(|h| h.id == g.id),
                    "{name}: deleting #{i} {} adds {}",
                    rel.display(),
                    g.id
                );
            }
        }
    }
}
