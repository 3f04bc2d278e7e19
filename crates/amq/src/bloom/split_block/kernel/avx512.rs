//! AVX-512F: a [`Block512`]'s eight lane masks in one 512-bit register, tested with one
//! `vptestmq`; Parquet's 256-bit blocks run the AVX2 code.

use super::avx2::{has256, set256};
use super::{block_index, prefetch, Block256, Block512, AHEAD, CHUNK, SALT};
use core::arch::x86_64::{
    __m512i, _mm512_load_epi64, _mm512_mullo_epi32, _mm512_or_si512, _mm512_set1_epi32,
    _mm512_set1_epi64, _mm512_setr_epi32, _mm512_sllv_epi64, _mm512_srli_epi32, _mm512_store_epi64,
    _mm512_test_epi64_mask,
};

/// The eight 64-bit lane masks: `vpmulld` against the salts in the even 32-bit lanes and
/// 0 in the odd ones gives each 64-bit lane `h32 · SALTᵢ mod 2³²` with a zero high half,
/// so one `vpsrld` leaves exactly the six-bit shift for `vpsllvq`.
#[target_feature(enable = "avx2,avx512f")]
#[inline]
fn mask512(h32: u32) -> __m512i {
    let s = SALT.map(|s| s as i32);
    let salt = _mm512_setr_epi32(
        s[0], 0, s[1], 0, s[2], 0, s[3], 0, s[4], 0, s[5], 0, s[6], 0, s[7], 0,
    );
    let shift = _mm512_srli_epi32::<26>(_mm512_mullo_epi32(_mm512_set1_epi32(h32 as i32), salt));
    _mm512_sllv_epi64(_mm512_set1_epi64(1), shift)
}

#[target_feature(enable = "avx2,avx512f")]
#[inline]
fn load(b: &Block512) -> __m512i {
    // SAFETY: `b` is a reference to a `Block512`, `repr(C, align(64))` over `[u64; 8]`:
    // the aligned 512-bit load reads exactly its 64 initialised bytes.
    unsafe { _mm512_load_epi64(b.0.as_ptr().cast::<i64>()) }
}

#[target_feature(enable = "avx2,avx512f")]
#[inline]
fn store(b: &mut Block512, v: __m512i) {
    // SAFETY: as in `load`; `b` is borrowed mutably, so nothing else reads it, and any
    // bytes written are valid `u64` lanes.
    unsafe { _mm512_store_epi64(b.0.as_mut_ptr().cast::<i64>(), v) }
}

/// `true` if every lane of `b` has its bit of `m` (`vptestmq` sets a mask bit per lane
/// where `b & m` is not zero).
#[target_feature(enable = "avx2,avx512f")]
#[inline]
fn covers(b: __m512i, m: __m512i) -> bool {
    _mm512_test_epi64_mask(b, m) == 0xff
}

#[target_feature(enable = "avx2,avx512f")]
#[inline]
pub(super) fn has512(b: &Block512, h32: u32) -> bool {
    covers(load(b), mask512(h32))
}

#[target_feature(enable = "avx2,avx512f")]
#[inline]
pub(super) fn set512(b: &mut Block512, h32: u32) -> bool {
    let (v, m) = (load(b), mask512(h32));
    let had = covers(v, m);
    store(b, _mm512_or_si512(v, m));
    !had
}

loops!(#[target_feature(enable = "avx2,avx512f")] #[inline]);
