//! The only place that creates, writes, deletes or opens benchmark files.
//!
//! `fileset` owns sysbench's `test_file.<i>` set (prepare, open for run, cleanup);
//! `preflight` checks what the environment allows before anything is written;
//! `blockguard` decides whether a block device may be written.

pub mod dataset;
pub mod fileset;
pub mod guard;
pub mod preflight;
pub mod scratch;


/// `strerror(errno)` text, e.g. "No such file or directory".
pub fn strerror(errno: i32) -> String {
    let s = std::io::Error::from_raw_os_error(errno).to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn strerror_text() {
        assert_eq!(super::strerror(2), "No such file or directory");
        assert_eq!(super::strerror(22), "Invalid argument");
    }
}
