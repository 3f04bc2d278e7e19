//! [`Info`]: what a filter of any kind holds, with the same common fields for every kind and
//! each kind's own beside them.

use crate::clock::Clock;
use crate::hash::Indexing;
use crate::math::RotationUnit;
use crate::wire::Kind;
use crate::{
    AgingBloom, BlockedBloomFilter, BloomFilter, CuckooFilter, ExpandableCuckooFilter,
    NegativeCache, ScalableBloomFilter, SlidingWindowBloom, SlidingWindowCuckoo,
    SplitBlockBloomFilter, TtlCuckooFilter,
};
use alloc::vec::Vec;

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

// The three Bloom kinds count their set bits once for the fill, the estimated items and the
// estimated ε (`fill`: one pass over the table, which `amq serve` holds the read lock for).

impl BloomFilter {
    /// Shape, fill and estimated ε ([`Info`]).
    pub fn info(&self) -> Info {
        let fill = self.fill();
        Info {
            details: Details::Bloom {
                index_scheme: self.indexing(),
            },
            m_bits: self.m(),
            k: self.k(),
            seed: self.seed(),
            inserted: self.inserted(),
            bytes: self.size_bytes(),
            fill_ratio: fill.fill_ratio,
            estimated_items: fill.estimated_items,
            estimated_fpr: fill.estimated_fpr,
        }
    }
}

impl BlockedBloomFilter {
    /// Shape, fill and estimated ε ([`Info`]).
    pub fn info(&self) -> Info {
        let fill = self.fill();
        Info {
            details: Details::BlockedBloom {
                blocks: self.blocks(),
            },
            m_bits: self.m(),
            k: self.k(),
            seed: self.seed(),
            inserted: self.inserted(),
            bytes: self.size_bytes(),
            fill_ratio: fill.fill_ratio,
            estimated_items: fill.estimated_items,
            estimated_fpr: fill.estimated_fpr,
        }
    }
}

impl SplitBlockBloomFilter {
    /// Shape, fill and estimated ε ([`Info`]).
    pub fn info(&self) -> Info {
        let fill = self.fill();
        Info {
            details: Details::SplitBlockBloom {
                blocks: self.blocks(),
            },
            m_bits: self.m(),
            k: self.k(),
            seed: self.seed(),
            inserted: self.inserted(),
            bytes: self.size_bytes(),
            fill_ratio: fill.fill_ratio,
            estimated_items: fill.estimated_items,
            estimated_fpr: fill.estimated_fpr,
        }
    }
}

impl CuckooFilter {
    /// Shape, load and ε at that load ([`Info`]); k = 2: a query reads two buckets, and the
    /// fill is the load factor α.
    pub fn info(&self) -> Info {
        Info {
            details: Details::Cuckoo {
                load_factor: self.load_factor(),
                fingerprint_bits: self.fingerprint_bits(),
                buckets: self.buckets(),
                slots_per_bucket: crate::cuckoo::SLOTS_PER_BUCKET,
                stash_used: self.stash_used(),
            },
            m_bits: self.m(),
            k: 2,
            seed: self.seed(),
            inserted: self.inserted(),
            bytes: self.size_bytes(),
            fill_ratio: self.load_factor(),
            estimated_items: self.inserted() as f64,
            estimated_fpr: self.estimated_fpr(),
        }
    }
}

impl SlidingWindowBloom {
    /// Shape, window, archive and ε at the latest position ([`Info`]); m is the active
    /// window's W bits.
    pub fn info(&self) -> Info {
        let p = self.params();
        let latest = self.next_position().saturating_sub(1);
        let fpr_latest = self.expected_fpr(latest);
        Info {
            details: Details::SlidingWindowBloom {
                window_bits: p.window_bits,
                chunk_bits: p.chunk_bits,
                batch: p.batch,
                next_position: self.next_position(),
                window_start_chunk: self.window_start_chunk(),
                window_fill: self.window_fill(),
                archived_chunks: self.archived_chunks(),
                archived_bits_set: self.archived_bits_set(),
                archive_bytes: self.archive_bytes(),
                expected_fpr_latest: fpr_latest,
                steady_state_fpr: p.steady_state_fpr(),
                index_scheme: self.indexing(),
            },
            m_bits: p.window_bits,
            k: p.k,
            seed: self.seed(),
            inserted: self.inserted(),
            bytes: self.size_bytes(),
            fill_ratio: self.window_fill(),
            estimated_items: self.inserted() as f64,
            estimated_fpr: fpr_latest,
        }
    }
}

