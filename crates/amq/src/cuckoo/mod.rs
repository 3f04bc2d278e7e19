//! The cuckoo filter: fingerprints in a cuckoo hash table, with deletion.
//!
//! A [`CuckooFilter`] keeps an f-bit fingerprint of each item in one of two buckets of b = 4
//! slots. The second bucket is computed from the first and the fingerprint alone (partial-key
//! cuckoo hashing), so a fingerprint can be moved to make room without the item, and an item
//! can be deleted by clearing one copy of its fingerprint. (Fan, Andersen, Kaminsky and
//! Mitzenmacher, "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014; the seed
//! `bloom-cuckoo-sliding-window.md`.)
//!
//! * Lookup: two buckets, eight fingerprints compared four at a time with SWAR on one packed
//!   word per bucket (no loop, one branch).
//! * False-positive rate at load factor α: `ε ≈ 1 − (1 − 2^−f)^(2bα)` ([`fpr`]); this
//!   implementation's fingerprints are uniform over the 2^f − 1 non-zero values, which makes
//!   it `1 − (1 − 1/(2^f − 1))^(2bα)` ([`fpr_exact`]).
//! * Sizing from n and ε: `f = ⌈log2(2b/ε)⌉` rounded up to a supported width (8, 12 or 16
//!   bits, [`fingerprint_bits_for`]), and ⌈n/(b·0.95)⌉ buckets ([`buckets_for`]).
//! * Inserts move at most [`MAX_KICKS`] fingerprints; the one left without a place goes to a
//!   one-slot victim stash, so no insert ever loses an item. While the stash is taken, an
//!   insert that would need to move fingerprints returns [`Error::Full`] and changes nothing.
//!
//! ```
//! use amq::cuckoo::CuckooFilter;
//! use amq::{Filter, Insert, Remove};
//!
//! let mut f = CuckooFilter::with_fpr(10_000, 0.001, 0)?;
//! assert_eq!(f.fingerprint_bits(), 16); // ⌈log2(8/0.001)⌉ = 13, rounded up to 16
//! f.insert("alice")?;
//! f.insert("bob")?;
//! assert!(f.contains("alice"));
//! assert!(f.remove("alice"));
//! assert!(!f.contains("alice"));
//! assert!(f.contains("bob"));
//! # Ok::<(), amq::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item, Merge, Remove};
use crate::hash::{cuckoo_alt_index, cuckoo_fingerprint, cuckoo_index, hash128};
use crate::math::Target;
use alloc::vec::Vec;

/// b, the slots per bucket.
pub const SLOTS_PER_BUCKET: u32 = 4;
/// The most fingerprints one insert moves before it puts the last one in the victim stash.
pub const MAX_KICKS: u32 = 500;
/// The supported fingerprint widths f, in bits.
pub const FINGERPRINT_BITS: [u32; 3] = [8, 12, 16];
/// The load factor the sizing functions plan for, so n items fit in ⌈n/(4 · 0.95)⌉ buckets
/// (small tables get a margin: [`planned_load`]).
///
/// With b = 4 the paper's random walk fills 95.5% of the slots (Fan et al. 2014, Table 2);
/// the walk here also looks one move ahead at each step and fills 96–97% at a million items
/// before the first refusal (tests/cuckoo.rs checks ≥ 95%).
pub const PLANNED_LOAD: f64 = 0.95;
/// The most buckets a filter may have (2³⁶: 256 GiB of 16-bit fingerprints).
pub const MAX_BUCKETS: u64 = 1 << 36;
/// Zero bytes after the table, so that every bucket can be read as one 8-byte load.
const PAD: usize = 8;
/// How many items ahead the batched queries prefetch.
const AHEAD: usize = 16;

#[macro_use]
mod lanes;
mod encoding;
mod expandable;
mod expandable_encoding;
mod insert;
mod plan;

/// SplitMix64: the pseudo-random walk of the kicks, seeded from the bucket and fingerprint
/// being inserted, so a table is a deterministic function of its inserts and removals.
use crate::hash::splitmix64 as splitmix;
pub use expandable::{expandable_plan, ExpandableCuckooFilter, ExpandableParams, MAX_LINKS};
use lanes::{Lanes, Probe};
pub use plan::{buckets_for, fingerprint_bits_for, fpr, fpr_exact, plan, planned_load, CuckooPlan};

