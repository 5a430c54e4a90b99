//! `--plot DIR` charts of one run, drawn from its [`RunResult`] alone (so `fileio`,
//! `mark` and `run` share them): throughput over time (bandwidth in MB/s, decimal, and
//! IOPS, one panel each), the device over time (the run's and the device's MB/s, the
//! drive's temperature, the CPUs' clock, the findings over time; the stretch of each
//! finding over time — the drive throttled, the write rate fell after a cache filled,
//! write-back bursts, another process's I/O — is shaded in its colour and labelled on
//! every time panel of both charts) and the latency
//! percentile curve (log latency axis over a
//! "nines" percentile axis, as fio's and HdrHistogram's plots draw it).
//!
//! Sources, best first: `series.samples` (sampled while running with `--plot`), else
//! sysbench's `intervals` (`--report-interval`, bandwidth only); `series.latency_curves`,
//! else the percentiles of `read`/`write` (`clat` when present). plotters' SVG backend
//! writes text as `<text>` in a generic `sans-serif` family: no system font is read.
//! Each chart is a reporter (bytes); cli/output.rs writes them into the `--plot` directory.

use crate::report::{ReportError, Reporter};
use crate::result::{CurvePoint, LatencyCurve, RunResult};
use plotters::coord::Shift;
use plotters::prelude::*;

const READ: RGBColor = RGBColor(0, 114, 178);
const WRITE: RGBColor = RGBColor(213, 94, 0);
const OTHER: RGBColor = RGBColor(0, 158, 115);
/// The shading and label of a stretch the drive throttled (a finding over time).
pub const THROTTLED: RGBColor = RGBColor(204, 0, 0);
/// The shading and label of the stretch after a write cliff (a write cache filled).
pub const CLIFF: RGBColor = RGBColor(204, 121, 167);
/// The shading and label of write-back bursts and of other processes' I/O.
pub const SHARED: RGBColor = RGBColor(96, 96, 96);

/// A stretch of the run marked on every time panel: its start and end, s, its label and
/// its colour.
type Window = (f64, f64, String, RGBColor);

/// The stretches of `r`'s run its findings over time mark, each from the finding's
/// moment for as long as it lasted, labelled with what happened: the drive throttled
/// (with its temperature), the write rate fell (with the bytes written before), the
/// device wrote in bursts, another process used the device.
fn windows(r: &RunResult) -> Vec<Window> {
    use crate::result::timeline::{OTHER_IO, THERMAL_THROTTLING, WRITEBACK_BURSTS, WRITE_CLIFF};
    let found = r.series.iter().flat_map(|s| &s.findings);
    found
        .filter_map(|f| {
            let at = f.at_s;
            let (label, colour) = match f.id.as_str() {
                THERMAL_THROTTLING => {
                    let temp = f.temp_c.map_or(String::new(), |t| format!(" at {t:.0} °C"));
                    (format!("drive throttled{temp} from {at:.1} s"), THROTTLED)
                }
                WRITE_CLIFF => {
                    let bytes = crate::util::text::iec(f.written_bytes);
                    let label = format!("write rate fell after {bytes} (at {at:.1} s)");
                    (label, CLIFF)
                }
                WRITEBACK_BURSTS => (format!("write-back bursts from {at:.1} s"), SHARED),
                OTHER_IO => (format!("other I/O on the device from {at:.1} s"), SHARED),
                _ => return None,
            };
            Some((at, at + f.for_s, label, colour))
        })
        .collect()
}

/// File-name stem of a result's charts: command, test mode (or job kind), block size,
/// queue depth and threads, e.g. `fileio-rndrd-4k-q1t1`.
pub fn stem(r: &RunResult) -> String {
    let j = &r.job;
    let mode = j
        .test_mode
        .and_then(|m| serde_json::to_value(m).ok())
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| j.kind.clone());
    let bs = j.block_size_bytes;
    let b = if bs >= 1 << 20 && bs.is_multiple_of(1 << 20) {
        format!("{}m", bs >> 20)
    } else if bs >= 1024 && bs.is_multiple_of(1024) {
        format!("{}k", bs >> 10)
    } else {
        format!("{bs}b")
    };
    let raw = format!("{}-{mode}-{b}-q{}t{}", r.command, j.iodepth, j.threads);
    let mut s: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    s.trim_matches('-').to_string()
}

