//! Input files — job files, `compare` results, `diagnose --fixture` manifests, the
//! results `mark` reads back, fio's verify state: the one bounded reader (in util/ so
//! that every room reading an input — job files, compare, the verify state — uses it;
//! what is created, written or removed stays in files/).
//!
//! The file is opened with `O_NONBLOCK` (so a FIFO with no writer cannot block the
//! open) and must be a regular file or a FIFO: a socket, device or directory given as
//! input is one clear error at once. A FIFO — bash's `<(printf …)`, a named pipe — is
//! data to read once, as fio reads it: it is then read blocking until its writer
//! closes it (a FIFO with no writer reads as empty at once, never a hang). Either is
//! read up to a bound, so a huge or endless input is an error instead of exhausting
//! memory. Standard input (`-` for job files) is read by its caller, with the same
//! bound.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Most bytes [`read_text`] reads from a result, job or fixture file (64 MiB): far
/// above any real one.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Read the UTF-8 text file `path` of at most `max` bytes. Refused at once, with
/// `InvalidInput` naming what it is, when `path` is not a regular file (symbolic links
/// to regular files are followed: an input is only read); longer input fails with
/// `InvalidData` naming the limit, after reading at most `max + 1` bytes.
pub fn read_text(path: &Path, max: u64) -> std::io::Result<String> {
    let f = open_regular(path)?;
    let mut text = String::new();
    f.take(max + 1).read_to_string(&mut text)?;
    if text.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "larger than {} (not a result, job or fixture file)",
                crate::util::text::iec(max)
            ),
        ));
    }
    Ok(text)
}

/// Read the text file `path` (a job file) of at most `max` bytes, with the refusals of
/// [`read_text`], bytes that are not UTF-8 each read as U+FFFD (a comment, or a value,
/// may be in any encoding).
pub fn read_text_lossy(path: &Path, max: u64) -> std::io::Result<String> {
    let bytes = read_bytes(path, max)?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Read the binary file `path` (fio's verify state) of at most `max` bytes, with the
/// refusals of [`read_text`].
pub fn read_bytes(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_regular(path)?.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {}", crate::util::text::iec(max)),
        ));
    }
    Ok(bytes)
}

/// Open `path` for reading without blocking, refusing anything but a regular file or a
/// FIFO; a FIFO is then switched to blocking reads (its writer's data is awaited).
fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::FileTypeExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let t = f.metadata()?.file_type();
    if t.is_fifo() {
        // SAFETY: fcntl on a descriptor we own, clearing O_NONBLOCK only.
        let fd = f.as_raw_fd();
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
        return Ok(f);
    }
    if !t.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("is not a regular file ({}); give a file", kind_name(t)),
        ));
    }
    Ok(f)
}

/// What a file type is, in words: `a symbolic link`, `a directory`, `a FIFO`, …
pub fn kind_name(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_file() {
        "a regular file"
    } else {
        "an unknown file type"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_are_read_once_devices_and_directories_refused() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("f");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // no writer: empty at once, no hang (the call returns)
        assert_eq!(read_text(&fifo, MAX_INPUT_BYTES).unwrap(), "");
        // a writer that does not end: read up to the bound, then refused (O_RDWR opens
        // a FIFO without waiting for a reader on Linux; 12 KiB fit in its buffer)
        use std::io::Write;
        let mut w = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&fifo)
            .unwrap();
        w.write_all(&[b'x'; 3 * 4096]).unwrap();
        let e = read_text(&fifo, 4096).unwrap_err();
        assert!(e.to_string().starts_with("larger than 4.0 KiB"), "{e}");
        let e = read_text(Path::new("/dev/zero"), MAX_INPUT_BYTES).unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
        let e = read_text(d.path(), MAX_INPUT_BYTES).unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
    }

    #[test]
    fn regular_files_are_read_up_to_the_bound() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("job.fio");
        std::fs::write(&p, "[j]\nrw=read\n").unwrap();
        assert_eq!(read_text(&p, 100).unwrap(), "[j]\nrw=read\n");
        let e = read_text(&p, 4).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().starts_with("larger than 4 B"), "{e}");
        let l = d.path().join("link");
        std::os::unix::fs::symlink(&p, &l).unwrap();
        assert!(read_text(&l, 100).is_ok(), "a link to a file is read");
    }
}
