//! What the planner returns: [`Plan`], the kind's own figures in [`PlanDetails`], and the
//! aging filter's [`RotationUnit`].

use crate::window::Rotation;
use crate::wire::Kind;

/// A filter plan: its shape and what it is expected to do.
///
/// The common fields mean the same for every kind; `details` holds the kind's own (and, as
/// JSON with feature `serde`, its `"kind"` field).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Plan {
    /// The kind and its own figures.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub details: PlanDetails,
    /// n, the number of items planned for (the window's items for the window kinds, the
    /// slots for a negative cache).
    pub items: u64,
    /// m, the number of bits (of the active window; of all generations; of the fingerprints).
    pub m_bits: u64,
    /// k, the hash functions (probes): the buckets a cuckoo query reads (2), the sets a
    /// negative-cache query reads (1).
    pub k: u32,
    /// Bytes of payload.
    pub bytes: u64,
    /// m/n.
    pub bits_per_key: f64,
    /// Expected ε at n items: [`fpr`](super::fpr) for `bloom`, [`blocked_fpr`](super::blocked_fpr)
    /// for `blocked-bloom`, [`split_block_fpr`](super::split_block_fpr) for `split-block-bloom`,
    /// [`cuckoo::fpr`](crate::cuckoo::fpr) at the planned load, the steady state of a full window,
    /// the bound over all generations, the bound `w·2⁻ᵇ`; for the chains, the first link's rate at
    /// n items (the bound over the whole chain is in the details).
    pub fpr: f64,
    /// The exact-expectation form where there is one (else equal to `fpr`); for a scalable
    /// chain, its first link's as the chain fills it, with new items only
    /// ([`fpr_exact_new`](crate::math::fpr_exact_new)).
    pub fpr_exact: f64,
}

impl Plan {
    /// The kind planned.
    pub fn kind(&self) -> Kind {
        self.details.kind()
    }
}

