//! The exact false-positive rate of one 512-bit block of a blocked Bloom filter, given its
//! load: the per-block term of [`blocked_fpr`](super::blocked_fpr).

use super::BLOCK_BITS;
use alloc::vec::Vec;
use libm::{exp, log1p};

/// Probes below which a block's rate comes from the occupancy distribution (exact, stable),
/// and from which on the alternating closed form is used (stable there: see [`BlockRate`]).
const DP_PROBES: u32 = 1024;

/// The exact false-positive rate of one 512-bit block that holds j items of k probes each,
/// probes uniform and independent over the block's bits (two may coincide, as in the filter):
///
/// `g(j) = E[(X/512)^k]`, X the number of bits that N = j·k probes set.
///
/// A query is positive when its k probes all land on set bits; given X they do so with
/// probability `(X/512)^k` exactly. The classic per-block form `(1 − (1 − 1/512)^(jk))^k` puts
/// `E[X]` in place of X, and by Jensen's inequality is below the truth: by about 0.9% relative
/// at k = 6 and 10 bits per key, 2.5% at k = 10 (Bose et al., "On the false-positive rate of
/// Bloom filters", IPL 108(4), 2008, make the same point for a whole filter; in a 512-bit block
/// the spread of X is large enough to see).
///
/// Two evaluations, each where it is accurate:
/// * N = j·k < [`DP_PROBES`]: `g(j) = Σ_q P(|Q| = q)·f_q(N)`, Q the distinct bits of the
///   query's k probes and f_q(N) the chance that N probes cover q given bits, each f_q from a
///   Markov chain on the number of those bits covered (positive terms only), read off at every
///   multiple of k. Relative error below 10⁻¹⁴ against 80-digit arithmetic.
/// * N ≥ [`DP_PROBES`]: `g(j) = Σᵢ cᵢ·aᵢʲ` with `aᵢ = (1 − i/512)^k` and
///   `cᵢ = (−1)ⁱ Σ_{q ≥ i} P(|Q| = q)·C(q, i)`, Q the distinct bits of the query's k probes
///   (`P(|Q| = q) = S(k, q)·512_(q)/512^k`, S a Stirling number of the second kind), by
///   inclusion–exclusion over the query's bits left unset. The terms alternate, but at
///   N ≥ 1024 (a mean of at least 2 probes per bit) they fall fast enough that the relative
///   error stays below 10⁻¹² for every k ≤ 32. (Below that the same sum would lose every
///   digit at k ≥ 16, which is why the chain is used there.)
#[derive(Debug, Clone)]
pub(crate) struct BlockRate {
    /// cᵢ and ln aᵢ, i = 0..=k.
    c: Vec<f64>,
    ln_a: Vec<f64>,
    /// g(j) for j·k < DP_PROBES.
    table: Vec<f64>,
}

impl BlockRate {
    /// The rate of a block for k probes per item (k ≥ 1).
    pub(super) fn new(k: u32) -> BlockRate {
        let m = BLOCK_BITS as f64;
        let kk = k as usize;
        // P(|Q| = q) = S(k, q) · Π_{t<q}(1 − t/m) · m^(q−k)
        let mut stirling = alloc::vec![0.0f64; kk + 1];
        stirling[0] = 1.0; // row n = 0
        for n in 1..=kk {
            for q in (1..=n).rev() {
                stirling[q] = q as f64 * stirling[q] + stirling[q - 1];
            }
            stirling[0] = 0.0;
        }
        let mut distinct = alloc::vec![0.0f64; kk + 1];
        let mut falling = 1.0;
        for q in 1..=kk {
            falling *= 1.0 - (q - 1) as f64 / m;
            distinct[q] = stirling[q] * falling * libm::pow(m, q as f64 - kk as f64);
        }
        let mut c = alloc::vec![0.0f64; kk + 1];
        for (i, ci) in c.iter_mut().enumerate() {
            let mut binom = 1.0; // C(q, i), q from i upwards
            let mut sum = 0.0;
            for (q, p_q) in distinct.iter().enumerate().skip(i) {
                if q > i {
                    binom = binom * q as f64 / (q - i) as f64;
                }
                sum += p_q * binom;
            }
            *ci = if i % 2 == 0 { sum } else { -sum };
        }
        let ln_a = (0..=kk)
            .map(|i| k as f64 * log1p(-(i as f64) / m))
            .collect();
        // g(j) = Σ_q P(|Q| = q)·f_q(j·k), f_q(N) the chance that N probes cover q given bits:
        // one chain per q on the number of those bits covered so far (positive terms only)
        let mut cover: Vec<Vec<f64>> = (0..=kk)
            .map(|q| {
                let mut h = alloc::vec![0.0f64; q + 1];
                h[0] = 1.0;
                h
            })
            .collect();
        let mut table = alloc::vec![0.0];
        for n in 1..DP_PROBES {
            for (q, h) in cover.iter_mut().enumerate().skip(1) {
                for c in (1..=q).rev() {
                    h[c] = h[c] * (1.0 - (q - c) as f64 / m) + h[c - 1] * ((q - c + 1) as f64 / m);
                }
                h[0] *= 1.0 - q as f64 / m;
            }
            if n % k == 0 {
                table.push((1..=kk).map(|q| distinct[q] * cover[q][q]).sum());
            }
        }
        BlockRate { c, ln_a, table }
    }
}

impl super::blocked::BlockModel for BlockRate {
    /// g(j): the false-positive rate of a block holding j items.
    fn at(&self, j: f64) -> f64 {
        let idx = j as usize;
        if (idx as f64) == j && idx < self.table.len() {
            return self.table[idx];
        }
        let sum: f64 = self
            .c
            .iter()
            .zip(&self.ln_a)
            .map(|(c, ln_a)| c * exp(j * ln_a))
            .sum();
        sum.clamp(0.0, 1.0)
    }

    /// `E[g(J)]` in closed form for a load J with probability generating function `pgf`:
    /// `Σᵢ cᵢ·G(aᵢ)`.
    fn mixture(&self, pgf: impl Fn(f64) -> f64) -> f64 {
        let sum: f64 = self
            .c
            .iter()
            .zip(&self.ln_a)
            .map(|(c, ln_a)| c * pgf(exp(*ln_a)))
            .sum();
        sum.clamp(0.0, 1.0)
    }
}
