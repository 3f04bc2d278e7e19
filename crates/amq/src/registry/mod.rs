//! The registry of filter kinds: [`AnyFilter`] holds any kind an `.amq` file can hold, and
//! opens, creates, describes and encodes it through one interface; [`Info`] describes it.
//!
//! Adding a kind means one module (the filter, its `to_bytes`/`from_container` and its
//! `info()`) and one entry in each `match` of this file, [`Kind`], [`Spec`] and
//! [`math::plan`](crate::math::plan): CONTRIBUTING.md lists the steps.

mod at;
mod info;
mod limit;

pub use at::{At, Inserted};
pub use info::{Details, Info};

use crate::clock::ManualClock;
use crate::cuckoo::ExpandableParams;
use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Remove};
use crate::math::{PlanDetails, Spec};
use crate::scalable::ScalableParams;
use crate::wire::{self, Kind};
use crate::{
    AgingBloom, BlockedBloomFilter, BloomFilter, CuckooFilter, ExpandableCuckooFilter,
    NegativeCache, ScalableBloomFilter, SlidingWindowBloom, SlidingWindowCuckoo,
    SplitBlockBloomFilter, TtlCuckooFilter,
};
use alloc::boxed::Box;
use alloc::vec::Vec;

/// A filter of any kind the `.amq` container holds, for tools that open files whose kind they
/// do not know in advance (the command line, the server, the bindings).
///
/// The aging filter, the negative cache and the TTL cuckoo filter read the time from a
/// [`ManualClock`] that starts at 0 when the filter is created or decoded ("no time has passed
/// since it was written"); set it with [`set_now`](Self::set_now) before an operation that should
/// see the current time.
///
/// # Example
/// ```
/// use amq::math::{Spec, Target};
/// use amq::AnyFilter;
///
/// let spec = Spec::Cuckoo { items: 1000, target: Target::Fpr(0.01) };
/// let mut f = AnyFilter::new(&spec, 7)?;
/// f.insert(b"alice")?;
/// assert_eq!(f.contains(b"alice"), Ok(true));
/// assert_eq!(f.remove(b"alice"), Ok(true));
/// let g = AnyFilter::from_bytes(&f.to_bytes())?;
/// assert_eq!(g.info().kind().name(), "cuckoo");
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AnyFilter {
    /// A classic Bloom filter.
    Bloom(BloomFilter),
    /// A blocked Bloom filter.
    BlockedBloom(BlockedBloomFilter),
    /// A cuckoo filter.
    Cuckoo(CuckooFilter),
    /// A sliding-window Bloom filter (items at positions).
    SlidingWindowBloom(SlidingWindowBloom),
    /// An aging Bloom filter.
    AgingBloom(AgingBloom<ManualClock>),
    /// A negative cache.
    NegativeCache(NegativeCache<ManualClock>),
    /// A TTL cuckoo filter (entries expire). Boxed, as the sliding-window cuckoo filter: the
    /// two largest kinds would otherwise make every `AnyFilter` 272 bytes instead of 136 (the
    /// overhead of each key in the Redis module).
    TtlCuckoo(Box<TtlCuckooFilter<ManualClock>>),
    /// A sliding-window cuckoo filter (members at registration epochs).
    SlidingWindowCuckoo(Box<SlidingWindowCuckoo>),
    /// A scalable Bloom filter (a chain of Bloom filters that grows).
    ScalableBloom(ScalableBloomFilter),
    /// An expandable cuckoo filter (a chain of cuckoo filters that grows).
    ExpandableCuckoo(ExpandableCuckooFilter),
    /// A split block Bloom filter.
    SplitBlockBloom(SplitBlockBloomFilter),
}

/// Applies `$body` to the filter inside any variant, bound to `$f`.
macro_rules! each {
    ($self:expr, $f:ident => $body:expr) => {
        match $self {
            AnyFilter::Bloom($f) => $body,
            AnyFilter::BlockedBloom($f) => $body,
            AnyFilter::Cuckoo($f) => $body,
            AnyFilter::SlidingWindowBloom($f) => $body,
            AnyFilter::AgingBloom($f) => $body,
            AnyFilter::NegativeCache($f) => $body,
            AnyFilter::TtlCuckoo($f) => $body,
            AnyFilter::SlidingWindowCuckoo($f) => $body,
            AnyFilter::ScalableBloom($f) => $body,
            AnyFilter::ExpandableCuckoo($f) => $body,
            AnyFilter::SplitBlockBloom($f) => $body,
        }
    };
}

