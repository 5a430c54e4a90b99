//! PCIe links between a storage function and its root port.
//!
//! Owns the link-speed string formats of both kernel generations, the per-lane
//! bandwidth table and the realistic-efficiency rule, and the
//! walk up the PCI path: every function below the first one on the path has its
//! own `current_link_*` describing the link to its parent, whose capability is the
//! minimum of both ends' `max_link_*`. Unknown strings (`Unknown`, `Unknown speed`,
//! width 0, absent files) stay unknown and are never treated as a downgrade.

use super::sysroot::Sys;
use serde::{Deserialize, Serialize};

/// A PCIe generation, 1 (2.5 GT/s) … 7 (128 GT/s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Gen(pub u8);

impl Gen {
    /// Transfer rate in GT/s as the kernel's new format prints it (`5.0`).
    pub fn gts(self) -> &'static str {
        match self.0 {
            1 => "2.5",
            2 => "5.0",
            3 => "8.0",
            4 => "16.0",
            5 => "32.0",
            6 => "64.0",
            _ => "128.0",
        }
    }

    /// Usable bandwidth per lane and direction after line coding, MB/s (decimal):
    /// 8b/10b for Gen1–2, 128b/130b for Gen3–5, 242/256 FLIT for Gen6.
    pub fn lane_mb_s(self) -> f64 {
        match self.0 {
            1 => 250.0,
            2 => 500.0,
            3 => 8000.0 * 128.0 / 130.0 / 8.0,
            4 => 16000.0 * 128.0 / 130.0 / 8.0,
            5 => 32000.0 * 128.0 / 130.0 / 8.0,
            6 => 7562.5,
            _ => 15125.0,
        }
    }

    /// Realistic fraction of the usable bandwidth a good drive reaches: 0.80 for
    /// Gen1–2 (old chipsets, MPS 128), 0.88 for Gen3–5, 0.90 (provisional) for Gen6+.
    pub fn eta(self) -> f64 {
        match self.0 {
            1 | 2 => 0.80,
            3..=5 => 0.88,
            _ => 0.90,
        }
    }
}

/// Parse a `*_link_speed` attribute: `5 GT/s`, `8 GT/s` (old kernels), `5.0 GT/s PCIe`
/// (5.7+). `Unknown`, `Unknown speed`, empty or anything else → `None`.
pub fn parse_speed(s: &str) -> Option<Gen> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, rest) = s.split_at(end);
    if !rest.trim_start().starts_with("GT/s") {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    let g = match v {
        x if (x - 2.5).abs() < 0.01 => 1,
        x if (x - 5.0).abs() < 0.01 => 2,
        x if (x - 8.0).abs() < 0.01 => 3,
        x if (x - 16.0).abs() < 0.01 => 4,
        x if (x - 32.0).abs() < 0.01 => 5,
        x if (x - 64.0).abs() < 0.01 => 6,
        x if (x - 128.0).abs() < 0.01 => 7,
        _ => return None,
    };
    Some(Gen(g))
}

/// Parse a `*_link_width` attribute; `0` (no link) or garbage → `None`.
pub fn parse_width(s: &str) -> Option<u32> {
    match s.trim().parse::<u32>() {
        Ok(0) | Err(_) => None,
        Ok(w) => Some(w),
    }
}

/// Raw usable bandwidth of a link, MB/s.
pub fn raw_mb_s(g: Gen, width: u32) -> f64 {
    g.lane_mb_s() * f64::from(width)
}

/// Realistic bandwidth of a link, MB/s (`raw × η`).
pub fn realistic_mb_s(g: Gen, width: u32) -> f64 {
    raw_mb_s(g, width) * g.eta()
}

/// "Gen2 x4".
pub fn label(g: Gen, width: u32) -> String {
    format!("Gen{} x{}", g.0, width)
}

/// Whether a path component looks like a PCI address (`0000:00:1c.4`, VMD `10000:…`).
pub fn is_pci_address(c: &str) -> bool {
    let Some((dom, rest)) = c.split_once(':') else {
        return false;
    };
    let Some((bus, df)) = rest.split_once(':') else {
        return false;
    };
    let Some((dev, func)) = df.split_once('.') else {
        return false;
    };
    let hex = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len()) && s.chars().all(|c| c.is_ascii_hexdigit())
    };
    hex(dom, 4..=8) && hex(bus, 2..=2) && hex(dev, 2..=2) && hex(func, 1..=1)
}

