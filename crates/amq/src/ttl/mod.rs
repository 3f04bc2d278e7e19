//! The TTL cuckoo filter: a cuckoo filter whose entries expire, each on its own clock.
//!
//! A [`TtlCuckooFilter`] keeps, in each of the 4 slots of a bucket, an f-bit fingerprint and
//! an s-bit *expiry stamp*: the tick (a period of `tick` clock units) in which the entry
//! expires, modulo 2ˢ. A query ignores expired entries, and an insert takes an expired slot as
//! if it were empty before it moves anything, so the table holds only what is live.
//!
//! * **Expiry precision.** An entry inserted at time t with time-to-live `ttl` is found at
//!   every time before `t + ttl − tick + 1` and at no time from `t + ttl` on: it expires at
//!   the start of tick `⌊(t + ttl)/tick⌋`, so it lives between `ttl − tick` and `ttl`
//!   ([`expiry`]). With `tick = 1` expiry is exact.
//! * **False-positive rate.** A query reads two buckets, so with α the *live* load (live
//!   entries over slots) `ε = 1 − (1 − 1/(2^f − 1))^(2bα)`, b = 4
//!   ([`cuckoo::fpr_exact`](crate::cuckoo::fpr_exact); the fingerprints are uniform over the
//!   2^f − 1 non-zero values). Expired entries do not count: their stamps fail the test.
//! * **Stamps.** The filter keeps a *sweep epoch* w, and every entry expires in a tick of
//!   `(w, w + 2ˢ]`, so s bits name it. An insert whose expiry lies beyond `w + 2ˢ` first
//!   *sweeps*: it clears the expired entries (O(buckets)) and sets w to the current tick. The
//!   longest TTL is `tick · 2ˢ` ([`max_ttl`](TtlCuckooFilter::max_ttl)); with TTLs of at most
//!   L ticks a sweep runs at most once every `2ˢ − L + 1` ticks, so s = ⌈log₂L⌉ + 1 (the
//!   planner's choice) sweeps at most once per L ticks.
//! * **Never loses a live entry.** A kick walk that fails leaves its last entry in a one-slot
//!   victim stash, as in [`CuckooFilter`](crate::CuckooFilter); while the stash holds a live
//!   entry, an insert whose two buckets hold only live entries returns [`Error::Full`] and
//!   changes nothing.
//! * **A set, not a multiset.** Inserting an item that has a live copy refreshes that copy's
//!   expiry to the later of the two (a cache's refresh) instead of adding a second copy. So
//!   [`remove`](TtlCuckooFilter::remove) also removes every item with the same fingerprint
//!   and buckets (they share the entry): for one other live item, a chance of about
//!   `2/(buckets · (2^f − 1))`.
//!
//! Time is a `u64` in the units of the [`Clock`] (seconds for
//! [`SystemClock`](crate::clock::SystemClock)); `tick` and every TTL are in the same units.
//! The explicit-time methods take `now`; the [`Filter`], [`Insert`] and [`Remove`] traits
//! read the filter's clock (and insert with [`default_ttl`](TtlCuckooFilter::default_ttl)).
//! A time before the last sweep counts as the sweep's time. Time should not go backwards: an
//! insert may take the slot of an entry that has expired by its time, so a later query at an
//! earlier time may miss that entry.
//!
//! (The cuckoo filter of Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo Filter:
//! Practically Better Than Bloom", CoNEXT 2014, with a stamp per slot, for per-item expiry as
//! RedisBloom#115 asks and Quad9's `cuckoo-clock` offers with a countdown per slot.)
//!
//! ```
//! use amq::ttl::TtlCuckooFilter;
//! // 10,000 live items, ε ≤ 0.1%, 60-second ticks, TTLs up to an hour
//! let mut f = TtlCuckooFilter::with_ttl(10_000, 0.001, 3_600, 60, 0)?;
//! f.insert("example.com", 1_000, 300)?; // at t = 1000 s, for 5 minutes
//! assert!(f.contains("example.com", 1_240)); // ttl − tick later: still found
//! assert!(!f.contains("example.com", 1_300)); // at t + ttl: expired
//! assert!(!f.contains("example.org", 1_000));
//! # Ok::<(), amq::Error>(())
//! ```

