//! The archive of the sliding-window Bloom filter: chunks that left the window, each as
//! sorted offsets or a bitmap, whichever is smaller.

use alloc::vec;
use alloc::vec::Vec;

/// The bits of one archived chunk, in whichever encoding is smaller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ChunkBits {
    /// Sorted, distinct offsets in `[0, S)`: 32 bits per set bit.
    Sparse(Vec<u32>),
    /// S/64 words: S bits.
    Dense(Vec<u64>),
}

/// A chunk that left the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Archived {
    /// The absolute chunk number c (bits c·S .. (c + 1)·S).
    pub(super) chunk: u64,
    pub(super) bits: ChunkBits,
}

impl Archived {
    pub(super) fn count(&self) -> u64 {
        match &self.bits {
            ChunkBits::Sparse(v) => v.len() as u64,
            ChunkBits::Dense(w) => w.iter().map(|x| u64::from(x.count_ones())).sum(),
        }
    }

    /// Prefetches the word of bit `off` (a bitmap) or the middle of the offsets (sparse).
    #[inline]
    pub(super) fn prefetch(&self, off: u64) {
        match &self.bits {
            ChunkBits::Sparse(v) => {
                if let Some(x) = v.get(v.len() / 2) {
                    crate::bits::prefetch(x);
                }
            }
            ChunkBits::Dense(w) => {
                if let Some(x) = w.get((off >> 6) as usize) {
                    crate::bits::prefetch(x);
                }
            }
        }
    }

    /// Bit `off` of the chunk.
    #[inline]
    pub(super) fn get(&self, off: u64) -> bool {
        match &self.bits {
            ChunkBits::Sparse(v) => v.binary_search(&(off as u32)).is_ok(),
            ChunkBits::Dense(w) => (w[(off >> 6) as usize] >> (off & 63)) & 1 == 1,
        }
    }

    /// Sets a bit; `true` if it was zero. Switches to the dense encoding once it is smaller.
    pub(super) fn set(&mut self, off: u64, chunk_bits: u64) -> bool {
        match &mut self.bits {
            ChunkBits::Sparse(v) => match v.binary_search(&(off as u32)) {
                Ok(_) => false,
                Err(at) => {
                    crate::list::reserve_one(v);
                    v.insert(at, off as u32);
                    if dense_is_smaller(v.len() as u64, chunk_bits) {
                        let mut words = vec![0u64; (chunk_bits / 64) as usize];
                        for &o in v.iter() {
                            words[(o >> 6) as usize] |= 1 << (o & 63);
                        }
                        self.bits = ChunkBits::Dense(words);
                    }
                    true
                }
            },
            ChunkBits::Dense(w) => {
                let word = &mut w[(off >> 6) as usize];
                let was_zero = (*word >> (off & 63)) & 1 == 0;
                *word |= 1 << (off & 63);
                was_zero
            }
        }
    }

    /// Bytes in memory: the offsets (with the spare room they may have,
    /// [`list::room`](crate::list::room)) or the bitmap, and [`ALLOCATION_OVERHEAD`] (the
    /// archive counts the chunk's entry: [`ARCHIVED_SLOT`]).
    pub(super) fn size_bytes(&self) -> u64 {
        let bits = match &self.bits {
            ChunkBits::Sparse(v) => 4 * crate::list::room(v.len()),
            ChunkBits::Dense(w) => 8 * w.len() as u64,
        };
        bits + ALLOCATION_OVERHEAD
    }
}

/// The memory an archived chunk's offsets or bitmap take besides their bytes: the allocation
/// (at least 32 bytes however few the offsets). With [`ARCHIVED_SLOT`] for each entry the
/// archive has room for, counted in every size and byte limit, so that an archive of many
/// sparse chunks is held to its limit in memory: 10⁶ chunks of one offset (4 bytes) took ten
/// times those bytes in memory when only they were counted.
pub(super) const ALLOCATION_OVERHEAD: u64 = 32;

/// The bytes of one entry of the archive.
pub(super) const ARCHIVED_SLOT: u64 = core::mem::size_of::<Archived>() as u64;

/// The encoding rule: dense once 32 bits per set bit reach the S bits of a bitmap.
#[inline]
pub(super) fn dense_is_smaller(count: u64, chunk_bits: u64) -> bool {
    count.saturating_mul(32) >= chunk_bits
}

/// The first entry at or after `chunk` in `archive[from..]`, where `chunk` is `ahead` chunks
/// after the chunk `archive[from]` would hold if no chunk were skipped. Entries are sorted and
/// distinct, so entry `from + j` holds a chunk at least `archive[from].chunk + j`, and `chunk`
/// is entry `from + ahead` when no chunk between was skipped as empty (as in any filter that
/// received an item every few positions): one compare; otherwise a binary search over the
/// entries before that one.
#[inline(always)]
pub(super) fn first_from(archive: &[Archived], from: usize, ahead: u64, chunk: u64) -> usize {
    let guess = guess(from, ahead);
    match archive.get(guess) {
        Some(a) if a.chunk == chunk => guess,
        _ => search_before(archive, from, guess, chunk),
    }
}

/// The entry of `chunk`, if it was archived: [`first_from`] with the compare of its fast
/// path kept (a query's hot loop).
#[inline(always)]
pub(super) fn find(archive: &[Archived], from: usize, ahead: u64, chunk: u64) -> Option<&Archived> {
    let guess = guess(from, ahead);
    match archive.get(guess) {
        Some(a) if a.chunk == chunk => Some(a),
        _ => archive
            .get(search_before(archive, from, guess, chunk))
            .filter(|a| a.chunk == chunk),
    }
}

/// Entry `from + ahead`, saturating.
#[inline(always)]
fn guess(from: usize, ahead: u64) -> usize {
    usize::try_from(ahead).map_or(usize::MAX, |d| from.saturating_add(d))
}

/// [`first_from`] when the guess missed: a binary search of `archive[from..guess]` (out of
/// line, so that the queries' loops stay small).
#[cold]
#[inline(never)]
fn search_before(archive: &[Archived], from: usize, guess: usize, chunk: u64) -> usize {
    let end = guess.min(archive.len());
    let start = from.min(end);
    start + archive[start..end].partition_point(|a| a.chunk < chunk)
}
