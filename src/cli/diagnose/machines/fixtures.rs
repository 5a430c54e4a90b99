//! The five recorded machines (a)–(e) of tests/fixtures/diagnose/ and their variants: old-kernel
//! and unknown link strings, a x1 link; a target without a single block device; and
//! deleting fixture files only ever moves facts to "unknown".

use super::*;
use crate::probe::findings::Severity;

/// Fixture (a) findings, shared by its kernel-string variant.
fn assert_fixture_a(d: &Diagnosis) {
    // stack: path → mount → ext4 → partition → disk → nvme → root port → endpoint link
    assert!(layer(d, "mount")[0].starts_with("/data (mount 29, ext4 from /dev/nvme0n1p1"));
    assert!(
        layer(d, "partition")[0].contains("nvme0n1p1 (259:1): partition 1, starts at sector 2048")
    );
    assert!(layer(d, "disk")[0].starts_with("nvme0n1 (259:0)"));
    assert!(layer(d, "disk")[0].contains("scheduler none"));
    assert!(layer(d, "nvme")[0]
        .contains("Samsung SSD 970 EVO Plus 1TB, firmware 2B2QEXM7, 4 I/O queues × 1024"));
    let pci = layer(d, "pci");
    assert_eq!(pci.len(), 2);
    assert!(
        pci[0].starts_with("0000:00:1c.4 [8086:1c18]") && pci[0].contains("root port, max Gen2 x4")
    );
    assert!(pci[1].contains("link to 0000:00:1c.4 at 5.0 GT/s x4 (Gen2 x4, 2.00 GB/s raw, ≈ 1.60 GB/s real); own max Gen3 x4, port max Gen2 x4"), "{}", pci[1]);
    // ceiling: Gen2 x4 = 2000 MB/s raw, 1600 realistic, set by the slot
    let c = d.ceiling.as_ref().unwrap();
    assert!(close(c.raw_mb_s, 2000.0) && close(c.realistic_mb_s, 1600.0));
    assert!(
        c.set_by.contains("PCIe link at 0000:00:1c.4 (Gen2 x4"),
        "{}",
        c.set_by
    );
    assert!(close(c.read_mb_s.unwrap(), 1600.0) && close(c.write_mb_s.unwrap(), 1500.0));
    // findings
    let f = finding(d, "PCIE_LINK_BELOW_DEVICE");
    assert_eq!(f.severity, Severity::Limit);
    for s in [
        "Gen2 x4 (5.0 GT/s)",
        "≈ 2.00 GB/s raw",
        "≈ 1.60 GB/s real",
        "supports Gen3 x4 (≈ 3.94 GB/s raw)",
        "slot at 0000:00:1c.4 tops out at Gen2",
        "Gen3 x4 slot",
    ] {
        assert!(f.message.contains(s), "{s:?} not in {}", f.message);
    }
    assert!(f
        .evidence
        .iter()
        .any(|e| e.file.ends_with("0000:04:00.0/current_link_speed")));
    assert!(f
        .evidence
        .iter()
        .any(|e| e.file.ends_with("0000:00:1c.4/max_link_speed")));
    let rated: Vec<_> = d
        .findings
        .iter()
        .filter(|f| f.id == "RATED_ABOVE_CEILING")
        .collect();
    assert_eq!(rated.len(), 1, "read only: 1500 MB/s write fits under 1600");
    assert!(rated[0]
        .message
        .starts_with("Rated 3000 MB/s read, but this path allows ≈ 1600 MB/s"));
    assert!(has(d, "PCIE_CHIPSET_PATH"));
    for none in [
        "PART_MISALIGNED",
        "SCHED_BFQ_FAST",
        "NVME_HOT",
        "CPU_GOVERNOR_SLOW",
        "PCIE_WIDTH_REDUCED",
        "PCIE_LINK_TRAINED_LOW",
        "PCIE_INFO_UNKNOWN",
    ] {
        assert!(!has(d, none), "{none} unexpected");
    }
    assert_eq!(d.findings[0].severity, Severity::Limit, "most severe first");
}

