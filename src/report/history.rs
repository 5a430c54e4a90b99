//! Runs of the results history side by side: which earlier run is "the previous run of
//! the same device and test" (`compare --baseline=last`), the regression finding
//! ([`REGRESSION`]) when a result falls below the earlier runs of its device and test
//! by more than their own spread, and the one-line list entry of `iomark history`.
//! Tests are `compare`'s (report/compare.rs `tests_of`), so "the same test" means the
//! same row name there (`RND4K Q1T1 read`, `copy buffered_128k`); the device is the
//! result's identity key (probe/identity.rs). The files are files/history.rs's.

use super::compare::{test_diff, tests_of, Test};
use crate::result::history::{device_key, device_label};
use crate::result::{RunResult, Warning};

/// Stable id of the regression finding.
pub const REGRESSION: &str = "history.regression";

/// Below this fraction of the earlier runs' median, a difference is within run-to-run
/// noise even when the earlier runs agree exactly (or there is only one).
pub const NOISE_FLOOR: f64 = 0.05;

/// One kept run: its history name and its result.
#[derive(Clone, Debug)]
pub struct Entry {
    /// the file stem, e.g. `20261202-041512-fileio-4242`
    pub name: String,
    /// the result
    pub result: RunResult,
}

/// The names of a result's tests (compare's rows).
fn test_names(r: &RunResult) -> Vec<String> {
    tests_of(r).into_iter().map(|t| t.name).collect()
}

/// Whether `a` and `b` ran on the same device (identity key) and share a test.
pub fn same_device_and_test(a: &RunResult, b: &RunResult) -> bool {
    if a.command != b.command || device_key(a) != device_key(b) {
        return false;
    }
    let nb = test_names(b);
    test_names(a).iter().any(|n| nb.contains(n))
}

/// The runs of `entries` before `r` (earlier end time, or earlier in the list when
/// the times tie) on the same device and test, oldest first; `skip` is `r`'s own name
/// when it is kept.
pub fn earlier<'a>(entries: &'a [Entry], r: &RunResult, skip: Option<&str>) -> Vec<&'a Entry> {
    entries
        .iter()
        .filter(|e| Some(e.name.as_str()) != skip)
        // the same run kept and also given as a file
        .filter(|e| !(e.result.timestamp_ms == r.timestamp_ms && e.result.argv == r.argv))
        .filter(|e| e.result.timestamp_ms <= r.timestamp_ms)
        .filter(|e| same_device_and_test(&e.result, r))
        .collect()
}

/// The throughput a regression is judged on: MB/s when measured, else IOPS.
fn throughput(t: &Test) -> Option<(f64, &'static str)> {
    t.mb_s
        .filter(|v| *v > 0.0)
        .map(|v| (v, "MB/s"))
        .or_else(|| t.iops.filter(|v| *v > 0.0).map(|v| (v, "IOPS")))
}

