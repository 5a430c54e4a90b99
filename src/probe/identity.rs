//! Who ran a result and on what: the machine (hostname, kernel, CPU model and count,
//! RAM, iomark version) and the identity of the target's device (model, serial,
//! firmware, capacity, transport, filesystem), read through a [`Root`] so a recorded
//! machine answers as the live one does. `RunResult.machine` and `RunResult.device`
//! (result/mod.rs) hold them; the history (files/history.rs, result/history.rs) tells
//! devices apart by [`DeviceIdentity::key`].

use super::blockdev::{BlockDevice, Transport};
use super::diagnosis::Diagnosis;
use super::Root;
use serde::{Deserialize, Serialize};

/// The machine a result was measured on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// `/proc/sys/kernel/hostname`
    pub hostname: Option<String>,
    /// kernel release, `/proc/sys/kernel/osrelease`
    pub kernel: Option<String>,
    /// the first `model name` of `/proc/cpuinfo`
    pub cpu_model: Option<String>,
    /// online CPUs
    pub cpu_count: Option<u32>,
    /// MemTotal, bytes
    pub ram_bytes: Option<u64>,
    /// the iomark that measured
    pub iomark_version: String,
}

/// Read the machine's facts under `root`.
pub fn machine(root: &Root) -> Machine {
    let sys = root.sys();
    let cpu_model = sys.read("/proc/cpuinfo").and_then(|t| {
        t.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| matches!(k.trim(), "model name" | "cpu model" | "Model"))
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    });
    Machine {
        hostname: sys.read_trim("/proc/sys/kernel/hostname"),
        kernel: sys.read_trim("/proc/sys/kernel/osrelease"),
        cpu_model,
        cpu_count: super::system::cpu(&sys).count,
        ram_bytes: root.mem_total(),
        iomark_version: env!("CARGO_PKG_VERSION").into(),
    }
}

/// What a target's storage is: the physical device(s) under its filesystem, or the
/// memory filesystem itself.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceIdentity {
    /// the history's key: serial when known, else model and capacity, else the device
    /// name, else filesystem and mount point (`fs:tmpfs:/dev/shm`)
    pub key: String,
    /// kernel name of the device under the filesystem (`nvme0n1p2`, `vda`)
    pub name: Option<String>,
    /// model of the physical device(s), `+`-joined for several
    pub model: Option<String>,
    /// serial number(s), `+`-joined
    pub serial: Option<String>,
    /// firmware revision(s), `+`-joined
    pub firmware: Option<String>,
    /// capacity of the device under the filesystem, bytes
    pub capacity_bytes: Option<u64>,
    /// `nvme`, `sata`, `virtio` …
    pub transport: Option<String>,
    /// filesystem type
    pub filesystem: Option<String>,
    /// mount point of the filesystem
    pub mount_point: Option<String>,
}

impl DeviceIdentity {
    /// A short human label: model or name, serial, filesystem and mount point.
    pub fn label(&self) -> String {
        let mut v: Vec<String> = vec![];
        if let Some(m) = self.model.as_ref().or(self.name.as_ref()) {
            v.push(m.clone());
        }
        if let Some(s) = self
            .serial
            .as_ref()
            .filter(|s| !v.iter().any(|x| x.contains(*s)))
        {
            v.push(format!("serial {s}"));
        }
        if let Some(fs) = &self.filesystem {
            v.push(fs.clone());
        }
        if let Some(mp) = &self.mount_point {
            v.push(format!("on {mp}"));
        }
        if v.is_empty() {
            self.key.clone()
        } else {
            v.join(" ")
        }
    }
}

/// The physical devices at the bottom of `d` (itself when it has none below).
fn leaves(d: &BlockDevice) -> Vec<&BlockDevice> {
    if d.members.is_empty() {
        vec![d]
    } else {
        d.members.iter().flat_map(leaves).collect()
    }
}

/// Serial number of a physical device: virtio's `serial`, NVMe's and most SCSI
/// devices' `device/serial`, else the printable part of SCSI's unit serial page.
fn serial(root: &Root, d: &BlockDevice) -> Option<String> {
    let sys = root.sys();
    let dir = &d.sysfs;
    let vpd = || {
        let raw = sys.read(&format!("{dir}/device/vpd_pg80"))?;
        let s: String = raw
            .chars()
            .skip(4)
            .filter(|c| c.is_ascii_graphic())
            .collect();
        (!s.is_empty()).then_some(s)
    };
    [format!("{dir}/serial"), format!("{dir}/device/serial")]
        .iter()
        .find_map(|p| sys.read_trim(p).filter(|s| !s.is_empty()))
        .or_else(vpd)
}