impl<C: Clock> AgingBloom<C> {
    /// Shape, generations and ε now, by the filter's clock ([`Info`]); m counts every
    /// generation's bits.
    pub fn info(&self) -> Info {
        let (rotation, period) = RotationUnit::of(self.rotation());
        let g = u64::from(self.generations());
        let counts = self.generation_counts();
        // counts read from a file may each be at u64::MAX (inserts saturate them)
        let held = counts.iter().fold(0u64, |a, &c| a.saturating_add(c));
        Info {
            details: Details::AgingBloom {
                m_bits_per_generation: self.m(),
                generations: self.generations(),
                rotation,
                rotation_period: period,
                window_at_least: (g - 1).saturating_mul(period),
                window_at_most: g.saturating_mul(period),
                generation_counts: counts,
                fpr_bound: self.fpr_bound(),
                index_scheme: self.indexing(),
            },
            m_bits: self.m().saturating_mul(g),
            k: self.k(),
            seed: self.seed(),
            inserted: self.inserted(),
            bytes: self.size_bytes(),
            fill_ratio: self.fill_ratio(),
            estimated_items: held as f64,
            estimated_fpr: self.estimated_fpr(),
        }
    }
}

impl<C: Clock> NegativeCache<C> {
    /// Shape, occupancy and ε now, by the cache's clock ([`Info`]; O(2ˡ) with a TTL); m is
    /// the fingerprint bits `2ˡ·b`, k = 1 (a query reads one set), and the fill, the
    /// estimated items and ε count the live entries.
    pub fn info(&self) -> Info {
        let live = self.live_entries();
        Info {
            details: Details::NegativeCache {
                l: self.l(),
                slots: self.slots(),
                b: self.b(),
                ways: self.ways(),
                ttl_seconds: self.ttl(),
                occupied: self.occupied(),
                live_entries: live,
                fpr_bound: self.fpr_bound(),
                fnr_of_oldest_item: crate::negative::false_negative_rate(
                    self.inserted(),
                    self.slots(),
                    self.ways(),
                ),
            },
            m_bits: self.slots().saturating_mul(u64::from(self.b())),
            k: 1,
            seed: self.seed(),
            inserted: self.inserted(),
            bytes: self.size_bytes(),
            fill_ratio: live as f64 / self.slots() as f64,
            estimated_items: live as f64,
            estimated_fpr: self.fpr_at(live),
        }
    }
}

impl<C: Clock> TtlCuckooFilter<C> {
    /// Shape, live load and ε now, by the filter's clock ([`Info`]; O(m)); k = 2: a query reads
    /// two buckets, and the fill is the live load.
    pub fn info(&self) -> Info {
        let now = self.clock().now();
        let (live, occupied) = self.entries_at(now);
        let load = live as f64 / self.slots() as f64;
        Info {
            details: Details::TtlCuckoo {
                load_factor: load,
                fingerprint_bits: self.fingerprint_bits(),
                stamp_bits: self.stamp_bits(),
                buckets: self.buckets(),
                slots_per_bucket: crate::cuckoo::SLOTS_PER_BUCKET,
                tick: self.tick(),
                max_ttl: self.max_ttl(),
                default_ttl: self.default_ttl(),
                live_entries: live,
                expired_entries: occupied - live,
                swept_epoch: self.swept_epoch(),
                stash_used: self.stash_used_at(now),
            },
            m_bits: self.m(),
            k: 2,
            seed: self.seed(),
            inserted: self.inserted(),
            bytes: self.size_bytes(),
            fill_ratio: load,
            estimated_items: live as f64,
            estimated_fpr: self.expected_fpr(live),
        }
    }
}