/// One PCI function on the path, with its raw link attributes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PciFunction {
    /// Address (`0000:04:00.0`).
    pub address: String,
    /// Machine path of its sysfs directory.
    pub sysfs: String,
    /// `vendor` (`0x144d`).
    pub vendor: Option<String>,
    /// `device` (`0xa808`).
    pub device: Option<String>,
    /// `class` (`0x010802`).
    pub class: Option<String>,
    /// Driver name (basename of the `driver` link).
    pub driver: Option<String>,
    /// `current_link_speed` as read.
    pub current_speed_raw: Option<String>,
    /// `max_link_speed` as read.
    pub max_speed_raw: Option<String>,
    /// Parsed current speed.
    pub current_gen: Option<Gen>,
    /// Parsed current width.
    pub current_width: Option<u32>,
    /// Parsed maximum speed.
    pub max_gen: Option<Gen>,
    /// Parsed maximum width.
    pub max_width: Option<u32>,
    /// `link/l1_1_aspm` or `link/l1_2_aspm` = 1.
    pub l1ss_enabled: bool,
    /// `numa_node` (−1 = none).
    pub numa_node: Option<i64>,
}

impl PciFunction {
    /// Read the function at machine path `sysfs`.
    pub fn read(sys: &Sys, sysfs: &str) -> PciFunction {
        let r = |f: &str| sys.read_trim(&format!("{sysfs}/{f}"));
        let cur = r("current_link_speed");
        let max = r("max_link_speed");
        let l1 = |f: &str| r(&format!("link/{f}")).as_deref() == Some("1");
        PciFunction {
            address: super::sysroot::base(sysfs).to_string(),
            sysfs: sysfs.to_string(),
            vendor: r("vendor"),
            device: r("device"),
            class: r("class"),
            driver: sys.link_name(&format!("{sysfs}/driver")),
            current_gen: cur.as_deref().and_then(parse_speed),
            max_gen: max.as_deref().and_then(parse_speed),
            current_speed_raw: cur,
            max_speed_raw: max,
            current_width: r("current_link_width").as_deref().and_then(parse_width),
            max_width: r("max_link_width").as_deref().and_then(parse_width),
            l1ss_enabled: l1("l1_1_aspm") || l1("l1_2_aspm"),
            numa_node: sys.read_i64(&format!("{sysfs}/numa_node")),
        }
    }

    /// Whether any link attribute file exists.
    pub fn has_link_files(&self) -> bool {
        self.current_speed_raw.is_some() || self.max_speed_raw.is_some()
    }

    /// Whether the class is a PCI-to-PCI bridge / root port (`0x0604xx`).
    pub fn is_bridge(&self) -> bool {
        self.class
            .as_deref()
            .is_some_and(|c| c.starts_with("0x0604"))
    }
}

/// A link between a function and its parent on the path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// Upstream end (port) address.
    pub upstream: String,
    /// Downstream end (the function whose `current_link_*` describe the link).
    pub downstream: String,
    /// Trained speed.
    pub gen: Gen,
    /// Trained width.
    pub width: u32,
    /// Downstream function's own maximum speed.
    pub device_max_gen: Option<Gen>,
    /// Downstream function's own maximum width.
    pub device_max_width: Option<u32>,
    /// Upstream port's maximum speed.
    pub port_max_gen: Option<Gen>,
    /// Upstream port's maximum width.
    pub port_max_width: Option<u32>,
    /// Raw usable MB/s at the trained speed and width.
    pub raw_mb_s: f64,
    /// Realistic MB/s.
    pub realistic_mb_s: f64,
}

/// The PCI path of a device and its links, root port first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PciPath {
    /// Functions from the root complex down (root port first, storage function last).
    pub functions: Vec<PciFunction>,
    /// Links that could be read, upstream first.
    pub links: Vec<Link>,
    /// Links on the path whose state could not be read: (downstream address, why).
    pub unreadable: Vec<(String, String)>,
}

impl PciPath {
    /// Walk the PCI components of `device_path` (a resolved machine path).
    pub fn read(sys: &Sys, device_path: &str) -> PciPath {
        let mut functions = Vec::new();
        let mut prefix = String::new();
        for c in device_path.split('/').filter(|c| !c.is_empty()) {
            prefix.push('/');
            prefix.push_str(c);
            if is_pci_address(c) {
                functions.push(PciFunction::read(sys, &prefix));
            }
        }
        let mut links = Vec::new();
        let mut unreadable = Vec::new();
        for w in functions.windows(2) {
            let (up, down) = (&w[0], &w[1]);
            match (down.current_gen, down.current_width) {
                (Some(g), Some(width)) => links.push(Link {
                    upstream: up.address.clone(),
                    downstream: down.address.clone(),
                    gen: g,
                    width,
                    device_max_gen: down.max_gen,
                    device_max_width: down.max_width,
                    port_max_gen: up.max_gen,
                    port_max_width: up.max_width,
                    raw_mb_s: raw_mb_s(g, width),
                    realistic_mb_s: realistic_mb_s(g, width),
                }),
                _ => {
                    let why = if down.has_link_files() {
                        format!(
                            "current_link_speed = {:?}, current_link_width unreadable or 0",
                            down.current_speed_raw.as_deref().unwrap_or("")
                        )
                    } else {
                        "no current_link_speed/width files (not a PCIe link)".to_string()
                    };
                    unreadable.push((down.address.clone(), why));
                }
            }
        }
        if functions.len() == 1 {
            let f = &functions[0];
            unreadable.push((
                f.address.clone(),
                "function sits on the root bus (integrated or virtual device): no PCIe link to check"
                    .to_string(),
            ));
        }
        PciPath {
            functions,
            links,
            unreadable,
        }
    }

