//! The blocked Bloom filter's model: its false-positive rate under Poisson and binomial block
//! loads, the best k, the size for a target ε, and the estimate of n from the fill.

use super::block_rate::BlockRate;
use super::{check_k, check_n_fpr, optimal_k, optimal_m, smallest, BLOCK_BITS};
use crate::error::Result;
use alloc::vec::Vec;
use libm::{exp, expm1, floor, log1p, sqrt};

/// False-positive rate of a block holding j items, k probes each, when probes may land on any
/// of the block's 512 bits: `E[(X/512)^k]`, X the bits set ([`BlockRate`]).
#[cfg(test)]
pub(super) fn block_fpr_given_load(j: f64, k: u32) -> f64 {
    BlockRate::new(k).at(j)
}

/// The [`BlockRate`] of each k, built when first asked for: a size search evaluates the model
/// at many loads for the same few k.
pub(super) struct Rates(Vec<Option<BlockRate>>);

impl Rates {
    pub(super) fn new() -> Rates {
        Rates(Vec::new())
    }

    /// The rate of a block for k probes per item.
    pub(super) fn get(&mut self, k: u32) -> &BlockRate {
        let i = k as usize;
        if self.0.len() <= i {
            self.0.resize_with(i + 1, || None);
        }
        self.0[i].get_or_insert_with(|| BlockRate::new(k))
    }
}

/// Above this mean block load the mixture is summed in closed form (k + 1 terms).
const CLOSED_FORM_LOAD: f64 = 4096.0;

/// The false-positive rate of one block as a function of its load, for the layouts whose
/// rate has the form `g(j) = Σᵢ cᵢ·aᵢʲ` (the blocked filter's [`BlockRate`], the split block
/// layouts' `(1 − (1 − 1/lane)^j)^8`): what the load mixtures below need.
pub(super) trait BlockModel {
    /// g(j), the rate of a block holding j items (at most 1, rising with j).
    fn at(&self, j: f64) -> f64;
    /// `E[g(J)] = Σᵢ cᵢ·G(aᵢ)` for a load J with probability generating function `pgf`.
    fn mixture(&self, pgf: impl Fn(f64) -> f64) -> f64;
}

/// `E[g(J)]` for Poisson block loads of mean λ = n/blocks: the outward sum up to λ = 4,096,
/// the closed form above.
pub(super) fn poisson_fpr(model: &impl BlockModel, n: u64, blocks: u64) -> f64 {
    if blocks == 0 {
        return 1.0;
    }
    let lambda = n as f64 / blocks as f64;
    if lambda == 0.0 {
        return 0.0;
    }
    if lambda > CLOSED_FORM_LOAD {
        return model.mixture(|z| exp(lambda * (z - 1.0)));
    }
    load_mixture(
        lambda,
        f64::INFINITY,
        |j| model.at(j),
        |j| lambda / (j + 1.0),
        |j| j / lambda,
    )
}

/// `E[g(J)]` for Binomial(n, 1/blocks) block loads, bounded as [`poisson_fpr`] (the closed
/// form uses the generating function `(1 − p + p·z)^n`).
pub(super) fn binomial_fpr(model: &impl BlockModel, n: u64, blocks: u64) -> f64 {
    if blocks == 0 {
        return 1.0;
    }
    let nf = n as f64;
    if blocks == 1 {
        return model.at(nf);
    }
    let p = 1.0 / blocks as f64;
    if nf * p > CLOSED_FORM_LOAD {
        return model.mixture(|z| exp(nf * log1p(-p * (1.0 - z))));
    }
    let odds = p / (1.0 - p);
    load_mixture(
        nf * p,
        nf,
        |j| model.at(j),
        |j| (nf - j) / (j + 1.0) * odds,
        |j| j / (nf - j + 1.0) / odds,
    )
}