/// The cuckoo filter of Fan, Andersen, Kaminsky and Mitzenmacher (CoNEXT 2014): a table of
/// `buckets` buckets of 4 slots holding f-bit fingerprints (f = 8, 12 or 16, packed: a bucket
/// is 4f bits), with deletion.
///
/// An item is hashed once with XXH3-128 under the filter's seed
/// ([`hash::hash128`](crate::hash::hash128)). Its fingerprint comes from the high 64 bits
/// ([`hash::cuckoo_fingerprint`](crate::hash::cuckoo_fingerprint), never zero, since zero
/// marks an empty slot), its first bucket i₁ from the low 64 bits
/// ([`hash::cuckoo_index`](crate::hash::cuckoo_index)), and its second bucket from i₁ and the
/// fingerprint only: `i₂ = (o(fp) − i₁) mod buckets`
/// ([`hash::cuckoo_alt_index`](crate::hash::cuckoo_alt_index)). This is the paper's
/// partial-key cuckoo hashing with the XOR replaced by a subtraction: it is still an
/// involution (i₁ = (o(fp) − i₂) mod buckets), so a fingerprint moves between its two buckets
/// without the item, and the bucket count need not be a power of two, which saves up to half
/// the memory.
///
/// An insert puts the fingerprint in an empty slot of either bucket; if both are full it
/// evicts a random fingerprint of one of them, moves it to its other bucket, and so on for
/// at most [`MAX_KICKS`] moves. The fingerprint still homeless then goes to a one-slot victim
/// stash, which lookups also check. While the stash is taken, an insert whose buckets are both
/// full returns [`Error::Full`] and changes nothing, so every item inserted before is still
/// found; removing any item empties the stash again.
///
/// The filter is a multiset of fingerprints: inserting an item twice stores two copies
/// ([`count`](Self::count)), and [`remove`](Remove::remove) clears one. At most 2b = 8 copies
/// of one item fit.
///
/// # Example
/// ```
/// use amq::cuckoo::CuckooFilter;
/// use amq::{Filter, Insert, Remove};
///
/// let mut f = CuckooFilter::new(1024, 12, 7)?; // 1024 buckets of 4 × 12 bits: 6 KiB
/// for i in 0..3000u32 {
///     f.insert(&i)?;
/// }
/// assert!((0..3000u32).all(|i| f.contains(&i)));
/// assert!((f.load_factor() - 3000.0 / 4096.0).abs() < 1e-12);
/// f.insert(&7u32)?; // a second copy
/// assert_eq!(f.count(&7u32), 2);
/// assert!(f.remove(&7u32));
/// assert!(f.contains(&7u32));
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CuckooFilter {
    /// `buckets · f/2` bytes of packed buckets, then [`PAD`] zero bytes.
    table: Vec<u8>,
    buckets: u64,
    f: u32,
    seed: u64,
    /// Fingerprints held, the victim included.
    len: u64,
    /// The victim stash: its fingerprint (0: empty) and the bucket it failed to enter.
    victim_fp: u32,
    victim_bucket: u64,
}

impl CuckooFilter {
    /// An empty filter of `buckets` buckets (any number from 1 to [`MAX_BUCKETS`]) of 4 slots
    /// of `fingerprint_bits` bits (8, 12 or 16), with the given seed.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a bucket count or width out of range;
    /// [`Error::OutOfMemory`] if the table cannot be allocated.
    ///
    /// # Example
    /// ```
    /// let f = amq::CuckooFilter::new(1000, 12, 0)?; // 1000 buckets: 4000 slots, 6000 bytes
    /// assert_eq!((f.slots(), f.size_bytes(), f.m()), (4000, 6000, 48_000));
    /// assert!(amq::CuckooFilter::new(1000, 10, 0).is_err());
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn new(buckets: u64, fingerprint_bits: u32, seed: u64) -> Result<Self> {
        if !FINGERPRINT_BITS.contains(&fingerprint_bits) {
            return Err(Error::invalid(
                "fingerprint_bits",
                alloc::format!("must be 8, 12 or 16, got {fingerprint_bits}"),
            ));
        }
        if buckets == 0 || buckets > MAX_BUCKETS {
            return Err(Error::invalid(
                "buckets",
                alloc::format!("must be between 1 and {MAX_BUCKETS}, got {buckets}"),
            ));
        }
        let bytes = buckets * u64::from(fingerprint_bits / 2) + PAD as u64;
        Ok(CuckooFilter {
            table: crate::bits::try_zeroed(bytes, "buckets")?,
            buckets,
            f: fingerprint_bits,
            seed,
            len: 0,
            victim_fp: 0,
            victim_bucket: 0,
        })
    }

