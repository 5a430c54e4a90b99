//! fio 3.33's `pvsync2` engine under iomark as `fio`, next to fio itself: each request
//! one `preadv2`/`pwritev2` (seen with strace) carrying the flags of pvsync2's options —
//! `hipri` RWF_HIPRI on `hipri_percentage` of the requests, `nowait` RWF_NOWAIT,
//! `uncached` fio 3.33's RWF_UNCACHED on buffered I/O — the same job outcome as fio's
//! where the kernel refuses a flag, and fio's range of `hipri_percentage`.

use crate::util::*;
use std::path::Path;

/// The `preadv2`/`pwritev2` calls of `trace` (strace -f -o) as `(call, flags)`.
fn v2_calls(trace: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let call = ["preadv2(", "pwritev2("]
                .into_iter()
                .find(|c| l.contains(c))?;
            // `preadv2(3, [{…}], 1, OFFSET, FLAGS) = N`: the last argument
            let args = l.rsplit_once(") =")?.0;
            let flags = args.rsplit_once(", ")?.1.to_string();
            Some((call.trim_end_matches('(').to_string(), flags))
        })
        .collect()
}

/// One tool's run of a job under strace: the tool, its exit code, its JSON report and
/// its preadv2/pwritev2 calls (`(call, flags)`).
type Traced = (&'static str, i32, serde_json::Value, Vec<(String, String)>);

/// `args` run by fio and by iomark as `fio` under strace, each in a fresh directory.
fn traced(d: &Path, args: &[&str]) -> Vec<Traced> {
    ["fio", "iomark"]
        .into_iter()
        .map(|tool| {
            let w = d.join(tool);
            std::fs::create_dir_all(&w).unwrap();
            let trace = w.join("trace");
            let prog = if tool == "fio" {
                std::path::PathBuf::from("fio")
            } else {
                let _ = as_fio(d);
                d.join("bin").join("fio")
            };
            let o = Iomark::program("strace")
                .dir(&w)
                .arg("-f")
                .args(["-e", "trace=preadv2,pwritev2", "-o"])
                .arg(&trace)
                .arg(&prog)
                .args(args)
                .args(["--output-format=json"])
                .env("IOMARK_HISTORY", "off")
                .run();
            let v = serde_json::from_str(&o.stdout[o.stdout.find('{').unwrap_or(0)..])
                .unwrap_or_else(|e| panic!("{tool}: {e}: {}", o.dump()));
            (tool, o.code, v, v2_calls(&trace))
        })
        .collect()
}

/// `hipri` marks RWF_HIPRI on `hipri_percentage` of the requests, each one `preadv2`
/// (none at 0, every one at 100, part of them at 50), under both tools alike; the
/// request count is the job's size over its block size.
#[test]
fn hipri_marks_its_percentage_of_the_requests_as_fio() {
    require_fio();
    let d = scratch();
    let n = 256; // 1 MiB in 4 KiB reads
    for pct in [0usize, 50, 100] {
        let p = format!("--hipri_percentage={pct}");
        let args = [
            "--name=a",
            "--ioengine=pvsync2",
            "--rw=read",
            "--size=1m",
            "--bs=4k",
            "--filename=f",
            "--hipri",
            &p,
        ];
        let dd = d.path().join(pct.to_string());
        for (tool, code, v, calls) in traced(&dd, &args) {
            assert_eq!(code, 0, "{tool} {pct}%: {v}");
            assert_eq!(v["jobs"][0]["read"]["total_ios"], n, "{tool} {pct}%");
            assert_eq!(v["jobs"][0]["job options"]["ioengine"], "pvsync2", "{tool}");
            let reads: Vec<&String> = calls
                .iter()
                .filter(|c| c.0 == "preadv2")
                .map(|c| &c.1)
                .collect();
            assert_eq!(reads.len(), n, "{tool} {pct}%: {calls:?}");
            let hipri = reads.iter().filter(|f| f.contains("RWF_HIPRI")).count();
            match pct {
                0 => assert_eq!(hipri, 0, "{tool}"),
                100 => assert_eq!(hipri, n, "{tool}"),
                // a draw per request: about half, far from none and from all
                _ => assert!(
                    (n * 3 / 10..=n * 7 / 10).contains(&hipri),
                    "{tool}: {hipri} of {n}"
                ),
            }
        }
    }
}

/// A file of `len` bytes at `p`, on the disk and out of the page cache (written, synced,
/// its pages dropped): a reader finds it laid out, so neither tool writes it first, and
/// a buffered read of it with RWF_NOWAIT always needs the disk — the kernel's EAGAIN —
/// rather than finding some of the pages a layout just wrote.
fn not_resident(p: &Path, len: usize) {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let mut f = std::fs::File::create(p).unwrap();
    f.write_all(&vec![0x5a; len]).unwrap();
    f.sync_all().unwrap();
    // SAFETY: plain syscall on an open descriptor.
    let r = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    assert_eq!(r, 0, "posix_fadvise");
}

/// `nowait` and `uncached` on buffered I/O: each request carries RWF_NOWAIT / fio 3.33's
/// RWF_UNCACHED value (0x40) as fio's do, and where the kernel refuses the flag the job
/// ends with fio's error (the same errno, exit code and bytes done as fio's on this
/// machine), a write and a read alike; `direct=1` drops `uncached` as fio does. The
/// reads are of a file already on the disk and out of the page cache
/// ([`not_resident`]), so their outcome does not follow what the cache kept.
#[test]
fn nowait_and_uncached_flags_and_outcome_are_fios() {
    require_fio();
    let d = scratch();
    let cases: [&[&str]; 5] = [
        &["--rw=write", "--nowait=1"],
        &["--rw=read", "--nowait=1"],
        &["--rw=write", "--uncached=1"],
        &["--rw=read", "--uncached=1"],
        &["--rw=read", "--uncached=1", "--direct=1"],
    ];
    for (c, extra) in cases.iter().enumerate() {
        let mut args = vec![
            "--name=a",
            "--ioengine=pvsync2",
            "--size=64k",
            "--filename=f",
        ];
        args.extend_from_slice(extra);
        let dd = d.path().join(c.to_string());
        if extra[0] == "--rw=read" {
            for tool in ["fio", "iomark"] {
                not_resident(&dd.join(tool).join("f"), 64 << 10);
            }
        }
        let runs = traced(&dd, &args);
        let outcome = |r: &Traced| {
            let j = &r.2["jobs"][0];
            (
                r.1,
                j["error"].clone(),
                j["read"]["io_bytes"].clone(),
                j["write"]["io_bytes"].clone(),
            )
        };
        assert_eq!(outcome(&runs[1]), outcome(&runs[0]), "{extra:?}");
        // the flags of the job's requests, as strace names them: fio's, and not none
        // but with direct=1
        let call = if extra[0] == "--rw=read" {
            "preadv2"
        } else {
            "pwritev2"
        };
        let flags = |calls: &[(String, String)]| -> std::collections::BTreeSet<String> {
            calls
                .iter()
                .filter(|c| c.0 == call)
                .map(|c| c.1.clone())
                .collect()
        };
        let (fio, ours) = (flags(&runs[0].3), flags(&runs[1].3));
        assert_eq!(ours, fio, "{extra:?}");
        let none = std::collections::BTreeSet::from(["0".to_string()]);
        assert_eq!(fio == none, extra.len() > 2, "{extra:?}: {fio:?}");
    }
}

/// pvsync2's options are read as fio reads them: `hipri_percentage` takes 0-100 (101 is
/// refused with fio's lines and exit code), `nowait` is a boolean (2 refused),
/// `uncached` any whole number.
#[test]
fn pvsync2_options_are_read_as_fio_reads_them() {
    require_fio();
    let d = scratch();
    let base = [
        "--name=a",
        "--ioengine=pvsync2",
        "--rw=read",
        "--size=64k",
        "--filename=f",
    ];
    for extra in [
        &["--hipri_percentage=101"][..],
        &["--hipri_percentage=30", "--parse-only"],
        &["--nowait=2", "--parse-only"],
        &["--uncached=3", "--parse-only"],
    ] {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let [f, i] = both_in(d.path(), &[], &args);
        assert_eq!(i, f, "{extra:?}");
    }
}
