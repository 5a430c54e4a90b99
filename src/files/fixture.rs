//! Fixture manifests: one reviewable text file per recorded machine,
//! turned into a directory tree that a [`crate::probe::Root`] can read. It lives in
//! `files/` because it creates files; what the tree means is `probe`'s.
//!
//! Names like `0000:00:1c.4` and symlinks are awkward in some checkouts, hence a text
//! format instead of a committed tree. Line kinds: `D` directory, `F` file + newline,
//! `R` file without newline, `X` hex bytes, `M` multi-line block ended by `.`,
//! `L` symlink (target stored verbatim), `P` probe line (copied into `<dir>/probe`).
//! Used by the tests and available to anyone replaying a machine by hand; the recorded
//! machines of tests/fixtures/diagnose are built in ([`BUILT_IN`]).

use std::path::Path;

/// The recorded machines of tests/fixtures/diagnose, built into the binary so that
/// `diagnose --fixture NAME` works outside the source tree (name = file stem).
pub const BUILT_IN: &[(&str, &str)] = &[
    (
        "a-nvme-gen2-slot",
        include_str!("../../tests/fixtures/diagnose/a-nvme-gen2-slot.fixture"),
    ),
    (
        "a1-old-kernel-strings",
        include_str!("../../tests/fixtures/diagnose/a1-old-kernel-strings.fixture"),
    ),
    (
        "a2-width-x1",
        include_str!("../../tests/fixtures/diagnose/a2-width-x1.fixture"),
    ),
    (
        "a3-unknown-link",
        include_str!("../../tests/fixtures/diagnose/a3-unknown-link.fixture"),
    ),
    (
        "b-md-raid0-xfs",
        include_str!("../../tests/fixtures/diagnose/b-md-raid0-xfs.fixture"),
    ),
    (
        "c-sata-3gbps",
        include_str!("../../tests/fixtures/diagnose/c-sata-3gbps.fixture"),
    ),
    (
        "c1-ncq-off",
        include_str!("../../tests/fixtures/diagnose/c1-ncq-off.fixture"),
    ),
    (
        "d-usb3-at-480",
        include_str!("../../tests/fixtures/diagnose/d-usb3-at-480.fixture"),
    ),
    (
        "d1-no-bos",
        include_str!("../../tests/fixtures/diagnose/d1-no-bos.fixture"),
    ),
    (
        "d2-usb2-stick",
        include_str!("../../tests/fixtures/diagnose/d2-usb2-stick.fixture"),
    ),
    (
        "e-virtio-vm",
        include_str!("../../tests/fixtures/diagnose/e-virtio-vm.fixture"),
    ),
    (
        "f-no-single-block-device",
        include_str!("../../tests/fixtures/diagnose/f-no-single-block-device.fixture"),
    ),
    (
        "g-platform-nvme",
        include_str!("../../tests/fixtures/diagnose/g-platform-nvme.fixture"),
    ),
    (
        "h-rst-raid-mode",
        include_str!("../../tests/fixtures/diagnose/h-rst-raid-mode.fixture"),
    ),
    (
        "i-sd-card-high-speed",
        include_str!("../../tests/fixtures/diagnose/i-sd-card-high-speed.fixture"),
    ),
];

/// The built-in manifest called `name` (a file stem of tests/fixtures/diagnose).
pub fn built_in(name: &str) -> Option<&'static str> {
    BUILT_IN.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

/// Errors while materialising a manifest.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// A line that is none of the kinds above.
    #[error("line {line}: {why}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// Writing the tree failed.
    #[error("{path}: {source}")]
    Io {
        /// Path being written.
        path: String,
        /// Underlying error.
        source: std::io::Error,
    },
}

/// Decode a quoted value (`"…"` with `\" \\ \t \n`) or return it as is.
fn unquote(v: &str) -> String {
    let Some(inner) = v.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else {
        return v.to_string();
    };
    let mut out = String::new();
    let mut it = inner.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `rel` under `dir` (canonical: `root`) for line `n` of a manifest. A hostile manifest
/// must not write outside `dir`: no `..`, no absolute path, and the deepest existing
/// ancestor (symlinks of `L` lines resolved) must lie inside `dir`.
fn confine(
    dir: &Path,
    root: &Path,
    rel: &str,
    n: usize,
) -> Result<std::path::PathBuf, FixtureError> {
    let rel = Path::new(rel.trim().trim_start_matches('/'));
    let bad = rel.as_os_str().is_empty()
        || rel
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)));
    let escape = || FixtureError::Syntax {
        line: n + 1,
        why: format!("path '{}' leaves the fixture directory", rel.display()),
    };
    if bad {
        return Err(escape());
    }
    let p = dir.join(rel);
    let mut a = p.as_path();
    loop {
        if std::fs::symlink_metadata(a).is_ok() {
            match a.canonicalize() {
                Ok(c) if c.starts_with(root) => break,
                // a dangling link or one pointing outside: never write through it
                _ => return Err(escape()),
            }
        }
        a = a.parent().ok_or_else(escape)?;
    }
    Ok(p)
}

