//! `mark --preset=sustained`: an O_DIRECT sequential 1 MiB QD8 write of
//! iomark's own file until `--size` or `--time`, reported by `run` with its series, the
//! file and its directory removed afterwards; a `--size` beyond 90 % of the free space is
//! refused before anything is created.

use crate::util::*;

/// What is left in `dir` besides the names in `keep`.
fn left(dir: &std::path::Path, keep: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    v.sort();
    v
}

#[test]
fn sustained_writes_its_size_with_a_series_and_leaves_nothing() {
    let tmp = scratch();
    let out = iomark(
        tmp.path(),
        &[
            "mark",
            ".",
            "--preset=sustained",
            "--size=48M",
            "--time=30",
            "--json=s.json",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.dump());
    let v = read_json(&tmp.path().join("s.json"));
    assert_eq!(v["command"], "run");
    // the size was written (not the time: 48 MiB takes well under 30 s here)
    assert_eq!(
        v["write"]["bytes"].as_u64(),
        Some(48 << 20),
        "{}",
        v["write"]
    );
    let argv: Vec<&str> = v["argv"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a.as_str())
        .collect();
    for want in ["--rw=write", "--bs=1M", "--iodepth=8", "--direct=1"] {
        assert!(argv.contains(&want), "{argv:?}");
    }
    let samples = v["series"]["samples"].as_array().unwrap();
    let sum: u64 = samples
        .iter()
        .map(|s| s["written_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(sum, 48 << 20);
    assert_eq!(left(tmp.path(), &["s.json"]), Vec::<String>::new());
}

#[test]
fn sustained_refuses_a_size_beyond_the_free_space_before_creating_anything() {
    let tmp = scratch();
    let out = iomark(
        tmp.path(),
        &["mark", ".", "--preset=sustained", "--size=900T"],
    );
    assert_eq!(out.code, 3, "{}", out.dump());
    out.one_line_error(&["--size=900T", "does not fit in 90 % of the free space"]);
    assert_eq!(left(tmp.path(), &[]), Vec::<String>::new());
}
