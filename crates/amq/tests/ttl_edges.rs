//! Edges of the TTL cuckoo filter (`src/ttl/`) that `tests/ttl.rs` leaves open: the decoder's
//! errors with the file's byte offsets (a bad bucket named where it starts in the file, each
//! stash check on its own), files at the limits that must decode, the planner's every field
//! worked out by hand for one spec, the stamp widths from the longest TTL at their powers of
//! two, the planner's and the constructor's refusals by name at their limits, the accessors,
//! the batched queries against the single ones, and the live load and ε. Most tests here were
//! written against a mutant of `src/ttl/*.rs` that cargo-mutants found the other tests let
//! through.

use amq::clock::{Clock, ManualClock};
use amq::cuckoo::MAX_BUCKETS;
use amq::math::{Plan, PlanDetails};
use amq::ttl::{plan, TtlCuckooFilter, TtlSpec};
use amq::wire::{self, Kind};
use amq::{Filter, Remove};

#[path = "common/errors.rs"]
mod errors;
use errors::{corrupt_at, invalid};

/// A TTL file of these parameter words and payload (the checksum made right).
fn reencode(params: &[u64], payload: &[u8]) -> Vec<u8> {
    wire::encode(Kind::TtlCuckoo, params, payload)
}

// ---- encoding.rs

/// A bad bucket is named by the file's byte where it starts, as the other decoders do: the
/// 11 parameter words end at byte 24 + 88 = 112, so the payload starts at 128, and with
/// f = 8, s = 3 a bucket is ⌈4 · 11/8⌉ = 6 bytes. A stamp without a fingerprint in bucket 1
/// is at byte 128 + 6 = 134; a bit past the 44 slot bits of bucket 2 (bit 44 is the low bit
/// of the high nibble of its byte 5) is at 128 + 12 = 140. (The decoder used to give the
/// payload's offsets, 6 and 12.)
#[test]
fn a_bad_bucket_is_named_by_its_byte_in_the_file() {
    let f = TtlCuckooFilter::new(3, 8, 3, 10, 0).unwrap();
    let good = f.to_bytes();
    let c = wire::decode(&good).unwrap();
    assert_eq!((c.payload_offset(), c.payload.len()), (128, 18));
    let mut payload = c.payload.to_vec();
    payload[6] = 0x05; // bucket 1, slot 0: stamp 5, fingerprint 0
    assert_eq!(
        corrupt_at(TtlCuckooFilter::from_bytes(&reencode(&c.params, &payload))),
        134
    );
    let mut payload = c.payload.to_vec();
    payload[12 + 5] = 0x10; // bucket 2, bit 44
    assert_eq!(
        corrupt_at(TtlCuckooFilter::from_bytes(&reencode(&c.params, &payload))),
        140
    );
}

/// The parameter checks name the word they read: p[i] is at byte 24 + 8i, so f at 24, the
/// slots per bucket at 40, the default TTL at 72, the sweep epoch at 80; a payload of the
/// wrong length concerns the whole input (0).
#[test]
fn a_bad_parameter_is_named_by_its_word() {
    let f = TtlCuckooFilter::new(3, 8, 3, 10, 0).unwrap(); // max_ttl 80
    let bytes = f.to_bytes();
    let c = wire::decode(&bytes).unwrap();
    for (i, v, at) in [
        (0, 1, 24),        // f below 2
        (2, 8, 40),        // 8 slots per bucket
        (6, 0, 72),        // default TTL 0
        (6, 81, 72),       // default TTL above tick · 2^s
        (7, u64::MAX, 80), // a sweep epoch past the last time
        (3, 4, 0),         // 4 buckets: 24 payload bytes, 18 found
    ] {
        let mut p = c.params.clone();
        p[i] = v;
        let r = TtlCuckooFilter::from_bytes(&reencode(&p, c.payload));
        assert_eq!(corrupt_at(r), at, "param {i} = {v}");
    }
}

