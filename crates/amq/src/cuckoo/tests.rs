use super::*;
use alloc::vec;

/// Slot j of a bucket, read the slow way: bit by bit from the byte table.
fn slot_by_bits(table: &[u8], f: u32, i: u64, j: u32) -> u32 {
    let start = i * u64::from(4 * f) + u64::from(j * f);
    (0..f)
        .map(|b| {
            let bit = start + u64::from(b);
            u32::from((table[(bit / 8) as usize] >> (bit % 8)) & 1) << b
        })
        .sum()
}

#[test]
fn swar_kernels_agree_with_slot_by_slot_reads() {
    for f in FINGERPRINT_BITS {
        let mut table = vec![0u8; 5 * (f / 2) as usize + PAD];
        let mut rng = u64::from(f);
        for _ in 0..2000 {
            let i = splitmix(&mut rng) % 5;
            let fp = (splitmix(&mut rng) % ((1 << f) - 1)) as u32 + 1;
            let op = splitmix(&mut rng) % 3;
            let before: Vec<u32> = (0..4).map(|j| slot_by_bits(&table, f, i, j)).collect();
            let neighbours: Vec<u32> = (0..5)
                .filter(|&k| k != i)
                .flat_map(|k| (0..4).map(move |j| (k, j)))
                .map(|(k, j)| slot_by_bits(&table, f, k, j))
                .collect();
            match op {
                0 => {
                    let placed = with_f!(f, F => Lanes::<F>::try_place(&mut table, i, fp));
                    let free = before.iter().position(|&s| s == 0);
                    assert_eq!(placed, free.is_some());
                    if let Some(j) = free {
                        assert_eq!(slot_by_bits(&table, f, i, j as u32), fp);
                    }
                }
                1 => {
                    let removed = with_f!(f, F => Lanes::<F>::remove(&mut table, i, fp));
                    let at = before.iter().position(|&s| s == fp);
                    assert_eq!(removed, at.is_some());
                    if let Some(j) = at {
                        assert_eq!(slot_by_bits(&table, f, i, j as u32), 0);
                    }
                }
                _ => {
                    let j = (splitmix(&mut rng) % 4) as u32;
                    let old = with_f!(f, F => Lanes::<F>::swap(&mut table, i, j, fp));
                    assert_eq!(old, before[j as usize]);
                    assert_eq!(slot_by_bits(&table, f, i, j), fp);
                }
            }
            // the other buckets never change, whatever the packing
            let after: Vec<u32> = (0..5)
                .filter(|&k| k != i)
                .flat_map(|k| (0..4).map(move |j| (k, j)))
                .map(|(k, j)| slot_by_bits(&table, f, k, j))
                .collect();
            assert_eq!(after, neighbours, "f = {f}");
            // lookups and counts against the slow reads
            for q in [fp, before[0].max(1), 1, (1 << f) - 1] {
                let slots: Vec<u32> = (0..4).map(|j| slot_by_bits(&table, f, i, j)).collect();
                let want = slots.iter().filter(|&&s| s == q).count() as u32;
                let other = (i + 1) % 5;
                assert_eq!(with_f!(f, F => Lanes::<F>::count(&table, i, q)), want);
                assert_eq!(
                    with_f!(f, F => Lanes::<F>::has(&table, i, i, q)),
                    want > 0,
                    "f = {f}, slots {slots:?}, q {q}"
                );
                let both = want + with_f!(f, F => Lanes::<F>::count(&table, other, q));
                assert_eq!(
                    with_f!(f, F => Lanes::<F>::has(&table, i, other, q)),
                    both > 0
                );
            }
        }
    }
}

#[test]
fn the_alternate_bucket_is_an_involution_for_any_bucket_count() {
    for buckets in [1u64, 2, 3, 7, 1000, 1 << 20, (1 << 20) + 1] {
        let mut rng = buckets;
        for _ in 0..1000 {
            let i = splitmix(&mut rng) % buckets;
            let fp = (splitmix(&mut rng) % 65535) as u32 + 1;
            let j = cuckoo_alt_index(i, fp, buckets);
            assert!(j < buckets);
            assert_eq!(cuckoo_alt_index(j, fp, buckets), i);
        }
    }
}

