//! Leftovers of an earlier iomark that was killed before its cleanup could run (SIGKILL,
//! a crash, a power cut): a scratch directory named for its process, `PREFIX.PID`
//! (`iomark-mark.4242`), still holding iomark's own files. iomark marks what it owns by
//! name alone — the directory made new (`mkdir`) under `PREFIX.PID` and each file in it
//! created with `O_EXCL` under one of the command's own names — so a leftover is taken
//! for iomark's only when everything says so: the name `PREFIX.PID` exactly, the process
//! PID gone (`kill(PID, 0)` says no such process; a live one, whatever it runs, is
//! left alone and not named), a directory (not a link to one) owned by this user,
//! holding nothing but regular files under the command's own names, each with one link
//! (a hard link elsewhere would keep bytes iomark did not write reachable by another
//! name) and owned by this user. Such a directory is removed — its files, then the
//! directory — through descriptors opened without following links; anything else named
//! `PREFIX.PID` of a gone process is left as found and named in one line saying why.

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The name of `mark`'s scratch directory before its `.PID`.
pub const MARK_DIR: &str = "iomark-mark";

/// `mark`'s own files in its scratch directory: the presets' test file (sysbench's
/// name for file 0 of a set, files/fileset.rs `path`) and the sustained write's file.
pub const MARK_FILES: [&str; 2] = ["test_file.0", "sustained.0"];

/// What was found of one leftover `PREFIX.PID` of a process that is gone.
#[derive(Debug, PartialEq, Eq)]
pub enum Leftover {
    /// removed: its files (name, bytes), all iomark's own
    Removed {
        /// the directory
        path: PathBuf,
        /// the process that made it
        pid: i32,
        /// its files, each name and size
        files: Vec<(String, u64)>,
    },
    /// left as found, and why
    Kept {
        /// the directory (or what stands under its name)
        path: PathBuf,
        /// the process that made it
        pid: i32,
        /// why it is not taken for iomark's own
        why: String,
    },
}

impl Leftover {
    /// The one line a command says of it (`cmd`: `iomark mark`).
    pub fn line(&self, cmd: &str) -> String {
        match self {
            Leftover::Removed { path, pid, files } => {
                let held = if files.is_empty() {
                    "nothing".to_string()
                } else {
                    let f: Vec<String> = files
                        .iter()
                        .map(|(n, b)| format!("{n} ({})", crate::util::text::iec(*b)))
                        .collect();
                    format!("only its own {}", f.join(", "))
                };
                format!("{cmd}: removed {}, left by {cmd} process {pid}, which is gone (killed before its cleanup); it held {held}", path.display())
            }
            Leftover::Kept { path, pid, why } => format!(
                "{cmd}: left {} as found: its process {pid} is gone, but {why}; remove it yourself if it is not needed",
                path.display()
            ),
        }
    }
}

/// Whether process `pid` is alive: `kill(pid, 0)` finds it (or finds it and may not
/// signal it, `EPERM`); only "no such process" (`ESRCH`) is gone.
fn alive(pid: i32) -> bool {
    let Some(p) = rustix::process::Pid::from_raw(pid) else {
        return true;
    };
    !matches!(
        rustix::process::test_kill_process(p),
        Err(e) if e == rustix::io::Errno::SRCH
    )
}

/// The PID of entry `name` when it is `PREFIX.PID` exactly (digits, no sign).
fn pid_of(name: &[u8], prefix: &str) -> Option<i32> {
    let rest = name.strip_prefix(prefix.as_bytes())?.strip_prefix(b".")?;
    if rest.is_empty() || !rest.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(rest).ok()?.parse().ok()
}

/// Find the leftovers `PREFIX.PID` in `parent` whose process is gone, and remove each
/// that holds nothing but `own` names (see the module); the others are kept. A live
/// process's directory, this process's own, and names of another shape are not looked
/// at. An unreadable `parent` finds nothing.
pub fn sweep(parent: &Path, prefix: &str, own: &[&str]) -> Vec<Leftover> {
    let Ok(c) = CString::new(parent.as_os_str().as_bytes()) else {
        return vec![];
    };
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let Ok(pfd) = rustix::fs::open(c.as_c_str(), flags, Mode::empty()) else {
        return vec![];
    };
    let me = std::process::id() as i32;
    let mut found: Vec<(CString, i32)> = names(&pfd)
        .into_iter()
        .filter_map(|n| Some((pid_of(n.to_bytes(), prefix)?, n)))
        .filter(|(pid, _)| *pid != me && !alive(*pid))
        .map(|(pid, n)| (n, pid))
        .collect();
    found.sort();
    found
        .into_iter()
        .map(|(name, pid)| {
            let path = parent.join(std::ffi::OsStr::from_bytes(name.to_bytes()));
            match take(&pfd, &name, own) {
                Ok(files) => Leftover::Removed { path, pid, files },
                Err(why) => Leftover::Kept { path, pid, why },
            }
        })
        .collect()
}

/// The entry names of directory `fd` (without `.` and `..`).
fn names(fd: &OwnedFd) -> Vec<CString> {
    let Ok(dup) = rustix::io::dup(fd) else {
        return vec![];
    };
    let Ok(mut dir) = rustix::fs::Dir::new(dup) else {
        return vec![];
    };
    let mut v = vec![];
    while let Some(Ok(e)) = dir.next() {
        let n = e.file_name();
        if n.to_bytes() != b"." && n.to_bytes() != b".." {
            v.push(n.to_owned());
        }
    }
    v
}

