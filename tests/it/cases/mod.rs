//! The public cases of ../shared/cases/public-cases.md.

mod fileio;
mod run;
