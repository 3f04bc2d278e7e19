//! [`AlgorandBloom`]: the contract's filter over the box bytes.

use super::{index, AvmHash, DEFAULT_BOX_BYTES, DEFAULT_K, MAX_BOX_BYTES, MAX_K};
use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item};
use alloc::vec::Vec;

/// The contract's Bloom filter: the box bytes and k.
///
/// m = 8·(box size) bits, 1 ≤ size ≤ 32,768 bytes; k ∈ 1..=4 hashes from [`AvmHash::ORDER`].
/// A name is "taken" when all k of its bits are set ([`contains`](Self::contains_name)).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AlgorandBloom {
    pub(super) bytes: Vec<u8>,
    pub(super) k: u8,
}

impl Default for AlgorandBloom {
    /// The seed contract's filter: 4,096 zero bytes, k = 2.
    fn default() -> Self {
        AlgorandBloom {
            bytes: alloc::vec![0; DEFAULT_BOX_BYTES],
            k: DEFAULT_K,
        }
    }
}

impl AlgorandBloom {
    /// The seed contract's empty filter: 4,096 bytes, k = 2 (`op.bzero(4096)`).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty filter of `box_bytes` bytes with k hashes.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if `box_bytes` is not in `1..=32,768` or k not in `1..=4`.
    pub fn with_size(box_bytes: usize, k: u8) -> Result<Self> {
        check_shape(box_bytes, k)?;
        Ok(AlgorandBloom {
            bytes: alloc::vec![0; box_bytes],
            k,
        })
    }

    /// The filter held in a box's bytes, read with k hashes.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty box (the contract would fail with "% 0") or k
    /// not in `1..=4`; [`Error::TooLarge`] for more than 32,768 bytes.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_box(bytes: &[u8], k: u8) -> Result<Self> {
        if bytes.len() > MAX_BOX_BYTES {
            return Err(Error::TooLarge {
                what: "box size in bytes",
                value: bytes.len() as u64,
                limit: MAX_BOX_BYTES as u64,
            });
        }
        check_shape(bytes.len(), k)?;
        Ok(AlgorandBloom {
            bytes: bytes.to_vec(),
            k,
        })
    }

    /// The box bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
    /// The box bytes, owned.
    #[inline]
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
    /// m, the number of bits: 8·(box size).
    #[inline]
    pub fn m(&self) -> u64 {
        self.bytes.len() as u64 * 8
    }
    /// k, the number of hash functions.
    #[inline]
    pub fn k(&self) -> u8 {
        self.k
    }
    /// The hashes in use: the first k of [`AvmHash::ORDER`].
    pub fn hashes(&self) -> &'static [AvmHash] {
        &AvmHash::ORDER[..usize::from(self.k)]
    }

    /// The k bit indices of `name` (h1, h2, ...), in the order of [`hashes`](Self::hashes).
    pub fn indices(&self, name: &[u8]) -> Vec<u64> {
        let m = self.m();
        self.hashes().iter().map(|&h| index(h, name, m)).collect()
    }

    /// `true` if all k bits of `name` are set: the contract refuses it as "Unit name already
    /// taken" (a name that was minted, or a false positive).
    pub fn contains_name(&self, name: &[u8]) -> bool {
        let m = self.m();
        self.hashes().iter().all(|&h| self.bit(index(h, name, m)))
    }

    /// Sets the k bits of `name`; `true` if some bit changed.
    pub fn insert_name(&mut self, name: &[u8]) -> bool {
        let m = self.m();
        let mut changed = false;
        for &h in self.hashes() {
            let i = index(h, name, m);
            changed |= !self.bit(i);
            self.bytes[(i / 8) as usize] |= 0x80 >> (i % 8);
        }
        changed
    }

    /// Bit `i` in AVM order. `i` must be below m.
    #[inline]
    fn bit(&self, i: u64) -> bool {
        self.bytes[(i / 8) as usize] & (0x80 >> (i % 8)) != 0
    }

    /// The number of set bits.
    pub fn bits_set(&self) -> u64 {
        self.bytes.iter().map(|b| u64::from(b.count_ones())).sum()
    }

    /// The classic expected false-positive rate after `n` distinct names,
    /// `(1 − e^(−k·n/m))^k` ([`math::fpr`](crate::math::fpr)).
    pub fn expected_fpr(&self, n: u64) -> f64 {
        crate::math::fpr(n, self.m(), u32::from(self.k))
    }
}

impl<T: Item + ?Sized> Filter<T> for AlgorandBloom {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        item.with_bytes(|b| self.contains_name(b))
    }
}

impl<T: Item + ?Sized> Insert<T> for AlgorandBloom {
    /// Never fails.
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        Ok(item.with_bytes(|b| self.insert_name(b)))
    }
}

pub(super) fn check_shape(box_bytes: usize, k: u8) -> Result<()> {
    if box_bytes == 0 || box_bytes > MAX_BOX_BYTES {
        return Err(Error::invalid(
            "box size",
            alloc::format!("must be 1 to {MAX_BOX_BYTES} bytes, got {box_bytes}"),
        ));
    }
    if k == 0 || k > MAX_K {
        return Err(Error::invalid(
            "k",
            alloc::format!("the AVM has {MAX_K} hash opcodes: k must be 1 to {MAX_K}, got {k}"),
        ));
    }
    Ok(())
}
