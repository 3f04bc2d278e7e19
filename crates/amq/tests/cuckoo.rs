//! The cuckoo filter: no false negatives (also after deletes of other items), the load it
//! reaches, its measured false-positive rate against the formula, and its file format.

use amq::cuckoo::{self, CuckooFilter};
use amq::math::binomial_sigma;
use amq::{AnyFilter, BloomFilter, Error, Filter, Insert, Remove};
use proptest::prelude::*;
use std::collections::HashMap;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A model: a multiset of items in a HashMap. Inserts and removes in any order; every
    /// item the model holds is found, and its copy count is at least the model's.
    #[test]
    fn no_false_negatives_after_deletes_of_other_items(
        ops in proptest::collection::vec((any::<bool>(), 0u16..400), 0..1500),
        f in prop_oneof![Just(8u32), Just(12), Just(16)],
        buckets in 1u64..200,
        seed in any::<u64>(),
    ) {
        let mut filter = CuckooFilter::new(buckets, f, seed).unwrap();
        let mut model: HashMap<u16, u32> = HashMap::new();
        for (insert, item) in ops {
            if insert {
                let before = filter.clone();
                match filter.insert(&item) {
                    Ok(_) => *model.entry(item).or_default() += 1,
                    Err(Error::Full { .. }) => {
                        prop_assert!(filter.stash_used());
                        prop_assert_eq!(&filter, &before);
                    }
                    Err(e) => return Err(TestCaseError::fail(e.to_string())),
                }
            } else if model.get(&item).copied().unwrap_or(0) > 0 {
                // only remove what was inserted
                prop_assert!(filter.remove(&item));
                *model.get_mut(&item).unwrap() -= 1;
            }
            prop_assert_eq!(filter.inserted(), model.values().map(|&c| u64::from(c)).sum::<u64>());
            for (item, &copies) in &model {
                if copies > 0 {
                    prop_assert!(filter.contains(item), "false negative for {}", item);
                    prop_assert!(filter.count(item) >= copies);
                }
            }
        }
        let decoded = CuckooFilter::from_bytes(&filter.to_bytes()).unwrap();
        prop_assert_eq!(&decoded, &filter);
    }

    /// Byte-string items of any length, and the hash-level API agrees with the item API.
    #[test]
    fn byte_items_are_always_found(
        set in proptest::collection::hash_set(proptest::collection::vec(any::<u8>(), 0..40), 0..300),
        seed in any::<u64>(),
    ) {
        let mut f = CuckooFilter::with_fpr(set.len().max(1) as u64, 0.01, seed).unwrap();
        for item in &set {
            f.insert(item.as_slice()).unwrap();
        }
        for item in &set {
            prop_assert!(f.contains(item.as_slice()));
            prop_assert!(f.contains_hash(amq::hash::hash128(item.as_slice(), seed)));
        }
    }
}

/// Inserts items `0, 1, 2, ...` until the first refusal; returns the load factor reached.
fn fill_until_full(f: &mut CuckooFilter) -> f64 {
    let mut i = 0u64;
    loop {
        match f.insert(&i) {
            Ok(_) => i += 1,
            Err(Error::Full { items, .. }) => {
                assert_eq!(items, i);
                return f.load_factor();
            }
            Err(e) => panic!("{e}"),
        }
    }
}

#[test]
fn load_before_the_first_failed_insert_is_at_least_95_percent() {
    for f in cuckoo::FINGERPRINT_BITS {
        let mut filter = CuckooFilter::with_capacity(1_000_000, f, 42).unwrap();
        let load = fill_until_full(&mut filter);
        eprintln!(
            "f = {f}: {} buckets, load {load:.5} at the first refusal",
            filter.buckets()
        );
        assert!(load >= 0.95, "f = {f}: load {load}");
        // every item inserted before the refusal is still there
        let n = filter.inserted();
        assert!((0..n).all(|i| filter.contains(&i)));
    }
}

/// Non-members queried per measurement.
const QUERIES: u64 = 2_000_000;

