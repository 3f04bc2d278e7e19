//! The batched paths: `insert_batch` (classic Bloom and cuckoo filters) builds the same filter as
//! inserting one item at a time, and every kind's `contains_batch` gives the answers of `contains`
//! (and `contains_batch_values`, for u64 items), in small filters (a property) and in filters large
//! enough that the batches prefetch (4 MiB and more for the classic Bloom filter, 16 MiB for the
//! aging one).

use amq::clock::ManualClock;
use amq::cuckoo::{ExpandableCuckooFilter, ExpandableParams};
use amq::rln::SlidingWindowCuckoo;
use amq::scalable::{ScalableBloomFilter, ScalableParams};
use amq::ttl::TtlCuckooFilter;
use amq::window::{AgingBloom, Rotation};
use amq::{BloomFilter, CuckooFilter, Error, Filter, Insert};
use proptest::prelude::*;

/// The answers of `contains` and of `contains_batch` for every query.
fn answers<F: Filter<T>, T: ?Sized>(f: &F, queries: &[&T]) -> (Vec<bool>, Vec<bool>) {
    let single: Vec<bool> = queries.iter().map(|q| f.contains(q)).collect();
    let mut batch = vec![false; queries.len()];
    f.contains_batch(queries, &mut batch);
    (single, batch)
}

/// [`answers`] for u64 queries, asserting that `contains_batch_values` (the items in the
/// slice, chunks of 256 passed to `contains_batch` unless the kind overrides it) answers as
/// `contains_batch` does.
fn u64_answers<F: Filter<u64>>(f: &F, queries: &[&u64]) -> (Vec<bool>, Vec<bool>) {
    let (single, batch) = answers(f, queries);
    let values: Vec<u64> = queries.iter().map(|&&q| q).collect();
    let mut by_value = vec![false; values.len()];
    f.contains_batch_values(&values, &mut by_value);
    assert_eq!(
        by_value, batch,
        "contains_batch_values against contains_batch"
    );
    (single, batch)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn bloom_insert_batch_is_insert_in_turn(
        set in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..300),
        m in 1u64..5000,
        k in 1u32..24,
        seed in any::<u64>(),
    ) {
        let mut one = BloomFilter::new(m, k, seed).unwrap();
        for item in &set {
            one.insert(item.as_slice()).unwrap();
        }
        let mut batch = BloomFilter::new(m, k, seed).unwrap();
        batch.insert_batch(set.iter().map(Vec::as_slice));
        prop_assert_eq!(&batch, &one);
        let refs: Vec<&[u8]> = set.iter().map(Vec::as_slice).collect();
        let (single, batched) = answers(&batch, &refs);
        prop_assert!(batched.iter().all(|&b| b), "a false negative");
        prop_assert_eq!(single, batched);
    }

    #[test]
    fn cuckoo_insert_batch_is_insert_in_turn(
        set in proptest::collection::vec(any::<u64>(), 0..600),
        buckets in 1u64..160,
        f in prop_oneof![Just(8u32), Just(12), Just(16)],
        seed in any::<u64>(),
    ) {
        // up to ~4 items a slot: most runs fill the table, kick and end in `Error::Full`
        let mut one = CuckooFilter::new(buckets, f, seed).unwrap();
        let mut stored = 0;
        let mut first_error = None;
        for item in &set {
            match one.insert(item) {
                Ok(_) => stored += 1,
                Err(e) => {
                    first_error = Some(e);
                    break;
                }
            }
        }
        let mut batch = CuckooFilter::new(buckets, f, seed).unwrap();
        let result = batch.insert_batch(&set);
        prop_assert_eq!(&batch, &one);
        prop_assert_eq!(result.err(), first_error);
        prop_assert_eq!(batch.inserted(), stored);
        let queries: Vec<&u64> = set.iter().collect();
        let (single, batched) = u64_answers(&batch, &queries);
        prop_assert!(batched[..stored as usize].iter().all(|&b| b), "a false negative");
        prop_assert_eq!(single, batched);
    }
}

