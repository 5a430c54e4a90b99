//! Naming the errno of a failed system call: `strerror` text and the errno symbol, so
//! every command's error line says the real cause in one form,
//! `<strerror> (<ENAME>)`, e.g. "Permission denied (EACCES)" ([`describe`]).

/// `errno` of the last failed libc call.
pub fn last_errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// errno symbols by number (those fio's `ignore_error` accepts, job/fio/keys_verify.rs).
pub const ERRNO_NAMES: &[(&str, i32)] = &[
    ("EPERM", libc::EPERM),
    ("ENOENT", libc::ENOENT),
    ("EINTR", libc::EINTR),
    ("EIO", libc::EIO),
    ("ENXIO", libc::ENXIO),
    ("E2BIG", libc::E2BIG),
    ("EBADF", libc::EBADF),
    ("EAGAIN", libc::EAGAIN),
    ("ENOMEM", libc::ENOMEM),
    ("EACCES", libc::EACCES),
    ("EFAULT", libc::EFAULT),
    ("ENOTBLK", libc::ENOTBLK),
    ("EBUSY", libc::EBUSY),
    ("EEXIST", libc::EEXIST),
    ("EXDEV", libc::EXDEV),
    ("ENODEV", libc::ENODEV),
    ("ENOTDIR", libc::ENOTDIR),
    ("ELOOP", libc::ELOOP),
    ("ENAMETOOLONG", libc::ENAMETOOLONG),
    ("EISDIR", libc::EISDIR),
    ("EINVAL", libc::EINVAL),
    ("ENFILE", libc::ENFILE),
    ("EMFILE", libc::EMFILE),
    ("ENOTTY", libc::ENOTTY),
    ("ETXTBSY", libc::ETXTBSY),
    ("EFBIG", libc::EFBIG),
    ("ENOSPC", libc::ENOSPC),
    ("ESPIPE", libc::ESPIPE),
    ("EROFS", libc::EROFS),
    ("EMLINK", libc::EMLINK),
    ("EPIPE", libc::EPIPE),
    ("EDOM", libc::EDOM),
    ("ERANGE", libc::ERANGE),
    ("ENOSYS", libc::ENOSYS),
    ("ENODATA", libc::ENODATA),
    ("ETIME", libc::ETIME),
    ("ENOLINK", libc::ENOLINK),
    ("EPROTO", libc::EPROTO),
    ("EBADMSG", libc::EBADMSG),
    ("EOVERFLOW", libc::EOVERFLOW),
    ("EILSEQ", libc::EILSEQ),
    ("EOPNOTSUPP", libc::EOPNOTSUPP),
    ("ENOTSUP", libc::ENOTSUP),
    ("ETIMEDOUT", libc::ETIMEDOUT),
    ("ESTALE", libc::ESTALE),
    ("EDQUOT", libc::EDQUOT),
    ("ENOMEDIUM", libc::ENOMEDIUM),
    ("EMEDIUMTYPE", libc::EMEDIUMTYPE),
    ("ECANCELED", libc::ECANCELED),
    ("EREMOTEIO", libc::EREMOTEIO),
];

/// The symbol of an errno (`2` → `ENOENT`); None for one not in [`ERRNO_NAMES`].
pub fn name(errno: i32) -> Option<&'static str> {
    ERRNO_NAMES
        .iter()
        .find(|(_, n)| *n == errno)
        .map(|(s, _)| *s)
}

/// An OS error as iomark prints it: `strerror` and the errno symbol,
/// "No such file or directory (ENOENT)"; other errors as they describe themselves.
pub fn describe(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => match name(n) {
            Some(sym) => format!("{} ({sym})", super::strerror(n)),
            None => format!("{} (errno {n})", super::strerror(n)),
        },
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_and_descriptions() {
        assert_eq!(super::name(libc::EACCES), Some("EACCES"));
        assert_eq!(super::name(libc::ENOTDIR), Some("ENOTDIR"));
        assert_eq!(super::name(9999), None);
        let e = std::io::Error::from_raw_os_error(libc::EPERM);
        assert_eq!(super::describe(&e), "Operation not permitted (EPERM)");
        let e = std::io::Error::from_raw_os_error(libc::ELOOP);
        assert_eq!(
            super::describe(&e),
            "Too many levels of symbolic links (ELOOP)"
        );
        let e = std::io::Error::other("short read");
        assert_eq!(super::describe(&e), "short read");
    }
}
