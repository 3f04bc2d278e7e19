//! Plain Rust: eight multiplies and shifts per block, for any target.

use super::{block_index, prefetch, Block256, Block512, AHEAD, CHUNK, SALT};

/// Lane i's bit: `1 << ((h32 · SALTᵢ) >> 27)`.
#[inline(always)]
fn mask256(h32: u32) -> [u32; 8] {
    core::array::from_fn(|i| 1u32 << (h32.wrapping_mul(SALT[i]) >> 27))
}

/// Lane i's bit: `1 << ((h32 · SALTᵢ) >> 26)`.
#[inline(always)]
fn mask512(h32: u32) -> [u64; 8] {
    core::array::from_fn(|i| 1u64 << (h32.wrapping_mul(SALT[i]) >> 26))
}

#[inline(always)]
pub(crate) fn has256(b: &Block256, h32: u32) -> bool {
    let m = mask256(h32);
    (0..8).fold(0, |miss, i| miss | (m[i] & !b.0[i])) == 0
}

#[inline(always)]
pub(crate) fn set256(b: &mut Block256, h32: u32) -> bool {
    let m = mask256(h32);
    let mut new = 0;
    for (lane, m) in b.0.iter_mut().zip(m) {
        new |= m & !*lane;
        *lane |= m;
    }
    new != 0
}

#[inline(always)]
pub(crate) fn has512(b: &Block512, h32: u32) -> bool {
    let m = mask512(h32);
    (0..8).fold(0, |miss, i| miss | (m[i] & !b.0[i])) == 0
}

#[inline(always)]
pub(crate) fn set512(b: &mut Block512, h32: u32) -> bool {
    let m = mask512(h32);
    let mut new = 0;
    for (lane, m) in b.0.iter_mut().zip(m) {
        new |= m & !*lane;
        *lane |= m;
    }
    new != 0
}

// Out of line where a SIMD kernel may run instead, so that the three-way dispatch stays
// small enough to inline into the caller's loop (as the SIMD functions cannot, their
// target features being the caller's only at run time); inline elsewhere.
loops!(
    #[cfg_attr(target_arch = "x86_64", inline(never))]
    #[cfg_attr(not(target_arch = "x86_64"), inline)]
);
