//! Values of fio's keys for I/O priorities (`prio`, `prioclass`, `cmdprio*`,
//! `log_prio`), NUMA binding (`numa_cpu_nodes`, `numa_mem_policy`) and dedupe-shaped
//! write buffers (`dedupe_*`): [`PrioNumaDedupeOpts`] and the parsers of their values
//! (pure, no I/O; node existence is checked at run time by `run/fio/numa.rs`). The keys
//! are entries of the option table (`job/fio/options/`).
//!
//! Semantics: `fio --cmdhelp=KEY` and fio's HOWTO (cmdprio_* are options of the
//! libaio/io_uring engines). An I/O priority value is Linux's `ioprio`:
//! `class << 13 | hint << 3 | level` (include/uapi/linux/ioprio.h).

use crate::job::units::fio_size;

/// Linux ioprio value of `class` (0 none, 1 RT, 2 BE, 3 idle), `level` (0–7, 0 the
/// highest) and `hint` (0–1023; e.g. a CDL descriptor index): `class<<13|hint<<3|level`.
pub fn ioprio_value(class: u8, level: u8, hint: u16) -> u16 {
    (u16::from(class & 7) << 13) | ((hint & 0x3ff) << 3) | u16::from(level & 7)
}

/// One `cmdprio_bssplit` entry: I/Os of `bs` bytes get `ioprio` this percent of the time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrioSplit {
    /// block size, bytes
    pub bs: u64,
    /// percent of the I/Os of that size (0–100)
    pub pct: u32,
    /// `(class, level, hint)` of the entry; `None`: `cmdprio_class`/`cmdprio`/`cmdprio_hint`
    pub prio: Option<(u8, u8, u16)>,
}

/// `numa_mem_policy` mode (set_mempolicy(2)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemMode {
    /// `default`: MPOL_DEFAULT
    Default,
    /// `prefer:N`: MPOL_PREFERRED (one node)
    Prefer,
    /// `bind:LIST`: MPOL_BIND
    Bind,
    /// `interleave:LIST`: MPOL_INTERLEAVE
    Interleave,
    /// `local`: MPOL_LOCAL
    Local,
}

/// How duplicate write buffers are made (`dedupe_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DedupeMode {
    /// `repeat`: a duplicate repeats the last unique buffer (fio's default)
    #[default]
    Repeat,
    /// `working_set`: a duplicate is one of a fixed set of pages, picked uniformly
    WorkingSet,
}

/// The keys of this module for one job, with fio's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct PrioNumaDedupeOpts {
    /// `prio`: thread I/O priority level 0–7 (ioprio_set)
    pub prio: Option<u8>,
    /// `prioclass`: thread I/O priority class 0–3
    pub prioclass: Option<u8>,
    /// `cmdprio_percentage` (reads, writes): percent of I/Os issued with the cmdprio priority
    pub cmdprio_percentage: Option<[u32; 2]>,
    /// `cmdprio_class` (default 1, the highest class: RT)
    pub cmdprio_class: [u8; 2],
    /// `cmdprio` level (default 0)
    pub cmdprio: [u8; 2],
    /// `cmdprio_hint` (default 0: no hint)
    pub cmdprio_hint: [u16; 2],
    /// `cmdprio_bssplit` (reads, writes)
    pub cmdprio_bssplit: Option<[Vec<PrioSplit>; 2]>,
    /// `log_prio`: latency logs carry the I/O's ioprio value (else 1 for RT class, 0 other)
    pub log_prio: bool,
    /// `numa_cpu_nodes`: run the job's threads on these nodes' CPUs
    pub numa_cpu_nodes: Option<Vec<u32>>,
    /// `numa_mem_policy`: mode and node list
    pub numa_mem_policy: Option<(MemMode, Vec<u32>)>,
    /// `dedupe_percentage`: percent of write buffers that duplicate an earlier one
    pub dedupe_percentage: u32,
    /// `dedupe_mode`
    pub dedupe_mode: DedupeMode,
    /// `dedupe_working_set_percentage` (default 5): working set in percent of the size
    pub dedupe_working_set_percentage: u32,
    /// `dedupe_global`: jobs draw duplicates from one shared working set
    pub dedupe_global: bool,
}

