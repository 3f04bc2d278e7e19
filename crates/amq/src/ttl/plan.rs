//! Sizing a TTL cuckoo filter: the fingerprint from ε at the planned live load, the stamp
//! from the longest TTL in ticks, the buckets from the live items; and the expiry rule.

use super::lanes::{MAX_SLOT_BITS, SLOTS};
use super::{check, MIN_FINGERPRINT_BITS};
use crate::cuckoo::{buckets_for, fpr, fpr_exact, planned_load};
use crate::error::{Error, Result};
use crate::math::{Plan, PlanDetails};

/// The stamp bits when neither they nor a longest TTL are given: TTLs up to 16 ticks.
pub const DEFAULT_STAMP_BITS: u32 = 4;
/// The most stamp bits: TTLs up to 65,536 ticks.
pub const MAX_STAMP_BITS: u32 = 16;

/// The time at which an entry inserted at `now` with `ttl` stops being found:
/// `⌊(now + ttl)/tick⌋ · tick` (saturating), the start of its expiry tick. It lies in
/// `(now + ttl − tick, now + ttl]`: the entry lives between `ttl − tick` and `ttl`.
///
/// # Panics
/// If `tick` is 0.
///
/// # Example
/// ```
/// assert_eq!(amq::ttl::expiry(1_000, 300, 60), 1_260); // lives 260 s of its 300
/// assert_eq!(amq::ttl::expiry(1_020, 300, 60), 1_320); // lives the full 300 s
/// assert_eq!(amq::ttl::expiry(13, 25, 1), 38); // tick 1: exact
/// ```
pub fn expiry(now: u64, ttl: u64, tick: u64) -> u64 {
    now.saturating_add(ttl) / tick * tick
}

/// What a TTL cuckoo filter is planned for.
///
/// As JSON (feature `serde`): `{"kind": "ttl-cuckoo", "items": n, "fpr": ε, "tick": t}` and
/// optionally `"stamp_bits"` and `"max_ttl"`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TtlSpec {
    /// n, the most live items at any time.
    pub items: u64,
    /// ε, the false-positive rate at n live items.
    pub fpr: f64,
    /// The tick in clock units (seconds on the command line): the precision of expiry.
    pub tick: u64,
    /// s, the stamp bits (default: from `max_ttl`, else [`DEFAULT_STAMP_BITS`]).
    #[cfg_attr(feature = "serde", serde(default))]
    pub stamp_bits: Option<u32>,
    /// The longest TTL inserts use, in clock units; also the default TTL.
    #[cfg_attr(feature = "serde", serde(default))]
    pub max_ttl: Option<u64>,
}

/// What a [`Plan`] of a TTL cuckoo filter says of its kind only
/// ([`PlanDetails::TtlCuckoo`]).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TtlPlan {
    /// f, the fingerprint bits.
    pub fingerprint_bits: u32,
    /// s, the stamp bits.
    pub stamp_bits: u32,
    /// Buckets of `slots_per_bucket` slots of f + s bits.
    pub buckets: u64,
    /// b, the slots per bucket.
    pub slots_per_bucket: u32,
    /// α, the live load at n items.
    pub load_factor: f64,
    /// The tick, in clock units.
    pub tick: u64,
    /// The longest TTL an insert accepts: `tick · 2ˢ`.
    pub max_ttl: u64,
    /// The TTL of inserts that give none.
    pub default_ttl: u64,
    /// With TTLs of at most the default, the fewest ticks between two sweeps (O(m) each):
    /// `2ˢ − ⌈default_ttl/tick⌉ + 1`.
    pub ticks_between_sweeps: u64,
}

/// Plans a TTL cuckoo filter for `spec.items` live items:
///
/// * s: `spec.stamp_bits`, else `⌈log₂L⌉ + 1` for a longest TTL of L ticks (so sweeps run at
///   most once per L ticks), else [`DEFAULT_STAMP_BITS`];
/// * f: the fewest bits (at least 2) with `1 − (1 − 1/(2^f − 1))^(2bα) ≤ ε` at the
///   [`planned_load`] α, with f + s ≤ 32;
/// * buckets: [`buckets_for`] n (⌈n/(4 · 0.95)⌉ from 5,625 items up).
///
/// # Errors
/// [`Error::InvalidParameter`] for n = 0, ε outside (0, 1), tick 0, a `max_ttl` of 0 or
/// below one tick, a stamp width out of `1..=16` or too narrow for `max_ttl`, or an ε that
/// needs more than 32 − s fingerprint bits.
///
/// # Example
/// ```
/// use amq::ttl::{plan, TtlSpec};
/// use amq::math::PlanDetails;
/// let spec = TtlSpec { items: 1_000_000, fpr: 0.001, tick: 60, stamp_bits: None, max_ttl: Some(3_600) };
/// let p = plan(&spec)?;
/// let PlanDetails::TtlCuckoo(t) = p.details else { unreachable!() };
/// assert_eq!((t.fingerprint_bits, t.stamp_bits), (13, 7)); // 60 ticks: s = 6 + 1
/// assert_eq!(t.max_ttl, 7_680); // 128 ticks of 60 s
/// assert!(p.fpr_exact <= 0.001);
/// assert_eq!(p.bytes, 263_158 * 10); // 4 slots of 20 bits: 10 bytes per bucket
/// # Ok::<(), amq::Error>(())
/// ```
pub fn plan(spec: &TtlSpec) -> Result<Plan> {
    let (details, load) = shape(spec)?;
    let w = details.fingerprint_bits + details.stamp_bits;
    let m_bits = details.buckets * u64::from(SLOTS * w);
    Ok(Plan {
        details: PlanDetails::TtlCuckoo(details),
        items: spec.items,
        m_bits,
        k: 2,
        bytes: details.buckets * u64::from((SLOTS * w).div_ceil(8)),
        bits_per_key: m_bits as f64 / spec.items as f64,
        fpr: fpr(details.fingerprint_bits, load),
        fpr_exact: fpr_exact(details.fingerprint_bits, load),
    })
}

