//! fio's `net` engine: a job's reads and writes are receives and sends on one socket
//! (TCP, TCP over IPv6, UDP, UDP over IPv6, a UNIX stream socket, vsock).
//!
//! The socket is set up when the engine is built — before the job's clock starts, as
//! fio opens its "file" before the measured run: the listening side binds (and, for
//! streams, accepts one connection), the other side connects. One request is one
//! `send`/`recv` of `bs` bytes (one datagram with UDP); stream receives wait for the
//! whole block (MSG_WAITALL), so both sides count the same bytes. The end of the data
//! comes from the peer: a stream that reaches EOF or brings fio's 8-byte close marker,
//! the close marker of a UDP sender (sent, as by fio, when a side closes). That end is
//! [`END`], a zero-byte transfer the fio worker takes as the normal end of the job
//! (engine [`Caps::stream`]). UDP senders start with fio's open marker and put fio's
//! sequence trailer in each datagram; `pingpong` answers every request with one in the
//! other direction. A wait for the peer gives up at the end of the job's runtime, and
//! when the run is told to stop (SIGINT/SIGTERM).
//!
//! Option meanings, markers and checks follow fio 3.33's `engines/net.c`; the options
//! are parsed in src/job/fio/options/net.rs.

use super::fault::HANDLED;
use super::Caps;
use super::{Dir, Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::{Kind, NetOpts, Proto};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::FileTypeExt;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The zero-byte transfer that ends a net job normally (the peer ended the data).
pub const END: IoErr = IoErr::Short { done: 0 };

/// fio's link markers (`engines/net.c`): magic, and the open and close commands.
const LINK_MAGIC: u32 = 0x6c69_6e6b;
const LINK_OPEN: u32 = 0x98;
const LINK_CLOSE: u32 = 0x89;
/// fio's UDP sequence trailer: magic, then the sequence number and the block size.
const UDP_SEQ_MAGIC: u64 = 0x6573_7571_6e55_6563;
/// How often a blocked wait looks whether the run was told to stop.
const STOP_CHECK: Duration = Duration::from_millis(100);
/// VMADDR_CID_ANY of `linux/vm_sockets.h`
const VSOCK_CID_ANY: u32 = u32::MAX;

/// What building the engine needs: the options and the job's shape.
#[derive(Clone, Debug, Default)]
pub struct Setup {
    /// the job's options
    pub opts: NetOpts,
    /// the job reads
    pub reads: bool,
    /// the job writes
    pub writes: bool,
    /// thread number within the job (added to the port)
    pub subjob: u32,
    /// the job's runtime (ramp included): receives blocked past it give up
    pub runtime: Option<Duration>,
}

/// Why the socket could not be set up: what was tried (naming the options) and errno
/// (the runner words it with the system's text of the errno).
#[derive(Debug)]
pub struct NetFail {
    /// what failed, e.g. `connect to 127.0.0.1:8888 (hostname=localhost, port=8888)`
    pub what: String,
    /// the errno (EINVAL for a bad value)
    pub errno: i32,
}

fn fail(what: impl Into<String>) -> NetFail {
    NetFail {
        what: what.into(),
        errno: super::last_errno(),
    }
}

fn invalid(what: impl Into<String>) -> NetFail {
    NetFail {
        what: what.into(),
        errno: libc::EINVAL,
    }
}

/// A socket address of any family the engine uses.
#[derive(Clone, Copy)]
enum Addr {
    V4(libc::sockaddr_in),
    V6(libc::sockaddr_in6),
    Unix(libc::sockaddr_un),
    Vsock(libc::sockaddr_vm),
}

impl Addr {
    fn inet(a: SocketAddr) -> Addr {
        match a {
            SocketAddr::V4(a) => {
                // SAFETY: sockaddr_in is plain data; all-zero is a valid value.
                let mut s: libc::sockaddr_in = unsafe { std::mem::zeroed() };
                s.sin_family = libc::AF_INET as libc::sa_family_t;
                s.sin_port = a.port().to_be();
                s.sin_addr.s_addr = u32::from(*a.ip()).to_be();
                Addr::V4(s)
            }
            SocketAddr::V6(a) => {
                // SAFETY: as above.
                let mut s: libc::sockaddr_in6 = unsafe { std::mem::zeroed() };
                s.sin6_family = libc::AF_INET6 as libc::sa_family_t;
                s.sin6_port = a.port().to_be();
                s.sin6_addr.s6_addr = a.ip().octets();
                Addr::V6(s)
            }
        }
    }
    fn unix(path: &str) -> Result<Addr, NetFail> {
        // SAFETY: as above.
        let mut s: libc::sockaddr_un = unsafe { std::mem::zeroed() };
        s.sun_family = libc::AF_UNIX as libc::sa_family_t;
        if path.len() >= s.sun_path.len() {
            return Err(invalid(format!(
                "hostname={path}: a UNIX socket path is at most {} bytes",
                s.sun_path.len() - 1
            )));
        }
        for (d, b) in s.sun_path.iter_mut().zip(path.bytes()) {
            *d = b as libc::c_char;
        }
        Ok(Addr::Unix(s))
    }
    fn vsock(cid: u32, port: u16) -> Addr {
        // SAFETY: as above.
        let mut s: libc::sockaddr_vm = unsafe { std::mem::zeroed() };
        s.svm_family = libc::AF_VSOCK as libc::sa_family_t;
        s.svm_cid = cid;
        s.svm_port = u32::from(port);
        Addr::Vsock(s)
    }
    fn raw(&self) -> (*const libc::sockaddr, libc::socklen_t) {
        /// A socket address structure as the generic pointer and length the calls take.
        fn of<T>(s: &T) -> (*const libc::sockaddr, libc::socklen_t) {
            let n = std::mem::size_of_val(s) as libc::socklen_t;
            (s as *const T as *const libc::sockaddr, n)
        }
        match self {
            Addr::V4(s) => of(s),
            Addr::V6(s) => of(s),
            Addr::Unix(s) => of(s),
            Addr::Vsock(s) => of(s),
        }
    }
}

/// An 8-byte link marker (`cmd` of fio's open or close message); fio writes the open
/// marker in network order and the close marker little-endian.
fn marker(cmd: u32) -> [u8; 8] {
    let mut m = [0u8; 8];
    if cmd == LINK_OPEN {
        m[..4].copy_from_slice(&LINK_MAGIC.to_be_bytes());
        m[4..].copy_from_slice(&cmd.to_be_bytes());
    } else {
        m[..4].copy_from_slice(&LINK_MAGIC.to_le_bytes());
        m[4..].copy_from_slice(&cmd.to_le_bytes());
    }
    m
}

fn setopt<T>(fd: RawFd, level: i32, name: i32, v: T, what: &str) -> Result<(), NetFail> {
    // SAFETY: setsockopt reads size_of::<T>() bytes of `v` on an open socket.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            &v as *const T as *const libc::c_void,
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if r < 0 {
        return Err(fail(what));
    }
    Ok(())
}

/// The engine: the data socket, and what the requests need to know.
pub struct Net {
    sock: OwnedFd,
    proto: Proto,
    /// the peer datagrams go to (UDP; a receiver's is the last sender)
    peer: Option<Addr>,
    listens: bool,
    pingpong: bool,
    send_seq: u64,
    /// receives blocked past this end give up ([`Setup::runtime`])
    until: Option<Instant>,
    /// [`HANDLED`] when the engine was built: a signal since stops a blocked wait
    signals: u64,
}

impl Net {
    /// Set the socket up as `s` says: bind and accept, or connect (module header).
    pub fn open(s: &Setup) -> Result<Net, NetFail> {
        let o = &s.opts;
        let port = u16::try_from(u32::from(o.port) + s.subjob).map_err(|_| {
            invalid(format!(
                "port={} + thread {}: above 65535",
                o.port, s.subjob
            ))
        })?;
        let listens = o.listens(s.reads);
        // waits for the peer (its connection, its open marker) end with the runtime
        let until = s.runtime.map(|r| Instant::now() + r);
        let signals = HANDLED.load(Ordering::SeqCst);
        let (sock, peer) = if listens {
            let l = bind_listen(o, port)?;
            if o.proto.udp() {
                (l, None)
            } else {
                let where_ = match (o.proto, &o.hostname) {
                    (Proto::Unix, Some(path)) => format!("hostname={path}"),
                    _ => format!("port={port}"),
                };
                if !readable(l.as_raw_fd(), until, signals)
                    .map_err(|e| errno_fail("wait for the connection", e))?
                {
                    return Err(timed_out(format!("no connection on {where_} within the job's runtime (or the run was stopped)")));
                }
                (accept(o, &l, port)?, None)
            }
        } else {
            connect(o, port)?
        };
        let mut n = Net {
            sock,
            proto: o.proto,
            peer,
            listens,
            pingpong: o.pingpong,
            send_seq: 0,
            until,
            signals,
        };
        if o.proto.udp() {
            if s.writes {
                n.sendto(&marker(LINK_OPEN), 0)
                    .map_err(|e| errno_fail("send the UDP open marker", e))?;
            } else {
                n.udp_open()?;
            }
        }
        // the job's clock starts now: blocked receives give up with its runtime
        n.until = s.runtime.map(|r| Instant::now() + r);
        Ok(n)
    }

    fn fd(&self) -> RawFd {
        self.sock.as_raw_fd()
    }

    /// A UDP receiver waits for the sender's open marker (its address becomes the peer).
    fn udp_open(&mut self) -> Result<(), NetFail> {
        let mut m = [0u8; 8];
        if !readable(self.fd(), self.until, self.signals)
            .map_err(|e| errno_fail("wait for the UDP open marker", e))?
        {
            return Err(timed_out(
                "no UDP sender (its open marker) within the job's runtime (or the run was stopped)",
            ));
        }
        let n = self
            .recv_raw(&mut m)
            .map_err(|e| errno_fail("receive the UDP open marker", e))?;
        if n != 8 || m != marker(LINK_OPEN) {
            return Err(invalid(format!(
                "bad UDP open marker from the sender ({n} bytes: {m:02x?})"
            )));
        }
        Ok(())
    }

    /// One receive into `buf` (a stream waits for all of it): the bytes, 0 at the end.
    fn recv_raw(&mut self, buf: &mut [u8]) -> Result<usize, IoErr> {
        if !readable(self.fd(), self.until, self.signals)? {
            return Ok(0);
        }
        loop {
            let r = if self.proto.udp() {
                // SAFETY: sockaddr_storage is plain data; all-zero is a valid value.
                let mut from: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
                let mut len = std::mem::size_of_val(&from) as libc::socklen_t;
                // SAFETY: recvfrom into our buffer and address storage.
                let r = unsafe {
                    libc::recvfrom(
                        self.fd(),
                        buf.as_mut_ptr().cast(),
                        buf.len(),
                        0,
                        &mut from as *mut _ as *mut libc::sockaddr,
                        &mut len,
                    )
                };
                if r >= 0 && self.listens {
                    self.peer = from_storage(&from);
                }
                r
            } else {
                // SAFETY: recv into our buffer on an open socket.
                unsafe {
                    libc::recv(
                        self.fd(),
                        buf.as_mut_ptr().cast(),
                        buf.len(),
                        libc::MSG_WAITALL,
                    )
                }
            };
            if r >= 0 {
                return Ok(r as usize);
            }
            if super::last_errno() != libc::EINTR {
                return Err(IoErr::Errno(super::last_errno()));
            }
        }
    }

    /// A receive of one request: its bytes, or [`END`] at the peer's end of data.
    fn recv(&mut self, buf: &mut [u8]) -> Result<usize, IoErr> {
        let n = self.recv_raw(buf)?;
        if n == 0 || (n == 8 && buf[..8] == marker(LINK_CLOSE)) {
            return Err(END);
        }
        Ok(n)
    }

    fn sendto(&self, buf: &[u8], flags: i32) -> Result<usize, IoErr> {
        let flags = flags | libc::MSG_NOSIGNAL;
        loop {
            let r = match (self.proto.udp(), &self.peer) {
                (true, Some(p)) => {
                    let (a, l) = p.raw();
                    // SAFETY: sendto from our buffer to a valid address.
                    unsafe { libc::sendto(self.fd(), buf.as_ptr().cast(), buf.len(), flags, a, l) }
                }
                (true, None) => return Err(IoErr::Errno(libc::EDESTADDRREQ)),
                // SAFETY: send from our buffer on a connected socket.
                (false, _) => unsafe {
                    libc::send(self.fd(), buf.as_ptr().cast(), buf.len(), flags)
                },
            };
            if r >= 0 {
                return Ok(r as usize);
            }
            if super::last_errno() != libc::EINTR {
                return Err(IoErr::Errno(super::last_errno()));
            }
        }
    }

    /// A send of one request: a datagram with fio's sequence trailer (UDP), or all of
    /// the block (streams).
    fn send(&mut self, buf: &mut [u8]) -> Result<usize, IoErr> {
        if self.proto.udp() {
            let n = buf.len();
            if n >= 24 {
                let t = &mut buf[n - 24..];
                t[..8].copy_from_slice(&UDP_SEQ_MAGIC.to_le_bytes());
                t[8..16].copy_from_slice(&self.send_seq.to_le_bytes());
                t[16..].copy_from_slice(&(n as u64).to_le_bytes());
                self.send_seq += 1;
            }
            return self.sendto(buf, 0);
        }
        let mut done = 0;
        while done < buf.len() {
            let n = self.sendto(&buf[done..], 0)?;
            if n == 0 {
                return Err(IoErr::Short { done });
            }
            done += n;
        }
        Ok(done)
    }

    fn transfer(&mut self, dir: Dir, buf: &mut [u8]) -> Result<usize, IoErr> {
        match dir {
            Dir::Read => self.recv(buf),
            Dir::Write => self.send(buf),
        }
    }
}

/// Wait until `fd` is readable, at most until `until` and until the run is told to
/// stop (SIGINT/SIGTERM handled since `HANDLED` was `signals`): false when the wait
/// ended without data.
fn readable(fd: RawFd, until: Option<Instant>, signals: u64) -> Result<bool, IoErr> {
    loop {
        if HANDLED.load(Ordering::SeqCst) != signals {
            return Ok(false);
        }
        // in slices, so that a stop is seen within STOP_CHECK
        let slice = STOP_CHECK.as_millis() as i32;
        let ms = match until {
            None => slice,
            Some(u) => {
                let left = u.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Ok(false);
                }
                i32::try_from(left.as_millis().max(1))
                    .unwrap_or(i32::MAX)
                    .min(slice)
            }
        };
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd on an open socket.
        let r = unsafe { libc::poll(&mut p, 1, ms) };
        if r > 0 {
            return Ok(true);
        }
        if r < 0 && super::last_errno() != libc::EINTR {
            return Err(IoErr::Errno(super::last_errno()));
        }
    }
}

