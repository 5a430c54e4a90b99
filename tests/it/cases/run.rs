//! Public cases for `iomark run` (../shared/cases/public-cases.md): C10 job-file syntax,
//! C11 sloppy option values, C12 block-size ranges, C13 bssplit sums, C17 jobs sharing
//! files, C18 io_uring not permitted, C26 group aggregation. Each runs the case's
//! minimal input in a temporary directory and checks the right value or the right error.

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// `iomark run ARGS` in `dir` with `env` set.
fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Out {
    Iomark::new().dir(dir).envs(env).arg("run").args(args).run()
}

// ---- C10: comments, include, ${VAR} ----------------------------------------------------

fn c10_files(d: &Path) {
    let data = d.join("data");
    std::fs::write(
        d.join("main.fio"),
        format!(
            "# hash comment\n; semicolon comment\n[global]\nioengine=psync\nfilename={}\nsize=${{MYSIZE}}\ninclude inc.fio\n\n[job1]\nrw=read   ; trailing comment\n",
            data.display()
        ),
    )
    .unwrap();
    std::fs::write(d.join("inc.fio"), "bs=8k\n").unwrap();
}

#[test]
fn c10_comments_include_and_variable_expand() {
    let t = scratch();
    c10_files(t.path());
    let o = run_env(
        t.path(),
        &["main.fio", "--output-format=json"],
        &[("MYSIZE", "128k")],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).expect("stdout is only JSON");
    let job = &v["jobs"][0];
    assert_eq!(job["jobname"], "job1");
    // 128 KiB read in 8 KiB blocks: 16 reads, every byte once
    assert_eq!(job["read"]["io_bytes"], 131072);
    assert_eq!(job["read"]["total_ios"], 16);
    assert_eq!(
        std::fs::metadata(t.path().join("data")).unwrap().len(),
        131072
    );
}

#[test]
fn c10_unset_variable_names_it_and_the_line() {
    let t = scratch();
    c10_files(t.path());
    let o = Iomark::new()
        .dir(t.path())
        .args(["run", "main.fio"])
        .env_remove("MYSIZE")
        .run();
    assert_eq!(o.code, 2);
    o.one_line_error(&["MYSIZE", "main.fio:6", "not set"]);
    assert!(!t.path().join("data").exists(), "nothing may run");
}

#[test]
fn c10_circular_include_is_an_error() {
    let t = scratch();
    std::fs::write(
        t.path().join("a.fio"),
        "[global]\ninclude b.fio\n[j]\nrw=read\nsize=4k\n",
    )
    .unwrap();
    std::fs::write(t.path().join("b.fio"), "include a.fio\n").unwrap();
    let o = run_env(t.path(), &["a.fio"], &[]);
    assert_eq!(o.code, 2);
    o.one_line_error(&["include"]);
}