#[test]
fn fixture_a_nvme_gen3_drive_in_gen2_slot() {
    let d = diag("a-nvme-gen2-slot", "/data/big.bin");
    assert_fixture_a(&d);
    assert_eq!(d.summary.transport.as_deref(), Some("nvme"));
    assert_eq!(
        d.summary.device_model.as_deref(),
        Some("Samsung SSD 970 EVO Plus 1TB")
    );
}

#[test]
fn fixture_a_old_kernel_link_strings_give_the_same_answer() {
    let a = diag("a-nvme-gen2-slot", "/data/big.bin");
    let old = diag("a1-old-kernel-strings", "/data/big.bin");
    assert_fixture_a(&old);
    assert_eq!(ids(&a), ids(&old));
    assert_eq!(a.ceiling, old.ceiling);
}

#[test]
fn fixture_a_width_x1_is_reported() {
    let d = diag("a2-width-x1", "/data/big.bin");
    let f = finding(&d, "PCIE_WIDTH_REDUCED");
    assert!(
        f.message.starts_with(
            "PCIe link is x1 but the drive supports x4: ceiling ≈ 0.50 GB/s raw (Gen2 x1)"
        ),
        "{}",
        f.message
    );
    let c = d.ceiling.as_ref().unwrap();
    assert!(close(c.raw_mb_s, 500.0) && close(c.realistic_mb_s, 400.0));
    assert!(has(&d, "PCIE_LINK_BELOW_DEVICE"));
    // with 400 MB/s both ratings are above the ceiling
    assert_eq!(
        d.findings
            .iter()
            .filter(|f| f.id == "RATED_ABOVE_CEILING")
            .count(),
        2
    );
}

#[test]
fn fixture_a_unknown_link_strings_stay_unknown() {
    let d = diag("a3-unknown-link", "/data/big.bin");
    let f = finding(&d, "PCIE_INFO_UNKNOWN");
    assert_eq!(f.severity, Severity::Info);
    assert!(f.message.contains("0000:04:00.0"));
    for none in [
        "PCIE_LINK_BELOW_DEVICE",
        "PCIE_WIDTH_REDUCED",
        "PCIE_LINK_TRAINED_LOW",
        "RATED_ABOVE_CEILING",
    ] {
        assert!(
            !has(&d, none),
            "unknown must never count as a downgrade: {none}"
        );
    }
    assert!(d.ceiling.is_none());
    assert!(d
        .unknowns
        .iter()
        .any(|u| u.what == "PCIe link of 0000:04:00.0"));
    assert!(d.unknowns.iter().any(|u| u.what == "RATED_ABOVE_CEILING"));
}

#[test]
fn fixture_b_md_raid0_xfs_with_256g_ram() {
    let (_t, d) = diag_with(
        "b-md-raid0-xfs",
        "/bench/fio",
        &["--rated-read=2400", "--rated-write=2000"],
    );
    assert!(layer(&d, "filesystem")[0].starts_with("xfs"));
    assert!(layer(&d, "md")[0]
        .starts_with("md127 (9:127): raid0, 2 member slots, chunk 512 KiB, state clean"));
    let disks = layer(&d, "disk");
    assert_eq!(disks.len(), 2);
    assert!(disks[0].starts_with("nvme0n1 (259:0)") && disks[1].starts_with("nvme1n1 (259:1)"));
    assert!(
        d.stack.iter().any(|l| l.kind == "disk" && l.depth == 1),
        "members nest below md"
    );
    let c = d.ceiling.as_ref().unwrap();
    assert_eq!(c.paths, 2);
    assert!(
        close(c.raw_mb_s, 7876.9) && close(c.realistic_mb_s, 6931.7),
        "{c:?}"
    );
    assert!(close(c.read_mb_s.unwrap(), 4800.0) && close(c.write_mb_s.unwrap(), 4000.0));
    assert!(c.set_by.starts_with("md127 raid0 of 2 members"));
    let ok = finding(&d, "MD_XFS_STRIPE_OK");
    assert!(ok
        .message
        .contains("sunit 512 KiB = chunk, swidth 1024 KiB = chunk × 2 data disks"));
    let p = finding(&d, "PAGE_CACHE_FITS");
    assert_eq!(p.severity, Severity::Cache);
    assert!(
        p.message
            .starts_with("Working set 139.7 GiB fits in RAM (251.5 GiB)"),
        "{}",
        p.message
    );
    assert!(finding(&d, "DIRTY_BUFFER_LARGE")
        .message
        .starts_with("Up to ≈ 48.5 GiB of writes can sit in RAM (vm.dirty_ratio=20)"));
    for none in [
        "WRITE_CACHE_OFF",
        "PCIE_WIDTH_REDUCED",
        "PCIE_LINK_BELOW_DEVICE",
        "PCIE_LINK_TRAINED_LOW",
        "MD_XFS_STRIPE_MISMATCH",
        "RATED_ABOVE_CEILING",
        "MD_DEGRADED",
        "MD_RESYNC",
    ] {
        assert!(!has(&d, none), "{none} unexpected");
    }
    assert_eq!(d.summary.transport.as_deref(), Some("md raid0 of 2 × nvme"));
}

