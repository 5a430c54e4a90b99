//! A failed request counted as fio 3.33 counts it, side by side with /usr/bin/fio: fio
//! counts every request as it is queued (ioengines.c `td_io_queue`: `total_io_u`), so a
//! failed one is in `total_ios` (text: `issued rwts: total=`), in the `submit` and
//! `complete` rows (a synchronous engine marks one of each as the request returns), and
//! after the error `cleanup_pending_aio` reaps once without waiting (a `complete` entry
//! of 0 when nothing is ready) and then what is still in flight, each failed request
//! saying its `io_u error` line. iomark never counts a failed request as done: its bytes,
//! latencies and IOPS are the done requests' (fio's `iops` is `total_ios` over the run
//! time: docs/compat/fio.md).
//!
//! The failures are real: writes past the file-size limit (RLIMIT_FSIZE, SIGXFSZ
//! ignored, as `ulimit -f` gives a shell) fail with EFBIG on every engine; /dev/full
//! fails every write with ENOSPC.

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// The file-size limit: the writes below it are done, every write from it fails.
const LIMIT: u64 = 80 * 1024;
const BS: u64 = 4096;
const DEPTH: u64 = 4;

/// `cmd` with the file-size limit `bytes` and SIGXFSZ ignored (a write past the limit
/// then fails with EFBIG instead of killing the process).
fn limited(cmd: Iomark, bytes: u64) -> Iomark {
    cmd.configure(move |c| {
        // SAFETY: setrlimit and signal are async-signal-safe; nothing else runs here.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(c, move || {
                let lim = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                libc::setrlimit(libc::RLIMIT_FSIZE, &lim);
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                Ok(())
            });
        }
    })
}

/// `args` by iomark as `fio` and, when installed, by fio 3.33, each in a directory of
/// its own, under the file-size limit `limit` (none: 0).
fn both(test: &str, args: &[String], limit: u64) -> Vec<(&'static str, Out)> {
    let run = |cmd: Iomark, d: &Path| {
        let cmd = cmd.dir(d).args(args);
        match limit {
            0 => cmd.run(),
            n => limited(cmd, n).run(),
        }
    };
    let d = scratch();
    let mut outs = vec![("iomark", run(as_fio(d.path()), d.path()))];
    if need_fio(test) {
        let f = scratch();
        outs.push(("fio", run(fio_cmd(), f.path())));
    }
    outs
}

fn write_job(engine: &str, format: &str, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=w",
        "--filename=f",
        "--rw=write",
        "--bs=4k",
        "--size=1m",
        &format!("--iodepth={DEPTH}"),
        &format!("--ioengine={engine}"),
        &format!("--output-format={format}"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// The non-zero keys of a percentage map (`iodepth_complete` …), as `key=value`.
fn pct(v: &Value) -> Vec<String> {
    let mut keys: Vec<String> = v
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, x)| x.as_f64().unwrap() > 0.0)
        .map(|(k, x)| format!("{k}={:.6}", x.as_f64().unwrap()))
        .collect();
    keys.sort();
    keys
}

/// fio 3.33's `io_u error` line of the write at `offset` that the limit refused.
fn efbig_line(offset: u64) -> String {
    let text = std::io::Error::from_raw_os_error(libc::EFBIG).to_string();
    let text = text.split(" (os error").next().unwrap().to_string();
    format!("fio: io_u error on file f: {text}: write offset={offset}, buflen={BS}")
}

