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

fn kernels() -> impl Iterator<Item = Kernel> {
    Kernel::ALL.into_iter().filter(|k| k.is_supported())
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
        for kernel in kernels() {
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
        for kernel in kernels() {
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
        for kernel in kernels() {
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
