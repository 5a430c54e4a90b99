//! Data safety and refusals: symbolic links, `--json` targets, block devices, O_DIRECT
//! alignment, invalid invocations.

mod device;
mod direct_align;
mod files;
mod invalid;
mod json_target;
mod symlinks;