/// One-line description of the job for chart titles.
pub fn describe(r: &RunResult) -> String {
    let j = &r.job;
    let mode = j
        .test_mode
        .and_then(|m| serde_json::to_value(m).ok())
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| j.kind.clone());
    let mut s = format!(
        "{} {mode}, {} blocks, QD{} x {} thread(s), {}, {}",
        r.command,
        crate::util::text::iec(j.block_size_bytes),
        j.iodepth,
        j.threads,
        j.engine,
        if j.direct { "O_DIRECT" } else { "buffered" }
    );
    if let Some(m) = r
        .diagnosis
        .as_ref()
        .and_then(|d| d.summary.device_model.as_ref())
    {
        s += &format!(" on {m}");
    }
    s
}

/// A time series: (seconds since start, value) per op.
struct Throughput {
    t: Vec<f64>,
    read_mb_s: Vec<f64>,
    write_mb_s: Vec<f64>,
    read_iops: Option<Vec<f64>>,
    write_iops: Option<Vec<f64>>,
    source: &'static str,
}

fn throughput(r: &RunResult) -> Option<Throughput> {
    let rate = |v: u64, d: f64| if d > 0.0 { v as f64 / d } else { 0.0 };
    if let Some(s) = r.series.as_ref().filter(|s| !s.samples.is_empty()) {
        let x = &s.samples;
        return Some(Throughput {
            t: x.iter().map(|p| p.t_s).collect(),
            read_mb_s: x
                .iter()
                .map(|p| rate(p.read_bytes, p.dur_s) / 1e6)
                .collect(),
            write_mb_s: x
                .iter()
                .map(|p| rate(p.written_bytes, p.dur_s) / 1e6)
                .collect(),
            read_iops: Some(x.iter().map(|p| rate(p.reads, p.dur_s)).collect()),
            write_iops: Some(x.iter().map(|p| rate(p.writes, p.dur_s)).collect()),
            source: "sampled while running",
        });
    }
    if r.intervals.is_empty() {
        return None;
    }
    let x = &r.intervals;
    Some(Throughput {
        t: x.iter().map(|p| p.t_s).collect(),
        read_mb_s: x
            .iter()
            .map(|p| rate(p.read_bytes, p.dur_s) / 1e6)
            .collect(),
        write_mb_s: x
            .iter()
            .map(|p| rate(p.written_bytes, p.dur_s) / 1e6)
            .collect(),
        read_iops: None,
        write_iops: None,
        source: "--report-interval samples (no per-interval I/O counts: IOPS not drawn)",
    })
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Draw one time panel with a line (and a dot per sample) per non-empty series, over
/// the shaded `windows`.
fn time_panel(
    area: &DrawingArea<SVGBackend, Shift>,
    (title, y_desc): (&str, &str),
    t: &[f64],
    series: &[(&str, RGBColor, &[f64])],
    windows: &[Window],
) -> Result<(), String> {
    let t_max = t.iter().copied().fold(0.0f64, f64::max).max(1e-3);
    let y_max = series
        .iter()
        .flat_map(|s| s.2.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let top = if y_max > 0.0 { y_max * 1.15 } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(85)
        .build_cartesian_2d(0f64..t_max * 1.02, 0f64..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("time since start, s")
        .y_desc(y_desc)
        .y_label_formatter(&|v| {
            if top >= 100.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            }
        })
        .x_label_formatter(&|v| format!("{v:.1}"))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(err)?;
    shade(&mut chart, windows, top)?;
    for &(name, color, ys) in series {
        let pts: Vec<(f64, f64)> = t.iter().copied().zip(ys.iter().copied()).collect();
        line_with_points(&mut chart, pts, color, name.to_string())?;
    }
    legend(&mut chart, SeriesLabelPosition::LowerRight)
}

/// Each window shaded over the panel's height, its label at its top left.
fn shade<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    windows: &[Window],
    top: f64,
) -> Result<(), String>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for (i, (a, b, label, colour)) in windows.iter().enumerate() {
        let band = Rectangle::new([(*a, 0.0), (*b, top)], colour.mix(0.12).filled());
        chart.draw_series(std::iter::once(band)).map_err(err)?;
        let style = ("sans-serif", 13).into_font().color(colour);
        // labels of stretches that overlap stack downwards
        let y = top * (0.97 - 0.07 * i as f64);
        let text = Text::new(label.clone(), (*a, y), style);
        chart.draw_series(std::iter::once(text)).map_err(err)?;
    }
    Ok(())
}

