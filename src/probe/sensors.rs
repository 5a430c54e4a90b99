//! What changes under a long run besides the I/O: the drive's temperature and the CPUs'
//! clock. The temperature is the hwmon sensor of the drive, found from the block
//! device's sysfs parent (`DEV/device`: the NVMe controller has `hwmonN`, a SATA disk
//! with `drivetemp` has `hwmon/hwmonN`, older kernels put the NVMe one on the PCI
//! function); `temp*_input` in millidegrees, its `temp*_max` (NVMe: the warning
//! threshold) and `temp*_crit`. The CPU clock is cpufreq's `scaling_cur_freq` (kHz).
//! Everything is read through a [`Root`], so a recorded machine can stand in.

use super::Root;

/// The temperature sensor of a drive: where to read it and its thresholds.
#[derive(Clone, Debug, PartialEq)]
pub struct DriveSensor {
    /// machine path of the `temp*_input` file
    pub input: String,
    /// hwmon `name` (`nvme`, `drivetemp`)
    pub name: String,
    /// `temp*_max`, °C (the drive's warning threshold)
    pub max_c: Option<f64>,
    /// `temp*_crit`, °C
    pub crit_c: Option<f64>,
}

/// The hwmon directories under the device directory `dev` (resolved machine path).
fn hwmon_dirs(root: &Root, dev: &str) -> Vec<String> {
    let sys = root.sys();
    let list = |d: &str| sys.list(d).unwrap_or_default();
    let mut out: Vec<String> = list(dev)
        .into_iter()
        .filter(|e| e.starts_with("hwmon") && e != "hwmon")
        .map(|e| format!("{dev}/{e}"))
        .collect();
    for d in [format!("{dev}/hwmon"), format!("{dev}/device/hwmon")] {
        out.extend(list(&d).into_iter().map(|e| format!("{d}/{e}")));
    }
    out
}

/// The sensor of the drive whose whole-disk sysfs directory is `disk_dir`
/// ([`Root::disk_dir`]); `None` for devices without one (loop, virtio, zram).
pub fn drive_sensor(root: &Root, disk_dir: &str) -> Option<DriveSensor> {
    let sys = root.sys();
    let dev = sys.real_path(&format!("{disk_dir}/device"))?;
    hwmon_dirs(root, &dev).into_iter().find_map(|h| {
        let mut inputs: Vec<String> = sys
            .list(&h)?
            .into_iter()
            .filter(|e| e.starts_with("temp") && e.ends_with("_input"))
            .collect();
        inputs.sort_by_key(|e| e != "temp1_input");
        let input = inputs.into_iter().next()?;
        let stem = input.trim_end_matches("_input");
        let deg = |f: &str| millideg(sys.read_i64(&format!("{h}/{stem}_{f}")));
        Some(DriveSensor {
            input: format!("{h}/{input}"),
            name: sys.read_trim(&format!("{h}/name")).unwrap_or_default(),
            max_c: deg("max").filter(|t| *t > 0.0),
            crit_c: deg("crit").filter(|t| *t > 0.0),
        })
    })
}

fn millideg(v: Option<i64>) -> Option<f64> {
    v.map(|m| m as f64 / 1000.0)
}

/// The sensor's temperature now, °C.
pub fn temp_c(root: &Root, s: &DriveSensor) -> Option<f64> {
    millideg(root.sys().read_i64(&s.input))
}

