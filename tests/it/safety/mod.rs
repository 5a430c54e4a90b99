//! Data safety and refusals: symbolic links, `--json` targets, block devices, O_DIRECT
//! alignment, invalid invocations; the hazard table (every command × every hazard).

mod collisions_and_edges;
mod device;
mod direct_align;
mod files;
mod hazards;
mod invalid;
mod json_target;
mod names;
mod new_commands;
mod parser_exits;
mod shared_logs;
mod stderr;
mod streams;
mod symlinks;