/// One series: a 2 px line through `pts` with a dot at each point, named in the legend.
fn line_with_points<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    pts: Vec<(f64, f64)>,
    color: RGBColor,
    label: String,
) -> Result<(), String>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    chart
        .draw_series(std::iter::once(PathElement::new(
            pts.clone(),
            color.stroke_width(2),
        )))
        .map_err(err)?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3)));
    chart
        .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))
        .map_err(err)?;
    Ok(())
}

/// The legend box of a chart, at `pos`.
fn legend<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    pos: SeriesLabelPosition,
) -> Result<(), String>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    chart
        .configure_series_labels()
        .position(pos)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(err)
}

/// The throughput-over-time chart (bandwidth and IOPS panels) of a result.
pub struct ThroughputChart;

impl Reporter for ThroughputChart {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let tp = throughput(r).ok_or(ReportError::Empty)?;
        let mut svg = String::new();
        draw_throughput(r, &tp, &mut svg).map_err(ReportError::Failed)?;
        Ok(svg.into_bytes())
    }
}

/// The latency percentile chart of a result.
pub struct LatencyChart;

impl Reporter for LatencyChart {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let c = curves(r);
        if c.is_empty() {
            return Err(ReportError::Empty);
        }
        let mut svg = String::new();
        draw_latency(r, &c, &mut svg).map_err(ReportError::Failed)?;
        Ok(svg.into_bytes())
    }
}

/// The device-over-time chart of a result: the run's and the device's MB/s per
/// direction, the drive's temperature (with its threshold) and the job CPUs' clock, one
/// panel each for what the samples hold; the findings over time in its header.
pub struct DeviceChart;

impl Reporter for DeviceChart {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let s = r.series.as_ref().ok_or(ReportError::Empty)?;
        let has = |f: &dyn Fn(&crate::result::Sample) -> bool| s.samples.iter().any(f);
        if !has(&|x| x.device.is_some() || x.temp_c.is_some() || x.cpu_mhz.is_some()) {
            return Err(ReportError::Empty);
        }
        let mut svg = String::new();
        draw_device(r, s, &mut svg).map_err(ReportError::Failed)?;
        Ok(svg.into_bytes())
    }
}

/// The panels of the device chart: (title, y axis, lines) for what the samples hold.
type Panel = (
    &'static str,
    &'static str,
    Vec<(String, RGBColor, Vec<f64>)>,
);

