//! Output files — `--json`, `--output`, `--plot` charts, fio's log files, verify dumps:
//! the one way iomark writes a file for the user to read afterwards.
//!
//! Rules (docs/safety.md): the final path always holds its old content or the complete
//! new one (nothing is written at the final name before the result: the checks before
//! the run use a temporary file, [`Output::rehearse`]); iomark never writes through a symbolic link, into a file that has another
//! hard link, or over anything that is not a regular file. Shape: [`Output::create`]
//! checks the path up front (before any I/O, so a bad path fails fast with exit 3) and
//! proves the directory takes a new file by creating and removing a temporary one; it
//! neither creates nor truncates the final file. [`Output::commit`] (or a [`Staged`]
//! writer for files written while a job runs) writes a temporary file in the same
//! directory, fsyncs it, checks the path again and renames the temporary file over it;
//! on any failure the temporary file is removed and the error (exit 1) names the file
//! and the reason. The temporary file ([`Temp`]) is unnamed (`O_TMPFILE`) until the
//! commit links it to `.NAME.PID.XXXXXX.iomark-tmp` and renames that over the path at
//! once, so a SIGKILL leaves none behind; on a filesystem without O_TMPFILE it is that
//! named file from the start (tempfile's `O_EXCL` create), and only a SIGKILL during a
//! commit, or while a [`Staged`] log is open, can leave one behind — which the next
//! [`Output::create`] in that directory removes once its process is gone
//! ([`remove_stale_temps`]). Never a partial final file.

use std::io::{Seek, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// When an output failed: at the check before the run (exit 3, the environment cannot
/// take the file) or when it was written (exit 1, the result is lost).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// [`Output::create`]
    Check,
    /// [`Output::commit`], [`Staged::commit`]
    Write,
}

/// Why an output file could not be written; `Display` is the reason alone (callers
/// print `cannot write --json=FILE: {reason}`).
#[derive(Debug, thiserror::Error)]
#[error("{reason}")]
pub struct OutputError {
    /// the output file
    pub path: PathBuf,
    /// when it failed
    pub stage: Stage,
    /// what went wrong, one line
    pub reason: String,
    /// the system's error number when the file could not be made or written (EROFS,
    /// EACCES, ENOSPC); `None` for iomark's own refusals (a link, a device, a FIFO)
    pub errno: Option<i32>,
}

/// The exit code of an output path refused before the run for what is (or is not) at
/// it: a directory, a link, a FIFO or device, a missing parent directory, a parent that
/// is a file, a read-only directory, a `--plot` directory that is a file — whatever
/// the command (docs/safety.md "Exit codes"): the environment cannot take the file (3).
/// The user's fix is on the filesystem or in the name; the same name may work elsewhere.
pub const UNUSABLE_PATH: i32 = crate::util::error::exit::ENVIRONMENT;

/// The exit code of outputs that name one file (each other, a data file, a job file read,
/// the `--plot` directory or a chart in it, two on one stream): the command line
/// contradicts itself, whatever the filesystem holds — invalid input (2).
pub const COLLISION: i32 = crate::util::error::exit::INVALID;

impl OutputError {
    /// [`UNUSABLE_PATH`] (3) when the check before the run failed, 1 when writing failed.
    pub fn exit_code(&self) -> i32 {
        match self.stage {
            Stage::Check => UNUSABLE_PATH,
            Stage::Write => crate::util::error::exit::FAILED,
        }
    }

    fn new(path: &Path, stage: Stage, reason: String) -> OutputError {
        OutputError {
            path: path.to_path_buf(),
            stage,
            reason,
            errno: None,
        }
    }

    /// The system's text of the errno behind `e` ("No space left on device"), also
    /// when tempfile wrapped it with the temporary file's name (its message is the OS
    /// error's, "… (os error N) at path …", and it keeps no source to ask).
    fn os(path: &Path, stage: Stage, e: &std::io::Error) -> OutputError {
        let wrapped = || {
            let s = e.to_string();
            let n = s.split("(os error ").nth(1)?.split(')').next()?;
            n.parse::<i32>().ok()
        };
        let errno = e.raw_os_error().or_else(wrapped);
        let reason = match errno {
            Some(n) => crate::files::strerror(n),
            None => e.to_string(),
        };
        OutputError {
            errno,
            ..OutputError::new(path, stage, reason)
        }
    }
}

/// An output file checked up front and written at [`Output::commit`].
#[derive(Debug)]
pub struct Output {
    path: PathBuf,
    /// the directory the temporary file goes in
    dir: PathBuf,
    /// whether [`Output::commit`] was called (successful or not)
    finished: std::cell::Cell<bool>,
    /// the file [`Output::grow`] made, open at its end, and its length
    grown: std::cell::RefCell<Option<(std::fs::File, u64)>>,
    /// the empty file [`Output::create_if_absent`] made (device, inode)
    made: std::cell::Cell<Option<(u64, u64)>>,
}

/// Whether `path` is a planted hazard of the kind every command refuses with
/// [`UNUSABLE_PATH`] (3), the fio persona too, as it refuses a link at a data file it
/// names: a symbolic link, a hard-linked file or a FIFO (a device or a directory is not
/// one: the persona says those with fio's code for an output it cannot use, 1).
pub fn planted(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| {
        let t = m.file_type();
        t.is_symlink() || t.is_fifo() || (t.is_file() && m.nlink() > 1)
    })
}

