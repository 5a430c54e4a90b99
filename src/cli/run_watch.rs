//! What runs beside the jobs of `iomark run` for fio's command-line options: the
//! triggers (`--trigger-file`, `--trigger-timeout`, `--trigger`: run/fio/trigger.rs)
//! and the CPU idleness of `--idle-prof=system|percpu` (the idle and total ticks of
//! /proc/stat before and after the run, and the profiler's unit of work), handed to the
//! report through [`crate::report::fio::idle::Shared`].

use crate::job::fio::{FioCommand, IdleProf};
use crate::report::fio::idle::{IdleStats, Shared};
use crate::run::fio::trigger::Trigger;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The watchers of one run ([`start`]).
pub struct Beside {
    trigger: Option<Trigger>,
    idle: Option<(IdleProf, Vec<(u64, u64)>)>,
}

/// Start what `cmd` asks for beside its jobs (`stop` ends the jobs when a trigger fires).
pub fn start(cmd: &FioCommand, stop: &Arc<AtomicBool>, root: &crate::probe::Root) -> Beside {
    let c = &cmd.fio_cli;
    Beside {
        trigger: Trigger::start(
            c.trigger_file.clone(),
            c.trigger_timeout,
            c.trigger_cmd.clone(),
            stop.clone(),
        ),
        idle: c.idle_prof.map(|p| (p, root.cpu_ticks())),
    }
}

impl Beside {
    /// After the jobs: run the trigger's command if it fired, hand the idleness to the
    /// report; whether a trigger stopped the jobs.
    pub fn finish(self, root: &crate::probe::Root, shared: &Shared) -> bool {
        let fired = self.trigger.is_some_and(Trigger::finish);
        if let Some((how, before)) = self.idle {
            let after = root.cpu_ticks();
            let pct = |i: usize| match (before.get(i), after.get(i)) {
                (Some(a), Some(b)) if b.1 > a.1 => {
                    (b.0.saturating_sub(a.0)) as f64 * 100.0 / (b.1 - a.1) as f64
                }
                _ => 100.0,
            };
            let cpus = after.len().saturating_sub(1);
            let stats = IdleStats {
                system: pct(0),
                percpu: (how == IdleProf::PerCpu).then(|| (1..=cpus).map(pct).collect()),
                unit: crate::run::fio::tools::unit_work_us(),
            };
            *shared.lock().unwrap_or_else(|p| p.into_inner()) = Some(stats);
        }
        fired
    }
}
