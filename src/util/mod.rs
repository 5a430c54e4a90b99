//! What every room may use (docs/ARCHITECTURE.md): the one [`error::Error`] and the exit
//! codes ([`error`]), standard output with its one rule for
//! write errors ([`output`], and the `out!`/`outln!` macros), sysbench's console
//! ([`console`]), the colour decision and styles of tables ([`color`]), `strerror` and errno
//! names ([`errno`]), fio's `--debug` trace switch and line ([`debug`]), names made visible in
//! reports ([`text`]), the bounded reader of input files ([`input`]), aligned I/O buffers ([`buffers`]: the
//! engines' requests and the layout of files/ use them), the engines as jobs name them
//! and their option types ([`engines`]: the job model parses into them, engine/ runs by them).
//! Nothing here names another room.

pub mod buffers;
pub mod color;
pub mod console;
pub mod debug;
pub mod engines;
pub mod errno;
pub mod error;
pub mod fault;
pub mod input;
pub mod output;
pub mod text;

/// The name this binary was invoked under (the file name of `argv[0]`): `fio` or
/// `sysbench` for the personas (a symlink or copy of the binary under that name). The
/// one reading of it: `main` dispatches on it, run/signals.rs arms SIGINT by it.
pub fn invoked_as() -> Option<String> {
    std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
}

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