/// A default TTL equal to the longest, `tick · 2ˢ` (the limit `with_default_ttl` accepts),
/// survives the file: the decoder's range `1..=max_ttl` is inclusive at the top.
#[test]
fn a_default_ttl_of_the_longest_round_trips() {
    let mut f = TtlCuckooFilter::new(16, 12, 3, 10, 0)
        .unwrap()
        .with_default_ttl(80)
        .unwrap();
    f.insert("a", 0, 80).unwrap();
    let g = TtlCuckooFilter::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(g.default_ttl(), 80);
    assert_eq!(g, f);
}

/// A filter filled until an insert is refused, with a live entry in the victim stash.
fn full_with_a_stash() -> TtlCuckooFilter {
    let mut f = TtlCuckooFilter::new(50, 8, 4, 10, 9).unwrap(); // 12-bit slots
    let mut i = 0u32;
    while f.insert(&i, 0, 150).is_ok() {
        i += 1;
    }
    assert!(f.stash_used_at(0));
    f
}

/// A file whose stash holds a live entry decodes to the same filter, its stash live until
/// every entry expires at 150 (the stash word is 0 only when the stash is empty). Each of the
/// four stash checks refuses a file on its own, named at the last of the two stash words
/// (byte 24 + 8 · 10 = 104): bits past the 12-bit slot, a bucket without an entry, a stamp
/// without a fingerprint (value 1: stamp 1, fingerprint 0), and a bucket past the last (50
/// of 50).
#[test]
fn a_stash_round_trips_and_each_stash_check_refuses_alone() {
    let f = full_with_a_stash();
    let bytes = f.to_bytes();
    let g = TtlCuckooFilter::from_bytes(&bytes).unwrap();
    assert_eq!(g, f);
    assert!(g.stash_used_at(149) && !g.stash_used_at(150)); // every entry expires at 150
    assert_eq!(g.entries_at(0), f.entries_at(0));
    let c = wire::decode(&bytes).unwrap();
    let (stash, bucket) = (c.params[9], c.params[10]);
    assert!(stash != 0 && stash >> 12 == 0 && stash >> 4 != 0 && bucket < 50);
    for (value, at, what) in [
        (stash | 1 << 12, bucket, "a bit past the slot"),
        (0, 1, "a bucket without an entry"),
        (1, 0, "a stamp without a fingerprint"),
        (stash, 50, "a bucket past the last"),
    ] {
        let mut p = c.params.clone();
        (p[9], p[10]) = (value, at);
        let r = TtlCuckooFilter::from_bytes(&reencode(&p, c.payload));
        assert_eq!(corrupt_at(r), 104, "{what}");
    }
    let mut p = c.params.clone();
    p[10] = 49; // another bucket in range: a valid file
    assert!(TtlCuckooFilter::from_bytes(&reencode(&p, c.payload)).is_ok());
}

// ---- plan.rs

