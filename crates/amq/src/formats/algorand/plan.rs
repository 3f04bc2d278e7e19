//! The planner: the expected refusals while minting, and the smallest box that reaches a rate.

use super::{
    AvmHash, BOX_BYTE_MIN_BALANCE, BOX_FLAT_MIN_BALANCE, BYTES_PER_BOX_REFERENCE,
    MAX_APP_BOX_REFERENCES, MAX_BOX_BYTES, MAX_BOX_NAME_BYTES, MAX_K, MAX_STACK_BYTES,
};
use crate::error::{Error, Result};

/// The minimum balance a box adds to its application's account, in microAlgos:
/// `2,500 + 400·(name length + box size)`.
///
/// (Algorand developer docs, "Protocol parameters" / "Algorand parameter tables": per box
/// created 0.0025 Algo, `BoxFlatMinBalance`; per byte in box created 0.0004 Algo,
/// `BoxByteMinBalance`, "includes the length of the key".)
///
/// # Example
/// ```
/// use amq::formats::algorand::{box_min_balance, BOX_NAME};
/// assert_eq!(box_min_balance(BOX_NAME.len(), 4096), 1_642_900); // 1.6429 Algo
/// ```
pub fn box_min_balance(name_len: usize, box_bytes: usize) -> u64 {
    let bytes = (name_len as u64).saturating_add(box_bytes as u64);
    BOX_BYTE_MIN_BALANCE
        .saturating_mul(bytes)
        .saturating_add(BOX_FLAT_MIN_BALANCE)
}

/// The false-positive rate `(1 − (1 − 1/m)^(k·x))^k` for a real-valued item count x.
fn fpr_at(x: f64, m: u64, k: u8) -> f64 {
    let zero = libm::exp(f64::from(k) * x * libm::log1p(-1.0 / m as f64));
    libm::pow(1.0 - zero, f64::from(k))
}

/// The expected number of refusals ("Unit name already taken") among `calls` calls with
/// distinct names (none over 8 bytes), against an empty filter of m bits and k hashes, with
/// no supply limit: `Σ_{j<calls} (1 − (1 − 1/m)^(k·j))^k`.
///
/// The sum runs over *calls*, not mints: a refused name has all its k bits set already, so
/// the box after j calls is exactly the Bloom filter of all j names, accepted or refused. (A
/// model that only counts the minted names underestimates the refusals: for the seed contract
/// and 10,000 calls it predicts 747 where the contract refuses about 805.) Takes O(calls) time.
///
/// # Example
/// ```
/// // The seed contract (m = 32,768, k = 2) over 10,000 distinct names.
/// let r = amq::formats::algorand::expected_refusals(32_768, 2, 10_000);
/// assert!((r - 805.35).abs() < 0.01);
/// ```
pub fn expected_refusals(m: u64, k: u8, calls: u64) -> f64 {
    (0..calls).map(|j| fpr_at(j as f64, m, k)).sum()
}

/// Minting the whole supply of n from an empty box with fresh distinct names: the expected
/// number of calls refused on the way, and so the rate at full supply.
///
/// Since the box after c calls is the Bloom filter of all c names (see
/// [`expected_refusals`]), c grows until `c − Σ_{j<c} ε(j) = n`. Returns
/// `(expected refusals, ε after those calls)`. The sum is taken over at most 2¹³ chunks of
/// calls (midpoint rule), so it costs O(min(n, 8,192)) whatever n is.
pub fn expected_refusals_to_mint(m: u64, k: u8, n: u64) -> (f64, f64) {
    let step = (n / 8192).max(1) as f64;
    let (mut calls, mut minted, mut refused) = (0.0f64, 0.0f64, 0.0f64);
    let target = n as f64;
    while minted < target {
        let p = fpr_at(calls + step / 2.0, m, k);
        if p >= 1.0 - 1e-12 {
            return (f64::INFINITY, 1.0);
        }
        // the chunk's calls, or fewer to mint exactly the rest
        let s = step.min((target - minted) / (1.0 - p));
        let next = minted + s * (1.0 - p);
        calls += s;
        refused += s * p;
        if next <= minted {
            break; // the rest is below f64 resolution
        }
        minted = next;
    }
    (refused, fpr_at(calls, m, k))
}

/// What [`plan`] chooses.
#[derive(Debug, Clone, PartialEq)]
pub struct AlgorandPlan {
    /// The supply the filter must hold: n.
    pub supply: u64,
    /// The false-positive rate asked for, at full supply.
    pub target_fpr: f64,
    /// The box size in bytes.
    pub box_bytes: usize,
    /// m = 8·box_bytes.
    pub m_bits: u64,
    /// k, the number of hashes.
    pub k: u8,
    /// The hashes, in order.
    pub hashes: &'static [AvmHash],
    /// The expected false-positive rate once all `supply` names are minted, counting the
    /// names refused on the way (whose bits are in the box too;
    /// [`expected_refusals_to_mint`]). At most `target_fpr`.
    pub fpr: f64,
    /// The classic rate for `supply` names alone, `(1 − e^(−k·n/m))^k`: what the rate would
    /// be if no name had been refused (a lower bound of [`fpr`](Self::fpr)).
    pub fpr_classic: f64,
    /// The expected number of fresh names refused while minting the whole supply
    /// ([`expected_refusals_to_mint`]).
    pub expected_refusals_to_mint: f64,
    /// The box's minimum-balance cost in microAlgos ([`box_min_balance`]).
    pub min_balance_microalgos: u64,
    /// `true` when the box fits on the AVM stack (≤ 4,096 bytes), so the contract can
    /// `box_get`/`box_put` it whole as the seed's does; otherwise it must use
    /// `box_extract`/`box_replace`.
    pub fits_on_stack: bool,
    /// The box references a group needs to read or write the box:
    /// ⌈box_bytes / [`BYTES_PER_BOX_REFERENCE`]⌉ (one names the box, the rest may name the
    /// empty box for their budget).
    pub box_references: usize,
    /// The fewest app calls that carry those references, at [`MAX_APP_BOX_REFERENCES`] each:
    /// above 8,192 bytes a mint is a group of at least two app calls.
    pub app_calls_for_box_references: usize,
}