#[test]
fn measured_fpr_matches_the_formula() {
    for f in cuckoo::FINGERPRINT_BITS {
        let n = 200_000u64;
        let mut filter = CuckooFilter::with_capacity(n, f, 7).unwrap();
        for i in 0..n {
            filter.insert(format!("member-{i}").as_str()).unwrap();
        }
        let load = filter.load_factor();
        assert!((load - 0.95).abs() < 1e-3, "{load}");
        let hits = (0..QUERIES)
            .filter(|i| filter.contains(format!("other-{i}").as_str()))
            .count() as u64;
        let measured = hits as f64 / QUERIES as f64;
        // the paper's 1 − (1 − 2^−f)^(2bα), and the same with this implementation's
        // fingerprints, uniform over the 2^f − 1 non-zero values
        for (name, model) in [
            ("paper", cuckoo::fpr(f, load)),
            ("exact", cuckoo::fpr_exact(f, load)),
        ] {
            let sigma = binomial_sigma(model, QUERIES);
            eprintln!(
                "f = {f}, α = {load:.4}: {name} {model:.6e}, measured {measured:.6e} \
                 ({:+.2} σ)",
                (measured - model) / sigma
            );
            assert!(
                (measured - model).abs() <= 3.0 * sigma,
                "f = {f}: measured {measured} vs {name} {model} (3σ = {})",
                3.0 * sigma
            );
        }
        assert!((filter.estimated_fpr() - cuckoo::fpr_exact(f, load)).abs() < 1e-15);
    }
}

#[test]
fn sized_from_n_and_fpr_meets_the_target() {
    for (n, e) in [(1000u64, 0.05), (50_000, 0.01), (50_000, 0.0005)] {
        let mut f = CuckooFilter::with_fpr(n, e, 1).unwrap();
        for i in 0..n {
            f.insert(&i).unwrap();
        }
        assert!(f.load_factor() <= cuckoo::planned_load(n));
        assert!(
            f.estimated_fpr() <= e,
            "n = {n}, ε = {e}: {}",
            f.estimated_fpr()
        );
        assert!(!f.stash_used());
    }
    assert!(CuckooFilter::with_fpr(1000, 1e-5, 0).is_err());
    // n = 0 is refused, as by plan and by the Bloom kinds' with_fpr
    for e in [
        CuckooFilter::with_fpr(0, 0.01, 0).unwrap_err(),
        BloomFilter::with_fpr(0, 0.01, 0).unwrap_err(),
    ] {
        assert!(
            matches!(e, Error::InvalidParameter { name: "n", .. }),
            "{e}"
        );
    }
}

/// A filter sized for n items takes n items, small ones too: 300 seeds for each of a spread of
/// small n (the margin of `planned_load`; the doc there gives the 4.4-million-fill sweep).
#[test]
fn small_filters_sized_for_n_take_n_items() {
    let mut refused = Vec::new();
    for n in (1u64..=64).chain([65, 100, 128, 200, 256, 300, 512, 777, 1000, 1024, 2048]) {
        for seed in 0..300u64 {
            let mut f = CuckooFilter::with_capacity(n, 8, seed).unwrap();
            if (0..n).any(|i| f.insert(&(seed << 32 | i)).is_err()) {
                refused.push((n, seed));
            }
        }
    }
    assert!(
        refused.is_empty(),
        "refused before the n-th item: {refused:?}"
    );
}

#[test]
fn removing_frees_room_for_new_items() {
    let mut f = CuckooFilter::new(64, 8, 3).unwrap();
    fill_until_full(&mut f);
    let full = f.inserted();
    for i in 0..full / 2 {
        assert!(f.remove(&i));
    }
    for i in full..full + full / 2 {
        f.insert(&i).unwrap();
    }
    assert!((full / 2..full + full / 2).all(|i| f.contains(&i)));
}