impl Default for PrioNumaDedupeOpts {
    fn default() -> Self {
        PrioNumaDedupeOpts {
            prio: None,
            prioclass: None,
            cmdprio_percentage: None,
            cmdprio_class: [1, 1],
            cmdprio: [0, 0],
            cmdprio_hint: [0, 0],
            cmdprio_bssplit: None,
            log_prio: false,
            numa_cpu_nodes: None,
            numa_mem_policy: None,
            dedupe_percentage: 0,
            dedupe_mode: DedupeMode::Repeat,
            dedupe_working_set_percentage: 5,
            dedupe_global: false,
        }
    }
}

impl PrioNumaDedupeOpts {
    /// Whether a per-command priority option is set (libaio/io_uring only in fio).
    pub fn uses_cmdprio(&self) -> Option<&'static str> {
        if self.cmdprio_bssplit.is_some() {
            Some("cmdprio_bssplit")
        } else if self.cmdprio_percentage.is_some() {
            Some("cmdprio_percentage")
        } else {
            None
        }
    }

    /// The thread's ioprio value from `prioclass`/`prio`, if either is set (class BE
    /// when only `prio` is given, level 0 when only `prioclass` is).
    pub fn thread_ioprio(&self) -> Option<u16> {
        if self.prio.is_none() && self.prioclass.is_none() {
            return None;
        }
        // no class, or class 0 (none), is best effort, as fio 3.33's ioprio_value
        let class = match self.prioclass.unwrap_or(0) {
            0 => 2,
            c => c,
        };
        Some(ioprio_value(class, self.prio.unwrap_or(0), 0))
    }
}

/// Parse a node list like `0`, `0-1`, `0,2-3` (at most 1024 nodes).
/// Whether NUMA node `n` is one this process may use (its `mems_allowed`, which
/// libnuma reads the node lists fio is given against: get_mempolicy(2) with
/// `MPOL_F_MEMS_ALLOWED`); without NUMA in the kernel, node 0 alone.
pub fn node_allowed(n: u64) -> bool {
    const MPOL_F_MEMS_ALLOWED: libc::c_ulong = 1 << 2;
    let mut mask = [0u64; 16];
    let mut mode: libc::c_int = 0;
    // SAFETY: the kernel writes the mode and at most `maxnode` bits into the mask
    let r = unsafe {
        libc::syscall(
            libc::SYS_get_mempolicy,
            &mut mode as *mut libc::c_int,
            mask.as_mut_ptr(),
            (mask.len() * 64) as libc::c_ulong,
            std::ptr::null_mut::<libc::c_void>(),
            MPOL_F_MEMS_ALLOWED,
        )
    };
    if r != 0 {
        return n == 0;
    }
    let i = usize::try_from(n / 64).unwrap_or(usize::MAX);
    mask.get(i).is_some_and(|w| w >> (n % 64) & 1 == 1)
}

/// The nodes of libnuma's node mask (1024 bits), as fio 3.33 has it read.
const LIBNUMA_NODES: u64 = 1024;

