//! The walk down a block device: its stack (partition, md, dm, loop members) and its
//! transport and PCIe links, each as a [`Layer`] with findings and unknowns. Split from
//! `diagnosis.rs`, which owns the order of the walk; these are its steps.

use super::blockdev::{BlockDevice, Transport};
use super::findings::{capacity, gb, iec_short, offset_iec};
use super::pcie::{self, PciPath};
use super::sata;
use super::walk::*;
use super::walk_mounts::*;

/// Stack lines for the device tree.
pub(super) fn stack_of(w: &mut Walk, d: &BlockDevice, depth: u32) {
    let id = format!(
        "{}{}",
        d.name,
        d.majmin
            .as_ref()
            .map(|m| format!(" ({m})"))
            .unwrap_or_default()
    );
    let size = d
        .size_bytes
        .map(|b| format!(", {}", capacity(b)))
        .unwrap_or_default();
    match d.role.as_str() {
        "partition" => partition_layer(w, d, &id, &size, depth),
        "md" => {
            let md = d.md.clone().unwrap_or_default();
            w.layer(
                depth,
                "md",
                format!(
                    "{id}: {}, {} member slots, chunk {}, state {}{size}",
                    md.level.as_deref().unwrap_or("level unknown"),
                    opt_u(md.raid_disks),
                    md.chunk_bytes.map(iec_short).unwrap_or_else(|| "?".into()),
                    md.array_state.as_deref().unwrap_or("?"),
                ),
            );
        }
        "dm" => {
            let (name, uuid) = d.dm.clone().unwrap_or_default();
            let class = uuid.split('-').next().unwrap_or("");
            w.layer(depth, "dm", format!("{id}: {name} ({class}){size}"));
        }
        "loop" => {
            let (file, dio) = d.loop_backing.clone().unwrap_or_default();
            w.layer(
                depth,
                "loop",
                format!("{id}: backing file {file}, direct I/O {}{size}", opt_u(dio)),
            );
        }
        "disk" => {
            w.layer(
                depth,
                "disk",
                format!("{id}{size}: {}", queue_line(&d.queue)),
            );
            transport_layer(w, d, depth + 1);
            if let Some(p) = &d.pci {
                pci_layers(w, p, depth + 1);
            }
        }
        other => w.layer(depth, other, format!("{id}{size}")),
    }
    for m in &d.members {
        stack_of(w, m, depth + 1);
    }
}

/// A disk's queue settings as the stack shows them (scheduler, cache, read-ahead …).
fn queue_line(q: &super::blockdev::Queue) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut add = |label: &str, v: Option<String>| {
        if let Some(v) = v {
            parts.push(format!("{label} {v}"));
        }
    };
    add("scheduler", q.scheduler.clone());
    add("rotational", q.rotational.map(|v| v.to_string()));
    add("write cache", q.write_cache.clone());
    add("read-ahead", q.read_ahead_kb.map(|v| format!("{v} KiB")));
    add(
        "requests ≤",
        q.max_sectors_kb.map(|v| {
            format!(
                "{v} KiB{}",
                q.max_hw_sectors_kb
                    .map(|h| format!(" (hw {h} KiB)"))
                    .unwrap_or_default()
            )
        }),
    );
    add("nr_requests", q.nr_requests.map(|v| v.to_string()));
    add(
        "blocks",
        q.logical_block_size.map(|l| {
            format!(
                "{l}/{} B",
                q.physical_block_size
                    .map(|p| p.to_string())
                    .unwrap_or_else(|| "?".into())
            )
        }),
    );
    parts.join(", ")
}

/// A partition's layer: its number, where it starts and its size.
fn partition_layer(w: &mut Walk, d: &BlockDevice, id: &str, size: &str, depth: u32) {
    let p = d.partition.clone().unwrap_or_default();
    // sysfs `start` counts 512-byte sectors whatever the disk's sector size
    let phys = d
        .members
        .first()
        .and_then(|disk| disk.queue.physical_block_size);
    let start = p
        .start_sectors
        .map(|s| {
            format!(
                "starts at sector {s} ({})",
                offset_iec(s.saturating_mul(512), phys)
            )
        })
        .unwrap_or_else(|| "start unknown".into());
    w.layer(
        depth,
        "partition",
        format!("{id}: partition {}, {start}{size}", opt_u(p.number)),
    );
}