/// The plan of one spec, worked out by hand: n = 7,602 is past 5,625, so the planned load is
/// 0.95 and there are ⌈7602/3.8⌉ = 2,001 buckets (α = 7602/8004); ε = 0.01 needs f = 10
/// (8 · 0.95/1023 = 0.0074; f = 9 gives 0.0149); a longest TTL of 95 at ticks of 10 is
/// ⌈9.5⌉ = 10 ticks, so s = ⌈log₂10⌉ + 1 = 5 and w = 15. Then m = 2001 · 4 · 15 = 120,060
/// bits, a bucket of 60 bits takes 8 bytes (16,008), the longest TTL is 10 · 32 = 320, the
/// default is the 95 given, and sweeps come at least 32 − 10 + 1 = 23 ticks apart.
#[test]
fn a_plan_worked_out_by_hand() {
    let p = plan(&TtlSpec {
        items: 7_602,
        fpr: 0.01,
        tick: 10,
        stamp_bits: None,
        max_ttl: Some(95),
    })
    .unwrap();
    let PlanDetails::TtlCuckoo(d) = p.details else {
        panic!("{p:?}")
    };
    let alpha = 7_602.0 / 8_004.0;
    assert_eq!(
        (d.fingerprint_bits, d.stamp_bits, d.buckets),
        (10, 5, 2_001)
    );
    assert_eq!((d.slots_per_bucket, d.tick, d.max_ttl), (4, 10, 320));
    assert_eq!((d.default_ttl, d.ticks_between_sweeps), (95, 23));
    assert_eq!(d.load_factor, alpha);
    assert_eq!(
        (p.items, p.m_bits, p.k, p.bytes),
        (7_602, 120_060, 2, 16_008)
    );
    assert_eq!(p.bits_per_key, 120_060.0 / 7_602.0);
    // ε at the live load: 1 − (1 − 2^−10)^(8α) and, with the 1023 non-zero fingerprints,
    // 1 − (1 − 1/1023)^(8α)
    let by_hand = |q: f64| 1.0 - (1.0 - q).powf(8.0 * alpha);
    assert!(
        (p.fpr / by_hand(1.0 / 1024.0) - 1.0).abs() < 1e-9,
        "{}",
        p.fpr
    );
    assert!((p.fpr_exact / by_hand(1.0 / 1023.0) - 1.0).abs() < 1e-9);
    assert_eq!(p.fpr, amq::cuckoo::fpr(10, alpha));
    assert_eq!(p.fpr_exact, amq::cuckoo::fpr_exact(10, alpha));
}

/// Without stamp bits or a longest TTL: s = 4, so TTLs up to 16 ticks (7 · 16 = 112), the
/// default is half of that (56), sweeps come at least 16 − 8 + 1 = 9 ticks apart, and a
/// bucket of 4 · 14 = 56 bits takes 7 bytes.
#[test]
fn a_plan_without_a_ttl_takes_four_stamp_bits() {
    let p: Plan = plan(&TtlSpec {
        items: 7_602,
        fpr: 0.01,
        tick: 7,
        stamp_bits: None,
        max_ttl: None,
    })
    .unwrap();
    let PlanDetails::TtlCuckoo(d) = p.details else {
        panic!("{p:?}")
    };
    assert_eq!((d.fingerprint_bits, d.stamp_bits), (10, 4));
    assert_eq!(
        (d.max_ttl, d.default_ttl, d.ticks_between_sweeps),
        (112, 56, 9)
    );
    assert_eq!((p.m_bits, p.bytes), (2_001 * 56, 2_001 * 7));
}

/// s = ⌈log₂L⌉ + 1 for a longest TTL of L ticks, at and past the powers of two: L = 1 → 1,
/// 2 → 2, 3 and 4 → 3, 5 → 4, 16 → 5, 17 → 6, 32,768 → 16; L counts whole ticks, rounded up
/// (160 at ticks of 10 is 16 ticks, 161 is 17).
#[test]
fn stamp_bits_from_the_longest_ttl() {
    let s = |max_ttl: u64, tick: u64| {
        let p = plan(&TtlSpec {
            items: 7_602,
            fpr: 0.01,
            tick,
            stamp_bits: None,
            max_ttl: Some(max_ttl),
        })
        .unwrap();
        let PlanDetails::TtlCuckoo(d) = p.details else {
            panic!("{p:?}")
        };
        assert_eq!(d.max_ttl, tick << d.stamp_bits);
        d.stamp_bits
    };
    for (l, bits) in [
        (1, 1),
        (2, 2),
        (3, 3),
        (4, 3),
        (5, 4),
        (16, 5),
        (17, 6),
        (32_768, 16),
    ] {
        assert_eq!(s(l, 1), bits, "L = {l}");
    }
    assert_eq!((s(160, 10), s(161, 10)), (5, 6));
}

