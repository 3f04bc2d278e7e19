//! Every generic hash and index derivation of the library, in one place.
//!
//! General filters hash an item **once** to 128 bits with XXH3-128 (the filter's seed as the
//! XXH3 seed) and derive every index from those 128 bits:
//!
//! * the classic [`BloomFilter`](crate::BloomFilter) takes its k indices by *enhanced double
//!   hashing* (Dillinger and Manolios, "Bloom Filters in Probabilistic Verification", FMCAD
//!   2004, §5) over the two 64-bit halves, each reduced to `[0, m)` with Lemire's
//!   multiply-shift ([`reduce`]), with the cubic term's multiplier taken from the hash
//!   ([`Indexing`]);
//! * the [`BlockedBloomFilter`](crate::BlockedBloomFilter) takes its block from the low half and
//!   its k bit positions inside the 512-bit block from the high half ([`block_pattern`]).
//!
//! These rules are part of the `.amq` file format: the same item and seed give the same bits
//! on every platform and in every version that reads format version 1. The golden-byte tests
//! in `tests/` pin them.
//!
//! Hash *primitives* come from crates (`xxhash-rust` here); this module only composes them.

use crate::filter::Item;

mod indices;
use crate::math::BLOCK_BITS;
pub use indices::{bloom_indices, bloom_indices_with, BloomIndices, Indexing};

/// XXH3-128 of the item's canonical bytes with `seed`.
///
/// The low 64 bits are `h as u64`, the high 64 bits `(h >> 64) as u64`.
///
/// # Example
/// ```
/// let h = amq::hash::hash128(b"apple".as_slice(), 0);
/// assert_eq!(h, amq::hash::hash128("apple", 0)); // bytes and str hash alike
/// ```
#[inline]
pub fn hash128<T: Item + ?Sized>(item: &T, seed: u64) -> u128 {
    item.with_bytes(|bytes| xxhash_rust::xxh3::xxh3_128_with_seed(bytes, seed))
}

/// XXH3-64 of the item's canonical bytes with `seed`: the item hash of the
/// [`SplitBlockBloomFilter`](crate::SplitBlockBloomFilter), which takes its block from the
/// high 32 bits and its eight bits from the low 32 bits.
///
/// # Example
/// ```
/// let h = amq::hash::hash64("apple", 7);
/// assert_eq!(h, amq::hash::hash64(b"apple".as_slice(), 7));
/// assert_ne!(h, amq::hash::hash64("apple", 8));
/// ```
#[inline]
pub fn hash64<T: Item + ?Sized>(item: &T, seed: u64) -> u64 {
    // XXH3 with seed 0 is the unseeded XXH3 (the spec's definition), whose constants the
    // compiler folds: 6 instructions fewer per short item than the seeded path.
    if seed == 0 {
        item.with_bytes(xxhash_rust::xxh3::xxh3_64)
    } else {
        item.with_bytes(|bytes| xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed))
    }
}

/// [`hash64`] of `items[i]` into `hashes[i]`, for every i < `hashes.len()`, which must not
/// exceed `items.len()`. The seed is tested once, outside the loop, so that the loop is the
/// bare hash: inlined into a caller compiled with AVX2 or AVX-512, the compiler vectorises it
/// where the item's length is fixed (u64 items: several hashes per instruction).
#[inline(always)]
pub(crate) fn hash64_into<T: Item>(items: &[T], seed: u64, hashes: &mut [u64]) {
    let items = &items[..hashes.len()];
    // two loops, so that in each the compiler knows which of hash64's paths it takes
    if seed == 0 {
        for (h, item) in hashes.iter_mut().zip(items) {
            *h = hash64(item, 0);
        }
    } else {
        for (h, item) in hashes.iter_mut().zip(items) {
            *h = hash64(item, seed);
        }
    }
}

