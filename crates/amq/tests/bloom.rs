//! Behaviour of the two Bloom filters: no false negatives, measured false-positive rates
//! against the model, union and intersection, estimates, and the `.amq` round trip.

use amq::math::{binomial_sigma, blocked_fpr, fpr};
use amq::{BlockedBloomFilter, BloomFilter, Error, Filter, Insert, Merge};
use proptest::prelude::*;

/// Members are `prefix:i` strings; non-members use another prefix, so they are distinct items.
fn items(prefix: &str, range: std::ops::Range<u64>) -> impl Iterator<Item = String> + '_ {
    range.map(move |i| format!("{prefix}:{i}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn bloom_has_no_false_negatives(
        set in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..300),
        m in 1u64..5000,
        k in 1u32..12,
        seed in any::<u64>(),
    ) {
        let mut f = BloomFilter::new(m, k, seed).unwrap();
        for item in &set {
            f.insert(item.as_slice()).unwrap();
        }
        for item in &set {
            prop_assert!(f.contains(item.as_slice()));
        }
        let bytes = f.to_bytes();
        let g = BloomFilter::from_bytes(&bytes).unwrap();
        prop_assert_eq!(&g, &f);
    }

    #[test]
    fn blocked_has_no_false_negatives(
        set in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..300),
        m in 1u64..20_000,
        k in 1u32..=32,
        seed in any::<u64>(),
    ) {
        let mut f = BlockedBloomFilter::new(m, k, seed).unwrap();
        for item in &set {
            f.insert(item.as_slice()).unwrap();
        }
        let refs: Vec<&[u8]> = set.iter().map(Vec::as_slice).collect();
        let mut out = vec![false; refs.len()];
        f.contains_batch(&refs, &mut out);
        prop_assert!(out.iter().all(|&b| b));
        for item in &set {
            prop_assert!(f.contains(item.as_slice()));
        }
        let g = BlockedBloomFilter::from_bytes(&f.to_bytes()).unwrap();
        prop_assert_eq!(&g, &f);
    }

    #[test]
    fn batched_and_single_queries_agree(
        queries in proptest::collection::vec(any::<u64>(), 0..200),
        seed in any::<u64>(),
        k in 1u32..20,
    ) {
        // members and non-members alike: half the queries are inserted items
        let mut f = BlockedBloomFilter::new(4096, 6, seed).unwrap();
        let mut g = BloomFilter::new(3001, k, seed).unwrap();
        for q in queries.iter().step_by(2) {
            f.insert(q).unwrap();
            g.insert(q).unwrap();
        }
        for i in 0u64..200 {
            f.insert(&i).unwrap();
            g.insert(&i).unwrap();
        }
        let refs: Vec<&u64> = queries.iter().collect();
        let hashes: Vec<u128> = queries.iter().map(|q| g.hash(q)).collect();
        let (mut out, mut out_g, mut out_h) =
            (vec![false; refs.len()], vec![false; refs.len()], vec![false; refs.len()]);
        f.contains_batch(&refs, &mut out);
        g.contains_batch(&refs, &mut out_g);
        g.contains_hash_batch(&hashes, &mut out_h);
        for (i, q) in queries.iter().enumerate() {
            prop_assert_eq!(f.contains(q), out[i]);
            prop_assert_eq!(g.contains(q), out_g[i]);
            prop_assert_eq!(g.contains(q), out_h[i]);
            if i % 2 == 0 {
                prop_assert!(out[i] && out_g[i]);
            }
        }
    }
}

/// Non-members queried per measurement.
const QUERIES: u64 = 1_000_000;

/// Builds a filter for `n` members, queries `QUERIES` non-members, and checks the measured
/// rate against `model` within 3 binomial standard deviations.
fn check_rate(
    name: &str,
    n: u64,
    model: f64,
    target: f64,
    insert: &mut dyn FnMut(&str),
    contains: &dyn Fn(&str) -> bool,
) {
    for item in items("member", 0..n) {
        insert(&item);
    }
    for item in items("member", 0..n) {
        assert!(contains(&item), "{name}: false negative for {item}");
    }
    let hits = items("other", 0..QUERIES).filter(|q| contains(q)).count() as u64;
    let measured = hits as f64 / QUERIES as f64;
    let sigma = binomial_sigma(model, QUERIES);
    eprintln!("{name}: n = {n}, model {model:.6}, measured {measured:.6}, sigma {sigma:.2e}");
    assert!(
        (measured - model).abs() <= 3.0 * sigma,
        "{name}: measured {measured} vs model {model} (3 sigma = {})",
        3.0 * sigma
    );
    assert!(
        model <= target,
        "{name}: sized for {target}, model says {model}"
    );
}

