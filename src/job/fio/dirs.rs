//! fio 3.33's reading of `directory=` and `opendir=` under the fio persona: their option
//! callbacks look at the file system while the job is read — lstat(2) of each directory
//! of the list, opendir's walk counting the regular files it adds — so a job naming a
//! missing directory is refused with fio's lines before any job runs, and opendir's
//! count is said before the job's section line. Read-only: nothing here opens a file or
//! follows a link. What may not live here: the run's own listing of opendir's files
//! (run/fio/plan.rs) and `iomark run`'s checks (files/dataset.rs).

use std::path::{Path, PathBuf};

/// A `directory=` list fio 3.33 refuses: its line for the first name that lstat(2)
/// does not find a directory (a link to one is no directory to lstat), and the errno
/// when lstat itself failed (fio then also prints its account of the call on stdout,
/// [`lstat_account`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotDirectory {
    /// `fio: NAME is not a directory`
    pub line: String,
    /// lstat's errno, `None` when the name is something other than a directory
    pub errno: Option<i32>,
}

/// fio's refusal of the first of `dirs` that is not a directory, if any.
pub fn first_not_directory(dirs: &[PathBuf]) -> Option<NotDirectory> {
    dirs.iter().find_map(|d| {
        let errno = match std::fs::symlink_metadata(d) {
            Ok(m) if m.file_type().is_dir() => return None,
            Ok(_) => None,
            Err(e) => Some(e.raw_os_error().unwrap_or(libc::EIO)),
        };
        Some(NotDirectory {
            line: format!("fio: {} is not a directory", d.display()),
            errno,
        })
    })
}

/// fio's stdout account of the lstat(2) that failed with `errno` in its `directory`
/// callback (options.c's `str_directory_cb`).
pub fn lstat_account(errno: i32) -> String {
    format!(
        "fio: file:options.c:1457, func=lstat, error={}",
        crate::util::strerror(errno)
    )
}

/// The count of regular files fio's `opendir` callback adds under `dir`, recursing into
/// its subdirectories (links neither counted nor followed; an entry gone meanwhile is
/// skipped), or fio's stdout account of the call that failed: a directory it cannot
/// open (`file:filesetup.c:1977, func=opendir(D), error=TEXT`, D as fio joins it), an
/// entry lstat(2) fails on otherwise than ENOENT (`func=stat`).
pub fn opendir_count(dir: &str) -> Result<usize, String> {
    let account = |line: u32, func: &str, e: &std::io::Error| {
        format!(
            "fio: file:filesetup.c:{line}, func={func}, error={}",
            crate::util::strerror(e.raw_os_error().unwrap_or(libc::EIO))
        )
    };
    let mut count = 0;
    let mut todo = vec![dir.to_string()];
    while let Some(d) = todo.pop() {
        let entries = std::fs::read_dir(Path::new(&d))
            .map_err(|e| account(1977, &format!("opendir({d})"), &e))?;
        for entry in entries.flatten() {
            let path = format!("{d}/{}", entry.file_name().to_string_lossy());
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.file_type().is_file() => count += 1,
                Ok(m) if m.file_type().is_dir() => todo.push(path),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(account(1992, "stat", &e)),
            }
        }
    }
    Ok(count)
}

/// fio's stdout line after its opendir callback added `n` files.
pub fn opendir_added(n: usize) -> String {
    format!("fio: opendir added {n} files")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_name_a_file_and_a_link_are_no_directory_as_lstat_sees_them() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(d.path().join("f"), b"x").unwrap();
        std::os::unix::fs::symlink(&sub, d.path().join("l")).unwrap();
        assert_eq!(first_not_directory(std::slice::from_ref(&sub)), None);
        let missing = d.path().join("zz");
        let got = first_not_directory(&[sub.clone(), missing.clone()]).unwrap();
        assert_eq!(
            got.line,
            format!("fio: {} is not a directory", missing.display())
        );
        assert_eq!(got.errno, Some(libc::ENOENT));
        for name in ["f", "l"] {
            let got = first_not_directory(&[d.path().join(name)]).unwrap();
            assert_eq!(got.errno, None, "{name}");
        }
        assert_eq!(
            lstat_account(libc::ENOENT),
            "fio: file:options.c:1457, func=lstat, error=No such file or directory"
        );
    }

    #[test]
    fn opendir_counts_regular_files_down_the_tree_and_names_the_failed_call() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("r");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        for f in ["x", "a/y", "a/b/z"] {
            std::fs::write(root.join(f), b"1").unwrap();
        }
        std::os::unix::fs::symlink(root.join("x"), root.join("link")).unwrap();
        let r = root.display().to_string();
        assert_eq!(opendir_count(&r), Ok(3));
        assert_eq!(opendir_added(3), "fio: opendir added 3 files");
        let missing = format!("{r}/zz");
        assert_eq!(
            opendir_count(&missing),
            Err(format!(
                "fio: file:filesetup.c:1977, func=opendir({missing}), error=No such file or directory"
            ))
        );
        let file = format!("{r}/x");
        assert_eq!(
            opendir_count(&file),
            Err(format!(
                "fio: file:filesetup.c:1977, func=opendir({file}), error=Not a directory"
            ))
        );
    }
}
