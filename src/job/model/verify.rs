//! The check a written block carries ([`VerifyKind`], fio's `verify=`), which the
//! worker stamps and checks and the verify formats (`run/verify/`) compute.

/// Checksum of `verify=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerifyKind {
    /// CRC-32C (Castagnoli), `crc32c` / `crc32c-intel`
    Crc32c,
    /// MD5
    Md5,
    /// XXH64 (`xxhash`)
    Xxhash,
    /// SHA-256
    Sha256,
    /// header only (offset, length, job seed): `meta`
    Meta,
    /// the `verify_pattern` bytes, no header
    Pattern,
    /// CRC-64 as fio's `crc64` (Jones polynomial 0xad93d23594c935a9, reflected, init 0,
    /// no final xor: the `crc` crate's CRC_64_REDIS)
    Crc64,
    /// CRC-32 as fio's `crc32`: polynomial 0x04c11db7, not reflected, init 0, no final
    /// xor and no length appended (unlike `cksum`)
    Crc32,
    /// CRC-16 as fio's `crc16`: polynomial 0x8005 reflected, init 0 (CRC-16/ARC)
    Crc16,
    /// CRC-7 as fio's `crc7`: polynomial x^7 + x^3 + 1, not reflected, init 0
    /// (CRC-7/MMC)
    Crc7,
    /// SHA-1
    Sha1,
    /// SHA-512
    Sha512,
    /// SHA3-224
    Sha3_224,
    /// SHA3-256
    Sha3_256,
    /// SHA3-384
    Sha3_384,
    /// SHA3-512
    Sha3_512,
    /// fio's `null`: the blocks are read back and nothing is checked (no header)
    Null,
}

impl VerifyKind {
    /// Every kind, in fio's order of `--crctest` for the checksums.
    pub const ALL: [VerifyKind; 17] = [
        VerifyKind::Md5,
        VerifyKind::Crc64,
        VerifyKind::Crc32,
        VerifyKind::Crc32c,
        VerifyKind::Crc16,
        VerifyKind::Crc7,
        VerifyKind::Sha1,
        VerifyKind::Sha256,
        VerifyKind::Sha512,
        VerifyKind::Xxhash,
        VerifyKind::Sha3_224,
        VerifyKind::Sha3_256,
        VerifyKind::Sha3_384,
        VerifyKind::Sha3_512,
        VerifyKind::Meta,
        VerifyKind::Pattern,
        VerifyKind::Null,
    ];

    /// Name as fio spells it.
    pub fn name(self) -> &'static str {
        match self {
            VerifyKind::Crc32c => "crc32c",
            VerifyKind::Md5 => "md5",
            VerifyKind::Xxhash => "xxhash",
            VerifyKind::Sha256 => "sha256",
            VerifyKind::Meta => "meta",
            VerifyKind::Pattern => "pattern",
            VerifyKind::Crc64 => "crc64",
            VerifyKind::Crc32 => "crc32",
            VerifyKind::Crc16 => "crc16",
            VerifyKind::Crc7 => "crc7",
            VerifyKind::Sha1 => "sha1",
            VerifyKind::Sha512 => "sha512",
            VerifyKind::Sha3_224 => "sha3-224",
            VerifyKind::Sha3_256 => "sha3-256",
            VerifyKind::Sha3_384 => "sha3-384",
            VerifyKind::Sha3_512 => "sha3-512",
            VerifyKind::Null => "null",
        }
    }

    /// Bytes of the checksum a header carries (0: `meta`, `pattern`, `null`).
    pub fn digest_len(self) -> u64 {
        match self {
            VerifyKind::Crc7 => 1,
            VerifyKind::Crc16 => 2,
            VerifyKind::Crc32c | VerifyKind::Crc32 => 4,
            VerifyKind::Crc64 | VerifyKind::Xxhash => 8,
            VerifyKind::Md5 => 16,
            VerifyKind::Sha1 => 20,
            VerifyKind::Sha3_224 => 28,
            VerifyKind::Sha256 | VerifyKind::Sha3_256 => 32,
            VerifyKind::Sha3_384 => 48,
            VerifyKind::Sha512 | VerifyKind::Sha3_512 => 64,
            VerifyKind::Meta | VerifyKind::Pattern | VerifyKind::Null => 0,
        }
    }

    /// Bytes of iomark's verify header for this kind: 32 bytes of fields, then the
    /// checksum in at least 32 bytes (64 in all; 80 for sha3-384, 96 for sha512 and
    /// sha3-512); 0 for the kinds without a header (`pattern`, `null`).
    pub fn header_len(self) -> u64 {
        match self {
            VerifyKind::Pattern | VerifyKind::Null => 0,
            k => 32 + k.digest_len().max(32),
        }
    }
}
