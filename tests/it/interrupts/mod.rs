//! Signals: exit 130 (SIGINT) / 143 (SIGTERM), partial reports, JSON saying
//! `interrupted`, temporary files removed and prepared file sets kept.

mod fileio_run;
mod stop_points;
