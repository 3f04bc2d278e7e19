//! The sliding-window cuckoo filter: a membership set that grows without bound, by
//! registration epochs, with deletion.
//!
//! The seed `bloom-cuckoo-sliding-window.md` proposes it for the light clients of a
//! rate-limiting-nullifier (RLN) network: registering a member is an append, slashing one is
//! a deletion, and "the sliding window can be adapted to cuckoo filters as well", each user
//! keeping the epoch in which they registered. A [`SlidingWindowCuckoo`] is a sequence of
//! cuckoo filters, one per *epoch* of B registrations (as the
//! [`SlidingWindowBloom`](crate::SlidingWindowBloom) batches positions):
//!
//! * [`register`](SlidingWindowCuckoo::register) adds a member to the open epoch and returns
//!   its number; after B registrations the epoch closes and the next one opens.
//! * [`contains`](SlidingWindowCuckoo::contains)`(item, epoch)` answers for the epoch the
//!   member registered in; [`slash`](SlidingWindowCuckoo::slash)`(item, epoch)` deletes it
//!   there, and refuses (changing nothing) when it is definitely absent. A member stays until
//!   slashed.
//! * A closed epoch is *compacted*: its table shrinks to the fewest buckets (a power of two)
//!   that hold its live members ([`log2_buckets_for`]), and again when slashing leaves it
//!   half empty. It stays queryable.
//! * [`export_epoch`](SlidingWindowCuckoo::export_epoch) writes one epoch alone, so a light
//!   client downloads only what changed, and [`apply_epoch`](SlidingWindowCuckoo::apply_epoch)
//!   puts it into its copy.
//!
//! **ε.** A query reads two buckets of one epoch's table, so at that table's load α
//! `ε = 1 − (1 − 1/(2^f − 1))^(8α)`. No table is ever fuller than [`PLANNED_LOAD`] (0.95), so
//! f = [`fingerprint_bits_for`] ε bounds every query. **Size.** An epoch holding L members
//! takes `2ᵏ · ⌈4f/8⌉` bytes, k = [`log2_buckets_for`]`(L)`: between f/0.95 and 2f/0.95 bits
//! per member (B = ⌊0.95 · 4 · 2ᵏ⌋ fills its table best: 7,782, 15,564, 31,129, 62,259, ...).
//!
//! Index derivation: the first bucket is the top k bits of the item hash's low half and the
//! alternate is `i ⊕ top_k(fp · C)`
//! ([`hash::halving_cuckoo_index`](crate::hash::halving_cuckoo_index),
//! [`hash::halving_cuckoo_alt_index`](crate::hash::halving_cuckoo_alt_index)), so halving a table
//! moves both buckets of every item together. (Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo
//! Filter: Practically Better Than Bloom", CoNEXT 2014.)
//!
//! ```
//! use amq::rln::SlidingWindowCuckoo;
//! let mut set = SlidingWindowCuckoo::with_fpr(1000, 0.001, 0)?; // epochs of 1000
//! let e = set.register("alice")?;
//! for i in 0..2500u32 {
//!     set.register(&i)?;
//! }
//! assert_eq!((e, set.epochs()), (0, 3));
//! assert!(set.contains("alice", e));
//! assert!(set.slash("alice", e));
//! assert!(!set.contains("alice", e));
//! assert!(!set.slash("alice", e)); // definitely absent: nothing changed
//! # Ok::<(), amq::Error>(())
//! ```

mod encoding;
mod epoch;
mod limit;
mod plan;

pub use plan::{
    epoch_bytes_for, fingerprint_bits_for, log2_buckets_for, plan, RlnPlan, RlnSpec,
    MAX_LOG2_BUCKETS, MIN_FINGERPRINT_BITS,
};

use crate::cuckoo::{fpr_exact, PLANNED_LOAD};
use crate::error::{Error, Result};
use crate::filter::Item;
use crate::hash::hash128;
use crate::list;
use crate::ttl::lanes::{Shape, MAX_SLOT_BITS, SLOTS};
use alloc::vec::Vec;
use epoch::Epoch;

/// A set that grows by registration epochs of B members, each epoch a cuckoo filter of 2ᵏ
/// buckets of 4 f-bit fingerprints, with deletion (the module docs have the rules and the
/// formulas).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlidingWindowCuckoo {
    shape: Shape,
    epoch_items: u64,
    /// k of an open epoch.
    log2_buckets: u32,
    seed: u64,
    /// The number of `epochs[0]` (0, or the epoch of an export).
    first: u64,
    epochs: Vec<Epoch>,
    /// The last epoch takes registrations.
    open: bool,
}