#[test]
fn a_full_table_keeps_every_item_and_refuses_cleanly() {
    // 8 buckets, 32 slots: fill until the first refusal.
    let mut f = CuckooFilter::new(8, 8, 3).unwrap();
    let mut held = Vec::new();
    let mut refused = None;
    for i in 0u32..100 {
        match f.insert(&i) {
            Ok(_) => held.push(i),
            Err(Error::Full { items, capacity }) => {
                assert_eq!(items, held.len() as u64);
                assert_eq!(capacity, 33);
                refused = Some(i);
                break;
            }
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    let refused = refused.expect("a 32-slot table refuses an item before the 100th");
    assert!(f.stash_used());
    assert_eq!(f.inserted(), held.len() as u64);
    assert!(held.len() >= 29, "only {} of 32 slots used", held.len());
    let before = f.clone();
    for &i in &held {
        assert!(f.contains(&i), "lost {i}");
    }
    // a refused insert changes nothing
    assert!(f.insert(&refused).is_err());
    assert_eq!(f, before);
    // removing any item empties the stash, and the victim is still found
    assert!(f.remove(&held[0]));
    assert!(!f.stash_used());
    assert_eq!(f.inserted(), held.len() as u64 - 1);
    for &i in &held[1..] {
        assert!(f.contains(&i), "lost {i} after a removal");
    }
}

#[test]
fn the_victim_can_be_removed_and_counted() {
    let mut f = CuckooFilter::new(4, 16, 0).unwrap();
    let mut held = Vec::new();
    for i in 0u32..100 {
        if f.insert(&i).is_err() {
            break;
        }
        held.push(i);
    }
    assert!(f.stash_used());
    let (vb, vfp) = (f.victim_bucket, f.victim_fp);
    // the item whose fingerprint is in the stash
    let victim = *held
        .iter()
        .find(|&&i| {
            let (i1, fp) = f.locate(f.hash(&i));
            fp == vfp && (i1 == vb || f.alt(i1, fp) == vb)
        })
        .expect("the victim is one of the items");
    assert_eq!(f.count(&victim), 1);
    assert!(f.remove(&victim));
    assert!(!f.stash_used());
    assert_eq!(f.count(&victim), 0);
    for &i in held.iter().filter(|&&i| i != victim) {
        assert!(f.contains(&i));
    }
}

#[test]
fn copies_are_counted_and_removed_one_at_a_time() {
    let mut f = CuckooFilter::new(64, 12, 9).unwrap();
    assert!(f.insert("x").unwrap());
    for _ in 0..7 {
        assert!(!f.insert("x").unwrap());
    }
    assert_eq!(f.count("x"), 8); // 2b copies: both buckets full of "x"
    assert_eq!(f.inserted(), 8);
    for left in (0..8).rev() {
        assert!(f.remove("x"));
        assert_eq!(f.count("x"), left);
    }
    assert!(!f.remove("x"));
    assert!(!f.contains("x"));
    assert!(f.is_empty());
}

#[test]
fn sizing_follows_the_paper() {
    // f = ⌈log2(2b/ε)⌉, rounded up to 8, 12 or 16
    for (e, f) in [
        (0.5, 8),
        (0.0313, 8),
        (0.031, 12),
        (0.002, 12),
        (0.00195, 16),
        (1.23e-4, 16),
    ] {
        assert_eq!(fingerprint_bits_for(e).unwrap(), f, "ε = {e}");
    }
    assert!(fingerprint_bits_for(1.2e-4).is_err());
    assert!(fingerprint_bits_for(0.0).is_err());
    assert!(fingerprint_bits_for(1.0).is_err());
    assert!(fingerprint_bits_for(f64::NAN).is_err());
    assert_eq!(buckets_for(0).unwrap(), 1);
    assert_eq!(buckets_for(38_000).unwrap(), 10_000); // ⌈n / (4 · 0.95)⌉
    assert_eq!(buckets_for(38_001).unwrap(), 10_001);
    assert_eq!(buckets_for(38).unwrap(), 14); // ⌈38 / (4 · (0.97 − 1.5/√38))⌉: small-table margin
    let p = plan(1_000_000, Target::Fpr(0.01)).unwrap();
    assert_eq!((p.fingerprint_bits, p.buckets), (12, 263_158));
    assert!(p.fpr <= 0.01 && p.fpr_exact <= 0.01);
    assert!(plan(0, Target::Fpr(0.01)).is_err());
    assert!(plan(1000, Target::Bits(1000)).is_err());
    let q = plan(1000, Target::Bits(64_000)).unwrap();
    assert_eq!(q.fingerprint_bits, 16);
    assert!(q.m_bits <= 64_000);
}

#[test]
fn the_formula_matches_the_paper_at_full_load() {
    // ε ≈ 2b/2^f for small ε: f = 12, α = 1 gives 8/4096 ≈ 0.00195
    let e = fpr(12, 1.0);
    assert!((e - 8.0 / 4096.0).abs() < 1e-5, "{e}");
    assert!(fpr_exact(8, 0.95) > fpr(8, 0.95));
    assert!((fpr_exact(8, 0.95) / fpr(8, 0.95) - 1.0).abs() < 0.005);
    assert_eq!(fpr(16, 0.0), 0.0);
}

#[test]
fn bad_shapes_are_refused() {
    assert!(CuckooFilter::new(0, 8, 0).is_err());
    assert!(CuckooFilter::new(MAX_BUCKETS + 1, 8, 0).is_err());
    for f in [0, 4, 7, 9, 32] {
        assert!(CuckooFilter::new(10, f, 0).is_err(), "f = {f}");
    }
}

#[test]
fn union_is_a_multiset_union_and_atomic() {
    let mut a = CuckooFilter::new(100, 12, 5).unwrap();
    let mut b = CuckooFilter::new(100, 12, 5).unwrap();
    for i in 0u32..150 {
        a.insert(&i).unwrap();
    }
    for i in 100u32..250 {
        b.insert(&i).unwrap();
    }
    let mut u = a.clone();
    u.union(&b).unwrap();
    assert_eq!(u.inserted(), 300);
    assert!((0u32..250).all(|i| u.contains(&i)));
    assert_eq!(u.count(&120u32), 2);
    // too much for one table: refused, and nothing changed
    let mut big = CuckooFilter::new(100, 12, 5).unwrap();
    for i in 1000u32..1300 {
        big.insert(&i).unwrap();
    }
    let before = u.clone();
    assert!(matches!(u.union(&big), Err(Error::Full { .. })));
    assert_eq!(u, before);
    let other_seed = CuckooFilter::new(100, 12, 6).unwrap();
    assert!(matches!(
        u.union(&other_seed),
        Err(Error::ShapeMismatch { field: "seed", .. })
    ));
}

#[test]
fn round_trip_with_and_without_a_victim() {
    for f in FINGERPRINT_BITS {
        let mut c = CuckooFilter::new(3, f, 11).unwrap();
        for i in 0u32..100 {
            if c.insert(&i).is_err() {
                break;
            }
            let d = CuckooFilter::from_bytes(&c.to_bytes()).unwrap();
            assert_eq!(d, c);
        }
        assert!(c.stash_used());
    }
}

#[test]
fn batched_and_single_queries_agree() {
    for f in FINGERPRINT_BITS {
        let mut c = CuckooFilter::new(7, f, 2).unwrap();
        for i in 0u64..200 {
            if c.insert(&i).is_err() {
                break;
            }
        }
        assert!(c.stash_used()); // the victim is answered too
        for len in [0usize, 1, 15, 16, 17, 500] {
            let items: Vec<u64> = (0..len as u64).map(|i| i * 3).collect();
            let refs: Vec<&u64> = items.iter().collect();
            let mut out = vec![false; len];
            c.contains_batch(&refs, &mut out);
            let hashes: Vec<u128> = items.iter().map(|i| c.hash(i)).collect();
            let mut out2 = vec![false; len];
            c.contains_hash_batch(&hashes, &mut out2);
            let single: Vec<bool> = items.iter().map(|i| c.contains(i)).collect();
            assert_eq!(out, single, "f = {f}, len = {len}");
            assert_eq!(out2, single);
        }
    }
}
