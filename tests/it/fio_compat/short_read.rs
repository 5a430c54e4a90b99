//! Reads that reach the end of a file shorter than the job's size (`--readonly`, so
//! nothing lays it out), next to fio 3.33: its rule for short transfers. A read that
//! moves part of its block counts as short (`short_ios`) and its rest is issued again
//! from where it stopped; a read that moves nothing ends the job with EIO on a
//! synchronous engine and is not done, with no error, on an engine that queues. The
//! figures each engine must print are computed from the file's size; each comparison
//! with fio skips (with the reason) when fio is not installed.

use crate::util::*;
use std::path::Path;

/// The file's size: not a whole number of 4 KiB blocks, so one read is short.
const FILE: u64 = 100_000;
/// The job's size and block size.
const SIZE: u64 = 1 << 20;
const BS: u64 = 4096;

/// What fio 3.33 reports for `rw=read` of the short file on `engine`: (exit code,
/// `error`, `io_bytes`, `total_ios`, `short_ios`).
fn expected(engine: &str) -> (i32, i64, u64, u64, u64) {
    let whole = FILE / BS;
    let short = u64::from(!FILE.is_multiple_of(BS));
    let io_bytes = whole * BS;
    if matches!(engine, "libaio" | "io_uring" | "posixaio") {
        // every block of the job's size is issued, the short one's rest once more;
        // the reads past the end move nothing and the job ends without an error
        (0, 0, io_bytes, SIZE / BS + short, short)
    } else {
        // the whole blocks, the short one, then its rest, which moves nothing: EIO
        (1, 5, io_bytes, whole + short + 1, short)
    }
}

fn args<'a>(engine: &'a str, format: &'a str) -> Vec<String> {
    [
        "--name=j",
        "--filename=f",
        "--rw=read",
        "--bs=4k",
        "--size=1m",
        "--readonly",
        &format!("--ioengine={engine}"),
        &format!("--output-format={format}"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Run `args` in `dir` over a fresh short file, by iomark as `fio` or by fio.
fn over_short_file(dir: &Path, fio: bool, args: &[String]) -> Out {
    let data: Vec<u8> = (0..FILE).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(dir.join("f"), &data).unwrap();
    let o = if fio {
        fio_cmd().dir(dir).args(args).run()
    } else {
        as_fio(dir).dir(dir).args(args).run()
    };
    // readonly: the file is neither extended nor changed
    assert_eq!(std::fs::read(dir.join("f")).unwrap(), data, "{}", o.dump());
    o
}

/// An engine this machine does not run (io_uring refused): iomark exits 3 naming it.
fn unavailable(o: &Out, engine: &str) -> bool {
    o.code == 3 && o.stderr.contains(engine)
}

/// JSON: `error`, `io_bytes`, `total_ios` and `short_ios` of each engine are fio 3.33's
/// rule over the file's size, for iomark and fio alike; a missing transfer is never a
/// done one (the latencies count only the whole blocks read).
#[test]
fn a_short_file_under_readonly_is_read_to_its_end_as_fio_reads_it() {
    let test = "a_short_file_under_readonly_is_read_to_its_end_as_fio_reads_it";
    let d = scratch();
    let peer = need_fio(test);
    for engine in ["psync", "sync", "libaio", "io_uring", "posixaio"] {
        let (code, error, bytes, total, short) = expected(engine);
        for fio in [false, true].into_iter().filter(|&f| !f || peer) {
            let who = if fio { "fio 3.33" } else { "iomark" };
            let o = over_short_file(d.path(), fio, &args(engine, "json"));
            if !fio && unavailable(&o, engine) {
                skip(format!("{test}: {engine} does not run here"));
                continue;
            }
            assert_eq!(o.code, code, "{who} {engine}: {}", o.dump());
            assert!(
                o.stderr
                    .contains("fio: refusing extend of file due to read-only"),
                "{who} {engine}: {}",
                o.dump()
            );
            let j = &o.json_doc()["jobs"][0];
            let r = &j["read"];
            assert_eq!(j["error"], error, "{who} {engine}");
            assert_eq!(r["io_bytes"], bytes, "{who} {engine}");
            assert_eq!(r["total_ios"], total, "{who} {engine}");
            assert_eq!(r["short_ios"], short, "{who} {engine}");
            if !fio {
                // only the whole blocks were done
                assert_eq!(r["clat_ns"]["N"], FILE / BS, "{engine}");
            }
        }
    }
}

/// Text and terse: fio's `issued rwts: total=T,0,0,0 short=S,0,0,0` line, the io= of the
/// group line, and on a synchronous engine the `err= 5` of fio's zero-byte transfer
/// (`func=full resid`); terse's error, read KiB and the same figures as JSON.
#[test]
fn text_and_terse_carry_the_short_transfer_figures() {
    let test = "text_and_terse_carry_the_short_transfer_figures";
    let d = scratch();
    let peer = need_fio(test);
    for engine in ["psync", "libaio"] {
        let (_, error, bytes, total, short) = expected(engine);
        for fio in [false, true].into_iter().filter(|&f| !f || peer) {
            let who = if fio { "fio 3.33" } else { "iomark" };
            let o = over_short_file(d.path(), fio, &args(engine, "normal"));
            let issued = format!("issued rwts: total={total},0,0,0 short={short},0,0,0 ");
            assert!(o.stdout.contains(&issued), "{who} {engine}: {}", o.dump());
            // fio prints three figures: 96 KiB is `96.0KiB`
            let io = format!("io={}.0KiB", bytes / 1024);
            assert!(o.stdout.contains(&io), "{who} {engine}: {}", o.dump());
            let err = if error == 5 {
                "err= 5 (file:backend.c:471, func=full resid, error=Input/output error)"
            } else {
                "err= 0:"
            };
            assert!(o.stdout.contains(err), "{who} {engine}: {}", o.dump());
            let o = over_short_file(d.path(), fio, &args(engine, "terse"));
            let line = o
                .stdout
                .lines()
                .find(|l| l.starts_with("3;"))
                .unwrap_or_else(|| panic!("{who} {engine}: {}", o.dump()));
            let f: Vec<&str> = line.split(';').collect();
            assert_eq!(f[4], error.to_string(), "{who} {engine}: {line}");
            assert_eq!(f[5], (bytes >> 10).to_string(), "{who} {engine}: {line}");
        }
    }
}
