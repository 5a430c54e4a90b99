//! The engines as jobs name them: which engines exist ([`Kind`]: the name recorded in
//! results, the line of help `--cmdhelp=ioengine` shows, fio's aliases, the words
//! `ioengine=` accepts), the options of the engines that move no data ([`CpuMode`],
//! [`StatType`]) and of the net engine ([`NetOpts`], [`Proto`], with fio's checks of a net
//! job), and exec's pause. The job model (job/) parses into these types and the engines
//! (engine/) run by them, so both rooms use them from here without naming each other.
//! What an engine does and can do (its code, its `Caps`, building it) is engine/'s
//! (`engine::registry`); nothing here does I/O.

use std::time::Duration;

/// The engines there are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// pread/pwrite
    Psync,
    /// io_uring
    IoUring,
    /// Linux native AIO
    Libaio,
    /// POSIX AIO, glibc's aio_*
    Posixaio,
    /// whole-file mappings
    Mmap,
    /// no I/O at all
    Null,
    /// fallocate per request
    Falloc,
    /// ftruncate per write
    Ftruncate,
    /// burns CPU, no I/O
    Cpuio,
    /// creates each file
    FileCreate,
    /// stats each file
    FileStat,
    /// unlinks each file
    FileDelete,
    /// makes each directory
    DirCreate,
    /// stats each directory
    DirStat,
    /// removes each directory
    DirDelete,
    /// EXT4_IOC_MOVE_EXT per write
    E4Defrag,
    /// anonymous memory, a page fault per first touch
    PageFault,
    /// runs a program for the job's runtime
    Exec,
    /// sends and receives on a socket
    Net,
}

/// Every engine, in the order listed to users: the engines fio 3.33's `--cmdhelp=ioengine`
/// lists in its order, then iomark's others.
pub const KINDS: [Kind; 19] = [
    Kind::Psync,
    Kind::Libaio,
    Kind::IoUring,
    Kind::Posixaio,
    Kind::Mmap,
    Kind::Null,
    Kind::Net,
    Kind::Cpuio,
    Kind::E4Defrag,
    Kind::Falloc,
    Kind::FileCreate,
    Kind::Ftruncate,
    Kind::FileStat,
    Kind::FileDelete,
    Kind::DirCreate,
    Kind::DirStat,
    Kind::DirDelete,
    Kind::PageFault,
    Kind::Exec,
];

/// fio's other names of an engine iomark runs as another (`sync`, `pvsync` and `pvsync2`
/// run as psync; `pvsync2` with its own options, preadv2/pwritev2 and their RWF_ flags):
/// the name, the engine, fio's line of help, and whether fio lists it before the
/// engine's own name.
pub const ALIASES: [(&str, Kind, &str, bool); 3] = [
    ("sync", Kind::Psync, "Use read/write", true),
    ("pvsync", Kind::Psync, "Use preadv/pwritev", false),
    ("pvsync2", Kind::Psync, "Use preadv2/pwritev2", false),
];

/// Every word `ioengine=` accepts with its line of help, in the order of [`KINDS`] (each
/// alias beside its engine): the list `--cmdhelp=ioengine` and the completions show.
pub const ENGINE_WORDS: [(&str, &str); KINDS.len() + ALIASES.len()] = engine_words();

const fn engine_words() -> [(&'static str, &'static str); KINDS.len() + ALIASES.len()] {
    let mut out = [("", ""); KINDS.len() + ALIASES.len()];
    let (mut i, mut n) = (0, 0);
    while i < KINDS.len() {
        let k = KINDS[i];
        let mut pass = 0;
        while pass < 2 {
            let mut a = 0;
            while a < ALIASES.len() {
                let (word, kind, help, before) = ALIASES[a];
                if kind as u8 == k as u8 && before == (pass == 0) {
                    out[n] = (word, help);
                    n += 1;
                }
                a += 1;
            }
            if pass == 0 {
                out[n] = (k.name(), k.help());
                n += 1;
            }
            pass += 1;
        }
        i += 1;
    }
    out
}

/// The engine fio 3.33 runs a job with no `ioengine=` on (its `--cmdhelp=ioengine`
/// default).
pub const FIO_DEFAULT: &str = "psync";

/// fio's name of the engine an `ioengine=` value names: the value before its `:ARGS`
/// (`libaio`, `pvsync2`, `io_uring_cmd`). The job model keeps it (`FioJob::ioengine`)
/// and fio's getopt table follows it while the command line is read; both judge an
/// engine's options by that name.
pub fn fio_name(value: &str) -> &str {
    value.split(':').next().unwrap_or(value)
}

/// The word of [`ENGINE_WORDS`] that `name` is (fio's name of the engine as a job
/// gives it, an alias too), with the engine it runs as; `None`: no engine iomark runs.
pub fn word(name: &str) -> Option<(&'static str, Kind)> {
    let w = ENGINE_WORDS.iter().find(|w| w.0 == name)?.0;
    Some((w, Kind::parse(w)?))
}

