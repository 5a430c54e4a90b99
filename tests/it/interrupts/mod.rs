//! Signals: exit 130 (SIGINT) / 143 (SIGTERM) / 129 (SIGHUP) / 131 (SIGQUIT), partial reports, JSON saying
//! `interrupted`, temporary files removed and prepared file sets kept.

mod every_signal;
mod fileio_run;
pub(crate) mod fio_persona;
mod layout;
mod live_hangup;
mod stop_points;
