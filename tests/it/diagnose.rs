//! `iomark diagnose` through the binary: exit codes, the JSON (spec ids, and it reads
//! back into the `Diagnosis` type) and text reports of a fixture machine given with
//! `--root` (materialised from tests/fixtures/diagnose with the same code `--fixture`
//! uses), `--fixture` itself, the live VM, and public case C22. The fixture machines
//! diagnosed in process: src/cli/diagnose/machines/.

use crate::util::*;
use iomark::files::fixture::materialize;
use iomark::probe::diagnosis::Diagnosis;
use iomark::probe::findings::Severity;

fn manifest(name: &str) -> String {
    let p = fixture(&format!("diagnose/{name}.fixture"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Materialise fixture `name` into a fresh temporary directory.
fn tree(name: &str) -> tempfile::TempDir {
    let d = scratch();
    materialize(&manifest(name), d.path()).unwrap();
    d
}

/// `iomark ARGS`: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let o = Iomark::new().args(args).run();
    (o.code, o.stdout, o.stderr)
}

#[test]
fn json_has_the_spec_ids_and_round_trips() {
    let t = tree("a-nvme-gen2-slot");
    let (code, out, err) = run(&[
        "diagnose",
        "/data/big.bin",
        "--root",
        t.path().to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["target"], "/data/big.bin");
    assert_eq!(v["ceiling"]["raw_mb_s"], 2000.0);
    assert_eq!(v["ceiling"]["realistic_mb_s"], 1600.0);
    let f = v["findings"].as_array().unwrap();
    let first = &f[0];
    assert_eq!(first["id"], "PCIE_LINK_BELOW_DEVICE");
    assert_eq!(first["severity"], "LIMIT");
    assert!(first["evidence"][0]["file"]
        .as_str()
        .unwrap()
        .ends_with("current_link_speed"));
    assert_eq!(v["device"]["role"], "partition");
    assert_eq!(v["device"]["members"][0]["transport"]["kind"], "nvme");
    assert_eq!(v["device"]["members"][0]["pci"]["links"][0]["gen"], 2);
    assert!(v["stack"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["kind"] == "nvme"));
    assert!(v["unknowns"].is_array());
    let back: Diagnosis = serde_json::from_str(&out).unwrap();
    assert_eq!(
        back.finding("RATED_ABOVE_CEILING").unwrap().severity,
        Severity::Limit
    );
}

#[test]
fn text_report_has_the_four_sections() {
    let t = tree("a-nvme-gen2-slot");
    let (code, out, _) = run(&[
        "diagnose",
        "/data/big.bin",
        "--root",
        t.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    for s in ["\nStack\n", "\nCeiling\n", "\nFindings\n", "\nUnknowns\n", "  LIMIT PCIE_LINK_BELOW_DEVICE: PCIe link runs at Gen2 x4", "≈ 1600 MB/s (1.60 GB/s) realistic, 2000 MB/s (2.00 GB/s) raw — set by the PCIe link at 0000:00:1c.4", "evidence: /sys/devices/pci0000:00/0000:00:1c.4/0000:04:00.0/current_link_speed = 5.0 GT/s PCIe"] {
        assert!(out.contains(s), "{s:?} missing:\n{out}");
    }
}

#[test]
fn exit_codes() {
    let (c, _, e) = run(&["diagnose", "/no/such/path/iomark"]);
    assert_eq!(c, 3);
    assert_eq!(
        e.trim(),
        "iomark diagnose: /no/such/path/iomark: no such file or directory"
    );
    assert_eq!(run(&["diagnose", "--bogus"]).0, 2);
    assert_eq!(run(&["diagnose", "/", "--rated-read=fast"]).0, 2);
    assert_eq!(run(&["diagnose", "--root", "/no/such/root", "/"]).0, 3);
    let (c, out, _) = run(&["diagnose", "--help"]);
    assert_eq!(c, 0);
    assert!(out.contains("--rated-read"));
    assert!(run(&["--help"]).1.contains("diagnose"));
}

#[test]
fn live_root_shows_the_virtio_stack_quickly() {
    let t0 = std::time::Instant::now();
    let (code, out, err) = run(&["diagnose", "/"]);
    let took = t0.elapsed();
    assert_eq!(code, 0, "{err}");
    // What this machine kind always has: ext4 root on a virtio disk vda.
    for s in [
        "ext4",
        "vda",
        "virtio",
        "scheduler",
        "rotational",
        "write cache",
        "RAM",
        "VIRTIO_PARAVIRT",
    ] {
        assert!(out.contains(s), "{s:?} missing:\n{out}");
    }
    // "well under a second" (about 3 ms here); 5 s of slack keeps a loaded CI machine
    // from failing a correctness test on timing.
    assert!(took.as_secs_f64() < 5.0, "took {took:?}");
    let (code, json, _) = run(&["diagnose", "/", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["filesystem"], "ext4");
    assert!(v["memory"]["total_bytes"].as_u64().unwrap() > 0);
    // a tmpfs target on the live machine: no single block device
    let (code, shm, _) = run(&["diagnose", "/dev/shm"]);
    assert_eq!(code, 0);
    assert!(
        shm.contains("MEMORY_FS") && shm.contains("no single block device"),
        "{shm}"
    );
}

#[test]
fn fixture_option_replays_a_recorded_machine_and_cleans_up() {
    let fixture = fixture("diagnose/a-nvme-gen2-slot.fixture");
    let fixture = fixture.to_str().unwrap();
    let out = Iomark::new()
        .args(["diagnose", "/data/big.bin", "--fixture", fixture])
        .run();
    let text = out.stdout;
    assert_eq!(out.code, 0, "{text}");
    assert!(text.contains("PCIE_LINK_BELOW_DEVICE"), "{text}");
    assert!(text.contains("RATED_ABOVE_CEILING"), "{text}");
    assert!(text.contains("2000 MB/s (2.00 GB/s) raw"), "{text}");
    // the unpacked tree is gone
    let root = text
        .lines()
        .next()
        .unwrap_or("")
        .split("(root ")
        .nth(1)
        .unwrap_or("")
        .trim_end_matches(')');
    assert!(
        !root.is_empty() && !std::path::Path::new(root).exists(),
        "{root}"
    );
    // the same machine by its built-in name, from a directory outside the source tree
    let away = scratch();
    let named = Iomark::new()
        .dir(away.path())
        .args(["diagnose", "/data/big.bin", "--fixture", "a-nvme-gen2-slot"])
        .run();
    assert_eq!(named.code, 0, "{}", named.stderr);
    let body = |t: &str| t.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&named.stdout), body(&text), "built-in = the file");
    let bad = Iomark::new()
        .args(["diagnose", "--fixture", "/nonexistent.fixture"])
        .run();
    // an unreadable input file is invalid input (2), as for compare and run
    assert_eq!(bad.code, 2);
}

// ---- public case C22: the working set against RAM, in readable units ----------------------

#[test]
fn c22_small_working_set_fits_in_ram_and_is_named_in_binary_units() {
    let o = Iomark::new()
        .args(["diagnose", "/", "--working-set=8K"])
        .run();
    assert_eq!(o.code, 0);
    let out = &o.stdout;
    assert!(
        out.contains("PAGE_CACHE_FITS: Working set 8.0 KiB fits in RAM ("),
        "{out}"
    );
}

/// `--json=FILE` writes the same document `--json` prints into FILE and prints the
/// text report; the file is never written through a link planted at its name.
#[test]
fn json_file_holds_the_printed_document_and_the_text_goes_to_stdout() {
    let t = tree("a-nvme-gen2-slot");
    let root = t.path().to_str().unwrap();
    let (code, printed, err) = run(&["diagnose", "/data/big.bin", "--root", root, "--json"]);
    assert_eq!(code, 0, "{err}");
    let d = scratch();
    let file = d.path().join("d.json");
    let json_opt = format!("--json={}", file.display());
    let (code, text, err) = run(&["diagnose", "/data/big.bin", "--root", root, &json_opt]);
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        written, printed,
        "the file holds the document --json prints"
    );
    assert!(
        text.contains("PCIE_LINK_BELOW_DEVICE")
            && serde_json::from_str::<serde_json::Value>(&text).is_err(),
        "stdout is the text report:\n{text}"
    );
    // a link planted at the name: refused (exit 3), the link's target untouched
    let target = d.path().join("precious");
    std::fs::write(&target, "keep").unwrap();
    let link = d.path().join("l.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let link_opt = format!("--json={}", link.display());
    let (code, _, err) = run(&["diagnose", "/data/big.bin", "--root", root, &link_opt]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("--json"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
}
