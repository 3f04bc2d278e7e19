//! Edges of the negative cache (`src/negative/`) that the other tests do not pin: the
//! accessors and sizes worked by hand from the shape (2ˡ slots of b + 1 bits, w ways), the
//! false-positive figures `w·2⁻ᵇ` and `(live/2ˡ)·w·2⁻ᵇ`, TTL boundaries, LRU order inside one
//! set built from hand-made hashes, and the false-negative formulas at small n worked from
//! the binomial by hand. Each test here was written against a mutant of `src/negative/*.rs`
//! that cargo-mutants found the other tests let through.

use amq::clock::{Clock, ManualClock};
use amq::hash::{negative_hash, NegativeHash};
use amq::math::{plan, Spec};
use amq::negative::{false_negative_rate, mean_false_negative_rate, NegativeCache};
use amq::wire::{self, Kind};
use amq::Error;

/// A hash that lands in set `set` of `sets` (a power of two) with fingerprint `fp`: the set
/// is `reduce(set_hash, sets)` = ⌊set_hash·sets / 2⁶⁴⌋, so the set number goes in the top
/// log2(sets) bits.
fn at(sets: u64, set: u64, fp: u128) -> NegativeHash {
    let set_hash = if sets == 1 {
        0
    } else {
        set << (64 - sets.trailing_zeros())
    };
    NegativeHash {
        set_hash,
        fingerprint: fp,
    }
}

/// Pins the accessors and the payload size: 2ˡ slots of b + 1 bits rounded up to 64-bit
/// words, plus 8 bytes per slot with a TTL.
#[test]
fn shape_accessors_and_sizes_by_hand() {
    let c = NegativeCache::new(10, 16, 4, 77).unwrap();
    assert_eq!((c.l(), c.b(), c.ways(), c.seed()), (10, 16, 4, 77));
    assert_eq!((c.slots(), c.sets()), (1024, 256));
    assert_eq!((c.inserted(), c.occupied(), c.ttl()), (0, 0, None));
    // 1024 slots · 17 bits = 17,408 bits = 272 words = 2,176 bytes
    assert_eq!(c.size_bytes(), 2176);
    let t = c.with_ttl(5).unwrap();
    assert_eq!(t.ttl(), Some(5));
    // and 1024 expiry ticks of 8 bytes
    assert_eq!(t.size_bytes(), 2176 + 8192);

    // 8 slots · 9 bits = 72 bits: 2 words
    let small = NegativeCache::new(3, 8, 2, 0).unwrap();
    assert_eq!(
        (small.slots(), small.sets(), small.size_bytes()),
        (8, 4, 16)
    );
    // 1 slot of 2 bits: 1 word; one set
    let one = NegativeCache::new(0, 1, 1, 0).unwrap();
    assert_eq!((one.slots(), one.sets(), one.size_bytes()), (1, 1, 8));
    // 2^3 slots in sets of 8: one set
    assert_eq!(NegativeCache::new(3, 64, 8, 0).unwrap().sets(), 1);
}

/// Pins the planner's bytes for a negative cache: those of the cache it plans, with and
/// without the 8 bytes per slot of a TTL, and its refusals.
#[test]
fn plan_bytes_match_the_cache() {
    let spec = |ttl| Spec::NegativeCache {
        l: 10,
        b: 16,
        ways: 4,
        ttl,
    };
    assert_eq!(plan(&spec(None)).unwrap().bytes, 2176);
    assert_eq!(plan(&spec(Some(5))).unwrap().bytes, 2176 + 8192);
    assert!(matches!(
        plan(&spec(Some(0))),
        Err(Error::InvalidParameter { name: "ttl", .. })
    ));
    let bad = Spec::NegativeCache {
        l: 2,
        b: 16,
        ways: 8,
        ttl: None,
    };
    assert!(matches!(
        plan(&bad),
        Err(Error::InvalidParameter { name: "ways", .. })
    ));
}

