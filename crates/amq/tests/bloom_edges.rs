//! Edges of the three Bloom kinds that the behaviour tests leave open: accessors and sizes
//! worked by hand, the exact bits an item sets, intersection as a bitwise AND, fill and ε
//! estimates from their formulas, and the decoder's refusals with their fields.

use amq::hash::{block_pattern, bloom_indices, bloom_indices_with, hash128, Indexing};
use amq::math::{
    estimate_items, split_block_estimate_items, split_block_fpr, SPLIT_BLOCK_MAX_BLOCKS,
};
use amq::wire::{self, Kind};
use amq::{
    BlockedBloomFilter, BloomFilter, Error, Filter, Insert, Merge, SplitBlockBloomFilter,
    SplitBlockKernel,
};

/// The payload of an `.amq` file.
fn payload(bytes: &[u8]) -> Vec<u8> {
    wire::decode(bytes).unwrap().payload.to_vec()
}

/// A fixed stream of 128-bit hashes (SplitMix64 pairs from `seed`).
fn hashes128(seed: u64, n: usize) -> Vec<u128> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            let lo = amq::hash::splitmix64(&mut state);
            let hi = amq::hash::splitmix64(&mut state);
            (u128::from(hi) << 64) | u128::from(lo)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Blocked Bloom filter
// ---------------------------------------------------------------------------------------------

/// Pins m rounded up to whole 512-bit blocks, 64 bytes per block, and the seed kept.
#[test]
fn blocked_shape_accessors_by_hand() {
    let f = BlockedBloomFilter::new(1000, 7, 42).unwrap();
    assert_eq!((f.m(), f.blocks(), f.k(), f.seed()), (1024, 2, 7, 42));
    assert_eq!((f.size_bytes(), f.inserted()), (128, 0));
    let g = BlockedBloomFilter::new(5 * 512 + 1, 3, u64::MAX).unwrap();
    assert_eq!((g.m(), g.blocks(), g.size_bytes()), (6 * 512, 6, 384));
    assert_eq!(g.seed(), u64::MAX);
    let back = BlockedBloomFilter::from_bytes(&g.to_bytes()).unwrap();
    assert_eq!((back.seed(), back.size_bytes()), (u64::MAX, 384));
    assert_eq!(g.hash("x"), hash128("x", u64::MAX));
}

/// Pins intersection as the bitwise AND of the two payloads, with the smaller n kept.
#[test]
fn blocked_intersection_is_the_bitwise_and() {
    let mut a = BlockedBloomFilter::new(4 * 512, 6, 9).unwrap();
    let mut b = a.clone();
    for i in 0u64..60 {
        a.insert(&i).unwrap();
    }
    for i in 40u64..70 {
        b.insert(&i).unwrap();
    }
    let want: Vec<u8> = payload(&a.to_bytes())
        .iter()
        .zip(payload(&b.to_bytes()))
        .map(|(x, y)| x & y)
        .collect();
    let before = a.bits_set();
    a.intersect(&b).unwrap();
    assert_eq!(payload(&a.to_bytes()), want);
    assert_eq!(a.inserted(), 30);
    assert!(a.bits_set() < before);
    assert!((40u64..60).all(|i| a.contains(&i)));
    let other_seed = BlockedBloomFilter::new(4 * 512, 6, 10).unwrap();
    let err = a.intersect(&other_seed).unwrap_err();
    let want_err = Error::ShapeMismatch {
        field: "seed",
        left: 9,
        right: 10,
    };
    assert_eq!(err, want_err);
}

/// Pins the blocked fill ratio X/m with X the popcount of the one item's block pattern.
#[test]
fn blocked_fill_ratio_is_bits_set_over_m() {
    let mut f = BlockedBloomFilter::new(2 * 512, 5, 1).unwrap();
    assert_eq!(f.fill_ratio(), 0.0);
    let h = f.hash(&7u64);
    f.insert_hash(h);
    let x: u32 = block_pattern(h, 5).iter().map(|w| w.count_ones()).sum();
    assert_eq!(f.bits_set(), u64::from(x));
    assert_eq!(f.fill_ratio(), f64::from(x) / 1024.0);
}

