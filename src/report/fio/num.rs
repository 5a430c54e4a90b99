//! fio's number formatting for the text report (`num2str` of fio 3.33 `lib/num2str.c`,
//! 4 significant figures as fio's default `sig_figs`) and the "Run status group"
//! block (`show_group_stats` in `stat.c`). Sizes print like fio: 65536 bytes is
//! `64.0KiB`, 4 MiB is `4096KiB`; bandwidth is scaled to KiB/s, MiB/s, GiB/s with the
//! decimal form (kB/s, MB/s, GB/s) beside it. A group's [`TextUnits`] (`kb_base=1000`,
//! `unit_base=1`) put the decimal form first and bandwidths in bits, as fio 3.33 does.

use crate::result::job::JobResult;

/// Unit suffix of [`num2str`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum N2s {
    /// no unit (IOPS)
    None,
    /// bytes: "B"
    Byte,
    /// bytes per second: "B/s"
    BytePerSec,
    /// bits per second: the number (bytes/s) times 8, "bit/s" (fio's `unit_base=1`)
    BitPerSec,
}

/// How a reporting group's text figures are written, from its jobs' `kb_base` and
/// `unit_base` (fio 3.33 takes the group's values from its last job, and uses its
/// `kb_base` for every job line of the group too; a job line's bandwidths are in the
/// job's own `unit_base`). JSON is not affected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextUnits {
    /// `kb_base=1000`: decimal form first (`BW=1049MB/s (1000MiB/s)`, `io=4194kB
    /// (4096KiB)`), and the `bw (   kB/s)` sample line labelled and scaled by 1000
    pub decimal: bool,
    /// `unit_base=1`: bandwidths of the job and group lines in bits per second
    /// (`BW=400Mibit/s (419Mbit/s)`); sizes, IOPS and the sample lines stay in bytes
    pub bits: bool,
    /// the bandwidths of the job line without a unit (`BW=118Mi (124M)`): fio's client
    /// "All clients" job, whose zeroed `unit_base` is never summed
    pub unitless: bool,
}

impl TextUnits {
    /// The units of a job, from its `kb_base` and `unit_base`.
    pub fn of_job(j: &JobResult) -> TextUnits {
        TextUnits {
            decimal: j.job.kb_base == 1000,
            bits: j.job.unit_base == 1,
            unitless: false,
        }
    }

    /// The units of reporting group `g`: its last job's (fio's `rs->kb_base`).
    pub fn of_group(jobs: &[JobResult], g: u32) -> TextUnits {
        jobs.iter()
            .rfind(|j| j.groupid == g)
            .map(TextUnits::of_job)
            .unwrap_or_default()
    }

    /// A bandwidth (bytes/s) as (first, in parentheses): `("981MiB/s", "1029MB/s")`
    /// by default, the decimal form first with `decimal`, `bit/s` with `bits`.
    pub fn bw(self, bytes_per_s: u64) -> (String, String) {
        let u = match (self.unitless, self.bits) {
            (true, _) => N2s::None,
            (false, true) => N2s::BitPerSec,
            (false, false) => N2s::BytePerSec,
        };
        let bin = num2str(bytes_per_s, SIG_FIGS, true, u);
        let dec = num2str(bytes_per_s, SIG_FIGS, false, u);
        self.order(bin, dec)
    }

    /// A size (bytes) as (first, in parentheses): `("4096KiB", "4194kB")`, swapped
    /// with `decimal`. `bits` does not apply (fio keeps `io=` in bytes).
    pub fn size(self, bytes: u64) -> (String, String) {
        let bin = num2str(bytes, SIG_FIGS, true, N2s::Byte);
        let dec = num2str(bytes, SIG_FIGS, false, N2s::Byte);
        self.order(bin, dec)
    }

    fn order(self, bin: String, dec: String) -> (String, String) {
        if self.decimal {
            (dec, bin)
        } else {
            (bin, dec)
        }
    }
}

