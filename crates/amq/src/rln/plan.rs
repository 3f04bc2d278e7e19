//! Sizing a sliding-window cuckoo filter: the fingerprint for a target ε per query, the
//! buckets of an epoch, and the bytes per member as the set grows.

use crate::cuckoo::{fpr, fpr_exact, planned_load, PLANNED_LOAD};
use crate::error::{Error, Result};
use crate::math::{Plan, PlanDetails};
use crate::ttl::lanes::{MAX_SLOT_BITS, SLOTS};

/// The largest epoch table: 2³⁶ buckets.
pub const MAX_LOG2_BUCKETS: u32 = 36;
/// The narrowest fingerprint, in bits.
pub const MIN_FINGERPRINT_BITS: u32 = 2;

/// What a sliding-window cuckoo filter is planned for.
///
/// As JSON (feature `serde`): `{"kind": "sliding-window-cuckoo", "epoch_items": B, "fpr": ε}`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RlnSpec {
    /// B, the registrations per epoch.
    pub epoch_items: u64,
    /// ε, the most false-positive rate of a query at any epoch.
    pub fpr: f64,
}

/// What a [`Plan`] of a sliding-window cuckoo filter says of its kind only
/// ([`PlanDetails::SlidingWindowCuckoo`]).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RlnPlan {
    /// f, the fingerprint bits.
    pub fingerprint_bits: u32,
    /// B, the registrations per epoch.
    pub epoch_items: u64,
    /// The buckets of an open epoch: 2ᵏ.
    pub epoch_buckets: u64,
    /// b, the slots per bucket.
    pub slots_per_bucket: u32,
    /// α of a full epoch with no member slashed: `B / (4 · 2ᵏ)`.
    pub load_factor: f64,
    /// The bound on ε of a query at any epoch: ε at the highest load an epoch is compacted
    /// to, [`PLANNED_LOAD`].
    pub fpr_bound: f64,
}

/// log₂ of the buckets an epoch of `live` members is given: the smallest k with
/// `live ≤ planned_load(live) · 4 · 2ᵏ` ([`planned_load`]: 0.95 from 5,625 members up), 0 for
/// none. An open epoch gets it for B; a full epoch is compacted to it for the members it
/// still holds.
///
/// # Errors
/// [`Error::InvalidParameter`] if that is more than 2³⁶ buckets.
///
/// # Example
/// ```
/// use amq::rln::log2_buckets_for;
/// assert_eq!(log2_buckets_for(15_564)?, 12); // 15,564 ≤ 0.95 · 4 · 4096 = 15,564.8
/// assert_eq!(log2_buckets_for(15_565)?, 13);
/// assert_eq!(log2_buckets_for(0)?, 0);
/// # Ok::<(), amq::Error>(())
/// ```
pub fn log2_buckets_for(live: u64) -> Result<u32> {
    let per_bucket = f64::from(SLOTS) * planned_load(live);
    (0..=MAX_LOG2_BUCKETS)
        .find(|&k| live as f64 <= per_bucket * (1u64 << k) as f64)
        .ok_or_else(|| {
            Error::invalid(
                "epoch_items",
                alloc::format!("{live} members need more than 2^{MAX_LOG2_BUCKETS} buckets"),
            )
        })
}

/// The fewest fingerprint bits (at least 2) with `1 − (1 − 1/(2^f − 1))^(2b · 0.95) ≤ ε`:
/// every epoch table is at most [`PLANNED_LOAD`] full, so every query meets ε.
///
/// # Errors
/// [`Error::InvalidParameter`] if ε is not in (0, 1) or needs more than 32 bits.
///
/// # Example
/// ```
/// assert_eq!(amq::rln::fingerprint_bits_for(0.01)?, 10); // 7.6/1023 = 0.74%
/// assert_eq!(amq::rln::fingerprint_bits_for(1e-6)?, 23);
/// # Ok::<(), amq::Error>(())
/// ```
pub fn fingerprint_bits_for(e: f64) -> Result<u32> {
    if !(e > 0.0 && e < 1.0) {
        return Err(Error::invalid(
            "fpr",
            alloc::format!("must be strictly between 0 and 1, got {e}"),
        ));
    }
    (MIN_FINGERPRINT_BITS..=MAX_SLOT_BITS)
        .find(|&f| fpr_exact(f, PLANNED_LOAD) <= e)
        .ok_or_else(|| {
            Error::invalid(
                "fpr",
                alloc::format!(
                    "{} needs fingerprints of more than {MAX_SLOT_BITS} bits",
                    crate::math::Rate(e)
                ),
            )
        })
}

/// The bytes of the table of an epoch that holds `live` members with f-bit fingerprints:
/// `2ᵏ · ⌈4f/8⌉` with k = [`log2_buckets_for`]`(live)` (what compaction aims at).
///
/// # Errors
/// As [`log2_buckets_for`].
pub fn epoch_bytes_for(live: u64, fingerprint_bits: u32) -> Result<u64> {
    Ok(table_bytes(log2_buckets_for(live)?, fingerprint_bits))
}

/// The bytes of an epoch table of `2^log2_buckets` buckets of 4 f-bit slots:
/// `2ᵏ · ⌈4f/8⌉`.
pub(crate) fn table_bytes(log2_buckets: u32, fingerprint_bits: u32) -> u64 {
    (1u64 << log2_buckets) * u64::from((SLOTS * fingerprint_bits).div_ceil(8))
}

/// Plans a sliding-window cuckoo filter: f from [`fingerprint_bits_for`] ε, the buckets of an
/// epoch from [`log2_buckets_for`] B. The common fields describe one full epoch with no member
/// slashed (m, bytes and bits per key of its table; ε at its load); a set of n members in
/// full epochs takes about `n · bits_per_key` bits, and slashing shrinks epochs whose live
/// members fit in half their buckets.
///
/// # Errors
/// As [`fingerprint_bits_for`] and [`log2_buckets_for`]; [`Error::InvalidParameter`] for
/// B = 0.
///
/// # Example
/// ```
/// use amq::rln::{plan, RlnSpec};
/// let p = plan(&RlnSpec { epoch_items: 15_564, fpr: 0.001 })?;
/// assert_eq!(p.bytes, 4096 * 7); // f = 13: 4 slots of 13 bits in 7 bytes
/// assert!(p.bits_per_key < 14.8 && p.fpr_exact <= 0.001);
/// # Ok::<(), amq::Error>(())
/// ```
pub fn plan(spec: &RlnSpec) -> Result<Plan> {
    let b = spec.epoch_items;
    if b == 0 {
        return Err(Error::invalid(
            "epoch_items",
            "an epoch needs at least 1 registration",
        ));
    }
    let f = fingerprint_bits_for(spec.fpr)?;
    let k = log2_buckets_for(b)?;
    let buckets = 1u64 << k;
    let load = b as f64 / (buckets * u64::from(SLOTS)) as f64;
    let m_bits = buckets * u64::from(SLOTS * f);
    Ok(Plan {
        details: PlanDetails::SlidingWindowCuckoo(RlnPlan {
            fingerprint_bits: f,
            epoch_items: b,
            epoch_buckets: buckets,
            slots_per_bucket: SLOTS,
            load_factor: load,
            fpr_bound: fpr_exact(f, PLANNED_LOAD),
        }),
        items: b,
        m_bits,
        k: 2,
        bytes: table_bytes(k, f),
        bits_per_key: m_bits as f64 / b as f64,
        fpr: fpr(f, load),
        fpr_exact: fpr_exact(f, load),
    })
}