/// Pins the blocked decoder refusing m = 0, partial blocks, k = 0, k > 32 (offset 24), k = 32 read.
#[test]
fn blocked_decoder_refuses_each_bad_shape() {
    for (m, k) in [(0u64, 7u64), (700, 7), (512, 0), (512, 33), (0, 0), (0, 33)] {
        let file = wire::encode(
            Kind::BlockedBloom,
            &[m, k, 5, 0],
            &vec![0u8; (m / 8) as usize],
        );
        let want = Error::Corrupt {
            offset: 24,
            reason: format!("invalid shape m = {m}, k = {k}"),
        };
        assert_eq!(
            BlockedBloomFilter::from_bytes(&file),
            Err(want),
            "m = {m}, k = {k}"
        );
    }
    let file = wire::encode(Kind::BlockedBloom, &[1024, 32, 5, 3], &[0u8; 128]);
    let f = BlockedBloomFilter::from_bytes(&file).unwrap();
    assert_eq!((f.m(), f.k(), f.seed(), f.inserted()), (1024, 32, 5, 3));
}

/// Pins blocked `merge` as the union: payloads ORed, n added, a mismatch refused, self unchanged.
#[test]
fn blocked_merge_is_the_union() {
    let mut a = BlockedBloomFilter::new(3 * 512, 4, 2).unwrap();
    let mut b = a.clone();
    a.insert_hash(hashes128(1, 1)[0]);
    for h in hashes128(2, 20) {
        b.insert_hash(h);
    }
    let want: Vec<u8> = payload(&a.to_bytes())
        .iter()
        .zip(payload(&b.to_bytes()))
        .map(|(x, y)| x | y)
        .collect();
    let mut u = a.clone();
    u.union(&b).unwrap();
    a.merge(&b).unwrap();
    assert_eq!(a, u);
    assert_eq!((payload(&a.to_bytes()), a.inserted()), (want, 21));
    let before = a.clone();
    let wider = BlockedBloomFilter::new(4 * 512, 4, 2).unwrap();
    let want_err = Error::ShapeMismatch {
        field: "m",
        left: 1536,
        right: 2048,
    };
    assert_eq!(a.merge(&wider), Err(want_err));
    assert_eq!(a, before);
}

// ---------------------------------------------------------------------------------------------
// Classic Bloom filter
// ---------------------------------------------------------------------------------------------

/// Pins the classic accessors by hand: m kept as given, ⌈m/64⌉ whole words of payload, seed.
#[test]
fn classic_shape_accessors_by_hand() {
    let f = BloomFilter::new(65, 3, 42).unwrap();
    assert_eq!((f.m(), f.k(), f.seed(), f.inserted()), (65, 3, 42, 0));
    assert_eq!((f.size_bytes(), f.bits().len()), (16, 65));
    assert_eq!(f.indexing(), Indexing::Hashed);
    assert_eq!(f.hash("x"), hash128("x", 42));
    let g = BloomFilter::new(64, 64, u64::MAX).unwrap();
    assert_eq!((g.size_bytes(), g.seed(), g.k()), (8, u64::MAX, 64));
}

