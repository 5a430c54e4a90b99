//! `iomark run --read_iolog`: replaying fio's I/O log (v2 and v3) through the binary —
//! the log's requests in its order at its offsets and lengths (seen in a latency log
//! with `log_offset=1`), the log's pacing and `replay_no_stall`, a round trip through
//! iomark's own `write_iolog`, and refusals. The parser's units are in
//! src/run/fio/replay.rs.

use crate::util::*;
use std::path::Path;

/// (offset, bs, ddir) of each line of a per-I/O latency log.
fn logged(path: &Path) -> Vec<(u64, u64, u64)> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| {
            let f: Vec<u64> = l.split(',').map(|x| x.trim().parse().unwrap()).collect();
            // time, value, ddir, bs, offset, prio
            (f[4], f[3], f[2])
        })
        .collect()
}

#[test]
fn a_v3_log_is_replayed_in_order_at_its_offsets() {
    let d = scratch();
    std::fs::write(d.path().join("data"), vec![7u8; 64 << 10]).unwrap();
    std::fs::write(
        d.path().join("io.log"),
        "fio version 3 iolog\n0 data add\n1 data open\n2 data read 8192 4096\n3 data write 0 512\n\
         4 data read 61440 1024\n5 data sync 0 0\n6 data write 4096 4096\n7 data close\n",
    )
    .unwrap();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=r",
            "--read_iolog=io.log",
            "--write_lat_log=l",
            "--log_offset=1",
        ],
    );
    let v = o.ok().json();
    let j = &v["jobs"][0];
    assert_eq!(j["read"]["io_bytes"].as_u64(), Some(5120), "{j}");
    assert_eq!(j["write"]["io_bytes"].as_u64(), Some(4608));
    assert_eq!(j["sync"]["total_ios"].as_u64(), Some(1), "{}", j["sync"]);
    assert_eq!(
        logged(&d.path().join("l_clat.1.log")),
        vec![
            (8192, 4096, 0),
            (0, 512, 1),
            (61440, 1024, 0),
            (4096, 4096, 1)
        ]
    );
    // the file keeps its size: the log's I/O lies inside it
    assert_eq!(
        std::fs::metadata(d.path().join("data")).unwrap().len(),
        64 << 10
    );
}

#[test]
fn the_log_paces_the_replay_unless_no_stall() {
    let d = scratch();
    // 300 ms between the first and the last read
    std::fs::write(
        d.path().join("slow.log"),
        "fio version 3 iolog\n0 f add\n10 f read 0 4096\n150010 f read 4096 4096\n300010 f read 8192 4096\n",
    )
    .unwrap();
    let rt = |extra: &[&str]| {
        let mut a = vec![
            "--output-format=json",
            "--name=p",
            "--read_iolog=slow.log",
            "--filesize=16k",
        ];
        a.extend_from_slice(extra);
        let v = run(d.path(), &a).ok().json();
        let j = &v["jobs"][0];
        assert_eq!(j["read"]["total_ios"].as_u64(), Some(3), "{j}");
        j["job_runtime"].as_u64().unwrap()
    };
    let timed = rt(&[]);
    assert!(timed >= 290, "replayed in {timed} ms, the log spans 300 ms");
    let fast = rt(&["--replay_no_stall=1"]);
    assert!(fast < 100, "replay_no_stall took {fast} ms");
    // replay_time_scale=200 halves the delays
    let half = rt(&["--replay_time_scale=200"]);
    assert!((140..290).contains(&half), "time scale 200: {half} ms");
}

