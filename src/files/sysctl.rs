//! Kernel settings iomark changes for the length of a run and puts back: a value
//! written under `/proc/sys` ([`Setting::set`]) is restored when the [`Setting`] is
//! dropped (the end of the run, an error, a stop signal the command handled, a panic);
//! only SIGKILL leaves it changed (docs/commands/time.md says so). `iomark time` turns
//! `kernel.task_delayacct` on this way. The current value is read by probe/, which
//! reads procfs; here only the write.
//!
//! Two iomark runs at once share a setting ([`Setting::share`]): the first records the
//! value it found in `/run/iomark/sysctl.NAME` (under a lock), later ones take the
//! recorded value as the old one, and the last to end (the only one that gets the lock
//! exclusively) puts it back; so no run switches the setting off under another. A run
//! killed by SIGKILL leaves the record: the next run reads the old value from it.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// A setting changed for the run: restored to `old` on drop.
#[derive(Debug)]
pub struct Setting {
    path: PathBuf,
    old: String,
    /// whether drop still puts `old` back
    restore: bool,
    /// the shared record of the old value and the users' lock, held shared for the run
    /// ([`Setting::share`])
    record: Option<(File, File)>,
}

fn flock(f: &File, op: libc::c_int) -> bool {
    // SAFETY: flock on a file descriptor this process owns.
    unsafe { libc::flock(f.as_raw_fd(), op) == 0 }
}

/// The record of sysctl `name` shared by concurrent runs (`ROOT/run/iomark/sysctl.NAME`,
/// `suffix` "" for the recorded value, ".users" for the lock each run holds shared; a
/// directory 0700 and files 0600 of root's, never through a symlink).
fn open_record(root: &Path, name: &str, suffix: &str) -> std::io::Result<File> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let dir = root.join("run/iomark");
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)?;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(dir.join(format!("sysctl.{name}{suffix}")))
}

/// Write `value` to the file of sysctl `name` (`kernel.task_delayacct` →
/// `/proc/sys/kernel/task_delayacct`) under `root`.
fn write(path: &std::path::Path, value: &str) -> std::io::Result<()> {
    // a procfs file: opened without O_CREAT or O_TRUNC, written once
    let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
    f.write_all(value.as_bytes())
}

/// The file of sysctl `name` under `root` (`/` on this machine).
pub fn path(root: &std::path::Path, name: &str) -> PathBuf {
    root.join("proc/sys").join(name.replace('.', "/"))
}

impl Setting {
    /// Set sysctl `name` (under `root`) to `value`, its current value being `old`; the
    /// write's error (EACCES: not root, EROFS: a read-only /proc/sys) otherwise.
    pub fn set(
        root: &std::path::Path,
        name: &str,
        old: &str,
        value: &str,
    ) -> std::io::Result<Setting> {
        let p = path(root, name);
        write(&p, value)?;
        Ok(Setting {
            path: p,
            old: old.trim().to_string(),
            restore: true,
            record: None,
        })
    }

    /// Set sysctl `name` to `value` for the run, shared with other iomark runs (module
    /// header): `current` reads its value now (probe/) and is called under the record's
    /// lock, so a run ending meanwhile cannot have its value taken for the old one; the
    /// old value is the one recorded by a run still going (or killed), else the current
    /// one. Without a record (no /run) it is [`Setting::set`]. The value the setting
    /// returns to is [`Setting::old`].
    pub fn share(
        root: &Path,
        name: &str,
        current: impl FnOnce() -> String,
        value: &str,
    ) -> std::io::Result<Setting> {
        let (Ok(mut rec), Ok(users)) = (
            open_record(root, name, ""),
            open_record(root, name, ".users"),
        ) else {
            return Setting::set(root, name, &current(), value);
        };
        // the record's lock is held only while a run starts or ends
        flock(&rec, libc::LOCK_EX);
        let mut old = String::new();
        let _ = rec.read_to_string(&mut old);
        if old.trim().is_empty() {
            old = current().trim().to_string();
            let _ = rec.set_len(0);
            let _ = rec.write_all(old.as_bytes());
        }
        let set = match old.trim() == value {
            true => Ok(Setting {
                path: path(root, name),
                old: old.trim().to_string(),
                restore: true,
                record: None,
            }),
            false => Setting::set(root, name, &old, value),
        };
        if set.is_ok() {
            flock(&users, libc::LOCK_SH);
        }
        flock(&rec, libc::LOCK_UN);
        set.map(|mut s| {
            s.record = Some((rec, users));
            s
        })
    }

    /// The value the setting returns to at the end.
    pub fn old(&self) -> &str {
        &self.old
    }

