//! Files of `iomark run` (fio jobs): lay out (create and fill) missing or short files
//! before the run, and open them for the workers. This is the only code of `iomark run`
//! that creates, writes or opens targets (DESIGN.md "Safety is in target/").
//!
//! Layout follows fio's "Laying out IO file": a job that reads gets files filled with
//! data (incompressible pseudo-random bytes, so reads of holes or zero pages do not
//! flatter the result); a write-only job gets files extended to size. Block devices are
//! opened as they are, never laid out; before a job may write to one, [`guard`] runs the
//! device safety checks of [`crate::files::guard`], and [`open`] refuses write access to
//! any block device the guard has not approved. Character devices (`/dev/null`,
//! `/dev/zero`, as in fio's `steadystate.fio`) are opened as they are too: they have no
//! size (the job's `size=` gives the offsets), and are never laid out, extended,
//! truncated or preallocated.

use crate::files::guard::{self, GuardError, WritePolicy};
use crate::probe::Root;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Chunk written per call while laying out a file, bytes (1 MiB).
pub const LAYOUT_CHUNK: usize = 1 << 20;

/// Errors preparing or opening targets.
#[derive(Debug, Error)]
pub enum FilesError {
    /// a write the device guard refused (or `readonly`)
    #[error(transparent)]
    Guard(#[from] GuardError),
    /// an OS call failed
    #[error("{}: cannot {op}: {}", .path.display(), crate::util::errno::describe(.source))]
    Io {
        /// the file
        path: PathBuf,
        /// what was attempted ("create", "open", "write", "stat")
        op: &'static str,
        /// the OS error
        source: std::io::Error,
    },
    /// a job's `directory=` that is missing or no directory ([`check_directory`]): fio
    /// 3.33 refuses the job while it reads its options (the fio persona's exit 1)
    #[error("{}: cannot {NO_DIRECTORY}: {}", .path.display(), crate::util::errno::describe(.source))]
    NoDirectory {
        /// the job's directory
        path: PathBuf,
        /// why it cannot be used (ENOENT, ENOTDIR, EACCES …)
        source: std::io::Error,
    },
    /// `readonly=1` and a file still to lay out: missing (`short` false: its open would
    /// fail, ENOENT) or shorter than its size (`short`: a read past its end, EIO)
    #[error("{}: cannot {}: {}", .path.display(), if *.short { "extend (readonly=1: the file is shorter than size=)" } else { "open (readonly=1 creates no file)" }, crate::util::errno::describe(&std::io::Error::from_raw_os_error(if *.short { libc::EIO } else { libc::ENOENT })))]
    ReadOnlyLayout {
        /// the file
        path: PathBuf,
        /// it exists but is shorter than its size
        short: bool,
    },
    /// O_DIRECT refused by the filesystem (EINVAL)
    #[error("{refused} (direct=1); use direct=0 or a directory on another filesystem")]
    DirectUnsupported {
        /// the filesystem type and directory ([`crate::files::preflight::direct_refused`])
        refused: String,
    },
    /// hipri=1 on a device whose queue does not poll
    #[error("{}: hipri=1 needs a device with polled I/O queues, and {device} has none (queue/io_poll=0; NVMe gets them with the nvme module's poll_queues=N); drop hipri", .path.display())]
    NoPolling {
        /// the file
        path: PathBuf,
        /// the disk it lives on
        device: String,
    },
    /// a FIFO or socket as target: its open would block (a FIFO with no peer) and it
    /// has no offsets to read or write
    #[error("{}: is {kind}: iomark run reads and writes regular files and devices; give a file or a device", .path.display())]
    NotAFile {
        /// the file
        path: PathBuf,
        /// `a FIFO`, `a socket` (util::input::kind_name)
        kind: &'static str,
    },
    /// the size of a file is needed but it does not exist and none was given
    #[error("{}: file does not exist and no size= or filesize= was given", .0.display())]
    NoSize(PathBuf),
    /// a character device as target without `size=`/`filesize=` (it has no size)
    #[error("{}: a character device has no size: give size= (bytes) or filesize=", .0.display())]
    CharNoSize(PathBuf),
    /// laying the files out would not fit (public case C23)
    #[error("{}: not enough free space to lay out the job's files: {need} bytes needed, {free} bytes free; use a smaller size= or another directory", .dir.display())]
    NoSpace {
        /// directory holding the files
        dir: PathBuf,
        /// bytes still to write
        need: u64,
        /// bytes free for an unprivileged user (statvfs f_bavail)
        free: u64,
    },
    /// a data file iomark named is a link, not a regular file, or hard-linked
    #[error("{}: refusing to write: it {why}", .path.display())]
    Linked {
        /// the file
        path: PathBuf,
        /// what it is
        why: String,
    },
    /// an output file of the run (a log, a verify dump) that could not be checked
    /// (exit 3) or written (exit 1)
    #[error("{}: cannot write {what}: {source}", .source.path.display())]
    Output {
        /// what the file is ("log file", "verify dump")
        what: &'static str,
        /// why
        source: crate::files::output::OutputError,
    },
    /// a direct=1 block size the filesystem's alignment refuses (public case C08)
    #[error("{}: bs={bs} is not a multiple of the {align}-byte direct-I/O alignment here (statx STATX_DIOALIGN); use a multiple of {align} or direct=0", .dir.display())]
    Misaligned {
        /// directory holding the files
        dir: PathBuf,
        /// the offending block size, bytes
        bs: u64,
        /// the filesystem's O_DIRECT offset alignment, bytes
        align: u32,
    },
}

impl FilesError {
    /// Exit code for this error (DESIGN.md policy): 3 for environment problems.
    pub fn exit_code(&self) -> i32 {
        match self {
            FilesError::Guard(g) => g.exit_code(),
            FilesError::Output { source, .. } => source.exit_code(),
            FilesError::Misaligned { .. } => crate::util::error::exit::INVALID,
            _ => crate::util::error::exit::ENVIRONMENT,
        }
    }
}

/// What [`preflight`] checks of one job thread's files.
#[derive(Debug)]
pub struct Check<'a> {
    /// the thread's files
    pub files: &'a [FileSpec],
    /// `direct=1`
    pub direct: bool,
    /// the job's block sizes (checked against the direct-I/O alignment)
    pub sizes: Vec<u64>,
    /// whether the files are laid out before the run; `false` under fio's
    /// `create_on_open=1`, which lays nothing out: its writes meet a full filesystem
    /// as the job's I/O error, as fio 3.33's do, and its reads need no space
    pub laid_out: bool,
}

