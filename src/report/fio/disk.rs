//! fio's `disk_util` (I/O counters of the block devices under the jobs' files, over
//! the run) and the top-level `time` string. Source: fio 3.33 `diskutil.c`
//! (`/sys/block/<dev>/stat` read before and after; `util` = busy time × 100 /
//! elapsed time, at most 100) and `stat.c` (`time` = `ctime()` of the report time,
//! local time, without the newline). Files on file systems with no block device
//! (tmpfs, /dev/shm) give no entry; with no entry at all the key is left out, as fio
//! does.

use crate::job::fio::FioJob;
use serde_json::{json, Value};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Fields of `/sys/block/<dev>/stat` fio reports (Documentation/block/stat.rst):
/// read I/Os, read merges, read ticks (ms), write I/Os, write merges, write ticks (ms),
/// io_ticks (ms busy), time_in_queue (ms).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DevStat {
    /// completed reads
    pub read_ios: u64,
    /// merged reads
    pub read_merges: u64,
    /// ms spent reading
    pub read_ticks: u64,
    /// completed writes
    pub write_ios: u64,
    /// merged writes
    pub write_merges: u64,
    /// ms spent writing
    pub write_ticks: u64,
    /// ms the device was busy
    pub io_ticks: u64,
    /// weighted ms in queue
    pub in_queue: u64,
}

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

/// One `disk_util` entry from the counters before (`a`) and after (`b`) a run of
/// `elapsed_ms` ms: differences, and `util` = io_ticks × 100 / elapsed_ms (%, ≤ 100).
pub fn entry(name: &str, a: &DevStat, b: &DevStat, elapsed_ms: u64) -> Value {
    let d = |x: u64, y: u64| y.saturating_sub(x);
    let busy = d(a.io_ticks, b.io_ticks);
    let util = if elapsed_ms == 0 {
        0.0
    } else {
        (busy as f64 * 100.0 / elapsed_ms as f64).min(100.0)
    };
    json!({
        "name": name,
        "read_ios": d(a.read_ios, b.read_ios),
        "write_ios": d(a.write_ios, b.write_ios),
        "read_merges": d(a.read_merges, b.read_merges),
        "write_merges": d(a.write_merges, b.write_merges),
        "read_ticks": d(a.read_ticks, b.read_ticks),
        "write_ticks": d(a.write_ticks, b.write_ticks),
        "in_queue": d(a.in_queue, b.in_queue),
        "util": util,
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

    /// fio's `disk_util` array over the time since [`DiskSnapshot::take`]; `None`
    /// when no job file is on a block device (fio leaves the key out).
    pub fn finish(&self) -> Option<Value> {
        let ms = self.t0.elapsed().as_millis() as u64;
        let v: Vec<Value> = self
            .devs
            .iter()
            .filter_map(|(name, dir, a)| Some(entry(name, a, &read_stat(dir)?, ms)))
            .collect();
        (!v.is_empty()).then_some(Value::Array(v))
    }
}

/// fio's top-level `time`: `ctime()` of `secs` (Unix time) in local time without the
/// trailing newline, e.g. "Mon Nov 30 15:00:00 2026".
pub fn ctime(secs: u64) -> String {
    let t = secs as libc::time_t;
    let mut buf = [0 as libc::c_char; 64];
    // SAFETY: ctime_r writes at most 26 bytes into the 64-byte buffer.
    let p = unsafe { libc::ctime_r(&t, buf.as_mut_ptr()) };
    if p.is_null() {
        return String::new();
    }
    // SAFETY: ctime_r returned a NUL-terminated string in `buf`.
    let s = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
    s.to_string_lossy().trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_and_entry() {
        let a = parse_stat("10 1 80 5 20 2 160 9 0 100 14 0 0 0 0").unwrap();
        let b = parse_stat("15 2 120 7 30 4 240 19 0 350 40 0 0 0 0").unwrap();
        assert_eq!(
            (a.read_ios, a.write_merges, a.io_ticks, a.in_queue),
            (10, 2, 100, 14)
        );
        let e = entry("vda", &a, &b, 500);
        assert_eq!(e["read_ios"], 5);
        assert_eq!(e["write_ios"], 10);
        assert_eq!(e["read_merges"], 1);
        assert_eq!(e["write_ticks"], 10);
        assert_eq!(e["in_queue"], 26);
        // 250 ms busy over 500 ms
        assert_eq!(e["util"], 50.0);
        assert_eq!(entry("vda", &a, &b, 100)["util"], 100.0);
        assert!(parse_stat("1 2 3").is_none());
    }

    #[test]
    fn ctime_shape() {
        let s = ctime(1_796_051_018);
        let f: Vec<&str> = s.split_whitespace().collect();
        assert_eq!(f.len(), 5, "{s}");
        assert_eq!(f[4], "2026");
        assert!(["Mon", "Tue", "Sun"].contains(&f[0]), "{s}");
        assert_eq!(f[3].len(), 8);
    }
}
