//! What iomark shows only on a terminal, captured in tmux (util/tmux.rs): fio 3.33's
//! status line during `iomark run` (`Jobs: 1 (f=1): [r(1)][50.0%][r=…][r=… IOPS][eta
//! 00m:03s]`, refreshed in place), its percentage rising and its ETA falling; none with
//! `--eta=never`, none into a pipe (stdout as before: the report alone), and fio's
//! lines into a pipe with `--eta=always`; the progress bars of `copy` and `tree` (MB/s,
//! IOPS, elapsed and remaining time) on a terminal and none into a pipe.

use crate::util::*;
use std::time::Duration;

/// Hang guard of one wait: far above the 5 s the runs take.
const GUARD: Duration = Duration::from_secs(90);

/// Hang guard of a copy or tree run's end, which depends on the device (minutes on a
/// busy disk).
const SLOW: Duration = Duration::from_secs(900);

/// A 5 s null-engine run (no file is touched).
const RUN5: &[&str] = &[
    "run",
    "--name=st",
    "--ioengine=null",
    "--size=1g",
    "--rw=randread",
    "--time_based",
    "--runtime=5",
];

/// The percentage and ETA (s) of a status line in fio's shape, `None` for any other
/// line. The shape: `Jobs: N (f=F): [STATES][P.P%][r=RATE][r=IOPS IOPS][eta MMm:SSs]`,
/// the rate fields present only when I/O moved since the last line.
fn fio_status(line: &str) -> Option<(f64, u64)> {
    let rest = line.trim_end().strip_prefix("Jobs: ")?;
    let (n, rest) = rest.split_once(" (f=")?;
    n.parse::<u32>().ok()?;
    let (f, rest) = rest.split_once("): [")?;
    f.parse::<u32>().ok()?;
    let (states, rest) = rest.split_once("][")?;
    let states_ok = states.split(',').all(|s| {
        let mut c = s.chars();
        let st = c.next();
        let tail: String = c.collect();
        st.is_some_and(|x| "PCIRrWwMmDd/pVFfE_XK".contains(x))
            && tail.starts_with('(')
            && tail.ends_with(')')
            && tail[1..tail.len() - 1].parse::<u32>().is_ok()
    });
    let (perc, mut rest) = rest.split_once("%]")?;
    let perc: f64 = perc.parse().ok()?;
    if !states_ok
        || !perc
            .to_string()
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.')
    {
        return None;
    }
    if let Some(r) = rest.strip_prefix("[r=") {
        let (bw, r) = r.split_once("][r=")?;
        let unit_ok = ["KiB/s", "MiB/s", "GiB/s", "TiB/s"]
            .iter()
            .any(|u| bw.strip_suffix(u).is_some_and(|n| n.parse::<f64>().is_ok()));
        let (iops, r) = r.split_once(" IOPS]")?;
        let iops_ok = iops.trim_end_matches(['k', 'M']).parse::<f64>().is_ok();
        if !unit_ok || !iops_ok {
            return None;
        }
        rest = r;
    }
    let eta = rest.strip_prefix("[eta ")?.strip_suffix(']')?;
    let (m, s) = eta.split_once("m:")?;
    let s = s.strip_suffix('s')?;
    Some((perc, m.parse::<u64>().ok()? * 60 + s.parse::<u64>().ok()?))
}

/// The status line on the screen now, if it has fio's shape.
fn status_on(screen: &str) -> Option<(f64, u64)> {
    screen.lines().find_map(fio_status)
}

#[test]
fn shape_of_fios_line_is_recognised() {
    let l = "Jobs: 1 (f=1): [r(1)][60.0%][r=10.5GiB/s][r=2748k IOPS][eta 00m:02s]";
    assert_eq!(fio_status(l), Some((60.0, 2)));
    assert_eq!(
        fio_status("Jobs: 2 (f=2): [R(1),_(1)][100.0%][eta 00m:00s]   "),
        Some((100.0, 0))
    );
    assert_eq!(fio_status("Jobs: 1 (f=1)"), None);
    assert_eq!(fio_status("Jobs: 1 (f=1): [r(1)][60.0%][eta 2s]"), None);
}

