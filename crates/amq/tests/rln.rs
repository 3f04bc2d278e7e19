//! The sliding-window cuckoo filter: a model of registrations and slashes, compaction, the
//! measured false-positive rate per epoch against the formula, epoch exports, and its file.

use amq::hash::{cuckoo_fingerprint, halving_cuckoo_alt_index, halving_cuckoo_index, hash128};
use amq::math::{binomial_sigma, PlanDetails, Spec};
use amq::rln::{log2_buckets_for, plan, RlnSpec, SlidingWindowCuckoo};
use amq::{AnyFilter, Error};
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

/// An item's entry key in an epoch table of 2ᵏ buckets: its fingerprint and its pair of
/// buckets. Copies with the same key are interchangeable; a query matches exactly the copies
/// of its own key (the same fingerprint in one shared bucket means the same pair).
fn key(set: &SlidingWindowCuckoo, item: u32, k: u32) -> (u32, u64, u64) {
    let h = hash128(&item, set.seed());
    let i1 = halving_cuckoo_index(h, k);
    let fp = cuckoo_fingerprint(h, set.fingerprint_bits());
    let i2 = halving_cuckoo_alt_index(i1, fp, k);
    (fp, i1.min(i2), i1.max(i2))
}

fn log2(set: &SlidingWindowCuckoo, epoch: u64) -> u32 {
    set.epoch(epoch).unwrap().buckets.trailing_zeros()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Two models at once. Members: a multiset of (item, epoch) registered and not slashed,
    /// each always found at its epoch. Entries: every answer of `contains` and `slash` equals
    /// "some registered copy in that epoch has the query's entry key" (at the epoch's current
    /// size), so a slashed item is found again only through another item of the same key, a
    /// false positive at the rate the fingerprint allows.
    #[test]
    fn registered_members_are_found_until_slashed(
        ops in proptest::collection::vec((0u8..10, 0u32..300, 0u64..8), 0..400),
        epoch_items in 1u64..60,
        f in prop_oneof![Just(4u32), Just(6), Just(9), Just(16)],
        extra in 0u32..2,
        seed in any::<u64>(),
    ) {
        let k0 = log2_buckets_for(epoch_items).unwrap() + extra;
        let mut set = SlidingWindowCuckoo::new(epoch_items, f, k0, seed).unwrap();
        let mut members: Vec<HashMap<u32, u32>> = Vec::new();
        for (what, item, pick) in ops {
            if what < 6 {
                let e = set.register(&item).unwrap();
                prop_assert!(e as usize <= members.len());
                if e as usize == members.len() {
                    members.push(HashMap::new());
                }
                *members[e as usize].entry(item).or_default() += 1;
            } else if !members.is_empty() {
                let e = pick % members.len() as u64;
                let k = log2(&set, e);
                let q = key(&set, item, k);
                let twin = members[e as usize]
                    .iter()
                    .filter(|(m, &c)| c > 0 && key(&set, **m, k) == q)
                    .map(|(m, _)| *m)
                    .min_by_key(|m| (*m != item, *m));
                prop_assert_eq!(set.slash(&item, e), twin.is_some());
                if let Some(m) = twin {
                    *members[e as usize].get_mut(&m).unwrap() -= 1;
                }
            }
            for (e, held) in members.iter().enumerate() {
                let e = e as u64;
                let k = log2(&set, e);
                let keys: HashSet<_> =
                    held.iter().filter(|(_, &c)| c > 0).map(|(m, _)| key(&set, *m, k)).collect();
                for item in 0..300u32 {
                    let want = keys.contains(&key(&set, item, k));
                    prop_assert_eq!(set.contains(&item, e), want, "item {} epoch {}", item, e);
                    if held.get(&item).is_some_and(|&c| c > 0) {
                        prop_assert!(want);
                    }
                }
                let info = set.epoch(e).unwrap();
                prop_assert_eq!(info.members, held.values().map(|&c| u64::from(c)).sum::<u64>());
                prop_assert!(info.load_factor <= 1.0);
                let least = 1u64 << log2_buckets_for(info.members).unwrap();
                prop_assert!(info.buckets >= least && info.buckets <= 1 << k0);
                if info.open {
                    prop_assert_eq!(info.buckets, 1 << k0);
                }
            }
        }
        let back = SlidingWindowCuckoo::from_bytes(&set.to_bytes()).unwrap();
        prop_assert_eq!(&back, &set);
    }
}

