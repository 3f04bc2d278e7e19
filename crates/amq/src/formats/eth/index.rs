//! [`LogsBloomIndex`]: the blooms of a run of blocks, bit-sliced.

use super::{InputBits, LogsBloom, LOGS_BLOOM_BITS, LOGS_BLOOM_BYTES};
use crate::error::{Error, Result};
use alloc::vec::Vec;
use core::ops::{Bound, RangeBounds};

/// Magic of a serialised [`LogsBloomIndex`]: `ELBI` ("Ethereum logsBloom index").
pub const INDEX_MAGIC: [u8; 4] = *b"ELBI";
/// Format version of a serialised [`LogsBloomIndex`].
pub const INDEX_VERSION: u32 = 1;
const HEADER: usize = 24;
/// Bytes per row word across all 2048 rows: 2048 · 8.
const ROW_WORDS_BYTES: usize = LOGS_BLOOM_BITS * 8;

/// A bit-sliced index over the logsBloom of a run of consecutive blocks: for each of the 2048
/// bit positions b, a bitset over the blocks (bit j of row b is bit b of block
/// `first_block + j`'s bloom), as geth's former `core/bloombits` kept them.
///
/// A query for one input reads the 3 rows of its bits and ANDs them, 64 blocks per word,
/// instead of reading every bloom; k inputs read 3k rows. The index takes as much memory as
/// the blooms themselves (256 bytes per block, rounded up to 64 blocks). Blocks are
/// appended one at a time with [`push`](Self::push).
///
/// # Byte format ([`to_bytes`](Self::to_bytes), version 1)
/// All integers little-endian. With n blocks and W = ⌈n/64⌉ words per row:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | magic `ELBI` ([`INDEX_MAGIC`]) |
/// | 4 | 4 | version, 1 ([`INDEX_VERSION`]) |
/// | 8 | 8 | `first_block`, the number of the block in column 0 |
/// | 16 | 8 | n, the number of blocks |
/// | 24 | 2048 · 8W | the rows: row b (bit position b, `0..2048`) is W 64-bit words at offset 24 + 8Wb; block `first_block + j` is bit `j % 64` (least significant first) of word `j / 64`; bits past n are zero |
/// | 24 + 16384W | 8 | XXH3-64 (seed 0) of every byte before it |
///
/// # Example
/// ```
/// use amq::formats::eth::{InputBits, LogsBloom, LogsBloomIndex};
/// let mut index = LogsBloomIndex::new(1_000);
/// for block in 0..200u32 {
///     let mut bloom = LogsBloom::new();
///     bloom.accrue(&block.to_be_bytes());
///     index.push(&bloom)?;
/// }
/// let query = [InputBits::from_input(&7u32.to_be_bytes())];
/// let hits: Vec<u64> = index.candidates(&query).collect();
/// assert!(hits.contains(&1_007)); // block 1,007 holds it; others may be false positives
/// let again = LogsBloomIndex::from_bytes(&index.to_bytes())?;
/// assert_eq!(again, index);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogsBloomIndex {
    first_block: u64,
    blocks: u64,
    /// 2048 rows of ⌈blocks/64⌉ words each.
    rows: Vec<Vec<u64>>,
}

impl LogsBloomIndex {
    /// An empty index whose first pushed bloom is block `first_block`.
    pub fn new(first_block: u64) -> Self {
        LogsBloomIndex {
            first_block,
            blocks: 0,
            rows: (0..LOGS_BLOOM_BITS).map(|_| Vec::new()).collect(),
        }
    }