/// JSON: the writes below the limit are done; `total_ios` adds the failed ones — one on
/// psync, what was in flight on io_uring and libaio (1 to the depth), each saying its
/// line on stderr at the offsets after the limit; psync's `iodepth_submit` and
/// `iodepth_complete` are fio's to the digit (one submit and one completion per
/// request, and the cleanup's reap of 0). Bytes, latencies and iomark's IOPS count
/// only the done writes; fio's IOPS counts `total_ios`.
#[test]
fn a_failed_write_is_issued_not_done_on_every_engine() {
    let test = "a_failed_write_is_issued_not_done_on_every_engine";
    let done = LIMIT / BS;
    for engine in ["psync", "io_uring", "libaio"] {
        let mut seen: Vec<(&str, Value)> = Vec::new();
        for (tool, o) in both(test, &write_job(engine, "json", &[]), LIMIT) {
            let why = format!("{tool} {engine}");
            if tool == "iomark" && o.code == 3 && o.stderr.contains(engine) {
                skip(format!("{test}: {engine} does not run here"));
                break;
            }
            assert_eq!(o.code, 1, "{why}: {}", o.dump());
            let j = o.json_doc()["jobs"][0].clone();
            let w = &j["write"];
            assert_eq!(j["error"], libc::EFBIG, "{why}");
            assert_eq!(w["io_bytes"], LIMIT, "{why}");
            assert_eq!(w["clat_ns"]["N"], done, "{why}");
            assert_eq!(
                (w["short_ios"].as_u64(), w["drop_ios"].as_u64()),
                (Some(0), Some(0))
            );
            let total = w["total_ios"].as_u64().unwrap();
            let failed = total - done;
            if engine == "psync" {
                assert_eq!(failed, 1, "{why}: {w}");
            } else {
                assert!((1..=DEPTH).contains(&failed), "{why}: {w}");
            }
            let lines: Vec<String> = (0..failed).map(|i| efbig_line(LIMIT + i * BS)).collect();
            assert_eq!(o.stderr.lines().collect::<Vec<_>>(), lines, "{why}");
            let rt = w["runtime"].as_f64().unwrap().max(1.0);
            let counted = if tool == "fio" { total } else { done };
            let iops = w["iops"].as_f64().unwrap();
            assert!(
                (iops - counted as f64 * 1000.0 / rt).abs() < 1e-3,
                "{why}: {w}"
            );
            seen.push((tool, j));
        }
        if engine == "psync" {
            for (tool, j) in &seen {
                // one submit and one completion per request, then the cleanup's 0
                let total = j["write"]["total_ios"].as_u64().unwrap();
                let all = (total + 1) as f64;
                let want = vec![
                    format!("0={:.6}", 100.0 / all),
                    format!("4={:.6}", 100.0 * total as f64 / all),
                ];
                assert_eq!(pct(&j["iodepth_complete"]), want, "{tool}");
                assert_eq!(pct(&j["iodepth_submit"]), ["4=100.000000"], "{tool}");
            }
        }
        if let [(_, a), (_, b)] = &seen[..] {
            assert_eq!(
                pct(&a["iodepth_level"]),
                pct(&b["iodepth_level"]),
                "{engine}"
            );
        }
    }
}

/// Text: psync's `IO depths`, `submit`, `complete` and `issued rwts` rows are fio's
/// byte for byte, and the failed write is in `total=`.
#[test]
fn the_text_rows_of_a_failed_psync_write_are_fios() {
    let test = "the_text_rows_of_a_failed_psync_write_are_fios";
    let total = LIMIT / BS + 1;
    let rows = count_rows;
    let outs = both(test, &write_job("psync", "normal", &[]), LIMIT);
    for (tool, o) in &outs {
        let issued = format!("     issued rwts: total=0,{total},0,0 short=0,0,0,0 dropped=0,0,0,0");
        assert!(rows(o).contains(&issued), "{tool}: {}", o.dump());
        assert_eq!(rows(o).len(), 4, "{tool}: {}", o.dump());
    }
    if let [(_, a), (_, b)] = &outs[..] {
        assert_eq!(rows(a), rows(b));
    }
}