/// A full epoch is compacted to its live members: slashing shrinks it, every member left is
/// still found, and ε stays within the bound.
#[test]
fn full_epochs_shrink_to_their_members() {
    let mut set = SlidingWindowCuckoo::with_fpr(7_782, 0.01, 7).unwrap(); // 2048 buckets
    assert_eq!((set.log2_buckets(), set.fingerprint_bits()), (11, 10));
    for i in 0..7_782u32 * 2 + 5 {
        set.register(&i).unwrap();
    }
    assert_eq!((set.epochs(), set.next_epoch()), (3, 2));
    let full = set.epoch(0).unwrap();
    assert_eq!(
        (full.buckets, full.members, full.open),
        (2048, 7_782, false)
    );
    assert_eq!(full.bytes, 2048 * 5); // 4 slots of 10 bits
    assert!(set.epoch(2).unwrap().open);
    // slash 7 of every 8 members of epoch 0: it shrinks as they go
    let mut sizes = vec![full.buckets];
    for i in 0..7_782u32 {
        if i % 8 != 0 {
            assert!(set.slash(&i, 0), "member {i}");
            let b = set.epoch(0).unwrap().buckets;
            if b != *sizes.last().unwrap() {
                sizes.push(b);
            }
        }
    }
    assert_eq!(sizes, [2048, 1024, 512]); // 973 ≤ (0.97 − 1.5/√973) · 4 · 512
    let small = set.epoch(0).unwrap();
    assert_eq!((small.members, small.bytes), (973, 512 * 5));
    assert!((0..7_782u32).step_by(8).all(|i| set.contains(&i, 0)));
    assert!(small.fpr <= set.fpr_bound() && set.fpr_bound() <= 0.01);
    // three tables, and each epoch's fixed overhead (what a new one adds besides its table)
    let overhead = set.new_epoch_bytes() - set.epoch_bytes();
    assert!(overhead > 0);
    assert_eq!(set.size_bytes(), (512 + 2048 + 2048) * 5 + 3 * overhead);
    // a slash refused changes nothing
    let before = set.clone();
    assert!(!set.slash("never registered", 0));
    assert!(!set.slash(&1u32, 7)); // an epoch not held
    assert_eq!(set, before);
}

/// A table that cannot take a registration closes its epoch early; the member goes to the
/// next one and is found there.
#[test]
fn a_full_table_closes_its_epoch_early() {
    let mut set = SlidingWindowCuckoo::new(8, 12, 1, 3).unwrap(); // 8 slots for 8 members
    let mut at = Vec::new();
    for i in 0..400u32 {
        at.push((i, set.register(&i).unwrap()));
    }
    let early = (0..set.epochs())
        .filter(|&e| set.epoch(e).unwrap().registered < 8 && !set.epoch(e).unwrap().open)
        .count();
    assert!(early > 0, "no epoch closed early");
    assert!(at.iter().all(|&(i, e)| set.contains(&i, e)));
    assert_eq!(set.members(), 400);
}

/// Non-members queried at one epoch.
const QUERIES: u64 = 1_000_000;

/// The measured ε of a query at an epoch against `1 − (1 − 1/(2^f − 1))^(8α)` at that
/// epoch's load, with a few binomial σ.
#[test]
fn measured_fpr_per_epoch_matches_the_formula() {
    for f in [7u32, 9] {
        let mut set = SlidingWindowCuckoo::new(15_564, f, 12, 11).unwrap();
        for i in 0..15_564u32 + 6_000 {
            set.register(format!("member-{i}").as_str()).unwrap();
        }
        for e in 0..2 {
            let info = set.epoch(e).unwrap();
            let hits = (0..QUERIES)
                .filter(|i| set.contains(format!("other-{i}").as_str(), e))
                .count() as u64;
            let measured = hits as f64 / QUERIES as f64;
            let sigma = binomial_sigma(info.fpr, QUERIES);
            eprintln!(
                "f = {f}, epoch {e}: α = {:.4}, measured {measured:.4e}, model {:.4e} ({:+.2} σ)",
                info.load_factor,
                info.fpr,
                (measured - info.fpr) / sigma
            );
            assert!((measured - info.fpr).abs() <= 3.0 * sigma);
        }
    }
}

