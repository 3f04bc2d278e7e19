//! The cuckoo filter's insert path: a free slot in either bucket, else the random walk with a
//! one-move look-ahead, bounded by a number of kicks, and the victim stash.

use super::lanes::{Lanes, Probe};
use super::{splitmix, CuckooFilter, AHEAD, MAX_KICKS, SLOTS_PER_BUCKET};
use crate::error::{Error, Result};
use crate::filter::Item;
use crate::hash::{cuckoo_alt_index, hash128};

impl CuckooFilter {
    /// Adds one copy of a precomputed hash's fingerprint.
    ///
    /// Returns `Ok(true)` if no copy of the fingerprint was in the item's buckets before,
    /// `Ok(false)` if one was (the item may already have been there; a copy is added anyway).
    ///
    /// # Errors
    /// [`Error::Full`] if the victim stash is taken and both buckets are full; nothing
    /// changes.
    pub fn insert_hash(&mut self, h: u128) -> Result<bool> {
        self.insert_hash_with_kicks(h, MAX_KICKS)
    }

    /// [`insert_hash`](Self::insert_hash) with a random walk of at most `max_kicks` moves
    /// (1 to [`MAX_KICKS`] or more; 0 counts as 1) before the homeless fingerprint goes to
    /// the victim stash. A shorter walk fills the table less before its first refusal
    /// (RedisBloom's `MAXITERATIONS`, default 20: <https://redis.io/docs/latest/commands/cf.reserve/>).
    ///
    /// # Errors
    /// As [`insert_hash`](Self::insert_hash).
    ///
    /// # Example
    /// ```
    /// let mut f = amq::CuckooFilter::new(16, 12, 0)?;
    /// let h = f.hash("apple");
    /// assert!(f.insert_hash_with_kicks(h, 20)?);
    /// assert!(f.contains_hash(h));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn insert_hash_with_kicks(&mut self, h: u128, max_kicks: u32) -> Result<bool> {
        let p = self.probe(h);
        let new = !with_f!(self.f, F => self.holds::<F>(p));
        self.insert_probe(p, max_kicks.max(1))?;
        Ok(new)
    }

    /// Inserts every item of `items` in turn, as [`insert`](crate::Insert::insert) on each
    /// would, with the two buckets of item i + 16 prefetched while item i is placed: the cache
    /// misses of a large table overlap instead of following one another, so this is the fast
    /// way to build a filter. The table is the same as after inserting one item at a time.
    ///
    /// # Errors
    /// [`Error::Full`] at the first item that does not fit (the victim stash is taken and both
    /// its buckets are full): the items before it stay inserted, it and those after it are
    /// not.
    ///
    /// # Example
    /// ```
    /// use amq::{CuckooFilter, Filter};
    /// let mut f = CuckooFilter::with_fpr(1000, 0.01, 7)?;
    /// f.insert_batch(0..500u64)?;
    /// f.insert_batch(["apple", "pear"])?;
    /// assert!(f.contains(&499u64) && f.contains("pear"));
    /// assert_eq!(f.inserted(), 502);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn insert_batch<I>(&mut self, items: I) -> Result<()>
    where
        I: IntoIterator,
        I::Item: Item,
    {
        let seed = self.seed;
        self.insert_hash_batch(items.into_iter().map(|item| hash128(&item, seed)))
    }

    /// Batched [`insert_hash`](Self::insert_hash), prefetching as
    /// [`insert_batch`](Self::insert_batch) does.
    ///
    /// # Errors
    /// As [`insert_batch`](Self::insert_batch).
    pub fn insert_hash_batch(&mut self, hashes: impl IntoIterator<Item = u128>) -> Result<()> {
        let mut hashes = hashes.into_iter();
        with_f!(self.f, F => {
            let mut ring = [Probe::default(); AHEAD];
            let mut filled = 0;
            for slot in ring.iter_mut() {
                match hashes.next() {
                    Some(h) => *slot = self.prefetch_probe::<F>(h),
                    None => break,
                }
                filled += 1;
            }
            let mut at = 0;
            for h in hashes {
                self.insert_probe(ring[at], MAX_KICKS)?;
                ring[at] = self.prefetch_probe::<F>(h);
                at = (at + 1) % AHEAD;
            }
            for i in 0..filled {
                self.insert_probe(ring[(at + i) % AHEAD], MAX_KICKS)?;
            }
            Ok(())
        })
    }

    /// Places `fp`, found in (or meant for) bucket `i`, in `i` or its alternate:
    /// [`insert_probe`](Self::insert_probe).
    pub(super) fn insert_fingerprint(&mut self, i: u64, fp: u32) -> Result<()> {
        self.insert_probe(
            Probe {
                i1: i,
                i2: self.alt(i, fp),
                fp,
            },
            MAX_KICKS,
        )
    }

    /// Places the fingerprint of `p` in one of its buckets, kicking if needed; the victim of a
    /// failed walk goes to the stash. With the stash empty this never fails.
    fn insert_probe(&mut self, p: Probe, max_kicks: u32) -> Result<()> {
        if self.try_place_either(p.i1, p.i2, p.fp) {
            self.len += 1;
            return Ok(());
        }
        if self.stash_used() {
            return Err(Error::Full {
                items: self.len,
                capacity: self.slots() + 1,
            });
        }
        self.kick(p.i1, p.i2, p.fp, max_kicks);
        Ok(())
    }

    /// Puts `fp` in an empty slot of bucket `i`, else of bucket `i2`.
    fn try_place_either(&mut self, i: u64, i2: u64, fp: u32) -> bool {
        with_f!(self.f, F => {
            Lanes::<F>::try_place(&mut self.table, i, fp)
                || Lanes::<F>::try_place(&mut self.table, i2, fp)
        })
    }

    /// The random walk for `fp`, whose buckets `i` and `i2` are both full.
    ///
    /// Each step first looks one move ahead: if a fingerprint of the full bucket has an empty
    /// slot in its other bucket, it moves there and the homeless fingerprint takes its slot.
    /// Otherwise a random fingerprint of the bucket is evicted and replaced, and the walk goes
    /// on from the evicted one's other bucket. After `max_kicks` evictions, the fingerprint
    /// still homeless goes to the victim stash, which must be empty.
    fn kick(&mut self, i: u64, i2: u64, fp: u32, max_kicks: u32) {
        let (f, buckets) = (self.f, self.buckets);
        let mut rng = i ^ (u64::from(fp) << 40) ^ self.seed;
        let first = splitmix(&mut rng);
        let table = &mut self.table;
        let homeless = with_f!(f, F => {
            // Moves one fingerprint of full bucket `b` to its other bucket, if that has room,
            // and puts `fp` in its slot.
            let look_ahead = |table: &mut [u8], b: u64, fp: u32| -> bool {
                for slot in 0..SLOTS_PER_BUCKET {
                    let occupant = Lanes::<F>::get(table, b, slot);
                    let other = cuckoo_alt_index(b, occupant, buckets);
                    if other != b && Lanes::<F>::try_place(table, other, occupant) {
                        Lanes::<F>::swap(table, b, slot, fp);
                        return true;
                    }
                }
                false
            };
            if look_ahead(table, i, fp) || look_ahead(table, i2, fp) {
                None
            } else {
                let mut bucket = if first & 1 == 0 { i } else { i2 };
                let mut cur = fp;
                let mut kicks = 1; // the walk's first eviction
                loop {
                    let slot = (splitmix(&mut rng) >> 62) as u32;
                    cur = Lanes::<F>::swap(table, bucket, slot, cur);
                    bucket = cuckoo_alt_index(bucket, cur, buckets);
                    if Lanes::<F>::try_place(table, bucket, cur) {
                        break None;
                    }
                    if kicks >= max_kicks {
                        break Some((cur, bucket));
                    }
                    kicks += 1;
                    if look_ahead(table, bucket, cur) {
                        break None;
                    }
                }
            }
        });
        if let Some((cur, bucket)) = homeless {
            self.victim_fp = cur;
            self.victim_bucket = bucket;
        }
        self.len += 1;
    }
}