/// Pins the shape limits at their edges through the planner, which checks a shape without
/// allocating it: l up to 40, b in 1..=128, w a power of two up to 64 and at most 2ˡ.
#[test]
fn shape_limits_at_their_edges() {
    let bytes = |l, b, ways, ttl| plan(&Spec::NegativeCache { l, b, ways, ttl }).map(|p| p.bytes);
    let refused = |l, b, ways| match bytes(l, b, ways, None) {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("l {l}, b {b}, ways {ways}: {other:?}"),
    };
    // 2^40 slots of 2 bits: 2^41 bits, 2^38 bytes
    assert_eq!(bytes(40, 1, 1, None).unwrap(), 1 << 38);
    // 2^40 slots of 129 bits: 2^37·129 bytes, and 2^43 bytes of expiry ticks
    assert_eq!(bytes(40, 128, 64, None).unwrap(), 129 << 37);
    assert_eq!(
        bytes(40, 128, 64, Some(1)).unwrap(),
        (129 << 37) + (1 << 43)
    );
    assert_eq!(refused(41, 1, 1), "l");
    assert_eq!(refused(10, 0, 1), "b");
    assert_eq!(refused(10, 129, 1), "b");
    assert_eq!(refused(10, 8, 128), "ways");
    assert_eq!(refused(10, 8, 0), "ways");
    assert_eq!(refused(10, 8, 6), "ways");
    // w = 2ˡ is one set; 2ˡ⁺¹ ways do not fit
    assert_eq!(bytes(3, 8, 8, None).unwrap(), 16);
    assert_eq!(refused(3, 8, 16), "ways");
    assert_eq!(bytes(0, 1, 1, None).unwrap(), 8);
}

/// Pins `fpr_bound` = min(1, w·2⁻ᵇ).
#[test]
fn fpr_bound_is_ways_times_two_to_minus_b() {
    let c = NegativeCache::new(10, 16, 4, 0).unwrap();
    assert_eq!(c.fpr_bound(), 4.0 / 65536.0);
    assert_eq!(NegativeCache::new(0, 1, 1, 0).unwrap().fpr_bound(), 0.5);
    // 4 ways at b = 1: 4·½ = 2, capped at 1
    assert_eq!(NegativeCache::new(2, 1, 4, 0).unwrap().fpr_bound(), 1.0);
    assert_eq!(
        NegativeCache::new(6, 128, 64, 0).unwrap().fpr_bound(),
        64.0 / 2f64.powi(128)
    );
}

/// Pins occupancy = occupied/2ˡ and `estimated_fpr` = (live/2ˡ)·w·2⁻ᵇ as entries are added,
/// with hashes placed by hand (8 slots in 2 sets of 4, b = 4).
#[test]
fn occupancy_and_estimated_fpr_by_hand() {
    let mut c = NegativeCache::new(3, 4, 4, 0).unwrap();
    assert_eq!((c.occupancy(), c.estimated_fpr()), (0.0, 0.0));
    for fp in 1..=3 {
        assert!(c.insert_hash(at(2, 0, fp)));
    }
    assert!(c.insert_hash(at(2, 1, 9)));
    assert_eq!(c.occupied(), 4);
    assert_eq!(c.live_entries(), 4);
    assert_eq!(c.occupancy(), 0.5);
    // 4/8 · 4 · 2^-4 = 1/8
    assert_eq!(c.estimated_fpr(), 0.125);
    for fp in 4..=6 {
        c.insert_hash(at(2, 1, fp));
    }
    // set 1 full, set 0 holding 3: 7/8 · 4/16 = 7/32
    assert_eq!((c.occupancy(), c.estimated_fpr()), (0.875, 7.0 / 32.0));
    c.insert_hash(at(2, 0, 4));
    assert_eq!((c.occupancy(), c.estimated_fpr()), (1.0, 0.25));
}

/// Pins `hash` as `negative_hash` under the cache's seed and b, and that a precomputed hash
/// answers as the item does.
#[test]
fn hash_is_the_negative_hash_of_seed_and_b() {
    let mut c = NegativeCache::new(8, 40, 2, 1234).unwrap();
    assert_eq!(c.hash("k"), negative_hash("k", 1234, 40));
    c.insert("k");
    assert!(c.contains_hash(negative_hash("k", 1234, 40)));
    assert!(!c.contains_hash(negative_hash("k", 1235, 40)));
}

