//! The classic `BloomFilter` against fastbloom, on the issue-14 workload ([`amq_bench::workload`]).
//!
//! Run: `cargo bench -p amq-bench --bench bloom`. One case is a key set and a target ε:
//! `u64-1e6`, `u64-1e7` (u64 keys, hashed as their 8 little-endian bytes) and `str-1e6`
//! (16-byte string keys), each at ε = 1% and 0.1%. `AMQ_BLOOM_KEYS=u64-1e6` (a comma-separated
//! list) and `AMQ_BLOOM_FPR=0.01` run fewer cases; criterion filters pick benchmarks within them.
//!
//! Every filter gets the same key bytes and the same m and k (our `with_fpr` sizing):
//!
//! * `amq-bloom`: ours, XXH3-128 with a seed (`Insert::insert`/`Filter::contains`);
//! * `fastbloom-foldhash`: fastbloom 0.17 with foldhash's seeded `fast::FixedState` through
//!   `insert`/`contains` (the key's `Hash`);
//! * `fastbloom-sip`: fastbloom with its default hasher (SipHash-1-3);
//! * `fastbloom-xxh3`: fastbloom given one-shot XXH3-64 with a seed of the key bytes,
//!   `insert_hash`/`contains_hash`.
//!
//! Timed: `build` (allocate and insert all n members), `pos` (every member queried once, in a
//! shuffled order), `neg` (10^7 non-members). `pos` also times the two hashes alone over the
//! same keys, no filter: `xxh3-128-only` (ours, [`amq::hash::hash128`] at the filter's seed)
//! and `foldhash-only` (fastbloom-foldhash's, the key's `Hash` through the same
//! `FixedState`), so that each filter's query can be split into its hash and the rest.
//! `batch-pos`/`batch-neg` compare our `contains_batch` with single `contains` over the same
//! queries, and `build-batch` our
//! `insert_batch` with single inserts. Measured ε (over the 10^7 non-members) and bits per key
//! are computed untimed and printed (`bloom <case> <filter>: ...`), and so is, per case, our time
//! over fastbloom-foldhash's with the two passes alternated ([`paired_ratios`]).

use amq::{BloomFilter, Filter, Insert, Item};
use amq_bench::workload::{members, non_members, shuffled, string_key, u64_key};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use std::hash::Hash;
use std::hint::black_box;
use std::time::Duration;
use xxhash_rust::xxh3::xxh3_64_with_seed;

const SEED: u64 = 0x0123_4567_89ab_cdef;
/// Non-members per case: the negative queries and the ε probe.
const NON_MEMBERS: u64 = 10_000_000;

type FoldBloom = fastbloom::BloomFilter<foldhash::fast::FixedState>;

/// A key of the workload: our `Item` (its bytes) and Rust's `Hash` (for fastbloom).
trait Key: Item + Hash + Clone + Sync {}
impl<K: Item + Hash + Clone + Sync> Key for K {}

/// The seeded one-shot XXH3-64 of the key bytes, for `fastbloom-xxh3`.
#[inline(always)]
fn xxh64<K: Key>(key: &K) -> u64 {
    key.with_bytes(|b| xxh3_64_with_seed(b, SEED))
}

/// One case: the members, the same members shuffled (positive queries) and the non-members.
struct Case<K> {
    name: String,
    fpr: f64,
    keys: Vec<K>,
    pos: Vec<K>,
    neg: Vec<K>,
}

impl<K: Key> Case<K> {
    fn new(name: String, n: u64, fpr: f64, key: impl Fn(u64) -> K + Copy) -> Self {
        let keys = members(n, key);
        let pos = shuffled(&keys, 0x5eed);
        let neg = non_members(n, NON_MEMBERS, key);
        Case {
            name,
            fpr,
            keys,
            pos,
            neg,
        }
    }
    fn n(&self) -> u64 {
        self.keys.len() as u64
    }
}