fn timed_out(what: impl Into<String>) -> NetFail {
    NetFail {
        what: what.into(),
        errno: libc::ETIMEDOUT,
    }
}

fn errno_fail(what: &str, e: IoErr) -> NetFail {
    NetFail {
        what: what.into(),
        errno: match e {
            IoErr::Errno(n) => n,
            IoErr::Short { .. } => libc::EIO,
        },
    }
}

fn from_storage(s: &libc::sockaddr_storage) -> Option<Addr> {
    match i32::from(s.ss_family) {
        // SAFETY: the family says which address the storage holds.
        libc::AF_INET => Some(Addr::V4(unsafe {
            *(s as *const _ as *const libc::sockaddr_in)
        })),
        // SAFETY: as above.
        libc::AF_INET6 => Some(Addr::V6(unsafe {
            *(s as *const _ as *const libc::sockaddr_in6)
        })),
        _ => None,
    }
}

/// A new socket of the job's protocol.
fn socket(p: Proto) -> Result<OwnedFd, NetFail> {
    let (domain, ty) = match p {
        Proto::Tcp => (libc::AF_INET, libc::SOCK_STREAM),
        Proto::Tcpv6 => (libc::AF_INET6, libc::SOCK_STREAM),
        Proto::Udp => (libc::AF_INET, libc::SOCK_DGRAM),
        Proto::Udpv6 => (libc::AF_INET6, libc::SOCK_DGRAM),
        Proto::Unix => (libc::AF_UNIX, libc::SOCK_STREAM),
        Proto::Vsock => (libc::AF_VSOCK, libc::SOCK_STREAM),
    };
    // SAFETY: socket(2) with constant arguments.
    let fd = unsafe { libc::socket(domain, ty | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(fail(format!("protocol={}: socket", proto_name(p))));
    }
    // SAFETY: a descriptor we just created and own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn proto_name(p: Proto) -> &'static str {
    match p {
        Proto::Tcp => "tcp",
        Proto::Tcpv6 => "tcpv6",
        Proto::Udp => "udp",
        Proto::Udpv6 => "udpv6",
        Proto::Unix => "unix",
        Proto::Vsock => "vsock",
    }
}

/// window_size (SO_RCVBUF on a receiving side, SO_SNDBUF on a sending one, both with
/// pingpong) and mss (TCP_MAXSEG, tcp only), as fio sets them.
fn tune(o: &NetOpts, fd: RawFd, listens: bool) -> Result<(), NetFail> {
    if o.window_size > 0 {
        let w = o.window_size as libc::c_int;
        if listens || o.pingpong {
            setopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_RCVBUF,
                w,
                &format!("window_size={}: SO_RCVBUF", o.window_size),
            )?;
        }
        if !listens || o.pingpong {
            setopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_SNDBUF,
                w,
                &format!("window_size={}: SO_SNDBUF", o.window_size),
            )?;
        }
    }
    if o.mss > 0 && matches!(o.proto, Proto::Tcp | Proto::Tcpv6) {
        setopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_MAXSEG,
            o.mss as libc::c_int,
            &format!("mss={}: TCP_MAXSEG", o.mss),
        )?;
    }
    Ok(())
}

