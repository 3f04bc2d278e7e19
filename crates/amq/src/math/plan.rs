//! The planner: one [`Spec`] names a kind and its parameters, [`plan`] sizes it, and
//! [`Plan`] says what it will cost and do. The command line (`amq plan`), the server and the
//! bindings all go through here, so they print the same fields under the same names.

use super::{
    best_k, bit_zero_probability, blocked_best_k, blocked_bit_zero_probability, blocked_fpr,
    blocked_fpr_exact, blocked_size, bloom_size, check_k, fpr, fpr_exact, optimal_k, BLOCK_BITS,
    BLOOM_MAX_K,
};
use super::{Plan, PlanDetails, RotationUnit};
use crate::error::{Error, Result};
use crate::window::{Rotation, WindowParams};
use crate::wire::Kind;

/// What the planner is asked to meet.
///
/// As JSON (feature `serde`) it is one of `{"fpr": ε}`, `{"m_bits": m}` or
/// `{"memory_bytes": bytes}`, flattened into the [`Spec`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Target {
    /// A false-positive rate ε in (0, 1): the smallest filter that meets it.
    #[cfg_attr(feature = "serde", serde(rename = "fpr"))]
    Fpr(f64),
    /// Exactly m bits (a blocked filter rounds up to whole 512-bit blocks).
    #[cfg_attr(feature = "serde", serde(rename = "m_bits"))]
    Bits(u64),
    /// At most this many bytes of filter (rounded down to whole words or blocks).
    #[cfg_attr(feature = "serde", serde(rename = "memory_bytes"))]
    Memory(u64),
}

