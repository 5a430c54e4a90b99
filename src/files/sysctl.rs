//! Kernel settings iomark changes for the length of a run and puts back: a value
//! written under `/proc/sys` ([`Setting::set`]) is restored when the [`Setting`] is
//! dropped (the end of the run, an error, a stop signal the command handled, a panic);
//! only SIGKILL leaves it changed (docs/commands/time.md says so). `iomark time` turns
//! `kernel.task_delayacct` on this way. The current value is read by probe/, which
//! reads procfs; here only the write.

use std::io::Write;
use std::path::PathBuf;

/// A setting changed for the run: restored to `old` on drop.
#[derive(Debug)]
pub struct Setting {
    path: PathBuf,
    old: String,
    /// whether drop still puts `old` back
    restore: bool,
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
        })
    }

    /// Put the old value back now (also what drop does); the write's error.
    pub fn restore(mut self) -> std::io::Result<()> {
        self.restore = false;
        write(&self.path, &self.old)
    }
}

impl Drop for Setting {
    fn drop(&mut self) {
        if self.restore {
            let _ = write(&self.path, &self.old);
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
}
