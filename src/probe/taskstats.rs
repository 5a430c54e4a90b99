//! The kernel's per-task exit records (taskstats over generic netlink,
//! Documentation/accounting/taskstats.rst) and the delay-accounting switch they depend
//! on (`/proc/sys/kernel/task_delayacct`, read here through [`Root`]; written by
//! files/sysctl.rs). `iomark time` listens for the exit record of every task on every
//! CPU while its command runs ([`Listener`]) and keeps, per task, what it needs: the
//! time blocked on synchronous block I/O (`blkio_delay_total`), the CPU times and the
//! I/O counters. Registering a listener needs CAP_NET_ADMIN (root) in the initial
//! namespaces; [`Listener::open`] says why when it cannot.
//!
//! Only the reading lives here: which records belong to the command's process tree is
//! decided by run/time.rs ([`tree`]).

use super::Root;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// `/proc/sys/kernel/task_delayacct`: whether the kernel records tasks' delays
/// (`None`: the file does not exist — a kernel before 5.14 or without delay accounting).
pub fn delayacct(root: &Root) -> Option<bool> {
    match root.read("/proc/sys/kernel/task_delayacct")?.trim() {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    }
}

/// The CPU list a listener registers for: `/sys/devices/system/cpu/possible` (`0-1`).
pub fn possible_cpus(root: &Root) -> Option<String> {
    let s = root.read("/sys/devices/system/cpu/possible")?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// What one exited task's record says (struct taskstats, the fields iomark uses).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskExit {
    /// thread id (`ac_pid`)
    pub pid: u32,
    /// thread group id (`ac_tgid`, taskstats version ≥ 12; else the pid)
    pub tgid: u32,
    /// parent's thread group id at exit (`ac_ppid`)
    pub ppid: u32,
    /// command name (`ac_comm`)
    pub comm: String,
    /// synchronous block I/O waits (`blkio_count`)
    pub blkio_count: u64,
    /// ns blocked on synchronous block I/O (`blkio_delay_total`)
    pub blkio_delay_ns: u64,
    /// the longest of those waits, ns (`blkio_delay_max`, taskstats version ≥ 16:
    /// Linux 6.16 and later; `None` before)
    pub blkio_delay_max_ns: Option<u64>,
    /// ns waiting for swap-in (`swapin_delay_total`)
    pub swapin_delay_ns: u64,
    /// ns runnable but waiting for a CPU (`cpu_delay_total`)
    pub cpu_delay_ns: u64,
    /// time from the task's start to its exit, µs (`ac_etime`)
    pub etime_us: u64,
    /// user CPU, µs (`ac_utime`)
    pub utime_us: u64,
    /// system CPU, µs (`ac_stime`)
    pub stime_us: u64,
    /// bytes passed to read calls (`read_char`)
    pub rchar: u64,
    /// bytes passed to write calls (`write_char`)
    pub wchar: u64,
    /// bytes fetched from storage (`read_bytes`)
    pub read_bytes: u64,
    /// bytes sent to storage, counted when dirtied (`write_bytes`)
    pub write_bytes: u64,
}

// Offsets in struct taskstats (include/uapi/linux/taskstats.h, the C layout with its
// aligned(8) members); unit test `offsets_follow_the_header`.
const OFF_VERSION: usize = 0;
const OFF_CPU_DELAY: usize = 24;
const OFF_BLKIO_COUNT: usize = 32;
const OFF_BLKIO_DELAY: usize = 40;
const OFF_SWAPIN_DELAY: usize = 56;
const OFF_COMM: usize = 80;
const COMM_LEN: usize = 32;
const OFF_PID: usize = 128;
const OFF_PPID: usize = 132;
const OFF_ETIME: usize = 144;
const OFF_UTIME: usize = 152;
const OFF_STIME: usize = 160;
const OFF_RCHAR: usize = 216;
const OFF_WCHAR: usize = 224;
const OFF_READ_BYTES: usize = 248;
const OFF_WRITE_BYTES: usize = 256;
/// the struct up to `write_bytes` (version 4 and later)
const MIN_LEN: usize = 264;
const OFF_TGID: usize = 368;
/// `blkio_delay_max` (version 16: after v14's `irq_count`, `irq_delay_total` at 416,
/// the `*_delay_max`, `*_delay_min` pairs from 432, CPU's first)
const OFF_BLKIO_MAX: usize = 448;