#[test]
fn bloom_measured_fpr_matches_the_model() {
    for (target, seed) in [(0.01, 1u64), (0.001, 2)] {
        let n = 200_000;
        let mut f = BloomFilter::with_fpr(n, target, seed).unwrap();
        let model = fpr(n, f.m(), f.k());
        let cell = std::cell::RefCell::new(&mut f);
        check_rate(
            &format!("bloom {target}"),
            n,
            model,
            target,
            &mut |s| {
                cell.borrow_mut().insert(s).unwrap();
            },
            &|s| cell.borrow().contains(s),
        );
    }
}

#[test]
fn blocked_measured_fpr_matches_the_block_load_model() {
    for (target, seed) in [(0.01, 3u64), (0.001, 4)] {
        let n = 200_000;
        let mut f = BlockedBloomFilter::with_fpr(n, target, seed).unwrap();
        let model = blocked_fpr(n, f.blocks(), f.k());
        // the classic formula would promise less than the blocked filter delivers
        assert!(fpr(n, f.m(), f.k()) < model);
        let cell = std::cell::RefCell::new(&mut f);
        check_rate(
            &format!("blocked-bloom {target}"),
            n,
            model,
            target,
            &mut |s| {
                cell.borrow_mut().insert(s).unwrap();
            },
            &|s| cell.borrow().contains(s),
        );
    }
}

#[test]
fn union_equals_the_filter_of_the_union() {
    let a_items: Vec<String> = items("a", 0..3000).collect();
    let b_items: Vec<String> = items("b", 0..2000).collect();
    let mut a = BloomFilter::new(40_000, 5, 9).unwrap();
    let mut b = a.clone();
    let mut both = a.clone();
    for s in &a_items {
        a.insert(s.as_str()).unwrap();
        both.insert(s.as_str()).unwrap();
    }
    for s in &b_items {
        b.insert(s.as_str()).unwrap();
        both.insert(s.as_str()).unwrap();
    }
    let mut u = a.clone();
    u.merge(&b).unwrap();
    assert_eq!(u, both);

    let mut a2 = BlockedBloomFilter::new(40_000, 8, 9).unwrap();
    let mut b2 = a2.clone();
    let mut both2 = a2.clone();
    for s in &a_items {
        a2.insert(s.as_str()).unwrap();
        both2.insert(s.as_str()).unwrap();
    }
    for s in &b_items {
        b2.insert(s.as_str()).unwrap();
        both2.insert(s.as_str()).unwrap();
    }
    a2.union(&b2).unwrap();
    assert_eq!(a2, both2);
}

#[test]
fn intersection_keeps_common_items_and_lowers_the_rate() {
    let mut a = BloomFilter::new(20_000, 4, 1).unwrap();
    let mut b = a.clone();
    for s in items("common", 0..500) {
        a.insert(s.as_str()).unwrap();
        b.insert(s.as_str()).unwrap();
    }
    for s in items("only-a", 0..1500) {
        a.insert(s.as_str()).unwrap();
    }
    let before = a.fill_ratio();
    a.intersect(&b).unwrap();
    assert!(items("common", 0..500).all(|s| a.contains(s.as_str())));
    assert!(a.fill_ratio() < before);
    assert_eq!(a.inserted(), 500);

    let mut c = BlockedBloomFilter::new(20_000, 4, 1).unwrap();
    let mut d = c.clone();
    for s in items("common", 0..500) {
        c.insert(s.as_str()).unwrap();
        d.insert(s.as_str()).unwrap();
    }
    for s in items("only-c", 0..1500) {
        c.insert(s.as_str()).unwrap();
    }
    c.intersect(&d).unwrap();
    assert!(items("common", 0..500).all(|s| c.contains(s.as_str())));
}

