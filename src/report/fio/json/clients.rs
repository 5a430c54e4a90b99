//! fio 3.33's JSON document of a run over several hosts, as its client writes it
//! (`fio --client=h1 --client=h2 … --output-format=json`, client.c), for iomark's
//! many-hosts run (MPI, `RunResult.ranks`): what each host reported and the
//! "All clients" sum, in fio's client keys. A single-host run keeps fio's plain
//! document (report/fio/json.rs).
//!
//! Where each key comes from in fio 3.33:
//! - root (`fio_client_json_init`): `fio version`, `timestamp` (seconds), `time`,
//!   `global options` (always, filled by `handle_job_opt` with every host's global
//!   options in turn: the same option once per host; an option without a value left
//!   out, as in plain fio), `client_stats`, `disk_util` (always an array); no
//!   `timestamp_ms`;
//! - `client_stats[]` (`handle_ts`): each host's jobs as `show_thread_status_json`
//!   writes them over that host's group statistics, then `hostname` and `port`
//!   (`json_object_add_client_info`); no `eta`/`elapsed` (the client runs no job
//!   itself: `get_jobs_eta` returns nothing);
//! - the "All clients" job, last, when the hosts reported more than one job in all
//!   (`sum_stat_clients > 1`): every job summed by `sum_thread_stats` into a
//!   `thread_stat` that starts zeroed (`init_thread_stat`), so it has no
//!   `job options`, `error` 0, and no percentiles, error counts, latency target or
//!   steady state (those flags are not summed); its group aggregate is the hosts'
//!   added up (`sum_group_stats`, once per job reported); `hostname`/`port` of the
//!   last host (the last rank);
//! - `disk_util[]` (`handle_du`): each host's entries, with `hostname` and `port`.
//!
//! `port` is the MPI rank: MPI carries the results, there is no TCP port, and ranks on
//! one host share its hostname; fio's servers on one host differ by port, so the rank
//! takes the port's place (docs/compat/fio-clients.md, "Many hosts").

use super::{disk_entry, job_json, job_json_agg};
use crate::report::fio::levels::group_agg;
use crate::result::job::JobResult;
use crate::result::ranks::RanksSummary;
use crate::result::RunResult;
use serde_json::{json, Value};

/// fio's client document of a many-hosts run `r` (`plus`: json+), with the option
/// lists its text is written from: each `client_stats` entry's job options (in the
/// array's order) and the `global options` (every host's in turn).
pub struct ClientDoc<'a> {
    /// the document (its option objects are written from the lists below)
    pub doc: Value,
    /// the job options of `client_stats[i]`
    pub job_opts: Vec<&'a [(String, String)]>,
    /// every host's global options, host after host
    pub global: Vec<(String, String)>,
}

/// `hostname` and `port` after a job's or a disk's keys (`json_object_add_client_info`):
/// the rank's host and, in place of fio's TCP port, its MPI rank, so that ranks on one
/// host are told apart as fio's servers on one host are by their ports.
fn add_client_info(v: &mut Value, hostname: &str, rank: u32) {
    v["hostname"] = json!(hostname);
    v["port"] = json!(rank);
}

/// The client document of `r`, whose many-hosts part is `ranks`.
pub fn document<'a>(r: &'a RunResult, ranks: &'a RanksSummary, plus: bool) -> ClientDoc<'a> {
    let secs = r.timestamp_ms / 1000;
    let (mut stats, mut job_opts, mut global, mut disks) = (vec![], vec![], vec![], vec![]);
    let mut last = ("", 0);
    for p in &ranks.per_rank {
        let res = &p.result;
        for j in &res.jobs {
            let mut v = job_json(j, &res.jobs, &res.global_options, plus);
            if let Some(o) = v.as_object_mut() {
                o.remove("eta");
                o.remove("elapsed");
            }
            add_client_info(&mut v, &p.hostname, p.rank);
            stats.push(v);
            job_opts.push(j.job.options.as_slice());
        }
        global.extend(res.global_options.iter().cloned());
        for d in &res.devices {
            let mut e = disk_entry(d);
            add_client_info(&mut e, &p.hostname, p.rank);
            disks.push(e);
        }
        last = (&p.hostname, p.rank);
    }
    if stats.len() > 1 {
        if let Some(all) = all_clients(r, ranks) {
            let mut v = job_json_agg(&all, client_agg(ranks), &[], plus);
            if let Some(o) = v.as_object_mut() {
                o.remove("eta");
                o.remove("elapsed");
                o.remove("job options");
            }
            add_client_info(&mut v, last.0, last.1);
            stats.push(v);
        }
    }
    let doc = json!({
        "fio version": "",
        "timestamp": secs,
        "time": crate::report::fio::disk::ctime(secs),
        "global options": {},
        "client_stats": stats,
        "disk_util": disks,
    });
    ClientDoc {
        doc,
        job_opts,
        global,
    }
}

/// The "All clients" job: every host's jobs summed (the ranks' all-in-one merge,
/// `ranks.all_clients`, whose run time is the longest rank's own as fio's), as fio's
/// zeroed `client_ts` shows it: no error, no options, no percentiles, no error counts,
/// latency target or steady state, pid 0, and `jobs=` its members (one per host's job
/// summed).
pub(crate) fn all_clients(r: &RunResult, ranks: &RanksSummary) -> Option<JobResult> {
    let mut all = match (&ranks.all_clients, r.jobs.as_slice()) {
        (Some(a), _) => a.clone(),
        (None, [one]) => one.clone(),
        _ => return None,
    };
    all.job.name = "All clients".into();
    all.job.options.clear();
    all.job.slat_percentiles = false;
    all.job.clat_percentiles = false;
    all.job.lat_percentiles = false;
    (all.errno, all.first_errno, all.errors) = (0, 0, 0);
    (all.lat_target, all.steady) = (None, None);
    all.pid = 0;
    all.threads = ranks
        .per_rank
        .iter()
        .map(|p| p.result.jobs.len() as u32)
        .sum();
    Some(all)
}

/// fio's `client_gs.agg`: each host's group aggregate, added once per job the host
/// reported (`sum_group_stats` runs in `handle_ts`), per direction, B/s.
pub(crate) fn client_agg(ranks: &RanksSummary) -> [u64; 3] {
    let mut agg = [0u64; 3];
    for p in &ranks.per_rank {
        let jobs = &p.result.jobs;
        for j in jobs {
            for (d, a) in agg.iter_mut().enumerate() {
                *a += group_agg(jobs, j.groupid, d);
            }
        }
    }
    agg
}