fn u64_at(b: &[u8], off: usize) -> u64 {
    b.get(off..off + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u64::from_ne_bytes)
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    b.get(off..off + 4)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u32::from_ne_bytes)
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    b.get(off..off + 2)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u16::from_ne_bytes)
}

/// Parse a `struct taskstats` payload (`None`: shorter than the fields iomark reads).
pub fn parse_stats(b: &[u8]) -> Option<TaskExit> {
    if b.len() < MIN_LEN {
        return None;
    }
    let version = u16_at(b, OFF_VERSION);
    let pid = u32_at(b, OFF_PID);
    let comm = &b[OFF_COMM..OFF_COMM + COMM_LEN];
    let end = comm.iter().position(|&c| c == 0).unwrap_or(COMM_LEN);
    let tgid = if version >= 12 && b.len() >= OFF_TGID + 4 {
        u32_at(b, OFF_TGID)
    } else {
        pid
    };
    Some(TaskExit {
        pid,
        tgid,
        ppid: u32_at(b, OFF_PPID),
        comm: String::from_utf8_lossy(&comm[..end]).into_owned(),
        blkio_count: u64_at(b, OFF_BLKIO_COUNT),
        blkio_delay_ns: u64_at(b, OFF_BLKIO_DELAY),
        blkio_delay_max_ns: (version >= 16 && b.len() >= OFF_BLKIO_MAX + 8)
            .then(|| u64_at(b, OFF_BLKIO_MAX)),
        swapin_delay_ns: u64_at(b, OFF_SWAPIN_DELAY),
        cpu_delay_ns: u64_at(b, OFF_CPU_DELAY),
        etime_us: u64_at(b, OFF_ETIME),
        utime_us: u64_at(b, OFF_UTIME),
        stime_us: u64_at(b, OFF_STIME),
        rchar: u64_at(b, OFF_RCHAR),
        wchar: u64_at(b, OFF_WCHAR),
        read_bytes: u64_at(b, OFF_READ_BYTES),
        write_bytes: u64_at(b, OFF_WRITE_BYTES),
    })
}

// netlink and generic netlink constants (linux/netlink.h, linux/genetlink.h)
const NLMSG_HDRLEN: usize = 16;
const GENL_HDRLEN: usize = 4;
const NLMSG_ERROR: u16 = 2;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_ACK: u16 = 4;
const GENL_ID_CTRL: u16 = 0x10;
const CTRL_CMD_GETFAMILY: u8 = 3;
const CTRL_ATTR_FAMILY_ID: u16 = 1;
const CTRL_ATTR_FAMILY_NAME: u16 = 2;
const TASKSTATS_CMD_GET: u8 = 1;
const TASKSTATS_CMD_NEW: u8 = 2;
const TASKSTATS_TYPE_STATS: u16 = 3;
const TASKSTATS_TYPE_AGGR_PID: u16 = 4;
const TASKSTATS_CMD_ATTR_REGISTER_CPUMASK: u16 = 3;
const NLA_TYPE_MASK: u16 = 0x3fff;

fn align4(n: usize) -> usize {
    (n + 3) & !3
}

/// The attributes (type, payload) of a netlink attribute stream; a malformed tail ends it.
pub fn attrs(mut b: &[u8]) -> Vec<(u16, &[u8])> {
    let mut out = vec![];
    while b.len() >= 4 {
        let len = usize::from(u16_at(b, 0));
        if len < 4 || len > b.len() {
            break;
        }
        out.push((u16_at(b, 2) & NLA_TYPE_MASK, &b[4..len]));
        b = &b[align4(len).min(b.len())..];
    }
    out
}

/// One generic netlink request: header, genl header (`cmd`, version 1), one attribute.
fn request(family: u16, flags: u16, cmd: u8, attr: u16, payload: &[u8]) -> Vec<u8> {
    let alen = 4 + payload.len();
    let len = NLMSG_HDRLEN + GENL_HDRLEN + align4(alen);
    let mut m = Vec::with_capacity(len);
    m.extend_from_slice(&(len as u32).to_ne_bytes());
    m.extend_from_slice(&family.to_ne_bytes());
    m.extend_from_slice(&(NLM_F_REQUEST | flags).to_ne_bytes());
    m.extend_from_slice(&1u32.to_ne_bytes()); // seq
    m.extend_from_slice(&0u32.to_ne_bytes()); // port: the kernel
    m.extend_from_slice(&[cmd, 1, 0, 0]);
    m.extend_from_slice(&(alen as u16).to_ne_bytes());
    m.extend_from_slice(&attr.to_ne_bytes());
    m.extend_from_slice(payload);
    m.resize(len, 0);
    m
}

