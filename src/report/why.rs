//! "Why this number" lines of iomark's notes, over a result's `time` and
//! `device_view`: where the time went (shares of the wall time), the fsync latency
//! row, what each disk under the files did and this process's own I/O counters (in a
//! many-hosts aggregate, those of every rank on rank 0's host, added up).
//! `fileio` prints them in its notes block under sysbench's report, `run` on stderr
//! after fio's report; `mark`, `copy` and `tree` print the time breakdown
//! ([`time_block`]) and the device view ([`device_view_block`]) under their tables,
//! and `copy` and `tree` the findings over time after them ([`over_time_block`]).
//! Each line starts with two spaces (inside a block).

use crate::result::flush::dur;
use crate::result::{DeviceActivity, DeviceView, RunResult, TimeShare};
use crate::util::text::iec;

/// The lines (empty when the result has nothing to say: no time, no device view).
pub fn lines(r: &RunResult) -> Vec<String> {
    let mut v = time_lines(r);
    v.extend(fsync_line(r));
    if let Some(view) = &r.device_view {
        v.extend(device_view_lines(view));
    }
    v
}

/// The time breakdown's lines: the whole result's shares (`time: …`), then each
/// thread's, job's, test's or phase's when there are several (empty without a
/// breakdown).
fn time_lines(r: &RunResult) -> Vec<String> {
    let mut v = vec![];
    let Some(all) = r.time.first() else {
        return v;
    };
    let parts = &r.time[1..];
    let one = match r.command.as_str() {
        "fileio" => "thread",
        "run" => "job",
        "mark" => "test",
        _ => "phase",
    };
    let (whom, each) = match parts.len() {
        0 | 1 => (String::new(), ""),
        n => (format!(", {n} {one}s added up"), one),
    };
    let queued = in_flight(r);
    let per = if each.is_empty() {
        String::new()
    } else {
        format!(" per {each}")
    };
    v.push(match depth(all, queued, &per) {
        Some(d) => format!(
            "  time: {d} (each request's own time added up, {}, over {}, {}{whom}){}",
            dur((all.read_ns + all.write_ns + all.sync_ns) as f64),
            all.io_base().1,
            dur(all.io_base().0 as f64),
            waits(all)
        ),
        None => format!(
            "  time: {} (of {}{whom}){}",
            shares(all),
            dur(all.wall_ns as f64),
            overlap(all, queued)
        ),
    });
    if parts.len() > 1 {
        for t in parts {
            let said = depth(t, queued, "").map_or_else(|| shares(t), |d| d + &waits(t));
            v.push(format!("  time {}: {said}", t.who));
        }
    }
    v
}

/// With requests in flight at once (`queued`: iodepth > 1) and the requests' own times
/// adding up past the wall time, the shares as what they are: the average number of
/// requests in flight (Little's law: the summed request time, ns, over the I/O phase's
/// time where the result kept it — fio's run time, not the setup's file layout — else
/// the wall time, ns), `on average 32.0 requests in flight: 31.9 reads, 0.1 writes`, largest first
/// (kinds under 0.05 left out), in place of a share over 100 % (`3190.0 % reads`);
/// `per` (` per job`) after `in flight` when the wall times of several are added up.
/// `None` otherwise: the shares of the wall time say it.
fn depth(t: &TimeShare, queued: bool, per: &str) -> Option<String> {
    let io = t.read_ns + t.write_ns + t.sync_ns;
    if !queued || t.wall_ns == 0 || io <= t.wall_ns {
        return None;
    }
    let wall = t.io_base().0 as f64;
    let mut parts = vec![
        (t.read_ns as f64 / wall, "reads"),
        (t.write_ns as f64 / wall, "writes"),
        (t.sync_ns as f64 / wall, "fsync"),
    ];
    parts.retain(|p| p.0 >= 0.05);
    parts.sort_by(|a, b| b.0.total_cmp(&a.0));
    let kinds: Vec<_> = parts.iter().map(|(n, k)| format!("{n:.1} {k}")).collect();
    Some(format!(
        "on average {:.1} requests in flight{per}: {}",
        io as f64 / wall,
        kinds.join(", ")
    ))
}

