//! The negative cache: a set with **no false positives** (at large b) that forgets instead.
//!
//! Where a filter answers "maybe present" or "definitely absent", a [`NegativeCache`] answers
//! **"definitely present"** (`true`, wrong with probability at most w·2⁻ᵇ) or **"maybe
//! absent"** (`false`). It is the structure a cache of keys known *not* to exist in a remote
//! store needs: a wrong "present" would hide a real value, a wrong "absent" costs one extra
//! request. So it does not implement [`Filter`](crate::Filter).
//!
//! It is a hash table that keeps only a b-bit fingerprint of each item and replaces instead of
//! chaining (the seed `negative-bloom-filter.md`, there called `ApproxSet`, after Ilmari
//! Karonen's answer to "Is there an anti-Bloom filter?", cs.stackexchange.com question 24118).
//! This module adds two things: a w-way set-associative layout with LRU replacement inside
//! each set, which at the same memory turns the false-negative rate from ≈ n/2ˡ into a
//! binomial tail ([`false_negative_rate`]), and an optional time to live per entry
//! ([`NegativeCache::with_ttl`]) against an injected [`Clock`].

use crate::clock::{Clock, NoClock};
use crate::error::{Error, Result};
use crate::filter::Item;
use crate::hash::{negative_hash, reduce, NegativeHash};
use crate::wire::{self, Kind};
use alloc::vec::Vec;

/// The largest l (2ˡ slots) a [`NegativeCache`] accepts: 2⁴⁰ slots.
pub const MAX_L: u32 = 40;
/// The largest fingerprint, in bits.
pub const MAX_B: u32 = 128;
/// The most slots per set (ways).
pub const MAX_WAYS: u32 = 64;

mod encoding;
mod fnr;

pub use fnr::{false_negative_rate, mean_false_negative_rate};

/// A negative cache of 2ˡ slots holding b-bit fingerprints, in sets of w slots (w = 1: the
/// direct-mapped table of the seed; w > 1: set-associative with LRU replacement).
///
/// * [`contains`](Self::contains) is `true` ("definitely present") for an item never inserted
///   with probability at most w·2⁻ᵇ ([`fpr_bound`](Self::fpr_bound)): 0 for every practical
///   purpose at b ≥ 64.
/// * An inserted item is forgotten ("maybe absent") when w later items land in its set
///   (replacement), when it expires (TTL), or when it is [`remove`](Self::remove)d. For n items
///   inserted after it, that happens with probability [`false_negative_rate`]`(n, 2ˡ, w)`:
///   `1 − (1 − 2⁻ˡ)ⁿ ≤ n/2ˡ` direct-mapped (6% for 2²⁰ slots and n = 2¹⁶); for 8 ways, at
///   the same memory, 6·10⁻⁸ (7·10⁻⁹ averaged over the n items, [`mean_false_negative_rate`]).
///
/// Memory: 2ˡ·(b + 1) bits (each slot is an occupied bit and the fingerprint, packed), plus
/// 64 bits per slot for the expiry times when a TTL is on.
///
/// The set is picked by the high bits of a 64-bit hash and the fingerprint comes from other,
/// independent hash bits ([`hash::negative_hash`](crate::hash::negative_hash)). Within a set
/// the occupied slots come first, most recently inserted first; a new item goes to the front
/// and pushes the least recently inserted one (or, with a TTL, an expired one) out.
///
/// # Example
/// ```
/// use amq::negative::NegativeCache;
/// let mut cache = NegativeCache::new(16, 128, 1, 0)?; // the seed's l = 16, b = 128 (its "1MB")
/// assert_eq!(cache.size_bytes(), 1_056_768); // 2^16 slots of 129 bits: 1 MiB and 1/128
/// cache.insert("missing-key-17");
/// assert!(cache.contains("missing-key-17")); // definitely present
/// assert!(!cache.contains("missing-key-18")); // maybe absent
/// cache.remove("missing-key-17"); // the key now exists upstream: forget it
/// assert!(!cache.contains("missing-key-17"));
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct NegativeCache<C = NoClock> {
    l: u32,
    b: u32,
    ways: u32,
    seed: u64,
    /// log2 of the number of sets.
    set_bits: u32,
    /// 2ˡ packed entries of b + 1 bits: bit 0 occupied, bits 1..=b the fingerprint.
    entries: Vec<u64>,
    /// With a TTL: the tick at which each slot's entry expires (0 for an empty slot).
    expiry: Option<Vec<u64>>,
    /// The TTL of [`insert`](Self::insert), in clock ticks (0 without a TTL).
    default_ttl: u64,
    inserted: u64,
    occupied: u64,
    clock: C,
}

