//! The one job model every front end produces: [`Job`], one job thread as it runs —
//! what the shell starts it from ([`crate::job::thread::ThreadJob`]: engine, depth,
//! request sizes, open flags, file set, pace, limits, data, syncs) beside what its
//! requests are picked, paced, checked and judged by ([`Workload`], workload.rs).
//! fio's `FioJob::model` (job/fio/workload.rs) and sysbench's `FileioJob::model`
//! (job/sysbench/model.rs, which mark's presets build too) each produce it in one function.
//! Here too the shared vocabulary of those values, named once for every room; fio's
//! parser (`job/fio/`) fills them from its keys and re-exports them where its job types
//! always named them; the worker's rules (`run/worker/`) and the generators (`run/gen/`,
//! `run/sysbench/gen.rs`) read them from here, never from a dialect.
//!
//! Pure values, no I/O; this room names no dialect.

pub mod failure;
pub mod requests;
pub mod verify;
pub mod workload;

pub use failure::{ContinueOnError, ErrorClass};
pub use requests::{BlockSizes, Distribution, FileService, RandGen, RateProcess, RwMode};
pub use verify::VerifyKind;
pub use workload::{LatTargetSpec, Workload};

use crate::job::thread::ThreadJob;

/// One job thread in the one job model, as either front end states it.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// what the job-thread shell starts the thread from
    pub thread: ThreadJob,
    /// what each of its requests is picked, paced, checked and judged by
    pub work: Workload,
}
