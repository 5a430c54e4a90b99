//! An engine's option given to a job of another engine (`--ioengine=psync --nowait=1`,
//! `ioengine=sync` with `hipri=1` in a job file): fio 3.33 knows an engine's options only
//! in a job of that engine, so it answers as for an unknown option (getopt's
//! `unrecognized option` twice and its guess on the command line; `Bad option <…>` and the
//! job dropped in a job file), exit 1. The cases come from the contract when the test
//! runs: for each engine iomark registers that the installed fio has, each option another
//! such engine's `fio --enghelp=ENGINE` lists and its own does not. iomark as `fio` must
//! print fio's lines and exit code (compared side by side); `iomark run` refuses the job
//! in one line naming the option and every engine that takes it (exit 2).

use crate::util::*;
use std::collections::BTreeMap;
use std::path::Path;

/// The option names of `fio --enghelp=ENGINE` under the program `cmd` (`None`: it has
/// no such engine).
fn enghelp(cmd: Iomark, engine: &str) -> Option<Vec<String>> {
    let o = cmd.args([format!("--enghelp={engine}")]).run();
    if o.all().contains("has no options") {
        return Some(Vec::new());
    }
    if o.code != 0 || o.all().contains("not loadable") {
        return None;
    }
    Some(
        o.stdout
            .lines()
            .filter_map(|l| l.split_once(':'))
            .map(|(n, _)| n.trim().to_string())
            .filter(|n| !n.is_empty() && !n.contains(' '))
            .collect(),
    )
}

/// The engines iomark registers (its `--enghelp` list) that the installed fio has,
/// each with the options fio's `--enghelp=ENGINE` lists.
fn engines(d: &Path) -> BTreeMap<String, Vec<String>> {
    let listed = as_fio(d).dir(d).args(["--enghelp"]).run();
    let names: Vec<String> = listed
        .stdout
        .lines()
        .skip(1)
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    assert!(names.len() >= 8, "iomark's engines: {}", listed.dump());
    names
        .into_iter()
        .filter_map(|e| enghelp(fio_cmd().dir(d), &e).map(|o| (e, o)))
        .collect()
}

/// `(engine, option)` for every option some engine lists that `engine` does not; every
/// `step`-th of them (in a fixed order), to keep the test short.
fn cases(engines: &BTreeMap<String, Vec<String>>, step: usize) -> Vec<(String, String)> {
    let all: Vec<String> = {
        let mut v: Vec<String> = engines.values().flatten().cloned().collect();
        v.sort();
        v.dedup();
        v
    };
    let mut out = Vec::new();
    for (e, own) in engines {
        out.extend(
            all.iter()
                .filter(|o| !own.contains(o))
                .map(|o| (e.clone(), o.clone())),
        );
    }
    out.into_iter().step_by(step).collect()
}

#[test]
fn an_option_of_another_engine_is_unknown_to_fio_and_to_iomark_as_fio() {
    if !need_fio("an_option_of_another_engine_is_unknown_to_fio_and_to_iomark_as_fio") {
        return;
    }
    let d = scratch();
    let engines = engines(d.path());
    assert!(
        engines.contains_key("psync") && engines.contains_key("io_uring"),
        "{engines:?}"
    );
    let cases = cases(&engines, 3);
    assert!(cases.len() >= 20, "{cases:?}");
    let mut wrong = Vec::new();
    for (i, (engine, opt)) in cases.iter().enumerate() {
        // the command line, and (every other case) a job file
        let args = [
            "--parse-only".to_string(),
            "--name=x".into(),
            format!("--ioengine={engine}"),
            format!("--{opt}=1"),
            "--size=1m".into(),
        ];
        let file = format!("[j]\nioengine={engine}\n{opt}=1\nsize=1m\n");
        let mut runs = vec![both_in(
            d.path(),
            &[],
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
        )];
        if i % 2 == 0 {
            runs.push(both_in(
                d.path(),
                &[("j.fio", &file)],
                &["--parse-only", "j.fio"],
            ));
        }
        for [fio, ours] in runs {
            assert_eq!(fio.0, 1, "{engine} {opt}: fio 3.33 refuses it: {fio:?}");
            if fio != ours {
                wrong.push(format!(
                    "{engine} {opt}:\n  fio    {fio:?}\n  iomark {ours:?}"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

#[test]
fn iomark_run_names_the_engines_that_take_the_option() {
    if !need_fio("iomark_run_names_the_engines_that_take_the_option") {
        return;
    }
    let d = scratch();
    let engines = engines(d.path());
    for (engine, opt) in cases(&engines, 7) {
        // a value each option takes (iomark run reads the value before it judges the job)
        let value = match opt.as_str() {
            "cmd_type" => "nvme",
            "cmdprio_bssplit" => "4k/50",
            "protocol" => "tcp",
            "cpumode" => "noop",
            "exit_on_io_done" => "0",
            "stat_type" => "stat",
            _ => "1",
        };
        let o = iomark(
            d.path(),
            &[
                "run",
                "--parse-only",
                "--name=x",
                &format!("--ioengine={engine}"),
                &format!("--{opt}={value}"),
                "--size=1m",
            ],
        );
        assert_eq!(o.code, 2, "{engine} {opt}: {}", o.dump());
        let line = o.stderr.trim();
        assert_eq!(line.lines().count(), 1, "{engine} {opt}: {line}");
        assert!(
            line.contains(&opt) && line.contains(&format!("not of ioengine={engine}")),
            "{line}"
        );
        for (taker, own) in &engines {
            let named = line.contains(&format!("ioengine={taker},"))
                || line.contains(&format!("ioengine={taker} "));
            assert_eq!(named, own.contains(&opt), "{engine} {opt}, {taker}: {line}");
        }
    }
}