/// Why `path` may not be replaced, if it exists and is not a regular file with one link.
fn refusal(path: &Path) -> Result<Option<String>, std::io::Error> {
    let m = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let t = m.file_type();
    if t.is_symlink() {
        return Ok(Some(
            "is not a regular file (a symbolic link): iomark never writes through one; give a new or regular file".into(),
        ));
    }
    if !t.is_file() {
        return Ok(Some(format!(
            "is not a regular file ({}); give a new or regular file",
            crate::util::input::kind_name(t)
        )));
    }
    if m.nlink() > 1 {
        return Ok(Some(format!(
            "has another hard link ({} names share it): iomark never writes into a file other names share; give a new file or one with a single link",
            m.nlink()
        )));
    }
    Ok(None)
}

impl Output {
    /// The output at `path`, its directory the path's (`.` for a bare name), nothing
    /// checked or made yet.
    fn unchecked(path: &Path) -> Output {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Output {
            path: path.to_path_buf(),
            dir,
            finished: std::cell::Cell::new(false),
            grown: std::cell::RefCell::default(),
            made: std::cell::Cell::new(None),
        }
    }

    /// Check that `path` can become an output file: it is absent or a regular file
    /// with a single link, and its directory takes a new file (one is created and
    /// removed). Nothing at `path` changes. Errors are [`Stage::Check`].
    pub fn create(path: &Path) -> Result<Output, OutputError> {
        let check = |e: &std::io::Error| OutputError::os(path, Stage::Check, e);
        if let Some(why) = refusal(path).map_err(|e| check(&e))? {
            return Err(OutputError::new(path, Stage::Check, why));
        }
        let out = Output::unchecked(path);
        sweep_stale_temps(&out.dir);
        drop(out.temp(Stage::Check)?);
        Ok(out)
    }

    /// Make the file, empty, when nothing is at its name yet (fio 3.33 creates its
    /// `--output` as it reads the command line, before any job runs): an exclusive
    /// create (mode 0666 less the umask), which never follows a link; a file that exists
    /// keeps its old content until the report replaces it. Errors are [`Stage::Check`].
    pub fn create_if_absent(&self) -> Result<(), OutputError> {
        use std::os::unix::fs::OpenOptionsExt;
        let made = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(&self.path);
        match made {
            Ok(f) => {
                let m = f
                    .metadata()
                    .map_err(|e| OutputError::os(&self.path, Stage::Check, &e))?;
                self.made.set(Some((m.dev(), m.ino())));
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) => Err(OutputError::os(&self.path, Stage::Check, &e)),
        }
    }

    /// Remove the file [`Output::create_if_absent`] made when it is still that empty
    /// file (a run that ends without its report leaves the name as it found it).
    pub fn remove_if_made_empty(&self) {
        let Some((dev, ino)) = self.made.take() else {
            return;
        };
        let same = std::fs::symlink_metadata(&self.path).is_ok_and(|m| {
            m.file_type().is_file() && m.len() == 0 && (m.dev(), m.ino()) == (dev, ino)
        });
        if same {
            let _ = std::fs::remove_file(&self.path);
        }
    }

    /// The output file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the final content was committed, or its commit failed (and reported):
    /// a command that ends while this is false still owes the file its result.
    pub fn is_finished(&self) -> bool {
        self.finished.get()
    }

    /// A new temporary file next to the output (mode 0666 less the umask, as a plain
    /// create would give): unnamed where the filesystem allows it ([`Temp`]).
    fn temp(&self, stage: Stage) -> Result<Temp, OutputError> {
        Temp::new(&self.dir, &self.path, !no_unnamed_for_tests())
            .map_err(|e| OutputError::os(&self.path, stage, &e))
    }

    /// A writer whose bytes become the file's content at [`Staged::commit`] (for files
    /// written while a job runs, such as fio's logs). Errors are [`Stage::Check`]: the
    /// temporary file is created before the run.
    pub fn stage(&self) -> Result<Staged, OutputError> {
        Ok(Staged {
            path: self.path.clone(),
            file: std::io::BufWriter::new(self.temp(Stage::Check)?),
            error: None,
        })
    }

    /// Prove before the run that the directory takes `bytes` as a new file: they are
    /// written to a temporary file next to the output (permissions, space and the
    /// directory's links checked there), fsynced and removed. The output itself is not
    /// touched: until [`Output::commit`] it keeps its old content, also after a
    /// SIGKILL. Part of the checks before the run: errors are [`Stage::Check`] (exit 3).
    pub fn rehearse(&self, bytes: &[u8]) -> Result<(), OutputError> {
        let check = |e: &std::io::Error| OutputError::os(&self.path, Stage::Check, e);
        let mut tmp = self.temp(Stage::Check)?;
        tmp.write_all(bytes).map_err(|e| check(&e))?;
        tmp.file().sync_all().map_err(|e| check(&e))?;
        tmp.close().map_err(|e| check(&e))
    }

    /// Replace the file's content by `bytes` (temporary file, fsync, rename). Errors
    /// are [`Stage::Write`]; the file then keeps its old content. After
    /// [`Output::grow`] the bytes are the rest of the file: they are added as it does.
    pub fn commit(&self, bytes: &[u8]) -> Result<(), OutputError> {
        self.finished.set(true);
        if self.grown.borrow().is_some() {
            return self.grow(bytes);
        }
        self.write(bytes)
    }

