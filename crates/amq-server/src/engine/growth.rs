//! Inserts that keep a filter within the per-filter byte limit (`--max-filter-bytes`).
//!
//! Four kinds grow as items come: a scalable Bloom filter and an expandable cuckoo filter add
//! a link when the newest one cannot take an item, a sliding-window Bloom filter archives the
//! chunk its window slides past, a sliding-window cuckoo filter opens a new epoch table.
//! [`Guard::insert`] works out what an item would add before anything is allocated, and
//! refuses the item (the filter unchanged) when the filter would then be over the limit. The
//! other kinds never change size, so the limit they were created under is all they need.
//!
//! An insert record carries the limit it was served under, and replay runs it through the
//! same guard with that limit, so a restarted server refuses the same items whatever its own
//! limit is.

use amq::rln::SlidingWindowCuckoo;
use amq::{AnyFilter, At, Inserted};

/// Why [`Guard::insert`] did not add an item.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The item would take the filter over the limit.
    OverLimit {
        /// The filter's size before the item.
        size: u64,
        /// What the item would add.
        more: u64,
        /// `true` when `more` is a bound from above (a sliding-window Bloom filter's chunk
        /// takes at most a full bitmap in its archive).
        at_most: bool,
        /// The limit.
        max: u64,
    },
    /// The filter refused it (a full cuckoo filter, a chain that may not grow).
    Filter(amq::Error),
}

impl From<amq::Error> for Refusal {
    fn from(e: amq::Error) -> Self {
        Refusal::Filter(e)
    }
}

/// `true` for the kinds whose size changes after they are created.
pub(crate) fn changes_size(f: &AnyFilter) -> bool {
    matches!(
        f,
        AnyFilter::ScalableBloom(_)
            | AnyFilter::ExpandableCuckoo(_)
            | AnyFilter::SlidingWindowBloom(_)
            | AnyFilter::SlidingWindowCuckoo(_)
    )
}

/// A chain's insert of `item` under `guard`: the newest link first; if it is full and the
/// chain may grow, the next link's size checked against the limit before it is made.
macro_rules! chain_insert {
    ($guard:expr, $chain:expr, $item:expr) => {{
        let h = $chain.hash($item);
        match $chain.try_insert_hash(h) {
            Err(amq::Error::Full { .. }) if $chain.can_grow() => {
                $guard.allow($chain.next_link_bytes()?, false)?;
                $chain.grow()?;
                $guard.size = $chain.size_bytes();
                $chain.try_insert_hash(h).map_err(Refusal::from)
            }
            other => other.map_err(Refusal::from),
        }
    }};
}

/// The limit and the filter's size, carried through the items of one record.
#[derive(Debug)]
pub(crate) struct Guard {
    max: u64,
    /// The filter's payload bytes now; for a sliding-window Bloom filter a bound from above
    /// (exact at the start of the record, then each archived chunk counted as a full bitmap,
    /// and counted again exactly before an item is refused).
    size: u64,
    /// A sliding-window cuckoo filter within one epoch table of the limit: a copy of its
    /// open epoch, registered in step with it, which shows whether the next registration
    /// would open a new epoch (the open table refusing it) before the filter does.
    trial: Option<SlidingWindowCuckoo>,
}

impl Guard {
    /// A guard for `f` under a limit of `max` bytes.
    pub(crate) fn new(f: &AnyFilter, max: u64) -> Self {
        Guard {
            max,
            size: if changes_size(f) { f.size_bytes() } else { 0 },
            trial: None,
        }
    }

    /// `Ok` if the filter may grow by `more` bytes (`at_most`: by at most that much).
    fn allow(&self, more: u64, at_most: bool) -> Result<(), Refusal> {
        if self.size.saturating_add(more) > self.max {
            Err(Refusal::OverLimit {
                size: self.size,
                more,
                at_most,
                max: self.max,
            })
        } else {
            Ok(())
        }
    }

    /// Inserts an item as [`AnyFilter::insert_placed`] does, unless what it would add takes
    /// the filter over the limit.
    ///
    /// # Errors
    /// A [`Refusal`]; the filter is unchanged.
    pub(crate) fn insert(&mut self, f: &mut AnyFilter, item: &[u8]) -> Result<Inserted, Refusal> {
        let unplaced = |new| Inserted { new, at: None };
        match f {
            // as the chains' own insert_hash: try the newest link, grow if it is full and the
            // chain may grow, try again; with the new link's size checked before it exists
            // (one macro for the two chain types, which share these methods' names)
            AnyFilter::ScalableBloom(chain) => chain_insert!(self, chain, item).map(unplaced),
            AnyFilter::ExpandableCuckoo(chain) => chain_insert!(self, chain, item).map(unplaced),
            AnyFilter::SlidingWindowBloom(w) => {
                let more = slide_bytes(w);
                if more > 0 {
                    if self.allow(more, true).is_err() {
                        // the chunks archived so far in this record were counted at their
                        // largest: count the filter as it is before refusing
                        self.size = w.size_bytes();
                        self.allow(more, true)?;
                    }
                    self.size += more;
                }
                Ok(f.insert_placed(item)?)
            }
            AnyFilter::SlidingWindowCuckoo(s) => self.register(s, item),
            _ => Ok(f.insert_placed(item)?),
        }
    }

