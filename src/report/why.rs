//! "Why this number" lines of iomark's notes, over a result's `time` and
//! `device_view`: where the time went (shares of the wall time), the fsync latency
//! row, what each disk under the files did and this process's own I/O counters.
//! `fileio` prints them in its notes block under sysbench's report, `run` on stderr
//! after fio's report. Each line starts with two spaces (inside a notes block).

use crate::job::units::iec;
use crate::result::flush::dur;
use crate::result::{DeviceActivity, RunResult, TimeShare};

/// The lines (empty when the result has nothing to say: no time, no device view).
pub fn lines(r: &RunResult) -> Vec<String> {
    let mut v = vec![];
    if let Some(all) = r.time.first() {
        let parts = &r.time[1..];
        let whom = match parts.len() {
            0 | 1 => String::new(),
            n if r.command == "fileio" => format!(", {n} threads added up"),
            n => format!(", {n} jobs added up"),
        };
        v.push(format!(
            "  time: {} (of {}{whom})",
            shares(all),
            dur(all.wall_ns as f64)
        ));
        if parts.len() > 1 {
            for t in parts {
                v.push(format!("  time {}: {}", t.who, shares(t)));
            }
        }
    }
    let l = &r.fsync.lat;
    if l.count > 0 {
        let p = |k: &str| {
            l.percentiles_ns
                .get(k)
                .map_or("?".into(), |n| dur(*n as f64))
        };
        v.push(format!(
            "  fsync latency: {} calls, mean {}, p50 {}, p99 {}, max {}",
            l.count,
            dur(l.mean()),
            p("50"),
            p("99"),
            dur(l.max_ns as f64)
        ));
    }
    if let Some(view) = &r.device_view {
        v.extend(view.devices.iter().map(device_line));
        if let Some(p) = &view.process {
            v.push(format!(
                "  this process (/proc/self/io): read {} and wrote {} to storage, {} of reads and {} of writes through the system calls",
                iec(p.read_bytes),
                iec(p.write_bytes.saturating_sub(p.cancelled_write_bytes)),
                iec(p.rchar),
                iec(p.wchar)
            ));
        }
    }
    v
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

/// One disk of the device view.
fn device_line(d: &DeviceActivity) -> String {
    let mut facts: Vec<String> = d
        .member_of
        .iter()
        .map(|m| format!("member of {m}"))
        .collect();
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
    let per = |what: &str, ms: Option<f64>| ms.map(|m| format!("{what} {}", dur(m * 1e6)));
    let service: Vec<String> = [
        per("read", d.read_ms_per_io),
        per("write", d.write_ms_per_io),
        per("flush", d.flush_ms_per_io),
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
        "  device {}{facts}: {} reads, {} writes, {}, {}; read {}, wrote {}{service}; queue depth {:.2}, busy {:.1} %",
        d.name,
        d.reads,
        d.writes,
        count(d.flushes, "flushes"),
        count(d.discards, "discards"),
        iec(d.read_bytes),
        iec(d.write_bytes),
        d.queue_depth,
        d.util_pct
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