impl Target {
    /// The names of the three targets in JSON (feature `serde`), in the order of the
    /// variants: a spec of a kind sized by a target ([`Spec::takes_target`]) gives exactly
    /// one of them.
    pub const KEYS: [&'static str; 3] = ["fpr", "m_bits", "memory_bytes"];
}

/// A filter to plan or create: its kind and the kind's own parameters.
///
/// As JSON (feature `serde`) the kind is the `"kind"` field (`bloom`, `blocked-bloom`,
/// `cuckoo`, `sliding-window-bloom`, `aging-bloom`, `negative-cache`, `ttl-cuckoo`,
/// `sliding-window-cuckoo`, `split-block-bloom`, ...) beside the parameters,
/// for example `{"kind": "bloom", "items": 1000000, "fpr": 0.01}`.
///
/// # Example
/// ```
/// use amq::math::{plan, Spec, Target};
/// let p = plan(&Spec::Cuckoo { items: 1_000_000, target: Target::Fpr(0.001) })?;
/// assert_eq!(p.k, 2); // a query probes two buckets
/// assert!(p.fpr <= 0.001);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(tag = "kind", rename_all = "kebab-case")
)]
#[non_exhaustive]
pub enum Spec {
    /// A [`BloomFilter`](crate::BloomFilter) for n items, k fixed if given.
    Bloom {
        /// n, the items planned for.
        items: u64,
        /// ε, m or a memory budget.
        #[cfg_attr(feature = "serde", serde(flatten))]
        target: Target,
        /// k, the hash functions (default: the best for the target).
        #[cfg_attr(feature = "serde", serde(default))]
        k: Option<u32>,
    },
    /// A [`BlockedBloomFilter`](crate::BlockedBloomFilter) for n items, k fixed if given.
    BlockedBloom {
        /// n, the items planned for.
        items: u64,
        /// ε, m or a memory budget.
        #[cfg_attr(feature = "serde", serde(flatten))]
        target: Target,
        /// k, the bits set per item within its block (default: the best for the target).
        #[cfg_attr(feature = "serde", serde(default))]
        k: Option<u32>,
    },
    /// A [`SplitBlockBloomFilter`](crate::SplitBlockBloomFilter) for n items (k is 8).
    SplitBlockBloom {
        /// n, the items planned for.
        items: u64,
        /// ε, m or a memory budget.
        #[cfg_attr(feature = "serde", serde(flatten))]
        target: Target,
    },
    /// A [`CuckooFilter`](crate::CuckooFilter) for n items ([`cuckoo::plan`](crate::cuckoo::plan)).
    Cuckoo {
        /// n, the items planned for.
        items: u64,
        /// ε, m or a memory budget.
        #[cfg_attr(feature = "serde", serde(flatten))]
        target: Target,
    },
    /// A [`SlidingWindowBloom`](crate::SlidingWindowBloom) of this shape.
    SlidingWindowBloom {
        /// W, S, B and k.
        #[cfg_attr(feature = "serde", serde(flatten))]
        params: WindowParams,
    },
    /// An [`AgingBloom`](crate::AgingBloom) that remembers at least `window` insertions
    /// (or, with `window_seconds`, seconds) with a false-positive rate of at most `fpr`.
    AgingBloom {
        /// Remember at least this many of the latest insertions (rotation by count).
        #[cfg_attr(feature = "serde", serde(default))]
        window: Option<u64>,
        /// Remember at least this many seconds (rotation by time); needs
        /// `items_per_generation`.
        #[cfg_attr(feature = "serde", serde(default))]
        window_seconds: Option<u64>,
        /// With `window_seconds`: the most items inserted per rotation interval.
        #[cfg_attr(feature = "serde", serde(default))]
        items_per_generation: Option<u64>,
        /// g, the generations (2..=64; [`DEFAULT_GENERATIONS`](crate::window::DEFAULT_GENERATIONS)
        /// when a serialised spec leaves it out).
        #[cfg_attr(
            feature = "serde",
            serde(default = "crate::window::aging::default_generations")
        )]
        generations: u32,
        /// The bound on ε over all generations.
        fpr: f64,
    },
    /// A [`NegativeCache`](crate::NegativeCache) of 2ˡ slots of b-bit fingerprints in sets of
    /// `ways`, with an optional TTL in seconds.
    NegativeCache {
        /// l: 2ˡ slots.
        l: u32,
        /// b, the fingerprint bits.
        b: u32,
        /// w, the slots per set (a power of two).
        ways: u32,
        /// Entries expire this many seconds after insertion.
        #[cfg_attr(feature = "serde", serde(default))]
        ttl: Option<u64>,
    },
    /// A [`TtlCuckooFilter`](crate::TtlCuckooFilter) ([`ttl::plan`](crate::ttl::plan)).
    TtlCuckoo(crate::ttl::TtlSpec),
    /// A [`SlidingWindowCuckoo`](crate::SlidingWindowCuckoo) ([`rln::plan`](crate::rln::plan)).
    SlidingWindowCuckoo(crate::rln::RlnSpec),
    /// A [`ScalableBloomFilter`](crate::ScalableBloomFilter) whose first link holds n items,
    /// with the whole chain within ε.
    ScalableBloom {
        /// n₀, the items of the first link.
        items: u64,
        /// ε, the bound on the whole chain's rate.
        fpr: f64,
        /// s, the growth of link capacities (default 2).
        #[cfg_attr(feature = "serde", serde(default = "default_expansion"))]
        expansion: u32,
        /// r, the tightening of link rates (default 0.5).
        #[cfg_attr(feature = "serde", serde(default = "default_tightening"))]
        tightening: f64,
        /// One link at ε that refuses items past n (default `false`).
        #[cfg_attr(feature = "serde", serde(default))]
        nonscaling: bool,
    },
    /// An [`ExpandableCuckooFilter`](crate::ExpandableCuckooFilter) whose first link holds n
    /// items, with the whole chain within ε.
    ExpandableCuckoo {
        /// n₀, the items of the first link.
        items: u64,
        /// ε, the bound on the whole chain's rate.
        fpr: f64,
        /// s, the growth of link capacities; 0: never grows (default 2).
        #[cfg_attr(feature = "serde", serde(default = "default_expansion"))]
        expansion: u32,
        /// r, the tightening of link rates (default 0.5).
        #[cfg_attr(feature = "serde", serde(default = "default_tightening"))]
        tightening: f64,
        /// The most fingerprints one insert moves (default
        /// [`MAX_KICKS`](crate::cuckoo::MAX_KICKS)).
        #[cfg_attr(feature = "serde", serde(default = "default_kicks"))]
        max_kicks: u32,
    },
}

