//! Scratch files of `iomark copy` and `iomark tree`: the only code that creates,
//! renames or removes their files, plus the page-cache controls they need.
//!
//! Shape: a [`Scratch`] is a registry of paths iomark itself created. Files are always
//! created with `O_CREAT|O_EXCL` and directories with `mkdir` (which fails on an existing
//! name), so a path enters the registry only if iomark made it; [`Scratch::cleanup`]
//! (also run on drop, i.e. after an error or a SIGINT/SIGTERM that stopped the loops)
//! removes exactly the registered paths — files with `unlink`, directories with `rmdir`,
//! never recursively — so nothing of the user's can be removed, even a file the user
//! drops into a scratch directory during the run (its directory is then left behind).
//!
//! Multi-threaded tree phases cannot share `&mut Scratch`; they use the free functions
//! [`create_excl`], [`rename_noreplace`] and [`unlink`] inside a directory the registry
//! created, and the tree registers its planned names up front (see `run::tree`).

use std::collections::HashSet;
use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Errors of scratch-file handling; each names the path and the OS reason.
#[derive(Debug, thiserror::Error)]
pub enum ScratchError {
    /// Creating a file or directory failed (`EEXIST`, `EACCES`, `ENOSPC` …).
    #[error("cannot create {}: {}", .path.display(), crate::util::errno::describe(.source))]
    Create {
        /// the path
        path: PathBuf,
        /// the OS error
        source: io::Error,
    },
    /// `O_DIRECT` was refused (`EINVAL`): the filesystem does not support direct I/O.
    #[error("O_DIRECT refused by the filesystem holding {0}")]
    DirectRefused(PathBuf),
}

impl ScratchError {
    /// Whether the environment refused the name (exit 3): no permission, a read-only or
    /// full filesystem, a directory that cannot hold it (`/proc`: ENOENT; a file in the
    /// path: ENOTDIR), or the name taken already (another program's file or a planted
    /// link where iomark creates its own: `O_EXCL`/`mkdir` never follow or reuse it).
    pub fn is_environment(&self) -> bool {
        matches!(
            self.os_error(),
            Some(
                libc::EACCES
                    | libc::EPERM
                    | libc::EROFS
                    | libc::ENOSPC
                    | libc::EEXIST
                    | libc::ENOENT
                    | libc::ENOTDIR
            )
        )
    }

    /// The OS error behind it, if any.
    pub fn os_error(&self) -> Option<i32> {
        match self {
            ScratchError::Create { source, .. } => source.raw_os_error(),
            ScratchError::DirectRefused(_) => Some(libc::EINVAL),
        }
    }
}

/// Cleanups under way in this process: a second signal during one lets it finish
/// instead of exiting at once with a half-removed set (src/run/signals.rs reads it).
pub static CLEANING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// One cleanup under way, counted in [`CLEANING`] while it lives.
pub struct Cleaning(());

impl Cleaning {
    /// Count a cleanup that starts now (until the value is dropped).
    pub fn begin() -> Cleaning {
        CLEANING.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Cleaning(())
    }
}

