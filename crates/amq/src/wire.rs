//! The `.amq` container: one self-describing, checksummed file for every filter kind.
//!
//! All integers are little-endian.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `AMQ\0` (`41 4d 51 00`) |
//! | 4 | 2 | format version, [`VERSION`] |
//! | 6 | 2 | filter kind, [`Kind`] |
//! | 8 | 4 | p, the number of 64-bit parameter words (at most [`MAX_PARAMS`]) |
//! | 12 | 4 | reserved, zero |
//! | 16 | 8 | payload length in bytes |
//! | 24 | 8·p | parameters (meaning fixed per kind: m, k, seed, items inserted, ...) |
//! | … | | zero padding up to a multiple of 64 bytes |
//! | 64·j | payload length | payload (the filter's words or slots) |
//! | … | | zero padding up to a multiple of 8 bytes |
//! | end − 8 | 8 | XXH3-64 (seed 0) of every byte before it |
//!
//! The payload starts on a 64-byte boundary of the file, so a reader that maps the file at a
//! page boundary can query cache-line blocks in place. [`decode`] checks the magic, the
//! version, every length against the bytes actually present (it never allocates from a
//! length it read), the padding, and the checksum. The version goes up on any change to
//! this layout or to a kind's parameters, payload or hashing.

use crate::error::{Error, Result};
use crate::hash::Indexing;
use alloc::vec::Vec;

/// The four magic bytes, `AMQ\0`.
pub const MAGIC: [u8; 4] = *b"AMQ\0";
/// The format version this build writes and reads.
pub const VERSION: u16 = 1;
/// The most parameter words a container may declare.
pub const MAX_PARAMS: u32 = 64;
/// Size of the fixed header, before the parameters.
pub const HEADER_LEN: usize = 24;
/// Alignment of the payload within the file.
pub const PAYLOAD_ALIGN: usize = 64;

/// The kind of filter a container holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u16)]
pub enum Kind {
    /// [`BloomFilter`](crate::BloomFilter).
    Bloom = 1,
    /// [`BlockedBloomFilter`](crate::BlockedBloomFilter).
    BlockedBloom = 2,
    /// [`CuckooFilter`](crate::CuckooFilter).
    Cuckoo = 3,
    /// Sliding-window Bloom filter.
    SlidingWindowBloom = 4,
    /// Aging (generational) Bloom filter.
    AgingBloom = 5,
    /// Negative cache.
    NegativeCache = 6,
    /// [`TtlCuckooFilter`](crate::ttl::TtlCuckooFilter): a cuckoo filter whose entries expire.
    TtlCuckoo = 7,
    /// [`SlidingWindowCuckoo`](crate::rln::SlidingWindowCuckoo): cuckoo filters by
    /// registration epoch.
    SlidingWindowCuckoo = 8,
    /// [`ScalableBloomFilter`](crate::scalable::ScalableBloomFilter).
    ScalableBloom = 9,
    /// [`ExpandableCuckooFilter`](crate::cuckoo::ExpandableCuckooFilter).
    ExpandableCuckoo = 10,
    /// [`SplitBlockBloomFilter`](crate::SplitBlockBloomFilter).
    SplitBlockBloom = 11,
}

impl Kind {
    /// The kind for a code read from a file.
    pub fn from_code(code: u16) -> Option<Kind> {
        Some(match code {
            1 => Kind::Bloom,
            2 => Kind::BlockedBloom,
            3 => Kind::Cuckoo,
            4 => Kind::SlidingWindowBloom,
            5 => Kind::AgingBloom,
            6 => Kind::NegativeCache,
            7 => Kind::TtlCuckoo,
            8 => Kind::SlidingWindowCuckoo,
            9 => Kind::ScalableBloom,
            10 => Kind::ExpandableCuckoo,
            11 => Kind::SplitBlockBloom,
            _ => return None,
        })
    }

    /// Every kind, in code order.
    pub const ALL: [Kind; 11] = [
        Kind::Bloom,
        Kind::BlockedBloom,
        Kind::Cuckoo,
        Kind::SlidingWindowBloom,
        Kind::AgingBloom,
        Kind::NegativeCache,
        Kind::TtlCuckoo,
        Kind::SlidingWindowCuckoo,
        Kind::ScalableBloom,
        Kind::ExpandableCuckoo,
        Kind::SplitBlockBloom,
    ];

