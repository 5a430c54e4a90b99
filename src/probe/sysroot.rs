//! Reads below an injectable root with symlinks resolved *inside* that root.
//!
//! sysfs is a forest of relative symlinks (`/sys/dev/block/259:1 ->
//! ../../devices/pci0000:00/…`). Fixture trees replay those links verbatim, so the
//! operating system must never resolve them on its own: an absolute target, or one
//! `..` too many, would escape the fixture and read the test machine instead. This
//! module resolves every path component by component: relative
//! targets join the link's directory, absolute targets restart at the root, `..` never
//! climbs above the root, and more than 40 hops is a loop. Every read returns `Option`:
//! a missing or unreadable file is "unknown", never an error.
//!
//! On the live machine (root `/`) the kernel's own resolution is the same (absolute
//! targets restart at `/`, `..` stops there, 40 hops), so reads open the path directly:
//! one `open`+`read`, as cheap as a bare `std::fs::read` (disk counters are read around
//! timed runs, the clock source at every calibration).

use super::Root;
use std::path::{Path, PathBuf};

/// Most symlinks followed while resolving one path (the kernel's own limit).
const MAX_HOPS: usize = 40;

/// Root-confined reader used by every diagnosis module.
#[derive(Clone, Copy, Debug)]
pub struct Sys<'a> {
    root: &'a Root,
}

/// Split an absolute machine path into its normal components.
fn components(abs: &str) -> Vec<String> {
    abs.split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .map(str::to_string)
        .collect()
}

/// Join components back into an absolute machine path (`/` when empty).
fn join(parts: &[String]) -> String {
    if parts.is_empty() {
        "/".to_string()
    } else {
        format!("/{}", parts.join("/"))
    }
}

