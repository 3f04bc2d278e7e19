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

pub use aging::{AgingBloom, Rotation, MAX_GENERATIONS};

use crate::error::{Error, Result};
use crate::filter::Item;
use crate::hash::{hash128, window_indices};
use crate::wire::{self, Kind};
use alloc::vec;
use alloc::vec::Vec;

/// The shape of a [`SlidingWindowBloom`]: window W bits, chunk (slide step) S bits, batch B
/// insertions per slide, k indices per item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WindowParams {
    /// W, the bits of the active window (a multiple of S).
    pub window_bits: u64,
    /// S, the bits of one chunk: the window slides by S bits (a multiple of 64).
    pub chunk_bits: u64,
    /// B, the insertions per slide: the item at position L has window offset ⌊L/B⌋·S.
    pub batch: u64,
    /// k, the indices per item.
    pub k: u32,
}

/// The largest window a [`SlidingWindowBloom`] accepts: 2³⁶ bits (8 GiB).
pub const MAX_WINDOW_BITS: u64 = 1 << 36;
/// The largest chunk: 2³² bits (offsets inside a chunk are 32-bit).
pub const MAX_CHUNK_BITS: u64 = 1 << 32;
/// The largest k of a [`SlidingWindowBloom`].
pub const MAX_WINDOW_K: u32 = 64;

impl WindowParams {
    /// Neptune's mutator-set parameters: W = 2²⁰, S = 2¹², B = 8, k = 45 (the window holds 256
    /// chunks; the steady-state false-positive rate is `(1 − e^(−kB/S))^k` ≈ 4·10⁻⁴⁹).
    pub const NEPTUNE: WindowParams = WindowParams {
        window_bits: 1 << 20,
        chunk_bits: 1 << 12,
        batch: 8,
        k: 45,
    };

    /// W/S, the chunks in the window.
    pub fn chunks(&self) -> u64 {
        self.window_bits / self.chunk_bits
    }

    /// Checks the shape.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless S is a non-zero multiple of 64 up to
    /// [`MAX_CHUNK_BITS`], W a non-zero multiple of S up to [`MAX_WINDOW_BITS`], B ≥ 1 and k in
    /// `1..=64`.
    pub fn check(&self) -> Result<()> {
        let s = self.chunk_bits;
        if s == 0 || !s.is_multiple_of(64) || s > MAX_CHUNK_BITS {
            return Err(Error::invalid(
                "S",
                alloc::format!(
                    "the chunk must be a non-zero multiple of 64 bits up to 2^32, got {s}"
                ),
            ));
        }
        let w = self.window_bits;
        if w == 0 || !w.is_multiple_of(s) || w > MAX_WINDOW_BITS {
            return Err(Error::invalid(
                "W",
                alloc::format!(
                    "the window must be a non-zero multiple of S = {s} up to 2^36 bits, got {w}"
                ),
            ));
        }
        if self.batch == 0 {
            return Err(Error::invalid("B", "the batch must be at least 1"));
        }
        if self.k == 0 || self.k > MAX_WINDOW_K {
            return Err(Error::invalid(
                "k",
                alloc::format!("must be between 1 and {MAX_WINDOW_K}, got {}", self.k),
            ));
        }
        Ok(())
    }

    /// The expected false-positive rate of a query at `position` for an item not inserted
    /// there, after the positions `0..n` each received one item.
    ///
    /// Chunk c (absolute) is covered by the windows of batches c − W/S + 1 ..= c, so it holds
    /// the bits of `n_c` = the items at positions in `[(c − W/S + 1)·B, (c + 1)·B) ∩ [0, n)`,
    /// and a bit of it is zero with probability `(1 − 1/W)^(k·n_c)`. The query's k indices
    /// are uniform over the W bits of its window, so
    /// `ε = ( (S/W)·Σ_c (1 − (1 − 1/W)^(k·n_c)) )^k` over the W/S chunks of that window.
    /// Once every chunk of the window is complete, this is `(1 − (1 − 1/W)^(k·B·W/S))^k ≈
    /// (1 − e^(−kB/S))^k` ([`steady_state_fpr`](Self::steady_state_fpr)).
    ///
    /// # Example
    /// ```
    /// use amq::window::WindowParams;
    /// let p = WindowParams { window_bits: 4096, chunk_bits: 256, batch: 16, k: 4 };
    /// let early = p.fpr(16, 15);
    /// let late = p.fpr(100_000, 50_000);
    /// assert!(early < late);
    /// assert!((late - p.steady_state_fpr()).abs() < 1e-12);
    /// ```
    pub fn fpr(&self, n: u64, position: u64) -> f64 {
        let chunks = self.chunks();
        let t = position / self.batch;
        let w = self.window_bits as f64;
        let mut density = 0.0;
        for j in 0..chunks {
            let c = t.saturating_add(j);
            let lo = c
                .saturating_add(1)
                .saturating_sub(chunks)
                .saturating_mul(self.batch);
            let hi = c.saturating_add(1).saturating_mul(self.batch).min(n);
            let items = hi.saturating_sub(lo) as f64;
            density += 1.0 - libm::exp(f64::from(self.k) * items * libm::log1p(-1.0 / w));
        }
        libm::pow(density / chunks as f64, f64::from(self.k))
    }

