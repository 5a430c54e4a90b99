//! The results history on disk: one RunResult file per completed run in the user's
//! data directory, `$XDG_DATA_HOME/iomark/results/` (the `directories` crate's data
//! directory, `~/.local/share` without XDG_DATA_HOME), or `IOMARK_RESULTS` when set;
//! `IOMARK_HISTORY=off` (or `--no-history`) keeps nothing. Each file is written as
//! every output is (files/output.rs: a temporary file renamed into place, never
//! through a link), under a name no other run takes (date, time, command, process
//! id), so two runs at once both land and a reader sees old or complete files only.
//! What a file holds and how runs are matched is result/history.rs's and
//! report/history.rs's; this module only places, lists and removes the files.

use std::path::{Path, PathBuf};

/// The environment variable that names the history directory.
pub const DIR_VAR: &str = "IOMARK_RESULTS";
/// The environment variable that turns the history off (`off`, `0`, `no`, `false`).
pub const SWITCH_VAR: &str = "IOMARK_HISTORY";

/// Whether the environment leaves the history on.
pub fn enabled() -> bool {
    !std::env::var(SWITCH_VAR).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "no" | "false"
        )
    })
}

/// The history directory: `IOMARK_RESULTS`, else `DATA_DIR/iomark/results`; None when
/// neither is known (no home directory).
pub fn dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os(DIR_VAR).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    let base = directories::BaseDirs::new()?;
    Some(base.data_dir().join("iomark").join("results"))
}

/// Make `dir` and its missing parents (0700 for the ones made: results name the
/// machine); a path that exists and is not a directory is refused.
fn make_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt;
    if let Ok(m) = std::fs::symlink_metadata(dir) {
        if m.is_dir() || dir.is_dir() {
            return Ok(());
        }
        return Err(format!(
            "{} is {}: a directory is expected",
            dir.display(),
            crate::util::input::kind_name(m.file_type())
        ));
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

/// Write `bytes` as the history file `name` (`name.json`) in `dir`: a new name only
/// (an existing file is never replaced), atomically. The file's path, or why not.
pub fn save(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
    make_dir(dir)?;
    let path = dir.join(format!("{name}.json"));
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(format!("{} exists already", path.display()));
    }
    let out = crate::files::output::Output::create(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    out.commit(bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// Keep the result `bytes` as `name` when `on` and the environment leaves the history
/// on: the line that ends the run's output, saying where it was kept (and how to keep
/// none) or, as a warning, why it was not; None when nothing was to be kept.
pub fn keep(name: &str, bytes: &[u8], on: bool) -> Option<String> {
    if !on || !enabled() {
        return None;
    }
    let Some(dir) = dir() else {
        return Some(format!(
            "iomark: WARNING: the result was not kept in the history: no data directory is known (set {DIR_VAR})"
        ));
    };
    Some(match save(&dir, name, bytes) {
        Ok(_) => format!(
            "iomark: result kept in the history as {name} (`iomark history` lists it; {SWITCH_VAR}=off keeps none)"
        ),
        Err(e) => format!("iomark: WARNING: the result was not kept in the history: {e}"),
    })
}

/// The history's files (`*.json`, not the temporary files of a run being saved), in
/// name order, which is time order. An absent directory is an empty history.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => {
            let why = crate::util::errno::describe(&e);
            return Err(format!("cannot read {}: {why}", dir.display()));
        }
    };
    let mut v: Vec<PathBuf> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    v.sort();
    Ok(v)
}

/// Remove one history file (a regular file in the directory; never a link's target).
pub fn remove(path: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => {
            std::fs::remove_file(path).map_err(|e| format!("cannot remove {}: {e}", path.display()))
        }
        Ok(_) => Err(format!("{} is not a regular file", path.display())),
        Err(e) => Err(format!("cannot remove {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_files_are_listed_in_name_order_and_never_replaced() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("a/b/results");
        assert!(list(&dir).unwrap().is_empty(), "absent = empty");
        let b = save(&dir, "2", b"{}\n").unwrap();
        let a = save(&dir, "1", b"{}\n").unwrap();
        assert!(save(&dir, "1", b"other").is_err());
        assert_eq!(std::fs::read(&a).unwrap(), b"{}\n");
        std::fs::write(dir.join(".x.json.tmp"), "").unwrap();
        std::fs::write(dir.join("notes.txt"), "").unwrap();
        assert_eq!(list(&dir).unwrap(), vec![a.clone(), b]);
        remove(&a).unwrap();
        assert_eq!(list(&dir).unwrap().len(), 1);
        let f = d.path().join("file");
        std::fs::write(&f, "").unwrap();
        assert!(save(&f, "x", b"").is_err());
    }
}