#[test]
fn what_write_iolog_writes_read_iolog_replays() {
    let d = scratch();
    let w = run(
        d.path(),
        &[
            "--name=w",
            "--rw=randwrite",
            "--bs=4k",
            "--size=64k",
            "--filename=f",
            "--write_iolog=w.log",
        ],
    );
    w.ok();
    let v = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=r",
            "--read_iolog=w.log",
            "--replay_no_stall=1",
            "--write_lat_log=l",
            "--log_offset=1",
        ],
    )
    .ok()
    .json();
    assert_eq!(v["jobs"][0]["write"]["io_bytes"].as_u64(), Some(64 << 10));
    // the same offsets in the same order as the log
    let log = std::fs::read_to_string(d.path().join("w.log")).unwrap();
    let want: Vec<(u64, u64, u64)> = log
        .lines()
        .filter(|l| l.contains(" write "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[3].parse().unwrap(), f[4].parse().unwrap(), 1)
        })
        .collect();
    assert_eq!(want.len(), 16);
    assert_eq!(logged(&d.path().join("l_clat.1.log")), want);
}

#[test]
fn a_v2_log_with_a_redirect_and_skips() {
    let d = scratch();
    std::fs::write(d.path().join("target"), vec![1u8; 32 << 10]).unwrap();
    std::fs::write(
        d.path().join("v2.log"),
        "fio version 2 iolog\n/dev/sdx add\n/dev/sdx open\n/dev/sdx read 4096 4096\n\
         /dev/sdx write 8192 4096\n/dev/sdx trim 0 4096\n/dev/sdx read 16384 8192\n/dev/sdx close\n",
    )
    .unwrap();
    let v = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=v2",
            "--read_iolog=v2.log",
            "--replay_redirect=target",
            "--replay_skip=write,trim",
            "--write_lat_log=l",
            "--log_offset=1",
        ],
    )
    .ok()
    .json();
    let j = &v["jobs"][0];
    assert_eq!(j["read"]["io_bytes"].as_u64(), Some(12288), "{j}");
    assert_eq!(j["write"]["total_ios"].as_u64(), Some(0));
    assert_eq!(
        logged(&d.path().join("l_clat.1.log")),
        vec![(4096, 4096, 0), (16384, 8192, 0)]
    );
    assert!(!d.path().join("dev").exists());
}

#[test]
fn bad_logs_are_refused_naming_the_option() {
    let d = scratch();
    std::fs::write(d.path().join("v1.log"), "0 f read 0 4096\n").unwrap();
    std::fs::write(
        d.path().join("bad.log"),
        "fio version 3 iolog\n0 f add\n1 f read 0 x\n",
    )
    .unwrap();
    for (log, what) in [
        ("v1.log", "version 1 is no longer supported"),
        ("bad.log", "line 3: 'x' is not a length"),
        ("missing.log", "cannot read it"),
    ] {
        let o = run(d.path(), &["--name=b", &format!("--read_iolog={log}")]);
        assert_ne!(o.code, 0);
        assert!(
            o.stderr.contains(&format!("read_iolog={log}")) && o.stderr.contains(what),
            "{log}: {}",
            o.stderr
        );
    }
    let o = run(
        d.path(),
        &["--name=b", "--read_iolog=v1.log", "--replay_skip=flush"],
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("replay_skip"), "{}", o.stderr);
}

#[test]
fn trims_size_no_buffer_and_null_needs_no_size() {
    // fio's test t0038: 2 GiB trims between 4 KiB writes at iodepth 128 on the null
    // engine; buffers sized by the trims would need 256 GiB
    let d = scratch();
    let mut log = String::from("fio version 3 iolog\n30 /dev/null add\n40 /dev/null open\n");
    for i in 0..10u64 {
        log += &format!("{} /dev/null trim {} 2147483648\n", 50 + 2 * i, i * 4096);
        log += &format!("{} /dev/null write {} 4096\n", 51 + 2 * i, i * 4096);
    }
    log += "90 /dev/null close\n";
    std::fs::write(d.path().join("t.log"), log).unwrap();
    let v = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=t",
            "--read_iolog=t.log",
            "--ioengine=null",
            "--iodepth=128",
        ],
    )
    .ok()
    .json();
    let j = &v["jobs"][0];
    assert_eq!(j["write"]["io_bytes"].as_u64(), Some(40960), "{j}");
    assert_eq!(j["trim"]["total_ios"].as_u64(), Some(10));
}