#[test]
fn through_any_filter() {
    let mut f = CuckooFilter::with_fpr(1000, 0.01, 5).unwrap();
    for i in 0..500u32 {
        f.insert(&i).unwrap();
    }
    let bytes = f.to_bytes();
    let mut any = AnyFilter::from_bytes(&bytes).unwrap();
    assert_eq!(any.kind(), amq::wire::Kind::Cuckoo);
    assert_eq!(any.to_bytes(), bytes);
    assert!(any.contains(&7u32.to_le_bytes()).unwrap());
    let info = any.info();
    assert_eq!(info.kind().name(), "cuckoo");
    assert_eq!(info.inserted, 500);
    assert_eq!(info.m_bits, f.buckets() * 4 * 12);
    let amq::Details::Cuckoo {
        fingerprint_bits,
        load_factor,
        ..
    } = info.details
    else {
        panic!("cuckoo details expected, got {:?}", info.details);
    };
    assert_eq!(fingerprint_bits, 12);
    assert!((load_factor - f.load_factor()).abs() < 1e-12);
    assert!(any.insert(b"new").unwrap());
    // merge: same shape unites, another kind or shape is refused
    let mut g = CuckooFilter::with_fpr(1000, 0.01, 5).unwrap();
    g.insert("from g").unwrap();
    any.merge(&AnyFilter::Cuckoo(g)).unwrap();
    assert!(any.contains(b"from g").unwrap());
    let bloom = AnyFilter::Bloom(amq::BloomFilter::new(64, 2, 5).unwrap());
    assert!(matches!(any.merge(&bloom), Err(Error::WrongKind { .. })));
    let other = AnyFilter::Cuckoo(CuckooFilter::with_fpr(1000, 0.001, 5).unwrap());
    assert!(matches!(
        any.merge(&other),
        Err(Error::ShapeMismatch { .. })
    ));
}

/// The `.amq` checksum over `bytes[..len - 8]`, rewritten in place, so a test can reach the
/// cuckoo decoder's own checks behind the container's.
fn fix_checksum(bytes: &mut [u8]) {
    let n = bytes.len() - 8;
    let sum = amq::hash::checksum64(&bytes[..n]);
    bytes[n..].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn decoding_rejects_every_truncation_and_flip() {
    let mut f = CuckooFilter::new(5, 12, 1).unwrap();
    fill_until_full(&mut f); // with a victim in the stash
    let bytes = f.to_bytes();
    assert_eq!(CuckooFilter::from_bytes(&bytes).unwrap(), f);
    for cut in 0..bytes.len() {
        assert!(
            CuckooFilter::from_bytes(&bytes[..cut]).is_err(),
            "cut {cut}"
        );
    }
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x10;
        assert!(CuckooFilter::from_bytes(&b).is_err(), "flip at {i}");
    }
}

#[test]
fn a_consistent_but_lying_header_is_refused() {
    let mut f = CuckooFilter::new(5, 16, 1).unwrap();
    for i in 0..10u32 {
        f.insert(&i).unwrap();
    }
    let good = f.to_bytes();
    // parameter words start at byte 24: f, b, buckets, seed, len, victim fp, victim bucket
    let cases: [(usize, u64); 9] = [
        (0, 10),               // f = 10 is not supported
        (0, 8),                // f = 8 does not match the payload length
        (1, 8),                // 8 slots per bucket
        (2, 0),                // no buckets
        (2, 1 << 60),          // more buckets than the payload holds
        (4, 11),               // 11 fingerprints claimed, 10 held
        (5, 1 << 16),          // a victim wider than f
        (6, 3),                // a victim bucket without a victim
        (2, u64::MAX / 4 + 1), // buckets · 8 overflows
    ];
    for (word, value) in cases {
        let mut b = good.clone();
        b[24 + 8 * word..32 + 8 * word].copy_from_slice(&value.to_le_bytes());
        fix_checksum(&mut b);
        assert!(
            matches!(CuckooFilter::from_bytes(&b), Err(Error::Corrupt { .. })),
            "word {word} = {value}: {:?}",
            CuckooFilter::from_bytes(&b)
        );
    }
    // a victim in a bucket past the end
    let mut b = good.clone();
    b[24 + 40..24 + 48].copy_from_slice(&5u64.to_le_bytes());
    b[24 + 48..24 + 56].copy_from_slice(&5u64.to_le_bytes());
    b[24 + 32..24 + 40].copy_from_slice(&11u64.to_le_bytes());
    fix_checksum(&mut b);
    assert!(CuckooFilter::from_bytes(&b).is_err());
    // another kind
    let bloom = amq::BloomFilter::new(64, 2, 0).unwrap().to_bytes();
    assert!(matches!(
        CuckooFilter::from_bytes(&bloom),
        Err(Error::WrongKind { .. })
    ));
}
