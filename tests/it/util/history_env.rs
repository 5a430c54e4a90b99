//! No test writes into the real user's results history: before `main` of this test
//! binary runs (an `.init_array` entry, run by the loader while the process is still
//! one thread), `IOMARK_RESULTS` is set to a scratch directory under the target
//! directory, emptied first, so every command any test spawns — through [`super::Iomark`],
//! a bare `Command::new(BIN)`, a shell script or the `fio` persona — inherits it and
//! keeps its results there (the history stays on, as a user has it, so the existing
//! tests also check that it changes none of their outputs). The history tests give
//! each command a directory of their own (tests/it/history.rs).

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
    std::env::remove_var("IOMARK_HISTORY");
}

#[used]
#[link_section = ".init_array"]
static SCRATCH_HISTORY: extern "C" fn() = scratch_history;