fn fmt(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The regression findings of `r` against the `earlier` runs of its device and test:
/// for each test, its throughput below the lowest earlier run by more than the earlier
/// runs' spread (max − min, at least [`NOISE_FLOOR`] of their median). Only earlier
/// runs of the test that ran it the same way count ([`test_diff`] empty).
pub fn regressions(r: &RunResult, earlier: &[&RunResult]) -> Vec<Warning> {
    let before: Vec<Vec<Test>> = earlier.iter().map(|e| tests_of(e)).collect();
    let mut out = vec![];
    for t in tests_of(r) {
        let Some((v, unit)) = throughput(&t) else {
            continue;
        };
        // an earlier run that ran the test another way (O_DIRECT, fsync policy, files,
        // a rate limit or think time: compare's "jobs differ") is no baseline for it
        let mut vals: Vec<f64> = before
            .iter()
            .filter_map(|ts| ts.iter().find(|o| o.name == t.name))
            .filter(|o| test_diff(o, &t, "A", "B").is_empty())
            .filter_map(throughput)
            .filter(|(_, u)| *u == unit)
            .map(|(x, _)| x)
            .collect();
        if vals.is_empty() {
            continue;
        }
        vals.sort_by(f64::total_cmp);
        let (lo, hi) = (vals[0], vals[vals.len() - 1]);
        let median = vals[vals.len() / 2];
        let spread = (hi - lo).max(NOISE_FLOOR * median);
        if v < lo - spread {
            out.push(Warning {
                id: REGRESSION.into(),
                message: format!(
                    "{} {unit} {} is below {} by more than {}: {:.0}% under {}",
                    t.name,
                    fmt(v),
                    earlier_runs(&vals),
                    margin(hi - lo, spread, vals.len()),
                    (1.0 - v / median) * 100.0,
                    match vals.len() {
                        1 => "it".to_string(),
                        _ => format!("their median {}", fmt(median)),
                    }
                ),
            });
        }
    }
    out
}

/// "the earlier run of this device and test (1662)" / "the 3 earlier runs … (1600–1662)".
fn earlier_runs(vals: &[f64]) -> String {
    match vals {
        [one] => format!("the earlier run of this device and test ({})", fmt(*one)),
        _ => format!(
            "the {} earlier runs of this device and test ({}–{})",
            vals.len(),
            fmt(vals[0]),
            fmt(vals[vals.len() - 1])
        ),
    }
}

/// What the drop was measured against: the earlier runs' own spread (max − min), or the
/// noise floor when that spread is narrower or there is one earlier run (no spread).
fn margin(range: f64, used: f64, runs: usize) -> String {
    let floor = format!(
        "the {:.0} % noise floor ({})",
        NOISE_FLOOR * 100.0,
        fmt(used)
    );
    match (runs, range >= used) {
        (1, _) => format!("{floor}: one earlier run has no spread of its own"),
        (_, true) => format!("their spread ({})", fmt(used)),
        (_, false) => format!("{floor}: their own spread ({}) is narrower", fmt(range)),
    }
}

/// The tests of a result as a short list: `RND4K Q1T1 read, SEQ1M Q8T1 write` (the
/// first three and a count).
pub fn tests_line(r: &RunResult) -> String {
    let names = test_names(r);
    let mut s = names.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 3 {
        s += &format!(" (+{} more)", names.len() - 3);
    }
    s
}

/// One line of `iomark history`: name, date, command, device, tests, first throughput,
/// and [`MEMORY_MARK`] after it when the figures came from memory
/// (result/truth.rs `from_memory`).
pub fn list_line(e: &Entry) -> String {
    let r = &e.result;
    let first = tests_of(r)
        .iter()
        .find_map(|t| throughput(t).map(|(v, u)| format!("{} {u}", fmt(v))))
        .unwrap_or_else(|| "-".into());
    let mark = match crate::result::truth::from_memory(r) {
        Some(why) => format!("  {MEMORY_MARK} ({why})"),
        None => String::new(),
    };
    format!(
        "{}  {}  {:<6}  {}  {}  {}{mark}",
        e.name,
        super::compare::context(r).date,
        r.command,
        device_label(r),
        tests_line(r),
        first
    )
}

pub use crate::result::truth::{MEMORY_LEGEND, MEMORY_MARK};

/// Whether `e` passes the list's filters: device (a substring of its key or label),
/// command or test (a substring of the command or a test name), and the date range
/// (`YYYY-MM-DD`, inclusive).
pub fn matches(
    e: &Entry,
    device: Option<&str>,
    test: Option<&str>,
    since: Option<&str>,
    until: Option<&str>,
) -> bool {
    let r = &e.result;
    let lower = |s: &str| s.to_lowercase();
    let dev_ok = device.is_none_or(|d| {
        let d = lower(d);
        lower(&device_key(r)).contains(&d) || lower(&device_label(r)).contains(&d)
    });
    let test_ok = test.is_none_or(|t| {
        let t = lower(t);
        lower(&r.command).contains(&t) || test_names(r).iter().any(|n| lower(n).contains(&t))
    });
    let day = crate::result::history::date(r.timestamp_ms);
    let since_ok = since.is_none_or(|s| day.as_str() >= s);
    let until_ok = until.is_none_or(|u| day.as_str() <= u);
    dev_ok && test_ok && since_ok && until_ok
}

/// `iomark history show`: the run's name and file, when it ended, its command line,
/// machine and device, its figures (compare's table of the one result), its warnings
/// and the regression findings against the `earlier` runs of its device and test.
pub fn show_text(e: &Entry, file: &str, earlier: &[&RunResult]) -> String {
    let r = &e.result;
    let c = super::compare::context(r);
    let mut out = format!("run       {} ({file})\n", e.name);
    let status = serde_json::to_value(r.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    out += &format!(
        "ended     {}, status {status}, {:.1} s\n",
        c.date, r.elapsed_s
    );
    out += &format!("command   {}\n", c.command);
    out += &format!("machine   {}\n", c.machine_line());
    out += &format!("device    {}\n\n", device_line(r));
    let cmp = super::compare::compare(
        std::slice::from_ref(r),
        std::slice::from_ref(&e.name),
        &[file.into()],
    );
    // the table's own "Warnings:" block lists the result's warnings (once)
    out += &super::compare_render::render(&cmp, super::compare_render::Format::Table);
    let found = regressions(r, earlier);
    out += &if found.is_empty() {
        format!("\n{}\n", no_regression(earlier.len()))
    } else {
        "\nfindings:\n".to_string()
            + &found
                .iter()
                .map(|w| format!("  {}: {}\n", w.id, w.message))
                .collect::<String>()
    };
    out
}

/// What a run's `n` earlier runs of its device and test say when they find no
/// regression.
fn no_regression(n: usize) -> String {
    if n == 0 {
        "no earlier run of this device and test in the history".into()
    } else {
        format!("no regression against the {n} earlier run(s) of this device and test")
    }
}

/// What the `earlier` kept runs of `r`'s device and test say of it, one sentence each
/// (the reports' "against the earlier kept runs"): the regression findings
/// (`id: message`), else that there is none, or no earlier run.
pub fn against_earlier(r: &RunResult, earlier: &[&RunResult]) -> Vec<String> {
    let found = regressions(r, earlier);
    if found.is_empty() {
        return vec![no_regression(earlier.len())];
    }
    found
        .iter()
        .map(|w| format!("{}: {}", w.id, w.message))
        .collect()
}

/// The job settings of a result in one line: kind, engine, iodepth, threads, block and
/// file-set sizes, O_DIRECT or buffered (the HTML and markdown reports). A result whose
/// summary holds no one depth (`mark`'s: iodepth 0, each test its own) says its kind,
/// file set and O_DIRECT here and each test's settings in [`settings_rows`].
pub fn settings_line(r: &RunResult) -> String {
    let j = &r.job;
    // a result that does not record its file set (fio's jobs: 0) says nothing of it,
    // never "file set 0 B"
    let set = match j.total_size_bytes {
        0 => String::new(),
        n => format!("file set {n} B, "),
    };
    let mode = if j.direct { "O_DIRECT" } else { "buffered" };
    if per_test(r) {
        let tests = crate::util::text::plural(r.jobs.len() as u64, "test", "tests");
        return format!("{}: {set}{mode}, {tests}, each with its settings", j.kind);
    }
    format!(
        "{}: engine {}, iodepth {}, threads {}, block {} B, {set}{mode}",
        j.kind, j.engine, j.iodepth, j.threads, j.block_size_bytes
    )
}

/// Whether `r`'s settings are its tests' (each job its own engine, depth, threads and
/// block): a summary without one depth (`mark`'s, iodepth 0) over recorded jobs.
fn per_test(r: &RunResult) -> bool {
    r.job.iodepth == 0 && !r.jobs.is_empty()
}

/// The settings rows of a result for the HTML and markdown reports: `settings` (the
/// [`settings_line`]), then for a result of several tests each with its own settings
/// (`mark`) one row per test, `settings of TEST`: its engine, iodepth, threads and
/// block, as the test's job recorded them.
pub fn settings_rows(r: &RunResult) -> Vec<(String, String)> {
    let mut rows = vec![("settings".to_string(), settings_line(r))];
    if !per_test(r) {
        return rows;
    }
    for t in &r.jobs {
        let e = &t.job;
        let bs = |b: &crate::result::job::BlockSizeSpec| match (b.min_bytes, b.max_bytes) {
            (lo, hi) if lo == hi => format!("{lo} B"),
            (lo, hi) => format!("{lo}-{hi} B"),
        };
        let block = if e.bs_read == e.bs_write || !e.rw.contains("write") {
            bs(&e.bs_read)
        } else if !e.rw.contains("read") && !e.rw.contains("rw") {
            bs(&e.bs_write)
        } else {
            format!("read {}, write {}", bs(&e.bs_read), bs(&e.bs_write))
        };
        rows.push((
            format!("settings of {}", e.name),
            format!(
                "{}: engine {}, iodepth {}, threads {}, block {block}",
                e.rw, t.engine, e.iodepth, t.threads
            ),
        ));
    }
    rows
}

/// The device of a result in words: label, transport, capacity, firmware.
pub fn device_line(r: &RunResult) -> String {
    let Some(d) = &r.device else {
        return device_label(r);
    };
    let mut v = vec![d.label()];
    if let Some(t) = &d.transport {
        v.push(t.clone());
    }
    if let Some(c) = d.capacity_bytes {
        v.push(crate::util::text::iec(c));
    }
    if let Some(f) = &d.firmware {
        v.push(format!("firmware {f}"));
    }
    v.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::DeviceIdentity;

    fn copy_run(key: &str, ms: u64, mb_s: f64) -> RunResult {
        let mut i = crate::result::Inputs::new("copy", &[], crate::result::Status::Ok);
        let mut p = crate::result::Phase::new("buffered_128k", 10, (mb_s * 1e6) as u64, 1.0);
        p.mb_per_s = mb_s;
        i.phases = vec![p];
        let mut r = crate::result::build(i);
        r.timestamp_ms = ms;
        r.device = Some(DeviceIdentity {
            key: key.into(),
            ..Default::default()
        });
        r
    }

    #[test]
    fn the_settings_line_names_a_file_set_only_when_the_result_records_one() {
        let mut r = copy_run("dev:a", 1, 100.0);
        r.job.block_size_bytes = 4096;
        r.job.total_size_bytes = 0;
        let line = settings_line(&r);
        assert!(!line.contains("file set"), "{line}");
        assert!(line.contains("block 4096 B, buffered"), "{line}");
        r.job.total_size_bytes = 65536;
        let line = settings_line(&r);
        assert!(
            line.contains("block 4096 B, file set 65536 B, buffered"),
            "{line}"
        );
    }

    /// A run that waited on purpose (a rate limit, think time) is not a regression of
    /// earlier runs that did not, and compare says why the columns differ.
    #[test]
    fn a_rate_limited_run_is_no_regression_of_unlimited_ones() {
        let a = copy_run("dev:a", 1, 100.0);
        let b = copy_run("dev:a", 2, 104.0);
        let mut limited = copy_run("dev:a", 9, 5.0);
        limited.time = vec![crate::result::TimeShare::new("all", 1_000, 50, 0, 0).with_wait(900)];
        let rs = [&a, &b];
        assert!(regressions(&limited, &rs).is_empty());
        let (ta, tl) = (&tests_of(&a)[0], &tests_of(&limited)[0]);
        assert_eq!(
            test_diff(ta, tl, "A", "B"),
            ["B: 90 % of the time in timed waits (rate limit, think time, waiting for earlier jobs) (A: no timed waits)"]
        );
        // an imported fio report does not say its waits: no call-out against it (its
        // "no timed waits" would be a guess)
        let mut fio = a.clone();
        fio.tool = "fio".into();
        assert!(test_diff(&tests_of(&fio)[0], tl, "A", "B").is_empty());
        assert!(test_diff(tl, &tests_of(&fio)[0], "A", "B").is_empty());
        // the same slowdown without waits is one
        assert_eq!(regressions(&copy_run("dev:a", 9, 5.0), &rs).len(), 1);
        // a wait share within the call-out's margin is the same test
        let mut waited = copy_run("dev:a", 9, 5.0);
        waited.time = vec![crate::result::TimeShare::new("all", 1_000, 50, 0, 0).with_wait(50)];
        assert_eq!(regressions(&waited, &rs).len(), 1);
    }

    #[test]
    fn a_run_below_the_earlier_spread_is_a_regression_and_one_within_is_not() {
        let a = copy_run("dev:a", 1, 100.0);
        let b = copy_run("dev:a", 2, 110.0);
        let other = copy_run("dev:b", 3, 500.0);
        let entries: Vec<Entry> = [&a, &b, &other]
            .iter()
            .enumerate()
            .map(|(i, r)| Entry {
                name: format!("r{i}"),
                result: (*r).clone(),
            })
            .collect();
        let slow = copy_run("dev:a", 9, 50.0);
        let before = earlier(&entries, &slow, None);
        assert_eq!(before.len(), 2, "the other device is not an earlier run");
        let rs: Vec<&RunResult> = before.iter().map(|e| &e.result).collect();
        let found = regressions(&slow, &rs);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].id, REGRESSION);
        assert!(found[0].message.contains("50.0"), "{}", found[0].message);
        // 100..110, spread 10: 95 is within it
        assert!(regressions(&copy_run("dev:a", 9, 95.0), &rs).is_empty());
        assert!(regressions(&copy_run("dev:a", 9, 89.0), &rs).len() == 1);
        // one earlier run: the noise floor (5 %) is the spread
        assert!(regressions(&copy_run("dev:a", 9, 96.0), &rs[..1]).is_empty());
        let one = regressions(&copy_run("dev:a", 9, 94.0), &rs[..1]);
        assert_eq!(one.len(), 1);
        // said as what it is: no spread of its own, the floor (5 % of 100 = 5.00)
        assert!(
            one[0].message.contains("below the earlier run of this device and test (100) by more than the 5 % noise floor (5.00): one earlier run has no spread of its own: 6% under it"),
            "{}",
            one[0].message
        );
        // two runs 100 and 101: their spread (1) is narrower than the floor (5.05)
        let close = [copy_run("dev:a", 1, 100.0), copy_run("dev:a", 2, 101.0)];
        let close: Vec<&RunResult> = close.iter().collect();
        let w = regressions(&copy_run("dev:a", 9, 90.0), &close);
        assert!(
            w[0].message
                .contains("the 5 % noise floor (5.05): their own spread (1.00) is narrower"),
            "{}",
            w[0].message
        );
        assert!(
            found[0]
                .message
                .contains("by more than their spread (10.0)"),
            "{}",
            found[0].message
        );
    }
}
