//! Machine-wide facts that decide whether results come from RAM or are CPU-bound:
//! memory and dirty-page limits (`/proc/meminfo`, `/proc/sys/vm/*`), CPU count and
//! frequency governors, and whether the TSC may time latencies. All
//! through the root; all optional.

use super::sysroot::Sys;
use serde::{Deserialize, Serialize};

/// Memory and dirty-page settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    /// MemTotal, bytes.
    pub total_bytes: Option<u64>,
    /// MemAvailable, bytes.
    pub available_bytes: Option<u64>,
    /// Cached (page cache), bytes.
    pub cached_bytes: Option<u64>,
    /// Dirty, bytes.
    pub dirty_bytes: Option<u64>,
    /// vm.dirty_ratio, percent.
    pub dirty_ratio: Option<u64>,
    /// vm.dirty_bytes (0 = the ratio applies).
    pub dirty_bytes_setting: Option<u64>,
    /// Writes that can sit in RAM before writers are throttled, bytes: `dirty_bytes`
    /// when set, else `dirty_ratio` % of MemAvailable (an estimate of dirtyable memory).
    pub dirty_limit_bytes: Option<u64>,
}

/// One `/proc/meminfo` value in bytes.
pub fn meminfo_field(text: &str, key: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map(|kb| kb.saturating_mul(1024))
}

/// Read memory facts.
pub fn memory(sys: &Sys) -> Option<Memory> {
    let mi = sys.read("/proc/meminfo")?;
    let vm = |f: &str| sys.read_u64(&format!("/proc/sys/vm/{f}"));
    let mut m = Memory {
        total_bytes: meminfo_field(&mi, "MemTotal"),
        available_bytes: meminfo_field(&mi, "MemAvailable"),
        cached_bytes: meminfo_field(&mi, "Cached"),
        dirty_bytes: meminfo_field(&mi, "Dirty"),
        dirty_ratio: vm("dirty_ratio"),
        dirty_bytes_setting: vm("dirty_bytes"),
        dirty_limit_bytes: None,
    };
    m.dirty_limit_bytes = match (m.dirty_bytes_setting, m.dirty_ratio, m.available_bytes) {
        (Some(b), _, _) if b > 0 => Some(b),
        (_, Some(r), Some(a)) => Some((a / 100).saturating_mul(r)),
        _ => None,
    };
    Some(m)
}

/// CPU facts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cpu {
    /// Online CPUs (from `/sys/devices/system/cpu/online`).
    pub count: Option<u32>,
    /// `scaling_driver` of the first policy.
    pub scaling_driver: Option<String>,
    /// `scaling_governor` of the first policy.
    pub governor: Option<String>,
    /// `energy_performance_preference` of the first policy.
    pub epp: Option<String>,
    /// The cpu directory exists but shows no cpufreq policy (typical in VMs).
    pub cpufreq_absent: bool,
    /// The cpu directory itself is missing (nothing known).
    pub cpu_dir_missing: bool,
    /// `aes` in `/proc/cpuinfo` flags (`None`: cpuinfo unreadable).
    pub aes: Option<bool>,
}

/// Count CPUs in a list like `0-3,5`.
pub fn count_cpulist(s: &str) -> Option<u32> {
    let mut n = 0u32;
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
                n = n.checked_add(b.checked_sub(a)?.checked_add(1)?)?;
            }
            None => {
                part.parse::<u32>().ok()?;
                n = n.checked_add(1)?;
            }
        }
    }
    (n > 0).then_some(n)
}

/// Read CPU facts.
pub fn cpu(sys: &Sys) -> Cpu {
    const CPU: &str = "/sys/devices/system/cpu";
    let policy = sys
        .list(&format!("{CPU}/cpufreq"))
        .unwrap_or_default()
        .into_iter()
        .find(|e| e.starts_with("policy"))
        .map(|p| format!("{CPU}/cpufreq/{p}"))
        .or_else(|| {
            let d = format!("{CPU}/cpu0/cpufreq");
            sys.is_dir(&d).then_some(d)
        });
    let r = |f: &str| {
        policy
            .as_ref()
            .and_then(|p| sys.read_trim(&format!("{p}/{f}")))
    };
    let aes = sys.read("/proc/cpuinfo").map(|t| has_cpu_flag(&t, "aes"));
    Cpu {
        count: sys
            .read(&format!("{CPU}/online"))
            .as_deref()
            .and_then(count_cpulist),
        scaling_driver: r("scaling_driver"),
        governor: r("scaling_governor"),
        epp: r("energy_performance_preference"),
        cpufreq_absent: policy.is_none() && sys.is_dir(CPU),
        cpu_dir_missing: !sys.is_dir(CPU),
        aes,
    }
}

/// Whether a `flags` line of `/proc/cpuinfo` text lists `flag` (a whole word).
pub fn has_cpu_flag(cpuinfo: &str, flag: &str) -> bool {
    cpuinfo
        .lines()
        .filter(|l| l.starts_with("flags"))
        .any(|l| l.split_whitespace().any(|w| w == flag))
}

/// The kernel's current clock source.
pub const CLOCKSOURCE: &str = "/sys/devices/system/clocksource/clocksource0/current_clocksource";

/// Whether latencies may be timed with the TSC: the kernel's clock source is `tsc` and
/// the CPU's TSC is constant and non-stop (`constant_tsc`, `nonstop_tsc` in
/// `/proc/cpuinfo`), so it runs at one rate on every core (see `stats/clock.rs`).
pub fn tsc_clocksource(sys: &Sys) -> bool {
    sys.read_trim(CLOCKSOURCE).as_deref() == Some("tsc")
        && sys
            .read("/proc/cpuinfo")
            .is_some_and(|t| has_cpu_flag(&t, "constant_tsc") && has_cpu_flag(&t, "nonstop_tsc"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_and_cpulists() {
        let t = "MemTotal:       16314132 kB\nMemAvailable:   15102244 kB\n";
        assert_eq!(meminfo_field(t, "MemTotal"), Some(16314132 * 1024));
        assert_eq!(meminfo_field(t, "Mem"), None);
        assert_eq!(count_cpulist("0-1\n"), Some(2));
        assert_eq!(count_cpulist("0-3,5,7-8"), Some(7));
        assert_eq!(count_cpulist("3-1"), None);
        assert_eq!(count_cpulist(""), None);
    }

    #[test]
    fn tsc_needs_the_clocksource_and_both_cpu_flags() {
        let d = tempfile::tempdir().unwrap();
        let root = crate::probe::Root(d.path().to_path_buf());
        let put = |p: &str, t: &str| {
            let f = d.path().join(p.trim_start_matches('/'));
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, t).unwrap();
        };
        let both = "processor : 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc aes\n";
        assert!(!tsc_clocksource(&root.sys()), "nothing recorded");
        put(CLOCKSOURCE, "tsc\n");
        put("/proc/cpuinfo", both);
        assert!(tsc_clocksource(&root.sys()));
        put("/proc/cpuinfo", "flags\t\t: fpu tsc constant_tsc\n");
        assert!(!tsc_clocksource(&root.sys()), "not non-stop");
        put("/proc/cpuinfo", both);
        put(CLOCKSOURCE, "kvm-clock\n");
        assert!(!tsc_clocksource(&root.sys()), "another clock source");
        assert!(has_cpu_flag(both, "aes"));
        assert!(!has_cpu_flag(both, "ae"));
    }
}
