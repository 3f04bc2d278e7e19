//! Every kind's batched query against its single query (issue 14, goal 4: "batched queries
//! with prefetch for every kind where they pay, each measured against its single query"), for
//! the kinds whose batches the other benches do not measure.
//!
//! Each filter holds the same M u64 keys ([`amq_bench::workload`]) at ε = 1%, for M = 4·10⁶
//! (tables of 5–11 MiB: beyond the L2, within a 32 MiB L3) and M = 10⁷ (12–27 MiB); each
//! table's size, bits per key and measured ε are printed first:
//! * `blocked`: [`amq::BlockedBloomFilter::with_fpr`];
//! * `scalable`: [`amq::scalable::ScalableBloomFilter`], n₀ = M/4, doubling: three links;
//! * `expandable-cuckoo`: [`amq::cuckoo::ExpandableCuckooFilter`], n₀ = M/4, doubling: three
//!   links;
//! * `aging`: [`amq::window::AgingBloom::with_window`], a window of M items in 4 generations;
//! * `ttl-cuckoo`: [`amq::ttl::TtlCuckooFilter::with_ttl`] for M live items (TTL 3,600, tick
//!   60), every key inserted at t = 0 for an hour and queried at t = 60;
//! * `sliding-window-cuckoo`: [`amq::rln::SlidingWindowCuckoo::with_fpr`] with epochs of M,
//!   every key registered in epoch 0 and queried there;
//! * `sliding-window-bloom-neptune` (M = 10⁶ only): [`amq::window::SlidingWindowBloom`] with
//!   Neptune's shape (W = 2²⁰, S = 2¹², B = 8, k = 45), key i inserted at position i, so that
//!   all but the last 2,048 positions answer from archived chunks (a mutator set checking
//!   removal records of old items); members are queried at their positions, non-members at
//!   uniform positions in `[0, M)`.
//!
//! Benchmarks (group `batch/<kind>/<M>`): `contains/hit` queries every member once in a shuffled
//! order, `contains/miss` M non-members, one `contains` at a time; `contains_batch/hit` and
//! `contains_batch/miss` the same queries through one `contains_batch` call. Throughput is M.
//!
//! Run: `cargo bench -p amq-bench --bench batch`.

use amq::Filter;
use amq_bench::workload::{members, non_members, shuffled, u64_key};
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode,
    Throughput,
};
use std::hint::black_box;
use std::time::Duration;

/// The sizes: the keys each filter holds.
const SIZES: [u64; 2] = [4_000_000, 10_000_000];
/// ε of every filter.
const FPR: f64 = 0.01;

/// Prints a filter's size, bits per key and measured ε (`fp` of `m` non-members), and opens
/// its benchmark group.
fn open<'a>(
    c: &'a mut Criterion,
    m: u64,
    kind: &str,
    size_bytes: u64,
    fp: usize,
) -> BenchmarkGroup<'a, WallTime> {
    eprintln!(
        "{kind} ({m} keys): {:.1} MiB, {:.2} bits/key, measured fpr {:.4}% over {m} non-members",
        size_bytes as f64 / (1 << 20) as f64,
        size_bytes as f64 * 8.0 / m as f64,
        100.0 * fp as f64 / m as f64
    );
    let mut g = c.benchmark_group(format!("batch/{kind}/{m}"));
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Elements(m))
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g
}

/// The single and batched queries of one filter, over members and non-members.
fn group(
    c: &mut Criterion,
    m: u64,
    kind: &str,
    size_bytes: u64,
    single: &dyn Fn(&u64) -> bool,
    batch: &dyn Fn(&[&u64], &mut [bool]),
) {
    let keys = members(m, u64_key);
    let hits = shuffled(&keys, 0x5eed);
    let misses = non_members(m, m, u64_key);
    let fp = misses.iter().filter(|k| single(k)).count();
    let mut g = open(c, m, kind, size_bytes, fp);
    for (what, queries) in [("hit", &hits), ("miss", &misses)] {
        let refs: Vec<&u64> = queries.iter().collect();
        let expect: Vec<bool> = queries.iter().map(single).collect();
        pair(
            &mut g,
            kind,
            what,
            queries,
            single,
            |out| batch(&refs, out),
            &expect,
        );
    }
    g.finish();
}

/// The two benchmarks of one query set: one `single` query per element, then `batch` into
/// the answers; and a check that the batch answers as the single queries did (`expect`).
fn pair<Q>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    kind: &str,
    what: &str,
    queries: &[Q],
    single: impl Fn(&Q) -> bool,
    batch: impl Fn(&mut [bool]),
    expect: &[bool],
) {
    let mut out = vec![false; queries.len()];
    g.bench_function(BenchmarkId::new("contains", what), |b| {
        b.iter(|| black_box(queries).iter().filter(|q| single(q)).count())
    });
    g.bench_function(BenchmarkId::new("contains_batch", what), |b| {
        b.iter(|| {
            batch(black_box(&mut out));
            out.iter().filter(|&&x| x).count()
        })
    });
    batch(&mut out);
    assert_eq!(out, expect, "{kind} {what}");
}