mod encoding;
pub(crate) mod lanes;
mod plan;
pub(crate) mod table;

pub use plan::{expiry, plan, TtlPlan, TtlSpec, DEFAULT_STAMP_BITS, MAX_STAMP_BITS};

use crate::clock::{Clock, NoClock};
use crate::cuckoo::{fpr_exact, MAX_BUCKETS};
use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item, Remove};
use crate::hash::{cuckoo_alt_index, cuckoo_fingerprint, cuckoo_index, hash128};
use lanes::{Shape, View, MAX_SLOT_BITS, SLOTS};
use table::Table;

/// The narrowest fingerprint, in bits.
pub const MIN_FINGERPRINT_BITS: u32 = 2;

/// A cuckoo filter whose entries expire: `buckets` buckets of 4 slots, each an f-bit
/// fingerprint and an s-bit expiry stamp, packed (a bucket is 4(f + s) bits, rounded up to
/// whole bytes), f + s ≤ 32.
///
/// Items are hashed and placed as in [`CuckooFilter`](crate::CuckooFilter) (XXH3-128 under
/// the seed; first bucket, fingerprint and alternate bucket from
/// [`hash::cuckoo_index`](crate::hash::cuckoo_index),
/// [`hash::cuckoo_fingerprint`](crate::hash::cuckoo_fingerprint) and
/// [`hash::cuckoo_alt_index`](crate::hash::cuckoo_alt_index)). The module docs state the
/// expiry precision, the false-positive rate and the stamps.
///
/// # Example
/// ```
/// use amq::clock::ManualClock;
/// use amq::ttl::TtlCuckooFilter;
/// use amq::{Filter, Insert};
///
/// // 1000 buckets, 12-bit fingerprints, 4-bit stamps, ticks of 10 s: TTLs up to 160 s
/// let clock = ManualClock::new(1_000);
/// let mut f = TtlCuckooFilter::new(1000, 12, 4, 10, 0)?.with_clock(clock.clone());
/// assert_eq!((f.max_ttl(), f.size_bytes()), (160, 8_000));
/// f.insert("a", 1_000, 25)?; // expires at the start of tick ⌊1025/10⌋: time 1020
/// Insert::insert(&mut f, "b")?; // with the default TTL (80 s) at the clock's time
/// clock.set(1_019);
/// assert!(Filter::contains(&f, "a") && Filter::contains(&f, "b"));
/// clock.set(1_020);
/// assert!(!Filter::contains(&f, "a") && Filter::contains(&f, "b"));
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TtlCuckooFilter<C = NoClock> {
    table: Table,
    seed: u64,
    tick: u64,
    default_ttl: u64,
    /// w, the sweep epoch: every entry expires in a tick of (w, w + 2ˢ].
    swept: u64,
    /// Inserts that stored a new entry.
    inserted: u64,
    clock: C,
}

/// Checks a shape: f ≥ 2, 1 ≤ s ≤ 16, f + s ≤ 32, 1 ≤ buckets ≤ 2³⁶, tick ≥ 1.
pub(crate) fn check(buckets: u64, f: u32, s: u32, tick: u64) -> Result<()> {
    if !(1..=MAX_STAMP_BITS).contains(&s) {
        return Err(Error::invalid(
            "stamp_bits",
            alloc::format!("must be between 1 and {MAX_STAMP_BITS}, got {s}"),
        ));
    }
    if f < MIN_FINGERPRINT_BITS || f > MAX_SLOT_BITS - s {
        return Err(Error::invalid(
            "fingerprint_bits",
            alloc::format!(
                "must be at least {MIN_FINGERPRINT_BITS} and at most {} with {s} stamp bits \
                 (a slot holds at most {MAX_SLOT_BITS} bits), got {f}",
                MAX_SLOT_BITS - s
            ),
        ));
    }
    if buckets == 0 || buckets > MAX_BUCKETS {
        return Err(Error::invalid(
            "buckets",
            alloc::format!("must be between 1 and {MAX_BUCKETS}, got {buckets}"),
        ));
    }
    if tick == 0 {
        return Err(Error::invalid("tick", "must be at least 1"));
    }
    Ok(())
}

