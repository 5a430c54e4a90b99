//! Data verification of `iomark run` (fio's `verify=`): every written block carries a
//! header like fio's (magic, checksum type, length, offset, job seed) and a checksum of
//! the header and the data after it; reading the block back recomputes and compares.
//! `verify=pattern` writes `verify_pattern` over the whole block and compares it; `meta`
//! checks the header only.
//!
//! Header layout (64 bytes, little endian): `0..2` magic 0xacca (fio's VERIFY_MAGIC),
//! `2..4` checksum type, `4..8` block length, `8..16` block offset, `16..24` seed,
//! `24..32` zero, `32..64` checksum (crc32c: 4 bytes, xxh64: 8, md5: 16, sha256: 32),
//! computed over bytes `0..32` and `64..len`.

use crate::job::fio_keys::VerifyKind;
use md5::Digest as _;

/// Header size, bytes; blocks must be at least this long for checksum kinds.
pub const HEADER: usize = 64;
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
    }
}

fn checksum(k: VerifyKind, head: &[u8], data: &[u8]) -> Vec<u8> {
    match k {
        VerifyKind::Crc32c => crc32c::crc32c_append(crc32c::crc32c(head), data)
            .to_le_bytes()
            .to_vec(),
        VerifyKind::Md5 => {
            let mut h = md5::Md5::new();
            h.update(head);
            h.update(data);
            h.finalize().to_vec()
        }
        VerifyKind::Sha256 => {
            let mut h = sha2::Sha256::new();
            h.update(head);
            h.update(data);
            h.finalize().to_vec()
        }
        VerifyKind::Xxhash => {
            let mut h = xxhash_rust::xxh64::Xxh64::new(0);
            h.update(head);
            h.update(data);
            h.digest().to_le_bytes().to_vec()
        }
        VerifyKind::Meta | VerifyKind::Pattern => Vec::new(),
    }
}

fn fill_pattern(buf: &mut [u8], pattern: &[u8]) {
    if pattern.is_empty() {
        return;
    }
    for (i, b) in buf.iter_mut().enumerate() {
        *b = pattern[i % pattern.len()];
    }
}

/// Prepare a block for writing at `offset`: stamp the header and checksum (or the
/// pattern). `buf` holds the block's data (its random bytes are kept after the header).
pub fn stamp(buf: &mut [u8], offset: u64, seed: u64, k: VerifyKind, pattern: &[u8]) {
    if k == VerifyKind::Pattern {
        fill_pattern(buf, pattern);
        return;
    }
    if buf.len() < HEADER {
        return;
    }
    buf[..HEADER].fill(0);
    buf[0..2].copy_from_slice(&MAGIC.to_le_bytes());
    buf[2..4].copy_from_slice(&kind_id(k).to_le_bytes());
    let len = buf.len() as u32;
    buf[4..8].copy_from_slice(&len.to_le_bytes());
    buf[8..16].copy_from_slice(&offset.to_le_bytes());
    buf[16..24].copy_from_slice(&seed.to_le_bytes());
    let c = checksum(k, &buf[..32], &buf[HEADER..]);
    buf[32..32 + c.len()].copy_from_slice(&c);
}

/// Check a block read from `offset`. `Err` says what does not match.
pub fn check(buf: &[u8], offset: u64, k: VerifyKind, pattern: &[u8]) -> Result<(), String> {
    if k == VerifyKind::Pattern {
        if pattern.is_empty() {
            return Ok(());
        }
        return match buf
            .iter()
            .enumerate()
            .find(|(i, b)| **b != pattern[i % pattern.len()])
        {
            None => Ok(()),
            Some((i, b)) => Err(format!(
                "pattern mismatch at byte {i} of the block: found 0x{b:02x}, expected 0x{:02x}",
                pattern[i % pattern.len()]
            )),
        };
    }
    if buf.len() < HEADER {
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
    let c = checksum(k, &buf[..32], &buf[HEADER..]);
    if buf[32..32 + c.len()] != c[..] {
        return Err(format!("{} checksum mismatch", k.name()));
    }
    if buf[24..32]
        .iter()
        .chain(&buf[32 + c.len()..HEADER])
        .any(|&b| b != 0)
    {
        return Err("verify header padding is not zero (header corrupted)".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamped_blocks_check_and_any_flip_is_caught() {
        for k in [
            VerifyKind::Crc32c,
            VerifyKind::Md5,
            VerifyKind::Xxhash,
            VerifyKind::Sha256,
        ] {
            let mut b: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
            stamp(&mut b, 8192, 1, k, &[]);
            assert_eq!(check(&b, 8192, k, &[]), Ok(()));
            assert!(check(&b, 4096, k, &[]).unwrap_err().contains("offset"));
            for pos in [10usize, 40, 64, 4095] {
                let mut c = b.clone();
                c[pos] ^= 0x01;
                assert!(check(&c, 8192, k, &[]).is_err(), "{k:?} flip at {pos}");
            }
        }
        // the crc32c is the Castagnoli CRC (RFC 3720 check value of "123456789")
        assert_eq!(crc32c::crc32c(b"123456789"), 0xe306_9283);
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
}