#[test]
fn fixture_c_sata_ssd_on_3gbps_port() {
    let d = diag("c-sata-3gbps", "/home/user/data.bin");
    assert!(layer(&d, "partition")[0]
        .contains("sda2 (8:2): partition 2, starts at sector 1050624 (513 MiB)"));
    assert!(layer(&d, "sata")[0].contains(
        "ata3: Samsung SSD 860, link 3.0 Gbps, drive supports 6.0 Gbps, NCQ depth 32, non-rotating"
    ));
    let c = d.ceiling.as_ref().unwrap();
    assert!(close(c.raw_mb_s, 300.0) && close(c.realistic_mb_s, 276.0));
    assert!(c.set_by.contains("SATA link ata3 at 3.0 Gbps"));
    let f = finding(&d, "SATA_LINK_BELOW_DEVICE");
    assert_eq!(f.severity, Severity::Limit);
    assert!(f.message.starts_with("SATA link negotiated 3.0 Gbps: ceiling ≈ 300 MB/s (≈ 276 real); the drive supports 6.0 Gbps (≈ 552 MB/s)"), "{}", f.message);
    assert!(f
        .evidence
        .iter()
        .any(|e| e.file.ends_with("/sata_spd") && e.value == "3.0 Gbps"));
    for none in [
        "SATA_NCQ_OFF",
        "PART_MISALIGNED",
        "WRITE_CACHE_OFF",
        "SATA_LINK_LIMITED",
        "NO_DISCARD",
    ] {
        assert!(!has(&d, none), "{none} unexpected");
    }
    let ncq = diag("c1-ncq-off", "/home/user/data.bin");
    assert_eq!(finding(&ncq, "SATA_NCQ_OFF").severity, Severity::Warn);
}

#[test]
fn fixture_d_usb3_ssd_at_usb2_speed() {
    let d = diag("d-usb3-at-480", "/media/user/T7/video.mkv");
    assert!(layer(&d, "filesystem")[0].contains("exfat (statfs magic 0x2011bab0 = exfat)"));
    assert!(layer(&d, "usb")[0].contains("1-2: Samsung PSSD T7, 480 Mb/s, bcdUSB 2.10, driver uas, SuperSpeed capable (BOS); SuperSpeed peer usb2-port2 not attached (root hub 10000 Mb/s)"));
    let c = d.ceiling.as_ref().unwrap();
    assert!(close(c.raw_mb_s, 60.0) && close(c.realistic_mb_s, 40.0));
    let f = finding(&d, "USB_SS_DEVICE_AT_HIGH_SPEED");
    assert!(f.message.starts_with("USB link is 480 Mb/s (USB 2): ceiling ≈ 40 MB/s (60 MB/s raw); the drive is a USB 3 device"), "{}", f.message);
    assert!(f.message.contains("≥ 450 MB/s at 5 Gb/s"));
    assert!(f
        .evidence
        .iter()
        .any(|e| e.file.ends_with("usb2-port2/state") && e.value == "not attached"));
    assert!(!has(&d, "USB_BOT_NOT_UAS"));
    let weak = diag("d1-no-bos", "/media/user/T7/video.mkv");
    assert!(finding(&weak, "USB_SS_DEVICE_AT_HIGH_SPEED")
        .message
        .contains("the drive is probably a USB 3 device"));
    let stick = diag("d2-usb2-stick", "/media/user/T7/video.mkv");
    assert!(!has(&stick, "USB_SS_DEVICE_AT_HIGH_SPEED"));
    assert!(close(stick.ceiling.unwrap().realistic_mb_s, 40.0));
}

