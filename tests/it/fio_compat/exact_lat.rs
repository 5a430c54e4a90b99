//! fio-style latency figures keep the exact min and max beside the histogram: one fsync
//! gives min = max = mean (the histogram alone puts it in a bucket ~2000 ns wide). The
//! JSON carries the exact ns; the text prints min and max through fio's num2str (e.g.
//! `min=1932.4k`, as fio 3.33), so there the two must read the same.

use crate::util::*;

#[test]
fn a_single_fsync_has_equal_min_max_and_avg() {
    let d = scratch();
    let f = d.path().join("f");
    let run = |fmt: &str| {
        let o = Iomark::new()
            .args([
                "run",
                "--name=x",
                "--rw=write",
                "--bs=4k",
                // one write, then the sync fio 3.33 makes at the next draw (6k is
                // not a whole block more: fio, 1 write and 1 sync; at 4k, no sync)
                "--size=6k",
                "--fsync=1",
                fmt,
            ])
            .arg(format!("--filename={}", f.display()))
            .run();
        let out = o.stdout;
        assert_eq!(o.code, 0, "{out}");
        out
    };
    let out = run("--output-format=json");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let w = &v["jobs"][0]["write"];
    for (name, l) in [
        ("sync", &v["jobs"][0]["sync"]["lat_ns"]),
        ("clat", &w["clat_ns"]),
        ("lat", &w["lat_ns"]),
    ] {
        let (min, max, mean) = (
            l["min"].as_f64().unwrap(),
            l["max"].as_f64().unwrap(),
            l["mean"].as_f64().unwrap(),
        );
        assert!(min > 0.0, "{name}: {l}");
        assert_eq!((min, max), (mean, mean), "{name}: {l}");
    }
    let out = run("--output-format=normal");
    for label in ["sync", "clat", "lat"] {
        let line = out
            .lines()
            .find(|l| {
                let t = l.trim_start();
                t.starts_with(&format!("{label} (")) && t.contains("): min=")
            })
            .unwrap_or_else(|| panic!("no {label} line in\n{out}"));
        let field = |k: &str| -> &str {
            let v = line.split(&format!("{k}=")).nth(1).unwrap();
            v.split(',').next().unwrap().trim()
        };
        assert_eq!(field("min"), field("max"), "{line}");
        assert!(
            line.contains("stdev= 0.00") || line.contains("stdev=0.00"),
            "{line}"
        );
    }
}