/// Pins the classic fill: X/m, ε = (X/m)^k and the Swamidass–Baldi n̂ from the set bits.
#[test]
fn classic_fill_follows_the_formulas() {
    let (m, k) = (1000u64, 4u32);
    let mut f = BloomFilter::new(m, k, 3).unwrap();
    assert_eq!(
        (f.fill_ratio(), f.estimated_fpr(), f.estimated_items()),
        (0.0, 0.0, 0.0)
    );
    let mut want = std::collections::BTreeSet::new();
    for h in hashes128(5, 150) {
        f.insert_hash(h);
        want.extend(bloom_indices(h, m, k));
    }
    let x = want.len() as u64;
    assert!((0..m).all(|i| f.bits().get(i) == want.contains(&i)));
    assert_eq!(f.bits_set(), x);
    let ratio = x as f64 / m as f64;
    assert_eq!(f.fill_ratio(), ratio);
    let fpr = ratio * ratio * ratio * ratio;
    assert!(
        (f.estimated_fpr() - fpr).abs() < 1e-12 * fpr,
        "{}",
        f.estimated_fpr()
    );
    assert_eq!(f.estimated_items(), estimate_items(x, m, k));
    let by_hand = -(m as f64 / 4.0) * (1.0 - ratio).ln();
    assert!((f.estimated_items() - by_hand).abs() < 1e-9 * by_hand);
    assert!(f.estimated_items() > 100.0 && f.estimated_items() < 200.0);
}

/// Pins the classic decoder refusing m = 0, k = 0, k > 64 and payloads other than ⌈m/64⌉·8 bytes.
#[test]
fn classic_decoder_refuses_each_bad_shape() {
    for (m, k) in [(0u64, 3u64), (64, 0), (64, 65), (0, 0), (0, 65)] {
        let file = wire::encode(Kind::Bloom, &[m, k, 1, 0, 2], &[0u8; 8]);
        let want = Error::Corrupt {
            offset: 24,
            reason: format!("invalid shape m = {m}, k = {k}"),
        };
        assert_eq!(
            BloomFilter::from_bytes(&file),
            Err(want),
            "m = {m}, k = {k}"
        );
    }
    for (m, len) in [(65u64, 8usize), (64, 16), (1, 0)] {
        let file = wire::encode(Kind::Bloom, &[m, 3, 1, 0, 2], &vec![0u8; len]);
        let need = m.div_ceil(64) * 8;
        let want = Error::Corrupt {
            offset: 24,
            reason: format!("m = {m} bits needs {need} payload bytes, found {len}"),
        };
        assert_eq!(BloomFilter::from_bytes(&file), Err(want), "m = {m}");
    }
    // all 65 bits set: word 0 full, bit 0 of word 1
    let mut words = [0xffu8; 16];
    words[8..].copy_from_slice(&1u64.to_le_bytes());
    let file = wire::encode(Kind::Bloom, &[65, 64, 1, 9, 2], &words);
    let f = BloomFilter::from_bytes(&file).unwrap();
    assert_eq!((f.m(), f.k(), f.seed(), f.inserted()), (65, 64, 1, 9));
    assert_eq!(
        (f.bits_set(), f.fill_ratio(), f.estimated_fpr()),
        (65, 1.0, 1.0)
    );
    assert_eq!(f.to_bytes(), file);
}

/// Pins a file without the index-scheme word: `Indexing::Unit` bits, written back byte for byte.
#[test]
fn classic_unit_indexing_file_round_trips() {
    let (m, k) = (300u64, 5u32);
    let file = wire::encode(Kind::Bloom, &[m, u64::from(k), 8, 0], &[0u8; 40]);
    let mut f = BloomFilter::from_bytes(&file).unwrap();
    assert_eq!(f.indexing(), Indexing::Unit);
    assert_eq!(f.to_bytes(), file);
    let h = hash128(&77u64, 8);
    f.insert(&77u64).unwrap();
    let want: Vec<u64> = bloom_indices_with(h, m, k, Indexing::Unit).collect();
    assert!((0..m).all(|i| f.bits().get(i) == want.contains(&i)));
    assert!(f.contains(&77u64));
    let c = wire::decode(&f.to_bytes()).unwrap().params;
    assert_eq!(c, [m, u64::from(k), 8, 1]);
}

// ---------------------------------------------------------------------------------------------
// Split block Bloom filter
// ---------------------------------------------------------------------------------------------

