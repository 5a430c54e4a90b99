//! `iomark diagnose`: the five machines of spec diagnose.md §5 replayed from fixture
//! manifests (tests/fixtures/diagnose/*.fixture), kernel-string variants, JSON, the
//! live VM, and a property test that deleting fixture files only moves facts to
//! "unknown".

use clap::Parser;
use iomark::cli::diagnose::{inputs, Args};
use iomark::files::fixture::materialize;
use iomark::probe::diagnosis::{diagnose, Diagnosis};
use iomark::probe::findings::Severity;
use iomark::probe::Root;
use iomark::report::diagnose_text::render_text;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_iomark");

fn manifest(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/diagnose")
        .join(format!("{name}.fixture"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Materialise fixture `name` into a fresh temporary directory.
fn tree(name: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    materialize(&manifest(name), d.path()).unwrap();
    d
}

/// Diagnose `path` on fixture `name` with extra command-line flags.
fn diag_with(name: &str, path: &str, extra: &[&str]) -> (tempfile::TempDir, Diagnosis) {
    let d = tree(name);
    let root = Root(d.path().to_path_buf());
    let mut argv = vec!["iomark diagnose", path];
    argv.extend_from_slice(extra);
    let a = Args::try_parse_from(argv).unwrap();
    let dg = diagnose(&root, &inputs(&a, &root));
    (d, dg)
}

fn diag(name: &str, path: &str) -> Diagnosis {
    diag_with(name, path, &[]).1
}

fn ids(d: &Diagnosis) -> Vec<&str> {
    d.findings.iter().map(|f| f.id.as_str()).collect()
}

fn layer<'a>(d: &'a Diagnosis, kind: &str) -> Vec<&'a str> {
    d.stack
        .iter()
        .filter(|l| l.kind == kind)
        .map(|l| l.text.as_str())
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.6
}

fn has(d: &Diagnosis, id: &str) -> bool {
    d.findings.iter().any(|f| f.id == id)
}

fn finding<'a>(d: &'a Diagnosis, id: &str) -> &'a iomark::probe::findings::Finding {
    d.finding(id)
        .unwrap_or_else(|| panic!("no {id} in {:?}\n{}", ids(d), render_text(d)))
}

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(BIN).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

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
            .starts_with("Working set 150.0 GB fits in RAM (251.5 GiB)"),
        "{}",
        p.message
    );
    assert!(finding(&d, "DIRTY_BUFFER_LARGE")
        .message
        .starts_with("Up to ≈ 52.0 GB of writes can sit in RAM (vm.dirty_ratio=20)"));
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
    assert!(layer(&d, "disk")[0].starts_with("vda (254:0), 274.9 GB: scheduler mq-deadline, rotational 1, write cache write back, read-ahead 8192 KiB"));
    assert!(layer(&d, "virtio")[0].contains("virtio1: virtio-blk (serial overlayblk), 1 hardware queue(s) (128 tags), multiqueue feature off"));
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