    /// Write `bytes` now as the file's next part (fio's `--status-interval` reports,
    /// each whole as it is made): the first part replaces the file as
    /// [`Output::commit`] does (temporary file, fsync, rename), and iomark keeps that
    /// file open; each later part is added at its end and fsynced. A part that cannot
    /// be written whole is taken back (the file is cut to its length before), so the
    /// file always holds whole parts. Errors are [`Stage::Write`].
    pub fn grow(&self, bytes: &[u8]) -> Result<(), OutputError> {
        let err = |e: &std::io::Error| OutputError::os(&self.path, Stage::Write, e);
        let mut grown = self.grown.borrow_mut();
        let Some((f, len)) = grown.as_mut() else {
            let mut s = Staged {
                path: self.path.clone(),
                file: std::io::BufWriter::new(self.temp(Stage::Write)?),
                error: None,
            };
            s.write_all(bytes).map_err(|e| err(&e))?;
            let mut f = s.persist()?;
            let len = f.seek(std::io::SeekFrom::End(0)).map_err(|e| err(&e))?;
            *grown = Some((f, len));
            return Ok(());
        };
        let put = f.write_all(bytes).and_then(|()| f.sync_data());
        if let Err(e) = put {
            let _ = f.set_len(*len);
            let _ = f.seek(std::io::SeekFrom::Start(*len));
            return Err(err(&e));
        }
        *len += bytes.len() as u64;
        Ok(())
    }

    fn write(&self, bytes: &[u8]) -> Result<(), OutputError> {
        let mut s = Staged {
            path: self.path.clone(),
            file: std::io::BufWriter::new(self.temp(Stage::Write)?),
            error: None,
        };
        s.write_all(bytes)
            .map_err(|e| OutputError::os(&self.path, Stage::Write, &e))?;
        s.commit()
    }
}

/// The temporary file of an output being written; removed when dropped uncommitted.
#[derive(Debug)]
pub struct Staged {
    path: PathBuf,
    file: std::io::BufWriter<Temp>,
    /// first write error (lines are written on the I/O path: they never fail there,
    /// the error is reported by [`Staged::commit`])
    error: Option<std::io::Error>,
}

impl Staged {
    /// Write `bytes`, keeping the first error for [`Staged::commit`].
    pub fn put(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.file.write_all(bytes) {
                self.error = Some(e);
            }
        }
    }

    /// A descriptor of the temporary file for another writer (a child process's
    /// stdout): what it writes becomes the content at [`Staged::commit`], as ours does.
    pub fn share(&mut self) -> std::io::Result<std::fs::File> {
        self.file.flush()?;
        self.file.get_ref().file().try_clone()
    }

    /// Keep `e`, an error of a write made through [`Write`], for [`Staged::commit`]
    /// (the first one is reported).
    pub fn keep_error(&mut self, e: std::io::Error) {
        self.error.get_or_insert(e);
    }

    /// Make the bytes written so far the file's content: flush, fsync, check that the
    /// path is still absent or a regular file with one link, rename over it, fsync the
    /// directory. Errors are [`Stage::Write`]; the temporary file is then removed.
    pub fn commit(self) -> Result<(), OutputError> {
        self.persist().map(drop)
    }

    /// [`Staged::commit`] with the file's present content kept before the bytes
    /// written here: a file several writers add to (fio's logs that the threads share,
    /// `per_job_logs=0`, which fio opens in append mode, so a run adds to what an
    /// earlier one left). The old content and these bytes are copied to a new
    /// temporary file that replaces the path, one writer at a time in this process, so
    /// no writer's bytes are lost and the path holds whole parts after a SIGKILL. The
    /// old file is read only if it is a regular file with one link. Errors are
    /// [`Stage::Write`].
    pub fn commit_appended(self) -> Result<(), OutputError> {
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _turn = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let path = self.path;
        let err = |e: &std::io::Error| OutputError::os(&path, Stage::Write, e);
        if let Some(e) = self.error {
            return Err(err(&e));
        }
        let mut mine = self.file.into_inner().map_err(|e| err(e.error()))?;
        let out = Output::unchecked(&path);
        let mut joined = out.stage().map_err(|e| OutputError {
            stage: Stage::Write,
            ..e
        })?;
        match refusal(&path) {
            Ok(Some(why)) => return Err(OutputError::new(&path, Stage::Write, why)),
            Ok(None) => {}
            Err(e) => return Err(err(&e)),
        }
        let old = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path);
        match old {
            Ok(mut old) => {
                std::io::copy(&mut old, &mut joined).map_err(|e| err(&e))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(err(&e)),
        }
        mine.seek(std::io::SeekFrom::Start(0))
            .and_then(|_| std::io::copy(&mut mine, &mut joined))
            .map_err(|e| err(&e))?;
        joined.commit()
    }

    /// [`Staged::commit`], keeping the file open (at its end) for more.
    fn persist(self) -> Result<std::fs::File, OutputError> {
        let path = self.path;
        let err = |e: &std::io::Error| OutputError::os(&path, Stage::Write, e);
        if let Some(e) = self.error {
            return Err(err(&e));
        }
        let tmp = self.file.into_inner().map_err(|e| err(e.error()))?;
        tmp.file().sync_all().map_err(|e| err(&e))?;
        // the old file's permissions and owner carry over to its replacement
        if let Ok(old) = std::fs::symlink_metadata(&path) {
            if old.file_type().is_file() {
                let f = tmp.file();
                let _ = f.set_permissions(std::fs::Permissions::from_mode(old.mode() & 0o7777));
                let _ = std::os::unix::fs::fchown(f, Some(old.uid()), Some(old.gid()));
            }
        }
        match refusal(&path) {
            Ok(Some(why)) => return Err(OutputError::new(&path, Stage::Write, why)),
            Ok(None) => {}
            Err(e) => return Err(err(&e)),
        }
        let file = tmp.persist(&path).map_err(|e| err(&e))?;
        if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
        } else {
            let _ = std::fs::File::open(".").and_then(|d| d.sync_all());
        }
        Ok(file)
    }
}

