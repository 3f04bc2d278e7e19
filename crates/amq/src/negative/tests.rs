use super::*;
use crate::clock::ManualClock;
use crate::math::binomial_sigma;
use proptest::prelude::*;
use std::collections::{HashSet, VecDeque};

#[test]
fn packed_bits_round_trip_at_every_offset() {
    let mut words = vec![0u64; 4];
    for len in [1u32, 7, 63, 64] {
        for off in 0..(256 - u64::from(len)) {
            let v = 0xdead_beef_cafe_f00d_u64 & if len == 64 { u64::MAX } else { (1 << len) - 1 };
            set_bits(&mut words, off, len, v);
            assert_eq!(get_bits(&words, off, len), v, "len {len} off {off}");
            set_bits(&mut words, off, len, 0);
            assert!(words.iter().all(|&w| w == 0), "len {len} off {off}");
        }
    }
}

#[test]
fn rejects_bad_shapes() {
    assert!(NegativeCache::new(41, 64, 1, 0).is_err());
    assert!(NegativeCache::new(10, 0, 1, 0).is_err());
    assert!(NegativeCache::new(10, 129, 1, 0).is_err());
    assert!(NegativeCache::new(10, 64, 3, 0).is_err());
    assert!(NegativeCache::new(10, 64, 128, 0).is_err());
    assert!(NegativeCache::new(2, 64, 8, 0).is_err());
    assert!(NegativeCache::new(0, 1, 1, 0).is_ok());
    assert!(NegativeCache::new(3, 64, 8, 0).is_ok());
    assert!(NegativeCache::new(4, 8, 1, 0).unwrap().with_ttl(0).is_err());
    assert!(NegativeCache::new(4, 8, 1, 0)
        .unwrap()
        .insert_with_ttl("x", 5)
        .is_err());
}

#[test]
fn direct_mapped_replaces_on_collision() {
    // One slot: every insert replaces the previous item.
    let mut c = NegativeCache::new(0, 128, 1, 0).unwrap();
    assert!(c.insert("a"));
    assert!(c.contains("a"));
    assert!(c.insert("b"));
    assert!(c.contains("b") && !c.contains("a"));
    assert!(!c.insert("b"));
    assert_eq!(c.occupied(), 1);
    assert_eq!(c.inserted(), 3);
    assert!(c.remove("b"));
    assert!(!c.remove("b"));
    assert_eq!(c.occupied(), 0);
}

#[test]
fn set_associative_keeps_the_last_w_items_of_a_set() {
    // One set of 4 ways: the 4 most recently inserted (or refreshed) items are held.
    let mut c = NegativeCache::new(2, 64, 4, 9).unwrap();
    for x in ["a", "b", "c", "d"] {
        assert!(c.insert(x));
    }
    assert!(!c.insert("a")); // refresh: a becomes the most recent
    assert!(c.insert("e")); // evicts b, the least recent
    assert!(!c.contains("b"));
    for x in ["a", "c", "d", "e"] {
        assert!(c.contains(x), "{x}");
    }
    assert!(c.remove("c"));
    assert!(c.insert("f")); // fills the hole, evicts nothing
    for x in ["a", "d", "e", "f"] {
        assert!(c.contains(x), "{x}");
    }
}

#[test]
fn ttl_expires_exactly() {
    let clock = ManualClock::new(100);
    let mut c = NegativeCache::new(4, 64, 2, 1)
        .unwrap()
        .with_clock(clock.clone())
        .with_ttl(10)
        .unwrap();
    assert_eq!(c.ttl(), Some(10));
    c.insert("a");
    c.insert_with_ttl("b", 3).unwrap();
    clock.set(102);
    assert!(c.contains("a") && c.contains("b"));
    clock.set(103);
    assert!(c.contains("a") && !c.contains("b"));
    assert!(c.insert("b")); // expired, so fresh again
    clock.set(109);
    assert!(c.contains("a"));
    clock.set(110);
    assert!(!c.contains("a") && c.contains("b"));
    assert!(!c.remove("a")); // held but expired: not a live removal
}

#[test]
fn a_full_set_drops_an_expired_entry_before_a_live_one() {
    let clock = ManualClock::new(0);
    let mut c = NegativeCache::new(1, 64, 2, 3)
        .unwrap()
        .with_clock(clock.clone())
        .with_ttl(100)
        .unwrap();
    clock.set(0);
    c.insert("long"); // least recent, live
    c.insert_with_ttl("short", 1).unwrap(); // most recent, expires at 1
    clock.set(5);
    c.insert("new"); // the expired "short" goes, not the least recent "long"
    assert!(c.contains("long") && c.contains("new") && !c.contains("short"));
}