    /// An empty index with room for `blocks` blocks before it reallocates: 2,048 rows of
    /// ⌈blocks/64⌉ 64-bit words, 256 bytes a block (one bit in each row).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) if that memory cannot be reserved.
    ///
    /// ```
    /// use amq::formats::eth::LogsBloomIndex;
    ///
    /// let index = LogsBloomIndex::with_capacity(19_000_000, 10_000)?;
    /// assert_eq!(index.end_block(), 19_000_000);
    /// assert!(LogsBloomIndex::with_capacity(0, u64::MAX).is_err());
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn with_capacity(first_block: u64, blocks: u64) -> crate::Result<Self> {
        let words = blocks.div_ceil(64);
        let mut index = LogsBloomIndex::new(first_block);
        for row in &mut index.rows {
            usize::try_from(words)
                .ok()
                .and_then(|w| row.try_reserve_exact(w).ok())
                .ok_or_else(|| {
                    crate::Error::out_of_memory::<u64>(
                        "the logsBloom index",
                        words.saturating_mul(LOGS_BLOOM_BITS as u64),
                    )
                })?;
        }
        Ok(index)
    }

    /// The number of the first block.
    #[inline]
    pub fn first_block(&self) -> u64 {
        self.first_block
    }

    /// One past the number of the last block (`first_block + len`).
    #[inline]
    pub fn end_block(&self) -> u64 {
        self.first_block + self.blocks
    }

    /// The number of blocks held.
    #[inline]
    pub fn len(&self) -> u64 {
        self.blocks
    }

