//! Findings over time: a pure function of a run's [`Series`] that
//! says what changed during the run and when — a write cliff (a write cache filled), a
//! drive that throttled at its temperature threshold, write-back arriving in bursts,
//! and I/O on the device that this run did not do. Each finding is a
//! [`TimeFinding`] in `series.findings` (the moment, the bytes written by then, the
//! rates around it) and a [`Warning`] with the same stable id, so the text notes, the
//! JSON and `compare` show it like every other warning. [`add`] is called by the
//! builder (result/build/mod.rs) for every result that has samples.

use super::{Sample, Series, TimeFinding, Warning};
use crate::util::text::iec;

/// The write rate fell and stayed down.
pub const WRITE_CLIFF: &str = "over_time.write_cliff";
/// The drive reached its temperature threshold and the throughput fell with it.
pub const THERMAL_THROTTLING: &str = "over_time.thermal_throttling";
/// The device's writes lagged the run's and arrived in bursts (page-cache write-back).
pub const WRITEBACK_BURSTS: &str = "over_time.writeback_bursts";
/// The device did I/O in a direction this run did none of.
pub const OTHER_IO: &str = "over_time.other_io";
/// Every id of this module, in the order they are reported.
pub const IDS: [&str; 4] = [WRITE_CLIFF, THERMAL_THROTTLING, WRITEBACK_BURSTS, OTHER_IO];

/// A write cliff: the rate after is at most this share of the rate before (a fall of
/// at least 30 %)…
pub const CLIFF_KEEP: f64 = 0.70;
/// …and stays down for at least this long, s.
pub const CLIFF_STAY_S: f64 = 10.0;
/// Throttling: the throughput while hot is at most this share of the one before.
pub const THROTTLE_KEEP: f64 = 0.80;
/// Other I/O is reported from this many bytes on…
pub const OTHER_IO_MIN_BYTES: u64 = 16 << 20;

/// One usable sample: its start and end, s, and its rates, bytes/s.
#[derive(Clone, Copy, Debug)]
struct Point {
    start: f64,
    dur: f64,
    write: f64,
    /// bytes written by the end of the sample
    written: u64,
    writes: u64,
}

/// The samples as points; samples shorter than half the typical one (a tail) are
/// left out of the rates (their bytes still count in `written`).
fn points(samples: &[Sample]) -> Vec<Point> {
    let mut durs: Vec<f64> = samples.iter().map(|s| s.dur_s).collect();
    let typical = median(&mut durs);
    let mut written = 0u64;
    let mut out = Vec::new();
    for s in samples {
        written += s.written_bytes;
        if s.dur_s <= 0.0 || s.dur_s < typical / 2.0 {
            continue;
        }
        out.push(Point {
            start: s.t_s - s.dur_s,
            dur: s.dur_s,
            write: s.written_bytes as f64 / s.dur_s,
            written,
            writes: s.writes,
        });
    }
    out
}

/// Median of `v` (0 when empty); sorts `v`.
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn median_of(p: &[Point], f: impl Fn(&Point) -> f64) -> f64 {
    median(&mut p.iter().map(f).collect::<Vec<f64>>())
}

/// The split `k` (points `..k` before, `k..` after) of the best two-level fit of the
/// write rates, with two points and 2 s before.
fn best_split(p: &[Point]) -> Option<usize> {
    let n = p.len();
    let (mut s1, mut s2) = (vec![0.0; n + 1], vec![0.0; n + 1]);
    for (i, x) in p.iter().enumerate() {
        s1[i + 1] = s1[i] + x.write;
        s2[i + 1] = s2[i] + x.write * x.write;
    }
    let sse = |a: usize, b: usize| {
        let m = (b - a) as f64;
        let sum = s1[b] - s1[a];
        (s2[b] - s2[a]) - sum * sum / m
    };
    (2..n)
        .filter(|&k| p[k].start - p[0].start >= 2.0)
        .min_by(|&a, &b| (sse(0, a) + sse(a, n)).total_cmp(&(sse(0, b) + sse(b, n))))
}