/// Reads `len` (1..=64) bits at bit offset `off`.
#[inline(always)]
fn get_bits(words: &[u64], off: u64, len: u32) -> u64 {
    let w = (off >> 6) as usize;
    let s = (off & 63) as u32;
    let mut v = words[w] >> s;
    if s + len > 64 {
        v |= words[w + 1] << (64 - s);
    }
    if len < 64 {
        v & ((1u64 << len) - 1)
    } else {
        v
    }
}

/// Writes the low `len` (1..=64) bits of `value` at bit offset `off`.
#[inline(always)]
fn set_bits(words: &mut [u64], off: u64, len: u32, value: u64) {
    let w = (off >> 6) as usize;
    let s = (off & 63) as u32;
    let mask = if len < 64 {
        (1u64 << len) - 1
    } else {
        u64::MAX
    };
    let value = value & mask;
    words[w] = (words[w] & !(mask << s)) | (value << s);
    if s + len > 64 {
        let hi = 64 - s;
        words[w + 1] = (words[w + 1] & !(mask >> hi)) | (value >> hi);
    }
}

fn check_shape(l: u32, b: u32, ways: u32) -> Result<u32> {
    if l > MAX_L {
        return Err(Error::invalid(
            "l",
            alloc::format!("must be at most {MAX_L}, got {l}"),
        ));
    }
    if b == 0 || b > MAX_B {
        return Err(Error::invalid(
            "b",
            alloc::format!("must be between 1 and {MAX_B}, got {b}"),
        ));
    }
    if !ways.is_power_of_two() || ways > MAX_WAYS {
        return Err(Error::invalid(
            "ways",
            alloc::format!("must be a power of two up to {MAX_WAYS}, got {ways}"),
        ));
    }
    let way_bits = ways.trailing_zeros();
    if way_bits > l {
        return Err(Error::invalid(
            "ways",
            alloc::format!("{ways} ways do not fit in 2^{l} slots"),
        ));
    }
    let words = entry_words(l, b);
    if words > isize::MAX as u64 / 16 {
        return Err(Error::invalid("l", "too many slots for this platform"));
    }
    Ok(l - way_bits)
}

/// 64-bit words holding 2ˡ entries of b + 1 bits.
fn entry_words(l: u32, b: u32) -> u64 {
    ((1u64 << l) * u64::from(b + 1)).div_ceil(64)
}

/// The payload bytes of a cache of this shape (for the planner): the packed entries, and 8
/// bytes per slot with a TTL.
pub(crate) fn planned_bytes(l: u32, b: u32, ways: u32, ttl: Option<u64>) -> Result<u64> {
    check_shape(l, b, ways)?;
    if ttl == Some(0) {
        return Err(Error::invalid("ttl", "must be at least 1 tick"));
    }
    let expiry = if ttl.is_some() { 1u64 << l } else { 0 };
    Ok(8 * (entry_words(l, b) + expiry))
}

impl NegativeCache<NoClock> {
    /// An empty cache of 2ˡ slots of b-bit fingerprints in sets of `ways` slots, hashing with
    /// `seed`. `ways = 1` is the direct-mapped table of the seed document.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if l > [`MAX_L`], b is not in `1..=128`, or `ways` is not a
    /// power of two up to [`MAX_WAYS`] and at most 2ˡ; [`Error::OutOfMemory`] if the table
    /// cannot be allocated.
    pub fn new(l: u32, b: u32, ways: u32, seed: u64) -> Result<Self> {
        let set_bits = check_shape(l, b, ways)?;
        Ok(NegativeCache {
            l,
            b,
            ways,
            seed,
            set_bits,
            entries: crate::bits::try_zeroed(entry_words(l, b), "l")?,
            expiry: None,
            default_ttl: 0,
            inserted: 0,
            occupied: 0,
            clock: NoClock,
        })
    }
}

