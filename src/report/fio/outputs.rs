//! The report lines and keys of a job's run outputs (result/job.rs): steady-state
//! detection (fio 3.33's JSON `"steadystate"` object and the `steadystate  : …` line)
//! and the coverage of random offsets (public case C13, iomark's own line).

use crate::result::job::{CoverageStats, SteadyReport};
use serde_json::{json, Value};

fn mean(v: &[u64]) -> u64 {
    if v.is_empty() {
        0
    } else {
        v.iter().sum::<u64>() / v.len() as u64
    }
}

/// fio 3.33's `"steadystate"` object (plus `lat_mean`/`lat_ns` for the `lat` criteria
/// of later fio releases). Means are over the whole window, as fio's.
pub fn steady_json(r: &SteadyReport) -> Value {
    let mut data = json!({
        "bw_mean": mean(&r.bw),
        "iops_mean": mean(&r.iops),
        "iops": r.iops,
        "bw": r.bw,
    });
    if r.metric == "lat" {
        data["lat_mean"] = json!(mean(&r.lat));
        data["lat_ns"] = json!(r.lat);
    }
    json!({
        "ss": r.ss,
        "duration": r.dur_s,
        "attained": u8::from(r.attained_after_ns.is_some()),
        "criterion": format!("{:.6}{}", r.criterion, if r.pct { "%" } else { "" }),
        "max_deviation": r.max_deviation,
        "slope": r.slope_value,
        "data": data,
    })
}

/// The human summary line, fio's layout plus when it was attained:
/// `  steadystate  : attained=yes (after 12.0 s), bw=… MiB/s (… MB/s), iops=…, iops mean dev=3.210%`.
pub fn steady_text(r: &SteadyReport) -> String {
    let bw = mean(&r.bw) as f64;
    let what = format!(
        "{}{}",
        r.metric,
        if r.slope { " slope" } else { " mean dev" }
    );
    let lat = if r.metric == "lat" {
        format!(", lat={}ns", mean(&r.lat))
    } else {
        String::new()
    };
    format!(
        "  steadystate  : attained={}, bw={:.1}MiB/s ({:.1}MB/s), iops={}{lat}, {what}={:.3}{}\n",
        match r.attained_after_ns {
            Some(t) => format!(
                "yes (steady state attained after {:.1} s)",
                std::time::Duration::from_nanos(t).as_secs_f64()
            ),
            None => "no".into(),
        },
        bw / 1_048_576.0,
        bw / 1e6,
        mean(&r.iops),
        r.criterion,
        if r.pct { "%" } else { "" }
    )
}

/// `4KiB`, `64KiB`, `1MiB` or bytes (`512B`).
fn human_bs(b: u64) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{}MiB", b >> 20)
    } else if b >= 1024 && b.is_multiple_of(1024) {
        format!("{}KiB", b >> 10)
    } else {
        format!("{b}B")
    }
}

/// One human line: `coverage: 157/256 blocks of 4096 B (61.3 %); issued sizes:
/// 4096 B x 256; no block shrunk to fill random-map gaps`.
pub fn coverage_line(c: &CoverageStats) -> String {
    let sizes: Vec<String> = c
        .bs_hist
        .iter()
        .map(|(b, n)| format!("{} x {n}", human_bs(*b)))
        .collect();
    format!(
        "coverage: {}/{} blocks of {} ({:.1}%); issued sizes: {}; {}",
        c.blocks_touched,
        c.blocks_total,
        human_bs(c.block_bytes),
        c.percent(),
        sizes.join(", "),
        if c.shrunk == 0 {
            "no block shrunk to fill random-map gaps".to_string()
        } else {
            format!("{} requests shrunk to fill random-map gaps", c.shrunk)
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report of run/control/steady.rs's `detector_waits_for_ramp_and_window`.
    #[test]
    fn attained_iops_criterion() {
        let r = SteadyReport {
            ss: "iops:5.000000%".into(),
            metric: "iops".into(),
            slope: false,
            pct: true,
            dur_s: 3,
            attained_after_ns: Some(5_000_000_000),
            iops: vec![1000; 3],
            bw: vec![4_096_000; 3],
            lat: vec![50_000; 3],
            ..SteadyReport::default()
        };
        let j = steady_json(&r);
        assert_eq!(j["attained"], 1);
        assert_eq!(j["ss"], "iops:5.000000%");
        assert_eq!(j["criterion"], "0.000000%");
        assert_eq!(j["data"]["iops_mean"], 1000);
        assert!(j["data"].get("lat_ns").is_none());
        let t = steady_text(&r);
        assert!(t.contains("steady state attained after 5.0 s"), "{t}");
    }

    /// The report of run/control/steady.rs's `unfilled_window_is_padded`.
    #[test]
    fn unfilled_lat_window() {
        let r = SteadyReport {
            metric: "lat".into(),
            pct: true,
            lat: vec![100, 200, 0, 0],
            iops: vec![10, 10, 0, 0],
            bw: vec![10, 10, 0, 0],
            ..SteadyReport::default()
        };
        let j = steady_json(&r);
        assert_eq!(j["attained"], 0);
        assert_eq!(j["data"]["lat_ns"][1], 200);
        assert_eq!(j["data"]["lat_mean"], 75);
    }

    /// The figures of run/gen/coverage.rs's `touches_count_distinct_blocks_and_sizes`.
    #[test]
    fn coverage_line_layout() {
        let s = CoverageStats {
            block_bytes: 4096,
            blocks_touched: 6,
            blocks_total: 272,
            bs_hist: vec![(4096, 3), (16384, 1)],
            shrunk: 0,
        };
        let l = coverage_line(&s);
        assert!(l.starts_with("coverage: 6/272 blocks of 4KiB (2.2%); issued sizes: 4KiB x 3, 16KiB x 1; no block shrunk"), "{l}");
    }
}