    /// A filter for `n` items whose false-positive rate at n items is at most `fpr`
    /// ([`plan`] with [`Target::Fpr`]).
    ///
    /// # Errors
    /// As [`plan`]: [`Error::InvalidParameter`] for n = 0 or an fpr the fingerprints cannot
    /// reach; [`Error::OutOfMemory`] if the table cannot be allocated.
    ///
    /// # Example
    /// ```
    /// let f = amq::CuckooFilter::with_fpr(1_000_000, 0.01, 0)?;
    /// assert_eq!(f.fingerprint_bits(), 12); // ⌈log2(8/0.01)⌉ = 10, rounded up to 12
    /// assert_eq!(f.buckets(), 263_158); // ⌈10⁶ / (4 · 0.95)⌉
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn with_fpr(n: u64, fpr: f64, seed: u64) -> Result<Self> {
        let p = plan(n, Target::Fpr(fpr))?;
        Self::new(p.buckets, p.fingerprint_bits, seed)
    }

    /// A filter for `n` items with `fingerprint_bits`-bit fingerprints ([`buckets_for`]).
    ///
    /// # Errors
    /// As [`new`](Self::new) and [`buckets_for`].
    pub fn with_capacity(n: u64, fingerprint_bits: u32, seed: u64) -> Result<Self> {
        Self::new(buckets_for(n)?, fingerprint_bits, seed)
    }

    /// The number of buckets.
    #[inline]
    pub fn buckets(&self) -> u64 {
        self.buckets
    }
    /// f, the fingerprint width in bits.
    #[inline]
    pub fn fingerprint_bits(&self) -> u32 {
        self.f
    }
    /// The slots: `4 · buckets`.
    #[inline]
    pub fn slots(&self) -> u64 {
        self.buckets * u64::from(SLOTS_PER_BUCKET)
    }
    /// The seed of the XXH3-128 item hash.
    #[inline]
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// Fingerprints held (inserts minus removals), the victim stash included.
    #[inline]
    pub fn inserted(&self) -> u64 {
        self.len
    }
    /// `true` if no fingerprint is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// α, the load factor: fingerprints held over slots. The one-slot victim stash counts
    /// among those held but not among the slots, so a full table reads up to 1 + 1/slots
    /// (1.25 for a table of one bucket).
    pub fn load_factor(&self) -> f64 {
        self.len as f64 / self.slots() as f64
    }
    /// `true` while the victim stash holds a fingerprint: the table is full, and an insert
    /// whose two buckets are full returns [`Error::Full`].
    #[inline]
    pub fn stash_used(&self) -> bool {
        self.victim_fp != 0
    }
    /// m, the bits of the table: `buckets · 4 · f`.
    pub fn m(&self) -> u64 {
        self.buckets * u64::from(SLOTS_PER_BUCKET * self.f)
    }
    /// Table size in bytes: `buckets · f/2`.
    pub fn size_bytes(&self) -> u64 {
        self.buckets * u64::from(self.f / 2)
    }
    /// The false-positive rate at the current load factor, [`fpr_exact`].
    pub fn estimated_fpr(&self) -> f64 {
        fpr_exact(self.f, self.load_factor())
    }

    /// The 128-bit hash of `item` under this filter's seed, for the `*_hash` methods. Any
    /// filter with the same seed accepts it (Bloom filters too).
    #[inline]
    pub fn hash<T: Item + ?Sized>(&self, item: &T) -> u128 {
        hash128(item, self.seed)
    }

    /// The first bucket and the fingerprint of a hash.
    #[inline(always)]
    fn locate(&self, h: u128) -> (u64, u32) {
        (cuckoo_index(h, self.buckets), cuckoo_fingerprint(h, self.f))
    }

    #[inline(always)]
    fn alt(&self, i: u64, fp: u32) -> u64 {
        cuckoo_alt_index(i, fp, self.buckets)
    }