/// Parquet's eight salts, as the split block kind's documentation lists them.
const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// The payload after inserting the 64-bit hashes `hs` into an empty table of `blocks`, from
/// the documented layout: block `((h >> 32)·blocks) >> 32`, lane i bit `(h32·SALTᵢ) >> 26`.
fn split_block_by_hand(blocks: u64, hs: &[u64]) -> Vec<u8> {
    let mut lanes = vec![0u64; (blocks * 8) as usize];
    for &h in hs {
        let b = (((h >> 32) * blocks) >> 32) as usize;
        for (i, salt) in SALT.iter().enumerate() {
            lanes[b * 8 + i] |= 1u64 << ((h as u32).wrapping_mul(*salt) >> 26);
        }
    }
    lanes.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Pins the split block accessors by hand: m in whole blocks, 64 bytes a block, k, seed, kernel.
#[test]
fn split_block_shape_accessors_by_hand() {
    let f = SplitBlockBloomFilter::new(513, 42).unwrap();
    assert_eq!((f.m(), f.blocks(), f.k(), f.seed()), (1024, 2, 8, 42));
    assert_eq!((f.size_bytes(), f.inserted()), (128, 0));
    assert_eq!(f.kernel(), SplitBlockKernel::detect());
    assert_eq!(f.hash("x"), amq::hash::hash64("x", 42));
    for kernel in SplitBlockKernel::supported() {
        let g = f.clone().with_kernel(kernel).unwrap();
        assert_eq!((g.kernel(), g.seed(), g.size_bytes()), (kernel, 42, 128));
        assert_eq!(g, f);
    }
    let names: Vec<&str> = SplitBlockKernel::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(names, ["portable", "avx2", "avx512"]);
}

/// Pins the exact split block bits of each item on every kernel, by every insert route.
#[test]
fn split_block_items_set_the_documented_bits() {
    let blocks = 7u64;
    let keys: Vec<u64> = (0..200).collect();
    for kernel in SplitBlockKernel::supported() {
        let empty = SplitBlockBloomFilter::new(blocks * 512, 3).unwrap();
        let mut f = empty.with_kernel(kernel).unwrap();
        let hs: Vec<u64> = keys.iter().map(|k| amq::hash::hash64(k, 3)).collect();
        // a fresh item reports new bits, a repeated one none, by either route
        assert!(f.insert_hash(hs[0]) && !f.insert(&keys[0]).unwrap());
        assert!(f.insert(&keys[1]).unwrap() && !f.insert_hash(hs[1]));
        assert_eq!(
            payload(&f.to_bytes()),
            split_block_by_hand(blocks, &hs[..2])
        );
        f.insert_batch_values(&keys[2..]);
        assert_eq!(payload(&f.to_bytes()), split_block_by_hand(blocks, &hs));
        assert_eq!(f.inserted(), 202, "{kernel:?}");
        assert!(keys.iter().all(|k| f.contains(k)));
    }
}

/// Pins the split block decoder's refusals (blocks outside 1..2³², k ≠ 8, payload ≠ m/8 bytes).
#[test]
fn split_block_decoder_refuses_each_bad_shape() {
    let max = SPLIT_BLOCK_MAX_BLOCKS;
    let shape = |m: u64| Error::Corrupt {
        offset: 24,
        reason: format!("m = {m} is not 1 to {max} blocks of 512 bits"),
    };
    let size = |m: u64, found: usize| Error::Corrupt {
        offset: 24,
        reason: format!("m = {m} bits needs {} payload bytes, found {found}", m / 8),
    };
    let k7 = Error::Corrupt {
        offset: 32,
        reason: "k = 7, a split block filter has k = 8".into(),
    };
    let cases: [(u64, u64, usize, Error); 8] = [
        (0, 8, 0, shape(0)),
        (1000, 8, 125, shape(1000)),
        ((max + 1) * 512, 8, 0, shape((max + 1) * 512)),
        (max * 512, 8, 0, size(max * 512, 0)),
        (1 << 23, 8, 64, size(1 << 23, 64)),
        (2048, 8, 128, size(2048, 128)),
        (1024, 7, 128, k7),
        (0, 7, 0, shape(0)),
    ];
    for (m, k, len, want) in cases {
        let file = wire::encode(Kind::SplitBlockBloom, &[m, k, 1, 0], &vec![0u8; len]);
        let got = SplitBlockBloomFilter::from_bytes(&file);
        assert_eq!(got, Err(want), "m = {m}, k = {k}, {len} bytes");
    }
    let file = wire::encode(Kind::SplitBlockBloom, &[512, 8, 6, 2], &[0x81; 64]);
    let f = SplitBlockBloomFilter::from_bytes(&file).unwrap();
    assert_eq!(
        (f.m(), f.seed(), f.inserted(), f.bits_set()),
        (512, 6, 2, 128)
    );
    assert_eq!(f.to_bytes(), file);
}

/// Pins the split block fill X/m, ε = mean of Πᵢ (Xᵢ/64), n̂, and `expected_fpr` from the model.
#[test]
fn split_block_fill_follows_the_formulas() {
    let mut f = SplitBlockBloomFilter::new(3 * 512, 11).unwrap();
    assert_eq!((f.fill_ratio(), f.estimated_fpr()), (0.0, 0.0));
    f.insert_batch_values(&(0u64..90).collect::<Vec<_>>());
    let lanes: Vec<u64> = payload(&f.to_bytes())
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let x: u64 = lanes.iter().map(|w| u64::from(w.count_ones())).sum();
    let eps = lanes
        .chunks_exact(8)
        .map(|b| {
            b.iter()
                .map(|w| f64::from(w.count_ones()) / 64.0)
                .product::<f64>()
        })
        .sum::<f64>()
        / 3.0;
    assert_eq!(f.bits_set(), x);
    assert_eq!(f.fill_ratio(), x as f64 / 1536.0);
    assert!(
        (f.estimated_fpr() - eps).abs() < 1e-12 * eps,
        "{}",
        f.estimated_fpr()
    );
    assert!(eps > 1e-4 && eps < 0.5, "{eps}");
    assert_eq!(f.estimated_items(), split_block_estimate_items(x, 3));
    let by_hand = -64.0 * 3.0 * (1.0 - x as f64 / 1536.0).ln();
    assert!((f.estimated_items() - by_hand).abs() < 1e-9 * by_hand);
    for n in [0, 1, 90, 10_000] {
        assert_eq!(f.expected_fpr(n), split_block_fpr(n, 3), "n = {n}");
    }
    assert!(f.expected_fpr(90) > 0.0 && f.expected_fpr(90) < f.expected_fpr(10_000));
}

/// Pins split block equality as same bits, seed and n (any kernel); one difference is unequal.
#[test]
fn split_block_equality_needs_bits_seed_and_count() {
    let mut a = SplitBlockBloomFilter::new(1024, 4).unwrap();
    a.insert(&1u64).unwrap();
    for kernel in SplitBlockKernel::supported() {
        assert_eq!(a.clone().with_kernel(kernel).unwrap(), a);
    }
    let file = a.to_bytes();
    let params = wire::decode(&file).unwrap().params;
    let bits = payload(&file);
    let with = |seed: u64, n: u64, bits: &[u8]| {
        let f = wire::encode(Kind::SplitBlockBloom, &[params[0], 8, seed, n], bits);
        SplitBlockBloomFilter::from_bytes(&f).unwrap()
    };
    let mut other_bits = bits.clone();
    other_bits[127] ^= 0x80;
    assert_eq!(with(4, 1, &bits), a);
    assert_ne!(with(5, 1, &bits), a, "seed");
    assert_ne!(with(4, 2, &bits), a, "count");
    assert_ne!(with(4, 1, &other_bits), a, "bits");
}

/// Pins `with_kernel`'s refusal of a kernel this CPU lacks (vacuous on a CPU with all three).
#[test]
fn split_block_unsupported_kernel_is_refused_by_name() {
    let f = SplitBlockBloomFilter::new(512, 0).unwrap();
    for kernel in SplitBlockKernel::ALL {
        let got = f.clone().with_kernel(kernel).map(|g| g.kernel());
        if kernel.is_supported() {
            assert_eq!(got, Ok(kernel));
            continue;
        }
        let operation = match kernel {
            SplitBlockKernel::Avx512 => "the AVX-512 kernel on this CPU",
            _ => "the AVX2 kernel on this CPU",
        };
        let want = Error::Unsupported {
            kind: Kind::SplitBlockBloom.name(),
            operation,
        };
        assert_eq!(got, Err(want));
    }
}

/// Pins split block intersection as the payloads ANDed with the smaller n; another seed refused.
#[test]
fn split_block_intersection_is_the_bitwise_and() {
    let mut a = SplitBlockBloomFilter::new(4 * 512, 9).unwrap();
    let mut b = a.clone();
    a.insert_batch_values(&(0u64..60).collect::<Vec<_>>());
    b.insert_batch_values(&(40u64..70).collect::<Vec<_>>());
    let want: Vec<u8> = payload(&a.to_bytes())
        .iter()
        .zip(payload(&b.to_bytes()))
        .map(|(x, y)| x & y)
        .collect();
    a.intersect(&b).unwrap();
    assert_eq!((payload(&a.to_bytes()), a.inserted()), (want, 30));
    assert!((40u64..60).all(|i| a.contains(&i)));
    let other = SplitBlockBloomFilter::new(4 * 512, 10).unwrap();
    let want_err = Error::ShapeMismatch {
        field: "seed",
        left: 9,
        right: 10,
    };
    assert_eq!(a.intersect(&other), Err(want_err));
}

/// Pins `contains_hash_batch` answering as `contains_hash` on every kernel, members true.
#[test]
fn split_block_hash_batch_answers_as_single_queries() {
    let mut f = SplitBlockBloomFilter::new(4 * 512, 12).unwrap();
    let hs: Vec<u64> = (0u64..100).map(|i| f.hash(&i)).collect();
    for &h in &hs[..50] {
        f.insert_hash(h);
    }
    for kernel in SplitBlockKernel::supported() {
        let g = f.clone().with_kernel(kernel).unwrap();
        let mut out = vec![false; hs.len()];
        g.contains_hash_batch(&hs, &mut out);
        let single: Vec<bool> = hs.iter().map(|&h| g.contains_hash(h)).collect();
        assert_eq!(out, single, "{kernel:?}");
        assert!(out[..50].iter().all(|&b| b), "{kernel:?}");
        assert!(out[50..].iter().any(|&b| !b), "{kernel:?}");
    }
}

/// Pins the Parquet split block union (its 32-bit lanes) as the bitsets ORed byte for byte.
#[cfg(feature = "parquet")]
#[test]
fn parquet_union_is_the_bitwise_or() {
    use amq::formats::parquet::ParquetBloomFilter;
    let mut a = ParquetBloomFilter::with_num_bytes(4 * 32).unwrap();
    let mut b = a.clone();
    let mut state = 0x9a7c_u64;
    for i in 0..40 {
        let h = amq::hash::splitmix64(&mut state);
        if i < 10 {
            a.insert_hash(h)
        } else {
            b.insert_hash(h)
        };
    }
    let want: Vec<u8> = a
        .to_bitset()
        .iter()
        .zip(b.to_bitset())
        .map(|(x, y)| x | y)
        .collect();
    a.union(&b).unwrap();
    assert_eq!(a.to_bitset(), want);
    assert!(a.bits_set() > b.bits_set());
}
