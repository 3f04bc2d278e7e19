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
pub mod plan;
pub(crate) mod sort;

pub use index::SampledIndex;
pub use plan::{expected_bits_per_element, optimal_m, GcsPlan};

use crate::error::{Error, Result};
use alloc::vec::Vec;
use bitio::{BitReader, BitWriter};

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

/// The parameters of one Golomb-coded set: N items, P remainder bits, inverse false-positive
/// rate M, and F = N·M.
///
/// # Example
/// ```
/// let p = amq::gcs::Params::new(10, 19, 784_931)?;
/// assert_eq!(p.f(), 7_849_310);
/// assert!(amq::gcs::Params::new(1 << 32, 19, 784_931).is_err());
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Params {
    n: u64,
    p: u8,
    m: u64,
}

impl Params {
    /// Checked parameters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if n ≥ 2³² (`n`), m = 0 or m ≥ 2³² (`m`), or p > [`MAX_P`]
    /// (`p`).
    pub fn new(n: u64, p: u8, m: u64) -> Result<Self> {
        if n >= LIMIT {
            return Err(Error::invalid(
                "n",
                alloc::format!("the number of items must be smaller than 2^32, got {n}"),
            ));
        }
        if m >= LIMIT {
            return Err(Error::invalid(
                "m",
                alloc::format!("must be smaller than 2^32, got {m}"),
            ));
        }
        if m == 0 {
            return Err(Error::invalid("m", "must be at least 1"));
        }
        if p > MAX_P {
            return Err(Error::invalid(
                "p",
                alloc::format!("must be at most {MAX_P}, got {p}"),
            ));
        }
        Ok(Params { n, p, m })
    }

    /// N, the number of items (duplicates counted).
    #[inline]
    pub fn n(&self) -> u64 {
        self.n
    }
    /// P, the number of remainder bits of the Golomb-Rice code.
    #[inline]
    pub fn p(&self) -> u8 {
        self.p
    }
    /// M, the inverse of the false-positive rate.
    #[inline]
    pub fn m(&self) -> u64 {
        self.m
    }
    /// F = N·M, the range of the hashed values (< 2⁶⁴).
    #[inline]
    pub fn f(&self) -> u64 {
        self.n * self.m
    }
    /// The fewest bits N codes can take: N·(P + 1).
    #[inline]
    pub fn min_bits(&self) -> u64 {
        self.n * (u64::from(self.p) + 1)
    }
}

/// A Golomb-coded set over its wire bytes `B` (owned `Vec<u8>` or borrowed `&[u8]`).
///
/// Built from items ([`Gcs::build`]) or hashes ([`Gcs::from_hashes`]), or wrapped around
/// received bytes ([`Gcs::new`], which checks only what is cheap; [`Gcs::validate`] decodes
/// everything). Queries stream the gaps and stop as soon as the answer is known; a corrupt
/// stream gives an error, never a panic.
///
/// # Example
/// ```
/// use amq::gcs::{Gcs, Params};
///
/// let h = |item: &[u8]| (item.len() as u64).wrapping_mul(0x9E3779B97F4A7C15);
/// let built = Gcs::build([&b"a"[..], b"bb", b"ccc"], &h, 10, 1024)?;
/// // the receiving side knows N, P, M from elsewhere and wraps the bytes it got
/// let received = Gcs::new(Params::new(3, 10, 1024)?, built.as_bytes())?;
/// assert_eq!(received.match_many([&b"bb"[..], b"dddd"], &h)?, vec![true, false]);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Gcs<B = Vec<u8>> {
    params: Params,
    data: B,
}

impl Gcs<Vec<u8>> {
    /// Builds the set of `items` (duplicates kept) with the hash `hash`.
    ///
    /// Peak memory: the 64-bit hashes twice (values and the radix sort's scratch), then the
    /// values and the output.
    ///
    /// # Errors
    /// As [`Params::new`] (n is the number of items).
    pub fn build<I, H>(items: I, hash: &H, p: u8, m: u64) -> Result<Self>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
        H: GcsHash + ?Sized,
    {
        let items = items.into_iter();
        let mut hashes = Vec::with_capacity(items.size_hint().0);
        hashes.extend(items.map(|item| hash.hash64(item.as_ref())));
        Self::from_hashes(hashes, p, m)
    }

