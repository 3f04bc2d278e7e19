//! Plain Rust: eight multiplies and shifts per block, for any target.

use super::{block_index, prefetch, Block256, Block512, AHEAD, CHUNK, SALT};
use core::ops::{BitAnd, BitOr, BitOrAssign, Not};

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

/// A block's lane word: u32 (Parquet's 256-bit blocks) or u64 (512-bit blocks).
trait Lane:
    Copy
    + Default
    + PartialEq
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitOrAssign
    + Not<Output = Self>
{
}
impl Lane for u32 {}
impl Lane for u64 {}

/// `true` if every lane has its bit of `m`.
#[inline(always)]
fn covers<T: Lane>(lanes: &[T; 8], m: [T; 8]) -> bool {
    (0..8).fold(T::default(), |miss, i| miss | (m[i] & !lanes[i])) == T::default()
}

/// Sets each lane's bit of `m`; `true` if any was zero before.
#[inline(always)]
fn cover<T: Lane>(lanes: &mut [T; 8], m: [T; 8]) -> bool {
    let mut new = T::default();
    for (lane, m) in lanes.iter_mut().zip(m) {
        new |= m & !*lane;
        *lane |= m;
    }
    new != T::default()
}

#[inline(always)]
pub(crate) fn has256(b: &Block256, h32: u32) -> bool {
    covers(&b.0, mask256(h32))
}

#[inline(always)]
pub(crate) fn set256(b: &mut Block256, h32: u32) -> bool {
    cover(&mut b.0, mask256(h32))
}

#[inline(always)]
pub(crate) fn has512(b: &Block512, h32: u32) -> bool {
    covers(&b.0, mask512(h32))
}

#[inline(always)]
pub(crate) fn set512(b: &mut Block512, h32: u32) -> bool {
    cover(&mut b.0, mask512(h32))
}

// Out of line where a SIMD kernel may run instead, so that the dispatch stays small enough
// to inline into the caller's loop (the single query and insert of the SIMD kernels inline
// there as assembly, `single`; their batches are calls); inline elsewhere.
loops!(
    #[cfg_attr(target_arch = "x86_64", inline(never))]
    #[cfg_attr(not(target_arch = "x86_64"), inline)]
);
