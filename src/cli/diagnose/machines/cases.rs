//! Public cases C28, C29 and C30 (../shared/cases/public-cases.md) replayed on fixture
//! machines (C22 runs the binary: tests/it/diagnose.rs): a PCIe link below the drive's capability, an md array resyncing or degraded,
//! a partition not aligned to the physical sector. Each edits a fixture of
//! tests/fixtures/diagnose to the case's exact sysfs/procfs values.

use super::*;
use crate::probe::verdicts::mdstat_progress;

// ---- C28: PCIe link running below its capability ---------------------------------------

const EP: &str = "sys/devices/pci0000:00/0000:00:1c.4/0000:04:00.0";
const PORT: &str = "sys/devices/pci0000:00/0000:00:1c.4";

/// Fixture A with the case's link: the drive and its port can do 16 GT/s x4, the link
/// trained at 8 GT/s x2.
fn c28(cur_speed: &str, max_speed: &str, cur_w: &str, max_w: &str) -> Diagnosis {
    let t = tree("a-nvme-gen2-slot");
    for dev in [EP, PORT] {
        write(&t, &format!("{dev}/current_link_speed"), cur_speed);
        write(&t, &format!("{dev}/max_link_speed"), max_speed);
        write(&t, &format!("{dev}/current_link_width"), cur_w);
        write(&t, &format!("{dev}/max_link_width"), max_w);
    }
    diag_dir(&t, "/data/big.bin")
}

#[test]
fn c28_link_at_8gts_x2_of_16gts_x4_is_25_percent() {
    for (cur, max) in [
        ("8.0 GT/s PCIe", "16.0 GT/s PCIe"),
        ("8 GT/s", "16 GT/s"), // old kernels: no ".0", no "PCIe"
    ] {
        let d = c28(cur, max, "2", "4");
        let low = finding(&d, "PCIE_LINK_TRAINED_LOW");
        assert!(
            low.message
                .contains("trained at 8.0 GT/s although both ends support 16.0 GT/s"),
            "{}",
            low.message
        );
        assert!(
            low.message.contains("re-check under load"),
            "{}",
            low.message
        );
        // each finding names its own factor; the combined 25 % is said once
        assert!(
            low.message.ends_with(
                "The speed alone gives 50 % of the drive's per-lane rate (8.0 of 16.0 GT/s)."
            ),
            "{}",
            low.message
        );
        let narrow = finding(&d, "PCIE_WIDTH_REDUCED");
        assert!(
            narrow
                .message
                .starts_with("PCIe link is x2 but the drive supports x4"),
            "{}",
            narrow.message
        );
        assert!(
            narrow.message.ends_with(
                "The width alone gives 50 % of the drive's lanes (x2 of x4); with the lower speed the link runs at 25 % of the drive's link capability."
            ),
            "{}",
            narrow.message
        );
        assert!(!low.message.contains("25 %"), "{}", low.message);
        // 8 GT/s x 2 lanes x 128/130 / 8 bits = 1969 MB/s raw (vs 7877 MB/s at 16 GT/s x4)
        let raw = d.ceiling.as_ref().expect("a ceiling").raw_mb_s;
        assert!((raw - 1969.2).abs() < 1.0, "raw ceiling {raw}");
        assert!(
            narrow.message.contains("≈ 1.97 GB/s raw"),
            "{}",
            narrow.message
        );
    }
}

