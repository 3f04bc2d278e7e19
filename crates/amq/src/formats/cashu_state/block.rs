//! Revision B's block: a Bloom bitmap of 2^b bits, 16 positions per element.

use super::element::Words;
use crate::error::{Error, Result};
use alloc::format;
use alloc::vec::Vec;

/// The smallest block width b (a 4-byte bitmap).
pub const MIN_B: u8 = 5;
/// The largest block width b (an 8 MiB bitmap).
pub const MAX_B: u8 = 26;
/// The positions an element sets (the k of a Bloom filter): one per word.
pub const K: u32 = 16;

/// The spec's integer form of ln 2 / 16: `capacity = ⌊2^b · CAPACITY_NUM / CAPACITY_DEN⌋`.
const CAPACITY_NUM: u128 = 6_931_471_805_599_453;
const CAPACITY_DEN: u128 = 160_000_000_000_000_000;

pub(crate) fn check_b(b: u8) -> Result<()> {
    if (MIN_B..=MAX_B).contains(&b) {
        Ok(())
    } else {
        Err(Error::invalid(
            "b",
            format!("the block width must be between {MIN_B} and {MAX_B}, got {b}"),
        ))
    }
}

/// The capacity of a block of width b: `⌊2^b · 6931471805599453 / 160000000000000000⌋`
/// insertions, `2^b · ln2 / 16` rounded down, where the expected fill is about one half.
///
/// A mint seals a block when its count of insertion operations reaches this, and never
/// lets the count exceed it. Integer arithmetic, as the spec fixes it.
///
/// # Errors
/// [`Error::InvalidParameter`] (`b`) if b is outside [`MIN_B`]`..=`[`MAX_B`].
///
/// # Example
/// ```
/// use amq::formats::cashu_state::capacity;
/// assert_eq!(capacity(20)?, 45_426); // a 128 KiB block
/// assert_eq!(capacity(5)?, 1);
/// assert!(capacity(27).is_err());
/// # Ok::<(), amq::Error>(())
/// ```
pub fn capacity(b: u8) -> Result<u64> {
    check_b(b)?;
    Ok(capacity_unchecked(b))
}

pub(crate) fn capacity_unchecked(b: u8) -> u64 {
    ((1u128 << b) * CAPACITY_NUM / CAPACITY_DEN) as u64
}

/// The smallest width b in [`MIN_B`]`..=`[`MAX_B`] whose [`capacity`] holds `count`
/// insertions: the width a block sealed on timeout folds to, and the spec's sizing rule (the
/// smallest b whose capacity holds a day of a kind). `None` above `capacity(26)`.
///
/// # Example
/// ```
/// use amq::formats::cashu_state::smallest_b;
/// assert_eq!(smallest_b(0), Some(5)); // an empty block still seals, at 4 bytes
/// assert_eq!(smallest_b(100), Some(12));
/// assert_eq!(smallest_b(45_426), Some(20));
/// assert_eq!(smallest_b(45_427), Some(21));
/// assert_eq!(smallest_b(3_000_000), None);
/// ```
pub fn smallest_b(count: u64) -> Option<u8> {
    (MIN_B..=MAX_B).find(|&b| capacity_unchecked(b) >= count)
}

/// The false-positive probability the spec estimates for a block of fill f (the fraction of
/// its bits set): `f^16`. For a fixed bitmap it is exact for a random non-member, whose 16
/// positions are independent and uniform.
///
/// # Example
/// ```
/// assert_eq!(amq::formats::cashu_state::fpr_at_fill(0.5), 1.0 / 65_536.0);
/// ```
pub fn fpr_at_fill(fill: f64) -> f64 {
    let f2 = fill * fill;
    let f4 = f2 * f2;
    let f8 = f4 * f4;
    f8 * f8
}

/// The expected fill after `count` insertions of distinct elements whose positions do not
/// collide, `1 − e^(−16·count / 2^b)`: the spec's saturation model (0.5 at capacity). A wallet
/// uses the observed fill ([`Block::fill`]) instead.
///
/// # Errors
/// [`Error::InvalidParameter`] (`b`) if b is outside [`MIN_B`]`..=`[`MAX_B`].
pub fn expected_fill(b: u8, count: u64) -> Result<f64> {
    check_b(b)?;
    Ok(1.0 - libm::exp(-(f64::from(K) * count as f64) / (1u64 << b) as f64))
}