    /// The false-positive rate of a query whose window is complete:
    /// `(1 − (1 − 1/W)^(k·B·W/S))^k`.
    pub fn steady_state_fpr(&self) -> f64 {
        let items = (self.batch * self.chunks()) as f64;
        let w = self.window_bits as f64;
        libm::pow(
            1.0 - libm::exp(f64::from(self.k) * items * libm::log1p(-1.0 / w)),
            f64::from(self.k),
        )
    }
}

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

    #[inline(always)]
    fn ring_bit(&self, chunk: u64, off: u64) -> u64 {
        (chunk % self.params.chunks()) * self.params.chunk_bits + off
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
        let mut new = false;
        for idx in window_indices(h, position, p.window_bits, p.k, self.seed) {
            let chunk = t + idx / p.chunk_bits;
            let off = idx % p.chunk_bits;
            if chunk >= self.batch {
                let bit = self.ring_bit(chunk, off);
                let word = &mut self.ring[(bit >> 6) as usize];
                new |= (*word >> (bit & 63)) & 1 == 0;
                *word |= 1 << (bit & 63);
            } else {
                new |= self.archive_set(chunk, off);
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
        let Ok(t) = self.batch_of(position) else {
            return false;
        };
        let p = self.params;
        let end = self.batch + p.chunks();
        for idx in window_indices(h, position, p.window_bits, p.k, self.seed) {
            let chunk = t + idx / p.chunk_bits;
            let off = idx % p.chunk_bits;
            let set = if chunk >= end {
                false // past the active window: nothing was ever set there
            } else if chunk >= self.batch {
                let bit = self.ring_bit(chunk, off);
                (self.ring[(bit >> 6) as usize] >> (bit & 63)) & 1 == 1
            } else {
                match self.archive.binary_search_by_key(&chunk, |a| a.chunk) {
                    Ok(i) => self.archive[i].get(off),
                    Err(_) => false,
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

    /// The expected false-positive rate of a query at `position` now, if every position below
    /// [`next_position`](Self::next_position) received one item ([`WindowParams::fpr`]).
    pub fn expected_fpr(&self, position: u64) -> f64 {
        self.params.fpr(self.next, position)
    }

    /// Encodes as an `.amq` file.
    ///
    /// Kind 4; parameters W, S, B, k, seed, next position, inserted, archived chunks; payload:
    /// the W/64 words of the ring (slot j holds the chunk c ≡ j mod W/S of the window), then
    /// for each archived chunk by increasing number: its number, its count of set bits, and
    /// either S/64 bitmap words (when `32·count ≥ S`) or the `count` offsets as 32-bit words,
    /// increasing, two per 64-bit word (the last padded with zero); all little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let p = self.params;
        let mut words: Vec<u64> = self.ring.clone();
        for a in &self.archive {
            words.push(a.chunk);
            words.push(a.count());
            match &a.bits {
                ChunkBits::Dense(w) => words.extend_from_slice(w),
                ChunkBits::Sparse(v) => {
                    for pair in v.chunks(2) {
                        let hi = pair.get(1).copied().unwrap_or(0);
                        words.push(u64::from(pair[0]) | u64::from(hi) << 32);
                    }
                }
            }
        }
        wire::encode(
            Kind::SlidingWindowBloom,
            &[
                p.window_bits,
                p.chunk_bits,
                p.batch,
                u64::from(p.k),
                self.seed,
                self.next,
                self.inserted,
                self.archive.len() as u64,
            ],
            &crate::bits::words_to_le_bytes(&words),
        )
    }

    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`] for another kind, and
    /// [`Error::Corrupt`] for an invalid shape, a payload of the wrong length, or an archive
    /// record that is out of order, empty, miscounted, not in its canonical encoding, or not
    /// below the window.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        Self::from_container(&c)
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let p = c.expect(Kind::SlidingWindowBloom, 8)?;
        let k = u32::try_from(p[3]).unwrap_or(0);
        let params = WindowParams {
            window_bits: p[0],
            chunk_bits: p[1],
            batch: p[2],
            k,
        };
        params
            .check()
            .map_err(|e| Error::corrupt(24, alloc::format!("{e}")))?;
        let (seed, next, inserted, records) = (p[4], p[5], p[6], p[7]);
        let batch = next.saturating_sub(1) / params.batch;
        if batch > u64::MAX - 2 * params.chunks() {
            return Err(Error::corrupt(
                24,
                alloc::format!("next position {next} is too large"),
            ));
        }
        let payload = c.payload;
        if !payload.len().is_multiple_of(8) {
            return Err(Error::corrupt(
                0,
                "payload length is not a multiple of 8 bytes",
            ));
        }
        let ring_bytes = (params.window_bits / 8) as usize;
        if payload.len() < ring_bytes {
            return Err(Error::corrupt(
                0,
                alloc::format!(
                    "the window needs {ring_bytes} payload bytes, found {}",
                    payload.len()
                ),
            ));
        }
        let words = crate::bits::le_bytes_to_words(payload)?;
        let ring = words[..ring_bytes / 8].to_vec();
        let mut rest = &words[ring_bytes / 8..];
        let chunk_words = (params.chunk_bits / 64) as usize;
        let mut archive: Vec<Archived> = Vec::new();
        let mut at = ring_bytes;
        for _ in 0..records {
            let [chunk, count, ref tail @ ..] = *rest else {
                return Err(Error::corrupt(
                    at,
                    "archive record header past the end of the payload",
                ));
            };
            if archive.last().is_some_and(|a| a.chunk >= chunk) || chunk >= batch {
                return Err(Error::corrupt(
                    at,
                    alloc::format!("archived chunk {chunk} is out of order or not below the window (chunk {batch})"),
                ));
            }
            if count == 0 || count > params.chunk_bits {
                return Err(Error::corrupt(
                    at + 8,
                    alloc::format!("archived chunk holds {count} set bits"),
                ));
            }
            let bits = if dense_is_smaller(count, params.chunk_bits) {
                if tail.len() < chunk_words {
                    return Err(Error::corrupt(
                        at + 16,
                        "archived bitmap past the end of the payload",
                    ));
                }
                let w = tail[..chunk_words].to_vec();
                if w.iter().map(|x| u64::from(x.count_ones())).sum::<u64>() != count {
                    return Err(Error::corrupt(
                        at + 16,
                        "archived bitmap does not hold its count of bits",
                    ));
                }
                rest = &tail[chunk_words..];
                ChunkBits::Dense(w)
            } else {
                let n = count.div_ceil(2) as usize; // count < S/32 here, so this is small
                if tail.len() < n {
                    return Err(Error::corrupt(
                        at + 16,
                        "archived offsets past the end of the payload",
                    ));
                }
                let mut v = Vec::with_capacity(count as usize);
                for (i, &w) in tail[..n].iter().enumerate() {
                    v.push(w as u32);
                    if 2 * i + 1 < count as usize {
                        v.push((w >> 32) as u32);
                    } else if w >> 32 != 0 {
                        return Err(Error::corrupt(
                            at + 16,
                            "archived offsets: padding is not zero",
                        ));
                    }
                }
                if v.windows(2).any(|x| x[0] >= x[1])
                    || v.last().is_some_and(|&o| u64::from(o) >= params.chunk_bits)
                {
                    return Err(Error::corrupt(
                        at + 16,
                        "archived offsets are not increasing and below S",
                    ));
                }
                rest = &tail[n..];
                ChunkBits::Sparse(v)
            };
            at = payload.len() - 8 * rest.len();
            archive.push(Archived { chunk, bits });
        }
        if !rest.is_empty() {
            return Err(Error::corrupt(
                at,
                alloc::format!("{} bytes after the last archive record", 8 * rest.len()),
            ));
        }
        Ok(SlidingWindowBloom {
            params,
            seed,
            ring,
            batch,
            next,
            inserted,
            archive,
        })
    }
}

#[cfg(test)]
mod tests;
