//! Edges of the scalable Bloom filter (`src/scalable/`) that the other tests do not pin: the
//! chain's totals as sums over its links, the compound rates `1 − Πᵢ(1 − εᵢ)` from each
//! link, the active link's fullness at its capacity n₀·sⁱ, the plan of the first link at
//! ε·(1 − r), the decoder's refusals of the parameter words, and `Merge` as the union. Each
//! test here was written against a mutant of `src/scalable/*.rs` that cargo-mutants found the
//! other tests let through.

use amq::math::{self, bloom_size_exact_new, fpr_exact_new, PlanDetails};
use amq::scalable::{self, link_capacity, link_fpr, ScalableBloomFilter, ScalableParams};
use amq::{Error, Filter, Insert, Merge};

#[path = "common/files.rs"]
mod files;
use files::edited;

/// A chain of n₀ = 10 at ε = 1% (s = 2, r = ½) with three links: 10 + 20 + 40 items, and a
/// few in the fourth.
fn three_links() -> ScalableBloomFilter {
    let mut f = ScalableBloomFilter::new(ScalableParams::new(10, 0.01), 7).unwrap();
    let mut i = 0u32;
    while f.links() < 4 || f.inserted() < 75 {
        f.insert(&i).unwrap();
        i += 1;
    }
    f
}

/// Pins the chain's totals as sums over its links (m, bytes, set bits, estimated items),
/// the fill as X/m of the sums, k as the newest link's, and the seed and index scheme.
#[test]
fn totals_are_sums_over_the_links() {
    let f = three_links();
    let links: Vec<_> = (0..f.links()).map(|i| f.link(i).unwrap()).collect();
    assert_eq!(links.len(), 4);
    assert!(f.link(4).is_none());
    assert_eq!(f.m(), links.iter().map(|l| l.m()).sum::<u64>());
    assert_eq!(
        f.size_bytes(),
        links.iter().map(|l| l.size_bytes()).sum::<u64>()
    );
    let set: u64 = links.iter().map(|l| l.bits_set()).sum();
    assert_eq!(f.bits_set(), set);
    assert_eq!(f.fill_ratio(), set as f64 / f.m() as f64);
    let items: f64 = links.iter().map(|l| l.estimated_items()).sum();
    assert!((f.estimated_items() - items).abs() < 1e-9);
    assert_eq!(
        f.inserted(),
        links.iter().map(|l| l.inserted()).sum::<u64>()
    );
    // link 3 is planned at ε·½·(½)³ = 0.000625, link 0 at 0.005: k ≈ log2(1/ε), 11 and 8
    assert_eq!(f.k(), links[3].k());
    assert_ne!(links[0].k(), links[3].k());
    assert_eq!((f.seed(), f.indexing()), (7, links[0].indexing()));
}

/// Pins the compound rates: `expected_fpr` = 1 − Πᵢ(1 − ε_new(nᵢ, mᵢ, kᵢ)) and
/// `estimated_fpr` = 1 − Πᵢ(1 − (Xᵢ/mᵢ)^kᵢ), each link's figure taken from the link.
#[test]
fn compound_rates_combine_every_link() {
    let f = three_links();
    let (mut expected, mut estimated) = (1.0, 1.0);
    for i in 0..f.links() {
        let l = f.link(i).unwrap();
        expected *= 1.0 - fpr_exact_new(l.inserted(), l.m(), l.k());
        estimated *= 1.0 - l.estimated_fpr();
    }
    assert!((f.expected_fpr() - (1.0 - expected)).abs() < 1e-15);
    assert!((f.estimated_fpr() - (1.0 - estimated)).abs() < 1e-15);
    // each of the four links adds to it: more than the first link alone
    let first = fpr_exact_new(10, f.link(0).unwrap().m(), f.link(0).unwrap().k());
    assert!(f.expected_fpr() > first && f.expected_fpr() < 0.01);
    // an empty chain: nothing set, no false positives
    let e = ScalableBloomFilter::new(ScalableParams::new(10, 0.01), 7).unwrap();
    assert_eq!(
        (e.expected_fpr(), e.estimated_fpr(), e.fill_ratio()),
        (0.0, 0.0, 0.0)
    );
    // and every item definitely absent: no bit is set in any link
    assert!(!(0..100u32).any(|i| e.contains(&i)));
    assert!((0..75u32).all(|i| f.contains(&i))); // the items three_links inserted
}