/// Each refusal of the planner, by the name of what is wrong: no items, ε outside (0, 1)
/// (0, 1, NaN and beyond), a tick of 0, a longest TTL of 0 or below one tick, stamp widths
/// outside 1..=16, a longest TTL too long for the stamp bits given (3 bits hold 8 ticks, not
/// 9), and an ε that needs more than 32 − s fingerprint bits. At the limits: one tick of TTL,
/// 8 ticks in 3 bits, and f = 16 beside s = 16 (n = 100 plans for α = 0.82: ε = 1.5·10⁻⁴ needs
/// 16 bits, 8 · 0.82/65535 = 1.0·10⁻⁴, while 0.9·10⁻⁴ needs 17, which is refused as ε).
#[test]
fn the_planners_refusals_by_name() {
    let spec = |items, fpr, tick, stamp_bits, max_ttl| {
        plan(&TtlSpec {
            items,
            fpr,
            tick,
            stamp_bits,
            max_ttl,
        })
    };
    assert_eq!(invalid(spec(0, 0.01, 10, None, None)), "n");
    for e in [0.0, 1.0, f64::NAN, -0.5, 2.0] {
        let r = spec(100, e, 10, None, None);
        match &r {
            Err(amq::Error::InvalidParameter { reason, .. }) => {
                assert!(reason.contains("strictly between"), "{e}: {reason}")
            }
            other => panic!("{e}: {other:?}"),
        }
        assert_eq!(invalid(r), "fpr");
    }
    assert_eq!(invalid(spec(100, 0.01, 0, None, None)), "tick");
    assert_eq!(invalid(spec(100, 0.01, 10, None, Some(0))), "max_ttl");
    assert_eq!(invalid(spec(100, 0.01, 10, None, Some(9))), "max_ttl");
    assert!(spec(100, 0.01, 10, None, Some(10)).is_ok());
    for s in [0, 17] {
        assert_eq!(invalid(spec(100, 0.01, 10, Some(s), None)), "stamp_bits");
    }
    assert!(spec(100, 0.01, 10, Some(3), Some(80)).is_ok());
    assert_eq!(invalid(spec(100, 0.01, 10, Some(3), Some(81))), "max_ttl");
    let widest = spec(100, 1.5e-4, 10, Some(16), None).unwrap();
    let PlanDetails::TtlCuckoo(d) = widest.details else {
        panic!("{widest:?}")
    };
    assert_eq!((d.fingerprint_bits, d.stamp_bits), (16, 16));
    assert_eq!(invalid(spec(100, 0.9e-4, 10, Some(16), None)), "fpr");
}

// ---- mod.rs

/// The shape checks at their limits, by name: f = 2 is the narrowest fingerprint and f + s = 32
/// the widest slot (28 + 4, 16 + 16), s runs 1..=16, buckets from 1, ticks from 1.
#[test]
fn shapes_at_their_limits() {
    for (f, s) in [(2, 1), (28, 4), (16, 16), (31, 1)] {
        assert!(TtlCuckooFilter::new(1, f, s, 1, 0).is_ok(), "f {f} s {s}");
    }
    for (f, s) in [(1, 4), (29, 4), (17, 16)] {
        let r = TtlCuckooFilter::new(1, f, s, 1, 0);
        assert_eq!(invalid(r), "fingerprint_bits", "f {f} s {s}");
    }
    for s in [0, 17] {
        assert_eq!(invalid(TtlCuckooFilter::new(1, 8, s, 1, 0)), "stamp_bits");
    }
    assert_eq!(invalid(TtlCuckooFilter::new(0, 8, 4, 1, 0)), "buckets");
    let over = TtlCuckooFilter::new(MAX_BUCKETS + 1, 8, 4, 1, 0);
    assert_eq!(invalid(over), "buckets");
    assert_eq!(invalid(TtlCuckooFilter::new(1, 8, 4, 0, 0)), "tick");
}

/// 2³⁶ buckets is in range: a file that says so is refused for its payload's length (byte
/// 0, the whole input), not for its bucket count (byte 24), without allocating the table.
#[test]
fn the_most_buckets_pass_the_shape_check() {
    let f = TtlCuckooFilter::new(3, 8, 3, 10, 0).unwrap();
    let bytes = f.to_bytes();
    let c = wire::decode(&bytes).unwrap();
    let mut p = c.params.clone();
    p[3] = MAX_BUCKETS;
    assert_eq!(
        corrupt_at(TtlCuckooFilter::from_bytes(&reencode(&p, c.payload))),
        0
    );
    p[3] = MAX_BUCKETS + 1;
    assert_eq!(
        corrupt_at(TtlCuckooFilter::from_bytes(&reencode(&p, c.payload))),
        24
    );
}

