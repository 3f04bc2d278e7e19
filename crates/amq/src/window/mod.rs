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

pub(crate) mod aging;
mod aging_plan;

pub use aging::{AgingBloom, Rotation, DEFAULT_GENERATIONS, MAX_GENERATIONS};
pub(crate) use aging_plan::aging_shape;
pub use params::{WindowParams, MAX_CHUNK_BITS, MAX_WINDOW_BITS, MAX_WINDOW_K};

mod archive;
mod batch;
mod encoding;
mod params;

use crate::error::{Error, Result};
use crate::filter::Item;
use crate::hash::{bloom_indices_with, hash128, window_hash, window_indices, Indexing};
use crate::wire::{self, Kind};
use alloc::vec::Vec;
use archive::{dense_is_smaller, Archived, ChunkBits};

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

/// Where one window index of a [`Placement`] lands.
#[derive(Debug, Clone, Copy)]
enum Site {
    /// Past the active window's end: nothing was ever set there.
    Past,
    /// The active window, at this ring bit.
    Ring(u64),
    /// Chunk t + q, which left the window, at offset `off`.
    Archived { q: u64, off: u64 },
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
    /// How the k indices come from a window hash ([`Indexing::Hashed`] for a new filter).
    indexing: Indexing,
    /// The set bits of the archive and its bytes in memory, kept as chunks are archived and
    /// set, so that `info` and the byte limits need not walk the archive.
    archive_totals: ArchiveTotals,
}

/// Sums over the archive: set bits and bytes in memory ([`Archived::size_bytes`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ArchiveTotals {
    ones: u64,
    bytes: u64,
}