impl<C: Clock> NegativeCache<C> {
    /// Turns on expiry: from now on every entry lives `ttl` clock ticks from its (last)
    /// insertion unless [`insert_with_ttl`](Self::insert_with_ttl) says otherwise. Entries
    /// already held get `ttl` from the clock's current time. Costs 64 bits per slot.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if `ttl` is 0; [`Error::OutOfMemory`] if the 2ˡ expiry
    /// times cannot be allocated.
    pub fn with_ttl(mut self, ttl: u64) -> Result<Self> {
        if ttl == 0 {
            return Err(Error::invalid("ttl", "must be at least 1 tick"));
        }
        let until = self.clock.now().saturating_add(ttl);
        let mut expiry: Vec<u64> = crate::bits::try_zeroed(1u64 << self.l, "ttl")?;
        for (slot, e) in expiry.iter_mut().enumerate() {
            if self.occupied_at(slot as u64) {
                *e = until;
            }
        }
        self.expiry = Some(expiry);
        self.default_ttl = ttl;
        Ok(self)
    }

    /// The clock this filter reads the time from.
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The same cache reading time from `clock` (for the TTL).
    pub fn with_clock<D: Clock>(self, clock: D) -> NegativeCache<D> {
        NegativeCache {
            l: self.l,
            b: self.b,
            ways: self.ways,
            seed: self.seed,
            set_bits: self.set_bits,
            entries: self.entries,
            expiry: self.expiry,
            default_ttl: self.default_ttl,
            inserted: self.inserted,
            occupied: self.occupied,
            clock,
        }
    }

