//! The blocked Bloom filter's model: its false-positive rate under Poisson and binomial block
//! loads, the best k, the size for a target ε, and the estimate of n from the fill.

use super::{check_k, check_n_fpr, optimal_k, optimal_m, smallest, BLOCK_BITS};
use crate::error::{Error, Result};
use libm::{exp, floor, lgamma, log, log1p, pow, sqrt};

/// False-positive rate of a block holding j items, k probes each, when probes may land on any
/// of the block's 512 bits: `(1 − (1 − 1/512)^(j·k))^k`.
pub(super) fn block_fpr_given_load(j: f64, k: u32) -> f64 {
    pow(
        1.0 - exp(j * k as f64 * log1p(-1.0 / BLOCK_BITS as f64)),
        k as f64,
    )
}

/// False-positive rate of a blocked Bloom filter: n items in `blocks` blocks of 512 bits,
/// k probes inside one block per item.
///
/// The block loads are Poisson with mean λ = n/blocks, and a query hits a block holding j
/// other items with probability `(1 − (1 − 1/512)^(j·k))^k`, so
/// `ε = Σⱼ e^(−λ)·λʲ/j! · (1 − (1 − 1/512)^(j·k))^k`.
/// (Putze, Sanders and Singler, "Cache-, Hash- and Space-Efficient Bloom Filters", WEA 2007,
/// §3.) Because loads vary, this is well above the classic rate at the same bits per key:
/// at 11.5 bits per key and k = 8 the classic formula says 0.39% and this model 0.51% (a
/// Parquet-style split block of 256 bits, one bit in each 32-bit word, gives 0.66%).
///
/// # Example
/// ```
/// let blocks = 1_000_000 * 23 / 2 / 512; // 11.5 bits per key
/// let eps = amq::math::blocked_fpr(1_000_000, blocks, 8);
/// assert!(eps > 0.0050 && eps < 0.0052);
/// ```
pub fn blocked_fpr(n: u64, blocks: u64, k: u32) -> f64 {
    if blocks == 0 {
        return 1.0;
    }
    let lambda = n as f64 / blocks as f64;
    if lambda == 0.0 {
        return 0.0;
    }
    // Sum the Poisson terms over mean ± 12 standard deviations (the rest is < 1e-30).
    let spread = 12.0 * sqrt(lambda) + 12.0;
    let lo = floor((lambda - spread).max(0.0)) as u64;
    let hi = (lambda + spread) as u64 + 1;
    let ln_lambda = log(lambda);
    let mut sum = 0.0;
    for j in lo..=hi {
        let jf = j as f64;
        let ln_p = -lambda + jf * ln_lambda - lgamma(jf + 1.0);
        sum += exp(ln_p) * block_fpr_given_load(jf, k);
    }
    sum.min(1.0)
}

/// [`blocked_fpr`] with the exact block-load distribution: loads are Binomial(n, 1/blocks)
/// instead of Poisson(n/blocks), so
/// `ε = Σⱼ C(n, j)·pʲ·(1 − p)^(n−j) · (1 − (1 − 1/512)^(j·k))^k` with p = 1/blocks.
///
/// The two agree closely once there are more than a few blocks; this is the blocked filter's
/// counterpart of [`fpr_exact`](super::fpr_exact).
pub fn blocked_fpr_exact(n: u64, blocks: u64, k: u32) -> f64 {
    if blocks == 0 {
        return 1.0;
    }
    if blocks == 1 {
        return block_fpr_given_load(n as f64, k);
    }
    let nf = n as f64;
    let p = 1.0 / blocks as f64;
    let mean = nf * p;
    let spread = 12.0 * sqrt(mean) + 12.0;
    let lo = floor((mean - spread).max(0.0)) as u64;
    let hi = ((mean + spread) as u64 + 1).min(n);
    let (ln_p, ln_q) = (log(p), log1p(-p));
    let ln_n_fact = lgamma(nf + 1.0);
    let mut sum = 0.0;
    for j in lo..=hi {
        let jf = j as f64;
        let ln_pmf =
            ln_n_fact - lgamma(jf + 1.0) - lgamma(nf - jf + 1.0) + jf * ln_p + (nf - jf) * ln_q;
        sum += exp(ln_pmf) * block_fpr_given_load(jf, k);
    }
    sum.min(1.0)
}

/// The k in `1..=max_k` that minimises [`blocked_fpr`] for n items in `blocks` blocks.
///
/// ε is unimodal in k, so the search starts at the classic optimum `(m/n)·ln 2` and walks
/// downhill one k at a time: a few evaluations instead of `max_k` (the tests check it against
/// the exhaustive scan).
pub fn blocked_best_k(n: u64, blocks: u64, max_k: u32) -> u32 {
    let max_k = max_k.max(1);
    let start = optimal_k(n, blocks.saturating_mul(BLOCK_BITS));
    let start = if start.is_finite() {
        (libm::round(start).max(1.0) as u32).min(max_k)
    } else {
        1 // no items: every k gives ε = 0
    };
    let e = |k: u32| blocked_fpr(n, blocks, k);
    let mut best = (start, e(start));
    for step in [1i64, -1] {
        loop {
            let next = i64::from(best.0) + step;
            if next < 1 || next > i64::from(max_k) {
                break;
            }
            let candidate = e(next as u32);
            if candidate < best.1 {
                best = (next as u32, candidate);
            } else {
                break;
            }
        }
    }
    best.0
}

/// The smallest blocked filter (number of 512-bit blocks, k) whose [`blocked_fpr`] for n items
/// is at most `target`.
///
/// # Errors
/// As [`bloom_size`](super::bloom_size), with k at most [`BLOCK_MAX_K`](crate::hash::BLOCK_MAX_K).
pub fn blocked_size(n: u64, target: f64, k: Option<u32>) -> Result<(u64, u32)> {
    check_n_fpr(n, target)?;
    let max_k = crate::hash::BLOCK_MAX_K;
    if let Some(k) = k {
        check_k(k, max_k)?;
    }
    let pick = |b: u64| k.unwrap_or_else(|| blocked_best_k(n, b, max_k.min(24)));
    let ok = |b: u64| blocked_fpr(n, b, pick(b)) <= target;
    let mut hi = (optimal_m(n, target) / BLOCK_BITS as f64) as u64 + 1;
    while !ok(hi) {
        hi = hi
            .checked_mul(2)
            .filter(|&h| h < 1 << 54)
            .ok_or_else(|| Error::invalid("fpr", "the filter would need more than 2^63 bits"))?;
    }
    let blocks = smallest(1, hi, ok);
    Ok((blocks, pick(blocks)))
}

/// Estimated number of items in a blocked filter with X of its m = 512·blocks bits set.
///
/// Under the Poisson model a bit is zero with probability `exp(λ·((1 − 1/512)^k − 1))`,
/// λ = n/blocks; solving for n gives `n̂ = blocks·ln(1 − X/m) / ((1 − 1/512)^k − 1)`.
pub fn blocked_estimate_items(bits_set: u64, blocks: u64, k: u32) -> f64 {
    if blocks == 0 || k == 0 {
        return 0.0;
    }
    let m = (blocks * BLOCK_BITS) as f64;
    let per_item = exp(k as f64 * log1p(-1.0 / BLOCK_BITS as f64)) - 1.0;
    blocks as f64 * log1p(-(bits_set as f64 / m)) / per_item
}