    /// Every kind's [`name`](Self::name), in code order and comma-separated: the list an
    /// error about an unknown kind name gives.
    ///
    /// # Example
    /// ```
    /// assert!(amq::wire::Kind::names().starts_with("bloom, blocked-bloom, cuckoo, "));
    /// ```
    pub fn names() -> alloc::string::String {
        Kind::ALL.map(Kind::name).join(", ")
    }

    /// The kind with this [`name`](Self::name).
    ///
    /// # Example
    /// ```
    /// use amq::wire::Kind;
    /// assert_eq!(Kind::from_name("blocked-bloom"), Some(Kind::BlockedBloom));
    /// assert_eq!(Kind::from_name("bloomier"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kind's name on the command line and in JSON (`bloom`, `blocked-bloom`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bloom => "bloom",
            Kind::BlockedBloom => "blocked-bloom",
            Kind::Cuckoo => "cuckoo",
            Kind::SlidingWindowBloom => "sliding-window-bloom",
            Kind::AgingBloom => "aging-bloom",
            Kind::NegativeCache => "negative-cache",
            Kind::TtlCuckoo => "ttl-cuckoo",
            Kind::SlidingWindowCuckoo => "sliding-window-cuckoo",
            Kind::ScalableBloom => "scalable-bloom",
            Kind::ExpandableCuckoo => "expandable-cuckoo",
            Kind::SplitBlockBloom => "split-block-bloom",
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Kind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Kind, D::Error> {
        let name = <alloc::borrow::Cow<'de, str>>::deserialize(d)?;
        Kind::from_name(&name).ok_or_else(|| {
            serde::de::Error::custom(alloc::format!(
                "unknown filter kind {name:?} ({})",
                Kind::names()
            ))
        })
    }
}

/// A decoded container: the kind, its parameter words, and a view of the payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container<'a> {
    /// The filter kind.
    pub kind: Kind,
    /// The parameter words, as many as the file declares (at most [`MAX_PARAMS`]).
    pub params: Vec<u64>,
    /// The payload bytes, borrowed from the input.
    pub payload: &'a [u8],
}

impl<'a> Container<'a> {
    /// As [`expect`](Self::expect) for a kind of the Bloom family whose files since index
    /// scheme 2 add its word after their `n` older parameters ([`writer_indexed`]): the `n`
    /// words and the scheme, [`Indexing::Unit`] for a file without the word.
    ///
    /// # Errors
    /// As [`expect`](Self::expect), with neither `n` nor `n + 1` words; [`Error::Corrupt`] for
    /// an unknown scheme, or for a word naming scheme 1, which a file states by leaving the
    /// word out (read, it would be written back without it: not the same bytes).
    pub(crate) fn expect_indexed(&self, kind: Kind, n: usize) -> Result<(&[u64], Indexing)> {
        let p = self.expect(kind, self.params.len().clamp(n, n + 1))?;
        let indexing = match p.get(n) {
            None => Indexing::Unit,
            Some(&w) => match Indexing::from_word(w)? {
                Indexing::Unit => {
                    return Err(Error::corrupt(
                        HEADER_LEN + 8 * n,
                        "index scheme 1 is stated by leaving its parameter word out, not by \
                         a word of 1",
                    ))
                }
                scheme => scheme,
            },
        };
        Ok((&p[..n], indexing))
    }

    /// The byte offset of the payload in the file: the header and the parameter words,
    /// rounded up to [`PAYLOAD_ALIGN`] (64 for up to 5 words, 128 for 6 to 13). Decoders add it
    /// to an offset within the payload, so that an error names the file's byte.
    pub fn payload_offset(&self) -> usize {
        payload_offset(self.params.len())
    }

    /// The file's byte offset of `rest`, a tail of [`payload`](Self::payload) left to read.
    pub(crate) fn offset_of(&self, rest: &[u8]) -> usize {
        self.payload_offset() + self.payload.len() - rest.len()
    }

    /// Checks the kind and the number of parameter words, and returns the parameters.
    ///
    /// # Errors
    /// [`Error::WrongKind`] or [`Error::Corrupt`].
    pub fn expect(&self, kind: Kind, params: usize) -> Result<&[u64]> {
        if self.kind != kind {
            return Err(Error::WrongKind {
                expected: kind.name(),
                found: self.kind as u32,
            });
        }
        if self.params.len() != params {
            return Err(Error::corrupt(
                8,
                alloc::format!(
                    "a {} file has {params} parameter words, this one declares {}",
                    kind.name(),
                    self.params.len()
                ),
            ));
        }
        Ok(&self.params)
    }
}