    /// l: the cache has 2ˡ slots.
    pub fn l(&self) -> u32 {
        self.l
    }
    /// b, the fingerprint bits.
    pub fn b(&self) -> u32 {
        self.b
    }
    /// w, the slots per set (1: direct-mapped).
    pub fn ways(&self) -> u32 {
        self.ways
    }
    /// The hash seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// 2ˡ, the number of slots.
    pub fn slots(&self) -> u64 {
        1u64 << self.l
    }
    /// The number of sets, 2ˡ/w.
    pub fn sets(&self) -> u64 {
        1u64 << self.set_bits
    }
    /// The TTL of [`insert`](Self::insert) in clock ticks, if expiry is on.
    pub fn ttl(&self) -> Option<u64> {
        self.expiry.as_ref().map(|_| self.default_ttl)
    }
    /// How many times an item was inserted (refreshes count too).
    pub fn inserted(&self) -> u64 {
        self.inserted
    }
    /// Slots holding an entry (expired entries still hold theirs until replaced).
    pub fn occupied(&self) -> u64 {
        self.occupied
    }
    /// The fraction of slots holding an entry.
    pub fn occupancy(&self) -> f64 {
        self.occupied as f64 / self.slots() as f64
    }
    /// Entries live at the clock's time: [`occupied`](Self::occupied) without a TTL, else the
    /// slots holding an entry that has not expired (O(2ˡ)). Only these can answer `true`.
    ///
    /// ```
    /// use amq::clock::ManualClock;
    /// use amq::NegativeCache;
    ///
    /// let clock = ManualClock::new(100);
    /// let mut c = NegativeCache::new(10, 16, 4, 0)?
    ///     .with_clock(clock.clone())
    ///     .with_ttl(10)?;
    /// c.insert("a"); // until 110
    /// c.insert_with_ttl("b", 30)?; // until 130
    /// clock.set(115);
    /// assert_eq!((c.occupied(), c.live_entries()), (2, 1));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn live_entries(&self) -> u64 {
        match &self.expiry {
            None => self.occupied,
            Some(e) => {
                let now = self.clock.now();
                (0..self.slots())
                    .filter(|&s| now < e[s as usize] && self.entry(s).is_some())
                    .count() as u64
            }
        }
    }
    /// Payload bytes: the packed entries, and the expiry times if a TTL is on.
    pub fn size_bytes(&self) -> u64 {
        8 * (self.entries.len() + self.expiry.as_ref().map_or(0, Vec::len)) as u64
    }

    /// The bound on the false-positive rate, `min(1, w·2⁻ᵇ)`: a query for an item never
    /// inserted meets at most w fingerprints, each equal to its own with probability 2⁻ᵇ.
    pub fn fpr_bound(&self) -> f64 {
        (f64::from(self.ways) * libm::exp2(-f64::from(self.b))).min(1.0)
    }

    /// The expected false-positive rate now: (live entries / 2ˡ)·w·2⁻ᵇ (the query's set
    /// holds that many live fingerprints on average; an expired one never answers `true`).
    /// O(2ˡ) with a TTL ([`live_entries`](Self::live_entries)), O(1) without.
    pub fn estimated_fpr(&self) -> f64 {
        self.fpr_at(self.live_entries())
    }

    /// The expected false-positive rate with `live` entries live.
    pub(crate) fn fpr_at(&self, live: u64) -> f64 {
        let load = live as f64 / self.slots() as f64;
        (load * f64::from(self.ways) * libm::exp2(-f64::from(self.b))).min(1.0)
    }

    /// The set hash and fingerprint of `item` under this cache's seed and b.
    #[inline]
    pub fn hash<T: Item + ?Sized>(&self, item: &T) -> NegativeHash {
        negative_hash(item, self.seed, self.b)
    }

    #[inline(always)]
    fn entry_bits(&self) -> u64 {
        u64::from(self.b) + 1
    }

    #[inline(always)]
    fn occupied_at(&self, slot: u64) -> bool {
        get_bits(&self.entries, slot * self.entry_bits(), 1) == 1
    }

    /// The fingerprint in `slot`, if occupied.
    #[inline(always)]
    fn entry(&self, slot: u64) -> Option<u128> {
        let off = slot * self.entry_bits();
        if get_bits(&self.entries, off, 1) == 0 {
            return None;
        }
        Some(if self.b <= 64 {
            u128::from(get_bits(&self.entries, off + 1, self.b))
        } else {
            u128::from(get_bits(&self.entries, off + 1, 64))
                | u128::from(get_bits(&self.entries, off + 65, self.b - 64)) << 64
        })
    }

    #[inline(always)]
    fn set_entry(&mut self, slot: u64, fp: Option<u128>) {
        let off = slot * self.entry_bits();
        let b = self.b;
        let v = fp.unwrap_or(0);
        set_bits(&mut self.entries, off, 1, u64::from(fp.is_some()));
        if b <= 64 {
            set_bits(&mut self.entries, off + 1, b, v as u64);
        } else {
            set_bits(&mut self.entries, off + 1, 64, v as u64);
            set_bits(&mut self.entries, off + 65, b - 64, (v >> 64) as u64);
        }
    }

    #[inline(always)]
    fn first_slot(&self, h: &NegativeHash) -> u64 {
        let set = if self.set_bits == 0 {
            0
        } else {
            reduce(h.set_hash, 1u64 << self.set_bits)
        };
        set << (self.l - self.set_bits)
    }

    #[inline(always)]
    fn live(&self, slot: u64, now: u64) -> bool {
        match &self.expiry {
            None => true,
            Some(e) => now < e[slot as usize],
        }
    }

    /// "Definitely present" (`true`) or "maybe absent" (`false`) for a precomputed hash.
    #[inline]
    pub fn contains_hash(&self, h: NegativeHash) -> bool {
        self.probe(self.first_slot(&h), h.fingerprint)
    }

    /// "Definitely present" (`true`) or "maybe absent" (`false`).
    #[inline]
    pub fn contains<T: Item + ?Sized>(&self, item: &T) -> bool {
        self.contains_hash(self.hash(item))
    }

    /// Answers a batch: `out[i] = self.contains(items[i])`.
    ///
    /// Hashes a group of 16 items before probing any of them, so the probes' cache misses
    /// overlap instead of waiting behind each hash.
    ///
    /// # Panics
    /// If `out.len() != items.len()`.
    pub fn contains_batch<T: Item + ?Sized>(&self, items: &[&T], out: &mut [bool]) {
        crate::filter::check_batch(items.len(), out.len());
        const GROUP: usize = 16;
        let mut slots = [(0u64, 0u128); GROUP];
        for (items, out) in items.chunks(GROUP).zip(out.chunks_mut(GROUP)) {
            for (slot, item) in slots.iter_mut().zip(items) {
                let h = self.hash(*item);
                *slot = (self.first_slot(&h), h.fingerprint);
            }
            for (answer, &(first, fp)) in out.iter_mut().zip(&slots) {
                *answer = self.probe(first, fp);
            }
        }
    }

    #[inline(always)]
    fn probe(&self, first: u64, fp: u128) -> bool {
        if self.ways == 1 {
            return self.entry(first) == Some(fp)
                && (self.expiry.is_none() || self.live(first, self.clock.now()));
        }
        for slot in first..first + u64::from(self.ways) {
            match self.entry(slot) {
                None => return false, // occupied slots come first
                Some(x) if x == fp => {
                    return self.expiry.is_none() || self.live(slot, self.clock.now());
                }
                Some(_) => {}
            }
        }
        false
    }

    /// Moves the entries of slots `from..to` one slot up (to `from + 1..=to`), with their
    /// expiry times.
    fn shift_down(&mut self, from: u64, to: u64) {
        let mut slot = to;
        while slot > from {
            let e = self.entry(slot - 1);
            self.set_entry(slot, e);
            if let Some(exp) = &mut self.expiry {
                exp[slot as usize] = exp[slot as usize - 1];
            }
            slot -= 1;
        }
    }

    fn insert_until(&mut self, h: NegativeHash, until: u64) -> bool {
        self.inserted = self.inserted.saturating_add(1);
        let now = self.clock.now();
        let first = self.first_slot(&h);
        let fp = h.fingerprint;
        let ways = u64::from(self.ways);
        let mut used = ways;
        let mut found = None;
        for j in 0..ways {
            match self.entry(first + j) {
                None => {
                    used = j;
                    break;
                }
                Some(x) if x == fp => {
                    found = Some(j);
                    break;
                }
                Some(_) => {}
            }
        }
        let (victim, fresh) = match found {
            Some(j) => (j, !self.live(first + j, now)),
            None if used < ways => {
                self.occupied += 1;
                (used, true)
            }
            None => {
                // Full set: an expired entry if there is one (the oldest first), else the
                // least recently inserted.
                let expired = (0..ways).rev().find(|&j| !self.live(first + j, now));
                (expired.unwrap_or(ways - 1), true)
            }
        };
        self.shift_down(first, first + victim);
        self.set_entry(first, Some(fp));
        if let Some(exp) = &mut self.expiry {
            exp[first as usize] = until;
        }
        fresh
    }

    /// Inserts a precomputed hash (with the default TTL, if on); `true` if it was not held
    /// (or had expired).
    #[inline]
    pub fn insert_hash(&mut self, h: NegativeHash) -> bool {
        let until = self.clock.now().saturating_add(self.default_ttl);
        self.insert_until(h, until)
    }

    /// Inserts `item` (with the default TTL, if on), replacing the least recently inserted
    /// entry of its set when the set is full; `true` if it was not held (or had expired).
    #[inline]
    pub fn insert<T: Item + ?Sized>(&mut self, item: &T) -> bool {
        self.insert_hash(self.hash(item))
    }

    /// Inserts `item` to live `ttl` clock ticks from now.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if the cache has no TTL ([`with_ttl`](Self::with_ttl))
    /// or `ttl` is 0.
    pub fn insert_with_ttl<T: Item + ?Sized>(&mut self, item: &T, ttl: u64) -> Result<bool> {
        if self.expiry.is_none() {
            return Err(Error::invalid(
                "ttl",
                "this cache has no expiry: build it with_ttl",
            ));
        }
        if ttl == 0 {
            return Err(Error::invalid("ttl", "must be at least 1 tick"));
        }
        let until = self.clock.now().saturating_add(ttl);
        Ok(self.insert_until(self.hash(item), until))
    }

    /// Forgets a precomputed hash; `true` if it was held and live.
    pub fn remove_hash(&mut self, h: NegativeHash) -> bool {
        let now = self.clock.now();
        let first = self.first_slot(&h);
        let ways = u64::from(self.ways);
        let Some(j) = (0..ways)
            .map_while(|j| self.entry(first + j).map(|x| (j, x)))
            .find(|&(_, x)| x == h.fingerprint)
            .map(|(j, _)| j)
        else {
            return false;
        };
        let live = self.live(first + j, now);
        let mut slot = first + j;
        while slot + 1 < first + ways {
            let next = self.entry(slot + 1);
            if next.is_none() {
                break;
            }
            self.set_entry(slot, next);
            if let Some(exp) = &mut self.expiry {
                exp[slot as usize] = exp[slot as usize + 1];
            }
            slot += 1;
        }
        self.set_entry(slot, None);
        if let Some(exp) = &mut self.expiry {
            exp[slot as usize] = 0;
        }
        self.occupied -= 1;
        live
    }

    /// Forgets `item` (for example because the key now exists upstream); `true` if it was held
    /// and live. A fingerprint match of another item (probability ≤ w·2⁻ᵇ) removes that one.
    pub fn remove<T: Item + ?Sized>(&mut self, item: &T) -> bool {
        self.remove_hash(self.hash(item))
    }

    /// Empties the cache.
    pub fn clear(&mut self) {
        self.entries.fill(0);
        if let Some(e) = &mut self.expiry {
            e.fill(0);
        }
        self.occupied = 0;
        self.inserted = 0;
    }
}

#[cfg(test)]
mod tests;
