//! fio's terse output (`--minimal --terse-version=V`, V = 2 to 5) next to fio 3.33's: the
//! same 20 varied jobs (read/write/mixes, psync, libaio, posixaio, mmap, null, io_uring,
//! numjobs with and without group_reporting, continue_on_error, description) run under
//! both, each job a stonewalled group of its own; every line must have fio's field
//! count, the same fields empty, and the same shape once numbers are masked (`N`). The
//! field order from known recorder values is pinned by the unit tests of
//! src/report/fio/terse.rs.

use crate::util::*;
use std::path::Path;

/// The jobs, each given `--name=jN --stonewall --filename=fN --size=256k --bs=4k` first.
const JOBS: [&str; 20] = [
    "--rw=read",
    "--rw=write",
    "--rw=randread",
    "--rw=randwrite --continue_on_error=all",
    "--rw=rw --rwmixread=70",
    "--rw=randrw",
    "--rw=read --ioengine=libaio --iodepth=4",
    "--rw=randwrite --ioengine=libaio --iodepth=8",
    "--rw=read --ioengine=posixaio --iodepth=2",
    "--rw=randread --ioengine=mmap",
    "--rw=write --ioengine=mmap",
    "--rw=read --ioengine=null",
    "--rw=randrw --ioengine=io_uring --iodepth=4",
    "--rw=read --numjobs=2",
    "--rw=randwrite --numjobs=2 --group_reporting",
    "--rw=rw --numjobs=3 --group_reporting --bs=8k",
    "--rw=randread --bsrange=4k-16k",
    "--rw=write --fsync=4",
    "--rw=randread --lat_percentiles=1 --description=hello",
    "--rw=read --clat_percentiles=0",
];

fn args(dir: &Path) -> Vec<String> {
    let mut a = Vec::new();
    for (i, j) in JOBS.iter().enumerate() {
        let f = dir.join(format!("f{i}"));
        a.push(format!("--name=j{i}"));
        a.push("--stonewall".into());
        a.push(format!("--filename={}", f.display()));
        a.extend(["--size=256k".to_string(), "--bs=4k".to_string()]);
        a.extend(j.split_whitespace().map(str::to_string));
    }
    a
}

/// A field with every run of digits as `N` (`1.000000%=54` → `N.N%=N`).
pub(super) fn shape(field: &str) -> String {
    let mut s = String::new();
    for c in field.chars() {
        if c.is_ascii_digit() {
            if !s.ends_with('N') {
                s.push('N');
            }
        } else {
            s.push(c);
        }
    }
    s
}

fn run_terse(program: &Path, dir: &Path, v: u8, a: &[String]) -> String {
    let o = std::process::Command::new(program)
        .current_dir(dir)
        .arg("--minimal")
        .arg(format!("--terse-version={v}"))
        .args(a)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{} v{v}: {err}",
        program.display()
    );
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn terse_v2_to_v5_has_fios_fields() {
    if !need_fio("terse_v2_to_v5_has_fios_fields") {
        return;
    }
    let d = scratch();
    let fio_as = d.path().join("fio");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_iomark"), &fio_as).unwrap();
    let a = args(d.path());
    let mut lines = 0;
    for v in 2..=5u8 {
        let theirs = run_terse(Path::new("fio"), d.path(), v, &a);
        let ours = run_terse(&fio_as, d.path(), v, &a);
        let (t, o): (Vec<&str>, Vec<&str>) = (theirs.lines().collect(), ours.lines().collect());
        // 20 jobs, j13's two threads reported apart; v2 puts the description on a line
        assert_eq!(t.len(), if v == 2 { 22 } else { 21 }, "fio v{v}:\n{theirs}");
        assert_eq!(o.len(), t.len(), "v{v}:\n{ours}\nfio:\n{theirs}");
        for (i, (tl, ol)) in t.iter().zip(&o).enumerate() {
            let (tf, of): (Vec<&str>, Vec<&str>) =
                (tl.split(';').collect(), ol.split(';').collect());
            assert_eq!(of.len(), tf.len(), "v{v} line {i}: field count\n{ol}\n{tl}");
            for (k, (x, y)) in tf.iter().zip(&of).enumerate() {
                assert_eq!(
                    x.is_empty(),
                    y.is_empty(),
                    "v{v} line {i} field {k}: empty in one only\n{ol}\n{tl}"
                );
                assert_eq!(shape(y), shape(x), "v{v} line {i} field {k}\n{ol}\n{tl}");
            }
            lines += 1;
        }
    }
    eprintln!("terse: {lines} lines of v2..v5 compared with fio 3.33");
}

/// `--append-terse` adds the terse lines before the normal report; `json,terse` puts them
/// right before the JSON document, as fio 3.33.
#[test]
fn terse_in_lists_comes_first() {
    let d = scratch();
    let base = ["--name=j", "--size=64k", "--rw=read"];
    let o = run(
        d.path(),
        &[&["--output-format=json,terse"][..], &base].concat(),
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let (terse, json) = o.stdout.split_once('\n').unwrap();
    assert!(terse.starts_with("3;iomark-"), "{}", o.stdout);
    assert!(json.starts_with('{'), "{}", o.stdout);
    serde_json::from_str::<serde_json::Value>(json).unwrap();
    let o = run(d.path(), &[&["--append-terse"][..], &base].concat());
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines: Vec<&str> = o.stdout.lines().collect();
    let t = lines.iter().position(|l| l.starts_with("3;")).unwrap();
    let report = lines
        .iter()
        .position(|l| l.starts_with("j: (groupid=0"))
        .unwrap();
    assert!(t < report, "{}", o.stdout);
    assert!(
        lines[0].starts_with("j: (g=0)"),
        "the header first: {}",
        o.stdout
    );
}
