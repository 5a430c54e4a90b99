//! sysbench's file set: `test_file.0 … test_file.N−1` in one directory.
//!
//! `prepare` creates or extends each file to the per-file size with iomark's
//! fixes: free space is checked before anything is written, and extension starts at the
//! last whole block so files end exactly at FS (bug B11) — the existing bytes of that
//! block are read back and written unchanged, so a file's existing content is kept as
//! sysbench keeps it (sysbench appends whole blocks after it). Writes are whole blocks
//! of a cache-sized buffer (the content is what sysbench's would be). `open_for_run`
//! performs the run's checks and `cleanup` removes only those names.
//!
//! Safety (docs/safety.md): a `test_file.N` that is a symbolic link is never followed
//! (`O_NOFOLLOW`); one that is not a regular file (a FIFO would block the open, a device
//! would be written) or that has another hard link (writing it would change the other
//! name's file) is refused before anything is written — by `prepare`, and by `run` in
//! the modes that write into the files.
//!
//! Ownership: each `test_file.N` iomark creates carries the extended attribute
//! [`MARK`]; an existing `test_file.N` without it (a user's file, or one sysbench made)
//! is never written, replaced or removed — only read by a reading run. On a filesystem
//! without user extended attributes the mark cannot be set or read, and iomark cannot
//! tell its files from others' (docs/safety.md says so).

use crate::files::preflight;
use crate::files::strerror;
use crate::job::model::Job;
use crate::job::sysbench::Geometry;
use crate::job::units::sysbench_human_size;
use crate::util::buffers::AlignedBuf;
use crate::util::error::Error;
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Target size of one prepare write, bytes (at least one block). Measured here:
/// 16 KiB writes of a cache-hot buffer beat 64 KiB–1 MiB ones by 20–30 % on ext4.
const PREPARE_CHUNK: u64 = 16 << 10;

/// Path of file `i` in `dir`.
pub fn path(dir: &Path, i: u32) -> PathBuf {
    dir.join(format!("test_file.{i}"))
}

/// The extended attribute on every `test_file.N` iomark created (value `1`).
pub const MARK: &std::ffi::CStr = c"user.iomark.fileset";

/// Whose a `test_file.N` is, as its [`MARK`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// iomark created it (the mark is there)
    Iomark,
    /// the filesystem keeps user attributes and the file has no mark
    Other,
    /// the filesystem keeps no user attributes (or the name is gone): cannot be told
    Unknown,
}

/// The owner of the file at `p` (not following a symbolic link).
pub fn owner(p: &Path) -> Owner {
    let Ok(c) = std::ffi::CString::new(p.as_os_str().as_bytes()) else {
        return Owner::Unknown;
    };
    // SAFETY: lgetxattr with valid C strings and a null buffer of size 0 (size query).
    let n = unsafe { libc::lgetxattr(c.as_ptr(), MARK.as_ptr(), std::ptr::null_mut(), 0) };
    if n >= 0 {
        return Owner::Iomark;
    }
    match crate::util::errno::last_errno() {
        libc::ENODATA => Owner::Other,
        _ => Owner::Unknown,
    }
}

/// Put [`MARK`] on a file iomark has just created (a filesystem without user
/// attributes refuses it: the file is then one iomark cannot tell from others').
fn set_mark(f: &File) {
    // SAFETY: fsetxattr on our own descriptor with a valid name and a 1-byte value.
    unsafe { libc::fsetxattr(f.as_raw_fd(), MARK.as_ptr(), b"1".as_ptr().cast(), 1, 0) };
}

/// Create a new test file at `p` for a set in a directory iomark made (mark's): `O_EXCL`
/// (an existing name, or a link planted there, is an error), with [`MARK`].
pub fn create_own(p: &Path) -> std::io::Result<()> {
    let f = crate::files::scratch::create_excl(p, false)?;
    set_mark(&f);
    Ok(())
}

/// Name of file `i` as printed in messages: bare in the current directory (as sysbench
/// prints it), otherwise with the directory.
pub fn display(dir: &Path, i: u32) -> String {
    if dir == Path::new(".") {
        format!("test_file.{i}")
    } else {
        path(dir, i).display().to_string()
    }
}