fn payload_offset(params: usize) -> usize {
    (HEADER_LEN + 8 * params).next_multiple_of(PAYLOAD_ALIGN)
}

/// [`Writer::new`] for a kind of the Bloom family: `params`, then the index scheme's word,
/// which a filter of [`Indexing::Unit`] leaves out, so that a file read without it is written
/// back as it was ([`Container::expect_indexed`] reads both).
pub(crate) fn writer_indexed(
    kind: Kind,
    params: &[u64],
    indexing: Indexing,
    payload_len: usize,
) -> Writer {
    match indexing {
        Indexing::Unit => Writer::new(kind, params, payload_len),
        Indexing::Hashed => {
            let mut all = params.to_vec();
            all.push(indexing as u64);
            Writer::new(kind, &all, payload_len)
        }
    }
}

/// An `.amq` file written part by part into the one buffer it is returned in, so that a
/// structure's table is copied once, into the file, and not first into a payload of its own
/// (a sliding window of 8 GiB took 32 GiB to encode that way).
pub(crate) struct Writer {
    out: Vec<u8>,
    start: usize,
}

impl Writer {
    /// The header and `params`, with room for a payload of about `payload_len` bytes (the
    /// length written is the one [`finish`](Self::finish) finds).
    ///
    /// # Panics
    /// If `params` has more than [`MAX_PARAMS`] words (a programming error in the caller).
    pub(crate) fn new(kind: Kind, params: &[u64], payload_len: usize) -> Writer {
        assert!(
            params.len() <= MAX_PARAMS as usize,
            "too many parameter words"
        );
        let start = payload_offset(params.len());
        let mut out = Vec::with_capacity((start + payload_len).next_multiple_of(8) + 8);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(kind as u16).to_le_bytes());
        out.extend_from_slice(&(params.len() as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes());
        for p in params {
            out.extend_from_slice(&p.to_le_bytes());
        }
        out.resize(start, 0);
        Writer { out, start }
    }

    /// Appends bytes to the payload.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.out.extend_from_slice(bytes);
        self
    }

    /// Appends 64-bit words to the payload, little-endian.
    pub(crate) fn words(&mut self, words: &[u64]) -> &mut Self {
        for w in words {
            self.out.extend_from_slice(&w.to_le_bytes());
        }
        self
    }

    /// The file's buffer, for a part that appends itself; what it appends is payload.
    pub(crate) fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }

    /// Zero bytes up to a multiple of 8 of the payload.
    pub(crate) fn pad8(&mut self) -> &mut Self {
        let len = self.start + (self.out.len() - self.start).next_multiple_of(8);
        self.out.resize(len, 0);
        self
    }

    /// The file: the payload's length put into the header, the padding, the checksum.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        let payload_len = (self.out.len() - self.start) as u64;
        self.out[16..24].copy_from_slice(&payload_len.to_le_bytes());
        self.pad8();
        let sum = crate::hash::checksum64(&self.out);
        self.out.extend_from_slice(&sum.to_le_bytes());
        self.out
    }
}