/// fio `num2str(num, maxlen, base=1, pow2, units)`: divide by 1024 (`pow2`) or 1000
/// until the integer part has at most `maxlen` digits, then fill the remaining digits
/// (keeping one for the point) with decimals of the remainder, rounding up the last
/// step when no decimal fits. A remainder whose rounded decimals reach 1 (x.95–x.99
/// with one decimal) carries into the integer part, as fio 3.33 does (`16.0MiB` for
/// 16 744 448 bytes, not `15.0MiB`). Prefixes: k/M/G/T/P/E, or Ki/Mi/Gi/Ti/Pi/Ei with
/// `pow2`; a `maxlen` no number fits (0, the mixed statistics' `sig_figs`) gives `0`.
/// [`N2s::BitPerSec`] multiplies `num` by 8 first (saturating).
pub fn num2str(num: u64, maxlen: usize, pow2: bool, units: N2s) -> String {
    const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let prefix = if pow2 { IEC } else { SI };
    let unit = match units {
        N2s::None => "",
        N2s::Byte => "B",
        N2s::BytePerSec => "B/s",
        N2s::BitPerSec => "bit/s",
    };
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let mut num = if units == N2s::BitPerSec {
        num.saturating_mul(8)
    } else {
        num
    };
    let mut post = 0usize;
    let mut modulo: Option<u64> = None;
    let mut carry = false;
    while post < SI.len() {
        if num.to_string().len() <= maxlen {
            break;
        }
        let m = num % thousand;
        modulo = Some(m);
        num /= thousand;
        carry = m >= thousand / 2;
        post += 1;
    }
    // fio: past the last prefix the index starts again at none (`maxlen` 0 divides
    // the number down to 0, so every figure prints as `0`)
    let post = if post >= SI.len() { 0 } else { post };
    let Some(m) = modulo else {
        return format!("{num}{}{unit}", prefix[post]);
    };
    let digits = num.to_string().len();
    if maxlen.saturating_sub(digits) <= 1 {
        if carry {
            num += 1;
        }
        return format!("{num}{}{unit}", prefix[post]);
    }
    let decimals = maxlen - digits - 1;
    let frac = format!("{:.decimals$}", m as f64 / thousand as f64);
    // fio prints the digits after "0." of the fraction; a fraction that rounds up to
    // "1.0…" carries into the integer part (fio: `if (tmp[0] == '1') num++;`), keeping
    // the decimals chosen for the uncarried width: 10481664 B is `10.00MiB`.
    if frac.starts_with('1') {
        num += 1;
    }
    let tail = frac.get(2..).unwrap_or("");
    format!("{num}.{tail}{}{unit}", prefix[post])
}

/// fio's default significant figures (`sig_figs=4`).
pub const SIG_FIGS: usize = 4;

/// A size in fio's text form, binary prefixes (`64.0KiB`, `4096KiB`, `1024MiB`).
pub fn size(bytes: u64) -> String {
    num2str(bytes, SIG_FIGS, true, N2s::Byte)
}

/// A bandwidth in fio's text form: binary (`981MiB/s`) and decimal (`1029MB/s`).
pub fn bw(bytes_per_s: u64) -> (String, String) {
    (
        num2str(bytes_per_s, SIG_FIGS, true, N2s::BytePerSec),
        num2str(bytes_per_s, SIG_FIGS, false, N2s::BytePerSec),
    )
}

/// IOPS in fio's text form (`251k`).
pub fn iops(v: u64) -> String {
    num2str(v, SIG_FIGS, false, N2s::None)
}

/// One direction of a reporting group (fio's `group_run_stats` for it): bytes, the
/// slowest and fastest job's bandwidth (B/s), the shortest and longest run time (ms);
/// `max_run` 0 when no job of the group moved data that way.
#[derive(Clone, Copy)]
struct GroupDir {
    io: u64,
    min_bw: u64,
    max_bw: u64,
    min_run: u64,
    max_run: u64,
}