/// Pins LRU order within one set of 4 built from hand-made hashes: a refresh moves an entry
/// to the front, a removal from the middle keeps the order of the rest, and the next full
/// insert evicts the least recent.
#[test]
fn lru_order_survives_removal_from_the_middle() {
    let mut c = NegativeCache::new(3, 8, 4, 0).unwrap();
    let h = |fp| at(2, 1, fp);
    for fp in [1, 2, 3, 4] {
        assert!(c.insert_hash(h(fp))); // order, most recent first: 4 3 2 1
    }
    assert!(!c.insert_hash(h(2))); // refresh: 2 4 3 1
    assert!(c.remove_hash(h(4))); // 2 3 1
    assert!(!c.remove_hash(h(4)));
    assert_eq!(c.occupied(), 3);
    assert!(c.insert_hash(h(5))); // 5 2 3 1, no eviction
    assert!(c.insert_hash(h(6))); // 6 5 2 3; 1 evicted
    assert!(!c.contains_hash(h(1)));
    assert!(c.insert_hash(h(7))); // 7 6 5 2; 3 evicted
    assert!(!c.contains_hash(h(3)));
    for fp in [2, 5, 6, 7] {
        assert!(c.contains_hash(h(fp)), "{fp}");
    }
    // the other set is untouched
    assert_eq!(c.occupied(), 4);
    assert!(!c.contains_hash(at(2, 0, 2)));
    // removing the last of a full set, then the first
    assert!(c.remove_hash(h(2)) && c.remove_hash(h(7)));
    assert!(c.contains_hash(h(5)) && c.contains_hash(h(6)));
    assert_eq!(c.occupied(), 2);
}

/// Pins the counters: `inserted` counts refreshes, `clear` empties every slot, the expiry
/// times and both counters, leaving the bytes of a new cache.
#[test]
fn clear_leaves_a_new_cache() {
    let clock = ManualClock::new(3);
    let fresh = NegativeCache::new(4, 12, 2, 5)
        .unwrap()
        .with_clock(clock.clone())
        .with_ttl(9)
        .unwrap();
    let mut c = fresh.clone();
    for i in 0..20u32 {
        c.insert(&i);
    }
    c.insert(&3u32);
    assert_eq!(c.inserted(), 21);
    assert!(c.occupied() > 0);
    c.clear();
    assert_eq!((c.occupied(), c.inserted(), c.live_entries()), (0, 0, 0));
    assert!(!(0..20u32).any(|i| c.contains(&i)));
    assert_eq!(c.to_bytes(), fresh.to_bytes());
}

/// Pins the TTL boundaries: an entry inserted at t with TTL d is live while now < t + d,
/// `live_entries` counts only those, and an expired entry found again is fresh.
#[test]
fn ttl_boundaries_and_live_entries() {
    let clock = ManualClock::new(100);
    let mut c = NegativeCache::new(3, 16, 2, 0)
        .unwrap()
        .with_clock(clock.clone())
        .with_ttl(10)
        .unwrap();
    assert_eq!(c.clock().now(), 100);
    assert!(c.insert_hash(at(4, 0, 1))); // until 110
    assert!(c.insert_with_ttl("x", 1).unwrap()); // until 101
    assert_eq!(c.live_entries(), 2);
    clock.set(101);
    assert_eq!((c.occupied(), c.live_entries()), (2, 1));
    // 1 live entry: 1/8 · 2 · 2^-16
    assert_eq!(c.estimated_fpr(), 1.0 / 8.0 * 2.0 / 65536.0);
    assert!(!c.contains("x"));
    assert!(c.insert_with_ttl("x", 2).unwrap()); // expired, so fresh: until 103
    assert!(!c.insert("x")); // live: a refresh, until 111
    clock.set(109);
    assert!(c.contains_hash(at(4, 0, 1)));
    clock.set(110);
    assert!(!c.contains_hash(at(4, 0, 1)));
    assert_eq!(c.live_entries(), 1);
    assert!(!c.remove_hash(at(4, 0, 1))); // held but expired
    assert_eq!(c.occupied(), 1);
    clock.set(111);
    assert_eq!(c.live_entries(), 0);
    assert!(matches!(
        c.insert_with_ttl("y", 0),
        Err(Error::InvalidParameter { name: "ttl", .. })
    ));
}

