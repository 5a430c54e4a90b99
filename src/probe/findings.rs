//! Findings and unknowns: the vocabulary of a diagnosis.
//!
//! Finding IDs are the stable identifiers of diagnose.md §6 — scripts and `compare`
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

/// One condition of diagnose.md §6 that holds for this path.
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

/// Format bytes as GiB with one decimal.
pub fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / 1073741824.0)
}

/// Format bytes as decimal GB with one decimal.
pub fn gbytes(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_serialises() {
        assert_eq!(mb(1599.6), "1600 MB/s");
        assert_eq!(gb(1600.0), "1.60 GB/s");
        assert_eq!(gib(263725056 * 1024), "251.5 GiB");
        let f = Finding::new("X", Severity::Cache, "m").with("/f", "v");
        let j = serde_json::to_string(&f).unwrap();
        assert!(j.contains("\"severity\":\"CACHE\""), "{j}");
        assert!(Severity::Limit < Severity::Info);
    }
}
