//! NUMA binding of a job thread (fio's `numa_cpu_nodes`, `numa_mem_policy`): the
//! thread's CPU set becomes the CPUs of the named nodes (sched_setaffinity(2), from
//! `/sys/devices/system/node/nodeN/cpulist`) and its memory policy is set with
//! set_mempolicy(2) before its buffers are allocated. Node lists are checked against
//! the nodes that exist before any file is touched. sysfs is read through
//! [`crate::probe::Root`], so tests give machines with other nodes.

use crate::job::fio::extra::MemMode;
use crate::job::fio::FioJob;
use crate::probe::Root;

/// Directory of the node entries.
const NODES: &str = "/sys/devices/system/node";

/// Node numbers present under `root` (sorted); `[0]` when the kernel has no NUMA
/// directory (a non-NUMA kernel runs everything on node 0).
pub fn nodes_present(root: &Root) -> Vec<u32> {
    let Some(names) = root.sys().list(NODES) else {
        return vec![0];
    };
    let mut v: Vec<u32> = names
        .iter()
        .filter_map(|n| n.strip_prefix("node").and_then(|n| n.parse().ok()))
        .collect();
    v.sort_unstable();
    if v.is_empty() {
        v.push(0);
    }
    v
}

/// Parse a kernel CPU list (`0-3,8,10-11`).
pub fn parse_cpulist(s: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for p in s.trim().split(',').filter(|p| !p.is_empty()) {
        match p.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.trim().parse::<usize>(), b.trim().parse::<usize>()) {
                    out.extend(a..=b.min(a + 4096));
                }
            }
            None => out.extend(p.trim().parse::<usize>().ok()),
        }
    }
    out
}

/// Format a node or CPU list compactly (`0-2,5`).
pub fn fmt_list<T: Copy + Into<u64>>(v: &[T]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let a: u64 = v[i].into();
        let mut j = i;
        while j + 1 < v.len() && v[j + 1].into() == v[j].into() + 1 {
            j += 1;
        }
        let b: u64 = v[j].into();
        out.push(if a == b {
            a.to_string()
        } else {
            format!("{a}-{b}")
        });
        i = j + 1;
    }
    out.join(",")
}

/// Check that every node `job` names exists under `root`. Error: one line naming the
/// option, the missing node and the nodes that exist.
pub fn check(job: &FioJob, root: &Root) -> Result<(), String> {
    let x = &job.extra;
    let present = nodes_present(root);
    let lists = [
        ("numa_cpu_nodes", x.numa_cpu_nodes.as_deref()),
        (
            "numa_mem_policy",
            x.numa_mem_policy.as_ref().map(|p| p.1.as_slice()),
        ),
    ];
    for (key, list) in lists {
        let Some(list) = list else { continue };
        if let Some(n) = list.iter().find(|n| !present.contains(n)) {
            return Err(format!(
                "{key}={}: node {n} does not exist (nodes here: {})",
                fmt_list(list),
                fmt_list(&present)
            ));
        }
    }
    Ok(())
}

/// CPUs of `nodes` under `root`, sorted.
pub fn node_cpus(root: &Root, nodes: &[u32]) -> Result<Vec<usize>, String> {
    let mut cpus = Vec::new();
    for n in nodes {
        let p = format!("{NODES}/node{n}/cpulist");
        let s = root
            .read(&p)
            .ok_or_else(|| format!("numa_cpu_nodes: cannot read {p}"))?;
        cpus.extend(parse_cpulist(&s));
    }
    cpus.sort_unstable();
    cpus.dedup();
    if cpus.is_empty() {
        return Err(format!(
            "numa_cpu_nodes={}: these nodes have no CPUs",
            fmt_list(nodes)
        ));
    }
    Ok(cpus)
}

