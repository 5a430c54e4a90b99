//! Options of fio's net engine (fio's "I/O engines" group, `engines/net.c`): hostname,
//! port, protocol, listen, pingpong, interface, ttl, nodelay, window_size, mss. The
//! values land in `job.more.net` ([`NetOpts`], src/util/engines.rs); the checks that
//! need the whole job are `NetOpts::check`, called from src/job/fio/finish.rs.

use super::{FioOption, Group, JobCtx, Kind};
use crate::job::fio::FioError;
use crate::util::engines::Proto;

type R = Result<(), FioError>;

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::job(
        "hostname",
        Group::Engine,
        Kind::Str,
        "Hostname for net IO engine",
        hostname,
    )
    .example("localhost"),
    FioOption::job(
        "port",
        Group::Engine,
        Kind::Int,
        "Port to use for TCP or UDP net connections",
        port,
    )
    .range(1, 65535)
    .example("8888"),
    FioOption::job(
        "protocol",
        Group::Engine,
        Kind::Str,
        "Network protocol to use",
        protocol,
    )
    .alias(&["proto"])
    .default("tcp")
    .values(&[
        ("tcp", "Transmission Control Protocol"),
        ("tcpv6", "Transmission Control Protocol V6"),
        ("udp", "User Datagram Protocol"),
        ("udpv6", "User Datagram Protocol V6"),
        ("unix", "UNIX domain socket"),
        ("vsock", "Virtual socket"),
    ])
    .example("udp"),
    FioOption::job(
        "listen",
        Group::Engine,
        Kind::Flag,
        "Listen for incoming TCP connections",
        listen,
    ),
    FioOption::job(
        "pingpong",
        Group::Engine,
        Kind::Flag,
        "Ping-pong IO requests",
        pingpong,
    ),
    FioOption::job(
        "interface",
        Group::Engine,
        Kind::Str,
        "Network interface to use",
        interface,
    )
    .example("10.8.16.22"),
    FioOption::job(
        "ttl",
        Group::Engine,
        Kind::Int,
        "Time-to-live value for outgoing UDP multicast packets",
        ttl,
    )
    .default("1")
    .range(0, 255),
    FioOption::job(
        "nodelay",
        Group::Engine,
        Kind::Bool,
        "Use TCP_NODELAY on TCP connections",
        nodelay,
    ),
    FioOption::job(
        "window_size",
        Group::Engine,
        Kind::Int,
        "Set socket buffer window size",
        window_size,
    )
    .example("65536"),
    FioOption::job(
        "mss",
        Group::Engine,
        Kind::Int,
        "Set TCP maximum segment size",
        mss,
    )
    .example("1400"),
];

fn hostname(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.net.hostname = Some(c.need(v)?.trim().to_string());
    Ok(())
}

fn port(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let n = c.need_at_most(v, 65535, "a port, 1-65535")?;
    if n == 0 {
        return Err(c.bad(v.unwrap_or(""), "a port, 1-65535"));
    }
    c.job.more.net.port = n as u16;
    Ok(())
}

fn protocol(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.net.proto = Proto::parse(v.trim())
        .ok_or_else(|| c.bad(v, "accepted: tcp, tcpv6, udp, udpv6, unix, vsock"))?;
    Ok(())
}

fn interface(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.net.interface = Some(c.need(v)?.trim().to_string());
    Ok(())
}

fn ttl(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.net.ttl = c.need_at_most(v, 255, "a multicast time-to-live, 0-255")? as u32;
    Ok(())
}

fn window_size(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let n = c.need_at_most(v, i32::MAX as u64, "bytes, 0 (the system's) to 2147483647")?;
    c.job.more.net.window_size = n as u32;
    Ok(())
}

fn mss(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let n = c.need_at_most(v, i32::MAX as u64, "bytes, 0 (the system's) to 2147483647")?;
    c.job.more.net.mss = n as u32;
    Ok(())
}

bool_keys! {
    listen => more.net.listen;
    pingpong => more.net.pingpong;
    nodelay => more.net.nodelay;
}
