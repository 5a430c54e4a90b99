//! Data verification of `iomark run` (fio's `verify=`): every written block carries a
//! header like fio's (magic, checksum type, length, offset, job seed) and a checksum of
//! the header and the data after it; reading the block back recomputes and compares.
//! `verify=pattern` writes `verify_pattern` over the whole block and compares it; `meta`
//! checks the header only.
//!
//! Header layout (64 bytes, little endian): `0..2` magic 0xacca (fio's VERIFY_MAGIC),
//! `2..4` checksum type, `4..8` block length, `8..16` block offset, `16..24` seed,
//! `24..32` write sequence number (fio's `numberio`: 1 for the thread's first write),
//! then the checksum from byte 32 (crc7: 1 byte, crc16: 2, crc32 and crc32c: 4, crc64
//! and xxh64: 8, md5: 16, sha1: 20, sha3-224: 28, sha256 and sha3-256: 32, sha3-384:
//! 48, sha512 and sha3-512: 64), zero-padded to the header's end: 64 bytes, 80 for
//! sha3-384, 96 for sha512 and sha3-512 ([`VerifyKind::header_len`]). The checksum
//! covers bytes `0..32` and the data after the header. `verify=null` writes no header
//! and checks nothing (fio's "pretend to verify").
//!
//! A mismatch is also told in fio's words ([`fio_report`]: `md5: verify failed at file
//! …`, the expected and received checksum in hex, or `verify: bad magic header …`).
//!
//! With `verify_interval=N` every N-byte chunk of a block carries its own header (its
//! offset and length are the chunk's), as fio does. A `verify_pattern` fills the data
//! after the headers (fio fills its buffers with it); `verify=meta` then checks it.
//! `verify_dump` writes the received and the expected block next to the file
//! ([`dump`]).

use crate::job::fio::keys_verify::VerifyKind;

/// Header size of the kinds whose checksum fits in 32 bytes, bytes.
pub const HEADER: usize = 64;

fn hdr_len(k: VerifyKind) -> usize {
    k.header_len() as usize
}
/// fio's verify magic.
pub const MAGIC: u16 = 0xacca;

fn kind_id(k: VerifyKind) -> u16 {
    match k {
        VerifyKind::Crc32c => 1,
        VerifyKind::Md5 => 2,
        VerifyKind::Xxhash => 3,
        VerifyKind::Sha256 => 4,
        VerifyKind::Meta => 5,
        VerifyKind::Pattern => 6,
        VerifyKind::Crc64 => 7,
        VerifyKind::Crc32 => 8,
        VerifyKind::Crc16 => 9,
        VerifyKind::Crc7 => 10,
        VerifyKind::Sha1 => 11,
        VerifyKind::Sha512 => 12,
        VerifyKind::Sha3_224 => 13,
        VerifyKind::Sha3_256 => 14,
        VerifyKind::Sha3_384 => 15,
        VerifyKind::Sha3_512 => 16,
        VerifyKind::Null => 17,
    }
}

/// fio's `crc32`: polynomial 0x04c11db7, not reflected, init 0, no final xor.
const FIO_CRC32: crc::Algorithm<u32> = crc::Algorithm {
    width: 32,
    poly: 0x04c1_1db7,
    init: 0,
    refin: false,
    refout: false,
    xorout: 0,
    check: 0x89a1_897f,
    residue: 0,
};

/// The checksum `k` of `data` as verify writes it (`--crctest` times these).
pub fn digest(k: VerifyKind, data: &[u8]) -> Vec<u8> {
    checksum(k, &[], data)
}

fn hash<D: md5::Digest>(head: &[u8], data: &[u8]) -> Vec<u8> {
    let mut h = D::new();
    h.update(head);
    h.update(data);
    h.finalize().to_vec()
}