fn build_amq<K: Key>(c: &Case<K>) -> BloomFilter {
    let mut f = BloomFilter::with_fpr(c.n(), c.fpr, SEED).expect("valid size");
    for k in &c.keys {
        f.insert(k).expect("a Bloom filter is never full");
    }
    f
}
fn build_amq_batch<K: Key>(c: &Case<K>) -> BloomFilter {
    let mut f = BloomFilter::with_fpr(c.n(), c.fpr, SEED).expect("valid size");
    f.insert_batch(&c.keys);
    f
}
fn build_fold<K: Key>(c: &Case<K>, m: u64, k: u32) -> FoldBloom {
    let mut f = fastbloom::BloomFilter::with_num_bits(m as usize)
        .hasher(foldhash::fast::FixedState::with_seed(SEED))
        .hashes(k);
    for key in &c.keys {
        f.insert(key);
    }
    f
}
fn build_sip<K: Key>(c: &Case<K>, m: u64, k: u32) -> fastbloom::BloomFilter {
    let mut f = fastbloom::BloomFilter::with_num_bits(m as usize)
        .seed(&u128::from(SEED))
        .hashes(k);
    for key in &c.keys {
        f.insert(key);
    }
    f
}
fn build_xxh3<K: Key>(c: &Case<K>, m: u64, k: u32) -> fastbloom::BloomFilter {
    let mut f = fastbloom::BloomFilter::with_num_bits(m as usize).hashes(k);
    for key in &c.keys {
        f.insert_hash(xxh64(key));
    }
    f
}

// One query loop per filter, each compiled on its own (not inlined into the benchmark
// closures), so that every filter's loop gets the same treatment from the optimiser.
#[inline(never)]
fn q_amq<K: Key>(f: &BloomFilter, qs: &[K]) -> usize {
    qs.iter().filter(|q| f.contains(*q)).count()
}
#[inline(never)]
fn q_amq_batch<K: Key>(f: &BloomFilter, refs: &[&K], out: &mut [bool]) -> usize {
    f.contains_batch(refs, out);
    out.iter().filter(|&&x| x).count()
}
#[inline(never)]
fn q_fold<K: Key>(f: &FoldBloom, qs: &[K]) -> usize {
    qs.iter().filter(|q| f.contains(*q)).count()
}
#[inline(never)]
fn q_sip<K: Key>(f: &fastbloom::BloomFilter, qs: &[K]) -> usize {
    qs.iter().filter(|q| f.contains(*q)).count()
}
/// The hashes alone: what each query spends before it touches the filter.
#[inline(never)]
fn q_xxh3_128_only<K: Key>(qs: &[K]) -> u64 {
    qs.iter().fold(0, |acc, q| {
        let h = amq::hash::hash128(q, SEED);
        acc ^ (h as u64) ^ ((h >> 64) as u64)
    })
}
#[inline(never)]
fn q_foldhash_only<K: Key>(qs: &[K]) -> u64 {
    use std::hash::BuildHasher;
    let state = foldhash::fast::FixedState::with_seed(SEED);
    qs.iter().fold(0, |acc, q| acc ^ state.hash_one(q))
}
#[inline(never)]
fn q_xxh3<K: Key>(f: &fastbloom::BloomFilter, qs: &[K]) -> usize {
    qs.iter().filter(|q| f.contains_hash(xxh64(*q))).count()
}

/// Rounds of [`paired_ratios`].
const ROUNDS: usize = 7;

/// Our time over fastbloom-foldhash's on the same pass (positives, then negatives), the two
/// passes run back to back in each of [`ROUNDS`] rounds, printed as the median ratio and the
/// range: on a shared machine the load changes between criterion's benchmarks of one group,
/// and alternating the two filters cancels that drift. A supplement to criterion's medians.
fn paired_ratios<K: Key>(case: &Case<K>, amq: &BloomFilter, fold: &FoldBloom) {
    for (kind, qs) in [("pos", &case.pos), ("neg", &case.neg)] {
        let mut ratios: Vec<f64> = (0..ROUNDS)
            .map(|_| {
                let t = std::time::Instant::now();
                black_box(q_amq(amq, black_box(qs)));
                let ours = t.elapsed();
                let t = std::time::Instant::now();
                black_box(q_fold(fold, black_box(qs)));
                ours.as_secs_f64() / t.elapsed().as_secs_f64()
            })
            .collect();
        ratios.sort_by(f64::total_cmp);
        println!(
            "bloom {} {kind}: amq-bloom / fastbloom-foldhash, paired over {ROUNDS} rounds: \
             median {:.2}x (range {:.2}x to {:.2}x)",
            case.name,
            ratios[ROUNDS / 2],
            ratios[0],
            ratios[ROUNDS - 1]
        );
    }
}

/// A group timing one pass over `elements` items per iteration, 10 samples.
fn group<'a>(
    c: &'a mut Criterion,
    name: String,
    elements: u64,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Elements(elements))
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g
}