impl TtlCuckooFilter<NoClock> {
    /// An empty filter of `buckets` buckets (1 to 2³⁶) of 4 slots, each a
    /// `fingerprint_bits`-bit fingerprint (at least 2) and a `stamp_bits`-bit stamp (1 to 16;
    /// together at most 32 bits), with ticks of `tick` clock units (at least 1). The default
    /// TTL is half the longest, `tick · 2ˢ⁻¹`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a parameter out of range, or if the memory cannot be
    /// allocated.
    ///
    /// # Example
    /// ```
    /// let f = amq::ttl::TtlCuckooFilter::new(1000, 12, 4, 60, 0)?;
    /// assert_eq!((f.slots(), f.m(), f.size_bytes()), (4000, 64_000, 8000));
    /// assert_eq!((f.max_ttl(), f.default_ttl()), (960, 480));
    /// assert!(amq::ttl::TtlCuckooFilter::new(1000, 30, 4, 60, 0).is_err()); // 34 bits
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn new(
        buckets: u64,
        fingerprint_bits: u32,
        stamp_bits: u32,
        tick: u64,
        seed: u64,
    ) -> Result<Self> {
        check(buckets, fingerprint_bits, stamp_bits, tick)?;
        let shape = Shape::new(fingerprint_bits, stamp_bits);
        Ok(TtlCuckooFilter {
            table: Table::new(shape, buckets)?,
            seed,
            tick,
            default_ttl: tick.saturating_mul(1 << (stamp_bits - 1)),
            swept: 0,
            inserted: 0,
            clock: NoClock,
        })
    }

    /// A filter for `n` live items with ε at most `fpr`, ticks of `tick` clock units and TTLs
    /// up to `max_ttl` (also its default TTL): [`plan`] with a [`TtlSpec`].
    ///
    /// # Errors
    /// As [`plan`] and [`new`](Self::new).
    pub fn with_ttl(n: u64, fpr: f64, max_ttl: u64, tick: u64, seed: u64) -> Result<Self> {
        let (p, _) = plan::shape(&TtlSpec {
            items: n,
            fpr,
            tick,
            stamp_bits: None,
            max_ttl: Some(max_ttl),
        })?;
        Self::new(p.buckets, p.fingerprint_bits, p.stamp_bits, tick, seed)?
            .with_default_ttl(p.default_ttl)
    }
}

impl<C: Clock> TtlCuckooFilter<C> {
    /// The same filter reading time from `clock` (for the [`Filter`], [`Insert`] and
    /// [`Remove`] traits and [`estimated_fpr`](Self::estimated_fpr)).
    pub fn with_clock<D: Clock>(self, clock: D) -> TtlCuckooFilter<D> {
        TtlCuckooFilter {
            table: self.table,
            seed: self.seed,
            tick: self.tick,
            default_ttl: self.default_ttl,
            swept: self.swept,
            inserted: self.inserted,
            clock,
        }
    }

    /// The same filter with another default TTL (for [`Insert::insert`]).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if `ttl` is below one [`tick`](Self::tick) (an entry
    /// could then expire before it is found) or above [`max_ttl`](Self::max_ttl).
    pub fn with_default_ttl(mut self, ttl: u64) -> Result<Self> {
        if ttl < self.tick || ttl > self.max_ttl() {
            return Err(Error::invalid(
                "default_ttl",
                alloc::format!(
                    "must be between one tick ({}) and {}, got {ttl}",
                    self.tick,
                    self.max_ttl()
                ),
            ));
        }
        self.default_ttl = ttl;
        Ok(self)
    }