    /// `true` if no block was pushed.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.blocks == 0
    }

    /// Row b: the bitset over blocks of bit position b (`0..2048`), as 64-bit words.
    ///
    /// # Panics
    /// If `b >= 2048`.
    pub fn row(&self, b: usize) -> &[u64] {
        &self.rows[b]
    }

    /// Appends the bloom of block `end_block()`; returns that block's number.
    ///
    /// # Errors
    /// [`Error::Full`] if the block number would pass `u64::MAX`; nothing is added.
    pub fn push(&mut self, bloom: &LogsBloom) -> Result<u64> {
        let number = self
            .first_block
            .checked_add(self.blocks)
            .filter(|n| *n < u64::MAX)
            .ok_or(Error::Full {
                items: self.blocks,
                capacity: u64::MAX - self.first_block,
            })?;
        let j = self.blocks;
        if j.is_multiple_of(64) {
            for row in &mut self.rows {
                row.push(0);
            }
        }
        let w = (j / 64) as usize;
        let bit = 1u64 << (j % 64);
        for (i, &byte) in bloom.as_bytes().iter().enumerate() {
            let mut x = byte;
            while x != 0 {
                let b = (LOGS_BLOOM_BYTES - 1 - i) * 8 + x.trailing_zeros() as usize;
                self.rows[b][w] |= bit;
                x &= x - 1;
            }
        }
        self.blocks += 1;
        Ok(number)
    }

    /// Rebuilds the bloom of block `number` from the 2048 rows (`None` outside the index).
    pub fn bloom(&self, number: u64) -> Option<LogsBloom> {
        let j = number.checked_sub(self.first_block)?;
        if j >= self.blocks {
            return None;
        }
        let (w, s) = ((j / 64) as usize, j % 64);
        let mut bytes = [0u8; LOGS_BLOOM_BYTES];
        for (b, row) in self.rows.iter().enumerate() {
            if (row[w] >> s) & 1 == 1 {
                bytes[LOGS_BLOOM_BYTES - 1 - b / 8] |= 1 << (b % 8);
            }
        }
        Some(LogsBloom::from_bytes(bytes))
    }

    /// The blocks whose bloom may hold every input, in increasing order. With no inputs,
    /// every block.
    ///
    /// Reads the 3 rows of each input (fewer when bits coincide), one 64-block word at a
    /// time.
    pub fn candidates(&self, inputs: &[InputBits]) -> Candidates<'_> {
        self.candidates_in(inputs, ..)
    }

    /// As [`candidates`](Self::candidates), only for block numbers within `range` (clamped
    /// to the index).
    ///
    /// # Example
    /// ```
    /// use amq::formats::eth::{InputBits, LogsBloom, LogsBloomIndex};
    /// let mut index = LogsBloomIndex::new(10);
    /// let mut bloom = LogsBloom::new();
    /// bloom.accrue(b"x");
    /// for _ in 0..100 {
    ///     index.push(&bloom)?;
    /// }
    /// let x = [InputBits::from_input(b"x")];
    /// assert_eq!(index.candidates_in(&x, 50..53).collect::<Vec<_>>(), [50, 51, 52]);
    /// assert_eq!(index.candidates_in(&x, 105..).count(), 5);
    /// assert_eq!(index.candidates_in(&x, ..10).count(), 0);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn candidates_in(
        &self,
        inputs: &[InputBits],
        range: impl RangeBounds<u64>,
    ) -> Candidates<'_> {
        let lo = match range.start_bound() {
            Bound::Included(&s) => s,
            Bound::Excluded(&s) => s.saturating_add(1),
            Bound::Unbounded => 0,
        };
        let hi = match range.end_bound() {
            Bound::Included(&e) => e.saturating_add(1),
            Bound::Excluded(&e) => e,
            Bound::Unbounded => u64::MAX,
        };
        let start = lo.saturating_sub(self.first_block).min(self.blocks);
        let end = hi
            .saturating_sub(self.first_block)
            .min(self.blocks)
            .max(start);
        let mut bits: Vec<u16> = inputs.iter().flat_map(|i| i.bits()).collect();
        bits.sort_unstable();
        bits.dedup();
        let rows = bits
            .iter()
            .map(|&b| self.rows[b as usize].as_slice())
            .collect();
        Candidates {
            rows,
            first_block: self.first_block,
            next: start,
            end,
            word: 0,
            word_base: 0,
        }
    }

    /// Releases spare capacity.
    pub fn shrink_to_fit(&mut self) {
        for row in &mut self.rows {
            row.shrink_to_fit();
        }
    }

    /// Size of the rows in bytes (2048 · 8 · ⌈n/64⌉).
    pub fn size_bytes(&self) -> u64 {
        self.blocks.div_ceil(64) * ROW_WORDS_BYTES as u64
    }

    /// Serialises the index in the byte format of the [type docs](Self).
    pub fn to_bytes(&self) -> Vec<u8> {
        let words = self.blocks.div_ceil(64) as usize;
        let mut out = Vec::with_capacity(HEADER + ROW_WORDS_BYTES * words + 8);
        out.extend_from_slice(&INDEX_MAGIC);
        out.extend_from_slice(&INDEX_VERSION.to_le_bytes());
        out.extend_from_slice(&self.first_block.to_le_bytes());
        out.extend_from_slice(&self.blocks.to_le_bytes());
        for row in &self.rows {
            for word in row {
                out.extend_from_slice(&word.to_le_bytes());
            }
        }
        let sum = crate::hash::checksum64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Decodes the byte format of the [type docs](Self).
    ///
    /// The block count is checked against the bytes actually present before anything is
    /// allocated, so the memory used never exceeds the input's size.
    ///
    /// # Errors
    /// [`Error::Truncated`], [`Error::BadMagic`], [`Error::UnsupportedVersion`],
    /// [`Error::TooLarge`] (a block count whose rows cannot exist), [`Error::Corrupt`]
    /// (trailing bytes, block numbers past `u64::MAX`, bits set past the last block) or
    /// [`Error::ChecksumMismatch`].
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < 4 {
            return Err(Error::Truncated {
                what: "magic",
                offset: 0,
                needed: 4,
                available: bytes.len(),
            });
        }
        if bytes[..4] != INDEX_MAGIC {
            return Err(Error::BadMagic {
                found: [bytes[0], bytes[1], bytes[2], bytes[3]],
            });
        }
        if bytes.len() < HEADER {
            return Err(Error::Truncated {
                what: "header",
                offset: 0,
                needed: HEADER,
                available: bytes.len(),
            });
        }
        let u64_at = |at: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(b)
        };
        let version = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        if version != INDEX_VERSION {
            return Err(Error::UnsupportedVersion {
                found: version,
                supported: INDEX_VERSION,
            });
        }
        let first_block = u64_at(8);
        let blocks = u64_at(16);
        if first_block.checked_add(blocks).is_none() {
            return Err(Error::corrupt(
                16,
                alloc::format!("{blocks} blocks from block {first_block} pass u64::MAX"),
            ));
        }
        let words = blocks.div_ceil(64);
        let limit = ((isize::MAX as u64) - (HEADER as u64 + 8)) / ROW_WORDS_BYTES as u64;
        if words > limit {
            return Err(Error::TooLarge {
                what: "block count",
                value: blocks,
                limit: limit * 64,
            });
        }
        let words = words as usize;
        let total = HEADER + ROW_WORDS_BYTES * words + 8;
        if bytes.len() < total {
            return Err(Error::Truncated {
                what: "rows and checksum",
                offset: HEADER,
                needed: total - HEADER,
                available: bytes.len() - HEADER,
            });
        }
        if bytes.len() > total {
            return Err(Error::corrupt(
                total,
                alloc::format!("{} bytes after the checksum", bytes.len() - total),
            ));
        }
        let stored = u64_at(total - 8);
        let computed = crate::hash::checksum64(&bytes[..total - 8]);
        if stored != computed {
            return Err(Error::ChecksumMismatch { stored, computed });
        }
        let tail = blocks % 64;
        let mut rows = Vec::with_capacity(LOGS_BLOOM_BITS);
        for b in 0..LOGS_BLOOM_BITS {
            let at = HEADER + 8 * words * b;
            let row: Vec<u64> = (0..words).map(|w| u64_at(at + 8 * w)).collect();
            if tail != 0 && row[words - 1] >> tail != 0 {
                return Err(Error::corrupt(
                    at + 8 * (words - 1),
                    alloc::format!("row {b} has bits set past block {blocks}"),
                ));
            }
            rows.push(row);
        }
        Ok(LogsBloomIndex {
            first_block,
            blocks,
            rows,
        })
    }
}

