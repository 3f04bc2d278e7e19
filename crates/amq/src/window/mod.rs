//! Filters that move with time: the sliding-window Bloom filter of mutator sets, and the aging
//! (generational) Bloom filter that forgets old items.
//!
//! * [`SlidingWindowBloom`]: every item has a *position* L (its insertion index); its k bits
//!   fall in a window of W bits that starts at ⌊L/B⌋·S, so the bit array grows without bound
//!   while only the W-bit active window is dense in memory. Chunks of S bits that leave the
//!   window are archived sparsely and stay queryable. (Szepieniec and Værge, "Mutator Sets and
//!   their Application to Scalable Privacy", IACR ePrint 2023/1208; Neptune's parameters are
//!   [`WindowParams::NEPTUNE`].)
//! * [`AgingBloom`]: a ring of g generations that answers "seen within the last window" of
//!   insertions or clock ticks.

mod aging;
mod aging_plan;

pub use aging::{AgingBloom, Rotation, MAX_GENERATIONS};
pub(crate) use aging_plan::aging_shape;
pub use params::{WindowParams, MAX_CHUNK_BITS, MAX_WINDOW_BITS, MAX_WINDOW_K};

mod encoding;
mod params;

use crate::error::{Error, Result};
use crate::filter::Item;
use crate::hash::{bloom_indices, hash128, window_hash, window_indices};
use crate::wire::{self, Kind};
use alloc::vec;
use alloc::vec::Vec;

/// The bits of one archived chunk, in whichever encoding is smaller.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ChunkBits {
    /// Sorted, distinct offsets in `[0, S)`: 32 bits per set bit.
    Sparse(Vec<u32>),
    /// S/64 words: S bits.
    Dense(Vec<u64>),
}

/// A chunk that left the window.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Archived {
    /// The absolute chunk number c (bits c·S .. (c + 1)·S).
    chunk: u64,
    bits: ChunkBits,
}

impl Archived {
    fn count(&self) -> u64 {
        match &self.bits {
            ChunkBits::Sparse(v) => v.len() as u64,
            ChunkBits::Dense(w) => w.iter().map(|x| u64::from(x.count_ones())).sum(),
        }
    }