#[test]
fn shapes_must_match() {
    let a = BloomFilter::new(1000, 3, 0).unwrap();
    for other in [
        BloomFilter::new(1001, 3, 0).unwrap(),
        BloomFilter::new(1000, 4, 0).unwrap(),
        BloomFilter::new(1000, 3, 1).unwrap(),
    ] {
        let mut x = a.clone();
        assert!(matches!(x.union(&other), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(
            x.intersect(&other),
            Err(Error::ShapeMismatch { .. })
        ));
        assert_eq!(x, a, "a refused union leaves the filter unchanged");
    }
    let mut b = BlockedBloomFilter::new(1024, 3, 0).unwrap();
    assert!(b
        .union(&BlockedBloomFilter::new(2048, 3, 0).unwrap())
        .is_err());
    assert!(b
        .union(&BlockedBloomFilter::new(1024, 3, 5).unwrap())
        .is_err());
}

#[test]
fn bad_parameters_are_errors() {
    assert!(BloomFilter::new(0, 3, 0).is_err());
    assert!(BloomFilter::new(10, 0, 0).is_err());
    assert!(BloomFilter::new(10, 65, 0).is_err());
    assert!(BlockedBloomFilter::new(0, 3, 0).is_err());
    assert!(BlockedBloomFilter::new(512, 33, 0).is_err());
    assert!(BloomFilter::with_fpr(10, 0.0, 0).is_err());
    assert!(BloomFilter::with_fpr(0, 0.1, 0).is_err());
    assert!(BloomFilter::new(u64::MAX, 3, 0).is_err());
    assert!(BlockedBloomFilter::new(u64::MAX, 3, 0).is_err());
}

#[test]
fn any_m_works_not_only_powers_of_two() {
    for m in [1u64, 2, 3, 63, 64, 65, 1000, 12_345] {
        let mut f = BloomFilter::new(m, 3, 0).unwrap();
        for i in 0u64..20 {
            f.insert(&i).unwrap();
        }
        assert!((0u64..20).all(|i| f.contains(&i)));
        assert!(f.bits_set() <= m);
        assert_eq!(f.m(), m);
    }
}

#[test]
fn estimates_track_the_truth() {
    let n = 50_000u64;
    let mut f = BloomFilter::with_fpr(n, 0.01, 5).unwrap();
    let mut g = BlockedBloomFilter::with_fpr(n, 0.01, 5).unwrap();
    for i in 0..n {
        f.insert(&i).unwrap();
        g.insert(&i).unwrap();
    }
    let ef = f.estimated_items();
    let eg = g.estimated_items();
    assert!((ef / n as f64 - 1.0).abs() < 0.02, "bloom estimate {ef}");
    assert!((eg / n as f64 - 1.0).abs() < 0.02, "blocked estimate {eg}");
    // the fill-based rate agrees with the model at the planned n
    let model = fpr(n, f.m(), f.k());
    assert!((f.estimated_fpr() / model - 1.0).abs() < 0.05);
    let model = blocked_fpr(n, g.blocks(), g.k());
    assert!((g.estimated_fpr() / model - 1.0).abs() < 0.05);
    // duplicates do not change the bits, and insert says so
    assert!(!f.insert(&7u64).unwrap());
    assert!(!g.insert(&7u64).unwrap());
    f.clear();
    g.clear();
    assert_eq!(f.bits_set(), 0);
    assert_eq!(g.bits_set(), 0);
    assert!(!f.contains(&7u64));
}

#[test]
fn hash_level_api_probes_many_filters_with_one_hash() {
    let mut a = BloomFilter::new(10_000, 5, 77).unwrap();
    let mut b = BlockedBloomFilter::new(10_000, 5, 77).unwrap();
    let h = amq::hash::hash128("shared", 77);
    assert!(a.insert_hash(h));
    assert!(b.insert_hash(h));
    assert!(a.contains("shared") && b.contains("shared"));
    assert!(a.contains_hash(h) && b.contains_hash(h));
    let mut out = [false];
    b.contains_hash_batch(&[h], &mut out);
    assert!(out[0]);
}

#[test]
fn decoding_rejects_every_truncation_and_flip() {
    let mut f = BloomFilter::new(200, 3, 1).unwrap();
    let mut g = BlockedBloomFilter::new(512, 3, 1).unwrap();
    for i in 0u64..10 {
        f.insert(&i).unwrap();
        g.insert(&i).unwrap();
    }
    for bytes in [f.to_bytes(), g.to_bytes()] {
        assert!(amq::AnyFilter::from_bytes(&bytes).is_ok());
        for cut in 0..bytes.len() {
            assert!(amq::AnyFilter::from_bytes(&bytes[..cut]).is_err());
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert!(amq::AnyFilter::from_bytes(&b).is_err(), "flip at {i}");
        }
    }
    // one kind is not the other
    assert!(matches!(
        BlockedBloomFilter::from_bytes(&f.to_bytes()),
        Err(Error::WrongKind { .. })
    ));
    assert!(matches!(
        BloomFilter::from_bytes(&g.to_bytes()),
        Err(Error::WrongKind { .. })
    ));
}

#[test]
fn a_consistent_but_lying_header_is_refused() {
    // parameters that claim more bits than the payload holds, with a valid checksum
    let bytes = amq::wire::encode(amq::wire::Kind::Bloom, &[1 << 40, 3, 0, 0], &[0u8; 8]);
    assert!(matches!(
        BloomFilter::from_bytes(&bytes),
        Err(Error::Corrupt { .. })
    ));
    let bytes = amq::wire::encode(amq::wire::Kind::Bloom, &[100, 0, 0, 0], &[0u8; 16]);
    assert!(BloomFilter::from_bytes(&bytes).is_err());
    let bytes = amq::wire::encode(amq::wire::Kind::BlockedBloom, &[500, 3, 0, 0], &[0u8; 64]);
    assert!(BlockedBloomFilter::from_bytes(&bytes).is_err());
    let bytes = amq::wire::encode(amq::wire::Kind::Bloom, &[100, 3, 0], &[0u8; 16]);
    assert!(BloomFilter::from_bytes(&bytes).is_err());
    // a stray bit past m
    let bytes = amq::wire::encode(
        amq::wire::Kind::Bloom,
        &[65, 3, 0, 0],
        &[0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
    );
    assert!(BloomFilter::from_bytes(&bytes).is_err());
}

/// A classic filter of 4 MiB or more takes the prefetching batch path: it answers as the
/// single queries do, members included.
#[test]
fn large_classic_filter_batches_agree_with_single_queries() {
    let mut f = BloomFilter::new(5 << 23, 7, 3).unwrap(); // 5 MiB of bits
    assert!(f.size_bytes() >= 4 << 20);
    for i in (0u64..20_000).step_by(2) {
        f.insert(&i).unwrap();
    }
    let queries: Vec<u64> = (0..20_000).collect();
    let refs: Vec<&u64> = queries.iter().collect();
    let hashes: Vec<u128> = queries.iter().map(|q| f.hash(q)).collect();
    let (mut out, mut out_h) = (vec![false; refs.len()], vec![false; refs.len()]);
    f.contains_batch(&refs, &mut out);
    f.contains_hash_batch(&hashes, &mut out_h);
    for (i, q) in queries.iter().enumerate() {
        assert_eq!(out[i], f.contains(q), "item {q}");
        assert_eq!(out_h[i], out[i], "item {q}");
        if q % 2 == 0 {
            assert!(out[i], "member {q} missed");
        }
    }
    assert!(out.iter().filter(|&&x| x).count() >= 10_000);
}

/// `bytes` (an `.amq` file whose parameters hold `seed` and, right after it, the insert count
/// 3) with that count set to u64::MAX and the checksum fixed: a file a hostile or corrupt
/// writer could produce, which decodes (the count is not checked against the bits).
fn with_count_at_max(mut bytes: Vec<u8>, seed: u64) -> Vec<u8> {
    let at = bytes
        .windows(16)
        .position(|w| w[..8] == seed.to_le_bytes() && w[8..] == 3u64.to_le_bytes())
        .expect("seed then inserted in the parameters")
        + 8;
    bytes[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    let n = bytes.len() - 8;
    let sum = amq::hash::checksum64(&bytes[..n]);
    bytes[n..].copy_from_slice(&sum.to_le_bytes());
    bytes
}

/// A file whose insert count is at u64::MAX takes further inserts (single and batched) and
/// keeps the count there, instead of overflowing (a panic in a debug build, a count wrapped
/// to 0 in a release build).
#[test]
fn inserts_into_a_file_whose_count_is_at_the_maximum_saturate() {
    const SEED: u64 = 0x5eed_c0de_1234_5678;
    let keys = [1u64, 2, 3];
    let mut f = BloomFilter::new(4096, 3, SEED).unwrap();
    f.insert_batch(keys);
    let mut f = BloomFilter::from_bytes(&with_count_at_max(f.to_bytes(), SEED)).unwrap();
    f.insert(&4u64).unwrap();
    f.insert_batch([5u64, 6]);
    assert_eq!(f.inserted(), u64::MAX);
    assert!(f.contains(&6u64));

    let mut f = BlockedBloomFilter::new(4096, 3, SEED).unwrap();
    for k in &keys {
        f.insert(k).unwrap();
    }
    let mut f = BlockedBloomFilter::from_bytes(&with_count_at_max(f.to_bytes(), SEED)).unwrap();
    f.insert(&4u64).unwrap();
    assert_eq!(f.inserted(), u64::MAX);

    let mut f = amq::SplitBlockBloomFilter::new(4096, SEED).unwrap();
    f.insert_batch_values(&keys);
    let bytes = with_count_at_max(f.to_bytes(), SEED);
    let mut f = amq::SplitBlockBloomFilter::from_bytes(&bytes).unwrap();
    f.insert(&4u64).unwrap();
    f.insert_batch_values(&[5u64, 6]);
    assert_eq!(f.inserted(), u64::MAX);
    assert!(f.contains(&6u64));
}