/// One epoch of a [`SlidingWindowCuckoo`], as [`epoch`](SlidingWindowCuckoo::epoch) shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EpochInfo {
    /// The epoch's number.
    pub epoch: u64,
    /// Registrations into it.
    pub registered: u64,
    /// Members it holds: registrations less slashes.
    pub members: u64,
    /// Buckets of its table (2ᵏ).
    pub buckets: u64,
    /// Bytes of its table.
    pub bytes: u64,
    /// α, members over slots.
    pub load_factor: f64,
    /// ε of a query at this epoch: `1 − (1 − 1/(2^f − 1))^(8α)`.
    pub fpr: f64,
    /// `true` while it takes registrations (not compacted yet).
    pub open: bool,
}

/// Checks a shape: 1 ≤ B ≤ 4 · 2ᵏ, k ≤ 36, 2 ≤ f ≤ 32.
pub(crate) fn check(epoch_items: u64, fingerprint_bits: u32, log2_buckets: u32) -> Result<()> {
    if !(MIN_FINGERPRINT_BITS..=MAX_SLOT_BITS).contains(&fingerprint_bits) {
        return Err(Error::invalid(
            "fingerprint_bits",
            alloc::format!("must be between 2 and 32, got {fingerprint_bits}"),
        ));
    }
    if log2_buckets > MAX_LOG2_BUCKETS {
        return Err(Error::invalid(
            "log2_buckets",
            alloc::format!("must be at most {MAX_LOG2_BUCKETS}, got {log2_buckets}"),
        ));
    }
    if epoch_items == 0 {
        return Err(Error::invalid(
            "epoch_items",
            "an epoch takes at least 1 registration, got 0",
        ));
    }
    if epoch_items > u64::from(SLOTS) << log2_buckets {
        return Err(Error::invalid(
            "epoch_items",
            alloc::format!(
                "must be at most the {} slots of an epoch's table (2^{log2_buckets} buckets \
                 of {SLOTS}), got {epoch_items}",
                u64::from(SLOTS) << log2_buckets
            ),
        ));
    }
    Ok(())
}

impl SlidingWindowCuckoo {
    /// An empty set whose epochs take `epoch_items` registrations (B, at least 1 and at most
    /// the slots) into tables of `2^log2_buckets` buckets (at most 2³⁶) of 4
    /// `fingerprint_bits`-bit fingerprints (2 to 32).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a parameter out of range.
    ///
    /// # Example
    /// ```
    /// let set = amq::rln::SlidingWindowCuckoo::new(3891, 12, 10, 0)?;
    /// assert_eq!((set.epochs(), set.size_bytes()), (0, 0)); // an epoch opens on registration
    /// assert_eq!(set.epoch_bytes(), 1024 * 6); // each epoch: 2^10 buckets of 4 × 12 bits
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn new(
        epoch_items: u64,
        fingerprint_bits: u32,
        log2_buckets: u32,
        seed: u64,
    ) -> Result<Self> {
        check(epoch_items, fingerprint_bits, log2_buckets)?;
        Ok(SlidingWindowCuckoo {
            shape: Shape::new(fingerprint_bits, 0),
            epoch_items,
            log2_buckets,
            seed,
            first: 0,
            epochs: Vec::new(),
            open: false,
        })
    }

    /// A set of epochs of B registrations with ε at most `fpr` for a query at any epoch
    /// ([`plan`]).
    ///
    /// # Errors
    /// As [`plan`].
    pub fn with_fpr(epoch_items: u64, fpr: f64, seed: u64) -> Result<Self> {
        Self::new(
            epoch_items,
            fingerprint_bits_for(fpr)?,
            log2_buckets_for(epoch_items)?,
            seed,
        )
    }

    /// B, the registrations per epoch.
    pub fn epoch_items(&self) -> u64 {
        self.epoch_items
    }
    /// f, the fingerprint bits.
    pub fn fingerprint_bits(&self) -> u32 {
        self.shape.f
    }
    /// log₂ of the buckets of an open epoch.
    pub fn log2_buckets(&self) -> u32 {
        self.log2_buckets
    }
    /// The bytes of an open epoch's table, `2ᵏ · ⌈4f/8⌉` (k =
    /// [`log2_buckets`](Self::log2_buckets)); a new epoch adds these to
    /// [`size_bytes`](Self::size_bytes) and its fixed overhead.
    pub fn epoch_bytes(&self) -> u64 {
        plan::table_bytes(self.log2_buckets, self.shape.f)
    }