/// The accessors of a new filter of 1,000 buckets, f = 12, s = 4, ticks of 60 and seed 77:
/// 4,000 slots of 16 bits (m = 64,000, 8 bytes a bucket), TTLs up to 60 · 16 = 960 with a
/// default of half, nothing inserted, swept or stashed, and the clock it was given.
#[test]
fn accessors_follow_their_formulas() {
    let clock = ManualClock::new(1_234);
    let f = TtlCuckooFilter::new(1_000, 12, 4, 60, 77)
        .unwrap()
        .with_clock(clock.clone());
    assert_eq!(
        (f.buckets(), f.fingerprint_bits(), f.stamp_bits()),
        (1_000, 12, 4)
    );
    assert_eq!(
        (f.tick(), f.max_ttl(), f.default_ttl(), f.seed()),
        (60, 960, 480, 77)
    );
    assert_eq!((f.slots(), f.m(), f.size_bytes()), (4_000, 64_000, 8_000));
    assert_eq!((f.inserted(), f.swept_epoch()), (0, 0));
    assert!(!f.stash_used_at(1_234));
    assert_eq!(f.clock().now(), 1_234);
    assert_eq!(f.hash("x"), amq::hash::hash128("x", 77));
    // an odd width: 3 buckets of 4 · 11 = 44 bits take 6 bytes each
    let g = TtlCuckooFilter::new(3, 8, 3, 10, 0).unwrap();
    assert_eq!((g.slots(), g.m(), g.size_bytes()), (12, 132, 18));
}

/// The default TTL must lie in one tick ..= tick · 2ˢ (10 ..= 80 here), both ends included.
#[test]
fn the_default_ttl_range_is_inclusive() {
    let f = TtlCuckooFilter::new(16, 12, 3, 10, 0).unwrap();
    for ttl in [10, 80] {
        assert_eq!(f.clone().with_default_ttl(ttl).unwrap().default_ttl(), ttl);
    }
    for ttl in [0, 9, 81] {
        assert_eq!(invalid(f.clone().with_default_ttl(ttl)), "default_ttl");
    }
}

/// The batched queries answer as the single ones, live and expired, through the hashes, the
/// items and the clock; once every entry has expired (a time 2ˢ ticks past the sweep epoch)
/// they write `false` over an all-true `out`.
#[test]
fn batched_queries_answer_as_single_ones() {
    let clock = ManualClock::new(0);
    let mut f = TtlCuckooFilter::new(64, 12, 4, 10, 3)
        .unwrap()
        .with_clock(clock.clone());
    let items: Vec<String> = (0..40).map(|i| format!("item-{i}")).collect();
    for (i, item) in items.iter().enumerate() {
        // half expire at 50, half at 150
        f.insert(item.as_str(), 0, if i % 2 == 0 { 50 } else { 150 })
            .unwrap();
    }
    let refs: Vec<&str> = items.iter().map(String::as_str).collect();
    let hashes: Vec<u128> = refs.iter().map(|x| f.hash(*x)).collect();
    for now in [0, 49, 50, 149, 150, 160, 10_000] {
        let single: Vec<bool> = refs.iter().map(|x| f.contains(*x, now)).collect();
        assert_eq!(
            single.iter().filter(|&&b| b).count(),
            match now {
                0..50 => 40,
                50..150 => 20,
                _ => 0,
            }
        );
        let mut out = vec![!single[0]; refs.len()];
        f.contains_batch(&refs, now, &mut out);
        assert_eq!(out, single, "items at {now}");
        let mut out = vec![true; refs.len()];
        f.contains_hash_batch(&hashes, now, &mut out);
        assert_eq!(out, single, "hashes at {now}");
        clock.set(now);
        let mut out = vec![true; refs.len()];
        Filter::contains_batch(&f, &refs, &mut out);
        assert_eq!(out, single, "clock at {now}");
    }
}