/// `; waits 12.3 % of the wall time` beside the requests in flight (empty without
/// timed waits).
fn waits(t: &TimeShare) -> String {
    match t.wait_pct {
        Some(w) if w > 0.0 => format!("; waits {w:.1} % of the wall time"),
        _ => String::new(),
    }
}

/// The time breakdown and the fsync latency of a `mark`, `copy` or `tree` result as a
/// block of its text report: a blank line, a heading, then the lines (empty without a
/// breakdown).
pub fn time_block(r: &RunResult) -> String {
    let mut lines = time_lines(r);
    if lines.is_empty() {
        return String::new();
    }
    lines.extend(fsync_line(r));
    let mut o = "\nwhere the time went (shares of the wall time):\n".to_string();
    for l in lines {
        o += &l;
        o.push('\n');
    }
    o
}

/// The fsync latency row (none when nothing fsynced).
fn fsync_line(r: &RunResult) -> Option<String> {
    let l = &r.fsync.lat;
    if l.count == 0 {
        return None;
    }
    let p = |k: &str| {
        l.percentiles_ns
            .get(k)
            .map_or("?".into(), |n| dur(*n as f64))
    };
    Some(format!(
        "  fsync latency: {} calls, mean {}, p50 {}, p99 {}, max {}",
        l.count,
        dur(l.mean()),
        p("50"),
        p("99"),
        dur(l.max_ns as f64)
    ))
}

/// The device view's lines: one per disk under the files (and its stack's members),
/// the note when the disks moved more than this process did, and this process's own
/// counters. The one renderer of a device view in text: the notes of `fileio` and
/// `run` (through [`lines`]) and the reports of `copy` and `tree` print these.
pub fn device_view_lines(view: &DeviceView) -> Vec<String> {
    let mut v: Vec<String> = view.devices.iter().map(device_line).collect();
    if let Some(p) = &view.process {
        // a many-hosts aggregate: the run's own I/O is every rank's on this host
        let (who, whose, source) = match view.ranks {
            Some(n) => (
                format!("this run's {n} ranks on this host"),
                "theirs, added up",
                "/proc/PID/io of each",
            ),
            None => ("this process".into(), "this process's own", "/proc/self/io"),
        };
        if let Some(more) = device_other_io(view) {
            v.push(format!(
                "  the device counters are device-wide: the disks read and wrote {} more than {who} did, the I/O of other processes (the line below is {whose})",
                iec(more)
            ));
        }
        v.push(process_line(&who, source, p));
    }
    v
}

/// The line of the process's own counters: what it read from and wrote to storage
/// (`read_bytes`, `write_bytes` less `cancelled_write_bytes`), then what its read and
/// write system calls moved (`rchar`, `wchar`), said as such: io_uring's and libaio's requests and
/// mmap's page faults are in neither of those two (the kernel counts them in
/// `read(2)`/`write(2)` and their kin only), so under io_uring the calls' figure is
/// far below what the run read and is no measure of it.
fn process_line(who: &str, source: &str, p: &crate::result::ProcIo) -> String {
    format!(
        "  {who} ({source}): read {} and wrote {} to storage; its read/write system calls moved {} and {} (rchar, wchar: io_uring's, libaio's and mmap's I/O is not counted there)",
        iec(p.read_bytes),
        iec(p.write_bytes.saturating_sub(p.cancelled_write_bytes)),
        iec(p.rchar),
        iec(p.wchar)
    )
}

