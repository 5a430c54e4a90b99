//! What every test module shares, defined once: the iomark binary as a command builder
//! and the output of one invocation (`cmd`), scratch directories, directory listings and
//! a free network port (`scratch`), how a test that cannot run here says so (`skip`), loop devices, filesystems and mounts that clean up on
//! drop (`loopdev`), markdown read back as text (`markdown`), the peer tools sysbench and fio (`peers`), JSON readers (`json`),
//! and the parser of sysbench's report with the spec's request-generator simulation
//! (`sysbench`); the scratch results history every spawned command inherits
//! (`history_env`); a terminal in tmux for what iomark shows only there (`tmux`).
//! Test modules `use crate::util::*;`.

mod cmd;
mod history_env;
mod json;
mod loopdev;
mod markdown;
mod peers;
mod scratch;
mod skip;
mod sysbench;
mod tmux;

pub use cmd::*;
pub use json::*;
pub use loopdev::*;
pub use markdown::*;
pub use peers::*;
pub use scratch::*;
pub use skip::*;
pub use sysbench::*;
pub use tmux::*;
