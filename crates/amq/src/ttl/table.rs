//! The cuckoo table both forgetting filters are built on: buckets of four [`Shape`] slots, a
//! one-slot victim stash, inserts that take empty or expired slots and kick otherwise, and a
//! sweep that clears expired entries. The alternate-bucket function is the caller's (the TTL
//! filter's works for any bucket count, the sliding-window filter's halves).

use super::lanes::{Shape, View, PAD, SLOTS};
use crate::error::Result;
use crate::hash::splitmix64;
use alloc::vec::Vec;

/// The most entries one insert moves before it puts the last one in the victim stash (as
/// [`cuckoo::MAX_KICKS`](crate::cuckoo::MAX_KICKS)).
pub(crate) const MAX_KICKS: u32 = 500;

/// How many queries ahead the batched queries prefetch.
const AHEAD: usize = 16;

/// Where a live copy of a fingerprint was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spot {
    /// Slot `.1` of bucket `.0`.
    Slot(u64, u32),
    /// The victim stash.
    Stash,
}

/// The packed buckets and the victim stash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    pub(crate) shape: Shape,
    pub(crate) buckets: u64,
    /// `buckets · ⌈4W/8⌉` bytes of buckets, then [`PAD`] zero bytes.
    pub(crate) bytes: Vec<u8>,
    /// The stash's slot value (0: empty) and the bucket it failed to enter (0 when empty).
    pub(crate) stash: u64,
    pub(crate) stash_bucket: u64,
}

impl Table {
    /// An empty table; the caller has checked the bucket count.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) if the memory cannot be
    /// allocated.
    pub(crate) fn new(shape: Shape, buckets: u64) -> Result<Table> {
        let len = buckets
            .checked_mul(shape.bytes as u64)
            .and_then(|b| b.checked_add(PAD as u64))
            .unwrap_or(u64::MAX);
        Ok(Table {
            shape,
            buckets,
            bytes: crate::bits::try_zeroed(len, "buckets")?,
            stash: 0,
            stash_bucket: 0,
        })
    }

    /// A table from a decoded payload of exactly `buckets · ⌈4W/8⌉` bytes.
    pub(crate) fn from_payload(shape: Shape, buckets: u64, payload: &[u8]) -> Option<Table> {
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(payload.len() + PAD).ok()?;
        bytes.extend_from_slice(payload);
        bytes.resize(payload.len() + PAD, 0);
        Some(Table {
            shape,
            buckets,
            bytes,
            stash: 0,
            stash_bucket: 0,
        })
    }

    /// The payload: the buckets without the padding.
    pub(crate) fn payload(&self) -> &[u8] {
        &self.bytes[..self.bytes.len() - PAD]
    }

    /// Bytes of buckets.
    pub(crate) fn size_bytes(&self) -> u64 {
        self.buckets * self.shape.bytes as u64
    }

    /// `true` if the stash holds an entry that is live in `view`.
    #[inline]
    pub(crate) fn stash_live(&self, view: &View) -> bool {
        self.stash != 0 && self.shape.live(u128::from(self.stash), view) & self.top() != 0
    }

    /// The high bit of slot 0.
    #[inline(always)]
    fn top(&self) -> u128 {
        1u128 << (self.shape.w - 1)
    }

    /// Where a live copy of `fp` is, in bucket `i1`, bucket `i2` or the stash.
    #[inline]
    pub(crate) fn locate(&self, i1: u64, i2: u64, fp: u32, view: &View) -> Option<Spot> {
        let shape = &self.shape;
        for i in [i1, i2] {
            let h = shape.hits(shape.load(&self.bytes, i), fp, view);
            if h != 0 {
                return Some(Spot::Slot(i, shape.first(h)));
            }
        }
        self.stash_holds(i1, i2, fp, view).then_some(Spot::Stash)
    }

    /// "Maybe present": a live copy of `fp` in either bucket or the stash.
    #[inline]
    pub(crate) fn holds(&self, i1: u64, i2: u64, fp: u32, view: &View) -> bool {
        let shape = &self.shape;
        let a = shape.load(&self.bytes, i1);
        let b = shape.load(&self.bytes, i2);
        (shape.hits(a, fp, view) | shape.hits(b, fp, view)) != 0
            || self.stash_holds(i1, i2, fp, view)
    }