/// Encodes a container.
///
/// # Panics
/// If `params` has more than [`MAX_PARAMS`] words (a programming error in the caller).
///
/// # Example
/// ```
/// use amq::wire::{decode, encode, Kind};
/// let bytes = encode(Kind::Bloom, &[64, 3, 0, 0], &[0u8; 8]);
/// assert_eq!(&bytes[..4], b"AMQ\0");
/// assert_eq!(bytes.len() % 8, 0);
/// let c = decode(&bytes).unwrap();
/// assert_eq!(c.params, [64, 3, 0, 0]);
/// ```
pub fn encode(kind: Kind, params: &[u64], payload: &[u8]) -> Vec<u8> {
    let mut w = Writer::new(kind, params, payload.len());
    w.bytes(payload);
    w.finish()
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// Decodes and checks a container.
///
/// # Errors
/// [`Error::BadMagic`], [`Error::UnsupportedVersion`], [`Error::Truncated`],
/// [`Error::TooLarge`], [`Error::Corrupt`] (unknown kind, non-zero padding or reserved bytes,
/// trailing bytes) or [`Error::ChecksumMismatch`].
///
/// # Panics
/// Never, for any input.
pub fn decode(bytes: &[u8]) -> Result<Container<'_>> {
    let truncated = |what, offset: usize, needed: usize| Error::Truncated {
        what,
        offset,
        needed,
        available: bytes.len().saturating_sub(offset),
    };
    if bytes.len() < 4 {
        return Err(truncated("magic", 0, 4));
    }
    if bytes[..4] != MAGIC {
        return Err(Error::BadMagic {
            found: bytes[..4].try_into().expect("4 bytes"),
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(truncated("header", 0, HEADER_LEN));
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if version != VERSION {
        return Err(Error::UnsupportedVersion {
            found: u32::from(version),
            supported: u32::from(VERSION),
        });
    }
    let code = u16::from_le_bytes([bytes[6], bytes[7]]);
    let kind = Kind::from_code(code)
        .ok_or_else(|| Error::corrupt(6, alloc::format!("unknown filter kind code {code}")))?;
    let nparams = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if nparams > MAX_PARAMS {
        return Err(Error::TooLarge {
            what: "parameter count",
            value: u64::from(nparams),
            limit: u64::from(MAX_PARAMS),
        });
    }
    if bytes[12..16] != [0; 4] {
        return Err(Error::corrupt(12, "reserved header bytes are not zero"));
    }
    let payload_len = read_u64(bytes, 16);
    let start = payload_offset(nparams as usize);
    // a file cut short is refused in the part where it ends: the parameter words, the
    // payload, or the checksum (an end in the zero padding between them counts as the next)
    let params_end = HEADER_LEN + 8 * nparams as usize;
    if bytes.len() < params_end {
        return Err(truncated("parameters", HEADER_LEN, params_end - HEADER_LEN));
    }
    let room = bytes.len().saturating_sub(start) as u64;
    if payload_len > room {
        return Err(Error::Truncated {
            what: "payload",
            offset: start,
            needed: usize::try_from(payload_len).unwrap_or(usize::MAX),
            available: room as usize,
        });
    }
    let payload_len = payload_len as usize;
    let total = (start + payload_len).next_multiple_of(8) + 8;
    if bytes.len() < total {
        return Err(truncated("checksum", total - 8, 8));
    }
    if bytes.len() > total {
        return Err(Error::corrupt(
            total,
            alloc::format!("{} bytes after the checksum", bytes.len() - total),
        ));
    }
    let stored = read_u64(bytes, total - 8);
    let computed = crate::hash::checksum64(&bytes[..total - 8]);
    if stored != computed {
        return Err(Error::ChecksumMismatch { stored, computed });
    }
    if bytes[params_end..start].iter().any(|&b| b != 0) {
        return Err(Error::corrupt(
            params_end,
            "padding before the payload is not zero",
        ));
    }
    if bytes[start + payload_len..total - 8]
        .iter()
        .any(|&b| b != 0)
    {
        return Err(Error::corrupt(
            start + payload_len,
            "padding after the payload is not zero",
        ));
    }
    let params = (0..nparams as usize)
        .map(|i| read_u64(bytes, HEADER_LEN + 8 * i))
        .collect();
    Ok(Container {
        kind,
        params,
        payload: &bytes[start..start + payload_len],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_alignment() {
        for nparams in [0usize, 1, 5, 64] {
            let params: Vec<u64> = (0..nparams as u64).collect();
            for len in [0usize, 1, 7, 8, 100] {
                let payload: Vec<u8> = (0..len as u8).collect();
                let bytes = encode(Kind::Cuckoo, &params, &payload);
                let c = decode(&bytes).unwrap();
                assert_eq!(c.kind, Kind::Cuckoo);
                assert_eq!(c.params, params);
                assert_eq!(c.payload, &payload[..]);
                assert_eq!(payload_offset(nparams) % 64, 0);
            }
        }
    }

    #[test]
    fn every_truncation_and_every_bit_flip_is_an_error() {
        let bytes = encode(Kind::Bloom, &[100, 3, 7, 2], &[0xa5; 16]);
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                assert!(decode(&b).is_err(), "flip byte {i} bit {bit}");
            }
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(decode(&long).is_err());
    }

    #[test]
    fn lengths_are_never_trusted() {
        let mut bytes = encode(Kind::Bloom, &[1], &[]);
        bytes[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(decode(&bytes), Err(Error::Truncated { .. })));
        let mut bytes = encode(Kind::Bloom, &[1], &[]);
        bytes[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(decode(&bytes), Err(Error::TooLarge { .. })));
    }
}
