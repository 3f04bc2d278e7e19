//! Decoding a set's values in order, one Golomb-Rice code at a time.

use super::bitio::BitReader;
use super::Params;
use crate::error::{Error, Result};

/// The values of a [`Gcs`](super::Gcs) in ascending order, decoded one Golomb-Rice code at a time
/// ([`Gcs::values`](super::Gcs::values)).
#[derive(Debug, Clone)]
pub struct Values<'a> {
    pub(super) reader: BitReader<'a>,
    p: u32,
    f: u64,
    remaining: u64,
    value: u64,
    failed: bool,
}

impl<'a> Values<'a> {
    pub(super) fn new(params: Params, data: &'a [u8]) -> Self {
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
    pub(super) fn resume(
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
