//! Page-cache honesty check for buffered runs: does the file set fit in RAM, and how
//! many of the bytes the test read were actually read from the device? Device bytes
//! come from `/sys/dev/block/M:m/stat` deltas around the run; other processes' I/O on
//! the same device is included, so "served from memory" is a lower bound.

use super::{dev_of, Root};
use std::path::Path;

/// State captured before the run.
#[derive(Clone, Debug)]
pub struct Before {
    /// device `(major, minor)` holding the file set, when it is a block device
    pub dev: Option<(u64, u64)>,
    /// kernel name of that device
    pub device: Option<String>,
    /// memory filesystem name (`tmpfs`, `ramfs`) when the file set is in RAM
    pub memory_fs: Option<&'static str>,
    /// MemTotal, bytes
    pub mem_total: Option<u64>,
    /// device counters at start (bytes read, bytes written)
    pub counters: Option<(u64, u64)>,
}

/// Name of a memory-backed filesystem type (`tmpfs`, `ramfs`) holding `dir`, if it is one.
pub fn memory_fs(dir: &Path) -> Option<&'static str> {
    let s = rustix::fs::statfs(dir).ok()?;
    match s.f_type as i64 {
        0x0102_1994 => Some("tmpfs"),
        0x8584_58f6 => Some("ramfs"),
        _ => None,
    }
}

/// Capture device and memory facts for `dir` before a run.
pub fn before(root: &Root, dir: &Path) -> Before {
    let memory_fs = memory_fs(dir);
    let dev = dev_of(dir).filter(|(maj, _)| *maj != 0);
    let device = dev.and_then(|(a, b)| root.block_name(a, b));
    let counters = dev.and_then(|(a, b)| root.block_io_bytes(a, b));
    Before {
        dev,
        device,
        memory_fs,
        mem_total: root.mem_total(),
        counters,
    }
}

/// The finished check, as recorded in `RunResult.page_cache`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PageCacheCheck {
    /// bytes of the file set
    pub file_set_bytes: u64,
    /// true when the run used buffered I/O (no O_DIRECT)
    pub buffered: bool,
    /// MemTotal, bytes
    pub mem_total_bytes: Option<u64>,
    /// buffered file set no larger than RAM
    pub fits_in_ram: bool,
    /// `tmpfs`/`ramfs` when the file set lives in memory
    pub memory_fs: Option<String>,
    /// block device holding the file set
    pub device: Option<String>,
    /// bytes the test read (completed reads)
    pub app_read_bytes: u64,
    /// bytes the test wrote (completed writes)
    pub app_written_bytes: u64,
    /// bytes the device read during the run
    pub device_read_bytes: Option<u64>,
    /// bytes the device wrote during the run
    pub device_written_bytes: Option<u64>,
    /// percentage of the test's read bytes not read from the device (lower bound)
    pub read_served_from_memory_pct: Option<f64>,
}

/// Whether a buffered file set of `bytes` fits in RAM of `mem_total` bytes.
pub fn fits_in_ram(bytes: u64, mem_total: Option<u64>) -> bool {
    mem_total.is_some_and(|m| bytes <= m)
}

/// Finish the check after the run.
pub fn after(
    root: &Root,
    b: &Before,
    file_set_bytes: u64,
    buffered: bool,
    app_read: u64,
    app_written: u64,
) -> PageCacheCheck {
    let now = b.dev.and_then(|(x, y)| root.block_io_bytes(x, y));
    let (dr, dw) = match (b.counters, now) {
        (Some((r0, w0)), Some((r1, w1))) => {
            (Some(r1.saturating_sub(r0)), Some(w1.saturating_sub(w0)))
        }
        _ => (None, None),
    };
    let served = if b.memory_fs.is_some() && app_read > 0 {
        Some(100.0)
    } else {
        match dr {
            Some(d) if app_read > 0 => {
                Some(100.0 * app_read.saturating_sub(d) as f64 / app_read as f64)
            }
            _ => None,
        }
    };
    PageCacheCheck {
        file_set_bytes,
        buffered,
        mem_total_bytes: b.mem_total,
        // On tmpfs/ramfs the file set *is* memory: reported as `memory_fs` instead.
        fits_in_ram: buffered && b.memory_fs.is_none() && fits_in_ram(file_set_bytes, b.mem_total),
        memory_fs: b.memory_fs.map(str::to_string),
        device: b.device.clone(),
        app_read_bytes: app_read,
        app_written_bytes: app_written,
        device_read_bytes: dr,
        device_written_bytes: dw,
        read_served_from_memory_pct: served,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shm_is_memory() {
        if Path::new("/dev/shm").is_dir() {
            assert_eq!(memory_fs(Path::new("/dev/shm")), Some("tmpfs"));
        }
    }

    #[test]
    fn served_percentage_is_app_minus_device_over_app() {
        let d = tempfile::tempdir().unwrap();
        let root = Root(d.path().to_path_buf());
        let sd = d.path().join("sys/dev/block/8:0");
        std::fs::create_dir_all(&sd).unwrap();
        std::fs::write(sd.join("stat"), "1 0 100 0 1 0 0 0 0 0 0\n").unwrap();
        let b = Before {
            dev: Some((8, 0)),
            device: Some("sda".into()),
            memory_fs: None,
            mem_total: Some(1 << 30),
            counters: Some((100 * 512, 0)),
        };
        // device read 1000 sectors more = 512000 bytes; app read 2048000 bytes → 75 %
        std::fs::write(sd.join("stat"), "1 0 1100 0 1 0 8 0 0 0 0\n").unwrap();
        let c = after(&root, &b, 1 << 20, true, 2_048_000, 4096);
        assert_eq!(c.device_read_bytes, Some(512_000));
        assert_eq!(c.device_written_bytes, Some(4096));
        assert_eq!(c.read_served_from_memory_pct, Some(75.0));
        assert!(c.fits_in_ram);
    }

    #[test]
    fn fits_in_ram_rule() {
        assert!(fits_in_ram(1 << 20, Some(1 << 30)));
        assert!(!fits_in_ram(2 << 30, Some(1 << 30)));
        assert!(!fits_in_ram(1, None));
    }
}
