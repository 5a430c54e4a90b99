//! `iomark run` output next to fio 3.33's, and fio's output read back by iomark.

mod bandwidth_log;
mod cli;
mod colons;
mod compressed_log;
mod contract;
mod exact_lat;
mod fresh_user;
mod gaps;
mod import;
mod job_keys;
mod json_keys;
mod junk_parts;
mod kb_base;
mod log_ends;
mod logs_verify;
mod options;
mod oracle_groups;
mod peers;
mod semantics;
mod side_by_side;
mod status_interval;
mod terse;
mod text;
mod unified;
mod units;
mod verify_rounds;