/// The test hook `IOMARK_TEST_NO_TMPFILE=1`: stage every output in a named temporary
/// file, as on a filesystem without O_TMPFILE (docs/testing.md).
fn no_unnamed_for_tests() -> bool {
    std::env::var_os("IOMARK_TEST_NO_TMPFILE").is_some_and(|v| v == "1")
}

/// The temporary file an output is staged in, in the output's directory. Unnamed
/// (`O_TMPFILE`) where the filesystem has it: it has no name until [`Temp::persist`]
/// links it (`linkat` of `/proc/thread-self/fd/N`: a job thread has a descriptor
/// table of its own, so `/proc/self` would be the main thread's, to
/// `.NAME.PID.XXXXXX.iomark-tmp`) and renames
/// that over the output at once, so a SIGKILL at any other moment leaves nothing. On a
/// filesystem without O_TMPFILE (or without `/proc`) it is that named file from the
/// start (tempfile's `O_EXCL` create), removed when dropped: only a SIGKILL while it
/// exists leaves it behind.
#[derive(Debug)]
enum Temp {
    /// O_TMPFILE: the open file and the directory it is to be named in
    Unnamed(std::fs::File, PathBuf),
    /// a named file: the fallback
    Named(tempfile::NamedTempFile),
}

impl Temp {
    /// A new temporary file in `dir` for the output `path`; `unnamed`: try O_TMPFILE
    /// first. Errors other than "O_TMPFILE not supported here" are the caller's.
    fn new(dir: &Path, path: &Path, unnamed: bool) -> std::io::Result<Temp> {
        if unnamed && Path::new("/proc/thread-self/fd").is_dir() {
            let f = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .mode(0o666)
                .custom_flags(libc::O_TMPFILE)
                .open(dir);
            match f {
                Ok(f) => return Ok(Temp::Unnamed(f, dir.to_path_buf())),
                // no O_TMPFILE in this kernel (EISDIR) or filesystem (EOPNOTSUPP)
                Err(e)
                    if ![libc::EOPNOTSUPP, libc::EISDIR, libc::EINVAL]
                        .contains(&e.raw_os_error().unwrap_or(0)) =>
                {
                    return Err(e)
                }
                Err(_) => {}
            }
        }
        tempfile::Builder::new()
            .prefix(&temp_prefix(path))
            .suffix(".iomark-tmp")
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(dir)
            .map(Temp::Named)
    }

    /// The open file.
    fn file(&self) -> &std::fs::File {
        match self {
            Temp::Unnamed(f, _) => f,
            Temp::Named(t) => t.as_file(),
        }
    }

    /// Remove it (a named file's removal can fail; an unnamed one just goes).
    fn close(self) -> std::io::Result<()> {
        match self {
            Temp::Unnamed(..) => Ok(()),
            Temp::Named(t) => t.close(),
        }
    }

    /// Give it the name `path`, replacing what is there (rename): an unnamed file is
    /// first linked to a fresh temporary name beside it (removed again if the rename
    /// fails). The file stays open.
    fn persist(self, path: &Path) -> std::io::Result<std::fs::File> {
        let (file, dir) = match self {
            Temp::Named(t) => return t.persist(path).map_err(|e| e.error),
            Temp::Unnamed(f, dir) => (f, dir),
        };
        use std::os::unix::io::AsRawFd;
        let fd = std::ffi::CString::new(format!("/proc/thread-self/fd/{}", file.as_raw_fd()))?;
        let named = tempfile::Builder::new()
            .prefix(&temp_prefix(path))
            .suffix(".iomark-tmp")
            .make_in(&dir, |name| {
                let to = std::ffi::CString::new(name.as_os_str().as_encoded_bytes())?;
                // SAFETY: linkat(2) on two NUL-terminated paths that live across the call
                let r = unsafe {
                    libc::linkat(
                        libc::AT_FDCWD,
                        fd.as_ptr(),
                        libc::AT_FDCWD,
                        to.as_ptr(),
                        libc::AT_SYMLINK_FOLLOW,
                    )
                };
                if r == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            })?;
        // dropped on failure: the temporary name is removed again
        named.persist(path).map_err(|e| e.error)?;
        Ok(file)
    }
}

/// `.NAME.PID.`: how a temporary file beside the output `NAME` begins; the process id
/// tells a later run whether the file's writer is gone ([`remove_stale_temps`]).
fn temp_prefix(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    format!(".{name}.{}.", std::process::id())
}

/// The process that made `name` when it is an iomark temporary file,
/// `.NAME.PID.XXXXXX.iomark-tmp` (six letters or digits, tempfile's), else `None`.
fn temp_owner(name: &str) -> Option<i32> {
    let rest = name.strip_prefix('.')?.strip_suffix(".iomark-tmp")?;
    let (head, rand) = rest.rsplit_once('.')?;
    if rand.len() != 6 || !rand.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let (output, pid) = head.rsplit_once('.')?;
    if output.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse::<i32>().ok().filter(|&p| p > 0)
}

