//! [`LogsBloom`]: the 256-byte filter itself, its hex and serde forms, and the filter traits.

use super::{decode_hex, InputBits, Log, LOGS_BLOOM_BITS, LOGS_BLOOM_BYTES, LOGS_BLOOM_K};
use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Merge};
use alloc::string::String;
use core::fmt;
use core::ops::{BitOr, BitOrAssign};

/// An Ethereum logsBloom: 256 bytes, m = 2048 bits, k = 3 (Yellow Paper §4.3.1, M3:2048).
///
/// The bytes are as they appear in a receipt or block header (and in its hex): bit b of the
/// 2048-bit big-endian number is bit `b % 8` of byte `255 − b/8`. See the
/// [module docs](super) for how an input picks its bits.
///
/// As a [`Filter`] and [`Insert`] over `[u8]` it hashes raw bytes; [`Merge`] is the OR.
/// In serde and with [`Display`](fmt::Display)/[`FromStr`](core::str::FromStr) it is the
/// JSON-RPC string: `0x` and 512 lower-case hex digits (read in either case, `0x` optional).
///
/// # Example
/// ```
/// use amq::formats::eth::LogsBloom;
/// let mut a = LogsBloom::new();
/// a.accrue(b"hallo");
/// let mut b = LogsBloom::new();
/// b.accrue_hash(&amq::formats::eth::keccak256(b"other"));
/// let block = a | b; // a block's bloom is the OR of its receipts' blooms
/// assert!(block.contains(b"hallo") && block.contains(b"other"));
/// let parsed: LogsBloom = block.to_hex().to_uppercase().parse()?;
/// assert_eq!(parsed, block);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct LogsBloom([u8; LOGS_BLOOM_BYTES]);

impl Default for LogsBloom {
    fn default() -> Self {
        Self::ZERO
    }
}

impl LogsBloom {
    /// The empty bloom (all 256 bytes zero), as in a receipt without logs.
    pub const ZERO: LogsBloom = LogsBloom([0; LOGS_BLOOM_BYTES]);

    /// The empty bloom.
    pub const fn new() -> Self {
        Self::ZERO
    }

    /// The bloom with these 256 bytes (as in a receipt or header).
    pub const fn from_bytes(bytes: [u8; LOGS_BLOOM_BYTES]) -> Self {
        LogsBloom(bytes)
    }

    /// The bloom with these bytes.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`logsBloom`) unless `bytes` is exactly 256 bytes long.
    ///
    /// # Example
    /// ```
    /// use amq::formats::eth::LogsBloom;
    /// assert!(LogsBloom::from_slice(&[0u8; 256]).unwrap().is_zero());
    /// assert!(LogsBloom::from_slice(&[0u8; 255]).is_err());
    /// ```
    pub fn from_slice(bytes: &[u8]) -> Result<Self> {
        let array: [u8; LOGS_BLOOM_BYTES] = bytes.try_into().map_err(|_| {
            Error::invalid(
                "logsBloom",
                alloc::format!("a logsBloom is 256 bytes, got {}", bytes.len()),
            )
        })?;
        Ok(LogsBloom(array))
    }

    /// The 256 bytes.
    #[inline]
    pub const fn as_bytes(&self) -> &[u8; LOGS_BLOOM_BYTES] {
        &self.0
    }

    /// The 256 bytes, by value.
    #[inline]
    pub const fn to_bytes(self) -> [u8; LOGS_BLOOM_BYTES] {
        self.0
    }

    /// Bit b (`0..2048`) of the bloom as a 2048-bit big-endian number.
    ///
    /// # Panics
    /// If `b >= 2048`.
    #[inline]
    pub fn bit(&self, b: usize) -> bool {
        assert!(b < LOGS_BLOOM_BITS, "bit {b} out of 0..2048");
        self.0[LOGS_BLOOM_BYTES - 1 - b / 8] >> (b % 8) & 1 == 1
    }

    /// Sets the three bits of an input; `true` if any was zero before.
    #[inline]
    pub fn accrue_bits(&mut self, bits: InputBits) -> bool {
        let mut new = false;
        for i in 0..LOGS_BLOOM_K {
            let byte = &mut self.0[bits.byte[i] as usize];
            new |= *byte & bits.mask[i] == 0;
            *byte |= bits.mask[i];
        }
        new
    }

    /// Accrues the raw input `bytes` (hashed with Keccak-256): M3:2048 of the Yellow Paper.
    #[inline]
    pub fn accrue(&mut self, bytes: &[u8]) {
        self.accrue_bits(InputBits::from_input(bytes));
    }

    /// Accrues an input whose Keccak-256 hash is already known.
    #[inline]
    pub fn accrue_hash(&mut self, hash: &[u8; 32]) {
        self.accrue_bits(InputBits::from_hash(hash));
    }

