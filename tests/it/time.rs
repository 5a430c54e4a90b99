//! `iomark time -- CMD ARGS…` (docs/commands/time.md): the storage-wait share of an
//! O_DIRECT read on the virtio disk and of a cached checksum, a command that forks and
//! orphans children counted whole, the exit status passed through, the command's own
//! stdout, `kernel.task_delayacct` as before afterwards (also after SIGINT), bad usage.
//! The tests take one lock: each run turns the switch on and back, so two at once would
//! switch it off under the other.

use crate::util::*;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One `iomark time` at a time (the delay-accounting switch is machine-wide, and these
/// tests check it comes back as it was): every test that runs `iomark time` takes it
/// ([`one_at_a_time`]).
static SWITCH: Mutex<()> = Mutex::new(());

/// Hold the machine's delay-accounting switch for one test's `iomark time` runs.
pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    SWITCH.lock().unwrap_or_else(|e| e.into_inner())
}

const DELAYACCT: &str = "/proc/sys/kernel/task_delayacct";

fn delayacct() -> Option<String> {
    std::fs::read_to_string(DELAYACCT).ok()
}

/// A directory on the root filesystem (the virtio disk, vda), not a tmpfs.
pub fn on_disk() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("iomark-time-")
        .tempdir_in("/var/tmp")
        .expect("a directory under /var/tmp")
}

/// A file of `mib` MiB of incompressible bytes, synced and dropped from the page cache.
pub fn cold_file(dir: &Path, mib: usize) -> PathBuf {
    let p = dir.join("data.bin");
    let mut f = std::fs::File::create(&p).unwrap();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut block = vec![0u8; 1 << 20];
    for _ in 0..mib {
        for c in block.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            c.copy_from_slice(&x.to_ne_bytes());
        }
        f.write_all(&block).unwrap();
    }
    f.sync_all().unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: posix_fadvise on a descriptor we own.
    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    p
}

/// `iomark time --json=… -- ARGS` (history off); the output and the result.
pub fn time(dir: &Path, args: &[&str]) -> (Out, Value) {
    let json = dir.join("time.json");
    let _ = std::fs::remove_file(&json);
    let o = Iomark::new()
        .dir(dir)
        .arg("time")
        .arg(format!("--json={}", json.display()))
        .arg("--no-history")
        .arg("--")
        .args(args)
        .run();
    let v = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (o, v)
}

/// [`time`] until no exit record claims more blocked time than its task lived (kernel
/// 6.18 gives about one short `dd iflag=direct` in three the time since boot; the
/// report leaves it out and says so, checked on each such run): at most six runs.
fn time_recorded(dir: &Path, args: &[&str]) -> (Out, Value) {
    for _ in 0..6 {
        let (o, v) = time(dir, args);
        let w = &section(&v)["storage_wait"];
        if w["records_impossible"].as_u64().unwrap_or(0) == 0 {
            return (o, v);
        }
        assert!(
            o.stderr
                .contains("claimed more blocked time than the task lived")
                && o.stderr.contains("the storage wait is a lower bound"),
            "a left-out record is named: {}",
            o.stderr
        );
    }
    panic!("six runs of {args:?} each had an impossible exit record")
}

fn section(v: &Value) -> &Value {
    &v["timed_command"]
}

/// The tests that read the storage wait need root (taskstats, the switch).
fn root_or_skip() -> bool {
    if !is_root() {
        skip("iomark time measures the storage wait as root only");
        return false;
    }
    true
}

