//! [`Bip37Filter`] and its sizing: Core's `CBloomFilter` constructor, `insert` and `contains`.

use super::{murmur3_x86_32, MAX_BLOOM_FILTER_SIZE, MAX_HASH_FUNCS, SEED_MULTIPLIER};
use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item};
use alloc::vec::Vec;
use core::f64::consts::LN_2;

/// (ln 2)², to the digits of Core's `LN2SQUARED`.
#[allow(clippy::excessive_precision)]
const LN2SQUARED: f64 = 0.480_453_013_918_201_424_667_102_526_326_664_971_730_552_951_594_545_5;

/// Bitcoin Core's filter size for `n` elements and false-positive rate `fpr`:
/// `(bytes, k)`.
///
/// Evaluated as `CBloomFilter::CBloomFilter` does: the ideal bit count
/// `(−1 / (ln 2)²) · n · ln ε` is truncated to an unsigned integer, capped at
/// `36,000 · 8`, and divided by 8 (so the size rounds *down* to whole bytes); then
/// `k = (bytes·8 / n)` in integer arithmetic, times ln 2, truncated, capped at 50. k can be 0
/// (more elements than bits), which Core accepts; such a filter matches everything.
///
/// Where Core's conversion of a too-large double to `unsigned int` is undefined (ε below about
/// `e^(−10⁹/n)`), this saturates, which the cap then turns into 36,000 bytes.
///
/// # Errors
/// [`Error::InvalidParameter`] if `n` is 0 (Core would divide by zero) or `fpr` is not in
/// `(0, 1]`.
///
/// # Example
/// ```
/// use amq::formats::bip37::core_size;
/// assert_eq!(core_size(3, 0.01)?, (3, 5)); // 28.75 bits → 28 → 3 bytes; 24/3 = 8 → 5.5 → 5
/// assert_eq!(core_size(2, 0.001)?, (3, 8));
/// assert_eq!(core_size(1_000_000, 1e-6)?, (36_000, 0)); // capped; 288,000/10⁶ = 0
/// # Ok::<(), amq::Error>(())
/// ```
pub fn core_size(n: u32, fpr: f64) -> Result<(usize, u32)> {
    if n == 0 {
        return Err(Error::invalid(
            "n",
            "the number of elements must be at least 1 (Bitcoin Core divides by it)",
        ));
    }
    if !(fpr > 0.0 && fpr <= 1.0) {
        return Err(Error::invalid(
            "fpr",
            alloc::format!("must be in (0, 1], got {}", crate::math::Rate(fpr)),
        ));
    }
    // -1 / LN2SQUARED * nElements * log(nFPRate), left to right, in double.
    let ideal_bits = -1.0 / LN2SQUARED * f64::from(n) * c_log(fpr);
    // (unsigned int) cast: truncation toward zero; `as` saturates where C++ is undefined.
    let bits = (ideal_bits as u32).min(MAX_BLOOM_FILTER_SIZE as u32 * 8);
    let bytes = (bits / 8) as usize;
    // vData.size() * 8 / nElements is integer division, then * LN2 in double, then truncated.
    let per_element = (bytes as u64 * 8) / u64::from(n);
    // Core's `LN2` literal (52 digits) parses to `LN_2` (a unit test checks).
    let k = ((per_element as f64 * LN_2) as u32).min(MAX_HASH_FUNCS);
    Ok((bytes, k))
}

/// The C library's `log`, as Bitcoin Core calls it: with `std`, the platform's (glibc's is
/// correctly rounded); without, the `libm` crate's, which is not always (it differs from
/// glibc in the last bit for about 1 in 110 rates, and then `core_size` may differ from
/// Core's by a byte and a few k: n = 2 at fpr = 1.4373859742102028e-6 gives 7 bytes and
/// k = 19 with glibc, 6 and 16 with `libm`).
fn c_log(x: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        x.ln()
    }
    #[cfg(not(feature = "std"))]
    {
        libm::log(x)
    }
}

/// A BIP37 bloom filter (Bitcoin Core's `CBloomFilter`).
///
/// `data` is the bit array (bytes·8 bits, least significant bit of each byte first), `k`
/// (`nHashFuncs`) the number of hash functions, `tweak` (`nTweak`) the seed offset, `flags`
/// (`nFlags`) the update mode for [`is_relevant_and_update`](Self::is_relevant_and_update).
/// See the [module docs](super) for the exact rules and an example.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Bip37Filter {
    pub(super) data: Vec<u8>,
    pub(super) k: u32,
    pub(super) tweak: u32,
    pub(super) flags: u8,
}