    /// Accrues a log: its 20-byte address and each of its 32-byte topics (a log's `data` is
    /// never part of the bloom). One Keccak-256 per input, no allocation.
    ///
    /// # Example
    /// ```
    /// use amq::formats::eth::LogsBloom;
    /// let (address, topic) = ([0x11; 20], [0x22; 32]);
    /// let mut bloom = LogsBloom::new();
    /// bloom.accrue_log(&address, &[topic]);
    /// assert!(bloom.contains(&address) && bloom.contains(&topic));
    /// assert!(bloom.contains_log(&address, &[topic]));
    /// ```
    #[inline]
    pub fn accrue_log(&mut self, address: &[u8; 20], topics: &[[u8; 32]]) {
        self.accrue(address);
        for topic in topics {
            self.accrue(topic);
        }
    }

    /// ORs `other` into `self` (a block's bloom is the OR of its receipts' blooms).
    #[inline]
    pub fn accrue_bloom(&mut self, other: &LogsBloom) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a |= b;
        }
    }

    /// `true` if the three bits of an input are all set ("maybe present"); `false` means the
    /// input is definitely not in the bloom. Reads three bytes.
    #[inline(always)]
    pub fn contains_bits(&self, bits: InputBits) -> bool {
        self.0[bits.byte[0] as usize] & bits.mask[0] != 0
            && self.0[bits.byte[1] as usize] & bits.mask[1] != 0
            && self.0[bits.byte[2] as usize] & bits.mask[2] != 0
    }

    /// As [`contains_bits`](Self::contains_bits), reading all three bytes without branches.
    #[inline(always)]
    pub(super) fn holds_bits(&self, bits: InputBits) -> bool {
        (self.0[bits.byte[0] as usize] & bits.mask[0] != 0)
            & (self.0[bits.byte[1] as usize] & bits.mask[1] != 0)
            & (self.0[bits.byte[2] as usize] & bits.mask[2] != 0)
    }

    /// `true` if the raw input `bytes` may be in the bloom (it is hashed with Keccak-256).
    #[inline]
    pub fn contains(&self, bytes: &[u8]) -> bool {
        self.contains_bits(InputBits::from_input(bytes))
    }

    /// `true` if the input whose Keccak-256 hash is `hash` may be in the bloom.
    #[inline]
    pub fn contains_hash(&self, hash: &[u8; 32]) -> bool {
        self.contains_bits(InputBits::from_hash(hash))
    }

    /// `true` if the address and every topic may be in the bloom.
    pub fn contains_log(&self, address: &[u8; 20], topics: &[[u8; 32]]) -> bool {
        self.contains(address) && topics.iter().all(|t| self.contains(t))
    }

    /// `true` if every bit of `other` is set in `self`.
    pub fn contains_bloom(&self, other: &LogsBloom) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| a & b == *b)
    }

    /// `true` if no bit is set.
    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&b| b == 0)
    }

    /// The number of bits set.
    pub fn bits_set(&self) -> u32 {
        self.0.iter().map(|b| b.count_ones()).sum()
    }

    /// The fraction of the 2048 bits that are set.
    pub fn fill_ratio(&self) -> f64 {
        f64::from(self.bits_set()) / LOGS_BLOOM_BITS as f64
    }

    /// The false-positive rate of one input at the current fill, `(X/m)³`.
    pub fn estimated_fpr(&self) -> f64 {
        let r = self.fill_ratio();
        r * r * r
    }

    /// Parses the hex form: 512 hex digits in either case, with an optional `0x`/`0X`.
    ///
    /// # Errors
    /// [`Error::Parse`] (`logsBloom`) if the text is not exactly 512 hex digits after the
    /// optional prefix.
    ///
    /// # Panics
    /// Never, for any input.
    ///
    /// # Example
    /// ```
    /// use amq::formats::eth::LogsBloom;
    /// let zero = format!("0x{}", "0".repeat(512));
    /// assert!(LogsBloom::from_hex(&zero)?.is_zero());
    /// assert!(LogsBloom::from_hex("0x00").is_err());
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn from_hex(text: &str) -> Result<Self> {
        decode_hex(text, "logsBloom", |digits| {
            alloc::format!("expected 0x and 512 hex digits, got {digits} digits")
        })
        .map(LogsBloom)
    }

    /// The hex form: `0x` and 512 lower-case hex digits (514 characters).
    ///
    /// # Panics
    /// Never.
    pub fn to_hex(&self) -> String {
        let mut out = [0u8; 2 + 2 * LOGS_BLOOM_BYTES];
        out[0] = b'0';
        out[1] = b'x';
        hex::encode_to_slice(self.0, &mut out[2..]).expect("the buffer holds 512 digits");
        out.iter().map(|&c| char::from(c)).collect()
    }

    /// The bloom of a run of logs (the logsBloom of a receipt with these logs).
    ///
    /// # Example
    /// ```
    /// use amq::formats::eth::{Log, LogsBloom};
    /// let logs = [Log { address: [1; 20], topics: vec![[2; 32]] }];
    /// assert!(LogsBloom::from_logs(&logs).contains(&[1; 20]));
    /// ```
    pub fn from_logs<'a>(logs: impl IntoIterator<Item = &'a Log>) -> Self {
        let mut bloom = LogsBloom::new();
        for log in logs {
            bloom.accrue_log(&log.address, &log.topics);
        }
        bloom
    }
}

