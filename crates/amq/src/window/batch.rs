//! The sliding-window Bloom filter's batched query: two prefetch stages, archive entries and
//! then the bitmap words they point to.

use super::{Placement, Site, SlidingWindowBloom};
use crate::filter::Item;
use crate::hash::bloom_indices_with;

/// A query of a batch on its way: located, and how many of its indices were prefetched.
#[derive(Debug, Clone, Copy, Default)]
struct Ahead {
    query: Option<(u128, Placement)>,
    reads: u32,
}

impl SlidingWindowBloom {
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
            for idx in bloom_indices_with(wh, p.window_bits, reads, self.indexing) {
                match self.site(&at, idx) {
                    Site::Past => {}
                    Site::Ring(bit) => crate::bits::prefetch(&self.ring[(bit >> 6) as usize]),
                    // the entry chunk t + q has when no chunk was skipped
                    Site::Archived { q, .. } => {
                        let guess = at.archive_from.saturating_add(q as usize);
                        if let Some(a) = self.archive.get(guess) {
                            crate::bits::prefetch(a);
                        }
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
                for idx in bloom_indices_with(wh, p.window_bits, ahead.reads, self.indexing) {
                    if let Site::Archived { q, off } = self.site(&at, idx) {
                        if let Some(a) = self.archived(&at, q) {
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
}
