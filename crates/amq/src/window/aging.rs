//! The aging Bloom filter: "seen within the last window", by insertions or by clock ticks.

use super::aging_plan::aging_shape;
use crate::clock::{Clock, NoClock};
use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item};
use crate::hash::{bloom_indices_with, hash128, Indexing};
use crate::math;
use alloc::vec;
use alloc::vec::Vec;

mod clock;
mod encoding;

/// The most generations an [`AgingBloom`] may have.
pub const MAX_GENERATIONS: u32 = 64;

/// The generations g when none are asked for (the CLI's, the Redis module's and the server's
/// default): a remembered window of between 3/4 and all of the g periods.
pub const DEFAULT_GENERATIONS: u32 = 4;

/// [`DEFAULT_GENERATIONS`], for serde's `default`.
#[cfg(feature = "serde")]
pub(crate) fn default_generations() -> u32 {
    DEFAULT_GENERATIONS
}

/// When an [`AgingBloom`] starts a new generation (clearing the oldest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rotation {
    /// After this many insertions into the current generation (its capacity c).
    Count(u64),
    /// Every this many clock ticks: generation boundaries at the multiples of Δ.
    Time(u64),
}

/// Below this size the batched queries do not prefetch. Measured (`cargo bench -p amq-bench
/// --bench batch`, BENCHMARKS.md): with 4 generations at 1%, the prefetching batch took 1.12×
/// (members) and 0.97× (non-members) the time of single queries at 7.9 MiB, which the L3
/// holds, and 0.80× and 0.75× at 19.8 MiB: a generation group is read at every one of the k
/// indices, so a query costs more index arithmetic per line than the classic filter's.
const PREFETCH_MIN_BYTES: u64 = 16 << 20;

/// An aging (generational) Bloom filter: a ring of g Bloom filters of m bits and k hash
/// functions each, the newest taking the inserts. When the current generation is full
/// ([`Rotation::Count`]) or its time is up ([`Rotation::Time`]) the oldest generation is
/// cleared and becomes the current one, so an item is forgotten after g rotations.
///
/// **Window.** An item is found ("maybe present") for at least g − 1 and at most g rotation
/// periods after it was inserted: with `Count(c)`, during the next (g − 1)·c insertions at
/// least; with `Time(Δ)`, for (g − 1)·Δ ticks at least and never after g·Δ.
///
/// **ε.** A query probes the same k indices in every generation, and generation j, holding
/// nⱼ items, answers yes by chance with `εⱼ = (1 − (1 − 1/m)^(k·nⱼ))^k` (about
/// `(1 − e^(−k·nⱼ/m))^k`); the generations are independent, so
/// `ε = 1 − Πⱼ(1 − εⱼ) ≤ 1 − (1 − (1 − (1 − 1/m)^(k·c))^k)^g ≤ g·(1 − (1 − 1/m)^(k·c))^k` when
/// each holds at most c items ([`fpr_bound`](Self::fpr_bound); with `Time` rotation, c is the
/// most items inserted in one interval Δ). A query of an item seen in the window is never wrong.
///
/// **Memory and cost.** The generations are interleaved: bit i of all g generations sits in
/// one group of G bits (g rounded up to a power of two), so a query or insert touches k words
/// whatever g is, and the filter takes m·G bits. A rotation clears one bit of every group:
/// O(m·G/64) word operations, once per c insertions or per Δ ticks.
///
/// Indices come from the item's XXH3-128 hash by enhanced double hashing, as in
/// [`BloomFilter`](crate::BloomFilter). (The generational scheme is the "aging" or
/// double-buffered Bloom filter: Yoon, "Aging Bloom Filter with Two Active Buffers for Dynamic
/// Sets", IEEE TKDE 22(1), 2010, generalised to g buffers.)
///
/// # Example
/// ```
/// use amq::window::AgingBloom;
/// use amq::{Filter, Insert};
/// // Remember at least the last 1,000 insertions with ε ≤ 1%, in 4 generations of 334.
/// let mut f = AgingBloom::with_window(1_000, 4, 0.01, 0)?;
/// f.insert("a")?;
/// for i in 0..999u32 {
///     f.insert(&i)?;
/// }
/// assert!(f.contains("a")); // within the window
/// for i in 0..2_000u32 {
///     f.insert(&i)?;
/// }
/// assert!(f.fpr_bound() <= 0.01);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct AgingBloom<C = NoClock> {
    m: u64,
    k: u32,
    generations: u32,
    /// G: bits per group, g rounded up to a power of two (at most 64).
    group_bits: u32,
    seed: u64,
    rotation: Rotation,
    /// m groups of G bits: bit j of group i is bit i of generation j.
    words: Vec<u64>,
    current: u32,
    /// With `Time(Δ)`: the interval (now / Δ) of the current generation; with `Count`: the
    /// number of rotations so far.
    epoch: u64,
    counts: Vec<u64>,
    inserted: u64,
    /// How the k indices come from a hash ([`Indexing::Hashed`] for a new filter).
    indexing: Indexing,
    clock: C,
}