    /// Registers a member of a sliding-window cuckoo filter, if [`check_registration`]
    /// allows it.
    ///
    /// [`check_registration`]: Self::check_registration
    fn register(&mut self, s: &mut SlidingWindowCuckoo, item: &[u8]) -> Result<Inserted, Refusal> {
        self.check_registration(s, item)?;
        let open = s.open_epoch();
        let bytes = |s: &SlidingWindowCuckoo, e: Option<u64>| {
            e.and_then(|e| s.epoch(e)).map_or(0, |info| info.bytes)
        };
        let before = bytes(s, open);
        let epoch = s.register(item)?;
        let opened = if open == Some(epoch) {
            0
        } else {
            bytes(s, Some(epoch))
        };
        self.size = (self.size + bytes(s, open) + opened).saturating_sub(before);
        Ok(Inserted {
            new: true,
            at: Some(At::Epoch(epoch)),
        })
    }

    /// `Ok` if registering `item` keeps a sliding-window cuckoo filter within the limit. A
    /// registration allocates an epoch table when no epoch is open, or when the open epoch's
    /// table refuses it (that epoch is then closed and compacted first); within one table of
    /// the limit, a copy of the open epoch takes the registration first to tell which (and is
    /// kept, registered in step with the filter, for the next item).
    fn check_registration(&mut self, s: &SlidingWindowCuckoo, item: &[u8]) -> Result<(), Refusal> {
        let table = s.epoch_bytes();
        let open = s.open_epoch();
        let near = self.size.saturating_add(table) > self.max;
        match (open, near) {
            (_, false) => self.trial = None,
            (None, true) => {
                self.trial = None;
                self.allow(table, false)?;
            }
            (Some(e), true) => {
                let mut trial = match self.trial.take() {
                    Some(t) => t,
                    None => s.export_epoch(e)?,
                };
                let (before, epochs) = (trial.size_bytes(), trial.epochs());
                trial.register(item)?;
                if trial.epochs() > epochs {
                    // the open table refused it: the filter would close that epoch and open
                    // a new one, ending at the size the copy ends at
                    let after = (self.size + trial.size_bytes()).saturating_sub(before);
                    if after > self.max {
                        return Err(Refusal::OverLimit {
                            size: self.size,
                            more: after.saturating_sub(self.size),
                            at_most: false,
                            max: self.max,
                        });
                    }
                }
                // keep the copy only while it holds the filter's open epoch
                if trial.open_epoch().is_some() {
                    self.trial = Some(trial);
                }
            }
        }
        Ok(())
    }
}

/// What inserting at a sliding-window Bloom filter's next position may add: if that position
/// is in a later batch the window slides first, archiving each chunk it leaves, each as a
/// bitmap of S bits at most (fewer bytes when sparse; nothing when empty).
fn slide_bytes(w: &amq::SlidingWindowBloom) -> u64 {
    let p = w.params();
    let t = w.next_position() / p.batch;
    let slides = t
        .saturating_sub(w.window_start_chunk())
        .min(p.window_bits / p.chunk_bits);
    slides.saturating_mul(p.chunk_bits / 8)
}