    /// Batched [`holds`](Self::holds): `out[j]` answers `probe_of(j)` (its two buckets and
    /// fingerprint); the buckets of probe j + 16 are prefetched while probe j is tested.
    #[inline(always)]
    pub(crate) fn holds_batch(
        &self,
        probe_of: impl Fn(usize) -> (u64, u64, u32),
        view: &View,
        out: &mut [bool],
    ) {
        let last = self.shape.bytes - 1;
        let fetch = |j: usize| {
            let p = probe_of(j);
            for i in [p.0, p.1] {
                // a bucket of ⌈4W/8⌉ bytes may straddle two cache lines
                let o = i as usize * self.shape.bytes;
                crate::bits::prefetch(&self.bytes[o]);
                crate::bits::prefetch(&self.bytes[o + last]);
            }
            p
        };
        crate::filter::pipelined::<_, AHEAD>(out, fetch, |(i1, i2, fp)| {
            self.holds(i1, i2, fp, view)
        });
    }

    #[inline(always)]
    fn stash_holds(&self, i1: u64, i2: u64, fp: u32, view: &View) -> bool {
        self.stash != 0
            && self.shape.fp_of(self.stash) == fp
            && (self.stash_bucket == i1 || self.stash_bucket == i2)
            && self.stash_live(view)
    }

    /// The slot value at a spot.
    pub(crate) fn get(&self, spot: Spot) -> u64 {
        match spot {
            Spot::Slot(i, j) => self.shape.get(self.shape.load(&self.bytes, i), j),
            Spot::Stash => self.stash,
        }
    }

    /// Overwrites the slot value at a spot.
    pub(crate) fn set(&mut self, spot: Spot, entry: u64) {
        match spot {
            Spot::Slot(i, j) => {
                let x = self.shape.load(&self.bytes, i);
                self.shape
                    .store(&mut self.bytes, i, self.shape.with(x, j, entry));
            }
            Spot::Stash => self.stash = entry,
        }
    }

    /// `true` if neither bucket has a free (empty or expired) slot.
    pub(crate) fn both_full(&self, i1: u64, i2: u64, view: &View) -> bool {
        let shape = &self.shape;
        shape.free(shape.load(&self.bytes, i1), view) == 0
            && shape.free(shape.load(&self.bytes, i2), view) == 0
    }

    /// Puts `entry` in the first free slot of bucket `i`; `false` if there is none.
    #[inline]
    fn try_place(&mut self, i: u64, entry: u64, view: &View) -> bool {
        let shape = self.shape;
        let x = shape.load(&self.bytes, i);
        let free = shape.free(x, view);
        if free == 0 {
            return false;
        }
        shape.store(&mut self.bytes, i, shape.with(x, shape.first(free), entry));
        true
    }

    /// Places `entry`, whose buckets are `i1` and `i2 = alt(i1, fp)`: a free slot of either,
    /// else the kick walk. `Err(())` (nothing changed) if both are full and the stash holds a
    /// live entry; an expired stash entry is dropped.
    pub(crate) fn place(
        &mut self,
        i1: u64,
        i2: u64,
        entry: u64,
        view: &View,
        seed: u64,
        alt: impl Fn(u64, u32) -> u64,
    ) -> core::result::Result<(), ()> {
        if self.try_place(i1, entry, view) || self.try_place(i2, entry, view) {
            return Ok(());
        }
        if self.stash_live(view) {
            return Err(());
        }
        self.stash = 0;
        self.stash_bucket = 0;
        self.kick(i1, i2, entry, view, seed, alt);
        Ok(())
    }