/// Check before any file is created (public cases C08, C19, C23): per directory, the
/// bytes still to lay out (`size` minus what exists, each path once, for the files
/// laid out before the run) fit in the free space; with `direct`, the filesystem
/// takes O_DIRECT (probed with a throw-away file) and every block size in `sizes` is a
/// multiple of its direct-I/O alignment. Block devices are skipped.
pub fn preflight(jobs: &[Check]) -> Result<(), FilesError> {
    use std::collections::BTreeMap;
    let mut need: BTreeMap<PathBuf, u64> = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut direct: BTreeMap<PathBuf, Vec<u64>> = BTreeMap::new();
    for Check {
        files,
        direct: d,
        sizes,
        laid_out,
    } in jobs
    {
        for f in files.iter() {
            // one stat: a FIFO or socket is refused, a device has nothing to lay out
            if let Ok(m) = std::fs::metadata(&f.path) {
                let t = m.file_type();
                if t.is_fifo() || t.is_socket() {
                    return Err(FilesError::NotAFile {
                        path: f.path.clone(),
                        kind: crate::util::input::kind_name(t),
                    });
                }
                if t.is_block_device() || t.is_char_device() {
                    continue;
                }
            }
            let dir = match f.path.parent() {
                Some(p) if !p.as_os_str().is_empty() => existing_dir(p),
                _ => PathBuf::from("."),
            };
            if *laid_out && seen.insert(f.path.clone()) {
                let have = existing_size(&f.path).unwrap_or(0);
                *need.entry(dir.clone()).or_insert(0) += f.size.saturating_sub(have);
            }
            if *d {
                direct.entry(dir).or_default().extend(sizes.iter().copied());
            }
        }
    }
    for (dir, n) in &need {
        if let Some(free) = crate::files::preflight::free_space(dir) {
            if *n > free {
                return Err(FilesError::NoSpace {
                    dir: dir.clone(),
                    need: *n,
                    free,
                });
            }
        }
    }
    for (dir, sizes) in &direct {
        match crate::files::preflight::probe_direct_io(dir) {
            crate::files::preflight::DirectIo::Unsupported => {
                return Err(FilesError::DirectUnsupported {
                    refused: crate::files::preflight::direct_refused(dir),
                })
            }
            crate::files::preflight::DirectIo::Supported { align } if align > 1 => {
                if let Some(&bs) = sizes.iter().find(|b| **b % u64::from(align) != 0) {
                    return Err(FilesError::Misaligned {
                        dir: dir.clone(),
                        bs,
                        align,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// What [`FilesError::NoDirectory`] says iomark could not do with the directory.
const NO_DIRECTORY: &str =
    "use it as directory= (it must exist: iomark, as fio, creates no job directory)";

/// A job's `directory=` must exist and be a directory (a symbolic link to one is
/// followed): fio 3.33 refuses the job otherwise ("DIR is not a directory"), and iomark
/// never creates it — a mistyped name would fill the filesystem it lands on.
pub fn check_directory(dir: &Path) -> Result<(), FilesError> {
    let refuse = |source| FilesError::NoDirectory {
        path: dir.to_path_buf(),
        source,
    };
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(refuse(std::io::Error::from_raw_os_error(libc::ENOTDIR))),
        Err(e) => Err(refuse(e)),
    }
}

/// Whether `path` is a block device.
pub fn is_block_device(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
}

/// Whether `path` is a character device (`/dev/null`, `/dev/zero`, …).
pub fn is_char_device(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

/// `BLKSSZGET` (linux/fs.h `_IO(0x12, 104)`): the logical block size, bytes, as a C int.
const BLKSSZGET: libc::c_ulong = 0x1268;

/// Logical block size of a block device, bytes (`None` if it cannot be opened or asked).
pub fn device_lbs(path: &Path) -> Option<u64> {
    use std::os::unix::io::AsRawFd;
    let f = std::fs::File::open(path).ok()?;
    let mut n: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one c_int through the pointer; the descriptor is open.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKSSZGET as _, &mut n) };
    (r == 0 && n > 0).then_some(n as u64)
}

/// Current size of a file or block device, bytes (`None` when it does not exist, and
/// for a character device, which has none).
pub fn existing_size(path: &Path) -> Option<u64> {
    let m = std::fs::metadata(path).ok()?;
    if m.file_type().is_char_device() {
        return None;
    }
    if m.file_type().is_block_device() {
        let mut f = File::open(path).ok()?;
        return std::io::Seek::seek(&mut f, std::io::SeekFrom::End(0)).ok();
    }
    Some(m.len())
}

/// Why a file's size could not be read ([`existing_size`] gave `None`): it does not
/// exist ([`FilesError::NoSize`]), or `stat`/`open` failed with an errno other than
/// `ENOENT` (`EACCES`, `EPERM`, `ENOTDIR` …), which is then the error, named.
pub fn why_no_size(path: &Path) -> FilesError {
    let io = |op, source| FilesError::Io {
        path: path.to_path_buf(),
        op,
        source,
    };
    match std::fs::metadata(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => io("stat", e),
        Ok(m) if m.file_type().is_block_device() => match File::open(path) {
            Err(e) => io("open", e),
            Ok(_) => FilesError::NoSize(path.to_path_buf()),
        },
        _ => FilesError::NoSize(path.to_path_buf()),
    }
}

/// The error of opening the block device `path` read-only, as fio 3.33 opens a job's
/// device to read its size before any job runs; `None` when `path` is no block device
/// or opens.
pub fn block_device_open_error(path: &Path) -> Option<std::io::Error> {
    let m = std::fs::metadata(path).ok()?;
    if !m.file_type().is_block_device() {
        return None;
    }
    File::open(path).err()
}

/// One target file of a job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSpec {
    /// where
    pub path: PathBuf,
    /// bytes the job uses (offsets lie in `[0, size)`)
    pub size: u64,
    /// named by the user (`filename=`): opened as given, as fio opens it (a link is
    /// followed, a device is the target; a link at a file still to be laid out is
    /// replaced by a new file, as fio's layout unlinks the name first). A name iomark made (`JOB.N.M`,
    /// `filename_format`) is never written through a link or into a file with another
    /// hard link.
    pub named: bool,
}

/// Why iomark may not write the file `f`, whose name it made: it is a symbolic link,
/// not a regular file, or a file another hard link shares. `None` for a file the user
/// named, a name that does not exist yet, or a regular file with one link.
pub fn unsafe_generated(f: &FileSpec) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    if f.named {
        return None;
    }
    let m = std::fs::symlink_metadata(&f.path).ok()?;
    let t = m.file_type();
    if !t.is_file() {
        return Some(format!(
            "is {}: iomark never writes through a name it made up (give filename= to use it as the target)",
            crate::util::input::kind_name(t)
        ));
    }
    (m.nlink() > 1).then(|| {
        format!(
            "has another hard link ({} names share it): iomark never writes into a file other names share (give filename= to use it as the target)",
            m.nlink()
        )
    })
}

/// Refuse, before any file is created, jobs that would write a data file iomark named
/// ([`unsafe_generated`]): jobs that write (`writes`) and jobs whose file is still to be
/// laid out (missing or shorter than its size). `files`: one job thread's.
pub fn check_generated(files: &[FileSpec], writes: bool) -> Result<(), FilesError> {
    for f in files {
        let laid_out = existing_size(&f.path).is_some_and(|s| s >= f.size);
        if writes || !laid_out {
            if let Some(why) = unsafe_generated(f) {
                return Err(FilesError::Linked {
                    path: f.path.clone(),
                    why,
                });
            }
        }
    }
    Ok(())
}

/// Check, before anything is created or opened, that a job may write to `files`
/// (`writes`: it writes, trims or verifies with writes): block devices pass the device
/// guard or the run is refused; `readonly` refuses any write. Read-only jobs pass.
pub fn guard(files: &[FileSpec], writes: bool, policy: &WritePolicy) -> Result<(), FilesError> {
    if !writes {
        return Ok(());
    }
    for f in files {
        guard::check_write(&f.path, policy)?;
    }
    Ok(())
}

/// Whether the disk holding `path` (a file: its filesystem's device; a block device:
/// itself) polls completions (`queue/io_poll` of its disk in sysfs, read through `root`;
/// a partition's parent disk). `Some((disk name, capable))`; `None` when it cannot be
/// told (a filesystem without a block device such as tmpfs).
pub fn poll_capable(root: &Root, path: &Path) -> Option<(String, bool)> {
    let disk = root.disk_dir(crate::probe::device_behind(path)?)?;
    let v = root.sys().read_trim(&format!("{disk}/queue/io_poll"))?;
    Some((crate::probe::sysroot::base(&disk).to_string(), v == "1"))
}

/// `hipri=1`: refuse (exit 3) files on a disk that is known not to poll, before the run
/// fails on its first I/O with EOPNOTSUPP.
pub fn check_polling(files: &[FileSpec]) -> Result<(), FilesError> {
    for f in files {
        if let Some((device, false)) = poll_capable(&Root::default(), &f.path) {
            return Err(FilesError::NoPolling {
                path: f.path.clone(),
                device,
            });
        }
    }
    Ok(())
}

/// Read each of `files` from start to end through the page cache (fio's `pre_read`),
/// so that the job's reads find them cached. Devices are read too; a file shorter than
/// its size is read to its end.
pub fn pre_read(files: &[FileSpec]) -> Result<(), FilesError> {
    use std::io::Read;
    let mut buf = vec![0u8; LAYOUT_CHUNK];
    for f in files {
        let io = |source| FilesError::Io {
            path: f.path.clone(),
            op: "pre_read",
            source,
        };
        let file = std::fs::File::open(&f.path).map_err(io)?;
        let mut r = file.take(f.size);
        while r.read(&mut buf).map_err(io)? > 0 {}
    }
    Ok(())
}

/// The regular files under `dir` and its subdirectories (fio's `opendir`), in fio
/// 3.33's order: the directory's entries as readdir(3) gives them, a subdirectory's
/// files where the subdirectory is met (depth first), each named `DIR/NAME` as fio joins
/// it; links are not followed.
pub fn files_under(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut walk = vec![(dir.to_path_buf(), std::fs::read_dir(dir)?)];
    while let Some((d, entries)) = walk.last_mut() {
        let Some(e) = entries.next() else {
            walk.pop();
            continue;
        };
        let e = e?;
        let mut path = d.as_os_str().to_owned();
        path.push("/");
        path.push(e.file_name());
        let path = PathBuf::from(path);
        let t = e.file_type()?;
        if t.is_dir() {
            let entries = std::fs::read_dir(&path)?;
            walk.push((path, entries));
        } else if t.is_file() {
            out.push(path);
        }
    }
    Ok(out)
}

/// Write `value` to the kernel attribute file `path` (a sysfs file such as a queue's
/// `scheduler`): opened for writing only, never created or truncated.
pub fn write_attr(path: &Path, value: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
    f.write_all(value.as_bytes())
}

/// Remove each of `files` that is a regular file (fio's `unlink`): never a device, a
/// directory or what a link points to (a link named as a job file is itself removed, as
/// unlink(2) does). A file already gone is no error. A second signal meanwhile lets the
/// removal finish (a cleanup, `files::scratch::Cleaning`).
pub fn unlink(files: &[FileSpec]) -> Result<(), FilesError> {
    let _cleaning = crate::files::scratch::Cleaning::begin();
    for f in files {
        match std::fs::symlink_metadata(&f.path) {
            Ok(m) if m.file_type().is_file() || m.file_type().is_symlink() => {}
            _ => continue,
        }
        match crate::files::scratch::remove_own(&f.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(FilesError::Io {
                    path: f.path.clone(),
                    op: "unlink",
                    source: e,
                })
            }
            _ => {}
        }
    }
    Ok(())
}

/// `unlink_each_loop=1` before a job's further loop (fio 3.33 unlinks the job's regular
/// files there): `f`, the job's file open at `fd`, is removed when iomark made its name
/// (`JOB.N.M`, `filename_format`; a file named by `filename=` is kept), and the name is
/// still a regular file (not a link, a device or a directory) and still the file open
/// at `fd` (the same device and inode). With `create` (a job that writes, which fio opens with
/// `O_CREAT`) a new empty file is made under the name (`O_EXCL`, never through a link,
/// mode 0600 as fio's) with the open flags of `fd` (`O_DIRECT`, `O_SYNC` …) and put at
/// `fd`, so the job's descriptor is the new file's. True when the name was removed.
pub fn unlink_for_loop(f: &FileSpec, fd: RawFd, create: bool) -> Result<bool, FilesError> {
    use std::os::unix::fs::MetadataExt;
    let io = |op: &'static str| {
        move |source: std::io::Error| FilesError::Io {
            path: f.path.clone(),
            op,
            source,
        }
    };
    let Ok(m) = std::fs::symlink_metadata(&f.path) else {
        return Ok(false);
    };
    if f.named {
        return Ok(false);
    }
    // SAFETY: `fd` is the job's open descriptor, borrowed for the call only.
    let open = rustix::fs::fstat(unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) });
    let same = open.is_ok_and(|st| st.st_dev == m.dev() && st.st_ino == m.ino());
    if !m.file_type().is_file() || !same {
        return Ok(false);
    }
    crate::files::scratch::remove_own(&f.path).map_err(io("unlink"))?;
    if create {
        // SAFETY: F_GETFL on the job's open descriptor reads its flags only.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        let keep = libc::O_DIRECT | libc::O_SYNC | libc::O_DSYNC | libc::O_NOATIME;
        let new = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags((flags.max(0) & keep) | libc::O_NOFOLLOW)
            .open(&f.path)
            .map_err(io("open"))?;
        // SAFETY: both descriptors are open; dup2 replaces `fd` with the new file
        // atomically, and `new` is closed when it drops.
        if unsafe { libc::dup2(new.as_raw_fd(), fd) } < 0 {
            return Err(io("open")(std::io::Error::last_os_error()));
        }
    }
    Ok(true)
}