/// `f` with every key inserted.
fn filled<F: amq::Insert<u64>>(mut f: F, keys: &[u64]) -> F {
    for k in keys {
        f.insert(k).unwrap();
    }
    f
}

/// [`group`] for a kind that answers through the [`Filter`] trait.
fn group_of<F: Filter<u64>>(c: &mut Criterion, m: u64, kind: &str, size_bytes: u64, f: &F) {
    group(c, m, kind, size_bytes, &|k| f.contains(k), &|q, o| {
        f.contains_batch(q, o)
    });
}

fn bench(c: &mut Criterion) {
    sliding_window_bloom(c, 1_000_000);
    for m in SIZES {
        bench_size(c, m);
    }
}

/// The sliding-window Bloom filter with Neptune's shape, `m` keys at positions `0..m`: single
/// and batched queries of members at their positions and of non-members at uniform positions.
fn sliding_window_bloom(c: &mut Criterion, m: u64) {
    let mut f =
        amq::window::SlidingWindowBloom::new(amq::window::WindowParams::NEPTUNE, 0).unwrap();
    let keys = members(m, u64_key);
    for k in &keys {
        f.insert(k).unwrap();
    }
    let hits = shuffled(&keys.iter().copied().zip(0..m).collect::<Vec<_>>(), 0x5eed);
    let misses: Vec<(u64, u64)> = non_members(m, m, u64_key)
        .into_iter()
        .zip(non_members(2 * m, m, u64_key))
        .map(|(k, r)| (k, amq::hash::reduce(r, m)))
        .collect();
    let fp = misses.iter().filter(|(k, l)| f.contains(k, *l)).count();
    let kind = "sliding-window-bloom-neptune";
    let mut g = open(c, m, kind, f.size_bytes(), fp);
    for (what, queries) in [("hit", &hits), ("miss", &misses)] {
        let items: Vec<&u64> = queries.iter().map(|(k, _)| k).collect();
        let positions: Vec<u64> = queries.iter().map(|&(_, l)| l).collect();
        let single = |&(k, l): &(u64, u64)| f.contains(&k, l);
        let expect: Vec<bool> = queries.iter().map(single).collect();
        let batch = |out: &mut [bool]| f.contains_batch(&items, &positions, out);
        pair(&mut g, kind, what, queries, single, batch, &expect);
    }
    g.finish();
}

fn bench_size(c: &mut Criterion, m: u64) {
    let keys = members(m, u64_key);

    let f = filled(amq::BlockedBloomFilter::with_fpr(m, FPR, 0).unwrap(), &keys);
    group_of(c, m, "blocked", f.size_bytes(), &f);
    drop(f);

    let params = amq::scalable::ScalableParams::new(m / 4, FPR);
    let f = filled(
        amq::scalable::ScalableBloomFilter::new(params, 0).unwrap(),
        &keys,
    );
    eprintln!("scalable: {} links", f.links());
    group_of(c, m, "scalable", f.size_bytes(), &f);
    drop(f);

    let params = amq::cuckoo::ExpandableParams::new(m / 4, FPR);
    let f = filled(
        amq::cuckoo::ExpandableCuckooFilter::new(params, 0).unwrap(),
        &keys,
    );
    eprintln!("expandable-cuckoo: {} links", f.links());
    group_of(c, m, "expandable-cuckoo", f.size_bytes(), &f);
    drop(f);

    let f = filled(
        amq::window::AgingBloom::with_window(m, 4, FPR, 0).unwrap(),
        &keys,
    );
    group_of(c, m, "aging", f.size_bytes(), &f);
    drop(f);

    let mut f = amq::ttl::TtlCuckooFilter::with_ttl(m, FPR, 3_600, 60, 0).unwrap();
    for k in &keys {
        f.insert(k, 0, 3_600).unwrap();
    }
    group(
        c,
        m,
        "ttl-cuckoo",
        f.size_bytes(),
        &|k| f.contains(k, 60),
        &|q, o| f.contains_batch(q, 60, o),
    );
    drop(f);

    let mut f = amq::rln::SlidingWindowCuckoo::with_fpr(m, FPR, 0).unwrap();
    for k in &keys {
        f.register(k).unwrap();
    }
    group(
        c,
        m,
        "sliding-window-cuckoo",
        f.size_bytes(),
        &|k| f.contains(k, 0),
        &|q, o| f.contains_batch(q, 0, o),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
