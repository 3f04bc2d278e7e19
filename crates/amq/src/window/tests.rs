use super::*;
use crate::clock::ManualClock;
use crate::math::binomial_sigma;
use crate::{Filter, Insert};
use proptest::prelude::*;
use std::collections::HashSet;

const SMALL: WindowParams = WindowParams {
    window_bits: 256,
    chunk_bits: 64,
    batch: 2,
    k: 3,
};

#[test]
fn params_are_checked() {
    let ok = WindowParams::NEPTUNE;
    assert!(ok.check().is_ok());
    assert_eq!(ok.chunks(), 256);
    for bad in [
        WindowParams {
            chunk_bits: 0,
            ..ok
        },
        WindowParams {
            chunk_bits: 100,
            ..ok
        },
        WindowParams {
            window_bits: 1000,
            ..ok
        },
        WindowParams {
            window_bits: 0,
            ..ok
        },
        WindowParams {
            window_bits: 1 << 37,
            ..ok
        },
        WindowParams { batch: 0, ..ok },
        WindowParams { k: 0, ..ok },
        WindowParams { k: 65, ..ok },
    ] {
        assert!(SlidingWindowBloom::new(bad, 0).is_err(), "{bad:?}");
    }
    // Neptune's steady state: (1 − e^(−45·8/4096))^45
    let e = WindowParams::NEPTUNE.steady_state_fpr();
    assert!(e > 4e-49 && e < 4.5e-49, "{e}");
}

#[test]
fn the_window_slides_one_chunk_every_b_insertions() {
    let mut f = SlidingWindowBloom::new(SMALL, 1).unwrap();
    for i in 0..2u32 {
        assert_eq!(f.insert(&i).unwrap(), u64::from(i));
    }
    assert_eq!(f.window_start_chunk(), 0);
    f.insert("x").unwrap(); // position 2: batch 1
    assert_eq!(f.window_start_chunk(), 1);
    for i in 0..7u32 {
        f.insert(&i).unwrap();
    }
    assert_eq!(f.next_position(), 10);
    assert_eq!(f.window_start_chunk(), 4); // (10 − 1) / 2
                                           // chunks 0..4 left the window; the non-empty ones are archived
    assert!(f.archived_chunks() >= 1 && f.archived_chunks() <= 4);
    // a jump far ahead archives the whole window at once
    f.insert_at("far", 1_000_000).unwrap();
    assert_eq!(f.window_start_chunk(), 500_000);
    assert!(f.contains("far", 1_000_000));
    assert!(f.contains("x", 2));
    assert_eq!(f.window_fill(), 3.0 / 256.0);
}

#[test]
fn neptune_finds_old_items_in_the_archive() {
    let mut f = SlidingWindowBloom::new(WindowParams::NEPTUNE, 7).unwrap();
    let mut positions = Vec::new();
    for i in 0..20_000u64 {
        positions.push((i, f.insert(&i).unwrap()));
    }
    assert!(f.window_start_chunk() > 2 * f.params().chunks());
    for (item, l) in positions {
        assert!(f.contains(&item, l), "item {item} at {l}");
    }
    // the first chunks were archived at about 360 of 4096 bits: sparse would take 11.5 kB,
    // so they are bitmaps; the archive stays within S/8 bytes per chunk and the overhead
    let per_chunk = 512 + super::archive::ALLOCATION_OVERHEAD + 2 * super::archive::ARCHIVED_SLOT;
    assert!(f.archive_bytes() <= f.archived_chunks() * per_chunk);
    let round = SlidingWindowBloom::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(round, f);
}