/// `readonly=1`: nothing is created or extended. A missing file fails as its open
/// would ([`FilesError::ReadOnlyLayout`]); a regular file shorter than its `size` fails
/// as a read past its end, unless `short_ok` (the fio persona: the job reads it as it
/// is, as fio 3.33 does), when it is returned with the others left short; devices and
/// files at full size pass. fio 3.33 refuses to lay out the same files ("refusing
/// extend of file due to read-only").
pub fn check_readonly_layout(
    files: &[FileSpec],
    short_ok: bool,
) -> Result<Vec<&FileSpec>, FilesError> {
    let mut left_short = Vec::new();
    for f in files {
        if is_block_device(&f.path) || is_char_device(&f.path) {
            continue;
        }
        let short = match existing_size(&f.path) {
            None if !f.path.exists() => false,
            Some(have) if have < f.size && short_ok => {
                left_short.push(f);
                continue;
            }
            Some(have) if have < f.size => true,
            _ => continue,
        };
        return Err(FilesError::ReadOnlyLayout {
            path: f.path.clone(),
            short,
        });
    }
    Ok(left_short)
}

/// How a file is preallocated when it is laid out (fio's `fallocate=`; filesetup.c
/// `fallocate_file`): before its data is written (a job that reads) or as all the
/// layout does (a job that only writes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prealloc {
    /// nothing: a write-only job's file keeps the size it has (a new file is empty)
    None,
    /// `fallocate(fd, 0, 0, size)`; where the filesystem refuses it, nothing, silently
    Native,
    /// `posix_fallocate(fd, 0, size)` (the C library writes a byte per block where the
    /// filesystem has no fallocate); a failure is reported and the layout goes on
    Posix,
    /// `fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, size)`: blocks allocated, the size kept
    Keep,
    /// `ftruncate(fd, size)`: the size set, no block allocated
    Truncate,
}