impl ArchiveTotals {
    /// The sums over `archive`, counted.
    fn of(archive: &[Archived]) -> Self {
        archive.iter().fold(Self::default(), |t, a| ArchiveTotals {
            ones: t.ones + a.count(),
            bytes: t.bytes + a.size_bytes(),
        })
    }
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
            indexing: Indexing::Hashed,
            archive_totals: ArchiveTotals::default(),
        })
    }

    /// The shape.
    pub fn params(&self) -> WindowParams {
        self.params
    }
    /// How the k indices come from an item's window hash: [`Indexing::Hashed`] for every
    /// filter made now, [`Indexing::Unit`] for one read from a file that predates it.
    pub fn indexing(&self) -> Indexing {
        self.indexing
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
        self.archive_totals.ones
    }
    /// Bytes of the archive in memory: each chunk's sparse offsets or bitmap with its
    /// allocation, and the archive's list (an entry of 40 bytes for each chunk, and spare room
    /// for at most an eighth more).
    pub fn archive_bytes(&self) -> u64 {
        self.archive_totals.bytes + crate::list::room(self.archive.len()) * archive::ARCHIVED_SLOT
    }
    /// Bytes of the active window plus the archive.
    pub fn size_bytes(&self) -> u64 {
        self.params.window_bits / 8 + self.archive_bytes()
    }
    /// The fraction of the active window's bits that are set.
    pub fn window_fill(&self) -> f64 {
        let ones = crate::bits::count_ones(&self.ring);
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

    /// The first archive entry at or after chunk `t` ([`archive::first_from`] from the first
    /// entry).
    #[inline]
    fn archive_index(&self, t: u64) -> usize {
        match self.archive.first() {
            Some(a) => archive::first_from(&self.archive, 0, t.saturating_sub(a.chunk), t),
            None => 0,
        }
    }

    /// Where window index `idx` of `at` lands: past the window, in the ring (at
    /// (`ring_base` + idx) mod W), or in archived chunk t + idx/S.
    #[inline(always)]
    fn site(&self, at: &Placement, idx: u64) -> Site {
        if idx >= at.past {
            Site::Past
        } else if idx >= at.archived {
            let bit = at.ring_base + idx;
            let w = self.params.window_bits;
            Site::Ring(if bit >= w { bit - w } else { bit })
        } else {
            let (q, off) = chunk_split(idx, self.params.chunk_bits);
            Site::Archived { q, off }
        }
    }

    /// The archive entry of chunk t + q of `at`, if that chunk was archived.
    #[inline]
    fn archived(&self, at: &Placement, q: u64) -> Option<&Archived> {
        archive::find(&self.archive, at.archive_from, q, at.t + q)
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
        let a = Archived { chunk: c, bits };
        self.archive_totals.ones += count;
        self.archive_totals.bytes += a.size_bytes();
        crate::list::reserve_one(&mut self.archive);
        self.archive.push(a);
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
        for idx in window_indices(h, position, p.window_bits, p.k, self.seed, self.indexing) {
            match self.site(&at, idx) {
                Site::Ring(bit) => {
                    let word = &mut self.ring[(bit >> 6) as usize];
                    new |= (*word >> (bit & 63)) & 1 == 0;
                    *word |= 1 << (bit & 63);
                }
                Site::Archived { q, off } => new |= self.archive_set(t + q, off),
                Site::Past => unreachable!("an insert's window is never past the active one"),
            }
        }
        self.inserted = self.inserted.saturating_add(1);
        Ok(new)
    }

    fn archive_set(&mut self, chunk: u64, off: u64) -> bool {
        let totals = &mut self.archive_totals;
        match self.archive.binary_search_by_key(&chunk, |a| a.chunk) {
            Ok(i) => {
                let a = &mut self.archive[i];
                let before = a.size_bytes();
                let new = a.set(off, self.params.chunk_bits);
                totals.ones += u64::from(new);
                totals.bytes = totals.bytes - before + a.size_bytes();
                new
            }
            Err(i) => {
                let mut a = Archived {
                    chunk,
                    bits: ChunkBits::Sparse(Vec::new()),
                };
                a.set(off, self.params.chunk_bits);
                totals.ones += 1;
                totals.bytes += a.size_bytes();
                crate::list::reserve_one(&mut self.archive);
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

    /// The most bytes inserting at [`next_position`](Self::next_position) can add to
    /// [`size_bytes`](Self::size_bytes): 0 while that position is in the window's last
    /// batch; otherwise the window slides first and archives each chunk it leaves, counted
    /// here as the most an archived chunk takes (a bitmap of S bits with its allocation, and
    /// its entry in the archive: sparse ones take less, empty ones nothing).
    pub fn next_insert_bytes(&self) -> u64 {
        let p = self.params;
        let slides = (self.next / p.batch)
            .saturating_sub(self.batch)
            .min(p.chunks());
        let len = self.archive.len();
        let entries = usize::try_from(slides)
            .ok()
            .and_then(|s| len.checked_add(s))
            .map_or(u64::MAX, |after| {
                crate::list::room(after) - crate::list::room(len)
            });
        slides
            .saturating_mul(p.chunk_bits / 8 + archive::ALLOCATION_OVERHEAD)
            .saturating_add(entries.saturating_mul(archive::ARCHIVED_SLOT))
    }

    /// [`insert`](Self::insert), unless the filter could then take more than `limit` bytes:
    /// refused when [`size_bytes`](Self::size_bytes) plus
    /// [`next_insert_bytes`](Self::next_insert_bytes) pass it.
    ///
    /// # Errors
    /// [`Error::OverLimit`] (nothing changed); as [`insert`](Self::insert).
    ///
    /// # Example
    /// ```
    /// use amq::window::{SlidingWindowBloom, WindowParams};
    /// let params = WindowParams { window_bits: 1024, chunk_bits: 256, batch: 2, k: 3 };
    /// let mut f = SlidingWindowBloom::new(params, 0)?;
    /// let limit = f.size_bytes(); // no room for an archived chunk
    /// assert_eq!(f.insert_within("a", limit)?, 0);
    /// assert_eq!(f.insert_within("b", limit)?, 1); // positions 0 and 1: the first batch
    /// // position 2 slides the window, archiving a chunk of up to 256 bits: refused
    /// assert!(matches!(f.insert_within("c", limit), Err(amq::Error::OverLimit { .. })));
    /// assert_eq!(f.next_position(), 2); // nothing changed
    /// assert_eq!(f.insert_within("c", limit + f.next_insert_bytes())?, 2);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn insert_within<T: Item + ?Sized>(&mut self, item: &T, limit: u64) -> Result<u64> {
        self.check_next_insert(limit)?;
        self.insert(item)
    }

    /// [`Error::OverLimit`] if [`insert_within`](Self::insert_within) refuses its item for
    /// `limit`.
    ///
    /// # Errors
    /// [`Error::OverLimit`], as said.
    pub fn check_next_insert(&self, limit: u64) -> Result<()> {
        let more = self.next_insert_bytes();
        if more == 0 {
            return Ok(());
        }
        Error::check_limit(self.size_bytes(), more, true, limit)
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
        for idx in bloom_indices_with(wh, p.window_bits, p.k, self.indexing) {
            let set = match self.site(&at, idx) {
                Site::Past => false,
                Site::Ring(bit) => (self.ring[(bit >> 6) as usize] >> (bit & 63)) & 1 == 1,
                Site::Archived { q, off } => self.archived(&at, q).is_some_and(|a| a.get(off)),
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

    /// The expected false-positive rate of a query at `position` now, if every position below
    /// [`next_position`](Self::next_position) received one item ([`WindowParams::fpr`]).
    pub fn expected_fpr(&self, position: u64) -> f64 {
        self.params.fpr(self.next, position)
    }
}

#[cfg(test)]
mod tests;
