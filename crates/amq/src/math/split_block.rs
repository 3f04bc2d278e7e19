//! The split block Bloom filter's model: eight 64-bit lanes per 512-bit block, one bit set in
//! each lane per item. Its false-positive rate under Poisson and binomial block loads, the
//! size for a target ε, and the estimate of n from the fill.
//!
//! A query whose block holds j items finds its bit in a lane set with probability
//! `1 − (63/64)^j` (each item set one of the lane's 64 bits), in all eight lanes with
//! `g(j) = (1 − (63/64)^j)^8`; averaging g over the block load J gives ε.

use super::blocked::{binomial_fpr, poisson_fpr, BlockModel};
use super::{check_n_fpr, optimal_m, smallest, Plan, PlanDetails, Target, BLOCK_BITS};
use crate::error::{Error, Result};
use libm::{exp, expm1, log1p};

/// k of a split block filter: one bit in each of its eight lanes.
pub const SPLIT_BLOCK_K: u32 = 8;

/// The most blocks a split block filter has: the block index is `((h >> 32) · blocks) >> 32`,
/// so blocks < 2³² (2⁴¹ bits, 256 GiB).
pub const SPLIT_BLOCK_MAX_BLOCKS: u64 = (1 << 32) - 1;

/// Bits per lane.
const LANE_BITS: f64 = 64.0;

/// The rate of a split block whose lanes hold `lane_bits` bits, one bit set in each of its
/// eight lanes per item: a query whose block holds j items finds its bit in a lane set with
/// probability `1 − q^j`, q = 1 − 1/lane_bits, so `g(j) = (1 − q^j)^8`, which expands to
/// `Σᵢ C(8, i)·(−1)ⁱ·(qⁱ)ʲ` (the closed form above a mean load of 4,096, where every term
/// after the first is below 8·e⁻⁶⁴).
struct LaneRate {
    /// ln q.
    ln_q: f64,
}

impl LaneRate {
    fn new(lane_bits: f64) -> LaneRate {
        LaneRate {
            ln_q: log1p(-1.0 / lane_bits),
        }
    }
}

impl BlockModel for LaneRate {
    fn at(&self, j: f64) -> f64 {
        let lane = -expm1(j * self.ln_q);
        let two = lane * lane;
        let four = two * two;
        four * four
    }

    fn mixture(&self, pgf: impl Fn(f64) -> f64) -> f64 {
        let q = exp(self.ln_q);
        let (mut sum, mut binom, mut qi) = (0.0, 1.0, 1.0);
        for i in 0..=SPLIT_BLOCK_K {
            let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
            sum += sign * binom * pgf(qi);
            binom = binom * f64::from(SPLIT_BLOCK_K - i) / f64::from(i + 1);
            qi *= q;
        }
        sum.clamp(0.0, 1.0)
    }
}

/// The false-positive rate of a split block layout of eight `lane_bits`-bit lanes (32 for
/// Parquet's, 64 for [`SplitBlockBloomFilter`](crate::SplitBlockBloomFilter)) under Poisson
/// block loads: [`split_block_fpr`] with another lane width.
#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
pub(crate) fn lanes_fpr(n: u64, blocks: u64, lane_bits: u32) -> f64 {
    poisson_fpr(&LaneRate::new(f64::from(lane_bits)), n, blocks)
}

/// False-positive rate of a split block Bloom filter: n items in `blocks` blocks of eight
/// 64-bit lanes, each item setting one bit in every lane of one block.
///
/// Block loads are Poisson with mean λ = n/blocks, and a query whose block holds j items
/// finds all eight of its bits set with probability `(1 − (1 − 1/64)^j)^8`, so
/// `ε = Σⱼ e^(−λ)·λʲ/j! · (1 − (1 − 1/64)^j)^8` (the split block layout of the Parquet
/// specification, <https://github.com/apache/parquet-format/blob/master/BloomFilter.md>, with
/// 64-bit lanes; the load model of Putze, Sanders and Singler, "Cache-, Hash- and
/// Space-Efficient Bloom Filters", WEA 2007). At 12 bits per key it is 0.422% (Parquet's
/// 32-bit lanes: 0.542%).
///
/// Bounded time and error at any n: up to λ = 4,096 the sum runs outward from the mode and
/// leaves out loads weighing less than 2⁻⁵³ of the result (at most 2,176 terms); above, it is
/// the closed form `Σᵢ C(8, i)·(−1)ⁱ·e^(−λ·(1 − (63/64)ⁱ))` (nine terms, a result of 1 to
/// within rounding).
///
/// # Example
/// ```
/// let blocks = 1_000_000 * 12 / 512; // 12 bits per key
/// let eps = amq::math::split_block_fpr(1_000_000, blocks);
/// assert!((eps - 0.004222).abs() < 1e-6);
/// ```
pub fn split_block_fpr(n: u64, blocks: u64) -> f64 {
    poisson_fpr(&LaneRate::new(LANE_BITS), n, blocks)
}