/// Write the tree described by `manifest` below `dir`.
pub fn materialize(manifest: &str, dir: &Path) -> Result<(), FixtureError> {
    let io = |p: &Path| {
        let path = p.display().to_string();
        move |source| FixtureError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let root = dir.canonicalize().map_err(io(dir))?;
    let confine = |rel: &str, n: usize| confine(dir, &root, rel, n);
    let write = |rel: &str, n: usize, bytes: &[u8]| -> Result<(), FixtureError> {
        let p = confine(rel, n)?;
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&p, bytes).map_err(io(&p))
    };
    let mut probe = String::new();
    let mut lines = manifest.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let line = line.trim_end();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let err = |why: &str| FixtureError::Syntax {
            line: n + 1,
            why: why.to_string(),
        };
        let (kind, rest) = line.split_once(' ').ok_or_else(|| err("no path"))?;
        match kind {
            "D" => {
                let p = confine(rest, n)?;
                std::fs::create_dir_all(&p).map_err(io(&p))?;
            }
            "F" | "R" | "X" => {
                let (path, value) = rest
                    .split_once(" = ")
                    .ok_or_else(|| err("expected `path = value`"))?;
                let bytes = file_bytes(kind, value).ok_or_else(|| err("bad hex byte"))?;
                write(path.trim(), n, &bytes)?;
            }
            "M" => {
                let body = block_body(lines.by_ref().map(|(_, l)| l))
                    .ok_or_else(|| err("multi-line block without a closing `.`"))?;
                write(rest.trim(), n, body.as_bytes())?;
            }
            "L" => {
                let (path, target) = rest
                    .split_once(" -> ")
                    .ok_or_else(|| err("expected `path -> target`"))?;
                let p = confine(path, n)?;
                if let Some(parent) = p.parent() {
                    std::fs::create_dir_all(parent).map_err(io(parent))?;
                }
                std::os::unix::fs::symlink(target.trim(), &p).map_err(io(&p))?;
            }
            "P" => {
                probe.push_str(rest.trim());
                probe.push('\n');
            }
            _ => return Err(err("unknown line kind (D F R X M L P)")),
        }
    }
    if !probe.is_empty() {
        write("probe", 0, probe.as_bytes())?;
    }
    Ok(())
}

/// The content of an `F` (a line of text), `R` (raw text, no newline) or `X` (hex
/// bytes) line's `value`; `None` for a hex word that is not a byte.
fn file_bytes(kind: &str, value: &str) -> Option<Vec<u8>> {
    match kind {
        "F" => Some(format!("{}\n", unquote(value.trim())).into_bytes()),
        "R" => Some(unquote(value.trim()).into_bytes()),
        _ => value
            .split_whitespace()
            .map(|h| u8::from_str_radix(h, 16).ok())
            .collect(),
    }
}

/// The body of an `M` block: the lines up to the one that is a lone `.`, each ended by
/// a newline; `None` when the manifest ends first.
fn block_body<'a>(lines: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut body = String::new();
    for l in lines {
        if l == "." {
            return Some(body);
        }
        body.push_str(l);
        body.push('\n');
    }
    None
}

/// Unpack `manifest` into a new private directory (`mkdtemp` in the temporary
/// directory, mode 0700: no planted name can be in it), removed with its content when
/// the returned guard is dropped.
pub fn unpack(manifest: &str) -> Result<tempfile::TempDir, FixtureError> {
    let dir = tempfile::Builder::new()
        .prefix("iomark-fixture.")
        .tempdir()
        .map_err(|source| FixtureError::Io {
            path: std::env::temp_dir().display().to_string(),
            source,
        })?;
    materialize(manifest, dir.path())?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_recorded_machine_is_built_in_and_unpacks() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diagnose");
        let mut stems: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| {
                let n = e.unwrap().file_name().into_string().unwrap();
                n.strip_suffix(".fixture").map(str::to_string)
            })
            .collect();
        stems.sort();
        let built: Vec<&str> = BUILT_IN.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            built, stems,
            "BUILT_IN lists tests/fixtures/diagnose, sorted"
        );
        for (n, m) in BUILT_IN {
            let file = std::fs::read_to_string(dir.join(format!("{n}.fixture"))).unwrap();
            assert_eq!(*m, file, "{n}");
            assert!(unpack(m).is_ok(), "{n} unpacks");
        }
        assert!(built_in("a-nvme-gen2-slot").is_some());
        assert!(built_in("no-such-machine").is_none());
    }

    #[test]
    fn unpacked_trees_are_removed_with_their_guard() {
        let d = unpack("F proc/self/mountinfo = x\n").unwrap();
        let p = d.path().to_path_buf();
        assert!(p.join("proc/self/mountinfo").is_file());
        drop(d);
        assert!(!p.exists());
        assert!(unpack("Q bad").is_err());
    }

    #[test]
    fn all_line_kinds() {
        let d = tempfile::tempdir().unwrap();
        let m = "# c\nD sys/empty\nF sys/a = \"x \\\"y\\\" \"\nR sys/b = raw\nX sys/c = 05 0f\nM proc/m\nl1\nl2\n.\nL sys/l -> ../sys/a\nP stat / dev=1:2 kind=dir\n";
        materialize(m, d.path()).unwrap();
        let r = |p: &str| std::fs::read(d.path().join(p)).unwrap();
        assert_eq!(r("sys/a"), b"x \"y\" \n");
        assert_eq!(r("sys/b"), b"raw");
        assert_eq!(r("sys/c"), [5u8, 15]);
        assert_eq!(r("proc/m"), b"l1\nl2\n");
        assert_eq!(r("probe"), b"stat / dev=1:2 kind=dir\n");
        assert!(d.path().join("sys/empty").is_dir());
        assert!(materialize("Q x", d.path()).is_err());
        assert!(materialize("M x\nno end", d.path()).is_err());
    }
}