/// What a [`Plan`] says of its kind only.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(tag = "kind", rename_all = "kebab-case")
)]
#[non_exhaustive]
pub enum PlanDetails {
    /// A classic Bloom filter.
    Bloom {
        /// [`bit_zero_probability`](super::bit_zero_probability): `(1 − 1/m)^(k·n)`.
        bit_zero_probability: f64,
        /// The real-valued optimum `(m/n)·ln 2`.
        optimal_k: f64,
    },
    /// A blocked Bloom filter.
    BlockedBloom {
        /// The probability a bit is still zero under the Poisson model of block loads,
        /// [`blocked_bit_zero_probability`](super::blocked_bit_zero_probability) (the
        /// classic `(1 − 1/m)^(kn)` is below it: 0.546588 against 0.548199 measured and
        /// modelled at n = 20,000, 388 blocks, k = 6).
        bit_zero_probability: f64,
        /// The real-valued optimum `(m/n)·ln 2` of a classic filter of the same m.
        optimal_k: f64,
    },
    /// A split block Bloom filter (k = 8, one bit per 64-bit lane).
    SplitBlockBloom {
        /// 512-bit blocks.
        blocks: u64,
        /// λ = n/blocks, the mean items per block.
        items_per_block: f64,
    },
    /// A cuckoo filter.
    Cuckoo {
        /// f, the fingerprint width in bits.
        fingerprint_bits: u32,
        /// Buckets of [`SLOTS_PER_BUCKET`](crate::cuckoo::SLOTS_PER_BUCKET) slots.
        buckets: u64,
        /// b, the slots per bucket.
        slots_per_bucket: u32,
        /// α at n items.
        load_factor: f64,
    },
    /// A sliding-window Bloom filter.
    SlidingWindowBloom {
        /// W, the bits of the active window.
        window_bits: u64,
        /// S, the bits of one chunk.
        chunk_bits: u64,
        /// B, the insertions per slide.
        batch: u64,
    },
    /// An aging Bloom filter.
    AgingBloom {
        /// g, the generations.
        generations: u32,
        /// m of one generation.
        m_bits_per_generation: u64,
        /// `count` (insertions) or `seconds`.
        rotation: RotationUnit,
        /// Insertions or seconds per generation.
        rotation_period: u64,
        /// The window always remembered: (g − 1) periods.
        window_at_least: u64,
        /// The window at most remembered: g periods.
        window_at_most: u64,
    },
    /// A negative cache.
    NegativeCache {
        /// l: 2ˡ slots.
        l: u32,
        /// b, the fingerprint bits.
        b: u32,
        /// w, the slots per set.
        ways: u32,
        /// 2ˡ.
        slots: u64,
        /// The TTL in seconds, if entries expire.
        ttl_seconds: Option<u64>,
    },
    /// A TTL cuckoo filter.
    TtlCuckoo(crate::ttl::TtlPlan),
    /// A sliding-window cuckoo filter.
    SlidingWindowCuckoo(crate::rln::RlnPlan),
    /// A scalable Bloom filter: the common fields describe its first link.
    ScalableBloom {
        /// s, each link holds s times the items of the one before.
        expansion: u32,
        /// r, each link's ε is r times the one before.
        tightening: f64,
        /// `false` for a filter that never grows (one link at ε).
        scaling: bool,
        /// ε₀, the rate the first link is planned at: ε·(1 − r), or ε if it never grows.
        first_link_fpr: f64,
        /// The bound on the whole chain's rate however far it grows (at most the asked ε).
        fpr_bound: f64,
        /// The most links the chain grows to.
        max_links: u32,
    },
    /// An expandable cuckoo filter: the common fields describe its first link.
    ExpandableCuckoo {
        /// s, each link holds s times the items of the one before (0: never grows).
        expansion: u32,
        /// r, each link's ε is r times the one before.
        tightening: f64,
        /// The most fingerprints one insert moves.
        max_kicks: u32,
        /// f of the first link.
        fingerprint_bits: u32,
        /// Buckets of the first link.
        buckets: u64,
        /// b, the slots per bucket.
        slots_per_bucket: u32,
        /// α of the first link at n items.
        load_factor: f64,
        /// ε₀, the rate the first link is planned at (full load).
        first_link_fpr: f64,
        /// The bound on the whole chain's rate however far it grows (at most the asked ε).
        fpr_bound: f64,
        /// The most links the chain grows to.
        max_links: u32,
    },
}

impl PlanDetails {
    /// The kind these details belong to.
    pub fn kind(&self) -> Kind {
        match self {
            PlanDetails::Bloom { .. } => Kind::Bloom,
            PlanDetails::BlockedBloom { .. } => Kind::BlockedBloom,
            PlanDetails::Cuckoo { .. } => Kind::Cuckoo,
            PlanDetails::SlidingWindowBloom { .. } => Kind::SlidingWindowBloom,
            PlanDetails::AgingBloom { .. } => Kind::AgingBloom,
            PlanDetails::NegativeCache { .. } => Kind::NegativeCache,
            PlanDetails::TtlCuckoo(_) => Kind::TtlCuckoo,
            PlanDetails::SlidingWindowCuckoo(_) => Kind::SlidingWindowCuckoo,
            PlanDetails::ScalableBloom { .. } => Kind::ScalableBloom,
            PlanDetails::ExpandableCuckoo { .. } => Kind::ExpandableCuckoo,
            PlanDetails::SplitBlockBloom { .. } => Kind::SplitBlockBloom,
        }
    }
}

/// How an aging filter's generations rotate: by a count of insertions or by seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum RotationUnit {
    /// Every c insertions.
    Count,
    /// Every Δ seconds.
    Seconds,
}

impl RotationUnit {
    /// The unit and the period of a rotation.
    pub fn of(rotation: Rotation) -> (RotationUnit, u64) {
        match rotation {
            Rotation::Count(c) => (RotationUnit::Count, c),
            Rotation::Time(d) => (RotationUnit::Seconds, d),
        }
    }

    /// `count` or `seconds`.
    pub fn name(self) -> &'static str {
        match self {
            RotationUnit::Count => "count",
            RotationUnit::Seconds => "seconds",
        }
    }
}