impl Bip37Filter {
    /// An empty filter sized as Bitcoin Core sizes it for `n` elements at false-positive rate
    /// `fpr` ([`core_size`]), with the given `nTweak` and `nFlags`.
    ///
    /// # Errors
    /// As [`core_size`].
    ///
    /// # Example
    /// ```
    /// use amq::formats::bip37::Bip37Filter;
    /// let f = Bip37Filter::new(2, 0.001, 0, 1)?;
    /// assert_eq!((f.size_bytes(), f.k()), (3, 8));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn new(n: u32, fpr: f64, tweak: u32, flags: u8) -> Result<Self> {
        let (bytes, k) = core_size(n, fpr)?;
        Ok(Bip37Filter {
            data: alloc::vec![0; bytes],
            k,
            tweak,
            flags,
        })
    }

    /// A filter from its parts, as a peer would send them.
    ///
    /// # Errors
    /// [`Error::TooLarge`] if `data` is longer than [`MAX_BLOOM_FILTER_SIZE`] or `k`
    /// is over [`MAX_HASH_FUNCS`] (Core's `IsWithinSizeConstraints`).
    pub fn from_parts(data: Vec<u8>, k: u32, tweak: u32, flags: u8) -> Result<Self> {
        check_caps(data.len() as u64, k)?;
        Ok(Bip37Filter {
            data,
            k,
            tweak,
            flags,
        })
    }

    /// The bit array (`vData`), least significant bit of each byte first.
    #[inline]
    pub fn data(&self) -> &[u8] {
        &self.data
    }
    /// The filter's size in bytes.
    #[inline]
    pub fn size_bytes(&self) -> u64 {
        self.data.len() as u64
    }
    /// m, the filter's size in bits (bytes·8).
    #[inline]
    pub fn m(&self) -> u64 {
        self.data.len() as u64 * 8
    }
    /// k, the number of hash functions (`nHashFuncs`).
    #[inline]
    pub fn k(&self) -> u32 {
        self.k
    }
    /// `nTweak`, added to every hash function's seed.
    #[inline]
    pub fn tweak(&self) -> u32 {
        self.tweak
    }
    /// `nFlags`.
    #[inline]
    pub fn flags(&self) -> u8 {
        self.flags
    }
    /// `true` for a filter of 0 bytes, which matches everything.
    #[inline]
    pub fn matches_all(&self) -> bool {
        self.data.is_empty()
    }

    /// The bit index hash function `i` gives `key`:
    /// `MurmurHash3_x86_32(key, i·0xFBA4C795 + nTweak) mod m` (Core's `CBloomFilter::Hash`).
    ///
    /// # Panics
    /// If the filter is empty (m = 0); [`contains`](Self::contains_bytes) and
    /// [`insert`](Self::insert_bytes) never call it then.
    #[inline]
    pub fn bit_index(&self, i: u32, key: &[u8]) -> u64 {
        let seed = i.wrapping_mul(SEED_MULTIPLIER).wrapping_add(self.tweak);
        u64::from(murmur3_x86_32(key, seed)) % self.m()
    }

    /// Adds `key`; `true` if some bit changed. An empty filter, or one with k = 0, is left as
    /// it is (Core's `insert`).
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        if self.data.is_empty() {
            return false;
        }
        let mut changed = false;
        for i in 0..self.k {
            let b = self.bit_index(i, key);
            let (byte, mask) = ((b >> 3) as usize, 1u8 << (b & 7));
            changed |= self.data[byte] & mask == 0;
            self.data[byte] |= mask;
        }
        changed
    }

    /// `true` if `key` may have been inserted (Core's `contains`); an empty filter says `true`
    /// for everything.
    pub fn contains_bytes(&self, key: &[u8]) -> bool {
        if self.data.is_empty() {
            return true;
        }
        (0..self.k).all(|i| {
            let b = self.bit_index(i, key);
            self.data[(b >> 3) as usize] & (1u8 << (b & 7)) != 0
        })
    }

    /// Clears every bit, keeping size, k, tweak and flags.
    pub fn clear(&mut self) {
        self.data.fill(0);
    }

    /// The classic expected false-positive rate after `n` distinct insertions,
    /// `(1 − e^(−k·n/m))^k` ([`math::fpr`](crate::math::fpr)); 1 for an empty filter or k = 0.
    pub fn expected_fpr(&self, n: u64) -> f64 {
        if self.data.is_empty() || self.k == 0 {
            return 1.0;
        }
        crate::math::fpr(n, self.m(), self.k)
    }
}

impl<T: Item + ?Sized> Filter<T> for Bip37Filter {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        item.with_bytes(|b| self.contains_bytes(b))
    }
}

impl<T: Item + ?Sized> Insert<T> for Bip37Filter {
    /// Never fails: a BIP37 filter has no capacity limit (it only fills up).
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        Ok(item.with_bytes(|b| self.insert_bytes(b)))
    }
}

pub(super) fn check_caps(bytes: u64, k: u32) -> Result<()> {
    if bytes > MAX_BLOOM_FILTER_SIZE as u64 {
        return Err(Error::TooLarge {
            what: "BIP37 filter size in bytes",
            value: bytes,
            limit: MAX_BLOOM_FILTER_SIZE as u64,
        });
    }
    if k > MAX_HASH_FUNCS {
        return Err(Error::TooLarge {
            what: "BIP37 nHashFuncs",
            value: u64::from(k),
            limit: u64::from(MAX_HASH_FUNCS),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn core_constants_are_these_doubles() {
        let ln2: f64 = "0.6931471805599453094172321214581765680755001343602552"
            .parse()
            .unwrap();
        assert_eq!(ln2.to_bits(), LN_2.to_bits());
        let sq: f64 = "0.4804530139182014246671025263266649717305529515945455"
            .parse()
            .unwrap();
        assert_eq!(sq.to_bits(), LN2SQUARED.to_bits());
    }

    /// Rates where the `libm` crate's log is one bit off glibc's, which Core calls (found by
    /// helper-23 over 20M random rates; the expected sizes are Core's formula with glibc's
    /// log, through Python's `math.log`).
    #[cfg(feature = "std")]
    #[test]
    fn core_size_takes_the_c_librarys_log() {
        assert_eq!(core_size(2, 1.4373859742102028e-6).unwrap(), (7, 19));
        assert_eq!(core_size(3, 7.574650734616669e-7).unwrap(), (10, 18));
    }

    #[test]
    fn empty_filter_matches_everything() {
        let mut f = Bip37Filter::new(1, 1.0, 0, 0).unwrap();
        assert_eq!(f.size_bytes(), 0);
        assert!(!f.insert_bytes(b"x"));
        assert!(f.contains_bytes(b"anything"));
        assert_eq!(f.to_filterload(), vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    }
}