fn device_panels(s: &crate::result::Series) -> Vec<Panel> {
    let x = &s.samples;
    let rate = |v: u64, d: f64| if d > 0.0 { v as f64 / d / 1e6 } else { 0.0 };
    let dev = |f: fn(&crate::result::DeviceSample) -> u64| -> Vec<f64> {
        x.iter()
            .map(|p| p.device.map_or(0.0, |d| rate(f(&d), p.dur_s)))
            .collect()
    };
    let mut out: Vec<Panel> = vec![];
    if x.iter().any(|p| p.device.is_some()) {
        let name = s
            .sources
            .as_ref()
            .and_then(|c| c.device.clone())
            .unwrap_or_default();
        let lines = vec![
            (
                "run write".to_string(),
                WRITE,
                x.iter().map(|p| rate(p.written_bytes, p.dur_s)).collect(),
            ),
            (format!("{name} write"), OTHER, dev(|d| d.written_bytes)),
            (
                "run read".to_string(),
                READ,
                x.iter().map(|p| rate(p.read_bytes, p.dur_s)).collect(),
            ),
            (format!("{name} read"), BLACK, dev(|d| d.read_bytes)),
        ];
        let lines = lines
            .into_iter()
            .filter(|l| l.2.iter().any(|v| *v > 0.0))
            .collect();
        out.push(("The run and the device", "MB/s (1 MB = 1,000,000 B)", lines));
    }
    let some = |f: fn(&crate::result::Sample) -> Option<f64>| -> Option<Vec<f64>> {
        x.iter()
            .any(|p| f(p).is_some())
            .then(|| x.iter().map(|p| f(p).unwrap_or(0.0)).collect())
    };
    if let Some(t) = some(|p| p.temp_c) {
        let mut lines = vec![("drive".to_string(), WRITE, t)];
        if let Some(m) = s
            .sources
            .as_ref()
            .and_then(|c| c.temp_max_c.or(c.temp_crit_c))
        {
            lines.push(("threshold".to_string(), BLACK, vec![m; x.len()]));
        }
        out.push(("Drive temperature", "°C", lines));
    }
    if let Some(c) = some(|p| p.cpu_mhz) {
        out.push((
            "Job CPUs' clock",
            "MHz (mean of the CPUs)",
            vec![("clock".to_string(), READ, c)],
        ));
    }
    out
}