impl AnyFilter {
    /// An empty filter of the kind and shape `spec` plans ([`math::plan`](crate::math::plan)),
    /// hashing under `seed`.
    ///
    /// # Errors
    /// Any error of the planner or of the kind's constructor ([`Error::InvalidParameter`],
    /// or an allocation that fails).
    pub fn new(spec: &Spec, seed: u64) -> Result<Self> {
        let plan = crate::math::plan(spec)?;
        Ok(match *spec {
            Spec::Bloom { .. } => AnyFilter::Bloom(BloomFilter::new(plan.m_bits, plan.k, seed)?),
            Spec::BlockedBloom { .. } => {
                AnyFilter::BlockedBloom(BlockedBloomFilter::new(plan.m_bits, plan.k, seed)?)
            }
            Spec::SplitBlockBloom { .. } => {
                AnyFilter::SplitBlockBloom(SplitBlockBloomFilter::new(plan.m_bits, seed)?)
            }
            Spec::Cuckoo { .. } => match plan.details {
                crate::math::PlanDetails::Cuckoo {
                    fingerprint_bits,
                    buckets,
                    ..
                } => AnyFilter::Cuckoo(CuckooFilter::new(buckets, fingerprint_bits, seed)?),
                _ => unreachable!("a cuckoo spec plans a cuckoo filter"),
            },
            Spec::SlidingWindowBloom { params } => {
                AnyFilter::SlidingWindowBloom(SlidingWindowBloom::new(params, seed)?)
            }
            Spec::AgingBloom {
                window,
                window_seconds,
                items_per_generation,
                generations,
                fpr,
            } => {
                let f = match (window, window_seconds, items_per_generation) {
                    (Some(w), None, _) => AgingBloom::with_window(w, generations, fpr, seed)?,
                    (None, Some(s), Some(c)) => {
                        AgingBloom::with_time_window(s, generations, c, fpr, seed)?
                    }
                    _ => unreachable!("the planner accepted only these"),
                };
                AnyFilter::AgingBloom(f.with_clock(ManualClock::new(0)))
            }
            Spec::NegativeCache { l, b, ways, ttl } => {
                let c = NegativeCache::new(l, b, ways, seed)?;
                let c = match ttl {
                    Some(t) => c.with_ttl(t)?,
                    None => c,
                };
                AnyFilter::NegativeCache(c.with_clock(ManualClock::new(0)))
            }
            Spec::TtlCuckoo(s) => {
                let PlanDetails::TtlCuckoo(p) = plan.details else {
                    unreachable!("a TTL cuckoo spec plans a TTL cuckoo filter")
                };
                let f = TtlCuckooFilter::new(
                    p.buckets,
                    p.fingerprint_bits,
                    p.stamp_bits,
                    s.tick,
                    seed,
                )?
                .with_default_ttl(p.default_ttl)?;
                AnyFilter::TtlCuckoo(Box::new(f.with_clock(ManualClock::new(0))))
            }
            Spec::SlidingWindowCuckoo(s) => AnyFilter::SlidingWindowCuckoo(Box::new(
                SlidingWindowCuckoo::with_fpr(s.epoch_items, s.fpr, seed)?,
            )),
            Spec::ScalableBloom {
                items,
                fpr,
                expansion,
                tightening,
                nonscaling,
            } => AnyFilter::ScalableBloom(ScalableBloomFilter::new(
                ScalableParams {
                    capacity: items,
                    fpr,
                    expansion,
                    tightening,
                    scaling: !nonscaling,
                },
                seed,
            )?),
            Spec::ExpandableCuckoo {
                items,
                fpr,
                expansion,
                tightening,
                max_kicks,
            } => AnyFilter::ExpandableCuckoo(ExpandableCuckooFilter::new(
                ExpandableParams {
                    capacity: items,
                    fpr,
                    expansion,
                    tightening,
                    max_kicks,
                },
                seed,
            )?),
        })
    }

