//! `--cmdhelp` under the fio persona against the installed fio 3.33, read when the test
//! runs: `--cmdhelp=all` byte for byte (fio's order, children indented under their
//! parent), and `--cmdhelp=KEY` for every option and alias fio's list names (stdout,
//! stderr and exit code). Each test gathers every difference before it fails.

use crate::util::*;

/// Keys whose `--cmdhelp=KEY` iomark as `fio` prints otherwise than fio 3.33, with the
/// reason (docs/compat/fio.md, "Options"). The list may only shrink: a listed key that
/// now prints fio's answer fails the test until it is struck off.
const KEY_DIFFERS: &[(&str, &str)] = &[];

/// `(code, stdout, stderr)` of `ARGS` under fio 3.33 and under iomark as `fio`.
fn both(d: &std::path::Path, args: &[&str]) -> [(i32, String, String); 2] {
    let fio = fio_cmd().dir(d).args(args).run();
    let ours = as_fio(d).dir(d).args(args).run();
    [
        (fio.code, fio.stdout, fio.stderr),
        (ours.code, ours.stdout, ours.stderr),
    ]
}

/// The lines of `a` and `b` that differ, by place (at most `max`).
fn differing_lines(a: &str, b: &str, max: usize) -> Vec<String> {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    (0..a.len().max(b.len()))
        .filter(|&i| a.get(i) != b.get(i))
        .take(max)
        .map(|i| format!("line {}: fio {:?} / iomark {:?}", i + 1, a.get(i), b.get(i)))
        .collect()
}

#[test]
fn cmdhelp_all_is_fios_byte_for_byte() {
    require_fio();
    let d = scratch();
    let [fio, ours] = both(d.path(), &["--cmdhelp=all"]);
    assert!(fio.1.lines().count() > 150, "fio printed {:?}", fio.1);
    let failures = differing_lines(&fio.1, &ours.1, 40);
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(fio, ours);
    // with no value it is the same list
    let [fio, ours] = both(d.path(), &["--cmdhelp"]);
    assert_eq!(fio, ours);
}

/// The option names and aliases of fio 3.33's `--cmdhelp=all`, with each `--cmdhelp=KEY`
/// of fio's: its aliases are the `alias:` lines.
fn fio_keys(d: &std::path::Path) -> Vec<String> {
    let all = fio_cmd().dir(d).args(["--cmdhelp=all"]).run();
    let mut keys = Vec::new();
    for name in all
        .stdout
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, _)| k.trim())
    {
        keys.push(name.to_string());
        let one = fio_cmd().dir(d).arg(format!("--cmdhelp={name}")).run();
        keys.extend(
            one.stdout
                .lines()
                .filter_map(|l| l.trim().strip_prefix("alias: "))
                .map(str::to_string),
        );
    }
    keys
}

#[test]
fn cmdhelp_of_every_key_is_fios() {
    require_fio();
    let d = scratch();
    let keys = fio_keys(d.path());
    assert!(keys.len() > 200, "{} keys", keys.len());
    let mut failures = Vec::new();
    let mut listed_same = Vec::new();
    for key in &keys {
        let [fio, ours] = both(d.path(), &[&format!("--cmdhelp={key}")]);
        let listed = KEY_DIFFERS.iter().any(|(k, _)| k == key);
        match (fio == ours, listed) {
            (false, false) => failures.push(format!(
                "--cmdhelp={key}: {}",
                differing_lines(
                    &format!("{}\n{}", fio.1, fio.2),
                    &format!("{}\n{}", ours.1, ours.2),
                    5
                )
                .join("; ")
            )),
            (true, true) => listed_same.push(key.clone()),
            _ => {}
        }
    }
    eprintln!(
        "--cmdhelp=KEY: {} keys compared, {} listed as differing",
        keys.len(),
        KEY_DIFFERS.len()
    );
    assert!(
        failures.is_empty(),
        "{} keys differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        listed_same.is_empty(),
        "print fio's now, strike them off KEY_DIFFERS: {listed_same:?}"
    );
}

/// A key spelled otherwise than fio spells it (`time-based`, iomark's own alias
/// `bw_avg_time`, an option iomark adds) is answered as fio answers a key it lacks:
/// `No such command` on stderr and its closest option's help, exit 0.
#[test]
fn cmdhelp_of_a_spelling_fio_lacks_is_fios() {
    require_fio();
    let d = scratch();
    for key in [
        "time-based",
        "bw_avg_time",
        "reap-spin",
        "BS",
        "percentage_sequential",
        "gpu_dev_id",
    ] {
        let [fio, ours] = both(d.path(), &[&format!("--cmdhelp={key}")]);
        assert_eq!(fio, ours, "--cmdhelp={key}");
    }
}