/// XXH3-64 of `bytes` with seed 0: the checksum of the `.amq` container.
#[inline]
pub fn checksum64(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Lemire's multiply-shift reduction of a 64-bit hash to `[0, n)`: `(x · n) >> 64`.
///
/// Unbiased up to 2⁻⁶⁴·n and far cheaper than `%`; it uses the *high* bits of `x`.
/// (D. Lemire, "A fast alternative to the modulo reduction", 2016.) The GCS's
/// [`hash_to_range`](crate::gcs::hash_to_range) is this same reduction and calls it.
///
/// # Example
/// ```
/// assert_eq!(amq::hash::reduce(u64::MAX, 10), 9);
/// assert_eq!(amq::hash::reduce(0, 10), 0);
/// ```
#[inline(always)]
pub fn reduce(x: u64, n: u64) -> u64 {
    ((x as u128 * n as u128) >> 64) as u64
}

/// The largest k a [`BlockedBloomFilter`](crate::BlockedBloomFilter) supports.
pub const BLOCK_MAX_K: u32 = 32;

/// ⌊2⁶⁴/φ⌋ (φ the golden ratio), odd: the increment of [`splitmix64`] and the multiplier of
/// Fibonacci hashing ([`CUCKOO_ALT_MULTIPLIER`]).
pub const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number Generators", OOPSLA
/// 2014): adds [`GOLDEN_GAMMA`] to `state` and returns the mix of the new state.
///
/// The blocked filter's probe salts are its outputs; benches and tests draw fixed, seeded
/// streams from it. Calls from state x give the same words as any textbook SplitMix64 seeded
/// with x.
///
/// # Example
/// ```
/// let mut state = 0;
/// assert_eq!(amq::hash::splitmix64(&mut state), 0xe220_a839_7b1d_cdaf);
/// assert_eq!(amq::hash::splitmix64(&mut state), 0x6e78_9e6a_a1b9_65f4);
/// ```
#[inline]
pub const fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(GOLDEN_GAMMA);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Odd 64-bit multipliers, one per probe of a blocked filter ([`splitmix64`] outputs with the
/// low bit set).
static BLOCK_SALTS: [u64; BLOCK_MAX_K as usize] = {
    let mut salts = [0u64; BLOCK_MAX_K as usize];
    let mut state: u64 = 0x6a09_e667_f3bc_c908; // first 64 bits of frac(sqrt(2))
    let mut i = 0;
    while i < salts.len() {
        salts[i] = splitmix64(&mut state) | 1;
        i += 1;
    }
    salts
};

/// The right shift that keeps the top log₂(512) = 9 bits of a probe's product: a bit of the
/// block.
const BLOCK_PROBE_SHIFT: u32 = u64::BITS - BLOCK_BITS.trailing_zeros();

/// The block of a blocked Bloom filter with `blocks` blocks: `reduce(low64(h), blocks)`.
#[inline(always)]
pub fn block_index(h: u128, blocks: u64) -> u64 {
    reduce(h as u64, blocks)
}

/// The k-bit pattern inside a 512-bit block, as eight 64-bit words.
///
/// Probe i sets bit `p = (high64(h) · saltᵢ) >> 55` (9 bits, so any of the block's 512 bits):
/// word `p / 64`, bit `p % 64`. Two probes may land on the same bit, as in the model of
/// [`math::blocked_fpr`](crate::math::blocked_fpr). `k` is clamped to [`BLOCK_MAX_K`].
///
/// # Example
/// ```
/// let h = amq::hash::hash128("apple", 0);
/// let pattern = amq::hash::block_pattern(h, 8);
/// let bits: u32 = pattern.iter().map(|w| w.count_ones()).sum();
/// assert!((1..=8).contains(&bits));
/// ```
#[inline(always)]
pub fn block_pattern(h: u128, k: u32) -> [u64; 8] {
    let mut words = [0u64; 8];
    for p in block_probes(h, k) {
        words[p >> 6] |= 1u64 << (p & 63);
    }
    words
}

/// The k bit positions in `[0, 512)` inside the block, probe by probe: the bits of
/// [`block_pattern`], as positions (word `p / 64`, bit `p % 64`), possibly repeated.
///
/// Filters test and set these bits in place, one word at a time, instead of materialising the
/// pattern: building an eight-word array with variable indices costs a store-to-load stall
/// per query.
#[inline(always)]
pub(crate) fn block_probes(h: u128, k: u32) -> impl Iterator<Item = usize> + Clone {
    let x = (h >> 64) as u64;
    BLOCK_SALTS[..k.min(BLOCK_MAX_K) as usize]
        .iter()
        .map(move |salt| (x.wrapping_mul(*salt) >> BLOCK_PROBE_SHIFT) as usize)
}

// ============================================================================================
// Dynamic structures (issue 5): the sliding-window Bloom filter, the aging Bloom filter and the
// negative cache. Part of the `.amq` format of kinds 4, 5 and 6, like everything above.
// ============================================================================================

/// The 128-bit hash of an item *at a window position*, from which a
/// [`SlidingWindowBloom`](crate::window::SlidingWindowBloom) takes its k indices.
///
/// XXH3-128 with `seed` over the 24 bytes `item_hash (16 bytes, little-endian) ‖ position
/// (8 bytes, little-endian)`, where `item_hash = hash128(item, seed)`. The item is hashed once
/// whatever its length; the same item at two positions gets unrelated indices, as in the
/// mutator-set construction where the indices are hashed from the item, its position L and
/// the trial i (Szepieniec and Værge, "Mutator Sets and their Application to Scalable Privacy",
/// IACR ePrint 2023/1208, §4).
///
/// # Example
/// ```
/// let h = amq::hash::hash128("apple", 0);
/// assert_ne!(amq::hash::window_hash(h, 0, 0), amq::hash::window_hash(h, 1, 0));
/// ```
#[inline]
pub fn window_hash(item_hash: u128, position: u64, seed: u64) -> u128 {
    let mut buf = [0u8; 24];
    buf[..16].copy_from_slice(&item_hash.to_le_bytes());
    buf[16..].copy_from_slice(&position.to_le_bytes());
    xxhash_rust::xxh3::xxh3_128_with_seed(&buf, seed)
}

/// The k window-relative indices in `[0, window_bits)` of an item at `position`: index i is
/// the i-th index of [`bloom_indices_with`] over [`window_hash`] under `indexing`. The caller
/// adds the window offset ⌊L/B⌋·S.
///
/// # Example
/// ```
/// let h = amq::hash::hash128("apple", 0);
/// let idx: Vec<u64> =
///     amq::hash::window_indices(h, 7, 1 << 20, 45, 0, amq::hash::Indexing::Hashed).collect();
/// assert_eq!(idx.len(), 45);
/// assert!(idx.iter().all(|&i| i < 1 << 20));
/// ```
#[inline]
pub fn window_indices(
    item_hash: u128,
    position: u64,
    window_bits: u64,
    k: u32,
    seed: u64,
    indexing: Indexing,
) -> BloomIndices {
    bloom_indices_with(
        window_hash(item_hash, position, seed),
        window_bits,
        k,
        indexing,
    )
}

/// Salt XORed into the seed for the second hash of a [`negative_hash`] with b > 64 (the first
/// 64 bits of the fractional part of √3).
pub const NEGATIVE_SET_SALT: u64 = 0xbb67_ae85_84ca_a73b;

/// Where a [`NegativeCache`](crate::negative::NegativeCache) keeps an item, and what it keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NegativeHash {
    /// A uniform 64-bit value that picks the set: `reduce(set_hash, sets)`.
    pub set_hash: u64,
    /// The b-bit fingerprint (the bits above b are zero).
    pub fingerprint: u128,
}

/// The set hash and b-bit fingerprint of an item, drawn from independent hash bits so that a
/// query that lands in an item's set still matches its fingerprint with probability 2⁻ᵇ only.
///
/// With `h = hash128(item, seed)` (XXH3-128):
/// * b ≤ 64: the fingerprint is the low b bits of `low64(h)`, the set hash is `high64(h)`
///   (one hash of the item);
/// * 64 < b ≤ 128: the fingerprint is the low b bits of `h`, the set hash is XXH3-64 of the
///   item with seed `seed ^` [`NEGATIVE_SET_SALT`] (a second, independent hash).
///
/// `b` is clamped to `1..=128`.
///
/// # Example
/// ```
/// let a = amq::hash::negative_hash("apple", 0, 16);
/// assert!(a.fingerprint < 1 << 16);
/// let b = amq::hash::negative_hash("apple", 0, 128);
/// assert_eq!(b.fingerprint, amq::hash::hash128("apple", 0));
/// ```
#[inline]
pub fn negative_hash<T: Item + ?Sized>(item: &T, seed: u64, b: u32) -> NegativeHash {
    let b = b.clamp(1, 128);
    item.with_bytes(|bytes| {
        let h = xxhash_rust::xxh3::xxh3_128_with_seed(bytes, seed);
        if b <= 64 {
            NegativeHash {
                set_hash: (h >> 64) as u64,
                fingerprint: u128::from(h as u64 & (u64::MAX >> (64 - b))),
            }
        } else {
            NegativeHash {
                set_hash: xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed ^ NEGATIVE_SET_SALT),
                fingerprint: h & (u128::MAX >> (128 - b)),
            }
        }
    })
}