fn draw_device(r: &RunResult, s: &crate::result::Series, svg: &mut String) -> Result<(), String> {
    let panels = device_panels(s);
    let n = panels.len().max(1) as u32;
    let root = SVGBackend::with_string(svg, (1100, 340 * n + 60)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (head, body) = root.split_vertically(60);
    head.draw(&Text::new(
        format!("Over time: {}", describe(r)),
        (14, 10),
        ("sans-serif", 18).into_font().color(&BLACK),
    ))
    .map_err(err)?;
    let found: Vec<String> = s
        .findings
        .iter()
        .map(|f| format!("{} at {:.1} s", f.id, f.at_s))
        .collect();
    let line = if found.is_empty() {
        "no change found over time".to_string()
    } else {
        found.join("; ")
    };
    head.draw(&Text::new(
        line,
        (14, 36),
        ("sans-serif", 13).into_font().color(&BLACK),
    ))
    .map_err(err)?;
    let t: Vec<f64> = s.samples.iter().map(|p| p.t_s).collect();
    for (area, (title, y, lines)) in body.split_evenly((n as usize, 1)).iter().zip(&panels) {
        let refs: Vec<_> = lines
            .iter()
            .map(|(l, c, v)| (l.as_str(), *c, v.as_slice()))
            .collect();
        time_panel(area, (title, y), &t, &refs, &windows(r))?;
    }
    root.present().map_err(err)
}

fn draw_throughput(r: &RunResult, tp: &Throughput, svg: &mut String) -> Result<(), String> {
    let panels = if tp.read_iops.is_some() { 2 } else { 1 };
    let root = SVGBackend::with_string(svg, (1100, 380 * panels + 60)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (head, body) = root.split_vertically(60);
    head.draw(&Text::new(
        format!("Throughput over time: {}", describe(r)),
        (14, 10),
        ("sans-serif", 18).into_font().color(&BLACK),
    ))
    .map_err(err)?;
    head.draw(&Text::new(
        format!(
            "{}; each point is the I/O completed in its sample divided by its length",
            tp.source
        ),
        (14, 36),
        ("sans-serif", 13).into_font().color(&BLACK),
    ))
    .map_err(err)?;
    let any = |v: &[f64]| v.iter().any(|x| *x > 0.0);
    let pick = |rv: &'_ [f64], wv: &'_ [f64]| -> Vec<(&'static str, RGBColor, Vec<f64>)> {
        let mut s = vec![];
        if any(rv) || !any(wv) {
            s.push(("read", READ, rv.to_vec()));
        }
        if any(wv) {
            s.push(("write", WRITE, wv.to_vec()));
        }
        s
    };
    let areas = body.split_evenly((panels as usize, 1));
    let bw = pick(&tp.read_mb_s, &tp.write_mb_s);
    let bw_refs: Vec<_> = bw.iter().map(|(n, c, v)| (*n, *c, v.as_slice())).collect();
    let windows = windows(r);
    time_panel(
        &areas[0],
        ("Bandwidth", "MB/s (1 MB = 1,000,000 B)"),
        &tp.t,
        &bw_refs,
        &windows,
    )?;
    if let (Some(ri), Some(wi)) = (&tp.read_iops, &tp.write_iops) {
        let io = pick(ri, wi);
        let io_refs: Vec<_> = io.iter().map(|(n, c, v)| (*n, *c, v.as_slice())).collect();
        time_panel(
            &areas[1],
            ("IOPS", "I/O operations per second"),
            &tp.t,
            &io_refs,
            &windows,
        )?;
    }
    root.present().map_err(err)
}

/// Latency curves to draw: the stored ones, else built from the op percentiles.
fn curves(r: &RunResult) -> Vec<LatencyCurve> {
    if let Some(s) = r.series.as_ref().filter(|s| !s.latency_curves.is_empty()) {
        return s.latency_curves.clone();
    }
    let mut v = vec![];
    for (name, op) in [("read", &r.read), ("write", &r.write)] {
        let (measure, lat) = match &op.clat {
            Some(c) => ("completion", c),
            None => ("event", &op.lat),
        };
        let mut points: Vec<CurvePoint> = lat
            .percentiles_ns
            .iter()
            .filter_map(|(k, ns)| {
                Some(CurvePoint {
                    percentile: k.parse().ok()?,
                    ns: *ns,
                })
            })
            .collect();
        points.sort_by(|a, b| a.percentile.total_cmp(&b.percentile));
        if op.ops > 0 && !points.is_empty() {
            v.push(LatencyCurve {
                op: name.into(),
                measure: measure.into(),
                points,
            });
        }
    }
    v
}

/// Position of percentile `p` on the "nines" axis: 90 → 1, 99 → 2, 99.9 → 3.
pub fn nines(p: f64) -> f64 {
    -(1.0 - p / 100.0).max(1e-6).log10()
}

/// Tick label of the nines axis: whole positions only (0, 90, 99, 99.9 …).
fn nines_label(x: f64) -> String {
    let r = x.round();
    if (x - r).abs() > 1e-6 {
        return String::new();
    }
    let p = 100.0 * (1.0 - 10f64.powf(-r));
    let digits = (r as usize).saturating_sub(2);
    format!("{p:.digits$}")
}

/// Tick values of a log axis from `lo` to `hi`: 1-2-5 steps per decade, or every
/// integer multiple of the decade when the range spans less than about two decades.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo) {
        return vec![];
    }
    let steps: &[f64] = if hi / lo < 50.0 {
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    } else {
        &[1.0, 2.0, 5.0]
    };
    let mut v = vec![];
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi {
        for m in steps {
            let t = m * decade;
            if t >= lo && t <= hi {
                v.push(t);
            }
        }
        decade *= 10.0;
    }
    v
}

/// The title lines of the latency chart.
fn latency_head(
    head: &DrawingArea<SVGBackend, Shift>,
    r: &RunResult,
    curves: &[LatencyCurve],
) -> Result<(), String> {
    head.draw(&Text::new(
        format!("Latency percentiles: {}", describe(r)),
        (14, 10),
        ("sans-serif", 18).into_font().color(&BLACK),
    ))
    .map_err(err)?;
    let measure = if curves.iter().any(|c| c.measure == "completion") {
        "per I/O, submission to completion"
    } else {
        "per I/O (one event = one request)"
    };
    head.draw(&Text::new(
        format!("{measure}; the right end of each line is its highest drawn percentile, the legend gives the maximum"),
        (14, 36),
        ("sans-serif", 13).into_font().color(&BLACK),
    ))
    .map_err(err)
}