impl Drop for Cleaning {
    fn drop(&mut self) {
        CLEANING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Registry of the files and directories iomark created; removed again by
/// [`Scratch::cleanup`] or on drop.
#[derive(Debug, Default)]
pub struct Scratch {
    files: Vec<PathBuf>,
    /// In creation order (children after parents): removed latest first.
    dirs: Vec<PathBuf>,
    /// The same directories, for lookups by name (a tree registers thousands).
    dir_set: HashSet<PathBuf>,
}

fn cpath(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

/// Open a new file `path` with `O_CREAT|O_EXCL|O_RDWR` (mode 0644), optionally with
/// `O_DIRECT`. Fails with `EEXIST` rather than touching an existing file.
pub fn create_excl(path: &Path, direct: bool) -> io::Result<File> {
    let c = cpath(path)?;
    let mut flags = libc::O_CREAT | libc::O_EXCL | libc::O_RDWR | libc::O_CLOEXEC;
    if direct {
        flags |= libc::O_DIRECT;
    }
    // SAFETY: open(2) with a valid NUL-terminated path.
    let fd = unsafe { libc::open(c.as_ptr(), flags, 0o644) };
    if fd < 0 {
        let e = io::Error::last_os_error();
        if direct && e.raw_os_error() == Some(libc::EINVAL) {
            // Some filesystems create the inode before refusing O_DIRECT: the name is ours.
            // SAFETY: unlink of the name we just created with O_EXCL.
            unsafe { libc::unlink(c.as_ptr()) };
        }
        return Err(e);
    }
    // SAFETY: fd is a fresh descriptor we own.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Open an existing file read-only, optionally with `O_DIRECT`.
pub fn open_read(path: &Path, direct: bool) -> io::Result<File> {
    let c = cpath(path)?;
    let mut flags = libc::O_RDONLY | libc::O_CLOEXEC;
    if direct {
        flags |= libc::O_DIRECT;
    }
    // SAFETY: open(2) with a valid NUL-terminated path.
    let fd = unsafe { libc::open(c.as_ptr(), flags) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh descriptor we own.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// `renameat2(from, to, RENAME_NOREPLACE)`: never replaces an existing `to`.
pub fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        from,
        rustix::fs::CWD,
        to,
        rustix::fs::RenameFlags::NOREPLACE,
    )
    .map_err(io::Error::from)
}

/// fio's `--trigger-file`: whether `path` is there; when it is, it is removed (the name
/// itself, a link not followed), as fio removes it when it fires.
pub fn take_trigger_file(path: &Path) -> bool {
    if std::fs::symlink_metadata(path).is_err() {
        return false;
    }
    if let Err(e) = std::fs::remove_file(path) {
        eprintln!("fio: failed to unlink {}: {e}", path.display());
    }
    true
}

/// `unlink(path)`.
pub fn unlink(path: &Path) -> io::Result<()> {
    std::fs::remove_file(path)
}

/// `unlink(path)` of one of iomark's own files at a cleanup: one `unlink` operation of the
/// test-only fault plan (src/util/fault.rs; a `stop` there lets a test signal during a
/// cleanup), then the removal.
pub fn remove_own(path: &Path) -> io::Result<()> {
    crate::util::fault::io_hook(crate::util::fault::Op::Unlink)?;
    std::fs::remove_file(path)
}

/// `mkdir(path)` inside a directory the registry created (fails if the name exists).
pub fn mkdir(path: &Path) -> io::Result<()> {
    std::fs::create_dir(path)
}

/// `rmdir(path)`: removes an empty directory only.
pub fn rmdir(path: &Path) -> io::Result<()> {
    std::fs::remove_dir(path)
}

impl Scratch {
    /// An empty registry.
    pub fn new() -> Scratch {
        Scratch::default()
    }

    /// Create a new file (`O_EXCL`) and register it. With `direct`, `EINVAL` becomes
    /// [`ScratchError::DirectRefused`].
    pub fn create_file(&mut self, path: &Path, direct: bool) -> Result<File, ScratchError> {
        match create_excl(path, direct) {
            Ok(f) => {
                self.files.push(path.to_path_buf());
                Ok(f)
            }
            Err(e) if direct && e.raw_os_error() == Some(libc::EINVAL) => {
                Err(ScratchError::DirectRefused(path.to_path_buf()))
            }
            Err(source) => Err(ScratchError::Create {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Create a new directory (fails if the name exists) and register it.
    pub fn create_dir(&mut self, path: &Path) -> Result<(), ScratchError> {
        std::fs::create_dir(path).map_err(|source| ScratchError::Create {
            path: path.to_path_buf(),
            source,
        })?;
        self.dirs.push(path.to_path_buf());
        self.dir_set.insert(path.to_path_buf());
        Ok(())
    }

    /// Register names that will be created inside a directory this registry created
    /// (tree plans); missing names are ignored at cleanup.
    pub fn register_files_in(&mut self, dir: &Path, names: impl IntoIterator<Item = PathBuf>) {
        if self.dir_set.contains(dir) {
            self.files
                .extend(names.into_iter().filter(|p| p.starts_with(dir)));
        }
    }

    /// Register directories that will be created inside a registered directory.
    pub fn register_dirs_in(&mut self, dir: &Path, names: impl IntoIterator<Item = PathBuf>) {
        if self.dir_set.contains(dir) {
            for p in names.into_iter().filter(|p| p.starts_with(dir)) {
                if self.dir_set.insert(p.clone()) {
                    self.dirs.push(p);
                }
            }
        }
    }

    /// Remove one registered file now (an unregistered path is left alone: `Ok(false)`).
    pub fn remove_file(&mut self, path: &Path) -> io::Result<bool> {
        let Some(i) = self.files.iter().position(|p| p == path) else {
            return Ok(false);
        };
        self.files.swap_remove(i);
        match std::fs::remove_file(path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Stop tracking everything (the user asked to keep the files): nothing will be
    /// removed by [`Scratch::cleanup`] or on drop. Returns the files that were tracked.
    pub fn release(&mut self) -> Vec<PathBuf> {
        self.dirs.clear();
        self.dir_set.clear();
        std::mem::take(&mut self.files)
    }

    /// Number of registered paths (files, directories).
    pub fn len(&self) -> (usize, usize) {
        (self.files.len(), self.dirs.len())
    }

    /// Whether nothing is registered.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.dirs.is_empty()
    }

    /// Remove every registered file, then every registered directory (latest first,
    /// `rmdir` only). Returns one message per path that could not be removed
    /// (already-missing paths are not errors).
    pub fn cleanup(&mut self) -> Vec<String> {
        // a signal meanwhile waits for the removal to end (src/run/signals.rs)
        let _cleaning = Cleaning::begin();
        let mut errs = Vec::new();
        // One look at each registered directory, not one per file under it: a tree
        // registers hundreds of thousands of names (cost linear in the names).
        let replaced = self.replaced_dirs();
        let files: Vec<PathBuf> = self.files.drain(..).collect();
        for f in files {
            if let Some(link) = ancestor_in(&replaced, &f) {
                errs.push(format!(
                    "left {}: its directory {} was replaced by a symbolic link (iomark never removes through one)",
                    f.display(),
                    link.display()
                ));
                continue;
            }
            match remove_own(&f) {
                Ok(()) => {}
                // a registered name never made, or under a name that is not a directory
                // (a file planted where iomark's directory was to be): nothing to remove
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {}
                Err(e) => errs.push(format!("cannot remove {}: {e}", f.display())),
            }
        }
        // Children were registered after their parents: remove in reverse order.
        let dirs = std::mem::take(&mut self.dirs);
        self.dir_set.clear();
        for d in dirs.iter().rev() {
            if let Some(link) = ancestor_in(&replaced, d) {
                errs.push(format!(
                    "left {}: its directory {} was replaced by a symbolic link",
                    d.display(),
                    link.display()
                ));
                continue;
            }
            match std::fs::remove_dir(d) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => errs.push(format!("cannot remove directory {}: {e}", d.display())),
            }
        }
        errs
    }

    /// The registered directories that are now symbolic links (someone replaced them).
    fn replaced_dirs(&self) -> HashSet<PathBuf> {
        self.dirs
            .iter()
            .filter(|d| {
                std::fs::symlink_metadata(d)
                    .map(|m| m.file_type().is_symlink())
                    .unwrap_or(false)
            })
            .cloned()
            .collect()
    }

    /// Check that none of the registered directories was replaced by a symbolic link
    /// (or removed); the tree phases call it before writing, renaming or deleting.
    pub fn verify_dirs(&self) -> Result<(), String> {
        for d in &self.dirs {
            match std::fs::symlink_metadata(d) {
                Ok(m) if m.file_type().is_dir() => {}
                Ok(_) => {
                    return Err(format!(
                        "{} is no longer the directory iomark created (replaced by a link or file): stopping, nothing is written or removed through it",
                        d.display()
                    ))
                }
                Err(e) => return Err(format!("{}: {e}", d.display())),
            }
        }
        Ok(())
    }
}

/// The first of `p`'s ancestors that is in `set`.
fn ancestor_in(set: &HashSet<PathBuf>, p: &Path) -> Option<PathBuf> {
    if set.is_empty() {
        return None;
    }
    p.ancestors()
        .skip(1)
        .find(|a| set.contains(*a))
        .map(Path::to_path_buf)
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for e in self.cleanup() {
            eprintln!("iomark: {e}");
        }
    }
}

/// Drop the clean page-cache pages of `f` with `posix_fadvise(POSIX_FADV_DONTNEED)`
/// (no root needed). Dirty pages are not dropped: `fsync` first.
pub fn drop_file_cache(f: &File) -> io::Result<()> {
    // SAFETY: fadvise on a descriptor we own; offset 0, len 0 = the whole file.
    let r = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if r != 0 {
        return Err(io::Error::from_raw_os_error(r));
    }
    Ok(())
}

/// Fraction (0.0–1.0) of the pages of `path` resident in the page cache, from
/// `mincore(2)` over a read-only shared mapping (mapping does not fault pages in).
/// `None` for an empty file or when the mapping fails.
pub fn resident_fraction(path: &Path) -> Option<f64> {
    let f = open_read(path, false).ok()?;
    let len = f.metadata().ok()?.len() as usize;
    if len == 0 {
        return None;
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
    // SAFETY: a fresh read-only shared mapping of a file we opened; unmapped below.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            f.as_raw_fd(),
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    let pages = len.div_ceil(page);
    let mut vec = vec![0u8; pages];
    // SAFETY: `vec` holds one byte per page of the mapping.
    let r = unsafe { libc::mincore(p, len, vec.as_mut_ptr()) };
    // SAFETY: unmapping what we mapped.
    unsafe { libc::munmap(p, len) };
    if r != 0 {
        return None;
    }
    let resident = vec.iter().filter(|b| **b & 1 == 1).count();
    Some(resident as f64 / pages as f64)
}

/// `syncfs(2)` on the filesystem holding `dir`.
pub fn syncfs(dir: &Path) -> io::Result<()> {
    let f = File::open(dir)?;
    // SAFETY: syncfs on a descriptor we own.
    if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Drop the whole page cache, dentries and inodes (`sync; echo 3 >
/// /proc/sys/vm/drop_caches`). Needs root; the error says why it failed otherwise.
pub fn drop_all_caches() -> io::Result<()> {
    // SAFETY: sync(2) has no preconditions.
    unsafe { libc::sync() };
    std::fs::write("/proc/sys/vm/drop_caches", "3\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory that cannot hold iomark's scratch (`/proc`, a file in the path) is
    /// the environment's, exit 3, as a taken name is; an I/O error is not.
    #[test]
    fn a_directory_that_cannot_hold_the_scratch_is_the_environments() {
        let d = tempfile::tempdir().unwrap();
        let mut s = Scratch::default();
        let e = s
            .create_dir(Path::new("/proc/iomark-test-scratch"))
            .unwrap_err();
        assert!(e.is_environment(), "{e:?}");
        std::fs::write(d.path().join("file"), b"x").unwrap();
        let e = s.create_dir(&d.path().join("file/sub")).unwrap_err();
        assert_eq!(e.os_error(), Some(libc::ENOTDIR));
        assert!(e.is_environment(), "{e:?}");
        let io = ScratchError::Create {
            path: d.path().join("x"),
            source: std::io::Error::from_raw_os_error(libc::EIO),
        };
        assert!(!io.is_environment());
    }

    #[test]
    fn cleanup_removes_only_registered_paths() {
        let d = tempfile::tempdir().unwrap();
        let user = d.path().join("user.txt");
        std::fs::write(&user, b"mine").unwrap();
        let mut s = Scratch::new();
        // An existing name is refused, not overwritten.
        assert!(s.create_file(&user, false).is_err());
        let sub = d.path().join("sub");
        s.create_dir(&sub).unwrap();
        s.create_file(&sub.join("a"), false).unwrap();
        // A user file inside a scratch directory survives; so does its directory.
        std::fs::write(sub.join("user2"), b"x").unwrap();
        assert_eq!(s.len(), (1, 1));
        let errs = s.cleanup();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(!sub.join("a").exists());
        assert_eq!(std::fs::read(sub.join("user2")).unwrap(), b"x");
        assert_eq!(std::fs::read(&user).unwrap(), b"mine");
    }

    #[test]
    fn cleanup_never_removes_through_a_replaced_directory() {
        let d = tempfile::tempdir().unwrap();
        let outside = d.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("f"), b"keep").unwrap();
        let mut s = Scratch::new();
        let root = d.path().join("root");
        s.create_dir(&root).unwrap();
        let sub = root.join("sub");
        s.register_dirs_in(&root, [sub.clone(), sub.clone()]);
        s.register_files_in(&root, [sub.join("f"), root.join("g")]);
        assert_eq!(s.len(), (2, 2), "a directory registered twice is kept once");
        std::fs::write(root.join("g"), b"own").unwrap();
        // Someone replaces iomark's `sub` with a link to a directory of theirs.
        std::os::unix::fs::symlink(&outside, &sub).unwrap();
        let errs = s.cleanup();
        assert_eq!(std::fs::read(outside.join("f")).unwrap(), b"keep");
        assert!(
            !root.join("g").exists(),
            "own file outside the link is removed"
        );
        assert!(
            errs.iter()
                .any(|e| e.contains("replaced by a symbolic link") && e.contains("sub/f")),
            "{errs:?}"
        );
        assert!(s.is_empty());
    }

    #[test]
    fn register_only_inside_own_dirs() {
        let d = tempfile::tempdir().unwrap();
        let mut s = Scratch::new();
        s.register_files_in(d.path(), [d.path().join("x")]);
        assert!(s.is_empty());
        let sub = d.path().join("t");
        s.create_dir(&sub).unwrap();
        s.register_files_in(&sub, [sub.join("x"), d.path().join("y")]);
        assert_eq!(s.len(), (1, 1));
        drop(s);
        assert!(!sub.exists());
    }

    #[test]
    fn rename_never_replaces() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        std::fs::write(&a, b"1").unwrap();
        std::fs::write(&b, b"2").unwrap();
        assert!(rename_noreplace(&a, &b).is_err());
        assert_eq!(std::fs::read(&b).unwrap(), b"2");
    }

    #[test]
    fn fadvise_drops_clean_pages() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, vec![7u8; 1 << 20]).unwrap();
        let f = File::open(&p).unwrap();
        f.sync_all().unwrap();
        drop_file_cache(&f).unwrap();
        let r = resident_fraction(&p).unwrap();
        // tmpfs keeps pages (they are the storage); a disk filesystem drops them.
        if crate::probe::pagecache::memory_fs(d.path()).is_none() {
            assert!(r < 0.5, "resident {r}");
        }
    }
}