// ============================================================================================
// Cuckoo filter (issue 5 §1): partial-key cuckoo hashing. Part of the `.amq` format of kind 3,
// like everything above.
// ============================================================================================

/// The multiplier that spreads a cuckoo fingerprint over the bucket range in
/// [`cuckoo_alt_index`]: ⌊2⁶⁴/φ⌋ (Fibonacci hashing), odd, so distinct fingerprints give
/// distinct products.
pub const CUCKOO_ALT_MULTIPLIER: u64 = GOLDEN_GAMMA;

/// The first bucket of an item in a [`CuckooFilter`](crate::cuckoo::CuckooFilter) of
/// `buckets` buckets: `reduce(low64(h), buckets)`.
///
/// # Example
/// ```
/// let h = amq::hash::hash128("apple", 0);
/// assert!(amq::hash::cuckoo_index(h, 1000) < 1000);
/// ```
#[inline(always)]
pub fn cuckoo_index(h: u128, buckets: u64) -> u64 {
    reduce(h as u64, buckets)
}

/// The f-bit fingerprint of an item: `reduce(high64(h), 2^f − 1) + 1`, uniform over the
/// 2^f − 1 non-zero values (zero marks an empty slot). `bits` is clamped to `1..=32`.
///
/// The fingerprint comes from the high half of the hash and the first bucket from the low
/// half, so they are independent.
///
/// # Example
/// ```
/// let h = amq::hash::hash128("apple", 0);
/// let fp = amq::hash::cuckoo_fingerprint(h, 12);
/// assert!((1..1 << 12).contains(&fp));
/// ```
#[inline(always)]
pub fn cuckoo_fingerprint(h: u128, bits: u32) -> u32 {
    let bits = bits.clamp(1, 32);
    let values = (1u64 << bits) - 1;
    reduce((h >> 64) as u64, values) as u32 + 1
}