/// A block: a bitmap of 2^b bits (2^b / 8 bytes), b in [`MIN_B`]`..=`[`MAX_B`], over bytes `B`
/// (owned `Vec<u8>`, or borrowed `&[u8]` to test a fetched body in place).
///
/// **Layout.** Position p is bit `0x80 >> (p & 7)` of byte `p >> 3`: position 0 is the most
/// significant bit of byte 0. The bytes are the wire form (`application/octet-stream`), and b
/// is their length: nothing else is sent.
///
/// **Insert and test.** An element's 16 [`Words`] give positions `w_i >> (32 − b)`. Inserting
/// sets them (fewer than 16 distinct bits when some collide); a test reads them in order and
/// stops at the first clear bit. A block has no false negatives.
///
/// **Fold.** [`Block::fold`] narrows to b' ≤ b: bit j of the result is the OR of the 2^(b−b')
/// bits it covers, the bit a position shifted right by b − b' selects, so the fold equals the
/// block built at b' from the same elements.
///
/// Source: cashubtc/nuts PR #433, revision B, "Positions" and "Blocks".
///
/// # Example
/// ```
/// use amq::formats::cashu_state::{Block, Element, ProofState};
/// let y = [2u8; 33];
/// let spent = Element::ProofState { y: &y, state: ProofState::Spent }.words();
/// let pending = Element::ProofState { y: &y, state: ProofState::Pending }.words();
/// let mut block = Block::new(12)?;
/// block.insert(&spent);
/// assert!(block.contains(&spent));
/// assert!(!block.contains(&pending)); // except with probability fill^16
/// let small = block.fold(8)?;
/// assert!(small.contains(&spent));
/// assert_eq!(small.as_bytes().len(), 32);
/// // a fetched body is tested in place
/// let received = Block::from_bytes(small.as_bytes())?;
/// assert_eq!(received.b(), 8);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Block<B = Vec<u8>> {
    b: u8,
    bits: B,
}

impl Block<Vec<u8>> {
    /// An empty block of width b (all bits zero, as a block opens).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`b`) if b is outside [`MIN_B`]`..=`[`MAX_B`], or if the
    /// bitmap cannot be allocated.
    pub fn new(b: u8) -> Result<Self> {
        check_b(b)?;
        Ok(Block {
            b,
            bits: zeroed(1 << (b - 3))?,
        })
    }

    /// The bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bits
    }
}

/// `len` zero bytes, allocated fallibly.
fn zeroed(len: usize) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::invalid("b", format!("cannot allocate a block of {len} bytes")))?;
    v.resize(len, 0);
    Ok(v)
}

/// The width b of a body of `len` bytes, if `len` is 2^b / 8 for b in [`MIN_B`]`..=`[`MAX_B`].
///
/// # Example
/// ```
/// use amq::formats::cashu_state::width_of;
/// assert_eq!(width_of(4 << 20), Some(25)); // 4 MiB
/// assert_eq!(width_of(4_194_300), None);
/// ```
pub fn width_of(len: usize) -> Option<u8> {
    if len.is_power_of_two() {
        let b = len.trailing_zeros() + 3;
        if (u32::from(MIN_B)..=u32::from(MAX_B)).contains(&b) {
            return Some(b as u8);
        }
    }
    None
}

