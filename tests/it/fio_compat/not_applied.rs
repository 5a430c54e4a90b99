//! Options iomark accepts (checked as fio checks them) but does not apply — the rows of
//! the option table marked `not_applied`, listed in docs/compat/fio.md: each says so in
//! one line on stderr, under `iomark run` and the fio persona alike, never on stdout.

use crate::util::*;
use iomark::job::fio::options;

/// The notice lines of `stderr` about option `key`.
fn notices<'a>(stderr: &'a str, key: &str) -> Vec<&'a str> {
    let named = format!("option '{key}' is accepted, but iomark does not apply it");
    stderr.lines().filter(|l| l.contains(&named)).collect()
}

#[test]
fn every_option_not_applied_says_so_on_stderr() {
    let d = scratch();
    let keys: Vec<_> = options::all().filter(|o| o.not_applied).collect();
    assert!(keys.len() >= 13, "{}", keys.len());
    let mut checked = 0;
    for o in keys {
        let v = o.example.unwrap_or("1");
        for (who, cmd) in [
            ("run", Iomark::new().dir(d.path()).arg("run")),
            ("fio", as_fio(d.path()).dir(d.path())),
        ] {
            let opt = format!("--{}={v}", o.name);
            let out = cmd
                .args(["--name=a", "--ioengine=null", "--size=64k", opt.as_str()])
                .run();
            // a value iomark refuses for its own reason (`profile`: fio's built-in
            // profiles are not run) is no option accepted: nothing to say
            if out.code != 0 {
                assert!(notices(&out.stderr, o.name).is_empty(), "{}", out.dump());
                continue;
            }
            // the option's default asks for nothing left undone: no notice then
            let default = o.default.is_some_and(|d| d.eq_ignore_ascii_case(v));
            checked += usize::from(!default);
            assert_eq!(
                notices(&out.stderr, o.name).len(),
                usize::from(!default),
                "{who} --{}={v}: {}",
                o.name,
                out.dump()
            );
            assert!(notices(&out.stdout, o.name).is_empty(), "{}", out.dump());
        }
    }
    assert!(checked >= 2 * 10, "checked {checked}");
    // an option iomark applies says nothing of the kind; nor does `--parse-only` (no job
    // runs: fio says nothing there either), nor the option's default (`lockfile=none`)
    let out = parse_only(Iomark::new().dir(d.path()).arg("run"), "iodepth", "2");
    assert!(!out.all().contains("does not apply"), "{}", out.dump());
    let out = parse_only(as_fio(d.path()).dir(d.path()), "cgroup", "x");
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{}", out.dump());
    let out = as_fio(d.path())
        .dir(d.path())
        .args([
            "--name=a",
            "--ioengine=null",
            "--size=64k",
            "--lockfile=none",
        ])
        .run();
    assert!(!out.all().contains("does not apply"), "{}", out.dump());
}

/// A run says it once, also when two jobs take the option from the global section,
/// and its report on stdout stays clean (fio's JSON parses).
#[test]
fn a_run_says_it_once_on_stderr() {
    let d = scratch();
    let out = as_fio(d.path())
        .dir(d.path())
        .args([
            "--cgroup=x",
            "--trim_percentage=50",
            "--ioengine=null",
            "--size=64k",
            "--name=a",
            "--name=b",
            "--output-format=json",
        ])
        .run();
    assert_eq!(out.code, 0, "{}", out.dump());
    assert_eq!(notices(&out.stderr, "cgroup").len(), 1, "{}", out.dump());
    assert_eq!(
        notices(&out.stderr, "trim_percentage").len(),
        1,
        "{}",
        out.dump()
    );
    // fio's job lines, then its JSON document: no notice among them
    assert!(!out.stdout.contains("does not apply"), "{}", out.dump());
    let at = out
        .stdout
        .find("\n{")
        .unwrap_or_else(|| panic!("{}", out.dump()));
    let doc: serde_json::Value = serde_json::from_str(&out.stdout[at..]).unwrap();
    assert_eq!(doc["jobs"].as_array().unwrap().len(), 2);
}