impl Prealloc {
    /// The mode `fallocate=` names (`0` is `none`, `1` is `posix`, as fio's aliases);
    /// `None` for a word fio does not accept.
    pub fn parse(v: &str) -> Option<Prealloc> {
        Some(match v {
            "none" | "0" => Prealloc::None,
            "native" => Prealloc::Native,
            "posix" | "1" => Prealloc::Posix,
            "keep" => Prealloc::Keep,
            "truncate" => Prealloc::Truncate,
            _ => return None,
        })
    }

    /// Preallocate `file` over `[0, size)`. `Ok(Some(e))`: `posix` failed and the layout
    /// goes on (the front end says so, fio's `posix_fallocate fails`); `native` falls
    /// back to nothing silently, as fio's. Errors: the step that failed (`fallocate`
    /// under `keep`, `ftruncate` under `truncate`, as fio's job errors name them).
    fn apply(
        self,
        file: &File,
        size: u64,
    ) -> Result<Option<std::io::Error>, (&'static str, std::io::Error)> {
        let fd = file.as_raw_fd();
        let len = size as libc::off_t;
        let fallocate = |mode| {
            // SAFETY: fallocate on the descriptor the layout holds open.
            if unsafe { libc::fallocate(fd, mode, 0, len) } == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        };
        match self {
            Prealloc::None => Ok(None),
            Prealloc::Native => {
                let _unsupported_is_no_preallocation = fallocate(0);
                Ok(None)
            }
            Prealloc::Posix => {
                // SAFETY: posix_fallocate on the descriptor the layout holds open.
                let r = unsafe { libc::posix_fallocate(fd, 0, len) };
                Ok((r > 0).then(|| std::io::Error::from_raw_os_error(r)))
            }
            Prealloc::Keep => fallocate(libc::FALLOC_FL_KEEP_SIZE)
                .map(|()| None)
                .map_err(|e| ("fallocate", e)),
            Prealloc::Truncate => file
                .set_len(size)
                .map(|()| None)
                .map_err(|e| ("ftruncate", e)),
        }
    }
}

