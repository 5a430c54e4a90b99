//! No test writes into the real user's results history: before `main` of this test
//! binary runs (an `.init_array` entry, run by the loader while the process is still
//! one thread), `IOMARK_HISTORY=off` is set and `IOMARK_RESULTS` names a scratch
//! directory under the target directory, emptied first, so every command any test
//! spawns — through [`super::Iomark`], a bare `Command::new(BIN)`, a shell script or the
//! `fio` persona — inherits both and keeps nothing (and would keep it there). The
//! history and report tests turn the history on for their own commands, each with a
//! directory of its own (tests/it/history.rs, tests/it/report.rs).

/// The scratch history of this test binary.
fn default_results_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("it-results")
}

extern "C" fn scratch_history() {
    let d = default_results_dir();
    let _ = std::fs::remove_dir_all(&d);
    // SAFETY (of the environment write): run from .init_array, before main and before
    // any other thread of this process exists.
    std::env::set_var("IOMARK_RESULTS", &d);
    std::env::set_var("IOMARK_HISTORY", "off");
}

#[used]
#[link_section = ".init_array"]
static SCRATCH_HISTORY: extern "C" fn() = scratch_history;