fn nodelay(o: &NetOpts, fd: RawFd) -> Result<(), NetFail> {
    if o.nodelay && matches!(o.proto, Proto::Tcp | Proto::Tcpv6) {
        setopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            1 as libc::c_int,
            "nodelay: TCP_NODELAY",
        )?;
    }
    Ok(())
}

/// A multicast group address (224.0.0.0/4), as fio tells one.
fn multicast(host: &str) -> Option<Ipv4Addr> {
    host.parse::<Ipv4Addr>().ok().filter(|a| a.is_multicast())
}

fn interface(o: &NetOpts) -> Result<Option<Ipv4Addr>, NetFail> {
    match &o.interface {
        None => Ok(None),
        Some(i) => i.parse::<Ipv4Addr>().map(Some).map_err(|_| {
            invalid(format!(
                "interface={i}: not an IPv4 address of an interface"
            ))
        }),
    }
}

fn bind(fd: RawFd, a: &Addr, what: String) -> Result<(), NetFail> {
    let (p, l) = a.raw();
    // SAFETY: bind to a valid address on an open socket.
    if unsafe { libc::bind(fd, p, l) } < 0 {
        return Err(fail(what));
    }
    Ok(())
}

/// The listening side's socket: bound (UDP: joined to the multicast group `hostname`
/// names), and listening for streams.
fn bind_listen(o: &NetOpts, port: u16) -> Result<OwnedFd, NetFail> {
    let s = socket(o.proto)?;
    let fd = s.as_raw_fd();
    let at = match o.proto {
        Proto::Unix => {
            let path = o.hostname.clone().unwrap_or_default();
            let a = Addr::unix(&path)?;
            // a stale socket there (an earlier run's) is replaced; anything else is
            // someone's file and stays: bind then fails with EADDRINUSE, naming the path
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_socket()) {
                let _ = std::fs::remove_file(&path);
            }
            bind(fd, &a, format!("bind to hostname={path} (protocol=unix)"))?;
            path
        }
        Proto::Vsock => {
            reuse_addr(fd)?;
            bind(
                fd,
                &Addr::vsock(VSOCK_CID_ANY, port),
                format!("bind to port={port} (protocol=vsock)"),
            )?;
            format!("vsock port {port}")
        }
        p => bind_inet(o, fd, p, port)?,
    };
    if !o.proto.udp() {
        // SAFETY: listen(2) on a bound socket.
        if unsafe { libc::listen(fd, 10) } < 0 {
            return Err(fail(format!("listen on {at}")));
        }
    }
    Ok(s)
}