    /// The clock.
    pub fn clock(&self) -> &C {
        &self.clock
    }
    /// The number of buckets.
    pub fn buckets(&self) -> u64 {
        self.table.buckets
    }
    /// f, the fingerprint bits.
    pub fn fingerprint_bits(&self) -> u32 {
        self.table.shape.f
    }
    /// s, the stamp bits.
    pub fn stamp_bits(&self) -> u32 {
        self.table.shape.s
    }
    /// The tick, in clock units: the precision of expiry.
    pub fn tick(&self) -> u64 {
        self.tick
    }
    /// The longest TTL an insert accepts: `tick · 2ˢ` clock units.
    pub fn max_ttl(&self) -> u64 {
        self.tick.saturating_mul(self.table.shape.stamps())
    }
    /// The TTL of [`Insert::insert`], in clock units.
    pub fn default_ttl(&self) -> u64 {
        self.default_ttl
    }
    /// The hash seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// The slots: `4 · buckets`.
    pub fn slots(&self) -> u64 {
        self.table.buckets * u64::from(SLOTS)
    }
    /// m, the bits of the slots: `buckets · 4 · (f + s)`.
    pub fn m(&self) -> u64 {
        self.slots() * u64::from(self.table.shape.w)
    }
    /// Table size in bytes: `buckets · ⌈(f + s)/2⌉`.
    pub fn size_bytes(&self) -> u64 {
        self.table.size_bytes()
    }
    /// Inserts that stored a new entry (refreshes of a live entry not counted).
    pub fn inserted(&self) -> u64 {
        self.inserted
    }
    /// w, the sweep epoch (in ticks): every entry expires in a tick of `(w, w + 2ˢ]`.
    pub fn swept_epoch(&self) -> u64 {
        self.swept
    }

    /// The 128-bit hash of `item` under this filter's seed, for the `*_hash` methods.
    #[inline]
    pub fn hash<T: Item + ?Sized>(&self, item: &T) -> u128 {
        hash128(item, self.seed)
    }

    /// The tick of time `now` as the filter sees it (never before the sweep epoch), and the
    /// view of it, or `None` when every entry has expired by then.
    #[inline]
    fn view_at(&self, now: u64) -> (u64, Option<View>) {
        let e = (now / self.tick).max(self.swept);
        let r = e - self.swept;
        let view = (r < self.table.shape.stamps()).then(|| self.table.shape.view(self.swept, e));
        (e, view)
    }

    /// The two buckets and the fingerprint of a hash.
    #[inline(always)]
    fn probe(&self, h: u128) -> (u64, u64, u32) {
        let b = self.table.buckets;
        let i1 = cuckoo_index(h, b);
        let fp = cuckoo_fingerprint(h, self.table.shape.f);
        (i1, cuckoo_alt_index(i1, fp, b), fp)
    }

    /// Live entries and occupied slots (live or expired, the stash included) at `now`: O(m).
    pub fn entries_at(&self, now: u64) -> (u64, u64) {
        match self.view_at(now).1 {
            Some(v) => {
                let (occupied, live) = self.table.count(Some(&v));
                (live, occupied)
            }
            None => (0, self.table.count(None).0),
        }
    }

    /// α, the live load at `now`: live entries over slots (O(m)).
    pub fn load_factor_at(&self, now: u64) -> f64 {
        self.entries_at(now).0 as f64 / self.slots() as f64
    }

    /// The model after `n` live items: `1 − (1 − 1/(2^f − 1))^(8n/slots)`.
    pub fn expected_fpr(&self, n: u64) -> f64 {
        fpr_exact(self.table.shape.f, n as f64 / self.slots() as f64)
    }

    /// ε at `now`, from the live load ([`expected_fpr`](Self::expected_fpr) of the live
    /// entries; O(m)).
    pub fn estimated_fpr_at(&self, now: u64) -> f64 {
        self.expected_fpr(self.entries_at(now).0)
    }

    /// ε now by the filter's clock ([`estimated_fpr_at`](Self::estimated_fpr_at)).
    pub fn estimated_fpr(&self) -> f64 {
        self.estimated_fpr_at(self.clock.now())
    }

    /// "Maybe present at `now`" (`true`) or "definitely absent" (`false`) for a hash: a live
    /// copy of its fingerprint in one of its buckets or the stash.
    #[inline]
    pub fn contains_hash(&self, h: u128, now: u64) -> bool {
        let Some(view) = self.view_at(now).1 else {
            return false;
        };
        let (i1, i2, fp) = self.probe(h);
        self.table.holds(i1, i2, fp, &view)
    }

    /// "Maybe present at `now`" (`true`) or "definitely absent" (`false`).
    #[inline]
    pub fn contains<T: Item + ?Sized>(&self, item: &T, now: u64) -> bool {
        self.contains_hash(self.hash(item), now)
    }