/// Whether process `pid` exists (kill with signal 0: EPERM means it does).
fn alive(pid: i32) -> bool {
    // SAFETY: kill(2) with signal 0 sends nothing, it only checks the process
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Remove from `dir` the temporary files an iomark process left when it was killed
/// (SIGKILL) between the link and the rename of a commit, or while a named fallback
/// file was open: names of the form `.NAME.PID.XXXXXX.iomark-tmp` whose process `PID`
/// no longer exists, that are regular files with one link owned by this user. Nothing
/// else is touched: a file of a live process (another run writing there), a link, a
/// directory, another user's file stay. Returns the names removed.
pub fn remove_stale_temps(dir: &Path) -> Vec<String> {
    // SAFETY: geteuid(2) cannot fail
    let me = unsafe { libc::geteuid() };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = temp_owner(&name) else {
            continue;
        };
        if pid as u32 == std::process::id() || alive(pid) {
            continue;
        }
        let ours = std::fs::symlink_metadata(e.path())
            .is_ok_and(|m| m.file_type().is_file() && m.nlink() == 1 && m.uid() == me);
        if ours && std::fs::remove_file(e.path()).is_ok() {
            removed.push(name);
        }
    }
    removed
}

/// [`remove_stale_temps`] in the directory of an output about to be written, each
/// removal said on stderr in one line. A directory is read once per process: the
/// outputs after the first one there find nothing a dead process left that the first
/// sweep did not remove.
fn sweep_stale_temps(dir: &Path) {
    static SWEPT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|p| p.into_inner());
        if swept.iter().any(|d| d == dir) {
            return;
        }
        swept.push(dir.to_path_buf());
    }
    for name in remove_stale_temps(dir) {
        crate::util::output::to_stderr(format_args!(
            "iomark: removed {}: a temporary file of an iomark process that ended before it finished its output\n",
            dir.join(&name).display()
        ));
    }
}

impl std::io::Read for Temp {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut f = self.file();
        f.read(buf)
    }
}

impl Write for Temp {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut f = self.file();
        f.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Seek for Temp {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        let mut f = self.file();
        f.seek(pos)
    }
}

impl Write for Staged {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// One file a run writes, as the user named it: the option or role (`--json`, `data
/// file 1`) and the path.
pub type Named = (String, PathBuf);

/// What identifies a file: its path with the directory resolved (the file need not
/// exist), and its device and inode when it exists (links followed, so a symbolic or
/// hard link to another output is the same file).
fn identity(p: &Path) -> (PathBuf, Option<(u64, u64)>) {
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let dir = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
    let name = p
        .file_name()
        .map_or_else(|| p.as_os_str().into(), |n| n.to_owned());
    let inode = std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    (dir.join(name), inode)
}

/// The errno C's `fopen(path, "w+")` meets on an output path the check refused, when
/// it is known without touching the path: a directory (EISDIR), a parent that does not
/// exist (ENOENT) or is no directory (ENOTDIR). `None` for the other refusals (a link,
/// a device, a FIFO), which fopen would open and write through.
pub fn fopen_errno(path: &Path) -> Option<i32> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        return Some(libc::EISDIR);
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match std::fs::metadata(parent) {
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Some(libc::ENOENT),
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => Some(libc::ENOTDIR),
        Ok(m) if !m.is_dir() => Some(libc::ENOTDIR),
        _ => None,
    }
}

/// Refuse a run whose outputs (`outputs`: `--json`, `--output` …) are the same file as
/// each other or as one of its data files (`data`), by path or by device and inode
/// (links included), before anything is written: `Err` is the one line naming both
/// (exit 2). Data files may share a file among themselves (fio's jobs may).
///
/// An output naming a standard stream (`-`, `/dev/stdout` …: util/output.rs `Stream`)
/// is no file: it is compared only with the other outputs, and two on stdout (or on
/// stderr) are refused as well.
pub fn refuse_collisions(outputs: &[Named], data: &[Named]) -> Result<(), String> {
    use crate::util::output::Stream;
    let streams: Vec<_> = outputs
        .iter()
        .filter_map(|o| Stream::of(&o.1).map(|s| (o, s)))
        .filter(|(_, s)| *s != Stream::Null)
        .collect();
    for (i, (a, s)) in streams.iter().enumerate() {
        if let Some((b, _)) = streams[..i].iter().find(|(_, t)| t == s) {
            return Err(format!(
                "{}={} and {}={} both name {}: give one of them a file",
                b.0,
                b.1.display(),
                a.0,
                a.1.display(),
                s.name()
            ));
        }
    }
    let files: Vec<Named> = outputs
        .iter()
        .filter(|o| Stream::of(&o.1).is_none())
        .cloned()
        .collect();
    refuse_same_files(&files, data)
}

/// [`refuse_collisions`] among outputs that are files.
fn refuse_same_files(outputs: &[Named], data: &[Named]) -> Result<(), String> {
    use std::collections::HashMap;
    let mut paths: HashMap<PathBuf, usize> = HashMap::new();
    let mut inodes: HashMap<(u64, u64), usize> = HashMap::new();
    let ids: Vec<_> = outputs.iter().map(|(_, p)| identity(p)).collect();
    let same = |a: &Named, b: &Named| {
        format!(
            "{}={} and {}={} are the same file: a run's outputs and data files each need their own; give another name",
            a.0,
            a.1.display(),
            b.0,
            b.1.display()
        )
    };
    for (i, (path, inode)) in ids.iter().enumerate() {
        let earlier = paths
            .insert(path.clone(), i)
            .or_else(|| inode.and_then(|k| inodes.insert(k, i)));
        if let Some(j) = earlier {
            return Err(same(&outputs[j], &outputs[i]));
        }
    }
    for d in data {
        let (path, inode) = identity(&d.1);
        let hit = paths
            .get(&path)
            .or_else(|| inode.and_then(|k| inodes.get(&k)));
        if let Some(&i) = hit {
            return Err(same(&outputs[i], d));
        }
    }
    Ok(())
}

