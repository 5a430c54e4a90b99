//! Block content for `--validate` (sysbench 1.0.20 format): each block is
//! `len − 12` random bytes, the CRC-32 (zlib polynomial) of those bytes as 4 bytes
//! little-endian, then the block's in-file offset as 8 bytes little-endian.

use crate::run::sysbench::rng::Xoroshiro128Plus;

/// Trailer size, bytes.
pub const TRAILER: usize = 12;

/// Fill `buf` (one request starting at in-file `offset`) block by block.
/// Blocks shorter than the trailer are filled with random bytes only.
pub fn fill(buf: &mut [u8], offset: u64, block: usize, rng: &mut Xoroshiro128Plus) {
    let mut off = offset;
    for chunk in buf.chunks_mut(block.max(1)) {
        if chunk.len() <= TRAILER {
            rng.fill(chunk);
        } else {
            let n = chunk.len() - TRAILER;
            rng.fill(&mut chunk[..n]);
            let crc = crc32fast::hash(&chunk[..n]);
            chunk[n..n + 4].copy_from_slice(&crc.to_le_bytes());
            chunk[n + 4..].copy_from_slice(&off.to_le_bytes());
        }
        off += chunk.len() as u64;
    }
}

/// A block whose content does not match its trailer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// CRC over the payload differs from the stored CRC.
    Checksum {
        /// in-file offset of the block
        offset: u64,
        /// CRC computed now
        calculated: u32,
        /// CRC stored in the block
        stored: u32,
    },
    /// The stored offset is not where the block was read from.
    Offset {
        /// in-file offset of the block
        actual: u64,
        /// offset stored in the block
        stored: u64,
    },
}

/// Check every block of `buf` (read at in-file `offset`).
pub fn check(buf: &[u8], offset: u64, block: usize) -> Result<(), Mismatch> {
    let mut off = offset;
    for chunk in buf.chunks(block.max(1)) {
        if chunk.len() > TRAILER {
            let n = chunk.len() - TRAILER;
            let calculated = crc32fast::hash(&chunk[..n]);
            let stored = u32::from_le_bytes(chunk[n..n + 4].try_into().expect("4 bytes"));
            if calculated != stored {
                return Err(Mismatch::Checksum {
                    offset: off,
                    calculated,
                    stored,
                });
            }
            let so = u64::from_le_bytes(chunk[n + 4..].try_into().expect("8 bytes"));
            if so != off {
                return Err(Mismatch::Offset {
                    actual: off,
                    stored: so,
                });
            }
        }
        off += chunk.len() as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::sysbench::rng::GlibcRandom;

    #[test]
    fn round_trip_and_detection() {
        let mut rng = Xoroshiro128Plus::from_glibc(&mut GlibcRandom::new(3));
        let mut b = vec![0u8; 3 * 4096];
        fill(&mut b, 8192, 4096, &mut rng);
        assert_eq!(check(&b, 8192, 4096), Ok(()));
        assert!(matches!(
            check(&b, 0, 4096),
            Err(Mismatch::Offset {
                actual: 0,
                stored: 8192
            })
        ));
        b[5000] ^= 1;
        assert!(matches!(
            check(&b, 8192, 4096),
            Err(Mismatch::Checksum { offset: 12288, .. })
        ));
    }

    #[test]
    fn zero_block_fails_checksum_like_sysbench_t19() {
        let b = vec![0u8; 16384];
        match check(&b, 49152, 16384) {
            Err(Mismatch::Checksum {
                offset,
                stored,
                calculated,
            }) => {
                assert_eq!((offset, stored), (49152, 0));
                assert_ne!(calculated, 0);
            }
            other => panic!("{other:?}"),
        }
    }
}