    /// Batched [`contains_hash`](Self::contains_hash): `out[i]` answers `hashes[i]` at
    /// `now`. Prefetches the two buckets of hash i + 16 while it tests hash i, so the cache
    /// misses of a large table overlap.
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn contains_hash_batch(&self, hashes: &[u128], now: u64, out: &mut [bool]) {
        crate::filter::check_batch(hashes.len(), out.len());
        self.batch(now, |j| hashes[j], out);
    }

    /// Batched [`contains`](Self::contains): `out[i]` answers `items[i]` at `now`, hashing
    /// item i + 16 and prefetching its buckets while it tests item i.
    ///
    /// # Example
    /// ```
    /// use amq::ttl::TtlCuckooFilter;
    /// let mut f = TtlCuckooFilter::with_ttl(10_000, 0.001, 3_600, 60, 0)?;
    /// f.insert("example.com", 1_000, 300)?; // at t = 1000 s, for 5 minutes
    /// let mut out = [true; 2];
    /// f.contains_batch(&["example.com", "example.org"], 1_240, &mut out);
    /// assert_eq!(out, [true, false]);
    /// f.contains_batch(&["example.com", "example.org"], 1_300, &mut out); // expired
    /// assert_eq!(out, [false, false]);
    /// # Ok::<(), amq::Error>(())
    /// ```
    ///
    /// # Panics
    /// If `out.len() != items.len()`.
    pub fn contains_batch<T: Item + ?Sized>(&self, items: &[&T], now: u64, out: &mut [bool]) {
        crate::filter::check_batch(items.len(), out.len());
        self.batch(now, |j| self.hash(items[j]), out);
    }

    #[inline(always)]
    fn batch(&self, now: u64, hash_of: impl Fn(usize) -> u128, out: &mut [bool]) {
        match self.view_at(now).1 {
            Some(view) => self
                .table
                .holds_batch(|j| self.probe(hash_of(j)), &view, out),
            None => out.fill(false),
        }
    }

    /// Clears the entries expired at `now` and moves the sweep epoch to now's tick: O(m).
    /// Inserts sweep when they need to; this gives the room back at once.
    pub fn expire(&mut self, now: u64) {
        let (e, view) = self.view_at(now);
        match view {
            Some(v) => self.table.clear_dead(&v),
            None => self.table.clear(),
        }
        self.swept = e;
        let (seed, b) = (self.seed, self.table.buckets);
        let view = self.table.shape.view(e, e);
        self.table
            .rehome_stash(&view, seed, |i, fp| cuckoo_alt_index(i, fp, b));
    }

    /// Inserts a hash at time `now` with time-to-live `ttl` (clock units): it is found until
    /// the tick `⌊(now + ttl)/tick⌋` starts. Returns `Ok(true)` if a new entry was stored,
    /// `Ok(false)` if a live copy was there (its expiry becomes the later of the two).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if `ttl` is above [`max_ttl`](Self::max_ttl), the
    /// expiry `now + ttl` is past 2⁶⁴ − 1, or the entry would expire within the current tick
    /// (possible only for a `ttl` below one tick; nothing is stored); [`Error::Full`] if both
    /// buckets hold only live entries and so does the stash: nothing changes.
    pub fn insert_hash(&mut self, h: u128, now: u64, ttl: u64) -> Result<bool> {
        if ttl > self.max_ttl() {
            return Err(Error::invalid(
                "ttl",
                alloc::format!(
                    "{ttl} is above the longest TTL, tick · 2^s = {}",
                    self.max_ttl()
                ),
            ));
        }
        let shape = self.table.shape;
        let now = now.max(self.swept.saturating_mul(self.tick));
        let Some(until) = now.checked_add(ttl) else {
            return Err(Error::invalid(
                "now",
                alloc::format!("{now} + TTL {ttl} is past the last time, 2^64 - 1"),
            ));
        };
        let (e, view) = self.view_at(now);
        let x = until / self.tick;
        if x <= e {
            // it would expire before any query could find it: saying Ok(false) ("may
            // already have been there") would be a false negative
            return Err(Error::invalid(
                "ttl",
                alloc::format!(
                    "{ttl} at time {now} expires within the current tick ({} to {}): nothing \
                     was stored; a TTL of at least one tick ({}) always is",
                    e * self.tick,
                    (e + 1).saturating_mul(self.tick),
                    self.tick
                ),
            ));
        }
        let (i1, i2, fp) = self.probe(h);
        if let Some(v) = &view {
            let present = self.table.locate(i1, i2, fp, v).is_some();
            if !present && self.table.both_full(i1, i2, v) && self.table.stash_live(v) {
                let (live, _) = self.entries_at(now);
                return Err(Error::Full {
                    items: live,
                    capacity: self.slots() + 1,
                });
            }
        }
        if x - self.swept > shape.stamps() {
            self.expire(now);
        }
        let view = shape.view(self.swept, e);
        let rel = x - self.swept - 1;
        if let Some(spot) = self.table.locate(i1, i2, fp, &view) {
            let old = self.table.get(spot);
            if shape.rel(shape.stamp_of(old), self.swept) < rel {
                self.table
                    .set(spot, shape.entry(fp, x & (shape.stamps() - 1)));
            }
            return Ok(false);
        }
        let b = self.table.buckets;
        let entry = shape.entry(fp, x & (shape.stamps() - 1));
        self.table
            .place(i1, i2, entry, &view, self.seed, |i, fp| {
                cuckoo_alt_index(i, fp, b)
            })
            // Not reached: the check before the sweep refuses first, and a sweep only frees
            // slots or moves the stash into one (tests/ttl_table_edges.rs builds each case);
            // should it ever be, the item is refused with this error (`place` changed nothing)
            .map_err(|()| Error::Full {
                items: self.entries_at(now).0,
                capacity: self.slots() + 1,
            })?;
        self.inserted = self.inserted.saturating_add(1);
        Ok(true)
    }

