//! fio-style latency lines keep the exact min and max beside the histogram: one fsync
//! gives min = max = avg (the histogram alone puts it in a bucket ~2000 ns wide).

#[test]
fn a_single_fsync_has_equal_min_max_and_avg() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_iomark"))
        .args([
            "run",
            "--name=x",
            "--rw=write",
            "--bs=4k",
            "--size=4k",
            "--fsync=1",
        ])
        .arg(format!("--filename={}", f.display()))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    for label in ["sync", "clat", "lat"] {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{label} (nsec): min=")))
            .unwrap_or_else(|| panic!("no {label} line in\n{out}"));
        let field = |k: &str| -> f64 {
            let v = line.split(&format!("{k}=")).nth(1).unwrap();
            v.split(',').next().unwrap().trim().parse().unwrap()
        };
        let (min, max, avg) = (field("min"), field("max"), field("avg"));
        assert!(min > 0.0, "{line}");
        assert_eq!((min, max), (avg, avg), "{line}");
    }
}