/// `continue_on_error=write` with EFBIG made non-fatal (`ignore_error=,EFBIG`): every
/// write of the job is issued (`total_ios` 256), those past the limit are errors
/// (`total_err`), the bytes are the done ones'. Without `ignore_error` EFBIG stays
/// fatal, and fio's `break_on_this_error` still counts it in `total_err` on psync (1,
/// `first_error` 27).
#[test]
fn continue_on_error_counts_every_issued_write() {
    let test = "continue_on_error_counts_every_issued_write";
    let (all, done) = ((1u64 << 20) / BS, LIMIT / BS);
    let coe = ["--continue_on_error=write", "--ignore_error=,EFBIG"];
    for (tool, o) in both(test, &write_job("psync", "json", &coe), LIMIT) {
        let j = &o.json_doc()["jobs"][0];
        assert_eq!(j["write"]["total_ios"], all, "{tool}: {j}");
        assert_eq!(j["write"]["io_bytes"], LIMIT, "{tool}");
        assert_eq!(j["total_err"], all - done, "{tool}");
        assert_eq!(j["first_error"], libc::EFBIG, "{tool}");
    }
    // the text report has fio's lines only: iomark's own line about the errors gone
    // past is a note, printed by `iomark run` and not by `fio`
    for (tool, o) in both(test, &write_job("psync", "normal", &coe), LIMIT) {
        assert!(o.stdout.contains("w: (groupid=0"), "{tool}: {}", o.dump());
        assert!(!o.stdout.contains("  errors: "), "{tool}: {}", o.stdout);
    }
    let fatal = ["--continue_on_error=all"];
    for (tool, o) in both(test, &write_job("psync", "json", &fatal), LIMIT) {
        assert_eq!(o.code, 1, "{tool}: {}", o.dump());
        let j = &o.json_doc()["jobs"][0];
        assert_eq!(j["write"]["total_ios"], done + 1, "{tool}: {j}");
        assert_eq!(
            (j["total_err"].as_u64(), j["first_error"].as_i64()),
            (Some(1), Some(27))
        );
    }
}