/// During a 5 s run on a terminal the line appears in fio's shape; each refresh is an
/// event (the screen changes), and across them the percentage rises and the ETA falls;
/// the report follows the last line.
#[test]
fn run_on_a_terminal_shows_fios_status_line() {
    if !have_tmux() {
        eprintln!("SKIPPED: tmux not installed (tests/run.sh installs it)");
        return;
    }
    let d = scratch();
    let t = Tmux::start(d.path(), &format!("{BIN} {}", RUN5.join(" ")));
    let mut seen: Vec<(f64, u64)> =
        vec![t.wait_for("a status line in fio's shape", GUARD, status_on)];
    // every new line until the run ends
    loop {
        let last = *seen.last().expect("one line seen");
        let next = t.wait_for("the next status line or the report", GUARD, |s| {
            if s.contains("Run status group 0") {
                return Some(None);
            }
            status_on(s).filter(|&v| v != last).map(Some)
        });
        match next {
            Some(v) => seen.push(v),
            None => break,
        }
    }
    let (code, screen) = t.finished(GUARD);
    assert_eq!(code, 0, "{screen}");
    assert!(seen.len() >= 2, "one status line only: {seen:?}\n{screen}");
    for w in seen.windows(2) {
        assert!(w[1].0 > w[0].0, "percentage does not rise: {seen:?}");
        assert!(w[1].1 <= w[0].1, "ETA rises: {seen:?}");
    }
    assert!(
        seen.last().unwrap().1 < seen[0].1,
        "ETA never falls: {seen:?}"
    );
    // the last line stays above the report, as fio's does
    let at = screen
        .find("Jobs: 1 (f=1): [")
        .expect("last status line kept");
    assert!(at < screen.find("Run status group 0").unwrap(), "{screen}");
}

/// `--eta=never` on a terminal: no status line at any moment of the run.
#[test]
fn eta_never_shows_no_line_on_a_terminal() {
    if !have_tmux() {
        eprintln!("SKIPPED: tmux not installed (tests/run.sh installs it)");
        return;
    }
    let d = scratch();
    let mut args = RUN5.to_vec();
    args[6] = "--runtime=3";
    let t = Tmux::start(d.path(), &format!("{BIN} {} --eta=never", args.join(" ")));
    let screen = t.wait_for("the end of the run", GUARD, |s| {
        assert!(
            !s.contains("Jobs: "),
            "a status line with --eta=never:\n{s}"
        );
        s.contains(TMUX_EXIT).then(|| s.to_string())
    });
    assert!(screen.contains("Run status group 0"), "{screen}");
}

/// Into a pipe: no status line (the report alone, no carriage return), as before; with
/// `--eta=always` fio's lines go into the pipe too, then the report on its own line.
#[test]
fn pipe_gets_no_line_unless_eta_always() {
    let d = scratch();
    let mut args = RUN5.to_vec();
    args[6] = "--runtime=3";
    let plain = Iomark::new().dir(d.path()).args(&args).run().ok();
    assert!(!plain.stdout.contains("Jobs: ") && !plain.stdout.contains('\r'));
    assert!(
        plain.stdout.starts_with("st: (g=0): rw=randread"),
        "{}",
        plain.stdout
    );
    args.push("--eta=always");
    let always = Iomark::new().dir(d.path()).args(&args).run().ok();
    let (status, report) = always
        .stdout
        .split_once("\r\n")
        .expect("status lines, then a newline");
    let lines: Vec<&str> = status.split('\r').collect();
    assert!(
        lines.iter().all(|l| l.starts_with("Jobs: 1 (f=1)")),
        "{lines:?}"
    );
    // a full line (fio prints `-.-%` while the ETA is unknown, as at a fast run's end)
    assert!(
        lines
            .iter()
            .any(|l| fio_status(l).is_some() || fio_status(&l.replace("-.-%", "0.0%")).is_some()),
        "{lines:?}"
    );
    assert!(report.starts_with("st: (g=0): rw=randread"), "{report}");
    // the JSON document alone on stdout: never a status line (fio's rule)
    args.push("--output-format=json");
    let json = Iomark::new().dir(d.path()).args(&args).run().ok();
    assert!(json.stdout.starts_with('{'), "{}", json.stdout);
}

/// `iomark copy` on a terminal: the bar shows bytes, MB/s, IOPS, elapsed and remaining
/// time; into a pipe stderr has no bar.
#[test]
fn copy_bar_shows_rates_and_times_on_a_terminal_only() {
    if !have_tmux() {
        eprintln!("SKIPPED: tmux not installed (tests/run.sh installs it)");
        return;
    }
    let d = scratch();
    let t = Tmux::start(d.path(), &format!("{BIN} copy . . --size=256M"));
    let line = t.wait_for("the copy's progress bar", GUARD, |s| {
        s.lines()
            .find(|l| l.contains(" IOPS, ") && l.contains(" elapsed, ") && l.contains(" left"))
            .map(str::to_string)
    });
    assert!(line.contains("/s "), "{line}");
    let (code, screen) = t.finished(SLOW);
    assert_eq!(code, 0, "{screen}");
    let piped = Iomark::new()
        .dir(d.path())
        .args(["copy", ".", ".", "--size=8M"])
        .run()
        .ok();
    assert!(!piped.stderr.contains(" elapsed, "), "{}", piped.stderr);
}