/// The write cliff of `p`, if any: the write rate after a point falls to at most
/// [`CLIFF_KEEP`] of the rate before and stays there to the end (at least
/// [`CLIFF_STAY_S`]), while the run still writes. The moment is placed inside the
/// sample that straddles it, by how much of that sample ran at each rate.
fn write_cliff(p: &[Point]) -> Option<TimeFinding> {
    let (k, n) = (best_split(p)?, p.len());
    let (before, after) = p.split_at(k);
    let hi = median_of(before, |x| x.write);
    let lo = median_of(after, |x| x.write);
    let mid = (hi + lo) / 2.0;
    let share = |v: &[Point], f: &dyn Fn(&Point) -> bool| {
        v.iter().filter(|x| f(x)).count() as f64 / v.len() as f64
    };
    let end = p[n - 1].start + p[n - 1].dur;
    let ok = hi > 0.0
        && end - p[k].start >= CLIFF_STAY_S - 1e-9
        && lo <= CLIFF_KEEP * hi
        && lo >= 0.02 * hi
        && share(after, &|x| x.writes > 0) >= 0.9
        && share(after, &|x| x.write <= mid) >= 0.8
        && share(before, &|x| x.write >= mid) >= 0.8;
    if !ok {
        return None;
    }
    // the straddling sample: the last before or the first after, whichever is more mixed
    let frac = |x: &Point| ((x.write - lo) / (hi - lo)).clamp(0.0, 1.0);
    let (fa, fb) = (frac(&p[k - 1]), frac(&p[k]));
    let j = if 1.0 - fa > fb { k - 1 } else { k };
    let f = frac(&p[j]);
    let at_s = p[j].start + f * p[j].dur;
    let written_before_j = p[j].written as f64 - p[j].write * p[j].dur;
    Some(TimeFinding {
        id: WRITE_CLIFF.into(),
        at_s,
        written_bytes: (written_before_j + f * p[j].dur * hi).max(0.0) as u64,
        before_bytes_s: hi,
        after_bytes_s: lo,
        for_s: end - at_s,
        temp_c: None,
    })
}

/// Thermal throttling: the first sample whose temperature reached `threshold`, when
/// the throughput (reads and writes) of the hot samples that follow is at most
/// [`THROTTLE_KEEP`] of the samples' before it. The samples before the run's first I/O
/// (a command's set-up: planning a tree, opening files) are no speed and are left out,
/// and so are samples shorter than half the typical one.
fn thermal(samples: &[Sample], threshold: f64) -> Option<TimeFinding> {
    let hot = |s: &Sample| s.temp_c.is_some_and(|t| t >= threshold);
    let k = samples.iter().position(hot)?;
    let rate = |s: &Sample| (s.read_bytes + s.written_bytes) as f64 / s.dur_s;
    // samples shorter than half the typical one (taken just after the process resumed,
    // holding what it counted before) are no rate, as for the write cliff
    let mut durs: Vec<f64> = samples.iter().map(|s| s.dur_s).collect();
    let typical = median(&mut durs);
    let usable = |s: &&Sample| s.dur_s > 0.0 && s.dur_s >= typical / 2.0;
    let first_io = samples[..k]
        .iter()
        .position(|s| s.read_bytes + s.written_bytes > 0)
        .unwrap_or(k);
    let mut before: Vec<f64> = samples[first_io..k]
        .iter()
        .filter(usable)
        .map(rate)
        .collect();
    let spell: Vec<&Sample> = samples[k..]
        .iter()
        .take_while(|s| s.temp_c.is_some_and(|t| t >= threshold - 3.0))
        .collect();
    let mut during: Vec<f64> = spell.iter().copied().filter(usable).map(rate).collect();
    if before.len() < 2 || during.len() < 2 {
        return None;
    }
    let (hi, lo) = (median(&mut before), median(&mut during));
    if hi <= 0.0 || lo > THROTTLE_KEEP * hi {
        return None;
    }
    let at_s = samples[k].t_s - samples[k].dur_s;
    let last = spell.last()?;
    Some(TimeFinding {
        id: THERMAL_THROTTLING.into(),
        at_s,
        written_bytes: samples[..k].iter().map(|s| s.written_bytes).sum(),
        before_bytes_s: hi,
        after_bytes_s: lo,
        for_s: last.t_s - at_s,
        temp_c: samples[k].temp_c,
    })
}