impl Kind {
    /// The engine called `name` (as recorded in results: `psync`, `io_uring`, `libaio`,
    /// `posixaio`, `mmap`, `null`).
    pub fn named(name: &str) -> Option<Kind> {
        KINDS.into_iter().find(|k| k.name() == name)
    }

    /// Its name, as recorded in results.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Psync => "psync",
            Kind::IoUring => "io_uring",
            Kind::Libaio => "libaio",
            Kind::Posixaio => "posixaio",
            Kind::Mmap => "mmap",
            Kind::Null => "null",
            Kind::Falloc => "falloc",
            Kind::Ftruncate => "ftruncate",
            Kind::Cpuio => "cpuio",
            Kind::FileCreate => "filecreate",
            Kind::FileStat => "filestat",
            Kind::FileDelete => "filedelete",
            Kind::DirCreate => "dircreate",
            Kind::DirStat => "dirstat",
            Kind::DirDelete => "dirdelete",
            Kind::E4Defrag => "e4defrag",
            Kind::PageFault => "page_fault",
            Kind::Exec => "exec",
            Kind::Net => "net",
        }
    }

    /// Its line of help, for `--cmdhelp=ioengine` and completions (fio's words for the
    /// engines fio lists).
    pub const fn help(self) -> &'static str {
        match self {
            Kind::Psync => "Use pread/pwrite",
            Kind::IoUring => "Fast Linux native aio",
            Kind::Libaio => "Linux native asynchronous IO",
            Kind::Posixaio => "POSIX asynchronous IO",
            Kind::Mmap => "Memory mapped IO",
            Kind::Null => "Testing engine (no data transfer)",
            Kind::Falloc => "fallocate() file based engine",
            Kind::Ftruncate => "ftruncate() per write",
            Kind::Cpuio => "CPU cycle burner engine",
            Kind::FileCreate => "File creation engine",
            Kind::FileStat => "File stat engine",
            Kind::FileDelete => "File delete engine",
            Kind::DirCreate => "Directory creation engine",
            Kind::DirStat => "Directory stat engine",
            Kind::DirDelete => "Directory delete engine",
            Kind::E4Defrag => "ext4 defrag engine",
            Kind::PageFault => "Anonymous memory, a page fault per first touch",
            Kind::Exec => "Run a program for the job's runtime",
            Kind::Net => "Network IO",
        }
    }

    /// The engine a job file calls `name`: its [`Kind::name`] or one of fio's aliases
    /// of it (`sync`, `pvsync` run as psync).
    pub fn parse(name: &str) -> Option<Kind> {
        match ALIASES.iter().find(|a| a.0 == name) {
            Some(a) => Some(a.1),
            None => Kind::named(name),
        }
    }

    /// Queues requests (io_uring, libaio, posixaio): `iodepth` requests in flight,
    /// submit and completion timed apart (slat/clat); the others complete every request
    /// inside `submit`. The one definition: the job model checks a job by it and the
    /// runners size an engine's slots by it (`E::KIND.queues()`; engine/'s `Caps` does
    /// not repeat it).
    pub const fn queues(self) -> bool {
        matches!(self, Kind::IoUring | Kind::Libaio | Kind::Posixaio)
    }

    /// Carries a priority per request (fio's cmdprio_* options: io_uring and libaio).
    pub fn per_io_prio(self) -> bool {
        matches!(self, Kind::IoUring | Kind::Libaio)
    }

    /// Does only pseudo I/O (fio's FIO_NOIO: cpuio, exec): a request moves no bytes,
    /// so a job on it reports requests and latencies but no bytes, bandwidth or
    /// direction run time, and fio prints no section line for it.
    pub const fn pseudo_io(self) -> bool {
        matches!(self, Kind::Cpuio | Kind::Exec)
    }

    /// Moves no data (null, cpuio, falloc, ftruncate, the file and directory
    /// operations): nothing to verify.
    pub fn moves_no_data(self) -> bool {
        !matches!(
            self,
            Kind::Psync | Kind::IoUring | Kind::Libaio | Kind::Posixaio | Kind::Mmap
        )
    }
}

/// fio's `cpumode` (the cpuio engine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CpuMode {
    /// busy spin for the cycle
    #[default]
    Noop,
    /// sort a 1 MiB array four ways per request
    Qsort,
}

/// The stat call of `filestat`/`dirstat` (fio's `stat_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StatType {
    /// stat(2), fio's default
    #[default]
    Stat,
    /// lstat(2)
    Lstat,
    /// statx(2) of the absolute path
    Statx,
}

/// fio's pause per request while exec's program runs (engines/exec.c: 50 ms): the
/// engine waits so long per request, and the job thinks so long after each.
pub const EXEC_POLL: Duration = Duration::from_millis(50);