    /// Builds the set from the items' 64-bit hashes (N = `hashes.len()`, duplicates kept).
    ///
    /// The values are mapped to `[0, N·M)` and sorted in place.
    ///
    /// # Errors
    /// As [`Params::new`].
    ///
    /// # Example
    /// ```
    /// let set = amq::gcs::Gcs::from_hashes(vec![u64::MAX, 0, 1 << 63], 2, 4)?;
    /// // F = 12: values 0, 6, 11 -> gaps 0, 6, 5 -> "0 00" "10 10" "10 01", padded
    /// assert_eq!(set.as_bytes(), &[0b0001_0101, 0b0010_0000]);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn from_hashes(mut hashes: Vec<u64>, p: u8, m: u64) -> Result<Self> {
        let params = Params::new(hashes.len() as u64, p, m)?;
        let f = params.f();
        for h in hashes.iter_mut() {
            *h = hash_to_range(*h, f);
        }
        // encode each sorted chunk as the sort finishes it, while it is in cache
        let mut w = BitWriter::with_capacity(expected_capacity(params));
        let p = u32::from(params.p);
        let mut prev = 0;
        sort::sort_u64_then(&mut hashes, f.saturating_sub(1), |chunk| {
            for &v in chunk {
                w.golomb(v - prev, p);
                prev = v;
            }
        });
        drop(hashes);
        Ok(Gcs {
            params,
            data: w.finish(),
        })
    }

    /// Builds the set from 64-bit hashes already sorted in ascending order (N =
    /// `sorted.len()`); mapping to `[0, F)` keeps the order, so nothing is sorted here.
    ///
    /// # Errors
    /// As [`Params::new`]; [`Error::InvalidParameter`] (`hashes`) if they are not sorted.
    pub fn from_sorted_hashes(sorted: &[u64], p: u8, m: u64) -> Result<Self> {
        if sorted.windows(2).any(|w| w[0] > w[1]) {
            return Err(Error::invalid("hashes", "not sorted in ascending order"));
        }
        let params = Params::new(sorted.len() as u64, p, m)?;
        let f = params.f();
        let mut w = BitWriter::with_capacity(expected_capacity(params));
        let pp = u32::from(params.p);
        let mut prev = 0;
        for &h in sorted {
            let v = hash_to_range(h, f);
            w.golomb(v - prev, pp);
            prev = v;
        }
        Ok(Gcs {
            params,
            data: w.finish(),
        })
    }

    /// The wire bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.data
    }
}

/// The output bytes to reserve: the expected size plus 1% and a word.
fn expected_capacity(params: Params) -> usize {
    let bits = params.n as f64 * expected_bits_per_element(params.p, params.m);
    (bits / 8.0 * 1.01) as usize + 8
}

