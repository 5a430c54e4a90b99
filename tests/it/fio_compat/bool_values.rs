//! A boolean or "set" key's value as fio 3.33 reads it (parse.c `check_int`: `sscanf`'s
//! `%u`, or `%x` when the value holds `0x`, into a C `int`): a "set" key
//! (`time_based`, `group_reporting`, `thread`, FIO_OPT_STR_SET) takes any number, a
//! boolean (`direct`, FIO_OPT_BOOL) any number up to 1, negative ones included; 0 is
//! off, any other number on; a word (`yes`, `on`) is refused (`iomark run` takes it). Compared with the installed
//! fio over every boolean key of iomark's table, and by the jobs a run reports.

use crate::util::*;
use iomark::job::fio::options::{self, Apply, Kind};

/// Values whose reading differs from a plain `1`/`0`: numbers above 1, numbers the C
/// `int` wraps (`4294967296` is 0, `4294967298` 2), hex, digits with letters after
/// them, a word.
const VALUES: [&str; 6] = ["50", "4294967296", "4294967298", "0x3", "2x", "yes"];

/// Every boolean and "set" key of the table, given each of [`VALUES`], is taken or
/// refused by iomark as `fio` as fio 3.33 takes or refuses it (`--parse-only`), with
/// fio's stderr when refused; `iomark run` takes and refuses the same numbers (a refusal
/// is its one line naming the key, exit 2) and takes the word `yes` too.
#[test]
fn a_boolean_takes_the_numbers_fio_takes() {
    if !need_fio("a_boolean_takes_the_numbers_fio_takes") {
        return;
    }
    let d = scratch();
    let mut differ = Vec::new();
    let mut checked = 0;
    let keys = options::all()
        .filter(|o| matches!(o.apply, Apply::Job(_)) && matches!(o.kind, Kind::Bool | Kind::Flag));
    for o in keys {
        // (a key that refuses `1` as it stands — an engine's key on the null engine, one
        // newer than fio 3.33 — is no matter of its value)
        let fio = |v: &str| parse_only(fio_cmd().dir(d.path()), o.name, v);
        let ours = |v: &str| parse_only(as_fio(d.path()).dir(d.path()), o.name, v);
        if fio("1").code != 0 || ours("1").code != 0 {
            continue;
        }
        checked += 1;
        for v in VALUES {
            let (f, i) = (fio(v), ours(v));
            let run = parse_only(Iomark::new().dir(d.path()).arg("run"), o.name, v);
            // `iomark run` also takes the words `yes`, `on`, `true`…
            let want_run = if f.code == 0 || v == "yes" { 0 } else { 2 };
            if f.code != i.code || (f.code != 0 && f.stderr != i.stderr) || run.code != want_run {
                differ.push(format!(
                    "--{}={v}: fio {} {:?}; iomark as fio {} {:?}; iomark run {} {:?}",
                    o.name, f.code, f.stderr, i.code, i.stderr, run.code, run.stderr
                ));
            }
        }
    }
    assert!(checked > 50, "boolean keys checked: {checked}");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// What a "set" key's number means: `group_reporting=2` (command line) and
/// `group_reporting=50` (job file) merge the two threads of `numjobs=2` into one report as
/// `=1` does; `4294967296`, whose C `int` is 0, leaves them two — in fio 3.33's JSON and
/// in iomark's as `fio` alike.
#[test]
fn a_set_keys_number_is_on_unless_its_int_is_0() {
    let d = scratch();
    let mut sides = vec!["iomark"];
    if need_fio("a_set_keys_number_is_on_unless_its_int_is_0") {
        sides.push("fio");
    }
    let job = "[a]\nioengine=null\nsize=64k\nnumjobs=2\ngroup_reporting=50\n";
    std::fs::write(d.path().join("g.fio"), job).unwrap();
    for who in sides {
        let jobs = |args: &[&str]| {
            let cmd = if who == "fio" {
                fio_cmd()
            } else {
                as_fio(d.path())
            };
            let o = cmd
                .dir(d.path())
                .args(args)
                .arg("--output-format=json")
                .run();
            assert_eq!(o.code, 0, "{who}: {}", o.dump());
            o.json()["jobs"].as_array().unwrap().len()
        };
        let cli = |v: &str| {
            jobs(&[
                "--name=a",
                "--ioengine=null",
                "--size=64k",
                "--numjobs=2",
                &format!("--group_reporting={v}"),
            ])
        };
        assert_eq!(
            (cli("2"), cli("4294967296"), cli("0"), jobs(&["g.fio"])),
            (1, 2, 2, 1),
            "{who}"
        );
    }
}
