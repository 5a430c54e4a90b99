//! `--json=FILE` never replaces what is not a plain file: a device node (`/dev/zero`),
//! a FIFO or a symbolic link given as FILE is refused, in one wording for every command
//! (`cannot write --json=FILE: is not a regular file (…)`), before any work, by every command that
//! writes a RunResult; the device stays a device and the link's target is untouched.
//! (`/dev/null`, `/dev/stdout`, `/dev/stderr` and `-` name the standard streams, not
//! files: safety::streams.)

use crate::util::*;
use std::os::unix::fs::FileTypeExt;

fn commands() -> Vec<Vec<&'static str>> {
    vec![
        vec![
            "fileio",
            "--file-num=1",
            "--file-total-size=1M",
            "--file-test-mode=rndrd",
            "--time=1",
            "prepare",
            "run",
        ],
        vec!["run", "--name=t", "--filename=f", "--size=64k", "--rw=read"],
        vec!["mark", ".", "--size=16M", "--time=1", "--loops=1"],
        vec!["copy", "--size=1M"],
        vec!["tree", "--files=10", "--drop-caches=off"],
    ]
}

#[test]
fn json_to_a_device_or_a_symlink_is_refused_and_nothing_is_replaced() {
    for args in commands() {
        for target in ["/dev/zero", "lnk", "fifo"] {
            let d = scratch();
            std::fs::write(d.path().join("tgt"), "precious").unwrap();
            std::os::unix::fs::symlink("tgt", d.path().join("lnk")).unwrap();
            super::files::mkfifo(&d.path().join("fifo"));
            let o = Iomark::new()
                .dir(d.path())
                .args(&args)
                .arg(format!("--json={target}"))
                .run();
            let all = format!("{}{}", o.stdout, o.stderr);
            assert_eq!(o.code, 3, "{args:?} --json={target}: {all}");
            // one wording for every command (cli::output::cannot_write)
            assert!(
                all.contains(&format!(
                    "cannot write --json={target}: is not a regular file"
                )),
                "{args:?} --json={target}: {all}"
            );
            assert!(!all.contains("panicked"));
            assert!(std::fs::metadata("/dev/zero")
                .unwrap()
                .file_type()
                .is_char_device());
            assert!(std::fs::symlink_metadata(d.path().join("lnk"))
                .unwrap()
                .file_type()
                .is_symlink());
            assert_eq!(
                std::fs::read_to_string(d.path().join("tgt")).unwrap(),
                "precious"
            );
        }
    }
}
