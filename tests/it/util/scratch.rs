//! Scratch directories, directory listings, file checksums and a free network port.
//! Scratch lives under Cargo's `CARGO_TARGET_TMPDIR` (the build's disk), not /tmp, so a
//! tmpfs /tmp cannot change O_DIRECT or page-cache behaviour; each is removed when its
//! guard drops.

use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A fresh scratch directory on the build's filesystem.
pub fn scratch() -> TempDir {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(&base).unwrap();
    tempfile::Builder::new()
        .prefix("iomark-it-")
        .tempdir_in(base)
        .expect("scratch dir")
}

/// A fresh scratch directory in memory (/dev/shm) where there is one, so file I/O
/// stays fast and its latencies small; else [`scratch`].
pub fn memory_scratch() -> TempDir {
    if Path::new("/dev/shm").is_dir() {
        if let Ok(d) = tempfile::Builder::new()
            .prefix("iomark-it-")
            .tempdir_in("/dev/shm")
        {
            return d;
        }
    }
    scratch()
}

/// Names in `dir`, sorted, without ext4's `lost+found` (nobody made it).
pub fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read_dir {}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "lost+found")
        .collect();
    v.sort();
    v
}

/// Size of a file, bytes.
pub fn size_of(p: &Path) -> u64 {
    std::fs::metadata(p)
        .unwrap_or_else(|e| panic!("stat {}: {e}", p.display()))
        .len()
}

/// sha256 of a file's (or a device's) whole content, hex.
pub fn sha256(p: &Path) -> String {
    use sha2::{Digest, Sha256};
    let b = std::fs::read(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
    Sha256::digest(&b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// A fixture under tests/fixtures/.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// A port free for both TCP and UDP now (the kernel's pick, released): net jobs use it
/// instead of fio's fixed example ports, which a shared machine may have taken.
pub fn free_port() -> u16 {
    loop {
        let p = std::net::TcpListener::bind("0.0.0.0:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if std::net::UdpSocket::bind(("0.0.0.0", p)).is_ok() {
            return p;
        }
    }
}

/// How many times the machine's page cache was dropped since boot (`drop_pagecache` of
/// /proc/vmstat; `echo 1|3 > /proc/sys/vm/drop_caches` counts one). Tests run in
/// parallel and `iomark tree` drops the caches as root: a test whose figures rest on a
/// warm page cache reads this before and after to know whether another test emptied it.
pub fn cache_drops() -> u64 {
    std::fs::read_to_string("/proc/vmstat")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("drop_pagecache ")?.trim().parse().ok())
        })
        .unwrap_or(0)
}
