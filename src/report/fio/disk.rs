//! fio's top-level `time` string: `ctime()` of the report time, local time, without
//! the newline (fio 3.33 `stat.c`).

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
    fn ctime_shape() {
        let s = ctime(1_796_051_018);
        let f: Vec<&str> = s.split_whitespace().collect();
        assert_eq!(f.len(), 5, "{s}");
        assert_eq!(f[4], "2026");
        assert!(["Mon", "Tue", "Sun"].contains(&f[0]), "{s}");
        assert_eq!(f[3].len(), 8);
    }
}
