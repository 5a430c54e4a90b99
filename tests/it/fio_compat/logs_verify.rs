//! fio 3.33's verify checksums beyond crc32c/crc64/md5/xxhash/sha256 (`sha1`, `sha512`,
//! `sha3-*`, `crc32`, `crc16`, `crc7`, `null`) and fio's logs of rate-limited and
//! time-based jobs, iomark as `fio` beside the installed fio (the fio half skipped, with
//! the reason printed, when fio is not installed). iomark's verify header is its own
//! layout (docs/compat/fio.md "Verify"), so each tool verifies its own writes: the same
//! job verifies clean under both, and a flipped byte is reported in fio's words.

use crate::util::*;
use std::path::Path;

/// The checksums iomark took on, with their length in bytes.
const NEW: [(&str, usize); 9] = [
    ("sha1", 20),
    ("sha512", 64),
    ("sha3-224", 28),
    ("sha3-256", 32),
    ("sha3-384", 48),
    ("sha3-512", 64),
    ("crc32", 4),
    ("crc16", 2),
    ("crc7", 1),
];

/// A 64 KiB job of 4 KiB blocks over `f` in `dir` with `verify=k`, terse output.
fn verify_job(tool: Iomark, dir: &Path, k: &str, rw: &str) -> Out {
    tool.dir(dir)
        .args([
            "--name=a",
            "--filename=f",
            "--size=64k",
            "--bs=4k",
            &format!("--rw={rw}"),
            &format!("--verify={k}"),
            "--verify_state_save=0",
            "--output-format=terse",
        ])
        .run()
}

/// KiB read, from the terse line (field 6).
fn read_kib(o: &Out) -> String {
    let line = o.stdout.lines().find(|l| l.starts_with("3;")).unwrap_or("");
    line.split(';').nth(5).unwrap_or("").to_string()
}

/// Flip one bit of byte `at` of `path`.
fn flip(path: &Path, at: usize) {
    let mut b = std::fs::read(path).unwrap();
    b[at] ^= 1;
    std::fs::write(path, b).unwrap();
}

/// How a test calls one of the two tools in a directory.
type Tool = dyn Fn(&Path) -> Iomark;

/// The write (with its read-back) and, after a byte of the third block is flipped, a
/// verifying read of `f` in `dir` by `tool`: the write's output and the read's.
fn write_flip_read(tool: &Tool, dir: &Path, k: &str) -> (Out, Out) {
    let w = verify_job(tool(dir), dir, k, "write");
    flip(&dir.join("f"), 8192 + 2000);
    (w, verify_job(tool(dir), dir, k, "read"))
}

/// fio's lines of a checksum that did not match: the failure line and the two checksum
/// lines, each `n` bytes in hex; `None` when the failure line is missing.
fn fio_failure(stderr: &str, k: &str, n: usize) -> Option<(String, String)> {
    let first = format!(
        "{k}: verify failed at file f offset 8192, length 4096 (requested block: offset=8192, length=4096, flags=8)"
    );
    let lines: Vec<&str> = stderr.lines().collect();
    let i = lines.iter().position(|l| *l == first)?;
    let hex = |l: Option<&&str>, tag: &str| {
        let h = l?.strip_prefix(&format!("       {tag} CRC: "))?.to_string();
        (h.len() == 2 * n && h.bytes().all(|c| c.is_ascii_hexdigit())).then_some(h)
    };
    Some((
        hex(lines.get(i + 1), "Expected")?,
        hex(lines.get(i + 2), "Received")?,
    ))
}

#[test]
fn new_checksums_verify_clean_and_name_a_flipped_block_as_fio_does() {
    let fio = need_fio("new_checksums_verify_clean_and_name_a_flipped_block_as_fio_does");
    for (k, n) in NEW {
        let d = scratch();
        // iomark's own line naming the checksum is a note of the persona (`--notes`)
        let (w, r) = write_flip_read(&|p| as_fio(p).arg("--notes"), d.path(), k);
        assert_eq!(
            (w.code, read_kib(&w)),
            (0, "64".into()),
            "{k}: {}",
            w.dump()
        );
        assert_eq!(r.code, 1, "{k}: {}", r.dump());
        let (want, got) =
            fio_failure(&r.stderr, k, n).unwrap_or_else(|| panic!("{k}: {}", r.dump()));
        assert_ne!(want, got, "{k}");
        assert!(
            r.stderr.contains(&format!("{k} checksum mismatch")),
            "{}",
            r.dump()
        );
        if !fio {
            continue;
        }
        let d = scratch();
        let (w, r) = write_flip_read(&|p| fio_cmd().dir(p), d.path(), k);
        assert_eq!(
            (w.code, read_kib(&w)),
            (0, "64".into()),
            "fio {k}: {}",
            w.dump()
        );
        if k == "sha512" {
            // fio 3.33 compares its unfinished SHA-512 input buffer (the block's last
            // bytes), not a digest: a flip in the middle of the block passes
            assert_eq!(r.code, 0, "fio {k}: {}", r.dump());
            continue;
        }
        assert_eq!(r.code, 1, "fio {k}: {}", r.dump());
        assert!(
            fio_failure(&r.stderr, k, n).is_some(),
            "fio {k}: {}",
            r.dump()
        );
    }
}

