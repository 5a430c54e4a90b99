//! `iomark report --format=openmetrics`: results as metrics for Prometheus' node
//! exporter textfile collector (and any OpenMetrics reader): one gauge family per
//! figure, a sample per run × test (compare's tests, report/compare.rs `tests_of`),
//! labelled `run` (the history name or file), `command`, `device`, `test`; warnings as
//! `iomark_warning{id="…"} 1`; `iomark_run_partial` 1 for a run cut short (interrupted,
//! forced shutdown, failed: its figures cover the part that ran), else 0; and one summary, `iomark_latency_seconds`: the run's
//! read, write and fsync latency (label `op`) at the quantiles 0.5, 0.9, 0.99 and 0.999
//! with its `_sum` and `_count`; and a second, `iomark_test_latency_seconds`: each test's
//! own latency (label `test`, as the gauges name it) where the result measured one (a
//! `mark` test, a `tree` pass, a `run` job's direction, an imported fio report's by
//! fio's `clat`; `copy` times no single operation). The text is valid Prometheus text format 0.0.4 and
//! OpenMetrics 1.0 at once: gauges and that summary, `# HELP` and `# TYPE` before each family,
//! label values escaped (`\\`, `\"`, `\n`), and a final `# EOF` (a comment to the
//! Prometheus parser). Names, paths and labels are always label values, never names.
//! Numbers are written as both formats read them: no locale, `+Inf`, `-Inf`, `NaN`,
//! exponent form (`1.5e-7`) for very small and very large values. No two samples of a
//! family share their labels (a run name given twice, a test name a result repeats, get
//! ` (2)`, ` (3)` …): a parser keeps one of two such samples, Prometheus rejects them.

use super::compare::tests_of;
use crate::report::{ReportError, Reporter};
use crate::result::RunResult;

/// The metrics of many results, each named (its run name or file).
pub struct OpenMetrics {
    /// one name per result
    pub names: Vec<String>,
}

/// A label value as the text formats want it.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// `{k="v",…}` of `labels`.
fn labels(labels: &[(&str, String)]) -> String {
    let inner: Vec<String> = labels
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
        .collect();
    format!("{{{}}}", inner.join(","))
}

