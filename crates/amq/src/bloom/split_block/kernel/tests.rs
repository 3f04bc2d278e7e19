//! The kernels against the spec's words and against each other.

use super::*;
use proptest::prelude::*;

/// Lane i of Parquet's block for `h32`, from the spec's words: `1 << ((h32 · SALTᵢ) >> 27)`.
fn spec_mask256(h32: u32) -> [u32; 8] {
    let mut m = [0; 8];
    for i in 0..8 {
        m[i] = 1 << (h32.wrapping_mul(SALT[i]) >> 27);
    }
    m
}

#[test]
fn block_index_is_the_high_half_times_blocks() {
    assert_eq!(block_index(0x0000_0000_ffff_ffff, 1000), 0);
    assert_eq!(block_index(0xffff_ffff_0000_0000, 1000), 999);
    assert_eq!(block_index(0x8000_0000_1234_5678, 1000), 500);
    assert_eq!(
        block_index(u64::MAX, u32::MAX as usize),
        u32::MAX as usize - 1
    );
}

#[test]
fn one_bit_per_lane() {
    for h32 in [0u32, 1, 0xdead_beef, u32::MAX] {
        let mut b = Block512::default();
        assert!(b.insert(h32));
        assert!(!b.insert(h32));
        assert!(b.0.iter().all(|w| w.count_ones() == 1));
        let mut p = Block256::default();
        assert!(p.insert(h32));
        assert_eq!(p.0, spec_mask256(h32));
    }
}

/// The `hash_into` of [`contains512_batch_chunked`] over precomputed hashes.
fn copy(hashes: &[u64]) -> impl Fn(usize, &mut [u64]) + '_ {
    move |start, chunk: &mut [u64]| chunk.copy_from_slice(&hashes[start..start + chunk.len()])
}

proptest! {
    /// Every kernel sets and finds the same bits as the portable one, on random blocks.
    #[test]
    fn kernels_agree(
        lanes512 in proptest::array::uniform8(any::<u64>()),
        lanes256 in proptest::array::uniform8(any::<u32>()),
        sparse in any::<u64>(),
        hashes in proptest::collection::vec(any::<u64>(), 1..40),
    ) {
        // dense random lanes answer "maybe" too often; AND them with sparse ones too
        let thin = |x: u64, i: u64| x & crate::hash::splitmix64(&mut (sparse ^ i));
        let blocks512: Vec<Block512> = (0..3u64)
            .map(|j| Block512(core::array::from_fn(|i| {
                if j == 0 { lanes512[i] } else { thin(lanes512[i], i as u64 + 8 * j) }
            })))
            .collect();
        let blocks256: Vec<Block256> = (0..3u64)
            .map(|j| Block256(core::array::from_fn(|i| {
                if j == 0 { lanes256[i] } else { thin(u64::from(lanes256[i]), i as u64 + 8 * j) as u32 }
            })))
            .collect();
        let want512: Vec<bool> = hashes
            .iter()
            .map(|&h| blocks512[block_index(h, 3)].contains(h as u32))
            .collect();
        let want256: Vec<bool> = hashes
            .iter()
            .map(|&h| blocks256[block_index(h, 3)].contains(h as u32))
            .collect();
        for kernel in Kernel::supported() {
            let mut out = vec![false; hashes.len()];
            contains512_batch(kernel, &blocks512, |i| hashes[i], &mut out);
            prop_assert_eq!(&out, &want512);
            contains512_batch_chunked(kernel, &blocks512, copy(&hashes), &mut out);
            prop_assert_eq!(&out, &want512);
            contains256_batch(kernel, &blocks256, &hashes, &mut out);
            prop_assert_eq!(&out, &want256);
            for (i, &h) in hashes.iter().enumerate() {
                prop_assert_eq!(contains512(kernel, &blocks512, || h), want512[i]);
                prop_assert_eq!(contains256(kernel, &blocks256, h), want256[i]);
            }
            let (mut a, mut b) = (blocks512.clone(), blocks512.clone());
            let (mut c, mut d) = (blocks256.clone(), blocks256.clone());
            for &h in &hashes {
                let i = block_index(h, 3);
                prop_assert_eq!(insert512(kernel, &mut a, || h), b[i].insert(h as u32));
                prop_assert_eq!(insert256(kernel, &mut c, h), d[i].insert(h as u32));
                prop_assert_eq!(&a, &b);
                prop_assert_eq!(&c, &d);
            }
            let mut e = blocks512.clone();
            insert512_batch_chunked(kernel, &mut e, copy(&hashes), hashes.len());
            prop_assert_eq!(&e, &b);
        }
    }
}

