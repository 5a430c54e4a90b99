//! Text layout of sysbench 1.0.20 fileio, line by line (spec/sysbench-fileio.md §5, §7.2,
//! §11). Numbers use printf-style fixed decimals; rates are per the reporting period;
//! MiB = 1048576 bytes; latencies are printed in milliseconds.

use crate::job::sysbench::{FileioJob, Geometry, TestMode};
use crate::job::units::sysbench_human_size;
use crate::stats::{mean_stddev, percentile_ns, Snapshot};

/// First line of prepare: `<N> files, <FS div 1024>Kb each, <(FS×N) div 1048576>Mb total`
/// (sysbench's truncating format, kept for compatibility).
pub fn prepare_summary(g: &Geometry) -> String {
    format!(
        "{} files, {}Kb each, {}Mb total",
        g.files,
        g.file_size / 1024,
        g.total / 1_048_576
    )
}

/// Last line of prepare: `<W> bytes written in <S> seconds (<R> MiB/sec).` with R =
/// W / 1048576 / S, or `No bytes written.`.
pub fn prepare_done(bytes: u64, seconds: f64) -> String {
    if bytes == 0 {
        return "No bytes written.".into();
    }
    let rate = if seconds > 0.0 {
        bytes as f64 / 1_048_576.0 / seconds
    } else {
        0.0
    };
    format!("{bytes} bytes written in {seconds:.2} seconds ({rate:.2} MiB/sec).")
}

/// The general part of the `run` header (§7.2), up to and including its empty lines.
pub fn header_general(job: &FileioJob) -> Vec<String> {
    let mut v = vec![
        "Running the test with following options:".to_string(),
        format!("Number of threads: {}", job.threads),
    ];
    if job.rate > 0 {
        v.push(format!("Target transaction rate: {}/sec", job.rate));
    }
    if job.report_interval != 0 {
        v.push(format!(
            "Report intermediate results every {} second(s)",
            job.report_interval
        ));
    }
    if !job.report_checkpoints.is_empty() {
        let l: Vec<String> = job.report_checkpoints.iter().map(u64::to_string).collect();
        v.push(format!("Report checkpoint(s) at {} seconds", l.join(", ")));
    }
    if job.debug {
        v.push("Debug mode enabled.".into());
        v.push(String::new());
    }
    if job.validate {
        v.push("Validation checks: on.".into());
        v.push(String::new());
    }
    if job.rand_seed != 0 {
        v.push(format!(
            "Initializing random number generator from seed ({}).",
            job.rand_seed
        ));
    } else {
        v.push("Initializing random number generator from current time".into());
    }
    v.push(String::new());
    if let Some(s) = job.forced_shutdown {
        v.push(format!(
            "Forcing shutdown in {} seconds",
            job.time_limit + s
        ));
    }
    v.push(String::new());
    v
}