/// Refuse outputs (`outputs`: `--json`, `--output` …) that `--plot=DIR` would write
/// over or that would take its place, before the directory is made: an output named
/// as the directory itself (by path, or by device and inode when it exists), or as an
/// `.svg` file inside it, where the charts are written (their names follow the run's
/// tests: `STEM-throughput.svg`, `-latency.svg`, `-device.svg`). `Err` is the one line
/// naming both (exit 2).
pub fn refuse_outputs_in_plot_dir(outputs: &[Named], dir: &Path) -> Result<(), String> {
    let (dir_path, dir_inode) = identity(dir);
    for (opt, p) in outputs {
        let (path, inode) = identity(p);
        if path == dir_path || (inode.is_some() && inode == dir_inode) {
            return Err(format!(
                "{opt}={} and --plot={} are the same path: the charts' directory and each output need their own; give another name",
                p.display(),
                dir.display()
            ));
        }
        let svg = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
        let inside = path.parent().is_some_and(|d| {
            d == dir_path || std::fs::canonicalize(d).is_ok_and(|d| d == dir_path)
        });
        if svg && inside {
            return Err(format!(
                "{opt}={} is an .svg file in --plot={}, where the charts are written: give the output another name or place",
                p.display(),
                dir.display()
            ));
        }
    }
    Ok(())
}

/// Create `dir` for output files (`--plot DIR`) unless it is a directory already; its
/// parent must exist (iomark creates no directory tree the user did not ask for).
/// `what` names the option in the error, e.g. `--plot`. A symbolic link is refused, also
/// one to a directory.
/// An existing directory is checked at once for planted charts: an `.svg` entry that is a
/// symbolic link, has more than one link or is not a regular file (a FIFO) is refused
/// now, before any I/O, rather than when the chart is written after the run.
pub fn ensure_dir(dir: &Path, what: &str) -> Result<(), String> {
    // a symbolic link to a directory is not followed: charts land where it was named
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(format!(
            "{what}={}: is a symbolic link: iomark never writes through one; give a directory",
            dir.display()
        ));
    }
    if dir.is_dir() {
        return refuse_planted_charts(dir, what);
    }
    if let Ok(m) = std::fs::symlink_metadata(dir) {
        return Err(format!(
            "{what}={}: is {}: a directory is expected",
            dir.display(),
            crate::util::input::kind_name(m.file_type())
        ));
    }
    std::fs::create_dir(dir).map_err(|e| {
        format!(
            "{what}={}: cannot create the directory: {}; a writable directory whose parent exists is expected",
            dir.display(),
            crate::util::errno::describe(&e)
        )
    })
}

