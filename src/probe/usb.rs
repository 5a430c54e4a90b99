//! USB mass storage: link speed, UAS vs Bulk-Only, and whether a SuperSpeed-capable
//! drive ended up on the USB 2 half of its connector.
//!
//! Proof of SuperSpeed capability is the BOS descriptor set (`bos_descriptors`, newer
//! kernels); without it, bcdUSB ` 2.10` at 480 Mb/s plus an unattached SuperSpeed peer
//! port is weaker evidence and the finding says "probably".

use super::sysroot::{base, parent, Sys};
use serde::{Deserialize, Serialize};

/// Raw usable MB/s for a `speed` value in Mb/s: 8b/10b up to 5 Gb/s, 128b/132b above.
pub fn raw_mb_s(speed_mbit: f64) -> f64 {
    if speed_mbit >= 10000.0 {
        speed_mbit * 128.0 / 132.0 / 8.0
    } else if speed_mbit >= 5000.0 {
        speed_mbit * 0.8 / 8.0
    } else {
        speed_mbit / 8.0
    }
}

/// Realistic MB/s: 480 → 40, 5 Gb/s → 450, 10 Gb/s → ≈ 1050, 20 Gb/s → ≈ 2000.
pub fn realistic_mb_s(speed_mbit: f64) -> f64 {
    if speed_mbit >= 5000.0 {
        raw_mb_s(speed_mbit) * if speed_mbit >= 10000.0 { 0.866 } else { 0.9 }
    } else {
        raw_mb_s(speed_mbit) * 2.0 / 3.0
    }
}

/// SuperSpeed capabilities declared in a BOS descriptor set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BosCaps {
    /// SuperSpeed USB capability (type 0x03) with the 5 Gb/s bit.
    pub superspeed: bool,
    /// SuperSpeedPlus capability (type 0x0A): 10/20 Gb/s.
    pub superspeed_plus: bool,
}

/// Walk a BOS descriptor set; `None` when the header is malformed.
pub fn parse_bos(b: &[u8]) -> Option<BosCaps> {
    if b.len() < 5 || b[0] != 5 || b[1] != 0x0f {
        return None;
    }
    let total = usize::from(u16::from_le_bytes([b[2], b[3]])).min(b.len());
    let mut caps = BosCaps::default();
    let mut i = 5;
    while i + 3 <= total {
        let len = usize::from(b[i]);
        if len < 3 || i + len > total {
            break;
        }
        if b[i + 1] == 0x10 {
            match b[i + 2] {
                0x03 if len >= 6 => {
                    let speeds = u16::from_le_bytes([b[i + 4], b[i + 5]]);
                    caps.superspeed |= speeds & 0x08 != 0;
                }
                0x0a => caps.superspeed_plus = true,
                _ => {}
            }
        }
        i += len;
    }
    Some(caps)
}

/// What the USB device, its interface and its port say.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UsbLink {
    /// Device name (`1-2`).
    pub device: String,
    /// Machine path of the device directory.
    pub sysfs: String,
    /// `speed` in Mb/s.
    pub speed_mbit: Option<f64>,
    /// bcdUSB (`2.10`).
    pub version: Option<String>,
    /// `manufacturer product`.
    pub product: Option<String>,
    /// Interface driver (`uas`, `usb-storage`).
    pub driver: Option<String>,
    /// `bInterfaceProtocol` (62 UAS, 50 BOT).
    pub protocol: Option<String>,
    /// Parsed BOS descriptors (`None`: file absent or malformed).
    pub bos: Option<BosCaps>,
    /// The SuperSpeed peer port of the device's connector (machine path).
    pub peer_port: Option<String>,
    /// Its `state` (`not attached`, `configured` …).
    pub peer_state: Option<String>,
    /// Speed of the root hub the peer port belongs to, Mb/s.
    pub peer_hub_speed: Option<f64>,
}

/// Whether a path component is a USB device (`1-2`, `3-1.4`), not a root hub or interface.
pub fn is_usb_device(c: &str) -> bool {
    let Some((bus, port)) = c.split_once('-') else {
        return false;
    };
    !bus.is_empty()
        && bus.chars().all(|c| c.is_ascii_digit())
        && !port.is_empty()
        && port.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// Read the USB device at machine path `dev` and interface `iface` (machine path).
pub fn read(sys: &Sys, dev: &str, iface: Option<&str>) -> UsbLink {
    let r = |f: &str| sys.read_trim(&format!("{dev}/{f}"));
    let port = sys
        .real_path(&format!("{dev}/port"))
        .filter(|p| sys.is_dir(p));
    let peer_port = port
        .as_deref()
        .and_then(|p| sys.real_path(&format!("{p}/peer")))
        .filter(|p| sys.is_dir(p));
    let peer_state = peer_port
        .as_deref()
        .and_then(|p| sys.read_trim(&format!("{p}/state")));
    // …/usb2/2-0:1.0/usb2-port2 → …/usb2
    let peer_hub_speed = peer_port
        .as_deref()
        .and_then(|p| sys.read_trim(&format!("{}/speed", parent(&parent(p)))))
        .and_then(|s| s.parse().ok());
    let product = match (r("manufacturer"), r("product")) {
        (Some(m), Some(p)) => Some(format!("{m} {p}")),
        (a, b) => a.or(b),
    };
    UsbLink {
        device: base(dev).to_string(),
        sysfs: dev.to_string(),
        speed_mbit: r("speed").and_then(|s| s.parse().ok()),
        version: r("version"),
        product,
        driver: iface.and_then(|i| sys.link_name(&format!("{i}/driver"))),
        protocol: iface.and_then(|i| sys.read_trim(&format!("{i}/bInterfaceProtocol"))),
        bos: sys
            .read_bytes(&format!("{dev}/bos_descriptors"))
            .and_then(|b| parse_bos(&b)),
        peer_port,
        peer_state,
        peer_hub_speed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bos_and_rates() {
        let b = [
            0x05, 0x0f, 0x16, 0x00, 0x02, 0x07, 0x10, 0x02, 0x06, 0x00, 0x00, 0x00, 0x0a, 0x10,
            0x03, 0x00, 0x0e, 0x00, 0x01, 0x0a, 0xff, 0x07,
        ];
        assert_eq!(
            parse_bos(&b),
            Some(BosCaps {
                superspeed: true,
                superspeed_plus: false
            })
        );
        assert_eq!(parse_bos(&b[..12]).unwrap(), BosCaps::default());
        assert_eq!(parse_bos(&[1, 2]), None);
        assert_eq!(raw_mb_s(480.0), 60.0);
        assert_eq!(realistic_mb_s(480.0), 40.0);
        assert_eq!(raw_mb_s(5000.0), 500.0);
        assert_eq!(realistic_mb_s(5000.0), 450.0);
        assert!((raw_mb_s(10000.0) - 1212.12).abs() < 0.01);
        assert!(is_usb_device("1-2"));
        assert!(is_usb_device("3-1.4"));
        assert!(!is_usb_device("1-2:1.0"));
        assert!(!is_usb_device("usb1"));
        assert!(!is_usb_device("1-0:1.0"));
    }
}