/// Firmware revision of a physical device: NVMe's from its controller, else SCSI's
/// `device/rev`.
fn firmware(root: &Root, d: &BlockDevice) -> Option<String> {
    if let Transport::Nvme { firmware, .. } = &d.transport {
        return firmware.clone();
    }
    let sys = root.sys();
    [
        format!("{}/device/firmware_rev", d.sysfs),
        format!("{}/device/rev", d.sysfs),
    ]
    .iter()
    .find_map(|p| sys.read_trim(p).filter(|s| !s.is_empty()))
}

/// `+`-join of the known values, each once (None when none is known).
fn joined(v: impl Iterator<Item = Option<String>>) -> Option<String> {
    let mut out: Vec<String> = vec![];
    for s in v.flatten() {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    (!out.is_empty()).then(|| out.join("+"))
}

/// The device identity of a diagnosed target, its serials and firmware read under
/// the diagnosis's own root.
pub fn device(d: &Diagnosis) -> DeviceIdentity {
    let root = Root(std::path::PathBuf::from(&d.root));
    let dev = d.device.as_ref();
    let phys = dev.map(leaves).unwrap_or_default();
    let model = d
        .summary
        .device_model
        .clone()
        .or_else(|| joined(phys.iter().map(|p| p.model.clone())));
    let serial = joined(phys.iter().map(|p| serial(&root, p)));
    let mut id = DeviceIdentity {
        key: String::new(),
        name: dev.map(|b| b.name.clone()),
        model,
        serial,
        firmware: joined(phys.iter().map(|p| firmware(&root, p))),
        capacity_bytes: dev.and_then(|b| b.size_bytes),
        transport: d.summary.transport.clone(),
        filesystem: d.filesystem.clone().or(d.summary.filesystem.clone()),
        mount_point: d.mount.as_ref().map(|m| m.mount_point.clone()),
    };
    id.key = key(&id);
    id
}

/// [`DeviceIdentity::key`] of the facts in `id`.
fn key(id: &DeviceIdentity) -> String {
    let opt = |o: &Option<String>| o.clone().unwrap_or_default();
    if let Some(s) = &id.serial {
        format!("serial:{}:{s}", opt(&id.transport))
    } else if let Some(m) = &id.model {
        format!("model:{m}:{}", id.capacity_bytes.unwrap_or(0))
    } else if let Some(n) = &id.name {
        format!("dev:{n}")
    } else {
        format!("fs:{}:{}", opt(&id.filesystem), opt(&id.mount_point))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::probe::tests::put;

    #[test]
    fn the_machine_from_a_recorded_root() {
        let d = tempfile::tempdir().unwrap();
        put(d.path(), "proc/sys/kernel/hostname", "box1\n");
        put(d.path(), "proc/sys/kernel/osrelease", "6.1.0-test\n");
        put(
            d.path(),
            "proc/cpuinfo",
            "processor\t: 0\nmodel name\t: Test CPU 3000\nflags\t: aes\n",
        );
        put(d.path(), "proc/meminfo", "MemTotal:       1024 kB\n");
        put(d.path(), "sys/devices/system/cpu/online", "0-3\n");
        let m = machine(&Root(d.path().to_path_buf()));
        assert_eq!(m.hostname.as_deref(), Some("box1"));
        assert_eq!(m.kernel.as_deref(), Some("6.1.0-test"));
        assert_eq!(m.cpu_model.as_deref(), Some("Test CPU 3000"));
        assert_eq!((m.cpu_count, m.ram_bytes), (Some(4), Some(1 << 20)));
        assert_eq!(m.iomark_version, env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn keys_prefer_the_serial_then_model_then_name_then_mount() {
        let mut id = DeviceIdentity {
            filesystem: Some("tmpfs".into()),
            mount_point: Some("/dev/shm".into()),
            ..Default::default()
        };
        assert_eq!(key(&id), "fs:tmpfs:/dev/shm");
        id.name = Some("vda".into());
        assert_eq!(key(&id), "dev:vda");
        id.model = Some("M".into());
        id.capacity_bytes = Some(10);
        assert_eq!(key(&id), "model:M:10");
        id.serial = Some("S1".into());
        id.transport = Some("nvme".into());
        assert_eq!(key(&id), "serial:nvme:S1");
        assert_eq!(
            joined([Some("a".into()), None, Some("a".into())].into_iter()),
            Some("a".into())
        );
    }
}
