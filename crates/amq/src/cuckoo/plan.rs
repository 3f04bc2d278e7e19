//! Cuckoo filter sizing: false-positive rates, fingerprint widths and bucket counts, and the
//! planner.

use super::{FINGERPRINT_BITS, MAX_BUCKETS, PLANNED_LOAD, SLOTS_PER_BUCKET};
use crate::error::{Error, Result};
use crate::math::Target;

/// The false-positive rate of a cuckoo filter with f-bit fingerprints, b = 4 slots per bucket
/// and load factor α: `ε = 1 − (1 − 2^−f)^(2bα)`, the chance that one of the 2bα fingerprints
/// expected in a query's two buckets matches (Fan et al. 2014, §5.1, with α·b occupied slots
/// per bucket).
///
/// # Example
/// ```
/// let e = amq::cuckoo::fpr(8, 0.95);
/// assert!((e - 0.02931).abs() < 1e-5); // 1 − (255/256)^7.6
/// ```
pub fn fpr(fingerprint_bits: u32, load: f64) -> f64 {
    let p = libm::exp2(-f64::from(fingerprint_bits));
    // 1 − (1 − p)^(2bα) as −expm1(2bα·log1p(−p)): exact at tiny loads and wide fingerprints
    -libm::expm1(2.0 * f64::from(SLOTS_PER_BUCKET) * load * libm::log1p(-p))
}

/// [`fpr`] for this implementation's fingerprints, which are uniform over the 2^f − 1 non-zero
/// values: `1 − (1 − 1/(2^f − 1))^(2bα)`. It is above [`fpr`] by a factor of about
/// 1 + 2^−f (0.4% at f = 8).
///
/// # Example
/// ```
/// use amq::cuckoo::{fpr, fpr_exact};
/// assert!((fpr_exact(8, 0.95) / fpr(8, 0.95) - 1.0).abs() < 0.005);
/// assert!((fpr_exact(16, 0.95) - 7.6 / 65535.0).abs() < 1e-7);
/// ```
pub fn fpr_exact(fingerprint_bits: u32, load: f64) -> f64 {
    let p = 1.0 / (libm::exp2(f64::from(fingerprint_bits)) - 1.0);
    -libm::expm1(2.0 * f64::from(SLOTS_PER_BUCKET) * load * libm::log1p(-p))
}

/// The fingerprint width for a target ε: `f = ⌈log2(2b/ε)⌉` (Fan et al. 2014, §5.1, eq. 6),
/// rounded up to the next supported width, 8, 12 or 16 bits.
///
/// # Errors
/// [`Error::InvalidParameter`] if ε is not in (0, 1), or is below 2b/2¹⁶ ≈ 1.22·10⁻⁴, which
/// needs fingerprints of more than 16 bits.
///
/// # Example
/// ```
/// use amq::cuckoo::fingerprint_bits_for;
/// assert_eq!(fingerprint_bits_for(0.05).unwrap(), 8); // ⌈log2(160)⌉ = 8
/// assert_eq!(fingerprint_bits_for(0.01).unwrap(), 12); // ⌈log2(800)⌉ = 10, rounded up
/// assert_eq!(fingerprint_bits_for(0.001).unwrap(), 16); // ⌈log2(8000)⌉ = 13
/// assert!(fingerprint_bits_for(1e-5).is_err()); // would need 20 bits
/// ```
pub fn fingerprint_bits_for(fpr: f64) -> Result<u32> {
    if !(fpr > 0.0 && fpr < 1.0) {
        return Err(Error::invalid(
            "fpr",
            alloc::format!(
                "must be strictly between 0 and 1, got {}",
                crate::math::Rate(fpr)
            ),
        ));
    }
    let need = libm::ceil(libm::log2(2.0 * f64::from(SLOTS_PER_BUCKET) / fpr)).max(1.0);
    FINGERPRINT_BITS
        .iter()
        .copied()
        .find(|&f| f64::from(f) >= need)
        .ok_or_else(|| {
            Error::invalid(
                "fpr",
                alloc::format!(
                    "{} needs {need:.1} fingerprint bits; a cuckoo filter supports at most 16 \
                     (ε ≥ 8/65536 ≈ 1.22e-4)",
                    crate::math::Rate(fpr)
                ),
            )
        })
}

/// The load factor the sizing functions plan n items at: [`PLANNED_LOAD`] (0.95) from 5,625
/// items up, and `max(0.97 − 1.5/√n, 0.5)` below.
///
/// The load a table reaches before its first refused insert spreads by about `1/√slots`
/// around its mean: at a million items it is 96.9–97.2% every time, but at a flat 0.95 a
/// table of 68 buckets (n = 256) refused an insert before its 256th item in 34 of 15,625
/// seeded fills, and one of 17 buckets (n = 64) in 352 of 20,000. With this margin, 20,000
/// seeded fills (12-bit fingerprints) of each n in 1..=64 and every 16th n from 80 to 2,560
/// (4.4 million fills) were refused before the n-th item 9 times, all at n ≤ 55, never more
/// than once for one n; crates/amq/tests/cuckoo.rs checks a sample.
///
/// # Example
/// ```
/// use amq::cuckoo::planned_load;
/// assert_eq!(planned_load(1_000_000), 0.95);
/// assert_eq!(planned_load(5_625), 0.95);
/// assert!((planned_load(256) - 0.87625).abs() < 1e-12);
/// assert_eq!(planned_load(1), 0.5);
/// ```
pub fn planned_load(n: u64) -> f64 {
    (0.97 - 1.5 / libm::sqrt(n.max(1) as f64)).clamp(0.5, PLANNED_LOAD)
}