    /// Put the old value back now (also what drop does); the write's error. A shared
    /// setting is put back by the last run that holds it only.
    pub fn restore(mut self) -> std::io::Result<()> {
        self.restore = false;
        self.put_back()
    }

    fn put_back(&mut self) -> std::io::Result<()> {
        let Some((mut rec, users)) = self.record.take() else {
            return write(&self.path, &self.old);
        };
        flock(&rec, libc::LOCK_EX);
        // the last run holding the users' lock puts the value back and clears the record
        let last = flock(&users, libc::LOCK_EX | libc::LOCK_NB);
        let done = match last {
            true => write(&self.path, &self.old).and_then(|()| {
                rec.rewind()?;
                rec.set_len(0)
            }),
            false => Ok(()), // another run holds it: that one puts it back
        };
        flock(&users, libc::LOCK_UN);
        flock(&rec, libc::LOCK_UN);
        done
    }
}

impl Drop for Setting {
    fn drop(&mut self) {
        if self.restore {
            let _ = self.put_back();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_old_value_comes_back_on_every_path() {
        let d = tempfile::tempdir().unwrap();
        let p = path(d.path(), "kernel.task_delayacct");
        assert!(p.ends_with("proc/sys/kernel/task_delayacct"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "0\n").unwrap();
        let s = Setting::set(d.path(), "kernel.task_delayacct", "0\n", "1").unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "1\n",
            "written in place"
        );
        s.restore().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "0\n");
        // dropped (an error path, a panic): restored too
        let s = Setting::set(d.path(), "kernel.task_delayacct", "0", "1").unwrap();
        drop(s);
        assert!(std::fs::read_to_string(&p).unwrap().starts_with('0'));
        // a missing setting is an error, nothing created
        assert!(Setting::set(d.path(), "kernel.nope", "0", "1").is_err());
        assert!(!d.path().join("proc/sys/kernel/nope").exists());
    }

    /// A root whose kernel.task_delayacct reads 0, and that file.
    fn delayacct_off() -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let p = path(d.path(), "kernel.task_delayacct");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "0\n").unwrap();
        (d, p)
    }

    /// Two runs at once: the second finds the setting on and still returns it to the
    /// value the first found; the first to end leaves it on, the last puts it back. A
    /// record left by a killed run gives the next run the old value.
    #[test]
    fn overlapping_runs_put_the_first_value_back_once_the_last_ends() {
        let (d, p) = delayacct_off();
        let name = "kernel.task_delayacct";
        let read = || std::fs::read_to_string(&p).unwrap().trim().to_string();
        let a = Setting::share(d.path(), name, read, "1").unwrap();
        assert_eq!((read(), a.old()), ("1".into(), "0"));
        let b = Setting::share(d.path(), name, read, "1").unwrap();
        assert_eq!(b.old(), "0", "the recorded value, not the one b found");
        a.restore().unwrap();
        assert_eq!(read(), "1", "b still runs");
        drop(b);
        assert_eq!(read(), "0", "the last put it back");
        // a run killed without restoring: its record is the next run's old value
        let mut killed = Setting::share(d.path(), name, read, "1").unwrap();
        drop(killed.record.take()); // its files closed (locks gone) as the kernel does
        std::mem::forget(killed);
        let c = Setting::share(d.path(), name, read, "1").unwrap();
        assert_eq!(c.old(), "0");
        c.restore().unwrap();
        assert_eq!(read(), "0");
        // already on when nobody changed it: it stays on
        std::fs::write(&p, "1\n").unwrap();
        let e = Setting::share(d.path(), name, read, "1").unwrap();
        assert_eq!(e.old(), "1");
        e.restore().unwrap();
        assert_eq!(read(), "1");
    }

    /// The current value is read while the record is locked: a run that ends between
    /// another's reading and its locking cannot hand it the switched-on value as the old
    /// one (which left the setting on for good).
    #[test]
    fn the_current_value_is_read_under_the_records_lock() {
        let (d, p) = delayacct_off();
        let name = "kernel.task_delayacct";
        let locked = std::cell::Cell::new(None);
        let s = Setting::share(
            d.path(),
            name,
            || {
                let other = open_record(d.path(), name, "").unwrap();
                locked.set(Some(!flock(&other, libc::LOCK_EX | libc::LOCK_NB)));
                std::fs::read_to_string(&p).unwrap()
            },
            "1",
        )
        .unwrap();
        assert_eq!(locked.get(), Some(true), "read under the lock");
        assert_eq!(s.old(), "0");
        drop(s);
        assert_eq!(std::fs::read_to_string(&p).unwrap().trim(), "0");
    }
}