/// Both batches answer as single queries, for batch lengths around their chunks ([`AHEAD`],
/// [`CHUNK`]);
/// the chunked one with tables of [`PREFETCH_MIN_BYTES`] and more (its prefetching loop) and
/// smaller (its plain loop).
#[test]
fn batches_answer_as_single_queries_with_and_without_prefetching() {
    let mut state = 0x5eed_u64;
    let mut next = move || crate::hash::splitmix64(&mut state);
    for bytes in [PREFETCH_MIN_BYTES / 2, PREFETCH_MIN_BYTES + 64] {
        // about half of each lane's bits set, so that answers are mixed
        let blocks512: Vec<Block512> = (0..bytes / 64)
            .map(|_| Block512(core::array::from_fn(|_| next() | next())))
            .collect();
        let blocks256: Vec<Block256> = (0..bytes / 32)
            .map(|_| Block256(core::array::from_fn(|_| (next() | next()) as u32)))
            .collect();
        let hashes: Vec<u64> = (0..4 * CHUNK.max(AHEAD) + 3).map(|_| next()).collect();
        let want512: Vec<bool> = hashes
            .iter()
            .map(|&h| blocks512[block_index(h, blocks512.len())].contains(h as u32))
            .collect();
        let want256: Vec<bool> = hashes
            .iter()
            .map(|&h| blocks256[block_index(h, blocks256.len())].contains(h as u32))
            .collect();
        assert!(want512.contains(&true) && want512.contains(&false));
        for kernel in Kernel::supported() {
            let lengths = [
                AHEAD - 1,
                AHEAD,
                AHEAD + 1,
                2 * AHEAD,
                CHUNK - 1,
                CHUNK,
                CHUNK + 1,
            ];
            for n in [0, 1, 2 * CHUNK + 1, hashes.len()]
                .into_iter()
                .chain(lengths)
            {
                let mut out = vec![false; n];
                contains512_batch(kernel, &blocks512, |i| hashes[i], &mut out);
                assert_eq!(out, want512[..n], "{kernel:?}, {bytes} bytes, {n} queries");
                contains512_batch_chunked(kernel, &blocks512, copy(&hashes), &mut out);
                assert_eq!(out, want512[..n], "{kernel:?}, {bytes} bytes, {n} chunked");
                contains256_batch(kernel, &blocks256, &hashes[..n], &mut out);
                assert_eq!(out, want256[..n], "{kernel:?}, {bytes} bytes, {n} queries");
            }
        }
    }
}

/// The chunked batch insert sets the bits single inserts set, for batch lengths around its
/// chunk, with tables of [`PREFETCH_MIN_BYTES`] and more (prefetching) and smaller.
#[test]
fn batch_inserts_set_what_single_inserts_set() {
    let mut state = 0x1a5e_u64;
    let mut next = move || crate::hash::splitmix64(&mut state);
    for bytes in [PREFETCH_MIN_BYTES / 2, PREFETCH_MIN_BYTES + 64] {
        let empty = vec![Block512::default(); bytes / 64];
        // a few hashes to the same block too, so that one chunk sets a block twice
        let mut hashes: Vec<u64> = (0..4 * CHUNK + 3).map(|_| next()).collect();
        hashes[CHUNK + 1] = hashes[CHUNK] ^ 0xffff;
        for kernel in Kernel::supported() {
            for n in [
                0,
                1,
                CHUNK - 1,
                CHUNK,
                CHUNK + 1,
                2 * CHUNK + 1,
                hashes.len(),
            ] {
                let mut want = empty.clone();
                for &h in &hashes[..n] {
                    let i = block_index(h, want.len());
                    want[i].insert(h as u32);
                }
                let mut got = empty.clone();
                insert512_batch_chunked(kernel, &mut got, copy(&hashes), n);
                assert!(got == want, "{kernel:?}, {bytes} bytes, {n} inserts");
            }
        }
    }
}

