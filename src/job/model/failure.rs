//! What failed in a request ([`ErrorClass`]): the kinds a job's error policy tells
//! apart, which the worker names when a request fails; and that policy
//! ([`ContinueOnError`], fio's `continue_on_error`, parsed in `job/fio/on_error.rs`):
//! which kinds the job goes on after.

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

/// fio's `continue_on_error` (none, read, write, io, verify, all; `0` = none, `1` = all):
/// which failed requests a job records as errors and continues after, instead of stopping.
/// A failed request is never counted as done either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContinueOnError {
    /// stop at the first error (fio's default)
    #[default]
    None,
    /// continue after read errors
    Read,
    /// continue after write errors
    Write,
    /// continue after any read or write error
    Io,
    /// continue after verification mismatches
    Verify,
    /// continue after every error
    All,
}

impl ContinueOnError {
    /// Parse fio's value; `Err` names the accepted values.
    pub fn parse(v: &str) -> Result<Self, String> {
        Ok(match v.trim() {
            "none" | "0" => Self::None,
            "read" => Self::Read,
            "write" => Self::Write,
            "io" => Self::Io,
            "verify" => Self::Verify,
            "all" | "1" => Self::All,
            _ => {
                return Err(format!(
                    "'{v}' (accepted: none, read, write, io, verify, all, 0, 1)"
                ))
            }
        })
    }
    /// True when the job records the error and goes on.
    pub fn continues(self, e: ErrorClass) -> bool {
        matches!(
            (self, e),
            (Self::All, _)
                | (Self::Read | Self::Io, ErrorClass::Read)
                | (Self::Write | Self::Io, ErrorClass::Write)
                | (Self::Verify, ErrorClass::Verify)
        )
    }
}