#[test]
fn a_direct_read_of_a_cold_file_waits_for_storage_and_reads_it_at_the_device() {
    let _g = one_at_a_time();
    if !root_or_skip() {
        return;
    }
    let d = on_disk();
    let f = cold_file(d.path(), 256);
    let size = 256u64 << 20;
    let before = delayacct();
    // dd at a real-time priority: other work on a loaded 2-CPU machine cannot take
    // its CPU between reads, which would lower the share
    let input = format!("if={}", f.display());
    let args = [
        "chrt",
        "-f",
        "10",
        "dd",
        &input,
        "of=/dev/null",
        "bs=1M",
        "iflag=direct",
    ];
    let (o, v) = time_recorded(d.path(), &args);
    assert_eq!(o.code, 0, "{}", o.dump());
    assert_eq!(delayacct(), before, "kernel.task_delayacct as it was");
    let t = section(&v);
    assert_eq!(t["storage_wait"]["source"], "taskstats", "{t:#}");
    let share = at_f64(t, "/bound/storage_pct");
    assert!(share > 50.0, "storage share {share} %: {}", o.stderr);
    let read = at_u64(t, "/io/read_bytes");
    assert!(
        read.abs_diff(size) * 100 <= size,
        "device read bytes {read} against the file's {size}"
    );
    let vda = t["devices"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["name"] == "vda"))
        .unwrap_or_else(|| panic!("vda among the devices: {t:#}"));
    assert!(at_u64(vda, "/read_bytes") >= size * 99 / 100, "{vda:#}");
    // the report: on stderr, with the bound's sentence and the source
    assert!(
        o.stderr.contains(
            "of the wall time waited for storage: a drive twice as fast would save at most"
        ),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("taskstats exit records"), "{}", o.stderr);
    assert!(o.stdout.is_empty(), "dd's stdout is its own: {}", o.stdout);
    assert!(
        o.stderr.contains("268435456 bytes"),
        "dd's stderr is its own too"
    );
}

#[test]
fn a_checksum_of_a_cached_file_hardly_waits_and_reads_nothing_at_the_device() {
    let _g = one_at_a_time();
    if !root_or_skip() {
        return;
    }
    let d = on_disk();
    let f = cold_file(d.path(), 64);
    let name = f.display().to_string();
    // the file and sha256sum itself (binary, libraries) in the page cache; again when
    // another test's `tree` dropped the cache during the timed run (cache_drops)
    let warm = || {
        for _ in 0..2 {
            let _ = std::process::Command::new("sha256sum")
                .arg(&f)
                .output()
                .unwrap();
        }
    };
    let mut attempts = 0;
    let (o, v) = loop {
        warm();
        let drops = cache_drops();
        let (o, v) = time(d.path(), &["sha256sum", &name]);
        attempts += 1;
        if cache_drops() == drops || attempts == 3 {
            break (o, v);
        }
    };
    assert_eq!(o.code, 0, "{}", o.dump());
    let t = section(&v);
    let share = at_f64(t, "/bound/storage_pct");
    assert!(share < 10.0, "storage share {share} %: {}", o.stderr);
    assert_eq!(at_u64(t, "/io/read_bytes"), 0, "no device reads: {t:#}");
    assert!(at_u64(t, "/io/rchar") >= 64 << 20, "{t:#}");
    assert!(at_u64(t, "/read_from_cache_bytes") >= 64 << 20, "{t:#}");
    assert!(
        o.stdout.contains(&name),
        "sha256sum's line on stdout: {}",
        o.stdout
    );
    if at_u64(t, "/storage_wait/records_impossible") > 0 {
        // a record left out: the verdict must not conclude
        assert!(o.stderr.contains("is unknown for this run"), "{}", o.stderr);
    } else {
        assert!(o.stderr.contains("under 1 % of the wall time") || share >= 1.0);
    }
}