fn checksum(k: VerifyKind, head: &[u8], data: &[u8]) -> Vec<u8> {
    macro_rules! crc {
        ($t:ty, $alg:expr) => {{
            let c = crc::Crc::<$t>::new($alg);
            let mut d = c.digest();
            d.update(head);
            d.update(data);
            d.finalize().to_le_bytes().to_vec()
        }};
    }
    match k {
        VerifyKind::Crc32c => crc32c::crc32c_append(crc32c::crc32c(head), data)
            .to_le_bytes()
            .to_vec(),
        VerifyKind::Md5 => hash::<md5::Md5>(head, data),
        VerifyKind::Sha1 => hash::<sha1::Sha1>(head, data),
        VerifyKind::Sha256 => hash::<sha2::Sha256>(head, data),
        VerifyKind::Sha512 => hash::<sha2::Sha512>(head, data),
        VerifyKind::Sha3_224 => hash::<sha3::Sha3_224>(head, data),
        VerifyKind::Sha3_256 => hash::<sha3::Sha3_256>(head, data),
        VerifyKind::Sha3_384 => hash::<sha3::Sha3_384>(head, data),
        VerifyKind::Sha3_512 => hash::<sha3::Sha3_512>(head, data),
        VerifyKind::Xxhash => {
            let mut h = xxhash_rust::xxh64::Xxh64::new(0);
            h.update(head);
            h.update(data);
            h.digest().to_le_bytes().to_vec()
        }
        VerifyKind::Crc64 => crc!(u64, &crc::CRC_64_REDIS),
        VerifyKind::Crc32 => crc!(u32, &FIO_CRC32),
        VerifyKind::Crc16 => crc!(u16, &crc::CRC_16_ARC),
        VerifyKind::Crc7 => crc!(u8, &crc::CRC_7_MMC),
        VerifyKind::Meta | VerifyKind::Pattern | VerifyKind::Null => Vec::new(),
    }
}

/// What a job verifies with: the checksum kind, the `verify_pattern` bytes, the
/// `verify_interval` (0: one header per block) and whether the write sequence number is
/// checked (`verify_write_sequence`).
#[derive(Clone, Copy, Debug)]
pub struct Spec<'a> {
    /// `verify=`
    pub kind: VerifyKind,
    /// `verify_pattern` (empty: none)
    pub pattern: &'a [u8],
    /// `verify_interval`, bytes (0: the whole block)
    pub interval: usize,
    /// where `verify_pattern` has `%o`: the block's offset (8 bytes, little-endian) is
    /// pasted there in each block's copy of the pattern, as fio's `paste_format`
    pub offset_at: &'a [usize],
    /// `verify_offset`: the header is swapped with the bytes this far into each chunk
    /// after it is stamped, and back before it is checked (0: none)
    pub hdr_at: usize,
}

impl<'a> Spec<'a> {
    /// A spec without interval.
    pub fn new(kind: VerifyKind, pattern: &'a [u8]) -> Self {
        Spec {
            kind,
            pattern,
            interval: 0,
            offset_at: &[],
            hdr_at: 0,
        }
    }
    /// The pattern of the block at `offset` (`%o` pasted).
    fn pattern_at(&self, offset: u64) -> std::borrow::Cow<'a, [u8]> {
        if self.offset_at.is_empty() {
            return std::borrow::Cow::Borrowed(self.pattern);
        }
        let mut p = self.pattern.to_vec();
        let b = offset.to_le_bytes();
        for &i in self.offset_at {
            let n = p.len().saturating_sub(i).min(8);
            p[i..i + n].copy_from_slice(&b[..n]);
        }
        std::borrow::Cow::Owned(p)
    }
    /// Swap the header of `c` with its bytes at `hdr_at` (its own inverse).
    fn swap_header(&self, c: &mut [u8]) {
        let (at, hl) = (self.hdr_at, hdr_len(self.kind));
        if hl > 0 && at >= hl && at + hl <= c.len() {
            let (head, rest) = c.split_at_mut(at);
            head[..hl].swap_with_slice(&mut rest[..hl]);
        }
    }
    fn chunk(&self, len: usize) -> usize {
        if self.interval == 0 || self.kind == VerifyKind::Pattern {
            len.max(1)
        } else {
            self.interval
        }
    }
}

/// Fill `buf` with `pattern`, byte `i` of the buffer being `pattern[(base + i) % len]`.
fn fill_pattern(buf: &mut [u8], pattern: &[u8], base: usize) {
    if pattern.is_empty() {
        return;
    }
    for (i, b) in buf.iter_mut().enumerate() {
        *b = pattern[(base + i) % pattern.len()];
    }
}

