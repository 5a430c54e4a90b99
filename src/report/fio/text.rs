//! fio's "normal" text report of a run ([`FioText`]): one block per job (fio 3.33's
//! layout; latency blocks with nsec/usec/msec as fio picks them, report/fio/lat_text.rs;
//! numbers with fio's `num2str`, report/fio/num.rs), then the "Run status group" lines
//! and the "Disk stats" block. iomark's own lines (the random-map `coverage:` line, the
//! `verify:` count, the `final sync:` time of public case C15) are added only when the
//! notes are on (`--notes`, the default of `iomark run`, off under the fio persona:
//! [`FioText::notes`]). A many-hosts result
//! (MPI) takes the layout of fio's client instead (report/fio/text/clients.rs).

pub mod clients;

use crate::report::fio::{option, pct_precision, pcts};
use crate::report::{ReportError, Reporter};
use crate::result::job::{DirResult, JobResult};
use crate::result::{Latency, RunResult};

/// fio's normal text report.
pub struct FioText {
    /// add iomark's own lines to each job's block (`coverage:`, `verify:`); fio prints
    /// none of them
    pub notes: bool,
}

impl Reporter for FioText {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        // fio's job header ends with ctime() of the report time (the RunResult's)
        let date = crate::report::fio::disk::ctime(r.timestamp_ms / 1000);
        // many hosts: fio's client text, each host's report then "All clients"
        if let Some(ranks) = &r.ranks {
            return Ok(clients::body(r, ranks, &date, self.notes).into_bytes());
        }
        Ok(host_text(r, &date, self.notes).into_bytes())
    }
}

/// The report of one host's result `r`: its jobs' blocks, the run status groups, the
/// disk stats.
pub(crate) fn host_text(r: &RunResult, date: &str, notes: bool) -> String {
    let mut s = String::new();
    for j in r.jobs.iter().filter(|j| printed(j)) {
        s += &job_text(j, &r.jobs, &r.global_options, date, notes);
    }
    s += &crate::report::fio::num::group_text(&r.jobs);
    // no job ran (stopped during the layout): no report, so no disk stats either
    if !r.jobs.is_empty() {
        s += &disk_stats(&r.devices);
    }
    s
}

/// One device's `disk_util` figures as fio prints them (text and terse): reads and
/// writes, their merges and ticks, in_queue, then the busy share in percent.
pub fn disk_figures(c: &crate::result::DeviceCounters) -> ([u64; 7], f64) {
    let v = crate::report::fio::json::disk_entry(c);
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    let keys = [
        "read_ios",
        "write_ios",
        "read_merges",
        "write_merges",
        "read_ticks",
        "write_ticks",
        "in_queue",
    ];
    (keys.map(n), v["util"].as_f64().unwrap_or(0.0))
}

/// fio's `Disk stats (read/write):` block (stat.c `show_disk_util`, 3.33's line
/// without sectors): one line per device under the jobs' files, the counters'
/// differences over the run and the busy share of the elapsed time; nothing when no
/// device was read.
pub fn disk_stats(devices: &[crate::result::DeviceCounters]) -> String {
    if devices.is_empty() {
        return String::new();
    }
    let mut s = String::from("\nDisk stats (read/write):\n");
    for c in devices {
        let ([ri, wi, rm, wm, rt, wt, q], util) = disk_figures(c);
        s += &format!(
            "  {}: ios={ri}/{wi}, merge={rm}/{wm}, ticks={rt}/{wt}, in_queue={q}, util={util:.2}%\n",
            c.name
        );
    }
    s
}

/// fio's CPU line: `  cpu          : usr=1.23%, sys=4.56%, ctx=789, majf=0, minf=12`.
pub fn cpu_line(j: &JobResult) -> String {
    let (u, s) = crate::report::fio::cpu_pct(j);
    format!(
        "  cpu          : usr={u:.2}%, sys={s:.2}%, ctx={}, majf={}, minf={}\n",
        j.cpu.ctx(),
        j.cpu.majf,
        j.cpu.minf
    )
}

/// A `min/max/avg/stdev` line in the layout of fio 3.33 text report (unit chosen as fio
/// does, report/fio/lat_text.rs).
pub(crate) fn lat_line(label: &str, l: &Latency) -> String {
    crate::report::fio::lat_text::lat_line(label, l.min_ns, l.max_ns, l.mean(), l.stdev_ns)
}

