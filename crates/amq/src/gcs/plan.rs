//! Choosing P and M for a Golomb-coded set, and predicting its size.
//!
//! The gaps between N uniform values in `[0, N·M)` are close to geometric with mean M. Coding
//! them with Golomb-Rice parameter P costs P + 1 bits plus the unary quotient ⌊gap / 2^P⌋,
//! whose mean is e^(−x) / (1 − e^(−x)) with x = 2^P / M, so a set takes
//!
//! ```text
//! bits per element = P + 1 / (1 − e^(−2^P/M))
//! ```
//!
//! (plus at most 7 bits of padding). For a given P the size per element of false-positive
//! information is smallest at M ≈ 1.497137 · 2^P (BIP158 §"Golomb-Coded Sets", after
//! P. Wuille's analysis; the NUT-23 draft repeats it): BIP158's P = 19 gives M = 784931.

use super::{Params, MAX_P};
use crate::error::{Error, Result};
use libm::{ceil, expm1, pow};

/// The ratio M / 2^P that minimises the size for a given P (BIP158).
pub const OPTIMAL_M_RATIO: f64 = 1.497137;

/// The optimal M for remainder bits P: `round(1.497137 · 2^P)`.
///
/// # Example
/// ```
/// assert_eq!(amq::gcs::optimal_m(19), 784_931); // BIP158's basic filter
/// ```
pub fn optimal_m(p: u8) -> u64 {
    let m = OPTIMAL_M_RATIO * pow(2.0, f64::from(p.min(MAX_P)));
    libm::round(m) as u64
}

/// The expected size of one element's code in bits: `P + 1/(1 − e^(−2^P/M))`.
///
/// # Example
/// ```
/// let bits = amq::gcs::expected_bits_per_element(19, 784_931);
/// assert!((bits - 21.0524).abs() < 1e-4);
/// ```
pub fn expected_bits_per_element(p: u8, m: u64) -> f64 {
    let x = pow(2.0, f64::from(p)) / m.max(1) as f64;
    f64::from(p) + 1.0 / -expm1(-x)
}

/// A planned Golomb-coded set: the parameters and what they promise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GcsPlan {
    /// N, the number of items.
    pub n: u64,
    /// P, the Golomb-Rice remainder bits.
    pub p: u8,
    /// M, the inverse false-positive rate.
    pub m: u64,
    /// The false-positive rate of one query, 1/M.
    pub fpr: f64,
    /// The expected code size per element, in bits ([`expected_bits_per_element`]).
    pub bits_per_element: f64,
    /// The expected size of the encoded set, in bytes (⌈N · bits per element / 8⌉).
    pub bytes: u64,
}

impl GcsPlan {
    fn new(n: u64, p: u8, m: u64) -> Self {
        let bits = expected_bits_per_element(p, m);
        GcsPlan {
            n,
            p,
            m,
            fpr: 1.0 / m as f64,
            bits_per_element: bits,
            bytes: ceil(n as f64 * bits / 8.0) as u64,
        }
    }
}

/// The plan for N items at false-positive rate at most `fpr`: M = ⌈1/fpr⌉ and the P that
/// minimises the expected size for that M.
///
/// # Errors
/// [`Error::InvalidParameter`] if fpr is not in (0, 1] (`fpr`), 1/fpr reaches 2³² (`fpr`), or
/// n ≥ 2³² (`n`).
///
/// # Example
/// ```
/// let plan = amq::gcs::plan::for_fpr(100_000, 1.0 / 784_931.0)?;
/// assert_eq!((plan.p, plan.m), (19, 784_931));
/// assert!((plan.bits_per_element - 21.0524).abs() < 1e-4);
/// # Ok::<(), amq::Error>(())
/// ```
pub fn for_fpr(n: u64, fpr: f64) -> Result<GcsPlan> {
    if !(fpr > 0.0 && fpr <= 1.0) {
        return Err(Error::invalid(
            "fpr",
            alloc::format!("must be in (0, 1], got {}", crate::math::Rate(fpr)),
        ));
    }
    // 1/fpr rounded up, with a relative tolerance so that 1/(1/M) gives M back
    let inv = 1.0 / fpr;
    let m_f = ceil(inv * (1.0 - 1e-12));
    if m_f >= super::LIMIT as f64 {
        return Err(Error::invalid(
            "fpr",
            alloc::format!("1/fpr must be below 2^32, got {inv}"),
        ));
    }
    let m = (m_f as u64).max(1);
    Params::new(n, 0, m)?;
    // the best P is next to log2(M / 1.497137); there are only 33 candidates, so try all
    let p = (0..=MAX_P)
        .min_by(|&a, &b| {
            expected_bits_per_element(a, m).total_cmp(&expected_bits_per_element(b, m))
        })
        .unwrap_or(0);
    Ok(GcsPlan::new(n, p, m))
}

/// The plan for N items with remainder bits P and the optimal M ([`optimal_m`]).
///
/// # Errors
/// [`Error::InvalidParameter`] if n ≥ 2³² (`n`) or p > [`MAX_P`] (`p`).
///
/// # Example
/// ```
/// let plan = amq::gcs::plan::for_p(10, 19)?;
/// assert_eq!(plan.m, 784_931);
/// # Ok::<(), amq::Error>(())
/// ```
pub fn for_p(n: u64, p: u8) -> Result<GcsPlan> {
    if p > MAX_P {
        return Err(Error::invalid(
            "p",
            alloc::format!("must be at most {MAX_P}, got {p}"),
        ));
    }
    let m = optimal_m(p).clamp(1, super::LIMIT - 1);
    Params::new(n, p, m)?;
    Ok(GcsPlan::new(n, p, m))
}

/// The plan for N items with the given P and M (what they cost and promise).
///
/// # Errors
/// As [`Params::new`].
pub fn for_params(n: u64, p: u8, m: u64) -> Result<GcsPlan> {
    Params::new(n, p, m)?;
    Ok(GcsPlan::new(n, p, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optimum_ratio_matches_bip158() {
        assert_eq!(optimal_m(19), 784_931);
        assert_eq!(optimal_m(0), 1);
        // at M = 1.497137·2^P the best P is P itself
        for p in 1..=30u8 {
            let plan = for_fpr(1000, 1.0 / optimal_m(p) as f64).unwrap();
            assert_eq!(plan.p, p, "m = {}", optimal_m(p));
        }
    }

    #[test]
    fn bad_targets_are_refused() {
        assert!(for_fpr(10, 0.0).is_err());
        assert!(for_fpr(10, 1.5).is_err());
        assert!(for_fpr(10, 1e-10).is_err());
        assert!(for_fpr(1 << 32, 0.01).is_err());
        assert!(for_p(10, 33).is_err());
        assert_eq!(for_fpr(10, 1.0).unwrap().m, 1);
    }
}
