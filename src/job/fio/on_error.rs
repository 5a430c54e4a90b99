//! fio's `continue_on_error`: which failed requests a job records as errors and goes on
//! after ([`ContinueOnError`], parsed from the job file), by what failed
//! ([`ErrorClass`], the one job model's, which the worker names when a request fails).
//! A job option, so it lives with the job model; the worker (run/fio/errors.rs) applies
//! it.

pub use crate::job::model::ErrorClass;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_on_error_follows_fio() {
        use ContinueOnError as C;
        use ErrorClass::*;
        let table = [
            ("none", [false, false, false]),
            ("0", [false, false, false]),
            ("read", [true, false, false]),
            ("write", [false, true, false]),
            ("io", [true, true, false]),
            ("verify", [false, false, true]),
            ("all", [true, true, true]),
            ("1", [true, true, true]),
        ];
        for (v, want) in table {
            let c = C::parse(v).unwrap();
            assert_eq!([Read, Write, Verify].map(|e| c.continues(e)), want, "{v}");
        }
        assert!(C::parse("sometimes")
            .unwrap_err()
            .contains("accepted: none"));
        assert_eq!(C::default(), C::None);
    }
}
