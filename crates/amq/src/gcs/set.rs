//! The set over its wire bytes: building it, wrapping received bytes, decoding and checking.

use super::bitio::BitWriter;
use super::{expected_bits_per_element, hash_to_range, sort, GcsHash, Params, Values};
use crate::error::{Error, Result};
use alloc::vec::Vec;

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
    pub(super) params: Params,
    pub(super) data: B,
}

impl Gcs<Vec<u8>> {
    /// Builds the set of `items` (duplicates kept) with the hash `hash`.
    ///
    /// Peak memory: the 64-bit hashes (8 bytes per item, sorted in place) and the output.
    ///
    /// # Errors
    /// As [`Params::new`] (n is the number of items); [`Error::OutOfMemory`] if the hashes or
    /// the output cannot be allocated.
    pub fn build<I, H>(items: I, hash: &H, p: u8, m: u64) -> Result<Self>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
        H: GcsHash + ?Sized,
    {
        let items = items.into_iter();
        let mut hashes: Vec<u64> = Vec::new();
        hashes.try_reserve_exact(items.size_hint().0).map_err(|_| {
            Error::out_of_memory::<u64>("the item hashes", items.size_hint().0 as u64)
        })?;
        for item in items {
            if hashes.len() == hashes.capacity() {
                let more = hashes.capacity().max(64);
                hashes.try_reserve_exact(more).map_err(|_| {
                    Error::out_of_memory::<u64>("the item hashes", (hashes.len() + more) as u64)
                })?;
            }
            hashes.push(hash.hash64(item.as_ref()));
        }
        Self::from_hashes(hashes, p, m)
    }

    /// Builds the set from the items' 64-bit hashes (N = `hashes.len()`, duplicates kept).
    ///
    /// The values are mapped to `[0, N·M)` and sorted in place, so the only other memory is
    /// the output's.
    ///
    /// # Errors
    /// As [`Params::new`]; [`Error::OutOfMemory`] if the output cannot be allocated.
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
        let mut w = BitWriter::with_capacity(expected_capacity(params))?;
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
            data: w.finish()?,
        })
    }

    /// Builds the set from 64-bit hashes already sorted in ascending order (N =
    /// `sorted.len()`); mapping to `[0, F)` keeps the order, so nothing is sorted here.
    ///
    /// # Errors
    /// As [`Params::new`]; [`Error::InvalidParameter`] (`hashes`) if they are not sorted;
    /// [`Error::OutOfMemory`] if the output cannot be allocated.
    pub fn from_sorted_hashes(sorted: &[u64], p: u8, m: u64) -> Result<Self> {
        if sorted.windows(2).any(|w| w[0] > w[1]) {
            return Err(Error::invalid("hashes", "not sorted in ascending order"));
        }
        let params = Params::new(sorted.len() as u64, p, m)?;
        let f = params.f();
        let mut w = BitWriter::with_capacity(expected_capacity(params))?;
        let pp = u32::from(params.p);
        let mut prev = 0;
        for &h in sorted {
            let v = hash_to_range(h, f);
            w.golomb(v - prev, pp);
            prev = v;
        }
        Ok(Gcs {
            params,
            data: w.finish()?,
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

    /// Decodes every code (each value below F) and refuses bytes after the last code's byte;
    /// the reader at the end and the bytes used.
    pub(crate) fn decode_all(&self) -> Result<(Values<'_>, usize)> {
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
        Ok((it, used))
    }

    /// Decodes every code and checks the stream: each value below F, the padding zero, and no
    /// byte after it. A set that validates re-encodes to the same bytes.
    ///
    /// # Errors
    /// [`Error::Truncated`] if the data ends inside a code; [`Error::Corrupt`] if a value
    /// reaches F, a padding bit is set, or bytes follow the last code's byte.
    pub fn validate(&self) -> Result<()> {
        let (it, used) = self.decode_all()?;
        if !it.reader.rest_is_zero() {
            return Err(Error::corrupt(
                used.saturating_sub(1),
                "padding bits are not zero",
            ));
        }
        Ok(())
    }
}