/// Make every file exist for its job: each file shorter than `size` is preallocated
/// by `prealloc` (none for `fill_device`, as fio), then, when `fill`, written with data
/// up to `size` (jobs that read, or write through a mapping); a write-only job's file
/// is what the preallocation made it (fio's layout). `fsync` (fio's `create_fsync`, default 1):
/// each file laid out is fsynced, so its new pages are clean and a later
/// `POSIX_FADV_DONTNEED` (`invalidate`) really drops them — without it a job reading a
/// file it just created reads the page cache (dirty pages stay cached). Block and
/// character devices are never laid out (the guard decides about device writes).
///
/// `stopped` is asked before each file and between the writes of one (a stop signal,
/// fio's `td->terminate`): once it says yes the layout ends at once
/// ([`LaidOut::interrupted`]), the files after are not touched, and the file under way is
/// undone ([`undo_layout`]): removed when this layout created it, cut back to the size
/// it had when it existed before (its own bytes kept). Files laid out before stay.
/// Returns what was laid out — the files to lay out counted up front, as fio's line says
/// them before it writes. Errors: [`FilesError::Io`] naming the file and the step
/// (create, seek, write, extend, fsync).
pub fn layout(
    files: &[FileSpec],
    fill: bool,
    prealloc: Option<Prealloc>,
    fsync: bool,
    stopped: &dyn Fn() -> bool,
) -> Result<LaidOut, FilesError> {
    let todo: Vec<&FileSpec> = files.iter().filter(|f| needs_layout(f)).collect();
    let mut out = LaidOut::default();
    for f in todo.iter().filter(|f| f.size > 0) {
        // (an empty file created for fill_device is not "laid out": fio says nothing)
        out.files += 1;
        out.bytes += f.size;
    }
    for f in todo {
        if stopped() {
            out.interrupted = true;
            break;
        }
        let io = |op, source| FilesError::Io {
            path: f.path.clone(),
            op,
            source,
        };
        if f.named && is_link(&f.path) {
            // fio 3.33 unlinks a file before it lays it out: a symbolic or hard link at
            // a short `filename=` is replaced by a new file, its target left as it was
            std::fs::remove_file(&f.path).map_err(|e| io("unlink", e))?;
        }
        let (mut file, had) = open_for_layout(f).map_err(|e| io("create", e))?;
        let have = had.unwrap_or(0);
        if let Some(p) = prealloc.filter(|_| f.size > have) {
            let failed = p.apply(&file, f.size).map_err(|(op, e)| io(op, e))?;
            out.prealloc_failed.extend(failed);
        }
        if fill && !fill_file(&mut file, f, have, stopped).map_err(|(op, e)| io(op, e))? {
            out.interrupted = true;
            undo_layout(f, &file, had).map_err(|e| io("undo", e))?;
            break;
        }
        if fsync {
            file.sync_all().map_err(|e| io("fsync", e))?;
        }
    }
    Ok(out)
}

/// Whether `f` is to be laid out: a regular file (or none yet) shorter than its size.
fn needs_layout(f: &FileSpec) -> bool {
    if is_block_device(&f.path) || is_char_device(&f.path) {
        return false;
    }
    let have = existing_size(&f.path).unwrap_or(0);
    !(have >= f.size && f.path.exists())
}

/// Write `f`'s data from `have` to its size (1 MiB a call) into `file`; `false` when
/// `stopped` said yes between two writes. Errors: the step that failed (seek, write).
fn fill_file(
    file: &mut File,
    f: &FileSpec,
    have: u64,
    stopped: &dyn Fn() -> bool,
) -> Result<bool, (&'static str, std::io::Error)> {
    let mut buf = vec![0u8; LAYOUT_CHUNK];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ f.size;
    for c in buf.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let b = x.to_le_bytes();
        c.copy_from_slice(&b[..c.len()]);
    }
    std::io::Seek::seek(file, std::io::SeekFrom::Start(have)).map_err(|e| ("seek", e))?;
    let mut left = f.size - have;
    while left > 0 {
        if stopped() {
            return Ok(false);
        }
        let n = left.min(LAYOUT_CHUNK as u64) as usize;
        // test-only fault injection (IOMARK_FAULT); a no-op otherwise
        crate::util::fault::io_hook(crate::util::fault::Op::Write).map_err(|e| ("write", e))?;
        file.write_all(&buf[..n]).map_err(|e| ("write", e))?;
        left -= n as u64;
    }
    Ok(true)
}

