//! The split block Bloom filter: no false negatives, ε against the model, the two kernels
//! alike, the `.amq` round trip (and every truncation an error), the registry.

use amq::math::{binomial_sigma, split_block_fpr, Spec, Target};
use amq::{AnyFilter, Filter, Insert, Merge, SplitBlockBloomFilter, SplitBlockKernel};
use proptest::prelude::*;

proptest! {
    /// Every inserted item is found, by single and batched queries, on every kernel.
    #[test]
    fn no_false_negatives(
        items in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..24), 1..300),
        seed in any::<u64>(),
        m in 1u64..20_000,
    ) {
        for kernel in SplitBlockKernel::supported() {
            let mut f = SplitBlockBloomFilter::new(m, seed).unwrap().with_kernel(kernel).unwrap();
            for item in &items {
                f.insert(item.as_slice()).unwrap();
            }
            let refs: Vec<&[u8]> = items.iter().map(Vec::as_slice).collect();
            let mut out = vec![false; refs.len()];
            f.contains_batch(&refs, &mut out);
            prop_assert!(out.iter().all(|&x| x));
            // Vec<u8> is more than eight bytes: contains_batch_values takes the other loop
            let mut by_value = vec![false; items.len()];
            f.contains_batch_values(&items, &mut by_value);
            prop_assert!(by_value.iter().all(|&x| x));
            prop_assert!(items.iter().all(|i| f.contains(i.as_slice())));
            prop_assert_eq!(f.inserted(), items.len() as u64);
            // the batch insert of the same items: the same file, bit for bit
            let mut batch = SplitBlockBloomFilter::new(m, seed).unwrap().with_kernel(kernel).unwrap();
            batch.insert_batch_values(&items);
            prop_assert_eq!(batch.to_bytes(), f.to_bytes());
        }
    }

    /// The AVX2 kernel sets the same bits and gives the same answers as the portable one.
    #[test]
    fn kernels_set_and_find_the_same_bits(
        members in proptest::collection::vec(any::<u64>(), 0..500),
        queries in proptest::collection::vec(any::<u64>(), 0..500),
        seed in any::<u64>(),
        blocks in 1u64..64,
    ) {
        let build = |kernel| {
            let mut f = SplitBlockBloomFilter::new(blocks * 512, seed)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            let fresh: Vec<bool> = members.iter().map(|x| f.insert(x).unwrap()).collect();
            (f, fresh)
        };
        let (want, want_fresh) = build(SplitBlockKernel::Portable);
        let refs: Vec<&u64> = queries.iter().collect();
        let mut want_out = vec![false; refs.len()];
        want.contains_batch(&refs, &mut want_out);
        let hashes: Vec<u64> = queries.iter().map(|q| want.hash(q)).collect();
        for kernel in SplitBlockKernel::supported() {
            let (f, fresh) = build(kernel);
            prop_assert_eq!(f.to_bytes(), want.to_bytes());
            prop_assert_eq!(&fresh, &want_fresh);
            // u64 items: the batch insert's vectorised hash loop
            let mut batch = SplitBlockBloomFilter::new(blocks * 512, seed)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            batch.insert_batch_values(&members);
            prop_assert_eq!(batch.to_bytes(), want.to_bytes());
            let mut out = vec![false; refs.len()];
            f.contains_batch(&refs, &mut out);
            prop_assert_eq!(&out, &want_out);
            f.contains_hash_batch(&hashes, &mut out);
            prop_assert_eq!(&out, &want_out);
            f.contains_batch_values(&queries, &mut out);
            prop_assert_eq!(&out, &want_out);
            for (q, &w) in queries.iter().zip(&want_out) {
                prop_assert_eq!(f.contains(q), w);
            }
        }
    }
}

/// ε measured over 2·10⁶ non-members, against the model at n, within 3 binomial σ.
#[test]
fn measured_fpr_matches_the_model() {
    for (n, fpr) in [(200_000u64, 0.01), (100_000, 0.001)] {
        let mut f = SplitBlockBloomFilter::with_fpr(n, fpr, 0x5eed).unwrap();
        for i in 0..n {
            f.insert(&i).unwrap();
        }
        let model = f.expected_fpr(n);
        assert!(model <= fpr && model > fpr * 0.9, "{model}");
        let trials = 2_000_000u64;
        let hits = (n..n + trials).filter(|i| f.contains(i)).count();
        let measured = hits as f64 / trials as f64;
        let sigma = binomial_sigma(model, trials);
        assert!(
            (measured - model).abs() <= 3.0 * sigma,
            "n = {n}: measured {measured}, model {model} ± {sigma}"
        );
        // the rate from the filter's own bits agrees with the model too
        let estimated = f.estimated_fpr();
        assert!(
            (estimated / model - 1.0).abs() < 0.05,
            "{estimated} vs {model}"
        );
        let items = f.estimated_items();
        assert!((items / n as f64 - 1.0).abs() < 0.02, "{items}");
    }
}