/// What prepare did.
#[derive(Debug, Clone, Copy)]
pub struct Prepared {
    /// bytes written
    pub bytes: u64,
    /// wall-clock seconds from the first open to the last close
    pub seconds: f64,
}

fn open_raw(p: &Path, flags: i32, mode: u32) -> Result<File, i32> {
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(|_| libc::EINVAL)?;
    // SAFETY: open(2) with a valid C string; the descriptor is owned by the File.
    // O_NOFOLLOW: a test_file.N that is a symbolic link (planted, or left by a user) is
    // never written through, so no file outside the set can be overwritten.
    let fd = unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC | libc::O_NOFOLLOW, mode) };
    if fd < 0 {
        Err(crate::util::errno::last_errno())
    } else {
        // SAFETY: fd is a fresh descriptor we own.
        Ok(unsafe { File::from_raw_fd(fd) })
    }
}

/// The message for a `test_file.N` that is a symbolic link (open fails with ELOOP).
fn symlink_note(dir: &Path, i: u32) -> String {
    format!(
        "FATAL: {} is a symbolic link: iomark never reads or writes through one (remove it; 'cleanup' removes the link, not its target)",
        display(dir, i)
    )
}

/// The one line for an open of `test_file.N` that failed with `e`: [`symlink_note`]
/// when it is ELOOP and the name is a symbolic link (the `O_NOFOLLOW` refusal, said
/// alone: the errno line would only repeat it less clearly); `None` otherwise.
fn planted_link(dir: &Path, i: u32, e: i32) -> Option<String> {
    let link = std::fs::symlink_metadata(path(dir, i)).is_ok_and(|m| m.file_type().is_symlink());
    (e == libc::ELOOP && link).then(|| symlink_note(dir, i))
}

/// A `test_file.N` refused as an unsafe path (a symbolic link, a hard-linked file, not a
/// regular file): exit 3, the code of every command's planted link (an output, fio's
/// data file, a scratch name; docs/safety.md "Exit codes"), said before any I/O.
fn unsafe_path(why: String) -> Error {
    Error::lines(crate::util::error::exit::ENVIRONMENT, vec![why])
}

/// Why an existing `test_file.N` may not be used, and for what.
struct Refusal {
    /// the one line said
    why: String,
    /// refused for a reading run too (a FIFO would block even a read's open)
    reading: bool,
    /// refused where the name is replaced by a new file (seqwr's recreate): a file
    /// iomark did not create is never removed
    replacing: bool,
}

/// Why an existing `test_file.N` may not be used: not a regular file, a file another
/// hard link shares (refused where iomark writes), or a file iomark did not create
/// ([`owner`]: refused where iomark writes or replaces it). Symbolic links are left to
/// the `O_NOFOLLOW` open, which names them.
fn unsafe_target(dir: &Path, i: u32) -> Option<Refusal> {
    let m = std::fs::symlink_metadata(path(dir, i)).ok()?;
    let t = m.file_type();
    if t.is_symlink() {
        return None;
    }
    if !t.is_file() {
        let why = format!(
            "FATAL: {} is not a regular file ({}): iomark writes only regular files it can own (remove it)",
            display(dir, i),
            crate::util::input::kind_name(t)
        );
        return Some(Refusal {
            why,
            reading: true,
            replacing: false,
        });
    }
    if m.nlink() > 1 {
        let why = format!(
            "FATAL: {} has another hard link ({} names share it): iomark never writes into a file other names share (remove it; 'cleanup' removes this name only)",
            display(dir, i),
            m.nlink()
        );
        return Some(Refusal {
            why,
            reading: false,
            replacing: false,
        });
    }
    (owner(&path(dir, i)) == Owner::Other).then(|| Refusal {
        why: foreign_note(dir, i),
        reading: false,
        replacing: true,
    })
}

