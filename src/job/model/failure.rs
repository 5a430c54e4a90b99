//! What failed in a request ([`ErrorClass`]): the kinds a job's error policy tells
//! apart (fio's `continue_on_error`, `job/fio/on_error.rs`), which the worker names when
//! a request fails.

/// What failed: the kind of a failed request a job's error policy decides on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// a read returned an error or a short count
    Read,
    /// a write (or its fsync) returned an error or a short count
    Write,
    /// data read back did not match what was written
    Verify,
}