pub(super) fn group_bits(g: u32) -> u32 {
    g.next_power_of_two()
}

pub(super) fn check(m: u64, k: u32, g: u32, rotation: Rotation) -> Result<()> {
    if m == 0 {
        return Err(Error::invalid("m", "a generation needs at least 1 bit"));
    }
    if k == 0 || k > math::BLOOM_MAX_K {
        return Err(Error::invalid(
            "k",
            alloc::format!("must be between 1 and {}, got {k}", math::BLOOM_MAX_K),
        ));
    }
    if !(2..=MAX_GENERATIONS).contains(&g) {
        return Err(Error::invalid(
            "generations",
            alloc::format!("must be between 2 and {MAX_GENERATIONS}, got {g}"),
        ));
    }
    match rotation {
        Rotation::Count(0) | Rotation::Time(0) => {
            return Err(Error::invalid(
                "rotation",
                "the rotation period must be at least 1",
            ))
        }
        _ => {}
    }
    let (Rotation::Count(period) | Rotation::Time(period)) = rotation;
    if period.checked_mul(u64::from(g)).is_none() {
        return Err(Error::invalid(
            "window",
            alloc::format!("{g} generations of {period} overflow 64 bits"),
        ));
    }
    let bits = m.checked_mul(u64::from(group_bits(g)));
    if bits.is_none_or(|b| b.div_ceil(64) > isize::MAX as u64 / 8) {
        return Err(Error::invalid("m", "too many bits for this platform"));
    }
    Ok(())
}

impl AgingBloom<NoClock> {
    /// An empty filter: g generations of m bits with k hash functions, rotated as given.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if m is 0, k is not in `1..=64`, g is not in
    /// `2..=`[`MAX_GENERATIONS`], the rotation period is 0 or g times it overflows 64 bits, or the
    /// filter does not fit in the address space; [`Error::OutOfMemory`] if it cannot be allocated.
    pub fn new(m: u64, k: u32, generations: u32, rotation: Rotation, seed: u64) -> Result<Self> {
        check(m, k, generations, rotation)?;
        let g_bits = group_bits(generations);
        Ok(AgingBloom {
            m,
            k,
            generations,
            group_bits: g_bits,
            seed,
            rotation,
            words: crate::bits::try_zeroed(
                (m * u64::from(g_bits)).div_ceil(64),
                "the generations",
            )?,
            current: 0,
            epoch: 0,
            counts: vec![0; generations as usize],
            inserted: 0,
            indexing: Indexing::Hashed,
            clock: NoClock,
        })
    }

