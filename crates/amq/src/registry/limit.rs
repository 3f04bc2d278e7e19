//! Inserts within a byte limit: what a tool that caps each filter's memory needs (the
//! server's `--max-filter-bytes`, the Redis module's `amq.max-filter-bytes`). Four kinds grow
//! as items come: a scalable Bloom filter and an expandable cuckoo filter add a link when the
//! newest one cannot take an item, a sliding-window Bloom filter archives the chunks its
//! window slides past, a sliding-window cuckoo filter opens a new epoch table. Their inserts
//! here work out what an item would add before anything is allocated, and refuse it (the
//! filter unchanged) when the filter would then pass the limit. The other kinds never change
//! size after they are made: the limit they were made under is all they need.

use super::{AnyFilter, Inserted};
use crate::error::Result;

impl AnyFilter {
    /// `true` for the kinds whose [`size_bytes`](Self::size_bytes) changes after they are
    /// made: the scalable Bloom, expandable cuckoo, sliding-window Bloom and sliding-window
    /// cuckoo filters.
    pub fn grows(&self) -> bool {
        matches!(
            self,
            AnyFilter::ScalableBloom(_)
                | AnyFilter::ExpandableCuckoo(_)
                | AnyFilter::SlidingWindowBloom(_)
                | AnyFilter::SlidingWindowCuckoo(_)
        )
    }

    /// [`insert_placed`](Self::insert_placed), unless the item would take a filter that
    /// [`grows`](Self::grows) over `limit` bytes ([`size_bytes`](Self::size_bytes)): a
    /// chain's next link, a new epoch table (closing the open one, compacted) are counted
    /// exactly; a sliding-window Bloom filter's chunks about to be archived as full bitmaps,
    /// the most they can take. A kind that does not grow is not held to `limit`.
    ///
    /// # Errors
    /// [`Error::OverLimit`](crate::Error::OverLimit), nothing changed; otherwise as
    /// [`insert_placed`](Self::insert_placed).
    ///
    /// # Example
    /// ```
    /// use amq::math::Spec;
    /// use amq::{AnyFilter, Error};
    ///
    /// let spec = Spec::ScalableBloom {
    ///     items: 100, fpr: 0.01, expansion: 2, tightening: 0.5, nonscaling: false,
    /// };
    /// let mut f = AnyFilter::new(&spec, 0)?;
    /// let limit = f.size_bytes(); // no room for a second link
    /// let mut added = 0u32;
    /// let refused = loop {
    ///     match f.insert_within(&added.to_le_bytes(), limit) {
    ///         Ok(_) => added += 1,
    ///         Err(e) => break e,
    ///     }
    /// };
    /// assert!(matches!(refused, Error::OverLimit { .. }));
    /// assert!(added >= 100 && f.size_bytes() <= limit);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn insert_within(&mut self, item: &[u8], limit: u64) -> Result<Inserted> {
        let unplaced = |new| Inserted { new, at: None };
        match self {
            AnyFilter::ScalableBloom(f) => f.insert_within(item, limit).map(unplaced),
            AnyFilter::ExpandableCuckoo(f) => f.insert_within(item, limit).map(unplaced),
            AnyFilter::SlidingWindowBloom(w) => w.insert_within(item, limit).map(|p| Inserted {
                new: true,
                at: Some(super::At::Position(p)),
            }),
            AnyFilter::SlidingWindowCuckoo(s) => s.register_within(item, limit).map(|e| Inserted {
                new: true,
                at: Some(super::At::Epoch(e)),
            }),
            other => other.insert_placed(item),
        }
    }

    /// [`Error::OverLimit`](crate::Error::OverLimit) if
    /// [`insert_within`](Self::insert_within) would refuse `item` for `limit`, told without
    /// changing the filter; `Ok` when it would not, and when only the insert can tell: an
    /// expandable cuckoo filter's newest link may take the item or not (its kicks decide). A
    /// filter's own refusals (full, a chain that may not grow) are left to the insert. For a
    /// tool that logs a write before it applies it and wants to refuse a write whole.
    ///
    /// # Errors
    /// [`Error::OverLimit`](crate::Error::OverLimit), as said.
    pub fn check_within(&self, item: &[u8], limit: u64) -> Result<()> {
        match self {
            AnyFilter::ScalableBloom(s) => {
                if s.contains_hash(s.hash(item)) || !s.is_full() || !s.can_grow() {
                    return Ok(());
                }
                match s.next_link_bytes() {
                    Ok(more) => crate::Error::check_limit(s.size_bytes(), more, false, limit),
                    Err(_) => Ok(()),
                }
            }
            AnyFilter::SlidingWindowBloom(w) => w.check_next_insert(limit),
            AnyFilter::SlidingWindowCuckoo(s) => s.check_register_within(s.hash(item), limit),
            _ => Ok(()),
        }
    }
}
