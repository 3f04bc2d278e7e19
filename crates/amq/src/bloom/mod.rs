//! Bloom filters: the classic layout over m bits, the cache-line blocked layout, and the split
//! block layout (one bit per 64-bit lane of a cache line).
//!
//! Both hash an item once to 128 bits (XXH3-128 with the filter's seed, see
//! [`hash`](crate::hash)); neither stores the items, so neither supports deletion.

/// What a Bloom table's set bits say, from one pass over the table (each kind's `fill`, the
/// one place of its formulas, behind its `fill_ratio`, `estimated_items`, `estimated_fpr`
/// and `info`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Fill {
    /// X/m, the fraction of bits set.
    pub fill_ratio: f64,
    /// Distinct items estimated from X.
    pub estimated_items: f64,
    /// The false-positive rate at this fill.
    pub estimated_fpr: f64,
}

/// Evaluates `$body` with `$K` a `u32` constant equal to `$k` for k in 1..=16, so the probe
/// loops unroll and their salts become immediates, and `$K = 0` (meaning "read k at run time")
/// beyond. A loop over a run-time k costs about twice as much per query.
macro_rules! with_const_k {
    ($k:expr, $K:ident => $body:expr) => {
        match $k {
            1 => {
                const $K: u32 = 1;
                $body
            }
            2 => {
                const $K: u32 = 2;
                $body
            }
            3 => {
                const $K: u32 = 3;
                $body
            }
            4 => {
                const $K: u32 = 4;
                $body
            }
            5 => {
                const $K: u32 = 5;
                $body
            }
            6 => {
                const $K: u32 = 6;
                $body
            }
            7 => {
                const $K: u32 = 7;
                $body
            }
            8 => {
                const $K: u32 = 8;
                $body
            }
            9 => {
                const $K: u32 = 9;
                $body
            }
            10 => {
                const $K: u32 = 10;
                $body
            }
            11 => {
                const $K: u32 = 11;
                $body
            }
            12 => {
                const $K: u32 = 12;
                $body
            }
            13 => {
                const $K: u32 = 13;
                $body
            }
            14 => {
                const $K: u32 = 14;
                $body
            }
            15 => {
                const $K: u32 = 15;
                $body
            }
            16 => {
                const $K: u32 = 16;
                $body
            }
            _ => {
                const $K: u32 = 0;
                $body
            }
        }
    };
}

/// k as a constant when `K` is one, else the run-time `k`.
#[inline(always)]
pub(crate) fn const_k<const K: u32>(k: u32) -> u32 {
    if K == 0 {
        k
    } else {
        K
    }
}

mod blocked;
pub(crate) mod classic;
pub(crate) mod split_block;

pub use blocked::BlockedBloomFilter;
pub use classic::BloomFilter;
pub use split_block::{Kernel as SplitBlockKernel, SplitBlockBloomFilter};