/// Lane i of a 512-bit block for `h32`, from the kernel's words: `1 << ((h32 · SALTᵢ) >> 26)`.
fn spec_mask512(h32: u32) -> [u64; 8] {
    let mut m = [0; 8];
    for i in 0..8 {
        m[i] = 1 << (h32.wrapping_mul(SALT[i]) >> 26);
    }
    m
}

/// Kernel `$kernel`'s own `$f` (`query512`, `insert512`, `query256` or `insert256`, from
/// `loops!`) on `blocks` for the hash `h`, through the dispatch every caller goes through.
macro_rules! own {
    ($kernel:expr, $f:ident, $blocks:expr, $h:expr) => {{
        let h: u64 = $h;
        dispatch!(
            $kernel,
            avx512::$f($blocks, || h),
            avx2::$f($blocks, || h),
            portable::$f($blocks, || h)
        )
    }};
}

/// Each kernel module's own single query and insert (`query512`, `insert512`, `query256`,
/// `insert256`, from `loops!`) against the spec's masks: an insert ORs the eight lane bits
/// into block `block_index(h, 3)` and says "new" exactly when one was zero (so `false` for
/// a repeat), and a query is `true` exactly when all eight are set.
/// The library's callers reach these only in builds with AVX-512F enabled at compile time
/// (here they are called through `dispatch!` directly); the default build runs the inline
/// assembly of `single` instead, and then nothing calls the AVX2
/// kernel's `set256` (Parquet's single insert, which the AVX-512 kernel shares): the kernel
/// tests above let its mutants (`set256` → true / false, `!=` → `==`, `delete !`,
/// `bytes256_mut` → a leaked buffer) through.
#[test]
#[allow(unsafe_code)] // `dispatch!`'s, with its SAFETY: only supported kernels are run
fn each_kernels_own_single_query_and_insert_follow_the_spec_masks() {
    let mut state = 0x51_6e_u64;
    let mut next = move || crate::hash::splitmix64(&mut state);
    let members: Vec<u64> = (0..40).map(|_| next()).collect();
    let strangers: Vec<u64> = (0..40).map(|_| next()).collect();
    for kernel in Kernel::supported() {
        let (mut b512, mut b256) = ([Block512::default(); 3], [Block256::default(); 3]);
        let (mut want512, mut want256) = ([[0u64; 8]; 3], [[0u32; 8]; 3]);
        // each member twice in a row: new the first time (but where its eight bits were
        // all set already by others), never the second
        for &h in members.iter().flat_map(|h| [h, h]) {
            let (i, m512, m256) = (
                block_index(h, 3),
                spec_mask512(h as u32),
                spec_mask256(h as u32),
            );
            let new512 = (0..8).any(|l| want512[i][l] & m512[l] == 0);
            let new256 = (0..8).any(|l| want256[i][l] & m256[l] == 0);
            (0..8).for_each(|l| want512[i][l] |= m512[l]);
            (0..8).for_each(|l| want256[i][l] |= m256[l]);
            assert_eq!(
                own!(kernel, insert512, &mut b512, h),
                new512,
                "{kernel:?}: insert512 {h:#x}"
            );
            assert_eq!(
                own!(kernel, insert256, &mut b256, h),
                new256,
                "{kernel:?}: insert256 {h:#x}"
            );
            assert_eq!(b512.map(|b| b.0), want512, "{kernel:?}: bits after {h:#x}");
            assert_eq!(b256.map(|b| b.0), want256, "{kernel:?}: bits after {h:#x}");
        }
        let mut found = [0; 2];
        for &h in members.iter().chain(&strangers) {
            let (i, m512, m256) = (
                block_index(h, 3),
                spec_mask512(h as u32),
                spec_mask256(h as u32),
            );
            let has512 = (0..8).all(|l| want512[i][l] & m512[l] != 0);
            let has256 = (0..8).all(|l| want256[i][l] & m256[l] != 0);
            assert_eq!(
                own!(kernel, query512, &b512, h),
                has512,
                "{kernel:?}: query512 {h:#x}"
            );
            assert_eq!(
                own!(kernel, query256, &b256, h),
                has256,
                "{kernel:?}: query256 {h:#x}"
            );
            found[0] += usize::from(has512);
            found[1] += usize::from(has256);
        }
        // members all found and some strangers not: both answers were asked for
        assert!(found.iter().all(|&f| (40..80).contains(&f)), "{found:?}");
    }
}