/// `iomark tree` on a terminal: each phase's bar shows operations per second, elapsed
/// and remaining time; into a pipe stderr has none.
#[test]
fn tree_bar_shows_iops_and_times_on_a_terminal_only() {
    if !have_tmux() {
        eprintln!("SKIPPED: tmux not installed (tests/run.sh installs it)");
        return;
    }
    let d = scratch();
    let t = Tmux::start(d.path(), &format!("{BIN} tree . --files=20000"));
    t.wait_for("the tree's progress bar", GUARD, |s| {
        s.lines()
            .find(|l| l.contains("(IOPS), ") && l.contains(" elapsed, ") && l.contains(" left"))
            .map(str::to_string)
    });
    let (code, screen) = t.finished(SLOW);
    assert_eq!(code, 0, "{screen}");
    let piped = Iomark::new()
        .dir(d.path())
        .args(["tree", ".", "--files=300"])
        .run()
        .ok();
    assert!(!piped.stderr.contains(" elapsed, "), "{}", piped.stderr);
}

/// The current figures of `fileio --progress`'s live line (`12.3 MB/s, 3150 IOPS now`),
/// if one is on the screen.
fn fileio_rates(screen: &str) -> Option<String> {
    let l = screen.lines().find(|l| l.contains("run rndwr: "))?;
    let (_, rest) = l.split_once("run rndwr: ")?;
    let (rates, _) = rest.split_once(" IOPS now")?;
    Some(rates.to_string())
}

/// `fileio --progress` on a terminal: the live line shows the current MB/s and IOPS
/// (they change from sample to sample), elapsed and remaining time; once the time is up
/// it names the final fsync it waits for (each fsync made 300 ms slow by the test-only
/// fault injector, so the wait lasts); the report follows without the line. Into a pipe
/// `--progress` draws nothing: no live line, no carriage return, no escape sequence.
#[test]
fn fileio_progress_shows_rates_and_names_its_waits_on_a_terminal_only() {
    if !have_tmux() {
        skip("tmux not installed (tests/run.sh installs it)");
        return;
    }
    let d = scratch();
    let args = "fileio --file-num=8 --file-total-size=32M --file-test-mode=rndwr \
                --file-fsync-freq=0 --file-fsync-end=on --progress";
    let t = Tmux::start(
        d.path(),
        &format!("IOMARK_FAULT=fsync:slow@1+ {BIN} {args} --time=4 prepare run cleanup"),
    );
    let first = t.wait_for("the live line's figures", GUARD, fileio_rates);
    assert!(first.contains(" MB/s, "), "{first}");
    t.wait_for("other figures", GUARD, |s| {
        fileio_rates(s).filter(|r| *r != first)
    });
    t.wait_for("elapsed and remaining time", GUARD, |s| {
        s.lines()
            .find(|l| l.contains(" IOPS now, ") && l.contains(" elapsed, ") && l.contains(" left"))
            .map(str::to_string)
    });
    t.wait_for("the final fsync named", GUARD, |s| {
        s.contains("waiting for the final fsync of the files")
            .then_some(())
    });
    let (code, screen) = t.finished(SLOW);
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("Throughput:"), "{screen}");
    let mut piped: Vec<&str> = args.split_whitespace().collect();
    piped.extend(["--time=1", "prepare", "run", "cleanup"]);
    let o = Iomark::new().dir(d.path()).args(&piped).run().ok();
    assert!(o.stdout.contains("Throughput:"), "{}", o.dump());
    for s in [&o.stdout, &o.stderr] {
        assert!(
            !s.contains("IOPS now") && !s.contains('\r') && !s.contains('\x1b'),
            "{}",
            o.dump()
        );
    }
}

