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
