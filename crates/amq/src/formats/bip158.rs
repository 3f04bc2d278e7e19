//! Bitcoin BIP158 compact block filters (the basic filter type) and BIP157 filter headers.
//!
//! A block's basic filter is a [Golomb-coded set](crate::gcs) of the scripts the block touches:
//! every output script except empty ones and those starting with `OP_RETURN` (0x6a), and every
//! script spent by its inputs (the previous outputs' scripts; the coinbase spends none). The
//! elements are a set: each distinct script counts once. Parameters: P = 19, M = 784931; the
//! hash is SipHash-2-4 keyed by the first 16 bytes of the block hash in internal byte order
//! (k0, k1 little-endian). On the wire the filter is N as a CompactSize, then the GCS bytes.
//! (BIP158, bitcoin/bips `bip-0158.mediawiki`; headers: BIP157 `bip-0157.mediawiki`
//! §"Filter Headers".)
//!
//! Byte order: this module takes and returns hashes in **internal** byte order (as they are
//! hashed); RPC and block explorers show them reversed.
//!
//! This module does not parse blocks: give it the scripts ([`basic_filter_elements`]); the
//! `amq btc filter` command and the tests decode blocks with the `bitcoin` crate.
//!
//! ```
//! use amq::formats::bip158::{basic_filter_elements, BlockFilter};
//!
//! let block_hash = [7u8; 32]; // internal byte order
//! let outputs: [&[u8]; 3] = [&[0x51], &[0x6a, 0x01, 0x02], &[]]; // OP_TRUE, OP_RETURN ..., empty
//! let spent: [&[u8]; 2] = [&[0x52], &[0x51]];
//! let elements = basic_filter_elements(outputs, spent);
//! let filter = BlockFilter::build(&block_hash, &elements)?;
//! assert_eq!(filter.n(), 2); // {OP_TRUE, OP_2}: OP_RETURN and empty left out, duplicates once
//! assert!(filter.match_any([&[0x52][..]])?);
//! # Ok::<(), amq::Error>(())
//! ```

use crate::error::Result;
use crate::gcs::{Gcs, GcsHash, Params};
use alloc::vec::Vec;
use sha2::{Digest, Sha256};
use siphasher::sip::SipHasher24;

/// P of the basic filter.
pub const P: u8 = 19;
/// M of the basic filter.
pub const M: u64 = 784_931;
/// The `OP_RETURN` opcode: outputs whose script starts with it are left out.
pub const OP_RETURN: u8 = 0x6a;
/// The largest N Bitcoin Core reads: `ReadCompactSize`'s range check, `MAX_SIZE` =
/// 0x02000000 (serialize.h).
pub const MAX_SIZE: u64 = 0x0200_0000;

/// SipHash-2-4 keyed by a block hash: the GCS hash of that block's filter.
///
/// # Example
/// ```
/// use amq::gcs::GcsHash;
/// let h = amq::formats::bip158::BlockHasher::new(&[0; 32]);
/// assert_eq!(h.hash64(b""), 0x1e924b9d737700d7); // SipHash-2-4, key 0, empty input
/// ```
#[derive(Debug, Clone)]
pub struct BlockHasher(SipHasher24);

impl BlockHasher {
    /// The hasher of the block with this hash (internal byte order): k0 and k1 are its first
    /// two 8-byte words, little-endian.
    pub fn new(block_hash: &[u8; 32]) -> Self {
        let mut key = [0u8; 16];
        key.copy_from_slice(&block_hash[..16]);
        BlockHasher(SipHasher24::new_with_key(&key))
    }
}

impl GcsHash for BlockHasher {
    #[inline]
    fn hash64(&self, item: &[u8]) -> u64 {
        self.0.hash(item)
    }
}

/// The elements of a block's basic filter, before deduplication: the output scripts that are
/// neither empty nor start with `OP_RETURN`, then the non-empty spent scripts.
///
/// # Example
/// ```
/// let outs: [&[u8]; 2] = [&[0x6a], &[0x00, 0x14]];
/// let spent: [&[u8]; 1] = [&[]];
/// assert_eq!(amq::formats::bip158::basic_filter_elements(outs, spent), vec![&[0x00, 0x14][..]]);
/// ```
pub fn basic_filter_elements<'a, O, S>(output_scripts: O, spent_scripts: S) -> Vec<&'a [u8]>
where
    O: IntoIterator<Item = &'a [u8]>,
    S: IntoIterator<Item = &'a [u8]>,
{
    output_scripts
        .into_iter()
        .filter(|s| s.first().is_some_and(|&op| op != OP_RETURN))
        .chain(spent_scripts.into_iter().filter(|s| !s.is_empty()))
        .collect()
}