#[test]
fn batched_answers_match_single_ones() {
    let mut c = NegativeCache::new(6, 16, 4, 2).unwrap();
    for x in 0..100u32 {
        c.insert(&x);
    }
    let items: Vec<u32> = (0..150).collect();
    let refs: Vec<&u32> = items.iter().collect();
    let mut out = vec![false; refs.len()];
    c.contains_batch(&refs, &mut out);
    for (x, got) in items.iter().zip(out) {
        assert_eq!(got, c.contains(x), "{x}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// No false positives at b ≥ 64: "definitely present" only for items inserted and not
    /// removed since, whatever the sequence of inserts, removals and replacements.
    #[test]
    fn no_false_positives_against_a_hashset(
        l in 0u32..6,
        b in prop::sample::select(vec![64u32, 65, 100, 128]),
        ways_log in 0u32..4,
        seed in any::<u64>(),
        ops in prop::collection::vec((0u8..4, 0u16..200), 1..400),
    ) {
        let ways = 1u32 << ways_log.min(l);
        let mut c = NegativeCache::new(l, b, ways, seed).unwrap();
        let mut model = HashSet::new();
        for (op, x) in ops {
            match op {
                0 | 1 => {
                    c.insert(&x);
                    model.insert(x);
                    prop_assert!(c.contains(&x)); // the item just inserted is always held
                }
                2 => {
                    c.remove(&x);
                    model.remove(&x);
                    prop_assert!(!c.contains(&x));
                }
                _ => {
                    if c.contains(&x) {
                        prop_assert!(model.contains(&x));
                    }
                }
            }
        }
        for x in 0u16..200 {
            if c.contains(&x) {
                prop_assert!(model.contains(&x), "false positive for {}", x);
            }
        }
        prop_assert!(c.occupied() <= c.slots());
    }

    /// Replacement is exactly LRU within each set: a model that keeps, per set, the w most
    /// recently inserted items (by the cache's own hash) answers exactly as the cache.
    #[test]
    fn lru_within_each_set_matches_a_model(
        l in 0u32..5,
        ways_log in 0u32..4,
        seed in any::<u64>(),
        ops in prop::collection::vec((0u8..3, 0u16..100), 1..300),
    ) {
        let ways = 1u32 << ways_log.min(l);
        let mut c = NegativeCache::new(l, 128, ways, seed).unwrap();
        let mut sets: Vec<VecDeque<u16>> = vec![VecDeque::new(); c.sets() as usize];
        let set_of = |c: &NegativeCache, x: u16| (c.first_slot(&c.hash(&x)) / u64::from(c.ways())) as usize;
        for (op, x) in ops {
            let s = set_of(&c, x);
            let q = &mut sets[s];
            if op < 2 {
                c.insert(&x);
                q.retain(|&y| y != x);
                q.push_front(x);
                q.truncate(ways as usize);
            } else {
                c.remove(&x);
                q.retain(|&y| y != x);
            }
            for y in 0u16..100 {
                let held = sets[set_of(&c, y)].contains(&y);
                prop_assert_eq!(c.contains(&y), held, "item {}", y);
            }
        }
    }

    #[test]
    fn round_trip(
        l in 0u32..6,
        b in prop::sample::select(vec![1u32, 7, 63, 64, 65, 127, 128]),
        ways_log in 0u32..3,
        ttl in prop::option::of(1u64..50),
        items in prop::collection::vec(any::<u32>(), 0..100),
    ) {
        let ways = 1u32 << ways_log.min(l);
        let clock = ManualClock::new(7);
        let mut c = NegativeCache::new(l, b, ways, 5).unwrap().with_clock(clock.clone());
        if let Some(t) = ttl {
            c = c.with_ttl(t).unwrap();
        }
        for x in &items {
            c.insert(x);
            clock.advance(1);
        }
        let bytes = c.to_bytes();
        let d = NegativeCache::from_bytes(&bytes).unwrap();
        prop_assert_eq!(d.to_bytes(), bytes);
        prop_assert_eq!(d.occupied(), c.occupied());
        let d = d.with_clock(clock.clone());
        for x in &items {
            prop_assert_eq!(d.contains(x), c.contains(x));
        }
    }
}

/// Measured false negatives of the direct-mapped table against the mean of
/// `1 − (1 − 2⁻ˡ)ʲ`, and the false positives at b = 8 against occupancy·w·2⁻ᵇ, within 3σ.
#[test]
fn measured_rates_match_the_formulas() {
    let (l, n) = (16u32, 1u64 << 16);
    let mut c = NegativeCache::new(l, 64, 1, 11).unwrap();
    for x in 0..n {
        c.insert(&x);
    }
    let misses = (0..n).filter(|x| !c.contains(x)).count() as u64;
    let want = mean_false_negative_rate(n, 1 << l, 1);
    let got = misses as f64 / n as f64;
    // items are not independent (each miss is one slot taken by another); the slot count
    // makes the spread a little smaller than binomial, so 3 binomial sigmas are safe
    assert!(
        (got - want).abs() <= 3.0 * binomial_sigma(want, n),
        "fnr {got} vs {want}"
    );
    assert!(got <= n as f64 / f64::from(1u32 << l));

    for ways in [1u32, 8] {
        let mut c = NegativeCache::new(12, 8, ways, 3).unwrap();
        for x in 0..3000u64 {
            c.insert(&x);
        }
        let trials = 400_000u64;
        let fp = (1_000_000..1_000_000 + trials)
            .filter(|x| c.contains(x))
            .count() as u64;
        let want = c.estimated_fpr();
        let got = fp as f64 / trials as f64;
        assert!(
            (got - want).abs() <= 3.0 * binomial_sigma(want, trials),
            "ways {ways}: fpr {got} vs {want}"
        );
        assert!(got <= c.fpr_bound());
    }
}

/// The figure: 8 ways, 2²⁰ slots, n = 2¹⁶ items: the false-negative rate is at most
/// 10⁻⁶, where the direct-mapped table at the same memory loses about 3% of them. Measured
/// over 16 seeds (2²⁰ queries of inserted items, all of them), so 10⁻⁶ allows one miss.
#[test]
fn eight_ways_cut_false_negatives_below_one_in_a_million() {
    let (l, n) = (20u32, 1u64 << 16);
    let mut misses = 0u64;
    let mut queries = 0u64;
    for seed in 0..16u64 {
        let mut c = NegativeCache::new(l, 63, 8, seed).unwrap();
        for x in 0..n {
            c.insert(&x);
        }
        misses += (0..n).filter(|x| !c.contains(x)).count() as u64;
        queries += n;
    }
    assert!(
        misses as f64 / queries as f64 <= 1e-6,
        "{misses} misses in {queries}"
    );
    assert!(mean_false_negative_rate(n, 1 << l, 8) <= 1e-6);

    let mut direct = NegativeCache::new(l, 63, 1, 0).unwrap();
    for x in 0..n {
        direct.insert(&x);
    }
    let direct_misses = (0..n).filter(|x| !direct.contains(x)).count();
    assert!(direct_misses > 1000, "{direct_misses}"); // ≈ 3% of 65,536
    assert_eq!(
        direct.size_bytes(),
        NegativeCache::new(l, 63, 8, 0).unwrap().size_bytes()
    );
}

#[test]
fn formulas_agree_with_closed_forms() {
    for (n, slots) in [(10u64, 1024u64), (1 << 16, 1 << 20), (5000, 64)] {
        let want = 1.0 - (1.0 - 1.0 / slots as f64).powf(n as f64);
        assert!((false_negative_rate(n, slots, 1) - want).abs() < 1e-9);
    }
    assert_eq!(false_negative_rate(7, 1024, 8), 0.0);
    assert!((false_negative_rate(8, 8, 8) - 1.0).abs() < 1e-12);
    // monotone in n, falling in w
    assert!(false_negative_rate(1000, 4096, 4) < false_negative_rate(2000, 4096, 4));
    assert!(false_negative_rate(1000, 4096, 8) < false_negative_rate(1000, 4096, 4));
}

/// Pins the bytes of a small cache so that a format change cannot slip in unnoticed.
#[test]
fn decoder_rejects_what_it_cannot_trust() {
    let mut c = NegativeCache::new(4, 9, 2, 1).unwrap().with_ttl(5).unwrap();
    for x in 0..10u32 {
        c.insert(&x);
    }
    let bytes = c.to_bytes();
    for cut in 0..bytes.len() {
        assert!(NegativeCache::from_bytes(&bytes[..cut]).is_err());
    }
    let good = wire::decode(&bytes).unwrap();
    let reencode =
        |params: &[u64], payload: &[u8]| wire::encode(Kind::NegativeCache, params, payload);
    // shapes out of range
    for params in [
        [41, 9, 2, 1, 5, 10],
        [4, 0, 2, 1, 5, 10],
        [4, 129, 2, 1, 5, 10],
        [4, 9, 3, 1, 5, 10],
        [4, 9, 32, 1, 5, 10],
        [u64::MAX, u64::MAX, u64::MAX, 1, 5, 10],
        [4, 9, 2, 1, 0, 10], // no expiry, but the payload holds expiry words
    ] {
        assert!(
            NegativeCache::from_bytes(&reencode(&params, good.payload)).is_err(),
            "{params:?}"
        );
    }
    // an empty slot in front of an occupied one
    let mut payload = good.payload.to_vec();
    let mut empty_first = None;
    for set in 0..8u64 {
        let s0 = get_bits(&c.entries, set * 2 * 10, 1);
        let s1 = get_bits(&c.entries, (set * 2 + 1) * 10, 1);
        if s0 == 1 && s1 == 0 {
            empty_first = Some(set * 2);
            break;
        }
    }
    if let Some(slot) = empty_first {
        let mut words = crate::bits::le_bytes_to_words(&payload).unwrap();
        let e = get_bits(&words, slot * 10, 10);
        set_bits(&mut words, slot * 10, 10, 0);
        set_bits(&mut words, (slot + 1) * 10, 10, e);
        payload = crate::bits::words_to_le_bytes(&words);
        assert!(NegativeCache::from_bytes(&reencode(&good.params, &payload)).is_err());
    }
    // a fingerprint in an empty slot
    let d = NegativeCache::new(4, 9, 2, 1).unwrap();
    let mut words = d.entries.clone();
    set_bits(&mut words, 1, 9, 5);
    let bytes = reencode(&[4, 9, 2, 1, 0, 0], &crate::bits::words_to_le_bytes(&words));
    assert!(NegativeCache::from_bytes(&bytes).is_err());
    // bits past the last slot: 16 slots of 10 bits use 160 of 192 bits
    let mut words = d.entries.clone();
    words[2] |= 1 << 40;
    let bytes = reencode(&[4, 9, 2, 1, 0, 0], &crate::bits::words_to_le_bytes(&words));
    assert!(NegativeCache::from_bytes(&bytes).is_err());
    // another kind
    let other = wire::encode(Kind::Bloom, &[64, 3, 0, 0], &[0; 8]);
    assert!(matches!(
        NegativeCache::from_bytes(&other),
        Err(Error::WrongKind { .. })
    ));
}

/// Counters read from a file may be at their maximum: inserting saturates, never overflows.
#[test]
fn counters_from_a_file_saturate() {
    let c = NegativeCache::new(3, 8, 1, 0).unwrap();
    let good = c.to_bytes();
    let d = wire::decode(&good).unwrap();
    let mut params = d.params.clone();
    params[5] = u64::MAX;
    let bytes = wire::encode(Kind::NegativeCache, &params, d.payload);
    let mut c = NegativeCache::from_bytes(&bytes).unwrap();
    c.insert("x");
    assert_eq!(c.inserted(), u64::MAX);
}

/// At a large n the terms are summed from their ratios, not from ln n! − ln i! − ln (n − i)!,
/// whose three terms near n·ln n cancel: that form was 7·10⁻⁴ off at n = 2⁴⁰ (w = 1), 3·10⁻³
/// (w = 2) and 93% at n = 2⁵⁰. Checked against the closed forms `1 − (1 − p)ⁿ` and
/// `1 − (1 − p)ⁿ − n·p·(1 − p)ⁿ⁻¹`.
#[test]
fn formulas_keep_their_precision_at_a_large_n() {
    for (n, slots) in [
        (1u64 << 40, 1u64 << 44),
        (1 << 50, 1 << 56),
        (1 << 62, 1 << 63),
    ] {
        for w in [1u32, 2] {
            let (nf, p) = (n as f64, f64::from(w) / slots as f64);
            let none = libm::exp(nf * libm::log1p(-p));
            let one = nf * p * libm::exp((nf - 1.0) * libm::log1p(-p));
            let want = if w == 1 {
                -libm::expm1(nf * libm::log1p(-p))
            } else {
                1.0 - none - one
            };
            let got = false_negative_rate(n, slots, w);
            assert!(
                (got / want - 1.0).abs() < 1e-12,
                "n {n}, {slots} slots, w {w}: {got} against {want}"
            );
        }
    }
}