pub(super) fn transport_layer(w: &mut Walk, d: &BlockDevice, depth: u32) {
    let model = d.model.clone().unwrap_or_else(|| "model unknown".into());
    match &d.transport {
        Transport::Nvme { .. } => nvme_layer(w, d, &model, depth),
        Transport::Sata { queue_depth, link, .. } => w.layer(
            depth,
            "sata",
            format!(
                "{}: {model}, link {}, drive supports {}, NCQ depth {}{}",
                link.port,
                link.spd_raw.as_deref().unwrap_or("?"),
                link.drive_max.map(sata::gen_label).unwrap_or("?"),
                opt_u(*queue_depth),
                match link.non_rotating {
                    Some(true) => ", non-rotating (ATA word 217)",
                    Some(false) => ", rotating (ATA word 217)",
                    None => "",
                }
            ),
        ),
        Transport::Usb { link, .. } => w.layer(depth, "usb", usb_line(link, model)),
        Transport::Virtio {
            device,
            multiqueue,
            hw_queues,
            tags,
            ..
        } => w.layer(
            depth,
            "virtio",
            format!(
                "{device}: virtio-blk ({model}), {} hardware queue(s) ({} tags), multiqueue feature {}",
                opt_u(*hw_queues),
                opt_u(*tags),
                match multiqueue {
                    Some(true) => "on",
                    Some(false) => "off",
                    None => "unknown",
                }
            ),
        ),
        Transport::Scsi { queue_depth, .. } => w.layer(
            depth,
            "scsi",
            format!("{model}, queue depth {}", opt_u(*queue_depth)),
        ),
        Transport::Mmc { card_type } => w.layer(
            depth,
            "mmc",
            format!("{} card {model}", card_type.as_deref().unwrap_or("?")),
        ),
        Transport::Virtual => {}
        Transport::Unknown => {
            w.layer(depth, "transport", format!("unknown ({})", d.sysfs));
            w.unknown(format!("transport of {}", d.name), format!("path {} not recognised", d.sysfs));
        }
    }
}

/// The NVMe layer's line: controller, fabric, model, firmware, queues, temperature.
fn nvme_layer(w: &mut Walk, d: &BlockDevice, model: &str, depth: u32) {
    let Transport::Nvme {
        controller,
        fabric,
        firmware,
        io_queues,
        queue_depth,
        temp_c,
        temp_max_c,
        ..
    } = &d.transport
    else {
        return;
    };
    let temp = temp_c
        .map(|t| {
            format!(
                ", {t:.1} °C{}",
                temp_max_c
                    .map(|m| format!(" (warning at {m:.1} °C)"))
                    .unwrap_or_default()
            )
        })
        .unwrap_or_default();
    w.layer(
        depth,
        "nvme",
        format!(
            "{controller} over {}: {model}, firmware {}, {} I/O queues × {}{temp}",
            fabric.as_deref().unwrap_or("?"),
            firmware.as_deref().unwrap_or("?"),
            opt_u(*io_queues),
            opt_u(*queue_depth),
        ),
    );
}

/// The USB layer's line: device, product, speed, bcdUSB, driver, SuperSpeed facts.
fn usb_line(link: &super::usb::UsbLink, model: String) -> String {
    format!(
        "{}: {}, {} Mb/s, bcdUSB {}, driver {}{}{}",
        link.device,
        link.product.clone().unwrap_or(model),
        link.speed_mbit
            .map(|s| s.to_string())
            .unwrap_or_else(|| "?".into()),
        link.version.as_deref().unwrap_or("?"),
        link.driver.as_deref().unwrap_or("?"),
        match link.bos {
            Some(b) if b.superspeed || b.superspeed_plus => ", SuperSpeed capable (BOS)",
            Some(_) => ", no SuperSpeed capability in BOS",
            None => "",
        },
        link.peer_port
            .as_deref()
            .map(|p| format!(
                "; SuperSpeed peer {} {} (root hub {} Mb/s)",
                super::sysroot::base(p),
                link.peer_state.as_deref().unwrap_or("state unknown"),
                link.peer_hub_speed
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| "?".into())
            ))
            .unwrap_or_default()
    )
}

pub(super) fn pci_layers(w: &mut Walk, p: &PciPath, depth: u32) {
    for (i, f) in p.functions.iter().enumerate() {
        let ids = format!(
            "[{}:{}] class {}{}",
            f.vendor.as_deref().unwrap_or("?").trim_start_matches("0x"),
            f.device.as_deref().unwrap_or("?").trim_start_matches("0x"),
            f.class.as_deref().unwrap_or("?"),
            f.driver
                .as_ref()
                .map(|d| format!(" driver {d}"))
                .unwrap_or_default()
        );
        let link = p.links.iter().find(|l| l.downstream == f.address);
        let text = match link {
            Some(l) => format!(
                "{} {ids}: link to {} at {} GT/s x{} ({}, {} raw, ≈ {} real); own max {}, port max {}",
                f.address,
                l.upstream,
                l.gen.gts(),
                l.width,
                pcie::label(l.gen, l.width),
                gb(l.raw_mb_s),
                gb(l.realistic_mb_s),
                gen_w(l.device_max_gen, l.device_max_width),
                gen_w(l.port_max_gen, l.port_max_width),
            ),
            None if i == 0 && p.functions.len() > 1 => format!(
                "{} {ids}: {}, max {}",
                f.address,
                if f.is_bridge() { "root port" } else { "first function" },
                gen_w(f.max_gen, f.max_width)
            ),
            None => format!("{} {ids}: no PCIe link information", f.address),
        };
        w.layer(depth, "pci", text);
    }
    for (addr, why) in &p.unreadable {
        w.unknown(format!("PCIe link of {addr}"), why.clone());
    }
}

pub(super) fn gen_w(g: Option<pcie::Gen>, wd: Option<u32>) -> String {
    match (g, wd) {
        (Some(g), Some(wd)) => pcie::label(g, wd),
        (Some(g), None) => format!("Gen{} x?", g.0),
        (None, Some(wd)) => format!("Gen? x{wd}"),
        _ => "unknown".into(),
    }
}
