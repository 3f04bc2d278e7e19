//! [`Info`]: what a filter of any kind holds, with the same common fields for every kind and
//! each kind's own beside them.

use crate::hash::Indexing;
use crate::math::RotationUnit;
use crate::wire::Kind;
use alloc::vec::Vec;

mod kinds;

/// What a filter holds: its shape, fill and estimated false-positive rate.
///
/// The common fields mean the same for every kind (`amq info`, the server and the bindings
/// print them under the same names); [`details`](Self::details) holds the kind's own. As JSON
/// (feature `serde`) the details are flattened beside the common fields and carry the
/// `"kind"` field; `inserted` is named `items_inserted`.
///
/// # Example
/// ```
/// use amq::{BloomFilter, Insert};
/// let mut f = BloomFilter::new(1024, 3, 0)?;
/// f.insert("a")?;
/// let i = f.info();
/// assert_eq!((i.kind().name(), i.m_bits, i.k, i.inserted), ("bloom", 1024, 3, 1));
/// assert_eq!(i.bytes, 128);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Info {
    /// The kind and its own figures.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub details: Details,
    /// m, the bits of the table (of the active window; of all generations; of the
    /// fingerprints of a negative cache).
    pub m_bits: u64,
    /// k, the hash functions (probes) per item: the buckets a cuckoo query reads (2), the sets
    /// a negative-cache query reads (1).
    pub k: u32,
    /// The hash seed.
    pub seed: u64,
    /// Items inserted: insert calls (a cuckoo filter: fingerprints held, inserts minus
    /// removals).
    #[cfg_attr(feature = "serde", serde(rename = "items_inserted"))]
    pub inserted: u64,
    /// Payload bytes.
    pub bytes: u64,
    /// Fraction of the bits (or slots) in use: set bits over m, the load factor α, the
    /// occupancy of a negative cache.
    pub fill_ratio: f64,
    /// Distinct items estimated from the fill (the items held where they are counted).
    pub estimated_items: f64,
    /// The false-positive rate now, from the filter's own state.
    pub estimated_fpr: f64,
}

impl Info {
    /// The kind described.
    pub fn kind(&self) -> Kind {
        self.details.kind()
    }
}