impl GroupDir {
    fn of(jobs: &[JobResult], g: u32, dir: usize) -> GroupDir {
        let mut s = GroupDir {
            io: 0,
            min_bw: u64::MAX,
            max_bw: 0,
            min_run: u64::MAX,
            max_run: 0,
        };
        for j in jobs.iter().filter(|j| j.groupid == g) {
            let d = j.dir(dir);
            if d.bytes == 0 {
                continue;
            }
            let run = j.dir_runtime_ms(dir).max(1);
            let b = d.bytes * 1000 / run;
            s.io += d.bytes;
            s.min_bw = s.min_bw.min(b);
            s.max_bw = s.max_bw.max(b);
            s.min_run = s.min_run.min(run);
            s.max_run = s.max_run.max(run);
        }
        s
    }

    /// fio's `rs->agg`: the group's bytes × 1000 / its longest run, B/s.
    fn agg(&self) -> u64 {
        (self.io * 1000).checked_div(self.max_run).unwrap_or(0)
    }
}

/// One line of the group block: `LABEL: bw=AGG (AGGalt), MIN-MAX (MINalt-MAXalt),
/// io=SIZE (SIZEalt), run=MIN-MAXmsec`.
fn group_line(label: &str, units: TextUnits, agg: u64, d: &GroupDir) -> String {
    let (a, a2) = units.bw(agg);
    let (mn, mn2) = units.bw(d.min_bw);
    let (mx, mx2) = units.bw(d.max_bw);
    let (io1, io2) = units.size(d.io);
    format!(
        "{label}: bw={a} ({a2}), {mn}-{mx} ({mn2}-{mx2}), io={io1} ({io2}), run={}-{}msec\n",
        d.min_run, d.max_run
    )
}

