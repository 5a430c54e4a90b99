//! Findings and unknowns: the vocabulary of a diagnosis.
//!
//! Finding IDs are the stable identifiers — scripts and `compare`
//! match on them, so they never change once published. Every finding carries its
//! evidence (the file read and the value found) so a user can check it by hand.

use serde::{Deserialize, Serialize};

/// How much a finding matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    /// Sets or lowers the bandwidth ceiling.
    Limit,
    /// Costs performance or distorts results.
    Warn,
    /// Results may come from RAM rather than the device.
    Cache,
    /// Worth knowing.
    Info,
}

impl Severity {
    /// Upper-case label (`LIMIT`).
    pub fn label(self) -> &'static str {
        match self {
            Severity::Limit => "LIMIT",
            Severity::Warn => "WARN",
            Severity::Cache => "CACHE",
            Severity::Info => "INFO",
        }
    }
}

/// One file read and the value found in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// Machine path (`/sys/devices/…/current_link_speed`) or a derived source.
    pub file: String,
    /// Value as read (trimmed).
    pub value: String,
}

/// One condition that holds for this path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable ID (`PCIE_LINK_BELOW_DEVICE`).
    pub id: String,
    /// Severity.
    pub severity: Severity,
    /// One line with the numbers filled in.
    pub message: String,
    /// Files and values that support it.
    pub evidence: Vec<Evidence>,
}

impl Finding {
    /// A finding without evidence yet.
    pub fn new(id: &str, severity: Severity, message: impl Into<String>) -> Finding {
        Finding {
            id: id.to_string(),
            severity,
            message: message.into(),
            evidence: Vec::new(),
        }
    }

    /// Add one piece of evidence.
    pub fn with(mut self, file: impl Into<String>, value: impl Into<String>) -> Finding {
        self.evidence.push(Evidence {
            file: file.into(),
            value: value.into(),
        });
        self
    }
}

/// Something that could not be determined, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unknown {
    /// What is unknown (`PCIe link of 0000:00:02.0`).
    pub what: String,
    /// Why (`no current_link_speed file: not a PCIe device`).
    pub why: String,
}

/// Format MB/s as in the messages: `1600 MB/s`.
pub fn mb(v: f64) -> String {
    format!("{v:.0} MB/s")
}

/// Format MB/s as decimal GB/s with two decimals: `1.60 GB/s`.
pub fn gb(v: f64) -> String {
    format!("{:.2} GB/s", v / 1000.0)
}

/// Format bytes as GiB with one decimal; below 1 GiB in the largest binary unit that
/// keeps the value ≥ 1 (`512.0 MiB`, `31.5 KiB`, `512 B`), never `0.0 GiB`.
pub fn gib(bytes: u64) -> String {
    if bytes < 1 << 30 {
        return crate::util::text::iec(bytes);
    }
    format!("{:.1} GiB", bytes as f64 / 1073741824.0)
}

/// A drive's capacity: decimal GB as on its label (one decimal; below 1 GB in MB or
/// kB, never `0.0 GB`) with the binary value beside it, so no line shows GB without
/// GiB (the unit rule, docs/result-schema.md): `500.1 GB = 465.8 GiB`.
pub fn capacity(bytes: u64) -> String {
    let b = bytes as f64;
    let dec = match bytes {
        1_000_000_000.. => format!("{:.1} GB", b / 1e9),
        1_000_000.. => format!("{:.1} MB", b / 1e6),
        1_000.. => format!("{:.1} kB", b / 1e3),
        _ => return format!("{bytes} bytes"),
    };
    format!("{dec} = {}", gib(bytes))
}

/// Bytes in the largest binary unit that keeps the value ≥ 1, one decimal, a trailing
/// `.0` dropped: `31.5 KiB`, `4 KiB`, `513 MiB`, `512 B`.
pub fn iec_short(bytes: u64) -> String {
    let v = crate::util::text::iec(bytes);
    match v.split_once(".0 ") {
        Some((n, unit)) => format!("{n} {unit}"),
        None => v,
    }
}

/// A byte offset or size in binary units ([`iec_short`]), with `, not a multiple of
/// <block>` when `block` (bytes, > 0) does not divide it.
pub fn offset_iec(bytes: u64, block: Option<u64>) -> String {
    let v = iec_short(bytes);
    match block.filter(|b| *b > 0 && !bytes.is_multiple_of(*b)) {
        Some(b) => format!("{v}, not a multiple of {}", iec_short(b)),
        None => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_serialises() {
        assert_eq!(mb(1599.6), "1600 MB/s");
        assert_eq!(gb(1600.0), "1.60 GB/s");
        assert_eq!(gib(263725056 * 1024), "251.5 GiB");
        // small values keep a unit that shows them (no "0.0 GiB" / "0.0 GB")
        assert_eq!(gib(512 << 20), "512.0 MiB");
        assert_eq!(gib(63 * 512), "31.5 KiB");
        assert_eq!(capacity(500_107_862_016), "500.1 GB = 465.8 GiB");
        assert_eq!(capacity(8 << 20), "8.4 MB = 8.0 MiB");
        assert_eq!(capacity(32_256), "32.3 kB = 31.5 KiB");
        assert_eq!(capacity(512), "512 bytes");
        // partition starts: sector 63 (512-byte sectors) on a 4 KiB-sector disk
        assert_eq!(
            offset_iec(63 * 512, Some(4096)),
            "31.5 KiB, not a multiple of 4 KiB"
        );
        assert_eq!(offset_iec(2048 * 512, Some(4096)), "1 MiB");
        assert_eq!(iec_short(1050624 * 512), "513 MiB");
        assert_eq!(iec_short(512), "512 B");
        assert_eq!(offset_iec(63 * 512, None), "31.5 KiB");
        let f = Finding::new("X", Severity::Cache, "m").with("/f", "v");
        let j = serde_json::to_string(&f).unwrap();
        assert!(j.contains("\"severity\":\"CACHE\""), "{j}");
        assert!(Severity::Limit < Severity::Info);
    }
}