/// The file of a Neptune filter after 20,000 in-order inserts and 500 late ones, pinned by its
/// length and XXH3-64 (as written by ab5e246, before the division-free index mapping): a change to
/// how indices map to ring slots or archived chunks changes the file, and old files would then
/// answer wrongly.
#[test]
fn neptune_file_is_unchanged() {
    let mut f = SlidingWindowBloom::new(WindowParams::NEPTUNE, 7).unwrap();
    for i in 0..20_000u64 {
        f.insert(&i).unwrap();
    }
    for i in 0..500u64 {
        f.insert_at(&(i + 1_000_000), i * 37).unwrap();
    }
    let bytes = f.to_bytes();
    assert_eq!(
        (bytes.len(), xxhash_rust::xxh3::xxh3_64(&bytes)),
        (1_427_536, 6_237_964_874_391_686_692)
    );
}

#[test]
fn late_inserts_reach_archived_chunks() {
    let mut f = SlidingWindowBloom::new(SMALL, 3).unwrap();
    for i in 0..100u32 {
        f.insert(&i).unwrap();
    }
    assert!(!f.contains("late", 5));
    f.insert_at("late", 5).unwrap(); // batch 2: chunks 2..6, all archived now
    assert!(f.contains("late", 5));
    assert_eq!(f.next_position(), 100);
}

#[test]
fn positions_past_the_end_are_refused_not_panicked() {
    let mut f = SlidingWindowBloom::new(WindowParams { batch: 1, ..SMALL }, 0).unwrap();
    assert!(f.insert_at("x", u64::MAX).is_err());
    assert!(!f.contains("x", u64::MAX));
    let mut f = SlidingWindowBloom::new(
        WindowParams {
            batch: 1 << 40,
            ..SMALL
        },
        0,
    )
    .unwrap();
    assert!(f.insert_at("x", u64::MAX).is_err());
    assert!(f.insert_at("x", u64::MAX - 1).is_ok());
    assert!(f.insert("y").is_err());
}