impl Spec {
    /// The kind this spec creates.
    pub fn kind(&self) -> Kind {
        match self {
            Spec::Bloom { .. } => Kind::Bloom,
            Spec::BlockedBloom { .. } => Kind::BlockedBloom,
            Spec::Cuckoo { .. } => Kind::Cuckoo,
            Spec::SlidingWindowBloom { .. } => Kind::SlidingWindowBloom,
            Spec::AgingBloom { .. } => Kind::AgingBloom,
            Spec::NegativeCache { .. } => Kind::NegativeCache,
            Spec::TtlCuckoo(_) => Kind::TtlCuckoo,
            Spec::SlidingWindowCuckoo(_) => Kind::SlidingWindowCuckoo,
            Spec::ScalableBloom { .. } => Kind::ScalableBloom,
            Spec::ExpandableCuckoo { .. } => Kind::ExpandableCuckoo,
            Spec::SplitBlockBloom { .. } => Kind::SplitBlockBloom,
        }
    }

    /// `true` for the kinds sized from n and a [`Target`] ([`sized`](Self::sized) takes
    /// them): the Bloom kinds and the cuckoo filter.
    ///
    /// # Example
    /// ```
    /// use amq::{math::Spec, wire::Kind};
    /// assert!(Spec::takes_target(Kind::Cuckoo));
    /// assert!(!Spec::takes_target(Kind::NegativeCache));
    /// ```
    pub fn takes_target(kind: Kind) -> bool {
        Spec::sized(kind, 1, Target::Bits(1), None).is_ok()
    }

    /// The spec for n items and a target of a kind that is sized that way (the Bloom kinds
    /// and the cuckoo filter), `k` fixed if given.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for another kind, or `k` given for a cuckoo filter (a
    /// query probes two buckets).
    pub fn sized(kind: Kind, items: u64, target: Target, k: Option<u32>) -> Result<Spec> {
        match kind {
            Kind::Bloom => Ok(Spec::Bloom { items, target, k }),
            Kind::BlockedBloom => Ok(Spec::BlockedBloom { items, target, k }),
            Kind::SplitBlockBloom if k.is_none_or(|k| k == super::SPLIT_BLOCK_K) => {
                Ok(Spec::SplitBlockBloom { items, target })
            }
            Kind::SplitBlockBloom => Err(Error::invalid(
                "k",
                "a split block Bloom filter sets 8 bits per item (one per lane)",
            )),
            Kind::Cuckoo if k.is_none() => Ok(Spec::Cuckoo { items, target }),
            Kind::Cuckoo => Err(Error::invalid(
                "k",
                "does not apply to a cuckoo filter (a query probes 2 buckets)",
            )),
            other => Err(Error::invalid(
                "kind",
                alloc::format!(
                    "a {} filter is not sized from n and a target; give its own parameters",
                    other.name()
                ),
            )),
        }
    }
}

#[cfg(feature = "serde")]
fn default_expansion() -> u32 {
    crate::scalable::DEFAULT_EXPANSION
}

#[cfg(feature = "serde")]
fn default_tightening() -> f64 {
    crate::scalable::DEFAULT_TIGHTENING
}

#[cfg(feature = "serde")]
fn default_kicks() -> u32 {
    crate::cuckoo::MAX_KICKS
}