/// Write-back bursts: the run wrote steadily while the device wrote nothing in at
/// least 3 samples and more than twice the run's rate in another, with the device's
/// writes lagging the run's by at least two samples' worth at some point.
fn writeback(samples: &[Sample]) -> Option<TimeFinding> {
    let dev: Vec<(&Sample, u64)> = samples
        .iter()
        .filter_map(|s| Some((s, s.device?.written_bytes)))
        .collect();
    let app: u64 = dev.iter().map(|(s, _)| s.written_bytes).sum();
    if dev.len() < 5 || app == 0 {
        return None;
    }
    let per = app as f64 / dev.len() as f64;
    let quiet = dev
        .iter()
        .filter(|(s, d)| s.written_bytes > 0 && (*d as f64) < 0.1 * s.written_bytes as f64)
        .count();
    let burst = dev
        .iter()
        .find(|(s, d)| *d as f64 > 2.0 * s.written_bytes.max(1) as f64 && *d as f64 > per)?;
    let (mut lag, mut max_lag) = (0i128, 0i128);
    for (s, d) in &dev {
        lag += i128::from(s.written_bytes) - i128::from(*d);
        max_lag = max_lag.max(lag);
    }
    if quiet < 3 || (max_lag as f64) < 2.0 * per {
        return None;
    }
    let peak = dev
        .iter()
        .map(|(s, d)| *d as f64 / s.dur_s.max(1e-9))
        .fold(0.0, f64::max);
    let first = burst.0;
    let span = dev.last()?.0.t_s - dev[0].0.t_s + dev[0].0.dur_s;
    Some(TimeFinding {
        id: WRITEBACK_BURSTS.into(),
        at_s: first.t_s - first.dur_s,
        written_bytes: max_lag as u64,
        before_bytes_s: app as f64 / span.max(1e-9),
        after_bytes_s: peak,
        for_s: span,
        temp_c: None,
    })
}

/// Other I/O: the device read (wrote) at least [`OTHER_IO_MIN_BYTES`] while the run
/// read (wrote) nothing at all; from the first sample where it did.
/// A direction: its verb, the run's bytes of a sample, the device's bytes of a sample.
type Direction = (
    &'static str,
    fn(&Sample) -> u64,
    fn(&crate::result::DeviceSample) -> u64,
);

fn other_io(samples: &[Sample]) -> Vec<(TimeFinding, &'static str)> {
    let mut out = Vec::new();
    let dirs: [Direction; 2] = [
        ("read", |s| s.read_bytes, |d| d.read_bytes),
        ("wrote", |s| s.written_bytes, |d| d.written_bytes),
    ];
    for (verb, app, dev) in dirs {
        let theirs: u64 = samples
            .iter()
            .filter_map(|s| s.device.map(|d| dev(&d)))
            .sum();
        if samples.iter().map(app).sum::<u64>() > 0 || theirs < OTHER_IO_MIN_BYTES {
            continue;
        }
        let Some(first) = samples
            .iter()
            .find(|s| s.device.is_some_and(|d| dev(&d) > 0))
        else {
            continue;
        };
        let at_s = first.t_s - first.dur_s;
        let end = samples.last().map_or(at_s, |s| s.t_s);
        out.push((
            TimeFinding {
                id: OTHER_IO.into(),
                at_s,
                written_bytes: samples
                    .iter()
                    .take_while(|s| s.t_s < first.t_s)
                    .map(|s| s.written_bytes)
                    .sum(),
                before_bytes_s: 0.0,
                after_bytes_s: theirs as f64 / (end - at_s).max(1e-9),
                for_s: end - at_s,
                temp_c: None,
            },
            verb,
        ));
    }
    out
}

