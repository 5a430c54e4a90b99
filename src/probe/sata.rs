//! SATA links through libata: negotiated speed, configured limits and what the drive
//! itself supports (IDENTIFY word 76).
//!
//! The port's own capability is not in sysfs, so "the link is slower than the drive"
//! is the strongest statement possible; `sata_spd_limit`/`hw_sata_spd_limit` print
//! `<unknown>` when *not* limited, so only other values count as a configured cap.

use super::sysroot::Sys;
use serde::{Deserialize, Serialize};

/// SATA generation: 1 = 1.5 Gb/s, 2 = 3.0 Gb/s, 3 = 6.0 Gb/s.
pub type SataGen = u8;

/// Parse `sata_spd`-style strings (`3.0 Gbps`); `<unknown>` or garbage → `None`.
pub fn parse_spd(s: &str) -> Option<SataGen> {
    match s.trim() {
        "1.5 Gbps" => Some(1),
        "3.0 Gbps" => Some(2),
        "6.0 Gbps" => Some(3),
        _ => None,
    }
}

/// Line rate label (`3.0 Gbps`).
pub fn gen_label(g: SataGen) -> &'static str {
    match g {
        1 => "1.5 Gbps",
        2 => "3.0 Gbps",
        _ => "6.0 Gbps",
    }
}

/// Raw usable MB/s after 8b/10b: 150 / 300 / 600.
pub fn raw_mb_s(g: SataGen) -> f64 {
    match g {
        1 => 150.0,
        2 => 300.0,
        _ => 600.0,
    }
}

/// Realistic MB/s: good SSDs reach ≈ 92 % of the usable rate (550 of 600).
pub fn realistic_mb_s(g: SataGen) -> f64 {
    raw_mb_s(g) * 0.92
}

/// Parse the libata `id` dump (256 words, 4-digit hex, whitespace separated).
/// `None` unless all 256 words parse.
pub fn parse_id(text: &str) -> Option<Vec<u16>> {
    let w: Vec<u16> = text
        .split_whitespace()
        .map(|x| u16::from_str_radix(x, 16))
        .collect::<Result<_, _>>()
        .ok()?;
    (w.len() == 256).then_some(w)
}

/// Highest generation the drive supports (word 76 bits 1–3); `None` if none set or
/// the word is 0x0000/0xffff (not reported).
pub fn drive_max_gen(id: &[u16]) -> Option<SataGen> {
    let w = *id.get(76)?;
    if w == 0 || w == 0xffff {
        return None;
    }
    (1..=3u8).rev().find(|b| w & (1 << b) != 0)
}

/// Word 217 = 1: non-rotating medium.
pub fn non_rotating(id: &[u16]) -> Option<bool> {
    match *id.get(217)? {
        0 => None,
        w => Some(w == 1),
    }
}

/// What the libata link and device directories say.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SataLink {
    /// `ataN` port name.
    pub port: String,
    /// Machine path of the `sata_spd` file read.
    pub spd_file: String,
    /// `sata_spd` as read.
    pub spd_raw: Option<String>,
    /// Negotiated generation.
    pub gen: Option<SataGen>,
    /// `sata_spd_limit` / `hw_sata_spd_limit` when set (not `<unknown>`).
    pub limit: Option<SataGen>,
    /// Machine path of the IDENTIFY dump.
    pub id_file: Option<String>,
    /// Drive's maximum generation (word 76).
    pub drive_max: Option<SataGen>,
    /// Word 217 says non-rotating.
    pub non_rotating: Option<bool>,
}

/// Read the libata link below the `ataN` directory `ata_dir` (machine path).
pub fn read(sys: &Sys, ata_dir: &str) -> SataLink {
    let port = super::sysroot::base(ata_dir).to_string();
    let n = port.trim_start_matches("ata");
    let link = format!("{ata_dir}/link{n}");
    let attr = format!("{link}/ata_link/link{n}");
    let spd_file = format!("{attr}/sata_spd");
    let spd_raw = sys.read_trim(&spd_file);
    let limit = ["sata_spd_limit", "hw_sata_spd_limit"]
        .iter()
        .filter_map(|f| {
            sys.read_trim(&format!("{attr}/{f}"))
                .as_deref()
                .and_then(parse_spd)
        })
        .min();
    let dev = sys
        .list(&link)
        .unwrap_or_default()
        .into_iter()
        .find(|e| e.starts_with(&format!("dev{n}.")));
    let id_file = dev.map(|d| format!("{link}/{d}/ata_device/{d}/id"));
    let id = id_file
        .as_deref()
        .and_then(|f| sys.read(f))
        .and_then(|t| parse_id(&t));
    SataLink {
        port,
        gen: spd_raw.as_deref().and_then(parse_spd),
        spd_raw,
        spd_file,
        limit,
        drive_max: id.as_deref().and_then(drive_max_gen),
        non_rotating: id.as_deref().and_then(non_rotating),
        id_file,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_and_identify_words() {
        assert_eq!(parse_spd("3.0 Gbps\n"), Some(2));
        assert_eq!(parse_spd("<unknown>"), None);
        assert_eq!(raw_mb_s(2), 300.0);
        assert!((realistic_mb_s(3) - 552.0).abs() < 1e-9);
        let mut words = vec!["0000"; 256];
        words[76] = "870e";
        words[217] = "0001";
        let id = parse_id(&words.join(" ")).unwrap();
        assert_eq!(drive_max_gen(&id), Some(3));
        assert_eq!(non_rotating(&id), Some(true));
        assert_eq!(parse_id("0040 zz"), None);
        assert_eq!(drive_max_gen(&[0u16; 256]), None);
    }
}
