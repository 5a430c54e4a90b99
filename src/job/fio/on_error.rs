//! fio's `continue_on_error`: which failed requests a job records as errors and goes on
//! after ([`ContinueOnError`]), by what failed ([`ErrorClass`]); both are the one job
//! model's (`job/model/failure.rs`), which the worker reads through the job's
//! `Workload`. Parsing and its tests are here, with the job file's dialect.

pub use crate::job::model::ErrorClass;

/// `continue_on_error`'s values are the one job model's (`job/model/`), named here too.
pub use crate::job::model::ContinueOnError;

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
        assert_eq!(C::default(), C::NONE);
        // fio's bit mask: io = read | write, all = every kind
        assert_eq!(C::READ.with(Write), C::IO);
        assert_eq!(C::IO.with(Verify), C::ALL);
        assert!(C::VERIFY.with(Read).continues(Read));
        assert!(!C::VERIFY.with(Read).continues(Write));
    }
}