/// The smallest box (and its k) whose expected false-positive rate at full supply, counting
/// the names refused on the way ([`expected_refusals_to_mint`]), is at most `target`, under
/// the AVM's limits: k ∈ 1..=4 and at most 32,768 bytes. Among k giving the
/// same smallest box, the lower rate wins. The cost is for a box named `box_name_len` bytes.
///
/// # Errors
/// [`Error::InvalidParameter`] if `supply` is 0, `target` is not in (0, 1), `box_name_len`
/// is not in 1..=[`MAX_BOX_NAME_BYTES`], or no box of at most 32,768 bytes reaches `target`
/// (the message gives the best rate reachable).
///
/// # Example
/// ```
/// use amq::formats::algorand::plan;
/// // The seed's collection: 10,000 names. At 1% it needs a 13,184-byte box with k = 4
/// // (k is capped at 4; the unconstrained optimum would be about 12,000 bytes with k = 7).
/// let p = plan(10_000, 0.01, 5)?;
/// assert_eq!((p.box_bytes, p.k), (13_184, 4));
/// assert!(p.fpr <= 0.01 && p.fpr_classic < p.fpr);
/// assert_eq!(p.min_balance_microalgos, 2_500 + 400 * (5 + 13_184));
/// assert!(!p.fits_on_stack);
/// assert_eq!((p.box_references, p.app_calls_for_box_references), (13, 2));
/// # Ok::<(), amq::Error>(())
/// ```
pub fn plan(supply: u64, target: f64, box_name_len: usize) -> Result<AlgorandPlan> {
    if supply == 0 {
        return Err(Error::invalid("n", "the supply must be at least 1"));
    }
    if !(1..=MAX_BOX_NAME_BYTES).contains(&box_name_len) {
        return Err(Error::invalid(
            "box_name_len",
            alloc::format!("a box name has 1 to {MAX_BOX_NAME_BYTES} bytes, got {box_name_len}"),
        ));
    }
    if !(target > 0.0 && target < 1.0) {
        return Err(Error::invalid(
            "fpr",
            alloc::format!(
                "must be strictly between 0 and 1, got {}",
                crate::math::Rate(target)
            ),
        ));
    }
    let classic = |bytes: usize, k: u8| crate::math::fpr(supply, bytes as u64 * 8, u32::from(k));
    // the rate at full supply, counting the refused names' bits
    let rate = |bytes: usize, k: u8| {
        if classic(bytes, k) > target {
            return classic(bytes, k); // a lower bound already over the target
        }
        expected_refusals_to_mint(bytes as u64 * 8, k, supply).1
    };
    let mut best: Option<(usize, u8, f64)> = None;
    for k in 1..=MAX_K {
        if rate(MAX_BOX_BYTES, k) > target {
            continue;
        }
        // the rate falls as the box grows: bisect for the smallest box that reaches target
        let (mut lo, mut hi) = (1usize, MAX_BOX_BYTES);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if rate(mid, k) <= target {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let r = rate(hi, k);
        best = match best {
            Some((b, bk, br)) if b < hi || (b == hi && br <= r) => Some((b, bk, br)),
            _ => Some((hi, k, r)),
        };
    }
    let Some((box_bytes, k, fpr)) = best else {
        let reachable = (1..=MAX_K)
            .map(|k| rate(MAX_BOX_BYTES, k))
            .fold(1.0f64, f64::min);
        return Err(Error::invalid(
            "fpr",
            alloc::format!(
                "{supply} names at {} need more than one 32,768-byte box; \
                 the best one box reaches is {reachable:.3e}",
                crate::math::Rate(target)
            ),
        ));
    };
    let m_bits = box_bytes as u64 * 8;
    let references = box_references(box_bytes);
    Ok(AlgorandPlan {
        supply,
        target_fpr: target,
        box_bytes,
        m_bits,
        k,
        hashes: &AvmHash::ORDER[..usize::from(k)],
        fpr,
        fpr_classic: classic(box_bytes, k),
        expected_refusals_to_mint: expected_refusals_to_mint(m_bits, k, supply).0,
        min_balance_microalgos: box_min_balance(box_name_len, box_bytes),
        fits_on_stack: box_bytes <= MAX_STACK_BYTES,
        box_references: references,
        app_calls_for_box_references: references.div_ceil(MAX_APP_BOX_REFERENCES),
    })
}

/// ⌈box_bytes / [`BYTES_PER_BOX_REFERENCE`]⌉, at least 1: the references a group needs to
/// touch a box of `box_bytes` bytes.
///
/// # Example
/// ```
/// use amq::formats::algorand::box_references;
/// assert_eq!(box_references(4096), 4); // the seed's box
/// assert_eq!(box_references(13_184), 13);
/// ```
pub fn box_references(box_bytes: usize) -> usize {
    box_bytes.div_ceil(BYTES_PER_BOX_REFERENCE).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planner_limits() {
        assert!(plan(10_000, 1e-12, 5).is_err());
        let p = plan(100, 0.01, 5).unwrap();
        assert!(p.fits_on_stack);
        assert!(p.fpr <= 0.01);
        // one byte less does not reach the target with any k
        for k in 1..=4u8 {
            let smaller = (p.box_bytes as u64 - 1) * 8;
            assert!(expected_refusals_to_mint(smaller, k, 100).1 > 0.01);
        }
    }
}