/// Remove leftover `name` of `parent` when it is iomark's own (its files, then it):
/// `Ok` the files removed (name, bytes), `Err` why it is kept (nothing removed).
fn take(parent: &OwnedFd, name: &CStr, own: &[&str]) -> Result<Vec<(String, u64)>, String> {
    let uid = rustix::process::geteuid().as_raw();
    let st = rustix::fs::statat(parent.as_fd(), name, AtFlags::SYMLINK_NOFOLLOW)
        .map_err(|e| format!("it cannot be looked at ({e})"))?;
    if FileType::from_raw_mode(st.st_mode) != FileType::Directory {
        return Err(
            "it is not a directory (iomark makes one there; a link is never followed)".into(),
        );
    }
    if st.st_uid != uid {
        return Err(format!("it belongs to user {}, not to this one", st.st_uid));
    }
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let dfd = rustix::fs::openat(parent.as_fd(), name, flags, Mode::empty())
        .map_err(|e| format!("it cannot be opened ({e})"))?;
    let files = own_files(&dfd, own, uid)?;
    for (n, _) in &files {
        rustix::fs::unlinkat(dfd.as_fd(), n.as_str(), AtFlags::empty())
            .map_err(|e| format!("{n} could not be removed ({e})"))?;
    }
    rustix::fs::unlinkat(parent.as_fd(), name, AtFlags::REMOVEDIR)
        .map_err(|e| format!("the directory could not be removed ({e})"))?;
    Ok(files)
}

/// The files of leftover directory `dir` (name, bytes) when every entry is one of
/// `own`, a regular file with one link owned by `uid`; else why not.
fn own_files(dir: &OwnedFd, own: &[&str], uid: u32) -> Result<Vec<(String, u64)>, String> {
    let mut files = vec![];
    for n in names(dir) {
        let shown = String::from_utf8_lossy(n.to_bytes()).into_owned();
        let not_own = || {
            format!(
                "it holds {shown:?}, which is not one of iomark's own files ({})",
                own.join(", ")
            )
        };
        if !own.contains(&shown.as_str()) {
            return Err(not_own());
        }
        let st = rustix::fs::statat(dir.as_fd(), n.as_c_str(), AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| format!("its {shown} cannot be looked at ({e})"))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(format!(
                "its {shown} is not a regular file (a link is never followed)"
            ));
        }
        if st.st_nlink != 1 {
            return Err(format!(
                "its {shown} has {} links (another name reaches its bytes)",
                st.st_nlink
            ));
        }
        if st.st_uid != uid {
            return Err(format!(
                "its {shown} belongs to user {}, not to this one",
                st.st_uid
            ));
        }
        files.push((shown, st.st_size as u64));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The PID of a reaped child: a process that is gone.
    fn gone_pid() -> i32 {
        let mut c = std::process::Command::new("true").spawn().unwrap();
        c.wait().unwrap();
        c.id() as i32
    }

    #[test]
    fn only_the_exact_name_gives_a_pid() {
        assert_eq!(pid_of(b"iomark-mark.42", "iomark-mark"), Some(42));
        for n in [
            "iomark-mark.",
            "iomark-mark.+4",
            "iomark-mark.4x",
            "iomark-markx.4",
            "iomark-mark",
        ] {
            assert_eq!(pid_of(n.as_bytes(), "iomark-mark"), None, "{n}");
        }
    }

    /// A gone process's directory holding only iomark's own file is removed; one of a
    /// live process (this test's) is untouched and not named; one with another file, a
    /// symbolic link in place of the directory, a hard-linked own file are kept and named.
    #[test]
    fn a_gone_processs_own_leftover_is_removed_and_nothing_else() {
        let t = tempfile::tempdir().unwrap();
        let own = ["test_file.0", "sustained.0"];
        let (g1, g2, g3, g4) = (gone_pid(), gone_pid(), gone_pid(), gone_pid());
        let dead = t.path().join(format!("iomark-mark.{g1}"));
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("test_file.0"), [7u8; 4096]).unwrap();
        let live = t.path().join(format!("iomark-mark.{}", std::process::id()));
        std::fs::create_dir(&live).unwrap();
        std::fs::write(live.join("test_file.0"), b"x").unwrap();
        let other = t.path().join(format!("iomark-mark.{g2}"));
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("notes.txt"), b"mine").unwrap();
        let target = t.path().join("elsewhere");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("test_file.0"), b"theirs").unwrap();
        let link = t.path().join(format!("iomark-mark.{g3}"));
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let hard = t.path().join(format!("iomark-mark.{g4}"));
        std::fs::create_dir(&hard).unwrap();
        std::fs::hard_link(target.join("test_file.0"), hard.join("test_file.0")).unwrap();
        let found = sweep(t.path(), "iomark-mark", &own);
        assert!(
            found.contains(&Leftover::Removed {
                path: dead.clone(),
                pid: g1,
                files: vec![("test_file.0".into(), 4096)],
            }),
            "{found:#?}"
        );
        assert!(!dead.exists());
        assert!(
            live.join("test_file.0").exists(),
            "a live process's directory is untouched"
        );
        assert_eq!(found.len(), 4, "{found:#?}");
        for (p, why) in [
            (&other, "which is not one of iomark's own files"),
            (&link, "it is not a directory"),
            (&hard, "has 2 links"),
        ] {
            let k = found
                .iter()
                .find(|l| matches!(l, Leftover::Kept { path, .. } if path == p));
            let Some(Leftover::Kept { why: w, .. }) = k else {
                panic!("{p:?}: {found:#?}")
            };
            assert!(w.contains(why), "{w}");
        }
        assert_eq!(std::fs::read(other.join("notes.txt")).unwrap(), b"mine");
        assert_eq!(
            std::fs::read(target.join("test_file.0")).unwrap(),
            b"theirs"
        );
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }
}