/// The `.svg` entries of `dir` that are links or not regular files (a FIFO, a
/// directory; see [`ensure_dir`]): the first one found is the error.
fn refuse_planted_charts(dir: &Path, what: &str) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Ok(()); // unreadable: the chart's own create says why
    };
    for e in rd.flatten() {
        let name = e.file_name();
        if !name.to_string_lossy().ends_with(".svg") {
            continue;
        }
        let Ok(m) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        let kind = if m.file_type().is_symlink() {
            "a symbolic link"
        } else if !m.is_file() {
            crate::util::input::kind_name(m.file_type())
        } else if m.nlink() > 1 {
            "a hard-linked file"
        } else {
            continue;
        };
        return Err(format!(
            "{what}={}: {} is {kind}: iomark writes a chart only as a new or regular file of its own; remove it or choose another directory",
            dir.display(),
            name.to_string_lossy(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn outputs_that_are_one_file_are_refused_by_path_or_inode() {
        let d = tempfile::tempdir().unwrap();
        let p = |n: &str| d.path().join(n);
        let n = |o: &str, f: &str| (o.to_string(), p(f));
        // by path, also spelled another way and not existing yet
        let dotted = d.path().join(".").join("r.json");
        let e = refuse_collisions(&[n("--output", "r.json"), ("--json".into(), dotted)], &[])
            .unwrap_err();
        assert!(e.starts_with("--output="), "{e}");
        assert!(
            e.contains("--json=") && e.contains("are the same file"),
            "{e}"
        );
        // an output that is one of the data files
        let data = [
            n("data file 0", "test_file.0"),
            n("data file 1", "test_file.1"),
        ];
        let e = refuse_collisions(&[n("--json", "test_file.1")], &data).unwrap_err();
        assert!(e.contains("data file 1="), "{e}");
        // a hard link and a symbolic link to another output: the same inode
        std::fs::write(p("a"), b"x").unwrap();
        std::fs::hard_link(p("a"), p("b")).unwrap();
        std::os::unix::fs::symlink(p("a"), p("c")).unwrap();
        assert!(refuse_collisions(&[n("--json", "a"), n("--output", "b")], &[]).is_err());
        assert!(refuse_collisions(&[n("--json", "c")], &[n("data", "a")]).is_err());
        // distinct files pass; data files may share one
        let both = [n("x", "a"), n("y", "a")];
        assert!(refuse_collisions(&[n("--json", "j"), n("--output", "o")], &both).is_ok());
    }

    #[test]
    fn outputs_named_as_the_plot_directory_or_a_chart_in_it_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let p = |n: &str| d.path().join(n);
        let n = |o: &str, f: &str| (o.to_string(), p(f));
        // the directory itself, not made yet, spelled another way
        let e = refuse_outputs_in_plot_dir(&[n("--json", "c")], &p(".").join("c")).unwrap_err();
        assert!(
            e.contains("--json=") && e.contains("are the same path"),
            "{e}"
        );
        // an .svg file in it (any case), made or not
        for f in ["c/run-read-4k-q1t1-latency.svg", "c/x.SVG"] {
            let e = refuse_outputs_in_plot_dir(&[n("--output", f)], &p("c")).unwrap_err();
            assert!(e.contains("is an .svg file in --plot="), "{e}");
        }
        std::fs::create_dir(p("c")).unwrap();
        std::os::unix::fs::symlink(p("c"), p("l")).unwrap();
        assert!(refuse_outputs_in_plot_dir(&[n("--json", "l")], &p("c")).is_err());
        // other names in it, .svg files elsewhere pass
        let fine = [n("--json", "c/r.json"), n("--output", "r.svg")];
        assert!(refuse_outputs_in_plot_dir(&fine, &p("c")).is_ok());
    }

    #[test]
    fn create_checks_without_touching_and_commit_replaces() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.txt");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        let o = Output::create(&p).unwrap();
        assert!(!o.is_finished());
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "old",
            "create writes nothing"
        );
        assert_eq!(names(d.path()), ["r.txt"], "the probe file is gone");
        o.rehearse(b"placeholder").unwrap();
        assert!(!o.is_finished(), "a rehearsal is not the final content");
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "old",
            "rehearsed aside"
        );
        assert_eq!(names(d.path()), ["r.txt"], "the rehearsal's file is gone");
        o.commit(b"new").unwrap();
        assert!(o.is_finished());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        let mode = std::fs::metadata(&p).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o640, "the old file's mode is kept");
        assert_eq!(names(d.path()), ["r.txt"]);
        Output::create(&d.path().join("n.txt")).unwrap();
        assert!(!d.path().join("n.txt").exists(), "create makes no file");
    }

    #[test]
    fn create_if_absent_makes_an_empty_file_and_leaves_what_exists() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.txt");
        let o = Output::create(&p).unwrap();
        o.create_if_absent().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"", "made empty");
        o.commit(b"report\n").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "report\n");
        let o = Output::create(&p).unwrap();
        o.create_if_absent().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "report\n", "old kept");
        // a link planted after the check is not followed
        let target = d.path().join("precious");
        std::fs::write(&target, "mine").unwrap();
        let lnk = d.path().join("lnk");
        let o = Output::create(&lnk).unwrap();
        symlink(&target, &lnk).unwrap();
        o.create_if_absent().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
        assert!(std::fs::symlink_metadata(&lnk)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(names(d.path()), ["lnk", "precious", "r.txt"]);
        // a made file that stayed empty goes again; one with a report stays
        let n = d.path().join("n.txt");
        let o = Output::create(&n).unwrap();
        o.create_if_absent().unwrap();
        o.remove_if_made_empty();
        assert!(!n.exists());
        let o = Output::create(&p).unwrap();
        o.create_if_absent().unwrap();
        o.remove_if_made_empty();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "report\n",
            "not made here"
        );
    }

    #[test]
    fn grow_replaces_once_then_adds_parts_in_place_and_commit_adds_the_rest() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.txt");
        std::fs::write(&p, "old").unwrap();
        let o = Output::create(&p).unwrap();
        o.grow(b"one\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "one\n",
            "old replaced"
        );
        let ino = std::fs::metadata(&p).unwrap().ino();
        o.grow(b"two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "one\ntwo\n");
        assert_eq!(std::fs::metadata(&p).unwrap().ino(), ino, "added in place");
        assert!(!o.is_finished());
        o.commit(b"end\n").unwrap();
        assert!(o.is_finished());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "one\ntwo\nend\n");
        assert_eq!(std::fs::metadata(&p).unwrap().ino(), ino);
        assert_eq!(names(d.path()), ["r.txt"], "no temporary file left");
    }

    #[test]
    fn temporary_names_carry_their_process_and_only_they_are_parsed() {
        let prefix = temp_prefix(Path::new("d/r.json"));
        assert_eq!(prefix, format!(".r.json.{}.", std::process::id()));
        let me = std::process::id() as i32;
        assert_eq!(temp_owner(&format!("{prefix}aB3xYz.iomark-tmp")), Some(me));
        assert_eq!(temp_owner(".a.b.log.42.zzzzzz.iomark-tmp"), Some(42));
        for other in [
            ".r.json.42.abc12.iomark-tmp",
            ".r.json.42.abc-12.iomark-tmp",
            "r.json.42.abcdef.iomark-tmp",
            ".r.json.abcdef.iomark-tmp",
            "..42.abcdef.iomark-tmp",
            ".r.json.0.abcdef.iomark-tmp",
            ".r.json.42.abcdef.iomark-tmp~",
            ".r.json.4x2.abcdef.iomark-tmp",
        ] {
            assert_eq!(temp_owner(other), None, "{other}");
        }
    }

    #[test]
    fn links_and_non_files_are_refused_up_front() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("precious");
        std::fs::write(&target, "mine").unwrap();
        symlink(&target, d.path().join("lnk")).unwrap();
        std::fs::hard_link(&target, d.path().join("hard")).unwrap();
        std::fs::create_dir(d.path().join("dir")).unwrap();
        for (name, want) in [
            ("lnk", "is not a regular file (a symbolic link)"),
            ("hard", "has another hard link (2 names share it)"),
            ("dir", "is not a regular file (a directory)"),
        ] {
            let e = Output::create(&d.path().join(name)).unwrap_err();
            assert!(e.reason.starts_with(want), "{name}: {e}");
            assert_eq!(e.exit_code(), crate::util::error::exit::ENVIRONMENT);
        }
        let e = Output::create(Path::new("/dev/null")).unwrap_err();
        assert!(e.reason.contains("a character device"), "{e}");
        let e = Output::create(&d.path().join("no/such/dir/r.json")).unwrap_err();
        assert_eq!(e.reason, "No such file or directory");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
    }

    #[test]
    fn a_link_planted_after_the_check_is_refused_at_commit() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("precious");
        std::fs::write(&target, "mine").unwrap();
        let p = d.path().join("out");
        let o = Output::create(&p).unwrap();
        let mut s = o.stage().unwrap();
        s.put(b"log line\n");
        symlink(&target, &p).unwrap();
        let e = s.commit().unwrap_err();
        assert_eq!(e.stage, Stage::Write);
        assert_eq!(e.exit_code(), crate::util::error::exit::FAILED);
        assert!(e.reason.contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
        assert_eq!(
            names(d.path()),
            ["out", "precious"],
            "no temporary file left"
        );
        // an uncommitted staged file leaves nothing behind either
        std::fs::remove_file(&p).unwrap();
        let o = Output::create(&p).unwrap();
        drop(o.stage().unwrap());
        assert_eq!(names(d.path()), ["precious"]);
    }

    #[test]
    fn a_staged_file_has_no_name_until_its_commit_and_the_fallback_is_named() {
        for unnamed in [true, false] {
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("log");
            std::fs::write(&p, "old").unwrap();
            let o = Output::create(&p).unwrap();
            let t = Temp::new(&o.dir, &p, unnamed).unwrap();
            assert_eq!(matches!(t, Temp::Unnamed(..)), unnamed, "O_TMPFILE here");
            let mut s = Staged {
                path: p.clone(),
                file: std::io::BufWriter::new(t),
                error: None,
            };
            s.put(b"new\n");
            s.flush().unwrap();
            let during = names(d.path());
            if unnamed {
                assert_eq!(during, ["log"], "an unnamed file shows no name");
            } else {
                assert_eq!(during.len(), 2, "{during:?}");
                assert!(
                    during[0].starts_with(".log.") && during[0].ends_with(".iomark-tmp"),
                    "{during:?}"
                );
            }
            assert_eq!(std::fs::read_to_string(&p).unwrap(), "old", "{unnamed}");
            s.commit().unwrap();
            assert_eq!(std::fs::read_to_string(&p).unwrap(), "new\n", "{unnamed}");
            assert_eq!(names(d.path()), ["log"], "{unnamed}: nothing left beside");
        }
    }

    #[test]
    fn planted_charts_and_a_file_as_plot_directory_are_refused_at_once() {
        let d = tempfile::tempdir().unwrap();
        let charts = d.path().join("charts");
        std::fs::create_dir(&charts).unwrap();
        std::fs::write(d.path().join("victim"), b"keep").unwrap();
        std::fs::write(charts.join("notes.txt"), b"x").unwrap();
        assert_eq!(ensure_dir(&charts, "--plot"), Ok(()), "no chart-named link");
        symlink(d.path().join("victim"), charts.join("a-throughput.svg")).unwrap();
        let e = ensure_dir(&charts, "--plot").unwrap_err();
        assert!(e.contains("a-throughput.svg is a symbolic link"), "{e}");
        std::fs::remove_file(charts.join("a-throughput.svg")).unwrap();
        std::fs::hard_link(d.path().join("victim"), charts.join("b-latency.svg")).unwrap();
        let e = ensure_dir(&charts, "--plot").unwrap_err();
        assert!(e.contains("b-latency.svg is a hard-linked file"), "{e}");
        std::fs::remove_file(charts.join("b-latency.svg")).unwrap();
        let fifo =
            std::ffi::CString::new(charts.join("c-device.svg").as_os_str().as_encoded_bytes())
                .unwrap();
        // SAFETY: mkfifo(3) on a path of our own temporary directory
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let e = ensure_dir(&charts, "--plot").unwrap_err();
        assert!(e.contains("c-device.svg is a FIFO"), "{e}");
        std::fs::remove_file(charts.join("c-device.svg")).unwrap();
        let e = ensure_dir(&d.path().join("victim"), "--plot").unwrap_err();
        assert!(
            e.ends_with("victim: is a regular file: a directory is expected"),
            "{e}"
        );
        symlink(d.path().join("victim"), d.path().join("ln")).unwrap();
        let e = ensure_dir(&d.path().join("ln"), "--plot").unwrap_err();
        assert!(
            e.ends_with(
                "ln: is a symbolic link: iomark never writes through one; give a directory"
            ),
            "{e}"
        );
        assert_eq!(std::fs::read(d.path().join("victim")).unwrap(), b"keep");
    }

    #[test]
    fn plot_directory_is_created_one_level_only() {
        let d = tempfile::tempdir().unwrap();
        ensure_dir(&d.path().join("charts"), "--plot").unwrap();
        assert!(d.path().join("charts").is_dir());
        ensure_dir(&d.path().join("charts"), "--plot").unwrap();
        let e = ensure_dir(&d.path().join("a/b"), "--plot").unwrap_err();
        assert!(
            e.starts_with("--plot=") && e.contains(": cannot create the directory: "),
            "{e}"
        );
        assert!(!d.path().join("a").exists());
    }
}