/// Pins the TTL of a direct-mapped table (w = 1): its entry answers `true` until it
/// expires, then `false`.
#[test]
fn direct_mapped_entries_expire() {
    let clock = ManualClock::new(0);
    let mut c = NegativeCache::new(2, 16, 1, 0)
        .unwrap()
        .with_clock(clock.clone())
        .with_ttl(10)
        .unwrap();
    assert!(c.insert_hash(at(4, 1, 3))); // until 10
    clock.set(9);
    assert!(c.contains_hash(at(4, 1, 3)));
    assert!(!c.contains_hash(at(4, 1, 4)) && !c.contains_hash(at(4, 2, 3)));
    clock.set(10);
    assert!(!c.contains_hash(at(4, 1, 3)));
    assert!(c.insert_hash(at(4, 1, 3))); // expired, so fresh: until 20
    assert!(c.contains_hash(at(4, 1, 3)));
}

/// Pins an expired entry found behind a live one of its set: inserting it again reports it
/// fresh (`true`), judged by its own expiry, not its neighbour's.
#[test]
fn an_expired_entry_found_again_is_fresh() {
    let clock = ManualClock::new(0);
    let mut c = NegativeCache::new(3, 16, 2, 0)
        .unwrap()
        .with_clock(clock.clone())
        .with_ttl(100)
        .unwrap();
    let (a, b) = (at(4, 2, 1), at(4, 2, 2));
    c.insert_hash(a); // until 100
    clock.set(50);
    c.insert_hash(b); // until 150, in front of a
    clock.set(120);
    assert!(!c.contains_hash(a) && c.contains_hash(b));
    assert!(c.insert_hash(a)); // a had expired: fresh, until 220
    assert!(!c.insert_hash(b)); // b is live: a refresh
    clock.set(219);
    assert!(c.contains_hash(a) && c.contains_hash(b));
    assert_eq!(c.occupied(), 2);
}

/// Pins removal with a TTL: removing an expired entry reports `false` (judged by its own
/// expiry), and the entries behind a removed one keep their own expiry times as they move up.
#[test]
fn removal_keeps_each_entry_its_own_expiry() {
    let clock = ManualClock::new(0);
    let mut c = NegativeCache::new(4, 16, 4, 0)
        .unwrap()
        .with_clock(clock.clone())
        .with_ttl(100)
        .unwrap();
    let h = |fp| at(4, 3, fp);
    for (t, fp) in [(0, 1), (10, 2), (20, 3)] {
        clock.set(t);
        c.insert_hash(h(fp)); // fp 1 until 100, 2 until 110, 3 until 120; order 3 2 1
    }
    assert!(c.remove_hash(h(3))); // live; 2 and 1 move up one slot
    clock.set(100);
    assert!(!c.contains_hash(h(1)) && c.contains_hash(h(2)));
    clock.set(105);
    assert!(!c.remove_hash(h(1))); // held, but expired at 100
    clock.set(109);
    assert!(c.contains_hash(h(2)));
    clock.set(110);
    assert!(!c.contains_hash(h(2)));
    assert_eq!(c.occupied(), 1);

    // an expired entry behind a live one: its removal is not a live one
    clock.set(200);
    c.insert_hash(h(4)); // until 300
    clock.set(250);
    c.insert_hash(h(5)); // until 350; order 5 4 2
    clock.set(320);
    assert!(!c.remove_hash(h(4)));
    assert!(c.remove_hash(h(5)));
}

