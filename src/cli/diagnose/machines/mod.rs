//! `iomark diagnose` on recorded machines: fixture manifests of tests/fixtures/diagnose
//! materialised into a directory that stands for `/` (`--root`), diagnosed in process.
//! `fixtures`: the five recorded machines and their variants; `platform`: cgroup,
//! AER, NUMA, APST, LBA format, RAID mode, SD cards; `cases`: public cases C22, C28–C30.
//! tests/it/diagnose.rs runs the binary (exit codes, JSON, text, the live VM).

use super::{inputs, Args};
use crate::files::fixture::materialize;
use crate::probe::diagnosis::{diagnose, Diagnosis};
use crate::probe::findings::{Finding, Unknown};
use crate::probe::Root;
use crate::report::diagnose_text::render_text;
use clap::Parser;
use std::path::{Path, PathBuf};

mod cases;
mod fixtures;
mod platform;

fn manifest(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/diagnose")
        .join(format!("{name}.fixture"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Materialise fixture `name` into a fresh temporary directory.
fn tree(name: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    materialize(&manifest(name), d.path()).unwrap();
    d
}

const FIXTURES: &[(&str, &str)] = &[
    ("a-nvme-gen2-slot", "/data/big.bin"),
    ("b-md-raid0-xfs", "/bench/fio"),
    ("c-sata-3gbps", "/home/user/data.bin"),
    ("d-usb3-at-480", "/media/user/T7/video.mkv"),
    ("e-virtio-vm", "/"),
    ("f-no-single-block-device", "/mnt/img/file"),
];

/// Diagnose `path` on fixture `name` with extra command-line flags.
fn diag_with(name: &str, path: &str, extra: &[&str]) -> (tempfile::TempDir, Diagnosis) {
    let d = tree(name);
    let root = Root(d.path().to_path_buf());
    let mut argv = vec!["iomark diagnose", path];
    argv.extend_from_slice(extra);
    let a = Args::try_parse_from(argv).unwrap();
    let dg = diagnose(&root, &inputs(&a, &root));
    (d, dg)
}

fn diag(name: &str, path: &str) -> Diagnosis {
    diag_with(name, path, &[]).1
}

fn ids(d: &Diagnosis) -> Vec<&str> {
    d.findings.iter().map(|f| f.id.as_str()).collect()
}

fn layer<'a>(d: &'a Diagnosis, kind: &str) -> Vec<&'a str> {
    d.stack
        .iter()
        .filter(|l| l.kind == kind)
        .map(|l| l.text.as_str())
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.6
}

fn has(d: &Diagnosis, id: &str) -> bool {
    d.findings.iter().any(|f| f.id == id)
}

fn finding<'a>(d: &'a Diagnosis, id: &str) -> &'a Finding {
    d.finding(id)
        .unwrap_or_else(|| panic!("no {id} in {:?}\n{}", ids(d), render_text(d)))
}

/// Every file and symlink of a materialised tree (directories stay).
fn entries(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let ft = std::fs::symlink_metadata(&p).unwrap().file_type();
        if ft.is_dir() {
            entries(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Diagnose `path` on an already materialised (and possibly edited) tree.
fn diag_dir(t: &tempfile::TempDir, path: &str) -> Diagnosis {
    let root = Root(t.path().to_path_buf());
    let a = Args::try_parse_from(["iomark diagnose", path]).unwrap();
    diagnose(&root, &inputs(&a, &root))
}

fn write(t: &tempfile::TempDir, rel: &str, text: &str) {
    let p = t.path().join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn unknown<'a>(d: &'a Diagnosis, what: &str) -> Option<&'a Unknown> {
    d.unknowns.iter().find(|u| u.what.starts_with(what))
}