#[test]
fn verify_null_reads_back_and_checks_nothing_as_fio() {
    let fio = need_fio("verify_null_reads_back_and_checks_nothing_as_fio");
    let fio_in = |p: &Path| fio_cmd().dir(p);
    let mut tools: Vec<(&str, &Tool)> = vec![("iomark", &as_fio)];
    if fio {
        tools.push(("fio", &fio_in));
    }
    for (name, tool) in tools {
        let d = scratch();
        let (w, r) = write_flip_read(tool, d.path(), "null");
        // the write job reads its 64 KiB back; no header is written, nothing is checked
        assert_eq!(
            (w.code, read_kib(&w)),
            (0, "64".into()),
            "{name}: {}",
            w.dump()
        );
        assert_eq!(
            (r.code, read_kib(&r)),
            (0, "64".into()),
            "{name}: {}",
            r.dump()
        );
        assert!(!r.stderr.contains("verify failed"), "{name}: {}", r.dump());
    }
}

#[test]
fn sha224_and_sha384_are_no_verify_checksums_of_fio() {
    let d = scratch();
    for k in ["sha224", "sha384"] {
        let o = verify_job(as_fio(d.path()), d.path(), k, "write");
        // fio's line and exit code: it has no such checksum either
        assert_eq!(o.code, 1, "{}", o.dump());
        assert_eq!(o.stderr, format!("fio: failed parsing verify={k}\n"));
        if have_fio() {
            let f = verify_job(fio_cmd().dir(d.path()), d.path(), k, "write");
            assert_ne!(f.code, 0, "{}", f.dump());
            assert!(
                f.all().contains(&format!("failed parsing verify={k}")),
                "{}",
                f.dump()
            );
        }
    }
}

/// The time column of each line of log `name` in `dir`.
fn log_times(dir: &Path, name: &str) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    text.lines()
        .map(|l| l.split(',').next().unwrap_or("").trim().parse().unwrap())
        .collect()
}

/// A rate-limited time-based job of 3 s (256 reads a second) over the null engine,
/// logging in windows of 500 ms.
const RATED: [&str; 10] = [
    "--name=a",
    "--ioengine=null",
    "--rw=read",
    "--size=1g",
    "--rate=1m",
    "--runtime=3",
    "--time_based",
    "--log_avg_msec=500",
    "--write_bw_log=a",
    "--write_lat_log=a",
];

/// fio's bandwidth lines come from its sampling thread, just after the end of each
/// window the job lived through (5 for 3 s), at the time it took each; its latency lines from the completions that close a
/// window (one a window) and one more at the job's end with the rest (6).
#[test]
fn rate_limited_time_based_logs_have_fios_line_counts() {
    let fio = need_fio("rate_limited_time_based_logs_have_fios_line_counts");
    let d = scratch();
    let o = as_fio(d.path())
        .dir(d.path())
        .args(RATED)
        .arg("--output-format=terse")
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    // each sample at the time it was taken: after its window's end and before the next
    // window's (a loaded machine delays the sampling thread; the order and the count are
    // what a sample taken at the wrong time would break)
    let bw = log_times(d.path(), "a_bw.1.log");
    assert_eq!(bw.len(), 5, "{bw:?}\n{}", o.dump());
    for (k, t) in bw.iter().enumerate() {
        let end = 500 * (k as u64 + 1);
        assert!((end..end + 500).contains(t), "{bw:?}");
    }
    for name in ["a_lat.1.log", "a_clat.1.log"] {
        let lat = log_times(d.path(), name);
        assert_eq!(lat.len(), 6, "{name}: {lat:?}");
        // each closing completion is in the 500 ms after its window's base
        for (k, t) in lat[..5].iter().enumerate() {
            let base = 500 * (k as u64 + 1);
            assert!((base..base + 500).contains(t), "{name}: {lat:?}");
        }
        assert!(lat[5] >= 3000, "the last line is at the job's end: {lat:?}");
    }
    if fio {
        let f = scratch();
        let o = fio_cmd()
            .dir(f.path())
            .args(RATED)
            .arg("--output-format=terse")
            .run();
        assert_eq!(o.code, 0, "{}", o.dump());
        // fio's own sampling thread, late under load, may add a sixth line at the end
        let n = log_times(f.path(), "a_bw.1.log").len();
        assert!((5..=6).contains(&n), "fio: {n} bandwidth lines");
        let lat = log_times(f.path(), "a_lat.1.log");
        assert_eq!(lat.len(), 6, "fio: {lat:?}");
        assert!(lat[5] >= 3000, "fio: {lat:?}");
    }
}
