//! fio's triggers (`--trigger-file`, `--trigger-timeout`, `--trigger`): a watcher thread
//! checks every 100 ms whether the trigger file exists (then removes it, as fio) or the
//! timeout has passed since the start; then it stops every job as their end would (the
//! report is the jobs' own, the run is not "interrupted") and, once they stopped, the
//! trigger command runs (`sh -c CMD`, fio's `system()`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A running trigger watcher ([`Trigger::start`]).
pub struct Trigger {
    fired: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
    watcher: Option<std::thread::JoinHandle<()>>,
    cmd: Option<String>,
}

impl Trigger {
    /// Watch for `file` or `timeout` (neither: no watcher) and set `stop` when one comes.
    pub fn start(
        file: Option<PathBuf>,
        timeout: Option<Duration>,
        cmd: Option<String>,
        stop: Arc<AtomicBool>,
    ) -> Option<Trigger> {
        if file.is_none() && timeout.is_none() {
            return None;
        }
        let (fired, done) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let (f2, d2) = (fired.clone(), done.clone());
        let t0 = Instant::now();
        let watcher = std::thread::spawn(move || {
            while !d2.load(Ordering::Relaxed) {
                let by_file = file
                    .as_deref()
                    .is_some_and(crate::files::scratch::take_trigger_file);
                let by_time = timeout.is_some_and(|t| t0.elapsed() >= t);
                if by_file || by_time {
                    f2.store(true, Ordering::Relaxed);
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Some(Trigger {
            fired,
            done,
            watcher: Some(watcher),
            cmd,
        })
    }

    /// End the watcher; whether the trigger fired, after running its command if so
    /// (a command that cannot start is fio's line on stderr).
    pub fn finish(mut self) -> bool {
        self.done.store(true, Ordering::Relaxed);
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
        let fired = self.fired.load(Ordering::Relaxed);
        if let Some(c) = self.cmd.as_deref().filter(|c| fired && !c.is_empty()) {
            if std::process::Command::new("sh")
                .arg("-c")
                .arg(c)
                .status()
                .is_err()
            {
                eprintln!("fio: failed executing {c} trigger");
            }
        }
        fired
    }
}