/// SO_REUSEADDR on a receiver's socket: a port an earlier run left in TIME_WAIT binds.
fn reuse_addr(fd: RawFd) -> Result<(), NetFail> {
    setopt(
        fd,
        libc::SOL_SOCKET,
        libc::SO_REUSEADDR,
        1 as libc::c_int,
        "SO_REUSEADDR",
    )
}

/// Bind a TCP/UDP receiver's socket `fd` to `port` (joining the multicast group that
/// `hostname=` names, for UDP); the address it is bound to.
fn bind_inet(o: &NetOpts, fd: RawFd, p: Proto, port: u16) -> Result<String, NetFail> {
    reuse_addr(fd)?;
    setopt(
        fd,
        libc::SOL_SOCKET,
        libc::SO_REUSEPORT,
        1 as libc::c_int,
        "SO_REUSEPORT",
    )?;
    tune(o, fd, true)?;
    let mut ip: IpAddr = if p.v6() {
        IpAddr::from([0u16; 8])
    } else {
        IpAddr::from([0u8; 4])
    };
    if let Some(h) = &o.hostname {
        let Some(group) = multicast(h).filter(|_| p == Proto::Udp) else {
            return Err(invalid(format!(
                "hostname={h}: a receiver takes only an IPv4 multicast group (protocol=udp)"
            )));
        };
        let m = libc::ip_mreq {
            imr_multiaddr: libc::in_addr {
                s_addr: u32::from(group).to_be(),
            },
            imr_interface: libc::in_addr {
                s_addr: u32::from(interface(o)?.unwrap_or(Ipv4Addr::UNSPECIFIED)).to_be(),
            },
        };
        setopt(
            fd,
            libc::IPPROTO_IP,
            libc::IP_ADD_MEMBERSHIP,
            m,
            &format!("hostname={h}: join the multicast group"),
        )?;
        ip = IpAddr::V4(group);
    }
    let a = SocketAddr::new(ip, port);
    bind(
        fd,
        &Addr::inet(a),
        format!("bind to port={port} (protocol={})", proto_name(p)),
    )?;
    Ok(a.to_string())
}

