//! The `iomark run` definition behind its help, completions and man page against fio
//! 3.33's own option list (`fio --cmdhelp=all`; tests/run.sh installs fio): every fio
//! option the parser accepts is defined there.

use crate::job::fio::{parse_args, FioError};
use std::process::Command;

/// fio 3.33's own option names (`fio --cmdhelp=all`).
fn fio_options() -> Vec<String> {
    let o = Command::new("fio")
        .arg("--cmdhelp=all")
        .output()
        .expect("fio is installed (tests/run.sh installs it)");
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.split(':').next())
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty() && !n.contains(' '))
        .collect()
}

#[test]
fn run_definition_holds_every_fio_option_the_parser_accepts() {
    let run_cmd = super::command()
        .find_subcommand("run")
        .cloned()
        .expect("run");
    let longs: Vec<String> = run_cmd
        .get_arguments()
        .filter_map(|a| a.get_long().map(str::to_string))
        .collect();
    let names = fio_options();
    assert!(names.len() > 150, "fio --cmdhelp=all lists {}", names.len());
    let mut accepted = 0;
    let mut missing = vec![];
    for n in &names {
        let known = !matches!(
            parse_args(&["--name=x".into(), format!("--{n}=1")]),
            Err(FioError::UnsupportedKey { .. } | FioError::EngineKey { .. })
        );
        if known {
            accepted += 1;
            let canonical = n.replace('-', "_");
            if !(longs.contains(n) || longs.contains(&canonical)) {
                missing.push(n.clone());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "fio options accepted by `iomark run` but missing from its completions/man page: {missing:?}"
    );
    assert!(accepted > 100, "only {accepted} of fio's options accepted?");
}