prop_compose! {
    /// A small shape: 1 to 6 chunks of 64 to 192 bits, B from 1 to 4, k from 1 to 7, so that
    /// a few hundred inserts slide the window many times and fill it.
    fn small_shape()(chunk_words in 1u64..4, chunks in 1u64..7, batch in 1u64..5, k in 1u32..8)
        -> WindowParams {
        WindowParams { window_bits: chunk_words * 64 * chunks, chunk_bits: chunk_words * 64, batch, k }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// No false negatives: every (item, position) inserted is found, whether its bits are in
    /// the active window or in archived chunks, through in-order inserts, late inserts into
    /// the past, and jumps ahead; and the filter round-trips through its bytes.
    #[test]
    fn no_false_negatives_against_a_hashset(
        params in small_shape(),
        seed in any::<u64>(),
        ops in prop::collection::vec((0u8..8, 0u16..50, 0u64..200), 1..300),
    ) {
        let mut f = SlidingWindowBloom::new(params, seed).unwrap();
        let mut model: HashSet<(u16, u64)> = HashSet::new();
        for (op, item, arg) in ops {
            match op {
                0..=4 => {
                    let l = f.insert(&item).unwrap();
                    model.insert((item, l));
                }
                5 => {
                    let l = arg.min(f.next_position()); // the past (or the next position)
                    f.insert_at(&item, l).unwrap();
                    model.insert((item, l));
                }
                6 => {
                    let l = f.next_position() + arg * 7; // a jump ahead
                    f.insert_at(&item, l).unwrap();
                    model.insert((item, l));
                }
                _ => {
                    let l = arg % (f.next_position() + 1);
                    if model.contains(&(item, l)) {
                        prop_assert!(f.contains(&item, l));
                    }
                }
            }
        }
        for &(item, l) in &model {
            prop_assert!(f.contains(&item, l), "false negative: {} at {}", item, l);
        }
        // the archive's set bits and bytes, kept as it changed, are its counts
        prop_assert_eq!(f.archive_totals, ArchiveTotals::of(&f.archive));
        let bytes = f.to_bytes();
        let g = SlidingWindowBloom::from_bytes(&bytes).unwrap();
        prop_assert_eq!(g.to_bytes(), bytes);
        for &(item, l) in &model {
            prop_assert!(g.contains(&item, l));
        }
        prop_assert_eq!(&g, &f);
    }

    /// The filter is the paper's unbounded bit array, exactly: item h at position L sets bits
    /// ⌊L/B⌋·S + idx for its k window indices idx, and a query answers whether all k of its
    /// bits are set. A set of absolute bit numbers is that array; every query (members,
    /// non-members, past and future positions) must give the same answer, wherever its bits
    /// fall: the ring (wrapped or not), the archive (dense or sparse, present or skipped), or
    /// past the window's end.
    #[test]
    fn queries_equal_the_unbounded_bit_array(
        params in small_shape(),
        seed in any::<u64>(),
        ops in prop::collection::vec((0u8..8, 0u16..40, 0u64..300), 1..300),
        queries in prop::collection::vec((0u16..80, 0u64..400), 1..200),
    ) {
        let WindowParams { batch, k, .. } = params;
        let mut f = SlidingWindowBloom::new(params, seed).unwrap();
        let mut bits: HashSet<u64> = HashSet::new();
        let absolute = |f: &SlidingWindowBloom, item: u16, l: u64| -> Vec<u64> {
            let start = l / batch * params.chunk_bits;
            window_indices(f.hash(&item), l, params.window_bits, k, seed, f.indexing()).map(|i| start + i).collect()
        };
        for (op, item, arg) in ops {
            let l = match op {
                0..=4 => f.next_position(),
                5 => arg.min(f.next_position()), // the past
                6 => f.next_position() + arg * 5, // a jump ahead
                _ => f.next_position() + (arg & 1), // the next or a skipped position
            };
            f.insert_at(&item, l).unwrap();
            bits.extend(absolute(&f, item, l));
            // a query between inserts, so that queries also meet a ring mid-slide
            let q = (item.wrapping_add(7), arg % (f.next_position() + 9));
            let want = absolute(&f, q.0, q.1).iter().all(|b| bits.contains(b));
            prop_assert_eq!(f.contains(&q.0, q.1), want);
        }
        let mut answers = Vec::new();
        let queries: Vec<(u16, u64)> = queries
            .into_iter()
            .map(|(item, l)| (item, l % (f.next_position() + 2 * params.chunks() * batch))) // past, now, future
            .collect();
        for &(item, l) in &queries {
            let want = absolute(&f, item, l).iter().all(|b| bits.contains(b));
            prop_assert_eq!(f.contains(&item, l), want, "item {} at {}", item, l);
            answers.push(want);
        }
        // the batch (prefetching, in two stages) answers the same
        let items: Vec<&u16> = queries.iter().map(|(item, _)| item).collect();
        let positions: Vec<u64> = queries.iter().map(|&(_, l)| l).collect();
        let mut out = vec![false; queries.len()];
        f.contains_batch(&items, &positions, &mut out);
        prop_assert_eq!(out, answers);
    }
}

/// Measured ε within 3σ of [`WindowParams::fpr`], at the leading edge (a partly filled window)
/// and at an old position (a complete window, part of it archived).
#[test]
fn measured_fpr_matches_the_formula() {
    let params = WindowParams {
        window_bits: 4096,
        chunk_bits: 256,
        batch: 16,
        k: 4,
    };
    let mut f = SlidingWindowBloom::new(params, 99).unwrap();
    for i in 0..3000u64 {
        f.insert(&i).unwrap();
    }
    let trials = 200_000u64;
    for position in [2999u64, 1000, 100] {
        let hits = (0..trials)
            .filter(|i| f.contains(&(1_000_000 + i), position))
            .count() as u64;
        let want = f.expected_fpr(position);
        let got = hits as f64 / trials as f64;
        // the k indices of one query are independent given the bits; the bits of one chunk
        // vary from filter to filter, which the binomial spread of the queries does not
        // cover, so allow 3 sigmas of the queries plus 5% of the rate for that
        let tol = 3.0 * binomial_sigma(want, trials) + 0.05 * want;
        assert!(
            (got - want).abs() <= tol,
            "position {position}: {got} vs {want}"
        );
    }
}

#[test]
fn decoder_rejects_what_it_cannot_trust() {
    let mut f = SlidingWindowBloom::new(SMALL, 5).unwrap();
    for i in 0..40u32 {
        f.insert(&i).unwrap();
    }
    let bytes = f.to_bytes();
    for cut in 0..bytes.len() {
        assert!(SlidingWindowBloom::from_bytes(&bytes[..cut]).is_err());
    }
    let good = wire::decode(&bytes).unwrap();
    assert!(good.params[7] >= 2, "the test needs archive records");
    let enc =
        |params: &[u64], payload: &[u8]| wire::encode(Kind::SlidingWindowBloom, params, payload);
    let mut params = good.params.clone();
    params[7] += 1; // one record more than the payload holds
    assert!(SlidingWindowBloom::from_bytes(&enc(&params, good.payload)).is_err());
    let mut params = good.params.clone();
    params[7] -= 1; // trailing bytes
    assert!(SlidingWindowBloom::from_bytes(&enc(&params, good.payload)).is_err());
    let mut params = good.params.clone();
    params[5] = 1; // the window back at chunk 0: archived chunks are not below it
    assert!(SlidingWindowBloom::from_bytes(&enc(&params, good.payload)).is_err());
    for (i, v) in [(0usize, 100u64), (1, 32), (2, 0), (3, 0), (3, 65)] {
        let mut params = good.params.clone();
        params[i] = v;
        assert!(
            SlidingWindowBloom::from_bytes(&enc(&params, good.payload)).is_err(),
            "param {i} = {v}"
        );
    }
    // corrupt the first archive record: count, order, offsets
    let mut words = crate::bits::le_bytes_to_words(good.payload).unwrap();
    let first = 256 / 64;
    let original = words.clone();
    for (at, v) in [(first + 1, 0u64), (first + 1, 65), (first, u64::MAX)] {
        words[at] = v;
        let b = enc(&good.params, &crate::bits::words_to_le_bytes(&words));
        assert!(
            SlidingWindowBloom::from_bytes(&b).is_err(),
            "word {at} = {v}"
        );
        words = original.clone();
    }
    let other = wire::encode(Kind::Bloom, &[64, 3, 0, 0], &[0; 8]);
    assert!(matches!(
        SlidingWindowBloom::from_bytes(&other),
        Err(Error::WrongKind { .. })
    ));
}

// ---- AgingBloom ----------------------------------------------------------------------------

#[test]
fn aging_rejects_bad_shapes() {
    assert!(AgingBloom::new(0, 3, 4, Rotation::Count(10), 0).is_err());
    assert!(AgingBloom::new(100, 0, 4, Rotation::Count(10), 0).is_err());
    assert!(AgingBloom::new(100, 3, 1, Rotation::Count(10), 0).is_err());
    assert!(AgingBloom::new(100, 3, 65, Rotation::Count(10), 0).is_err());
    assert!(AgingBloom::new(100, 3, 4, Rotation::Time(0), 0).is_err());
    assert!(AgingBloom::new(u64::MAX, 3, 64, Rotation::Count(1), 0).is_err());
    assert!(AgingBloom::with_window(0, 4, 0.01, 0).is_err());
    assert!(AgingBloom::with_window(10, 4, 1.5, 0).is_err());
    assert!(AgingBloom::new(100, 3, 64, Rotation::Count(1), 0).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Count rotation: the items of the last (g − 1)·c insertions are always found, and an
    /// item is only ever found by chance once g·c insertions have passed it... which the
    /// model checks exactly by asking a filter so large that chance does not happen.
    #[test]
    fn aging_remembers_the_window_by_count(
        g in 2u32..9,
        c in 1u64..20,
        seed in any::<u64>(),
        items in prop::collection::vec(0u32..1000, 1..300),
    ) {
        let mut f = AgingBloom::new(1 << 16, 8, g, Rotation::Count(c), seed).unwrap();
        for (n, x) in items.iter().enumerate() {
            f.insert(x).unwrap();
            let window = (u64::from(g) - 1) * c;
            let start = (n as u64 + 1).saturating_sub(window) as usize;
            for y in &items[start..=n] {
                prop_assert!(f.contains(y), "forgot {} within the window", y);
            }
            // older than g·c insertions: forgotten (the 2^16-bit generations make a
            // chance match of 8 probes impossible in practice: ε < 1e-20)
            let gone = (n as u64 + 1).saturating_sub(u64::from(g) * c) as usize;
            let recent: HashSet<u32> = items[gone..=n].iter().copied().collect();
            for y in &items[..gone] {
                if !recent.contains(y) {
                    prop_assert!(!f.contains(y), "remembered {} past g·c", y);
                }
            }
        }
        let bytes = f.to_bytes();
        let d = AgingBloom::from_bytes(&bytes).unwrap();
        prop_assert_eq!(d.to_bytes(), bytes);
        prop_assert_eq!(d, f);
    }
}

#[test]
fn aging_by_time_is_exact() {
    let clock = ManualClock::new(1000);
    // g = 3 generations of Δ = 10 ticks: found for at least 20 ticks, never after 30
    let mut f = AgingBloom::new(4096, 6, 3, Rotation::Time(10), 1)
        .unwrap()
        .with_clock(clock.clone());
    f.insert("a").unwrap(); // interval 100
    clock.set(1019);
    f.insert("b").unwrap(); // interval 101
    assert!(f.contains("a") && f.contains("b"));
    clock.set(1029); // interval 102: "a" is two generations old, still live
    assert!(f.contains("a"));
    clock.set(1030); // interval 103: the generation of "a" has expired, without an insert
    assert!(!f.contains("a") && f.contains("b"));
    clock.set(1039);
    assert!(f.contains("b"));
    clock.set(1040);
    assert!(!f.contains("b"));
    f.insert("c").unwrap(); // clears the expired generations
    assert_eq!(f.generation_counts(), vec![1, 0, 0]);
    clock.set(5000); // far ahead: everything expired
    assert!(!f.contains("c"));
    f.expire();
    assert_eq!(f.generation_counts(), vec![0, 0, 0]);
    assert_eq!(f.epoch(), 500);
}

#[test]
fn aging_measured_fpr_matches_the_formula() {
    let mut f = AgingBloom::with_window(20_000, 5, 0.02, 3).unwrap();
    for i in 0..100_000u64 {
        f.insert(&i).unwrap();
    }
    let trials = 300_000u64;
    let hits = (0..trials)
        .filter(|i| f.contains(&(1u64 << 40 | i)))
        .count() as u64;
    let want = f.estimated_fpr();
    let got = hits as f64 / trials as f64;
    assert!(
        (got - want).abs() <= 3.0 * binomial_sigma(want, trials),
        "{got} vs {want}"
    );
    assert!(
        want <= f.fpr_bound() * 1.001 && f.fpr_bound() <= 0.02 + 1e-12,
        "{want} {}",
        f.fpr_bound()
    );
    // the guaranteed window: at least 20,000 of the latest items are found
    assert!((80_000..100_000u64).all(|i| f.contains(&i)));
    assert_eq!(f.size_bytes(), (f.m() * 8).div_ceil(64) * 8);
}

/// A few items in a large generation give a rate below 10⁻¹⁶, which `1 − (1 − ε)^g` rounded
/// to 0: the bound and the estimate said "no false positives at all".
#[test]
fn aging_rates_below_machine_epsilon_are_not_zero() {
    let clock = ManualClock::new(1_700_000_000);
    let mut f = AgingBloom::with_time_window(3600, 4, 1000, 0.01, 0)
        .unwrap()
        .with_clock(clock);
    for i in 0..10u64 {
        f.insert(&i).unwrap();
    }
    let per = crate::math::fpr_exact(10, f.m(), f.k());
    assert!(per > 0.0 && per < 1e-16, "{per}");
    let (bound, estimate) = (f.fpr_bound(), f.estimated_fpr());
    assert!(
        (bound / (4.0 * per) - 1.0).abs() < 1e-9,
        "{bound} vs 4 × {per}"
    );
    assert!((estimate / per - 1.0).abs() < 1e-9, "{estimate} vs {per}");
}

#[test]
fn aging_decoder_rejects_what_it_cannot_trust() {
    let mut f = AgingBloom::new(100, 3, 3, Rotation::Count(5), 9).unwrap();
    for i in 0..12u32 {
        f.insert(&i).unwrap();
    }
    let bytes = f.to_bytes();
    for cut in 0..bytes.len() {
        assert!(AgingBloom::from_bytes(&bytes[..cut]).is_err());
    }
    let good = wire::decode(&bytes).unwrap();
    let enc = |params: &[u64], payload: &[u8]| wire::encode(Kind::AgingBloom, params, payload);
    for (i, v) in [
        (0usize, 0u64),
        (0, 200),
        (1, 0),
        (2, 1),
        (2, 65),
        (4, 2),
        (5, 0),
        (6, 3),
        (0, u64::MAX),
    ] {
        let mut params = good.params.clone();
        params[i] = v;
        assert!(
            AgingBloom::from_bytes(&enc(&params, good.payload)).is_err(),
            "param {i} = {v}"
        );
    }
    let mut words = crate::bits::le_bytes_to_words(good.payload).unwrap();
    words[0] = 6; // over the capacity of 5
    assert!(
        AgingBloom::from_bytes(&enc(&good.params, &crate::bits::words_to_le_bytes(&words)))
            .is_err()
    );
    let mut words = crate::bits::le_bytes_to_words(good.payload).unwrap();
    words[3] |= 1 << 3; // generation 3 of a 4-bit group: padding
    assert!(
        AgingBloom::from_bytes(&enc(&good.params, &crate::bits::words_to_le_bytes(&words)))
            .is_err()
    );
    let mut words = crate::bits::le_bytes_to_words(good.payload).unwrap();
    let last = words.len() - 1;
    words[last] |= 1 << 63; // 100 groups of 4 bits = 400 bits: bit 447 is past the end
    assert!(
        AgingBloom::from_bytes(&enc(&good.params, &crate::bits::words_to_le_bytes(&words)))
            .is_err()
    );
}

/// Counters read from a file may be at their maximum: inserting saturates, never overflows.
#[test]
fn counters_from_a_file_saturate() {
    let f = AgingBloom::new(64, 3, 2, Rotation::Time(10), 0).unwrap();
    let mut params = wire::decode(&f.to_bytes()).unwrap().params;
    params[8] = u64::MAX;
    let mut words = vec![u64::MAX, u64::MAX]; // both generation counts at the maximum
    words.extend(std::iter::repeat_n(0u64, 2)); // 64 groups of 2 bits
    let bytes = wire::encode(
        Kind::AgingBloom,
        &params,
        &crate::bits::words_to_le_bytes(&words),
    );
    let mut f = AgingBloom::from_bytes(&bytes).unwrap();
    // the items held, the sum of the counts, saturate too (the fuzzer found an overflow)
    assert_eq!(f.info().estimated_items, u64::MAX as f64);
    assert!(f.estimated_fpr() <= 1.0);
    f.insert("x").unwrap();
    assert_eq!(f.inserted(), u64::MAX);
    assert!(f.contains("x"));
    assert_eq!(f.info().inserted, u64::MAX);

    let w = SlidingWindowBloom::new(SMALL, 0).unwrap();
    let bytes = w.to_bytes();
    let c = wire::decode(&bytes).unwrap();
    let mut params = c.params.clone();
    params[6] = u64::MAX;
    let mut w =
        SlidingWindowBloom::from_bytes(&wire::encode(Kind::SlidingWindowBloom, &params, c.payload))
            .unwrap();
    w.insert("x").unwrap();
    assert_eq!(w.inserted(), u64::MAX);
}