/// Plans a filter: its shape, size and expected false-positive rate, without allocating it.
///
/// [`AnyFilter::new`](crate::AnyFilter::new) creates the filter a spec plans, of exactly this
/// shape.
///
/// # Errors
/// [`Error::InvalidParameter`] for n = 0, ε outside (0, 1), a zero or too-small size, k out
/// of range, or a kind's parameters out of range.
///
/// # Example
/// ```
/// use amq::math::{plan, Spec, Target};
/// let p = plan(&Spec::Bloom { items: 1_000_000, target: Target::Fpr(0.01), k: None })?;
/// assert_eq!(p.k, 7);
/// assert!(p.bits_per_key > 9.5 && p.bits_per_key < 9.6);
/// let b = plan(&Spec::BlockedBloom { items: 1_000_000, target: Target::Fpr(0.01), k: None })?;
/// assert!(b.bits_per_key > p.bits_per_key); // blocking costs bits for the same ε
/// # Ok::<(), amq::Error>(())
/// ```
pub fn plan(spec: &Spec) -> Result<Plan> {
    match *spec {
        Spec::Bloom { items, target, k } => bloom_plan(Kind::Bloom, items, target, k),
        Spec::BlockedBloom { items, target, k } => bloom_plan(Kind::BlockedBloom, items, target, k),
        Spec::SplitBlockBloom { items, target } => super::split_block::plan(items, target),
        Spec::Cuckoo { items, target } => {
            let p = crate::cuckoo::plan(items, target)?;
            Ok(Plan {
                details: PlanDetails::Cuckoo {
                    fingerprint_bits: p.fingerprint_bits,
                    buckets: p.buckets,
                    slots_per_bucket: crate::cuckoo::SLOTS_PER_BUCKET,
                    load_factor: p.load_factor,
                },
                items: p.items,
                m_bits: p.m_bits,
                k: 2,
                bytes: p.bytes,
                bits_per_key: p.bits_per_key,
                fpr: p.fpr,
                fpr_exact: p.fpr_exact,
            })
        }
        Spec::SlidingWindowBloom { params } => {
            params.check()?;
            let items = params.batch.saturating_mul(params.chunks());
            let e = params.steady_state_fpr();
            Ok(Plan {
                details: PlanDetails::SlidingWindowBloom {
                    window_bits: params.window_bits,
                    chunk_bits: params.chunk_bits,
                    batch: params.batch,
                },
                items,
                m_bits: params.window_bits,
                k: params.k,
                bytes: params.window_bits / 8,
                bits_per_key: params.window_bits as f64 / items.max(1) as f64,
                fpr: e,
                fpr_exact: e,
            })
        }
        Spec::AgingBloom {
            window,
            window_seconds,
            items_per_generation,
            generations,
            fpr,
        } => {
            let shape = crate::window::aging_shape(
                window,
                window_seconds,
                items_per_generation,
                generations,
                fpr,
            )?;
            let (rotation, period) = RotationUnit::of(shape.rotation);
            let g = u64::from(generations);
            let per_generation = match shape.rotation {
                Rotation::Count(c) => c,
                Rotation::Time(_) => items_per_generation.unwrap_or(0),
            };
            let items = per_generation.saturating_mul(g - 1);
            let m_bits = shape.m.saturating_mul(g);
            let per = fpr_exact(per_generation, shape.m, shape.k);
            let bound = super::any_of(per, g);
            Ok(Plan {
                details: PlanDetails::AgingBloom {
                    generations,
                    m_bits_per_generation: shape.m,
                    rotation,
                    rotation_period: period,
                    window_at_least: (g - 1).saturating_mul(period),
                    window_at_most: g.saturating_mul(period),
                },
                items,
                m_bits,
                k: shape.k,
                bytes: shape.bytes,
                bits_per_key: m_bits as f64 / items.max(1) as f64,
                fpr: bound,
                fpr_exact: bound,
            })
        }
        Spec::ScalableBloom {
            items,
            fpr,
            expansion,
            tightening,
            nonscaling,
        } => crate::scalable::plan(&crate::scalable::ScalableParams {
            capacity: items,
            fpr,
            expansion,
            tightening,
            scaling: !nonscaling,
        }),
        Spec::ExpandableCuckoo {
            items,
            fpr,
            expansion,
            tightening,
            max_kicks,
        } => crate::cuckoo::expandable_plan(&crate::cuckoo::ExpandableParams {
            capacity: items,
            fpr,
            expansion,
            tightening,
            max_kicks,
        }),
        Spec::NegativeCache { l, b, ways, ttl } => {
            let bytes = crate::negative::planned_bytes(l, b, ways, ttl)?;
            let slots = 1u64 << l;
            let bound = (f64::from(ways) * libm::exp2(-f64::from(b))).min(1.0);
            Ok(Plan {
                details: PlanDetails::NegativeCache {
                    l,
                    b,
                    ways,
                    slots,
                    ttl_seconds: ttl,
                },
                items: slots,
                m_bits: slots.saturating_mul(u64::from(b)),
                k: 1,
                bytes,
                bits_per_key: f64::from(b),
                fpr: bound,
                fpr_exact: bound,
            })
        }
        Spec::TtlCuckoo(s) => crate::ttl::plan(&s),
        Spec::SlidingWindowCuckoo(s) => crate::rln::plan(&s),
    }
}