/// [`split_block_fpr`] with the exact block loads: Binomial(n, 1/blocks) instead of Poisson,
/// `ε = Σⱼ C(n, j)·pʲ·(1 − p)^(n−j) · (1 − (1 − 1/64)^j)^8`, p = 1/blocks. The two agree
/// closely once there are more than a few blocks; bounded time and error as
/// [`split_block_fpr`] (the closed form uses the generating function `(1 − p + p·z)^n`).
pub fn split_block_fpr_exact(n: u64, blocks: u64) -> f64 {
    binomial_fpr(&LaneRate::new(LANE_BITS), n, blocks)
}

/// The fewest 512-bit blocks whose [`split_block_fpr`] for n items is at most `target`.
///
/// # Errors
/// [`Error::InvalidParameter`] if n is 0, ε is not in (0, 1), or the filter would need more
/// than [`SPLIT_BLOCK_MAX_BLOCKS`] blocks.
///
/// # Example
/// ```
/// use amq::math::{split_block_fpr, split_block_size};
/// let blocks = split_block_size(1_000_000, 0.01).unwrap();
/// assert!(split_block_fpr(1_000_000, blocks) <= 0.01);
/// assert!(split_block_fpr(1_000_000, blocks - 1) > 0.01);
/// ```
pub fn split_block_size(n: u64, target: f64) -> Result<u64> {
    check_n_fpr(n, target)?;
    let ok = |b: u64| split_block_fpr(n, b) <= target;
    let too_big = || {
        Error::invalid(
            "fpr",
            alloc::format!(
                "a split block filter has at most {SPLIT_BLOCK_MAX_BLOCKS} blocks (2^41 bits)"
            ),
        )
    };
    // the classic optimum is a lower bound; blocking costs a few bits per key more
    let mut hi = ((optimal_m(n, target) / BLOCK_BITS as f64) as u64)
        .saturating_add(1)
        .min(SPLIT_BLOCK_MAX_BLOCKS);
    while !ok(hi) {
        if hi == SPLIT_BLOCK_MAX_BLOCKS {
            return Err(too_big());
        }
        hi = hi.saturating_mul(2).min(SPLIT_BLOCK_MAX_BLOCKS);
    }
    Ok(smallest(1, hi, ok))
}

/// Estimated number of items in a split block filter with X of its m = 512·blocks bits set.
///
/// Under the Poisson model a bit is zero with probability `e^(−λ/64)`, λ = n/blocks; solving
/// for n gives `n̂ = −64·blocks·ln(1 − X/m)` (infinity for a full filter).
pub fn split_block_estimate_items(bits_set: u64, blocks: u64) -> f64 {
    if blocks == 0 {
        return 0.0;
    }
    let m = blocks as f64 * BLOCK_BITS as f64;
    -LANE_BITS * blocks as f64 * log1p(-(bits_set as f64 / m))
}