/// The fileio part of the `run` header (§7.2).
pub fn header_fileio(job: &FileioJob, g: &Geometry, mode: TestMode) -> Vec<String> {
    let mut v = vec![
        format!("Extra file open flags: {}", job.extra_flags.describe()),
        format!(
            "{} files, {}B each",
            g.files,
            sysbench_human_size(g.file_size as f64)
        ),
        format!("{}B total file size", sysbench_human_size(g.total as f64)),
        format!("Block size {}B", sysbench_human_size(g.block as f64)),
    ];
    if job.merged_requests > 0 {
        v.push(format!(
            "Merging requests up to {}B for sequential IO.",
            sysbench_human_size(g.request as f64)
        ));
    }
    if !mode.is_sequential() {
        v.push(format!("Number of IO requests: {}", job.event_limit));
        v.push(format!(
            "Read/Write ratio for combined random IO test: {:.2}",
            job.rw_ratio
        ));
    }
    if job.fsync_freq > 0 {
        v.push(format!(
            "Periodic FSYNC enabled, calling fsync() each {} requests.",
            job.fsync_freq
        ));
    }
    if job.fsync_end {
        v.push("Calling fsync() at the end of test, Enabled.".into());
    }
    if job.fsync_all {
        v.push("Calling fsync() after each write operation.".into());
    }
    v.push(format!("Using {} I/O mode", job.io_mode.description()));
    if job.validate {
        v.push("Using checksums validation.".into());
    }
    v.push(format!("Doing {} test", mode.description()));
    v
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// The final (or checkpoint) report, §11.1–§11.2, starting with its leading empty line
/// and ending with the empty line after the fairness block.
pub fn report(s: &Snapshot, percentile: u32) -> String {
    let t = if s.period_s > 0.0 {
        s.period_s
    } else {
        f64::MIN_POSITIVE
    };
    let reads = s.sum(|x| x.reads);
    let writes = s.sum(|x| x.writes);
    let fsyncs = s.sum(|x| x.fsyncs);
    let br = s.sum(|x| x.bytes_read);
    let bw = s.sum(|x| x.bytes_written);
    let events = s.sum(|x| x.events);
    let hist = s.merged_hist();
    let lat = s.latency();
    let mut o = String::new();
    let row =
        |o: &mut String, label: &str, v: String| o.push_str(&format!("    {label:<30}{v:>4}\n"));
    o.push_str("\nFile operations:\n");
    row(&mut o, "reads/s:", format!("{:.2}", reads as f64 / t));
    row(&mut o, "writes/s:", format!("{:.2}", writes as f64 / t));
    row(&mut o, "fsyncs/s:", format!("{:.2}", fsyncs as f64 / t));
    o.push_str("\nThroughput:\n");
    row(
        &mut o,
        "read, MiB/s:",
        format!("{:.2}", br as f64 / 1_048_576.0 / t),
    );
    row(
        &mut o,
        "written, MiB/s:",
        format!("{:.2}", bw as f64 / 1_048_576.0 / t),
    );
    o.push_str("\nGeneral statistics:\n");
    o.push_str(&format!(
        "    {:<37}{:.4}s\n",
        "total time:", s.total_time_s
    ));
    o.push_str(&format!(
        "    {:<37}{}\n",
        "total number of events:", events
    ));
    o.push_str("\nLatency (ms):\n");
    o.push_str(&format!("         min: {:>39.2}\n", ms(lat.min_ns)));
    o.push_str(&format!("         avg: {:>39.2}\n", ms(lat.mean_ns)));
    o.push_str(&format!("         max: {:>39.2}\n", ms(lat.max_ns)));
    if percentile > 0 {
        o.push_str(&format!(
            "        {percentile:>3}th percentile: {:>27.2}\n",
            ms(percentile_ns(&hist, f64::from(percentile)))
        ));
    } else {
        o.push_str("         percentile stats:               disabled\n");
    }
    o.push_str(&format!("         sum: {:>39.2}\n", ms(lat.sum_ns)));
    let ev: Vec<f64> = s.threads.iter().map(|x| x.events as f64).collect();
    let ex: Vec<f64> = s
        .threads
        .iter()
        .map(|x| x.lat_sum_ns as f64 / 1e9)
        .collect();
    let (ea, es) = mean_stddev(&ev);
    let (xa, xs) = mean_stddev(&ex);
    o.push_str("\nThreads fairness:\n");
    o.push_str(&format!(
        "    {:<31}{ea:.4}/{es:.2}\n",
        "events (avg/stddev):"
    ));
    o.push_str(&format!(
        "    {:<31}{xa:.4}/{xs:.2}\n",
        "execution time (avg/stddev):"
    ));
    o.push('\n');
    o
}

/// One `--report-interval` line (§11.3): read/write bandwidth in MiB/s, fsyncs per
/// second, and the interval's P-th percentile latency in ms with 3 decimals.
pub fn interval_line(
    elapsed_s: f64,
    period_s: f64,
    bytes_read: u64,
    bytes_written: u64,
    fsyncs: u64,
    pct_ns: u64,
    percentile: u32,
) -> String {
    let t = if period_s > 0.0 {
        period_s
    } else {
        f64::MIN_POSITIVE
    };
    format!(
        "[ {}s ] reads: {:.2} MiB/s writes: {:.2} MiB/s fsyncs: {:.2}/s latency (ms,{}%): {:.3}",
        elapsed_s.round() as u64,
        bytes_read as f64 / 1_048_576.0 / t,
        bytes_written as f64 / 1_048_576.0 / t,
        fsyncs as f64 / t,
        percentile,
        pct_ns as f64 / 1e6
    )
}

/// `--debug` per-thread statistics printed after the report.
pub fn debug_threads(s: &Snapshot) -> Vec<String> {
    let mut v = vec![
        "DEBUG: Verbose per-thread statistics:".to_string(),
        String::new(),
    ];
    for (i, t) in s.threads.iter().enumerate() {
        let l = t.all_kinds().summary();
        v.push(format!(
            "DEBUG:     thread #{i:3}: min: {:.4}s  avg: {:.4}s  max: {:.4}s  events: {}",
            l.min_ns as f64 / 1e9,
            l.mean_ns as f64 / 1e9,
            l.max_ns as f64 / 1e9,
            t.events
        ));
        v.push(format!(
            "DEBUG:                  total time taken by event execution: {:.4}s",
            t.lat_sum_ns as f64 / 1e9
        ));
    }
    v.push(String::new());
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{EventKind, ThreadStats};

    #[test]
    fn prepare_lines() {
        let g = Geometry {
            files: 128,
            file_size: 512 << 10,
            raw_file_size: 512 << 10,
            total: 64 << 20,
            block: 16384,
            request: 16384,
        };
        assert_eq!(prepare_summary(&g), "128 files, 512Kb each, 64Mb total");
        assert_eq!(
            prepare_done(67108864, 0.47),
            "67108864 bytes written in 0.47 seconds (136.17 MiB/sec)."
        );
        assert_eq!(prepare_done(0, 0.1), "No bytes written.");
    }

    #[test]
    fn report_layout_and_formulas() {
        // 3 reads of 16 KiB (1, 2, 3 ms), 2 writes, 1 periodic fsync event, 3 fsync calls,
        // over 2 seconds.
        let mut t = ThreadStats::new(false);
        for ms in [1u64, 2, 3] {
            t.event(EventKind::Read, ms * 1_000_000);
            t.read_done(16384);
        }
        for _ in 0..2 {
            t.event(EventKind::Write, 500_000);
            t.write_done(16384);
        }
        t.event(EventKind::Fsync, 4_000_000);
        for _ in 0..3 {
            t.fsync_done();
        }
        let s = Snapshot {
            period_s: 2.0,
            total_time_s: 2.0001,
            threads: vec![t],
        };
        let r = report(&s, 95);
        let expect = "
File operations:
    reads/s:                      1.50
    writes/s:                     1.00
    fsyncs/s:                     1.50

Throughput:
    read, MiB/s:                  0.02
    written, MiB/s:               0.02

General statistics:
    total time:                          2.0001s
    total number of events:              6

Latency (ms):
         min:                                    0.50
         avg:                                    1.83
         max:                                    4.00
         95th percentile:                        4.00
         sum:                                   11.00

Threads fairness:
    events (avg/stddev):           6.0000/0.00
    execution time (avg/stddev):   0.0110/0.00

";
        assert_eq!(r, expect);
    }

    #[test]
    fn percentile_disabled_line() {
        let s = Snapshot {
            period_s: 1.0,
            total_time_s: 1.0,
            threads: vec![ThreadStats::new(false)],
        };
        assert!(report(&s, 0).contains("\n         percentile stats:               disabled\n"));
        assert!(
            report(&s, 100).contains("\n        100th percentile:                        0.00\n")
        );
        assert!(report(&s, 5).contains("\n          5th percentile: "));
    }

    #[test]
    fn interval_line_format() {
        let l = interval_line(2.0004, 1.0, 29_350_000, 19_566_000, 3810, 214_000, 95);
        assert_eq!(l, "[ 2s ] reads: 27.99 MiB/s writes: 18.66 MiB/s fsyncs: 3810.00/s latency (ms,95%): 0.214");
    }
}