/// A BIP158 filter of one block: the block hash it is keyed by, P, M, and its wire bytes
/// (CompactSize N, then the Golomb-coded set).
///
/// # Example
/// ```
/// use amq::formats::bip158::BlockFilter;
/// // testnet block 0 (the genesis block): one element, filter 019dfca8
/// let mut hash = [0u8; 32];
/// let rpc = "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943";
/// hex::decode_to_slice(rpc, &mut hash).unwrap();
/// hash.reverse(); // RPC shows it reversed
/// let filter = BlockFilter::from_bytes(&hash, vec![0x01, 0x9d, 0xfc, 0xa8])?;
/// assert_eq!(filter.n(), 1);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockFilter {
    block_hash: [u8; 32],
    params: Params,
    bytes: Vec<u8>,
    /// Length of the CompactSize prefix.
    prefix: usize,
}

impl BlockFilter {
    /// The basic filter (P = 19, M = 784931) of the block with this hash over `elements`,
    /// which are deduplicated (a set) before N is counted.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) if there are 2³² or more
    /// distinct elements.
    pub fn build<E: AsRef<[u8]>>(block_hash: &[u8; 32], elements: &[E]) -> Result<Self> {
        Self::build_with(block_hash, P, M, elements)
    }

    /// As [`BlockFilter::build`] with other P and M.
    ///
    /// # Errors
    /// As [`Params::new`].
    pub fn build_with<E: AsRef<[u8]>>(
        block_hash: &[u8; 32],
        p: u8,
        m: u64,
        elements: &[E],
    ) -> Result<Self> {
        Params::new(0, p, m)?;
        let hasher = BlockHasher::new(block_hash);
        let hashes = distinct_sorted_hashes(elements, &hasher);
        let gcs = Gcs::from_sorted_hashes(&hashes, p, m)?;
        drop(hashes);
        Self::with_prefix(block_hash, gcs)
    }

