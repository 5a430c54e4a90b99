//! fio 3.33's normal text of a run over several hosts, as its client prints it
//! (`fio --client=h1 job --client=h2 job`, client.c), for iomark's many-hosts run (MPI,
//! `RunResult.ranks`): each host in rank order, then the "All clients" job.
//!
//! What fio's client prints, and where it comes from:
//! - per host, when it connects: `hostname=H, be=0, 64-bit, os=Linux, arch=x86-64,
//!   fio=fio-3.33, flags=1` (`handle_probe`; `be` is 1 on a big-endian host, `flags` 1
//!   says the server has zlib, as fio 3.33 built on Debian);
//! - the text each server prints before its report, every line after `<H> `
//!   (`handle_text`): the job section lines, `Starting N process`, the layout lines, and
//!   the empty line that starts the report (a line `<H> ` alone); the version line is
//!   not sent;
//! - each host's report as plain fio prints it (job blocks, `Run status group`, `Disk
//!   stats`), without a prefix (`handle_ts`/`handle_gs`/`handle_du` fill the host's
//!   buffer, printed when the host is done);
//! - when the hosts reported more than one job in all, an `All clients:` job block
//!   (`show_thread_status` of the summed `client_ts`): pid 0, `jobs=` the jobs summed,
//!   no percentiles and no latency target line (flags a zeroed `thread_stat` keeps),
//!   bandwidths without a unit (`BW=118Mi (124M)`: its `unit_base` stays 0), sample
//!   shares of the hosts' aggregates added up; no run status lines after it.
//!
//! fio prints the hosts in the order their messages arrive (interleaved); iomark in rank
//! order, each host's lines together (docs/compat/fio.md). The lines before the reports
//! (probe and `<host>` lines) are written by report/fio/header.rs (`client_header`), this
//! file writes the reports.

use crate::report::fio::json::clients::{all_clients, client_agg};
use crate::report::fio::num::TextUnits;
use crate::result::ranks::RanksSummary;
use crate::result::RunResult;

/// The reports: each host's as plain fio's (`date`: the job lines' ctime), then the
/// "All clients" job block when the hosts reported more than one job in all.
pub fn body(r: &RunResult, ranks: &RanksSummary, date: &str, notes: bool) -> String {
    let mut s = String::new();
    for p in &ranks.per_rank {
        s += &super::host_text(&p.result, date, notes);
    }
    let members: usize = ranks.per_rank.iter().map(|p| p.result.jobs.len()).sum();
    let Some(all) = all_clients(r, ranks).filter(|_| members > 1) else {
        return s;
    };
    // fio's client group takes kb_base from the first host's group
    let first = ranks.per_rank.iter().find_map(|p| {
        let j = p.result.jobs.first()?;
        Some(TextUnits::of_group(&p.result.jobs, j.groupid))
    });
    let units = TextUnits {
        decimal: first.is_some_and(|u| u.decimal),
        bits: false,
        unitless: true,
    };
    s += &super::job_block(&all, &[], date, notes, client_agg(ranks), units);
    s
}