#[test]
fn fixture_e_this_vms_virtio_disk() {
    let d = diag("e-virtio-vm", "/");
    assert!(layer(&d, "mount")[0].starts_with("/ (mount 27, ext4 from /dev/root"));
    assert!(layer(&d, "disk")[0].starts_with("vda (254:0), 274.9 GB = 256.0 GiB: scheduler mq-deadline, rotational 1, write cache write back, read-ahead 8192 KiB"));
    assert!(layer(&d, "virtio")[0].contains("virtio1: virtio-blk (virtio disk, serial overlayblk), 1 hardware queue(s) (128 tags), multiqueue feature off"));
    assert!(d.ceiling.is_none());
    assert!(d
        .ceiling_unknown
        .as_deref()
        .unwrap()
        .contains("virtual disk (virtio-blk)"));
    for id in [
        "VIRTIO_PARAVIRT",
        "VIRTIO_SINGLE_QUEUE",
        "ROTATIONAL_MEANINGLESS",
        "FS_ONLINE_DISCARD",
        "CPUFREQ_UNKNOWN",
        "PAGE_CACHE_FITS",
    ] {
        assert!(has(&d, id), "{id} missing: {:?}", ids(&d));
    }
    assert_eq!(
        finding(&d, "VIRTIO_SINGLE_QUEUE").message,
        "virtio disk vda has 1 request queue (128 tags) for 2 vCPUs."
    );
    assert!(finding(&d, "PAGE_CACHE_FITS")
        .message
        .contains("up to 23.2 GiB"));
    assert!(
        !d.findings.iter().any(|f| f.id.starts_with("PCIE_")),
        "no PCIe findings on virtio"
    );
    assert!(d
        .unknowns
        .iter()
        .any(|u| u.what == "PCIe link of 0000:00:02.0"));
    // a working set larger than MemAvailable: no page-cache finding
    let (_t, big) = diag_with("e-virtio-vm", "/", &["--working-set=100G"]);
    assert!(!has(&big, "PAGE_CACHE_FITS"));
    let (_t, direct) = diag_with("e-virtio-vm", "/", &["--direct"]);
    assert!(!direct
        .findings
        .iter()
        .any(|f| f.severity == Severity::Cache));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    #[test]
    fn deleting_files_never_panics_and_adds_no_findings(which in 0usize..6, mask in proptest::collection::vec(proptest::bool::ANY, 128)) {
        let (name, path) = FIXTURES[which];
        let full = diag(name, path);
        let t = tree(name);
        let mut files = Vec::new();
        entries(t.path(), &mut files);
        files.sort();
        for (i, f) in files.iter().enumerate() {
            if mask[i % mask.len()] && (i / mask.len()) % 2 == 0 {
                std::fs::remove_file(f).unwrap();
            }
        }
        let root = Root(t.path().to_path_buf());
        let a = Args::try_parse_from(["iomark diagnose", path]).unwrap();
        let d = diagnose(&root, &inputs(&a, &root));
        let _ = render_text(&d);
        serde_json::to_string(&d).unwrap();
        for f in &d.findings {
            proptest::prop_assert!(
                f.id == "PCIE_INFO_UNKNOWN" || full.findings.iter().any(|g| g.id == f.id),
                "{name}: new finding {} after deleting files: {}", f.id, f.message
            );
        }
        if let (Some(c), Some(fc)) = (&d.ceiling, &full.ceiling) {
            // fewer facts can remove RAID members (lower sum) but never raise a link limit
            proptest::prop_assert!(c.realistic_mb_s <= fc.realistic_mb_s + 1e-6 || c.paths < fc.paths);
        }
    }
}