/// A light client keeps its copy up to date with one epoch at a time.
#[test]
fn light_clients_apply_epoch_exports() {
    let mut server = SlidingWindowCuckoo::with_fpr(100, 0.001, 5).unwrap();
    let mut client = SlidingWindowCuckoo::with_fpr(100, 0.001, 5).unwrap();
    let mut epoch_of = HashMap::new();
    for round in 0..5u32 {
        for i in 0..70u32 {
            let item = round * 1000 + i;
            epoch_of.insert(item, server.register(&item).unwrap());
        }
        // slash a member of an earlier round
        let mut changed = std::collections::BTreeSet::new();
        if round > 0 {
            let item = (round - 1) * 1000 + 3;
            assert!(server.slash(&item, epoch_of[&item]));
            changed.insert(epoch_of[&item]);
        }
        // send the epochs that changed: the slashed one and the last two
        let last = server.first_epoch() + server.epochs() - 1;
        changed.extend(last.saturating_sub(1)..=last);
        for e in changed {
            let part = server.export_epoch(e).unwrap();
            let wire = SlidingWindowCuckoo::from_bytes(&part.to_bytes()).unwrap();
            assert_eq!(wire.first_epoch(), e);
            assert!(wire.size_bytes() < server.size_bytes() || server.epochs() == 1);
            client.apply_epoch(&wire).unwrap();
        }
        assert_eq!(client, server);
    }
    // what does not fit
    let other = SlidingWindowCuckoo::with_fpr(100, 0.001, 6).unwrap();
    assert!(matches!(
        client.apply_epoch(&other),
        Err(Error::ShapeMismatch { .. })
    ));
    let far = server.export_epoch(2).unwrap();
    let mut fresh = SlidingWindowCuckoo::with_fpr(100, 0.001, 5).unwrap();
    assert!(fresh.apply_epoch(&far).is_err()); // epoch 2 does not follow nothing
    let e = server.export_epoch(99).unwrap_err().to_string();
    let last = server.first_epoch() + server.epochs() - 1;
    let held = format!(
        "epoch 99 is not held (it holds epochs {} to {last})",
        server.first_epoch()
    );
    assert!(e.ends_with(&held), "{e}");
    let e = fresh.export_epoch(0).unwrap_err().to_string();
    assert!(
        e.ends_with("epoch 0 is not held (it holds no epoch)"),
        "{e}"
    );
    assert!(fresh.apply_epoch(&server).is_err()); // several epochs
}

/// Through the registry: created from a spec, registered into, encoded; a query needs an
/// epoch.
#[test]
fn any_filter_registers_and_asks_for_an_epoch() {
    let spec = Spec::SlidingWindowCuckoo(RlnSpec {
        epoch_items: 3,
        fpr: 0.01,
    });
    let mut a = AnyFilter::new(&spec, 1).unwrap();
    for item in [b"a".as_slice(), b"b", b"c", b"d"] {
        assert!(a.insert(item).unwrap());
    }
    assert!(matches!(a.contains(b"a"), Err(Error::Unsupported { .. })));
    assert!(matches!(a.remove(b"a"), Err(Error::Unsupported { .. })));
    let AnyFilter::SlidingWindowCuckoo(set) = AnyFilter::from_bytes(&a.to_bytes()).unwrap() else {
        panic!("kind");
    };
    assert!(set.contains(b"a".as_slice(), 0) && set.contains(b"d".as_slice(), 1));
    let info = a.info();
    assert_eq!(info.kind().name(), "sliding-window-cuckoo");
    assert_eq!((info.inserted, info.estimated_items), (4, 4.0));
}