/// Undo the interrupted layout of `f` (open as `file`): `had` is the size the file had
/// when the layout opened it, `None` when the layout created it. A file it created is
/// removed (fio 3.33 unlinks the file it was laying out when it is told to stop), if
/// the name is still that file; a file that existed is cut back to the size it had, so
/// its own bytes stay and only what the layout appended goes (fio would have removed
/// it, having unlinked it before its layout: iomark never removes a file it did not
/// create). A second signal meanwhile lets the removal finish.
fn undo_layout(f: &FileSpec, file: &File, had: Option<u64>) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let _cleaning = crate::files::scratch::Cleaning::begin();
    let Some(had) = had else {
        let open = file.metadata()?;
        return match std::fs::symlink_metadata(&f.path) {
            Ok(m) if m.dev() == open.dev() && m.ino() == open.ino() => {
                crate::files::scratch::remove_own(&f.path)
            }
            _ => Ok(()),
        };
    };
    file.set_len(had)
}

/// Whether `path` is a symbolic link (dangling or not) or a regular file other hard
/// links share.
fn is_link(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .is_ok_and(|m| m.file_type().is_symlink() || (m.is_file() && m.nlink() > 1))
}

/// The files one call of [`layout`] created or extended.
#[derive(Debug, Default)]
pub struct LaidOut {
    /// how many files
    pub files: u32,
    /// their sizes added up, bytes
    pub bytes: u64,
    /// `fallocate=posix` failures the layout went on after, one per file
    pub prealloc_failed: Vec<std::io::Error>,
    /// a stop ended the layout before its end (the file under way undone, the files
    /// after it not touched)
    pub interrupted: bool,
}

impl LaidOut {
    /// fio's line for job `name` (filesetup.c's wording: `a: Laying out IO file (1 file
    /// / 8MiB)`, `a: Laying out IO files (2 files / total 8MiB)`; MiB rounded down);
    /// none when nothing was laid out.
    pub fn fio_line(&self, name: &str) -> Option<String> {
        let (s, total) = match self.files {
            0 => return None,
            1 => ("", ""),
            _ => ("s", "total "),
        };
        Some(format!(
            "{name}: Laying out IO file{s} ({} file{s} / {total}{}MiB)",
            self.files,
            self.bytes >> 20
        ))
    }
}

/// Create the missing files of `files` empty when the job opens them, as fio 3.33's
/// open does under `create_on_open=1` (`O_CREAT`, mode 0600 less the umask), instead of
/// laying them out before the run: a name iomark made is never created through a link
/// (`O_NOFOLLOW`); a file that exists is left as it is (a reading job then reads up to
/// its end, as fio's). Errors: [`FilesError::Io`] naming the file, `create`.
pub fn create_on_open(files: &[FileSpec]) -> Result<(), FilesError> {
    for f in files {
        let mut o = OpenOptions::new();
        let nofollow = if f.named { 0 } else { libc::O_NOFOLLOW };
        o.read(true)
            .mode(0o600)
            .custom_flags(libc::O_CREAT | libc::O_NONBLOCK | libc::O_CLOEXEC | nofollow);
        make_parents(&f.path)
            .and_then(|()| o.open(&f.path))
            .map_err(|source| FilesError::Io {
                path: f.path.clone(),
                op: "create",
                source,
            })?;
    }
    Ok(())
}

/// Create or open `f` for layout, with the size it had (`None`: this call created it,
/// `O_EXCL`, so a file that appears meanwhile is never taken for the layout's own): a
/// name iomark made is opened with `O_NOFOLLOW` and must be a regular file with one
/// link (checked on the open descriptor, so a link planted after [`check_generated`]
/// is refused too).
fn open_for_layout(f: &FileSpec) -> std::io::Result<(File, Option<u64>)> {
    make_parents(&f.path)?;
    let open = |new: bool| {
        let mut o = OpenOptions::new();
        o.write(true).truncate(false);
        match new {
            true => o.create_new(true),
            false => o.create(false),
        };
        if !f.named {
            o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
        }
        o.open(&f.path)
    };
    let (file, had) = match open(true) {
        Ok(file) => (file, None),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let file = open(false)?;
            let len = file.metadata()?.len();
            (file, Some(len))
        }
        Err(e) => return Err(e),
    };
    refuse_shared(f, &file)?;
    Ok((file, had))
}

/// Create the missing directories of `path` (`filename_format=d$jobnum/f$filenum`,
/// `filename=a/b/c`), mode 0700 less the umask, as fio 3.33 creates a file's
/// directories before it lays the file out. A directory that exists is left as it is.
fn make_parents(path: &Path) -> std::io::Result<()> {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() && !d.is_dir() => std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(d),
        _ => Ok(()),
    }
}

/// The directory where `dir`'s files will be: `dir` itself, or, when it does not
/// exist yet (layout creates it, [`make_parents`]), its nearest existing ancestor, on
/// whose filesystem it will be made.
fn existing_dir(dir: &Path) -> PathBuf {
    dir.ancestors()
        .find(|a| !a.as_os_str().is_empty() && a.is_dir())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// For a name iomark made: the open file must be a regular file with one link.
fn refuse_shared(f: &FileSpec, file: &File) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    if f.named {
        return Ok(());
    }
    let m = file.metadata()?;
    if !m.file_type().is_file() || m.nlink() > 1 {
        return Err(std::io::Error::other(format!(
            "it is {} with {} link(s): iomark writes only a regular file with one link under a name it made (give filename= to use it as the target)",
            crate::util::input::kind_name(m.file_type()),
            m.nlink()
        )));
    }
    Ok(())
}