    /// What a new epoch adds to [`size_bytes`](Self::size_bytes): its table and the memory
    /// an epoch takes besides (the table's padding and allocation, and the room it takes in
    /// the list of epochs).
    pub fn new_epoch_bytes(&self) -> u64 {
        let len = self.epochs.len();
        let slots = list::room(len + 1) - list::room(len);
        self.epoch_bytes() + epoch::TABLE_OVERHEAD + slots * epoch::EPOCH_SLOT
    }
    /// The hash seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// The number of the first epoch held (0, or the epoch of an export).
    pub fn first_epoch(&self) -> u64 {
        self.first
    }
    /// The number of epochs held.
    pub fn epochs(&self) -> u64 {
        self.epochs.len() as u64
    }
    /// The epoch the next registration goes to.
    pub fn next_epoch(&self) -> u64 {
        self.first + self.epochs() - u64::from(self.open)
    }
    /// The open epoch (the one registrations go to until it closes), or `None` when the next
    /// registration opens a new one.
    pub fn open_epoch(&self) -> Option<u64> {
        self.open.then(|| self.next_epoch())
    }
    /// Registrations in all.
    pub fn inserted(&self) -> u64 {
        self.epochs.iter().map(|e| e.registered).sum()
    }
    /// Members held: registrations less slashes.
    pub fn members(&self) -> u64 {
        self.epochs.iter().map(|e| e.live).sum()
    }
    /// Bytes of all the epochs' tables (what the plan sizes; [`size_bytes`](Self::size_bytes)
    /// adds each epoch's overhead in memory).
    pub fn table_bytes(&self) -> u64 {
        self.epochs.iter().map(Epoch::table_bytes).sum()
    }
    /// Bytes in memory: every epoch's table with its padding and allocation (48 bytes), and
    /// the list of epochs (an entry of about 240 bytes for each epoch, and spare room for at
    /// most an eighth more).
    pub fn size_bytes(&self) -> u64 {
        let tables: u64 = self.epochs.iter().map(Epoch::size_bytes).sum();
        tables + self.list_bytes()
    }

    /// The most bytes the list of epochs takes ([`list::room`]).
    fn list_bytes(&self) -> u64 {
        list::room(self.epochs.len()) * epoch::EPOCH_SLOT
    }
    /// m, the bits of all the epochs' slots.
    pub fn m(&self) -> u64 {
        self.epochs
            .iter()
            .map(|e| e.table.buckets * u64::from(SLOTS * self.shape.f))
            .sum()
    }

    /// The 128-bit hash of `item` under this filter's seed, for the `*_hash` methods.
    #[inline]
    pub fn hash<T: Item + ?Sized>(&self, item: &T) -> u128 {
        hash128(item, self.seed)
    }

    fn get(&self, epoch: u64) -> Option<&Epoch> {
        let i = usize::try_from(epoch.checked_sub(self.first)?).ok()?;
        self.epochs.get(i)
    }

    /// Epoch `epoch`'s figures, if it is held.
    pub fn epoch(&self, epoch: u64) -> Option<EpochInfo> {
        let e = self.get(epoch)?;
        let slots = e.table.buckets * u64::from(SLOTS);
        let load = e.live as f64 / slots as f64;
        Some(EpochInfo {
            epoch,
            registered: e.registered,
            members: e.live,
            buckets: e.table.buckets,
            bytes: e.table_bytes(),
            load_factor: load,
            fpr: fpr_exact(self.shape.f, load),
            open: self.open && epoch + 1 == self.first + self.epochs(),
        })
    }

    /// ε of a query at `epoch` now (0 for an epoch not held).
    pub fn epoch_fpr(&self, epoch: u64) -> f64 {
        self.epoch(epoch).map_or(0.0, |e| e.fpr)
    }

    /// ε now of a query at the worst epoch held: the largest [`epoch_fpr`](Self::epoch_fpr).
    pub fn estimated_fpr(&self) -> f64 {
        (self.first..self.first + self.epochs())
            .map(|e| self.epoch_fpr(e))
            .fold(0.0, f64::max)
    }

    /// The model of one epoch table of the open size holding `n` members:
    /// `1 − (1 − 1/(2^f − 1))^(8n / (4 · 2ᵏ))`.
    pub fn expected_fpr(&self, n: u64) -> f64 {
        fpr_exact(
            self.shape.f,
            n as f64 / (u64::from(SLOTS) << self.log2_buckets) as f64,
        )
    }

    /// The bound on every query's ε: `1 − (1 − 1/(2^f − 1))^(8 · 0.95)`.
    pub fn fpr_bound(&self) -> f64 {
        fpr_exact(self.shape.f, PLANNED_LOAD)
    }

