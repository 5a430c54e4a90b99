//! fio's one-shot tools under iomark's own pieces: `--crctest` times iomark's verify
//! checksums (fio's output lines), `--cpuclock-test` checks that the clock iomark times
//! with never goes back between CPUs, `--idle-prof=calibrate` times the unit of work the
//! idle profiler counts. (`--enghelp`'s engine list is the fio front end's, cli/fio_refusal.rs.)

use crate::job::fio::keys_verify::VerifyKind;
use std::time::Instant;

/// The checksums `--crctest` times: those verify writes, in fio's order (fio's murmur3,
/// jhash and fnv are no verify checksums and are not listed).
fn hashes() -> impl Iterator<Item = VerifyKind> {
    VerifyKind::ALL.into_iter().filter(|k| k.digest_len() > 0)
}

/// fio's buffer (128 KiB) and how often each checksum runs over it (256 MiB in all).
const CHUNK: usize = 128 << 10;
const CHUNKS: u32 = 2048;

/// `--crctest[=LIST]`: each checksum of LIST (comma-separated; none, every one) over
/// 256 MiB of random bytes, one line each in fio's form (`crc32c:\t\t 2456.81 MiB/sec`).
/// `help`/`list`: the names. A list naming none of them is the error fio prints, with
/// the names.
pub fn crctest(list: Option<&str>) -> Result<String, String> {
    let names = || {
        hashes()
            .map(|h| format!("{}\n", h.name()))
            .collect::<String>()
    };
    let chosen: Vec<VerifyKind> = match list {
        None | Some("") => hashes().collect(),
        Some("help" | "list") => return Ok(names()),
        Some(l) => hashes()
            .filter(|h| l.split(',').any(|w| w.eq_ignore_ascii_case(h.name())))
            .collect(),
    };
    if chosen.is_empty() {
        let l = list.unwrap_or("");
        return Err(format!(
            "unknown hash `{l}`. Available: {}",
            names().trim_end().replace('\n', ", ")
        ));
    }
    let mut buf = vec![0u8; CHUNK];
    let mut rng = crate::run::gen::Rng::new(0x8989);
    for b in buf.chunks_mut(8) {
        let r = rng.next().to_le_bytes();
        b.copy_from_slice(&r[..b.len()]);
    }
    let mut s = String::new();
    for (i, h) in chosen.into_iter().enumerate() {
        if i == 0 {
            // the first one warms the CPU and the buffer, as fio
            std::hint::black_box(crate::run::verify::fio::digest(h, &buf));
        }
        let t0 = Instant::now();
        for _ in 0..CHUNKS {
            std::hint::black_box(crate::run::verify::fio::digest(
                h,
                std::hint::black_box(&buf),
            ));
        }
        let usec = t0.elapsed().as_micros() as f64;
        let name = h.name();
        let pre = if name.len() >= 7 { "\t" } else { "\t\t" };
        if usec > 0.0 {
            let mib_s = (CHUNK as f64 * f64::from(CHUNKS)) / usec / (1.024 * 1.024);
            s += &format!("{name}:{pre}{mib_s:8.2} MiB/sec\n");
        } else {
            s += &format!("{name}:inf MiB/sec\n");
        }
    }
    Ok(s)
}

/// `--cpuclock-test`: one thread per CPU (pinned) reads the clock iomark times with
/// (CLOCK_MONOTONIC) under one lock, so the readings have one order; the test passes
/// when no reading is below the one before it. The lines are fio's (`cs: Testing N
/// CPUs`, one per CPU, `cs: Pass!` or `cs: Failed!`).
pub fn cpuclock_test() -> (String, bool) {
    const READS: usize = 50_000;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let seq = std::sync::Mutex::new(Vec::<(u64, usize)>::with_capacity(cpus * READS));
    let now = || {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
        t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
    };
    std::thread::scope(|sc| {
        for cpu in 0..cpus {
            let seq = &seq;
            sc.spawn(move || {
                // SAFETY: cpu_set_t is plain data; CPU_SET only touches bits inside it
                // (a CPU the thread may not use leaves it where it is)
                unsafe {
                    let mut set: libc::cpu_set_t = std::mem::zeroed();
                    if cpu < libc::CPU_SETSIZE as usize {
                        libc::CPU_SET(cpu, &mut set);
                    }
                    libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
                }
                for _ in 0..READS {
                    let mut v = seq.lock().unwrap_or_else(|p| p.into_inner());
                    v.push((now(), cpu));
                }
            });
        }
    });
    let v = seq.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut s = format!("cs: Testing {cpus} CPUs\n");
    for cpu in 0..cpus {
        let mine: Vec<u64> = v.iter().filter(|r| r.1 == cpu).map(|r| r.0).collect();
        s += &format!(
            "cs: cpu {cpu:2}: {} clocks seen, first {}\n",
            mine.len(),
            mine.first().copied().unwrap_or(0)
        );
    }
    let back = v.windows(2).filter(|w| w[1].0 < w[0].0).count();
    if back == 0 {
        s += "cs: Pass!\n";
    } else {
        s += &format!("cs: Failed! ({back} readings went back)\n");
    }
    (s, back == 0)
}

/// `--idle-prof=calibrate`: the time of one unit of work of the idle profiler (a pass
/// over a 4 KiB page), mean and stdev over 1000 units, in fio's lines.
pub fn idle_calibrate() -> String {
    let (mean, sd) = unit_work_us();
    format!("CPU idleness:\n  unit work: mean={mean:3.2}us, stddev={sd:3.2}\n")
}

/// Mean and standard deviation, µs, of one unit of work (a checksum of a 4 KiB page).
pub fn unit_work_us() -> (f64, f64) {
    let page = vec![0x5au8; 4096];
    let times: Vec<f64> = (0..1000)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(crc32c::crc32c(std::hint::black_box(&page)));
            t.elapsed().as_nanos() as f64 / 1000.0
        })
        .collect();
    let n = times.len() as f64;
    let mean = times.iter().sum::<f64>() / n;
    let var = times.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crctest_lines_and_refusal() {
        let s = crctest(Some("crc32c")).unwrap();
        assert!(
            s.starts_with("crc32c:\t\t") && s.ends_with(" MiB/sec\n"),
            "{s}"
        );
        // fio 3.33's --crctest order, without its murmur3, jhash and fnv
        let names: Vec<String> = crctest(Some("list"))
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(
            names.join(","),
            "md5,crc64,crc32,crc32c,crc16,crc7,sha1,sha256,sha512,xxhash,sha3-224,sha3-256,sha3-384,sha3-512"
        );
        let e = crctest(Some("nosuch")).unwrap_err();
        assert!(
            e.starts_with("unknown hash `nosuch`. Available: md5, crc64"),
            "{e}"
        );
    }

    #[test]
    fn the_clock_passes() {
        let (s, ok) = cpuclock_test();
        assert!(ok, "{s}");
        assert!(s.starts_with("cs: Testing "), "{s}");
        assert!(s.ends_with("cs: Pass!\n"), "{s}");
    }
}