    #[inline(always)]
    fn victim_is(&self, fp: u32, i1: u64, i2: u64) -> bool {
        (self.victim_fp == fp) & ((self.victim_bucket == i1) | (self.victim_bucket == i2))
    }

    /// "Maybe present" (`true`) or "definitely absent" (`false`) for a precomputed hash.
    ///
    /// # Example
    /// ```
    /// use amq::{BloomFilter, CuckooFilter, Insert};
    /// let (mut c, mut b) = (CuckooFilter::new(64, 16, 5)?, BloomFilter::new(1024, 4, 5)?);
    /// let h = amq::hash::hash128("apple", 5); // hash once, probe both
    /// c.insert_hash(h)?;
    /// b.insert_hash(h);
    /// assert!(c.contains_hash(h) && b.contains_hash(h));
    /// assert!(c.remove_hash(h));
    /// assert!(!c.contains_hash(h));
    /// # Ok::<(), amq::Error>(())
    /// ```
    #[inline]
    pub fn contains_hash(&self, h: u128) -> bool {
        with_f!(self.f, F => self.holds::<F>(self.probe_f::<F>(h)))
    }

    /// Either bucket of `p`, or the victim stash, holds its fingerprint.
    #[inline(always)]
    fn holds<const F: u32>(&self, p: Probe) -> bool {
        Lanes::<F>::has(&self.table, p.i1, p.i2, p.fp) | self.victim_is(p.fp, p.i1, p.i2)
    }

    /// The two buckets and the fingerprint of a hash.
    #[inline(always)]
    fn probe(&self, h: u128) -> Probe {
        let (i1, fp) = self.locate(h);
        Probe {
            i1,
            i2: self.alt(i1, fp),
            fp,
        }
    }

    /// [`probe`](Self::probe) with the fingerprint width a constant `F` (`self.f`), so the
    /// fingerprint's range is an immediate.
    #[inline(always)]
    fn probe_f<const F: u32>(&self, h: u128) -> Probe {
        debug_assert_eq!(F, self.f);
        let (i1, fp) = (cuckoo_index(h, self.buckets), cuckoo_fingerprint(h, F));
        Probe {
            i1,
            i2: self.alt(i1, fp),
            fp,
        }
    }

    /// The probe of `h`, with both of its buckets prefetched.
    #[inline(always)]
    fn prefetch_probe<const F: u32>(&self, h: u128) -> Probe {
        let p = self.probe_f::<F>(h);
        crate::bits::prefetch(&self.table[p.i1 as usize * Lanes::<F>::BYTES]);
        crate::bits::prefetch(&self.table[p.i2 as usize * Lanes::<F>::BYTES]);
        p
    }

    /// Answers `n` queries, `probe_of(j)` giving query j, into `out`: prefetches the two
    /// buckets of query i + 16 while it tests query i, so the cache misses of a large table
    /// overlap instead of following one another.
    #[inline(always)]
    fn batch<const F: u32>(&self, n: usize, probe_of: impl Fn(usize) -> Probe, out: &mut [bool]) {
        let fetch = |j: usize| {
            let p = probe_of(j);
            crate::bits::prefetch(&self.table[p.i1 as usize * Lanes::<F>::BYTES]);
            crate::bits::prefetch(&self.table[p.i2 as usize * Lanes::<F>::BYTES]);
            p
        };
        crate::filter::pipelined::<_, AHEAD>(&mut out[..n], fetch, |p| self.holds::<F>(p));
    }

    /// Batched [`contains_hash`](Self::contains_hash): `out[i]` answers `hashes[i]`, with the
    /// buckets of later hashes prefetched while earlier ones are tested.
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn contains_hash_batch(&self, hashes: &[u128], out: &mut [bool]) {
        crate::filter::check_batch(hashes.len(), out.len());
        with_f!(self.f, F => self.batch::<F>(hashes.len(), |j| self.probe_f::<F>(hashes[j]), out));
    }