impl SlidingWindowCuckoo {
    /// Shape, epochs, members and ε ([`Info`]); m is the bits of every epoch's slots, the fill
    /// is members over all slots, and the estimated ε is that of a query at the worst epoch.
    pub fn info(&self) -> Info {
        let slots = self.m() / u64::from(self.fingerprint_bits());
        let members = self.members();
        let latest = (self.first_epoch() + self.epochs()).saturating_sub(1);
        Info {
            details: Details::SlidingWindowCuckoo {
                fingerprint_bits: self.fingerprint_bits(),
                epoch_items: self.epoch_items(),
                epoch_buckets: 1 << self.log2_buckets(),
                first_epoch: self.first_epoch(),
                epochs: self.epochs(),
                next_epoch: self.next_epoch(),
                members,
                bits_per_member: 8.0 * self.table_bytes() as f64 / members.max(1) as f64,
                fpr_latest_epoch: self.epoch_fpr(latest),
                fpr_bound: self.fpr_bound(),
            },
            m_bits: self.m(),
            k: 2,
            seed: self.seed(),
            inserted: self.inserted(),
            bytes: self.size_bytes(),
            fill_ratio: members as f64 / slots.max(1) as f64,
            estimated_items: members as f64,
            estimated_fpr: self.estimated_fpr(),
        }
    }
}

impl ScalableBloomFilter {
    /// Shape, fill and estimated ε of the whole chain ([`Info`]); m and the bytes cover every
    /// link, k is the active link's.
    pub fn info(&self) -> Info {
        let links: Vec<&BloomFilter> = (0..self.links()).filter_map(|i| self.link(i)).collect();
        let p = self.params();
        Info {
            details: Details::ScalableBloom {
                links: self.links(),
                capacity: self.capacity(),
                expansion: p.expansion,
                tightening: p.tightening,
                scaling: p.scaling,
                fpr_bound: self.fpr_bound(),
                expected_fpr: self.expected_fpr(),
                link_capacities: (0..self.links()).map(|i| self.link_capacity(i)).collect(),
                link_counts: links.iter().map(|l| l.inserted()).collect(),
                link_fprs: (0..self.links()).map(|i| self.link_fpr(i)).collect(),
                index_scheme: self.indexing(),
            },
            m_bits: self.m(),
            k: self.k(),
            seed: self.seed(),
            inserted: self.inserted(),
            bytes: self.size_bytes(),
            fill_ratio: self.fill_ratio(),
            estimated_items: self.estimated_items(),
            estimated_fpr: self.estimated_fpr(),
        }
    }
}

impl ExpandableCuckooFilter {
    /// Shape, load and ε now of the whole chain ([`Info`]); k = 2 (a query reads two buckets
    /// of each link), the fill is the load factor α over every link.
    pub fn info(&self) -> Info {
        let links: Vec<&CuckooFilter> = (0..self.links()).filter_map(|i| self.link(i)).collect();
        let p = self.params();
        Info {
            details: Details::ExpandableCuckoo {
                links: self.links(),
                capacity: self.capacity(),
                expansion: p.expansion,
                tightening: p.tightening,
                max_kicks: p.max_kicks,
                deleted: self.deleted(),
                buckets: self.buckets(),
                slots_per_bucket: crate::cuckoo::SLOTS_PER_BUCKET,
                fpr_bound: self.fpr_bound(),
                link_fingerprint_bits: links.iter().map(|l| l.fingerprint_bits()).collect(),
                link_buckets: links.iter().map(|l| l.buckets()).collect(),
                link_counts: links.iter().map(|l| l.inserted()).collect(),
            },
            m_bits: self.m(),
            k: 2,
            seed: self.seed(),
            inserted: self.inserted(),
            bytes: self.size_bytes(),
            fill_ratio: self.load_factor(),
            estimated_items: self.inserted() as f64,
            estimated_fpr: self.estimated_fpr(),
        }
    }
}