/// fio's "Run status group N (all jobs):" block for every group of `jobs`: per
/// direction with I/O, `READ: bw=AGG (AGGalt), MIN-MAX (MINalt-MAXalt), io=SIZE
/// (SIZEalt), run=MIN-MAXmsec` (binary first; the group's [`TextUnits`] can swap the
/// forms and put bandwidths in bits). AGG = the group's bytes × 1000 / its longest run
/// (ms); MIN/MAX = the slowest / fastest job's bytes × 1000 / its run (B/s).
///
/// `unified_rw_reporting` of the group is its jobs' values OR-ed (fio 3.33
/// `rs->unified_rw_rep |= ts->unified_rw_rep`): 1 (`mixed`) labels every line `MIXED`;
/// 2 (`both`) adds, after the directions, fio's `show_mixed_group_stats` line: bytes and
/// AGGs of the directions summed, the smallest MIN, the largest MAX, the run times'
/// extremes; 3 (a `mixed` and a `both` job) is neither, as in fio.
pub fn group_text(jobs: &[JobResult]) -> String {
    let mut groups: Vec<u32> = jobs.iter().map(|j| j.groupid).collect();
    groups.sort_unstable();
    groups.dedup();
    let mut s = String::new();
    for g in groups {
        let units = TextUnits::of_group(jobs, g);
        s += &format!("\nRun status group {g} (all jobs):\n");
        let rep = jobs
            .iter()
            .filter(|j| j.groupid == g)
            .fold(0u8, |r, j| r | j.job.unified_rw);
        let dirs = [0, 1, 2].map(|d| GroupDir::of(jobs, g, d));
        for (d, label) in dirs.iter().zip(["   READ", "  WRITE", "   TRIM"]) {
            if d.max_run > 0 {
                let label = if rep == 1 { "  MIXED" } else { label };
                s += &group_line(label, units, d.agg(), d);
            }
        }
        if rep == 2 {
            let used: Vec<&GroupDir> = dirs.iter().filter(|d| d.max_run > 0).collect();
            let mix = GroupDir {
                io: used.iter().map(|d| d.io).sum(),
                min_bw: used.iter().map(|d| d.min_bw).min().unwrap_or(u64::MAX),
                max_bw: used.iter().map(|d| d.max_bw).max().unwrap_or(0),
                min_run: used.iter().map(|d| d.min_run).min().unwrap_or(u64::MAX),
                max_run: used.iter().map(|d| d.max_run).max().unwrap_or(0),
            };
            let agg = used.iter().map(|d| d.agg()).sum();
            s += &group_line("  MIXED", units, agg, &mix);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_like_fio() {
        assert_eq!(size(65_536), "64.0KiB");
        assert_eq!(size(4 << 20), "4096KiB");
        assert_eq!(size(1 << 30), "1024MiB");
        assert_eq!(size(4096), "4096B");
        assert_eq!(size(12_345), "12.1KiB");
        assert_eq!(size(100 << 20), "100MiB");
    }

    #[test]
    fn bandwidth_and_iops_like_fio() {
        // fio: "BW=981MiB/s (1029MB/s)" for 1 028 915 200 B/s
        assert_eq!(bw(1_028_915_200), ("981MiB/s".into(), "1029MB/s".into()));
        assert_eq!(bw(3 << 30).0, "3072MiB/s");
        assert_eq!(bw(20 << 30).0, "20.0GiB/s");
        assert_eq!(bw(55_188_210), ("52.6MiB/s".into(), "55.2MB/s".into()));
        assert_eq!(iops(251_234), "251k");
        assert_eq!(iops(13_473), "13.5k");
        assert_eq!(iops(999), "999");
    }

    /// Rounding that reaches the next integer carries into it. Expected strings are
    /// fio 3.33's (`io=`/`BW=` of `fio --rw=write --bs=4k --size=N` for the first four;
    /// the rest from fio's `num2str` logic, checked against its C over ~830k values).
    #[test]
    fn rounding_carries_into_the_integer_like_fio() {
        // the reported cases: fio prints 16.0MiB, 10.00MiB, 100.0MiB, 32.0MiB
        assert_eq!(size(16_744_448), "16.0MiB");
        assert_eq!(size(10_481_664), "10.00MiB");
        assert_eq!(size(104_853_504), "100.0MiB");
        assert_eq!(size(33_550_336), "32.0MiB");
        // randrw: 32 960 IOPS is 33.0k (129 MiB/s of 4 KiB), not 32.0k
        assert_eq!(iops(32_960), "33.0k");
        assert_eq!(iops(32_999), "33.0k");
        // power-of-1024 boundaries, two decimals (x.95-x.99 of one digit)
        assert_eq!(size(9 * 1024 + 1000), "9.98KiB");
        assert_eq!(size(9 * 1024 + 1023), "10.00KiB");
        // one decimal: 99.95.. rounds to 100.0, 99.94.. stays
        assert_eq!(size(99 * 1024 + 973), "100.0KiB");
        assert_eq!(size(99 * 1024 + 972), "99.9KiB");
        assert_eq!(size(99 * (1 << 20) + 1000 * 1024), "100.0MiB");
        assert_eq!(size(15 * (1 << 30) + 1000 * (1 << 20)), "16.0GiB");
        // no decimal fits: half a unit rounds up, also across 999 -> 1000 and 1023 -> 1024
        assert_eq!(size(999 * 1024 + 511), "999KiB");
        assert_eq!(size(999 * 1024 + 512), "1000KiB");
        assert_eq!(size(1023 * 1024 + 512), "1024KiB");
        assert_eq!(size(999 * (1 << 20) + 600 * 1024), "1000MiB");
        assert_eq!(size(1023 * (1 << 20) + 512 * 1024), "1024MiB");
        // below one unit nothing is divided
        assert_eq!(size(1023), "1023B");
        assert_eq!(size(9999), "9999B");
        assert_eq!(size(10_000), "9.77KiB");
    }

    /// Power-of-10 boundaries of the decimal forms (kB/s, MB/s, IOPS). 0.95 is
    /// 0.9499.. as a double, so 99 950 stays 99.9k as in fio.
    #[test]
    fn decimal_boundaries_like_fio() {
        assert_eq!(iops(99_960), "100.0k");
        assert_eq!(iops(99_950), "99.9k");
        assert_eq!(iops(99_949), "99.9k");
        assert_eq!(iops(999_499), "999k");
        assert_eq!(iops(999_500), "1000k");
        assert_eq!(iops(1_999_960), "2000k");
        assert_eq!(iops(9_999_500), "10000k");
        assert_eq!(bw(99_960_000).1, "100.0MB/s");
        assert_eq!(bw(999_960_000).1, "1000MB/s");
        assert_eq!(bw(16_744_448), ("16.0MiB/s".into(), "16.7MB/s".into()));
        assert_eq!(num2str(33_550_336, SIG_FIGS, false, N2s::Byte), "33.6MB");
        assert_eq!(iops(10_000), "10.0k");
    }

    #[test]
    fn group_block() {
        let mut a = JobResult::default();
        a.read.ios = 1024;
        a.read.bytes = 4 << 20;
        a.runtime_ns = 4_000_000;
        let mut b = a.clone();
        b.runtime_ns = 8_000_000;
        let t = group_text(&[a, b]);
        // 8 MiB over 8 ms = 1 048 576 000 B/s; jobs: 524 288 000 and 1 048 576 000 B/s
        assert_eq!(
            t,
            "\nRun status group 0 (all jobs):\n   READ: bw=1000MiB/s (1049MB/s), 500MiB/s-1000MiB/s (524MB/s-1049MB/s), io=8192KiB (8389kB), run=4-8msec\n"
        );
    }

    /// `unified_rw_reporting` of a group: `both` adds fio 3.33's MIXED line after the
    /// directions (from `fio --rw=randrw --size=4m --unified_rw_reporting=both`:
    /// `READ: bw=52.4MiB/s …`, `WRITE: bw=55.7MiB/s …`, then `MIXED: bw=108MiB/s (113MB/s),
    /// 52.4MiB/s-55.7MiB/s (54.9MB/s-58.5MB/s), io=4096KiB (4194kB), run=37-37msec`: the
    /// aggregates summed, the extremes of the jobs' rates); `mixed` labels every line
    /// MIXED; a `mixed` and a `both` job OR to 3, which is neither.
    #[test]
    fn group_block_of_unified_reporting_as_fio() {
        let mut j = JobResult::default();
        (j.read.ios, j.read.bytes) = (496, 496 * 4096);
        (j.write.ios, j.write.bytes) = (528, 528 * 4096);
        j.runtime_ns = 37_000_000;
        j.job.unified_rw = 2;
        // fio 3.33's block, byte for byte
        let fio = [
            "",
            "Run status group 0 (all jobs):",
            "   READ: bw=52.4MiB/s (54.9MB/s), 52.4MiB/s-52.4MiB/s (54.9MB/s-54.9MB/s), io=1984KiB (2032kB), run=37-37msec",
            "  WRITE: bw=55.7MiB/s (58.5MB/s), 55.7MiB/s-55.7MiB/s (58.5MB/s-58.5MB/s), io=2112KiB (2163kB), run=37-37msec",
            "  MIXED: bw=108MiB/s (113MB/s), 52.4MiB/s-55.7MiB/s (54.9MB/s-58.5MB/s), io=4096KiB (4194kB), run=37-37msec",
        ];
        assert_eq!(group_text(std::slice::from_ref(&j)), fio.join("\n") + "\n");
        j.job.unified_rw = 0;
        let mut m = j.clone();
        m.job.unified_rw = 1;
        let t = group_text(&[m.clone(), j.clone()]);
        assert_eq!(t.matches("  MIXED: ").count(), 2, "{t}");
        let mut b = j.clone();
        b.job.unified_rw = 2;
        let t = group_text(&[m, b]);
        assert!(!t.contains("MIXED"), "{t}");
        assert!(t.contains("   READ: ") && t.contains("  WRITE: "), "{t}");
    }

    /// fio's `num2str` with no digits allowed (the `sig_figs` 0 of the mixed
    /// statistics) prints 0 with the unit; the seventh prefix is E (Ei).
    #[test]
    fn num2str_edges_like_fio() {
        assert_eq!(num2str(28_444, 0, false, N2s::None), "0");
        assert_eq!(num2str(4 << 20, 0, true, N2s::Byte), "0B");
        assert_eq!(num2str(u64::MAX, 0, true, N2s::Byte), "0B");
        assert_eq!(
            num2str(10_000_000_000_000_000_000, 4, false, N2s::Byte),
            "10.0EB"
        );
        assert_eq!(num2str(u64::MAX, 4, true, N2s::Byte), "16.0EiB");
    }

    /// kb_base=1000 and unit_base=1 forms, pinned to fio 3.33's lines for 4 MiB read
    /// in 1 ms (null engine): `BW=4194MB/s (4000MiB/s)(4194kB/1msec)`,
    /// `BW=31.2Gibit/s (33.6Gbit/s)`, `BW=33.6Gbit/s (31.2Gibit/s)`.
    #[test]
    fn text_units_like_fio() {
        let dec = TextUnits {
            decimal: true,
            bits: false,
            unitless: false,
        };
        let bits = TextUnits {
            decimal: false,
            bits: true,
            unitless: false,
        };
        let both = TextUnits {
            decimal: true,
            bits: true,
            unitless: false,
        };
        let bps = 4_194_304_000; // 4 MiB × 1000 / 1 ms
        assert_eq!(
            TextUnits::default().bw(bps),
            ("4000MiB/s".into(), "4194MB/s".into())
        );
        assert_eq!(dec.bw(bps), ("4194MB/s".into(), "4000MiB/s".into()));
        assert_eq!(bits.bw(bps), ("31.2Gibit/s".into(), "33.6Gbit/s".into()));
        assert_eq!(both.bw(bps), ("33.6Gbit/s".into(), "31.2Gibit/s".into()));
        assert_eq!(dec.size(4 << 20), ("4194kB".into(), "4096KiB".into()));
        assert_eq!(both.size(4 << 20), ("4194kB".into(), "4096KiB".into()));
        assert_eq!(bits.size(4 << 20), ("4096KiB".into(), "4194kB".into()));
        // fio: rate=50m → BW=400Mibit/s (419Mbit/s)
        assert_eq!(bits.bw(50 << 20), ("400Mibit/s".into(), "419Mbit/s".into()));
        // the bit count saturates instead of overflowing
        assert_eq!(
            num2str(u64::MAX, SIG_FIGS, false, N2s::BitPerSec),
            num2str(u64::MAX, SIG_FIGS, false, N2s::None) + "bit/s"
        );
    }

    /// fio 3.33 formats a whole group with its last job's kb_base: `--name=x --name=y
    /// --kb_base=1000` printed both job lines and the group line decimal first;
    /// `--name=x --kb_base=1000 --name=y` printed all of them binary first.
    #[test]
    fn group_units_are_the_last_jobs() {
        let mut a = JobResult::default();
        a.read.ios = 1024;
        a.read.bytes = 4 << 20;
        a.runtime_ns = 1_000_000;
        let mut b = a.clone();
        b.job.kb_base = 1000;
        let t = group_text(&[a.clone(), b.clone()]);
        assert_eq!(
            t,
            "\nRun status group 0 (all jobs):\n   READ: bw=8389MB/s (8000MiB/s), 4194MB/s-4194MB/s (4000MiB/s-4000MiB/s), io=8389kB (8192KiB), run=1-1msec\n"
        );
        assert!(group_text(&[b.clone(), a.clone()]).contains("bw=8000MiB/s (8389MB/s)"));
        // another group keeps its own units
        let mut c = a.clone();
        c.groupid = 1;
        let t = group_text(&[a, b, c]);
        assert!(
            t.contains("Run status group 1 (all jobs):\n   READ: bw=4000MiB/s (4194MB/s)"),
            "{t}"
        );
        assert_eq!(TextUnits::of_group(&[], 0), TextUnits::default());
    }
}
