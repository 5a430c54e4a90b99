//! Text layout of sysbench 1.0.20 fileio, line by line (pinned by the transcripts in
//! tests/it/sysbench_compat/). Numbers use printf-style fixed decimals; rates are per the reporting period;
//! MiB = 1048576 bytes; latencies are printed in milliseconds.

use crate::report::{ReportError, Reporter};
use crate::result::RunResult;

/// Population mean and standard deviation of `xs` (sysbench's fairness formula).
pub fn mean_stddev(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// sysbench's final (or checkpoint) report of a fileio result, starting
/// with its leading empty line and ending with the empty line after the fairness block.
pub struct SysbenchReport;

impl Reporter for SysbenchReport {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        Ok(report(r).into_bytes())
    }
}

/// `--percentile` of a fileio result (0: off).
fn percentile_of(r: &RunResult) -> u32 {
    r.jobs
        .first()
        .and_then(|j| j.job.percentile_list.first())
        .map_or(0, |p| *p as u32)
}

fn report(r: &RunResult) -> String {
    let t = crate::result::positive_secs(r.period_s);
    let percentile = percentile_of(r);
    let lat = &r.lat;
    let mut o = String::new();
    let row =
        |o: &mut String, label: &str, v: String| o.push_str(&format!("    {label:<30}{v:>4}\n"));
    o.push_str("\nFile operations:\n");
    row(&mut o, "reads/s:", format!("{:.2}", r.read.ops as f64 / t));
    row(
        &mut o,
        "writes/s:",
        format!("{:.2}", r.write.ops as f64 / t),
    );
    row(
        &mut o,
        "fsyncs/s:",
        format!("{:.2}", r.fsync.ops as f64 / t),
    );
    o.push_str("\nThroughput:\n");
    row(
        &mut o,
        "read, MiB/s:",
        format!("{:.2}", r.read.bytes as f64 / 1_048_576.0 / t),
    );
    row(
        &mut o,
        "written, MiB/s:",
        format!("{:.2}", r.write.bytes as f64 / 1_048_576.0 / t),
    );
    o.push_str("\nGeneral statistics:\n");
    o.push_str(&format!("    {:<37}{:.4}s\n", "total time:", r.elapsed_s));
    o.push_str(&format!(
        "    {:<37}{}\n",
        "total number of events:", r.events
    ));
    o.push_str("\nLatency (ms):\n");
    o.push_str(&format!("         min: {:>39.2}\n", ms(lat.min_ns)));
    o.push_str(&format!("         avg: {:>39.2}\n", ms(lat.mean_ns)));
    o.push_str(&format!("         max: {:>39.2}\n", ms(lat.max_ns)));
    if percentile > 0 {
        o.push_str(&format!(
            "        {percentile:>3}th percentile: {:>27.2}\n",
            ms(lat.percentile_ns(f64::from(percentile)))
        ));
    } else {
        o.push_str("         percentile stats:               disabled\n");
    }
    o.push_str(&format!("         sum: {:>39.2}\n", ms(lat.sum_ns)));
    o.push_str(&fairness(r));
    o
}

/// The "Threads fairness" block and the empty line after it.
fn fairness(r: &RunResult) -> String {
    let ev: Vec<f64> = r.threads.iter().map(|x| x.events as f64).collect();
    let ex: Vec<f64> = r.threads.iter().map(|x| x.exec_time_s).collect();
    let (ea, es) = mean_stddev(&ev);
    let (xa, xs) = mean_stddev(&ex);
    let mut o = String::from("\nThreads fairness:\n");
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

/// sysbench's `--histogram` table of all events' latencies.
pub struct SysbenchHistogram;

impl Reporter for SysbenchHistogram {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        Ok(crate::report::sysbench_hist::render(r.lat.hist()).into_bytes())
    }
}

/// sysbench's `--debug` per-thread statistics printed after the report, one line each
/// (the console adds its `DEBUG:` level).
pub struct SysbenchThreads;

impl Reporter for SysbenchThreads {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        Ok((debug_threads(r).join("\n") + "\n").into_bytes())
    }
}

/// `--debug` per-thread statistics printed after the report.
pub fn debug_threads(r: &RunResult) -> Vec<String> {
    let mut v = vec![
        "DEBUG: Verbose per-thread statistics:".to_string(),
        String::new(),
    ];
    for (i, t) in r.threads.iter().enumerate() {
        let l = t.lat.clone().unwrap_or_default();
        v.push(format!(
            "DEBUG:     thread #{i:3}: min: {:.4}s  avg: {:.4}s  max: {:.4}s  events: {}",
            l.min_ns as f64 / 1e9,
            l.mean_ns as f64 / 1e9,
            l.max_ns as f64 / 1e9,
            t.events
        ));
        v.push(format!(
            "DEBUG:                  total time taken by event execution: {:.4}s",
            t.exec_time_s
        ));
    }
    v.push(String::new());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fairness_is_population_stddev() {
        // 2 threads, 15366 and 14725 events → 15045.5 / 320.50
        let (m, s) = mean_stddev(&[15366.0, 14725.0]);
        assert_eq!(format!("{m:.4}/{s:.2}"), "15045.5000/320.50");
        assert_eq!(mean_stddev(&[5.0]), (5.0, 0.0));
    }
}
