//! The public cases of ../shared/cases/public-cases.md.

mod diagnose;
mod fileio;
mod run;
