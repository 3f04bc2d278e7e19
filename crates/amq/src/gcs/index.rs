//! A sampled index beside a Golomb-coded set: random access into the gap stream.

use super::{Gcs, GcsHash, Params, Values};
use crate::error::{Error, Result};
use alloc::vec::Vec;

/// One sample: the value just before element `i·2^s` (0 for the first) and the bit offset of
/// that element's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Sample {
    before: u64,
    bit: u64,
}

/// The value and bit offset of every 2^s-th element of a [`Gcs`], kept beside the filter (the
/// wire bytes do not change), so that a single lookup binary-searches the samples and decodes
/// one run of at most 2^s gaps instead of the whole set.
///
/// Size: ⌈N / 2^s⌉ samples of 16 bytes. At BIP158's P = 19 (≈ 21 bits per element) and the
/// default s = 8 that is 0.5 bits per element, 2.4% of the filter.
///
/// The index is tied to one set: queries check N, P, M and the byte length of the set they are
/// given, and refuse another shape. (A different set of the very same shape is not detected;
/// build the index from the set it serves.)
///
/// # Example
/// ```
/// use amq::gcs::{Gcs, SampledIndex};
///
/// let hashes: Vec<u64> = (1..=100_000u64).map(|i| i.wrapping_mul(0x9E3779B97F4A7C15)).collect();
/// let set = Gcs::from_hashes(hashes.clone(), 19, 784_931)?;
/// let index = SampledIndex::build(&set, SampledIndex::DEFAULT_LOG2_STEP)?;
/// assert!(index.size_bytes() * 100 <= set.as_bytes().len() * 3); // ≤ 3% of the filter
/// let v = amq::gcs::hash_to_range(hashes[42], set.f());
/// assert!(index.contains_value(&set, v)?);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SampledIndex {
    params: Params,
    data_len: usize,
    log2_step: u32,
    samples: Vec<Sample>,
}

impl SampledIndex {
    /// The default sampling step, 2⁸ = 256 elements.
    pub const DEFAULT_LOG2_STEP: u32 = 8;
    /// The largest step accepted, 2³¹ elements.
    pub const MAX_LOG2_STEP: u32 = 31;

    /// Builds the index of `set` with one sample every 2^`log2_step` elements, in one decoding
    /// pass.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`s`) if `log2_step` > [`SampledIndex::MAX_LOG2_STEP`]; as
    /// [`Gcs::validate`] if the set does not decode.
    pub fn build<B: AsRef<[u8]>>(set: &Gcs<B>, log2_step: u32) -> Result<Self> {
        if log2_step > Self::MAX_LOG2_STEP {
            return Err(Error::invalid(
                "s",
                alloc::format!(
                    "the sampling step 2^s needs s ≤ {}, got {log2_step}",
                    Self::MAX_LOG2_STEP
                ),
            ));
        }
        let step_mask = (1u64 << log2_step) - 1;
        let n = set.n();
        let mut samples = Vec::with_capacity((n >> log2_step) as usize + 1);
        let mut it = set.values();
        let mut i = 0u64;
        loop {
            if i & step_mask == 0 && i < n {
                samples.push(Sample {
                    before: it.last_value(),
                    bit: it.bit_position(),
                });
            }
            if it.next_value()?.is_none() {
                break;
            }
            i += 1;
        }
        Ok(SampledIndex {
            params: set.params(),
            data_len: set.as_bytes().len(),
            log2_step,
            samples,
        })
    }

    /// s: one sample every 2^s elements.
    #[inline]
    pub fn log2_step(&self) -> u32 {
        self.log2_step
    }

    /// The number of samples, ⌈N / 2^s⌉.
    #[inline]
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// `true` for the index of an empty set.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The index's size in bytes: 16 per sample (a 64-bit value and a 64-bit bit offset).
    #[inline]
    pub fn size_bytes(&self) -> usize {
        self.samples.len() * 16
    }

    fn check<B: AsRef<[u8]>>(&self, set: &Gcs<B>) -> Result<()> {
        let p = set.params();
        for (field, left, right) in [
            ("n", self.params.n(), p.n()),
            ("p", u64::from(self.params.p()), u64::from(p.p())),
            ("m", self.params.m(), p.m()),
            ("bytes", self.data_len as u64, set.as_bytes().len() as u64),
        ] {
            if left != right {
                return Err(Error::ShapeMismatch { field, left, right });
            }
        }
        Ok(())
    }

    /// `true` if `value` (in `[0, F)`) is one of the set's values: a binary search over the
    /// samples, then a decode of one run.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if `set` is not the set the index was built from (N, P, M or
    /// byte length differ); as [`Gcs::validate`] for the run decoded.
    pub fn contains_value<B: AsRef<[u8]>>(&self, set: &Gcs<B>, value: u64) -> Result<bool> {
        self.check(set)?;
        if self.samples.is_empty() {
            return Ok(false);
        }
        // the last sample whose preceding value is below `value`: every element at or after
        // the next sample is ≥ its `before`, which is ≥ value
        let j = self
            .samples
            .partition_point(|s| s.before < value)
            .saturating_sub(1);
        let s = self.samples[j];
        let first = (j as u64) << self.log2_step;
        let mut it = Values::resume(
            set.params(),
            set.as_bytes(),
            s.bit,
            s.before,
            set.n() - first,
        )?;
        while let Some(v) = it.next_value()? {
            if v >= value {
                return Ok(v == value);
            }
        }
        Ok(false)
    }

    /// `true` if `item` may be in the set, through the index.
    ///
    /// # Errors
    /// As [`SampledIndex::contains_value`].
    pub fn contains<B: AsRef<[u8]>, H: GcsHash + ?Sized>(
        &self,
        set: &Gcs<B>,
        item: &[u8],
        hash: &H,
    ) -> Result<bool> {
        self.contains_value(set, set.map_item(item, hash))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_agrees_with_streaming_lookup() {
        let hashes: Vec<u64> = (0..5_000u64)
            .map(|i| (i / 3).wrapping_mul(0x9E37_79B9_7F4A_7C15)) // triples: zero gaps
            .collect();
        let set = Gcs::from_hashes(hashes, 6, 64).unwrap();
        let values = set.decode().unwrap();
        for s in [0, 1, 4, 8, 31] {
            let index = SampledIndex::build(&set, s).unwrap();
            assert_eq!(index.len() as u64, set.n().div_ceil(1 << s));
            for probe in (0..set.f()).step_by(997).chain(values.iter().copied()) {
                assert_eq!(
                    index.contains_value(&set, probe).unwrap(),
                    values.binary_search(&probe).is_ok(),
                    "s = {s}, probe {probe}"
                );
            }
        }
        assert!(SampledIndex::build(&set, 32).is_err());
        let other = Gcs::from_hashes(alloc::vec![1, 2, 3], 6, 64).unwrap();
        let index = SampledIndex::build(&set, 8).unwrap();
        assert!(matches!(
            index.contains_value(&other, 0),
            Err(Error::ShapeMismatch { field: "n", .. })
        ));
    }
}