/// A number as the formats write it (OpenMetrics' `realnumber`, Go's ParseFloat).
fn num(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else if v == 0.0 || (1e-6..1e15).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// Seconds of a figure in µs, through whole nanoseconds (the unit latencies are kept
/// in): `44.676 / 1e6` is `0.000044676000000000004` in binary floating point, `44676 /
/// 1e9` is `0.000044676`.
fn us_to_s(us: f64) -> f64 {
    (us * 1e3).round() / 1e9
}

/// `names` made unique: the second of two equal names gets ` (2)`, and so on.
fn unique(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for n in names {
        let mut k = 1;
        let mut name = n.clone();
        while out.contains(&name) {
            k += 1;
            name = format!("{n} ({k})");
        }
        out.push(name);
    }
    out
}

/// One gauge family: its name, help, and samples (labels, value).
struct Family {
    name: &'static str,
    help: String,
    samples: Vec<(String, f64)>,
}

impl Family {
    fn new(name: &'static str, help: impl Into<String>) -> Family {
        Family {
            name,
            help: help.into(),
            samples: vec![],
        }
    }

    fn text(&self) -> String {
        if self.samples.is_empty() {
            return String::new();
        }
        let mut s = format!(
            "# HELP {} {}\n# TYPE {} gauge\n",
            self.name, self.help, self.name
        );
        for (l, v) in &self.samples {
            s += &format!("{}{l} {}\n", self.name, num(*v));
        }
        s
    }
}

/// The quantiles of `iomark_latency_seconds` and the result's percentile key of each.
const QUANTILES: [(&str, &str); 4] = [
    ("0.5", "50"),
    ("0.9", "90"),
    ("0.99", "99"),
    ("0.999", "99.9"),
];

/// The summary of each test's latency (label `test`), apart from the run's
/// `iomark_latency_seconds`, so a sum over one family never adds a test to its run.
const TEST_SUMMARY: &str = "iomark_test_latency_seconds";

/// The latency each `op` of `r` is summarised by: per read or write, submission to
/// completion (the completion latency of queued requests when recorded, else the
/// operation's own), and the fsync calls; an op without events is left out.
fn op_latencies(r: &RunResult) -> Vec<(&'static str, &crate::result::Latency)> {
    fn io(o: &crate::result::OpStats) -> &crate::result::Latency {
        o.clat.as_ref().filter(|c| c.count > 0).unwrap_or(&o.lat)
    }
    [
        ("read", io(&r.read)),
        ("write", io(&r.write)),
        ("fsync", &r.fsync.lat),
    ]
    .into_iter()
    .filter(|(_, l)| l.count > 0)
    .collect()
}

/// Labels added to a sample's base labels (`("op", "read")`).
type Extra<'a> = &'a [(&'static str, String)];

/// The samples of summary `name` for latency `l` under `base` labels with `extra`: each
/// quantile the result kept (label `quantile`), then `_sum` and `_count`, together.
fn quantile_samples(
    name: &str,
    l: &crate::result::Latency,
    base: &dyn Fn(Extra) -> String,
    extra: Extra,
) -> String {
    let mut s = String::new();
    for (q, key) in QUANTILES {
        if let Some(v) = l.percentiles_ns.get(key) {
            let mut e = extra.to_vec();
            e.push(("quantile", q.into()));
            s += &format!("{name}{} {}\n", base(&e), num(*v as f64 / 1e9));
        }
    }
    let ls = base(extra);
    s += &format!("{name}_sum{ls} {}\n", num(l.sum_ns as f64 / 1e9));
    s += &format!("{name}_count{ls} {}\n", l.count);
    s
}

/// The summary `iomark_latency_seconds` of one run, its samples under `base` labels
/// (with `op`).
fn summary_samples(r: &RunResult, base: &dyn Fn(Extra) -> String) -> String {
    op_latencies(r)
        .into_iter()
        .map(|(op, l)| quantile_samples("iomark_latency_seconds", l, base, &[("op", op.into())]))
        .collect()
}

/// The latency each of `r`'s tests (compare's `tests_of`, in order) was measured with,
/// where it was: a phase's own (`mark`'s tests, `tree`'s passes, a `run` job's
/// direction; an imported fio report's direction by its completion latency, fio's
/// `clat` with the percentiles fio printed, as the run's summary reads it), compare's
/// tests of every command but `fileio` being its phases in order (then `run`'s summed
/// mixes, which keep no latency); `None` where a phase timed no operation (`copy`'s
/// phases, `iomark time`).
fn test_latencies(r: &RunResult) -> Vec<Option<&crate::result::Latency>> {
    if r.command == "fileio" {
        return vec![];
    }
    r.phases
        .iter()
        .map(|p| {
            let clat = p.clat.as_ref().filter(|l| l.count > 0);
            clat.or(p.lat.as_ref()).filter(|l| l.count > 0)
        })
        .collect()
}

/// The `command` label of `r`: the iomark command that made it, or for a report
/// another tool wrote and iomark imported (fio's JSON or text output) `TOOL-import`
/// (`fio-import`), so such a run is never counted as an `iomark run`.
fn command_label(r: &RunResult) -> String {
    if r.tool == "iomark" {
        r.command.clone()
    } else {
        format!("{}-import", r.tool)
    }
}

impl Reporter<[RunResult]> for OpenMetrics {
    fn render(&self, rs: &[RunResult]) -> Result<Vec<u8>, ReportError> {
        let what = latency_words(rs);
        let [mut bw, mut iops, mut mean, mut pct, mut warn, mut ended, mut partial] =
            families(&what);
        let mut summary = String::new();
        let mut per_test = String::new();
        let runs = unique(
            (0..rs.len()).map(|i| self.names.get(i).cloned().unwrap_or_else(|| i.to_string())),
        );
        for (r, run) in rs.iter().zip(runs) {
            let device = crate::result::history::device_label(r);
            let base = |extra: &[(&'static str, String)]| {
                let mut v = vec![
                    ("run", run.clone()),
                    ("command", command_label(r)),
                    ("device", device.clone()),
                ];
                v.extend(extra.iter().cloned());
                labels(&v)
            };
            ended
                .samples
                .push((base(&[]), r.timestamp_ms as f64 / 1000.0));
            partial
                .samples
                .push((base(&[]), if cut_short(r) { 1.0 } else { 0.0 }));
            let tests = tests_of(r);
            let names = unique(tests.iter().map(|t| t.name.clone()));
            let lats = test_latencies(r);
            for (k, (t, name)) in tests.iter().zip(names).enumerate() {
                let test = [("test", name.clone())];
                if let Some(Some(l)) = lats.get(k) {
                    per_test += &quantile_samples(TEST_SUMMARY, l, &base, &test);
                }
                if let Some(v) = t.mb_s {
                    bw.samples.push((base(&test), v * 1e6));
                }
                if let Some(v) = t.iops {
                    iops.samples.push((base(&test), v));
                }
                // the mean of the latency the test's summary holds (clat where the
                // result has it), so the gauge and the summary's _sum/_count agree
                let summed = lats.get(k).copied().flatten();
                if let Some(v) = summed.map(|l| l.mean_ns as f64 * 1e-3).or(t.mean_us) {
                    mean.samples.push((base(&test), us_to_s(v)));
                }
                if let Some(v) = t.p99_us {
                    let l = [("test", name.clone()), ("percentile", "99".into())];
                    pct.samples.push((base(&l), us_to_s(v)));
                }
            }
            summary += &summary_samples(r, &base);
            let mut seen: Vec<&str> = vec![];
            for w in &r.warnings {
                if !seen.contains(&w.id.as_str()) {
                    seen.push(&w.id);
                    warn.samples.push((base(&[("id", w.id.clone())]), 1.0));
                }
            }
        }
        let mut out: String = [&bw, &iops, &mean, &pct].iter().map(|f| f.text()).collect();
        if !summary.is_empty() {
            out += &format!("# HELP iomark_latency_seconds Latency of the run's reads, writes and fsyncs (label op) at quantiles, seconds: per read or write, {what}.\n");
            out += "# TYPE iomark_latency_seconds summary\n";
            out += &summary;
        }
        if !per_test.is_empty() {
            out += &format!("# HELP {TEST_SUMMARY} Latency of each test of the run (label test) at quantiles, seconds: per operation of the test (a mark test's request, a tree pass's call, a run job's request, an imported fio job's I/O), {what}.\n");
            out += &format!("# TYPE {TEST_SUMMARY} summary\n");
            out += &per_test;
        }
        out += &warn.text();
        out += &ended.text();
        out += &partial.text();
        out += "# EOF\n";
        Ok(out.into_bytes())
    }
}

/// What the latency of a read or write is in the results `rs`, for the help of the
/// latency families, true of each source present: iomark's own results time each
/// request from submission to completion; an imported fio report's figures are fio's
/// `clat` (completion latency), which leaves out the submission latency (`slat`) fio's
/// `lat` adds. With both, each is named by its `command` label.
fn latency_words(rs: &[RunResult]) -> String {
    const OWN: &str = "submission to completion";
    const FIO: &str = "fio's clat (completion latency as fio reports it, without the submission latency slat that fio's lat adds)";
    let imported = rs.iter().filter(|r| r.tool != "iomark").count();
    match (imported, rs.len() - imported) {
        (0, _) => OWN.into(),
        (_, 0) => FIO.into(),
        _ => format!(
            "{OWN} for iomark's results; {FIO} for imported fio reports (command fio-import)"
        ),
    }
}

/// Whether the run stopped before its end (a signal, `--forced-shutdown`, a failure, or
/// a phase cut short): its figures cover only the part that ran.
fn cut_short(r: &RunResult) -> bool {
    r.status != crate::result::Status::Ok || r.phases.iter().any(|p| p.partial)
}

/// The metric families of the text, empty: bandwidth, IOPS, mean latency, latency
/// percentiles, warnings, the run's end and whether it was cut short; `what` says what
/// a latency is ([`latency_words`]).
fn families(what: &str) -> [Family; 7] {
    let bw = Family::new(
        "iomark_bandwidth_bytes_per_second",
        "Throughput of a test, bytes per second (1 MB/s = 1000000).",
    );
    let iops = Family::new("iomark_iops", "I/O operations per second of a test.");
    let mean = Family::new(
        "iomark_latency_mean_seconds",
        format!("Mean latency per read or write, {what}, seconds."),
    );
    let pct = Family::new(
        "iomark_latency_percentile_seconds",
        format!(
            "Latency at a percentile (label percentile, 0-100) per read or write, {what}, seconds."
        ),
    );
    let warn = Family::new(
        "iomark_warning",
        "A warning of the run (label id, the stable warning id): 1 when present.",
    );
    let ended = Family::new(
        "iomark_run_end_timestamp_seconds",
        "When the run ended, Unix time in seconds (0: unknown).",
    );
    let partial = Family::new(
        "iomark_run_partial",
        "1 when the run stopped before its end (interrupted, forced shutdown or failed): its figures cover only the part that ran; 0 when it ran to its end.",
    );
    [bw, iops, mean, pct, warn, ended, partial]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped_and_the_text_ends_with_eof() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        let r = crate::report::copy_result_warned("m");
        let text = OpenMetrics {
            names: vec!["<script>\"x\"".into()],
        }
        .render(std::slice::from_ref(&r))
        .unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.ends_with("# EOF\n"), "{text}");
        assert!(
            text.contains(
                "iomark_bandwidth_bytes_per_second{run=\"<script>\\\"x\\\"\",command=\"copy\""
            ),
            "{text}"
        );
        assert!(text.contains("id=\"target.memory_fs\"} 1\n"), "{text}");
    }

    #[test]
    fn numbers_in_openmetrics_form_and_no_two_samples_share_labels() {
        assert_eq!(num(f64::INFINITY), "+Inf");
        assert_eq!(num(f64::NEG_INFINITY), "-Inf");
        assert_eq!(num(f64::NAN), "NaN");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(1234.5), "1234.5");
        assert_eq!(num(0.000012), "0.000012");
        assert_eq!(num(1.5e-7), "1.5e-7");
        assert_eq!(num(2e20), "2e20");
        for v in [1.5e-7, 2e20, 1234.5, 0.000012] {
            assert_eq!(num(v).parse::<f64>().unwrap(), v);
        }
        let r = crate::report::copy_result_warned("m");
        let text = OpenMetrics {
            names: vec!["a".into(), "a".into()],
        }
        .render(&[r.clone(), r])
        .unwrap();
        let text = String::from_utf8(text).unwrap();
        let samples: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.rsplit_once(' ').unwrap().0)
            .collect();
        let mut dedup = samples.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), samples.len(), "{text}");
        assert!(text.contains("run=\"a (2)\""), "{text}");
    }

    /// A latency with `count` events summing `sum_ns`, at percentiles `pcts` (key, ns).
    fn lat(count: u64, sum_ns: u64, pcts: &[(&str, u64)]) -> crate::result::Latency {
        crate::result::Latency {
            count,
            sum_ns,
            percentiles_ns: pcts.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ..Default::default()
        }
    }

    /// The summary holds each op that has events, at the quantiles the result kept:
    /// reads by their own latency, writes by their completion latency when recorded
    /// (queued requests), fsyncs; `_sum` and `_count` follow each op's quantiles.
    #[test]
    fn latency_summary_has_the_quantiles_of_each_op() {
        let mut r = crate::report::copy_result_warned("m");
        let all = [("50", 1_000), ("90", 2_000), ("99", 4_000), ("99.9", 8_000)];
        r.read.lat = lat(10, 15_000, &all);
        r.write.lat = lat(5, 1, &[("50", 7)]);
        r.write.clat = Some(lat(5, 50_000, &[("50", 9_000), ("99", 12_000)]));
        r.fsync.lat = lat(2, 3_000_000_000, &[]);
        let text = OpenMetrics {
            names: vec!["r".into()],
        }
        .render(std::slice::from_ref(&r))
        .unwrap();
        let text = String::from_utf8(text).unwrap();
        let l = "run=\"r\",command=\"copy\",device=\"unknown device\"";
        let want = format!(
            "# TYPE iomark_latency_seconds summary\n\
             iomark_latency_seconds{{{l},op=\"read\",quantile=\"0.5\"}} 0.000001\n\
             iomark_latency_seconds{{{l},op=\"read\",quantile=\"0.9\"}} 0.000002\n\
             iomark_latency_seconds{{{l},op=\"read\",quantile=\"0.99\"}} 0.000004\n\
             iomark_latency_seconds{{{l},op=\"read\",quantile=\"0.999\"}} 0.000008\n\
             iomark_latency_seconds_sum{{{l},op=\"read\"}} 0.000015\n\
             iomark_latency_seconds_count{{{l},op=\"read\"}} 10\n\
             iomark_latency_seconds{{{l},op=\"write\",quantile=\"0.5\"}} 0.000009\n\
             iomark_latency_seconds{{{l},op=\"write\",quantile=\"0.99\"}} 0.000012\n\
             iomark_latency_seconds_sum{{{l},op=\"write\"}} 0.00005\n\
             iomark_latency_seconds_count{{{l},op=\"write\"}} 5\n\
             iomark_latency_seconds_sum{{{l},op=\"fsync\"}} 3\n\
             iomark_latency_seconds_count{{{l},op=\"fsync\"}} 2\n"
        );
        assert!(text.contains(&want), "{text}");
        // a result without reads, writes or fsyncs has no summary
        let text = OpenMetrics { names: vec![] }
            .render(&[crate::report::copy_result_warned("m")])
            .unwrap();
        assert!(!String::from_utf8(text).unwrap().contains("summary"));
    }

    /// A run cut short is marked: `iomark_run_partial` 1 for an interrupted run (its
    /// figures cover the part that ran) and for a phase stopped early, 0 for a run that
    /// ran to its end, one sample per run with the run's labels.
    #[test]
    fn a_run_cut_short_is_marked_partial() {
        let whole = crate::report::copy_result_warned("m");
        let mut cut = whole.clone();
        cut.status = crate::result::Status::Interrupted;
        let mut phase_cut = whole.clone();
        if let Some(p) = phase_cut.phases.first_mut() {
            p.partial = true;
        }
        let om = OpenMetrics {
            names: vec!["a".into(), "b".into(), "c".into()],
        };
        let text = String::from_utf8(om.render(&[whole, cut, phase_cut]).unwrap()).unwrap();
        let samples: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("iomark_run_partial{"))
            .collect();
        assert_eq!(samples.len(), 3, "{text}");
        assert!(
            samples[0].starts_with("iomark_run_partial{run=\"a\""),
            "{text}"
        );
        let values: Vec<&str> = samples
            .iter()
            .filter_map(|l| l.rsplit(' ').next())
            .collect();
        assert_eq!(values, ["0", "1", "1"], "{text}");
        assert!(text.contains("# TYPE iomark_run_partial gauge\n"), "{text}");
    }

    /// fio 3.33's JSON of a sequential psync read (tests/fixtures/fio/seqread-psync.json)
    /// and its import.
    fn seqread_fixture() -> (String, RunResult) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fio/seqread-psync.json");
        let text = std::fs::read_to_string(path).unwrap();
        let r = crate::result::import::import(&text, "f").unwrap().unwrap();
        (text, r)
    }

    /// The help of every latency family says what the latency of each source in the
    /// text is: iomark's own, submission to completion; an imported fio report's, fio's
    /// clat; with both, each named by its `command` label.
    #[test]
    fn latency_help_is_true_for_each_source() {
        let (_, fio) = seqread_fixture();
        let mut own = crate::report::copy_result_warned("m");
        own.read.lat = lat(10, 15_000, &[("50", 1_000), ("99", 4_000)]);
        let helps = |rs: &[RunResult]| -> Vec<String> {
            let om = OpenMetrics {
                names: vec!["a".into(), "b".into()],
            }
            .render(rs)
            .unwrap();
            String::from_utf8(om)
                .unwrap()
                .lines()
                .filter(|l| l.starts_with("# HELP iomark_") && l.contains("atency"))
                .map(str::to_string)
                .collect()
        };
        let only_fio = helps(std::slice::from_ref(&fio));
        // the mean and p99 gauges and both summaries
        assert_eq!(only_fio.len(), 4, "{only_fio:#?}");
        for h in &only_fio {
            assert!(h.contains("fio's clat (completion latency"), "{h}");
            assert!(!h.contains("submission to completion"), "{h}");
        }
        let only_own = helps(std::slice::from_ref(&own));
        assert!(!only_own.is_empty());
        for h in only_own {
            assert!(h.contains("submission to completion"), "{h}");
            assert!(!h.contains("clat"), "{h}");
        }
        for h in helps(&[own, fio]) {
            assert!(
                h.contains("submission to completion for iomark's results; fio's clat"),
                "{h}"
            );
            assert!(
                h.contains("for imported fio reports (command fio-import)"),
                "{h}"
            );
        }
    }

    /// An imported fio report: labelled `command="fio-import"`, and its reads' summary
    /// has the quantiles fio's JSON holds (`clat_ns` percentiles, completion latency:
    /// fio's per-I/O figure, as the summary's per read or write) with `lat_ns`'s sum and
    /// count: fio's own values, read from the fixture fio 3.33 wrote.
    #[test]
    fn imported_fio_report_has_its_command_and_quantiles() {
        let (text, r) = seqread_fixture();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let rd = &v["jobs"][0]["read"];
        let om = OpenMetrics {
            names: vec!["f".into()],
        }
        .render(std::slice::from_ref(&r))
        .unwrap();
        let om = String::from_utf8(om).unwrap();
        assert!(om.contains("command=\"fio-import\""), "{om}");
        assert!(!om.contains("command=\"run\""), "{om}");
        let l = "run=\"f\",command=\"fio-import\",device=\"unknown device\",op=\"read\"";
        for (q, key) in QUANTILES {
            let ns = rd["clat_ns"]["percentile"][format!("{:.6}", key.parse::<f64>().unwrap())]
                .as_u64()
                .unwrap();
            let want = format!(
                "iomark_latency_seconds{{{l},quantile=\"{q}\"}} {}\n",
                num(ns as f64 / 1e9)
            );
            assert!(om.contains(&want), "{want}{om}");
        }
        let n = rd["clat_ns"]["N"].as_u64().unwrap();
        assert!(
            om.contains(&format!("iomark_latency_seconds_count{{{l}}} {n}\n")),
            "{om}"
        );
        // the test's mean gauge is the mean of the same clat its summary holds (fio's
        // `clat_ns.mean`, in whole ns), not `lat_ns`'s
        let clat_mean = rd["clat_ns"]["mean"].as_f64().unwrap();
        let lat_mean = rd["lat_ns"]["mean"].as_f64().unwrap();
        assert_ne!(
            clat_mean.round(),
            lat_mean.round(),
            "the fixture tells them apart"
        );
        let gauge = om
            .lines()
            .find(|l| l.starts_with("iomark_latency_mean_seconds{"))
            .expect("a mean gauge");
        let want = num(clat_mean.round() / 1e9);
        assert!(gauge.ends_with(&format!("}} {want}")), "{gauge} vs {want}");
    }

    /// An imported fio `randrw` report: the mean gauge of the mix test is fio's `clat`
    /// over both directions' I/Os (`(mean_r × N_r + mean_w × N_w) / (N_r + N_w)` ns, in
    /// seconds), as the `mix read` and `mix write` gauges are their direction's
    /// `clat_ns` mean — no gauge of the job says fio's `lat_ns` (the fixture's differ).
    #[test]
    fn an_imported_fio_mix_gauge_is_clat() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fio/randrw-uring-latpct.json");
        let text = std::fs::read_to_string(path).unwrap();
        let r = crate::result::import::import(&text, "f").unwrap().unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let f = |d: &str, l: &str, k: &str| v["jobs"][0][d][l][k].as_f64().unwrap();
        let om = OpenMetrics {
            names: vec!["f".into()],
        }
        .render(std::slice::from_ref(&r))
        .unwrap();
        let om = String::from_utf8(om).unwrap();
        let gauge = |test: &str| -> f64 {
            let l = format!("iomark_latency_mean_seconds{{run=\"f\",command=\"fio-import\",device=\"unknown device\",test=\"{test}\"}} ");
            let line = om
                .lines()
                .find_map(|x| x.strip_prefix(&l))
                .unwrap_or_else(|| panic!("no gauge {test}: {om}"));
            line.parse().unwrap()
        };
        for d in ["read", "write"] {
            let want = f(d, "clat_ns", "mean").round() / 1e9;
            let got = gauge(&format!("RND4K Q4T1 mix {d}"));
            assert!(
                (got - want).abs() < 1e-12,
                "{d}: {got} s, fio's clat {want} s"
            );
            assert!(
                (got - f(d, "lat_ns", "mean") / 1e9).abs() > 1e-6,
                "{d}: not lat"
            );
        }
        let (nr, nw) = (f("read", "clat_ns", "N"), f("write", "clat_ns", "N"));
        let want =
            (f("read", "clat_ns", "mean") * nr + f("write", "clat_ns", "mean") * nw) / (nr + nw);
        let got = gauge("RND4K Q4T1 mix");
        // whole ns: within 1 ns of the exact mean
        assert!(
            (got - want / 1e9).abs() <= 1e-9,
            "mix: {got} s, want {} s",
            want / 1e9
        );
        let lat =
            (f("read", "lat_ns", "mean") * nr + f("write", "lat_ns", "mean") * nw) / (nr + nw);
        assert!((got - lat / 1e9).abs() > 1e-6, "mix: not lat ({lat} ns)");
    }

    /// A figure in µs becomes seconds without binary noise: 44.676 µs is 0.000044676 s
    /// (`44.676 / 1e6` prints `0.000044676000000000004`).
    #[test]
    fn microseconds_become_seconds_without_noise() {
        assert_eq!(format!("{}", 44.676 / 1e6), "0.000044676000000000004");
        assert_eq!(num(us_to_s(44.676)), "0.000044676");
        assert_eq!(num(us_to_s(1500.0)), "0.0015");
        assert_eq!(num(us_to_s(0.4)), "4e-7");
        assert_eq!(num(us_to_s(0.0004)), "0");
    }

    /// Each test whose phase measured its operations has its own summary, labelled by
    /// the test as the gauges are, with the quantiles, sum and count of the phase's
    /// latency; a phase that timed none (`copy`'s) has none, and the run's summary is
    /// not changed by it.
    #[test]
    fn each_tests_latency_is_its_own_summary() {
        let mut i = crate::result::Inputs::new("tree", &[], crate::result::Status::Ok);
        let mut stat = crate::result::Phase::new("stat_all", 4, 0, 1.0);
        stat.lat = Some(lat(4, 40_000, &[("50", 9_000), ("99.9", 20_000)]));
        let mut mkdir = crate::result::Phase::new("mkdir", 2, 0, 1.0);
        mkdir.lat = Some(lat(2, 6_000_000, &[("90", 5_000_000)]));
        let untimed = crate::result::Phase::new("buffered_128k", 10, 10_000_000, 1.0);
        i.phases = vec![stat, untimed, mkdir];
        let r = crate::result::build(i);
        let names: Vec<String> = tests_of(&r).into_iter().map(|t| t.name).collect();
        let text = OpenMetrics {
            names: vec!["t".into()],
        }
        .render(std::slice::from_ref(&r))
        .unwrap();
        let text = String::from_utf8(text).unwrap();
        let l = |test: &str| {
            format!("run=\"t\",command=\"tree\",device=\"unknown device\",test=\"{test}\"")
        };
        let (a, c) = (l(&names[0]), l(&names[2]));
        let want = format!(
            "# TYPE iomark_test_latency_seconds summary\n\
             iomark_test_latency_seconds{{{a},quantile=\"0.5\"}} 0.000009\n\
             iomark_test_latency_seconds{{{a},quantile=\"0.999\"}} 0.00002\n\
             iomark_test_latency_seconds_sum{{{a}}} 0.00004\n\
             iomark_test_latency_seconds_count{{{a}}} 4\n\
             iomark_test_latency_seconds{{{c},quantile=\"0.9\"}} 0.005\n\
             iomark_test_latency_seconds_sum{{{c}}} 0.006\n\
             iomark_test_latency_seconds_count{{{c}}} 2\n"
        );
        assert!(text.contains(&want), "{text}");
        assert!(
            !text
                .lines()
                .any(|x| x.starts_with(TEST_SUMMARY) && x.contains(&l(&names[1]))),
            "{text}"
        );
        // the run's own summary: its reads, writes and fsyncs only (none here)
        assert!(!text.contains("iomark_latency_seconds"), "{text}");
        // copy's phases time no single operation: no per-test summary
        let text = OpenMetrics { names: vec![] }
            .render(&[crate::report::copy_result_warned("m")])
            .unwrap();
        assert!(!String::from_utf8(text).unwrap().contains("summary"));
    }
}