/// Wait for the one connection of a stream receiver (fio: "waiting for connection").
fn accept(o: &NetOpts, l: &OwnedFd, port: u16) -> Result<OwnedFd, NetFail> {
    loop {
        // SAFETY: accept(2) on a listening socket; the peer's address is not kept.
        let fd = unsafe {
            libc::accept4(
                l.as_raw_fd(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                libc::SOCK_CLOEXEC,
            )
        };
        if fd >= 0 {
            // SAFETY: a descriptor accept just gave us.
            let s = unsafe { OwnedFd::from_raw_fd(fd) };
            nodelay(o, fd)?;
            return Ok(s);
        }
        if super::last_errno() != libc::EINTR {
            return Err(fail(format!("accept on port={port}")));
        }
    }
}

/// The connecting side's socket: connected (streams), or aimed at the peer (UDP, with
/// the multicast interface and ttl for a group).
fn connect(o: &NetOpts, port: u16) -> Result<(OwnedFd, Option<Addr>), NetFail> {
    let host = o.hostname.clone().unwrap_or_default();
    let (peer, name) = match o.proto {
        Proto::Unix => (
            Addr::unix(&host)?,
            format!("hostname={host} (protocol=unix)"),
        ),
        Proto::Vsock => {
            let cid = host.trim().parse::<u32>().map_err(|_| {
                invalid(format!(
                    "hostname={host}: a vsock CID (a number) is needed with protocol=vsock"
                ))
            })?;
            (
                Addr::vsock(cid, port),
                format!("CID {cid} port {port} (hostname={host}, port={port}, protocol=vsock)"),
            )
        }
        p => {
            let a = resolve(&host, port, p.v6())?;
            (Addr::inet(a), format!("{a} (hostname={host}, port={port})"))
        }
    };
    let s = socket(o.proto)?;
    let fd = s.as_raw_fd();
    nodelay(o, fd)?;
    tune(o, fd, false)?;
    if o.proto.udp() {
        if let Some(_group) = multicast(&host) {
            if let Some(i) = interface(o)? {
                let a = libc::in_addr {
                    s_addr: u32::from(i).to_be(),
                };
                setopt(
                    fd,
                    libc::IPPROTO_IP,
                    libc::IP_MULTICAST_IF,
                    a,
                    &format!("interface={i}: IP_MULTICAST_IF"),
                )?;
            }
            setopt(
                fd,
                libc::IPPROTO_IP,
                libc::IP_MULTICAST_TTL,
                o.ttl as libc::c_int,
                &format!("ttl={}: IP_MULTICAST_TTL", o.ttl),
            )?;
        }
        return Ok((s, Some(peer)));
    }
    let (p, l) = peer.raw();
    loop {
        // SAFETY: connect to a valid address on an open socket.
        if unsafe { libc::connect(fd, p, l) } == 0 {
            return Ok((s, None));
        }
        if super::last_errno() != libc::EINTR {
            return Err(fail(format!("connect to {name}")));
        }
    }
}

/// `hostname`:`port` as an address of the protocol's family.
fn resolve(host: &str, port: u16, v6: bool) -> Result<SocketAddr, NetFail> {
    let all = (host, port)
        .to_socket_addrs()
        .map_err(|e| invalid(format!("hostname={host}: cannot be resolved ({e})")))?;
    let mut all = all.filter(|a| a.is_ipv6() == v6);
    all.next().ok_or_else(|| {
        invalid(format!(
            "hostname={host}: no {} address",
            if v6 { "IPv6" } else { "IPv4" }
        ))
    })
}

impl Drop for Net {
    /// fio's close marker tells the peer the link is closing (errors are ignored: the
    /// peer may be gone already).
    fn drop(&mut self) {
        let _ = self.sendto(&marker(LINK_CLOSE), 0);
    }
}

impl Engine for Net {
    const KIND: Kind = Kind::Net;
    const CAPS: Caps = Caps {
        stream: true,
        ..Caps::NO_IO
    };

    fn depth(&self) -> usize {
        1
    }

    fn submit(&mut self, _slot: usize, req: &IoReq) -> Result<Option<usize>, IoErr> {
        // SAFETY: the caller's buffer holds `len` bytes until the request completes,
        // which is before this returns.
        let buf = unsafe { std::slice::from_raw_parts_mut(req.buf, req.len) };
        let n = self.transfer(req.dir, buf)?;
        if !self.pingpong {
            return Ok(Some(n));
        }
        // pingpong: a reader answers each block, a writer waits for the answer
        let reply = match req.dir {
            Dir::Read => Dir::Write,
            Dir::Write => Dir::Read,
        };
        self.transfer(reply, &mut buf[..n]).map(Some)
    }

    fn sync(&mut self, _file: usize, _kind: SyncKind) -> Result<(), IoErr> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A port nothing listens on now (the kernel's pick, released).
    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    fn setup(proto: Proto, port: u16, listen: bool, reads: bool, host: Option<&str>) -> Setup {
        Setup {
            opts: NetOpts {
                hostname: host.map(str::to_string),
                port,
                proto,
                listen,
                ..NetOpts::default()
            },
            reads,
            writes: !reads,
            subjob: 0,
            runtime: Some(Duration::from_secs(20)),
        }
    }

    fn req(dir: Dir, buf: &mut [u8]) -> IoReq {
        IoReq {
            dir,
            file: 0,
            offset: 0,
            len: buf.len(),
            buf: buf.as_mut_ptr(),
            buf_index: 0,
            ioprio: 0,
        }
    }

    /// Receive blocks of `bs` until the end of the data: the bytes, in order.
    fn drain(n: &mut Net, bs: usize) -> Vec<u8> {
        let mut got = Vec::new();
        let mut b = vec![0u8; bs];
        loop {
            match n.submit(0, &req(Dir::Read, &mut b)) {
                Ok(Some(k)) => got.extend_from_slice(&b[..k]),
                Err(e) => {
                    assert_eq!(e, END);
                    return got;
                }
                Ok(None) => unreachable!("net completes in submit"),
            }
        }
    }

    /// `blocks` blocks of `bs` numbered bytes, sent one request each.
    fn send_blocks(n: &mut Net, blocks: usize, bs: usize) -> Vec<u8> {
        let mut sent = Vec::new();
        for i in 0..blocks {
            let mut b: Vec<u8> = (0..bs).map(|j| (i * 7 + j) as u8).collect();
            assert_eq!(n.submit(0, &req(Dir::Write, &mut b)).unwrap(), Some(bs));
            sent.extend_from_slice(&b);
        }
        sent
    }

    #[test]
    fn tcp_receiver_reads_what_the_sender_sends_and_ends_when_it_closes() {
        let port = free_port();
        let rx = std::thread::spawn(move || {
            let mut n = Net::open(&setup(Proto::Tcp, port, true, true, None)).unwrap();
            drain(&mut n, 4096)
        });
        // the receiver binds in its thread: retry the connect until it listens
        let mut tx = (0..200)
            .find_map(|_| {
                std::thread::sleep(Duration::from_millis(10));
                Net::open(&setup(Proto::Tcp, port, false, false, Some("localhost"))).ok()
            })
            .expect("the receiver listens");
        let sent = send_blocks(&mut tx, 64, 4096);
        drop(tx);
        let got = rx.join().unwrap();
        assert_eq!(got.len(), 64 * 4096);
        assert_eq!(got, sent);
    }

    #[test]
    fn a_listening_writer_sends_to_a_connecting_reader() {
        let port = free_port();
        let tx = std::thread::spawn(move || {
            let mut s = setup(Proto::Tcp, port, true, false, None);
            s.opts.nodelay = true;
            s.opts.window_size = 65536;
            let mut n = Net::open(&s).unwrap();
            send_blocks(&mut n, 16, 1000)
        });
        let mut rx = (0..200)
            .find_map(|_| {
                std::thread::sleep(Duration::from_millis(10));
                Net::open(&setup(Proto::Tcp, port, false, true, Some("127.0.0.1"))).ok()
            })
            .expect("the writer listens");
        let got = drain(&mut rx, 1000);
        assert_eq!(got, tx.join().unwrap());
    }

    #[test]
    fn udp_pingpong_answers_every_datagram_and_the_close_marker_ends_the_reader() {
        let port = free_port();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let rx = std::thread::spawn(move || {
            let mut s = setup(Proto::Udp, port, false, true, None);
            s.opts.pingpong = true;
            // bound before the open marker can arrive: `open` waits for it
            let l = bind_listen(&s.opts, port).unwrap();
            ready_tx.send(()).unwrap();
            let mut n = Net {
                sock: l,
                proto: Proto::Udp,
                peer: None,
                listens: true,
                pingpong: true,
                send_seq: 0,
                until: None,
                signals: HANDLED.load(Ordering::SeqCst),
            };
            n.udp_open().unwrap();
            drain(&mut n, 64).len()
        });
        ready_rx.recv().unwrap();
        let mut s = setup(Proto::Udp, port, false, false, Some("127.0.0.1"));
        s.opts.pingpong = true;
        let mut tx = Net::open(&s).unwrap();
        for i in 0..100u64 {
            let mut b = vec![i as u8; 64];
            assert_eq!(tx.submit(0, &req(Dir::Write, &mut b)).unwrap(), Some(64));
            // the answer is the datagram itself, with fio's sequence trailer
            assert_eq!(&b[40..48], &UDP_SEQ_MAGIC.to_le_bytes());
            assert_eq!(&b[48..56], &i.to_le_bytes());
            assert_eq!(b[0], i as u8);
        }
        drop(tx);
        assert_eq!(rx.join().unwrap(), 100 * 64);
    }

    #[test]
    fn a_refused_connection_and_a_busy_port_are_one_line_naming_the_options() {
        let port = free_port();
        let e = Net::open(&setup(Proto::Tcp, port, false, false, Some("127.0.0.1")))
            .err()
            .unwrap();
        assert_eq!(e.errno, libc::ECONNREFUSED);
        let msg = &e.what;
        assert!(
            msg.contains("connect to 127.0.0.1:") && msg.contains(&format!("port={port}")),
            "{msg}"
        );
        assert!(!msg.contains('\n'));
        let held = std::net::TcpListener::bind(("0.0.0.0", port)).unwrap();
        let e = Net::open(&setup(Proto::Tcp, port, true, true, None))
            .err()
            .unwrap();
        assert_eq!(e.errno, libc::EADDRINUSE, "{e:?}");
        assert!(e.what.contains(&format!("bind to port={port}")), "{e:?}");
        drop(held);
        let e = Net::open(&setup(
            Proto::Tcp,
            port,
            false,
            false,
            Some("no.such.host.invalid"),
        ))
        .err()
        .unwrap();
        assert!(
            e.what
                .starts_with("hostname=no.such.host.invalid: cannot be resolved"),
            "{e:?}"
        );
    }

    /// A unix receiver replaces a stale socket at its path but never removes a file
    /// that is not one.
    #[test]
    fn a_unix_receiver_never_removes_a_file_at_its_path() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("sock");
        std::fs::write(&path, b"someone's file").unwrap();
        let host = path.display().to_string();
        let e = Net::open(&setup(Proto::Unix, 0, true, true, Some(&host)))
            .err()
            .expect("refused");
        assert_eq!(e.errno, libc::EADDRINUSE, "{e:?}");
        assert!(e.what.contains(&format!("hostname={host}")), "{e:?}");
        assert_eq!(std::fs::read(&path).unwrap(), b"someone's file");
        std::fs::remove_file(&path).unwrap();
        drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
        assert!(
            std::fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_socket(),
            "a stale socket"
        );
        let mut s = setup(Proto::Unix, 0, true, true, Some(&host));
        s.runtime = Some(std::time::Duration::from_millis(50));
        // replaced and bound: the wait for a sender then ends with the runtime
        let e = Net::open(&s).err().expect("no sender");
        assert_eq!(e.errno, libc::ETIMEDOUT, "{e:?}");
    }

    #[test]
    fn a_sender_whose_receiver_went_away_gets_an_error_not_a_signal() {
        let port = free_port();
        let rx = std::thread::spawn(move || {
            let mut n = Net::open(&setup(Proto::Tcp, port, true, true, None)).unwrap();
            let mut b = vec![0u8; 4096];
            n.submit(0, &req(Dir::Read, &mut b)).unwrap();
            // gone without reading the rest
        });
        let mut tx = (0..200)
            .find_map(|_| {
                std::thread::sleep(Duration::from_millis(10));
                Net::open(&setup(Proto::Tcp, port, false, false, Some("127.0.0.1"))).ok()
            })
            .unwrap();
        let mut b = vec![1u8; 4096];
        tx.submit(0, &req(Dir::Write, &mut b)).unwrap();
        rx.join().unwrap();
        let e = (0..1000)
            .find_map(|_| tx.submit(0, &req(Dir::Write, &mut b)).err())
            .expect("the send fails");
        assert!(
            matches!(e, IoErr::Errno(libc::EPIPE | libc::ECONNRESET)),
            "{e:?}"
        );
    }

    #[test]
    fn checks_are_fios_and_name_the_option() {
        let o = |proto, port, listen, host: Option<&str>| NetOpts {
            hostname: host.map(str::to_string),
            port,
            proto,
            listen,
            ..NetOpts::default()
        };
        assert!(o(Proto::Tcp, 8888, true, None)
            .check(true, false, false)
            .is_ok());
        assert!(o(Proto::Tcp, 8888, false, Some("h"))
            .check(false, true, false)
            .is_ok());
        assert!(o(Proto::Udp, 10000, false, Some("239.0.0.0"))
            .check(true, false, false)
            .is_ok());
        assert!(o(Proto::Tcp, 8888, true, None)
            .check(true, false, true)
            .unwrap_err()
            .starts_with("rw="));
        assert!(o(Proto::Tcp, 0, true, None)
            .check(true, false, false)
            .unwrap_err()
            .contains("port="));
        assert!(o(Proto::Unix, 1, false, Some("/s"))
            .check(true, false, false)
            .unwrap_err()
            .starts_with("port="));
        assert!(o(Proto::Udp, 1, true, None)
            .check(true, false, false)
            .unwrap_err()
            .starts_with("listen"));
        assert!(o(Proto::Udp, 1, false, None)
            .check(true, true, false)
            .unwrap_err()
            .starts_with("rw="));
        assert!(o(Proto::Tcp, 1, false, None)
            .check(true, false, false)
            .unwrap_err()
            .contains("hostname="));
        assert_eq!(o(Proto::Tcp, 1, false, None).file_name(), "net");
        assert_eq!(
            o(Proto::Tcp, 1, false, Some("localhost")).file_name(),
            "localhost"
        );
    }

    #[test]
    fn markers_are_fios_bytes() {
        assert_eq!(marker(LINK_OPEN), [0x6c, 0x69, 0x6e, 0x6b, 0, 0, 0, 0x98]);
        assert_eq!(marker(LINK_CLOSE), [0x6b, 0x6e, 0x69, 0x6c, 0x89, 0, 0, 0]);
    }
}