/// The alternate bucket of a fingerprint stored in bucket `i` of `buckets`: partial-key cuckoo
/// hashing (Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo Filter: Practically Better Than
/// Bloom", CoNEXT 2014, §3.1), with the XOR of the paper replaced by a subtraction so that any
/// bucket count works, not only powers of two:
///
/// `alt(i, fp) = (o(fp) − i) mod buckets`, with `o(fp) = reduce(fp · C, buckets)` and
/// C = [`CUCKOO_ALT_MULTIPLIER`].
///
/// Like `i ⊕ hash(fp)` it is an involution, `alt(alt(i, fp), fp) = i`, so a fingerprint can
/// be moved to its other bucket without knowing the item: `o(fp) − (o(fp) − i) = i`. Both
/// operands are below `buckets`, so the result is one subtraction and a conditional add.
/// `i` must be below `buckets`.
///
/// # Example
/// ```
/// use amq::hash::cuckoo_alt_index;
/// let buckets = 1000; // not a power of two
/// for i in [0, 1, 499, 999] {
///     let j = cuckoo_alt_index(i, 0x5a5, buckets);
///     assert!(j < buckets);
///     assert_eq!(cuckoo_alt_index(j, 0x5a5, buckets), i);
/// }
/// ```
#[inline(always)]
pub fn cuckoo_alt_index(i: u64, fingerprint: u32, buckets: u64) -> u64 {
    let o = reduce(
        u64::from(fingerprint).wrapping_mul(CUCKOO_ALT_MULTIPLIER),
        buckets,
    );
    if o >= i {
        o - i
    } else {
        o + buckets - i
    }
}

// ============================================================================================
// Sliding-window cuckoo filter (issue 16): epoch tables of 2^k buckets that can be halved.
// Part of the `.amq` format of kind 8. (The TTL cuckoo filter, kind 7, uses the cuckoo
// filter's derivation above.)
// ============================================================================================

/// The top `bits` bits of `x` (0 for `bits` = 0; `bits` at most 64).
#[inline(always)]
fn top_bits(x: u64, bits: u32) -> u64 {
    if bits == 0 {
        0
    } else {
        x >> (64 - bits.min(64))
    }
}

/// The first bucket of an item in an epoch table of 2ᵏ buckets of a
/// [`SlidingWindowCuckoo`](crate::rln::SlidingWindowCuckoo): the top k bits of `low64(h)`,
/// which is `reduce(low64(h), 2ᵏ)`. Halving the table maps bucket i to `i >> 1`.
///
/// # Example
/// ```
/// use amq::hash::{halving_cuckoo_index, hash128};
/// let h = hash128("alice", 0);
/// assert_eq!(halving_cuckoo_index(h, 10) >> 3, halving_cuckoo_index(h, 7));
/// assert_eq!(halving_cuckoo_index(h, 0), 0);
/// ```
#[inline(always)]
pub fn halving_cuckoo_index(h: u128, log2_buckets: u32) -> u64 {
    top_bits(h as u64, log2_buckets)
}