impl fmt::Display for LogsBloom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for LogsBloom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LogsBloom({})", self.to_hex())
    }
}

impl core::str::FromStr for LogsBloom {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::from_hex(s)
    }
}

impl From<[u8; LOGS_BLOOM_BYTES]> for LogsBloom {
    fn from(bytes: [u8; LOGS_BLOOM_BYTES]) -> Self {
        LogsBloom(bytes)
    }
}

impl AsRef<[u8]> for LogsBloom {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl BitOr for LogsBloom {
    type Output = LogsBloom;
    fn bitor(mut self, rhs: LogsBloom) -> LogsBloom {
        self.accrue_bloom(&rhs);
        self
    }
}

impl BitOrAssign for LogsBloom {
    fn bitor_assign(&mut self, rhs: LogsBloom) {
        self.accrue_bloom(&rhs);
    }
}

impl<'a> BitOrAssign<&'a LogsBloom> for LogsBloom {
    fn bitor_assign(&mut self, rhs: &'a LogsBloom) {
        self.accrue_bloom(rhs);
    }
}

impl Filter<[u8]> for LogsBloom {
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        LogsBloom::contains(self, item)
    }
}

impl Insert<[u8]> for LogsBloom {
    /// Accrues the raw bytes; never fails (a logsBloom has no capacity, only a rising fpr).
    fn insert(&mut self, item: &[u8]) -> Result<bool> {
        Ok(self.accrue_bits(InputBits::from_input(item)))
    }
}

impl Merge for LogsBloom {
    /// The OR; never fails (every logsBloom has the same shape).
    fn merge(&mut self, other: &Self) -> Result<()> {
        self.accrue_bloom(other);
        Ok(())
    }
}

impl serde::Serialize for LogsBloom {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> core::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_hex())
    }
}

impl<'de> serde::Deserialize<'de> for LogsBloom {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> core::result::Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = LogsBloom;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a logsBloom: 0x and 512 hex digits")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> core::result::Result<LogsBloom, E> {
                LogsBloom::from_hex(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::super::keccak256;
    use super::*;
    use alloc::vec::Vec;

    /// Bits as geth's `bloomValues` computes them, written out independently of
    /// [`InputBits::from_hash`]: `i = 256 − ((BE16(h[j..]) & 0x7ff) >> 3) − 1`,
    /// `v = 1 << (h[j+1] & 7)`.
    fn geth_values(h: &[u8; 32]) -> [(usize, u8); 3] {
        core::array::from_fn(|i| {
            let j = 2 * i;
            let idx = 256 - ((usize::from(u16::from_be_bytes([h[j], h[j + 1]])) & 0x7ff) >> 3) - 1;
            (idx, 1u8 << (h[j + 1] & 7))
        })
    }

    #[test]
    fn bits_match_geth_formula_for_many_hashes() {
        let mut h = [0u8; 32];
        for x in 0u32..5000 {
            h = keccak256(&[&h[..], &x.to_le_bytes()].concat());
            assert_eq!(InputBits::from_hash(&h).byte_masks(), geth_values(&h));
            let bits = InputBits::from_hash(&h).bits();
            let mut b = LogsBloom::new();
            b.accrue_hash(&h);
            for bit in bits {
                assert!(b.bit(bit as usize));
            }
            let set: Vec<usize> = (0..2048).filter(|&i| b.bit(i)).collect();
            assert!(set.iter().all(|&i| bits.contains(&(i as u16))));
        }
    }

    #[test]
    fn hex_rejects_bad_input_without_panicking() {
        for bad in [
            "",
            "0x",
            "0x0",
            &"0".repeat(511),
            &"0".repeat(513),
            &"g".repeat(512),
        ] {
            assert!(LogsBloom::from_hex(bad).is_err(), "{bad:?}");
        }
        // a multi-byte character in the digits must not panic
        let mut s = "0".repeat(510);
        s.push('é');
        assert!(LogsBloom::from_hex(&s).is_err());
    }

    #[test]
    fn hex_is_lower_case_and_round_trips() {
        let mut b = LogsBloom::new();
        b.accrue(b"test");
        let h = b.to_hex();
        assert_eq!(h.len(), 514);
        assert_eq!(h, h.to_lowercase());
        assert_eq!(LogsBloom::from_hex(&h).unwrap(), b);
        assert_eq!(LogsBloom::from_hex(&h[2..].to_uppercase()).unwrap(), b);
    }

    #[test]
    fn insert_reports_new_bits() {
        let mut b = LogsBloom::new();
        assert!(b.insert(b"a".as_slice()).unwrap());
        assert!(!b.insert(b"a".as_slice()).unwrap());
        let mut c = LogsBloom::new();
        c.merge(&b).unwrap();
        assert_eq!(c, b);
        assert!(Filter::contains(&c, b"a".as_slice()));
    }
}
