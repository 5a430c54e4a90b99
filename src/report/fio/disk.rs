//! fio's `disk_util` (I/O counters of the block devices under the jobs' files, over
//! the run) and the top-level `time` string. Source: fio 3.33 `diskutil.c`
//! (`/sys/block/<dev>/stat` read before and after; `util` = busy time × 100 /
//! elapsed time, at most 100) and `stat.c` (`time` = `ctime()` of the report time,
//! local time, without the newline). Files on file systems with no block device
//! (tmpfs, /dev/shm) give no entry; with no entry at all the key is left out, as fio
//! does. sysfs is read through a [`Root`] (tests give a recorded machine).

use crate::job::fio::FioJob;
use crate::probe::Root;
use serde_json::{json, Value};
use std::path::PathBuf;
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
    root: Root,
    t0: Instant,
    /// (kernel name, resolved sysfs directory, counters at the start)
    devs: Vec<(String, String, DevStat)>,
}

/// The `stat` counters of the block device at sysfs directory `dir` (already resolved:
/// on the live machine one read of one file).
fn read_stat(root: &Root, dir: &str) -> Option<DevStat> {
    parse_stat(&root.read(&format!("{dir}/stat"))?)
}

impl DiskSnapshot {
    /// Read, through `root`, the counters of every block device under the jobs' files
    /// (the device itself for a block device node; for a file not created yet, its
    /// nearest existing parent's), each device once.
    pub fn take(root: &Root, jobs: &[FioJob]) -> DiskSnapshot {
        let mut devs: Vec<(String, String, DevStat)> = Vec::new();
        for p in jobs.iter().flat_map(job_paths) {
            let Some(dir) = crate::probe::device_behind(&p).and_then(|d| root.block_dir(d)) else {
                continue;
            };
            if devs.iter().any(|d| d.1 == dir) {
                continue;
            }
            if let Some(st) = read_stat(root, &dir) {
                devs.push((crate::probe::sysroot::base(&dir).to_string(), dir, st));
            }
        }
        DiskSnapshot {
            root: root.clone(),
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
            .filter_map(|(name, dir, a)| Some(entry(name, a, &read_stat(&self.root, dir)?, ms)))
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

    /// The counters come from the machine the root records: a fixture whose
    /// `/sys/dev/block/M:m` (M:m of the test's own directory) links to a disk `vdz`.
    #[test]
    fn snapshot_reads_the_counters_through_the_root() {
        let work = tempfile::tempdir().unwrap();
        let file = work.path().join("data");
        let (ma, mi) = crate::probe::device_behind(&file).unwrap();
        let fx = tempfile::tempdir().unwrap();
        let disk = fx.path().join("sys/devices/virtual/block/vdz");
        std::fs::create_dir_all(&disk).unwrap();
        std::fs::write(disk.join("stat"), "10 1 80 5 20 2 160 9 0 100 14\n").unwrap();
        std::fs::create_dir_all(fx.path().join("sys/dev/block")).unwrap();
        std::os::unix::fs::symlink(
            "../../devices/virtual/block/vdz",
            fx.path().join(format!("sys/dev/block/{ma}:{mi}")),
        )
        .unwrap();
        let root = Root(fx.path().to_path_buf());
        let args: Vec<String> = ["--name=j", "--size=1m"]
            .iter()
            .map(|s| s.to_string())
            .chain([format!("--filename={}", file.display())])
            .collect();
        let jobs = crate::job::fio::parse_args_with(&args, &|_| None)
            .unwrap()
            .jobs;
        let snap = DiskSnapshot::take(&root, &jobs);
        std::fs::write(disk.join("stat"), "15 2 120 7 30 4 240 19 0 350 40\n").unwrap();
        let v = snap.finish().unwrap();
        assert_eq!(v[0]["name"], "vdz");
        assert_eq!(v[0]["read_ios"], 5);
        assert_eq!(v[0]["write_ios"], 10);
        // a machine without that device: no entry, so fio's key is left out
        let empty = tempfile::tempdir().unwrap();
        assert!(DiskSnapshot::take(&Root(empty.path().to_path_buf()), &jobs)
            .finish()
            .is_none());
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