    /// The filter of the elements whose hashes ([`BlockHasher`]) are `hashes`, one per distinct
    /// element, in any order (they are sorted in place): for callers that stream elements and
    /// keep only their hashes, 8 bytes each ([`repeated_hashes`] and [`dedup_sorted_hashes`]
    /// make the set). Nothing but the output is allocated beside them.
    ///
    /// # Errors
    /// As [`Params::new`]; [`Error::OutOfMemory`](crate::Error::OutOfMemory) if the output
    /// cannot be allocated.
    ///
    /// # Example
    /// ```
    /// use amq::formats::bip158::{BlockFilter, BlockHasher};
    /// use amq::gcs::GcsHash;
    /// let block_hash = [7u8; 32];
    /// let h = BlockHasher::new(&block_hash);
    /// let elements: [&[u8]; 2] = [&[0x51], &[0x52]];
    /// let hashes: Vec<u64> = elements.iter().map(|e| h.hash64(e)).collect();
    /// let streamed = BlockFilter::from_distinct_hashes(&block_hash, 19, 784_931, hashes)?;
    /// assert_eq!(streamed, BlockFilter::build(&block_hash, &elements)?);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn from_distinct_hashes(
        block_hash: &[u8; 32],
        p: u8,
        m: u64,
        mut hashes: Vec<u64>,
    ) -> Result<Self> {
        Params::new(hashes.len() as u64, p, m)?;
        crate::gcs::sort_hashes(&mut hashes);
        let gcs = Gcs::from_sorted_hashes(&hashes, p, m)?;
        drop(hashes);
        Self::with_prefix(block_hash, gcs)
    }

    /// The wire bytes: N as a CompactSize, then the set's bytes (moved up in place).
    fn with_prefix(block_hash: &[u8; 32], gcs: Gcs<Vec<u8>>) -> Result<Self> {
        let params = gcs.params();
        let mut prefix = Vec::with_capacity(9);
        write_compact_size(gcs.n(), &mut prefix);
        let mut bytes = gcs.into_bytes();
        bytes.try_reserve_exact(prefix.len()).map_err(|_| {
            crate::Error::out_of_memory::<u8>("the block filter", (bytes.len() + 9) as u64)
        })?;
        bytes.splice(0..0, prefix.iter().copied());
        Ok(BlockFilter {
            block_hash: *block_hash,
            params,
            bytes,
            prefix: prefix.len(),
        })
    }

    /// Reads a basic filter's wire bytes (CompactSize N, then the set), refusing what Bitcoin
    /// Core refuses ([`BlockFilter::from_bytes_with`]).
    ///
    /// # Errors
    /// As [`BlockFilter::from_bytes_with`].
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(block_hash: &[u8; 32], bytes: Vec<u8>) -> Result<Self> {
        Self::from_bytes_with(block_hash, P, M, bytes)
    }

    /// Reads a filter's wire bytes with other P and M.
    ///
    /// Accepts what Bitcoin Core's `GCSFilter` constructor accepts (blockfilter.cpp): the
    /// CompactSize complete and minimal, N at most 0x02000000 (`ReadCompactSize`'s
    /// `MAX_SIZE`), the N codes complete, and no byte after the last code's byte ("excess
    /// data"). It decodes every code to know that: O(N). Stricter than Core in one way: a
    /// code whose running value reaches F is refused (Core's match never finds such a value).
    /// Padding bits are not checked, as Core does not; [`BlockFilter::validate`] also checks
    /// them (a filter that validates re-encodes to the same bytes).
    ///
    /// # Errors
    /// [`Error::Truncated`](crate::Error::Truncated) for a short prefix or too few bytes for N
    /// codes; [`Error::Corrupt`](crate::Error::Corrupt) for a non-minimal CompactSize, a value
    /// reaching F or bytes after the last code;
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) for N above 0x02000000 or bad
    /// P, M. Offsets count from the filter's first byte (the CompactSize), not from the first
    /// code.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes_with(block_hash: &[u8; 32], p: u8, m: u64, bytes: Vec<u8>) -> Result<Self> {
        let (n, prefix) = read_compact_size(&bytes)?;
        if n > MAX_SIZE {
            return Err(crate::Error::invalid(
                "n",
                alloc::format!(
                    "{n} elements: Bitcoin Core reads at most {MAX_SIZE} (0x02000000, \
                     ReadCompactSize's MAX_SIZE)"
                ),
            ));
        }
        let params = Params::new(n, p, m)?;
        Gcs::new(params, &bytes[prefix..])
            .and_then(|set| set.decode_all().map(drop))
            .map_err(|e| e.after(prefix))?;
        Ok(BlockFilter {
            block_hash: *block_hash,
            params,
            bytes,
            prefix,
        })
    }

    /// The wire bytes: CompactSize N, then the Golomb-coded set.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
    /// The wire bytes, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
    /// The block hash the filter is keyed by (internal byte order).
    pub fn block_hash(&self) -> &[u8; 32] {
        &self.block_hash
    }
    /// N, the number of distinct elements.
    pub fn n(&self) -> u64 {
        self.params.n()
    }
    /// The Golomb-coded set after the CompactSize.
    pub fn gcs(&self) -> Gcs<&[u8]> {
        // the shape was checked when the filter was made
        Gcs::new_unchecked(self.params, &self.bytes[self.prefix..])
    }
    /// The filter's GCS hash function.
    pub fn hasher(&self) -> BlockHasher {
        BlockHasher::new(&self.block_hash)
    }

    /// Decodes every code and checks the padding and length ([`Gcs::validate`]).
    ///
    /// # Errors
    /// As [`Gcs::validate`], at the filter's bytes (from the CompactSize).
    pub fn validate(&self) -> Result<()> {
        self.gcs().validate().map_err(|e| e.after(self.prefix))
    }

    /// `true` if any element may be in the block's filter.
    ///
    /// # Errors
    /// As [`Gcs::match_any`] (a corrupt stream).
    pub fn match_any<I>(&self, elements: I) -> Result<bool>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        self.gcs().match_any(elements, &self.hasher())
    }

    /// `true` if every element may be in the block's filter.
    ///
    /// # Errors
    /// As [`Gcs::match_all`].
    pub fn match_all<I>(&self, elements: I) -> Result<bool>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        self.gcs().match_all(elements, &self.hasher())
    }

    /// For each element, in order, whether it may be in the block's filter (one pass).
    ///
    /// # Errors
    /// As [`Gcs::match_many`].
    pub fn match_many<I>(&self, elements: I) -> Result<Vec<bool>>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        self.gcs().match_many(elements, &self.hasher())
    }

    /// The filter hash: double SHA-256 of the wire bytes (internal byte order).
    pub fn filter_hash(&self) -> [u8; 32] {
        sha256d(&self.bytes)
    }

    /// The BIP157 filter header: double SHA-256 of the filter hash followed by the previous
    /// block's filter header (all zero before the genesis block); internal byte order.
    pub fn header(&self, previous_header: &[u8; 32]) -> [u8; 32] {
        filter_header(&self.filter_hash(), previous_header)
    }
}

/// The BIP157 filter header from a filter hash and the previous header (internal byte order):
/// `SHA256d(filter_hash ‖ previous_header)`.
pub fn filter_header(filter_hash: &[u8; 32], previous_header: &[u8; 32]) -> [u8; 32] {
    let mut both = [0u8; 64];
    both[..32].copy_from_slice(filter_hash);
    both[32..].copy_from_slice(previous_header);
    sha256d(&both)
}