    /// A count-rotated filter that remembers at least the last `window` insertions with
    /// [`fpr_bound`](Self::fpr_bound) ≤ `fpr`: each generation holds c = ⌈window/(g − 1)⌉
    /// items and is sized ([`math::bloom_size`]) for `1 − (1 − ε)^(1/g)`.
    ///
    /// # Errors
    /// As [`new`](Self::new), and [`Error::InvalidParameter`] for a zero window or ε outside
    /// (0, 1).
    pub fn with_window(window: u64, generations: u32, fpr: f64, seed: u64) -> Result<Self> {
        let s = aging_shape(Some(window), None, None, generations, fpr)?;
        Self::new(s.m, s.k, generations, s.rotation, seed)
    }

    /// A time-rotated filter that remembers at least the last `window` clock ticks, for at
    /// most `items_per_generation` items per interval Δ = ⌈window/(g − 1)⌉, with
    /// [`fpr_bound`](Self::fpr_bound) ≤ `fpr` while that holds.
    ///
    /// # Errors
    /// As [`with_window`](Self::with_window).
    pub fn with_time_window(
        window: u64,
        generations: u32,
        items_per_generation: u64,
        fpr: f64,
        seed: u64,
    ) -> Result<Self> {
        let s = aging_shape(
            None,
            Some(window),
            Some(items_per_generation),
            generations,
            fpr,
        )?;
        Self::new(s.m, s.k, generations, s.rotation, seed)
    }
}

impl<C: Clock> AgingBloom<C> {
    /// The clock this filter reads the time from.
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The same filter reading time from `clock`. With [`Rotation::Time`], generations whose
    /// interval has passed stop answering at once and are cleared by the next insert.
    pub fn with_clock<D: Clock>(self, clock: D) -> AgingBloom<D> {
        AgingBloom {
            m: self.m,
            k: self.k,
            generations: self.generations,
            group_bits: self.group_bits,
            seed: self.seed,
            rotation: self.rotation,
            words: self.words,
            current: self.current,
            epoch: self.epoch,
            counts: self.counts,
            inserted: self.inserted,
            indexing: self.indexing,
            clock,
        }
    }

    /// m, the bits of one generation.
    pub fn m(&self) -> u64 {
        self.m
    }
    /// k, the hash functions.
    pub fn k(&self) -> u32 {
        self.k
    }
    /// g, the generations.
    pub fn generations(&self) -> u32 {
        self.generations
    }
    /// The rotation rule.
    pub fn rotation(&self) -> Rotation {
        self.rotation
    }
    /// The hash seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// How the k indices come from an item's hash: [`Indexing::Hashed`] for every filter made
    /// now, [`Indexing::Unit`] for one read from a file that predates it.
    pub fn indexing(&self) -> Indexing {
        self.indexing
    }
    /// How many items were inserted in all.
    pub fn inserted(&self) -> u64 {
        self.inserted
    }
    /// Items inserted into each generation since it was last cleared, newest first.
    pub fn generation_counts(&self) -> Vec<u64> {
        let g = self.generations;
        (0..g)
            .map(|age| self.counts[((self.current + g - age) % g) as usize])
            .collect()
    }
    /// Rotations so far ([`Rotation::Count`]) or the current interval now/Δ
    /// ([`Rotation::Time`]).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }
    /// Payload bytes: m·G bits rounded up to words (G = g rounded up to a power of two).
    pub fn size_bytes(&self) -> u64 {
        8 * self.words.len() as u64
    }
    /// The fraction of the g·m generation bits that are set.
    pub fn fill_ratio(&self) -> f64 {
        let ones = crate::bits::count_ones(&self.words);
        ones as f64 / (self.m * u64::from(self.generations)) as f64
    }

    /// The bound `1 − (1 − (1 − (1 − 1/m)^(k·c))^k)^g` for generations of at most c items (c
    /// the [`Rotation::Count`] capacity, or for `Time` the most items any live generation
    /// holds): the exact expectation of each generation at its fullest, so
    /// [`estimated_fpr`](Self::estimated_fpr) never exceeds it. A time-rotated filter's file
    /// does not keep the items per generation it was planned for: its bound is as of now (0
    /// when empty); [`fpr_bound_at`](Self::fpr_bound_at) gives it at the planned count.
    pub fn fpr_bound(&self) -> f64 {
        let c = match self.rotation {
            Rotation::Count(c) => c,
            Rotation::Time(_) => self.counts.iter().copied().max().unwrap_or(0),
        };
        self.fpr_bound_at(c)
    }