impl Extend<LogsBloom> for LogsBloomIndex {
    /// Pushes every bloom.
    ///
    /// # Panics
    /// If a block number would pass `u64::MAX` (see [`LogsBloomIndex::push`]).
    fn extend<I: IntoIterator<Item = LogsBloom>>(&mut self, iter: I) {
        for bloom in iter {
            self.push(&bloom).expect("block numbers past u64::MAX");
        }
    }
}

/// The block numbers a [`LogsBloomIndex`] query may match, in increasing order; see
/// [`LogsBloomIndex::candidates`].
#[derive(Debug, Clone)]
pub struct Candidates<'a> {
    rows: Vec<&'a [u64]>,
    first_block: u64,
    /// Next block offset (from `first_block`) whose word has not been loaded.
    next: u64,
    end: u64,
    /// Remaining matches of the loaded word, as bits.
    word: u64,
    word_base: u64,
}

impl Iterator for Candidates<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        loop {
            if self.word != 0 {
                let t = u64::from(self.word.trailing_zeros());
                self.word &= self.word - 1;
                return Some(self.first_block + self.word_base + t);
            }
            if self.next >= self.end {
                return None;
            }
            let w = (self.next / 64) as usize;
            let mut word = u64::MAX;
            for row in &self.rows {
                word &= row[w];
            }
            let base = w as u64 * 64;
            // keep bits of [next, end) within this word
            word &= u64::MAX << (self.next - base);
            let end_in_word = self.end - base;
            if end_in_word < 64 {
                word &= (1u64 << end_in_word) - 1;
            }
            self.word = word;
            self.word_base = base;
            self.next = base + 64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bloom_of(x: u64) -> LogsBloom {
        let mut b = LogsBloom::new();
        b.accrue(&x.to_le_bytes());
        b
    }

