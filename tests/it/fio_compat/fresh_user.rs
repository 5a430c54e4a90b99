//! Defects a fresh user found running iomark as `fio` beside Debian's fio 3.33: the
//! same job run by both and compared — `rw=rw:N` moves what fio moves (each direction
//! walks the file on its own), and the text's latency and sample lines under
//! `gtod_reduce=1` and `disable_clat=1` are fio's. Each test skips (with the reason)
//! when fio is not installed, after checking iomark's own run.

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// Run `args` with `tool` (`fio`: Debian's; else iomark as `fio`) in a fresh `root/tool`.
fn run(root: &Path, tool: &str, args: &[&str]) -> String {
    let dir = root.join(tool);
    std::fs::create_dir_all(&dir).unwrap();
    let cmd = if tool == "fio" {
        fio_cmd()
    } else {
        as_fio(root)
    };
    let o = cmd.dir(&dir).args(args).run();
    assert_eq!(o.code, 0, "{tool}: {}", o.dump());
    o.stdout
}

/// `(read ios, write ios)` of the first job of a fio JSON document.
fn ios(stdout: &str) -> (u64, u64) {
    let at = stdout
        .find('{')
        .unwrap_or_else(|| panic!("no JSON: {stdout}"));
    let doc: Value = serde_json::from_str(&stdout[at..]).unwrap();
    let j = &doc["jobs"][0];
    let n = |d: &str| j[d]["total_ios"].as_u64().unwrap();
    (n("read"), n("write"))
}

/// `rw=rw:8k`, bs=4k, 1 MiB: as fio's last_pos per direction, reads and writes each
/// step 12 KiB through the file; the 86th step of a direction ends exactly at the
/// file's end (85 × 12 KiB + 4 KiB), which ends the file and so the job — about 85 + 86
/// requests (fio: 85 + 86, 700 KiB), not half of that. (A walk that passes the end
/// without meeting it wraps instead: tests/it/fio_compat/holes.rs.)
#[test]
fn mixed_holed_rw_walks_each_direction_as_fio() {
    let d = scratch();
    let args = [
        "--name=a",
        "--rw=rw:8k",
        "--size=1m",
        "--bs=4k",
        "--filename=f",
        "--output-format=json",
    ];
    let check = |tool: &str| {
        let (r, w) = ios(&run(d.path(), tool, &args));
        // one direction's request ended at the file's end: its 86th
        assert_eq!(r.max(w), 86, "{tool}: {r} reads, {w} writes");
        // the other followed it about half the time (rwmixread=50)
        assert!(r.min(w) > 60, "{tool}: {r} reads, {w} writes");
    };
    check("iomark");
    if need_fio("mixed_holed_rw_walks_each_direction_as_fio") {
        check("fio");
    }
}

/// The direction lines of a text report (`read:` up to `cpu`), names masked to their
/// label (before ':').
fn dir_labels(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("  read:"))
        .take_while(|l| !l.starts_with("  cpu"))
        .map(|l| l.split(':').next().unwrap_or("").to_string())
        .collect()
}

/// `gtod_reduce=1` (no latencies; bandwidth/IOPS sampled every 100 ms of a 1 s run)
/// and `disable_clat=1` (the total latency alone; whatever samples a short run has
/// left aside): the lines under `read:` are fio's.
#[test]
fn reduced_latency_text_has_fios_lines() {
    let d = scratch();
    let cases: [(&[&str], &[&str]); 2] = [
        (
            &["--gtod_reduce=1", "--time_based", "--runtime=1"],
            &["  read", "   bw (  KiB/s)", "   iops        "],
        ),
        (&["--disable_clat=1"], &["  read", "     lat (usec)"]),
    ];
    for (extra, want) in cases {
        let mut args = vec![
            "--name=a",
            "--rw=randread",
            "--size=8m",
            "--filename=f",
            "--bwavgtime=100",
            "--iopsavgtime=100",
        ];
        args.extend_from_slice(extra);
        let sampled = extra[0] == "--gtod_reduce=1";
        // the latency unit (nsec/usec/msec) is the machine's speed's
        let shape = |out: &str| -> Vec<String> {
            dir_labels(out)
                .into_iter()
                .filter(|l| sampled || !l.starts_with("   bw") && !l.starts_with("   iops"))
                .map(|l| l.replace("msec", "usec").replace("nsec", "usec"))
                .collect()
        };
        let ours = shape(&run(d.path(), "iomark", &args));
        assert_eq!(ours, want, "{extra:?}");
        if have_fio() {
            assert_eq!(shape(&run(d.path(), "fio", &args)), ours, "{extra:?}");
        }
    }
}

/// libaio at iodepth=16 after `ramp_time=1`: fio zeroes its depth counts at the ramp's
/// end, so the queue's fill-up (depths 1 to 8) is not in the `IO depths` line — every
/// measured submission found the queue full (16=100.0%), in fio and iomark alike.
#[test]
fn io_depths_after_ramp_leave_the_fill_up_out() {
    let d = scratch();
    let args = [
        "--name=a",
        "--ioengine=libaio",
        "--direct=1",
        "--iodepth=16",
        "--rw=randread",
        "--size=8m",
        "--filename=f",
        "--ramp_time=1",
        "--runtime=1",
        "--time_based",
    ];
    let depths = |out: &str| -> String {
        let l = out.lines().find(|l| l.starts_with("  IO depths"));
        l.unwrap_or_else(|| panic!("no IO depths: {out}"))
            .to_string()
    };
    let want = "  IO depths    : 1=0.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=100.0%, 32=0.0%, >=64=0.0%";
    assert_eq!(depths(&run(d.path(), "iomark", &args)), want);
    if have_fio() {
        assert_eq!(depths(&run(d.path(), "fio", &args)), want);
    }
}