/// Pins `with_ttl` on a cache that already holds entries: they live `ttl` ticks from the
/// clock's time then, and the empty slots get no expiry (the file still decodes).
#[test]
fn with_ttl_dates_held_entries_from_now() {
    let clock = ManualClock::new(50);
    let mut c = NegativeCache::new(4, 8, 2, 1)
        .unwrap()
        .with_clock(clock.clone());
    c.insert_hash(at(8, 3, 7));
    let mut c = c.with_ttl(20).unwrap();
    clock.set(69);
    assert!(c.contains_hash(at(8, 3, 7)));
    assert_eq!(c.live_entries(), 1);
    let back = NegativeCache::from_bytes(&c.to_bytes()).unwrap();
    assert_eq!((back.occupied(), back.ttl()), (1, Some(20)));
    clock.set(70);
    assert!(!c.contains_hash(at(8, 3, 7)));
    assert_eq!(c.live_entries(), 0);
    // a new insert lives the default 20 ticks from now
    c.insert_hash(at(8, 3, 8));
    clock.set(89);
    assert!(c.contains_hash(at(8, 3, 8)));
    clock.set(90);
    assert!(!c.contains_hash(at(8, 3, 8)));
}

/// Pins the decoder's refusals of a shape, a payload length and an expiry word with their
/// offsets: the parameters at byte 24, an expiry word at its own byte of the file (the
/// payload starts at byte 128: the 24-byte header and six parameter words, rounded up to 64).
#[test]
fn decoder_errors_name_the_parameters() {
    let c = NegativeCache::new(3, 8, 2, 0).unwrap();
    let good = c.to_bytes();
    let d = wire::decode(&good).unwrap();
    let with = |params: &[u64], payload: &[u8]| {
        NegativeCache::from_bytes(&wire::encode(Kind::NegativeCache, params, payload))
    };
    assert!(with(&d.params, d.payload).is_ok());
    for params in [
        [3u64, 8, 16, 0, 0, 0],
        [3, 8, 3, 0, 0, 0],
        [41, 8, 2, 0, 0, 0],
    ] {
        assert!(matches!(
            with(&params, d.payload),
            Err(Error::Corrupt { offset: 24, .. })
        ));
    }
    // a TTL word without the 8 expiry ticks, and the ticks without the word
    assert!(matches!(
        with(&[3, 8, 2, 0, 4, 0], d.payload),
        Err(Error::Corrupt { offset: 24, .. })
    ));
    let mut longer = d.payload.to_vec();
    longer.extend_from_slice(&[0; 64]);
    assert!(matches!(
        with(&d.params, &longer),
        Err(Error::Corrupt { offset: 24, .. })
    ));
    assert!(with(&[3, 8, 2, 0, 4, 0], &longer).is_ok());
    // an empty slot with an expiry tick: slot 5's tick is payload word 2 + 5, file byte
    // 128 + 56
    longer[8 * 7] = 1;
    assert!(matches!(
        with(&[3, 8, 2, 0, 4, 0], &longer),
        Err(Error::Corrupt { offset: 184, .. })
    ));
}

/// The entries of a cache's file as 64-bit words, and a file with them changed.
fn edit_entries(c: &NegativeCache, params: &[u64], edit: impl Fn(&mut Vec<u64>)) -> Vec<u8> {
    let bytes = c.to_bytes();
    let payload = wire::decode(&bytes).unwrap().payload.to_vec();
    let mut words: Vec<u64> = payload
        .chunks(8)
        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
        .collect();
    edit(&mut words);
    let payload: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    wire::encode(Kind::NegativeCache, params, &payload)
}