/// `info()` (one pass over the table, POPCNT where the CPU has it) says what the definitions
/// say, computed here from the file's bytes: X bit by bit, ε the mean over blocks of
/// `Πᵢ (Xᵢ/64)` for lanes i, the estimated items from X.
#[test]
fn info_follows_the_definitions() {
    let mut f = SplitBlockBloomFilter::new(64 * 512, 5).unwrap();
    for i in 0u64..2_500 {
        f.insert(&i).unwrap();
    }
    let bytes = f.to_bytes();
    let payload = &bytes[bytes.len() - 8 - 64 * 64..bytes.len() - 8];
    let lanes: Vec<u32> = payload
        .chunks_exact(8)
        .map(|w| (0..64).filter(|&b| w[b / 8] >> (b % 8) & 1 == 1).count() as u32)
        .collect();
    let x: u64 = lanes.iter().map(|&c| u64::from(c)).sum();
    let fpr = lanes
        .chunks_exact(8)
        .map(|b| b.iter().map(|&c| f64::from(c) / 64.0).product::<f64>())
        .sum::<f64>()
        / 64.0;
    assert!(x > 10_000 && x < 32_768, "{x}");
    let info = f.info();
    assert_eq!(f.bits_set(), x);
    assert_eq!(info.fill_ratio, x as f64 / 32_768.0);
    // the filter sums exact integer products, this test rounded floats: equal to 1e-12
    assert!(
        (info.estimated_fpr / fpr - 1.0).abs() < 1e-12,
        "{} {fpr}",
        info.estimated_fpr
    );
    assert_eq!(f.estimated_fpr(), info.estimated_fpr);
    assert_eq!(
        info.estimated_items,
        amq::math::split_block_estimate_items(x, 64)
    );
}

#[test]
fn shape_and_sizing() {
    let f = SplitBlockBloomFilter::new(1000, 7).unwrap();
    assert_eq!(
        (f.blocks(), f.m(), f.k(), f.size_bytes()),
        (2, 1024, 8, 128)
    );
    assert!(SplitBlockBloomFilter::new(0, 7).is_err());
    assert!(SplitBlockBloomFilter::new(1 << 41 | 1, 7).is_err());
    let g = SplitBlockBloomFilter::with_fpr(1_000_000, 0.01, 0).unwrap();
    assert!(split_block_fpr(1_000_000, g.blocks()) <= 0.01);
    assert!(split_block_fpr(1_000_000, g.blocks() - 1) > 0.01);
    // Boost.Bloom's fast_multiblock32<8> gives 0.54% at 12 bits per key; this layout 0.42%
    let at12 = split_block_fpr(1_000_000, 1_000_000 * 12 / 512);
    assert!(at12 < 0.0045, "{at12}");
}

#[test]
fn union_intersect_clear() {
    let mut a = SplitBlockBloomFilter::new(4096, 1).unwrap();
    let mut b = SplitBlockBloomFilter::new(4096, 1).unwrap();
    let mut both = SplitBlockBloomFilter::new(4096, 1).unwrap();
    for i in 0u64..100 {
        a.insert(&i).unwrap();
        both.insert(&i).unwrap();
    }
    for i in 100u64..200 {
        b.insert(&i).unwrap();
        both.insert(&i).unwrap();
    }
    let mut u = a.clone();
    u.merge(&b).unwrap();
    assert_eq!(u, both);
    let mut x = both.clone();
    x.intersect(&a).unwrap();
    assert!((0u64..100).all(|i| x.contains(&i)));
    let other_seed = SplitBlockBloomFilter::new(4096, 2).unwrap();
    let other_size = SplitBlockBloomFilter::new(8192, 1).unwrap();
    assert!(u.union(&other_seed).is_err() && u.union(&other_size).is_err());
    assert_eq!(u, both, "a refused union leaves the filter unchanged");
    u.clear();
    assert_eq!((u.bits_set(), u.inserted()), (0, 0));
}

#[test]
fn round_trip_and_every_truncation_is_an_error() {
    let mut f = SplitBlockBloomFilter::new(3 * 512, 99).unwrap();
    for w in ["apple", "banana", "cherry", ""] {
        f.insert(w).unwrap();
    }
    let bytes = f.to_bytes();
    let g = SplitBlockBloomFilter::from_bytes(&bytes).unwrap();
    assert_eq!(g, f);
    assert_eq!(g.to_bytes(), bytes);
    assert!(["apple", "banana", "cherry", ""]
        .iter()
        .all(|w| g.contains(*w)));
    for len in 0..bytes.len() {
        assert!(
            SplitBlockBloomFilter::from_bytes(&bytes[..len]).is_err(),
            "{len}"
        );
    }
    // a blocked Bloom filter's file is another kind
    let blocked = amq::BlockedBloomFilter::new(1024, 8, 99).unwrap();
    assert!(matches!(
        SplitBlockBloomFilter::from_bytes(&blocked.to_bytes()),
        Err(amq::Error::WrongKind { .. })
    ));
}