/// Past 4 MiB the Bloom filter's batches prefetch: still the same filter and the same
/// answers, for unrolled k (1..=16) and the run-time loop beyond.
#[test]
fn large_bloom_batches_match_single_operations() {
    let m = 40 << 20; // 5 MiB of bits
    let members: Vec<u64> = (0..20_000u64).collect();
    let others: Vec<u64> = (1_000_000..1_100_000u64).collect();
    for k in [1, 6, 7, 16, 20] {
        let mut one = BloomFilter::new(m, k, 3).unwrap();
        for x in &members {
            one.insert(x).unwrap();
        }
        let mut batch = BloomFilter::new(m, k, 3).unwrap();
        batch.insert_batch(&members);
        assert_eq!(batch, one, "k = {k}");
        let hashes: Vec<u128> = members.iter().map(|x| batch.hash(x)).collect();
        let mut by_hash = BloomFilter::new(m, k, 3).unwrap();
        by_hash.insert_hash_batch(&hashes);
        assert_eq!(by_hash, one, "k = {k}");

        let queries: Vec<&u64> = members.iter().chain(&others).collect();
        let (single, batched) = u64_answers(&batch, &queries);
        assert!(batched[..members.len()].iter().all(|&b| b), "k = {k}");
        assert_eq!(single, batched, "k = {k}");
        // ε here is about (20,000·k/m)^k: far below one false positive in 100,000 for k ≥ 6
        let positives = batched[members.len()..].iter().filter(|&&b| b).count();
        assert!(
            k < 6 || positives == 0,
            "k = {k}: {positives} false positives"
        );
    }
}

/// A full cuckoo table refuses the first item that does not fit and keeps everything before.
#[test]
fn cuckoo_insert_batch_stops_at_the_first_refusal() {
    let mut f = CuckooFilter::new(64, 16, 9).unwrap();
    let items: Vec<u64> = (0..1000).collect();
    let err = f.insert_batch(&items).unwrap_err();
    assert!(matches!(err, Error::Full { .. }), "{err:?}");
    let stored = f.inserted();
    assert!((230..=257).contains(&stored), "{stored} of 257 places");
    assert!(f.stash_used());
    assert!(items[..stored as usize].iter().all(|x| f.contains(x)));
}

/// A chain's batch answers as its single queries, across several links and chunks, finds
/// every member and has some false positive at ε ≈ 1%.
fn chain_batch_matches_single_queries<F: Filter<u64> + Insert<u64>>(
    mut f: F,
    links: impl Fn(&F) -> u32,
) {
    let members: Vec<u64> = (0..5000).collect();
    for x in &members {
        f.insert(x).unwrap();
    }
    assert!(links(&f) >= 4, "{} links", links(&f));
    let others: Vec<u64> = (10_000..60_000).collect();
    let queries: Vec<&u64> = members.iter().chain(&others).collect();
    let (single, batched) = u64_answers(&f, &queries);
    assert!(batched[..members.len()].iter().all(|&b| b));
    assert_eq!(single, batched);
    assert!(
        batched[members.len()..].iter().any(|&b| b),
        "some false positive at ε ≈ 1%"
    );
}

#[test]
fn expandable_cuckoo_batch_matches_single_queries() {
    let f = ExpandableCuckooFilter::new(ExpandableParams::new(300, 0.01), 4).unwrap();
    chain_batch_matches_single_queries(f, ExpandableCuckooFilter::links);
}

#[test]
fn scalable_bloom_batch_matches_single_queries() {
    let f = ScalableBloomFilter::new(ScalableParams::new(300, 0.01), 4).unwrap();
    chain_batch_matches_single_queries(f, ScalableBloomFilter::links);
}