#[test]
fn c28_only_one_factor_reduced_gives_the_whole_share_in_that_finding() {
    // speed only: 8 GT/s x4 of 16 GT/s x4 (128b/130b both) = 50 %
    let d = c28("8.0 GT/s PCIe", "16.0 GT/s PCIe", "4", "4");
    let low = finding(&d, "PCIE_LINK_TRAINED_LOW");
    assert!(
        low.message
            .ends_with("Running at 50 % of the drive's link capability."),
        "{}",
        low.message
    );
    assert!(d.finding("PCIE_WIDTH_REDUCED").is_none());
    // width only: 16 GT/s x1 of x4 = 25 %
    let d = c28("16.0 GT/s PCIe", "16.0 GT/s PCIe", "1", "4");
    let narrow = finding(&d, "PCIE_WIDTH_REDUCED");
    assert!(
        narrow.message.ends_with(
            "The width alone gives 25 % of the drive's lanes (x1 of x4). Running at 25 % of the drive's link capability."
        ),
        "{}",
        narrow.message
    );
    assert!(d.finding("PCIE_LINK_TRAINED_LOW").is_none());
}

#[test]
fn c28_equal_speed_and_width_is_no_finding() {
    let d = c28("16.0 GT/s PCIe", "16.0 GT/s PCIe", "4", "4");
    for id in [
        "PCIE_LINK_TRAINED_LOW",
        "PCIE_WIDTH_REDUCED",
        "PCIE_LINK_BELOW_DEVICE",
    ] {
        assert!(
            d.finding(id).is_none(),
            "{id} on a full-speed link: {:?}",
            ids(&d)
        );
    }
}

#[test]
fn c28_unknown_link_state_is_not_a_downgrade() {
    let d = c28("Unknown", "16.0 GT/s PCIe", "0", "4");
    for id in [
        "PCIE_LINK_TRAINED_LOW",
        "PCIE_WIDTH_REDUCED",
        "PCIE_LINK_BELOW_DEVICE",
    ] {
        assert!(
            d.finding(id).is_none(),
            "{id} from an unknown link: {:?}",
            ids(&d)
        );
    }
    assert!(
        d.unknowns
            .iter()
            .any(|u| u.what.contains("PCIe") || u.what.contains("link")),
        "the unreadable link is listed as unknown: {:?}",
        d.unknowns
    );
}

// ---- C29: md RAID resync or degraded during a benchmark --------------------------------

const MD: &str = "sys/devices/virtual/block/md127/md";

#[test]
fn c29_resync_in_progress_with_its_percentage() {
    let t = tree("b-md-raid0-xfs");
    write(&t, &format!("{MD}/sync_action"), "resync");
    write(&t, &format!("{MD}/degraded"), "0");
    write(
        &t,
        "proc/mdstat",
        "Personalities : [raid0] [raid1]\n\
         md0 : active raid1 sdc1[1] sdd1[0]\n      1047552 blocks super 1.2 [2/2] [UU]\n\n\
         md127 : active raid0 nvme1n1[1] nvme0n1[0]\n      1047552 blocks super 1.2 [2/2] [UU]\n\
         \x20     [====>................]  resync = 23.4% (245760/1047552) finish=0.3min speed=40960K/sec\n\n\
         unused devices: <none>\n",
    );
    let d = diag_dir(&t, "/bench/fio");
    let f = finding(&d, "MD_RESYNC");
    assert!(
        f.message
            .starts_with("md127: resync 23.4 % in progress; background I/O will distort results"),
        "{}",
        f.message
    );
    assert!(f
        .evidence
        .iter()
        .any(|e| e.file == "/proc/mdstat" && e.value.contains("resync = 23.4%")));
    assert!(d.finding("MD_DEGRADED").is_none());
}

#[test]
fn c29_degraded_and_recovering() {
    let t = tree("b-md-raid0-xfs");
    write(&t, &format!("{MD}/sync_action"), "recover");
    write(&t, &format!("{MD}/degraded"), "1");
    write(
        &t,
        "proc/mdstat",
        "Personalities : [raid1]\nmd127 : active raid1 nvme1n1[1] nvme0n1[0]\n      1047552 blocks super 1.2 [2/1] [U_]\n      [=>...................]  recovery =  5.0% (52377/1047552) finish=1.2min speed=13094K/sec\n",
    );
    let d = diag_dir(&t, "/bench/fio");
    let deg = finding(&d, "MD_DEGRADED");
    assert_eq!(deg.message, "md127 is degraded (1 of 2 members missing).");
    let r = finding(&d, "MD_RESYNC");
    assert!(
        r.message.starts_with("md127: recover 5.0 % in progress"),
        "{}",
        r.message
    );
}