impl<'a> Sys<'a> {
    /// A reader below `root`.
    pub fn new(root: &'a Root) -> Sys<'a> {
        Sys { root }
    }

    /// The root this reader is confined to.
    pub fn root(&self) -> &Root {
        self.root
    }

    /// Host path of an already resolved machine path.
    fn host(&self, resolved: &str) -> PathBuf {
        self.root.0.join(resolved.trim_start_matches('/'))
    }

    /// Host path to open for machine path `abs`: the path itself on the live machine
    /// (the kernel resolves it exactly as [`Sys::real_path`] would), else the resolved
    /// path below the root. `None` only for a symlink loop inside a fixture.
    fn open_path(&self, abs: &str) -> Option<PathBuf> {
        if self.root.is_live() {
            return Some(Path::new("/").join(abs.trim_start_matches('/')));
        }
        Some(self.host(&self.real_path(abs)?))
    }

    /// Resolve every symlink in `abs` inside the root and return the machine path
    /// (e.g. `/sys/devices/…/nvme0n1`). The final component need not exist. `None` only
    /// for a symlink loop (more than 40 hops).
    pub fn real_path(&self, abs: &str) -> Option<String> {
        let mut done: Vec<String> = Vec::new();
        let mut todo: Vec<String> = components(abs);
        todo.reverse(); // pop from the end = next component
        let mut hops = 0usize;
        while let Some(c) = todo.pop() {
            if c == ".." {
                done.pop();
                continue;
            }
            done.push(c);
            let host = self.host(&join(&done));
            let Ok(meta) = std::fs::symlink_metadata(&host) else {
                continue; // missing: keep the name, nothing more to resolve here
            };
            if !meta.file_type().is_symlink() {
                continue;
            }
            hops += 1;
            if hops > MAX_HOPS {
                return None;
            }
            let target = std::fs::read_link(&host).ok()?;
            let target = target.to_string_lossy().into_owned();
            done.pop();
            if target.starts_with('/') {
                done.clear();
            }
            let mut t = components(&target);
            t.reverse();
            todo.extend(t);
        }
        Some(join(&done))
    }

    /// Text of the file at machine path `abs`, `None` when missing or unreadable.
    pub fn read(&self, abs: &str) -> Option<String> {
        let bytes = std::fs::read(self.open_path(abs)?).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// [`Sys::read`] with surrounding whitespace (sysfs' trailing newline, padding) removed.
    pub fn read_trim(&self, abs: &str) -> Option<String> {
        self.read(abs).map(|s| s.trim().to_string())
    }

    /// The file as a non-negative integer (decimal, or hex with `0x`).
    pub fn read_u64(&self, abs: &str) -> Option<u64> {
        let s = self.read_trim(abs)?;
        match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => s.parse().ok(),
        }
    }

    /// The file as a signed integer.
    pub fn read_i64(&self, abs: &str) -> Option<i64> {
        self.read_trim(abs)?.parse().ok()
    }

    /// Raw bytes (binary attributes such as `bos_descriptors`).
    pub fn read_bytes(&self, abs: &str) -> Option<Vec<u8>> {
        std::fs::read(self.open_path(abs)?).ok()
    }

    /// Target of the symlink at `abs` as stored (parents resolved first).
    pub fn read_link(&self, abs: &str) -> Option<String> {
        let mut parts = components(abs);
        let last = parts.pop()?;
        let parent = self.real_path(&join(&parts))?;
        let host = self.host(&parent).join(last);
        Some(
            std::fs::read_link(host)
                .ok()?
                .to_string_lossy()
                .into_owned(),
        )
    }

    /// Last component of a symlink's target (`driver` → `nvme`).
    pub fn link_name(&self, abs: &str) -> Option<String> {
        let t = self.read_link(abs)?;
        t.rsplit('/').find(|c| !c.is_empty()).map(str::to_string)
    }

    /// Sorted entry names of the directory at `abs`; `None` when it is not a directory.
    pub fn list(&self, abs: &str) -> Option<Vec<String>> {
        let rd = std::fs::read_dir(self.open_path(abs)?).ok()?;
        let mut v: Vec<String> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        Some(v)
    }

    /// Whether anything exists at `abs` (after resolution).
    pub fn exists(&self, abs: &str) -> bool {
        self.open_path(abs)
            .is_some_and(|p| std::fs::metadata(p).is_ok())
    }

    /// Whether `abs` is a directory (after resolution).
    pub fn is_dir(&self, abs: &str) -> bool {
        self.open_path(abs)
            .and_then(|p| std::fs::metadata(p).ok())
            .is_some_and(|m| m.is_dir())
    }

    /// Host path of the file a machine path such as `/dev/sda1` (a mount source, a swap
    /// device) names, for `stat`: the path itself on the live machine, the resolved
    /// path below the root in a fixture.
    pub fn host_path(&self, abs: &str) -> Option<PathBuf> {
        self.open_path(abs)
    }
}

/// Parent of a machine path (`/a/b` → `/a`; `/` stays `/`).
pub fn parent(abs: &str) -> String {
    let mut p = components(abs);
    p.pop();
    join(&p)
}

/// Last component of a machine path.
pub fn base(abs: &str) -> &str {
    abs.rsplit('/').find(|c| !c.is_empty()).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn symlinks_resolve_inside_the_root() {
        let d = tempfile::tempdir().unwrap();
        let r = Root(d.path().to_path_buf());
        std::fs::create_dir_all(d.path().join("sys/devices/x/blk")).unwrap();
        std::fs::write(d.path().join("sys/devices/x/blk/dev"), "8:0\n").unwrap();
        std::fs::create_dir_all(d.path().join("sys/dev/block")).unwrap();
        symlink("../../devices/x/blk", d.path().join("sys/dev/block/8:0")).unwrap();
        // absolute target: must restart at the fixture root, not the host's /
        symlink("/sys/devices/x", d.path().join("sys/abs")).unwrap();
        // too many `..`: clamps at the root
        symlink("../../../../../../sys/devices", d.path().join("sys/up")).unwrap();
        symlink("loop", d.path().join("sys/loop")).unwrap();
        let s = Sys::new(&r);
        assert_eq!(
            s.real_path("/sys/dev/block/8:0").unwrap(),
            "/sys/devices/x/blk"
        );
        assert_eq!(s.read_trim("/sys/dev/block/8:0/dev").unwrap(), "8:0");
        assert_eq!(s.read_trim("/sys/abs/blk/dev").unwrap(), "8:0");
        assert_eq!(s.real_path("/sys/up/x").unwrap(), "/sys/devices/x");
        assert_eq!(s.real_path("/sys/loop"), None);
        assert_eq!(s.read("/sys/nothing/here"), None);
        assert_eq!(s.link_name("/sys/dev/block/8:0").unwrap(), "blk");
        assert_eq!(s.list("/sys/dev/block").unwrap(), vec!["8:0".to_string()]);
        assert!(s.is_dir("/sys/dev/block/8:0"));
        assert_eq!(parent("/a/b"), "/a");
        assert_eq!(base("/a/b"), "b");
    }
}