/// The device view of a `mark`, `copy` or `tree` result as a block of its text
/// report: a blank line, a heading with the period it covers, then
/// [`device_view_lines`]; empty without a view or a disk (a filesystem without a block
/// device, tmpfs).
pub fn device_view_block(r: &RunResult) -> String {
    let Some(view) = r.device_view.as_ref().filter(|v| !v.devices.is_empty()) else {
        return String::new();
    };
    let mut o = format!(
        "\ndevice view {} (the disk's own counters, /sys/block/DISK/stat):\n",
        span(view, r.command == "mark")
    );
    for l in device_view_lines(view) {
        o += &l;
        o.push('\n');
    }
    o
}

/// The findings over time of a `copy` or `tree` result (a write cliff, the drive's
/// thermal throttling, write-back bursts, other I/O: result/timeline.rs) as a block of
/// its text report: a blank line, then each as `iomark: WARNING [id]: sentence`, the
/// line `run`, `fileio` and `mark` print for it; empty without one.
pub fn over_time_block(r: &RunResult) -> String {
    let ids = crate::result::timeline::IDS;
    r.warnings
        .iter()
        .filter(|w| ids.contains(&w.id.as_str()))
        .fold(String::new(), |o, w| {
            let head = if o.is_empty() { "\n" } else { "" };
            format!("{o}{head}iomark: WARNING [{}]: {}\n", w.id, w.message)
        })
}

/// The period a view covers: `mark`'s, its tests (the view starts after the test
/// file is laid out and ends before it is removed: run/mark/mod.rs); a phase-shaped
/// command's, the whole run, `12.34 s, the removal of iomark's files included` (the
/// view is finished after the cleanup, also after an interrupt or an error:
/// run/copy/phase.rs `ended`).
fn span(view: &DeviceView, mark: bool) -> String {
    let secs = view.devices.first().map(|d| d.elapsed_ms as f64 / 1e3);
    match (mark, secs) {
        (true, Some(s)) => {
            format!("over the tests, {s:.2} s (the test file's layout and removal left out)")
        }
        (true, None) => "over the tests".into(),
        (false, Some(s)) => {
            format!("over the whole run, {s:.2} s, the removal of iomark's files included")
        }
        (false, None) => "over the whole run".into(),
    }
}

