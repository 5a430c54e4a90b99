//! Reporters: one file per output format. Every reporter reads only the run's
//! statistics / [`json::RunResult`]; none of them measures anything.

pub mod compare;
pub mod compare_render;
pub mod console;
pub mod diagnose_text;
pub mod fio;
pub mod notes;
pub mod svg_compare;
pub mod svg_plot;
pub mod sysbench;


/// `println!` that never panics: when stdout is a closed pipe (`| head`) or a full disk,
/// the text is lost but the command goes on (and still removes the files it created).
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// `print!` that never panics (see [`outln!`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut o = std::io::stdout().lock();
        let _ = write!(o, $($arg)*);
        let _ = o.flush();
    }};
}
