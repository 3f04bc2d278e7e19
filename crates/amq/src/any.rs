//! [`AnyFilter`]: any filter kind read from an `.amq` file, behind one interface.

use crate::error::{Error, Result};
use crate::filter::{Filter, Insert};
use crate::wire::{self, Kind};
use crate::{BlockedBloomFilter, BloomFilter, CuckooFilter};
use alloc::vec::Vec;

/// A filter of any kind the `.amq` container holds, for tools that open files whose kind they
/// do not know in advance (the `amq` command line).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AnyFilter {
    /// A classic Bloom filter.
    Bloom(BloomFilter),
    /// A blocked Bloom filter.
    BlockedBloom(BlockedBloomFilter),
    /// A cuckoo filter.
    Cuckoo(CuckooFilter),
}

/// What `amq info` shows of a filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Info {
    /// The kind's name (`bloom`, `blocked-bloom`, ...).
    pub kind: &'static str,
    /// m, the number of bits of the table.
    pub m_bits: u64,
    /// k, the hash functions (probes) per item.
    pub k: u32,
    /// The hash seed.
    pub seed: u64,
    /// Items inserted (insert calls).
    pub inserted: u64,
    /// Payload bytes.
    pub bytes: u64,
    /// Fraction of bits (or slots) in use.
    pub fill_ratio: f64,
    /// Estimated distinct items from the fill.
    pub estimated_items: f64,
    /// Estimated false-positive rate now.
    pub estimated_fpr: f64,
    /// Kind-specific figures (name, value), such as the load factor or fingerprint bits.
    pub extra: Vec<(&'static str, f64)>,
}

impl AnyFilter {
    /// Decodes an `.amq` file of any kind.
    ///
    /// # Errors
    /// Any error of [`wire::decode`] and of the kind's own decoder; [`Error::WrongKind`] for
    /// a kind that is not a membership filter.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        match c.kind {
            Kind::Bloom => Ok(AnyFilter::Bloom(BloomFilter::from_container(&c)?)),
            Kind::BlockedBloom => Ok(AnyFilter::BlockedBloom(BlockedBloomFilter::from_container(
                &c,
            )?)),
            Kind::Cuckoo => Ok(AnyFilter::Cuckoo(CuckooFilter::from_container(&c)?)),
            other => Err(Error::WrongKind {
                expected: "a membership filter",
                found: other as u32,
            }),
        }
    }

    /// Encodes as an `.amq` file.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            AnyFilter::Bloom(f) => f.to_bytes(),
            AnyFilter::BlockedBloom(f) => f.to_bytes(),
            AnyFilter::Cuckoo(f) => f.to_bytes(),
        }
    }

    /// The kind.
    pub fn kind(&self) -> Kind {
        match self {
            AnyFilter::Bloom(_) => Kind::Bloom,
            AnyFilter::BlockedBloom(_) => Kind::BlockedBloom,
            AnyFilter::Cuckoo(_) => Kind::Cuckoo,
        }
    }

    /// "Maybe present" (`true`) or "definitely absent" (`false`) for an item's bytes.
    pub fn contains(&self, item: &[u8]) -> bool {
        match self {
            AnyFilter::Bloom(f) => f.contains(item),
            AnyFilter::BlockedBloom(f) => f.contains(item),
            AnyFilter::Cuckoo(f) => f.contains(item),
        }
    }

    /// Batched [`contains`](Self::contains), prefetching where the layout allows.
    ///
    /// # Panics
    /// If `out.len() != items.len()`.
    pub fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        match self {
            AnyFilter::Bloom(f) => f.contains_batch(items, out),
            AnyFilter::BlockedBloom(f) => f.contains_batch(items, out),
            AnyFilter::Cuckoo(f) => f.contains_batch(items, out),
        }
    }

    /// Inserts an item's bytes.
    ///
    /// # Errors
    /// [`Error::Full`] for kinds with a capacity.
    pub fn insert(&mut self, item: &[u8]) -> Result<bool> {
        match self {
            AnyFilter::Bloom(f) => f.insert(item),
            AnyFilter::BlockedBloom(f) => f.insert(item),
            AnyFilter::Cuckoo(f) => f.insert(item),
        }
    }

    /// Union with a filter of the same kind and shape.
    ///
    /// # Errors
    /// [`Error::WrongKind`] or [`Error::ShapeMismatch`]; [`Error::Full`] when a cuckoo
    /// filter cannot hold both sets. `self` is then unchanged.
    pub fn merge(&mut self, other: &AnyFilter) -> Result<()> {
        match (self, other) {
            (AnyFilter::Bloom(a), AnyFilter::Bloom(b)) => a.union(b),
            (AnyFilter::BlockedBloom(a), AnyFilter::BlockedBloom(b)) => a.union(b),
            (AnyFilter::Cuckoo(a), AnyFilter::Cuckoo(b)) => a.union(b),
            (a, b) => Err(Error::WrongKind {
                expected: a.kind().name(),
                found: b.kind() as u32,
            }),
        }
    }

    /// The figures `amq info` shows.
    pub fn info(&self) -> Info {
        match self {
            AnyFilter::Bloom(f) => Info {
                kind: Kind::Bloom.name(),
                m_bits: f.m(),
                k: f.k(),
                seed: f.seed(),
                inserted: f.inserted(),
                bytes: f.size_bytes(),
                fill_ratio: f.fill_ratio(),
                estimated_items: f.estimated_items(),
                estimated_fpr: f.estimated_fpr(),
                extra: Vec::new(),
            },
            AnyFilter::BlockedBloom(f) => Info {
                kind: Kind::BlockedBloom.name(),
                m_bits: f.m(),
                k: f.k(),
                seed: f.seed(),
                inserted: f.inserted(),
                bytes: f.size_bytes(),
                fill_ratio: f.fill_ratio(),
                estimated_items: f.estimated_items(),
                estimated_fpr: f.estimated_fpr(),
                extra: alloc::vec![("blocks", f.blocks() as f64)],
            },
            // k = 2: a query probes two buckets. The fill is the load factor α.
            AnyFilter::Cuckoo(f) => Info {
                kind: Kind::Cuckoo.name(),
                m_bits: f.m(),
                k: 2,
                seed: f.seed(),
                inserted: f.inserted(),
                bytes: f.size_bytes(),
                fill_ratio: f.load_factor(),
                estimated_items: f.inserted() as f64,
                estimated_fpr: f.estimated_fpr(),
                extra: alloc::vec![
                    ("load_factor", f.load_factor()),
                    ("fingerprint_bits", f64::from(f.fingerprint_bits())),
                    ("buckets", f.buckets() as f64),
                    (
                        "slots_per_bucket",
                        f64::from(crate::cuckoo::SLOTS_PER_BUCKET)
                    ),
                    ("stash_used", f64::from(u8::from(f.stash_used()))),
                ],
            },
        }
    }
}