fn bench_case<K: Key>(c: &mut Criterion, case: &Case<K>) {
    let n = case.n();
    let amq = build_amq(case);
    let (m, k) = (amq.m(), amq.k());
    let fold = build_fold(case, m, k);
    let sip = build_sip(case, m, k);
    let xxh3 = build_xxh3(case, m, k);

    // untimed: shape, no false negatives, measured ε
    let answers = [
        ("amq-bloom", q_amq(&amq, &case.pos), q_amq(&amq, &case.neg)),
        (
            "fastbloom-foldhash",
            q_fold(&fold, &case.pos),
            q_fold(&fold, &case.neg),
        ),
        (
            "fastbloom-sip",
            q_sip(&sip, &case.pos),
            q_sip(&sip, &case.neg),
        ),
        (
            "fastbloom-xxh3",
            q_xxh3(&xxh3, &case.pos),
            q_xxh3(&xxh3, &case.neg),
        ),
    ];
    for (name, pos, fp) in answers {
        assert_eq!(pos as u64, n, "{name}: false negative");
        println!(
            "bloom {} {name}: m = {m}, k = {k}, bits/key {:.3}, measured fpr {:.5}% ({fp} of {})",
            case.name,
            m as f64 / n as f64,
            100.0 * fp as f64 / case.neg.len() as f64,
            case.neg.len()
        );
    }
    paired_ratios(case, &amq, &fold);
    let batch = build_amq_batch(case);
    assert_eq!(batch, amq, "insert_batch builds the same filter");

    let mut g = group(c, format!("bloom/{}/build", case.name), n);
    g.bench_function("amq-bloom", |b| b.iter_with_large_drop(|| build_amq(case)));
    g.bench_function("amq-bloom-insert_batch", |b| {
        b.iter_with_large_drop(|| build_amq_batch(case))
    });
    g.bench_function("fastbloom-foldhash", |b| {
        b.iter_with_large_drop(|| build_fold(case, m, k))
    });
    g.bench_function("fastbloom-sip", |b| {
        b.iter_with_large_drop(|| build_sip(case, m, k))
    });
    g.bench_function("fastbloom-xxh3", |b| {
        b.iter_with_large_drop(|| build_xxh3(case, m, k))
    });
    g.finish();

    for (kind, qs) in [("pos", &case.pos), ("neg", &case.neg)] {
        let mut g = group(c, format!("bloom/{}/{kind}", case.name), qs.len() as u64);
        g.bench_function("amq-bloom", |b| b.iter(|| q_amq(&amq, black_box(qs))));
        g.bench_function("fastbloom-foldhash", |b| {
            b.iter(|| q_fold(&fold, black_box(qs)))
        });
        g.bench_function("fastbloom-sip", |b| b.iter(|| q_sip(&sip, black_box(qs))));
        g.bench_function("fastbloom-xxh3", |b| {
            b.iter(|| q_xxh3(&xxh3, black_box(qs)))
        });
        if kind == "pos" {
            g.bench_function("xxh3-128-only", |b| {
                b.iter(|| q_xxh3_128_only(black_box(qs)))
            });
            g.bench_function("foldhash-only", |b| {
                b.iter(|| q_foldhash_only(black_box(qs)))
            });
        }
        g.finish();

        let refs: Vec<&K> = qs.iter().collect();
        let mut out = vec![false; qs.len()];
        let mut g = group(
            c,
            format!("bloom/{}/batch-{kind}", case.name),
            qs.len() as u64,
        );
        g.bench_function("contains", |b| b.iter(|| q_amq(&amq, black_box(qs))));
        g.bench_function("contains_batch", |b| {
            b.iter(|| q_amq_batch(&amq, black_box(&refs), &mut out))
        });
        g.finish();
    }
}

/// Every case, or those `AMQ_BLOOM_KEYS` and `AMQ_BLOOM_FPR` name.
fn bloom(c: &mut Criterion) {
    let keys = std::env::var("AMQ_BLOOM_KEYS").ok();
    let fprs = std::env::var("AMQ_BLOOM_FPR").ok();
    let wanted =
        |v: &Option<String>, x: &str| v.as_deref().is_none_or(|v| v.split(',').any(|w| w == x));
    for (fpr, fpr_label) in [(0.01, "1%"), (0.001, "0.1%")] {
        if !wanted(&fprs, &fpr.to_string()) {
            continue;
        }
        for (keys_label, n) in [("u64-1e6", 1_000_000), ("u64-1e7", 10_000_000)] {
            if wanted(&keys, keys_label) {
                let case = Case::new(format!("{keys_label}/{fpr_label}"), n, fpr, u64_key);
                bench_case(c, &case);
            }
        }
        if wanted(&keys, "str-1e6") {
            let case = Case::new(format!("str-1e6/{fpr_label}"), 1_000_000, fpr, string_key);
            bench_case(c, &case);
        }
    }
}

criterion_group!(benches, bloom);
criterion_main!(benches);