    /// The bound [`fpr_bound`](Self::fpr_bound) states, for generations of at most `c` items
    /// each: what a time-rotated filter promises while no interval takes more than the
    /// `items_per_generation` it was planned for.
    ///
    /// # Example
    /// ```
    /// use amq::AgingBloom;
    /// let f = AgingBloom::with_time_window(3600, 4, 100_000, 0.001, 0)?;
    /// assert_eq!(f.fpr_bound(), 0.0); // nothing inserted yet
    /// assert!(f.fpr_bound_at(100_000) <= 0.001 && f.fpr_bound_at(100_000) > 0.0009);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn fpr_bound_at(&self, c: u64) -> f64 {
        math::any_of(
            math::fpr_exact(c, self.m, self.k),
            u64::from(self.generations),
        )
    }

    /// The expected false-positive rate now, from the items each live generation holds:
    /// `1 − Πⱼ(1 − (1 − (1 − 1/m)^(k·nⱼ))^k)`.
    pub fn estimated_fpr(&self) -> f64 {
        let live = self.live_mask(self.clock.now());
        math::any_of_each(
            (self.counts.iter().enumerate())
                .filter(|&(j, _)| live >> j & 1 == 1)
                .map(|(_, &n)| math::fpr_exact(n, self.m, self.k)),
        )
    }

    /// The 128-bit hash of `item` under this filter's seed.
    #[inline]
    pub fn hash<T: Item + ?Sized>(&self, item: &T) -> u128 {
        hash128(item, self.seed)
    }

    /// Generations (bit j for generation j) that still answer at time `now`.
    fn live_mask(&self, now: u64) -> u64 {
        let g = self.generations;
        let all = if g == 64 { u64::MAX } else { (1u64 << g) - 1 };
        let Rotation::Time(delta) = self.rotation else {
            return all;
        };
        let lag = (now / delta).saturating_sub(self.epoch);
        if lag >= u64::from(g) {
            return 0;
        }
        // ages 0 .. g − lag are live
        let mut mask = 0u64;
        for age in 0..(u64::from(g) - lag) as u32 {
            mask |= 1 << ((self.current + g - age) % g);
        }
        mask
    }

    /// Clears the oldest generation and makes it the current one: O(m·G/64).
    pub fn rotate(&mut self) {
        let g = self.generations;
        self.current = (self.current + 1) % g;
        let lane = lane_mask(self.group_bits);
        let clear = !(lane << self.current);
        for w in &mut self.words {
            *w &= clear;
        }
        self.counts[self.current as usize] = 0;
        if let Rotation::Count(_) = self.rotation {
            self.epoch = self.epoch.wrapping_add(1);
        }
    }

    /// Applies the time rotations due at the clock's current time (at most g clear the ring).
    pub fn expire(&mut self) {
        let Rotation::Time(delta) = self.rotation else {
            return;
        };
        let e = self.clock.now() / delta;
        if e <= self.epoch {
            return;
        }
        let steps = e - self.epoch;
        let g = u64::from(self.generations);
        for _ in 0..steps.min(g) {
            self.rotate();
        }
        if steps > g {
            self.current = ((u64::from(self.current) + (steps - g) % g) % g) as u32;
        }
        self.epoch = e;
    }

    /// Inserts a precomputed hash into the current generation (rotating first when it is full
    /// or its interval is over); `true` if any of its bits was zero there.
    pub fn insert_hash(&mut self, h: u128) -> bool {
        match self.rotation {
            Rotation::Count(c) => {
                if self.counts[self.current as usize] >= c {
                    self.rotate();
                }
            }
            Rotation::Time(_) => self.expire(),
        }
        let gb = u64::from(self.group_bits);
        let cur = u64::from(self.current);
        let mut new = false;
        for i in bloom_indices_with(h, self.m, self.k, self.indexing) {
            let bit = i * gb + cur;
            let word = &mut self.words[(bit >> 6) as usize];
            new |= (*word >> (bit & 63)) & 1 == 0;
            *word |= 1 << (bit & 63);
        }
        self.counts[self.current as usize] = self.counts[self.current as usize].saturating_add(1);
        self.inserted = self.inserted.saturating_add(1);
        new
    }

    /// "Maybe present within the window" (`true`) or "definitely not" (`false`) for a
    /// precomputed hash: some live generation has all k of its bits.
    #[inline]
    pub fn contains_hash(&self, h: u128) -> bool {
        self.has(h, self.live_mask(self.clock.now()))
    }

    /// `true` if a generation of `live` has all k bits of `h`.
    #[inline(always)]
    fn has(&self, h: u128, live: u64) -> bool {
        let mut acc = live;
        let gb = u64::from(self.group_bits);
        let group_mask = if gb == 64 { u64::MAX } else { (1u64 << gb) - 1 };
        for i in bloom_indices_with(h, self.m, self.k, self.indexing) {
            if acc == 0 {
                return false;
            }
            let bit = i * gb;
            acc &= (self.words[(bit >> 6) as usize] >> (bit & 63)) & group_mask;
        }
        acc != 0
    }

    /// Batched [`contains_hash`](Self::contains_hash): `out[i]` answers `hashes[i]`. In a
    /// filter of 16 MiB or more the k words of hash i + 8 are prefetched while hash i is
    /// tested.
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn contains_hash_batch(&self, hashes: &[u128], out: &mut [bool]) {
        crate::filter::check_batch(hashes.len(), out.len());
        self.batch(|j| hashes[j], out);
    }

    #[inline(always)]
    fn batch(&self, hash_of: impl Fn(usize) -> u128, out: &mut [bool]) {
        use crate::bloom::classic::AHEAD;
        let live = self.live_mask(self.clock.now());
        if self.size_bytes() < PREFETCH_MIN_BYTES {
            for (i, o) in out.iter_mut().enumerate() {
                *o = self.has(hash_of(i), live);
            }
            return;
        }
        let gb = u64::from(self.group_bits);
        let fetch = |j: usize| {
            let h = hash_of(j);
            for i in bloom_indices_with(h, self.m, self.k, self.indexing) {
                crate::bits::prefetch(&self.words[((i * gb) >> 6) as usize]);
            }
            h
        };
        crate::filter::pipelined::<_, AHEAD>(out, fetch, |h| self.has(h, live));
    }
}

/// Bit 0 of every G-bit group of a word.
fn lane_mask(group_bits: u32) -> u64 {
    let mut lane = 0u64;
    let mut at = 0;
    while at < 64 {
        lane |= 1 << at;
        at += group_bits;
    }
    lane
}

impl<T: Item + ?Sized, C: Clock> Filter<T> for AgingBloom<C> {
    /// "Maybe seen within the window" (`true`) or "definitely not" (`false`).
    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.contains_hash(self.hash(item))
    }

    /// Hashes item i + 8 and prefetches its k words while it tests item i, in a filter of
    /// 16 MiB or more ([`contains_hash_batch`](AgingBloom::contains_hash_batch)).
    fn contains_batch(&self, items: &[&T], out: &mut [bool]) {
        crate::filter::check_batch(items.len(), out.len());
        self.batch(|j| self.hash(items[j]), out);
    }
}

impl<T: Item + ?Sized, C: Clock> Insert<T> for AgingBloom<C> {
    /// Inserts into the current generation; never fails (a full generation rotates).
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        Ok(self.insert_hash(self.hash(item)))
    }
}