/// Three job threads writing /dev/full under `group_reporting`: each says its own
/// `io_u error` line (stderr) and `fio: pid=` line (stdout, three pids), and the one
/// report counts the three failed writes (`total=0,3,0,0`), each thread's submit, its
/// completion and its cleanup's reap of 0 (`complete: 0=50.0%, 4=50.0%`).
#[test]
fn each_thread_of_a_group_says_its_failure() {
    if !Path::new("/dev/full").exists() {
        absent_here("/dev/full");
        return;
    }
    let test = "each_thread_of_a_group_says_its_failure";
    let n = 3usize;
    let args: Vec<String> = [
        "--name=full",
        "--filename=/dev/full",
        "--rw=write",
        "--bs=64k",
        "--size=1m",
        "--numjobs=3",
        "--group_reporting",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let text = std::io::Error::from_raw_os_error(libc::ENOSPC).to_string();
    let text = text.split(" (os error").next().unwrap().to_string();
    for (tool, o) in both(test, &args, 0) {
        let line =
            format!("fio: io_u error on file /dev/full: {text}: write offset=0, buflen=65536\n");
        assert_eq!(o.stderr, line.repeat(n), "{tool}: {}", o.dump());
        let pids: std::collections::BTreeSet<&str> = o
            .stdout
            .lines()
            .filter(|l| l.starts_with("fio: pid=") && l.contains("func=io_u error"))
            .filter_map(|l| l.split([',', '=']).nth(1))
            .collect();
        assert_eq!(pids.len(), n, "{tool}: {}", o.stdout);
        let issued = format!("issued rwts: total=0,{n},0,0 short=0,0,0,0 dropped=0,0,0,0");
        assert!(o.stdout.contains(&issued), "{tool}: {}", o.stdout);
        assert!(
            o.stdout
                .contains("complete  : 0=50.0%, 4=50.0%, 8=0.0%, 16=0.0%, 32=0.0%"),
            "{tool}: {}",
            o.stdout
        );
        assert!(o.stdout.contains("submit    : 0=0.0%, 4=100.0%"), "{tool}");
    }
}

/// A job that misses its `ratemin` (4 KiB reads with a 10 ms think: at most 400 KiB/s,
/// against 1 MiB/s) fails at fio's first check after its 2 s settle period and one
/// `ratecycle` (1 s): error 5, exit 1. The bandwidth and IOPS samples taken until then
/// (one each 500 ms of the run: about 6 over its 3 s) are in its report as fio's — the
/// text's `bw (` and `iops` lines, the JSON's `bw_samples` and `iops_samples` — where
/// iomark printed no sample line and counted 0 samples.
#[test]
fn a_job_that_misses_its_ratemin_keeps_the_samples_taken_until_then() {
    let test = "a_job_that_misses_its_ratemin_keeps_the_samples_taken_until_then";
    let args: Vec<String> = [
        "--name=r",
        "--filename=f",
        "--size=1m",
        "--rw=read",
        "--bs=4k",
        "--time_based",
        "--runtime=5s",
        "--thinktime=10ms",
        "--rate_min=1m",
        "--output-format=normal,json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut counts = Vec::new();
    for (tool, o) in both(test, &args, 0) {
        assert_eq!(o.code, 1, "{tool}: {}", o.dump());
        assert!(
            o.stderr
                .lines()
                .any(|l| l.starts_with("r: rate_min=1048576B/s not met, got ")),
            "{tool}: {}",
            o.stderr
        );
        // the JSON document comes first, then the text report
        let at = o
            .stdout
            .find('{')
            .unwrap_or_else(|| panic!("{tool}: {}", o.dump()));
        let doc = serde_json::Deserializer::from_str(&o.stdout[at..])
            .into_iter::<Value>()
            .next()
            .and_then(Result::ok)
            .unwrap_or_else(|| panic!("{tool}: {}", o.dump()));
        let j = doc["jobs"][0].clone();
        let r = &j["read"];
        assert_eq!(j["error"], libc::EIO, "{tool}: {j}");
        // failed at the check after 2 s and a 1 s cycle, long before the 5 s runtime
        let ms = j["job_runtime"].as_u64().unwrap();
        assert!((3000..4900).contains(&ms), "{tool}: {ms} ms");
        // one sample per whole 500 ms of the run, none at its end
        let n = r["bw_samples"].as_u64().unwrap();
        assert!(
            (ms / 500 - 1..=ms / 500).contains(&n),
            "{tool}: {n} in {ms} ms: {r}"
        );
        assert_eq!(r["iops_samples"].as_u64(), Some(n), "{tool}: {r}");
        // 4 KiB per 10 ms think and more: at most 400 KiB/s, 100 reads a second
        let (bw, iops) = (
            r["bw_mean"].as_f64().unwrap(),
            r["iops_mean"].as_f64().unwrap(),
        );
        assert!(bw > 200.0 && bw <= 400.0, "{tool}: {r}");
        assert!(iops > 50.0 && iops <= 100.0, "{tool}: {r}");
        for (row, key) in [
            ("   bw (  KiB/s): min=", "bw"),
            ("   iops        : min=", "iops"),
        ] {
            let line = o.stdout.lines().find(|l| l.starts_with(row));
            let line = line.unwrap_or_else(|| panic!("{tool}: no {key} line:\n{}", o.stdout));
            assert!(line.ends_with(&format!(", samples={n}")), "{tool}: {line}");
        }
        counts.push(n);
    }
    if let [mine, fio] = counts[..] {
        assert!(mine.abs_diff(fio) <= 1, "samples: iomark {mine}, fio {fio}");
    }
}

/// The rows of a report that count requests: `IO depths`, `submit`, `complete`,
/// `issued rwts`.
fn count_rows(o: &Out) -> Vec<String> {
    o.stdout
        .lines()
        .filter(|l| {
            ["IO depths", "submit    :", "complete  :", "issued rwts:"]
                .iter()
                .any(|k| l.contains(k))
        })
        .map(String::from)
        .collect()
}

/// `args` writing /dev/full with `engine` at `depth`, 4 KiB blocks, 64 KiB.
fn full_job(engine: &str, depth: u32, direct: u32) -> Vec<String> {
    [
        "--name=x".to_string(),
        format!("--ioengine={engine}"),
        "--rw=write".into(),
        "--bs=4k".into(),
        "--size=64k".into(),
        "--filename=/dev/full".into(),
        format!("--direct={direct}"),
        format!("--iodepth={depth}"),
    ]
    .to_vec()
}

/// libaio writing /dev/full through the page cache: the kernel refuses the request in
/// io_submit itself (EINVAL), which fio 3.33 accounts as its commit failing
/// (ioengines.c `td_io_commit`): no `io_u error` line, stderr empty, stdout's `fio:
/// pid=P, err=22/file:ioengines.c:496, func=io commit, error=Invalid argument` and the
/// same account in the job line; the request is issued (`total=0,1,0,0`) and counted at
/// depth 1, but not as submitted (fio counts a submission when its commit succeeds), and
/// the cleanup's reap finds nothing (`complete: 0=100.0%`) — at iodepth 1 and 4 alike.
/// iomark said the request's `io_u error` line, `func=io_u error`, and counted one
/// submission and one completion.
#[test]
fn libaio_refused_in_io_submit_is_fios_failed_commit() {
    let test = "libaio_refused_in_io_submit_is_fios_failed_commit";
    if !Path::new("/dev/full").exists() {
        absent_here("/dev/full");
        return;
    }
    let account = "err=22/file:ioengines.c:496, func=io commit, error=Invalid argument";
    let rows = [
        "  IO depths    : 1=100.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%",
        "     submit    : 0=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
        "     complete  : 0=100.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
        "     issued rwts: total=0,1,0,0 short=0,0,0,0 dropped=0,0,0,0",
    ];
    for depth in [1, 4] {
        for (tool, o) in both(test, &full_job("libaio", depth, 0), 0) {
            let why = format!("{tool} iodepth={depth}");
            if tool == "iomark" && o.code == 3 && o.stderr.contains("libaio") {
                skip(format!("{test}: libaio does not run here"));
                return;
            }
            assert_eq!(o.code, 1, "{why}: {}", o.dump());
            assert_eq!(o.stderr, "", "{why}");
            let said = o
                .stdout
                .lines()
                .any(|l| l.starts_with("fio: pid=") && l.ends_with(account));
            assert!(said, "{why}: {}", o.stdout);
            let job = "err=22 (file:ioengines.c:496, func=io commit, error=Invalid argument): pid=";
            assert!(o.stdout.contains(job), "{why}: {}", o.stdout);
            assert_eq!(count_rows(&o), rows, "{why}: {}", o.stdout);
        }
    }
    // iomark's own words for it stay a note
    let d = scratch();
    let o = as_fio(d.path())
        .dir(d.path())
        .args(full_job("libaio", 1, 0))
        .arg("--notes")
        .run();
    assert_eq!(o.code, 1, "{}", o.dump());
    let mine = "job 'x': write of 4096 bytes at offset 0 in /dev/full: Invalid argument";
    assert!(o.stderr.contains(mine), "{}", o.dump());
    assert!(!o.stderr.contains("io_u error"), "{}", o.dump());
}

/// io_uring writing /dev/full at iodepth 4: the four writes are in flight when the first
/// failure is reaped; fio 3.33 reaps the others after the error in one call that waits
/// for all of them, so every write is issued (`total=0,4,0,0`) and each says its `io_u
/// error` line (offsets 0 to 12288), with fio's `IO depths` and `submit` rows. iomark's
/// reap of the rest took `iodepth_batch_complete_max` (1) completions and stopped
/// there: 2 or 3 issued, as many lines.
#[test]
fn io_uring_reaps_every_failed_write_in_flight() {
    let test = "io_uring_reaps_every_failed_write_in_flight";
    if !Path::new("/dev/full").exists() {
        absent_here("/dev/full");
        return;
    }
    let text = std::io::Error::from_raw_os_error(libc::ENOSPC).to_string();
    let text = text.split(" (os error").next().unwrap().to_string();
    let lines: Vec<String> = (0..4)
        .map(|i| {
            format!(
                "fio: io_u error on file /dev/full: {text}: write offset={}, buflen=4096",
                i * 4096
            )
        })
        .collect();
    let mut seen = Vec::new();
    for (tool, o) in both(test, &full_job("io_uring", 4, 0), 0) {
        if tool == "iomark" && o.code == 3 && o.stderr.contains("io_uring") {
            skip(format!("{test}: io_uring does not run here"));
            return;
        }
        assert_eq!(o.code, 1, "{tool}: {}", o.dump());
        assert_eq!(o.stderr.lines().collect::<Vec<_>>(), lines, "{tool}");
        let rows = count_rows(&o);
        let issued = "     issued rwts: total=0,4,0,0 short=0,0,0,0 dropped=0,0,0,0";
        assert_eq!(
            rows.get(3).map(String::as_str),
            Some(issued),
            "{tool}: {rows:#?}"
        );
        // the cleanup's first reap, which waits for none, finds 0 or 1 by timing
        seen.push([rows[0].clone(), rows[1].clone()]);
    }
    if let [mine, fio] = &seen[..] {
        assert_eq!(mine, fio);
    }
}

/// libaio with `iodepth_batch_submit=4` writing /dev/full through the page cache: the
/// kernel refuses the batch's io_submit (EINVAL), which fio 3.33 accounts as its commit
/// failing (ioengines.c `td_io_commit`), as for a batch of one: no `io_u error` line,
/// stderr empty, `fio: pid=P, err=22/file:ioengines.c:496, func=io commit, error=Invalid
/// argument` on stdout and in the job line; none of the batch's requests is counted as
/// submitted (`submit` all 0), and the cleanup's reap finds nothing (`complete:
/// 0=100.0%`); the batch's four are marked at depth 4 (`IO depths: 4=100.0%`), as fio marks
/// a batch before its commit. iomark handed the other three over one by one after the
/// refused one and said an `io_u error` line for each. (fio counts the batch's four as
/// issued, `total=0,4,0,0`, iomark the one whose submission committed the batch:
/// docs/compat/fio.md.)
#[test]
fn a_libaio_batch_refused_in_io_submit_is_fios_failed_commit() {
    let test = "a_libaio_batch_refused_in_io_submit_is_fios_failed_commit";
    if !Path::new("/dev/full").exists() {
        absent_here("/dev/full");
        return;
    }
    let account = "err=22/file:ioengines.c:496, func=io commit, error=Invalid argument";
    let rows = [
        "  IO depths    : 1=0.0%, 2=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%",
        "     submit    : 0=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
        "     complete  : 0=100.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
    ];
    let mut args = full_job("libaio", 4, 0);
    args.push("--iodepth_batch_submit=4".into());
    for (tool, o) in both(test, &args, 0) {
        if tool == "iomark" && o.code == 3 && o.stderr.contains("libaio") {
            skip(format!("{test}: libaio does not run here"));
            return;
        }
        assert_eq!(o.code, 1, "{tool}: {}", o.dump());
        assert_eq!(o.stderr, "", "{tool}");
        let said: Vec<&str> = o
            .stdout
            .lines()
            .filter(|l| l.starts_with("fio: pid="))
            .collect();
        assert_eq!(said.len(), 1, "{tool}: {}", o.stdout);
        assert!(said[0].ends_with(account), "{tool}: {}", said[0]);
        let job = "err=22 (file:ioengines.c:496, func=io commit, error=Invalid argument): pid=";
        assert!(o.stdout.contains(job), "{tool}: {}", o.stdout);
        // (the `issued rwts` row differs: docs/compat/fio.md)
        assert_eq!(count_rows(&o)[..3], rows, "{tool}: {}", o.stdout);
    }
}
