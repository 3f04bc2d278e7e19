//! Cashu spent-note filters: the Golomb-coded sets of the NUT-23 draft.
//!
//! A mint publishes, per keyset, a Golomb-coded set of the `Y`s of its spent ecash notes (or of
//! its blind signatures `B_`); a wallet downloads it (`GET v1/filter/spent/{keyset_id}`, a
//! [`GetFilterResponse`]) and checks its own notes locally: "definitely unspent" or "maybe
//! spent" (false positives at rate 1/M). Source: cashubtc/nuts PR #261 (draft NUT-23, later
//! renumbered 24 and 25; closed, not merged), `shared/seeds/nut23-golomb-coded-sets.md`.
//!
//! The construction is the [GCS engine](crate::gcs) with P = 19, M = 784931 by default (the
//! response may carry others) and items hashed as raw bytes (33-byte points; not their hex).
//! Duplicates are kept (a zero gap); N = 0 gives empty content, which matches nothing. Three
//! hashes are in use, each with a published vector (`tests/vectors/cashu-gcs`):
//!
//! | [`CashuHash`] | hash of the item | source |
//! |---|---|---|
//! | [`Murmur3X64_128`](CashuHash::Murmur3X64_128) (default) | MurmurHash3 x64_128, seed 0, first 64-bit word (`mmh3.hash128(item) & (2**64 - 1)`) | the draft's text |
//! | [`Murmur3X86_32x2`](CashuHash::Murmur3X86_32x2) | h1 = MurmurHash3 x86_32(item, 0), h2 = MurmurHash3 x86_32(item, h1), h1 ≪ 32 \| h2 | the draft's test vectors; its pull requests to nutshell, cashu-ts, cdk |
//! | [`SipHash24`](CashuHash::SipHash24) | SipHash-2-4 with a 16-byte key, the 8-byte digest read big-endian | the draft's first version |
//!
//! A response does not name its hash: a wallet that hashes otherwise than its mint finds
//! none of its notes ("definitely unspent" for every one), so mint and wallet must agree.
//!
//! ```
//! use amq::formats::cashu::{CashuFilter, CashuHash, DEFAULT_M, DEFAULT_P};
//!
//! let spent: Vec<Vec<u8>> = vec![vec![2; 33], vec![3; 33]];
//! let filter = CashuFilter::build(&spent, CashuHash::default(), DEFAULT_P, DEFAULT_M)?;
//! let mine: [&[u8]; 2] = [&[2; 33], &[4; 33]];
//! assert_eq!(filter.match_many(&mine)?, vec![true, false]);
//! # Ok::<(), amq::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::gcs::{Gcs, GcsHash, Params};
use alloc::string::String;
use alloc::vec::Vec;
use base64::Engine as _;
use siphasher::sip::SipHasher24;

/// The default Golomb-Rice remainder bits P (used when a response's `p` is null).
pub const DEFAULT_P: u8 = 19;
/// The default inverse false-positive rate M (used when a response's `m` is null).
pub const DEFAULT_M: u64 = 784_931;

/// The 64-bit item hash of a Cashu filter; see the table in the [module docs](self).
///
/// # Example
/// ```
/// use amq::formats::cashu::CashuHash;
/// // the draft's hash_to_range vector: item 00000000, F = 784,931,000
/// let f = 784_931_000;
/// assert_eq!(amq::gcs::hash_to_range(CashuHash::Murmur3X64_128.hash(&[0; 4]), f), 636_618_232);
/// assert_eq!(amq::gcs::hash_to_range(CashuHash::Murmur3X86_32x2.hash(&[0; 4]), f), 108_500_230);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CashuHash {
    /// MurmurHash3 x64_128 with seed 0, its first 64-bit word (h1): the draft's text.
    #[default]
    Murmur3X64_128,
    /// Two MurmurHash3 x86_32: h1 with seed 0, h2 with seed h1, `h1 << 32 | h2` (the
    /// implementations' later choice, the same on 32- and 64-bit machines).
    Murmur3X86_32x2,
    /// SipHash-2-4 keyed with 16 bytes (k0 and k1 little-endian, as the SipHash paper), the
    /// 8-byte digest read as a big-endian integer (the draft's first version).
    SipHash24 {
        /// The 16-byte key.
        key: [u8; 16],
    },
}

