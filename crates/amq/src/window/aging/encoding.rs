//! The aging Bloom filter's `.amq` encoding (kind 5).

use super::{check, group_bits, lane_mask, AgingBloom, Rotation};
use crate::clock::{Clock, NoClock};
use crate::error::{Error, Result};
use crate::wire::{self, Kind};
use alloc::vec::Vec;

impl<C: Clock> AgingBloom<C> {
    /// Encodes as an `.amq` file.
    ///
    /// Kind 5; parameters m, k, g, seed, rotation (0 count, 1 time), its period (c or Δ),
    /// the current generation, the epoch, inserted, and the index scheme (2 for
    /// [`Indexing::Hashed`](crate::hash::Indexing::Hashed); left out for
    /// [`Indexing::Unit`](crate::hash::Indexing::Unit), so an old file is written back as it
    /// was); payload: the g per-generation counts, then ⌈m·G/64⌉ words of groups (bit j of
    /// the G-bit group i is bit i of generation j); all little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let (kind, period) = match self.rotation {
            Rotation::Count(c) => (0, c),
            Rotation::Time(d) => (1, d),
        };
        let params = [
            self.m,
            u64::from(self.k),
            u64::from(self.generations),
            self.seed,
            kind,
            period,
            u64::from(self.current),
            self.epoch,
            self.inserted,
        ];
        let len = 8 * (self.counts.len() + self.words.len());
        let mut w = wire::writer_indexed(Kind::AgingBloom, &params, self.indexing, len);
        w.words(&self.counts).words(&self.words);
        w.finish()
    }
}

impl AgingBloom<NoClock> {
    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes); give it a clock with
    /// [`with_clock`](Self::with_clock).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`] for another kind, and
    /// [`Error::Corrupt`] for an invalid shape, a payload of the wrong length, a generation
    /// over its capacity, or bits set outside the g generations.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        Self::from_container(&c)
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let (p, indexing) = c.expect_indexed(Kind::AgingBloom, 9)?;
        let small = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        let (m, k, g, seed) = (p[0], small(p[1]), small(p[2]), p[3]);
        let rotation = match p[4] {
            0 => Rotation::Count(p[5]),
            1 => Rotation::Time(p[5]),
            other => {
                return Err(Error::corrupt(
                    56,
                    alloc::format!("unknown rotation kind {other}"),
                ))
            }
        };
        check(m, k, g, rotation).map_err(|e| Error::corrupt(24, alloc::format!("{e}")))?;
        let (current, epoch, inserted) = (p[6], p[7], p[8]);
        if current >= u64::from(g) {
            return Err(Error::corrupt(
                72,
                alloc::format!("current generation {current} of {g}"),
            ));
        }
        let gb = group_bits(g);
        let bit_words = (m * u64::from(gb)).div_ceil(64);
        let want = bit_words
            .checked_add(u64::from(g))
            .and_then(|w| w.checked_mul(8));
        if want != Some(c.payload.len() as u64) {
            return Err(Error::corrupt(
                24,
                alloc::format!(
                    "m = {m}, g = {g} needs {} payload bytes, found {}",
                    want.unwrap_or(u64::MAX),
                    c.payload.len()
                ),
            ));
        }
        let all = crate::bits::le_bytes_to_words(c.payload)?;
        let (counts, words) = all.split_at(g as usize);
        if let Rotation::Count(cap) = rotation {
            if let Some(j) = counts.iter().position(|&n| n > cap) {
                return Err(Error::corrupt(
                    c.payload_offset() + 8 * j,
                    alloc::format!("generation {j} holds more than its capacity {cap}"),
                ));
            }
        }
        // Bits of the padding generations (g ≤ j < G) and past the m groups must be zero.
        let lane = lane_mask(gb);
        let mut used = 0u64;
        for j in 0..g {
            used |= lane << j;
        }
        let total = m * u64::from(gb);
        for (i, &w) in words.iter().enumerate() {
            let mut allowed = used;
            let start = i as u64 * 64;
            if start + 64 > total {
                let valid = total - start; // a multiple of G
                allowed &= if valid >= 64 {
                    u64::MAX
                } else {
                    (1u64 << valid) - 1
                };
            }
            let outside = w & !allowed;
            if outside != 0 {
                return Err(Error::corrupt(
                    c.payload_offset() + crate::bits::lowest_set_byte(g as usize + i, outside),
                    "bits set outside the generations",
                ));
            }
        }
        Ok(AgingBloom {
            m,
            k,
            generations: g,
            group_bits: gb,
            seed,
            rotation,
            words: words.to_vec(),
            current: current as u32,
            epoch,
            counts: counts.to_vec(),
            inserted,
            indexing,
            clock: NoClock,
        })
    }
}
