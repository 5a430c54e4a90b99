//! fio's compressed logs (`log_store_compressed=1`: `PREFIX_bw.N.log.fz` …) and
//! `--inflate-log=FILE`, as fio 3.33 writes and reads them (iolog.c, iolog.h): the log's
//! samples as fio's binary `struct io_sample` records — `time` u64, `data.val` u64,
//! `__ddir` u32 (the direction, with bit 31 when an `offset` follows and bit 30 when
//! the `priority` is printed as `log_prio` prints it), `priority` u16 (the I/O's
//! ioprio), 2 bytes of padding, `bs` u64, then `offset` u64 with `log_offset=1`; native
//! little-endian, 32 or 40 bytes — deflated into zlib streams of at most
//! `log_compression` bytes of records each (one stream for the whole log without it),
//! the streams one after another in the file. `--inflate-log` inflates them stream
//! after stream and prints each record as the log's text line (`flush_samples`).

use std::io::Read;

/// `__ddir` bit: an offset follows the record (`LOG_OFFSET_SAMPLE_BIT`).
const OFFSET_BIT: u32 = 0x8000_0000;
/// `__ddir` bit: the priority column is the ioprio in hex (`LOG_PRIO_SAMPLE_BIT`).
const PRIO_BIT: u32 = 0x4000_0000;

/// One log line's values.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// ms (since the job's start, or the epoch)
    pub time: u64,
    /// the value (latency ns, KiB/s, IOPS)
    pub val: u64,
    /// 0 read, 1 write, 2 trim
    pub ddir: u32,
    /// the I/O's ioprio (`class << 13 | level`), 0 for a window's line
    pub prio: u16,
    /// block size (0 for a window's line)
    pub bs: u64,
    /// `log_offset=1`: the offset
    pub offset: Option<u64>,
}

/// A compressed log being written: records gathered, deflated a chunk at a time.
#[derive(Debug)]
pub struct FzLog {
    raw: Vec<u8>,
    /// `log_compression`, bytes of records a stream (0: one stream at the end)
    chunk: usize,
    /// `log_prio`: the priority column in hex
    prio_hex: bool,
}

impl FzLog {
    /// A log compressed in streams of `chunk` bytes of records (0: one).
    pub fn new(chunk: u64, prio_hex: bool) -> FzLog {
        FzLog {
            raw: Vec::new(),
            chunk: usize::try_from(chunk).unwrap_or(usize::MAX),
            prio_hex,
        }
    }

    /// Add sample `s`; the compressed bytes of a chunk now full (else none).
    pub fn push(&mut self, s: &Sample) -> Vec<u8> {
        let mut ddir = s.ddir;
        if s.offset.is_some() {
            ddir |= OFFSET_BIT;
        }
        if self.prio_hex {
            ddir |= PRIO_BIT;
        }
        self.raw.extend_from_slice(&s.time.to_le_bytes());
        self.raw.extend_from_slice(&s.val.to_le_bytes());
        self.raw.extend_from_slice(&ddir.to_le_bytes());
        self.raw.extend_from_slice(&s.prio.to_le_bytes());
        self.raw.extend_from_slice(&[0, 0]);
        self.raw.extend_from_slice(&s.bs.to_le_bytes());
        if let Some(o) = s.offset {
            self.raw.extend_from_slice(&o.to_le_bytes());
        }
        if self.chunk > 0 && self.raw.len() >= self.chunk {
            return self.finish();
        }
        Vec::new()
    }

    /// The compressed bytes of the records not yet written (none without records).
    pub fn finish(&mut self) -> Vec<u8> {
        if self.raw.is_empty() {
            return Vec::new();
        }
        let raw = std::mem::take(&mut self.raw);
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        let written = std::io::Write::write_all(&mut z, &raw);
        // writing into memory does not fail
        written.and_then(|()| z.finish()).unwrap_or_default()
    }
}

/// fio's text line of record `s` (`flush_samples`).
fn line(s: &Sample, prio_hex: bool) -> String {
    let p = if prio_hex {
        format!("0x{:04x}", s.prio)
    } else {
        // the realtime class prints 1 (`ioprio_value_is_class_rt`)
        u8::from(s.prio >> 13 == 1).to_string()
    };
    match s.offset {
        Some(o) => format!("{}, {}, {}, {}, {o}, {p}\n", s.time, s.val, s.ddir, s.bs),
        None => format!("{}, {}, {}, {}, {p}\n", s.time, s.val, s.ddir, s.bs),
    }
}

/// The records of one inflated stream as text; the record size follows its first
/// record's offset bit, as fio's `flush_samples`.
fn records(raw: &[u8]) -> String {
    let u64_at = |b: &[u8], i: usize| {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[i..i + 8]);
        u64::from_le_bytes(a)
    };
    let Some(first) = raw.get(16..20) else {
        return String::new();
    };
    let flags = u32::from_le_bytes([first[0], first[1], first[2], first[3]]);
    let size = if flags & OFFSET_BIT != 0 { 40 } else { 32 };
    let mut out = String::new();
    for r in raw.chunks_exact(size) {
        let ddir = u32::from_le_bytes([r[16], r[17], r[18], r[19]]);
        let s = Sample {
            time: u64_at(r, 0),
            val: u64_at(r, 8),
            ddir: ddir & !(OFFSET_BIT | PRIO_BIT),
            prio: u16::from_le_bytes([r[20], r[21]]),
            bs: u64_at(r, 24),
            offset: (size == 40).then(|| u64_at(r, 32)),
        };
        out += &line(&s, flags & PRIO_BIT != 0);
    }
    out
}

/// `--inflate-log`: the text of a compressed log's bytes, its zlib streams one after
/// another; `Err` is zlib's complaint about the stream that could not be inflated.
pub fn inflate(mut bytes: &[u8]) -> Result<String, String> {
    let mut out = String::new();
    while !bytes.is_empty() {
        let mut z = flate2::bufread::ZlibDecoder::new(bytes);
        let mut raw = Vec::new();
        z.read_to_end(&mut raw).map_err(|e| e.to_string())?;
        let used = usize::try_from(z.total_in()).unwrap_or(bytes.len());
        if used == 0 {
            break;
        }
        out += &records(&raw);
        bytes = &bytes[used.min(bytes.len())..];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records in chunks of streams come back as fio's lines, with and without the
    /// offset, the priority as the realtime flag or, with `log_prio`, in hex.
    #[test]
    fn streams_inflate_to_fios_lines() {
        let mut log = FzLog::new(64, false);
        let mut file = Vec::new();
        let mut want = String::new();
        for i in 0..5u64 {
            let s = Sample {
                time: i * 10,
                val: 1000 + i,
                ddir: (i % 2) as u32,
                prio: if i == 3 { 1 << 13 } else { 0 },
                bs: 4096,
                offset: None,
            };
            want += &line(&s, false);
            file.extend(log.push(&s));
        }
        // 64 bytes: a stream every two records, the last one at the end
        assert!(!file.is_empty());
        file.extend(log.finish());
        assert_eq!(inflate(&file).unwrap(), want);
        assert!(want.contains("30, 1003, 1, 4096, 1\n"), "{want}");
        let mut log = FzLog::new(0, true);
        let s = Sample {
            offset: Some(8192),
            prio: 0x2004,
            ..Sample::default()
        };
        assert!(log.push(&s).is_empty());
        let text = inflate(&log.finish()).unwrap();
        assert_eq!(text, "0, 0, 0, 0, 8192, 0x2004\n");
        assert!(inflate(b"not zlib").is_err());
    }
}