impl CashuHash {
    /// The hash's name on the command line: `murmur3-128`, `murmur3-32x2` or `siphash`.
    pub fn name(&self) -> &'static str {
        match self {
            CashuHash::Murmur3X64_128 => "murmur3-128",
            CashuHash::Murmur3X86_32x2 => "murmur3-32x2",
            CashuHash::SipHash24 { .. } => "siphash",
        }
    }

    /// The 64-bit hash of an item's raw bytes.
    #[inline]
    pub fn hash(&self, item: &[u8]) -> u64 {
        match self {
            CashuHash::Murmur3X64_128 => murmur3_x64_128_h1(item),
            CashuHash::Murmur3X86_32x2 => murmur3_x86_32_twice(item),
            CashuHash::SipHash24 { key } => siphash24_be(&SipHasher24::new_with_key(key), item),
        }
    }
}

#[inline(always)]
fn murmur3_x64_128_h1(item: &[u8]) -> u64 {
    mur3::murmurhash3_x64_128(item, 0).0
}

#[inline(always)]
fn murmur3_x86_32_twice(item: &[u8]) -> u64 {
    let h1 = mur3::murmurhash3_x86_32(item, 0);
    let h2 = mur3::murmurhash3_x86_32(item, h1);
    (u64::from(h1) << 32) | u64::from(h2)
}

/// The digest's bytes are the little-endian encoding of `hash`; read them big-endian.
#[inline(always)]
fn siphash24_be(hasher: &SipHasher24, item: &[u8]) -> u64 {
    hasher.hash(item).swap_bytes()
}

impl GcsHash for CashuHash {
    #[inline]
    fn hash64(&self, item: &[u8]) -> u64 {
        self.hash(item)
    }
}

/// A Cashu GCS filter: the set and the hash it was built with.
///
/// # Example
/// ```
/// use amq::formats::cashu::{CashuFilter, CashuHash, GetFilterResponse};
///
/// let filter = CashuFilter::build([[7u8; 33]], CashuHash::Murmur3X86_32x2, 19, 784_931)?;
/// let response: GetFilterResponse = filter.to_response(1_700_000_000);
/// let again = response.into_filter(CashuHash::Murmur3X86_32x2)?;
/// assert!(again.contains(&[7; 33])?);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CashuFilter {
    gcs: Gcs<Vec<u8>>,
    hash: CashuHash,
}