/// `97.1 % fsync, 1.2 % writes, 0.8 % reads, 0.9 % other`, largest first (parts that
/// took no time left out).
fn shares(t: &TimeShare) -> String {
    let mut parts = vec![
        (t.sync_pct, "fsync"),
        (t.write_pct, "writes"),
        (t.read_pct, "reads"),
        (t.other_pct, "other"),
    ];
    if let Some(w) = t.wait_pct {
        parts.push((w, "waits"));
    }
    parts.retain(|p| p.0 > 0.0);
    parts.sort_by(|a, b| b.0.total_cmp(&a.0));
    if parts.is_empty() {
        return "nothing measured".into();
    }
    parts
        .iter()
        .map(|(p, n)| format!("{p:.1} % {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a job of `r` may have several requests in flight at once (iodepth > 1):
/// only then can its waits run while requests are in flight.
fn in_flight(r: &RunResult) -> bool {
    r.job.iodepth > 1 || r.jobs.iter().any(|j| j.job.iodepth > 1)
}

/// When the shares add up to more than the wall time, what that means: with requests in
/// flight at once (`in_flight`: iodepth > 1) that the waits ran while requests were in
/// flight (requests that alone add up past the wall time are said by [`depth`] instead); with one request at a time the parts cannot overlap in the I/O, so
/// an excess (over 0.5 % of the wall time, past the clocks' rounding) is said as a sum
/// of timings, never as requests in flight.
fn overlap(t: &TimeShare, in_flight: bool) -> String {
    let io = t.read_ns + t.write_ns + t.sync_ns;
    let sum = io + t.wait_ns.unwrap_or(0);
    if t.wall_ns == 0 || sum <= t.wall_ns {
        return String::new();
    }
    if !in_flight {
        if (sum - t.wall_ns) * 200 <= t.wall_ns {
            return String::new();
        }
        return format!(
            "; the parts add up to {:.1} % of the wall time: one request at a time, so their timings overlap, not the I/O",
            sum as f64 * 100.0 / t.wall_ns as f64
        );
    }
    if io > t.wall_ns {
        // the requests in flight, said by `depth` in place of the shares
        return String::new();
    }
    // the requests fit in the wall time: the waits ran while requests were in flight
    "; the waits overlapped requests in flight, so the shares add up to more than the wall time"
        .into()
}

/// Bytes the disks of `view` read and wrote beyond the run's own (its process's
/// `/proc/self/io`, or its ranks' on this host), reads' and writes' excess added up, when
/// either is more than 10 % of the run's own and at least 1 MiB: the device-wide counts
/// then include other processes' I/O.
/// `None` without the process's counters.
pub fn device_other_io(view: &DeviceView) -> Option<u64> {
    let p = view.process.as_ref()?;
    let (dev_r, dev_w) = view
        .devices
        .iter()
        .filter(|d| d.member_of.is_none())
        .fold((0, 0), |(r, w), d| (r + d.read_bytes, w + d.write_bytes));
    let own_w = p.write_bytes.saturating_sub(p.cancelled_write_bytes);
    // both directions' excess once either is worth saying
    let (r, w) = (other_io(dev_r, p.read_bytes), other_io(dev_w, own_w));
    (r.is_some() || w.is_some())
        .then(|| dev_r.saturating_sub(p.read_bytes) + dev_w.saturating_sub(own_w))
}

/// Bytes the device moved beyond this process's own, when that is more than 10 % of the
/// process's and at least 1 MiB: the device view then includes other processes' I/O.
fn other_io(device: u64, own: u64) -> Option<u64> {
    let more = device.saturating_sub(own);
    (more >= 1 << 20 && more * 10 > own).then_some(more)
}

/// One service time per request: the kernel keeps whole milliseconds, so a counted
/// operation whose total is under 1 ms shows `< (1 ms / count)`, never `0 ns`.
fn per_request(what: &str, ms: Option<f64>, count: Option<u64>) -> Option<String> {
    match (ms?, count) {
        (m, Some(n)) if m == 0.0 && n > 0 => Some(format!("{what} < {}", dur(1e6 / n as f64))),
        (_, Some(0)) => None,
        (m, _) => Some(format!("{what} {}", dur(m * 1e6))),
    }
}

/// The longest clock tick the kernel may count a disk's busy time in (`io_ticks` is kept
/// in jiffies: 1 ms at HZ=1000, 10 ms at HZ=100), ms.
const TICK_MS: f64 = 10.0;

/// A disk's busy share as text, `busy 12.3 %`. The kernel counts busy time in clock
/// ticks, so a disk that served requests over a short run can show no busy time at
/// all: then an honest upper bound (one tick over the span, at least 0.1 %), `busy <
/// 0.5 %`, never `busy 0.0 %` beside the requests and a queue depth; `busy < 0.1 %`
/// when counted time rounds to 0.0.
pub fn busy(d: &DeviceActivity) -> String {
    busy_to(d, 1)
}

/// [`busy`] with `decimals` (0 or 1) places: the least shown step (1 % or 0.1 %) is the
/// least bound.
pub fn busy_to(d: &DeviceActivity, decimals: usize) -> String {
    let step = if decimals == 0 { 1.0 } else { 0.1 };
    let served = d.reads + d.writes + d.flushes.unwrap_or(0) + d.discards.unwrap_or(0) > 0;
    if !served || d.util_pct >= step / 2.0 {
        return format!("busy {:.*} %", decimals, d.util_pct);
    }
    let ticks = d.after.io_ticks.saturating_sub(d.before.io_ticks);
    let bound = if ticks == 0 {
        let b = TICK_MS * 100.0 / d.elapsed_ms.max(1) as f64;
        ((b / step).ceil() * step).clamp(step, 100.0)
    } else {
        step
    };
    if bound >= 100.0 {
        return "busy ≤ 100 % (under one clock tick counted)".into();
    }
    format!("busy < {bound:.decimals$} %")
}

/// One disk of the device view.
fn device_line(d: &DeviceActivity) -> String {
    let mut facts: Vec<String> = d.role.iter().cloned().collect();
    facts.extend(d.member_of.iter().map(|m| format!("member of {m}")));
    facts.extend(d.write_cache.clone());
    let facts = if facts.is_empty() {
        String::new()
    } else {
        format!(" ({})", facts.join(", "))
    };
    let count = |n: Option<u64>, what: &str| match n {
        Some(n) => format!("{n} {what}"),
        None => format!("{what} not counted"),
    };
    let service: Vec<String> = [
        per_request("read", d.read_ms_per_io, Some(d.reads)),
        per_request("write", d.write_ms_per_io, Some(d.writes)),
        per_request("flush", d.flush_ms_per_io, d.flushes),
    ]
    .into_iter()
    .flatten()
    .collect();
    let service = if service.is_empty() {
        String::new()
    } else {
        format!("; per request {}", service.join(", "))
    };
    format!(
        "  device {}{facts}: {} reads, {} writes, {}, {}; read {}, wrote {}{service}; queue depth {:.2}, {}",
        d.name,
        d.reads,
        d.writes,
        count(d.flushes, "flushes"),
        count(d.discards, "discards"),
        iec(d.read_bytes),
        iec(d.write_bytes),
        d.queue_depth,
        busy(d)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The process's line under io_uring: storage reads of 64 MiB (`read_bytes`) beside
    /// 8 KiB through read calls (`rchar`: the result file, not the run's reads, which
    /// io_uring does not count there) says which counter is which and what the second
    /// does not count; writes are `write_bytes` less `cancelled_write_bytes`.
    #[test]
    fn the_process_line_says_what_its_syscall_counters_miss() {
        let p = crate::result::ProcIo {
            rchar: 8 << 10,
            wchar: 3 << 10,
            read_bytes: 64 << 20,
            write_bytes: 5 << 20,
            cancelled_write_bytes: 1 << 20,
        };
        assert_eq!(
            process_line("this process", "/proc/self/io", &p),
            "  this process (/proc/self/io): read 64.0 MiB and wrote 4.0 MiB to storage; its read/write system calls moved 8.0 KiB and 3.0 KiB (rchar, wchar: io_uring's, libaio's and mmap's I/O is not counted there)"
        );
        let v = DeviceView {
            process: Some(p),
            ..Default::default()
        };
        let lines = device_view_lines(&v);
        assert_eq!(lines, [process_line("this process", "/proc/self/io", &p)]);
        assert!(!lines[0].contains("through the system calls"), "{lines:?}");
    }

    /// Busy time is counted in clock ticks: requests served with no tick counted give
    /// an upper bound (one 10 ms tick over the span, at least 0.1 %), never `0.0 %`.
    #[test]
    fn busy_time_under_a_tick_is_an_upper_bound() {
        // a disk's `stat` line `0 0 0 0 10 0 80 5 0 100 14`, as probe/devstat.rs reads it
        let a = crate::result::DevStat {
            write_ios: 10,
            write_sectors: 80,
            write_ticks: 5,
            io_ticks: 100,
            in_queue: 14,
            fields: 11,
            ..Default::default()
        };
        let at = |io_ticks: u64, in_queue: u64, writes: u64, ms: u64| {
            let mut b = a;
            b.write_ios += writes;
            b.io_ticks += io_ticks;
            b.in_queue += in_queue;
            DeviceActivity::between("vdz", a, b, ms)
        };
        // 2 s, 40 writes, no tick counted but 40 ms in queue: depth 0.02, busy under 0.5 %
        let d = at(0, 40, 40, 2000);
        assert_eq!(d.util_pct, 0.0);
        assert_eq!(busy(&d), "busy < 0.5 %");
        assert!(
            device_line(&d).ends_with("queue depth 0.02, busy < 0.5 %"),
            "{}",
            device_line(&d)
        );
        // a long run: the bound is 0.1 %
        assert_eq!(busy(&at(0, 0, 3, 600_000)), "busy < 0.1 %");
        // counted time that rounds to 0.0 %
        assert_eq!(busy(&at(2, 2, 3, 10_000)), "busy < 0.1 %");
        // a 5 ms span: one tick is more than it
        assert_eq!(
            busy(&at(0, 0, 1, 5)),
            "busy ≤ 100 % (under one clock tick counted)"
        );
        // nothing served: an idle disk is 0.0 %; counted time as it is
        assert_eq!(busy(&at(0, 0, 0, 2000)), "busy 0.0 %");
        assert_eq!(busy(&at(300, 300, 40, 2000)), "busy 15.0 %");
        // whole percents (`iomark time`): the least bound is 1 %
        assert_eq!(busy_to(&d, 0), "busy < 1 %");
        assert_eq!(busy_to(&at(0, 0, 40, 500), 0), "busy < 2 %");
        assert_eq!(busy_to(&at(300, 300, 40, 2000), 0), "busy 15 %");
    }

    /// 32 requests in flight for 3 s: 96 s of reads, said as requests in flight (the
    /// summed request time over the wall time: 96 s / 3 s = 32.0), never as a bare
    /// 3200 % (the fresh-user pass saw `time: 3196.5 % reads` at iodepth 32).
    #[test]
    fn overlapping_requests_are_said_as_requests_in_flight() {
        let t = TimeShare::new("all", 3_000_000_000, 96_000_000_000, 0, 0);
        assert_eq!(
            depth(&t, true, "").as_deref(),
            Some("on average 32.0 requests in flight: 32.0 reads")
        );
        // one request at a time: shares, never a depth
        assert_eq!(depth(&t, false, ""), None);
        assert_eq!(overlap(&t, true), "");
        // a mix, largest first; a kind under 0.05 in flight left out
        let t = TimeShare::new("all", 1_000, 20_100, 11_900, 40);
        assert_eq!(
            depth(&t, true, "").as_deref(),
            Some("on average 32.0 requests in flight: 20.1 reads, 11.9 writes")
        );
        // requests within the wall time: shares of it
        assert_eq!(
            depth(&TimeShare::new("all", 1000, 500, 400, 99), true, ""),
            None
        );
        assert_eq!(depth(&TimeShare::new("all", 0, 5, 0, 0), true, ""), None);
        assert_eq!(
            waits(&TimeShare::new("all", 1000, 2000, 0, 0).with_wait(123)),
            "; waits 12.3 % of the wall time"
        );
        // 18 % reads and 88 % waits of the same second, iodepth > 1: the waits
        // overlapped the reads in flight
        let t = TimeShare::new("all", 1000, 184, 0, 0).with_wait(881);
        assert_eq!(
            overlap(&t, true),
            "; the waits overlapped requests in flight, so the shares add up to more than the wall time"
        );
        assert_eq!(
            overlap(&TimeShare::new("all", 1000, 100, 0, 0).with_wait(800), true),
            ""
        );
    }

    /// The `time:` line of a run of 2 jobs at iodepth 32, 1 s each: requests in flight
    /// per job, the summed request time and the wall time with their units.
    #[test]
    fn the_time_line_of_queued_jobs_says_requests_in_flight_per_job() {
        let mut r = crate::result::build::build(crate::result::build::Inputs::new(
            "run",
            &[],
            crate::result::Status::Ok,
        ));
        r.job.iodepth = 32;
        r.time = vec![
            TimeShare::new("all", 2_000_000_000, 63_980_000_000, 0, 0),
            TimeShare::new("j", 1_000_000_000, 31_990_000_000, 0, 0),
            TimeShare::new("j", 1_000_000_000, 31_990_000_000, 0, 0),
        ];
        let l = time_lines(&r);
        assert_eq!(
            l[0],
            "  time: on average 32.0 requests in flight per job: 32.0 reads (each request's own time added up, 63.98 s, over the wall time, 2.00 s, 2 jobs added up)"
        );
        assert_eq!(
            l[1],
            "  time j: on average 32.0 requests in flight: 32.0 reads"
        );
        assert!(l.iter().all(|l| !l.contains(" % reads")), "{l:?}");
        // a short job whose wall time holds its file's layout: counted over its I/O
        // time (fio's run time, 9 ms), not the 63 ms wall time (a fresh user's finding:
        // `4.3 requests in flight` at iodepth 32 where the run kept 32 in flight)
        r.time = vec![TimeShare::new("all", 63_000_000, 0, 288_000_000, 0).with_io(9_000_000)];
        assert_eq!(
            time_lines(&r)[0],
            "  time: on average 32.0 requests in flight: 32.0 writes (each request's own time added up, 288.00 ms, over the I/O time, 9.00 ms)"
        );
    }

    /// One request at a time: no request is in flight during a wait, so an excess is
    /// never said as one; within 0.5 % of the wall time it is the clocks' rounding.
    #[test]
    fn one_request_at_a_time_never_overlaps_requests() {
        let t = TimeShare::new("all", 1000, 184, 0, 0).with_wait(881);
        let said = overlap(&t, false);
        assert!(!said.contains("in flight"), "{said}");
        assert_eq!(
            said,
            "; the parts add up to 106.5 % of the wall time: one request at a time, so their timings overlap, not the I/O"
        );
        let t = TimeShare::new("all", 1000, 104, 0, 0).with_wait(900);
        assert_eq!(overlap(&t, false), "");
    }

    #[test]
    fn shares_largest_first_and_device_line() {
        let t = TimeShare::new("all", 1000, 8, 12, 971);
        assert_eq!(
            shares(&t),
            "97.1 % fsync, 1.2 % writes, 0.9 % other, 0.8 % reads"
        );
        let a = crate::result::DevStat {
            fields: 17,
            ..Default::default()
        };
        let b = crate::result::DevStat {
            read_ios: 2,
            read_sectors: 16,
            read_ticks: 2,
            write_ios: 4,
            write_sectors: 64,
            write_ticks: 8,
            io_ticks: 500,
            in_queue: 1000,
            flush_ios: 10,
            flush_ticks: 4,
            fields: 17,
            ..Default::default()
        };
        let d = DeviceActivity {
            write_cache: Some("write back".into()),
            ..DeviceActivity::between("loop0", a, b, 1000)
        };
        assert_eq!(
            device_line(&d),
            "  device loop0 (write back): 2 reads, 4 writes, 10 flushes, 0 discards; read 8.0 KiB, wrote 32.0 KiB; per request read 1.00 ms, write 2.00 ms, flush 400.0 µs; queue depth 1.00, busy 50.0 %"
        );
    }

    /// The kernel's ticks are whole ms: 8 flushes in 0 ms are each under 125 µs, not
    /// 0 ns; no reads show no read time.
    #[test]
    fn a_counted_operation_with_no_ticks_is_under_a_bound() {
        assert_eq!(
            per_request("flush", Some(0.0), Some(8)).as_deref(),
            Some("flush < 125.0 µs")
        );
        assert_eq!(per_request("read", Some(0.0), Some(0)), None);
        assert_eq!(
            per_request("write", Some(0.5), Some(4)).as_deref(),
            Some("write 500.0 µs")
        );
        assert_eq!(per_request("flush", None, Some(3)), None);
    }

    /// Other processes' I/O: more than 10 % over this process's and at least 1 MiB.
    #[test]
    fn other_io_needs_a_margin() {
        assert_eq!(other_io(100 << 20, 100 << 20), None);
        assert_eq!(other_io(105 << 20, 100 << 20), None);
        assert_eq!(other_io(120 << 20, 100 << 20), Some(20 << 20));
        assert_eq!(other_io(1 << 19, 0), None);
        assert_eq!(other_io(2 << 20, 0), Some(2 << 20));
    }
}