/// A node list as libnuma's `numa_parse_nodestring` reads it (which fio 3.33's
/// `numa_cpu_nodes` calls), nodes checked against `allowed` (this process's, e.g.
/// [`node_allowed`]): `!` inverts the list over the nodes 0 to the last allowed, `+`
/// makes the numbers relative (the Nth allowed node), `all` is every allowed node;
/// each number is C's `strtoul` of base 0 (`0x0` is 0, `-0` is 0, `-1` wraps to the
/// largest), a range `A-B` sets the allowed nodes between. `Err(Some(warning))`: its
/// warning (`unparseable node description `REST'`, `node argument N is out of range`,
/// N printed as C's `%d`; a range end's `node argument N out of range`, `missing node
/// argument REST`); `Err(None)`: refused without one (a tail after a number).
pub fn libnuma_nodes(
    value: &str,
    allowed: impl Fn(u64) -> bool,
) -> Result<Vec<u32>, Option<String>> {
    let (invert, s) = match value.strip_prefix('!') {
        Some(r) => (true, r),
        None => (false, value),
    };
    let (relative, mut s) = match s.strip_prefix('+') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let all: Vec<u64> = (0..LIBNUMA_NODES).filter(|&n| allowed(n)).collect();
    let nr = |s: &str| -> Option<(u64, usize)> {
        let (n, used) = strtoul(s)?;
        if !relative {
            return Some((n, used));
        }
        // the Nth allowed node (libnuma's get_nr), past the mask's end its size
        let n = all.get(usize::try_from(n).unwrap_or(usize::MAX)).copied();
        Some((n.unwrap_or(LIBNUMA_NODES), used))
    };
    let mut mask = std::collections::BTreeSet::new();
    loop {
        if s == "all" {
            mask.extend(all.iter().copied());
            break;
        }
        let Some((a, used)) = nr(s) else {
            return Err(Some(format!("unparseable node description `{s}'")));
        };
        if !allowed(a) {
            return Err(Some(format!(
                "node argument {} is out of range",
                a as u32 as i32
            )));
        }
        mask.insert(a);
        s = &s[used..];
        if let Some(end) = s.strip_prefix('-') {
            let Some((b, used)) = nr(end) else {
                return Err(Some(format!("missing node argument {end}")));
            };
            if !allowed(b) {
                return Err(Some(format!(
                    "node argument {} out of range",
                    b as u32 as i32
                )));
            }
            mask.extend((a..=b).filter(|&n| allowed(n)));
            s = &end[used..];
        }
        match s.strip_prefix(',') {
            Some(rest) => s = rest,
            None if s.is_empty() => break,
            None => return Err(None),
        }
    }
    if invert {
        let last = all.last().map_or(0, |&l| l + 1);
        mask = (0..last).filter(|n| !mask.contains(n)).collect();
    }
    Ok(mask.into_iter().map(|n| n as u32).collect())
}

/// C's `strtoul(s, &end, 0)`: blanks, a sign, `0x` hex, a leading `0` octal, else
/// decimal; a negative number wraps, one too large is the largest. `None`: no digit
/// read (`end == s`); else the value and the bytes read.
fn strtoul(s: &str) -> Option<(u64, usize)> {
    let b = s.as_bytes();
    let mut i = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    let neg = b.get(i) == Some(&b'-');
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let hex = b.get(i) == Some(&b'0')
        && matches!(b.get(i + 1), Some(b'x' | b'X'))
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
    let (radix, start) = match (hex, b.get(i)) {
        (true, _) => (16, i + 2),
        (false, Some(b'0')) => (8, i),
        _ => (10, i),
    };
    let digits = b[start..]
        .iter()
        .take_while(|c| (**c as char).is_digit(radix))
        .count();
    if digits == 0 {
        return None;
    }
    let text = &s[start..start + digits];
    let n = match u64::from_str_radix(text, radix) {
        Ok(n) if neg => n.wrapping_neg(),
        Ok(n) => n,
        // ERANGE: the largest, whatever the sign
        Err(_) => u64::MAX,
    };
    Some((n, start + digits))
}

pub fn parse_nodes(s: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim) {
        let num = |x: &str| -> Result<u32, String> {
            x.trim()
                .parse::<u32>()
                .ok()
                .filter(|&n| n < 1024)
                .ok_or_else(|| format!("'{x}' is not a node number (0-1023)"))
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return Err(format!("'{part}': range goes backwards"));
                }
                out.extend(a..=b);
            }
            None => out.push(num(part)?),
        }
    }
    out.sort_unstable();
    out.dedup();
    if out.is_empty() {
        return Err("empty node list".into());
    }
    Ok(out)
}