    /// The random walk for `entry`, whose buckets `i` and `i2` hold only live entries.
    ///
    /// Each step first looks one move ahead: if an entry of the full bucket has a free slot in
    /// its other bucket, it moves there and the homeless entry takes its slot. Otherwise a
    /// random entry of the bucket is evicted and replaced, and the walk goes on from the
    /// evicted one's other bucket. After [`MAX_KICKS`] evictions the entry still homeless goes
    /// to the stash, which is empty. Deterministic: the walk is seeded from the bucket, the
    /// entry and `seed`.
    fn kick(
        &mut self,
        i: u64,
        i2: u64,
        entry: u64,
        view: &View,
        seed: u64,
        alt: impl Fn(u64, u32) -> u64,
    ) {
        let shape = self.shape;
        let mut rng = i ^ (entry << 24) ^ seed;
        let first = splitmix64(&mut rng);
        // Moves one entry of full bucket `b` to its other bucket, if that has room, and puts
        // `entry` in its slot.
        let look_ahead = |t: &mut Table, b: u64, entry: u64| -> bool {
            let x = shape.load(&t.bytes, b);
            for j in 0..SLOTS {
                let occupant = shape.get(x, j);
                let other = alt(b, shape.fp_of(occupant));
                if other != b && t.try_place(other, occupant, view) {
                    shape.store(&mut t.bytes, b, shape.with(x, j, entry));
                    return true;
                }
            }
            false
        };
        if look_ahead(self, i, entry) || look_ahead(self, i2, entry) {
            return;
        }
        let mut bucket = if first & 1 == 0 { i } else { i2 };
        let mut cur = entry;
        let mut kicks = 1;
        loop {
            let j = (splitmix64(&mut rng) >> 62) as u32;
            let x = shape.load(&self.bytes, bucket);
            let evicted = shape.get(x, j);
            shape.store(&mut self.bytes, bucket, shape.with(x, j, cur));
            cur = evicted;
            bucket = alt(bucket, shape.fp_of(cur));
            if self.try_place(bucket, cur, view) {
                return;
            }
            if kicks == MAX_KICKS {
                self.stash = cur;
                self.stash_bucket = bucket;
                return;
            }
            kicks += 1;
            if look_ahead(self, bucket, cur) {
                return;
            }
        }
    }

    /// Removes one live copy of `fp` from bucket `i1`, bucket `i2` or the stash; `true` if one
    /// was found. A live stash entry then gets the freed room.
    pub(crate) fn remove(
        &mut self,
        i1: u64,
        i2: u64,
        fp: u32,
        view: &View,
        seed: u64,
        alt: impl Fn(u64, u32) -> u64,
    ) -> bool {
        match self.locate(i1, i2, fp, view) {
            None => false,
            Some(Spot::Stash) => {
                self.stash = 0;
                self.stash_bucket = 0;
                true
            }
            Some(spot) => {
                self.set(spot, 0);
                self.rehome_stash(view, seed, alt);
                true
            }
        }
    }

    /// Moves a live stash entry into the table (the walk may leave another in the stash); an
    /// expired one is dropped.
    pub(crate) fn rehome_stash(&mut self, view: &View, seed: u64, alt: impl Fn(u64, u32) -> u64) {
        if self.stash == 0 {
            return;
        }
        let (entry, b) = (self.stash, self.stash_bucket);
        let live = self.stash_live(view);
        self.stash = 0;
        self.stash_bucket = 0;
        if live {
            let other = alt(b, self.shape.fp_of(entry));
            // the stash is empty now, so this cannot fail
            let placed = self.place(b, other, entry, view, seed, alt);
            debug_assert!(placed.is_ok());
        }
    }

    /// Clears every entry that is expired in `view`, the stash's too: O(buckets).
    pub(crate) fn clear_dead(&mut self, view: &View) {
        let shape = self.shape;
        for i in 0..self.buckets {
            let x = shape.load(&self.bytes, i);
            let dead = shape.dead(x, view);
            if dead != 0 {
                shape.store(&mut self.bytes, i, shape.clear(x, dead));
            }
        }
        if self.stash != 0 && !self.stash_live(view) {
            self.stash = 0;
            self.stash_bucket = 0;
        }
    }

    /// Clears every slot and the stash.
    pub(crate) fn clear(&mut self) {
        self.bytes.fill(0);
        self.stash = 0;
        self.stash_bucket = 0;
    }

    /// Occupied slots (the stash included) and, of them, those live in `view` (all of them
    /// when `view` is `None`).
    pub(crate) fn count(&self, view: Option<&View>) -> (u64, u64) {
        let shape = &self.shape;
        let (mut occupied, mut live) = (0, 0);
        for i in 0..self.buckets {
            let x = shape.load(&self.bytes, i);
            let o = shape.occupied(x);
            occupied += Shape::count(o);
            live += Shape::count(match view {
                Some(v) => o & shape.live(x, v),
                None => o,
            });
        }
        if self.stash != 0 {
            occupied += 1;
            live += u64::from(view.is_none_or(|v| self.stash_live(v)));
        }
        (occupied, live)
    }

    /// Every occupied slot as `(bucket, slot value)`, the stash last.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let shape = self.shape;
        let stash = (self.stash != 0).then_some((self.stash_bucket, self.stash));
        (0..self.buckets)
            .flat_map(move |i| {
                let x = shape.load(&self.bytes, i);
                (0..SLOTS).map(move |j| (i, shape.get(x, j)))
            })
            .filter(|&(_, e)| e != 0)
            .chain(stash)
    }
}
