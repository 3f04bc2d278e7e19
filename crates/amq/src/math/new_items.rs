//! The classic filter when only new items are added: each insert first asks the filter and
//! adds nothing when it answers "maybe present", so n counts the items that were added. A
//! scalable Bloom filter's links fill this way (an item any link reports is not added, as
//! RedisBloom's `BF.ADD` answers 0 and `BF.CARD` does not count it).
//!
//! Such a filter holds more set bits for the same n than [`fpr_exact`](super::fpr_exact)
//! assumes, since the inserts it skips are exactly those that would have set no bit: at a
//! planned ε = 10% (k = 3) the rate at capacity is 0.1073, not 0.1. The model:
//!
//! * An added item's k probes are independent and uniform, given that at least one finds a
//!   zero bit. With a fraction p of the m bits set, it sets on average `k(1 − p)/(1 − p^k)`
//!   bits, so `dp/dn = k(1 − p) / (m(1 − p^k))`.
//! * Integrated from an empty filter: `Σⱼ₌₁..ₖ pʲ/j = k·n/m`. The series for all j is
//!   `−ln(1 − p)`, the classic fill; here it stops at j = k. With the exact expectation's
//!   finite-m step, k·n/m becomes `−k·n·ln(1 − 1/m)`, as in
//!   [`bit_zero_probability`](super::bit_zero_probability).
//! * The rate is then `p^k`. Past `n = (m/k)·Hₖ` (Hₖ the k-th harmonic number) the model's
//!   filter is full: no more items can be added, and the rate is 1.
//!
//! This is derived here, not taken from a paper, and checked against filters filled that way
//! (the unit tests below, and `tests/fpr_model.rs` for the scalable filter).

use crate::error::Result;
use libm::{expm1, log1p};

/// p, the fraction of a classic filter's m bits set after n new items with k hash functions
/// each (the module docs): the root of `Σⱼ₌₁..ₖ pʲ/j = −k·n·ln(1 − 1/m)`, 1.0 when there
/// is none below 1.
///
/// Found by Newton's method, kept within a bracket by bisection; at most 200 steps.
///
/// # Example
/// ```
/// use amq::math::{bit_zero_probability, fill_new};
/// // k = 1: every added item sets a bit of its own, so n of them set exactly n bits
/// assert!((fill_new(300, 1000, 1) - 0.3).abs() < 1e-3);
/// // with k > 1 more bits are set than when every insert counts
/// assert!(fill_new(10_000, 48_000, 3) > 1.0 - bit_zero_probability(10_000, 48_000, 3));
/// assert_eq!(fill_new(2_000, 1000, 1), 1.0); // more new items than bits
/// ```
pub fn fill_new(n: u64, m: u64, k: u32) -> f64 {
    if m == 0 {
        return 1.0;
    }
    if n == 0 || k == 0 {
        return 0.0;
    }
    // c = −k·n·ln(1 − 1/m); at m = 1 one item fills the filter
    let c = -(k as f64) * n as f64 * log1p(-1.0 / m as f64);
    // g(p) = Σⱼ₌₁..ₖ pʲ/j, increasing and convex on [0, 1]; g(1) = Hₖ
    let g = |p: f64| (1..=k).rev().fold(0.0, |acc, j| (acc + 1.0 / j as f64) * p);
    let dg = |p: f64| (0..k).fold(0.0, |acc, _| acc * p + 1.0);
    if c >= g(1.0) {
        return 1.0;
    }
    // the classic fill −expm1(−c) solves the whole series, so it is at or below the root
    let (mut lo, mut hi) = (-expm1(-c), 1.0);
    let mut p = lo;
    for _ in 0..200 {
        let v = g(p) - c;
        if v == 0.0 {
            return p;
        }
        if v < 0.0 {
            lo = p;
        } else {
            hi = p;
        }
        let next = p - v / dg(p);
        let next = if next > lo && next < hi {
            next
        } else {
            lo + (hi - lo) / 2.0
        };
        if next == p || hi - lo <= f64::EPSILON * hi {
            return next;
        }
        p = next;
    }
    p
}

/// The rate of a classic filter (m bits, k hash functions) after n new items: `p^k` with p
/// from [`fill_new`]. Always at least [`fpr_exact`](super::fpr_exact) for the same n, m, k.
///
/// # Example
/// ```
/// use amq::math::{fpr_exact, fpr_exact_new};
/// // 100,000 items at m = 480,834, k = 3: planned at 10%, filled with new items only
/// assert!((fpr_exact(100_000, 480_834, 3) - 0.1).abs() < 1e-5);
/// assert!((fpr_exact_new(100_000, 480_834, 3) - 0.1073).abs() < 1e-4);
/// assert_eq!(fpr_exact_new(0, 64, 3), 0.0);
/// assert_eq!(fpr_exact_new(5, 64, 0), 1.0); // no hash function: every query is "maybe"
/// ```
pub fn fpr_exact_new(n: u64, m: u64, k: u32) -> f64 {
    if k == 0 {
        return 1.0;
    }
    libm::pow(fill_new(n, m, k), k as f64)
}