    /// Decodes an `.amq` file of any kind.
    ///
    /// # Errors
    /// Any error of [`wire::decode`] and of the kind's own decoder.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        Ok(match c.kind {
            Kind::Bloom => AnyFilter::Bloom(BloomFilter::from_container(&c)?),
            Kind::BlockedBloom => AnyFilter::BlockedBloom(BlockedBloomFilter::from_container(&c)?),
            Kind::Cuckoo => AnyFilter::Cuckoo(CuckooFilter::from_container(&c)?),
            Kind::SlidingWindowBloom => {
                AnyFilter::SlidingWindowBloom(SlidingWindowBloom::from_container(&c)?)
            }
            Kind::AgingBloom => AnyFilter::AgingBloom(
                AgingBloom::from_container(&c)?.with_clock(ManualClock::new(0)),
            ),
            Kind::NegativeCache => AnyFilter::NegativeCache(
                NegativeCache::from_container(&c)?.with_clock(ManualClock::new(0)),
            ),
            Kind::TtlCuckoo => AnyFilter::TtlCuckoo(Box::new(
                TtlCuckooFilter::from_container(&c)?.with_clock(ManualClock::new(0)),
            )),
            Kind::SlidingWindowCuckoo => {
                AnyFilter::SlidingWindowCuckoo(Box::new(SlidingWindowCuckoo::from_container(&c)?))
            }
            Kind::ScalableBloom => {
                AnyFilter::ScalableBloom(ScalableBloomFilter::from_container(&c)?)
            }
            Kind::ExpandableCuckoo => {
                AnyFilter::ExpandableCuckoo(ExpandableCuckooFilter::from_container(&c)?)
            }
            Kind::SplitBlockBloom => {
                AnyFilter::SplitBlockBloom(SplitBlockBloomFilter::from_container(&c)?)
            }
        })
    }

    /// Encodes as an `.amq` file, byte-identical to the kind's own `to_bytes`.
    pub fn to_bytes(&self) -> Vec<u8> {
        each!(self, f => f.to_bytes())
    }

    /// Payload bytes (what [`Info::bytes`] says, without computing the rest of the info).
    pub fn size_bytes(&self) -> u64 {
        each!(self, f => f.size_bytes())
    }

    /// The kind's [`Info::inserted`] count, without walking the tables.
    pub fn inserted(&self) -> u64 {
        each!(self, f => f.inserted())
    }

    /// How the kinds of the Bloom family derive their k indices
    /// ([`Indexing`](crate::hash::Indexing)): `None` for the kinds that have no such choice.
    /// A filter read from a file written before index scheme 2 says
    /// [`Indexing::Unit`](crate::hash::Indexing::Unit).
    pub fn indexing(&self) -> Option<crate::hash::Indexing> {
        match self {
            AnyFilter::Bloom(f) => Some(f.indexing()),
            AnyFilter::ScalableBloom(f) => Some(f.indexing()),
            AnyFilter::SlidingWindowBloom(f) => Some(f.indexing()),
            AnyFilter::AgingBloom(f) => Some(f.indexing()),
            _ => None,
        }
    }

    /// The kind.
    pub fn kind(&self) -> Kind {
        match self {
            AnyFilter::Bloom(_) => Kind::Bloom,
            AnyFilter::BlockedBloom(_) => Kind::BlockedBloom,
            AnyFilter::Cuckoo(_) => Kind::Cuckoo,
            AnyFilter::SlidingWindowBloom(_) => Kind::SlidingWindowBloom,
            AnyFilter::AgingBloom(_) => Kind::AgingBloom,
            AnyFilter::NegativeCache(_) => Kind::NegativeCache,
            AnyFilter::TtlCuckoo(_) => Kind::TtlCuckoo,
            AnyFilter::SlidingWindowCuckoo(_) => Kind::SlidingWindowCuckoo,
            AnyFilter::ScalableBloom(_) => Kind::ScalableBloom,
            AnyFilter::ExpandableCuckoo(_) => Kind::ExpandableCuckoo,
            AnyFilter::SplitBlockBloom(_) => Kind::SplitBlockBloom,
        }
    }

    /// Shape, fill and estimated ε ([`Info`]); the aging filter and the negative cache as of
    /// the time set with [`set_now`](Self::set_now).
    pub fn info(&self) -> Info {
        each!(self, f => f.info())
    }

    /// `true` for the kinds whose answers depend on the time set with
    /// [`set_now`](Self::set_now): the aging filter, the negative cache and the TTL cuckoo
    /// filter. A caller that keeps such a filter set the time before each query and insert.
    pub fn reads_clock(&self) -> bool {
        matches!(
            self,
            AnyFilter::AgingBloom(_) | AnyFilter::NegativeCache(_) | AnyFilter::TtlCuckoo(_)
        )
    }

    /// Sets the time (seconds since the Unix epoch, or any tick the filter was built with)
    /// that the aging filter, the negative cache and the TTL cuckoo filter see
    /// ([`reads_clock`](Self::reads_clock)); the other kinds ignore it.
    pub fn set_now(&self, now: u64) {
        match self {
            AnyFilter::AgingBloom(f) => f.clock().set(now),
            AnyFilter::NegativeCache(c) => c.clock().set(now),
            AnyFilter::TtlCuckoo(f) => f.clock().set(now),
            _ => {}
        }
    }

    /// "Maybe present" (`true`) or "definitely absent" (`false`) for an item's bytes; for a
    /// TTL cuckoo filter, "maybe present now" at the time set by [`set_now`](Self::set_now).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a sliding-window Bloom filter (it answers for an item at a
    /// position) and a sliding-window cuckoo filter (for a member at its registration epoch):
    /// ask them with [`contains_at`](Self::contains_at); and for a negative cache (it answers
    /// "definitely present" or "maybe absent").
    pub fn contains(&self, item: &[u8]) -> Result<bool> {
        match self {
            AnyFilter::Bloom(f) => Ok(f.contains(item)),
            AnyFilter::BlockedBloom(f) => Ok(f.contains(item)),
            AnyFilter::Cuckoo(f) => Ok(f.contains(item)),
            AnyFilter::AgingBloom(f) => Ok(f.contains(item)),
            AnyFilter::TtlCuckoo(f) => Ok(Filter::contains(&**f, item)),
            AnyFilter::ScalableBloom(f) => Ok(f.contains(item)),
            AnyFilter::ExpandableCuckoo(f) => Ok(f.contains(item)),
            AnyFilter::SplitBlockBloom(f) => Ok(f.contains(item)),
            AnyFilter::SlidingWindowCuckoo(_) => Err(Error::Unsupported {
                kind: Kind::SlidingWindowCuckoo.name(),
                operation: "membership without an epoch (a member is asked for at the epoch \
                            it was registered in)",
            }),
            AnyFilter::SlidingWindowBloom(_) => Err(Error::Unsupported {
                kind: Kind::SlidingWindowBloom.name(),
                operation: "membership without a position (an item is asked for at its \
                            position)",
            }),
            AnyFilter::NegativeCache(_) => Err(Error::Unsupported {
                kind: Kind::NegativeCache.name(),
                operation: "\"maybe present\" queries (it answers \"definitely present\" or \
                            \"maybe absent\")",
            }),
        }
    }

    /// Batched [`contains`](Self::contains), prefetching where the layout allows.
    ///
    /// # Errors
    /// As [`contains`](Self::contains); `out` is then unchanged.
    ///
    /// # Panics
    /// If `out.len() != items.len()`.
    pub fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) -> Result<()> {
        match self {
            AnyFilter::Bloom(f) => f.contains_batch(items, out),
            AnyFilter::BlockedBloom(f) => f.contains_batch(items, out),
            AnyFilter::Cuckoo(f) => f.contains_batch(items, out),
            AnyFilter::AgingBloom(f) => f.contains_batch(items, out),
            AnyFilter::TtlCuckoo(f) => Filter::contains_batch(&**f, items, out),
            AnyFilter::ScalableBloom(f) => f.contains_batch(items, out),
            AnyFilter::ExpandableCuckoo(f) => f.contains_batch(items, out),
            AnyFilter::SplitBlockBloom(f) => f.contains_batch(items, out),
            other => {
                crate::filter::check_batch(items.len(), out.len());
                if let Some(first) = items.first() {
                    other.contains(first)?;
                }
            }
        }
        Ok(())
    }

    /// Inserts an item's bytes: `Ok(false)` when it may already have been there. A sliding-window
    /// filter puts it at its next position; a sliding-window cuckoo filter registers it in its open
    /// epoch ([`insert_placed`](Self::insert_placed) says which); an aging filter, a negative cache
    /// and a TTL cuckoo filter (with its default TTL) stamp it with the time set by
    /// [`set_now`](Self::set_now).
    ///
    /// # Errors
    /// [`Error::Full`] for a cuckoo filter that cannot take it (nothing is lost), and the
    /// sliding-window filter's errors.
    pub fn insert(&mut self, item: &[u8]) -> Result<bool> {
        match self {
            AnyFilter::Bloom(f) => f.insert(item),
            AnyFilter::BlockedBloom(f) => f.insert(item),
            AnyFilter::Cuckoo(f) => f.insert(item),
            AnyFilter::SlidingWindowBloom(f) => f.insert(item).map(|_| true),
            AnyFilter::AgingBloom(f) => f.insert(item),
            AnyFilter::NegativeCache(c) => Ok(c.insert(item)),
            AnyFilter::TtlCuckoo(f) => Insert::insert(&mut **f, item),
            AnyFilter::SlidingWindowCuckoo(f) => f.register(item).map(|_| true),
            AnyFilter::ScalableBloom(f) => f.insert(item),
            AnyFilter::ExpandableCuckoo(f) => f.insert(item),
            AnyFilter::SplitBlockBloom(f) => f.insert(item),
        }
    }

    /// `true` for the kinds that delete an item by its bytes: the cuckoo filter, the TTL
    /// cuckoo filter and the negative cache. (A sliding-window cuckoo filter deletes a member
    /// at its epoch: [`SlidingWindowCuckoo::slash`].)
    pub fn deletes(&self) -> bool {
        matches!(
            self,
            AnyFilter::Cuckoo(_)
                | AnyFilter::TtlCuckoo(_)
                | AnyFilter::ExpandableCuckoo(_)
                | AnyFilter::NegativeCache(_)
        )
    }

    /// Removes one copy of an item: `Ok(true)` if it was held, `Ok(false)` if it was
    /// definitely absent (nothing changed).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for the kinds that cannot delete (the Bloom kinds) and for a
    /// sliding-window cuckoo filter (it deletes a member at its epoch:
    /// [`remove_at`](Self::remove_at)).
    pub fn remove(&mut self, item: &[u8]) -> Result<bool> {
        match self {
            AnyFilter::Cuckoo(f) => Ok(f.remove(item)),
            AnyFilter::NegativeCache(c) => Ok(c.remove(item)),
            AnyFilter::TtlCuckoo(f) => Ok(Remove::remove(&mut **f, item)),
            AnyFilter::ExpandableCuckoo(f) => Ok(f.remove(item)),
            AnyFilter::SlidingWindowCuckoo(_) => Err(Error::Unsupported {
                kind: Kind::SlidingWindowCuckoo.name(),
                operation: "deletion without an epoch (a member is slashed at the epoch it \
                            was registered in)",
            }),
            other => Err(Error::Unsupported {
                kind: other.kind().name(),
                operation: "deletion (only the cuckoo filters and a negative cache delete)",
            }),
        }
    }

    /// Union with a filter of the same kind and shape.
    ///
    /// # Errors
    /// [`Error::WrongKind`] or [`Error::ShapeMismatch`]; [`Error::Full`] when a cuckoo
    /// filter cannot hold both sets; [`Error::Unsupported`] for the window kinds and the
    /// negative cache. `self` is then unchanged.
    pub fn merge(&mut self, other: &AnyFilter) -> Result<()> {
        match (self, other) {
            (AnyFilter::Bloom(a), AnyFilter::Bloom(b)) => a.union(b),
            (AnyFilter::BlockedBloom(a), AnyFilter::BlockedBloom(b)) => a.union(b),
            (AnyFilter::Cuckoo(a), AnyFilter::Cuckoo(b)) => a.union(b),
            (AnyFilter::ScalableBloom(a), AnyFilter::ScalableBloom(b)) => a.union(b),
            (AnyFilter::ExpandableCuckoo(a), AnyFilter::ExpandableCuckoo(b)) => a.union(b),
            (AnyFilter::SplitBlockBloom(a), AnyFilter::SplitBlockBloom(b)) => a.union(b),
            (a, b) if a.kind() == b.kind() => Err(Error::Unsupported {
                kind: a.kind().name(),
                operation: "merge",
            }),
            (a, b) => Err(Error::WrongKind {
                expected: a.kind().name(),
                found: b.kind() as u32,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    /// An `AnyFilter` is as large as its largest unboxed variant, and every key of the Redis
    /// module and every filter of the server pays that. With the TTL and the sliding-window
    /// cuckoo filters boxed it is 136 bytes on a 64-bit target (272 unboxed): the largest,
    /// the sliding-window Bloom filter, took 8 more for its index scheme.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn an_any_filter_stays_small() {
        let size = core::mem::size_of::<super::AnyFilter>();
        assert!(
            size <= 136,
            "AnyFilter is {size} bytes: box its largest variant"
        );
    }
}