    /// Removes one copy of a precomputed hash's fingerprint; `true` if one was found.
    ///
    /// Only remove what was inserted: removing an item never inserted whose fingerprint and
    /// buckets match another item's removes that item.
    pub fn remove_hash(&mut self, h: u128) -> bool {
        let Probe { i1, i2, fp } = self.probe(h);
        let removed = with_f!(self.f, F => {
            Lanes::<F>::remove(&mut self.table, i1, fp)
                || Lanes::<F>::remove(&mut self.table, i2, fp)
        });
        if removed {
            self.len -= 1;
            if self.stash_used() {
                // A slot is free now: give the victim a place in the table.
                let (vfp, vb) = (self.victim_fp, self.victim_bucket);
                self.victim_fp = 0;
                self.victim_bucket = 0;
                self.len -= 1;
                // the stash is empty again, so this cannot fail
                let placed = self.insert_fingerprint(vb, vfp);
                debug_assert!(placed.is_ok());
            }
            return true;
        }
        if self.victim_is(fp, i1, i2) {
            self.victim_fp = 0;
            self.victim_bucket = 0;
            self.len -= 1;
            return true;
        }
        false
    }

    /// The copies of a precomputed hash's fingerprint in its two buckets and the stash.
    pub fn count_hash(&self, h: u128) -> u32 {
        let Probe { i1, i2, fp } = self.probe(h);
        let in_table = with_f!(self.f, F => {
            Lanes::<F>::count(&self.table, i1, fp)
                + if i2 != i1 { Lanes::<F>::count(&self.table, i2, fp) } else { 0 }
        });
        in_table + u32::from(self.victim_is(fp, i1, i2))
    }

    /// The copies of `item`'s fingerprint held: how many times it was inserted and not
    /// removed, plus any other item with the same fingerprint and buckets.
    pub fn count<T: Item + ?Sized>(&self, item: &T) -> u32 {
        self.count_hash(self.hash(item))
    }

    /// Removes every fingerprint.
    pub fn clear(&mut self) {
        self.table.fill(0);
        self.len = 0;
        self.victim_fp = 0;
        self.victim_bucket = 0;
    }

    /// Every stored fingerprint with the bucket it sits in: `(bucket, fingerprint)`, the
    /// victim last.
    fn entries(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        let table = &self.table;
        let f = self.f;
        let victim = (self.victim_fp != 0).then_some((self.victim_bucket, self.victim_fp));
        (0..self.buckets)
            .flat_map(move |i| {
                (0..SLOTS_PER_BUCKET)
                    .map(move |s| (i, with_f!(f, F => Lanes::<F>::get(table, i, s))))
            })
            .filter(|&(_, fp)| fp != 0)
            .chain(victim)
    }

    fn check_shape(&self, other: &Self) -> Result<()> {
        Error::check_same_shape(&[
            ("buckets", self.buckets, other.buckets),
            ("fingerprint_bits", u64::from(self.f), u64::from(other.f)),
            ("seed", self.seed, other.seed),
        ])
    }

    /// Union as multisets: every fingerprint of `other` is inserted into `self` (from the
    /// bucket it sits in, which with its fingerprint gives both of the item's buckets), so
    /// `self` then answers "maybe" for every item of either filter.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless the bucket count, fingerprint width and seed are
    /// identical; [`Error::Full`] if the fingerprints do not all fit. `self` is unchanged on
    /// any error.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        self.check_shape(other)?;
        let mut merged = self.clone();
        for (i, fp) in other.entries() {
            merged.insert_fingerprint(i, fp)?;
        }
        *self = merged;
        Ok(())
    }
}

impl<T: Item + ?Sized> Filter<T> for CuckooFilter {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.contains_hash(self.hash(item))
    }

    /// Hashes item i + 16 and prefetches its two buckets while it tests item i.
    fn contains_batch(&self, items: &[&T], out: &mut [bool]) {
        crate::filter::check_batch(items.len(), out.len());
        with_f!(self.f, F => {
            self.batch::<F>(items.len(), |j| self.probe_f::<F>(self.hash(items[j])), out)
        });
    }
}

impl<T: Item + ?Sized> Insert<T> for CuckooFilter {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        self.insert_hash(self.hash(item))
    }
}

impl<T: Item + ?Sized> Remove<T> for CuckooFilter {
    #[inline]
    fn remove(&mut self, item: &T) -> bool {
        self.remove_hash(self.hash(item))
    }
}

impl Merge for CuckooFilter {
    fn merge(&mut self, other: &Self) -> Result<()> {
        self.union(other)
    }
}

#[cfg(test)]
mod tests;