#[test]
fn c29_mdstat_parser_takes_the_named_array_and_tolerates_extra_lines() {
    let text = "Personalities : [raid1] [raid6]\n\
                md1 : active raid6 a[0] b[1] c[2] d[3]\n      3 blocks [4/4] [UUUU]\n      [=>..]  check = 7.5% (1/3)\n\
                md0 : active raid1 e[0] f[1]\n      bitmap: 0/8 pages [0KB], 65536KB chunk\n      [==>.]  resync = 23.4% (245760/1047552)\n\
                unused devices: <none>\n";
    assert_eq!(mdstat_progress(text, "md0").map(|p| p.0), Some(23.4));
    assert_eq!(mdstat_progress(text, "md1").map(|p| p.0), Some(7.5));
    assert_eq!(mdstat_progress(text, "md2"), None);
    assert_eq!(mdstat_progress("garbage\n  resync = x%", "garbage"), None);
}

/// sysfs `sync_completed` (`done / total` sectors) is turned into the same figure as
/// mdstat's, truncated like the md driver (245760/1047552 = 23.46 % → "23.4 %").
#[test]
fn c29_sysfs_progress_is_truncated_like_mdstat() {
    use crate::probe::verdicts::sync_permille;
    assert_eq!(sync_permille(245760, 1047552), 234);
    assert_eq!(sync_permille(1047552, 1047552), 1000);
    assert_eq!(sync_permille(5, 0), 0);
    let t = tree("b-md-raid0-xfs");
    write(&t, &format!("{MD}/sync_action"), "resync");
    write(&t, &format!("{MD}/degraded"), "0");
    write(&t, &format!("{MD}/sync_completed"), "245760 / 1047552");
    let d = diag_dir(&t, "/bench/fio");
    let f = finding(&d, "MD_RESYNC");
    assert!(
        f.message.starts_with("md127: resync 23.4 % in progress"),
        "{}",
        f.message
    );
}

// ---- C30: partition not aligned to the physical sector ---------------------------------

const SDA: &str = "sys/devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0/block/sda";

#[test]
fn c30_partition_at_sector_63_on_a_512e_disk_is_misaligned_by_3584_bytes() {
    let t = tree("c-sata-3gbps");
    write(&t, &format!("{SDA}/queue/physical_block_size"), "4096");
    write(&t, &format!("{SDA}/sda2/start"), "63");
    let d = diag_dir(&t, "/home/user/data.bin");
    let f = finding(&d, "PART_MISALIGNED");
    assert!(
        f.message.starts_with("Partition sda2 starts at sector 63 (32256 bytes), misaligned by 3584 bytes against the 4096-byte physical block"),
        "{}",
        f.message
    );
    assert!(f.message.contains("read-modify-write"));
    // the stack line names the start in a unit that shows it (was "(0.0 MiB)")
    let text = render_text(&d);
    assert!(
        text.contains("partition 2, starts at sector 63 (31.5 KiB, not a multiple of 4 KiB)"),
        "{text}"
    );
}

#[test]
fn c30_partition_at_1_mib_is_aligned() {
    let t = tree("c-sata-3gbps");
    write(&t, &format!("{SDA}/queue/physical_block_size"), "4096");
    write(&t, &format!("{SDA}/sda2/start"), "2048");
    let d = diag_dir(&t, "/home/user/data.bin");
    assert!(d.finding("PART_MISALIGNED").is_none(), "{:?}", ids(&d));
    let text = render_text(&d);
    assert!(text.contains("starts at sector 2048 (1 MiB)"), "{text}");
}
