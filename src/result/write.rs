//! The one writer of output files. [`write_file`] is the primitive every output goes
//! through (`--json`, `--output`, `--plot` charts): a temp file in the same directory,
//! then a rename, so readers never see a half-written file and nothing is written
//! through a device, FIFO or symbolic link. [`ResultFile`] is the `--json=FILE` of a
//! run: created with the `{"status": "running"}` placeholder before the work (a bad path
//! fails fast), replaced by the result at the end, also after an interruption.
//!
//! When the safe-create of `files/output.rs` lands, [`write_file`] is the one line to
//! switch over.

use super::SCHEMA_VERSION;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Write `bytes` to `path` atomically (temp file in the same directory, then rename).
/// Refuses to replace anything that is not a plain file (`--json=/dev/null`, a symlink:
/// the target of a link stays the user's).
pub fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_bytes(path, bytes)
}

fn write_atomic_bytes(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Ok(m) = std::fs::symlink_metadata(path) {
        if !m.file_type().is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "exists and is not a regular file (a device, directory, FIFO or symbolic link); give a new or regular file",
            ));
        }
    }
    let tmp = path.with_file_name(format!(
        ".{}.iomark-tmp.{}",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "result".into()),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// `value` as pretty JSON with a final newline (the layout of every JSON file iomark
/// writes).
pub fn json_text<T: Serialize>(value: &T) -> std::io::Result<String> {
    serde_json::to_string_pretty(value)
        .map(|t| t + "\n")
        .map_err(std::io::Error::other)
}

/// The `--json=FILE` of a run (see the module header).
#[derive(Debug, Clone)]
pub struct ResultFile(PathBuf);

impl ResultFile {
    /// Write the placeholder to `path`.
    pub fn create(path: &Path) -> std::io::Result<ResultFile> {
        let p = serde_json::json!({"schema_version": SCHEMA_VERSION, "tool": "iomark", "status": "running"});
        write_file(path, json_text(&p)?.as_bytes())?;
        Ok(ResultFile(path.to_path_buf()))
    }

    /// Replace the placeholder with the result's JSON (report/iomark_json.rs).
    pub fn replace(&self, json: &[u8]) -> std::io::Result<()> {
        write_file(&self.0, json)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_leaves_only_the_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        write_file(
            &p,
            json_text(&serde_json::json!({"a": 1})).unwrap().as_bytes(),
        )
        .unwrap();
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(v["a"], 1);
    }

    #[test]
    fn placeholder_then_result() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        let f = ResultFile::create(&p).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(
            (v["status"].as_str(), v["schema_version"].as_u64()),
            (Some("running"), Some(2))
        );
        let r = crate::result::build(crate::result::Inputs::new(
            "copy",
            &[],
            crate::result::Status::Ok,
        ));
        f.replace(json_text(&r).unwrap().as_bytes()).unwrap();
        let back: crate::result::RunResult =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(back.command, "copy");
        assert!(ResultFile::create(Path::new("/dev/null")).is_err());
    }
}