/// Pins the decoder's checks of the slots: in a set, the occupied slots come first (slot i
/// at bit i·(b + 1): the occupied bit, then the fingerprint), and an empty slot holds no
/// fingerprint bit, its top bit and those above bit 64 included. Each refusal names the
/// slot's first byte in the file (the payload starts at byte 128), and no bit is set past
/// the last slot.
#[test]
fn decoder_checks_every_slot() {
    // one set of 2 slots of 9 bits; the entry moved from slot 0 to slot 1 (bit 9, byte 1)
    let mut c = NegativeCache::new(1, 8, 2, 0).unwrap();
    c.insert_hash(at(1, 0, 0xa5));
    let moved = |w: &mut Vec<u64>| w[0] = (w[0] & 0x1ff) << 9;
    let bytes = edit_entries(&c, &[1, 8, 2, 0, 0, 1], moved);
    assert!(matches!(
        NegativeCache::from_bytes(&bytes),
        Err(Error::Corrupt { offset: 129, .. })
    ));
    // the same slots as two sets of one: valid, and the entry is found in set 1
    let bytes = edit_entries(&c, &[1, 8, 1, 0, 0, 1], moved);
    let d = NegativeCache::from_bytes(&bytes).unwrap();
    assert_eq!(d.occupied(), 1);
    assert!(d.contains_hash(at(2, 1, 0xa5)) && !d.contains_hash(at(2, 0, 0xa5)));

    // 4 slots of 101 bits: slot 1 (bits 101..202, from byte 12) empty but for its
    // fingerprint bit 80
    let e = NegativeCache::new(2, 100, 1, 0).unwrap();
    let high = |w: &mut Vec<u64>| w[182 / 64] |= 1 << (182 % 64);
    let bytes = edit_entries(&e, &[2, 100, 1, 0, 0, 0], high);
    assert!(matches!(
        NegativeCache::from_bytes(&bytes),
        Err(Error::Corrupt { offset: 140, .. })
    ));
    // its top fingerprint bit (99, at bit 101 + 1 + 99 = 201) alone
    let top = |w: &mut Vec<u64>| w[201 / 64] |= 1 << (201 % 64);
    let bytes = edit_entries(&e, &[2, 100, 1, 0, 0, 0], top);
    assert!(matches!(
        NegativeCache::from_bytes(&bytes),
        Err(Error::Corrupt { offset: 140, .. })
    ));
    // b = 8: the empty slot 0's top fingerprint bit, bit 8
    let empty = NegativeCache::new(1, 8, 2, 0).unwrap();
    let bytes = edit_entries(&empty, &[1, 8, 2, 0, 0, 0], |w| w[0] |= 1 << 8);
    assert!(matches!(
        NegativeCache::from_bytes(&bytes),
        Err(Error::Corrupt { offset: 128, .. })
    ));
    // 2 slots of 9 bits use bits 0..18; bit 20 is past the last slot, in file byte 128 + 2
    let bytes = edit_entries(&empty, &[1, 8, 2, 0, 0, 0], |w| w[0] |= 1 << 20);
    assert!(matches!(
        NegativeCache::from_bytes(&bytes),
        Err(Error::Corrupt { offset: 130, .. })
    ));
    // with its occupied bit (101) set too, it is an entry
    let entry = |w: &mut Vec<u64>| {
        w[182 / 64] |= 1 << (182 % 64);
        w[101 / 64] |= 1 << (101 % 64);
    };
    let d = NegativeCache::from_bytes(&edit_entries(&e, &[2, 100, 1, 0, 0, 0], entry)).unwrap();
    assert_eq!(d.occupied(), 1);
    assert!(d.contains_hash(at(4, 1, 1 << 80)));
}