/// Bind the calling thread as `job` asks; returns a one-line description of what was
/// applied (`None` when the job sets no NUMA option).
pub fn apply(job: &FioJob, root: &Root) -> Result<Option<String>, String> {
    let x = &job.extra;
    if x.numa_cpu_nodes.is_none() && x.numa_mem_policy.is_none() {
        return Ok(None);
    }
    let mut what = Vec::new();
    if let Some(nodes) = &x.numa_cpu_nodes {
        let cpus = node_cpus(root, nodes)?;
        // SAFETY: cpu_set_t is plain data; CPU_SET only touches bits inside it.
        let r = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &c in cpus.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
                libc::CPU_SET(c, &mut set);
            }
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
        };
        if r != 0 {
            return Err(format!(
                "numa_cpu_nodes={}: sched_setaffinity to CPUs {} failed: {}",
                fmt_list(nodes),
                fmt_list(&cpus.iter().map(|&c| c as u64).collect::<Vec<_>>()),
                std::io::Error::last_os_error()
            ));
        }
        what.push(format!(
            "numa_cpu_nodes={} -> CPUs {}",
            fmt_list(nodes),
            fmt_list(&cpus.iter().map(|&c| c as u64).collect::<Vec<_>>())
        ));
    }
    if let Some((mode, nodes)) = &x.numa_mem_policy {
        // MPOL_DEFAULT, MPOL_PREFERRED, MPOL_BIND, MPOL_INTERLEAVE, MPOL_LOCAL
        // (include/uapi/linux/mempolicy.h)
        let (m, name) = match mode {
            MemMode::Default => (0, "default"),
            MemMode::Prefer => (1, "prefer"),
            MemMode::Bind => (2, "bind"),
            MemMode::Interleave => (3, "interleave"),
            MemMode::Local => (4, "local"),
        };
        let mut mask = [0u64; 16];
        for &n in nodes {
            mask[(n / 64) as usize] |= 1 << (n % 64);
        }
        let (ptr, maxnode) = if nodes.is_empty() {
            (std::ptr::null(), 0u64)
        } else {
            (mask.as_ptr(), 16 * 64 + 1)
        };
        // SAFETY: the mask outlives the call; maxnode bounds what the kernel reads.
        let r = unsafe { libc::syscall(libc::SYS_set_mempolicy, m, ptr, maxnode) };
        let shown = if nodes.is_empty() {
            name.to_string()
        } else {
            format!("{name}:{}", fmt_list(nodes))
        };
        if r != 0 {
            return Err(format!(
                "numa_mem_policy={shown}: set_mempolicy failed: {}",
                std::io::Error::last_os_error()
            ));
        }
        what.push(format!("numa_mem_policy={shown}"));
    }
    Ok(Some(what.join("; ")))
}

/// The calling thread's allowed CPUs (sched_getaffinity(2)).
pub fn thread_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data filled by the kernel.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::fio::parse_args_with;

    fn job(opts: &[&str]) -> FioJob {
        let mut a: Vec<String> = vec!["--name=j".into(), "--size=1m".into()];
        a.extend(opts.iter().map(|s| s.to_string()));
        parse_args_with(&a, &|_| None).unwrap().jobs.remove(0)
    }

    /// A machine with two nodes: node0 = CPU 0, node1 = CPU 1 (fake sysfs root).
    fn two_nodes() -> (tempfile::TempDir, Root) {
        let d = tempfile::tempdir().unwrap();
        for (n, c) in [(0, "0\n"), (1, "1\n")] {
            let p = d.path().join(format!("sys/devices/system/node/node{n}"));
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("cpulist"), c).unwrap();
        }
        let r = Root(d.path().to_path_buf());
        (d, r)
    }

    #[test]
    fn lists_and_missing_nodes() {
        assert_eq!(parse_cpulist("0-3,8,10-11\n"), vec![0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(fmt_list(&[0u32, 1, 2, 5]), "0-2,5");
        let (_d, r) = two_nodes();
        assert_eq!(nodes_present(&r), vec![0, 1]);
        assert!(check(&job(&["--numa_cpu_nodes=0-1"]), &r).is_ok());
        let e = check(&job(&["--numa_mem_policy=bind:0,3"]), &r).unwrap_err();
        assert_eq!(
            e,
            "numa_mem_policy=0,3: node 3 does not exist (nodes here: 0-1)"
        );
        let e = check(&job(&["--numa_cpu_nodes=2"]), &r).unwrap_err();
        assert!(
            e.starts_with("numa_cpu_nodes=2: node 2 does not exist"),
            "{e}"
        );
    }

    /// The thread's affinity really becomes the node's CPUs: checked with
    /// sched_getaffinity and /proc/thread-self/status inside the bound thread.
    #[test]
    fn affinity_and_policy_are_applied_to_the_thread() {
        if thread_cpus().len() < 2 || !thread_cpus().contains(&1) {
            eprintln!("SKIPPED: needs CPUs 0 and 1");
            return;
        }
        let (_d, root) = two_nodes();
        let j = job(&["--numa_cpu_nodes=1", "--numa_mem_policy=bind:0"]);
        let (what, cpus, status) = std::thread::spawn(move || {
            let what = apply(&j, &root).unwrap();
            let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
            (what, thread_cpus(), status)
        })
        .join()
        .unwrap();
        assert_eq!(
            what.as_deref(),
            Some("numa_cpu_nodes=1 -> CPUs 1; numa_mem_policy=bind:0")
        );
        assert_eq!(cpus, vec![1]);
        let line = status
            .lines()
            .find(|l| l.starts_with("Cpus_allowed_list:"))
            .unwrap();
        assert_eq!(line.split_whitespace().nth(1), Some("1"), "{line}");
        if let Some(m) = status.lines().find(|l| l.starts_with("Mems_allowed_list:")) {
            assert!(m.ends_with('0'), "{m}");
        }
        // this thread is untouched
        assert!(thread_cpus().len() >= 2);
    }
}