/// The load and ε by the live entries: 30 live items in 64 · 4 = 256 slots are α = 30/256
/// and ε = 1 − (1 − 1/4095)^(8 · 30/256); the clock's time gives the same; once they expire
/// both are 0; `clear` leaves nothing, live or expired.
#[test]
fn load_and_fpr_count_the_live_entries() {
    let clock = ManualClock::new(100);
    let mut f = TtlCuckooFilter::new(64, 12, 4, 10, 1)
        .unwrap()
        .with_clock(clock.clone());
    let mut stored = 0;
    for i in 0..30u32 {
        stored += u64::from(f.insert(&i, 100, 60).unwrap());
    }
    assert_eq!(f.entries_at(100).0, stored);
    let alpha = stored as f64 / 256.0;
    assert_eq!(f.load_factor_at(100), alpha);
    let by_hand = 1.0 - (1.0 - 1.0 / 4095.0f64).powf(8.0 * alpha);
    assert!((f.expected_fpr(stored) / by_hand - 1.0).abs() < 1e-9);
    assert_eq!(f.estimated_fpr_at(100), f.expected_fpr(stored));
    assert_eq!(f.estimated_fpr(), f.estimated_fpr_at(100));
    clock.set(160);
    assert_eq!((f.estimated_fpr(), f.load_factor_at(160)), (0.0, 0.0));
    assert_eq!(f.entries_at(160), (0, stored));
    f.clear();
    assert_eq!(f.entries_at(100), (0, 0));
    assert!((0..30u32).all(|i| !f.contains(&i, 100)));
}

/// `remove` at a time takes the live entry once, and the trait's removes at the clock's time:
/// an entry is removed while live and not after it has expired.
#[test]
fn removes_take_a_live_entry_once() {
    let clock = ManualClock::new(0);
    let mut f = TtlCuckooFilter::new(64, 12, 4, 10, 2)
        .unwrap()
        .with_clock(clock.clone());
    f.insert("a", 0, 50).unwrap();
    f.insert("b", 0, 50).unwrap();
    assert!(f.remove("a", 10) && !f.contains("a", 10) && !f.remove("a", 10));
    assert!(f.remove_hash(f.hash("b"), 49) && !f.remove_hash(f.hash("b"), 49));
    f.insert("c", 0, 50).unwrap();
    f.insert("d", 0, 50).unwrap();
    clock.set(50);
    assert!(!Remove::remove(&mut f, "c")); // expired
    clock.set(40);
    assert!(Remove::remove(&mut f, "d") && !Filter::contains(&f, "d"));
    assert!(!Remove::remove(&mut f, "d"));
}

/// After a sweep the next sweep waits for an expiry past w + 2ˢ ticks, counted from the new
/// epoch w: with s = 4 and ticks of 1, a sweep at 9 (an expiry of 17 > 16) sets w = 9, and an
/// insert at 10 expiring at 15 (6 ticks past w) or at 25 (16 past) does not sweep again; one
/// expiring at 26 (17 past) does.
#[test]
fn the_next_sweep_counts_from_the_sweep_epoch() {
    let mut f = TtlCuckooFilter::new(100, 12, 4, 1, 0).unwrap();
    f.insert("a", 0, 8).unwrap();
    f.insert("c", 9, 8).unwrap();
    assert_eq!(f.swept_epoch(), 9);
    f.insert("d", 10, 5).unwrap();
    f.insert("e", 10, 15).unwrap();
    assert_eq!(f.swept_epoch(), 9);
    f.insert("g", 10, 16).unwrap();
    assert_eq!(f.swept_epoch(), 10);
    assert!(["c", "d", "e", "g"].iter().all(|x| f.contains(*x, 10)));
}
