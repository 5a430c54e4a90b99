//! The text report of `iomark time` (docs/commands/time.md): the command's tree —
//! exit status, wall and CPU time, the time blocked on storage and its source, bytes
//! at the device against bytes through read/write calls, the disks that moved — and the
//! bound in one sentence. Sizes in binary units (KiB = 1024 B), seconds with
//! milliseconds. Rendered from the result's `timed_command` alone.

use super::{ReportError, Reporter};
use crate::result::command::TimedCommand;
use crate::result::RunResult;
use std::fmt::Write;

/// `iomark time`'s report.
pub struct TimeText;

/// `268435456` → `256.0 MiB`; below 1 KiB, `812 B`.
pub fn size(b: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if b < 1024 {
        return format!("{b} B");
    }
    let (mut v, mut u) = (b as f64 / 1024.0, 0);
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

/// `x` as a share of `of`, whole percent (0 when `of` is 0).
fn share(x: f64, of: f64) -> String {
    if of > 0.0 {
        format!("{:.0} %", x * 100.0 / of)
    } else {
        "0 %".into()
    }
}

use crate::util::text::plural;

/// A command line as one line (arguments with blanks quoted).
fn command_line(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            let a = crate::util::text::visible(a);
            if a.is_empty() || a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn storage_lines(t: &TimedCommand, s: &mut String) {
    match (&t.storage_wait, &t.storage_wait_unavailable) {
        (Some(w), _) => {
            let _ = writeln!(
                s,
                "  storage wait  {}{:.3} s ({} of the wall time), {} in {} ({})",
                // records left out or lost: what was counted is a lower bound
                if w.lower_bound_why().is_some() {
                    "at least "
                } else if w.waits_estimated > 0 {
                    "about "
                } else {
                    ""
                },
                w.blkio_s,
                share(w.blkio_s.min(t.wall_s), t.wall_s),
                plural(w.blkio_count, "wait", "waits"),
                plural(w.processes, "process", "processes"),
                plural(w.tasks, "task", "tasks"),
            );
            let _ = writeln!(
                s,
                "                source: the kernel's delay accounting (taskstats exit records, blkio delay); kernel.task_delayacct {}",
                w.delayacct
            );
            if w.records_impossible > 0 {
                let _ = writeln!(
                    s,
                    "                {} claimed more blocked time than the task lived (the kernel dated a wait from boot: seen on kernel 6.18 with delay accounting on throughout, and when accounting was switched on during a wait; docs/commands/time.md): not counted, the storage wait is a lower bound",
                    plural(w.records_impossible, "exit record", "exit records")
                );
            }
            if w.waits_estimated > 0 {
                let _ = writeln!(
                    s,
                    "                {} the kernel dated from boot (kernel 6.18, delay accounting on; docs/commands/time.md): each counted as the mean of its task's other waits, which are exact (the record's longest wait, blkio_delay_max, is that one)",
                    plural(w.waits_estimated, "wait", "waits")
                );
            }
            if w.records_lost {
                s.push_str("                some exit records were lost (receive buffer full): the storage wait is a lower bound\n");
            }
        }
        (None, Some(why)) => {
            let _ = writeln!(s, "  storage wait  {why}");
        }
        (None, None) => s.push_str("  storage wait  not measured\n"),
    }
}

fn io_lines(t: &TimedCommand, s: &mut String) {
    let io = &t.io;
    let _ = writeln!(
        s,
        "  read          {} from the device, {} through read calls without a device read (page cache, pipes, devices; read calls: {})",
        size(io.read_bytes),
        size(t.read_from_cache_bytes),
        size(io.rchar)
    );
    let _ = writeln!(
        s,
        "  written       {} to the device (counted when dirtied), write calls: {}",
        size(io.write_bytes),
        size(io.wchar)
    );
    if t.devices.is_empty() {
        s.push_str("  devices       none moved\n");
    }
    for (i, d) in t.devices.iter().enumerate() {
        let _ = writeln!(
            s,
            "  {}{}: {} read, {} written, {}, {}",
            if i == 0 {
                "devices       "
            } else {
                "                "
            },
            d.name,
            size(d.read_bytes),
            size(d.write_bytes),
            plural(d.flushes.unwrap_or(0), "flush", "flushes"),
            super::why::busy_to(d, 0)
        );
    }
    if !t.devices.is_empty() {
        s.push_str(
            "                (device counters: every process's I/O and write-back included)\n",
        );
    }
}

/// The report of one `time` section.
pub fn render(t: &TimedCommand) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "iomark time: {}", command_line(&t.argv));
    let ex = &t.exit;
    let how = match ex.signal {
        Some(sig) => format!("{} (killed by signal {sig})", ex.status),
        None => ex.status.to_string(),
    };
    let _ = writeln!(s, "  exit status   {how}");
    let _ = writeln!(s, "  wall          {:.3} s", t.wall_s);
    let _ = writeln!(
        s,
        "  CPU           {:.3} s user + {:.3} s system ({} of the wall time)",
        t.user_s,
        t.sys_s,
        share(t.user_s + t.sys_s, t.wall_s)
    );
    storage_lines(t, &mut s);
    io_lines(t, &mut s);
    match &t.bound {
        Some(b) => {
            let _ = writeln!(s, "  bound         {}", b.sentence);
        }
        None => s.push_str(
            "  bound         unknown without the storage wait (run iomark time as root)\n",
        ),
    }
    s
}