#[test]
fn fixture_f_targets_without_a_single_block_device() {
    let f = "f-no-single-block-device";
    let ram = diag(f, "/mnt/ram/x");
    let m = finding(&ram, "MEMORY_FS");
    assert_eq!(m.severity, Severity::Cache);
    assert!(m.message.contains("tmpfs (RAM)") && m.message.contains("no single block device"));
    assert!(ram.device.is_none() && ram.ceiling.is_none());
    assert!(ram.unknowns.iter().any(|u| u.what == "bandwidth ceiling"));

    let nfs = finding(&diag(f, "/mnt/nfs/a/b"), "NETWORK_FS")
        .message
        .clone();
    assert!(
        nfs.starts_with("Target is on NFS4 (server:/export, vers=4.2)"),
        "{nfs}"
    );
    let fuse = finding(&diag(f, "/mnt/ssh"), "FUSE_FS").message.clone();
    assert!(fuse.contains("FUSE filesystem (sshfs)"));
    let ovl = finding(&diag(f, "/mnt/ovl/etc/passwd"), "OVERLAY_FS")
        .message
        .clone();
    assert!(
        ovl.contains("lower layer /dev/vda (ext4)") && ovl.contains("upper layer tmpfs (tmpfs)"),
        "{ovl}"
    );

    // loop0 (dio 0) → backing file /srv/images/disk.img on / → vda (virtio)
    let lp = diag(f, "/mnt/img/file");
    let l = layer(&lp, "loop");
    assert!(l[0].starts_with("loop0 (7:0): backing file /srv/images/disk.img, direct I/O 0"));
    assert!(lp
        .stack
        .iter()
        .any(|x| x.kind == "disk" && x.depth == 1 && x.text.starts_with("vda (254:0)")));
    assert!(finding(&lp, "LOOP_BUFFERED")
        .message
        .contains("over /srv/images/disk.img without direct I/O"));
    assert_eq!(finding(&lp, "FS_SYNC").severity, Severity::Warn);
    assert!(has(&lp, "VIRTIO_PARAVIRT"));
}

/// A `run` result above its target's ceiling (fixture a: an NVMe drive in a
/// PCIe Gen2 x4 slot, 2000 MB/s raw) gets RESULT_EXCEEDS_CEILING from the truth layer
/// (result/truth.rs `above_ceiling`); within 1.05 × the ceiling, or without a target,
/// nothing.
#[test]
fn fixture_a_a_run_above_the_ceiling_is_called_out() {
    use crate::result::truth::{above_ceiling, ABOVE_CEILING};
    let d = diag("a-nvme-gen2-slot", "/data/big.bin");
    assert!(d.ceiling.is_some(), "fixture a has a ceiling");
    let i = crate::result::build::Inputs::new("run", &[], crate::result::Status::Ok);
    let mut r = crate::result::build::build(i);
    r.targets = vec![d];
    r.read.bw_mb_per_s = 2099.0;
    assert_eq!(above_ceiling(&r), None, "within 5 %");
    r.read.bw_mb_per_s = 6589.0;
    let w = above_ceiling(&r).expect("above the ceiling");
    assert_eq!(w.id, ABOVE_CEILING);
    assert!(
        w.message.starts_with("RESULT_EXCEEDS_CEILING: read bandwidth 6589.0 MB/s is above the path's ceiling of 2000.0 MB/s (the PCIe link at 0000:00:1c.4"),
        "{}",
        w.message
    );
    r.read.bw_mb_per_s = 10.0;
    r.write.bw_mb_per_s = 3615.0;
    assert!(above_ceiling(&r)
        .unwrap()
        .message
        .contains("write bandwidth 3615.0 MB/s"));
    r.targets.clear();
    assert_eq!(above_ceiling(&r), None, "no target, no ceiling");
}
