#!/usr/bin/env bash
# Parser fuzzing at scale: the properties of src/cli/props.rs that `cargo test`
# runs at 10,000 seeded cases each (sysbench argv, fio's command line, fio job files with
# includes, ${VAR} and arithmetic, RunResult/compare input, fio JSON/text import), here at
# PROPTEST_CASES (default 100,000) with a seed of its own (IOMARK_FUZZ_SEED, default the
# time), in process, then the exit-code properties through the binary. A failure prints
# the shrunk input; rerun with the printed seed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PROPTEST_CASES="${PROPTEST_CASES:-100000}"
export IOMARK_FUZZ_SEED="${IOMARK_FUZZ_SEED:-$(date +%s)}"
echo "fuzz: $PROPTEST_CASES cases per property, seed $IOMARK_FUZZ_SEED" >&2
cargo test --profile ci --lib -- --test-threads=2 \
  cli::props::sysbench_argv_parser_never_panics \
  cli::props::fio_argv_parser_never_panics \
  cli::props::fio_job_files_never_panic \
  cli::props::fio_report_import_never_panics \
  cli::props::compare_reader_and_pipeline_never_panic
# and through the binary (exit code 0-3, no panic, each run under 5 s): fio command
# lines and job files under `iomark run` and the fio persona, one process per case
export IOMARK_EXIT_FUZZ_CASES="${IOMARK_EXIT_FUZZ_CASES:-10000}"
echo "fuzz: $IOMARK_EXIT_FUZZ_CASES cases per exit-code property" >&2
exec cargo test --profile ci --test it -- --test-threads=2 safety::parser_exits::