/// What one received datagram holds: exit records, or the errno of an error reply
/// (0: an acknowledgement).
#[derive(Debug, Default, PartialEq)]
pub struct Datagram {
    /// taskstats exit records (per task, TASKSTATS_TYPE_AGGR_PID)
    pub exits: Vec<TaskExit>,
    /// family id of a CTRL_CMD_GETFAMILY reply
    pub family: Option<u16>,
    /// errno of an NLMSG_ERROR (0 = ack)
    pub error: Option<i32>,
}

/// Parse the netlink messages of one datagram.
pub fn parse_datagram(mut b: &[u8]) -> Datagram {
    let mut d = Datagram::default();
    while b.len() >= NLMSG_HDRLEN {
        let len = u32_at(b, 0) as usize;
        if len < NLMSG_HDRLEN || len > b.len() {
            break;
        }
        let (ty, body) = (u16_at(b, 4), &b[NLMSG_HDRLEN..len]);
        if ty == NLMSG_ERROR {
            d.error = Some(-(u32_at(body, 0) as i32));
        } else if body.len() >= GENL_HDRLEN {
            let cmd = body[0];
            for (at, p) in attrs(&body[GENL_HDRLEN..]) {
                if ty == GENL_ID_CTRL && at == CTRL_ATTR_FAMILY_ID {
                    d.family = Some(u16_at(p, 0));
                } else if cmd == TASKSTATS_CMD_NEW && at == TASKSTATS_TYPE_AGGR_PID {
                    let stats = attrs(p)
                        .into_iter()
                        .find(|(t, _)| *t == TASKSTATS_TYPE_STATS);
                    d.exits.extend(stats.and_then(|(_, s)| parse_stats(s)));
                }
            }
        }
        b = &b[align4(len).min(b.len())..];
    }
    d
}

/// A netlink socket (closed on drop).
struct Sock(i32);

impl Drop for Sock {
    fn drop(&mut self) {
        // SAFETY: closing the descriptor this value owns.
        unsafe { libc::close(self.0) };
    }
}