/// The plan's details and its load, without allocating.
pub(crate) fn shape(spec: &TtlSpec) -> Result<(TtlPlan, f64)> {
    let TtlSpec {
        items: n,
        fpr: e,
        tick,
        ..
    } = *spec;
    if n == 0 {
        return Err(Error::invalid(
            "n",
            "the number of items must be at least 1",
        ));
    }
    if !(e > 0.0 && e < 1.0) {
        return Err(Error::invalid(
            "fpr",
            alloc::format!(
                "must be strictly between 0 and 1, got {}",
                crate::math::Rate(e)
            ),
        ));
    }
    if tick == 0 {
        return Err(Error::invalid("tick", "must be at least 1"));
    }
    if spec.max_ttl == Some(0) {
        return Err(Error::invalid("max_ttl", "must be at least 1"));
    }
    if let Some(t) = spec.max_ttl.filter(|&t| t < tick) {
        return Err(Error::invalid(
            "max_ttl",
            alloc::format!(
                "{t} is shorter than one tick ({tick}): an entry could expire before it is \
                 found; take a tick of at most {t}"
            ),
        ));
    }
    let ticks = spec.max_ttl.map(|t| t.div_ceil(tick));
    let s = match (spec.stamp_bits, ticks) {
        (Some(s), _) => s,
        (None, Some(l)) => (64 - (l - 1).leading_zeros()) + 1, // ⌈log₂L⌉ + 1
        (None, None) => DEFAULT_STAMP_BITS,
    };
    if let (None, Some(l), Some(t)) = (spec.stamp_bits, ticks, spec.max_ttl) {
        if s > MAX_STAMP_BITS {
            return Err(Error::invalid(
                "max_ttl",
                alloc::format!(
                    "{t} is {l} ticks of {tick}, more than {MAX_STAMP_BITS} stamp bits count \
                     with room to expire ({}): take a longer tick",
                    1u64 << (MAX_STAMP_BITS - 1)
                ),
            ));
        }
    }
    if !(1..=MAX_STAMP_BITS).contains(&s) {
        return Err(Error::invalid(
            "stamp_bits",
            alloc::format!(
                "must be between 1 and {MAX_STAMP_BITS} (TTLs up to 65,536 ticks), got {s}"
            ),
        ));
    }
    let stamps = 1u64 << s;
    if let Some(l) = ticks.filter(|&l| l > stamps) {
        return Err(Error::invalid(
            "max_ttl",
            alloc::format!("{l} ticks do not fit in {s} stamp bits (at most {stamps})"),
        ));
    }
    let load = planned_load(n);
    let f = (MIN_FINGERPRINT_BITS..=MAX_SLOT_BITS - s)
        .find(|&f| fpr_exact(f, load) <= e)
        .ok_or_else(|| {
            Error::invalid(
                "fpr",
                alloc::format!(
                    "{} needs more than {} fingerprint bits beside {s} stamp bits",
                    crate::math::Rate(e),
                    MAX_SLOT_BITS - s
                ),
            )
        })?;
    let buckets = buckets_for(n)?;
    check(buckets, f, s, tick)?;
    let default_ttl = spec
        .max_ttl
        .unwrap_or(tick.saturating_mul(stamps / 2))
        .max(1);
    let max_ttl = tick.saturating_mul(stamps);
    Ok((
        TtlPlan {
            fingerprint_bits: f,
            stamp_bits: s,
            buckets,
            slots_per_bucket: SLOTS,
            load_factor: n as f64 / (buckets * u64::from(SLOTS)) as f64,
            tick,
            max_ttl,
            default_ttl,
            ticks_between_sweeps: stamps - default_ttl.div_ceil(tick) + 1,
        },
        n as f64 / (buckets * u64::from(SLOTS)) as f64,
    ))
}