/// Tells, without changing the filter, whether an insert's first item would be refused for
/// the limit, so that a request refused whole is not logged. `Some` only when that is
/// certain: the same decisions as [`Guard::insert`], except for an expandable cuckoo filter,
/// whose newest link has to be tried to know whether it takes the item (its refusal is left
/// to the insert, which logs the request with its limit).
pub(crate) fn refuses_first(f: &AnyFilter, item: &[u8], max: u64) -> Option<Refusal> {
    let mut g = Guard::new(f, max);
    let told = match f {
        // try_insert_hash reports Full exactly for a new item and a full newest link
        AnyFilter::ScalableBloom(s) => {
            let h = s.hash(item);
            if s.contains_hash(h) || !s.is_full() || !s.can_grow() {
                return None;
            }
            g.allow(s.next_link_bytes().ok()?, false)
        }
        AnyFilter::SlidingWindowBloom(w) => match slide_bytes(w) {
            0 => return None,
            more => g.allow(more, true),
        },
        AnyFilter::SlidingWindowCuckoo(s) => g.check_registration(s, item),
        _ => return None,
    };
    // the filter's own refusals are the insert's to give
    match told {
        Err(over @ Refusal::OverLimit { .. }) => Some(over),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amq::math::Spec;

    fn filter(spec: serde_json::Value) -> AnyFilter {
        let spec: Spec = serde_json::from_value(spec).unwrap();
        AnyFilter::new(&spec, 3).unwrap()
    }

    /// Inserts items 0.. until the guard refuses one; the items added. Before each item,
    /// [`refuses_first`] (asked as if the item began a request) must not refuse an item the
    /// guard takes.
    fn fill(f: &mut AnyFilter, max: u64, n: u32) -> (u32, Option<Refusal>) {
        let mut g = Guard::new(f, max);
        for i in 0..n {
            let told = refuses_first(f, &i.to_le_bytes(), max).is_some();
            let inserted = g.insert(f, &i.to_le_bytes());
            assert!(
                !told || inserted.is_err(),
                "refused ahead, taken by the guard"
            );
            match inserted {
                Ok(_) => assert!(
                    g.size >= f.size_bytes(),
                    "the tracked size bounds the real one"
                ),
                Err(r) => return (i, Some(r)),
            }
        }
        (n, None)
    }

    /// Under a limit far above it, the guard inserts what the filter's own insert does.
    #[test]
    fn far_from_the_limit_the_guard_is_the_filters_own_insert() {
        for spec in [
            serde_json::json!({"kind": "scalable-bloom", "items": 50, "fpr": 0.01}),
            serde_json::json!({"kind": "expandable-cuckoo", "items": 50, "fpr": 0.01}),
            serde_json::json!({"kind": "sliding-window-bloom", "window_bits": 1024, "chunk_bits": 256, "batch": 8, "k": 3}),
            serde_json::json!({"kind": "sliding-window-cuckoo", "epoch_items": 30, "fpr": 0.01}),
            serde_json::json!({"kind": "cuckoo", "items": 500, "fpr": 0.01}),
        ] {
            let mut a = filter(spec.clone());
            let mut b = a.clone();
            let mut g = Guard::new(&a, u64::MAX);
            for i in 0..400u32 {
                let item = i.to_le_bytes();
                assert_eq!(
                    g.insert(&mut a, &item).unwrap(),
                    b.insert_placed(&item).unwrap()
                );
            }
            assert_eq!(a.to_bytes(), b.to_bytes(), "{spec}");
            if changes_size(&a) && !matches!(a, AnyFilter::SlidingWindowBloom(_)) {
                assert_eq!(g.size, a.size_bytes(), "{spec}");
            }
        }
    }

    /// Near the limit every growing kind stops at the item that would take it over, with
    /// its size within the limit and nothing allocated for the item refused.
    #[test]
    fn each_growing_kind_stops_within_the_limit() {
        for spec in [
            serde_json::json!({"kind": "scalable-bloom", "items": 50, "fpr": 0.01}),
            serde_json::json!({"kind": "expandable-cuckoo", "items": 50, "fpr": 0.01}),
            serde_json::json!({"kind": "sliding-window-bloom", "window_bits": 1024, "chunk_bits": 256, "batch": 2, "k": 3}),
            serde_json::json!({"kind": "sliding-window-cuckoo", "epoch_items": 30, "fpr": 0.01}),
        ] {
            let f0 = filter(spec.clone());
            let max = f0.size_bytes() + 600;
            let mut f = f0.clone();
            let (added, refusal) = fill(&mut f, max, 5000);
            assert!(
                matches!(refusal, Some(Refusal::OverLimit { .. })),
                "{spec}: {refusal:?}"
            );
            assert!(added > 0, "{spec}");
            assert!(f.size_bytes() <= max, "{spec}: {} > {max}", f.size_bytes());
            // the refused item changed nothing: the same items again stop at the same one
            let mut again = f0.clone();
            assert_eq!(fill(&mut again, max, 5000).0, added, "{spec}");
            assert_eq!(again.to_bytes(), f.to_bytes(), "{spec}");
            // and it is told ahead as refused, but for the kind that must try its newest link
            let told = refuses_first(&f, &added.to_le_bytes(), max);
            if !matches!(f, AnyFilter::ExpandableCuckoo(_)) {
                assert!(
                    matches!(told, Some(Refusal::OverLimit { .. })),
                    "{spec}: {told:?}"
                );
            }
        }
    }

    #[test]
    fn the_size_of_a_sliding_window_cuckoo_filter_is_tracked_exactly() {
        let mut f = filter(
            serde_json::json!({"kind": "sliding-window-cuckoo", "epoch_items": 7, "fpr": 0.01}),
        );
        let mut g = Guard::new(&f, u64::MAX);
        for i in 0..100u32 {
            g.insert(&mut f, &i.to_le_bytes()).unwrap();
            assert_eq!(g.size, f.size_bytes(), "after {i}");
        }
    }
}