/// Files opened for one worker; descriptors stay valid while this lives.
pub struct OpenFiles {
    files: Vec<File>,
}

impl OpenFiles {
    /// Raw descriptors, in file order.
    pub fn fds(&self) -> Vec<RawFd> {
        self.files.iter().map(AsRawFd::as_raw_fd).collect()
    }
}

/// Open `files` for a worker: read-only unless `writes`; O_DIRECT when `direct`.
pub fn open(files: &[FileSpec], writes: bool, direct: bool) -> Result<OpenFiles, FilesError> {
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        if writes {
            if let Some(rdev) = guard::block_rdev(&f.path) {
                if !guard::is_approved(rdev) {
                    return Err(GuardError::Unchecked(f.path.clone()).into());
                }
            }
        }
        let mut o = OpenOptions::new();
        o.read(true).write(writes);
        let mut flags = if direct { libc::O_DIRECT } else { 0 };
        if writes && !f.named {
            // a name iomark made: never written through a link (ELOOP)
            flags |= libc::O_NOFOLLOW;
        }
        // O_NOATIME: a benchmark's reads leave the files' access times alone (and skip
        // the atime check on every read); only the owner or CAP_FOWNER may ask for it,
        // so without that right the file is opened as usual
        o.custom_flags(flags | libc::O_NOATIME);
        let first = o.open(&f.path);
        let r = match first {
            Err(e) if e.raw_os_error() == Some(libc::EPERM) => {
                o.custom_flags(flags);
                o.open(&f.path)
            }
            r => r,
        };
        match r {
            Ok(file) => {
                if writes {
                    refuse_shared(f, &file).map_err(|source| FilesError::Io {
                        path: f.path.clone(),
                        op: "open",
                        source,
                    })?;
                }
                out.push(file)
            }
            Err(e) if direct && e.raw_os_error() == Some(libc::EINVAL) => {
                return Err(FilesError::DirectUnsupported {
                    refused: crate::files::preflight::direct_refused(&f.path),
                })
            }
            Err(e) => {
                return Err(FilesError::Io {
                    path: f.path.clone(),
                    op: "open",
                    source: e,
                })
            }
        }
    }
    Ok(OpenFiles { files: out })
}

/// [`open`] with `flag` added (O_SYNC: fio's `sync=1`; O_DSYNC: `sync=dsync`): the
/// files are first opened and checked by [`open`], then reopened with the extra flag.
pub fn open_osync(
    files: &[FileSpec],
    writes: bool,
    direct: bool,
    flag: i32,
) -> Result<OpenFiles, FilesError> {
    let checked = open(files, writes, direct)?;
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        let mut o = OpenOptions::new();
        let nofollow = if writes && !f.named {
            libc::O_NOFOLLOW
        } else {
            0
        };
        o.read(true)
            .write(writes)
            .custom_flags(flag | nofollow | if direct { libc::O_DIRECT } else { 0 });
        out.push(o.open(&f.path).map_err(|e| FilesError::Io {
            path: f.path.clone(),
            op: "open",
            source: e,
        })?);
    }
    drop(checked);
    Ok(OpenFiles { files: out })
}

