//! The I/O counters of the block devices under the jobs' files, read before and after
//! a run (fio 3.33 `diskutil.c`: `/sys/block/<dev>/stat`); the result carries them as
//! `devices` and the fio JSON report turns them into `disk_util` (report/fio/json.rs).
//! Files on file systems with no block device (tmpfs, /dev/shm) give no entry.

use crate::job::fio::FioJob;
use crate::result::{DevStat, DeviceCounters};

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Parse one `stat` line; `None` when it has fewer than 11 fields.
pub fn parse_stat(s: &str) -> Option<DevStat> {
    let f: Vec<u64> = s
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    (f.len() >= 11).then(|| DevStat {
        read_ios: f[0],
        read_merges: f[1],
        read_ticks: f[3],
        write_ios: f[4],
        write_merges: f[5],
        write_ticks: f[7],
        io_ticks: f[9],
        in_queue: f[10],
    })
}

/// The sysfs directory of the block device holding `path` (the device itself for a
/// block device node; for a file not created yet, its nearest existing parent).
fn dev_dir(path: &Path) -> Option<PathBuf> {
    let mut p = path.to_path_buf();
    let md = loop {
        match std::fs::metadata(&p) {
            Ok(m) => break m,
            Err(_) => {
                if !p.pop() || p.as_os_str().is_empty() {
                    p = PathBuf::from(".");
                    break std::fs::metadata(&p).ok()?;
                }
            }
        }
    };
    let dev = if md.file_type().is_block_device() {
        md.rdev()
    } else {
        md.dev()
    };
    let (maj, min) = (libc::major(dev), libc::minor(dev));
    let dir = std::fs::canonicalize(format!("/sys/dev/block/{maj}:{min}")).ok()?;
    dir.join("stat").exists().then_some(dir)
}

/// The paths a job's files are under: each `filename` (`:`-separated, under
/// `directory` when given), or the `directory`, or the current directory.
fn job_paths(j: &FioJob) -> Vec<PathBuf> {
    let base = j.directory.clone().unwrap_or_else(|| PathBuf::from("."));
    match &j.filename {
        Some(f) => f
            .split(':')
            .filter(|s| !s.is_empty())
            .map(|s| {
                if j.directory.is_some() {
                    base.join(s)
                } else {
                    PathBuf::from(s)
                }
            })
            .collect(),
        None => vec![base],
    }
}

/// The devices' counters at the start of a run.
#[derive(Debug)]
pub struct DiskSnapshot {
    t0: Instant,
    devs: Vec<(String, PathBuf, DevStat)>,
}

fn read_stat(dir: &Path) -> Option<DevStat> {
    parse_stat(&std::fs::read_to_string(dir.join("stat")).ok()?)
}

impl DiskSnapshot {
    /// Read the counters of every block device under the jobs' files (each device
    /// once).
    pub fn take(jobs: &[FioJob]) -> DiskSnapshot {
        let mut devs: Vec<(String, PathBuf, DevStat)> = Vec::new();
        for p in jobs.iter().flat_map(job_paths) {
            let Some(dir) = dev_dir(&p) else { continue };
            if devs.iter().any(|d| d.1 == dir) {
                continue;
            }
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            if let (Some(name), Some(st)) = (name, read_stat(&dir)) {
                devs.push((name, dir, st));
            }
        }
        DiskSnapshot {
            t0: Instant::now(),
            devs,
        }
    }

    /// The counters now against those of [`DiskSnapshot::take`] (devices whose
    /// counters cannot be read again are left out).
    pub fn finish(&self) -> Vec<DeviceCounters> {
        let ms = self.t0.elapsed().as_millis() as u64;
        self.devs
            .iter()
            .filter_map(|(name, dir, a)| {
                Some(DeviceCounters {
                    name: name.clone(),
                    before: *a,
                    after: read_stat(dir)?,
                    elapsed_ms: ms,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields() {
        let a = parse_stat("10 1 80 5 20 2 160 9 0 100 14 0 0 0 0").unwrap();
        let b = parse_stat("15 2 120 7 30 4 240 19 0 350 40 0 0 0 0").unwrap();
        assert_eq!(
            (a.read_ios, a.write_merges, a.io_ticks, a.in_queue),
            (10, 2, 100, 14)
        );
        // their disk_util entry is pinned in report/fio/json.rs
        assert_eq!(
            (
                b.read_ios,
                b.write_ios,
                b.read_merges,
                b.write_ticks,
                b.in_queue,
                b.io_ticks
            ),
            (15, 30, 2, 19, 40, 350)
        );
        assert_eq!((a.write_ios, a.read_merges, a.write_ticks), (20, 1, 9));
        assert!(parse_stat("1 2 3").is_none());
    }
}