/// The TTL cuckoo filter's batch at times before, across and after the members' expiry, by
/// explicit time and by its clock, in a table filled until it refuses (so the stash answers
/// too) and in a 16 MiB table.
#[test]
fn ttl_cuckoo_batch_matches_single_queries() {
    for (n, fill) in [(2_000u64, 4_000u64), (2_000_000, 1_500_000)] {
        let clock = ManualClock::new(0);
        let mut f = TtlCuckooFilter::with_ttl(n, 0.001, 600, 60, 5)
            .unwrap()
            .with_clock(clock.clone());
        let mut members = Vec::new();
        for x in 0..fill {
            // half live for 600 s, half for 120 s, from t = 0
            let ttl = if x % 2 == 0 { 600 } else { 120 };
            match f.insert(&x, 0, ttl) {
                Ok(_) => members.push(x),
                Err(_) => break,
            }
        }
        let others: Vec<u64> = (10_000_000..10_000_000 + fill).collect();
        let queries: Vec<&u64> = members.iter().chain(&others).collect();
        let mut batch = vec![false; queries.len()];
        for now in [0u64, 60, 119, 120, 300, 599, 600, 10_000] {
            f.contains_batch(&queries, now, &mut batch);
            let single: Vec<bool> = queries.iter().map(|q| f.contains(*q, now)).collect();
            assert_eq!(batch, single, "n = {n}, t = {now}");
            clock.set(now);
            let (by_clock, _) = u64_answers(&f, &queries);
            assert_eq!(by_clock, single, "n = {n}, t = {now}, by the clock");
            let live = members
                .iter()
                .zip(&batch)
                .filter(|(x, _)| now < 120 || *x % 2 == 0);
            assert!(
                now >= 600 - 60 || live.clone().all(|(_, &b)| b),
                "n = {n}, t = {now}: a false negative"
            );
        }
    }
}

/// The sliding-window cuckoo filter's batch per epoch, for held, slashed and absent epochs.
#[test]
fn sliding_window_cuckoo_batch_matches_single_queries() {
    let mut set = SlidingWindowCuckoo::with_fpr(1_000, 0.01, 3).unwrap();
    let mut epoch_of = Vec::new();
    for x in 0..3_500u64 {
        epoch_of.push(set.register(&x).unwrap());
    }
    for x in (0..3_500u64).step_by(7) {
        assert!(set.slash(&x, epoch_of[x as usize]));
    }
    let queries: Vec<u64> = (0..10_000u64).collect();
    let refs: Vec<&u64> = queries.iter().collect();
    let mut batch = vec![false; refs.len()];
    for epoch in 0..6 {
        set.contains_batch(&refs, epoch, &mut batch);
        let single: Vec<bool> = refs.iter().map(|q| set.contains(*q, epoch)).collect();
        assert_eq!(batch, single, "epoch {epoch}");
        for (x, &b) in queries.iter().zip(&batch).take(3_500) {
            if epoch_of[*x as usize] == epoch && x % 7 != 0 {
                assert!(b, "member {x} missed at epoch {epoch}");
            }
        }
    }
}

/// The aging filter's batch, small (no prefetch) and past 16 MiB (prefetching), with some
/// generations rotated out by count and by time.
#[test]
fn aging_bloom_batch_matches_single_queries() {
    for m in [50_000u64, 3 << 24] {
        let count = AgingBloom::new(m, 7, 4, Rotation::Count(2_000), 1).unwrap();
        assert_eq!(count.size_bytes() >= 16 << 20, m > 50_000);
        let clock = ManualClock::new(0);
        let time = AgingBloom::new(m, 7, 4, Rotation::Time(100), 1)
            .unwrap()
            .with_clock(clock.clone());
        let queries: Vec<u64> = (0..30_000u64).collect();
        let refs: Vec<&u64> = queries.iter().collect();
        let check = |f: &dyn Fn(&[&u64], &mut [bool]), single: &dyn Fn(&u64) -> bool, what| {
            let mut batch = vec![false; refs.len()];
            f(&refs, &mut batch);
            let one: Vec<bool> = refs.iter().map(|q| single(q)).collect();
            assert_eq!(batch, one, "m = {m}, {what}");
            batch
        };
        let mut count = count;
        for x in 0..10_000u64 {
            count.insert(&x).unwrap();
        }
        let got = check(
            &|q, o| count.contains_batch(q, o),
            &|q| count.contains(q),
            "count",
        );
        assert!(
            got[8_000..10_000].iter().all(|&b| b),
            "m = {m}: the newest missed"
        );
        let mut time = time;
        for t in 0..8u64 {
            clock.set(t * 100);
            for x in t * 1_000..(t + 1) * 1_000 {
                time.insert(&x).unwrap();
            }
        }
        for now in [700u64, 750, 900, 1_000, 1_200, 5_000] {
            clock.set(now);
            let got = check(
                &|q, o| time.contains_batch(q, o),
                &|q| time.contains(q),
                "time",
            );
            assert_eq!(got.iter().any(|&b| b), now < 1_100, "m = {m}, t = {now}");
        }
    }
}
