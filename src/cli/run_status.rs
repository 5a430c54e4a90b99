//! fio's status line for `iomark run` and iomark as `fio`: whether it is shown
//! (`--eta=auto` when stdout is a terminal, `always`, `never`; never when stdout carries
//! only a JSON document, as fio 3.33's `calc_thread_status` rules) and the thread that
//! shows it while the jobs run. Every 250 ms (fio's helper-thread tick) it takes a
//! snapshot of the run's status board (src/run/fio/status.rs) once 95 % of
//! `--eta-interval` has passed since the last line, and writes the line
//! (src/report/fio/eta.rs) to stdout, ending with a carriage return; after the last one
//! a newline, so the report starts on its own line — unless the report on stdout starts
//! with its own empty line (the fio persona's, whose header came before the run) or
//! goes into an `--output` file (fio 3.33 then leaves the last line unended).

use crate::job::fio::{EtaOptions, EtaWhen, FioCommand};
use crate::report::fio::eta::EtaLine;
use crate::run::fio::status::{Board, Watch};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Whether the status line is shown for `cmd` (`rank0`: not another rank of a
/// many-hosts run, whose stdout is silent).
pub(crate) fn wanted(cmd: &FioCommand, rank0: bool) -> bool {
    // fio: no line when stdout is the JSON document alone
    let json_only_on_stdout = !cmd.output_format.normal && cmd.output.is_none();
    if !rank0 || json_only_on_stdout {
        return false;
    }
    match cmd.eta.when {
        EtaWhen::Never => false,
        EtaWhen::Always => true,
        EtaWhen::Auto => std::io::stdout().is_terminal(),
    }
}

/// Run `f` (the jobs) with the status line of `board` shown while it runs, when the
/// board is watched; `ended_by_report`, asked after the last line: the report's own
/// start ends it (no newline then).
pub(crate) fn around<T>(
    eta: EtaOptions,
    board: &Board,
    ended_by_report: &(dyn Fn() -> bool + Sync),
    f: impl FnOnce() -> T,
) -> T {
    if !board.watched() {
        return f();
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let shower = std::thread::Builder::new()
            .name("status".into())
            .spawn_scoped(s, || show(eta, board, &done, ended_by_report));
        let r = f();
        done.store(true, Ordering::Release);
        if let Ok(h) = shower {
            h.thread().unpark();
            let _ = h.join();
        }
        r
    })
}

/// The status thread: a line whenever one is due, until `done`.
fn show(
    eta: EtaOptions,
    board: &Board,
    done: &AtomicBool,
    ended_by_report: &(dyn Fn() -> bool + Sync),
) {
    let tick = Duration::from_millis(250).min(eta.interval);
    let (t0, mut n) = (Instant::now(), 1u32);
    let mut watch = Watch::new();
    let mut line = EtaLine::new(eta.newline);
    let mut printed = false;
    loop {
        let next = t0 + tick * n;
        n = n.saturating_add(1);
        while !done.load(Ordering::Acquire) && Instant::now() < next {
            std::thread::park_timeout(next.saturating_duration_since(Instant::now()));
        }
        if done.load(Ordering::Acquire) {
            break;
        }
        let now = Instant::now();
        // fio computes its status (and the `--bandwidth-log` sample) on every tick
        board.agg_tick(now);
        if !watch.due(now, eta.interval) {
            continue;
        }
        if let Some(je) = watch.snapshot(board, now) {
            crate::util::output::write(line.render(&je, now).as_bytes());
            printed = true;
        }
    }
    if printed && !ended_by_report() {
        crate::util::output::write(b"\n");
    }
}