fn sha256d(bytes: &[u8]) -> [u8; 32] {
    let once = Sha256::digest(bytes);
    let twice = Sha256::digest(once);
    let mut out = [0u8; 32];
    out.copy_from_slice(&twice);
    out
}

/// The sorted 64-bit hashes of the distinct elements. Duplicated hashes are checked against
/// the elements' bytes, so two different elements whose SipHash collides both count (as they
/// would in a set of byte strings).
fn distinct_sorted_hashes<E: AsRef<[u8]>, H: GcsHash>(elements: &[E], hasher: &H) -> Vec<u64> {
    let mut hashes: Vec<u64> = elements.iter().map(|e| hasher.hash64(e.as_ref())).collect();
    crate::gcs::sort_hashes(&mut hashes);
    let ties = repeated_hashes(&hashes);
    if ties.is_empty() {
        return hashes;
    }
    // the distinct elements behind each repeated hash (few: repeated scripts, rare collisions)
    let mut tied: Vec<(u64, &[u8])> = elements
        .iter()
        .map(AsRef::as_ref)
        .filter_map(|e| {
            let h = hasher.hash64(e);
            ties.binary_search(&h).is_ok().then_some((h, e))
        })
        .collect();
    tied.sort_unstable();
    tied.dedup();
    dedup_sorted_hashes(&mut hashes, |h| {
        let from = tied.partition_point(|t| t.0 < h);
        tied[from..].iter().take_while(|t| t.0 == h).count()
    });
    hashes
}

/// The values that occur more than once in `sorted` (ascending), each once: the only hashes
/// whose elements must be compared to tell a repeated element from a collision.
///
/// # Example
/// ```
/// assert_eq!(amq::formats::bip158::repeated_hashes(&[1, 2, 2, 2, 5, 7, 7]), [2, 7]);
/// ```
pub fn repeated_hashes(sorted: &[u64]) -> Vec<u64> {
    let mut ties: Vec<u64> = Vec::new();
    for w in sorted.windows(2) {
        if w[0] == w[1] && ties.last() != Some(&w[0]) {
            ties.push(w[0]);
        }
    }
    ties
}

/// Keeps each value of `sorted` once, except a repeated value h, which is kept `distinct(h)`
/// times (the number of distinct elements with that hash, at least 1), in place: the set of
/// elements' hashes, as BIP158 counts N.
///
/// # Example
/// ```
/// let mut v = vec![1, 2, 2, 2, 5, 7, 7];
/// // two different elements hash to 2, one element twice to 7
/// amq::formats::bip158::dedup_sorted_hashes(&mut v, |h| if h == 2 { 2 } else { 1 });
/// assert_eq!(v, [1, 2, 2, 5, 7]);
/// ```
pub fn dedup_sorted_hashes(sorted: &mut Vec<u64>, mut distinct: impl FnMut(u64) -> usize) {
    let (mut write, mut read) = (0, 0);
    while read < sorted.len() {
        let v = sorted[read];
        let mut end = read + 1;
        while end < sorted.len() && sorted[end] == v {
            end += 1;
        }
        let keep = if end - read == 1 {
            1
        } else {
            distinct(v).clamp(1, end - read)
        };
        for _ in 0..keep {
            sorted[write] = v;
            write += 1;
        }
        read = end;
    }
    sorted.truncate(write);
}

pub use super::compact_size::{read_compact_size, write_compact_size};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_count_once_and_collisions_twice() {
        let hash = [9u8; 32];
        let f = BlockFilter::build(&hash, &[&b"a"[..], b"b", b"a", b"a", b"c", b"b"]).unwrap();
        assert_eq!(f.n(), 3);
        f.validate().unwrap();
        assert_eq!(f.match_many([&b"a"[..], b"b", b"c"]).unwrap(), [true; 3]);
        // an empty filter is the single byte 00
        let e = BlockFilter::build::<&[u8]>(&hash, &[]).unwrap();
        assert_eq!(e.as_bytes(), [0]);
        assert!(!e.match_any([b"a"]).unwrap());
        // elements whose hashes collide count once each; true duplicates once in all
        let by_len = |e: &[u8]| e.len() as u64;
        let elements: [&[u8]; 7] = [b"ab", b"cd", b"ab", b"x", b"efg", b"cd", b"hij"];
        assert_eq!(distinct_sorted_hashes(&elements, &by_len), [1, 2, 2, 3, 3]);
        // N of 2^32 is refused
        let mut big = Vec::new();
        write_compact_size(1 << 32, &mut big);
        assert!(BlockFilter::from_bytes(&hash, big).is_err());
    }
}
