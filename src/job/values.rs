//! The former home of the sysbench value parsers, kept only as the names
//! `tests/parser_props.rs` imports (`values::parse_int`, …) until the tests move into
//! `tests/it/`; the one definition of each is in [`crate::job::units`], where the rest
//! of `src/` reads them. Delete this file once no test names it.

pub use crate::job::units::{
    fmt_g, iomark_size as parse_human_size, sysbench_bool as parse_bool,
    sysbench_human_size as human_size, sysbench_int as parse_int, sysbench_ratio as parse_ratio,
    sysbench_size as parse_size,
};
pub use crate::util::text::iec;