/// A percentile table in the layout of fio 3.33 text report (fio sorts the list).
pub(crate) fn pct_table(label: &str, l: &Latency, ps: &[f64], prec: usize) -> String {
    let mut rows: Vec<(f64, u64)> = ps.iter().map(|&p| (p, l.percentile_ns(p))).collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    crate::report::fio::lat_text::pct_table(label, &rows, prec)
}

/// fio's direction line: `  read: IOPS=251k, BW=981MiB/s (1029MB/s)(4096KiB/4msec)`:
/// IOPS = ios × 1000 / ms and BW = bytes × 1000 / ms (B/s, integer division as fio),
/// printed with fio's `num2str` (4 significant figures, report/fio/num.rs); the group's
/// `units` put the decimal form first (`kb_base=1000`: `BW=1029MB/s (981MiB/s)(4194kB/…)`)
/// and BW in bits (`unit_base=1`). The write line ends `; N zone resets` (0 outside zbd).
fn dir_text(
    j: &JobResult,
    name: &str,
    d: &DirResult,
    rt_ms: u64,
    agg: (usize, u64),
    units: crate::report::fio::num::TextUnits,
) -> String {
    use crate::report::fio::num as n;
    if d.bytes == 0 {
        return String::new();
    }
    let rt = rt_ms.max(1);
    let (bw, bw_alt) = units.bw(d.bytes * 1000 / rt);
    let mut s = format!(
        "  {name}: IOPS={}, BW={bw} ({bw_alt})({}/{rt}msec)",
        n::iops(d.iops_ios() * 1000 / rt),
        units.size(d.bytes).0,
    );
    // fio 3.33 appends the zbd reset count to every write line (stat.c's
    // show_ddir_status calls zbd_write_status for DDIR_WRITE, zonemode or not): 0 outside zbd
    if name == "write" {
        s += &format!("; {} zone resets\n", j.zone_resets.unwrap_or(0));
    } else {
        s.push('\n');
    }
    s + &dir_body(j, d, agg, units)
}

/// fio 3.33's mixed block of a `unified_rw_reporting=both` job, after its directions
/// (stat.c `show_mixed_ddir_status`): the directions merged (result/merge.rs `mixed`)
/// and printed as a `mixed` direction. Its first line prints every figure as `0` —
/// `  mixed: IOPS=0, BW=0 (0)(0B/37msec)` — because fio formats it from a fresh
/// `thread_stat` whose `sig_figs` and `unit_base` are 0 (`num2str` with no digits, no
/// unit); the run time is the longest direction's. The lines below are the merged
/// latencies, percentiles and samples, `per=` against the group's read aggregate (fio
/// passes DDIR_READ). Nothing when no direction moved data.
fn mixed_text(j: &JobResult, read_agg: u64, units: crate::report::fio::num::TextUnits) -> String {
    use crate::report::fio::num::{num2str, N2s};
    let m = crate::result::merge::mixed(j);
    let d = &m.read;
    if d.bytes == 0 {
        return String::new();
    }
    let rt = m.dir_runtime_ms(0).max(1);
    let zero = |v: u64, u: N2s| num2str(v, 0, !units.decimal, u);
    let bw = d.bytes * 1000 / rt;
    let s = format!(
        "  mixed: IOPS={}, BW={} ({})({}/{rt}msec)\n",
        zero(d.iops_ios() * 1000 / rt, N2s::None),
        zero(bw, N2s::None),
        num2str(bw, 0, units.decimal, N2s::None),
        zero(d.bytes, N2s::Byte),
    );
    s + &dir_body(&m, d, (0, read_agg), units)
}

/// A direction's lines after its first: slat, clat, lat, the priorities', the
/// percentile tables, the bandwidth and IOPS samples.
fn dir_body(
    j: &JobResult,
    d: &DirResult,
    agg: (usize, u64),
    units: crate::report::fio::num::TextUnits,
) -> String {
    let mut s = String::new();
    if d.slat.count > 0 {
        s += &lat_line("slat", &d.slat);
    }
    // fio prints each latency line that has samples: gtod_reduce=1 none,
    // disable_clat=1 the total ` lat` alone; the bandwidth and IOPS samples follow
    // whatever was timed
    if d.clat.count > 0 {
        s += &lat_line("clat", &d.clat);
    }
    if d.lat.count > 0 {
        s += &lat_line(" lat", &d.lat);
    }
    if d.clat.count > 0 {
        s += &lat_tables(j, d, agg.0);
    }
    s += &crate::report::fio::levels::dir_text(j, agg.0, agg.1, units.decimal);
    s
}

