//! The detectors over synthetic series: a cliff at a known point is found at its moment
//! (within one sample) and byte count (within 10 %); flat noisy series, many seeds, give
//! none; throttling, write-back bursts and other I/O each on their own shape.

use super::*;
use crate::result::{DeviceSample, SeriesSources};

/// A small deterministic generator (xorshift64*), so the seeds are reproducible.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Roughly normal (sum of 4 uniforms), mean 0, deviation `sd`.
    fn noise(&mut self, sd: f64) -> f64 {
        let s: f64 = (0..4).map(|_| self.unit()).sum::<f64>() - 2.0;
        s * sd * 3f64.sqrt()
    }
}

/// Samples every `period` s for `secs` s whose true write rate at time t is `rate(t)`
/// (bytes/s, integrated over each sample), each multiplied by (1 + noise).
fn writes(
    secs: f64,
    period: f64,
    rate: impl Fn(f64) -> f64,
    sd: f64,
    rng: &mut Rng,
) -> Vec<Sample> {
    let n = (secs / period).round() as usize;
    (0..n)
        .map(|i| {
            let (a, b) = (i as f64 * period, (i + 1) as f64 * period);
            // integrate the rate over the sample in 100 steps (a step inside it counts
            // partly)
            let bytes: f64 = (0..100)
                .map(|s| rate(a + (s as f64 + 0.5) * period / 100.0) * period / 100.0)
                .sum();
            let bytes = (bytes * (1.0 + rng.noise(sd))).max(0.0) as u64;
            Sample {
                t_s: b,
                dur_s: period,
                writes: bytes / (1 << 20) + 1,
                written_bytes: bytes,
                ..Sample::default()
            }
        })
        .collect()
}

fn series(samples: Vec<Sample>) -> Series {
    Series {
        period_s: samples.first().map_or(0.0, |s| s.dur_s),
        samples,
        ..Series::default()
    }
}

fn ids(s: &Series) -> Vec<String> {
    detect(s).into_iter().map(|(f, _)| f.id).collect()
}

#[test]
fn cliff_at_a_known_point_names_its_moment_and_bytes() {
    let mut rng = Rng(7);
    for (at, period, hi, lo) in [
        (13.3, 1.0, 3.1e9, 0.9e9),
        (21.75, 1.0, 2.0e9, 1.3e9),
        (4.4, 0.5, 50e6, 10e6),
        (40.0, 1.0, 600e6, 150e6),
    ] {
        let rate = |t: f64| if t < at { hi } else { lo };
        let s = series(writes(at + 25.0, period, rate, 0.05, &mut rng));
        let found = detect(&s);
        let (f, m) = found
            .iter()
            .find(|(f, _)| f.id == WRITE_CLIFF)
            .unwrap_or_else(|| panic!("no cliff at {at}: {found:?}"));
        assert!((f.at_s - at).abs() <= period, "moment {} for {at}", f.at_s);
        let bytes = hi * at;
        assert!(
            (f.written_bytes as f64 - bytes).abs() <= 0.1 * bytes,
            "{} bytes for {bytes}",
            f.written_bytes
        );
        assert!((f.before_bytes_s / hi - 1.0).abs() < 0.1, "{f:?}");
        assert!((f.after_bytes_s / lo - 1.0).abs() < 0.1, "{f:?}");
        assert!(m.contains("the write rate fell from"), "{m}");
    }
}

#[test]
fn the_issue_sentence() {
    let mut rng = Rng(3);
    let at = 41.2 * (1u64 << 30) as f64 / 3.1e9;
    let rate = |t: f64| if t < at { 3.1e9 } else { 0.9e9 };
    let s = series(writes(at + 30.0, 1.0, rate, 0.02, &mut rng));
    let (_, m) = detect(&s).into_iter().next().unwrap();
    assert!(
        m.starts_with("after 41.") && m.contains("fell from 3.1 GB/s to 0.9 GB/s and stayed there"),
        "{m}"
    );
}

#[test]
fn flat_noisy_series_give_no_cliff() {
    for seed in 1..=300u64 {
        let mut rng = Rng(seed * 0x9e37_79b9_7f4a_7c15);
        let sd = [0.05, 0.1, 0.2][seed as usize % 3];
        let secs = [12.0, 30.0, 60.0, 120.0][seed as usize % 4];
        let s = series(writes(secs, 1.0, |_| 500e6, sd, &mut rng));
        assert!(ids(&s).is_empty(), "seed {seed}: {:?}", detect(&s));
    }
}

#[test]
fn short_drops_phase_changes_and_short_runs_are_no_cliff() {
    let mut rng = Rng(11);
    // a dip of 5 s that recovers
    let dip = |t: f64| {
        if (10.0..15.0).contains(&t) {
            100e6
        } else {
            500e6
        }
    };
    assert!(ids(&series(writes(40.0, 1.0, dip, 0.05, &mut rng))).is_empty());
    // the writes stop (a read phase follows)
    let stop = |t: f64| if t < 10.0 { 500e6 } else { 0.0 };
    assert!(ids(&series(writes(30.0, 1.0, stop, 0.05, &mut rng))).is_empty());
    // down for only 8 s at the end
    let late = |t: f64| if t < 22.0 { 500e6 } else { 100e6 };
    let s = series(writes(30.0, 1.0, late, 0.05, &mut rng));
    assert!(ids(&s).is_empty(), "{:?}", detect(&s));
    assert!(ids(&series(writes(30.0, 1.0, late, 0.05, &mut rng))).is_empty());
    // no samples at all
    assert!(ids(&Series::default()).is_empty());
}