impl CashuFilter {
    /// Builds the filter of `items` (raw bytes; duplicates kept).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] as the draft: `m` ≥ 2³² ("m parameter must be smaller than
    /// 2^32"), n ≥ 2³² ("number of elements must be smaller than 2^32"); also m = 0 and p > 32.
    pub fn build<I>(items: I, hash: CashuHash, p: u8, m: u64) -> Result<Self>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        // one loop per hash, so that the hash is inlined into it
        let gcs = match hash {
            CashuHash::Murmur3X64_128 => Gcs::build(items, &murmur3_x64_128_h1, p, m)?,
            CashuHash::Murmur3X86_32x2 => Gcs::build(items, &murmur3_x86_32_twice, p, m)?,
            CashuHash::SipHash24 { key } => {
                let sip = SipHasher24::new_with_key(&key);
                Gcs::build(items, &|item: &[u8]| siphash24_be(&sip, item), p, m)?
            }
        };
        Ok(CashuFilter { gcs, hash })
    }

    /// The filter of the items whose hashes under `hash` ([`CashuHash::hash`]) are `hashes`
    /// (duplicates kept, any order; sorted in place): for callers that stream the items and
    /// keep 8 bytes of each. Nothing but the output is allocated beside them.
    ///
    /// # Errors
    /// As [`CashuFilter::build`]; [`Error::OutOfMemory`] if the output cannot be allocated.
    ///
    /// # Example
    /// ```
    /// use amq::formats::cashu::{CashuFilter, CashuHash};
    /// let items = [[2u8; 33], [3u8; 33]];
    /// let hashes = items.iter().map(|i| CashuHash::default().hash(i)).collect();
    /// let streamed = CashuFilter::from_hashes(hashes, CashuHash::default(), 19, 784_931)?;
    /// assert_eq!(streamed, CashuFilter::build(&items, CashuHash::default(), 19, 784_931)?);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn from_hashes(hashes: Vec<u64>, hash: CashuHash, p: u8, m: u64) -> Result<Self> {
        Ok(CashuFilter {
            gcs: Gcs::from_hashes(hashes, p, m)?,
            hash,
        })
    }

    /// Wraps received content (the decoded base64) as a filter of N items.
    ///
    /// # Errors
    /// As [`Params::new`]; [`Error::Truncated`] if the content is shorter than N·(P + 1) bits.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_content(n: u64, p: u8, m: u64, content: Vec<u8>, hash: CashuHash) -> Result<Self> {
        Ok(CashuFilter {
            gcs: Gcs::new(Params::new(n, p, m)?, content)?,
            hash,
        })
    }

    /// The underlying set.
    pub fn gcs(&self) -> &Gcs<Vec<u8>> {
        &self.gcs
    }
    /// The hash.
    pub fn hash(&self) -> CashuHash {
        self.hash
    }
    /// N, the number of items.
    pub fn n(&self) -> u64 {
        self.gcs.n()
    }
    /// P, the remainder bits.
    pub fn p(&self) -> u8 {
        self.gcs.p()
    }
    /// M, the inverse false-positive rate.
    pub fn m(&self) -> u64 {
        self.gcs.m()
    }
    /// The filter bytes (the response's `content`, before base64).
    pub fn content(&self) -> &[u8] {
        self.gcs.as_bytes()
    }

    /// `true` if `item` may be in the set, `false` if it is definitely not.
    ///
    /// # Errors
    /// As [`Gcs::contains`] (a corrupt stream).
    pub fn contains(&self, item: &[u8]) -> Result<bool> {
        self.gcs.contains(item, &self.hash)
    }

    /// For each target, in order, whether it may be in the set: the draft's `match_many`, one
    /// pass over the set.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`targets`) if two targets are the same bytes (the draft:
    /// "match targets are not unique entries"); as [`Gcs::validate`] for a corrupt stream.
    pub fn match_many<T: AsRef<[u8]>>(&self, targets: &[T]) -> Result<Vec<bool>> {
        let f = self.gcs.f();
        let mut order: Vec<(u64, usize)> = targets
            .iter()
            .enumerate()
            .map(|(i, t)| (crate::gcs::hash_to_range(self.hash.hash(t.as_ref()), f), i))
            .collect();
        order.sort_unstable();
        // equal bytes hash equal, so duplicates sit in one run of equal values
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len() && order[end].0 == order[start].0 {
                end += 1;
            }
            for a in start..end {
                for b in a + 1..end {
                    if targets[order[a].1].as_ref() == targets[order[b].1].as_ref() {
                        return Err(Error::invalid(
                            "targets",
                            "match targets are not unique entries",
                        ));
                    }
                }
            }
            start = end;
        }
        let sorted: Vec<u64> = order.iter().map(|o| o.0).collect();
        let mut hits = alloc::vec![false; sorted.len()];
        self.gcs.match_many_values(&sorted, &mut hits)?;
        let mut out = alloc::vec![false; sorted.len()];
        for (&(_, i), hit) in order.iter().zip(hits) {
            out[i] = hit;
        }
        Ok(out)
    }

    /// The response a mint sends for this filter.
    pub fn to_response(&self, timestamp: u64) -> GetFilterResponse {
        GetFilterResponse {
            n: self.n(),
            p: self.p(),
            m: self.m(),
            content: self.content().to_vec(),
            timestamp,
        }
    }
}