fn check_pattern(buf: &[u8], pattern: &[u8], base: usize) -> Result<(), String> {
    if pattern.is_empty() {
        return Ok(());
    }
    match buf
        .iter()
        .enumerate()
        .find(|(i, b)| **b != pattern[(base + i) % pattern.len()])
    {
        None => Ok(()),
        Some((i, b)) => Err(format!(
            "pattern mismatch at byte {} of the block: found 0x{b:02x}, expected 0x{:02x}",
            base + i,
            pattern[(base + i) % pattern.len()]
        )),
    }
}

/// Prepare a block for writing at `offset`: stamp the header and checksum (or the
/// pattern). `buf` holds the block's data (its random bytes are kept after the header).
pub fn stamp(buf: &mut [u8], offset: u64, seed: u64, k: VerifyKind, pattern: &[u8]) {
    stamp_with(buf, offset, seed, 0, &Spec::new(k, pattern));
}

/// [`stamp`] with a write sequence number `seq` and a `verify_interval`.
pub fn stamp_with(buf: &mut [u8], offset: u64, seed: u64, seq: u64, spec: &Spec) {
    let k = spec.kind;
    if k == VerifyKind::Null {
        return;
    }
    if k == VerifyKind::Pattern || !spec.pattern.is_empty() {
        fill_pattern(buf, &spec.pattern_at(offset), 0);
        if k == VerifyKind::Pattern {
            return;
        }
    }
    let chunk = spec.chunk(buf.len());
    let mut at = 0usize;
    for c in buf.chunks_mut(chunk) {
        stamp_chunk(c, offset + at as u64, seed, seq, k);
        spec.swap_header(c);
        at += chunk;
    }
}

fn stamp_chunk(buf: &mut [u8], offset: u64, seed: u64, seq: u64, k: VerifyKind) {
    let hl = hdr_len(k);
    if buf.len() < hl {
        return;
    }
    buf[..hl].fill(0);
    buf[0..2].copy_from_slice(&MAGIC.to_le_bytes());
    buf[2..4].copy_from_slice(&kind_id(k).to_le_bytes());
    let len = buf.len() as u32;
    buf[4..8].copy_from_slice(&len.to_le_bytes());
    buf[8..16].copy_from_slice(&offset.to_le_bytes());
    buf[16..24].copy_from_slice(&seed.to_le_bytes());
    buf[24..32].copy_from_slice(&seq.to_le_bytes());
    let c = checksum(k, &buf[..32], &buf[hl..]);
    buf[32..32 + c.len()].copy_from_slice(&c);
}

/// Check a block read from `offset`. `Err` says what does not match.
pub fn check(buf: &[u8], offset: u64, k: VerifyKind, pattern: &[u8]) -> Result<(), String> {
    check_with(buf, offset, &Spec::new(k, pattern), None)
}

/// [`check`] with a `verify_interval`; `want_seq`: the write sequence number the last
/// write of this block carried, checked when given (`verify_write_sequence`).
pub fn check_with(
    buf: &[u8],
    offset: u64,
    spec: &Spec,
    want_seq: Option<u64>,
) -> Result<(), String> {
    let k = spec.kind;
    if k == VerifyKind::Null {
        return Ok(());
    }
    let pattern = spec.pattern_at(offset);
    if k == VerifyKind::Pattern {
        return check_pattern(buf, &pattern, 0);
    }
    let chunk = spec.chunk(buf.len());
    let mut swapped = Vec::new();
    for (i, c) in buf.chunks(chunk).enumerate() {
        let at = i * chunk;
        let c = if spec.hdr_at > 0 {
            swapped.clear();
            swapped.extend_from_slice(c);
            spec.swap_header(&mut swapped);
            &swapped[..]
        } else {
            c
        };
        check_chunk(c, offset + at as u64, k, want_seq).map_err(|e| {
            if chunk < buf.len() {
                format!("{e} (verify_interval chunk at byte {at} of the block)")
            } else {
                e
            }
        })?;
        if k == VerifyKind::Meta && c.len() > HEADER {
            check_pattern(&c[HEADER..], &pattern, at + HEADER)?;
        }
    }
    Ok(())
}