/// `--showcmd` prints the effective options (include and ${VAR} resolved) as one
/// command line, runs nothing, exit 0; an unset variable is still exit 2.
#[test]
fn c10_showcmd_lists_the_effective_options_and_runs_nothing() {
    let t = scratch();
    c10_files(t.path());
    let o = run_env(t.path(), &["--showcmd", "main.fio"], &[("MYSIZE", "128k")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.stdout,
        format!(
            "iomark run --ioengine=psync --filename={} --size=128k --bs=8k --name=job1 --rw=read\n",
            t.path().join("data").display()
        )
    );
    assert!(!t.path().join("data").exists(), "--showcmd runs nothing");
    let o = Iomark::new()
        .dir(t.path())
        .args(["run", "--showcmd", "main.fio"])
        .env_remove("MYSIZE")
        .run();
    assert_eq!(o.code, 2);
    o.one_line_error(&["MYSIZE", "main.fio:6"]);
}

// ---- C11: sloppy option values ----------------------------------------------------------

fn c11(args: &[&str]) -> (tempfile::TempDir, Out) {
    let t = scratch();
    let f = t.path().join("f");
    let fa = format!("--filename={}", f.display());
    let mut a = vec!["--name=t", fa.as_str(), "--size=64k"];
    a.extend_from_slice(args);
    let o = run_env(t.path(), &a, &[]);
    (t, o)
}

#[test]
fn c11_junk_after_a_number_is_an_error() {
    // a sequential mode's `:N` is a size: junk there is refused
    let (t, o) = c11(&["--rw=read:foo"]);
    assert_eq!(o.code, 2);
    o.one_line_error(&["rw", "foo"]);
    assert!(!t.path().join("f").exists(), "no I/O before the error");
    // a random mode's `:N` is read as fio 3.33 reads it (C's atoi: 0), and said
    let (_t, o) = c11(&["--rw=randrw:foo"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("notice: rw='randrw:foo' read as randrw:0"),
        "{}",
        o.stderr
    );
}

#[test]
fn c11_booleans_accept_the_usual_words_and_reject_others_with_the_list() {
    for w in ["0", "1", "true", "false", "yes", "no", "on", "off"] {
        let (_t, o) = c11(&["--rw=read", &format!("--direct={w}")]);
        // direct=1 may be refused by the filesystem (tmpfs: exit 3), never by the parser
        assert!(o.code == 0 || o.code == 3, "direct={w}: {}", o.stderr);
        assert!(
            !o.stderr.contains("invalid value"),
            "direct={w}: {}",
            o.stderr
        );
    }
    let (_t, o) = c11(&["--rw=read", "--direct=maybe"]);
    assert_eq!(o.code, 2);
    o.one_line_error(&["direct", "maybe", "yes"]);
}

#[test]
fn c11_numjobs_iodepth_rwmix_out_of_range() {
    for (arg, needles) in [
        ("--numjobs=0", ["numjobs", "1"]),
        ("--iodepth=0", ["iodepth", "1"]),
        ("--rwmixread=150", ["rwmixread", "150"]),
    ] {
        let (t, o) = c11(&["--rw=randrw", arg]);
        assert_eq!(o.code, 2, "{arg}");
        o.one_line_error(&needles);
        assert!(
            !t.path().join("f").exists(),
            "{arg}: no I/O before the error"
        );
    }
}

#[test]
fn c11_unknown_mode_lists_the_valid_ones() {
    let (_t, o) = c11(&["--rw=rndread"]);
    assert_eq!(o.code, 2);
    o.one_line_error(&["rndread", "randread", "randwrite", "randrw"]);
}

// ---- C13: bssplit sums ------------------------------------------------------------------

#[test]
fn c13_bssplit_weights_must_sum_to_100_and_the_sum_is_named() {
    for (split, sum) in [("4k/30:64k/30", "60"), ("4k/50:64k/60", "110")] {
        let (t, o) = c11(&[
            "--rw=randwrite",
            &format!("--bssplit={split}"),
            "--norandommap",
        ]);
        assert_eq!(o.code, 2, "{split}");
        o.one_line_error(&["bssplit", sum]);
        assert!(!t.path().join("f").exists());
    }
}

/// Coverage of random jobs (RunResult JSON and human summary). `norandommap`: 256
/// uniform 4 KiB reads of 1 MiB touch 256·(1-(1-1/256)^256) ≈ 162 blocks (63.2 %; fio
/// saw 157); the standard deviation is ≈ 5 blocks, so 55–71 % is a ±4σ band. With the
/// random map every block is read exactly once (100 %).
#[test]
fn c13_coverage_shows_the_norandommap_effect() {
    for (norandommap, lo, hi) in [(true, 0.55, 0.71), (false, 1.0, 1.0)] {
        let t = scratch();
        let mut a = vec![
            "--name=t",
            "--filename=f",
            "--size=1m",
            "--bs=4k",
            "--rw=randread",
            "--json=r.json",
        ];
        if norandommap {
            a.push("--norandommap");
        }
        let o = run_env(t.path(), &a, &[]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        let v = read_json(&t.path().join("r.json"));
        let c = &v["phases"][0]["coverage"];
        assert_eq!(c["blocks_total"], 256, "{c}");
        assert_eq!(c["block_bytes"], 4096);
        assert_eq!(c["bs_hist"], serde_json::json!([[4096, 256]]));
        assert_eq!(c["shrunk"], 0);
        let share = c["blocks_touched"].as_f64().unwrap() / 256.0;
        assert!(
            share >= lo && share <= hi,
            "norandommap={norandommap}: {share}"
        );
        let text = o.stdout.clone();
        let line = format!(
            "coverage: {}/256 blocks of 4KiB",
            c["blocks_touched"].as_u64().unwrap()
        );
        assert!(text.contains(&line), "{text}");
        assert!(
            text.contains("no block shrunk to fill random-map gaps"),
            "{text}"
        );
    }
}

/// bssplit: the result's histogram of issued sizes. With `norandommap` it holds the
/// split's sizes, each near its weight (4 MiB at 4k/50:64k/50 → the counts differ by
/// ≤ 25 % of the total) and nothing is shrunk; with the random map a request that meets
/// used blocks is shortened to the free blocks from its offset, as fio does (any whole
/// number of 4 KiB blocks up to 64 KiB), so the pass is exactly 4 MiB, and the report
/// says how many were.
#[test]
fn c13_result_histogram_of_issued_sizes() {
    let t = scratch();
    for map in [false, true] {
        let mut args = vec![
            "--name=t",
            "--filename=f",
            "--size=4m",
            "--rw=randwrite",
            "--bssplit=4k/50:64k/50",
            "--json=r.json",
        ];
        if !map {
            args.push("--norandommap");
        }
        let o = run_env(t.path(), &args, &[]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        let v = read_json(&t.path().join("r.json"));
        let c = &v["phases"][0]["coverage"];
        let h = c["bs_hist"].as_array().unwrap().clone();
        let h: Vec<(u64, u64)> = h
            .iter()
            .map(|e| (e[0].as_u64().unwrap(), e[1].as_u64().unwrap()))
            .collect();
        let ios = v["phases"][0]["ops"].as_u64().unwrap();
        assert_eq!(h.iter().map(|e| e.1).sum::<u64>(), ios);
        let shrunk = c["shrunk"].as_u64().unwrap();
        let text = o.stdout;
        if map {
            assert_eq!(
                h.iter().map(|e| e.0 * e.1).sum::<u64>(),
                4 << 20,
                "one pass of the map: {h:?}"
            );
            assert!(h.iter().all(|e| e.0 % 4096 == 0 && e.0 <= 65536), "{h:?}");
            let off_split: u64 = h
                .iter()
                .filter(|e| e.0 != 4096 && e.0 != 65536)
                .map(|e| e.1)
                .sum();
            assert!(off_split > 0, "sizes between the split's: {h:?}");
            assert_eq!(c["blocks_touched"], c["blocks_total"]);
            assert!(
                shrunk >= off_split && shrunk < ios,
                "shrunk {shrunk} of {h:?}"
            );
            assert!(
                text.contains(&format!("{shrunk} requests shrunk to fill random-map gaps")),
                "{text}"
            );
        } else {
            let sizes: Vec<u64> = h.iter().map(|e| e.0).collect();
            assert_eq!(sizes, vec![4096, 65536], "{h:?}");
            assert!(h[0].1.abs_diff(h[1].1) * 4 <= ios, "{h:?}");
            assert_eq!(shrunk, 0);
            assert!(text.contains("no block shrunk"), "{text}");
        }
    }
}

// ---- C18: io_uring not permitted (a seccomp filter, as container runtimes install) ------

/// Run `iomark run ARGS` with a seccomp filter that fails io_uring_setup(2) with EPERM,
/// as Docker's default profile does (x86-64 only: syscall 425).
#[cfg(target_arch = "x86_64")]
fn run_without_io_uring(dir: &Path, args: &[&str]) -> Out {
    use std::os::unix::process::CommandExt;
    let seccomp = |c: &mut std::process::Command| unsafe {
        c.pre_exec(|| {
            // classic BPF: A = arch; if A != x86_64 allow; A = nr; if A == 425 errno(EPERM)
            let f = |code: u16, jt: u8, jf: u8, k: u32| libc::sock_filter { code, jt, jf, k };
            let prog = [
                f(0x20, 0, 0, 4),                                // ld [4]  (seccomp_data.arch)
                f(0x15, 0, 3, 0xc000003e), // jeq AUDIT_ARCH_X86_64, next, allow
                f(0x20, 0, 0, 0),          // ld [0]  (seccomp_data.nr)
                f(0x15, 0, 1, 425),        // jeq __NR_io_uring_setup, deny, allow
                f(0x06, 0, 0, 0x0005_0000 | libc::EPERM as u32), // ret ERRNO(EPERM)
                f(0x06, 0, 0, 0x7fff_0000), // ret ALLOW
            ];
            let fprog = libc::sock_fprog {
                len: prog.len() as u16,
                filter: prog.as_ptr() as *mut _,
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(libc::PR_SET_SECCOMP, 2, &fprog as *const libc::sock_fprog) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    };
    Iomark::new()
        .dir(dir)
        .arg("run")
        .args(args)
        .configure(seccomp)
        .run()
}

#[cfg(target_arch = "x86_64")]
#[test]
fn c18_io_uring_denied_with_engine_strict_exits_3_before_any_file() {
    let t = scratch();
    let f = t.path().join("f");
    let fa = format!("--filename={}", f.display());
    let o = run_without_io_uring(
        t.path(),
        &[
            "--engine-strict",
            "--name=t",
            &fa,
            "--size=256k",
            "--bs=4k",
            "--rw=randread",
            "--ioengine=io_uring",
            "--iodepth=8",
        ],
    );
    assert_eq!(o.code, 3, "{}", o.stderr);
    let e = o.stderr;
    assert!(e.contains("io_uring"), "{e}");
    assert!(
        e.contains("psync"),
        "the hint names the fallback engine: {e}"
    );
    assert!(!f.exists(), "probe before laying out files");
}

#[cfg(target_arch = "x86_64")]
#[test]
fn c18_io_uring_denied_falls_back_visibly_and_the_result_says_so() {
    let t = scratch();
    let f = t.path().join("f");
    let fa = format!("--filename={}", f.display());
    let js = t.path().join("r.json");
    let ja = format!("--json={}", js.display());
    let o = run_without_io_uring(
        t.path(),
        &[
            &ja,
            "--name=t",
            &fa,
            "--size=256k",
            "--bs=4k",
            "--rw=randread",
            "--ioengine=io_uring",
            "--iodepth=8",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let e = o.stderr;
    assert!(
        e.contains("io_uring") && e.contains("psync"),
        "visible fallback warning: {e}"
    );
    let r = read_json(&js);
    assert_eq!(
        r["job"]["engine"], "psync",
        "the result records the engine actually used: {r}"
    );
    assert_eq!(r["warnings"][0]["id"], "engine.fallback", "{r}");
}

// ---- C12: block-size ranges --------------------------------------------------------------

/// Block sizes of every I/O, from fio's per-I/O latency log (`time, value, ddir, bs, prio`).
fn issued_sizes(log: &Path) -> std::collections::BTreeMap<u64, u64> {
    let mut m = std::collections::BTreeMap::new();
    for l in std::fs::read_to_string(log).unwrap().lines() {
        let bs: u64 = l.split(',').nth(3).unwrap().trim().parse().unwrap();
        *m.entry(bs).or_insert(0) += 1;
    }
    m
}

#[test]
fn c12_bsrange_issues_multiples_of_the_minimum_and_says_it_rounded() {
    let t = scratch();
    let o = run_env(
        t.path(),
        &[
            "--name=t",
            "--filename=f",
            "--size=2m",
            "--rw=read",
            "--bsrange=3k-10k",
            "--write_lat_log=l",
        ],
        &[],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("bsrange=3k-10k: 10240 is not a multiple of 3072; issued sizes are multiples of 3072 up to 9216"),
        "{}",
        o.stderr
    );
    let sizes = issued_sizes(&t.path().join("l_lat.1.log"));
    assert!(!sizes.is_empty());
    for bs in sizes.keys() {
        assert!(*bs % 3072 == 0 && *bs <= 9216, "issued {bs}: {sizes:?}");
    }
}

#[test]
fn c12_bs_with_a_dash_is_refused_with_the_bsrange_hint() {
    let (t, o) = c11(&["--rw=randwrite", "--bs=4k-16k"]);
    assert_eq!(o.code, 2);
    o.one_line_error(&[
        "bs",
        "4k-16k",
        "bsrange=A-B",
        "bs=A,B sets read and write sizes",
    ]);
    assert!(!t.path().join("f").exists());
}

/// Without the random map every request has a size of the split; with it (fio's
/// default) the map may shorten a request to the free blocks from its offset, as
/// fio 3.33's `mark_random_map` does: whole blocks of the smallest size, never above
/// the largest.
#[test]
fn c13_issued_sizes_come_only_from_the_split() {
    for (map, extra) in [(false, "--norandommap"), (true, "--randrepeat=1")] {
        let t = scratch();
        let o = run_env(
            t.path(),
            &[
                "--name=t",
                "--filename=f",
                "--size=4m",
                "--rw=randwrite",
                "--bssplit=4k/50:64k/50",
                "--write_lat_log=l",
                extra,
            ],
            &[],
        );
        assert_eq!(o.code, 0, "{}", o.stderr);
        let sizes = issued_sizes(&t.path().join("l_lat.1.log"));
        let keys: Vec<u64> = sizes.keys().copied().collect();
        if map {
            assert!(
                keys.iter()
                    .all(|&k| k % 4096 == 0 && (4096..=65536).contains(&k)),
                "{sizes:?}"
            );
            assert!(keys.contains(&4096) && keys.contains(&65536), "{sizes:?}");
        } else {
            assert_eq!(keys, [4096, 65536], "{sizes:?}");
        }
    }
}

// ---- C17: several jobs sharing files via filename_format --------------------------------

#[test]
fn c17_three_jobs_share_two_files_made_once() {
    let t = scratch();
    let dir = format!("--directory={}", t.path().display());
    let o = run_env(
        t.path(),
        &[
            "--name=t",
            &dir,
            "--filename_format=data.$filenum",
            "--nrfiles=2",
            "--filesize=64k",
            "--numjobs=3",
            "--bs=4k",
            "--rw=randread",
            "--group_reporting",
            "--output-format=json",
        ],
        &[],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mut names: Vec<String> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["data.0", "data.1"]);
    for n in &names {
        assert_eq!(std::fs::metadata(t.path().join(n)).unwrap().len(), 65536);
    }
    let v: Value = serde_json::from_str(&o.stdout).expect("stdout is only JSON");
    // one group report of three jobs; each job reads its 128 KiB once
    assert_eq!(v["jobs"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 3 * 131072);
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 3 * 32);
}

// ---- C26: group aggregation is total bytes over the group's time, not a sum of rates --

#[test]
fn c26_group_bandwidth_is_total_bytes_over_the_longest_job() {
    let t = scratch();
    let o = run_env(
        t.path(),
        &[
            "--output-format=json",
            "--group_reporting",
            "--name=a",
            "--filename=a",
            "--size=1m",
            "--bs=64k",
            "--rw=read",
            "--rate=2m",
            "--name=b",
            "--filename=b",
            "--size=1m",
            "--bs=64k",
            "--rw=read",
        ],
        &[],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).expect("stdout is only JSON");
    let r = &v["jobs"][0]["read"];
    assert_eq!(r["io_bytes"], 2 * 1048576);
    let runtime_ms = r["runtime"].as_f64().unwrap();
    // job a is held to 2 MiB/s: 1 MiB takes about 0.5 s, so the group's time is that long
    assert!(
        (400.0..2000.0).contains(&runtime_ms),
        "runtime {runtime_ms} ms"
    );
    let bw_kib = r["bw"].as_f64().unwrap();
    let want = 2.0 * 1048576.0 / 1024.0 / (runtime_ms / 1000.0);
    assert!(
        (bw_kib - want).abs() <= want * 0.01 + 1.0,
        "bw {bw_kib} KiB/s, total/time {want}"
    );
    // the sum of per-job rates would be far larger (job b alone runs at memory speed)
    assert!(bw_kib < 10_000.0, "{bw_kib}");
}

// ---- C15: the final fsync is inside the timed window -------------------------------------

#[test]
fn c15_end_fsync_and_fsync_on_close_are_both_timed() {
    for opt in ["--end_fsync=1", "--fsync_on_close=1"] {
        let t = scratch();
        let o = run_env(
            t.path(),
            &[
                "--name=a",
                "--filename=f",
                "--size=16m",
                "--bs=1m",
                "--rw=write",
                opt,
                "--output-format=json",
                "--json=r.json",
            ],
            &[],
        );
        assert_eq!(o.code, 0, "{opt}: {}", o.stderr);
        let v: Value = serde_json::from_str(&o.stdout).unwrap();
        let j = &v["jobs"][0];
        // fio 3.33 does not count the final sync as a sync I/O (no `sync` block); its
        // time is the job's `final_sync_ns` in the RunResult (iomark's notes print it)
        assert_eq!(
            j["sync"]["total_ios"], 0,
            "{opt}: not a sync I/O, as in fio"
        );
        let rr: Value =
            serde_json::from_str(&std::fs::read_to_string(t.path().join("r.json")).unwrap())
                .unwrap();
        let sync_ns = rr["jobs"][0]["final_sync_ns"].as_f64().unwrap_or(0.0);
        assert!(sync_ns > 0.0, "{opt}: the final sync is timed");
        let runtime_ns = j["write"]["runtime"].as_f64().unwrap() * 1e6;
        // runtime is whole ms: the sync (at least) must fit inside it, rounding allowed
        assert!(
            runtime_ns + 1e6 >= sync_ns,
            "{opt}: runtime {runtime_ns} ns < sync {sync_ns} ns"
        );
        let bw = j["write"]["bw_bytes"].as_f64().unwrap();
        let ms = j["write"]["runtime"].as_f64().unwrap().max(1.0);
        assert!(
            (bw - 16.0 * 1048576.0 / (ms / 1e3)).abs() <= bw * 0.01 + 1.0,
            "{opt}: bw over the timed window"
        );
    }
    let t = scratch();
    let o = run_env(
        t.path(),
        &[
            "--name=a",
            "--filename=f",
            "--size=1m",
            "--bs=1m",
            "--rw=write",
            "--output-format=json",
        ],
        &[],
    );
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["jobs"][0]["sync"]["total_ios"], 0, "no sync unless asked");
}

/// C15: `end_fsync` and `fsync_on_close` put the final sync inside the timed window, so
/// both give the same bandwidth. The test-only fault `fsync:slow@1` makes that sync
/// last 300 ms longer: both runtimes must then include it (>= 300 ms), their bandwidths
/// agree (within 30 %: both are 4 MiB over ~0.3 s), and a job without a final sync
/// never meets the fault (runtime well under 300 ms).
#[test]
fn c15_slow_final_sync_is_inside_the_runtime_for_both_options() {
    let job = |opt: &str| {
        let t = scratch();
        let mut args = vec![
            "--name=a",
            "--filename=f",
            "--size=4m",
            "--bs=1m",
            "--rw=write",
            "--output-format=json",
        ];
        if !opt.is_empty() {
            args.push(opt);
        }
        let o = run_env(t.path(), &args, &[("IOMARK_FAULT", "fsync:slow@1")]);
        assert_eq!(o.code, 0, "{opt}: {}", o.stderr);
        let v: Value = serde_json::from_str(&o.stdout).unwrap();
        let w = &v["jobs"][0]["write"];
        (
            w["runtime"].as_f64().unwrap(),
            w["bw_bytes"].as_f64().unwrap(),
        )
    };
    let (rt_end, bw_end) = job("--end_fsync=1");
    let (rt_close, bw_close) = job("--fsync_on_close=1");
    assert!(rt_end >= 300.0, "end_fsync runtime {rt_end} ms");
    assert!(rt_close >= 300.0, "fsync_on_close runtime {rt_close} ms");
    let r = bw_end / bw_close;
    assert!(
        (0.77..=1.3).contains(&r),
        "bandwidths {bw_end} vs {bw_close}"
    );
    let (rt_none, _) = job("");
    assert!(rt_none < 300.0, "no final sync: runtime {rt_none} ms");
}