/// A run at `rate(t)` whose drive reports `temp(t)`, thresholds 70/80 °C.
fn hot_series(rate: impl Fn(f64) -> f64, temp: impl Fn(f64) -> f64) -> Series {
    let mut s = series(writes(40.0, 1.0, rate, 0.03, &mut Rng(5)));
    for x in &mut s.samples {
        x.temp_c = Some(temp(x.t_s));
    }
    s.sources = Some(SeriesSources {
        device: Some("nvme0n1".into()),
        sensor: Some("nvme".into()),
        temp_max_c: Some(70.0),
        temp_crit_c: Some(80.0),
        ..SeriesSources::default()
    });
    s
}

#[test]
fn throttling_at_the_threshold_is_found_with_its_time() {
    let s = hot_series(
        |t| if t < 15.0 { 2e9 } else { 0.8e9 },
        |t| if t < 15.0 { 50.0 + t } else { 71.0 },
    );
    let found = detect(&s);
    let (f, m) = found
        .iter()
        .find(|(f, _)| f.id == THERMAL_THROTTLING)
        .unwrap();
    assert!((f.at_s - 15.0).abs() <= 1.0, "{f:?}");
    assert_eq!(f.temp_c, Some(71.0));
    assert!(
        m.contains("nvme0n1 reached 71 °C (its threshold 70 °C)"),
        "{m}"
    );
    // hot but as fast, or as slow but cool: no throttling
    let s = hot_series(|_| 2e9, |t| if t < 15.0 { 50.0 } else { 72.0 });
    assert!(!ids(&s).contains(&THERMAL_THROTTLING.to_string()));
    let s = hot_series(|t| if t < 15.0 { 2e9 } else { 0.8e9 }, |_| 60.0);
    assert!(!ids(&s).contains(&THERMAL_THROTTLING.to_string()));
}

/// A command that spends its first seconds setting up (no I/O: a tree's plan) and
/// then throttles: the idle start is no speed, the drop is still found.
#[test]
fn throttling_after_an_idle_set_up_is_found() {
    let rate = |t: f64| match t {
        t if t < 12.0 => 0.0,
        t if t < 20.0 => 2e9,
        _ => 0.5e9,
    };
    let s = hot_series(rate, |t| if t < 20.0 { 50.0 } else { 71.0 });
    let found = detect(&s);
    let f = found.iter().find(|(f, _)| f.id == THERMAL_THROTTLING);
    let (f, _) = f.expect("throttling after an idle start");
    assert!((f.at_s - 20.0).abs() <= 1.0, "{f:?}");
    assert!(f.before_bytes_s > 1.5e9, "{f:?}");
    // a hot drive that stalls the process: the sample taken as it resumes is short and
    // holds what was counted before the stall (a rate far above the run's); such
    // samples are no rate, the stall is still found
    let mut s = hot_series(rate, |t| if t < 20.0 { 50.0 } else { 71.0 });
    // (most hot samples short: their median alone would be far above the cool rate)
    let hot = s.samples.iter_mut().enumerate().skip(21);
    for (_, x) in hot.filter(|(i, _)| i % 3 != 0) {
        x.dur_s = 0.05;
        x.written_bytes = 200_000_000;
    }
    let found = detect(&s);
    assert!(
        found.iter().any(|(f, _)| f.id == THERMAL_THROTTLING),
        "{found:?}"
    );
    // idle until the drive is hot: nothing before to compare with, no finding
    let s = hot_series(
        |t| if t < 20.0 { 0.0 } else { 0.5e9 },
        |t| if t < 20.0 { 50.0 } else { 71.0 },
    );
    assert!(!ids(&s).contains(&THERMAL_THROTTLING.to_string()));
}

#[test]
fn writeback_bursts_and_other_io() {
    // the run writes 100 MB/s; the device nothing for 4 s, then 500 MB in one second
    let mut s = series(writes(20.0, 1.0, |_| 100e6, 0.0, &mut Rng(1)));
    for (i, x) in s.samples.iter_mut().enumerate() {
        let dev = if i % 5 == 4 { 500_000_000 } else { 0 };
        x.device = Some(DeviceSample {
            written_bytes: dev,
            writes: dev / 4096,
            ..DeviceSample::default()
        });
    }
    let found = detect(&s);
    let (f, m) = found
        .iter()
        .find(|(f, _)| f.id == WRITEBACK_BURSTS)
        .unwrap();
    assert!((f.at_s - 4.0).abs() < 1e-9, "{f:?}");
    assert!(m.contains("wrote in bursts"), "{m}");
    // the device writes what the run writes, as it writes it: nothing to say
    for x in &mut s.samples {
        x.device = Some(DeviceSample {
            written_bytes: x.written_bytes,
            ..DeviceSample::default()
        });
    }
    assert!(ids(&s).is_empty(), "{:?}", detect(&s));
    // the device also reads 40 MB/s from 6 s on while the run reads nothing
    for x in s.samples.iter_mut().skip(6) {
        x.device.as_mut().unwrap().read_bytes = 40_000_000;
    }
    let found = detect(&s);
    let (f, m) = found.iter().find(|(f, _)| f.id == OTHER_IO).unwrap();
    assert!(
        (f.at_s - 6.0).abs() < 1e-9 && (f.after_bytes_s - 40e6).abs() < 1e3,
        "{f:?}"
    );
    assert!(
        m.contains("read 40.0 MB/s on average from 6.0 s while this run read nothing"),
        "{m}"
    );
}

#[test]
fn add_puts_each_finding_in_the_series_and_the_warnings() {
    let rate = |t: f64| if t < 10.0 { 500e6 } else { 100e6 };
    let mut s = series(writes(30.0, 1.0, rate, 0.0, &mut Rng(2)));
    let mut w = vec![];
    add(&mut s, &mut w);
    add(&mut s, &mut w);
    assert_eq!(s.findings.len(), 1);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].id, WRITE_CLIFF);
}