    /// Inserts `item` at time `now` with time-to-live `ttl` ([`insert_hash`](Self::insert_hash)).
    ///
    /// # Errors
    /// As [`insert_hash`](Self::insert_hash).
    pub fn insert<T: Item + ?Sized>(&mut self, item: &T, now: u64, ttl: u64) -> Result<bool> {
        self.insert_hash(self.hash(item), now, ttl)
    }

    /// Removes the live entry of a hash at `now`; `true` if there was one. Every item with the
    /// same fingerprint and buckets shares that entry and is removed with it.
    pub fn remove_hash(&mut self, h: u128, now: u64) -> bool {
        let Some(view) = self.view_at(now).1 else {
            return false;
        };
        let (i1, i2, fp) = self.probe(h);
        let b = self.table.buckets;
        self.table.remove(i1, i2, fp, &view, self.seed, |i, fp| {
            cuckoo_alt_index(i, fp, b)
        })
    }

    /// Removes `item`'s live entry at `now` ([`remove_hash`](Self::remove_hash)).
    pub fn remove<T: Item + ?Sized>(&mut self, item: &T, now: u64) -> bool {
        self.remove_hash(self.hash(item), now)
    }

    /// `true` while the victim stash holds an entry live at `now`: then an insert whose two
    /// buckets hold only live entries returns [`Error::Full`].
    pub fn stash_used_at(&self, now: u64) -> bool {
        self.view_at(now)
            .1
            .is_some_and(|v| self.table.stash_live(&v))
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.table.clear();
    }
}

impl<T: Item + ?Sized, C: Clock> Filter<T> for TtlCuckooFilter<C> {
    /// "Maybe present now" by the filter's clock.
    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.contains_hash(self.hash(item), self.clock.now())
    }

    /// Batched, at the clock's time ([`contains_batch`](TtlCuckooFilter::contains_batch)).
    fn contains_batch(&self, items: &[&T], out: &mut [bool]) {
        self.contains_batch(items, self.clock.now(), out);
    }
}

impl<T: Item + ?Sized, C: Clock> Insert<T> for TtlCuckooFilter<C> {
    /// Inserts at the clock's time with the [`default_ttl`](TtlCuckooFilter::default_ttl).
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        let (h, now) = (self.hash(item), self.clock.now());
        self.insert_hash(h, now, self.default_ttl)
    }
}

impl<T: Item + ?Sized, C: Clock> Remove<T> for TtlCuckooFilter<C> {
    /// Removes the live entry at the clock's time.
    #[inline]
    fn remove(&mut self, item: &T) -> bool {
        let (h, now) = (self.hash(item), self.clock.now());
        self.remove_hash(h, now)
    }
}