fn draw_latency(r: &RunResult, curves: &[LatencyCurve], svg: &mut String) -> Result<(), String> {
    let root = SVGBackend::with_string(svg, (1100, 640)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (head, body) = root.split_vertically(60);
    latency_head(&head, r, curves)?;
    let drawn = |c: &LatencyCurve| -> Vec<(f64, f64)> {
        c.points
            .iter()
            .filter(|p| p.percentile < 100.0)
            .map(|p| (nines(p.percentile), (p.ns.max(1) as f64) / 1e3))
            .collect()
    };
    let all: Vec<(f64, f64)> = curves.iter().flat_map(drawn).collect();
    let x_max = all.iter().map(|p| p.0).fold(1.0f64, f64::max).ceil();
    let y_min = all.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let y_max = all.iter().map(|p| p.1).fold(0.0f64, f64::max);
    let (lo, hi) = if all.is_empty() {
        (1.0, 10.0)
    } else {
        (y_min / 1.5, (y_max * 1.5).max(y_min * 2.0))
    };
    let mut chart = ChartBuilder::on(&body)
        .margin(14)
        .margin_right(40)
        .x_label_area_size(50)
        .y_label_area_size(85)
        .build_cartesian_2d(
            0f64..x_max,
            (lo..hi).log_scale().with_key_points(log_ticks(lo, hi)),
        )
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("percentile, % (nines scale: 90, 99, 99.9 … equally spaced)")
        .y_desc("latency, µs (log scale)")
        .x_labels(x_max as usize * 2 + 1)
        .x_label_formatter(&|x| nines_label(*x))
        .y_label_formatter(&|v| {
            if *v >= 10.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.2}")
            }
        })
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(err)?;
    for (i, c) in curves.iter().enumerate() {
        let color = match c.op.as_str() {
            "read" => READ,
            "write" => WRITE,
            _ => [OTHER, BLACK][i % 2],
        };
        let pts = drawn(c);
        let max_us = c.points.last().map_or(0.0, |p| p.ns as f64 / 1e3);
        let at = |q: f64| {
            c.points
                .iter()
                .find(|p| p.percentile == q)
                .map_or(String::new(), |p| {
                    format!("p{q} {:.1} µs, ", p.ns as f64 / 1e3)
                })
        };
        let p50 = at(50.0) + &at(99.0);
        let label = format!("{}: {p50}max {max_us:.1} µs", c.op);
        line_with_points(&mut chart, pts, color, label)?;
    }
    legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
    root.present().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{DeviceSample, Sample, Series, SeriesSources, Status, TimeFinding};

    /// A run of 10 samples of 0.5 s at 80 °C (threshold 70 °C from the 5th), with or
    /// without its throttling finding.
    fn hot_run(found: bool) -> RunResult {
        let mut r = crate::result::build(crate::result::Inputs::new("fileio", &[], Status::Ok));
        let samples = (1..=10)
            .map(|i| Sample {
                t_s: i as f64 * 0.5,
                dur_s: 0.5,
                writes: 10,
                written_bytes: 10 << 20,
                temp_c: Some(if i >= 5 { 80.0 } else { 60.0 }),
                device: Some(DeviceSample {
                    written_bytes: 10 << 20,
                    ..Default::default()
                }),
                ..Sample::default()
            })
            .collect();
        let f = TimeFinding {
            id: crate::result::timeline::THERMAL_THROTTLING.into(),
            at_s: 2.0,
            for_s: 3.0,
            temp_c: Some(80.0),
            ..Default::default()
        };
        r.series = Some(Series {
            period_s: 0.5,
            samples,
            sources: Some(SeriesSources {
                temp_max_c: Some(70.0),
                ..Default::default()
            }),
            findings: if found { vec![f] } else { vec![] },
            ..Series::default()
        });
        r
    }

    /// A throttled stretch is shaded on every time panel of the device chart (the run,
    /// the temperature) and of the throughput chart (bandwidth, IOPS), labelled; a run
    /// without the finding has no shade.
    #[test]
    fn a_throttled_stretch_is_shaded_on_every_time_panel() {
        let shade = format!(
            "fill=\"#{:02X}{:02X}{:02X}\"",
            THROTTLED.0, THROTTLED.1, THROTTLED.2
        );
        for (found, each) in [(true, 1), (false, 0)] {
            let r = hot_run(found);
            let dev = String::from_utf8(DeviceChart.render(&r).unwrap()).unwrap();
            let tp = String::from_utf8(ThroughputChart.render(&r).unwrap()).unwrap();
            for (svg, panels) in [(dev, 2), (tp, 2)] {
                let tags = svg
                    .split("<rect")
                    .skip(1)
                    .map(|t| t.split('>').next().unwrap());
                let rects = tags.filter(|t| t.contains(&shade)).count();
                assert_eq!(rects, each * panels, "{svg}");
                let label = "drive throttled at 80 °C from 2.0 s";
                assert_eq!(svg.matches(label).count(), each * panels, "{svg}");
            }
        }
    }

    /// The fill attribute of a band of colour `c`.
    fn fill(c: RGBColor) -> String {
        format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2)
    }

    /// A write cliff beside the throttling: each finding's stretch is shaded in its own
    /// colour on every time panel, its label names what happened (the bytes written
    /// before the cliff, 1 GiB here) and overlapping labels do not sit on one line.
    #[test]
    fn a_write_cliff_is_shaded_beside_the_throttling() {
        let mut r = hot_run(true);
        let cliff = TimeFinding {
            id: crate::result::timeline::WRITE_CLIFF.into(),
            at_s: 1.5,
            for_s: 3.5,
            written_bytes: 1 << 30,
            ..Default::default()
        };
        r.series.as_mut().unwrap().findings.push(cliff);
        let dev = String::from_utf8(DeviceChart.render(&r).unwrap()).unwrap();
        let band = |c: RGBColor| {
            let tags = dev.split("<rect").skip(1);
            tags.filter(|t| t.split('>').next().unwrap().contains(&fill(c)))
                .count()
        };
        assert_eq!((band(CLIFF), band(THROTTLED)), (2, 2), "{dev}");
        let label = "write rate fell after 1.0 GiB (at 1.5 s)";
        assert_eq!(dev.matches(label).count(), 2, "{dev}");
        let ys: Vec<&str> = dev
            .split("<text")
            .filter(|t| t.contains(label) || t.contains("drive throttled"))
            .filter_map(|t| t.split("y=\"").nth(1)?.split('"').next())
            .collect();
        assert_eq!(ys.len(), 4, "{dev}");
        assert_ne!(ys[0], ys[1], "{ys:?}");
    }

    #[test]
    fn nines_axis() {
        assert!((nines(90.0) - 1.0).abs() < 1e-9);
        assert!((nines(99.9) - 3.0).abs() < 1e-9);
        assert_eq!(nines(0.0), 0.0);
        assert_eq!(nines_label(0.0), "0");
        assert_eq!(nines_label(1.0), "90");
        assert_eq!(nines_label(2.0), "99");
        assert_eq!(nines_label(3.0), "99.9");
        assert_eq!(nines_label(4.0), "99.99");
        assert_eq!(nines_label(0.5), "");
        assert_eq!(log_ticks(5.0, 300.0), [5.0, 10.0, 20.0, 50.0, 100.0, 200.0]);
        assert_eq!(
            log_ticks(4000.0, 25000.0),
            [4000.0, 5000.0, 6000.0, 7000.0, 8000.0, 9000.0, 10000.0, 20000.0]
        );
        assert!(log_ticks(0.0, 1.0).is_empty());
    }
}