/// `E[g(J)]` for a block load J, g the [`block_fpr_given_load`], with the load's probabilities
/// taken relative to the mode's (`up(j) = P(j+1)/P(j)`, `down(j) = P(j−1)/P(j)`) and the sum
/// divided by their total: no factorial is evaluated, so no precision is lost to one.
///
/// g rises with j and is at most 1, and the weights fall geometrically away from the mode, so
/// each side stops once the weight it leaves out, bounded by a geometric series, is below
/// 2⁻⁵³ of the sums so far (the result is then within a few units of rounding, relatively, of
/// the full sum), and after at most 64 + 16·√mean terms in any case (2,176 terms in all at the
/// largest mean summed this way).
pub(super) fn load_mixture(
    mean: f64,
    max_load: f64,
    g: impl Fn(f64) -> f64,
    up: impl Fn(f64) -> f64,
    down: impl Fn(f64) -> f64,
) -> f64 {
    let mode = floor(mean).min(max_load);
    let cap = 64.0 + 16.0 * sqrt(mean);
    let tiny = f64::EPSILON / 2.0;
    let (mut hits, mut total) = (0.0, 0.0);
    let (mut j, mut w) = (mode, 1.0);
    while j <= mode + cap {
        hits += w * g(j);
        total += w;
        let (next, r) = (w * up(j), up(j + 1.0));
        if j >= max_load || (r < 1.0 && next / (1.0 - r) <= tiny * hits) {
            break;
        }
        (j, w) = (j + 1.0, next);
    }
    let (mut j, mut w, mut gj) = (mode, 1.0, g(mode));
    while j >= 1.0 && j >= mode - cap {
        let (prev, r) = (w * down(j), down(j - 1.0));
        let left = prev / (1.0 - r);
        if r < 1.0 && gj * left <= tiny * hits && left <= tiny * total {
            break;
        }
        (j, w, gj) = (j - 1.0, prev, g(j - 1.0));
        hits += w * gj;
        total += w;
    }
    if total > 0.0 {
        (hits / total).min(1.0)
    } else {
        0.0
    }
}

/// False-positive rate of a blocked Bloom filter: n items in `blocks` blocks of 512 bits,
/// k probes inside one block per item.
///
/// The block loads are Poisson with mean λ = n/blocks, and a query hits a block holding j
/// other items with probability `g(j) = E[(X/512)^k]`, X the number of the block's bits that
/// their j·k probes set (the exact per-block rate of `math/block_rate.rs`), so
/// `ε = Σⱼ e^(−λ)·λʲ/j! · g(j)`.
/// (Putze, Sanders and Singler, "Cache-, Hash- and Space-Efficient Bloom Filters", WEA 2007,
/// §3, whose per-block term is `(1 − (1 − 1/512)^(j·k))^k`: that puts E\[X\] in place of X
/// and, by Jensen's inequality, is optimistic: by 0.9% of ε at k = 6 and 2.1% at k = 10 for a
/// 1% filter. With k = 10, 10^6 items and 10^7 non-members, the filter measured 0.9995%, this
/// model says 0.9998% and that one 0.9796%, 6σ below: crates/amq/tests/fpr_model.rs.)
/// Because loads vary, this is well above the classic rate at the same bits per key: at 11.5
/// bits per key and k = 8 the classic formula says 0.39% and this model 0.514%.
///
/// Bounded time and stated error for every input: for λ ≤ 4,096 the sum runs outward from the
/// mode and leaves out loads weighing less than 2⁻⁵³ of the result (at most 2,176 terms);
/// above, it is the closed form `Σᵢ cᵢ·e^(−λ·(1 − aᵢ))`, aᵢ = (1 − i/512)^k (k + 1 terms,
/// absolute error below 1e-12 on a result above 0.99).
///
/// k = 0 gives 1 (a query tests no bit); a k above [`BLOCK_MAX_K`](crate::hash::BLOCK_MAX_K),
/// which no blocked filter has, gives NaN (the block rate's table costs O(k²)).
///
/// # Example
/// ```
/// let blocks = 1_000_000 * 23 / 2 / 512; // 11.5 bits per key
/// let eps = amq::math::blocked_fpr(1_000_000, blocks, 8);
/// assert!(eps > 0.0051 && eps < 0.0052);
/// assert_eq!(amq::math::blocked_fpr(1_000_000, blocks, 0), 1.0);
/// assert!(amq::math::blocked_fpr(1_000_000, blocks, 33).is_nan());
/// ```
pub fn blocked_fpr(n: u64, blocks: u64, k: u32) -> f64 {
    outside_k(k).unwrap_or_else(|| poisson_fpr(&BlockRate::new(k), n, blocks))
}

/// ε for a k outside `1..=BLOCK_MAX_K`: 1 for k = 0, NaN above.
fn outside_k(k: u32) -> Option<f64> {
    match k {
        0 => Some(1.0),
        k if k > crate::hash::BLOCK_MAX_K => Some(f64::NAN),
        _ => None,
    }
}

