//! The AVM's hashes, in the order k takes them, and its bit order on byte arrays and uint64s.

use super::MAX_K;
use crate::error::{Error, Result};
use sha2::Digest as _;

/// One of the AVM's 256-bit hash opcodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AvmHash {
    /// `sha512_256`: FIPS 180-4 SHA-512/256 (its own initial value; not truncated SHA-512).
    Sha512_256,
    /// `sha3_256`: FIPS 202 SHA3-256 (padding 0x06; not Keccak-256).
    Sha3_256,
    /// `sha256`: FIPS 180-4 SHA-256.
    Sha256,
    /// `keccak256`: the original Keccak-256 (padding 0x01), as Ethereum uses it.
    Keccak256,
}

impl AvmHash {
    /// The order in which k hash functions are taken: the contract's two first, then the
    /// other two AVM hashes.
    pub const ORDER: [AvmHash; MAX_K as usize] = [
        AvmHash::Sha512_256,
        AvmHash::Sha3_256,
        AvmHash::Sha256,
        AvmHash::Keccak256,
    ];

    /// The 32-byte digest of `data`.
    ///
    /// # Example
    /// ```
    /// use amq::formats::algorand::AvmHash;
    /// let d = AvmHash::Sha512_256.digest(b"abc");
    /// assert_eq!(d[..4], [0x53, 0x04, 0x8e, 0x26]); // FIPS 180-4 example
    /// ```
    pub fn digest(self, data: &[u8]) -> [u8; 32] {
        let mut out = [0u8; 32];
        match self {
            AvmHash::Sha512_256 => out.copy_from_slice(&sha2::Sha512_256::digest(data)),
            AvmHash::Sha3_256 => out.copy_from_slice(&sha3::Sha3_256::digest(data)),
            AvmHash::Sha256 => out.copy_from_slice(&sha2::Sha256::digest(data)),
            AvmHash::Keccak256 => out.copy_from_slice(&sha3::Keccak256::digest(data)),
        }
        out
    }

    /// The opcode's name in TEAL.
    pub fn opcode(self) -> &'static str {
        match self {
            AvmHash::Sha512_256 => "sha512_256",
            AvmHash::Sha3_256 => "sha3_256",
            AvmHash::Sha256 => "sha256",
            AvmHash::Keccak256 => "keccak256",
        }
    }
}

/// The AVM's `extract_uint64`: the big-endian u64 of `bytes[start..start + 8]`.
///
/// # Errors
/// [`Error::Truncated`] if `start + 8 > bytes.len()` (the AVM fails the program).
pub fn extract_uint64(bytes: &[u8], start: usize) -> Result<u64> {
    let s = start
        .checked_add(8)
        .and_then(|end| bytes.get(start..end))
        .ok_or(Error::Truncated {
            what: "extract_uint64",
            offset: start,
            needed: 8,
            available: bytes.len().saturating_sub(start),
        })?;
    let mut w = [0u8; 8];
    w.copy_from_slice(s);
    Ok(u64::from_be_bytes(w))
}

/// The AVM's `getbit` on a byte array: bit `i` is `0x80 >> (i % 8)` of byte `i / 8`.
///
/// # Errors
/// [`Error::InvalidParameter`] if `i` is beyond the array ("getbit index beyond byteslice").
///
/// # Example
/// ```
/// use amq::formats::algorand::avm_getbit;
/// assert!(avm_getbit(&[0xff, 0xf0], 10)?);
/// assert!(!avm_getbit(&[0xff, 0xf0], 12)?);
/// assert!(avm_getbit(&[0xff, 0xf0], 16).is_err());
/// # Ok::<(), amq::Error>(())
/// ```
pub fn avm_getbit(bytes: &[u8], i: u64) -> Result<bool> {
    let byte = usize::try_from(i / 8)
        .ok()
        .and_then(|b| bytes.get(b))
        .ok_or_else(|| Error::invalid("index", "getbit index beyond byteslice"))?;
    Ok(byte & (0x80 >> (i % 8)) != 0)
}

/// The AVM's `setbit` on a byte array: sets bit `i` (see [`avm_getbit`]) to `bit`.
///
/// # Errors
/// [`Error::InvalidParameter`] if `i` is beyond the array ("setbit index beyond byteslice")
/// or `bit` is over 1 ("setbit value > 1"); `bytes` is then unchanged.
pub fn avm_setbit(bytes: &mut [u8], i: u64, bit: u64) -> Result<()> {
    if bit > 1 {
        return Err(Error::invalid("bit", "setbit value > 1"));
    }
    let byte = usize::try_from(i / 8)
        .ok()
        .and_then(|b| bytes.get_mut(b))
        .ok_or_else(|| Error::invalid("index", "setbit index beyond byteslice"))?;
    let mask = 0x80u8 >> (i % 8);
    if bit == 1 {
        *byte |= mask;
    } else {
        *byte &= !mask;
    }
    Ok(())
}

/// The AVM's `getbit` on a uint64: bit `i` counts from the least significant bit.
///
/// # Errors
/// [`Error::InvalidParameter`] if `i` is over 63 ("getbit index > 63 with Uint").
pub fn avm_getbit_uint64(value: u64, i: u64) -> Result<bool> {
    if i > 63 {
        return Err(Error::invalid("index", "getbit index > 63 with Uint"));
    }
    Ok(value >> i & 1 == 1)
}

/// The AVM's `setbit` on a uint64: `value` with bit `i` (from the least significant) set to
/// `bit`.
///
/// # Errors
/// [`Error::InvalidParameter`] if `i` is over 63 ("setbit index > 63 with Uint") or `bit`
/// over 1 ("setbit value > 1").
pub fn avm_setbit_uint64(value: u64, i: u64, bit: u64) -> Result<u64> {
    if bit > 1 {
        return Err(Error::invalid("bit", "setbit value > 1"));
    }
    if i > 63 {
        return Err(Error::invalid("index", "setbit index > 63 with Uint"));
    }
    Ok(if bit == 1 {
        value | 1 << i
    } else {
        value & !(1 << i)
    })
}

/// The bit index `hash` gives `name` in a filter of `m` bits:
/// `extract_uint64(hash(name), 24) mod m` (the contract's `to_index`).
///
/// # Panics
/// If `m` is 0 (the AVM fails with "% 0"); [`AlgorandBloom`](super::AlgorandBloom) never has m = 0.
///
/// # Example
/// ```
/// use amq::formats::algorand::{index, AvmHash};
/// let h1 = index(AvmHash::Sha512_256, b"The GOAT", 32_768);
/// assert!(h1 < 32_768);
/// ```
pub fn index(hash: AvmHash, name: &[u8], m: u64) -> u64 {
    let d = hash.digest(name);
    u64::from_be_bytes([d[24], d[25], d[26], d[27], d[28], d[29], d[30], d[31]]) % m
}