/// The chance that x independent lookups of non-members all come back negative:
/// `(1 − 1/M)^x`, the draft's table "False Positive Rate For Bulk Tests" (its `P_M(x)`;
/// 1 minus it is the chance of at least one false positive).
///
/// # Example
/// ```
/// use amq::formats::cashu::bulk_all_negative;
/// assert_eq!(format!("{:.9}", bulk_all_negative(784_931, 1)), "0.999998726");
/// assert_eq!(format!("{:.9}", bulk_all_negative(784_931, 5000)), "0.993650255");
/// assert_eq!(bulk_all_negative(1, 0), 1.0); // no lookup: nothing can come back positive
/// assert_eq!(bulk_all_negative(1, 1), 0.0);
/// ```
pub fn bulk_all_negative(m: u64, queries: u64) -> f64 {
    if queries == 0 {
        // (x·log1p(−1/M) would be 0·(−∞) at M = 1)
        return 1.0;
    }
    if m == 0 {
        return 0.0;
    }
    libm::exp(queries as f64 * libm::log1p(-1.0 / m as f64))
}

/// The mint's `GetFilterResponse` (`GET v1/filter/spent/{keyset_id}`), with P and M resolved.
///
/// JSON: `{"n": int, "p": int|null, "m": int|null, "content": base64 | [base64, ...],
/// "timestamp": int}`. Reading: a null or missing `p`/`m` means 19 / 784931; `content` is one
/// base64 string or an array of them (decoded and joined in order; padding optional). Writing:
/// `p` and `m` as numbers, `content` as one padded base64 string.
///
/// Reading refuses, **before decoding any content**, a response whose `n`, `p` or `m` could
/// make a decoder allocate or loop without bound: n ≥ 2³², m = 0 or m ≥ 2³², p > 32, or
/// N·(P + 1) bits more than the content can hold. It then decodes the N codes and refuses
/// content that ends inside one or has a byte after the last one's (N other than the
/// content's codes: a smaller N would hide the last items), as Bitcoin Core refuses "excess
/// data" after a BIP158 filter's codes; the padding bits are not checked.
///
/// # Example
/// ```
/// use amq::formats::cashu::{CashuHash, GetFilterResponse};
///
/// let json = r#"{"n": 10, "p": null, "m": null, "timestamp": 1700000000,
///                "content": ["7sdQJ7OweaujLCqS7KDHzu/3pySZrDsatjQA"]}"#;
/// let response: GetFilterResponse = serde_json::from_str(json).unwrap();
/// assert_eq!((response.p, response.m), (19, 784_931));
/// let filter = response.into_filter(CashuHash::Murmur3X86_32x2)?;
/// assert_eq!(filter.n(), 10);
/// let huge = r#"{"n": 4000000000, "p": 19, "m": null, "content": "AAAA", "timestamp": 0}"#;
/// assert!(serde_json::from_str::<GetFilterResponse>(huge).is_err());
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GetFilterResponse {
    /// N, the number of items in the filter.
    pub n: u64,
    /// P, the Golomb-Rice remainder bits.
    pub p: u8,
    /// M, the inverse false-positive rate.
    pub m: u64,
    /// The filter bytes (base64 in JSON).
    pub content: Vec<u8>,
    /// When the filter was made, in seconds since the Unix epoch.
    pub timestamp: u64,
}

impl GetFilterResponse {
    /// The filter, read with the given hash (the response does not say which).
    ///
    /// # Errors
    /// As [`CashuFilter::from_content`].
    pub fn into_filter(self, hash: CashuHash) -> Result<CashuFilter> {
        CashuFilter::from_content(self.n, self.p, self.m, self.content, hash)
    }