fn check_chunk(
    buf: &[u8],
    offset: u64,
    k: VerifyKind,
    want_seq: Option<u64>,
) -> Result<(), String> {
    let hl = hdr_len(k);
    if buf.len() < hl {
        return Ok(());
    }
    let magic = u16::from_le_bytes([buf[0], buf[1]]);
    if magic != MAGIC {
        return Err(format!("bad header magic 0x{magic:04x} (expected 0x{MAGIC:04x}; block never written by a verify job, or overwritten)"));
    }
    let kid = u16::from_le_bytes([buf[2], buf[3]]);
    if kid != kind_id(k) {
        return Err(format!(
            "header says checksum type {kid}, job uses verify={}",
            k.name()
        ));
    }
    let len = u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]) as usize;
    if len != buf.len() {
        return Err(format!("header length {len} != block length {}", buf.len()));
    }
    let off = u64::from_le_bytes(buf[8..16].try_into().unwrap_or([0; 8]));
    if off != offset {
        return Err(format!("header offset {off} != block offset {offset}"));
    }
    let c = checksum(k, &buf[..32], &buf[hl..]);
    if buf[32..32 + c.len()] != c[..] {
        return Err(format!("{} checksum mismatch", k.name()));
    }
    if buf[32 + c.len()..hl].iter().any(|&b| b != 0) {
        return Err("verify header padding is not zero (header corrupted)".into());
    }
    if let Some(want) = want_seq {
        let seq = u64::from_le_bytes(buf[24..32].try_into().unwrap_or([0; 8]));
        if seq != want {
            return Err(format!(
                "write sequence number {seq} != {want} of the last write here (verify_write_sequence; set it to 0 when several jobs write the same blocks)"
            ));
        }
    }
    Ok(())
}

/// fio's own lines for a block that failed [`check_with`], as fio 3.33 prints them on
/// stderr: for the first chunk whose header is wrong `verify: bad magic header X, wanted
/// acca at file F offset N, length L (requested block: offset=O, length=B)` (or `bad
/// header length`, `bad header offset`), for one whose checksum is wrong `md5: verify
/// failed at file F offset N, length L (requested block: offset=O, length=B, flags=8)`
/// and the `Expected CRC:` / `Received CRC:` lines in hex. `None` for what fio words
/// otherwise (`pattern`, `meta`'s pattern, a checksum type that is not the job's).
pub fn fio_report(file: &std::path::Path, buf: &[u8], offset: u64, spec: &Spec) -> Option<String> {
    let k = spec.kind;
    let hl = hdr_len(k);
    if hl == 0 || k == VerifyKind::Meta {
        return None;
    }
    let chunk = spec.chunk(buf.len());
    let f = file.display();
    let mut c = Vec::with_capacity(chunk);
    for (i, raw) in buf.chunks(chunk).enumerate() {
        c.clear();
        c.extend_from_slice(raw);
        spec.swap_header(&mut c);
        let (at, len) = (offset + (i * chunk) as u64, c.len());
        let tail = format!(
            " at file {f} offset {at}, length {len} (requested block: offset={offset}, length={}",
            buf.len()
        );
        if let Some(e) = fio_header_error(&c, at, offset) {
            return Some(format!("verify: {e}{tail})\n"));
        }
        if u16::from_le_bytes([c[2], c[3]]) != kind_id(k) {
            return None;
        }
        let got = checksum(k, &c[..32], &c[hl..]);
        let want = &c[32..32 + got.len()];
        if want != &got[..] {
            let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
            let name: String = k.name().chars().take(8).collect();
            return Some(format!(
                "{name}: verify failed{tail}, flags=8)\n       Expected CRC: {}\n       Received CRC: {}\n",
                hex(want),
                hex(&got)
            ));
        }
    }
    None
}

/// fio's words for a chunk header that is wrong (magic, length, offset), in its order;
/// `at`: the chunk's offset, `block`: the block's (which fio names as the one wanted).
fn fio_header_error(c: &[u8], at: u64, block: u64) -> Option<String> {
    if c.len() < 16 {
        return None;
    }
    let magic = u16::from_le_bytes([c[0], c[1]]);
    if magic != MAGIC {
        return Some(format!("bad magic header {magic:x}, wanted {MAGIC:x}"));
    }
    let len = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
    if len as usize != c.len() {
        return Some(format!("bad header length {len}, wanted {}", c.len()));
    }
    let off = u64::from_le_bytes(c[8..16].try_into().unwrap_or([0; 8]));
    (off != at).then(|| format!("bad header offset {off}, wanted {block}"))
}

