//! The split block filter in the `.amq` container (kind 11).

use super::{Block512, SplitBlockBloomFilter};
use crate::error::{Error, Result};
use crate::math::{BLOCK_BITS, SPLIT_BLOCK_K, SPLIT_BLOCK_MAX_BLOCKS};
use crate::wire::{self, Kind};
use alloc::vec::Vec;

impl SplitBlockBloomFilter {
    /// Encodes the filter as an `.amq` file: kind 11
    /// ([`Kind::SplitBlockBloom`]), parameters m, k (8), seed and inserted; payload the
    /// blocks in order, each eight little-endian u64 lanes, lane 0 first (bit b of a lane is
    /// `(lane >> b) & 1`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let params = [self.m(), u64::from(SPLIT_BLOCK_K), self.seed, self.inserted];
        let mut w = wire::Writer::new(Kind::SplitBlockBloom, &params, self.size_bytes() as usize);
        super::tables::write_le(&self.blocks, w.buffer());
        w.finish()
    }

    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`], and [`Error::Corrupt`] when the
    /// parameters and payload disagree (m not a whole number of blocks, k not 8, a payload of
    /// another length than m/8 bytes); [`Error::OutOfMemory`] if the blocks cannot be
    /// allocated.
    ///
    /// # Panics
    /// Never, for any input.
    ///
    /// # Example
    /// ```
    /// use amq::{Filter, Insert, SplitBlockBloomFilter};
    /// let mut f = SplitBlockBloomFilter::new(4096, 7)?;
    /// f.insert("apple")?;
    /// let bytes = f.to_bytes();
    /// let g = SplitBlockBloomFilter::from_bytes(&bytes)?;
    /// assert!(g.contains("apple") && g == f);
    /// assert!(SplitBlockBloomFilter::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_container(&wire::decode(bytes)?)
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let p = c.expect(Kind::SplitBlockBloom, 4)?;
        let (m, k, seed, inserted) = (p[0], p[1], p[2], p[3]);
        if m == 0 || m % BLOCK_BITS != 0 || m / BLOCK_BITS > SPLIT_BLOCK_MAX_BLOCKS {
            return Err(Error::corrupt(
                24,
                alloc::format!("m = {m} is not 1 to {SPLIT_BLOCK_MAX_BLOCKS} blocks of 512 bits"),
            ));
        }
        if k != u64::from(SPLIT_BLOCK_K) {
            return Err(Error::corrupt(
                32,
                alloc::format!("k = {k}, a split block filter has k = {SPLIT_BLOCK_K}"),
            ));
        }
        if m / 8 != c.payload.len() as u64 {
            return Err(Error::corrupt(
                24,
                alloc::format!(
                    "m = {m} bits needs {} payload bytes, found {}",
                    m / 8,
                    c.payload.len()
                ),
            ));
        }
        // the payload is present, so its length (checked above) bounds the allocation
        let blocks: Vec<Block512> = super::tables::from_le_bytes(c.payload, "m")?;
        Ok(Self::from_blocks(blocks, seed, inserted))
    }
}