/// The planner's arm for a split block filter: the fewest blocks meeting ε, or the blocks of
/// m bits (rounded up) or of a memory budget (rounded down).
pub(super) fn plan(n: u64, target: Target) -> Result<Plan> {
    if n == 0 {
        return Err(Error::invalid(
            "n",
            "the number of items must be at least 1",
        ));
    }
    let blocks = match target {
        Target::Fpr(e) => split_block_size(n, e)?,
        Target::Bits(m) => m.div_ceil(BLOCK_BITS),
        Target::Memory(bytes) => bytes / (BLOCK_BITS / 8),
    };
    if blocks == 0 {
        return Err(Error::invalid(
            "m",
            "a split block filter needs at least one 64-byte block",
        ));
    }
    if blocks > SPLIT_BLOCK_MAX_BLOCKS {
        return Err(Error::invalid(
            "m",
            alloc::format!("a split block filter has at most {SPLIT_BLOCK_MAX_BLOCKS} blocks"),
        ));
    }
    let m_bits = blocks * BLOCK_BITS;
    Ok(Plan {
        details: PlanDetails::SplitBlockBloom {
            blocks,
            items_per_block: n as f64 / blocks as f64,
        },
        items: n,
        m_bits,
        k: SPLIT_BLOCK_K,
        bytes: m_bits / 8,
        bits_per_key: m_bits as f64 / n as f64,
        fpr: split_block_fpr(n, blocks),
        fpr_exact: split_block_fpr_exact(n, blocks),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (n, blocks, Poisson ε, binomial ε): mpmath at 60 digits, from the closed forms
    /// `Σᵢ C(8,i)(−1)ⁱ e^(−λ(1−(63/64)ⁱ))` and `Σᵢ C(8,i)(−1)ⁱ (1 − p(1−(63/64)ⁱ))ⁿ`.
    const REFERENCE: [(u64, u64, f64, f64); 10] = [
        (1, 1000, 3.9792585417699195e-18, 3.552713678800501e-18),
        (1, 2, 8.745478305182643e-13, 1.7763568394002505e-15),
        (1, 1, 1.1421821037726178e-11, 3.552713678800501e-15),
        (10, 1, 1.077968552911473e-06, 2.031863849125747e-07),
        (128, 3, 0.004222491031148122, 0.0039008438137294738),
        (517, 10, 0.01099297217355506, 0.010818338453401435),
        (100, 1, 0.1595929332761295, 0.15631597901660987),
        (1000, 1, 0.9999986900992538, 0.9999988421155096),
        (1000000, 23438, 0.0042220278802866966, 0.004221986177819854),
        (
            1000000000000,
            1 << 31,
            0.9944791782943492,
            0.9944791782944942,
        ),
    ];

    #[test]
    fn matches_the_high_precision_reference() {
        for (n, blocks, poisson, binomial) in REFERENCE {
            let (a, b) = (split_block_fpr(n, blocks), split_block_fpr_exact(n, blocks));
            assert!(
                (a / poisson - 1.0).abs() < 1e-11,
                "{n} {blocks}: {a} vs {poisson}"
            );
            assert!(
                (b / binomial - 1.0).abs() < 1e-11,
                "{n} {blocks}: {b} vs {binomial}"
            );
        }
        assert_eq!(split_block_fpr(5000, 1), 1.0);
        assert_eq!(split_block_fpr(0, 1), 0.0);
        assert_eq!(split_block_fpr(1, 0), 1.0);
    }

    /// The figures of issue 14: 12 and 9.896 bits per key.
    #[test]
    fn issue_figures() {
        let at = |bits_per_key: f64| {
            split_block_fpr(1 << 30, ((1u64 << 30) as f64 * bits_per_key / 512.0) as u64)
        };
        assert!((at(12.0) - 0.004_22).abs() < 5e-6, "{}", at(12.0));
        assert!((at(9.896) - 0.011_03).abs() < 5e-6, "{}", at(9.896));
    }

    /// Any n, however large against the blocks, in bounded time, monotone in the load.
    #[test]
    fn bounded_and_monotone_everywhere() {
        let mut last = 0.0;
        for n in [
            1u64,
            10,
            100,
            1_000,
            10_000,
            100_000,
            1 << 30,
            1 << 40,
            u64::MAX,
        ] {
            let e = split_block_fpr(n, 1000);
            let x = split_block_fpr_exact(n, 1000);
            assert!((0.0..=1.0).contains(&e) && (0.0..=1.0).contains(&x), "{n}");
            assert!(e >= last, "{n}");
            last = e;
        }
    }

    #[test]
    fn size_is_minimal_and_bounded() {
        for (n, e) in [
            (1u64, 0.5),
            (1000, 0.01),
            (1_000_000, 0.01),
            (10_000_000, 0.001),
        ] {
            let b = split_block_size(n, e).unwrap();
            assert!(split_block_fpr(n, b) <= e);
            assert!(b == 1 || split_block_fpr(n, b - 1) > e);
        }
        assert!(split_block_size(1 << 40, 1e-9).is_err());
        assert!(split_block_size(0, 0.01).is_err());
        assert!(split_block_size(10, 1.0).is_err());
    }

    #[test]
    fn estimate_inverts_the_expectation() {
        let (n, blocks) = (100_000u64, 2000u64);
        let zero = exp(-(n as f64) / blocks as f64 / 64.0);
        let x = ((blocks * 512) as f64 * (1.0 - zero)) as u64;
        let est = split_block_estimate_items(x, blocks);
        assert!((est / n as f64 - 1.0).abs() < 1e-3, "{est}");
    }
}