/// The priorities' latency lines and the percentile tables of a direction whose
/// completion latency was timed.
fn lat_tables(j: &JobResult, d: &DirResult, dir: usize) -> String {
    let mut s = String::new();
    let prios = crate::report::fio::prio::entries(j, dir);
    for p in &prios {
        s += &lat_line(&p.label(j), p.lat);
    }
    if j.job.slat_percentiles && d.slat.count > 0 {
        s += &pct_table("slat", &d.slat, pcts(j), pct_precision(j));
    }
    if j.job.clat_percentiles {
        s += &pct_table("clat", &d.clat, pcts(j), pct_precision(j));
    }
    if j.job.lat_percentiles {
        s += &pct_table("lat", &d.lat, pcts(j), pct_precision(j));
    }
    if crate::report::fio::prio::with_percentiles(j) {
        for p in &prios {
            let name = format!("{} ({:.2}% of IOs)", p.label(j), p.share(j, d));
            s += &pct_table(&name, p.lat, pcts(j), pct_precision(j));
        }
    }
    s
}

/// fio 3.33's sync block (`show_ddir_status` of DDIR_SYNC, after the latency
/// buckets): the `fsync/fdatasync/sync_file_range:` header, the `sync` min/max/avg/stdev
/// line and the `sync percentiles` table over the job's percentile list (printed
/// whatever `clat_percentiles` says, as fio does); nothing when no sync was timed.
fn sync_text(j: &JobResult) -> String {
    let l = &j.sync.lat;
    if l.count == 0 {
        return String::new();
    }
    let mut s = String::from("  fsync/fdatasync/sync_file_range:\n");
    s += &lat_line("sync", l);
    s += &pct_table("sync", l, pcts(j), pct_precision(j));
    s
}

/// Whether fio 3.33 prints job `j`'s block in the text report: not when it moved no
/// byte and issued no read, write or trim (`show_thread_status_normal` returns early:
/// `create_only=1`, a reading job over empty files), unless it failed, whose failed
/// request fio counts as issued — not a job that failed in its setup, before any
/// request (no thread of it started: pid 0, run/fio/setup.rs), nor one whose thread
/// could not open its file or be bound to its CPUs (no request either:
/// [`failed_in_setup`](crate::report::fio::header::failed_in_setup)).
fn printed(j: &JobResult) -> bool {
    let bytes = j.read.bytes + j.write.bytes + j.trim.bytes;
    let ios = j.read.issued() + j.write.issued() + j.trim.issued();
    let failed_request =
        j.errno != 0 && j.pid != 0 && !crate::report::fio::header::failed_in_setup(j);
    bytes + ios > 0 || failed_request || j.errors > 0
}

/// One job's block (fio "normal" layout; latency blocks in the layout of fio 3.33 text
/// report, nsec/usec/msec as fio picks them): the header `NAME: (groupid=G, jobs=N):
/// err= 0: pid=P: DATE`, the `Description  : [...]` of a job with `description=`, the
/// directions, then the job's totals. `notes`: iomark's own lines too.
fn job_text(
    j: &JobResult,
    jobs: &[JobResult],
    global: &[(String, String)],
    date: &str,
    notes: bool,
) -> String {
    let aggs = [0, 1, 2].map(|d| crate::report::fio::levels::group_agg(jobs, j.groupid, d));
    // fio formats a job's lines with its group's kb_base (the last job's), and writes
    // their bandwidths in the job's own unit_base (stat.c `show_ddir_status`: `rs` and
    // `ts`)
    let mut units = crate::report::fio::num::TextUnits::of_group(jobs, j.groupid);
    units.bits = j.job.unit_base == 1;
    job_block(j, global, date, notes, aggs, units)
}