/// Pins fullness at the active link's capacity: full at exactly n₀ items, `try_insert_hash`
/// then refuses a new item with the counts, and `grow` adds the link of n₀·s items sized
/// as `next_link_bytes` said.
#[test]
fn the_active_link_is_full_at_its_capacity() {
    let mut f = ScalableBloomFilter::new(ScalableParams::new(10, 0.01), 3).unwrap();
    let mut i = 0u32;
    while f.inserted() < 9 {
        f.try_insert_hash(f.hash(&i)).unwrap();
        i += 1;
    }
    assert!(!f.is_full());
    while f.inserted() < 10 {
        f.try_insert_hash(f.hash(&i)).unwrap();
        i += 1;
    }
    assert!(f.is_full());
    let new = (i..).find(|j| !f.contains_hash(f.hash(j))).unwrap();
    assert_eq!(
        f.try_insert_hash(f.hash(&new)),
        Err(Error::Full {
            items: 10,
            capacity: 10
        })
    );
    assert_eq!(f.try_insert_hash(f.hash(&0u32)), Ok(false));
    // link 1: 20 items at 0.01·½·½
    let (m, k) = bloom_size_exact_new(20, 0.0025).unwrap();
    assert_eq!(f.next_link_bytes().unwrap(), m.div_ceil(64) * 8);
    f.grow().unwrap();
    assert_eq!((f.links(), f.capacity()), (2, 30));
    assert_eq!((f.link(1).unwrap().m(), f.k()), (m, k));
    assert!(!f.is_full());
    assert_eq!(f.try_insert_hash(f.hash(&new)), Ok(true));
}

/// Pins a chain that never grows: one link at ε itself, `Full` with its counts from insert,
/// `grow` and `next_link_bytes`.
#[test]
fn a_chain_that_never_grows_reports_its_counts() {
    let p = ScalableParams {
        scaling: false,
        ..ScalableParams::new(2, 0.01)
    };
    let mut f = ScalableBloomFilter::new(p, 0).unwrap();
    let (m, k) = bloom_size_exact_new(2, 0.01).unwrap();
    assert_eq!((f.m(), f.k()), (m, k));
    let mut i = 0u32;
    while f.inserted() < 2 {
        f.insert(&i).unwrap();
        i += 1;
    }
    let full = Error::Full {
        items: 2,
        capacity: 2,
    };
    assert_eq!(f.grow(), Err(full.clone()));
    assert_eq!(
        f.next_link_bytes(),
        Err(Error::Full {
            items: 2,
            capacity: 2
        })
    );
    let new = (i..).find(|j| !f.contains_hash(f.hash(j))).unwrap();
    assert_eq!(f.insert(&new), Err(full));
    assert_eq!(f.links(), 1);
}

/// Pins the plan: the common fields describe the first link (n₀ items at ε·(1 − r)), the
/// details the chain (ε₀, the bound Σ εᵢ ≤ ε, the most links).
#[test]
fn plan_describes_the_first_link_and_bounds_the_chain() {
    let params = ScalableParams {
        tightening: 0.75,
        expansion: 3,
        ..ScalableParams::new(1000, 0.02)
    };
    let p = scalable::plan(&params).unwrap();
    // the first link at 0.02·(1 − 0.75) = 0.005
    let (m, k) = bloom_size_exact_new(1000, 0.005).unwrap();
    assert_eq!((p.items, p.m_bits, p.k), (1000, m, k));
    assert_eq!(p.bytes, m.div_ceil(64) * 8);
    assert_eq!(p.bits_per_key, m as f64 / 1000.0);
    assert_eq!(p.fpr, math::fpr(1000, m, k));
    assert_eq!(p.fpr_exact, fpr_exact_new(1000, m, k));
    // Σ over 64 links of 0.005·0.75ⁱ = 0.02·(1 − 0.75⁶⁴)
    let bound = 0.02 * (1.0 - 0.75f64.powi(64));
    match p.details {
        PlanDetails::ScalableBloom {
            expansion,
            tightening,
            scaling,
            first_link_fpr,
            fpr_bound,
            max_links,
        } => {
            assert_eq!((expansion, tightening, scaling), (3, 0.75, true));
            assert!((first_link_fpr - 0.005).abs() < 1e-18);
            assert!((fpr_bound - bound).abs() < 1e-15 && fpr_bound <= 0.02);
            assert_eq!(max_links, 64);
        }
        other => panic!("{other:?}"),
    }
    let fixed = ScalableParams {
        scaling: false,
        ..params
    };
    match scalable::plan(&fixed).unwrap().details {
        PlanDetails::ScalableBloom {
            first_link_fpr,
            fpr_bound,
            max_links,
            ..
        } => assert_eq!((first_link_fpr, fpr_bound, max_links), (0.02, 0.02, 1)),
        other => panic!("{other:?}"),
    }
}

/// Pins the link formulas: capacities n₀·sⁱ saturating at u64::MAX, rates ε·(1 − r)·rⁱ,
/// and ε itself for a chain that never grows.
#[test]
fn link_formulas_by_hand() {
    assert_eq!(link_capacity(7, 3, 0), 7);
    assert_eq!(link_capacity(7, 3, 2), 63);
    assert_eq!(link_capacity(1 << 62, 2, 2), u64::MAX);
    assert_eq!(link_fpr(0.1, 0.25, 0, true), 0.1 * 0.75);
    assert_eq!(link_fpr(0.1, 0.25, 2, true), 0.1 * 0.75 * 0.25 * 0.25);
    assert_eq!(link_fpr(0.1, 0.25, 2, false), 0.1);
}