/// Files whose parameters disagree with their payload are refused, checksum fixed or not.
#[test]
fn inconsistent_parameters_are_refused() {
    let payload = vec![0u8; 128];
    for params in [
        [1024u64, 7, 0, 0], // k not 8
        [1000, 8, 0, 0],    // not whole blocks
        [0, 8, 0, 0],       // no blocks
        [2048, 8, 0, 0],    // payload too short
        [1 << 60, 8, 0, 0], // more blocks than allowed
    ] {
        let bytes = amq::wire::encode(amq::wire::Kind::SplitBlockBloom, &params, &payload);
        assert!(
            SplitBlockBloomFilter::from_bytes(&bytes).is_err(),
            "{params:?}"
        );
    }
    let ok = amq::wire::encode(amq::wire::Kind::SplitBlockBloom, &[1024, 8, 5, 3], &payload);
    let f = SplitBlockBloomFilter::from_bytes(&ok).unwrap();
    assert_eq!((f.m(), f.seed(), f.inserted()), (1024, 5, 3));
}

#[test]
fn registry_round_trip() {
    let spec = Spec::SplitBlockBloom {
        items: 1000,
        target: Target::Fpr(0.01),
    };
    let plan = amq::math::plan(&spec).unwrap();
    assert_eq!((plan.kind().name(), plan.k), ("split-block-bloom", 8));
    assert!(plan.fpr <= 0.01 && plan.m_bits.is_multiple_of(512));
    let mut f = AnyFilter::new(&spec, 7).unwrap();
    assert_eq!(f.info().m_bits, plan.m_bits);
    for i in 0u64..1000 {
        f.insert(&i.to_le_bytes()).unwrap();
    }
    let bytes = f.to_bytes();
    let g = AnyFilter::from_bytes(&bytes).unwrap();
    assert_eq!(g, f);
    let info = g.info();
    assert_eq!(info.kind(), amq::wire::Kind::SplitBlockBloom);
    assert_eq!((info.k, info.inserted, info.bytes), (8, 1000, plan.bytes));
    assert!(
        matches!(info.details, amq::Details::SplitBlockBloom { blocks } if blocks * 512 == plan.m_bits)
    );
    assert_eq!(g.contains(&5u64.to_le_bytes()), Ok(true));
    let items: Vec<[u8; 8]> = (0u64..1000).map(u64::to_le_bytes).collect();
    let refs: Vec<&[u8]> = items.iter().map(|i| i.as_slice()).collect();
    let mut out = vec![false; refs.len()];
    g.contains_batch(&refs, &mut out).unwrap();
    assert!(out.iter().all(|&x| x));
    let mut h = g.clone();
    h.merge(&g).unwrap();
    assert!(h.remove(b"x").is_err(), "a Bloom filter does not delete");
    // the spec is sized from n and a target, k fixed at 8
    let sized = Spec::sized(
        amq::wire::Kind::SplitBlockBloom,
        1000,
        Target::Fpr(0.01),
        None,
    );
    assert_eq!(sized.unwrap(), spec);
    assert!(Spec::sized(
        amq::wire::Kind::SplitBlockBloom,
        10,
        Target::Bits(512),
        Some(3)
    )
    .is_err());
    assert_eq!(
        amq::wire::Kind::from_name("split-block-bloom"),
        Some(amq::wire::Kind::SplitBlockBloom)
    );
    assert_eq!(
        amq::wire::Kind::from_code(11),
        Some(amq::wire::Kind::SplitBlockBloom)
    );
}

/// A split block filter is planned up to `SPLIT_BLOCK_MAX_BLOCKS` blocks given as bits or
/// bytes, and refused past it (bits rounded up to a block, bytes down).
#[test]
fn planned_sizes_stop_at_the_largest_filter() {
    use amq::math::{plan, SPLIT_BLOCK_MAX_BLOCKS as MAX};
    let planned = |target| {
        plan(&Spec::SplitBlockBloom {
            items: 1000,
            target,
        })
    };
    for target in [Target::Bits(MAX * 512), Target::Memory(MAX * 64 + 63)] {
        let p = planned(target).unwrap();
        assert_eq!((p.m_bits, p.bytes), (MAX * 512, MAX * 64), "{target:?}");
    }
    for target in [
        Target::Bits(MAX * 512 + 1),
        Target::Memory((MAX + 1) * 64),
        Target::Bits(u64::MAX),
        Target::Memory(u64::MAX),
    ] {
        let e = planned(target).unwrap_err();
        assert!(
            matches!(e, amq::Error::InvalidParameter { name: "m", .. }),
            "{target:?}: {e}"
        );
    }
}