/// The plan: f for ε at load 0.95, the open epoch's buckets, and bits per member.
#[test]
fn the_plan_sizes_epochs() {
    for (b, e, f, k) in [
        (3_874u64, 0.01, 10u32, 10u32), // ≤ (0.97 − 1.5/√B) · 4 · 1024
        (3_875, 0.01, 10, 11),
        (15_564, 0.001, 13, 12), // ≤ 0.95 · 4 · 4096
        (15_565, 0.001, 13, 13),
        (1, 0.5, 4, 0),
    ] {
        let p = plan(&RlnSpec {
            epoch_items: b,
            fpr: e,
        })
        .unwrap();
        let PlanDetails::SlidingWindowCuckoo(d) = p.details else {
            panic!("{p:?}")
        };
        assert_eq!(
            (d.fingerprint_bits, d.epoch_buckets),
            (f, 1 << k),
            "B = {b}"
        );
        assert!(d.fpr_bound <= e && p.fpr_exact <= d.fpr_bound);
        let set = SlidingWindowCuckoo::with_fpr(b, e, 0).unwrap();
        assert_eq!((set.fingerprint_bits(), set.log2_buckets()), (f, k));
    }
    assert!(plan(&RlnSpec {
        epoch_items: 0,
        fpr: 0.01
    })
    .is_err());
    assert!(plan(&RlnSpec {
        epoch_items: 10,
        fpr: 1e-12
    })
    .is_err());
}

/// The decoder refuses what `to_bytes` never writes, with the checksum right.
#[test]
fn corrupt_files_are_refused() {
    let mut set = SlidingWindowCuckoo::new(4, 12, 1, 0).unwrap();
    for i in 0..6u32 {
        set.register(&i).unwrap();
    }
    let good = set.to_bytes();
    let c = amq::wire::decode(&good).unwrap();
    let reencode = |params: &[u64], payload: &[u8]| {
        amq::wire::encode(amq::wire::Kind::SlidingWindowCuckoo, params, payload)
    };
    assert_eq!(reencode(&c.params, c.payload), good);
    for (i, v) in [
        (0, 1),
        (0, 33),
        (1, 2),
        (2, 0),
        (2, 9),
        (3, 37),
        (6, 3),
        (6, 1),
        (7, 2),
        (0, u64::MAX),
        (3, u64::MAX),
        (5, u64::MAX), // the first epoch's number plus the count overflows
    ] {
        let mut p = c.params.clone();
        p[i] = v;
        assert!(
            SlidingWindowCuckoo::from_bytes(&reencode(&p, c.payload)).is_err(),
            "param {i} = {v}"
        );
    }
    // the first epoch's words: k, registered, members, stash, stash bucket
    for (w, v) in [(0usize, 2u64), (1, 5), (2, 3), (2, 5), (3, 1 << 12), (4, 1)] {
        let mut payload = c.payload.to_vec();
        payload[8 * w..8 * w + 8].copy_from_slice(&v.to_le_bytes());
        assert!(
            SlidingWindowCuckoo::from_bytes(&reencode(&c.params, &payload)).is_err(),
            "word {w} = {v}"
        );
    }
    let mut payload = c.payload.to_vec();
    payload.extend_from_slice(&[0; 8]);
    assert!(SlidingWindowCuckoo::from_bytes(&reencode(&c.params, &payload)).is_err());
    // an open epoch holds fewer than B registrations (its B-th closes it): one that says B
    // would take a (B+1)-th, and the file it then wrote would not load
    let mut open = SlidingWindowCuckoo::new(4, 12, 1, 0).unwrap();
    open.register(&0u32).unwrap();
    open.register(&1u32).unwrap();
    let open_bytes = open.to_bytes();
    let o = amq::wire::decode(&open_bytes).unwrap();
    for (registered, ok) in [(3u64, true), (4, false)] {
        let mut payload = o.payload.to_vec();
        payload[8..16].copy_from_slice(&registered.to_le_bytes());
        let r = SlidingWindowCuckoo::from_bytes(&reencode(&o.params, &payload));
        assert_eq!(r.is_ok(), ok, "registered {registered}: {r:?}");
    }
    for cut in 0..good.len() {
        assert!(SlidingWindowCuckoo::from_bytes(&good[..cut]).is_err());
    }
}