impl<B: AsRef<[u8]>> Block<B> {
    /// Wraps a received body; b is its length, which must be 2^b / 8 bytes for some b in
    /// [`MIN_B`]`..=`[`MAX_B`] (4 bytes to 8 MiB). Every bit pattern is a valid block.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for any other length: the spec has the wallet reject the body and
    /// treat the height as not yet obtained.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: B) -> Result<Self> {
        let len = bytes.as_ref().len();
        match width_of(len) {
            Some(b) => Ok(Block { b, bits: bytes }),
            None => Err(Error::corrupt(
                0,
                format!(
                    "a block is 2^b/8 bytes for b in {MIN_B}..={MAX_B} (4 B to 8 MiB), got {len} bytes"
                ),
            )),
        }
    }

    /// b, the base-2 logarithm of the number of bits.
    #[inline]
    pub fn b(&self) -> u8 {
        self.b
    }

    /// The number of bits, 2^b.
    #[inline]
    pub fn bit_len(&self) -> u64 {
        1 << self.b
    }

    /// The wire bytes (2^b / 8).
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        self.bits.as_ref()
    }

    /// Whether position p (below 2^b) is set.
    #[inline]
    pub fn get(&self, p: u32) -> bool {
        self.as_bytes()
            .get((p >> 3) as usize)
            .is_some_and(|&byte| byte & (0x80 >> (p & 7)) != 0)
    }

    /// The index i of the first word whose position is clear, reading `w_0` first: the test
    /// stops there. `None` if all 16 are set ("maybe present").
    #[inline]
    pub fn first_clear(&self, words: &Words) -> Option<usize> {
        let bytes = self.as_bytes();
        let shift = 32 - u32::from(self.b);
        words.as_array().iter().position(|&w| {
            let p = w >> shift;
            bytes
                .get((p >> 3) as usize)
                .is_none_or(|&byte| byte & (0x80 >> (p & 7)) == 0)
        })
    }

    /// `true` if the element whose words these are may have been inserted ("maybe
    /// present"), `false` if it definitely was not. Stops at the first clear bit.
    #[inline]
    pub fn contains(&self, words: &Words) -> bool {
        self.first_clear(words).is_none()
    }

    /// [`contains`](Self::contains) for an element `E` (computes its words: two SHA-256
    /// compressions; keep the [`Words`] to test many blocks).
    pub fn contains_element(&self, e: &[u8; 32]) -> bool {
        self.contains(&Words::from_element(e))
    }

    /// The number of bits set.
    pub fn popcount(&self) -> u64 {
        let bytes = self.as_bytes();
        let chunks = bytes.chunks_exact(8);
        let tail: u64 = chunks
            .remainder()
            .iter()
            .map(|b| u64::from(b.count_ones()))
            .sum();
        chunks
            .map(|c| {
                let mut w = [0u8; 8];
                w.copy_from_slice(c);
                u64::from(u64::from_ne_bytes(w).count_ones())
            })
            .sum::<u64>()
            + tail
    }

    /// f, the fraction of bits set: popcount / 2^b.
    pub fn fill(&self) -> f64 {
        self.popcount() as f64 / self.bit_len() as f64
    }

    /// The estimated false-positive probability of a test, `f^16` ([`fpr_at_fill`]).
    pub fn fpr(&self) -> f64 {
        fpr_at_fill(self.fill())
    }

    /// An estimate of the number of distinct insertions from the popcount X:
    /// `−(2^b / 16) · ln(1 − X / 2^b)` (the expected fill solved for the count; repeats and
    /// noise are not told apart). `None` when every bit is set.
    pub fn count_estimate(&self) -> Option<f64> {
        let m = self.bit_len() as f64;
        let x = self.popcount() as f64;
        (x < m).then(|| -(m / f64::from(K)) * libm::log1p(-x / m))
    }

    /// The block folded to width `to` ≤ b: bit j of the result is the OR of bits
    /// `j·2^(b−to) .. (j+1)·2^(b−to)`. Every element in this block is in the result, tested
    /// with the same words. Folding to b itself copies.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`b`) if `to` is below [`MIN_B`] or above this block's b.
    pub fn fold(&self, to: u8) -> Result<Block<Vec<u8>>> {
        if to > self.b {
            return Err(Error::invalid(
                "b",
                format!(
                    "a block folds to a smaller width: b' = {to} is above b = {}",
                    self.b
                ),
            ));
        }
        let mut out = Block::new(to)?;
        let shift = u32::from(self.b - to);
        for (i, &byte) in self.as_bytes().iter().enumerate() {
            let mut rest = byte;
            while rest != 0 {
                let j = rest.leading_zeros();
                rest &= !(0x80 >> j);
                out.set(((i as u32) * 8 + j) >> shift);
            }
        }
        Ok(out)
    }
}

impl<B: AsRef<[u8]> + AsMut<[u8]>> Block<B> {
    /// Inserts an element: sets its 16 positions. Bits are never cleared.
    ///
    /// A mint counts every call as one insertion operation, whatever it sets (see
    /// [`Sequence`](super::Sequence)); the block itself keeps no count.
    #[inline]
    pub fn insert(&mut self, words: &Words) {
        let shift = 32 - u32::from(self.b);
        for &w in words.as_array() {
            self.set(w >> shift);
        }
    }

    /// Sets position p (below 2^b; a position outside the bitmap is ignored).
    #[inline]
    pub fn set(&mut self, p: u32) {
        if let Some(byte) = self.bits.as_mut().get_mut((p >> 3) as usize) {
            *byte |= 0x80 >> (p & 7);
        }
    }
}

impl<B: AsRef<[u8]>> crate::filter::Filter<Words> for Block<B> {
    #[inline]
    fn contains(&self, words: &Words) -> bool {
        Block::contains(self, words)
    }
}