/// Pins `false_negative_rate` at small n against the binomial tail `P[Bin(n, w/2ˡ) ≥ w]`
/// worked by hand, on both sides of the mean and at its edges.
#[test]
fn false_negative_rate_by_hand() {
    // no slots: everything is forgotten
    assert_eq!(false_negative_rate(5, 0, 1), 1.0);
    // fewer later items than ways: nothing is pushed out
    assert_eq!(false_negative_rate(1, 8, 2), 0.0);
    assert_eq!(false_negative_rate(0, 8, 1), 0.0);
    // w = 0 counts as 1: 1 − (7/8)³ = 169/512
    assert!((false_negative_rate(3, 8, 0) - 169.0 / 512.0).abs() < 1e-15);
    assert!((false_negative_rate(3, 8, 1) - 169.0 / 512.0).abs() < 1e-15);
    // n = w = 2, p = 1/4: both land in the set, 1/16
    assert!((false_negative_rate(2, 8, 2) - 1.0 / 16.0).abs() < 1e-15);
    // n = 3, p = 1/4 (mean 3/4 < w): 3·(1/4)²·(3/4) + (1/4)³ = 10/64
    assert!((false_negative_rate(3, 8, 2) - 10.0 / 64.0).abs() < 1e-15);
    // n = 4, p = 1/2 (mean 2 = w): 1 − 1/16 − 4/16 = 11/16
    assert!((false_negative_rate(4, 4, 2) - 11.0 / 16.0).abs() < 1e-15);
    // n = 10, p = 1/2: 1 − (1 + 10)/1024
    assert!((false_negative_rate(10, 4, 2) - 1013.0 / 1024.0).abs() < 1e-15);
    // n = 6, w = 3, p = 3/64 (mean 0.28): the tail 20p³q³ + 15p⁴q² + 6p⁵q + p⁶
    let (p, q) = (3.0f64 / 64.0, 61.0f64 / 64.0);
    let want = 20.0 * p.powi(3) * q.powi(3)
        + 15.0 * p.powi(4) * q.powi(2)
        + 6.0 * p.powi(5) * q
        + p.powi(6);
    assert!((false_negative_rate(6, 64, 3) / want - 1.0).abs() < 1e-12);
    // the set is the whole table (w ≥ 2ˡ): every item in it
    assert_eq!(false_negative_rate(4, 4, 4), 1.0);
    assert_eq!(false_negative_rate(5, 2, 4), 1.0);
}

/// Pins the precision of a small tail: below the mean the terms from w up are summed (1 minus
/// the terms below w would keep only the rounding of 1), and a tail whose every term
/// underflows ends at once, however large n is.
#[test]
fn a_small_tail_keeps_its_precision() {
    // n = 3, w = 2, p = 2^-19: 3p²q + p³, about 1.1·10⁻¹¹
    let p = libm::exp2(-19.0);
    let want = 3.0 * p * p * (1.0 - p) + p * p * p;
    let got = false_negative_rate(3, 1 << 20, 2);
    assert!((got / want - 1.0).abs() < 1e-12, "{got} against {want}");
    // n = 2^40, w = 64, p = 2^-56: about (n·p)^64/64! = 2^-1024/64! ≈ 4·10⁻³⁹⁸, below the
    // smallest f64 (5·10⁻³²⁴); summing on to i = n would take 2^40 terms
    assert_eq!(false_negative_rate(1 << 40, 1 << 62, 64), 0.0);
}

/// Pins `mean_false_negative_rate` as the mean of `false_negative_rate` over 0..n later items:
/// by hand at n = 3, and for w = 1 against the closed form `1 − 2ˡ·(1 − qⁿ)/n`
/// (q = 1 − 2⁻ˡ, the mean of 1 − qʲ) both where it sums exactly and where it integrates.
#[test]
fn mean_false_negative_rate_by_hand() {
    assert_eq!(mean_false_negative_rate(0, 4, 1), 0.0);
    // (0 + 1/4 + 7/16)/3 = 11/48
    assert!((mean_false_negative_rate(3, 4, 1) - 11.0 / 48.0).abs() < 1e-15);
    let closed = |n: u64, slots: u64| {
        let none = libm::exp(n as f64 * libm::log1p(-1.0 / slots as f64));
        1.0 - slots as f64 * (1.0 - none) / n as f64
    };
    // n ≤ 4096: the exact mean
    let m = mean_false_negative_rate(4096, 4096, 1);
    assert!((m - closed(4096, 4096)).abs() < 1e-12, "{m}");
    // n > 4096: the trapezoid rule over 4096 intervals, 5·10⁻⁸ off the mean here
    let m = mean_false_negative_rate(1_000_000, 1 << 20, 1);
    assert!((m - closed(1_000_000, 1 << 20)).abs() < 1e-6, "{m}");
}