/// Parse `numa_mem_policy=MODE[:NODES]` (fio: default, prefer, bind, interleave, local).
pub fn parse_mem_policy(s: &str) -> Result<(MemMode, Vec<u32>), String> {
    let (m, nodes) = match s.split_once(':') {
        Some((m, n)) => (m.trim(), Some(n)),
        None => (s.trim(), None),
    };
    let mode = match m {
        "default" => MemMode::Default,
        "prefer" => MemMode::Prefer,
        "bind" => MemMode::Bind,
        "interleave" => MemMode::Interleave,
        "local" => MemMode::Local,
        _ => {
            return Err(
                "accepted: default, prefer:NODE, bind:NODES, interleave:NODES, local".into(),
            )
        }
    };
    let list = match (mode, nodes) {
        (MemMode::Default | MemMode::Local, None) => Vec::new(),
        (MemMode::Default | MemMode::Local, Some(_)) => {
            return Err(format!("{m} takes no node list"))
        }
        (_, None) => return Err(format!("{m} needs a node list ({m}:0 or {m}:0-1)")),
        (_, Some(n)) => parse_nodes(n)?,
    };
    if mode == MemMode::Prefer && list.len() != 1 {
        return Err("prefer takes exactly one node".into());
    }
    Ok((mode, list))
}

/// Parse one direction of `cmdprio_bssplit`: `BS/PCT[/CLASS/LEVEL[/HINT]]:…`. The
/// percentages of the entries of one block size add up to at most 100.
pub fn parse_prio_split(s: &str, kb: u64) -> Result<Vec<PrioSplit>, String> {
    let mut out: Vec<PrioSplit> = Vec::new();
    for e in s.split(':').map(str::trim).filter(|e| !e.is_empty()) {
        let f: Vec<&str> = e.split('/').map(str::trim).collect();
        if !matches!(f.len(), 2 | 4 | 5) {
            return Err(format!(
                "'{e}': entries are BS/PCT, BS/PCT/CLASS/LEVEL or BS/PCT/CLASS/LEVEL/HINT"
            ));
        }
        let bs = fio_size(f[0], kb)?;
        let int = |x: &str, max: u32, what: &str| -> Result<u32, String> {
            x.parse::<u32>()
                .ok()
                .filter(|&n| n <= max)
                .ok_or_else(|| format!("'{e}': {what} must be 0-{max}"))
        };
        let pct = int(f[1], 100, "percentage")?;
        let prio = if f.len() >= 4 {
            let hint = if f.len() == 5 {
                int(f[4], 1023, "hint")? as u16
            } else {
                0
            };
            Some((
                int(f[2], 3, "class")? as u8,
                int(f[3], 7, "level")? as u8,
                hint,
            ))
        } else {
            None
        };
        out.push(PrioSplit { bs, pct, prio });
    }
    let mut sums: Vec<(u64, u32)> = Vec::new();
    for p in &out {
        match sums.iter_mut().find(|s| s.0 == p.bs) {
            Some(s) => s.1 += p.pct,
            None => sums.push((p.bs, p.pct)),
        }
    }
    if let Some((bs, sum)) = sums.iter().find(|s| s.1 > 100) {
        return Err(format!(
            "percentages for block size {bs} sum to {sum}, at most 100"
        ));
    }
    Ok(out)
}

/// `READ[,WRITE[,TRIM]]` through `f`: WRITE defaults to READ, TRIM is ignored.
pub(crate) fn two<T: Copy>(
    v: &str,
    f: &dyn Fn(&str) -> Result<T, String>,
) -> Result<[T; 2], String> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 3 {
        return Err("at most read,write[,trim] values".into());
    }
    let r = f(parts[0])?;
    let w = match parts.get(1).filter(|p| !p.trim().is_empty()) {
        Some(p) => f(p)?,
        None => r,
    };
    Ok([r, w])
}

