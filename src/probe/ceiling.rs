//! The bandwidth ceiling of a device tree: the slowest link on each physical path,
//! combined through RAID levels.
//!
//! Per path: min of the PCIe, SATA and USB realistic rates (and the user's rating for
//! read/write). md raid0 sums its members; raid1 reads sum and writes as one member;
//! raid10 writes half the sum; raid5/6 reads (n−1)/(n−2) members, writes "not
//! estimated". A virtual disk has no ceiling at all: the host decides.

use super::blockdev::{BlockDevice, Transport};
use super::findings::{gb, mb};
use super::{pcie, sata, usb};
use serde::{Deserialize, Serialize};

/// Bandwidth limit of a path, one direction, MB/s (decimal).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    /// Raw usable bandwidth after line coding.
    pub raw_mb_s: f64,
    /// What a good device reaches (`raw × η`).
    pub realistic_mb_s: f64,
    /// Read ceiling including the user's rating, if given.
    pub read_mb_s: Option<f64>,
    /// Write ceiling including the user's rating; `None` = not estimated (parity RAID).
    pub write_mb_s: Option<f64>,
    /// Which element sets it, in words.
    pub set_by: String,
    /// Physical paths combined (RAID members).
    pub paths: u32,
}

impl Ceiling {
    /// "1600 MB/s (1.60 GB/s)".
    pub fn describe(v: f64) -> String {
        format!("{} ({})", mb(v), gb(v))
    }
}

/// User ratings per drive, MB/s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rated {
    /// Advertised sequential read.
    pub read_mb_s: Option<f64>,
    /// Advertised sequential write.
    pub write_mb_s: Option<f64>,
}

/// Link limit of one physical disk: (raw, realistic, description). Err: why none.
pub fn link_limit(d: &BlockDevice) -> Result<(f64, f64, String), String> {
    let mut cands: Vec<(f64, f64, String)> = Vec::new();
    if let Some(l) = d.pci.as_ref().and_then(|p| p.limiting()) {
        cands.push((
            l.raw_mb_s,
            l.realistic_mb_s,
            format!(
                "the PCIe link at {} ({}, {} GT/s)",
                l.upstream,
                pcie::label(l.gen, l.width),
                l.gen.gts()
            ),
        ));
    }
    match &d.transport {
        Transport::Sata { link, .. } => {
            if let Some(g) = link.gen {
                cands.push((
                    sata::raw_mb_s(g),
                    sata::realistic_mb_s(g),
                    format!("the SATA link {} at {}", link.port, sata::gen_label(g)),
                ));
            }
        }
        Transport::Usb { link, .. } => {
            if let Some(s) = link.speed_mbit {
                cands.push((
                    usb::raw_mb_s(s),
                    usb::realistic_mb_s(s),
                    format!("the USB link of {} at {s} Mb/s", link.device),
                ));
            }
        }
        Transport::Virtio { .. } => {
            return Err(format!(
                "{} is a virtual disk (virtio-blk): no physical link, the host decides throughput",
                d.name
            ))
        }
        _ => {}
    }
    cands
        .into_iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .ok_or_else(|| format!("{}: no readable link rate (PCIe/SATA/USB)", d.name))
}

/// Ceiling of the tree rooted at `d`. Err: why it cannot be derived.
pub fn of(d: &BlockDevice, rated: Rated) -> Result<Ceiling, String> {
    match d.role.as_str() {
        "disk" => {
            let (raw, real, by) = link_limit(d)?;
            let cap = |r: Option<f64>| Some(r.map_or(real, |r| r.min(real)));
            Ok(Ceiling {
                raw_mb_s: raw,
                realistic_mb_s: real,
                read_mb_s: cap(rated.read_mb_s),
                write_mb_s: cap(rated.write_mb_s),
                set_by: by,
                paths: 1,
            })
        }
        "md" => md_ceiling(d, rated),
        _ => stacked_ceiling(d, rated),
    }
}