    #[test]
    fn rows_rebuild_every_bloom() {
        let mut index = LogsBloomIndex::new(5);
        let blooms: Vec<LogsBloom> = (0..130).map(bloom_of).collect();
        for (i, b) in blooms.iter().enumerate() {
            assert_eq!(index.push(b).unwrap(), 5 + i as u64);
        }
        for (i, b) in blooms.iter().enumerate() {
            assert_eq!(index.bloom(5 + i as u64).as_ref(), Some(b));
        }
        assert_eq!(index.bloom(4), None);
        assert_eq!(index.bloom(135), None);
    }

    #[test]
    fn candidates_equal_a_scan() {
        let mut index = LogsBloomIndex::new(0);
        let blooms: Vec<LogsBloom> = (0..300u64)
            .map(|i| {
                let mut b = LogsBloom::new();
                for j in 0..(i % 40) {
                    b.accrue(&(i * 1000 + j).to_le_bytes());
                }
                b
            })
            .collect();
        for b in &blooms {
            index.push(b).unwrap();
        }
        for q in 0..200u64 {
            let inputs = [InputBits::from_input(&q.to_le_bytes())];
            let want: Vec<u64> = (0..300u64)
                .filter(|&j| blooms[j as usize].contains_bits(inputs[0]))
                .collect();
            assert_eq!(index.candidates(&inputs).collect::<Vec<_>>(), want);
            let want_range: Vec<u64> = want
                .iter()
                .copied()
                .filter(|j| (63..129).contains(j))
                .collect();
            assert_eq!(
                index.candidates_in(&inputs, 63..129).collect::<Vec<_>>(),
                want_range
            );
        }
        assert_eq!(index.candidates(&[]).count(), 300);
    }

    #[test]
    fn decoding_refuses_bad_bytes() {
        let mut index = LogsBloomIndex::new(7);
        for i in 0..70 {
            index.push(&bloom_of(i)).unwrap();
        }
        let bytes = index.to_bytes();
        assert_eq!(LogsBloomIndex::from_bytes(&bytes).unwrap(), index);
        for cut in [0, 3, 4, 23, 24, bytes.len() - 1] {
            assert!(LogsBloomIndex::from_bytes(&bytes[..cut]).is_err());
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            LogsBloomIndex::from_bytes(&longer),
            Err(Error::Corrupt { .. })
        ));
        let mut flipped = bytes.clone();
        flipped[100] ^= 1;
        assert!(matches!(
            LogsBloomIndex::from_bytes(&flipped),
            Err(Error::ChecksumMismatch { .. })
        ));
        // a huge block count with few bytes is refused before any allocation
        let mut huge = bytes[..HEADER].to_vec();
        huge[16..24].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
        huge.extend_from_slice(&[0; 8]);
        assert!(LogsBloomIndex::from_bytes(&huge).is_err());
        // a bit past the last block, with a valid checksum
        let mut tail = bytes[..bytes.len() - 8].to_vec();
        let last_word_of_row0 = HEADER + 8;
        tail[last_word_of_row0 + 7] |= 0x80;
        let sum = crate::hash::checksum64(&tail);
        tail.extend_from_slice(&sum.to_le_bytes());
        assert!(matches!(
            LogsBloomIndex::from_bytes(&tail),
            Err(Error::Corrupt { .. })
        ));
        // an empty index round-trips
        let empty = LogsBloomIndex::new(0);
        assert_eq!(
            LogsBloomIndex::from_bytes(&empty.to_bytes()).unwrap(),
            empty
        );
    }

    #[test]
    fn push_refuses_block_numbers_past_the_end() {
        let mut index = LogsBloomIndex::new(u64::MAX - 2);
        assert!(index.push(&LogsBloom::new()).is_ok());
        assert!(index.push(&LogsBloom::new()).is_ok());
        assert!(matches!(
            index.push(&LogsBloom::new()),
            Err(Error::Full { .. })
        ));
        assert_eq!(index.len(), 2);
    }
}