/// Plans a Bloom filter (`Kind::Bloom` or `Kind::BlockedBloom`) for `n` items to meet
/// `target`, with k fixed if given: the Bloom arms of [`plan`].
///
/// # Errors
/// As [`plan`]; [`Error::InvalidParameter`] for another kind.
pub fn bloom_plan(kind: Kind, n: u64, target: Target, k: Option<u32>) -> Result<Plan> {
    if n == 0 {
        return Err(Error::invalid(
            "n",
            "the number of items must be at least 1",
        ));
    }
    let blocked = match kind {
        Kind::Bloom => false,
        Kind::BlockedBloom => true,
        other => {
            return Err(Error::invalid(
                "kind",
                alloc::format!("{} is not a Bloom kind", other.name()),
            ))
        }
    };
    let (m_bits, k) = match (blocked, target) {
        (false, Target::Fpr(e)) => bloom_size(n, e, k)?,
        (true, Target::Fpr(e)) => {
            let (blocks, k) = blocked_size(n, e, k)?;
            (blocks * BLOCK_BITS, k)
        }
        (false, Target::Bits(_) | Target::Memory(_)) => {
            let m = if let Target::Memory(bytes) = target {
                (bytes / 8).saturating_mul(64)
            } else if let Target::Bits(m) = target {
                m
            } else {
                0
            };
            if m > 1 << 63 {
                return Err(Error::invalid(
                    "m",
                    "the filter would need more than 2^63 bits",
                ));
            }
            if m == 0 {
                return Err(Error::invalid(
                    "m",
                    "the filter needs at least 1 bit (8 bytes of memory)",
                ));
            }
            let k = match k {
                Some(k) => {
                    check_k(k, BLOOM_MAX_K)?;
                    k
                }
                None => best_k(n, m, BLOOM_MAX_K),
            };
            (m, k)
        }
        (true, Target::Bits(_) | Target::Memory(_)) => {
            let blocks = match target {
                Target::Memory(bytes) => bytes / (BLOCK_BITS / 8),
                Target::Bits(m) => m.div_ceil(BLOCK_BITS),
                Target::Fpr(_) => 0,
            };
            if blocks == 0 {
                return Err(Error::invalid(
                    "m",
                    "a blocked filter needs at least one 64-byte block",
                ));
            }
            if blocks > 1 << 54 {
                return Err(Error::invalid(
                    "m",
                    "the filter would need more than 2^63 bits",
                ));
            }
            let k = match k {
                Some(k) => {
                    check_k(k, crate::hash::BLOCK_MAX_K)?;
                    k
                }
                None => blocked_best_k(n, blocks, 24),
            };
            (blocks * BLOCK_BITS, k)
        }
    };
    let (e, e_exact) = if blocked {
        (
            blocked_fpr(n, m_bits / BLOCK_BITS, k),
            blocked_fpr_exact(n, m_bits / BLOCK_BITS, k),
        )
    } else {
        (fpr(n, m_bits, k), fpr_exact(n, m_bits, k))
    };
    let bit_zero_probability = if blocked {
        blocked_bit_zero_probability(n, m_bits / BLOCK_BITS, k)
    } else {
        bit_zero_probability(n, m_bits, k)
    };
    let optimal_k = optimal_k(n, m_bits);
    Ok(Plan {
        details: if blocked {
            PlanDetails::BlockedBloom {
                bit_zero_probability,
                optimal_k,
            }
        } else {
            PlanDetails::Bloom {
                bit_zero_probability,
                optimal_k,
            }
        },
        items: n,
        m_bits,
        k,
        bytes: m_bits.div_ceil(64) * 8,
        bits_per_key: m_bits as f64 / n as f64,
        fpr: e,
        fpr_exact: e_exact,
    })
}
