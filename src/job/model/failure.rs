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
/// A set of error kinds, as fio's bit mask: `ignore_error` adds the kind of each list
/// it names to it ([`ContinueOnError::with`]) and a later `continue_on_error=` replaces
/// it (fio 3.33 `options.c` `ignore_error_type`). A failed request is never counted as
/// done either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContinueOnError(u8);

impl ContinueOnError {
    /// stop at the first error (fio's default)
    pub const NONE: Self = Self(0);
    /// continue after read errors
    pub const READ: Self = Self(1);
    /// continue after write errors
    pub const WRITE: Self = Self(2);
    /// continue after any read or write error
    pub const IO: Self = Self(3);
    /// continue after verification mismatches
    pub const VERIFY: Self = Self(4);
    /// continue after every error
    pub const ALL: Self = Self(7);

    /// Parse fio's value; `Err` names the accepted values.
    pub fn parse(v: &str) -> Result<Self, String> {
        Ok(match v.trim() {
            "none" | "0" => Self::NONE,
            "read" => Self::READ,
            "write" => Self::WRITE,
            "io" => Self::IO,
            "verify" => Self::VERIFY,
            "all" | "1" => Self::ALL,
            _ => {
                return Err(format!(
                    "'{v}' (accepted: none, read, write, io, verify, all, 0, 1)"
                ))
            }
        })
    }
    /// This set and kind `e` (fio's `continue_on_error |= 1 << etype`).
    pub fn with(self, e: ErrorClass) -> Self {
        Self(self.0 | bit(e))
    }
    /// True when the job records the error and goes on.
    pub fn continues(self, e: ErrorClass) -> bool {
        self.0 & bit(e) != 0
    }
}

/// fio's `error_type_bit` of a kind: read 1, write 2, verify 4.
fn bit(e: ErrorClass) -> u8 {
    match e {
        ErrorClass::Read => 1,
        ErrorClass::Write => 2,
        ErrorClass::Verify => 4,
    }
}
