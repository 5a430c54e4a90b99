//! Wrong inputs to the commands added last (`history`, `report`), tried as a new user
//! would: a date that does not exist is refused with one line naming the option (exit
//! 2), `report -o -` is stdout (no file named `-` appears), and a figure a result does
//! not record is not printed as 0.

use crate::util::*;

#[test]
fn history_refuses_dates_that_do_not_exist() {
    let d = scratch();
    for bad in [
        "2026-13-01",
        "2026-00-10",
        "2026-12-32",
        "2025-02-29",
        "2026-04-31",
    ] {
        for opt in ["--since", "--until"] {
            let o = iomark(d.path(), &["history", &format!("{opt}={bad}")]);
            assert_eq!(o.code, 2, "{opt}={bad}: {}", o.dump());
            o.one_line_error(&[opt, "YYYY-MM-DD"]);
        }
    }
    // real dates, a leap day among them, are accepted (an empty history lists nothing)
    for good in ["2024-02-29", "2026-12-31", "2000-02-29"] {
        let o = Iomark::new()
            .dir(d.path())
            .env("IOMARK_RESULTS", d.path().join("h"))
            .env_remove("IOMARK_HISTORY")
            .args(["history", &format!("--since={good}")])
            .run();
        assert_eq!(o.code, 0, "{good}: {}", o.dump());
    }
}

#[test]
fn report_to_dash_is_stdout_and_no_file_named_dash() {
    let d = scratch();
    run(
        d.path(),
        &[
            "--name=t",
            "--size=64k",
            "--rw=write",
            "--bs=4k",
            "--json=r.json",
            "--output-format=terse",
        ],
    )
    .expect_code(0);
    for (fmt, head) in [("markdown", "# iomark report"), ("html", "<!DOCTYPE html>")] {
        let o = iomark(d.path(), &["report", "r.json", "-o", "-", "--format", fmt]);
        assert_eq!(o.code, 0, "{}", o.dump());
        assert!(o.stdout.starts_with(head), "{fmt}: {:.200}", o.stdout);
        assert!(!d.path().join("-").exists(), "a file named - was written");
        // a fio job records no file set: the settings line says nothing of one
        assert!(
            o.stdout.contains("block 4096 B"),
            "{fmt}: settings line missing"
        );
        assert!(
            !o.stdout.contains("file set 0 B"),
            "{fmt}: says file set 0 B"
        );
    }
}

/// fio 3.33 refuses a job whose `directory=` does not exist ("fio: DIR is not a
/// directory"); iomark once created it and wrote the job's files there (a mistyped
/// `directory=$DEVICE` from a job file made a directory named `$DEVICE`). Now: exit 3,
/// one line naming it, nothing created; as `fio` the same with fio's exit 1.
#[test]
fn a_job_directory_that_does_not_exist_is_refused_and_not_created() {
    let d = scratch();
    std::fs::write(d.path().join("plain"), b"mine").unwrap();
    std::fs::write(
        d.path().join("dollar.fio"),
        "[global]\ndirectory=$DEVICE\nsize=64k\n\n[file1]\nrw=read\n",
    )
    .unwrap();
    let fio = d.path().join("fio");
    std::os::unix::fs::symlink(BIN, &fio).unwrap();
    let cases: [(&[&str], &str); 3] = [
        (
            &["run", "--name=x", "--size=64k", "--directory=nodir/sub"],
            "nodir/sub",
        ),
        (
            &["run", "--name=x", "--size=64k", "--directory=plain"],
            "plain",
        ),
        (&["run", "dollar.fio"], "$DEVICE"),
    ];
    for (args, dir) in cases {
        let o = iomark(d.path(), args);
        assert_eq!(o.code, 3, "{args:?}: {}", o.dump());
        o.one_line_error(&[dir, "directory="]);
        // fio refuses it while it reads the options: its lines, its exit 1
        let persona = Iomark::program(&fio).dir(d.path()).args(&args[1..]).run();
        assert_eq!(persona.code, 1, "fio {args:?}: {}", persona.dump());
        let first = persona.stderr.lines().next().unwrap_or_default();
        assert_eq!(first, format!("fio: {dir} is not a directory"), "{args:?}");
        assert!(
            persona.stderr.contains("fio: failed parsing directory="),
            "{args:?}: {}",
            persona.dump()
        );
    }
    let mut left = entries(d.path());
    left.sort();
    assert_eq!(
        left,
        ["dollar.fio", "fio", "plain"],
        "something was created"
    );
    assert_eq!(std::fs::read(d.path().join("plain")).unwrap(), b"mine");
}