/// [`job_text`] with its group's aggregate bandwidth per direction (`aggs`, B/s: what
/// the samples' `per=` is a share of) and its text units given: fio's client prints
/// its "All clients" job with the hosts' aggregates added up and no bandwidth unit.
pub(crate) fn job_block(
    j: &JobResult,
    global: &[(String, String)],
    date: &str,
    notes: bool,
    aggs: [u64; 3],
    units: crate::report::fio::num::TextUnits,
) -> String {
    let mut s = String::new();
    // fio: `err=%2d`, and with an error its text in parentheses
    // a job that went on past errors (continue_on_error) shows its first one
    let code = if j.errno != 0 { j.errno } else { j.first_errno };
    let err = match (code, &j.account) {
        (0, _) => " 0".to_string(),
        // a failure fio accounts: where fio saw it, as its own report says
        (n, Some(a)) if n == j.errno => format!("{n:2} ({a})"),
        (n, _) => format!("{n:2} ({})", crate::util::strerror(n)),
    };
    s += &format!(
        "{}: (groupid={}, jobs={}): err={err}: pid={}: {date}\n",
        j.job.name, j.groupid, j.threads, j.pid
    );
    if let Some(d) = option(j, global, "description").filter(|d| !d.is_empty()) {
        s += &format!("  Description  : [{d}]\n");
    }
    let agg = |d: usize| (d, aggs[d]);
    if notes && j.errors > 0 {
        s += &format!(
            "  errors: {} failed request(s) continued past (continue_on_error), not counted as done; first: {}\n",
            j.errors,
            j.first_error.as_deref().unwrap_or("?")
        );
    }
    let read = if j.job.unified_rw == 1 {
        "mixed"
    } else {
        "read"
    };
    s += &dir_text(j, read, &j.read, j.dir_runtime_ms(0), agg(0), units);
    s += &dir_text(j, "write", &j.write, j.dir_runtime_ms(1), agg(1), units);
    s += &dir_text(j, "trim", &j.trim, j.dir_runtime_ms(2), agg(2), units);
    if j.job.unified_rw == 2 {
        s += &mixed_text(j, agg(0).1, units);
    }
    if let Some(c) = j.coverage.as_ref().filter(|_| notes) {
        s += &format!("  {}\n", crate::report::fio::outputs::coverage_line(c));
    }
    if j.verified > 0 && notes {
        s += &format!("  verify: {} blocks read back, all matched\n", j.verified);
    }
    if j.final_sync_ns > 0 && notes {
        // public case C15: the summary says how long the final sync took
        s += &format!(
            "  final sync: {:.3} ms (end_fsync/fsync_on_close, inside the run time)\n",
            j.final_sync_ns as f64 / 1e6
        );
    }
    // fio's order: latency buckets, cpu, depths, issued rwts, latency target, steady state
    s += &crate::report::fio::levels::job_text(j);
    s += &sync_text(j);
    s += &cpu_line(j);
    let coe = crate::report::fio::continues_on_error(j, global);
    s += &crate::report::fio::levels::depths_text(j, coe);
    if let Some(ss) = &j.steady {
        s += &crate::report::fio::outputs::steady_text(ss);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fio::json::lat_json;

    #[test]
    fn zero_ns_latency_is_zero_in_percentiles() {
        // null engine: 3 of 300 completions took 0 ns, 1 took 1 ns, the rest 10 ns;
        // fio's first buckets are exact, so 0 shows as 0 (was 1)
        let h = crate::result::Hist::from_buckets(&[(0, 3), (1, 1), (10, 296)]);
        let l = Latency {
            count: 300,
            min_ns: 0,
            max_ns: 10,
            sum_ns: 2961,
            histogram: Some(h),
            ..Latency::default()
        };
        let ps = [1.0, 1.25, 50.0];
        let t = pct_table(
            "clat",
            &l,
            &ps,
            crate::report::fio::lat_text::precision(&ps),
        );
        assert!(t.contains(" 1.00th=[    0],"), "{t}");
        assert!(t.contains(" 1.25th=[    1],"), "{t}");
        assert!(t.contains(" 50.00th=[   10]"), "{t}");
        let j = lat_json(&l, Some(&ps), false);
        assert_eq!(j["percentile"]["1.000000"], 0);
        assert_eq!(j["percentile"]["1.250000"], 1);
        assert_eq!(j["percentile"]["50.000000"], 10);
        assert_eq!((j["min"].as_u64(), j["max"].as_u64()), (Some(0), Some(10)));
    }

    /// fio 3.33's block after the run status lines (`rr: … --size=1m --rw=randread` on
    /// vda printed `  vda: ios=255/0, merge=0/0, ticks=22/0, in_queue=22, util=0.00%`).
    #[test]
    fn disk_stats_block_as_fio_prints_it() {
        use crate::result::{DevStat, DeviceCounters};
        let c = DeviceCounters {
            name: "vda".into(),
            before: DevStat {
                read_ios: 5,
                ..DevStat::default()
            },
            after: DevStat {
                read_ios: 260,
                read_ticks: 22,
                in_queue: 22,
                io_ticks: 1,
                ..DevStat::default()
            },
            elapsed_ms: 200,
        };
        assert_eq!(
            disk_stats(&[c]),
            "\nDisk stats (read/write):\n  vda: ios=255/0, merge=0/0, ticks=22/0, in_queue=22, util=0.50%\n"
        );
        assert_eq!(disk_stats(&[]), "");
    }

    /// fio 3.33 ends every write line with the zone reset count (`; 0 zone resets` outside
    /// zbd, as `fio --name=j --rw=write --size=64k` prints it), never a read line.
    #[test]
    fn write_line_ends_with_zone_resets_as_fio() {
        let d = DirResult {
            ios: 16,
            bytes: 65536,
            ..DirResult::default()
        };
        let mut j = JobResult::default();
        let units = crate::report::fio::num::TextUnits::default();
        let w = dir_text(&j, "write", &d, 1, (1, 0), units);
        assert!(
            w.starts_with(
                "  write: IOPS=16.0k, BW=62.5MiB/s (65.5MB/s)(64.0KiB/1msec); 0 zone resets\n"
            ),
            "{w}"
        );
        let r = dir_text(&j, "read", &d, 1, (1, 0), units);
        assert!(
            r.starts_with("  read: IOPS=16.0k, BW=62.5MiB/s (65.5MB/s)(64.0KiB/1msec)\n"),
            "{r}"
        );
        j.zone_resets = Some(3);
        let w = dir_text(&j, "write", &d, 1, (1, 0), units);
        assert!(w.contains("(64.0KiB/1msec); 3 zone resets\n"), "{w}");
    }

    /// fio 3.33's report of a job a failure it accounts ended, from the account's value
    /// alone ([`account_kinds`](crate::report::fio::header::account_kinds)): `err=`
    /// with its number padded to 2 and the account in parentheses (`err= 5
    /// (file:backend.c:1131, func=check_min_rate, error=Input/output error)`); the
    /// job's block left out when its thread failed as it set up (no request), printed
    /// when a request failed. Without an account, the errno's text.
    #[test]
    fn a_failed_jobs_err_is_its_account_as_fio() {
        for (a, want) in crate::report::fio::header::account_kinds() {
            let mut j = JobResult::default();
            j.job.name = "j".into();
            (j.pid, j.errno, j.threads) = (3984, a.errno, 1);
            j.failure = Some("io_u error on file f".into());
            j.account = Some(a.clone());
            let t = job_block(&j, &[], "DATE", false, [0; 3], Default::default());
            let (n, text) = want["err=".len()..].split_once('/').unwrap();
            let n: i32 = n.parse().unwrap();
            let head = format!("j: (groupid=0, jobs=1): err={n:2} ({text}): pid=3984: DATE\n");
            assert!(t.starts_with(&head), "{t}");
            assert_eq!(printed(&j), !a.setup, "{want}");
            j.account = None;
            let t = job_block(&j, &[], "DATE", false, [0; 3], Default::default());
            let plain = format!("err={n:2} ({}): ", crate::util::strerror(n));
            assert!(t.contains(&plain), "{t}");
        }
    }

    /// fio 3.33's block of `--rw=randrw --unified_rw_reporting=both`: read, write, then
    /// `  mixed: IOPS=0, BW=0 (0)(0B/37msec)` (its figures formatted with 0 significant
    /// figures), the merged latencies and the samples summed, `per=` against the group's
    /// read aggregate; with `kb_base=1000` the line is the same.
    #[test]
    fn mixed_block_follows_the_directions_as_fio() {
        let lat = |ns: u64, n: u64| Latency {
            count: n,
            min_ns: ns,
            max_ns: ns,
            sum_ns: ns * n,
            histogram: Some(crate::result::Hist::from_buckets(&[(ns, n)])),
            ..Latency::default()
        };
        let mut j = JobResult {
            runtime_ns: 37_000_000,
            ..JobResult::default()
        };
        j.job.unified_rw = 2;
        j.job.clat_percentiles = true;
        (j.read.ios, j.read.bytes) = (496, 496 * 4096);
        (j.write.ios, j.write.bytes) = (528, 528 * 4096);
        (j.read.clat, j.read.lat) = (lat(600_000, 496), lat(600_000, 496));
        (j.write.clat, j.write.lat) = (lat(4_000, 528), lat(4_000, 528));
        j.read.bw_samples.add(50_000);
        j.write.bw_samples.add(60_000);
        let t = job_text(&j, std::slice::from_ref(&j), &[], "DATE", false);
        let at = |k: &str| t.find(k).unwrap_or_else(|| panic!("{k} missing in\n{t}"));
        assert!(at("  read: IOPS=13.4k") < at("  write: IOPS=14.3k"), "{t}");
        assert!(at("  write: IOPS=14.3k") < at("  mixed: IOPS=0, BW=0 (0)(0B/37msec)\n"));
        let mixed = &t[at("  mixed: ")..];
        assert!(
            mixed.contains("    clat (usec): min=4, max=600, avg="),
            "{t}"
        );
        assert!(mixed.contains("clat percentiles (usec)"), "{t}");
        // 110 000 KiB/s of samples against the read aggregate, 53 621 KiB/s: capped at 100
        assert!(
            mixed.contains("min=110000, max=110000, per=100.00%, avg=110000.00"),
            "{t}"
        );
        assert!(at("  mixed: ") < at("  lat (usec)   : "), "{t}");
        j.job.kb_base = 1000;
        let t = job_text(&j, std::slice::from_ref(&j), &[], "DATE", false);
        assert!(t.contains("  mixed: IOPS=0, BW=0 (0)(0B/37msec)\n"), "{t}");
        j.job.unified_rw = 0;
        let t = job_text(&j, std::slice::from_ref(&j), &[], "DATE", false);
        assert!(!t.contains("mixed"), "{t}");
    }

    /// fio 3.33's show_ddir_status with two priorities: their `clat prio C/L` lines
    /// right after ` lat`, their tables after the clat table, each with its share of the
    /// direction's requests (1 of 4 → 25.00%, 3 of 4 → 75.00%), all before the bw line.
    #[test]
    fn priority_lines_sit_where_fio_prints_them() {
        let lat = |n: u64| Latency {
            count: n,
            min_ns: 1000,
            max_ns: 1000,
            sum_ns: 1000 * n,
            histogram: Some(crate::result::Hist::from_buckets(&[(1000, n)])),
            ..Latency::default()
        };
        let mut j = JobResult::default();
        j.job.clat_percentiles = true;
        j.read = DirResult {
            ios: 4,
            bytes: 16384,
            clat: lat(4),
            lat: lat(4),
            ..DirResult::default()
        };
        j.read.bw_samples.add(100);
        for (ioprio, n) in [(8192u16, 3u64), (0, 1)] {
            j.prios.push(crate::result::job::PrioLatency {
                dir: "read".into(),
                ioprio,
                lat: lat(n),
            });
        }
        let units = crate::report::fio::num::TextUnits::default();
        let t = dir_text(&j, "read", &j.read, 1, (0, 0), units);
        let at = |k: &str| t.find(k).unwrap_or_else(|| panic!("{k} missing in\n{t}"));
        assert!(at("     lat (") < at("clat prio 0/0 ("));
        assert!(at("clat prio 0/0 (") < at("clat prio 1/0 ("));
        assert!(at("clat prio 1/0 (nsec)") < at("clat percentiles"));
        assert!(at("clat percentiles") < at("clat prio 0/0 (25.00% of IOs) percentiles"));
        assert!(at("clat prio 0/0 (25.00%") < at("clat prio 1/0 (75.00% of IOs) percentiles"));
        assert!(at("clat prio 1/0 (75.00%") < at("bw ("));
    }
}