/// The alternate bucket of a fingerprint stored in bucket `i` of an epoch table of 2ᵏ
/// buckets: `i ⊕ top_k(fp · C)`, C = [`CUCKOO_ALT_MULTIPLIER`] (partial-key cuckoo hashing
/// with the paper's XOR, Fan et al. 2014, §3.1).
///
/// It is an involution, and it commutes with halving: `alt(i, fp, k) >> 1 =
/// alt(i >> 1, fp, k − 1)`, because the offset for 2ᵏ⁻¹ buckets is the offset for 2ᵏ
/// shifted right by one. So a table can be shrunk to 2ʲ buckets by moving every fingerprint
/// from bucket i to bucket `i >> (k − j)`: both buckets of its item move together, and a
/// query of the smaller table finds it. `i` must be below 2ᵏ.
///
/// # Example
/// ```
/// use amq::hash::halving_cuckoo_alt_index as alt;
/// for i in [0u64, 5, 1023] {
///     let j = alt(i, 0x5a5, 10);
///     assert!(j < 1024);
///     assert_eq!(alt(j, 0x5a5, 10), i);
///     assert_eq!(j >> 2, alt(i >> 2, 0x5a5, 8));
/// }
/// ```
#[inline(always)]
pub fn halving_cuckoo_alt_index(i: u64, fingerprint: u32, log2_buckets: u32) -> u64 {
    i ^ top_bits(
        u64::from(fingerprint).wrapping_mul(CUCKOO_ALT_MULTIPLIER),
        log2_buckets,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 0 takes the unseeded XXH3 path: the same values as the seeded function, at every
    /// length XXH3 treats differently (0, 1–3, 4–8, 9–16, 17–128, 129–240, longer).
    #[test]
    fn hash64_seed_zero_is_the_seeded_function() {
        let mut state = 9u64;
        for len in 0..300usize {
            let bytes: Vec<u8> = (0..len).map(|_| splitmix64(&mut state) as u8).collect();
            assert_eq!(
                hash64(bytes.as_slice(), 0),
                xxhash_rust::xxh3::xxh3_64_with_seed(&bytes, 0),
                "len {len}"
            );
        }
    }

    #[test]
    fn reduce_is_in_range_and_monotone() {
        let n = 1_000_003;
        let mut last = 0;
        for i in 0..1000u64 {
            let x = i.wrapping_mul(u64::MAX / 1000);
            let r = reduce(x, n);
            assert!(r < n);
            assert!(r >= last);
            last = r;
        }
    }

    /// The textbook SplitMix64 stream from seed 0.
    #[test]
    fn splitmix64_matches_the_reference() {
        let mut state = 0;
        assert_eq!(splitmix64(&mut state), 0xe220_a839_7b1d_cdaf);
        assert_eq!(splitmix64(&mut state), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(state, GOLDEN_GAMMA.wrapping_mul(2));
    }

    #[test]
    fn salts_are_odd_and_distinct() {
        for (i, a) in BLOCK_SALTS.iter().enumerate() {
            assert_eq!(a & 1, 1);
            for b in &BLOCK_SALTS[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn block_probes_are_the_bits_of_the_pattern() {
        for k in 0..=BLOCK_MAX_K + 1 {
            let h = hash128("apple", u64::from(k));
            let mut pattern = [0u64; 8];
            let mut probes = 0;
            for p in block_probes(h, k) {
                assert!(p < BLOCK_BITS as usize);
                pattern[p / 64] |= 1 << (p % 64);
                probes += 1;
            }
            assert_eq!(probes, k.min(BLOCK_MAX_K));
            assert_eq!(pattern, block_pattern(h, k), "k = {k}");
        }
    }

    #[test]
    fn double_hashing_follows_the_recurrence() {
        let h: u128 = (7u128 << 64) | 3;
        // x: 3, 3+7=10, 10+8=18, 18+10=28 (y: 7, 8, 10, 13)
        let m = u64::MAX; // reduce(x, MAX) = x - 1 for small x > 0, 0 for 0
        let got: alloc::vec::Vec<u64> = bloom_indices_with(h, m, 4, Indexing::Unit).collect();
        assert_eq!(got, [2, 9, 17, 27]);
        // hashed: y grows by i·c, c = (3 ⊕ 7)·GOLDEN_GAMMA
        let got: alloc::vec::Vec<u64> = bloom_indices(h, m, 4).collect();
        let (mut x, mut y, c) = (3u64, 7u64, 4u64.wrapping_mul(GOLDEN_GAMMA));
        let mut want = alloc::vec::Vec::new();
        for i in 1..=4u64 {
            want.push(reduce(x, m));
            x = x.wrapping_add(y);
            y = y.wrapping_add(i.wrapping_mul(c));
        }
        assert_eq!(got, want);
        assert_eq!(got[..2], [2, 9]);
    }
}
