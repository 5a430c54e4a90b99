//! `iomark run`: fio-style jobs from the command line and job files.

mod cli_forms;
mod control;
mod engine_paths;
mod engines;
mod engines_aio;
mod fio_examples;
mod fresh_user;
mod misc;
mod more;
mod net;
mod nodata;
mod one_worker;
mod output_format;
mod over_time;
mod over_time_thermal;
mod passes;
mod pipe_outputs;
mod replay;
mod thermal_commands;
mod verify;
mod verify_state;
mod zones;
