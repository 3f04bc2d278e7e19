//! Sizing a chain of filters that grows: each link's capacity and false-positive rate, so
//! that the whole chain stays within the asked ε however many links it grows to.
//!
//! (Almeida, Baquero, Preguiça and Hutchison, "Scalable Bloom Filters", Information
//! Processing Letters 101(6), 2007: link i holds `n₀·sⁱ` items at `ε₀·rⁱ`, and the chain's
//! rate is at most `Σ ε₀·rⁱ = ε₀/(1 − r)`.)

use crate::error::{Error, Result};
use crate::math::{Plan, PlanDetails};

/// s, the growth factor of link capacities when none is given (RedisBloom's `BF.RESERVE`
/// default, <https://redis.io/docs/latest/commands/bf.reserve/>).
pub const DEFAULT_EXPANSION: u32 = 2;
/// r, the tightening ratio of link rates when none is given: each link's ε is half the one
/// before, so the first link gets ε/2.
pub const DEFAULT_TIGHTENING: f64 = 0.5;
/// The most links a [`ScalableBloomFilter`](super::ScalableBloomFilter) grows to.
pub const MAX_LINKS: u32 = 64;

/// The capacity of link `i`: `n₀·sⁱ`, saturating at `u64::MAX`.
///
/// # Example
/// ```
/// use amq::scalable::link_capacity;
/// assert_eq!(link_capacity(100, 2, 3), 800);
/// assert_eq!(link_capacity(100, 1, 3), 100);
/// assert_eq!(link_capacity(u64::MAX / 2, 4, 2), u64::MAX);
/// ```
pub fn link_capacity(capacity: u64, expansion: u32, i: u32) -> u64 {
    (0..i).fold(capacity, |c, _| c.saturating_mul(u64::from(expansion)))
}

/// The false-positive rate planned for link `i` of a chain that grows: `εᵢ = ε·(1 − r)·rⁱ`,
/// so that `Σᵢ εᵢ = ε·(1 − r)/(1 − r) = ε` over any number of links, and the chain's
/// rate `1 − Πᵢ(1 − εᵢ) ≤ Σᵢ εᵢ` stays below ε. A chain that never grows
/// (`scaling = false`) has one link, planned at ε itself.
///
/// Computed by repeated multiplication (no `pow`), so every platform gets the same bits.
///
/// # Example
/// ```
/// use amq::scalable::link_fpr;
/// assert_eq!(link_fpr(0.01, 0.5, 0, true), 0.005); // the first link of a growing chain
/// assert_eq!(link_fpr(0.01, 0.5, 1, true), 0.0025);
/// assert_eq!(link_fpr(0.01, 0.5, 0, false), 0.01); // a chain that never grows: ε itself
/// let sum: f64 = (0..64).map(|i| link_fpr(0.01, 0.9, i, true)).sum();
/// assert!(sum <= 0.01);
/// ```
pub fn link_fpr(fpr: f64, tightening: f64, i: u32, scaling: bool) -> f64 {
    if !scaling {
        return fpr;
    }
    (0..i).fold(fpr * (1.0 - tightening), |e, _| e * tightening)
}

/// Checks the parameters a chain shares: n₀ ≥ 1, ε and r in (0, 1), s ≥ 1.
pub(crate) fn check_chain(capacity: u64, fpr: f64, expansion: u32, tightening: f64) -> Result<()> {
    if capacity == 0 {
        return Err(Error::invalid(
            "capacity",
            "the initial capacity must be at least 1 item",
        ));
    }
    if !(fpr > 0.0 && fpr < 1.0) {
        return Err(Error::invalid(
            "fpr",
            alloc::format!(
                "must be strictly between 0 and 1, got {}",
                crate::math::Rate(fpr)
            ),
        ));
    }
    if expansion == 0 {
        return Err(Error::invalid("expansion", "must be at least 1"));
    }
    if !(tightening > 0.0 && tightening < 1.0) {
        return Err(Error::invalid(
            "tightening",
            alloc::format!("must be strictly between 0 and 1, got {tightening}"),
        ));
    }
    Ok(())
}

/// How a link's m is found from its capacity and rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkSizing {
    /// [`math::bloom_size_exact_new`](crate::math::bloom_size_exact_new): the link meets its
    /// rate when filled with new items only, as a chain fills it. Every link made now.
    NewItems,
    /// [`math::bloom_size_exact`](crate::math::bloom_size_exact): the rate of n inserts that
    /// all count, a few percent optimistic for a link at a large ε. Links of files written
    /// before 2026-11-25 have these shapes, and still read.
    EveryItem,
}

/// m and k of link `i`, sized as `sizing` says for its capacity and rate.
pub(crate) fn link_shape(
    capacity: u64,
    fpr: f64,
    expansion: u32,
    tightening: f64,
    scaling: bool,
    i: u32,
    sizing: LinkSizing,
) -> Result<(u64, u32)> {
    let share = link_fpr(fpr, tightening, i, scaling);
    if share == 0.0 && fpr > 0.0 {
        // ε·(1 − r)·rⁱ underflows: the link's rate would read as 0, which no size meets
        return Err(Error::invalid(
            "fpr",
            alloc::format!(
                "link {i}'s share of ε = {}, ε·(1 − r)·r^{i} with r = {tightening}, is below \
                 the smallest positive number",
                crate::math::Rate(fpr)
            ),
        ));
    }
    let n = link_capacity(capacity, expansion, i);
    match sizing {
        LinkSizing::NewItems => crate::math::bloom_size_exact_new(n, share),
        LinkSizing::EveryItem => crate::math::bloom_size_exact(n, share),
    }
}

/// Plans a [`ScalableBloomFilter`](super::ScalableBloomFilter) without allocating it: the
/// common fields of the [`Plan`] describe the first link (n₀ items at ε₀), the details state
/// the bound over the whole chain.
///
/// # Errors
/// As [`ScalableParams::check`](super::ScalableParams::check) and the first link's sizing.
///
/// # Example
/// ```
/// use amq::scalable::{plan, ScalableParams};
/// let p = plan(&ScalableParams::new(1000, 0.01))?;
/// assert_eq!(p.items, 1000);
/// assert!(p.fpr <= 0.005); // the first link is planned at ε·(1 − r) = ε/2
/// # Ok::<(), amq::Error>(())
/// ```
pub fn plan(params: &super::ScalableParams) -> Result<Plan> {
    params.check()?;
    let (m, k) = params.shape(0)?;
    let n = params.capacity;
    let f = super::ScalableBloomFilter {
        params: *params,
        seed: 0,
        links: alloc::vec::Vec::new(),
    };
    Ok(Plan {
        details: PlanDetails::ScalableBloom {
            expansion: params.expansion,
            tightening: params.tightening,
            scaling: params.scaling,
            first_link_fpr: f.link_fpr(0),
            fpr_bound: f.fpr_bound(),
            max_links: if params.scaling { MAX_LINKS } else { 1 },
        },
        items: n,
        m_bits: m,
        k,
        bytes: m.div_ceil(64) * 8,
        bits_per_key: m as f64 / n as f64,
        fpr: crate::math::fpr(n, m, k),
        // the first link's rate at n0 as a chain fills it: with new items only
        fpr_exact: crate::math::fpr_exact_new(n, m, k),
    })
}
