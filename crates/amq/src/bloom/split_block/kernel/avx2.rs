//! AVX2: the eight lane masks in one or two 256-bit registers, tested with `vptest`.

use super::{block_index, prefetch, Block256, Block512, AHEAD, CHUNK, SALT};
use core::arch::x86_64::{
    __m256i, _mm256_andnot_si256, _mm256_load_si256, _mm256_mullo_epi32, _mm256_or_si256,
    _mm256_set1_epi32, _mm256_set1_epi64x, _mm256_setr_epi32, _mm256_sllv_epi32, _mm256_sllv_epi64,
    _mm256_srli_epi32, _mm256_store_si256, _mm256_testc_si256, _mm256_testz_si256,
};

/// The eight 32-bit lane masks of Parquet's block: `vpmulld`, `vpsrld`, `vpsllvd`.
#[target_feature(enable = "avx2")]
#[inline]
fn mask256(h32: u32) -> __m256i {
    let s = SALT.map(|s| s as i32);
    let salt = _mm256_setr_epi32(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]);
    let product = _mm256_mullo_epi32(_mm256_set1_epi32(h32 as i32), salt);
    _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32::<27>(product))
}

/// The eight 64-bit lane masks, lanes 0–3 and 4–7: `vpmulld` against the salts in the
/// even 32-bit lanes and 0 in the odd ones gives each 64-bit lane `h32 · SALTᵢ mod 2³²`
/// with a zero high half, so one `vpsrld` leaves exactly the six-bit shift for `vpsllvq`.
#[target_feature(enable = "avx2")]
#[inline]
fn mask512(h32: u32) -> (__m256i, __m256i) {
    let s = SALT.map(|s| s as i32);
    let h = _mm256_set1_epi32(h32 as i32);
    let one = _mm256_set1_epi64x(1);
    let bit = |salt: __m256i| {
        let shift = _mm256_srli_epi32::<26>(_mm256_mullo_epi32(h, salt));
        _mm256_sllv_epi64(one, shift)
    };
    (
        bit(_mm256_setr_epi32(s[0], 0, s[1], 0, s[2], 0, s[3], 0)),
        bit(_mm256_setr_epi32(s[4], 0, s[5], 0, s[6], 0, s[7], 0)),
    )
}

#[target_feature(enable = "avx2")]
#[inline]
fn load(lanes: &[u8; 32]) -> __m256i {
    // SAFETY: `lanes` is a reference to 32 bytes, aligned to 32 (every caller passes a
    // part of a `Block256` or `Block512`, which are `align(32)` and `align(64)` with
    // 32-byte halves): the aligned 256-bit load reads exactly them.
    unsafe { _mm256_load_si256((lanes as *const [u8; 32]).cast()) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn store(lanes: &mut [u8; 32], v: __m256i) {
    // SAFETY: as in `load`; `lanes` is borrowed mutably, so nothing else reads it.
    unsafe { _mm256_store_si256((lanes as *mut [u8; 32]).cast(), v) }
}

/// The block's 32 bytes (`Block256` is `repr(C)` over `[u32; 8]`: 32 bytes, no padding).
#[inline(always)]
fn bytes256(b: &Block256) -> &[u8; 32] {
    // SAFETY: `Block256` is `repr(C, align(32))` over `[u32; 8]`: exactly 32 initialised
    // bytes, and any bytes are valid `u8`s; the lifetime is the borrow's.
    unsafe { &*(b as *const Block256).cast::<[u8; 32]>() }
}

#[inline(always)]
fn bytes256_mut(b: &mut Block256) -> &mut [u8; 32] {
    // SAFETY: as in `bytes256`, and any bytes written are valid `u32` lanes.
    unsafe { &mut *(b as *mut Block256).cast::<[u8; 32]>() }
}

/// The block's two 32-byte halves, lanes 0–3 and 4–7.
#[inline(always)]
fn halves512(b: &Block512) -> (&[u8; 32], &[u8; 32]) {
    // SAFETY: `Block512` is `repr(C, align(64))` over `[u64; 8]`: 64 initialised bytes
    // with no padding, so it is two 32-byte arrays, each aligned to 32.
    let halves = unsafe { &*(b as *const Block512).cast::<[[u8; 32]; 2]>() };
    (&halves[0], &halves[1])
}

#[inline(always)]
fn halves512_mut(b: &mut Block512) -> &mut [[u8; 32]; 2] {
    // SAFETY: as in `halves512`, and any bytes written are valid `u64` lanes.
    unsafe { &mut *(b as *mut Block512).cast::<[[u8; 32]; 2]>() }
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn has256(b: &Block256, h32: u32) -> bool {
    _mm256_testc_si256(load(bytes256(b)), mask256(h32)) != 0
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn set256(b: &mut Block256, h32: u32) -> bool {
    let lanes = bytes256_mut(b);
    let (v, m) = (load(lanes), mask256(h32));
    let had = _mm256_testc_si256(v, m) != 0;
    store(lanes, _mm256_or_si256(v, m));
    !had
}

#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn has512(b: &Block512, h32: u32) -> bool {
    let (lo, hi) = halves512(b);
    let (m_lo, m_hi) = mask512(h32);
    let miss = _mm256_or_si256(
        _mm256_andnot_si256(load(lo), m_lo),
        _mm256_andnot_si256(load(hi), m_hi),
    );
    _mm256_testz_si256(miss, miss) != 0
}

#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn set512(b: &mut Block512, h32: u32) -> bool {
    let [lo, hi] = halves512_mut(b);
    let (m_lo, m_hi) = mask512(h32);
    let (v_lo, v_hi) = (load(lo), load(hi));
    let miss = _mm256_or_si256(
        _mm256_andnot_si256(v_lo, m_lo),
        _mm256_andnot_si256(v_hi, m_hi),
    );
    store(lo, _mm256_or_si256(v_lo, m_lo));
    store(hi, _mm256_or_si256(v_hi, m_hi));
    _mm256_testz_si256(miss, miss) == 0
}

loops!(#[target_feature(enable = "avx2")] #[inline]);