/// An md array's ceiling from its members' and its RAID level.
fn md_ceiling(d: &BlockDevice, rated: Rated) -> Result<Ceiling, String> {
    let md = d.md.clone().unwrap_or_default();
    let subs: Vec<Ceiling> = d
        .members
        .iter()
        .map(|m| of(m, rated))
        .collect::<Result<_, _>>()?;
    if subs.is_empty() {
        return Err(format!("{}: no members readable", d.name));
    }
    let n = subs.len() as f64;
    let sum = |f: &dyn Fn(&Ceiling) -> Option<f64>| -> Option<f64> {
        subs.iter().map(f).sum::<Option<f64>>()
    };
    let min = |f: &dyn Fn(&Ceiling) -> Option<f64>| -> Option<f64> {
        subs.iter()
            .map(f)
            .try_fold(f64::INFINITY, |a, v| v.map(|v| a.min(v)))
    };
    let level = md.level.clone().unwrap_or_else(|| "unknown level".into());
    let each = &subs[0].set_by;
    let raw_sum = sum(&|c| Some(c.raw_mb_s)).unwrap_or(0.0);
    let real_sum = sum(&|c| Some(c.realistic_mb_s)).unwrap_or(0.0);
    let (raw, real, read, write) = match level.as_str() {
        "raid0" => (
            raw_sum,
            real_sum,
            sum(&|c| c.read_mb_s),
            sum(&|c| c.write_mb_s),
        ),
        "raid1" => (
            raw_sum,
            real_sum,
            sum(&|c| c.read_mb_s),
            min(&|c| c.write_mb_s),
        ),
        "raid10" => (
            raw_sum,
            real_sum,
            sum(&|c| c.read_mb_s),
            sum(&|c| c.write_mb_s).map(|v| v / 2.0),
        ),
        "raid4" | "raid5" | "raid6" => {
            let k = if level == "raid6" { 2.0 } else { 1.0 };
            let f = (n - k).max(1.0);
            let m = min(&|c| Some(c.realistic_mb_s)).unwrap_or(0.0);
            let r = min(&|c| Some(c.raw_mb_s)).unwrap_or(0.0);
            (r * f, m * f, min(&|c| c.read_mb_s).map(|v| v * f), None)
        }
        _ => {
            let m = min(&|c| Some(c.realistic_mb_s)).unwrap_or(0.0);
            let r = min(&|c| Some(c.raw_mb_s)).unwrap_or(0.0);
            (r, m, min(&|c| c.read_mb_s), min(&|c| c.write_mb_s))
        }
    };
    Ok(Ceiling {
        raw_mb_s: raw,
        realistic_mb_s: real,
        read_mb_s: read,
        write_mb_s: write,
        set_by: format!(
            "{} {level} of {} members, each limited by {each}",
            d.name,
            subs.len()
        ),
        paths: subs.iter().map(|c| c.paths).sum(),
    })
}

/// A partition's, dm target's, loop device's (members: the backing device) or zram's
/// ceiling: its one member's, the slowest of several, or why there is none.
fn stacked_ceiling(d: &BlockDevice, rated: Rated) -> Result<Ceiling, String> {
    // partition, dm, loop (members = its backing device), zram …
    match d.members.as_slice() {
        [] => Err(match d.role.as_str() {
            "zram" => format!("{} is compressed RAM (zram): CPU-bound, no link", d.name),
            "loop" => format!("{}: backing file's device unknown", d.name),
            _ => format!("{}: no device below it could be read", d.name),
        }),
        [one] => of(one, rated),
        many => {
            let subs: Vec<Ceiling> = many
                .iter()
                .map(|m| of(m, rated))
                .collect::<Result<_, _>>()?;
            let worst = subs
                .into_iter()
                .min_by(|a, b| a.realistic_mb_s.total_cmp(&b.realistic_mb_s))
                .ok_or_else(|| format!("{}: no members", d.name))?;
            Ok(Ceiling {
                set_by: format!(
                    "{} over {} devices (mapping unknown without root; slowest member: {})",
                    d.name,
                    many.len(),
                    worst.set_by
                ),
                ..worst
            })
        }
    }
}