/// The smallest classic filter for n new items ([`fpr_exact_new`]) whose rate at n is at
/// most `target`: k as [`bloom_size`](super::bloom_size) picks it, and the smallest m from
/// there at which [`fpr_exact_new`] is within `target`. Since that rate is at least the
/// classic and the exact ones, those are within `target` too. A scalable Bloom filter sizes
/// its links so.
///
/// # Errors
/// As [`bloom_size`](super::bloom_size).
///
/// # Example
/// ```
/// use amq::math::{bloom_size_exact, bloom_size_exact_new, fpr_exact_new};
/// let (m, k) = bloom_size_exact_new(100_000, 0.1)?;
/// assert!(fpr_exact_new(100_000, m, k) <= 0.1);
/// assert!(fpr_exact_new(100_000, m - 1, k) > 0.1);
/// let (m_all, _) = bloom_size_exact(100_000, 0.1)?;
/// assert!(m > m_all); // 4% more bits at ε = 10%
/// # Ok::<(), amq::Error>(())
/// ```
pub fn bloom_size_exact_new(n: u64, target: f64) -> Result<(u64, u32)> {
    super::size_for_rate(n, target, fpr_exact_new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::splitmix64;
    use crate::math::{bit_zero_probability, fpr_exact};
    use crate::BloomFilter;

    /// Fills a classic filter with new items only (hash-level, as a chain's link fills) until
    /// it holds n of them; returns the fraction of its bits set.
    fn filled(n: u64, m: u64, k: u32, seed: u64) -> f64 {
        let mut f = BloomFilter::new(m, k, 0).unwrap();
        let mut s = seed;
        while f.inserted() < n {
            let h = u128::from(splitmix64(&mut s)) << 64 | u128::from(splitmix64(&mut s));
            if !f.contains_hash(h) {
                f.insert_hash(h);
            }
        }
        f.bits_set() as f64 / m as f64
    }

    #[test]
    fn the_fill_of_new_items_is_what_filters_filled_so_hold() {
        // the fill of one filter spreads by about √(m·p(1 − p))/m; twenty filters averaged
        for (n, m, k) in [(10_000, 48_000, 3), (5_000, 20_000, 2), (2_000, 40_000, 10)] {
            let mean = (0..20).map(|s| filled(n, m, k, s)).sum::<f64>() / 20.0;
            let model = fill_new(n, m, k);
            let all = 1.0 - bit_zero_probability(n, m, k);
            let p = model;
            let sigma = libm::sqrt(p * (1.0 - p) / m as f64 / 20.0);
            assert!(
                (mean - model).abs() <= 4.0 * sigma,
                "n {n} m {m} k {k}: filled {mean}, model {model} (σ {sigma}), classic {all}"
            );
        }
        // at (10,000, 48,000, 3) the classic fill is far off: the model is not the classic one
        let gap = fill_new(10_000, 48_000, 3) - (1.0 - bit_zero_probability(10_000, 48_000, 3));
        assert!(gap > 0.009, "{gap}");
    }

    #[test]
    fn the_root_solves_the_truncated_series() {
        for (n, m, k) in [
            (1, 1 << 40, 7),
            (1000, 10_000, 1),
            (7, 100, 64),
            (450, 1000, 5),
        ] {
            let p = fill_new(n, m, k);
            let c = -(k as f64) * n as f64 * log1p(-1.0 / m as f64);
            let g: f64 = (1..=k).map(|j| libm::pow(p, j as f64) / j as f64).sum();
            assert!((g - c).abs() <= 1e-12 * c, "n {n} m {m} k {k}: g {g} c {c}");
        }
        // tiny fills keep their relative precision: k·n/m = 7·10⁻¹², the classic fill then
        let p = fill_new(1, 1 << 40, 7);
        assert!((p / 6.366462912410498e-12 - 1.0).abs() < 1e-9, "{p}");
        // a filter past (m/k)·Hₖ new items is full in the model
        assert_eq!(fill_new(100, 100, 1), 1.0);
        assert!(fill_new(99, 100, 1) < 1.0);
        assert_eq!(fpr_exact_new(1000, 1, 3), 1.0);
    }

    #[test]
    fn new_items_never_give_a_lower_rate_than_every_item() {
        for (n, m, k) in [
            (1, 10, 1),
            (50, 1000, 4),
            (10_000, 95_851, 7),
            (1 << 30, 1 << 36, 11),
        ] {
            assert!(fpr_exact_new(n, m, k) >= fpr_exact(n, m, k));
        }
        // k = 1: the item added sets its one bit (a zero one), so p = −n·ln(1 − 1/m) ≈ n/m
        assert!((fill_new(250, 1000, 1) - 250.0 * -log1p(-1e-3)).abs() < 1e-15);
    }
}