/// Two parallel readers of a shell and an orphan left behind by a subshell that exits
/// at once: every byte of the tree is counted, the orphan reaped by iomark.
#[test]
fn a_command_that_forks_and_orphans_children_is_counted_whole() {
    let _g = one_at_a_time();
    let d = on_disk();
    let f = cold_file(d.path(), 32);
    let size = 32u64 << 20;
    let dd = format!(
        "dd if={} of=/dev/null bs=1M iflag=direct status=none",
        f.display()
    );
    let script = format!("{dd} & {dd}; wait; (sleep 0.5; {dd}) & exit 0");
    let (o, v) = time(d.path(), &["sh", "-c", &script]);
    assert_eq!(o.code, 0, "{}", o.dump());
    let t = section(&v);
    let read = at_u64(t, "/io/read_bytes");
    assert!(
        read.abs_diff(3 * size) * 100 <= 3 * size,
        "three reads of {size} B counted, got {read}: {t:#}"
    );
    assert!(at_f64(t, "/wall_s") >= 0.5, "waited for the orphan: {t:#}");
    if is_root() {
        // sh, the two readers, the subshell and its sleep and reader
        assert!(at_u64(t, "/storage_wait/processes") >= 5, "{t:#}");
        // a reader the kernel gave the time since boot is left out, and said so
        // (time_recorded); the others' waits are counted
        let left_out = at_u64(t, "/storage_wait/records_impossible");
        assert!(
            at_f64(t, "/storage_wait/blkio_s") > 0.0 || left_out >= 3,
            "{t:#}"
        );
        assert_eq!(
            left_out > 0,
            o.stderr
                .contains("claimed more blocked time than the task lived"),
            "{}",
            o.stderr
        );
        // and the verdict then concludes nothing (a lower bound)
        assert_eq!(
            left_out > 0,
            o.stderr.contains("is unknown for this run"),
            "{}",
            o.stderr
        );
    }
}

#[test]
fn the_exit_status_and_the_outputs_are_the_commands() {
    let _g = one_at_a_time();
    let d = scratch();
    let (o, v) = time(d.path(), &["sh", "-c", "exit 7"]);
    assert_eq!(o.code, 7, "{}", o.dump());
    assert_eq!(at_u64(section(&v), "/exit/code"), 7);
    let (o, v) = time(d.path(), &["sh", "-c", "kill -TERM $$"]);
    assert_eq!(o.code, 143, "killed by SIGTERM: 128 + 15; {}", o.dump());
    assert_eq!(at_u64(section(&v), "/exit/signal"), 15);
    // the command starts with no signal blocked (iomark takes its own synchronously)
    let (o, _) = time(d.path(), &["sh", "-c", "grep SigBlk /proc/self/status"]);
    assert!(
        o.stdout.contains("SigBlk:\t0000000000000000"),
        "{}",
        o.dump()
    );
    // stdout is the command's alone; the report goes to --output
    let rep = d.path().join("report.txt");
    let o = Iomark::new()
        .dir(d.path())
        .args(["time", "--no-history"])
        .arg(format!("--output={}", rep.display()))
        .args(["--", "sh", "-c", "echo out; echo err >&2"])
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    assert_eq!(o.stdout, "out\n");
    assert_eq!(o.stderr, "err\n");
    let text = std::fs::read_to_string(&rep).unwrap();
    assert!(
        text.starts_with("iomark time: sh -c 'echo out; echo err >&2'\n"),
        "{text}"
    );
    assert!(text.contains("  exit status   0\n"), "{text}");
}

/// SIGINT sent to iomark (not the terminal's, which reaches the command too) is passed
/// to the command; iomark reports, restores the switch and exits with its status.
#[test]
fn the_switch_is_as_before_after_sigint_to_iomark() {
    let _g = one_at_a_time();
    if !root_or_skip() {
        return;
    }
    let before = delayacct();
    let d = scratch();
    let child = Iomark::new()
        .dir(d.path())
        .args(["time", "--no-history", "--", "sleep", "30"])
        .spawn();
    // the switch goes on once the run started (when it was off)
    let t0 = Instant::now();
    while before.as_deref() == Some("0\n")
        && delayacct().as_deref() != Some("1\n")
        && t0.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(kill(child.id(), libc::SIGINT), 0);
    let o = finish(child);
    assert_eq!(
        o.code,
        130,
        "sleep ended by the SIGINT passed on: {}",
        o.dump()
    );
    assert!(o.stderr.contains("killed by signal 2"), "{}", o.stderr);
    assert_eq!(delayacct(), before, "kernel.task_delayacct as it was");
}

