//! `iomark tree --json`: the top-level `read` and `write` figures are those of the
//! phases that move file data (`read_all`, `create_write`; src/run/tree/totals.rs),
//! not zeros, and their rates follow from the phase's ops, bytes and seconds.

use crate::util::*;
use serde_json::Value;

#[test]
fn tree_read_and_write_are_the_data_phases() {
    let d = scratch();
    let j = scratch();
    let jp = j.path().join("tree.json");
    Iomark::new()
        .args(["tree", "--files=300", "--threads=2"])
        .arg(format!("--json={}", jp.display()))
        .arg(d.path())
        .assert()
        .success();
    let v: Value = read_json(&jp);
    for (dir, name) in [("read", "read_all"), ("write", "create_write")] {
        let (o, p) = (
            &v[dir],
            phase(&v, name).unwrap_or_else(|| panic!("no phase {name}")),
        );
        assert_eq!(o["ops"], 300, "{dir}");
        assert_eq!(o["ops"], p["ops"], "{dir}");
        let bytes = o["bytes"].as_u64().unwrap();
        assert!(bytes > 300 * 1024, "{dir}: {bytes}"); // mean file ≈ 15 KiB
        assert_eq!(o["bytes"], p["bytes"], "{dir}");
        assert_eq!(o["bytes"], v["job"]["total_size_bytes"], "{dir}");
        let s = p["seconds"].as_f64().unwrap();
        assert!(s > 0.0);
        let bw = o["bw_bytes_per_s"].as_f64().unwrap();
        assert!(close(o["iops"].as_f64().unwrap(), 300.0 / s), "{dir}");
        assert!(close(bw, bytes as f64 / s), "{dir}");
        assert!(close(o["bw_mib_per_s"].as_f64().unwrap(), bw / 1_048_576.0));
        assert!(close(o["bw_mb_per_s"].as_f64().unwrap(), bw / 1e6));
        assert_eq!(o["lat"], p["lat"], "{dir}");
        assert_eq!(o["lat"]["count"], 300, "{dir}");
    }
}