/// The buckets for n items at the [`planned_load`]: `⌈n / (b · 0.95)⌉` from 5,625 items up
/// (a little more below), at least 1.
///
/// # Errors
/// [`Error::InvalidParameter`] if that is more than [`MAX_BUCKETS`].
///
/// # Example
/// ```
/// assert_eq!(amq::cuckoo::buckets_for(1_000_000).unwrap(), 263_158);
/// assert_eq!(amq::cuckoo::buckets_for(256).unwrap(), 74); // ⌈256 / (4 · 0.87625)⌉
/// ```
pub fn buckets_for(n: u64) -> Result<u64> {
    let b = libm::ceil(n as f64 / (f64::from(SLOTS_PER_BUCKET) * planned_load(n))).max(1.0);
    if b > MAX_BUCKETS as f64 {
        return Err(Error::invalid(
            "n",
            alloc::format!("{n} items need more than {MAX_BUCKETS} buckets"),
        ));
    }
    Ok(b as u64)
}

/// A cuckoo filter plan: its shape and what it is expected to do at n items.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CuckooPlan {
    /// n, the number of items planned for.
    pub items: u64,
    /// f, the fingerprint width in bits.
    pub fingerprint_bits: u32,
    /// The number of buckets (4 slots each).
    pub buckets: u64,
    /// m, the bits of the table: `buckets · 4 · f`.
    pub m_bits: u64,
    /// Bytes of table.
    pub bytes: u64,
    /// m/n.
    pub bits_per_key: f64,
    /// α = n / (4 · buckets).
    pub load_factor: f64,
    /// [`fpr`] at that load.
    pub fpr: f64,
    /// [`fpr_exact`] at that load.
    pub fpr_exact: f64,
}

/// Plans a cuckoo filter for `n` items.
///
/// * [`Target::Fpr`]: f from [`fingerprint_bits_for`], buckets from [`buckets_for`].
/// * [`Target::Bits`] or [`Target::Memory`] (bytes): the widest fingerprint (16, 12, then 8
///   bits) whose table of `⌊m / 4f⌋` buckets holds n items at a load of at most
///   [`planned_load`]`(n)`.
///
/// # Errors
/// [`Error::InvalidParameter`] for n = 0, an unsupported ε, or a budget too small for n items
/// even with 8-bit fingerprints.
///
/// # Example
/// ```
/// use amq::cuckoo::plan;
/// use amq::math::Target;
/// let p = plan(1_000_000, Target::Fpr(0.001)).unwrap();
/// assert_eq!(p.fingerprint_bits, 16);
/// assert!(p.load_factor <= 0.95 && p.fpr <= 0.001);
/// let q = plan(1_000_000, Target::Memory(2_000_000)).unwrap();
/// assert_eq!(q.fingerprint_bits, 12);
/// assert!(q.bytes <= 2_000_000);
/// ```
pub fn plan(n: u64, target: Target) -> Result<CuckooPlan> {
    if n == 0 {
        return Err(Error::invalid(
            "n",
            "the number of items must be at least 1",
        ));
    }
    let (f, buckets) = match target {
        Target::Fpr(e) => (fingerprint_bits_for(e)?, buckets_for(n)?),
        Target::Bits(_) | Target::Memory(_) => {
            let m = match target {
                Target::Memory(bytes) => bytes.saturating_mul(8),
                Target::Bits(m) => m,
                Target::Fpr(_) => unreachable!("handled above"),
            };
            let need = buckets_for(n)?;
            FINGERPRINT_BITS
                .iter()
                .rev()
                .map(|&f| (f, (m / u64::from(4 * f)).min(MAX_BUCKETS)))
                .find(|&(_, b)| b >= need)
                .ok_or_else(|| {
                    Error::invalid(
                        "m",
                        alloc::format!(
                            "{m} bits cannot hold {n} items at load {:.4} even with \
                             8-bit fingerprints (needs {} bits)",
                            planned_load(n),
                            need * 32
                        ),
                    )
                })?
        }
    };
    let m_bits = buckets * u64::from(4 * f);
    let load = n as f64 / (buckets as f64 * f64::from(SLOTS_PER_BUCKET));
    Ok(CuckooPlan {
        items: n,
        fingerprint_bits: f,
        buckets,
        m_bits,
        bytes: m_bits / 8,
        bits_per_key: m_bits as f64 / n as f64,
        load_factor: load,
        fpr: fpr(f, load),
        fpr_exact: fpr_exact(f, load),
    })
}