impl<B: AsRef<[u8]>> Gcs<B> {
    /// Wraps received bytes as a set with the given parameters.
    ///
    /// Checks only what is cheap: that the bytes can hold N codes of at least P + 1 bits each,
    /// so that no query can run past them. [`Gcs::validate`] checks everything.
    ///
    /// # Errors
    /// [`Error::Truncated`] if `data` is shorter than N·(P + 1) bits.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn new(params: Params, data: B) -> Result<Self> {
        let len = data.as_ref().len();
        let need_bytes = params.min_bits().div_ceil(8);
        if need_bytes > len as u64 {
            return Err(Error::Truncated {
                what: "gcs data (n codes of at least p + 1 bits)",
                offset: 0,
                needed: need_bytes.min(usize::MAX as u64) as usize,
                available: len,
            });
        }
        Ok(Gcs { params, data })
    }

    /// Wraps bytes already checked by [`Gcs::new`] with the same parameters.
    #[cfg_attr(not(feature = "bip158"), allow(dead_code))]
    pub(crate) fn new_unchecked(params: Params, data: B) -> Self {
        Gcs { params, data }
    }

    /// The parameters.
    #[inline]
    pub fn params(&self) -> Params {
        self.params
    }
    /// N, the number of items.
    #[inline]
    pub fn n(&self) -> u64 {
        self.params.n
    }
    /// P, the remainder bits.
    #[inline]
    pub fn p(&self) -> u8 {
        self.params.p
    }
    /// M, the inverse false-positive rate.
    #[inline]
    pub fn m(&self) -> u64 {
        self.params.m
    }
    /// F = N·M.
    #[inline]
    pub fn f(&self) -> u64 {
        self.params.f()
    }
    /// The wire bytes: the Golomb-Rice codes, zero-padded to a byte.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        self.data.as_ref()
    }
    /// The same set over borrowed bytes.
    pub fn borrowed(&self) -> Gcs<&[u8]> {
        Gcs {
            params: self.params,
            data: self.data.as_ref(),
        }
    }

    /// The value an item maps to: `hash_to_range(hash(item), F)`.
    #[inline]
    pub fn map_item<H: GcsHash + ?Sized>(&self, item: &[u8], hash: &H) -> u64 {
        hash_to_range(hash.hash64(item), self.f())
    }

    /// The set's values in ascending order, decoded one gap at a time.
    ///
    /// Each item is `Ok(value)`; after the first `Err` the iterator ends.
    ///
    /// # Example
    /// ```
    /// let set = amq::gcs::Gcs::from_hashes(vec![u64::MAX, 0, 1 << 63], 2, 4)?;
    /// let values: Vec<u64> = set.values().collect::<Result<_, _>>()?;
    /// assert_eq!(values, [0, 6, 11]);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn values(&self) -> Values<'_> {
        Values::new(self.params, self.data.as_ref())
    }

    /// Decodes the whole set into a vector (N values, ascending).
    ///
    /// # Errors
    /// As [`Gcs::validate`], except that padding and trailing bytes are not checked.
    pub fn decode(&self) -> Result<Vec<u64>> {
        // N ≤ bits / (P + 1) was checked in `new`, so this allocation is bounded by the input
        let mut out = Vec::with_capacity(self.params.n as usize);
        let mut it = self.values();
        while let Some(v) = it.next_value()? {
            out.push(v);
        }
        Ok(out)
    }

    /// Decodes every code and checks the stream: each value below F, the padding zero, and no
    /// byte after it. A set that validates re-encodes to the same bytes.
    ///
    /// # Errors
    /// [`Error::Truncated`] if the data ends inside a code; [`Error::Corrupt`] if a value
    /// reaches F, a padding bit is set, or bytes follow the last code's byte.
    pub fn validate(&self) -> Result<()> {
        let mut it = self.values();
        while it.next_value()?.is_some() {}
        let end = it.reader.bit_position();
        let bytes = self.as_bytes();
        let used = end.div_ceil(8) as usize;
        if used < bytes.len() {
            return Err(Error::corrupt(
                used,
                alloc::format!("{} bytes after the last code", bytes.len() - used),
            ));
        }
        if !it.reader.rest_is_zero() {
            return Err(Error::corrupt(
                used.saturating_sub(1),
                "padding bits are not zero",
            ));
        }
        Ok(())
    }

    /// `true` if `value` (in `[0, F)`) is one of the set's values. Decodes up to the value.
    ///
    /// # Errors
    /// As [`Gcs::validate`] for the part decoded.
    pub fn contains_value(&self, value: u64) -> Result<bool> {
        let mut it = self.values();
        while let Some(v) = it.next_value()? {
            if v >= value {
                return Ok(v == value);
            }
        }
        Ok(false)
    }

    /// `true` if `item` may be in the set ("maybe present"); `false` if it is definitely not.
    ///
    /// # Errors
    /// As [`Gcs::contains_value`].
    pub fn contains<H: GcsHash + ?Sized>(&self, item: &[u8], hash: &H) -> Result<bool> {
        if self.params.n == 0 {
            return Ok(false);
        }
        self.contains_value(self.map_item(item, hash))
    }

    /// `true` if any of `items` may be in the set. One pass over the gaps, merged against the
    /// sorted targets; it stops at the first match or once the values pass every target.
    ///
    /// # Errors
    /// As [`Gcs::validate`] for the part decoded.
    pub fn match_any<I, H>(&self, items: I, hash: &H) -> Result<bool>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
        H: GcsHash + ?Sized,
    {
        let mut targets = self.map_items(items, hash);
        targets.sort_unstable();
        self.match_any_values(&targets)
    }

    /// `true` if every one of `items` may be in the set (an empty list gives `true`).
    ///
    /// # Errors
    /// As [`Gcs::validate`] for the part decoded.
    pub fn match_all<I, H>(&self, items: I, hash: &H) -> Result<bool>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
        H: GcsHash + ?Sized,
    {
        let mut targets = self.map_items(items, hash);
        targets.sort_unstable();
        self.match_all_values(&targets)
    }

    /// For each of `items`, in order, whether it may be in the set. One pass over the gaps.
    ///
    /// # Errors
    /// As [`Gcs::validate`] for the part decoded.
    pub fn match_many<I, H>(&self, items: I, hash: &H) -> Result<Vec<bool>>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
        H: GcsHash + ?Sized,
    {
        let mut targets: Vec<(u64, usize)> = self
            .map_items(items, hash)
            .into_iter()
            .enumerate()
            .map(|(i, v)| (v, i))
            .collect();
        targets.sort_unstable();
        let sorted: Vec<u64> = targets.iter().map(|t| t.0).collect();
        let mut hits = alloc::vec![false; sorted.len()];
        self.match_many_values(&sorted, &mut hits)?;
        let mut out = alloc::vec![false; sorted.len()];
        for (&(_, i), hit) in targets.iter().zip(hits) {
            out[i] = hit;
        }
        Ok(out)
    }

    fn map_items<I, H>(&self, items: I, hash: &H) -> Vec<u64>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
        H: GcsHash + ?Sized,
    {
        let f = self.f();
        items
            .into_iter()
            .map(|item| hash_to_range(hash.hash64(item.as_ref()), f))
            .collect()
    }

    /// [`Gcs::match_any`] over target values in `[0, F)`, sorted ascending.
    ///
    /// # Errors
    /// As [`Gcs::validate`] for the part decoded.
    pub fn match_any_values(&self, sorted_targets: &[u64]) -> Result<bool> {
        let Some(&first) = sorted_targets.first() else {
            return Ok(false);
        };
        let mut it = self.values();
        let mut j = 0;
        let mut t = first;
        while let Some(v) = it.next_value()? {
            while t < v {
                j += 1;
                match sorted_targets.get(j) {
                    Some(&next) => t = next,
                    None => return Ok(false),
                }
            }
            if t == v {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// [`Gcs::match_all`] over target values in `[0, F)`, sorted ascending (repeats allowed).
    ///
    /// # Errors
    /// As [`Gcs::validate`] for the part decoded.
    pub fn match_all_values(&self, sorted_targets: &[u64]) -> Result<bool> {
        if sorted_targets.is_empty() {
            return Ok(true);
        }
        let mut it = self.values();
        let mut j = 0;
        while let Some(v) = it.next_value()? {
            while sorted_targets[j] == v {
                j += 1;
                if j == sorted_targets.len() {
                    return Ok(true);
                }
            }
            if sorted_targets[j] < v {
                return Ok(false);
            }
        }
        Ok(false)
    }

    /// For each target value in `[0, F)` (sorted ascending, repeats allowed), sets `hits[i]` to
    /// whether it is one of the set's values. One pass over the gaps; it stops once the values
    /// pass the last target.
    ///
    /// # Errors
    /// As [`Gcs::validate`] for the part decoded; `hits` is then partly filled.
    ///
    /// # Panics
    /// If `hits.len() != sorted_targets.len()`.
    pub fn match_many_values(&self, sorted_targets: &[u64], hits: &mut [bool]) -> Result<()> {
        assert_eq!(
            sorted_targets.len(),
            hits.len(),
            "match_many_values: targets and hits differ in length"
        );
        hits.fill(false);
        let k = sorted_targets.len();
        if k == 0 {
            return Ok(());
        }
        let mut it = self.values();
        let mut j = 0;
        while let Some(v) = it.next_value()? {
            while sorted_targets[j] < v {
                j += 1;
                if j == k {
                    return Ok(());
                }
            }
            while j < k && sorted_targets[j] == v {
                hits[j] = true;
                j += 1;
            }
            if j == k {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// The values of a [`Gcs`] in ascending order, decoded one Golomb-Rice code at a time
/// ([`Gcs::values`]).
#[derive(Debug, Clone)]
pub struct Values<'a> {
    reader: BitReader<'a>,
    p: u32,
    f: u64,
    remaining: u64,
    value: u64,
    failed: bool,
}

impl<'a> Values<'a> {
    fn new(params: Params, data: &'a [u8]) -> Self {
        Values {
            reader: BitReader::new(data),
            p: u32::from(params.p),
            f: params.f(),
            remaining: params.n,
            value: 0,
            failed: false,
        }
    }

    /// Continues a decode from a sampled position: `value` is the value before the code at
    /// `bit_offset`, `remaining` the number of codes from there on.
    fn resume(
        params: Params,
        data: &'a [u8],
        bit_offset: u64,
        value: u64,
        remaining: u64,
    ) -> Result<Self> {
        Ok(Values {
            reader: BitReader::at(data, bit_offset)?,
            p: u32::from(params.p),
            f: params.f(),
            remaining,
            value,
            failed: false,
        })
    }

    /// The next value, `Ok(None)` after the N-th.
    ///
    /// # Errors
    /// [`Error::Truncated`] if the data ends inside a code; [`Error::Corrupt`] if a value
    /// reaches F.
    #[inline(always)]
    pub fn next_value(&mut self) -> Result<Option<u64>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        let delta = self.reader.golomb(self.p)?;
        let v = self.value.wrapping_add(delta);
        if v >= self.f || v < self.value {
            return Err(self.out_of_range());
        }
        self.value = v;
        self.remaining -= 1;
        Ok(Some(v))
    }

    #[cold]
    fn out_of_range(&self) -> Error {
        Error::corrupt(
            (self.reader.bit_position() / 8) as usize,
            alloc::format!("a decoded value reaches F = {}", self.f),
        )
    }

    /// The bit offset of the next code, from the start of the data.
    #[inline]
    pub fn bit_position(&self) -> u64 {
        self.reader.bit_position()
    }

    /// The last value decoded (0 before the first).
    #[inline]
    pub fn last_value(&self) -> u64 {
        self.value
    }
}

impl Iterator for Values<'_> {
    type Item = Result<u64>;

    fn next(&mut self) -> Option<Result<u64>> {
        if self.failed {
            return None;
        }
        match self.next_value() {
            Ok(v) => v.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.failed {
            (0, Some(0))
        } else {
            (0, usize::try_from(self.remaining).ok())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed | 1;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    #[test]
    fn params_are_checked() {
        assert!(Params::new(LIMIT - 1, 19, LIMIT - 1).is_ok());
        assert!(matches!(
            Params::new(LIMIT, 19, 1),
            Err(Error::InvalidParameter { name: "n", .. })
        ));
        assert!(matches!(
            Params::new(1, 19, LIMIT),
            Err(Error::InvalidParameter { name: "m", .. })
        ));
        assert!(matches!(
            Params::new(1, 19, 0),
            Err(Error::InvalidParameter { name: "m", .. })
        ));
        assert!(matches!(
            Params::new(1, 33, 1),
            Err(Error::InvalidParameter { name: "p", .. })
        ));
    }

    #[test]
    fn empty_set_has_no_bytes_and_matches_nothing() {
        let h = |b: &[u8]| b.len() as u64;
        let set = Gcs::build(core::iter::empty::<&[u8]>(), &h, 19, 784_931).unwrap();
        assert!(set.as_bytes().is_empty());
        assert!(!set.contains(b"x", &h).unwrap());
        assert!(!set.match_any([b"x"], &h).unwrap());
        assert!(set.match_all(core::iter::empty::<&[u8]>(), &h).unwrap());
        assert!(!set.match_all([b"x"], &h).unwrap());
        set.validate().unwrap();
    }

    #[test]
    fn round_trip_and_queries_agree() {
        let mut rng = xorshift(7);
        for &(n, p, m) in &[
            (1u64, 0u8, 1u64),
            (5, 2, 4),
            (1000, 19, 784_931),
            (3000, 5, 40),
            (700, 32, (1 << 32) - 1),
        ] {
            let hashes: Vec<u64> = (0..n).map(|_| rng()).collect();
            let set = Gcs::from_hashes(hashes.clone(), p, m).unwrap();
            set.validate().unwrap();
            let mut expected: Vec<u64> =
                hashes.iter().map(|&h| hash_to_range(h, set.f())).collect();
            expected.sort_unstable();
            assert_eq!(set.decode().unwrap(), expected);
            for &v in expected.iter().step_by(17) {
                assert!(set.contains_value(v).unwrap());
            }
            assert!(set.match_all_values(&expected).unwrap());
            let mut hits = alloc::vec![false; expected.len()];
            set.match_many_values(&expected, &mut hits).unwrap();
            assert!(hits.iter().all(|&h| h));
            let mut sorted = hashes.clone();
            sorted.sort_unstable();
            assert_eq!(Gcs::from_sorted_hashes(&sorted, p, m).unwrap(), set);
        }
    }

    #[test]
    fn corrupt_streams_give_errors() {
        let set = Gcs::from_hashes(
            (1..=100u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .collect(),
            4,
            16,
        )
        .unwrap();
        let bytes = set.as_bytes();
        // too short for N codes
        assert!(matches!(
            Gcs::new(set.params(), &bytes[..bytes.len() / 4]),
            Err(Error::Truncated { .. })
        ));
        // all ones: the unary run never ends, or values overflow F
        let ones = alloc::vec![0xFFu8; bytes.len()];
        let g = Gcs::new(set.params(), &ones[..]).unwrap();
        assert!(g.validate().is_err());
        assert!(g.match_any_values(&[u64::MAX]).is_err());
        // trailing byte and set padding bit
        let mut longer = bytes.to_vec();
        longer.push(0);
        assert!(Gcs::new(set.params(), &longer[..])
            .unwrap()
            .validate()
            .is_err());
    }
}