/// What [`Info`] says of one kind only.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(tag = "kind", rename_all = "kebab-case")
)]
#[non_exhaustive]
pub enum Details {
    /// A classic Bloom filter.
    Bloom {
        /// How the k indices come from an item's hash: 2 ([`Indexing::Hashed`]), or 1
        /// ([`Indexing::Unit`]) for a filter read from a file written before scheme 2.
        index_scheme: Indexing,
    },
    /// A blocked Bloom filter.
    BlockedBloom {
        /// 512-bit blocks.
        blocks: u64,
    },
    /// A cuckoo filter.
    Cuckoo {
        /// α, fingerprints held over slots.
        load_factor: f64,
        /// f, the fingerprint width in bits.
        fingerprint_bits: u32,
        /// Buckets of `slots_per_bucket` slots.
        buckets: u64,
        /// b, the slots per bucket.
        slots_per_bucket: u32,
        /// The victim stash holds a fingerprint (the table is full).
        stash_used: bool,
    },
    /// A sliding-window Bloom filter.
    SlidingWindowBloom {
        /// W, the bits of the active window.
        window_bits: u64,
        /// S, the bits of one chunk.
        chunk_bits: u64,
        /// B, the insertions per slide.
        batch: u64,
        /// The position the next item gets.
        next_position: u64,
        /// The first chunk of the active window.
        window_start_chunk: u64,
        /// Fraction of the window's bits that are set.
        window_fill: f64,
        /// Chunks that left the window and are archived.
        archived_chunks: u64,
        /// Bits set in the archive.
        archived_bits_set: u64,
        /// Bytes of the archive.
        archive_bytes: u64,
        /// ε of a query at the latest position.
        expected_fpr_latest: f64,
        /// ε of a query whose window is complete.
        steady_state_fpr: f64,
        /// How the k indices come from an item's hash (2, or 1 for an old file).
        index_scheme: Indexing,
    },
    /// An aging Bloom filter.
    AgingBloom {
        /// m of one generation.
        m_bits_per_generation: u64,
        /// g, the generations.
        generations: u32,
        /// `count` or `seconds`.
        rotation: RotationUnit,
        /// Insertions or seconds per generation.
        rotation_period: u64,
        /// The window always remembered: (g − 1) periods.
        window_at_least: u64,
        /// The window at most remembered: g periods.
        window_at_most: u64,
        /// Items in each generation, oldest first.
        generation_counts: Vec<u64>,
        /// The bound on ε with every generation full.
        fpr_bound: f64,
        /// How the k indices come from an item's hash (2, or 1 for an old file).
        index_scheme: Indexing,
    },
    /// A negative cache ("definitely present" or "maybe absent").
    NegativeCache {
        /// l: 2ˡ slots.
        l: u32,
        /// 2ˡ.
        slots: u64,
        /// b, the fingerprint bits.
        b: u32,
        /// w, the slots per set.
        ways: u32,
        /// The TTL in seconds, if entries expire.
        ttl_seconds: Option<u64>,
        /// Slots holding an entry, expired ones included.
        occupied: u64,
        /// The entries live at the clock's time (`occupied` without a TTL).
        live_entries: u64,
        /// The bound `w·2⁻ᵇ` on false positives.
        fpr_bound: f64,
        /// The chance that the oldest item was pushed out of its set.
        fnr_of_oldest_item: f64,
    },
    /// A TTL cuckoo filter, as of the time set on its clock.
    TtlCuckoo {
        /// α, live entries over slots.
        load_factor: f64,
        /// f, the fingerprint bits.
        fingerprint_bits: u32,
        /// s, the expiry stamp bits.
        stamp_bits: u32,
        /// Buckets of `slots_per_bucket` slots of f + s bits.
        buckets: u64,
        /// b, the slots per bucket.
        slots_per_bucket: u32,
        /// The tick (the precision of expiry), in clock units (seconds).
        tick: u64,
        /// The longest TTL: `tick · 2ˢ`.
        max_ttl: u64,
        /// The TTL of inserts that give none.
        default_ttl: u64,
        /// Entries not expired.
        live_entries: u64,
        /// Expired entries still in their slots (inserts take them back).
        expired_entries: u64,
        /// w, the tick of the last sweep.
        swept_epoch: u64,
        /// The victim stash holds a live entry.
        stash_used: bool,
    },
    /// A sliding-window cuckoo filter (or an export of one epoch).
    SlidingWindowCuckoo {
        /// f, the fingerprint bits.
        fingerprint_bits: u32,
        /// B, the registrations per epoch.
        epoch_items: u64,
        /// Buckets of an open epoch.
        epoch_buckets: u64,
        /// The first epoch held.
        first_epoch: u64,
        /// Epochs held.
        epochs: u64,
        /// The epoch the next registration goes to.
        next_epoch: u64,
        /// Members held: registrations less slashes.
        members: u64,
        /// Bits of the tables per member.
        bits_per_member: f64,
        /// ε of a query at the latest epoch.
        fpr_latest_epoch: f64,
        /// The bound on ε of a query at any epoch.
        fpr_bound: f64,
    },
    /// A scalable Bloom filter; `k` is the active link's.
    ScalableBloom {
        /// Links in the chain.
        links: u32,
        /// Σ n₀·sⁱ, the items every link together is planned for.
        capacity: u64,
        /// s, each link holds s times the items of the one before.
        expansion: u32,
        /// r, each link's ε is r times the one before.
        tightening: f64,
        /// `false` for a filter that never grows.
        scaling: bool,
        /// The stated bound on the chain's rate however far it grows (at most the asked ε).
        fpr_bound: f64,
        /// The chain's rate under the model at the current counts.
        expected_fpr: f64,
        /// Each link's capacity, oldest first.
        link_capacities: Vec<u64>,
        /// Each link's items, oldest first.
        link_counts: Vec<u64>,
        /// Each link's planned ε, oldest first.
        link_fprs: Vec<f64>,
        /// How the k indices come from an item's hash, in every link (2, or 1 for an old
        /// file).
        index_scheme: Indexing,
    },
    /// An expandable cuckoo filter; the common fields cover every link.
    ExpandableCuckoo {
        /// Links in the chain.
        links: u32,
        /// Σ n₀·sⁱ, the items every link together is planned for.
        capacity: u64,
        /// s, each link holds s times the items of the one before (0: never grows).
        expansion: u32,
        /// r, each link's ε is r times the one before.
        tightening: f64,
        /// The most fingerprints one insert moves.
        max_kicks: u32,
        /// Successful deletes since creation.
        deleted: u64,
        /// Buckets of every link.
        buckets: u64,
        /// b, the slots per bucket.
        slots_per_bucket: u32,
        /// The stated bound on the chain's rate however far it grows (at most the asked ε).
        fpr_bound: f64,
        /// Each link's fingerprint width, oldest first.
        link_fingerprint_bits: Vec<u32>,
        /// Each link's buckets, oldest first.
        link_buckets: Vec<u64>,
        /// Each link's fingerprints held, oldest first.
        link_counts: Vec<u64>,
    },
    /// A split block Bloom filter (k = 8: one bit in each 64-bit lane of a block).
    SplitBlockBloom {
        /// 512-bit blocks.
        blocks: u64,
    },
}

impl Details {
    /// The kind these details belong to.
    pub fn kind(&self) -> Kind {
        match self {
            Details::Bloom { .. } => Kind::Bloom,
            Details::BlockedBloom { .. } => Kind::BlockedBloom,
            Details::Cuckoo { .. } => Kind::Cuckoo,
            Details::SlidingWindowBloom { .. } => Kind::SlidingWindowBloom,
            Details::AgingBloom { .. } => Kind::AgingBloom,
            Details::NegativeCache { .. } => Kind::NegativeCache,
            Details::TtlCuckoo { .. } => Kind::TtlCuckoo,
            Details::SlidingWindowCuckoo { .. } => Kind::SlidingWindowCuckoo,
            Details::ScalableBloom { .. } => Kind::ScalableBloom,
            Details::ExpandableCuckoo { .. } => Kind::ExpandableCuckoo,
            Details::SplitBlockBloom { .. } => Kind::SplitBlockBloom,
        }
    }
}
