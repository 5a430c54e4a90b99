//! The one job model's shared vocabulary beyond [`crate::job::thread::ThreadJob`]: the
//! values a job thread's requests are picked, paced and judged by, named once for every
//! room, and the [`Workload`] of one job thread that gathers them (workload.rs). fio's parser (`job/fio/`) fills them from its keys and re-exports them where its
//! job types always named them; the worker's rules (`run/worker/`) and the generators
//! (`run/gen/`) read them from here, never from a dialect.
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