/// fsync every file (fio's `end_fsync`).
pub fn fsync_all(open: &OpenFiles) -> std::io::Result<()> {
    for f in &open.files {
        f.sync_all()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_layout_line_has_fio_s_wording() {
        let l = |files, bytes| {
            LaidOut {
                files,
                bytes,
                ..LaidOut::default()
            }
            .fio_line("a")
        };
        assert_eq!(l(0, 0), None);
        assert_eq!(
            l(1, 8 << 20).unwrap(),
            "a: Laying out IO file (1 file / 8MiB)"
        );
        assert_eq!(
            l(2, (8 << 20) + 4095).unwrap(),
            "a: Laying out IO files (2 files / total 8MiB)"
        );
        assert_eq!(l(1, 4096).unwrap(), "a: Laying out IO file (1 file / 0MiB)");
    }

    #[test]
    fn layout_fills_and_extends_to_exact_size() {
        let d = std::env::temp_dir().join(format!("iomark-fio-files-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let a = FileSpec {
            path: d.join("a"),
            size: 3 * LAYOUT_CHUNK as u64 + 5,
            named: false,
        };
        let b = FileSpec {
            path: d.join("b"),
            size: 8192,
            named: false,
        };
        let n = layout(std::slice::from_ref(&a), true, None, false, &|| false).unwrap();
        assert_eq!((n.files, n.bytes), (1, a.size));
        assert_eq!(existing_size(&a.path), Some(3 * LAYOUT_CHUNK as u64 + 5));
        assert!(std::fs::read(&a.path).unwrap().iter().any(|&x| x != 0));
        assert_eq!(
            layout(std::slice::from_ref(&a), true, None, false, &|| false)
                .unwrap()
                .files,
            0
        );
        layout(
            std::slice::from_ref(&b),
            false,
            Some(Prealloc::Truncate),
            true,
            &|| false,
        )
        .unwrap();
        assert_eq!(existing_size(&b.path), Some(8192));
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// A stop asked for after `n` questions (the layout asks before each file and
    /// before each 1 MiB write): how many were asked is counted too.
    fn stop_after(n: u32) -> (std::cell::Cell<u32>, impl Fn(&std::cell::Cell<u32>) -> bool) {
        (std::cell::Cell::new(0), move |c: &std::cell::Cell<u32>| {
            c.set(c.get() + 1);
            c.get() > n
        })
    }

    #[test]
    fn an_interrupted_layout_removes_the_file_it_created_and_touches_no_other() {
        let d = std::env::temp_dir().join(format!("iomark-layout-stop-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let spec = |name: &str| FileSpec {
            path: d.join(name),
            size: 8 * LAYOUT_CHUNK as u64,
            named: false,
        };
        let (a, b) = (spec("a"), spec("b"));
        // asked before `a`, then before each of its writes: stopped before its 4th write
        let (asked, stop) = stop_after(4);
        let n = layout(
            &[a.clone(), b.clone()],
            true,
            Some(Prealloc::Native),
            true,
            &|| stop(&asked),
        )
        .unwrap();
        assert!(n.interrupted);
        // fio's line names the files it was to lay out, said before it wrote
        assert_eq!((n.files, n.bytes), (2, 2 * a.size));
        assert_eq!(asked.get(), 5, "the layout went on after the stop");
        assert!(!a.path.exists(), "the half-laid-out file is left");
        assert!(!b.path.exists(), "a file after the stop was created");
        // a stop before the first file: nothing is created
        let n = layout(std::slice::from_ref(&a), true, None, false, &|| true).unwrap();
        assert!(n.interrupted && !a.path.exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_interrupted_layout_of_a_short_file_keeps_its_bytes_and_size() {
        let d = std::env::temp_dir().join(format!("iomark-layout-keep-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let f = FileSpec {
            path: d.join("user"),
            size: 8 * LAYOUT_CHUNK as u64,
            named: true,
        };
        let own: Vec<u8> = (0..LAYOUT_CHUNK + 777).map(|i| (i % 251) as u8).collect();
        std::fs::write(&f.path, &own).unwrap();
        let (asked, stop) = stop_after(3);
        let n = layout(
            std::slice::from_ref(&f),
            true,
            Some(Prealloc::Posix),
            true,
            &|| stop(&asked),
        )
        .unwrap();
        assert!(n.interrupted);
        assert_eq!(asked.get(), 4, "the layout went on after the stop");
        assert_eq!(std::fs::read(&f.path).unwrap(), own);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn character_devices_have_no_size_and_are_never_laid_out() {
        let null = Path::new("/dev/null");
        assert!(is_char_device(null));
        assert!(!is_block_device(null));
        assert_eq!(existing_size(null), None);
        let f = FileSpec {
            path: null.to_path_buf(),
            size: 1 << 20,
            named: true,
        };
        // neither extended nor written (set_len on /dev/null fails with EINVAL)
        for p in [Prealloc::Native, Prealloc::Truncate, Prealloc::Keep] {
            assert_eq!(
                layout(std::slice::from_ref(&f), false, Some(p), true, &|| false)
                    .unwrap()
                    .files,
                0
            );
        }
        assert_eq!(
            layout(std::slice::from_ref(&f), true, None, false, &|| false)
                .unwrap()
                .files,
            0
        );
        let check = Check {
            files: std::slice::from_ref(&f),
            direct: false,
            sizes: vec![4096],
            laid_out: true,
        };
        assert!(preflight(&[check]).is_ok());
        assert!(is_char_device(null));
    }

    /// (size, allocated 512-byte blocks) of `path`, as `stat -c '%s %b'`
    fn size_blocks(path: &Path) -> (u64, u64) {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).unwrap();
        (m.len(), m.blocks())
    }

    #[test]
    fn each_fallocate_mode_sets_size_and_blocks_as_fio_s() {
        assert_eq!(Prealloc::parse("0"), Some(Prealloc::None));
        assert_eq!(Prealloc::parse("1"), Some(Prealloc::Posix));
        assert_eq!(Prealloc::parse("native"), Some(Prealloc::Native));
        assert_eq!(Prealloc::parse("keep"), Some(Prealloc::Keep));
        assert_eq!(Prealloc::parse("truncate"), Some(Prealloc::Truncate));
        assert_eq!(Prealloc::parse("none"), Some(Prealloc::None));
        assert_eq!(Prealloc::parse("yes"), None);
        let d = std::env::temp_dir().join(format!("iomark-prealloc-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let size = 1u64 << 20;
        let blocks = size / 512;
        // write-only layout (fio's measurements on ext4 and tmpfs: size, st_blocks)
        for (p, want) in [
            (Prealloc::None, (0, 0)),
            (Prealloc::Native, (size, blocks)),
            (Prealloc::Posix, (size, blocks)),
            (Prealloc::Keep, (0, blocks)),
            (Prealloc::Truncate, (size, 0)),
        ] {
            let f = FileSpec {
                path: d.join(format!("{p:?}")),
                size,
                named: false,
            };
            let n = layout(std::slice::from_ref(&f), false, Some(p), false, &|| false).unwrap();
            assert_eq!(n.files, 1, "{p:?}");
            let (have, blk) = size_blocks(&f.path);
            assert_eq!(have, want.0, "{p:?}: size");
            // a filesystem may allocate a little more (metadata blocks) or, where it
            // has no fallocate, nothing: the tests run where fallocate works
            assert!(blk >= want.1 && blk <= want.1 + 64, "{p:?}: {blk} blocks");
            // a job that reads gets the data whatever the mode
            let r = FileSpec {
                path: d.join(format!("{p:?}.r")),
                size,
                named: false,
            };
            layout(std::slice::from_ref(&r), true, Some(p), false, &|| false).unwrap();
            let (have, blk) = size_blocks(&r.path);
            assert!(have == size && blk >= blocks, "{p:?} read: {have} {blk}");
        }
        // no preallocation at all (fill_device): the file is created as it is
        let f = FileSpec {
            path: d.join("fill"),
            size,
            named: false,
        };
        layout(std::slice::from_ref(&f), false, None, false, &|| false).unwrap();
        assert_eq!(size_blocks(&f.path), (0, 0));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
