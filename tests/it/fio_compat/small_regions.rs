//! A file region smaller than one direction's largest block, as fio 3.33 runs it: fio
//! refuses a `size` below the smallest block while parsing, but a region between the
//! smallest and the largest block runs — a request that does not fit before the
//! region's end ends the file (`get_next_buflen`'s `io_u_fits`), so `bs=4k,1m size=64k`
//! reads a whole sequential pass and writes nothing, and a mixed job stops at its first
//! write; with or without the random map, sequential or queued. Side by side with the
//! installed fio: exit code, `total_ios` per direction and every logged request.

use crate::util::*;

/// Jobs over a 64 KiB file whose largest block (some direction's) does not fit it.
const JOBS: &[&str] = &[
    "--rw=read --bs=4k,1m",
    "--rw=write --bs=4k,1m",
    "--rw=randwrite --bs=4k,1m",
    "--rw=randrw --bs=4k,1m",
    "--rw=randrw --bs=4k,1m --norandommap",
    "--rw=rw --bs=4k,1m",
    "--rw=rw --bs=4k,1m --ioengine=libaio --iodepth=4",
    "--rw=read --bsrange=4k-1m",
    "--rw=randread --bsrange=4k-1m",
    "--rw=randrw --bssplit=4k/50:1m/50",
    "--rw=trimwrite --bs=4k,4k,1m",
];

/// `(exit code, total_ios of read/write/trim, logged requests)` of `args` run by `cmd`
/// in `dir`.
fn outcome(cmd: Iomark, dir: &std::path::Path, args: &[&str]) -> (i32, Vec<u64>, Vec<String>) {
    std::fs::create_dir_all(dir).unwrap();
    let o = cmd
        .dir(dir)
        .args([
            "--name=x",
            "--filename=f",
            "--size=64k",
            "--output-format=json",
        ])
        .args(["--write_iolog=a.log"])
        .args(args)
        .run();
    let ios = if o.code == 0 {
        let j = o.json();
        ["read", "write", "trim"]
            .iter()
            .map(|d| j["jobs"][0][d]["total_ios"].as_u64().unwrap())
            .collect()
    } else {
        Vec::new()
    };
    let log = std::fs::read_to_string(dir.join("a.log")).unwrap_or_default();
    let reqs = log
        .lines()
        .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        .filter(|l| {
            [" read ", " write ", " trim "]
                .iter()
                .any(|w| l.contains(w))
        })
        .collect();
    (o.code, ios, reqs)
}

#[test]
fn a_region_below_the_largest_block_runs_what_fits_as_fio_does() {
    require_fio();
    let d = scratch();
    for (i, job) in JOBS.iter().enumerate() {
        let args: Vec<&str> = job.split_whitespace().collect();
        let fio = outcome(fio_cmd(), &d.path().join(format!("fio{i}")), &args);
        let ours = outcome(as_fio(d.path()), &d.path().join(format!("io{i}")), &args);
        assert_eq!(fio.0, 0, "fio {job}");
        assert_eq!(ours, fio, "{job}: (exit, ios, requests) differ from fio's");
        // nothing was written past the region
        for who in ["fio", "io"] {
            let f = d.path().join(format!("{who}{i}")).join("f");
            let len = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
            assert!(len <= 64 * 1024, "{who} {job}: file grew to {len}");
        }
    }
}
