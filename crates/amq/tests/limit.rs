//! Inserts within a byte limit (`AnyFilter::insert_within`, `check_within`): far from the
//! limit they are the filter's own inserts; near it every growing kind stops at the item
//! that would take it over, changing nothing; the chains and the sliding-window cuckoo filter
//! refuse exactly the items whose unlimited insert would pass the limit; `check_within`
//! never refuses an item the insert takes.

#![cfg(feature = "serde")]

use amq::{AnyFilter, Error};
use proptest::prelude::*;

fn filter(spec: serde_json::Value) -> AnyFilter {
    let spec: amq::math::Spec = serde_json::from_value(spec).unwrap();
    AnyFilter::new(&spec, 3).unwrap()
}

/// The four kinds that grow, small enough to grow often.
fn growing() -> Vec<serde_json::Value> {
    vec![
        serde_json::json!({"kind": "scalable-bloom", "items": 50, "fpr": 0.01}),
        serde_json::json!({"kind": "expandable-cuckoo", "items": 50, "fpr": 0.01}),
        serde_json::json!({"kind": "sliding-window-bloom", "window_bits": 1024, "chunk_bits": 256, "batch": 2, "k": 3}),
        serde_json::json!({"kind": "sliding-window-cuckoo", "epoch_items": 30, "fpr": 0.01}),
    ]
}

/// Inserts `0..n` within `limit` until one is refused: how many went in, and the refusal.
/// Before each, `check_within` must not refuse an item the insert then takes, and must
/// refuse what the insert refuses for the limit (but for the expandable cuckoo filter, whose
/// newest link only the insert can try).
fn fill(f: &mut AnyFilter, limit: u64, n: u32) -> (u32, Option<Error>) {
    for i in 0..n {
        let item = i.to_le_bytes();
        let told = f.check_within(&item, limit);
        let before = f.clone();
        match f.insert_within(&item, limit) {
            Ok(_) => {
                assert!(told.is_ok(), "item {i}: refused ahead, taken by the insert");
                assert!(f.size_bytes() <= limit, "item {i}: over the limit");
            }
            Err(e) => {
                assert_eq!(*f, before, "item {i}: a refused insert changed the filter");
                if !matches!(f, AnyFilter::ExpandableCuckoo(_)) {
                    assert_eq!(told.err(), Some(e.clone()), "item {i}: told otherwise");
                }
                return (i, Some(e));
            }
        }
    }
    (n, None)
}

#[test]
fn far_from_the_limit_the_insert_is_the_filters_own() {
    let mut specs = growing();
    specs.push(serde_json::json!({"kind": "cuckoo", "items": 500, "fpr": 0.01}));
    for spec in specs {
        let mut a = filter(spec.clone());
        let mut b = a.clone();
        for i in 0..400u32 {
            let item = i.to_le_bytes();
            assert_eq!(
                a.insert_within(&item, u64::MAX),
                b.insert_placed(&item),
                "{spec}"
            );
        }
        assert_eq!(a.to_bytes(), b.to_bytes(), "{spec}");
    }
}

#[test]
fn each_growing_kind_stops_within_the_limit_and_changes_nothing() {
    for spec in growing() {
        let f0 = filter(spec.clone());
        assert!(f0.grows(), "{spec}");
        let limit = f0.size_bytes() + 600;
        let mut f = f0.clone();
        let (added, refusal) = fill(&mut f, limit, 5000);
        assert!(
            matches!(refusal, Some(Error::OverLimit { limit: l, .. }) if l == limit),
            "{spec}: {refusal:?}"
        );
        assert!(added > 0, "{spec}");
        // the message says what the filter takes and what the item needs
        let msg = refusal.unwrap().to_string();
        assert!(msg.contains(&format!("over the limit of {limit}")), "{msg}");
        // deterministic: the same items again stop at the same one, with the same bytes
        let mut again = f0.clone();
        assert_eq!(fill(&mut again, limit, 5000).0, added, "{spec}");
        assert_eq!(again.to_bytes(), f.to_bytes(), "{spec}");
    }
}

#[test]
fn a_kind_that_does_not_grow_is_not_held_to_the_limit() {
    let mut f = filter(serde_json::json!({"kind": "bloom", "items": 100, "fpr": 0.01}));
    assert!(!f.grows());
    f.insert_within(b"x", 0).unwrap();
    assert_eq!(f.contains(b"x"), Ok(true));
    assert_eq!(f.check_within(b"y", 0), Ok(()));
}