/// The mean current clock of `cpus`, MHz (cpufreq `scaling_cur_freq`); `None` when
/// none of them has cpufreq (most virtual machines).
pub fn cpu_mhz(root: &Root, cpus: &[usize]) -> Option<f64> {
    let sys = root.sys();
    let khz: Vec<u64> = cpus
        .iter()
        .filter_map(|c| {
            sys.read_u64(&format!(
                "/sys/devices/system/cpu/cpu{c}/cpufreq/scaling_cur_freq"
            ))
        })
        .collect();
    (!khz.is_empty()).then(|| khz.iter().sum::<u64>() as f64 / khz.len() as f64 / 1000.0)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::Path;

    /// A recorded NVMe drive below `root`: its namespace `nvme0n1` (block `259:0`) with
    /// `stat`, the controller's hwmon at `temp_mc` millidegrees (max 70 °C, crit 80 °C).
    /// Returns the machine path of the namespace and the host path of `temp1_input`.
    pub(crate) fn nvme_machine(root: &Path, temp_mc: i64) -> (String, std::path::PathBuf) {
        let ctrl = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0";
        let ns = format!("{ctrl}/nvme0n1");
        let hw = root.join(ctrl).join("hwmon2");
        std::fs::create_dir_all(root.join(&ns)).unwrap();
        std::fs::create_dir_all(&hw).unwrap();
        std::fs::write(root.join(&ns).join("stat"), "0 0 0 0 0 0 0 0 0 0 0\n").unwrap();
        std::os::unix::fs::symlink("../../nvme0", root.join(&ns).join("device")).unwrap();
        std::fs::write(hw.join("name"), "nvme\n").unwrap();
        std::fs::write(hw.join("temp1_input"), format!("{temp_mc}\n")).unwrap();
        std::fs::write(hw.join("temp1_max"), "70000\n").unwrap();
        std::fs::write(hw.join("temp1_crit"), "80000\n").unwrap();
        std::fs::write(hw.join("temp2_input"), "30000\n").unwrap();
        (format!("/{ns}"), hw.join("temp1_input"))
    }

    #[test]
    fn nvme_sensor_is_found_from_the_namespace() {
        let d = tempfile::tempdir().unwrap();
        let (ns, input) = nvme_machine(d.path(), 45_500);
        let root = Root(d.path().to_path_buf());
        let s = drive_sensor(&root, &ns).unwrap();
        assert_eq!(s.name, "nvme");
        assert!(
            s.input.ends_with("/nvme0/hwmon2/temp1_input"),
            "{}",
            s.input
        );
        assert_eq!((s.max_c, s.crit_c), (Some(70.0), Some(80.0)));
        assert_eq!(temp_c(&root, &s), Some(45.5));
        std::fs::write(input, "71000\n").unwrap();
        assert_eq!(temp_c(&root, &s), Some(71.0));
    }

    #[test]
    fn sata_drivetemp_and_no_sensor() {
        let d = tempfile::tempdir().unwrap();
        let scsi = "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0";
        let disk = format!("{scsi}/block/sda");
        let hw = d.path().join(scsi).join("hwmon/hwmon1");
        std::fs::create_dir_all(d.path().join(&disk)).unwrap();
        std::fs::create_dir_all(&hw).unwrap();
        std::os::unix::fs::symlink("../../../0:0:0:0", d.path().join(&disk).join("device"))
            .unwrap();
        std::fs::write(hw.join("name"), "drivetemp\n").unwrap();
        std::fs::write(hw.join("temp1_input"), "38000\n").unwrap();
        std::fs::write(hw.join("temp1_crit"), "65000\n").unwrap();
        let root = Root(d.path().to_path_buf());
        let s = drive_sensor(&root, &format!("/{disk}")).unwrap();
        assert_eq!(
            (s.name.as_str(), s.max_c, s.crit_c),
            ("drivetemp", None, Some(65.0))
        );
        let lo = "sys/devices/virtual/block/loop0";
        std::fs::create_dir_all(d.path().join(lo)).unwrap();
        assert!(drive_sensor(&root, &format!("/{lo}")).is_none());
    }

    #[test]
    fn cpu_clock_is_the_mean_of_the_cpus_with_cpufreq() {
        let d = tempfile::tempdir().unwrap();
        for (c, khz) in [(0, 1_000_000), (2, 3_000_000)] {
            let p = d
                .path()
                .join(format!("sys/devices/system/cpu/cpu{c}/cpufreq"));
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("scaling_cur_freq"), format!("{khz}\n")).unwrap();
        }
        let root = Root(d.path().to_path_buf());
        assert_eq!(cpu_mhz(&root, &[0, 1, 2]), Some(2000.0));
        assert_eq!(cpu_mhz(&root, &[1]), None);
    }
}