/// fio's `verify_dump`: write the block as read (`<file>.<offset>.received`) and as it
/// should be (`<file>.<offset>.expected`) next to a regular file, or in the current
/// directory (base name) for a block device, so nothing is written outside iomark's own
/// files. The expected block is exact for `verify=pattern` and for `meta` with a
/// pattern; for checksum kinds the data after each header cannot be regenerated (the
/// write buffers are random), so it is the received data under the headers the block
/// should carry. `seed_seq`: the job seed and write sequence number the block must
/// carry; `None` (a job that only reads) takes them from the received header. Returns
/// the two paths.
pub fn dump(
    file: &std::path::Path,
    offset: u64,
    received: &[u8],
    spec: &Spec,
    seed_seq: Option<(u64, u64)>,
) -> std::io::Result<(std::path::PathBuf, std::path::PathBuf)> {
    let field = |a: usize| {
        received
            .get(a..a + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_le_bytes)
    };
    let (seed, seq) = seed_seq.unwrap_or_else(|| (field(16), field(24)));
    use std::os::unix::fs::FileTypeExt;
    let base = file
        .file_name()
        .map_or_else(|| "block".to_string(), |n| n.to_string_lossy().into_owned());
    let is_dev = std::fs::metadata(file).is_ok_and(|m| m.file_type().is_block_device());
    let dir = match file.parent() {
        Some(p) if !is_dev && !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let rec = dir.join(format!("{base}.{offset}.received"));
    let exp = dir.join(format!("{base}.{offset}.expected"));
    let mut want = received.to_vec();
    if spec.kind == VerifyKind::Meta && !spec.pattern.is_empty() {
        fill_pattern(&mut want, spec.pattern, 0);
    }
    stamp_with(&mut want, offset, seed, seq, spec);
    // output files (files/output.rs): never through a link, old content or complete
    let write = |p: &std::path::Path, bytes: &[u8]| {
        crate::files::output::Output::create(p)
            .and_then(|o| o.commit(bytes))
            .map_err(|e| std::io::Error::other(format!("{}: {e}", p.display())))
    };
    write(&rec, received)?;
    write(&exp, &want)?;
    Ok((rec, exp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamped_blocks_check_and_any_flip_is_caught() {
        for k in VerifyKind::ALL.into_iter().filter(|k| k.digest_len() > 0) {
            let mut b: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
            stamp(&mut b, 8192, 1, k, &[]);
            assert_eq!(check(&b, 8192, k, &[]), Ok(()));
            assert!(check(&b, 4096, k, &[]).unwrap_err().contains("offset"));
            let hl = k.header_len() as usize;
            assert_eq!(
                &b[32 + k.digest_len() as usize..hl],
                &vec![0; hl - 32 - k.digest_len() as usize][..]
            );
            for pos in [10usize, 40, 64, hl, 4095] {
                let mut c = b.clone();
                c[pos] ^= 0x01;
                assert!(check(&c, 8192, k, &[]).is_err(), "{k:?} flip at {pos}");
            }
        }
        // the crc32c is the Castagnoli CRC (RFC 3720 check value of "123456789")
        assert_eq!(crc32c::crc32c(b"123456789"), 0xe306_9283);
    }

    #[test]
    fn fios_crc32_crc16_crc7_are_its_tables() {
        // a single byte v gives entry v of fio's tables (crc/crc32.c, crc16.c, crc7.c);
        // two bytes chain through them
        let one = |k, v: u8| digest(k, &[v]);
        assert_eq!(one(VerifyKind::Crc32, 1), 0x04c1_1db7u32.to_le_bytes());
        assert_eq!(one(VerifyKind::Crc32, 2), 0x0982_3b6eu32.to_le_bytes());
        assert_eq!(
            digest(VerifyKind::Crc32, b"123456789"),
            0x89a1_897fu32.to_le_bytes()
        );
        assert_eq!(one(VerifyKind::Crc16, 1), 0xc0c1u16.to_le_bytes());
        assert_eq!(one(VerifyKind::Crc16, 255), 0x4040u16.to_le_bytes());
        assert_eq!(one(VerifyKind::Crc7, 1), [0x09]);
        assert_eq!(one(VerifyKind::Crc7, 255), [0x79]);
        // crc7([1, 0]) = table[(0x09 << 1) ^ 0] = table[18]
        assert_eq!(digest(VerifyKind::Crc7, &[1, 0]), [0x0b]);
        // the digests are the standard ones (FIPS 180 / 202 test vectors of "abc")
        let hex = |b: Vec<u8>| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        assert_eq!(
            hex(digest(VerifyKind::Sha1, b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert!(hex(digest(VerifyKind::Sha512, b"abc")).starts_with("ddaf35a193617aba"));
        assert!(hex(digest(VerifyKind::Sha3_256, b"abc")).starts_with("3a985da74fe225b2"));
        assert!(hex(digest(VerifyKind::Sha3_224, b"abc")).starts_with("e642824c3f8cf24a"));
    }

    #[test]
    fn null_stamps_and_checks_nothing() {
        let spec = Spec::new(VerifyKind::Null, &[]);
        let mut b = vec![7u8; 512];
        stamp_with(&mut b, 0, 1, 1, &spec);
        assert_eq!(b, vec![7u8; 512]);
        assert_eq!(check_with(&[0u8; 512], 4096, &spec, Some(3)), Ok(()));
    }

    #[test]
    fn fio_words_for_a_bad_checksum_and_a_bad_header() {
        let f = std::path::Path::new("f");
        let spec = Spec::new(VerifyKind::Crc7, &[]);
        let mut b: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
        stamp_with(&mut b, 8192, 1, 1, &spec);
        assert_eq!(fio_report(f, &b, 8192, &spec), None);
        let good = b[32];
        b[2000] ^= 1;
        let want = format!(
            "crc7: verify failed at file f offset 8192, length 4096 (requested block: offset=8192, length=4096, flags=8)\n       Expected CRC: {good:02x}\n       Received CRC: {:02x}\n",
            digest_over(&b, VerifyKind::Crc7)
        );
        assert_eq!(fio_report(f, &b, 8192, &spec).unwrap(), want);
        b[0] = 0;
        assert_eq!(
            fio_report(f, &b, 8192, &spec).unwrap(),
            "verify: bad magic header ac00, wanted acca at file f offset 8192, length 4096 (requested block: offset=8192, length=4096)\n"
        );
        // sha512's header is 96 bytes, its digest the last 64 of them; sha3-384's 80
        assert_eq!(VerifyKind::Sha512.header_len(), 96);
        assert_eq!(VerifyKind::Sha3_384.header_len(), 80);
        let spec = Spec::new(VerifyKind::Sha512, &[]);
        let mut b = vec![5u8; 1024];
        stamp_with(&mut b, 0, 1, 1, &spec);
        assert_ne!(b[95], 0);
        assert_eq!(b[96], 5);
        for pos in [95, 96] {
            let mut c = b.clone();
            c[pos] ^= 1;
            let e = check_with(&c, 0, &spec, None).unwrap_err();
            assert_eq!(e, "sha512 checksum mismatch");
        }
    }

    fn digest_over(b: &[u8], k: VerifyKind) -> u8 {
        checksum(k, &b[..32], &b[k.header_len() as usize..])[0]
    }

    #[test]
    fn pattern_mode() {
        let p = [0xaa, 0x55, 0x5a, 0xa5];
        let mut b = vec![0u8; 512];
        stamp(&mut b, 0, 0, VerifyKind::Pattern, &p);
        assert_eq!(&b[4..8], &p);
        assert_eq!(check(&b, 0, VerifyKind::Pattern, &p), Ok(()));
        b[100] = 0;
        assert!(check(&b, 0, VerifyKind::Pattern, &p)
            .unwrap_err()
            .contains("byte 100"));
    }

    #[test]
    fn crc64_is_fios_jones_polynomial() {
        // check value of CRC-64/REDIS (poly 0xad93d23594c935a9 reflected, init 0); fio's
        // crc64 table starts 0, 0x7ad870c830358979 for this polynomial
        let c = crc::Crc::<u64>::new(&crc::CRC_64_REDIS);
        assert_eq!(c.checksum(b"123456789"), 0xe9c6_d914_c4b8_d9ca);
        assert_eq!(c.checksum(&[1]), 0x7ad8_70c8_3035_8979);
    }

    #[test]
    fn offset_in_pattern_and_header_offset() {
        // verify_pattern=0xab%o: the block's offset after the 0xab, in every copy
        let p = [0xab, 0, 0, 0, 0, 0, 0, 0, 0];
        let spec = Spec {
            offset_at: &[1],
            ..Spec::new(VerifyKind::Pattern, &p)
        };
        let mut b = vec![0u8; 18];
        stamp_with(&mut b, 0x1234, 1, 0, &spec);
        assert_eq!(&b[..9], &[0xab, 0x34, 0x12, 0, 0, 0, 0, 0, 0]);
        assert_eq!(b[9..], b[..9]);
        check_with(&b, 0x1234, &spec, None).unwrap();
        assert!(check_with(&b, 0x2234, &spec, None).is_err());
        // verify_offset=128: the header is found at byte 128, and checks as before
        let spec = Spec {
            hdr_at: 128,
            ..Spec::new(VerifyKind::Crc32c, &[])
        };
        let mut b: Vec<u8> = (0..4096u32).map(|i| (i * 7) as u8).collect();
        stamp_with(&mut b, 8192, 5, 0, &spec);
        assert_eq!(u16::from_le_bytes([b[128], b[129]]), MAGIC);
        check_with(&b, 8192, &spec, None).unwrap();
        b[3000] ^= 1;
        assert!(check_with(&b, 8192, &spec, None).is_err());
    }

    #[test]
    fn interval_headers_sequence_and_meta_pattern() {
        let p = [0xaa, 0x55, 0x5a, 0xa5];
        let spec = Spec {
            kind: VerifyKind::Meta,
            pattern: &p,
            interval: 512,
            ..Spec::new(VerifyKind::Meta, &p)
        };
        let mut b = vec![0u8; 4096];
        stamp_with(&mut b, 65536, 9, 3, &spec);
        // one header every 512 bytes, each with its own offset
        for i in 0..8 {
            let h = &b[i * 512..];
            assert_eq!(u16::from_le_bytes([h[0], h[1]]), MAGIC);
            assert_eq!(
                u64::from_le_bytes(h[8..16].try_into().unwrap()),
                65536 + i as u64 * 512
            );
            assert_eq!(u32::from_le_bytes(h[4..8].try_into().unwrap()), 512);
        }
        assert_eq!(b[64], p[0]);
        assert_eq!(check_with(&b, 65536, &spec, Some(3)), Ok(()));
        let e = check_with(&b, 65536, &spec, Some(4)).unwrap_err();
        assert!(e.contains("sequence number 3 != 4"), "{e}");
        let mut c = b.clone();
        c[1024 + 100] ^= 1;
        let e = check_with(&c, 65536, &spec, None).unwrap_err();
        assert!(e.contains("pattern mismatch at byte 1124"), "{e}");
        let mut c = b.clone();
        c[2048 + 9] ^= 1; // offset field of the fifth chunk
        let e = check_with(&c, 65536, &spec, None).unwrap_err();
        assert!(e.contains("chunk at byte 2048"), "{e}");
        // a checksum kind with an interval catches a flip in any chunk
        let spec = Spec {
            kind: VerifyKind::Crc64,
            pattern: &[],
            interval: 1024,
            ..Spec::new(VerifyKind::Crc64, &[])
        };
        let mut b: Vec<u8> = (0..4096u32).map(|i| (i * 13) as u8).collect();
        stamp_with(&mut b, 0, 1, 1, &spec);
        assert_eq!(check_with(&b, 0, &spec, Some(1)), Ok(()));
        b[3000] ^= 0x80;
        assert!(check_with(&b, 0, &spec, None)
            .unwrap_err()
            .contains("crc64"));
    }

    #[test]
    fn dump_writes_received_and_expected_next_to_the_file() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("data");
        let p = [1u8, 2, 3];
        let spec = Spec::new(VerifyKind::Pattern, &p);
        let mut got = vec![0u8; 512];
        stamp_with(&mut got, 0, 0, 0, &spec);
        got[7] = 0xee;
        let (r, e) = dump(&f, 4096, &got, &spec, None).unwrap();
        assert_eq!(r, d.path().join("data.4096.received"));
        assert_eq!(e, d.path().join("data.4096.expected"));
        assert_eq!(std::fs::read(&r).unwrap(), got);
        let want = std::fs::read(&e).unwrap();
        assert_eq!(want[7], p[7 % 3]);
        assert_eq!(check(&want, 4096, VerifyKind::Pattern, &p), Ok(()));
    }
}