/// A registration that the open epoch's table refuses closes that epoch (compacted) and
/// opens a new one: within a limit one byte short of what that adds it is refused, nothing
/// changed; at exactly that it is taken, as the unlimited registration.
#[test]
fn a_registration_that_closes_an_epoch_early_is_counted_exactly() {
    let mut s = amq::rln::SlidingWindowCuckoo::new(16, 12, 2, 3).unwrap();
    let mut seen = 0;
    for i in 0..20_000u32 {
        let before = s.clone();
        s.register(&i).unwrap();
        if before.open_epoch().is_none() || s.epochs() == before.epochs() {
            continue; // no epoch open before, or the open one took it
        }
        seen += 1;
        let more = s.size_bytes() - before.size_bytes();
        let mut short = before.clone();
        let refused = short.register_within(&i, before.size_bytes() + more - 1);
        assert_eq!(
            refused,
            Err(Error::OverLimit {
                size: before.size_bytes(),
                more,
                at_most: false,
                limit: before.size_bytes() + more - 1
            })
        );
        assert_eq!(short, before);
        let h = before.hash(&i);
        assert!(before
            .check_register_within(h, before.size_bytes() + more - 1)
            .is_err());
        assert!(before
            .check_register_within(h, before.size_bytes() + more)
            .is_ok());
        let mut exact = before.clone();
        exact
            .register_within(&i, before.size_bytes() + more)
            .unwrap();
        assert_eq!(exact, s);
    }
    assert!(seen >= 10, "only {seen} epochs closed early");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The chains and the sliding-window cuckoo filter count what an item adds exactly: an item is
    /// refused if and only if its unlimited insert would take the filter over. The last filter's
    /// epoch tables (4 buckets of 4 slots) now and then fill before their 16 registrations, so its
    /// registrations also close epochs early (compacted) to open new ones.
    #[test]
    fn exact_kinds_refuse_exactly_what_would_pass_the_limit(
        kind in 0usize..4, room in 0u64..1500, items in 50u32..600, seed in any::<u32>(),
    ) {
        let mut f = match kind {
            3 => AnyFilter::SlidingWindowCuckoo(Box::new(
                amq::rln::SlidingWindowCuckoo::new(16, 12, 2, 3).unwrap(),
            )),
            _ => filter(growing()[[0, 1, 3][kind]].clone()),
        };
        let limit = f.size_bytes() + room;
        for i in 0..items {
            let item = (seed as u64 * 10_000 + u64::from(i)).to_le_bytes();
            let mut free = f.clone();
            let unlimited = free.insert_placed(&item);
            match f.insert_within(&item, limit) {
                Ok(placed) => {
                    prop_assert_eq!(Ok(placed), unlimited);
                    prop_assert!(f.size_bytes() <= limit);
                    prop_assert_eq!(&f, &free);
                }
                Err(Error::OverLimit { size, more, at_most, .. }) => {
                    prop_assert!(!at_most);
                    prop_assert!(free.size_bytes() > limit);
                    prop_assert_eq!(size + more, free.size_bytes());
                }
                Err(e) => prop_assert_eq!(Err(e), unlimited),
            }
        }
    }
}

/// Many tiny epochs or sparse chunks are held to the limit with the memory each takes besides
/// its bits (about 270 and 70 bytes here): counting only their bits (2 bytes an epoch table, 4
/// bytes a chunk's one offset) let 10⁶ of them take 136 and 10 times the limit in memory.
#[test]
fn tiny_epochs_and_chunks_count_their_overhead() {
    let limit = 100_000u64;
    for spec in [
        serde_json::json!({"kind": "sliding-window-cuckoo", "epoch_items": 1, "fpr": 0.5}),
        serde_json::json!({"kind": "sliding-window-bloom", "window_bits": 64, "chunk_bits": 64, "batch": 1, "k": 1}),
    ] {
        let mut f = filter(spec.clone());
        let mut taken = 0u64;
        while f.insert_within(&taken.to_le_bytes(), limit).is_ok() {
            taken += 1;
            assert!(
                taken < 10_000,
                "{spec}: over 10,000 parts under {limit} bytes"
            );
        }
        assert!(f.size_bytes() <= limit, "{spec}");
        // each part is counted at least at 64 bytes: at most limit / 64 of them
        assert!(taken <= limit / 64, "{spec}: {taken} parts");
    }
}