/// The current figures of `mark`'s bar (`12.3 MB/s, 3150 IOPS now, lat mean 310.2 µs,
/// p99 1.20 ms`), if it is on the screen with its time left in the test.
fn mark_rates(screen: &str) -> Option<String> {
    let l = screen
        .lines()
        .find(|l| l.contains(" IOPS now, ") && l.contains(" left, all "))?;
    let (head, _) = l.split_once(", test ")?;
    let rates = head.rsplit_once("] ")?.1;
    Some(rates.to_string())
}

/// The MB/s and the latency part of a bar's figures, when measured: (MB/s, `lat mean
/// X, p99 Y`).
fn measured_rates(rates: &str) -> Option<(f64, String)> {
    let mb: f64 = rates.split_once(" MB/s")?.0.parse().ok()?;
    let lat = rates.split_once("IOPS now, ")?.1;
    (mb > 0.0 && lat.starts_with("lat mean ") && lat.contains(", p99 "))
        .then(|| (mb, lat.to_string()))
}

/// The three times of `mark`'s bar, in seconds: the test's time left, the run's time
/// left and the time elapsed, when the bar is on the screen with all three in its one
/// format, `HH:MM:SS` (`test 00:00:05 left, all 00:00:23 left, 00:00:02 elapsed`).
fn mark_times(screen: &str) -> Option<[u64; 3]> {
    let l = screen.lines().find(|l| l.contains(" left, all "))?;
    let hms = |s: &str| -> Option<u64> {
        let p: Vec<&str> = s.split(':').collect();
        let ok = p.len() == 3 && p.iter().all(|x| x.len() == 2);
        let n: Vec<u64> = p.iter().filter_map(|x| x.parse().ok()).collect();
        (ok && n.len() == 3).then(|| n[0] * 3600 + n[1] * 60 + n[2])
    };
    let test = l.split_once(", test ")?.1.split_once(" left, all ")?;
    let (all, rest) = test.1.split_once(" left, ")?;
    let elapsed = rest.split_once(" elapsed")?.0;
    Some([hms(test.0)?, hms(all)?, hms(elapsed)?])
}

/// `iomark mark` on a terminal: during each test the bar shows the current MB/s, IOPS
/// and the latency (mean and p99) of the running loop's last interval (changing from
/// sample to sample, measured from the first loop on) and the time left in the test
/// and in the run, counting down, every time as `HH:MM:SS`; with `--warmup=0` no
/// warm-up is named; into a pipe stderr has no bar.
#[test]
fn mark_bar_shows_current_rates_and_the_time_left_in_the_test() {
    if !have_tmux() {
        skip("tmux not installed (tests/run.sh installs it)");
        return;
    }
    let d = scratch();
    let args = "mark . --preset=realworld --size=8M --warmup=0";
    let t = Tmux::start(d.path(), &format!("{BIN} {args} --time=3 --loops=2"));
    let first = t.wait_for("the bar's current figures", GUARD, mark_rates);
    assert!(first.contains(" MB/s, "), "{first}");
    // in the first loop already (no earlier loop to show), the running test's own MB/s
    // and the latency of its last interval, read from its recorder
    t.wait_for("the first loop's measured figures", GUARD, |s| {
        let l = s.lines().find(|l| l.contains("loop 1/2"))?;
        measured_rates(&mark_rates(l)?)
    });
    t.wait_for("other figures", GUARD, |s| {
        mark_rates(s).filter(|r| *r != first)
    });
    // the run's time left counts down from its plan (4 tests × 2 loops × 3 s = 24 s)
    // while the time elapsed counts up (it once counted up)
    let [_, all0, el0] = t.wait_for("the bar's times", GUARD, mark_times);
    assert!(all0 <= 24, "{all0}");
    let [test1, all1, el1] = t.wait_for("the run's time left falling", GUARD, |s| {
        mark_times(s).filter(|x| x[1] < all0)
    });
    assert!(el1 >= el0 && test1 <= all1, "{el1} {el0} {test1} {all1}");
    let (code, screen) = t.finished(SLOW);
    assert_eq!(code, 0, "{screen}");
    // the header says there is none, and no test's warm-up is named
    assert!(
        screen.contains(" s per test without a warm-up, "),
        "{screen}"
    );
    assert!(
        !screen.replace("without a warm-up", "").contains("warm-up"),
        "--warmup=0: {screen}"
    );
    let mut piped: Vec<&str> = args.split_whitespace().collect();
    piped.extend(["--time=1", "--loops=1"]);
    let o = Iomark::new().dir(d.path()).args(&piped).run().ok();
    assert!(
        !o.stderr.contains("IOPS now") && !o.stderr.contains('\r'),
        "{}",
        o.dump()
    );
}
