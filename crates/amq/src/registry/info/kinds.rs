//! Each kind's `info()`: its [`Info`] from its own state.

use super::{Details, Info};
use crate::clock::Clock;
use crate::math::RotationUnit;
use crate::{
    AgingBloom, BlockedBloomFilter, BloomFilter, CuckooFilter, ExpandableCuckooFilter,
    NegativeCache, ScalableBloomFilter, SlidingWindowBloom, SlidingWindowCuckoo,
    SplitBlockBloomFilter, TtlCuckooFilter,
};
use alloc::vec::Vec;

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