    /// Registers a precomputed hash in the open epoch (opening one if none is) and returns the
    /// epoch's number. The epoch closes and is compacted after B registrations, or early if
    /// its table cannot take this one (it then goes to a new epoch).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the epoch numbers are exhausted or the list of epochs
    /// cannot grow; the table's allocation error ([`Error::OutOfMemory`]) when a new epoch's
    /// table cannot be allocated.
    pub fn register_hash(&mut self, h: u128) -> Result<u64> {
        self.register_hash_within(h, u64::MAX)
    }

    /// Registers `item` ([`register_hash`](Self::register_hash)) and returns its epoch.
    ///
    /// # Errors
    /// As [`register_hash`](Self::register_hash).
    pub fn register<T: Item + ?Sized>(&mut self, item: &T) -> Result<u64> {
        self.register_hash(self.hash(item))
    }

    fn start_epoch(&mut self) -> Result<()> {
        self.first
            .checked_add(self.epochs() + 1)
            .ok_or_else(|| Error::invalid("epoch", "the epoch numbers are exhausted"))?;
        let epoch = Epoch::new(self.shape, self.log2_buckets)?;
        list::try_reserve_one(&mut self.epochs)
            .map_err(|_| Error::invalid("epoch", "cannot allocate another epoch"))?;
        self.epochs.push(epoch);
        self.open = true;
        Ok(())
    }