/// A whole number `0..=max`, as a per-direction value parser.
pub(crate) fn small(max: u32) -> impl Fn(&str) -> Result<u32, String> {
    move |x: &str| {
        x.trim()
            .parse::<u32>()
            .ok()
            .filter(|&n| n <= max)
            .ok_or_else(|| format!("'{}' is not a whole number 0-{max}", x.trim()))
    }
}

/// Cross-key checks of this module (fio's rules), as a one-line reason.
/// (Which engines take the cmdprio options is the job's engine check's, finish.rs.)
pub fn validate(x: &PrioNumaDedupeOpts) -> Result<(), String> {
    if x.cmdprio_percentage.is_some() && x.cmdprio_bssplit.is_some() {
        return Err("cmdprio_percentage and cmdprio_bssplit exclude each other".into());
    }
    // `dedupe_global=1` in `repeat` mode is accepted and changes nothing, as fio 3.33
    // (dedupe.c shares only a working set's seeds)
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prioclass_0_is_best_effort_as_fio() {
        let mut x = PrioNumaDedupeOpts {
            prio: Some(4),
            prioclass: Some(0),
            ..Default::default()
        };
        assert_eq!(x.thread_ioprio(), Some((2 << 13) | 4));
        x.prioclass = None;
        assert_eq!(x.thread_ioprio(), Some((2 << 13) | 4));
        x.prioclass = Some(1);
        assert_eq!(x.thread_ioprio(), Some((1 << 13) | 4));
        x.prio = None;
        x.prioclass = None;
        assert_eq!(x.thread_ioprio(), None);
    }

    #[test]
    fn dedupe_global_is_accepted_in_repeat_mode_as_fio() {
        let mut x = PrioNumaDedupeOpts {
            dedupe_percentage: 3,
            dedupe_global: true,
            ..Default::default()
        };
        assert_eq!(x.dedupe_mode, DedupeMode::Repeat);
        assert_eq!(validate(&x), Ok(()));
        x.cmdprio_percentage = Some([10, 10]);
        x.cmdprio_bssplit = Some(Default::default());
        assert!(validate(&x).is_err());
    }

    #[test]
    fn ioprio_layout_is_linuxs() {
        assert_eq!(ioprio_value(1, 0, 0), 0x2000);
        assert_eq!(ioprio_value(3, 0, 0), 0x6000);
        assert_eq!(ioprio_value(2, 7, 0), 0x4007);
        assert_eq!(ioprio_value(2, 0, 3), 0x4018);
    }

    #[test]
    fn prio_split_formats() {
        let s = parse_prio_split("64k/25/1/1:64k/75/3/2:1024k/0", 1024).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(
            s[1],
            PrioSplit {
                bs: 65536,
                pct: 75,
                prio: Some((3, 2, 0))
            }
        );
        let s = parse_prio_split("1M/10/2/0/1:2M/90/2/0/0", 1024).unwrap();
        assert_eq!(s[0].prio, Some((2, 0, 1)));
        assert_eq!(s[1].bs, 2 << 20);
        assert!(parse_prio_split("64k/60:64k/50", 1024)
            .unwrap_err()
            .contains("sum to 110"));
        assert!(parse_prio_split("64k/10/1", 1024).is_err());
        assert!(parse_prio_split("64k/10/4/0", 1024).is_err());
    }

    #[test]
    fn nodes_and_policies() {
        assert_eq!(parse_nodes("0-2,5"), Ok(vec![0, 1, 2, 5]));
        assert!(parse_nodes("2-1").is_err());
        assert_eq!(
            parse_mem_policy("interleave:0-1"),
            Ok((MemMode::Interleave, vec![0, 1]))
        );
        assert_eq!(parse_mem_policy("local"), Ok((MemMode::Local, vec![])));
        assert!(parse_mem_policy("prefer:0-1").is_err());
        assert!(parse_mem_policy("bind").is_err());
        assert!(parse_mem_policy("spread:0").is_err());
    }
}