    /// Prefetches the word of bit `off` (a bitmap) or the middle of the offsets (sparse).
    #[inline]
    fn prefetch(&self, off: u64) {
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

    fn get(&self, off: u64) -> bool {
        match &self.bits {
            ChunkBits::Sparse(v) => v.binary_search(&(off as u32)).is_ok(),
            ChunkBits::Dense(w) => (w[(off >> 6) as usize] >> (off & 63)) & 1 == 1,
        }
    }

    /// Sets a bit; `true` if it was zero. Switches to the dense encoding once it is smaller.
    fn set(&mut self, off: u64, chunk_bits: u64) -> bool {
        match &mut self.bits {
            ChunkBits::Sparse(v) => match v.binary_search(&(off as u32)) {
                Ok(_) => false,
                Err(at) => {
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

    fn size_bytes(&self) -> u64 {
        match &self.bits {
            ChunkBits::Sparse(v) => 4 * v.len() as u64,
            ChunkBits::Dense(w) => 8 * w.len() as u64,
        }
    }
}

/// The encoding rule: dense once 32 bits per set bit reach the S bits of a bitmap.
#[inline]
fn dense_is_smaller(count: u64, chunk_bits: u64) -> bool {
    count.saturating_mul(32) >= chunk_bits
}

/// Where the window indices of one query or insert at window start t land, worked out once so
/// that each index costs a compare and an add (no division):
/// * `idx < archived`: chunk t + idx/S left the window (it is archived, or was never set);
/// * `archived ≤ idx < past`: the active window, at ring bit (`ring_base` + idx) mod W, since
///   chunk t + q lives in ring slot (t + q) mod W/S and W = (W/S)·S;
/// * `idx ≥ past`: past the active window's end, where nothing was ever set.
#[derive(Debug, Clone, Copy, Default)]
struct Placement {
    t: u64,
    archived: u64,
    past: u64,
    ring_base: u64,
    /// The first archive entry at or after chunk t.
    archive_from: usize,
}

/// A query of a batch on its way: located, and how many of its indices were prefetched.
#[derive(Debug, Clone, Copy, Default)]
struct Ahead {
    query: Option<(u128, Placement)>,
    reads: u32,
}

/// ⌊x / S⌋ and x mod S, by a shift when S is a power of two (every published shape).
#[inline(always)]
fn chunk_split(x: u64, s: u64) -> (u64, u64) {
    if s.is_power_of_two() {
        (x >> s.trailing_zeros(), x & (s - 1))
    } else {
        (x / s, x % s)
    }
}

/// The sliding-window Bloom filter of mutator sets.
///
/// The item at position L has window offset ⌊L/B⌋·S: its k indices are hashed from the item,
/// L and i into `[0, W)` ([`hash::window_indices`](crate::hash::window_indices)) and shifted
/// by that offset into an unbounded bit array. The *active window* covers the W bits from the
/// current offset; after every B positions it slides by one chunk of S bits, and the chunk
/// that leaves it is *archived*: kept as sorted 32-bit offsets, or as a bitmap when that is
/// smaller, and still answered. The window is a ring of W/S chunks (chunk c lives in slot
/// c mod W/S), so a slide archives and clears one chunk, O(S/64) word operations, and never
/// moves the rest. Insert and query cost O(k).
///
/// Positions are given by the caller (a mutator set uses the index of the item's commitment)
/// or assigned in order by [`insert`](Self::insert). An item is found at the position it was
/// inserted at, in the active window or the archive; at any other position it is a fresh
/// query. The false-positive rate depends on how full the query's window is:
/// [`WindowParams::fpr`]. (Szepieniec and Værge, "Mutator Sets and their Application to
/// Scalable Privacy", IACR ePrint 2023/1208, §4; the seed `bloom-cuckoo-sliding-window.md`.)
///
/// # Example
/// ```
/// use amq::window::{SlidingWindowBloom, WindowParams};
/// let mut f = SlidingWindowBloom::new(WindowParams::NEPTUNE, 0)?;
/// let l = f.insert("utxo-1")?; // position 0
/// for i in 0..10_000u32 {
///     f.insert(&i)?; // the window slides a chunk every 8 insertions
/// }
/// assert!(f.contains("utxo-1", l)); // found in the archive
/// assert!(!f.contains("utxo-1", l + 1)); // another position: a fresh query
/// assert!(f.archived_chunks() > 1000);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlidingWindowBloom {
    params: WindowParams,
    seed: u64,
    /// W/64 words: slot j (chunk c with c mod W/S = j) at words j·S/64 ..
    ring: Vec<u64>,
    /// t: the active window covers the absolute chunks t .. t + W/S.
    batch: u64,
    /// The next position [`insert`](Self::insert) assigns: one past the highest used.
    next: u64,
    inserted: u64,
    /// Non-empty archived chunks, by increasing chunk number (all below `batch`).
    archive: Vec<Archived>,
}

impl SlidingWindowBloom {
    /// An empty filter of the given shape, hashing with `seed`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] as [`WindowParams::check`]; [`Error::OutOfMemory`] if the
    /// window of W bits cannot be allocated.
    pub fn new(params: WindowParams, seed: u64) -> Result<Self> {
        params.check()?;
        Ok(SlidingWindowBloom {
            params,
            seed,
            ring: crate::bits::try_zeroed(params.window_bits / 64, "the window")?,
            batch: 0,
            next: 0,
            inserted: 0,
            archive: Vec::new(),
        })
    }

    /// The shape.
    pub fn params(&self) -> WindowParams {
        self.params
    }
    /// The hash seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// The next position [`insert`](Self::insert) assigns (one past the highest used).
    pub fn next_position(&self) -> u64 {
        self.next
    }
    /// How many items were inserted.
    pub fn inserted(&self) -> u64 {
        self.inserted
    }
    /// The window offset in chunks: the active window covers bits t·S .. t·S + W.
    pub fn window_start_chunk(&self) -> u64 {
        self.batch
    }
    /// The number of non-empty archived chunks.
    pub fn archived_chunks(&self) -> u64 {
        self.archive.len() as u64
    }
    /// Set bits in the archive.
    pub fn archived_bits_set(&self) -> u64 {
        self.archive.iter().map(Archived::count).sum()
    }
    /// Bytes of the archive in memory (sparse offsets or bitmaps, without bookkeeping).
    pub fn archive_bytes(&self) -> u64 {
        self.archive.iter().map(Archived::size_bytes).sum()
    }
    /// Bytes of the active window plus the archive.
    pub fn size_bytes(&self) -> u64 {
        self.params.window_bits / 8 + self.archive_bytes()
    }
    /// The fraction of the active window's bits that are set.
    pub fn window_fill(&self) -> f64 {
        let ones: u64 = self.ring.iter().map(|w| u64::from(w.count_ones())).sum();
        ones as f64 / self.params.window_bits as f64
    }

    /// The 128-bit item hash under this filter's seed (position-independent), for
    /// [`insert_hash_at`](Self::insert_hash_at) and [`contains_hash`](Self::contains_hash).
    #[inline]
    pub fn hash<T: Item + ?Sized>(&self, item: &T) -> u128 {
        hash128(item, self.seed)
    }

    /// The batch ⌊L/B⌋ of a position, if its window is addressable.
    fn batch_of(&self, position: u64) -> Result<u64> {
        let t = position / self.params.batch;
        if t > u64::MAX - 2 * self.params.chunks() {
            return Err(Error::invalid(
                "position",
                alloc::format!("{position} is too large"),
            ));
        }
        Ok(t)
    }

    /// Where the indices of window start `t` land, for the window as it is now.
    #[inline]
    fn placement(&self, t: u64) -> Placement {
        let p = self.params;
        let (chunks, w) = (p.chunks(), p.window_bits);
        // chunks t .. t + archived/S are before the window start, chunks from t + past/S on
        // are past its end; both bounds clamp to [0, W]
        let archived = match self.batch.checked_sub(t) {
            Some(d) if d < chunks => d * p.chunk_bits,
            Some(_) => w,
            None => 0,
        };
        let past = match (self.batch + chunks).checked_sub(t) {
            Some(d) if d < chunks => d * p.chunk_bits,
            Some(_) => w,
            None => 0,
        };
        let archive_from = if archived == 0 {
            self.archive.len()
        } else {
            self.archive_index(t)
        };
        Placement {
            t,
            archived,
            past,
            ring_base: (t % chunks) * p.chunk_bits,
            archive_from,
        }
    }

    /// The first archive entry at or after chunk `t`. Entry j holds a chunk at least
    /// `first + j` (sorted, distinct), so it is entry `t − first` when no chunk before `t` was
    /// skipped as empty, as in any filter that received an item every few positions: one
    /// compare instead of a binary search over the whole archive.
    #[inline]
    fn archive_index(&self, t: u64) -> usize {
        let Some(first) = self.archive.first().map(|a| a.chunk) else {
            return 0;
        };
        let guess = usize::try_from(t.saturating_sub(first)).unwrap_or(usize::MAX);
        match self.archive.get(guess) {
            Some(a) if a.chunk == t => guess,
            _ => {
                let end = guess.min(self.archive.len());
                self.archive[..end].partition_point(|a| a.chunk < t)
            }
        }
    }

    /// The ring bit of window index `idx` (in `[archived, past)` of `at`).
    #[inline(always)]
    fn ring_bit(&self, at: &Placement, idx: u64) -> u64 {
        let bit = at.ring_base + idx;
        if bit >= self.params.window_bits {
            bit - self.params.window_bits
        } else {
            bit
        }
    }

    /// The archived chunk of window index `idx` (below `at.archived`) and the offset in it:
    /// its entry in the archive, if it has one. Archived chunks are sorted and distinct, so
    /// chunk t + q is entry `archive_from + q` when no chunk between was skipped (empty chunks
    /// are not archived); otherwise it lies before that entry.
    #[inline]
    fn archived(&self, at: &Placement, idx: u64) -> (Option<&Archived>, u64) {
        let (q, off) = chunk_split(idx, self.params.chunk_bits);
        let chunk = at.t + q;
        let guess = at.archive_from.saturating_add(q as usize);
        let entry = match self.archive.get(guess) {
            Some(a) if a.chunk == chunk => Some(a),
            _ => {
                let end = guess.min(self.archive.len());
                let range = &self.archive[at.archive_from.min(end)..end];
                range
                    .binary_search_by_key(&chunk, |a| a.chunk)
                    .ok()
                    .map(|i| &range[i])
            }
        };
        (entry, off)
    }

    /// Slides the window so that it starts at chunk `t`, archiving the chunks that leave it.
    fn slide_to(&mut self, t: u64) {
        let chunks = self.params.chunks();
        let words = (self.params.chunk_bits / 64) as usize;
        while self.batch < t {
            if t - self.batch >= chunks {
                // The whole window leaves: archive every chunk, then jump.
                for c in self.batch..self.batch + chunks {
                    self.archive_chunk(c);
                }
                self.ring.fill(0);
                self.batch = t;
                break;
            }
            let c = self.batch;
            self.archive_chunk(c);
            let slot = (c % chunks) as usize;
            self.ring[slot * words..(slot + 1) * words].fill(0);
            self.batch += 1;
        }
    }

    /// Moves chunk `c` of the ring into the archive (if it has a bit set); O(S/64).
    fn archive_chunk(&mut self, c: u64) {
        let words = (self.params.chunk_bits / 64) as usize;
        let slot = (c % self.params.chunks()) as usize;
        let src = &self.ring[slot * words..(slot + 1) * words];
        let count: u64 = src.iter().map(|w| u64::from(w.count_ones())).sum();
        if count == 0 {
            return;
        }
        let bits = if dense_is_smaller(count, self.params.chunk_bits) {
            ChunkBits::Dense(src.to_vec())
        } else {
            let mut v = Vec::with_capacity(count as usize);
            for (i, &w) in src.iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    v.push((i * 64) as u32 + w.trailing_zeros());
                    w &= w - 1;
                }
            }
            ChunkBits::Sparse(v)
        };
        debug_assert!(self.archive.last().is_none_or(|a| a.chunk < c));
        self.archive.push(Archived { chunk: c, bits });
    }

    /// Inserts a precomputed item hash at `position`; `true` if any of its bits was zero.
    ///
    /// A position at or past [`next_position`](Self::next_position) slides the window to it
    /// first (skipped positions stay empty); an earlier position sets its bits where they are,
    /// in the window or in the archive.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if the position is so large that its window would pass
    /// 2⁶⁴ chunks.
    pub fn insert_hash_at(&mut self, h: u128, position: u64) -> Result<bool> {
        let t = self.batch_of(position)?;
        if position >= self.next {
            let next = position
                .checked_add(1)
                .ok_or_else(|| Error::invalid("position", "the positions are exhausted"))?;
            self.slide_to(t);
            self.next = next;
        }
        let p = self.params;
        // an insert's chunks never pass the window's end: the window was slid to t or beyond
        let at = self.placement(t);
        debug_assert_eq!(at.past, p.window_bits);
        let mut new = false;
        for idx in window_indices(h, position, p.window_bits, p.k, self.seed) {
            if idx >= at.archived {
                let bit = self.ring_bit(&at, idx);
                let word = &mut self.ring[(bit >> 6) as usize];
                new |= (*word >> (bit & 63)) & 1 == 0;
                *word |= 1 << (bit & 63);
            } else {
                let (q, off) = chunk_split(idx, p.chunk_bits);
                new |= self.archive_set(t + q, off);
            }
        }
        self.inserted = self.inserted.saturating_add(1);
        Ok(new)
    }

    fn archive_set(&mut self, chunk: u64, off: u64) -> bool {
        match self.archive.binary_search_by_key(&chunk, |a| a.chunk) {
            Ok(i) => self.archive[i].set(off, self.params.chunk_bits),
            Err(i) => {
                let mut a = Archived {
                    chunk,
                    bits: ChunkBits::Sparse(Vec::new()),
                };
                a.set(off, self.params.chunk_bits);
                self.archive.insert(i, a);
                true
            }
        }
    }

    /// Inserts `item` at `position` (see [`insert_hash_at`](Self::insert_hash_at)).
    ///
    /// # Errors
    /// As [`insert_hash_at`](Self::insert_hash_at).
    pub fn insert_at<T: Item + ?Sized>(&mut self, item: &T, position: u64) -> Result<bool> {
        self.insert_hash_at(self.hash(item), position)
    }

    /// Inserts `item` at the next position and returns that position.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the positions are exhausted.
    pub fn insert<T: Item + ?Sized>(&mut self, item: &T) -> Result<u64> {
        let position = self.next;
        self.insert_hash_at(self.hash(item), position)?;
        Ok(position)
    }

    /// "Maybe present" (`true`) or "definitely absent" (`false`) for a precomputed item hash
    /// at `position`.
    pub fn contains_hash(&self, h: u128, position: u64) -> bool {
        self.holds(self.locate(h, position))
    }

    /// The window hash and the placement of a query (`None` for a position beyond the
    /// addressable windows, which holds nothing).
    #[inline]
    fn locate(&self, h: u128, position: u64) -> Option<(u128, Placement)> {
        let t = self.batch_of(position).ok()?;
        Some((window_hash(h, position, self.seed), self.placement(t)))
    }

    /// The k bits of a located query are all set.
    #[inline]
    fn holds(&self, query: Option<(u128, Placement)>) -> bool {
        let Some((wh, at)) = query else {
            return false;
        };
        let p = self.params;
        for idx in bloom_indices(wh, p.window_bits, p.k) {
            let set = if idx >= at.past {
                false // past the active window: nothing was ever set there
            } else if idx >= at.archived {
                let bit = self.ring_bit(&at, idx);
                (self.ring[(bit >> 6) as usize] >> (bit & 63)) & 1 == 1
            } else {
                match self.archived(&at, idx) {
                    (Some(a), off) => a.get(off),
                    (None, _) => false,
                }
            };
            if !set {
                return false;
            }
        }
        true
    }

    /// "Maybe present" (`true`) or "definitely absent" (`false`) for `item` at `position`.
    pub fn contains<T: Item + ?Sized>(&self, item: &T, position: u64) -> bool {
        self.contains_hash(self.hash(item), position)
    }

    /// Batched [`contains_hash`](Self::contains_hash): `out[i]` answers `hashes[i]` at
    /// `positions[i]`.
    ///
    /// # Panics
    /// If the three slices differ in length.
    pub fn contains_hash_batch(&self, hashes: &[u128], positions: &[u64], out: &mut [bool]) {
        crate::filter::check_batch(hashes.len(), out.len());
        crate::filter::check_batch(positions.len(), out.len());
        self.batch(|i| (hashes[i], positions[i]), out);
    }

    /// Answers `out.len()` queries, `query(i)` giving query i's item hash and position, in two
    /// prefetch stages: query i + 8 is located and the archive entries (or ring words) of its
    /// indices are prefetched; at i + 4 those entries have arrived and the words of the chunks
    /// they point to are prefetched; then query i is tested.
    ///
    /// A member reads all k bits, a non-member usually stops at its first: prefetching k lines
    /// for every non-member made a batch of them 2.7× slower than single queries (Neptune's
    /// k = 45). So a running score of the recent answers (+1 a hit, −1 a miss, within ±8)
    /// picks how far ahead to read: all k indices while members dominate, the first index
    /// alone while non-members do.
    #[inline(always)]
    fn batch(&self, query: impl Fn(usize) -> (u128, u64), out: &mut [bool]) {
        let p = self.params;
        let score = core::cell::Cell::new(0i32);
        let fetch = |i: usize| -> Ahead {
            let (h, l) = query(i);
            let Some((wh, at)) = self.locate(h, l) else {
                return Ahead::default();
            };
            let reads = if score.get() >= 0 { p.k } else { 1 };
            for idx in bloom_indices(wh, p.window_bits, reads) {
                if idx >= at.past {
                    continue; // past the window: nothing to read
                }
                if idx >= at.archived {
                    let bit = self.ring_bit(&at, idx);
                    crate::bits::prefetch(&self.ring[(bit >> 6) as usize]);
                } else {
                    let q = chunk_split(idx, p.chunk_bits).0 as usize;
                    if let Some(a) = self.archive.get(at.archive_from.saturating_add(q)) {
                        crate::bits::prefetch(a);
                    }
                }
            }
            Ahead {
                query: Some((wh, at)),
                reads,
            }
        };
        let refetch = |ahead: &Ahead| {
            if let Some((wh, at)) = ahead.query {
                for idx in bloom_indices(wh, p.window_bits, ahead.reads) {
                    if idx < at.archived {
                        if let (Some(a), off) = self.archived(&at, idx) {
                            a.prefetch(off);
                        }
                    }
                }
            }
        };
        let test = |ahead: Ahead| {
            let hit = self.holds(ahead.query);
            score.set((score.get() + if hit { 1 } else { -1 }).clamp(-8, 8));
            hit
        };
        crate::filter::pipelined2::<_, 8>(out, fetch, refetch, test);
    }

    /// Batched [`contains`](Self::contains): `out[i]` answers `items[i]` at `positions[i]`.
    ///
    /// # Panics
    /// If the three slices differ in length.
    pub fn contains_batch<T: Item + ?Sized>(
        &self,
        items: &[&T],
        positions: &[u64],
        out: &mut [bool],
    ) {
        crate::filter::check_batch(items.len(), out.len());
        crate::filter::check_batch(positions.len(), out.len());
        self.batch(|i| (self.hash(items[i]), positions[i]), out);
    }

    /// The expected false-positive rate of a query at `position` now, if every position below
    /// [`next_position`](Self::next_position) received one item ([`WindowParams::fpr`]).
    pub fn expected_fpr(&self, position: u64) -> f64 {
        self.params.fpr(self.next, position)
    }
}

#[cfg(test)]
mod tests;
