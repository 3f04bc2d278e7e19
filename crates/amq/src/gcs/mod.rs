//! Golomb-coded sets (GCS): a sorted set of hash values stored as Golomb-Rice coded gaps.
//!
//! A GCS of N items with parameters P and M answers "maybe present" for every item of the set
//! and for other items with probability about 1/M, in about P + 1/(1 − e^(−2^P/M)) bits per
//! item (≈ 21.05 bits at BIP158's P = 19, M = 784931): about 1.5 bits above the
//! information-theoretic log₂ M, where a Bloom filter at the same rate needs 1.44·log₂ M. The
//! price: a query decodes the gaps in order, so it is a stream scan, not a probe.
//!
//! Construction (BIP158 §"Golomb-Coded Sets"; Cashu NUT-23 draft, `shared/seeds`):
//!
//! 1. hash every item to 64 bits with the format's hash ([`GcsHash`]), then to `[0, F)` with
//!    F = N·M by [`hash_to_range`]: `(F·h) >> 64` on a 128-bit product, never `h % F`;
//! 2. sort the values (duplicates stay, as zero gaps);
//! 3. write the gaps between consecutive values (the first from 0) in Golomb-Rice code: the
//!    quotient `gap >> P` in unary as one bits ended by a zero bit, then the remainder in P
//!    bits, most significant bit first; pad with zero bits to a whole byte.
//!
//! N and M must be below 2³² so that F fits in 64 bits; P is at most [`MAX_P`]. The wire bytes
//! carry no parameters: formats send N beside them (BIP158 as a CompactSize prefix, Cashu in the
//! JSON response) and fix P and M.
//!
//! This module is the engine; [`formats::cashu`](crate::formats) and
//! [`formats::bip158`](crate::formats) are thin layers that fix the hash and the parameters.
//!
//! * [`Gcs`] builds a set and answers streaming queries ([`Gcs::match_any`],
//!   [`Gcs::match_all`], [`Gcs::match_many`]) that decode the gaps once, merged against the
//!   sorted targets, and never hold the decoded set in memory.
//! * [`SampledIndex`] keeps the value and bit offset of every 2^s-th element beside the
//!   filter (not in its wire bytes), so a single lookup decodes one run of at most 2^s gaps.
//! * [`plan`] chooses P and M and predicts the size.
//!
//! ```
//! use amq::gcs::Gcs;
//!
//! // any 64-bit hash of the item's bytes: here a toy FNV-1a
//! let fnv = |item: &[u8]| item.iter().fold(0xcbf29ce484222325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3));
//! let items: [&[u8]; 3] = [b"alice", b"bob", b"carol"];
//! let set = Gcs::build(items, &fnv, 19, 784_931)?;
//! assert_eq!(set.n(), 3);
//! assert!(set.match_all(items, &fnv)?);
//! assert!(!set.contains(b"mallory", &fnv)?); // absent, except with probability 1/M
//! # Ok::<(), amq::Error>(())
//! ```

pub(crate) mod bitio;
mod index;
mod params;
pub mod plan;
mod query;
mod set;
pub(crate) mod sort;
#[cfg(test)]
mod tests;
mod values;

pub use index::SampledIndex;
pub use params::Params;
pub use plan::{expected_bits_per_element, optimal_m, GcsPlan};
pub use set::Gcs;
pub use values::Values;

/// The largest Golomb-Rice parameter P accepted (M < 2³² makes a larger P pointless).
pub const MAX_P: u8 = 32;
/// N and M must be below this (2³²), so that F = N·M fits in 64 bits.
pub const LIMIT: u64 = 1 << 32;

/// Maps a 64-bit hash to `[0, f)`: `⌊f·h / 2⁶⁴⌋`, the top 64 bits of the 128-bit product.
///
/// Uniform for uniform h, monotone in h, and not `h % f` (the NUT-23 draft's warning). For
/// `f = 0` the result is 0.
///
/// # Example
/// ```
/// // the top bits of h choose the slot
/// assert_eq!(amq::gcs::hash_to_range(u64::MAX, 10), 9);
/// assert_eq!(amq::gcs::hash_to_range(1 << 63, 10), 5);
/// ```
#[inline(always)]
pub fn hash_to_range(h: u64, f: u64) -> u64 {
    crate::hash::reduce(h, f)
}

/// Sorts 64-bit values (hashes, or values in `[0, F)`) in place, in linear time and with no
/// heap memory (16 KiB of counters on the stack per radix level): the radix sort the set is
/// built with, for callers that hold millions of hashes and no room for a copy.
///
/// # Example
/// ```
/// let mut v = vec![9u64, 3, u64::MAX, 0, 3];
/// amq::gcs::sort_hashes(&mut v);
/// assert_eq!(v, [0, 3, 3, 9, u64::MAX]);
/// ```
pub fn sort_hashes(values: &mut [u64]) {
    let max = values.iter().copied().max().unwrap_or(0);
    sort::sort_u64(values, max);
}

/// The 64-bit hash a GCS applies to its items' bytes.
///
/// Implemented for every `Fn(&[u8]) -> u64`, so a closure will do; the chain formats implement
/// it for their fixed hashes (SipHash-2-4 keyed by the block hash for BIP158, MurmurHash3 for
/// Cashu).
///
/// # Example
/// ```
/// use amq::gcs::GcsHash;
/// let len_hash = |item: &[u8]| item.len() as u64;
/// assert_eq!(len_hash.hash64(b"abc"), 3);
/// ```
pub trait GcsHash {
    /// The 64-bit hash of `item`.
    fn hash64(&self, item: &[u8]) -> u64;
}

impl<F: Fn(&[u8]) -> u64 + ?Sized> GcsHash for F {
    #[inline]
    fn hash64(&self, item: &[u8]) -> u64 {
        self(item)
    }
}