#[test]
fn bad_usage_is_one_line() {
    let d = scratch();
    let o = Iomark::new().dir(d.path()).arg("time").run();
    assert_eq!(o.code, 2, "{}", o.dump());
    o.one_line_error(&["iomark time: no command", "-- CMD"]);
    let o = Iomark::new()
        .dir(d.path())
        .args(["time", "--no-history", "--", "/nonexistent/cmd"])
        .run();
    assert_eq!(o.code, 127, "not found, as a shell: {}", o.dump());
    o.one_line_error(&["iomark time: /nonexistent/cmd: command not found"]);
    let o = Iomark::new()
        .dir(d.path())
        .args(["time", "--no-history", "--", "/etc"])
        .run();
    assert_eq!(o.code, 126, "not executable, as a shell: {}", o.dump());
    o.one_line_error(&["iomark time: /etc: cannot run it"]);
    let o = Iomark::new()
        .dir(d.path())
        .args(["time", "--bogus", "--", "true"])
        .run();
    assert_eq!(o.code, 2, "{}", o.dump());
    o.one_line_error(&[
        "iomark time: unknown option '--bogus'",
        "the command follows --",
    ]);
}

/// `compare` reads two `time` results (one row per command) and the history keeps them.
#[test]
fn compare_and_history_take_time_results() {
    let _g = one_at_a_time();
    let d = scratch();
    let kept = d.path().join("history");
    let hist = kept.display().to_string();
    let o = Iomark::new()
        .dir(d.path())
        .args(["time", "--json=a.json", "--", "true"])
        .envs(&[("IOMARK_HISTORY", "on"), ("IOMARK_RESULTS", hist.as_str())])
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(o.stderr.contains("kept in the history as"), "{}", o.stderr);
    let o = Iomark::new()
        .dir(d.path())
        .args(["time", "--no-history", "--json=b.json", "--", "true"])
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    let o = Iomark::new()
        .dir(d.path())
        .args(["compare", "a.json", "b.json"])
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(o.stdout.contains("time true"), "{}", o.stdout);
    // a command is not an I/O: no IOPS figure made up from one "operation"
    assert!(!o.stdout.contains("IOPS"), "{}", o.stdout);
    for row in ["wall s", "storage wait %"] {
        assert!(o.stdout.contains(row), "row {row}: {}", o.stdout);
    }
    assert!(
        o.stdout.contains("storage wait % = share of the wall time"),
        "{}",
        o.stdout
    );
    let o = Iomark::new()
        .dir(d.path())
        .args(["compare", "--format=json", "a.json", "b.json"])
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    let cmp: serde_json::Value = serde_json::from_str(&o.stdout).expect("compare JSON");
    let rows = cmp["rows"].as_array().expect("rows");
    let row = |metric: &str| {
        rows.iter()
            .find(|r| r["metric"] == metric)
            .unwrap_or_else(|| panic!("no {metric} row: {}", o.stdout))["values"]
            .clone()
    };
    for (i, f) in ["a.json", "b.json"].iter().enumerate() {
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.path().join(f)).unwrap()).unwrap();
        let t = &r["timed_command"];
        assert_eq!(row("wall s")[i], t["wall_s"], "{f} wall s");
        assert_eq!(
            row("storage wait %")[i],
            t["bound"]["storage_pct"],
            "{f} storage wait"
        );
    }
    let o = Iomark::new()
        .dir(d.path())
        .args(["history"])
        .envs(&[("IOMARK_HISTORY", "on"), ("IOMARK_RESULTS", hist.as_str())])
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(
        o.stdout.contains("-time-"),
        "the kept run listed: {}",
        o.stdout
    );
}