/// [`blocked_fpr`] with the exact block-load distribution: loads are Binomial(n, 1/blocks)
/// instead of Poisson(n/blocks), so `ε = Σⱼ C(n, j)·pʲ·(1 − p)^(n−j) · g(j)` with p = 1/blocks
/// and g the block rate of [`blocked_fpr`].
///
/// The two agree closely once there are more than a few blocks; this is the blocked filter's
/// counterpart of [`fpr_exact`](super::fpr_exact). Bounded time and error as [`blocked_fpr`]
/// (the closed form uses the binomial's generating function `(1 − p + p·z)^n`), and the same
/// answers for a k outside `1..=BLOCK_MAX_K`.
pub fn blocked_fpr_exact(n: u64, blocks: u64, k: u32) -> f64 {
    outside_k(k).unwrap_or_else(|| binomial_fpr(&BlockRate::new(k), n, blocks))
}

/// The k in `1..=max_k` that minimises [`blocked_fpr`] for n items in `blocks` blocks
/// (`max_k` taken as at least 1 and at most [`BLOCK_MAX_K`](crate::hash::BLOCK_MAX_K)).
///
/// ε is unimodal in k, so the search starts at the classic optimum `(m/n)·ln 2` and walks
/// downhill one k at a time: a few evaluations instead of `max_k` (the tests check it against
/// the exhaustive scan).
pub fn blocked_best_k(n: u64, blocks: u64, max_k: u32) -> u32 {
    best_k_with(&mut Rates::new(), n, blocks, max_k)
}

/// [`blocked_best_k`] reusing (and filling) `rates`.
fn best_k_with(rates: &mut Rates, n: u64, blocks: u64, max_k: u32) -> u32 {
    let max_k = max_k.clamp(1, crate::hash::BLOCK_MAX_K);
    let start = optimal_k(n, blocks.saturating_mul(BLOCK_BITS));
    let start = if start.is_finite() {
        (libm::round(start).max(1.0) as u32).min(max_k)
    } else {
        1 // no items: every k gives ε = 0
    };
    let mut e = |k: u32| poisson_fpr(rates.get(k), n, blocks);
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
    let rates = core::cell::RefCell::new(Rates::new());
    let pick =
        |b: u64| k.unwrap_or_else(|| best_k_with(&mut rates.borrow_mut(), n, b, max_k.min(24)));
    let ok = |b: u64| {
        let k = pick(b);
        poisson_fpr(rates.borrow_mut().get(k), n, b) <= target
    };
    let start = ((optimal_m(n, target) / BLOCK_BITS as f64) as u64).saturating_add(1);
    let hi = super::double_until(start, (1 << 54) - 1, ok, || super::too_many(n, target))?;
    let blocks = smallest(1, hi, ok);
    Ok((blocks, pick(blocks)))
}

/// The probability that a given bit of a blocked filter is still zero after n items: under
/// the Poisson model of block loads (λ = n/blocks), `exp(λ·((1 − 1/512)^k − 1))`, the figure
/// [`blocked_estimate_items`] inverts. Above the classic `(1 − 1/m)^(kn)`: items crowd into
/// some blocks and leave others emptier.
///
/// # Example
/// ```
/// use amq::math::{bit_zero_probability, blocked_bit_zero_probability};
/// let (n, blocks, k) = (20_000, 388, 6);
/// let p = blocked_bit_zero_probability(n, blocks, k);
/// assert!((p - 0.548199).abs() < 1e-6);
/// assert!(p > bit_zero_probability(n, blocks * 512, k)); // 0.546588
/// ```
pub fn blocked_bit_zero_probability(n: u64, blocks: u64, k: u32) -> f64 {
    if blocks == 0 {
        return 0.0;
    }
    let per_item = expm1(k as f64 * log1p(-1.0 / BLOCK_BITS as f64));
    exp(n as f64 / blocks as f64 * per_item)
}

/// Estimated number of items in a blocked filter with X of its m = 512·blocks bits set.
///
/// Under the Poisson model a bit is zero with probability `exp(λ·((1 − 1/512)^k − 1))`,
/// λ = n/blocks; solving for n gives `n̂ = blocks·ln(1 − X/m) / ((1 − 1/512)^k − 1)`.
pub fn blocked_estimate_items(bits_set: u64, blocks: u64, k: u32) -> f64 {
    if blocks == 0 || k == 0 {
        return 0.0;
    }
    let m = blocks as f64 * BLOCK_BITS as f64;
    let per_item = exp(k as f64 * log1p(-1.0 / BLOCK_BITS as f64)) - 1.0;
    blocks as f64 * log1p(-(bits_set as f64 / m)) / per_item
}