#[test]
fn json_has_the_spec_ids_and_round_trips() {
    let t = tree("a-nvme-gen2-slot");
    let (code, out, err) = run(&[
        "diagnose",
        "/data/big.bin",
        "--root",
        t.path().to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["target"], "/data/big.bin");
    assert_eq!(v["ceiling"]["raw_mb_s"], 2000.0);
    assert_eq!(v["ceiling"]["realistic_mb_s"], 1600.0);
    let f = v["findings"].as_array().unwrap();
    let first = &f[0];
    assert_eq!(first["id"], "PCIE_LINK_BELOW_DEVICE");
    assert_eq!(first["severity"], "LIMIT");
    assert!(first["evidence"][0]["file"]
        .as_str()
        .unwrap()
        .ends_with("current_link_speed"));
    assert_eq!(v["device"]["role"], "partition");
    assert_eq!(v["device"]["members"][0]["transport"]["kind"], "nvme");
    assert_eq!(v["device"]["members"][0]["pci"]["links"][0]["gen"], 2);
    assert!(v["stack"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["kind"] == "nvme"));
    assert!(v["unknowns"].is_array());
    let back: Diagnosis = serde_json::from_str(&out).unwrap();
    assert_eq!(
        back.finding("RATED_ABOVE_CEILING").unwrap().severity,
        Severity::Limit
    );
}

#[test]
fn text_report_has_the_four_sections() {
    let t = tree("a-nvme-gen2-slot");
    let (code, out, _) = run(&[
        "diagnose",
        "/data/big.bin",
        "--root",
        t.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    for s in ["\nStack\n", "\nCeiling\n", "\nFindings\n", "\nUnknowns\n", "  LIMIT PCIE_LINK_BELOW_DEVICE: PCIe link runs at Gen2 x4", "≈ 1600 MB/s (1.60 GB/s) realistic, 2000 MB/s (2.00 GB/s) raw — set by the PCIe link at 0000:00:1c.4", "evidence: /sys/devices/pci0000:00/0000:00:1c.4/0000:04:00.0/current_link_speed = 5.0 GT/s PCIe"] {
        assert!(out.contains(s), "{s:?} missing:\n{out}");
    }
}

#[test]
fn exit_codes() {
    let (c, _, e) = run(&["diagnose", "/no/such/path/iomark"]);
    assert_eq!(c, 3);
    assert_eq!(
        e.trim(),
        "iomark diagnose: /no/such/path/iomark: no such file or directory"
    );
    assert_eq!(run(&["diagnose", "--bogus"]).0, 2);
    assert_eq!(run(&["diagnose", "/", "--rated-read=fast"]).0, 2);
    assert_eq!(run(&["diagnose", "--root", "/no/such/root", "/"]).0, 3);
    let (c, out, _) = run(&["diagnose", "--help"]);
    assert_eq!(c, 0);
    assert!(out.contains("--rated-read"));
    assert!(run(&["--help"]).1.contains("diagnose"));
}

#[test]
fn live_root_shows_the_virtio_stack_quickly() {
    let t0 = std::time::Instant::now();
    let (code, out, err) = run(&["diagnose", "/"]);
    let took = t0.elapsed();
    assert_eq!(code, 0, "{err}");
    // What this machine kind always has: ext4 root on a virtio disk vda.
    for s in [
        "ext4",
        "vda",
        "virtio",
        "scheduler",
        "rotational",
        "write cache",
        "RAM",
        "VIRTIO_PARAVIRT",
    ] {
        assert!(out.contains(s), "{s:?} missing:\n{out}");
    }
    // "well under a second" (about 3 ms here); 5 s of slack keeps a loaded CI machine
    // from failing a correctness test on timing.
    assert!(took.as_secs_f64() < 5.0, "took {took:?}");
    let (code, json, _) = run(&["diagnose", "/", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["filesystem"], "ext4");
    assert!(v["memory"]["total_bytes"].as_u64().unwrap() > 0);
    // a tmpfs target on the live machine: no single block device
    let (code, shm, _) = run(&["diagnose", "/dev/shm"]);
    assert_eq!(code, 0);
    assert!(
        shm.contains("MEMORY_FS") && shm.contains("no single block device"),
        "{shm}"
    );
}

const FIXTURES: &[(&str, &str)] = &[
    ("a-nvme-gen2-slot", "/data/big.bin"),
    ("b-md-raid0-xfs", "/bench/fio"),
    ("c-sata-3gbps", "/home/user/data.bin"),
    ("d-usb3-at-480", "/media/user/T7/video.mkv"),
    ("e-virtio-vm", "/"),
    ("f-no-single-block-device", "/mnt/img/file"),
];

/// Every file and symlink of a materialised tree (directories stay).
fn entries(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let ft = std::fs::symlink_metadata(&p).unwrap().file_type();
        if ft.is_dir() {
            entries(&p, out);
        } else {
            out.push(p);
        }
    }
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

// ---- platform findings (src/probe/platform.rs): cgroup, RAID mode, APST, NUMA, AER, SD

/// Diagnose `path` on an already materialised (and possibly edited) tree.
fn diag_dir(t: &tempfile::TempDir, path: &str) -> Diagnosis {
    let root = Root(t.path().to_path_buf());
    let a = Args::try_parse_from(["iomark diagnose", path]).unwrap();
    diagnose(&root, &inputs(&a, &root))
}

fn write(t: &tempfile::TempDir, rel: &str, text: &str) {
    let p = t.path().join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn unknown<'a>(d: &'a Diagnosis, what: &str) -> Option<&'a iomark::probe::findings::Unknown> {
    d.unknowns.iter().find(|u| u.what.starts_with(what))
}

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
    // the spec's fixtures have no /proc/self/cgroup: unknown, never a finding
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

#[test]
fn fixture_option_replays_a_recorded_machine_and_cleans_up() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/diagnose/a-nvme-gen2-slot.fixture"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_iomark"))
        .args(["diagnose", "/data/big.bin", "--fixture", fixture])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("PCIE_LINK_BELOW_DEVICE"), "{text}");
    assert!(text.contains("RATED_ABOVE_CEILING"), "{text}");
    assert!(text.contains("2000 MB/s (2.00 GB/s) raw"), "{text}");
    // the unpacked tree is gone
    let root = text
        .lines()
        .next()
        .unwrap_or("")
        .split("(root ")
        .nth(1)
        .unwrap_or("")
        .trim_end_matches(')');
    assert!(
        !root.is_empty() && !std::path::Path::new(root).exists(),
        "{root}"
    );
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_iomark"))
        .args(["diagnose", "--fixture", "/nonexistent.fixture"])
        .output()
        .unwrap();
    // an unreadable input file is invalid input (2), as for compare and run
    assert_eq!(bad.status.code(), Some(2));
}
