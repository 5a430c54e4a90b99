//! `iomark mark` (CrystalDiskMark-style presets) and `iomark compare` of results.

mod compare;
mod partial;
mod plot;
mod runs;
mod sizes;
mod sustained;