impl Sock {
    fn open() -> std::io::Result<Sock> {
        // SAFETY: socket(2) with constant arguments.
        let fd = unsafe {
            libc::socket(
                libc::AF_NETLINK,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                libc::NETLINK_GENERIC,
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let s = Sock(fd);
        // a big receive buffer (root may exceed rmem_max): a busy tree exits fast
        let size: libc::c_int = 32 << 20;
        let tv = libc::timeval {
            tv_sec: 0,
            tv_usec: 50_000,
        };
        // SAFETY: setsockopt(2) with pointers to values we own and their sizes.
        unsafe {
            let p = (&size as *const libc::c_int).cast();
            let n = std::mem::size_of::<libc::c_int>() as u32;
            if libc::setsockopt(fd, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, p, n) != 0 {
                libc::setsockopt(fd, libc::SOL_SOCKET, libc::SO_RCVBUF, p, n);
            }
            let t = (&tv as *const libc::timeval).cast();
            let tn = std::mem::size_of::<libc::timeval>() as u32;
            libc::setsockopt(fd, libc::SOL_SOCKET, libc::SO_RCVTIMEO, t, tn);
        }
        Ok(s)
    }

    fn send(&self, m: &[u8]) -> std::io::Result<()> {
        // SAFETY: a zeroed sockaddr_nl (the kernel, port 0) and a buffer we own.
        let r = unsafe {
            let mut sa: libc::sockaddr_nl = std::mem::zeroed();
            sa.nl_family = libc::AF_NETLINK as u16;
            libc::sendto(
                self.0,
                m.as_ptr().cast(),
                m.len(),
                0,
                (&sa as *const libc::sockaddr_nl).cast(),
                std::mem::size_of::<libc::sockaddr_nl>() as u32,
            )
        };
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// One datagram (`Ok(None)`: the receive timeout passed; ENOBUFS is returned as an
    /// error: records were dropped).
    fn recv(&self, buf: &mut [u8], flags: i32) -> std::io::Result<Option<usize>> {
        // SAFETY: recv(2) into a buffer we own, with its length.
        let n = unsafe { libc::recv(self.0, buf.as_mut_ptr().cast(), buf.len(), flags) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(None),
            _ => Err(e),
        }
    }

    /// Send a request and read its answer.
    fn ask(&self, m: &[u8]) -> std::io::Result<Datagram> {
        self.send(m)?;
        let mut buf = vec![0u8; 16384];
        for _ in 0..40 {
            if let Some(n) = self.recv(&mut buf, 0)? {
                let d = parse_datagram(&buf[..n]);
                if d.family.is_some() || d.error.is_some() {
                    return Ok(d);
                }
            }
        }
        Err(std::io::Error::from(std::io::ErrorKind::TimedOut))
    }
}

/// The exit records collected by a [`Listener`].
#[derive(Debug, Default)]
pub struct Collected {
    /// every task that exited while listening, on the whole machine
    pub exits: Vec<TaskExit>,
    /// the receive buffer overflowed: some records were dropped (ENOBUFS)
    pub lost: bool,
}

/// A registered listener for the exit records of every task on every CPU, read by its
/// own thread until [`Listener::finish`].
pub struct Listener {
    stop: Arc<AtomicBool>,
    got: Arc<Mutex<Collected>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Listener {
    /// Register for exit records on `cpus` (a CPU list such as `0-1`); an error says why
    /// it cannot (EPERM: not root).
    pub fn open(cpus: &str) -> Result<Listener, String> {
        let sock = Sock::open().map_err(|e| format!("netlink socket: {e}"))?;
        let name = b"TASKSTATS\0";
        let q = request(
            GENL_ID_CTRL,
            0,
            CTRL_CMD_GETFAMILY,
            CTRL_ATTR_FAMILY_NAME,
            name,
        );
        let fam = match sock.ask(&q) {
            Ok(Datagram {
                family: Some(f), ..
            }) => f,
            Ok(_) => return Err("the kernel has no TASKSTATS netlink family".into()),
            Err(e) => return Err(format!("netlink family lookup: {e}")),
        };
        let mut mask = cpus.as_bytes().to_vec();
        mask.push(0);
        let reg = request(
            fam,
            NLM_F_ACK,
            TASKSTATS_CMD_GET,
            TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
            &mask,
        );
        match sock.ask(&reg) {
            Ok(Datagram { error: Some(0), .. }) => {}
            Ok(Datagram { error: Some(e), .. }) => {
                let why = std::io::Error::from_raw_os_error(e);
                return Err(format!("registering for exit records: {why}"));
            }
            Ok(_) => return Err("registering for exit records: no answer".into()),
            Err(e) => return Err(format!("registering for exit records: {e}")),
        }
        let stop = Arc::new(AtomicBool::new(false));
        let got = Arc::new(Mutex::new(Collected::default()));
        let (s, g) = (Arc::clone(&stop), Arc::clone(&got));
        let reader = std::thread::Builder::new()
            .name("taskstats".into())
            .spawn(move || read_loop(&sock, &s, &g))
            .map_err(|e| format!("reader thread: {e}"))?;
        Ok(Listener {
            stop,
            got,
            reader: Some(reader),
        })
    }

    /// Stop listening once the records queued so far are read; everything collected.
    pub fn finish(mut self) -> Collected {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        std::mem::take(&mut *self.got.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Read datagrams until asked to stop and the queue is empty (the socket closes with
/// the thread, which deregisters the listener).
fn read_loop(sock: &Sock, stop: &AtomicBool, got: &Mutex<Collected>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let stopping = stop.load(Ordering::SeqCst);
        let flags = if stopping { libc::MSG_DONTWAIT } else { 0 };
        match sock.recv(&mut buf, flags) {
            Ok(Some(n)) => {
                let d = parse_datagram(&buf[..n]);
                let mut g = got.lock().unwrap_or_else(|e| e.into_inner());
                g.exits.extend(d.exits);
            }
            Ok(None) if stopping => return,
            Ok(None) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) => {
                got.lock().unwrap_or_else(|e| e.into_inner()).lost = true;
            }
            Err(_) => return,
        }
    }
}

/// The records of the process tree under `top` (the tgid whose children are the tree's
/// roots: iomark itself, a child subreaper): every task whose parent at exit was `top`
/// or a process of the tree, found to a fixed point (a task can exit before its
/// parent's record arrives).
pub fn tree(exits: &[TaskExit], top: u32) -> Vec<&TaskExit> {
    let mut members: HashSet<u32> = HashSet::from([top]);
    let mut by_parent: HashMap<u32, Vec<&TaskExit>> = HashMap::new();
    for e in exits.iter().filter(|e| e.tgid != top) {
        by_parent.entry(e.ppid).or_default().push(e);
    }
    let mut out = vec![];
    let mut todo = vec![top];
    while let Some(p) = todo.pop() {
        for e in by_parent.remove(&p).unwrap_or_default() {
            if members.insert(e.tgid) {
                todo.push(e.tgid);
            }
            out.push(e);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A struct taskstats of version 13 (416 bytes) with the given values.
    pub fn stats(pid: u32, tgid: u32, ppid: u32, blkio_ns: u64, read_bytes: u64) -> Vec<u8> {
        let mut b = vec![0u8; 416];
        b[0..2].copy_from_slice(&13u16.to_ne_bytes());
        b[OFF_BLKIO_DELAY..OFF_BLKIO_DELAY + 8].copy_from_slice(&blkio_ns.to_ne_bytes());
        // lived 10 s: any delay the tests give is possible
        b[OFF_ETIME..OFF_ETIME + 8].copy_from_slice(&10_000_000u64.to_ne_bytes());
        b[OFF_COMM..OFF_COMM + 2].copy_from_slice(b"dd");
        b[OFF_PID..OFF_PID + 4].copy_from_slice(&pid.to_ne_bytes());
        b[OFF_PPID..OFF_PPID + 4].copy_from_slice(&ppid.to_ne_bytes());
        b[OFF_READ_BYTES..OFF_READ_BYTES + 8].copy_from_slice(&read_bytes.to_ne_bytes());
        b[OFF_TGID..OFF_TGID + 4].copy_from_slice(&tgid.to_ne_bytes());
        b
    }

    /// Version 16 (Linux 6.16+, 560 bytes) gives the longest wait, `blkio_delay_max`, at
    /// 448 (read back on this VM's 6.18: between `blkio_delay_min` and the total over
    /// the count); older or shorter records do not.
    #[test]
    fn the_longest_wait_from_version_16() {
        let mut b = stats(7, 7, 1, 900, 0);
        assert_eq!(parse_stats(&b).unwrap().blkio_delay_max_ns, None);
        b.resize(560, 0);
        b[0..2].copy_from_slice(&16u16.to_ne_bytes());
        b[OFF_BLKIO_MAX..OFF_BLKIO_MAX + 8].copy_from_slice(&600u64.to_ne_bytes());
        assert_eq!(parse_stats(&b).unwrap().blkio_delay_max_ns, Some(600));
        assert_eq!(
            parse_stats(&b[..OFF_BLKIO_MAX]).unwrap().blkio_delay_max_ns,
            None
        );
    }

    /// The offsets are those of the C struct: u64 members after the 8-aligned
    /// `cpu_count` (16), `ac_comm` after eight u64 (80), `ac_uid` 8-aligned after the
    /// 4 bytes of `ac_sched`/`ac_pad` (120), then gid, pid, ppid, btime, and `ac_etime`
    /// 8-aligned (144) followed by u64s up to `write_bytes`; v12's `ac_tgid` after 19
    /// u64 from `nvcsw` (272 + 12 × 8 = 368).
    #[test]
    fn offsets_follow_the_header() {
        assert_eq!(OFF_CPU_DELAY, 16 + 8);
        assert_eq!(OFF_BLKIO_DELAY, 16 + 3 * 8);
        assert_eq!(OFF_COMM, 16 + 8 * 8);
        assert_eq!(OFF_PID, 120 + 8);
        assert_eq!(OFF_PPID, OFF_PID + 4);
        assert_eq!(OFF_UTIME, OFF_ETIME + 8);
        assert_eq!(OFF_ETIME, 144);
        assert_eq!(OFF_RCHAR, 144 + 9 * 8);
        assert_eq!(OFF_READ_BYTES, OFF_RCHAR + 4 * 8);
        assert_eq!(OFF_TGID, 272 + 12 * 8);
        let t = parse_stats(&stats(7, 5, 1, 900, 4096)).unwrap();
        assert_eq!((t.pid, t.tgid, t.ppid), (7, 5, 1));
        assert_eq!((t.blkio_delay_ns, t.read_bytes), (900, 4096));
        assert_eq!(t.comm, "dd");
        assert!(parse_stats(&[0u8; 100]).is_none());
    }

    fn nlmsg(ty: u16, body: &[u8]) -> Vec<u8> {
        let len = NLMSG_HDRLEN + body.len();
        let mut m = vec![];
        m.extend_from_slice(&(len as u32).to_ne_bytes());
        m.extend_from_slice(&ty.to_ne_bytes());
        m.extend_from_slice(&[0u8; 10]);
        m.extend_from_slice(body);
        m.resize(align4(len), 0);
        m
    }

    fn attr(ty: u16, p: &[u8]) -> Vec<u8> {
        let mut a = vec![];
        a.extend_from_slice(&((4 + p.len()) as u16).to_ne_bytes());
        a.extend_from_slice(&ty.to_ne_bytes());
        a.extend_from_slice(p);
        a.resize(align4(a.len()), 0);
        a
    }

    #[test]
    fn exit_records_acks_and_family_replies_are_read() {
        let inner = [attr(1, &7u32.to_ne_bytes()), attr(3, &stats(7, 7, 1, 5, 0))].concat();
        let body = [vec![TASKSTATS_CMD_NEW, 1, 0, 0], attr(4 | 0x8000, &inner)].concat();
        let d = parse_datagram(&nlmsg(27, &body));
        assert_eq!(d.exits.len(), 1);
        assert_eq!(d.exits[0].blkio_delay_ns, 5);
        let ack = nlmsg(NLMSG_ERROR, &[0u8; 20]);
        assert_eq!(parse_datagram(&ack).error, Some(0));
        let eperm = nlmsg(NLMSG_ERROR, &(-1i32).to_ne_bytes());
        assert_eq!(parse_datagram(&eperm).error, Some(libc::EPERM));
        let fam = [
            vec![1, 2, 0, 0],
            attr(CTRL_ATTR_FAMILY_ID, &31u16.to_ne_bytes()),
        ]
        .concat();
        assert_eq!(parse_datagram(&nlmsg(GENL_ID_CTRL, &fam)).family, Some(31));
        // truncated and garbage input: nothing, no panic
        assert_eq!(parse_datagram(&[1, 2, 3]), Datagram::default());
        let mut cut = nlmsg(27, &body);
        cut.truncate(40);
        assert!(parse_datagram(&cut).exits.is_empty());
        assert!(attrs(&[0xff, 0xff, 0, 0, 1]).is_empty());
    }

    /// A grandchild that exits before its parent's record arrives still belongs; an
    /// unrelated task and iomark's own threads do not; threads count by their tgid.
    #[test]
    fn the_tree_is_found_from_the_parents() {
        let e = |pid, tgid, ppid| parse_stats(&stats(pid, tgid, ppid, 1, 0)).unwrap();
        let exits = [
            e(30, 30, 20), // grandchild of 100, before its parent's record
            e(31, 30, 20), // a thread of it
            e(40, 40, 30), // great-grandchild
            e(20, 20, 100),
            e(50, 50, 99),  // someone else's
            e(101, 100, 1), // iomark's own thread
            e(60, 60, 100), // an orphan reparented to the subreaper
        ];
        let mut got: Vec<u32> = tree(&exits, 100).iter().map(|t| t.pid).collect();
        got.sort_unstable();
        assert_eq!(got, [20, 30, 31, 40, 60]);
    }

    #[test]
    fn the_switch_is_read() {
        let d = tempfile::tempdir().unwrap();
        let root = Root(d.path().to_path_buf());
        assert_eq!(delayacct(&root), None);
        crate::probe::tests::put(d.path(), "proc/sys/kernel/task_delayacct", "1\n");
        assert_eq!(delayacct(&root), Some(true));
        crate::probe::tests::put(d.path(), "sys/devices/system/cpu/possible", "0-1\n");
        assert_eq!(possible_cpus(&root).as_deref(), Some("0-1"));
    }
}
