//! Direct-I/O alignment checked before any I/O (see [`crate::run::fio::execute`]): with
//! `direct=1` every offset and length must be a multiple of the target's logical block
//! size (O_DIRECT fails with EINVAL otherwise). The block sizes of jobs on files are
//! checked by [`crate::files::dataset::preflight`]; this module checks what that one
//! does not: block sizes on block devices, and on every target the offsets a job starts
//! from (`offset`, `offset_increment`, the region start derived from them) and
//! `blockalign`, so a misaligned job is refused with a usage error (exit 2) naming the
//! option instead of failing at its first request.
//!
//! The logical block size is the device's (`BLKSSZGET`) for a block device, the
//! filesystem's O_DIRECT offset alignment (statx `STATX_DIOALIGN`, probed in the file's
//! directory) for a file; where neither can be told nothing is checked here.

use crate::files::dataset;
use crate::job::fio::{FioJob, SizeSpec};
use crate::probe::Root;
use crate::run::fio::{block_sizes, Plan, RunError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Logical block size that direct I/O on `path` must respect, bytes: the device's for a
/// block device; for a file, its filesystem's O_DIRECT alignment (probed once per
/// directory, cached in `dirs`); `None` for a character device or when unknown.
fn lbs_of(path: &Path, dirs: &mut BTreeMap<PathBuf, Option<u64>>) -> Option<u64> {
    if dataset::is_block_device(path) {
        return dataset::device_lbs(path);
    }
    if dataset::is_char_device(path) {
        return None;
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    *dirs
        .entry(dir)
        .or_insert_with_key(|d| match crate::files::preflight::probe_direct_io(d) {
            crate::files::preflight::DirectIo::Supported { align } if align > 1 => {
                Some(u64::from(align))
            }
            _ => None,
        })
}

/// Which option puts thread `t`'s region start at `start` off the `lbs` grid: `offset`
/// (bytes or a percentage of the file) or `offset_increment`.
fn culprit(job: &FioJob, t: u32, start: u64, lbs: u64) -> String {
    let inc = job.more.offset_increment;
    match job.more.offset {
        Some(SizeSpec::Bytes(b)) if !b.is_multiple_of(lbs) => format!("offset={b}"),
        Some(SizeSpec::Percent(p)) if t == 0 || inc.is_multiple_of(lbs) => {
            format!("offset={p}% (byte {start})")
        }
        _ if t > 0 && !inc.is_multiple_of(lbs) => {
            format!("offset_increment={inc} (thread {t} starts at byte {start})")
        }
        _ => format!("offset (byte {start})"),
    }
}

/// Refuse (exit 2, one line) a `direct=1` job whose block sizes, `blockalign` or region
/// starts are not multiples of the logical block size of a file it uses. `plans`: the
/// job's threads. Jobs without `direct=1` pass.
pub(crate) fn check(job: &FioJob, plans: &[Plan]) -> Result<(), RunError> {
    if !job.direct {
        return Ok(());
    }
    let refuse = |why: String| RunError::Plan {
        job: job.name.clone(),
        why,
    };
    let mut sizes = block_sizes(&job.bs_read);
    sizes.extend(block_sizes(&job.bs_write));
    let mut dirs = BTreeMap::new();
    for p in plans {
        for (f, &(start, _)) in p.files.iter().zip(&p.regions) {
            let Some(lbs) = lbs_of(&f.path, &mut dirs) else {
                continue;
            };
            let need = format!(
                "direct=1 needs offsets and lengths that are multiples of the logical block size of {} ({lbs} bytes)",
                f.path.display()
            );
            if let Some(b) = sizes.iter().find(|b| !b.is_multiple_of(lbs)) {
                return Err(refuse(format!("{need}; got bs={b}")));
            }
            let aligns = job.more.blockalign.iter().flatten();
            if let Some(a) = aligns.copied().find(|a| !a.is_multiple_of(lbs)) {
                return Err(refuse(format!("{need}; got blockalign={a}")));
            }
            if !start.is_multiple_of(lbs) {
                let what = culprit(job, p.thread, start, lbs);
                return Err(refuse(format!("{need}; got {what}")));
            }
        }
    }
    Ok(())
}

/// Logical and physical block sizes, bytes, of the block device holding `path` (the
/// device itself for a block device node; the filesystem's device for a file), from
/// sysfs `queue/{logical,physical}_block_size` of its disk (a partition's are its
/// disk's), read through `root`.
pub fn device_block_sizes(root: &Root, path: &Path) -> Option<(u64, u64)> {
    let disk = root.disk_dir(crate::probe::device_behind(path)?)?;
    let read = |f: &str| root.sys().read_u64(&format!("{disk}/queue/{f}"));
    Some((read("logical_block_size")?, read("physical_block_size")?))
}

/// Public case C30: a warning (not an error) for a `direct=1` job whose writes are
/// smaller than, or not multiples of, the physical block of a device whose logical
/// block is smaller (512e: logical 512, physical 4096). The drive then reads, merges
/// and rewrites the physical block for each such write: allowed, but slow.
pub(crate) fn rmw_warning(job: &FioJob, plans: &[Plan]) -> Option<String> {
    if !job.direct || !(job.rw.writes() || job.rw.trims()) {
        return None;
    }
    let sizes = block_sizes(&job.bs_write);
    let mut seen = std::collections::BTreeSet::new();
    for p in plans {
        for f in &p.files {
            if dataset::is_char_device(&f.path) {
                continue;
            }
            let Some((lbs, pbs)) = device_block_sizes(&Root::default(), &f.path) else {
                continue;
            };
            if lbs >= pbs || !seen.insert((lbs, pbs)) {
                continue;
            }
            if let Some(b) = sizes.iter().find(|b| !b.is_multiple_of(pbs)) {
                return Some(format!(
                    "warning: job '{}': direct=1 writes of {b} bytes are not whole {pbs}-byte physical blocks of the device under {} (logical block {lbs} bytes, a 512e-style drive): each one costs the drive a read-modify-write; allowed, but slower than {pbs}-byte-aligned writes",
                    job.name,
                    f.path.display()
                ));
            }
        }
    }
    None
}
