//! An output named `/dev/fd/N` (bash's `--output=>(cmd)`) where N is a pipe the command
//! inherited: written to as a stream, as fio writes to it, for `run`'s `--output` and
//! `--json` and the fio persona's `--output`; a link to a regular file stays refused.

use crate::util::*;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};

/// The descriptor number the child gets the pipe's write end on.
const FD: i32 = 7;

/// Run `cmd` with the write end of a new pipe inherited as descriptor [`FD`]; what the
/// child wrote into the pipe, and its output.
fn with_pipe(cmd: Iomark) -> (String, Out) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors; each is owned once below
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let wfd = fds[1];
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::fs::File::from(r).read_to_string(&mut s).unwrap();
        s
    });
    let out = cmd
        .configure(move |c| {
            use std::os::unix::process::CommandExt;
            // SAFETY: dup2 and fcntl are async-signal-safe; the new descriptor has no
            // CLOEXEC (dup2 onto itself keeps the flag: cleared by hand then)
            unsafe {
                c.pre_exec(move || {
                    let r = match wfd == FD {
                        true => libc::fcntl(FD, libc::F_SETFD, 0),
                        false => libc::dup2(wfd, FD),
                    };
                    match r {
                        -1 => Err(std::io::Error::last_os_error()),
                        _ => Ok(()),
                    }
                });
            }
        })
        .run();
    drop(w);
    (reader.join().unwrap(), out)
}

const JOB: [&str; 5] = [
    "--name=p",
    "--size=64k",
    "--bs=4k",
    "--rw=read",
    "--filename=f",
];

#[test]
fn run_writes_output_and_json_into_an_inherited_pipe() {
    let d = scratch();
    let path = format!("/dev/fd/{FD}");
    let (piped, o) = with_pipe(
        Iomark::new()
            .dir(d.path())
            .arg("run")
            .args(JOB)
            .arg(format!("--output={path}")),
    );
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(piped.contains("Run status group 0"), "{piped}");
    assert!(!o.stdout.contains("Run status group 0"), "{}", o.dump());
    assert!(!o.all().contains("symbolic link"), "{}", o.dump());

    let (piped, o) = with_pipe(
        Iomark::new()
            .dir(d.path())
            .arg("run")
            .args(JOB)
            .arg(format!("--json=/proc/self/fd/{FD}")),
    );
    assert_eq!(o.code, 0, "{}", o.dump());
    let doc: serde_json::Value = serde_json::from_str(&piped).unwrap();
    assert_eq!(doc["command"], "run", "{piped}");
    // nothing was made beside the data file: no rehearsal file, no rename
    let names: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["f"], "{names:?}");
}

#[test]
fn the_fio_persona_writes_its_output_into_an_inherited_pipe() {
    let d = scratch();
    let (piped, o) = with_pipe(
        as_fio(d.path())
            .dir(d.path())
            .args(JOB)
            .args(["--output-format=json", &format!("--output=/dev/fd/{FD}")]),
    );
    assert_eq!(o.code, 0, "{}", o.dump());
    let at = piped.find('{').unwrap_or_else(|| panic!("{piped}"));
    let doc: serde_json::Value = serde_json::from_str(&piped[at..]).unwrap();
    assert_eq!(doc["jobs"][0]["jobname"], "p", "{piped}");
    assert!(!o.stdout.contains("\"jobs\""), "{}", o.dump());
}

/// `/dev/fd/N` naming a regular file is a link to it: refused as before (iomark never
/// writes through one); a descriptor that is not open is no stream either.
#[test]
fn a_descriptor_on_a_regular_file_is_still_refused() {
    let d = scratch();
    let target = d.path().join("target.txt");
    std::fs::write(&target, "keep").unwrap();
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(&target)
        .unwrap();
    let ffd = std::os::fd::AsRawFd::as_raw_fd(&file);
    let o = Iomark::new()
        .dir(d.path())
        .arg("run")
        .args(JOB)
        .arg(format!("--output=/dev/fd/{FD}"))
        .configure(move |c| {
            use std::os::unix::process::CommandExt;
            // SAFETY: dup2 is async-signal-safe
            unsafe {
                c.pre_exec(move || match libc::dup2(ffd, FD) {
                    -1 => Err(std::io::Error::last_os_error()),
                    _ => Ok(()),
                });
            }
        })
        .run();
    assert_eq!(o.code, 3, "{}", o.dump());
    assert!(o.stderr.contains("symbolic link"), "{}", o.dump());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    drop(file);
}