/// iomark as `fio` kept every completed run in the history without a word (fio keeps
/// nothing, and its stderr must stay fio's): now a run keeps a result only when it says
/// so — nothing under the quiet persona, the result and its line with `--notes`.
#[test]
fn the_fio_persona_keeps_no_history_unless_it_says_so() {
    let d = scratch();
    let h = d.path().join("h");
    let fio = d.path().join("fio");
    std::os::unix::fs::symlink(BIN, &fio).unwrap();
    let job = ["--name=t", "--ioengine=null", "--size=64k", "--rw=read"];
    let kept = || std::fs::read_dir(&h).map_or(0, |d| d.count());
    let persona = |extra: &[&str]| {
        Iomark::program(&fio)
            .dir(d.path())
            .env("IOMARK_RESULTS", &h)
            .env_remove("IOMARK_HISTORY")
            .args(job)
            .args(extra)
            .run()
    };
    let quiet = persona(&[]);
    assert_eq!(quiet.code, 0, "{}", quiet.dump());
    assert!(!quiet.stderr.contains("history"), "{}", quiet.stderr);
    assert_eq!(kept(), 0, "the quiet persona kept a result");
    let loud = persona(&["--notes"]);
    assert_eq!(loud.code, 0, "{}", loud.dump());
    assert!(
        loud.stderr.contains("result kept in the history"),
        "{}",
        loud.stderr
    );
    assert_eq!(kept(), 1, "--notes: one result kept");
}

/// A command name with a newline or an escape sequence: `time`'s "command not found"
/// is one line with the control characters written out (it once printed them raw: two
/// lines, or an escape sequence the terminal obeyed); exit 127 as a shell's.
#[test]
fn time_names_a_command_with_control_characters_on_one_visible_line() {
    let d = scratch();
    for (name, shown) in [
        ("bad\nname", r"bad\nname: command not found"),
        (
            "/nowhere/\x1b[31mred",
            r"/nowhere/\x1b[31mred: command not found",
        ),
    ] {
        let o = {
            let _switch = crate::time::one_at_a_time();
            iomark(d.path(), &["time", "--", name])
        };
        assert_eq!(o.code, 127, "{}", o.dump());
        o.one_line_error(&[shown]);
        assert!(!o.stderr.contains('\x1b'), "{:?}", o.stderr);
    }
}

/// `compare --plot` and `report -o` naming one of the results they read once replaced
/// the user's result with the chart or the page (exit 0): refused before anything is
/// written, by path or through a link, exit 2 with one line naming both.
#[test]
fn an_output_that_is_one_of_the_results_read_is_refused() {
    let d = scratch();
    run(
        d.path(),
        &["--name=t", "--ioengine=null", "--size=64k", "--json=r.json"],
    )
    .expect_code(0);
    std::os::unix::fs::symlink("r.json", d.path().join("l.json")).unwrap();
    let before = std::fs::read(d.path().join("r.json")).unwrap();
    let cases: [&[&str]; 4] = [
        &["compare", "r.json", "r.json", "--plot=r.json"],
        &["compare", "l.json", "r.json", "--plot=./r.json"],
        &["report", "r.json", "-o", "r.json"],
        &["report", "l.json", "-o", "r.json", "--format=html"],
    ];
    for args in cases {
        let o = iomark(d.path(), args);
        assert_eq!(o.code, 2, "{args:?}: {}", o.dump());
        o.one_line_error(&["are the same file", "result="]);
        assert_eq!(
            std::fs::read(d.path().join("r.json")).unwrap(),
            before,
            "{args:?} changed the result"
        );
    }
}

/// A damaged file in the history whose name holds a newline: skipped with one warning
/// line, the newline written out (it once split the warning in two lines).
#[test]
fn a_damaged_history_file_is_named_on_one_line() {
    let d = scratch();
    let h = d.path().join("h");
    std::fs::create_dir(&h).unwrap();
    std::fs::write(h.join("bad\nname.json"), b"{not json").unwrap();
    let o = Iomark::new()
        .dir(d.path())
        .env("IOMARK_RESULTS", &h)
        .env_remove("IOMARK_HISTORY")
        .arg("history")
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    o.one_line_error(&["skipping a damaged history file", r"bad\nname.json"]);
}

/// report's output option is named in its errors as the user typed it: `--output=DIR`
/// (a directory) says `--output`, `-o DIR` says `-o`, both exit 3 with one line; the
/// directory is left as it was.
#[test]
fn report_errors_name_the_output_option_as_typed() {
    let d = scratch();
    run(
        d.path(),
        &["--name=t", "--ioengine=null", "--size=64k", "--json=r.json"],
    )
    .expect_code(0);
    std::fs::create_dir(d.path().join("out")).unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["report", "r.json", "--output=out"], "--output=out"),
        (&["report", "r.json", "--output", "out"], "--output=out"),
        (&["report", "r.json", "-o", "out"], "-o out"),
        (&["report", "r.json", "-oout"], "-o out"),
    ];
    for (args, named) in cases {
        let o = iomark(d.path(), args);
        assert_eq!(o.code, 3, "{args:?}: {}", o.dump());
        o.one_line_error(&[&format!("cannot write {named}:"), "directory"]);
        if named.starts_with("--") {
            assert!(!o.stderr.contains("-o "), "{args:?}: {}", o.stderr);
        }
        let inside: Vec<_> = std::fs::read_dir(d.path().join("out")).unwrap().collect();
        assert!(inside.is_empty(), "{args:?}");
    }
}
