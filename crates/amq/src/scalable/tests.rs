use super::*;
use crate::wire;

fn params(capacity: u64, fpr: f64) -> ScalableParams {
    ScalableParams::new(capacity, fpr)
}

#[test]
fn links_grow_by_s_and_tighten_by_r() {
    let mut f = ScalableBloomFilter::new(params(10, 0.01), 3).unwrap();
    // 10 + 20 + 40 = 70 items added fill exactly three links (an item some link already
    // answers "maybe" for adds nothing, so a few more calls may be needed)
    let mut i = 0u32;
    while f.inserted() < 70 {
        assert!(f.insert(&i).is_ok());
        i += 1;
    }
    assert!(i < 80, "{i} inserts for 70 items");
    assert_eq!(f.links(), 3);
    assert!(f.is_full());
    // a fourth link comes with the next item added
    let bytes = f.next_link_bytes().unwrap();
    while f.inserted() == 70 {
        f.insert(&i).unwrap();
        i += 1;
    }
    assert_eq!(f.links(), 4);
    assert_eq!(f.link(3).unwrap().size_bytes(), bytes);
    for i in 0..4 {
        assert_eq!(f.link_capacity(i), 10 << i);
        assert_eq!(f.link_fpr(i), 0.005 / f64::from(1u32 << i));
        let l = f.link(i).unwrap();
        let (m, k) = crate::math::bloom_size_exact_new(10 << i, f.link_fpr(i)).unwrap();
        assert_eq!((l.m(), l.k()), (m, k));
    }
    assert_eq!(f.inserted(), 71);
    assert_eq!(f.capacity(), 150);
    assert!(f.fpr_bound() <= 0.01 && f.fpr_bound() > 0.0099);
    // never above ε, rounding included (ε = 0.01, r = 0.1 summed to 0.010000000000000002)
    for (fpr, tightening) in [(0.01, 0.1), (0.3, 0.1), (0.3, 0.3), (0.7, 0.1), (0.01, 0.5)] {
        let p = ScalableParams {
            tightening,
            ..params(10, fpr)
        };
        let f = ScalableBloomFilter::new(p, 0).unwrap();
        assert!(
            f.fpr_bound() <= fpr,
            "{fpr}, r = {tightening}: {}",
            f.fpr_bound()
        );
    }
}

#[test]
fn a_filter_that_does_not_scale_is_planned_at_fpr_and_refuses_cleanly() {
    let p = ScalableParams {
        scaling: false,
        ..params(3, 0.01)
    };
    let mut f = ScalableBloomFilter::new(p, 0).unwrap();
    assert_eq!(f.link_fpr(0), 0.01);
    assert_eq!(f.fpr_bound(), 0.01);
    for i in 0..3u32 {
        assert_eq!(f.insert(&i), Ok(true));
    }
    let before = f.clone();
    assert!(matches!(f.insert(&99u32), Err(Error::Full { .. })));
    assert_eq!(f, before);
    assert_eq!(
        f.insert(&1u32),
        Ok(false),
        "an item it holds is still answered"
    );
    assert!(!f.can_grow());
    assert!(f.grow().is_err());
}

#[test]
fn a_duplicate_adds_nothing() {
    let mut f = ScalableBloomFilter::new(params(100, 0.01), 0).unwrap();
    assert_eq!(f.insert("a"), Ok(true));
    assert_eq!(f.insert("a"), Ok(false));
    assert_eq!(f.inserted(), 1);
}

#[test]
fn growth_stops_at_the_most_links() {
    let p = ScalableParams {
        expansion: 1,
        tightening: 0.9,
        ..params(1, 0.5)
    };
    let mut f = ScalableBloomFilter::new(p, 0).unwrap();
    while f.can_grow() {
        f.grow().unwrap();
    }
    assert_eq!(f.links(), MAX_LINKS);
    assert!(matches!(f.grow(), Err(Error::Full { .. })));
    assert!(f.fpr_bound() < 0.5);
}

#[test]
fn bad_parameters_are_refused() {
    for p in [
        params(0, 0.01),
        params(10, 0.0),
        params(10, 1.0),
        params(10, f64::NAN),
        ScalableParams {
            expansion: 0,
            ..params(10, 0.01)
        },
        ScalableParams {
            tightening: 1.0,
            ..params(10, 0.01)
        },
    ] {
        assert!(ScalableBloomFilter::new(p, 0).is_err(), "{p:?}");
        assert!(plan(&p).is_err(), "{p:?}");
    }
    // ε in (0, 1) whose first link's share ε·(1 − r) underflows to 0: the error says so,
    // where it said "got 0" of the ε asked for
    let tiny = params(1, 4.9e-324);
    let e = ScalableBloomFilter::new(tiny, 0).unwrap_err().to_string();
    assert!(e.contains("link 0's share of ε = 5e-324"), "{e}");
    assert!(e.contains("below the smallest positive number"), "{e}");
    assert!(ScalableBloomFilter::new(params(1, 1e-310), 0).is_ok());
}