    /// The storage-facing function (last on the path).
    pub fn endpoint(&self) -> Option<&PciFunction> {
        self.functions.last()
    }

    /// The link with the lowest raw bandwidth (the last such link on ties, i.e. nearest
    /// the device).
    pub fn limiting(&self) -> Option<&Link> {
        self.links
            .iter()
            .fold(None, |best: Option<&Link>, l| match best {
                Some(b) if b.raw_mb_s < l.raw_mb_s => Some(b),
                _ => Some(l),
            })
    }

    /// The endpoint's own link (the last link, when it ends at the endpoint).
    pub fn endpoint_link(&self) -> Option<&Link> {
        let ep = self.endpoint()?;
        self.links.last().filter(|l| l.downstream == ep.address)
    }
}

/// Intel PCH (chipset) root-port device IDs, by family: 6-series to 300-series.
/// Vendor 0x8086 only; a port in these ranges shares the DMI uplink to the CPU.
pub fn is_chipset_root_port(vendor: &str, device: &str) -> bool {
    if vendor != "0x8086" {
        return false;
    }
    let Some(d) = device
        .strip_prefix("0x")
        .and_then(|h| u32::from_str_radix(h, 16).ok())
    else {
        return false;
    };
    const RANGES: &[(u32, u32)] = &[
        (0x1c10, 0x1c1f), // 6-series / C200
        (0x1e10, 0x1e1f), // 7-series / C216
        (0x8c10, 0x8c1f), // 8-series / C220
        (0x9c90, 0x9c9f), // 8-series LP
        (0x8d10, 0x8d1f), // C610/X99
        (0xa110, 0xa11f), // 100-series
        (0xa290, 0xa29f), // 200-series
        (0xa330, 0xa33f), // 300-series
    ];
    RANGES.iter().any(|(a, b)| (*a..=*b).contains(&d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_kernel_formats_parse_and_unknown_stays_unknown() {
        assert_eq!(parse_speed("5.0 GT/s PCIe\n"), Some(Gen(2)));
        assert_eq!(parse_speed("5 GT/s"), Some(Gen(2)));
        assert_eq!(parse_speed("8 GT/s"), Some(Gen(3)));
        assert_eq!(parse_speed("2.5 GT/s"), Some(Gen(1)));
        assert_eq!(parse_speed("16.0 GT/s PCIe"), Some(Gen(4)));
        assert_eq!(parse_speed("64.0 GT/s PCIe"), Some(Gen(6)));
        assert_eq!(parse_speed("Unknown"), None);
        assert_eq!(parse_speed("Unknown speed"), None);
        assert_eq!(parse_speed(""), None);
        assert_eq!(parse_speed("7 GT/s"), None);
        assert_eq!(parse_width("4\n"), Some(4));
        assert_eq!(parse_width("0"), None);
        assert_eq!(parse_width("x4"), None);
    }

    #[test]
    fn bandwidth_table_matches_the_spec() {
        assert_eq!(raw_mb_s(Gen(2), 4), 2000.0);
        assert!((realistic_mb_s(Gen(2), 4) - 1600.0).abs() < 1e-9);
        assert!((raw_mb_s(Gen(3), 4) - 3938.46).abs() < 0.01);
        assert!((realistic_mb_s(Gen(3), 4) - 3465.85).abs() < 0.01);
        assert!((raw_mb_s(Gen(4), 4) - 7876.92).abs() < 0.01);
        assert_eq!(raw_mb_s(Gen(6), 4), 30250.0);
        assert_eq!(raw_mb_s(Gen(2), 1), 500.0);
    }

    #[test]
    fn pci_addresses() {
        assert!(is_pci_address("0000:00:1c.4"));
        assert!(is_pci_address("10000:e1:00.0"));
        assert!(!is_pci_address("pci0000:00"));
        assert!(!is_pci_address("2:0:0:0"));
        assert!(!is_pci_address("nvme0"));
        assert!(is_chipset_root_port("0x8086", "0x1c18"));
        assert!(!is_chipset_root_port("0x8086", "0x6f02"));
    }
}