/// Pins the range checks of the parameters at their edges: r and ε strictly inside (0, 1),
/// s ≥ 1, n₀ ≥ 1, each refused under its own name.
#[test]
fn parameter_ranges_at_their_edges() {
    let name = |p: ScalableParams| match p.check() {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("{p:?}: {other:?}"),
    };
    let base = ScalableParams::new(1, 0.5);
    assert_eq!(base.check(), Ok(()));
    let with_r = |tightening| ScalableParams { tightening, ..base };
    assert_eq!(name(with_r(0.0)), "tightening");
    assert_eq!(name(with_r(1.0)), "tightening");
    assert_eq!(name(with_r(-0.5)), "tightening");
    assert_eq!(name(with_r(f64::NAN)), "tightening");
    assert_eq!(with_r(1e-300).check(), Ok(()));
    assert_eq!(name(ScalableParams { fpr: 0.0, ..base }), "fpr");
    assert_eq!(name(ScalableParams { fpr: 1.0, ..base }), "fpr");
    assert_eq!(
        name(ScalableParams {
            expansion: 0,
            ..base
        }),
        "expansion"
    );
    assert_eq!(
        ScalableParams {
            expansion: 1,
            ..base
        }
        .check(),
        Ok(())
    );
    assert_eq!(
        name(ScalableParams {
            capacity: 0,
            ..base
        }),
        "capacity"
    );
}

/// Pins the decoder's refusals of the parameter words at byte 24: s past u32::MAX, flags
/// other than 0 and 1, no links, more links than a chain may have.
#[test]
fn decoder_refuses_parameter_words_at_byte_24() {
    let f = ScalableBloomFilter::new(ScalableParams::new(10, 0.01), 1).unwrap();
    let at_24 = |bytes: Vec<u8>| {
        matches!(
            ScalableBloomFilter::from_bytes(&bytes),
            Err(Error::Corrupt { offset: 24, .. })
        )
    };
    assert!(ScalableBloomFilter::from_bytes(&edited(&f.to_bytes(), |_, _| {})).is_ok());
    assert!(at_24(edited(&f.to_bytes(), |p, _| p[2] = 1 << 32)));
    assert!(at_24(edited(&f.to_bytes(), |p, _| p[4] = 2)));
    assert!(at_24(edited(&f.to_bytes(), |p, _| p[6] = 0)));
    assert!(at_24(edited(&f.to_bytes(), |p, _| p[6] = 65)));
    assert!(at_24(edited(&f.to_bytes(), |p, _| p[1] = 1f64.to_bits())));
    // s = u32::MAX is in range: link 0 is the same, so the file reads
    let wide = ScalableParams {
        expansion: u32::MAX,
        ..ScalableParams::new(10, 0.01)
    };
    let g = ScalableBloomFilter::new(wide, 1).unwrap();
    assert_eq!(ScalableBloomFilter::from_bytes(&g.to_bytes()).unwrap(), g);
    // a chain that never grows (flags 1) has exactly one link
    let fixed = ScalableParams {
        scaling: false,
        ..ScalableParams::new(10, 0.01)
    };
    let h = ScalableBloomFilter::new(fixed, 1).unwrap();
    assert_eq!(ScalableBloomFilter::from_bytes(&h.to_bytes()).unwrap(), h);
    assert!(at_24(edited(&h.to_bytes(), |p, _| p[6] = 2)));
}

/// Pins a chain file with 64 links (the most) reading back, and the 65th refused by `grow`.
#[test]
fn the_most_links_round_trip() {
    let p = ScalableParams {
        expansion: 1,
        ..ScalableParams::new(1, 0.5)
    };
    let mut f = ScalableBloomFilter::new(p, 0).unwrap();
    while f.can_grow() {
        f.grow().unwrap();
    }
    assert_eq!(f.links(), 64);
    assert_eq!(ScalableBloomFilter::from_bytes(&f.to_bytes()).unwrap(), f);
    assert!(matches!(f.grow(), Err(Error::Full { .. })));
}

/// Pins `Merge::merge` as the chain's union: two chains of n₀ = 100 at 1% holding 0..60 and
/// 100..130 merge into one holding all 90 (in link 0, planned for 100), and a second merge
/// would put 120 there: `Full`, with `self` unchanged.
#[test]
fn merge_is_the_union_of_the_chains() {
    let mut a = ScalableBloomFilter::new(ScalableParams::new(100, 0.01), 3).unwrap();
    let mut b = a.clone();
    for i in 0..60u32 {
        a.insert(&i).unwrap();
    }
    for i in 100..130u32 {
        b.insert(&i).unwrap();
    }
    assert!(!(100..130u32).all(|i| a.contains(&i)));
    Merge::merge(&mut a, &b).unwrap();
    assert!((0..60u32).chain(100..130).all(|i| a.contains(&i)));
    assert_eq!(a.inserted(), 90);
    let before = a.clone();
    assert!(matches!(
        Merge::merge(&mut a, &b),
        Err(Error::Full {
            items: 120,
            capacity: 100
        })
    ));
    assert_eq!(a, before);
}