/// Decimal rates for the sentences, both in the unit of the larger: `3.1 GB/s` and
/// `0.9 GB/s`, `850 MB/s` and `120 MB/s`, `12.0 MB/s`.
fn rates(a: f64, b: f64) -> (String, String) {
    let top = a.max(b);
    let f = |x: f64| {
        if top >= 1e9 {
            format!("{:.1} GB/s", x / 1e9)
        } else if top >= 100e6 {
            format!("{:.0} MB/s", x / 1e6)
        } else {
            format!("{:.1} MB/s", x / 1e6)
        }
    };
    (f(a), f(b))
}

/// The sentence of a finding (`verb`: `read`/`wrote` for other I/O).
fn message(f: &TimeFinding, device: &str, verb: &str, threshold: Option<f64>) -> String {
    let ((b, a), at) = (rates(f.before_bytes_s, f.after_bytes_s), f.at_s);
    match f.id.as_str() {
        WRITE_CLIFF => format!(
            "after {} written (at {at:.1} s) the write rate fell from {b} to {a} and stayed there for the remaining {:.0} s: a write cache filled (or the drive slowed down); {a} is the sustained rate",
            iec(f.written_bytes),
            f.for_s
        ),
        THERMAL_THROTTLING => format!(
            "at {at:.1} s the drive{device} reached {:.0} °C (its threshold {:.0} °C) and the throughput fell from {b} to {a} with it for {:.0} s: the drive throttled",
            f.temp_c.unwrap_or(f64::NAN),
            threshold.unwrap_or(f64::NAN),
            f.for_s
        ),
        WRITEBACK_BURSTS => format!(
            "the device{device} wrote in bursts from {at:.1} s: this run wrote a steady {b} but the device's writes lagged by up to {} and arrived at up to {a} (page-cache write-back); the run's rate is the cache's, not the device's",
            iec(f.written_bytes)
        ),
        _ => format!(
            "the device{device} {verb} {a} on average from {at:.1} s while this run {} nothing: another process (or write-back of earlier writes) shared the device during the run",
            if verb == "read" { "read" } else { "wrote" }
        ),
    }
}

/// The findings of `s` with their sentences, in [`IDS`] order.
pub fn detect(s: &Series) -> Vec<(TimeFinding, String)> {
    let src = s.sources.clone().unwrap_or_default();
    let device = src
        .device
        .as_ref()
        .map_or(String::new(), |d| format!(" {d}"));
    let threshold = src.temp_max_c.or(src.temp_crit_c);
    let mut found: Vec<(TimeFinding, &str)> = Vec::new();
    found.extend(write_cliff(&points(&s.samples)).map(|f| (f, "")));
    found.extend(
        threshold
            .and_then(|t| thermal(&s.samples, t))
            .map(|f| (f, "")),
    );
    found.extend(writeback(&s.samples).map(|f| (f, "")));
    found.extend(other_io(&s.samples));
    found
        .into_iter()
        .map(|(f, verb)| {
            let m = message(&f, &device, verb, threshold);
            (f, m)
        })
        .collect()
}

/// Put the findings of `series` into it and into `warnings` (each id once).
pub fn add(series: &mut Series, warnings: &mut Vec<Warning>) {
    series.findings.clear();
    for (f, message) in detect(series) {
        if !warnings.iter().any(|w| w.id == f.id) {
            warnings.push(Warning {
                id: f.id.clone(),
                message,
            });
        }
        series.findings.push(f);
    }
}

#[cfg(test)]
mod tests;