    /// Closes the open epoch early (the next registration opens a new one) and compacts it;
    /// returns its number, or `None` if no epoch was open (nothing changed). An epoch also
    /// closes by itself after B registrations; closing early suits epochs that end on a clock
    /// (a rate-limiting-nullifier epoch of T seconds) rather than on a count.
    ///
    /// # Example
    /// ```
    /// let mut set = amq::rln::SlidingWindowCuckoo::with_fpr(1000, 0.001, 0)?;
    /// assert_eq!(set.register("alice")?, 0);
    /// assert_eq!(set.close(), Some(0));
    /// assert_eq!(set.close(), None); // none is open now
    /// assert_eq!(set.register("bob")?, 1);
    /// assert!(set.contains("alice", 0) && set.contains("bob", 1));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn close(&mut self) -> Option<u64> {
        let epoch = self.open_epoch()?;
        self.open = false;
        let seed = self.seed;
        self.epochs.last_mut()?.compact(seed);
        Some(epoch)
    }

    /// "Maybe registered at `epoch` and not slashed" (`true`) or "definitely not" (`false`)
    /// for a precomputed hash.
    #[inline]
    pub fn contains_hash(&self, h: u128, epoch: u64) -> bool {
        self.get(epoch).is_some_and(|e| e.holds(h))
    }

    /// "Maybe registered at `epoch` and not slashed" (`true`) or "definitely not" (`false`).
    #[inline]
    pub fn contains<T: Item + ?Sized>(&self, item: &T, epoch: u64) -> bool {
        self.contains_hash(self.hash(item), epoch)
    }

    /// Batched [`contains_hash`](Self::contains_hash): `out[i]` answers `hashes[i]` at
    /// `epoch`. Prefetches the two buckets of hash i + 16 while it tests hash i, so the cache
    /// misses of a large epoch overlap.
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn contains_hash_batch(&self, hashes: &[u128], epoch: u64, out: &mut [bool]) {
        crate::filter::check_batch(hashes.len(), out.len());
        self.batch(epoch, |j| hashes[j], out);
    }

    /// Batched [`contains`](Self::contains): `out[i]` answers `items[i]` at `epoch`, hashing
    /// item i + 16 and prefetching its buckets while it tests item i.
    ///
    /// # Example
    /// ```
    /// use amq::rln::SlidingWindowCuckoo;
    /// let mut set = SlidingWindowCuckoo::with_fpr(1000, 0.001, 0)?;
    /// let e = set.register("alice")?;
    /// let mut out = [true; 2];
    /// set.contains_batch(&["alice", "bob"], e, &mut out);
    /// assert_eq!(out, [true, false]);
    /// # Ok::<(), amq::Error>(())
    /// ```
    ///
    /// # Panics
    /// If `out.len() != items.len()`.
    pub fn contains_batch<T: Item + ?Sized>(&self, items: &[&T], epoch: u64, out: &mut [bool]) {
        crate::filter::check_batch(items.len(), out.len());
        self.batch(epoch, |j| self.hash(items[j]), out);
    }

    #[inline(always)]
    fn batch(&self, epoch: u64, hash_of: impl Fn(usize) -> u128, out: &mut [bool]) {
        match self.get(epoch) {
            Some(e) => e.holds_batch(hash_of, out),
            None => out.fill(false),
        }
    }

    /// Slashes a precomputed hash at `epoch`: removes one copy of its fingerprint there;
    /// `false` (nothing changed) when it is definitely absent. A closed epoch left with few
    /// enough members to fit in half its buckets is compacted again.
    ///
    /// Only slash members: slashing an item never registered whose fingerprint and buckets
    /// match a member's (a false positive) removes that member.
    pub fn slash_hash(&mut self, h: u128, epoch: u64) -> bool {
        let Some(i) = epoch
            .checked_sub(self.first)
            .and_then(|i| usize::try_from(i).ok())
            .filter(|&i| i < self.epochs.len())
        else {
            return false;
        };
        let open = self.open && i + 1 == self.epochs.len();
        let seed = self.seed;
        let e = &mut self.epochs[i];
        if !e.remove(h, seed) {
            return false;
        }
        if !open && log2_buckets_for(e.live).is_ok_and(|k| k < e.k) {
            e.compact(seed);
        }
        true
    }

    /// Slashes `item` at `epoch` ([`slash_hash`](Self::slash_hash)).
    pub fn slash<T: Item + ?Sized>(&mut self, item: &T, epoch: u64) -> bool {
        self.slash_hash(self.hash(item), epoch)
    }

    /// A set holding epoch `epoch` alone (with its number), to send to a light client; its
    /// bytes are the epoch's table and a few words.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if the epoch is not held.
    pub fn export_epoch(&self, epoch: u64) -> Result<SlidingWindowCuckoo> {
        let e = self.get(epoch).ok_or_else(|| {
            let held = match self.epochs() {
                0 => alloc::string::String::from("it holds no epoch"),
                n => alloc::format!("it holds epochs {} to {}", self.first, self.first + n - 1),
            };
            Error::invalid(
                "epoch",
                alloc::format!("epoch {epoch} is not held ({held})"),
            )
        })?;
        let epochs = alloc::vec![e.clone()];
        Ok(SlidingWindowCuckoo {
            epochs,
            first: epoch,
            open: self.open && epoch + 1 == self.first + self.epochs(),
            ..self.clone_shape()
        })
    }

    fn clone_shape(&self) -> SlidingWindowCuckoo {
        SlidingWindowCuckoo {
            shape: self.shape,
            epoch_items: self.epoch_items,
            log2_buckets: self.log2_buckets,
            seed: self.seed,
            first: self.first,
            epochs: Vec::new(),
            open: false,
        }
    }

    /// Puts the single epoch of `part` (an [`export_epoch`](Self::export_epoch) of a set of
    /// the same shape and seed) into this set: it replaces the epoch of that number, or
    /// follows the last one held.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless B, f, the open size and the seed agree;
    /// [`Error::InvalidParameter`] if `part` does not hold exactly one epoch, if that epoch
    /// neither is held nor follows the last one held, if it is open but not the last, or if it
    /// follows an epoch that is open here. `self` is then unchanged.
    pub fn apply_epoch(&mut self, part: &SlidingWindowCuckoo) -> Result<()> {
        Error::check_same_shape(&[
            ("epoch_items", self.epoch_items, part.epoch_items),
            (
                "fingerprint_bits",
                u64::from(self.shape.f),
                u64::from(part.shape.f),
            ),
            (
                "log2_buckets",
                u64::from(self.log2_buckets),
                u64::from(part.log2_buckets),
            ),
            ("seed", self.seed, part.seed),
        ])?;
        let [epoch] = &part.epochs[..] else {
            return Err(Error::invalid(
                "part",
                "an epoch export holds exactly one epoch",
            ));
        };
        let end = self.first + self.epochs();
        let e = part.first;
        if e < self.first || e > end {
            return Err(Error::invalid(
                "part",
                alloc::format!(
                    "epoch {e} is neither held (epochs {} up to {end}) nor the next one ({end})",
                    self.first
                ),
            ));
        }
        if e == end {
            if self.open {
                return Err(Error::invalid(
                    "part",
                    alloc::format!(
                        "epoch {e} follows epoch {} which is still open here: apply it first",
                        end - 1
                    ),
                ));
            }
            list::try_reserve_one(&mut self.epochs)
                .map_err(|_| Error::invalid("part", "cannot allocate another epoch"))?;
            self.epochs.push(epoch.clone());
        } else {
            if part.open && e + 1 != end {
                return Err(Error::invalid(
                    "part",
                    alloc::format!("epoch {e} is open but not the last"),
                ));
            }
            self.epochs[(e - self.first) as usize] = epoch.clone();
        }
        if e + 1 == self.first + self.epochs() {
            self.open = part.open;
        }
        Ok(())
    }
}