    /// Checks the raw fields and decodes the content; the cheap checks come first.
    fn from_raw(raw: RawResponse) -> Result<Self> {
        let p = raw.p.unwrap_or(u64::from(DEFAULT_P));
        let m = raw.m.unwrap_or(DEFAULT_M);
        let p = u8::try_from(p)
            .ok()
            .filter(|&p| p <= crate::gcs::MAX_P)
            .ok_or_else(|| {
                Error::invalid(
                    "p",
                    alloc::format!("must be at most {}, got {p}", crate::gcs::MAX_P),
                )
            })?;
        let params = Params::new(raw.n, p, m)?;
        // the most bytes the base64 text can decode to
        let max_bytes: u64 = raw
            .content
            .iter()
            .map(|s| (s.len() as u64).div_ceil(4) * 3)
            .sum();
        if params.min_bits() > max_bytes.saturating_mul(8) {
            return Err(Error::TooLarge {
                what: "n (each item needs p+1 bits of content)",
                value: params.n(),
                limit: max_bytes.saturating_mul(8) / (u64::from(p) + 1),
            });
        }
        let mut content = Vec::with_capacity(max_bytes as usize);
        for part in raw.content.iter() {
            let bytes = base64::engine::general_purpose::STANDARD_PAD_INDIFFERENT
                .decode(part)
                .map_err(|e| Error::parse("content (base64)", alloc::format!("{e}")))?;
            content.extend_from_slice(&bytes);
        }
        // N·(P+1) against the exact length, then the N codes against the bytes: a byte after
        // the last code's is most likely a wrong n, which would answer "definitely unspent"
        // for notes the mint holds (Bitcoin Core refuses such "excess data" in BIP158 too)
        Gcs::new(params, &content[..])?.decode_all()?;
        Ok(GetFilterResponse {
            n: params.n(),
            p,
            m,
            content,
            timestamp: raw.timestamp,
        })
    }
}

/// The response as JSON spells it, before any check.
#[derive(serde::Deserialize)]
struct RawResponse {
    n: u64,
    #[serde(default)]
    p: Option<u64>,
    #[serde(default)]
    m: Option<u64>,
    content: Content,
    timestamp: u64,
}

/// `content`: one base64 string or an array of them (kept as text until n, p, m are checked).
struct Content(Vec<String>);

impl core::ops::Deref for Content {
    type Target = [String];
    fn deref(&self) -> &[String] {
        &self.0
    }
}

impl<'de> serde::Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Content;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a base64 string or an array of base64 strings")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> core::result::Result<Content, E> {
                Ok(Content(alloc::vec![String::from(s)]))
            }
            fn visit_string<E: serde::de::Error>(
                self,
                s: String,
            ) -> core::result::Result<Content, E> {
                Ok(Content(alloc::vec![s]))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> core::result::Result<Content, A::Error> {
                let mut parts = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    parts.push(s);
                }
                Ok(Content(parts))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> serde::Deserialize<'de> for GetFilterResponse {
    /// Reads a JSON object only: a derived struct would also take an array of the five
    /// values in order, and name the private `RawResponse` in its errors.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        struct Object;
        impl<'de> serde::de::Visitor<'de> for Object {
            type Value = RawResponse;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("an object with n, content and timestamp (p and m optional)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> core::result::Result<RawResponse, A::Error> {
                let map = serde::de::value::MapAccessDeserializer::new(map);
                <RawResponse as serde::Deserialize>::deserialize(map)
            }
        }
        let raw = d.deserialize_map(Object)?;
        GetFilterResponse::from_raw(raw).map_err(serde::de::Error::custom)
    }
}

impl serde::Serialize for GetFilterResponse {
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("GetFilterResponse", 5)?;
        st.serialize_field("n", &self.n)?;
        st.serialize_field("p", &self.p)?;
        st.serialize_field("m", &self.m)?;
        st.serialize_field(
            "content",
            &base64::engine::general_purpose::STANDARD.encode(&self.content),
        )?;
        st.serialize_field("timestamp", &self.timestamp)?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_targets_are_refused() {
        let f = CashuFilter::build([b"a"], CashuHash::default(), 19, 784_931).unwrap();
        let err = f.match_many(&[&b"x"[..], b"y", b"x"]).unwrap_err();
        assert!(matches!(
            err,
            Error::InvalidParameter {
                name: "targets",
                ..
            }
        ));
        assert_eq!(f.match_many(&[&b"a"[..], b"b"]).unwrap(), [true, false]);
    }

    #[test]
    fn spec_limits() {
        let e = CashuFilter::build([b"a"], CashuHash::default(), 19, 1 << 32).unwrap_err();
        assert!(matches!(e, Error::InvalidParameter { name: "m", .. }));
    }

    #[test]
    fn hash_names() {
        assert_eq!(CashuHash::default().name(), "murmur3-128");
        assert_eq!(CashuHash::Murmur3X86_32x2.name(), "murmur3-32x2");
        assert_eq!(CashuHash::SipHash24 { key: [0; 16] }.name(), "siphash");
    }
}
