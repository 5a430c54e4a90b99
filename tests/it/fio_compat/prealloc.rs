//! File layout preallocation (`fallocate=`) side by side with fio 3.33: a write-only
//! job's file laid out by `create_only=1` has the size and the allocated blocks each
//! mode gives (filesetup.c `fallocate_file`), and a job that reads gets its data
//! whatever the mode.

use crate::util::*;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// `(size, 512-byte blocks allocated)` of `path`, as `stat -c '%s %b'`.
fn size_blocks(path: &Path) -> (u64, u64) {
    let m = std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (m.len(), m.blocks())
}

/// What each `fallocate=` value leaves of a new 8 MiB file of a write-only job, as
/// measured with fio 3.33 on ext4 and tmpfs: (value, size, blocks).
const MODES: [(&str, u64, u64); 8] = [
    ("none", 0, 0),
    ("0", 0, 0),
    ("native", 8 << 20, 16384),
    ("posix", 8 << 20, 16384),
    ("1", 8 << 20, 16384),
    ("keep", 0, 16384),
    ("truncate", 8 << 20, 0),
    ("", 8 << 20, 16384),
];

/// Run `--create_only=1` of an 8 MiB job `rw` with `fallocate=VALUE` ("" = the
/// default) under `who` in `dir`; the laid-out file's `(size, blocks)`.
fn lay_out(who: &str, base: &Path, dir: &Path, rw: &str, value: &str) -> (u64, u64) {
    std::fs::create_dir_all(dir).unwrap();
    let name = format!("f{value}");
    let mut args = vec![
        "--name=x".to_string(),
        format!("--rw={rw}"),
        "--size=8m".into(),
        format!("--filename={name}"),
        "--create_only=1".into(),
    ];
    if !value.is_empty() {
        args.push(format!("--fallocate={value}"));
    }
    let cmd = if who == "fio" {
        fio_cmd()
    } else {
        as_fio(base)
    };
    let o = cmd.dir(dir).args(&args).run();
    assert_eq!(o.code, 0, "{who} {value}: {}", o.dump());
    size_blocks(&dir.join(name))
}

/// Each value's size and blocks (a filesystem may add a few blocks of metadata, so
/// blocks are at least the table's and within 64 of it).
#[test]
fn each_fallocate_value_preallocates_as_fio_s() {
    let d = scratch();
    let mut sides = vec!["iomark"];
    if need_fio("each_fallocate_value_preallocates_as_fio_s next to fio") {
        sides.push("fio");
    }
    for who in sides {
        let dir = d.path().join(who);
        for (value, size, blocks) in MODES {
            let (s, b) = lay_out(who, d.path(), &dir, "write", value);
            assert_eq!(s, size, "{who} fallocate={value}: size");
            assert!(
                b >= blocks && b <= blocks + 64,
                "{who} fallocate={value}: {b} blocks, want {blocks}"
            );
            // a job that reads has its data written whatever the mode
            let r = dir.join("r");
            std::fs::create_dir_all(&r).unwrap();
            let (s, b) = lay_out(who, d.path(), &r, "read", value);
            assert!(
                s == 8 << 20 && b >= 16384,
                "{who} read fallocate={value}: {s} {b}"
            );
        }
    }
}

/// A file that already has its size is left as it is, in every mode: a sparse file of
/// 8 MiB keeps its size and no blocks are allocated (fio lays out only a file shorter
/// than the job's size).
#[test]
fn a_file_of_full_size_is_not_preallocated() {
    let d = scratch();
    let mut sides = vec!["iomark"];
    if need_fio("a_file_of_full_size_is_not_preallocated next to fio") {
        sides.push("fio");
    }
    for who in sides {
        let dir = d.path().join(who);
        std::fs::create_dir_all(&dir).unwrap();
        for value in ["native", "keep", "posix"] {
            let f = std::fs::File::create(dir.join(format!("f{value}"))).unwrap();
            f.set_len(8 << 20).unwrap();
            drop(f);
            assert_eq!(
                lay_out(who, d.path(), &dir, "write", value),
                (8 << 20, 0),
                "{who} fallocate={value}"
            );
        }
    }
}