/// The line for a `test_file.N` iomark did not create.
fn foreign_note(dir: &Path, i: u32) -> String {
    format!(
        "FATAL: {} was not created by iomark (it lacks the {} mark iomark puts on its test files): iomark never writes, replaces or removes a file it did not create (move it away, or use another --file-dir)",
        display(dir, i),
        MARK.to_string_lossy()
    )
}

/// Read up to `buf.len()` bytes at `off` (fewer at the end of the file).
fn pread_full(f: &File, buf: &mut [u8], off: u64) -> Result<usize, i32> {
    let mut done = 0;
    while done < buf.len() {
        // SAFETY: reading into a valid slice.
        let n = unsafe {
            libc::pread(
                f.as_raw_fd(),
                buf[done..].as_mut_ptr().cast(),
                buf.len() - done,
                (off + done as u64) as libc::off_t,
            )
        };
        if n < 0 {
            let e = crate::util::errno::last_errno();
            if e == libc::EINTR {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            break;
        }
        done += n as usize;
    }
    Ok(done)
}

fn pwrite_all(f: &File, buf: &[u8], off: u64) -> Result<(), i32> {
    let mut done = 0;
    while done < buf.len() {
        // SAFETY: writing from a valid slice.
        let n = unsafe {
            libc::pwrite(
                f.as_raw_fd(),
                buf[done..].as_ptr().cast(),
                buf.len() - done,
                (off + done as u64) as libc::off_t,
            )
        };
        if n < 0 {
            let e = crate::util::errno::last_errno();
            if e == libc::EINTR {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(libc::EIO);
        }
        done += n as usize;
    }
    Ok(())
}

/// Checks made before prepare writes anything: O_DIRECT support and alignment, and
/// free space for the bytes still missing. Exit codes 2/3 as DESIGN.md. `model`: the
/// job in the one job model (its directory and open flags).
pub fn prepare_preflight(model: &Job, g: &Geometry) -> Result<(), Error> {
    let dir = &model.thread.dir;
    if !dir.is_dir() {
        return Err(Error::lines(
            crate::util::error::exit::ENVIRONMENT,
            vec![format!(
                "FATAL: --file-dir={} is not an existing directory",
                dir.display()
            )],
        ));
    }
    if model.thread.direct {
        direct_preflight(model, g)?;
    }
    // every file's name before the first byte is written: a link at test_file.3 is
    // refused before test_file.0 is touched
    let linked = |i| {
        let m = std::fs::symlink_metadata(path(dir, i)).ok()?;
        m.file_type().is_symlink().then(|| symlink_note(dir, i))
    };
    if let Some(why) =
        (0..g.files).find_map(|i| unsafe_target(dir, i).map(|w| w.why).or_else(|| linked(i)))
    {
        return Err(unsafe_path(why));
    }
    let mut need = 0u64;
    for i in 0..g.files {
        let cur = std::fs::metadata(path(dir, i))
            .map(|m| m.len())
            .unwrap_or(0);
        if cur < g.file_size {
            need += g.file_size - (cur - cur % g.block);
        }
    }
    if let Some(avail) = preflight::free_space(dir) {
        if need > avail {
            return Err(Error::lines(
                crate::util::error::exit::ENVIRONMENT,
                vec![format!(
                    "FATAL: not enough free space in {}: prepare needs {} bytes ({}B), {} bytes ({}B) are available; use a smaller --file-total-size or another --file-dir",
                    crate::files::dir_name(dir),
                    need,
                    sysbench_human_size(need as f64),
                    avail,
                    sysbench_human_size(avail as f64)
                )],
            ));
        }
    }
    Ok(())
}

/// O_DIRECT checks shared by prepare and run (public cases C08, C19), over the
/// model's directory; a sequential job's requests are the merged ones.
pub fn direct_preflight(model: &Job, g: &Geometry) -> Result<(), Error> {
    let dir = &model.thread.dir;
    match preflight::probe_direct_io(dir) {
        preflight::DirectIo::Unsupported => Err(Error::lines(
            crate::util::error::exit::ENVIRONMENT,
            vec![format!(
                "FATAL: {} (--file-extra-flags=direct); use buffered I/O or another --file-dir",
                preflight::direct_refused(dir)
            )],
        )),
        preflight::DirectIo::Supported { align } if align > 0 => {
            let a = u64::from(align);
            let req = if !model.work.pick.rw.random() {
                g.request
            } else {
                g.block
            };
            if !g.block.is_multiple_of(a) || req % a != 0 || !g.file_size.is_multiple_of(a) {
                Err(Error::lines(
                    crate::util::error::exit::INVALID,
                    vec![format!(
                        "FATAL: --file-block-size={} is not a multiple of the {}-byte direct-I/O alignment of {}; use a multiple of {}",
                        g.block,
                        a,
                        crate::files::dir_name(dir),
                        a
                    )],
                ))
            } else {
                Ok(())
            }
        }
        _ => Ok(()),
    }
}

fn fsync_or_fail(f: &File) -> Result<(), Error> {
    // fsync(2), retried on EINTR by the standard library
    f.sync_all().map_err(|e| {
        let e = e.raw_os_error().unwrap_or(libc::EIO);
        Error::lines(
            crate::util::error::exit::FAILED,
            vec![format!(
                "FATAL: Failed to fsync file! errno = {} ({})",
                e,
                strerror(e)
            )],
        )
    })
}

/// Create or open file `i` for `prepare`, read-write: the existing bytes of its last
/// partial block are read back ([`keep_existing`]). A file created here gets [`MARK`].
fn open_to_prepare(model: &Job, i: u32) -> Result<File, Error> {
    let (flags, dir) = (model.thread.oflags(), &model.thread.dir);
    let p = path(dir, i);
    let created = open_raw(
        &p,
        libc::O_CREAT | libc::O_EXCL | libc::O_RDWR | flags,
        0o600,
    );
    let opened = match created {
        Ok(f) => {
            set_mark(&f);
            Ok(f)
        }
        Err(libc::EEXIST) => open_raw(&p, libc::O_RDWR | flags, 0o600),
        Err(e) => Err(e),
    };
    opened.map_err(|e| match planted_link(dir, i, e) {
        Some(note) => unsafe_path(note),
        None => Error::lines(
            crate::util::error::exit::FAILED,
            vec![format!(
                "FATAL: Can't open file '{}' errno = {} ({})",
                display(dir, i),
                e,
                strerror(e)
            )],
        ),
    })
}

/// Create or extend every file to FS bytes, printing sysbench's per-file lines through
/// `out`. `content(buf, offset)` fills each chunk with the bytes that belong at `offset`
/// of a file (the caller owns the generators: zeros, random, or verifiable blocks).
/// Stops between writes when `stop` is set (files stay as written, reusable). `model`:
/// the job in the one job model (its directory and open flags).
pub fn prepare(
    model: &Job,
    g: &Geometry,
    out: &mut dyn FnMut(String),
    content: &mut dyn FnMut(&mut [u8], u64),
    stop: &AtomicBool,
) -> Result<Prepared, Error> {
    let chunk = (PREPARE_CHUNK / g.block).max(1) * g.block;
    let mut buf = AlignedBuf::new(chunk as usize);
    let start = Instant::now();
    let mut written = 0u64;
    let mut pending: Option<File> = None;
    for i in 0..g.files {
        let f = open_to_prepare(model, i)?;
        let cur = f.metadata().map(|m| m.len()).unwrap_or(0);
        let name = display(&model.thread.dir, i);
        if cur == 0 {
            out(format!("Creating file {name}"));
        } else if cur < g.file_size {
            out(format!("Extending existing file {name}"));
        } else {
            out(format!("Reusing existing file {name}"));
            continue;
        }
        let mut pos = cur - cur % g.block;
        // bytes of the file in the first chunk, written back as they are
        let keep = (cur - pos) as usize;
        while pos < g.file_size {
            if stop.load(Ordering::Relaxed) {
                return Ok(Prepared {
                    bytes: written,
                    seconds: start.elapsed().as_secs_f64(),
                });
            }
            let n = chunk.min(g.file_size - pos) as usize;
            content(&mut buf.as_mut_slice()[..n], pos);
            if pos < cur {
                keep_existing(&f, &mut buf.as_mut_slice()[..n], pos, keep, &name)?;
            }
            crate::util::fault::io_hook(crate::util::fault::Op::Write)
                .map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))
                .and_then(|_| pwrite_all(&f, &buf.as_slice()[..n], pos))
                .map_err(|e| {
                let mut lines = vec![
                    format!("FATAL: Failed to write file! errno = {} ({})", e, strerror(e)),
                    format!("FATAL: the write was {n} bytes at offset {pos} of {name}; the files written so far are kept"),
                ];
                let mut code = crate::util::error::exit::FAILED;
                if e == libc::ENOSPC {
                    lines.push(format!("FATAL: {} is full; the files written so far are kept: run 'cleanup' to remove them", crate::files::dir_name(&model.thread.dir)));
                    code = crate::util::error::exit::ENVIRONMENT;
                }
                Error::lines(code, lines)
            })?;
            pos += n as u64;
            written += n as u64;
        }
        // Start this file's writeback now and make the *previous* file durable while
        // the device works on this one: the same fsync per file as sysbench, but the
        // device is never idle while the next file is filled (all files are durable
        // before prepare reports).
        // SAFETY: sync_file_range on our own descriptor; failure only loses the overlap.
        unsafe { libc::sync_file_range(f.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
        if let Some(prev) = pending.replace(f) {
            fsync_or_fail(&prev)?;
        }
    }
    if let Some(last) = pending.take() {
        fsync_or_fail(&last)?;
    }
    Ok(Prepared {
        bytes: written,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Put the file's own bytes `[pos, pos + keep)` at the start of the chunk about to be
/// written at `pos` (the chunk was read-aligned: `pos` is a block boundary, `buf` an
/// aligned buffer), so extending a file never changes a byte it had.
fn keep_existing(f: &File, buf: &mut [u8], pos: u64, keep: usize, name: &str) -> Result<(), Error> {
    match pread_full(f, buf, pos) {
        Ok(got) if got >= keep => Ok(()),
        Ok(got) => Err(Error::lines(
            crate::util::error::exit::FAILED,
            vec![format!("FATAL: {name} shrank while being extended: {got} of its {keep} last bytes could be read back at offset {pos}")],
        )),
        Err(e) => Err(Error::lines(
            crate::util::error::exit::FAILED,
            vec![format!(
                "FATAL: Failed to read file! errno = {} ({}) (reading back the last {keep} bytes of {name} at offset {pos} to keep them)",
                e,
                strerror(e)
            )],
        )),
    }
}

/// Every name of a run's set before the first is opened or re-created: a recreated set
/// replaces the name (the other links keep their file); otherwise what is there is
/// opened, and a job that `writes` would write into it.
fn check_set(dir: &Path, files: u32, recreate: bool, writes: bool) -> Result<(), Error> {
    let refused = |w: &Refusal| {
        if recreate {
            w.replacing
        } else {
            writes || w.reading
        }
    };
    match (0..files).find_map(|i| unsafe_target(dir, i).filter(refused)) {
        Some(w) => Err(unsafe_path(w.why)),
        None => Ok(()),
    }
}

/// Open the file set for a run of `threads` threads of `model` (the job in the one job
/// model): a set the model recreates (sysbench's seqwr) is made anew, every file empty;
/// every file is opened read-write with the model's open flags; the files of a set not
/// recreated must be at least FS bytes. Returns the open files in index order. `debug`
/// receives sysbench's DEBUG lines and iomark's own notices (those start with
/// `iomark: `, for stderr): that seqwr emptied prepared files, and why a file may be short.
pub fn open_for_run(
    model: &Job,
    g: &Geometry,
    threads: u32,
    mut debug: impl FnMut(String),
) -> Result<Vec<File>, Error> {
    let (t, recreate) = (&model.thread, model.work.files.recreate);
    // The files, stdin/stdout/stderr, one ring per thread of an engine that queues, and
    // spare descriptors for what is open beside them: the sampler's and the device
    // view's sysfs/procfs reads, the JSON file and the results history (temp file,
    // directory).
    let rings = if t.engine.queues() {
        u64::from(threads)
    } else {
        0
    };
    let need = u64::from(g.files) + 3 + 16 + rings;
    if let Err((soft, hard)) = preflight::ensure_nofile(need) {
        return Err(Error::lines(
            crate::util::error::exit::ENVIRONMENT,
            vec![format!(
                "FATAL: need {} open files for --file-num={}, but the limit is {} (hard limit {}; ulimit -n)",
                need,
                g.files,
                soft,
                hard
            )],
        ));
    }
    check_set(&t.dir, g.files, recreate, t.writes)?;
    let mut files = Vec::with_capacity(g.files as usize);
    let mut emptied = 0u32;
    for i in 0..g.files {
        let p = path(&t.dir, i);
        let name = display(&t.dir, i);
        if recreate {
            if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file() && m.len() > 0) {
                emptied += 1;
            }
            create_empty(&p, &name)?;
        }
        debug(format!("DEBUG: Opening file: {name}"));
        let f = match open_raw(&p, libc::O_RDWR | t.oflags(), 0o600) {
            Ok(f) => f,
            Err(e) => return Err(open_error(model, i, &name, e)),
        };
        if recreate {
            if t.engine == crate::util::engines::Kind::Mmap {
                let _ = f.set_len(g.file_size);
            }
        } else {
            let size = f.metadata().map(|m| m.len()).unwrap_or(0);
            if size < g.file_size {
                debug(short_file_note(&name, size, g.file_size));
                return Err(Error::lines(
                    crate::util::error::exit::FAILED,
                    vec![
                        format!("FATAL: Size of file '{name}' is {}B, but at least {}B is expected.", sysbench_human_size(size as f64), sysbench_human_size(g.file_size as f64)),
                        "WARNING: Did you run 'prepare' with different --file-total-size or --file-num values?".into(),
                    ],
                ));
            }
        }
        files.push(f);
    }
    if emptied > 0 {
        debug(format!("iomark: seqwr re-created {emptied} existing test file(s) empty, as sysbench does: their prepared contents are gone; run 'prepare' again before a reading mode"));
    }
    Ok(files)
}

/// iomark's one line on stderr after sysbench's `FATAL: Size of file …` for test file
/// `name` of `size` bytes where the run reads `fs`: what leaves a file short — seqwr
/// writes whole blocks only, so one whose block size does not divide `fs` stops less
/// than a block short (sysbench writes a last partial block), one its time or event
/// limit stopped stops shorter (as sysbench's), and so does an interrupted prepare.
fn short_file_note(name: &str, size: u64, fs: u64) -> String {
    format!(
        "iomark: {name} is {size} bytes, {} short of the {fs} bytes each file has for this run: seqwr re-creates the test files and writes whole blocks only (sysbench writes a last partial block), so a seqwr run whose --file-block-size does not divide {fs} leaves each file short by less than a block, and one stopped by its time or event limit, or an interrupted prepare, leaves it shorter; run 'prepare' again with the same --file-total-size and --file-num",
        fs - size
    )
}

/// seqwr's test file `p` (`name` as sysbench prints it): whatever the name held is
/// removed (a link's target keeps its bytes) and a new empty file created.
fn create_empty(p: &Path, name: &str) -> Result<(), Error> {
    let _ = std::fs::remove_file(p);
    match open_raw(p, libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY, 0o600) {
        Ok(f) => {
            set_mark(&f);
            Ok(())
        }
        Err(e) => Err(Error::lines(
            crate::util::error::exit::FAILED,
            vec![format!(
                "FATAL: Cannot create file '{name}' errno = {e} ({})",
                strerror(e)
            )],
        )),
    }
}

/// The lines and exit code of a test file `i` (`name`) that would not open with errno `e`.
fn open_error(model: &Job, i: u32, name: &str, e: i32) -> Error {
    let dir = &model.thread.dir;
    let mut lines = vec![format!(
        "FATAL: Cannot open file '{name}' errno = {e} ({})",
        strerror(e)
    )];
    let code = match e {
        libc::ELOOP => match planted_link(dir, i, e) {
            Some(note) => return unsafe_path(note),
            None => crate::util::error::exit::FAILED,
        },
        libc::ENOENT => {
            lines.push("WARNING: Did you forget to run the prepare step?".into());
            crate::util::error::exit::FAILED
        }
        libc::EINVAL if model.thread.direct => {
            lines.push(format!(
                "FATAL: {} (--file-extra-flags=direct)",
                preflight::direct_refused(dir)
            ));
            crate::util::error::exit::ENVIRONMENT
        }
        libc::EMFILE | libc::ENFILE => crate::util::error::exit::ENVIRONMENT,
        _ => crate::util::error::exit::FAILED,
    };
    Error::lines(code, lines)
}

/// Create `--file-dir` for `prepare` (one level: its parent must exist, and an existing
/// name is an error).
pub fn create_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir(dir)
}

/// Remove the directory [`create_dir`] made if it is empty (`rmdir`: nothing in it is
/// ever removed here).
pub fn remove_dir_if_empty(dir: &Path) {
    let _ = std::fs::remove_dir(dir);
}

/// Remove `test_file.0 … test_file.N−1` from the directory. Errors do not stop it
/// (sysbench ignores them and exits 0; missing files are fine): the names that stay
/// for another reason (a read-only filesystem, EPERM, a file iomark did not create —
/// [`owner`] — that no other name shares) are returned with the reason, for the caller
/// to say. Only these names are touched; a symlink or another hard link is removed,
/// not followed.
pub fn cleanup(dir: &Path, files: u32) -> Vec<(String, std::io::Error)> {
    let _cleaning = crate::files::scratch::Cleaning::begin();
    let mut kept = vec![];
    for i in 0..files {
        let p = path(dir, i);
        // a name another link shares is removed: its bytes stay under the other name
        let sole = std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file() && m.nlink() == 1);
        if sole && owner(&p) == Owner::Other {
            let why = format!(
                "it was not created by iomark (no {} mark): left as it is",
                MARK.to_string_lossy()
            );
            kept.push((display(dir, i), std::io::Error::other(why)));
            continue;
        }
        match crate::files::scratch::remove_own(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => kept.push((display(dir, i), e)),
            _ => {}
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names() {
        assert_eq!(display(Path::new("."), 3), "test_file.3");
        assert_eq!(display(Path::new("/x"), 3), "/x/test_file.3");
    }

    #[test]
    fn cleanup_only_touches_its_names() {
        let d = tempfile::tempdir().unwrap();
        for n in ["test_file.0", "test_file.1", "test_file.5", "keep.txt"] {
            set_mark(&File::create(d.path().join(n)).unwrap());
        }
        let outside = tempfile::NamedTempFile::new().unwrap();
        std::os::unix::fs::symlink(outside.path(), d.path().join("test_file.2")).unwrap();
        let kept = cleanup(d.path(), 3);
        assert!(kept.is_empty(), "{kept:?}");
        assert_eq!(names(d.path()), vec!["keep.txt", "test_file.5"]);
        assert!(outside.path().exists());
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut left: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        left
    }

    /// A `test_file.N` without the mark (where the filesystem keeps user attributes)
    /// is another's: cleanup leaves it and says why; one with the mark is removed.
    #[test]
    fn cleanup_leaves_a_file_iomark_did_not_create() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("test_file.0"), b"mine").unwrap();
        set_mark(&File::create(d.path().join("test_file.1")).unwrap());
        let p0 = d.path().join("test_file.0");
        if owner(&p0) == Owner::Unknown {
            panic!("the test directory's filesystem keeps no user attributes");
        }
        assert_eq!(owner(&p0), Owner::Other);
        assert_eq!(owner(&d.path().join("test_file.1")), Owner::Iomark);
        let kept = cleanup(d.path(), 2);
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert!(kept[0].0.ends_with("test_file.0"), "{kept:?}");
        assert!(
            kept[0].1.to_string().contains("not created by iomark"),
            "{kept:?}"
        );
        assert_eq!(names(d.path()), vec!["test_file.0"]);
        assert_eq!(std::fs::read(&p0).unwrap(), b"mine");
    }
}