#[test]
fn union_ors_links_and_copies_the_missing_ones() {
    let mut a = ScalableBloomFilter::new(params(100, 0.01), 5).unwrap();
    let mut b = a.clone();
    for i in 0..40u32 {
        a.insert(&i).unwrap();
    }
    for i in 100..500u32 {
        b.insert(&i).unwrap();
    }
    assert!(b.links() > 2, "b's items fill its first links");
    assert_eq!(b.link(0).unwrap().inserted(), 100);
    // a's 40 and b's 100 items would overfill the first link, planned for 100 items
    let before = a.clone();
    assert_eq!(
        a.union(&b),
        Err(Error::Full {
            items: 140,
            capacity: 100
        })
    );
    assert_eq!(a, before);
    // an empty chain of the same plan takes b's links as they are (the first OR-ed, the
    // later ones copied)
    let mut c = ScalableBloomFilter::new(params(100, 0.01), 5).unwrap();
    c.union(&b).unwrap();
    assert_eq!(c, b);
    // a's 40 items and 60 of b's fit the first link: the union holds both, with a's count
    let mut d = ScalableBloomFilter::new(params(100, 0.01), 5).unwrap();
    for i in 200..260u32 {
        d.insert(&i).unwrap();
    }
    a.union(&d).unwrap();
    assert_eq!((a.links(), a.inserted()), (1, 100));
    assert!((0..40u32).chain(200..260).all(|i| a.contains(&i)));
    let other_seed = ScalableBloomFilter::new(params(100, 0.01), 6).unwrap();
    let before = a.clone();
    assert!(matches!(
        a.union(&other_seed),
        Err(Error::ShapeMismatch { field: "seed", .. })
    ));
    assert_eq!(a, before);
}

#[test]
fn decoding_checks_every_link_against_its_plan() {
    let mut f = ScalableBloomFilter::new(params(4, 0.1), 9).unwrap();
    for i in 0..20u32 {
        f.insert(&i).unwrap();
    }
    let bytes = f.to_bytes();
    assert_eq!(ScalableBloomFilter::from_bytes(&bytes).unwrap(), f);
    // a link whose m is not the planned one
    let c = wire::decode(&bytes).unwrap();
    let mut payload = c.payload.to_vec();
    payload[0] ^= 1;
    let tampered = wire::encode(Kind::ScalableBloom, &c.params, &payload);
    assert!(matches!(
        ScalableBloomFilter::from_bytes(&tampered),
        Err(Error::Corrupt { .. })
    ));
    // more links declared than the payload holds, and absurd parameters
    for (i, v) in [(6, 40), (6, 0), (6, 65), (0, 0), (2, 0), (4, 2), (1, 0)] {
        let mut p = c.params.clone();
        p[i] = v;
        let b = wire::encode(Kind::ScalableBloom, &p, c.payload);
        assert!(
            ScalableBloomFilter::from_bytes(&b).is_err(),
            "param {i} = {v}"
        );
    }
    // a trailing word
    let mut long = c.payload.to_vec();
    long.extend_from_slice(&[0; 8]);
    let b = wire::encode(Kind::ScalableBloom, &c.params, &long);
    assert!(ScalableBloomFilter::from_bytes(&b).is_err());
    // every cut of the payload
    for cut in 0..c.payload.len() {
        let b = wire::encode(Kind::ScalableBloom, &c.params, &c.payload[..cut]);
        assert!(ScalableBloomFilter::from_bytes(&b).is_err(), "cut {cut}");
    }
}

use crate::wire::Kind;

/// Links sized before 2026-11-25 (for inserts that all count) still read, write back byte for
/// byte, and answer for their items; a link added to such a chain is sized for new items.
/// At ε = 0.2 the two sizings differ (k = 3, 4, ...: about 3% more bits per link).
#[test]
fn links_sized_for_every_item_still_read_and_new_links_are_sized_for_new_items() {
    let p = params(1000, 0.2);
    let every = |i| p.shape_by(i, plan::LinkSizing::EveryItem).unwrap();
    let new = |i| p.shape_by(i, plan::LinkSizing::NewItems).unwrap();
    assert!(
        new(0).0 > every(0).0 && new(1).0 > every(1).0,
        "{:?} {:?}",
        new(0),
        every(0)
    );
    // a two-link chain of the old shapes, as a file written then holds it: the first link
    // full, the second holding a few hundred items
    let seed = 5;
    let link = |i| BloomFilter::new(every(i).0, every(i).1, seed).unwrap();
    let mut old = ScalableBloomFilter {
        params: p,
        seed,
        links: alloc::vec![link(0)],
    };
    let mut i = 0u32;
    while !old.is_full() {
        old.try_insert_hash(old.hash(&i)).unwrap();
        i += 1;
    }
    old.links.push(link(1));
    let held = i + 500;
    while i < held {
        old.insert(&i).unwrap();
        i += 1;
    }
    assert_eq!(old.links(), 2);
    let bytes = old.to_bytes();
    let mut f = ScalableBloomFilter::from_bytes(&bytes).unwrap();
    assert_eq!(f, old);
    assert_eq!(f.to_bytes(), bytes);
    assert!((0..held).all(|i| f.contains(&i)));
    while f.links() == 2 {
        f.insert(&i).unwrap();
        i += 1;
    }
    let l = f.link(2).unwrap();
    assert_eq!((l.m(), l.k()), new(2));
    // a shape that is neither is refused
    let c = wire::decode(&bytes).unwrap();
    let mut payload = c.payload.to_vec();
    payload[..8].copy_from_slice(&(every(0).0 + 64).to_le_bytes());
    let b = wire::encode(Kind::ScalableBloom, &c.params, &payload);
    assert!(matches!(
        ScalableBloomFilter::from_bytes(&b),
        Err(Error::Corrupt { .. })
    ));
}
