//! The section lines fio 3.33 prints on stdout while it reads its command line (a
//! command-line job is added when the next `--name` comes) stay there when an
//! `--output=FILE` given after those jobs takes the report, next to fio itself (skipped,
//! with the reason, when fio is not installed).

use crate::util::*;

/// `--output=FILE` after the command-line jobs: fio 3.33 printed the section lines of
/// the jobs it added before it (`a`, with `...` for numjobs=2) on stdout, and the report
/// goes to FILE without them (its header starts at `b`'s line in the normal format; the
/// JSON document alone).
#[test]
fn section_lines_said_before_a_later_output_stay_on_stdout() {
    let test = "section_lines_said_before_a_later_output_stay_on_stdout";
    let d = scratch();
    let a_line = "a: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=null, iodepth=1\n...\n";
    for fmt in ["--output-format=normal", "--output-format=json"] {
        let args = [
            "--name=a",
            "--ioengine=null",
            "--size=64k",
            "--numjobs=2",
            "--name=b",
            "--ioengine=null",
            "--size=64k",
            fmt,
            "--output=o.txt",
        ];
        let i = as_fio(d.path()).dir(d.path()).args(args).run();
        assert_eq!(
            (i.code, i.stdout.as_str()),
            (0, a_line),
            "{fmt}: {}",
            i.dump()
        );
        let file = std::fs::read_to_string(d.path().join("o.txt")).unwrap();
        assert!(!file.contains("a: (g=0)"), "{fmt}: {file}");
        match fmt.ends_with("json") {
            true => assert!(file.starts_with('{'), "{file}"),
            false => assert!(file.starts_with("b: (g=0)"), "{file}"),
        }
        if need_fio(test) {
            let f = fio_cmd().dir(d.path()).args(args).run();
            assert_eq!((f.code, f.stdout.as_str()), (0, a_line), "fio {fmt}");
            let ffile = std::fs::read_to_string(d.path().join("o.txt")).unwrap();
            let head = |s: &str| s.lines().take(3).map(String::from).collect::<Vec<_>>();
            let head_of = |s: &str| match fmt.ends_with("json") {
                true => head(s)[..2].to_vec(),
                false => head(s),
            };
            assert_eq!(head_of(&file), head_of(&ffile), "{fmt}");
        }
    }
}

/// A command-line job closed by a later `--name` whose own option fio 3.33 refuses (a
/// word its getopt does not know, a value it cannot read), and a job file whose later
/// section holds a key fio does not know: fio added the earlier job before the refusal,
/// so its section line is on stdout (in FILE under `--output=FILE`, with fio's lines of
/// the refusal), then fio's lines and exit 1 — the same under iomark as `fio`.
#[test]
fn a_job_added_before_a_later_refusal_is_said_as_fio() {
    require_fio();
    let d = scratch();
    let a = ["--name=a", "--rw=read", "--size=1m", "--filename=f"];
    let said = "a: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1\n";
    for later in [&["--name=b", "--bogus=1"][..], &["--name=b", "--bs=xyz"]] {
        let args: Vec<&str> = a.iter().chain(later).copied().collect();
        let [f, i] = both_in(d.path(), &[], &args);
        assert_eq!((f.0, f.1.as_str()), (1, said), "fio {later:?}: {}", f.2);
        assert_eq!(i, f, "{later:?}");
    }
    let job = "[a]\nrw=read\nsize=1m\nfilename=f\n[b]\nbogus=1\n";
    for extra in [&[][..], &["--output=out.txt"]] {
        let args: Vec<&str> = ["j.fio"].iter().chain(extra).copied().collect();
        let [f, i] = both_in(d.path(), &[("j.fio", job)], &args);
        assert_eq!(f.0, 1, "fio {extra:?}: {}", f.2);
        assert!(f.2.contains("Bad option <bogus=1>"), "fio: {}", f.2);
        assert_eq!(i, f, "{extra:?}");
        let out = |tool: &str| std::fs::read_to_string(d.path().join(tool).join("out.txt")).ok();
        if extra.is_empty() {
            assert_eq!(f.1, said);
        } else {
            let fio = out("fio").expect("fio's out.txt");
            assert!(fio.starts_with(said), "{fio}");
            assert_eq!(out("iomark").as_deref(), Some(fio.as_str()));
        }
    }
}