/// `protocol=` (alias `proto`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Proto {
    /// TCP over IPv4 (fio's default)
    #[default]
    Tcp,
    /// TCP over IPv6
    Tcpv6,
    /// UDP over IPv4 (multicast when `hostname` is a 224/4 address)
    Udp,
    /// UDP over IPv6
    Udpv6,
    /// a UNIX stream socket at the path `hostname` names
    Unix,
    /// a vsock stream to the CID `hostname` names
    Vsock,
}

impl Proto {
    /// The protocol `protocol=NAME` names.
    pub fn parse(name: &str) -> Option<Proto> {
        Some(match name {
            "tcp" => Proto::Tcp,
            "tcpv6" => Proto::Tcpv6,
            "udp" => Proto::Udp,
            "udpv6" => Proto::Udpv6,
            "unix" => Proto::Unix,
            "vsock" => Proto::Vsock,
            _ => return None,
        })
    }
    /// A datagram protocol (udp, udpv6)
    pub fn udp(self) -> bool {
        matches!(self, Proto::Udp | Proto::Udpv6)
    }
    /// Over IPv6 (tcpv6, udpv6)
    pub fn v6(self) -> bool {
        matches!(self, Proto::Tcpv6 | Proto::Udpv6)
    }
    /// `listen` is the job's choice (tcp, vsock); otherwise the reader listens
    pub fn chooses_listen(self) -> bool {
        matches!(self, Proto::Tcp | Proto::Tcpv6 | Proto::Vsock)
    }
}

/// The net engine's options of one job, fio's defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetOpts {
    /// `hostname`: the host to connect to, the multicast group of a UDP receiver, the
    /// socket path (unix) or the CID (vsock)
    pub hostname: Option<String>,
    /// `port` (0 = not given); thread N of a job uses port + N, as fio
    pub port: u16,
    /// `protocol`
    pub proto: Proto,
    /// `listen`: this side waits for the connection (tcp, vsock)
    pub listen: bool,
    /// `pingpong`: every request is answered by the peer
    pub pingpong: bool,
    /// `interface`: the IPv4 address of the interface multicast goes through
    pub interface: Option<String>,
    /// `ttl` of outgoing multicast datagrams (fio's default 1)
    pub ttl: u32,
    /// `nodelay`: TCP_NODELAY
    pub nodelay: bool,
    /// `window_size`: SO_RCVBUF/SO_SNDBUF, bytes (0 = the system's)
    pub window_size: u32,
    /// `mss`: TCP_MAXSEG, bytes (0 = the system's)
    pub mss: u32,
}

impl Default for NetOpts {
    fn default() -> Self {
        NetOpts {
            hostname: None,
            port: 0,
            proto: Proto::Tcp,
            listen: false,
            pingpong: false,
            interface: None,
            ttl: 1,
            nodelay: false,
            window_size: 0,
            mss: 0,
        }
    }
}

impl NetOpts {
    /// This side binds and waits (fio: `listen` for tcp and vsock, the reader for udp
    /// and unix).
    pub fn listens(&self, reads: bool) -> bool {
        if self.proto.chooses_listen() {
            self.listen
        } else {
            reads
        }
    }

    /// fio's checks of a net job (its `fio_netio_init` and connect setup), as one line
    /// naming the option: the job reads and/or writes, at random offsets or not.
    pub fn check(&self, reads: bool, writes: bool, random: bool) -> Result<(), String> {
        let p = self.proto;
        if random {
            return Err(
                "rw=: ioengine=net cannot do random I/O (accepted: read, write, rw)".into(),
            );
        }
        if p == Proto::Unix && self.port != 0 {
            return Err(
                "port= is not valid with protocol=unix (the socket is hostname=PATH)".into(),
            );
        }
        if p != Proto::Unix && self.port == 0 {
            return Err(
                "ioengine=net needs port= (1-65535) with protocol=tcp, udp or vsock".into(),
            );
        }
        if !p.chooses_listen() {
            if self.listen {
                return Err("listen is only valid with protocol=tcp, tcpv6 or vsock (a UDP or UNIX reader listens by itself)".into());
            }
            if reads && writes {
                return Err(
                    "rw=: datagram and UNIX net jobs either read or write (accepted: read, write)"
                        .into(),
                );
            }
        }
        if p == Proto::Unix && self.hostname.is_none() {
            return Err("protocol=unix needs hostname= (the socket's path)".into());
        }
        if !self.listens(reads) && self.hostname.is_none() {
            let hint = if reads {
                " (a receiver sets listen)"
            } else {
                ""
            };
            return Err(format!("ioengine=net needs hostname= to connect to{hint}"));
        }
        if self.listens(reads) && p.chooses_listen() && p != Proto::Vsock && self.hostname.is_some()
        {
            return Err("hostname= is not valid on a listening tcp job (only a UDP receiver takes one: its multicast group)".into());
        }
        Ok(())
    }

    /// The name fio gives a net job's one file: the hostname, or `net`.
    pub fn file_name(&self) -> String {
        self.hostname.clone().unwrap_or_else(|| "net".into())
    }
}