impl Reporter for TimeText {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let t = r.timed_command.as_ref().ok_or(ReportError::Empty)?;
        Ok(render(t).into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::command::{bound, StorageWait};

    #[test]
    fn sizes_and_shares() {
        assert_eq!(size(812), "812 B");
        assert_eq!(size(268_435_456), "256.0 MiB");
        assert_eq!(size(1536), "1.5 KiB");
        assert_eq!(size(u64::MAX), "16384.0 PiB");
        assert_eq!(share(1.0, 4.0), "25 %");
        assert_eq!(share(1.0, 0.0), "0 %");
    }

    /// Every figure of the report comes from the section, in the units the lines name.
    #[test]
    fn the_report_says_each_figure() {
        let mut t = TimedCommand {
            argv: vec!["dd".into(), "if=a b".into()],
            wall_s: 2.0,
            user_s: 0.25,
            sys_s: 0.25,
            storage_wait: Some(StorageWait {
                source: "taskstats".into(),
                delayacct: "turned on for the run, then restored".into(),
                blkio_s: 1.5,
                blkio_count: 256,
                tasks: 1,
                processes: 1,
                ..StorageWait::default()
            }),
            bound: Some(bound(2.0, 1.5, 0.5, 0.0)),
            ..TimedCommand::default()
        };
        t.io.read_bytes = 256 << 20;
        t.io.rchar = 256 << 20;
        let s = render(&t);
        assert!(s.starts_with("iomark time: dd 'if=a b'\n"), "{s}");
        assert!(s.contains("  wall          2.000 s\n"), "{s}");
        assert!(
            s.contains("0.250 s user + 0.250 s system (25 % of the wall time)"),
            "{s}"
        );
        assert!(
            s.contains(
                "storage wait  1.500 s (75 % of the wall time), 256 waits in 1 process (1 task)"
            ),
            "{s}"
        );
        assert!(
            s.contains("256.0 MiB from the device, 0 B through read calls without a device read"),
            "{s}"
        );
        assert!(s.contains("bound         75 % of the wall time waited for storage: a drive twice as fast would save at most 37 %; the rest is CPU"), "{s}");
        assert!(!s.contains("claimed more blocked time"), "{s}");
        if let Some(w) = t.storage_wait.as_mut() {
            w.records_impossible = 2;
        }
        assert!(
            render(&t).contains("\n                2 exit records claimed more blocked time than the task lived (the kernel dated a wait from boot: seen on kernel 6.18 with delay accounting on throughout, and when accounting was switched on during a wait; docs/commands/time.md): not counted, the storage wait is a lower bound\n"),
            "{}",
            render(&t)
        );
        // and the headline figure says it is a lower bound
        assert!(
            render(&t).contains("  storage wait  at least "),
            "{}",
            render(&t)
        );
        assert!(!s.contains("at least"), "{s}");
        // a wait dated from boot, estimated from its task's other waits: said, the
        // figure is "about", and the bound stands
        if let Some(w) = t.storage_wait.as_mut() {
            w.records_impossible = 0;
            w.waits_estimated = 1;
        }
        let e = render(&t);
        assert!(
            e.contains("  storage wait  about 1.500 s (75 % of the wall time)"),
            "{e}"
        );
        assert!(e.contains("\n                1 wait the kernel dated from boot (kernel 6.18, delay accounting on; docs/commands/time.md): each counted as the mean of its task's other waits, which are exact (the record's longest wait, blkio_delay_max, is that one)\n"), "{e}");
        assert!(!e.contains("unknown"), "{e}");
        t.storage_wait = None;
        t.bound = None;
        t.storage_wait_unavailable = Some("not measured: needs root".into());
        t.exit = crate::result::command::CommandExit::from_wait(2);
        let s = render(&t);
        assert!(
            s.contains("storage wait  not measured: needs root\n"),
            "{s}"
        );
        assert!(s.contains("exit status   130 (killed by signal 2)"), "{s}");
        assert!(s.contains("bound         unknown"), "{s}");
    }
}
