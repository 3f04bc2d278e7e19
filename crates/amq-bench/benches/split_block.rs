//! The split block Bloom filter against sbbf-rs-safe (Parquet's split block layout with AVX2),
//! with amq's blocked Bloom filter for reference: issue 14, goal 1.
//!
//! Run: `cargo bench -p amq-bench --bench split_block` (every case), or one case with
//! `AMQ_SPLIT_CASE=u64-1e7-1%` (cases: `u64-1e6-1%`, `u64-1e6-0.1%`, `u64-1e7-1%`,
//! `u64-1e7-0.1%`, `str-1e6-1%`, `str-1e6-0.1%`), for example
//! `AMQ_SPLIT_CASE=u64-1e6-1% cargo bench -p amq-bench --bench split_block -- --warm-up-time 1 --measurement-time 3`.
//!
//! The workload is `amq_bench::workload`: n distinct u64 keys (hashed as their 8
//! little-endian bytes) or 16-byte string keys; each timed iteration queries every member
//! once in a shuffled order (`pos`) or n non-members (`neg`), so throughput is n queries.
//! Every filter hashes the same key bytes:
//!
//! * `amq-split`: `SplitBlockBloomFilter::with_fpr(n, ε, 0)`, XXH3-64 with the seed inside
//!   (seed 0, the default of `amq build`, which takes XXH3's unseeded path)
//!   (`Filter::contains`, and `contains_batch`, which hashes and prefetches 16 items ahead;
//!   `amq-split-batch-values` is `contains_batch_values`, the items in the slice, whose hash
//!   loop the compiler vectorises);
//! * `amq-split-avx2`, `amq-split-portable`: the same filter on the AVX2 and the portable
//!   kernel (what the AVX-512 and the AVX2 kernel gain; `amq-split` runs the fastest kernel
//!   the CPU has, printed with each case);
//! * `sbbf-rs-safe`: given exactly our filter's bytes (`Filter::from_bytes` of a zeroed buffer
//!   of our `size_bytes()`, so equal bits per key) and one-shot unseeded XXH3-64, the same
//!   function (XXH3 with seed 0 is unseeded XXH3) as a sbbf user would call it;
//! * `amq-blocked`: `BlockedBloomFilter::with_fpr(n, ε)`, XXH3-128, for reference.
//! * `build/amq-split-batch-values`: the split block filter built with one
//!   `insert_batch_values` call over the keys' slice (`build/amq-split` inserts one at a time).
//! * `xxh3-only`: XXH3-64 of every query key and no filter, the hash's share of a query: no
//!   query, single or batched, can take less without a cheaper hash.
//!
//! Bits per key and ε measured over 10^7 non-members are printed once per case, untimed.

use amq::{BlockedBloomFilter, Filter, Insert, Item, SplitBlockBloomFilter, SplitBlockKernel};
use amq_bench::workload;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use std::hint::black_box;
use std::time::Duration;
use xxhash_rust::xxh3::xxh3_64;

/// Seed 0 for amq's filters: the default seed, hashed by the unseeded XXH3 that sbbf gets.
const SEED: u64 = 0;
/// Non-members probed (untimed) for the measured ε.
const PROBES: u64 = 10_000_000;

/// The one-shot XXH3-64 of the key's bytes: what sbbf-rs-safe is given (the same values as
/// amq's seed-0 hash).
#[inline(always)]
fn xxh64<K: Item>(key: &K) -> u64 {
    key.with_bytes(xxh3_64)
}

fn build_split<K: Item>(keys: &[K], fpr: f64) -> SplitBlockBloomFilter {
    let mut f = SplitBlockBloomFilter::with_fpr(keys.len() as u64, fpr, SEED).expect("valid size");
    for k in keys {
        f.insert(k).expect("a Bloom filter is never full");
    }
    f
}
/// The same filter built with one `insert_batch_values` call (its hash loop vectorised for
/// u64 keys, its blocks prefetched from 4 MiB).
fn build_split_values<K: Item>(keys: &[K], fpr: f64) -> SplitBlockBloomFilter {
    let mut f = SplitBlockBloomFilter::with_fpr(keys.len() as u64, fpr, SEED).expect("valid size");
    f.insert_batch_values(keys);
    f
}
fn build_sbbf<K: Item>(keys: &[K], bytes: u64) -> sbbf_rs_safe::Filter {
    let mut f =
        sbbf_rs_safe::Filter::from_bytes(&vec![0u8; bytes as usize]).expect("whole buckets");
    for k in keys {
        f.insert_hash(xxh64(k));
    }
    f
}
fn build_blocked<K: Item>(keys: &[K], fpr: f64) -> BlockedBloomFilter {
    let mut f = BlockedBloomFilter::with_fpr(keys.len() as u64, fpr, SEED).expect("valid size");
    for k in keys {
        f.insert(k).expect("a Bloom filter is never full");
    }
    f
}

// One query loop per filter, each compiled on its own, as in benches/bloom.rs.
#[inline(never)]
fn q_split<K: Item>(f: &SplitBlockBloomFilter, qs: &[K]) -> usize {
    qs.iter().filter(|q| f.contains(*q)).count()
}
#[inline(never)]
fn q_split_batch<K: Item>(f: &SplitBlockBloomFilter, qs: &[&K], out: &mut [bool]) -> usize {
    f.contains_batch(qs, out);
    out.iter().filter(|&&x| x).count()
}
#[inline(never)]
fn q_split_values<K: Item>(f: &SplitBlockBloomFilter, qs: &[K], out: &mut [bool]) -> usize {
    f.contains_batch_values(qs, out);
    out.iter().filter(|&&x| x).count()
}
#[inline(never)]
fn q_sbbf<K: Item>(f: &sbbf_rs_safe::Filter, qs: &[K]) -> usize {
    qs.iter().filter(|q| f.contains_hash(xxh64(*q))).count()
}
/// The floor under every query above: XXH3-64 of each key and nothing else (no filter). A
/// batched query can be no faster than this without a faster hash.
#[inline(never)]
fn q_hash_only<K: Item>(qs: &[K]) -> u64 {
    qs.iter().fold(0, |acc, q| acc ^ xxh64(q))
}
#[inline(never)]
fn q_blocked<K: Item>(f: &BlockedBloomFilter, qs: &[K]) -> usize {
    qs.iter().filter(|q| f.contains(*q)).count()
}
#[inline(never)]
fn q_blocked_batch<K: Item>(f: &BlockedBloomFilter, qs: &[&K], out: &mut [bool]) -> usize {
    f.contains_batch(qs, out);
    out.iter().filter(|&&x| x).count()
}

/// One case: keys from `key`, n members, target ε.
fn bench_case<K: Item + Clone>(
    c: &mut Criterion,
    label: &str,
    n: u64,
    fpr: f64,
    key: fn(u64) -> K,
) {
    let members = workload::members(n, key);
    let pos = workload::shuffled(&members, 0x5eed);
    let neg = workload::non_members(n, n, key);
    let split = build_split(&members, fpr);
    let portable = split
        .clone()
        .with_kernel(SplitBlockKernel::Portable)
        .expect("portable");
    // the AVX2 kernel where the CPU has it (else the portable one again)
    let avx2 = split
        .clone()
        .with_kernel(SplitBlockKernel::Avx2)
        .unwrap_or_else(|_| portable.clone());
    let bytes = split.size_bytes();
    let sbbf = build_sbbf(&members, bytes);
    let blocked = build_blocked(&members, fpr);

    // untimed: bits per key, measured ε, no false negatives
    println!(
        "split_block {label}: n = {n}, kernel {:?}, blocks {}, model fpr {:.5}",
        split.kernel(),
        split.blocks(),
        split.expected_fpr(n)
    );
    let report = |name: &str, bits: u64, q: &dyn Fn(&K) -> bool| {
        assert!(members.iter().all(q), "{name}: false negative");
        let fp = (n..n + PROBES).filter(|&j| q(&key(j))).count();
        println!(
            "split_block {label} {name}: bits/key {:.3}, measured fpr {:.5} ({fp} of {PROBES})",
            bits as f64 / n as f64,
            fp as f64 / PROBES as f64
        );
    };
    report("amq-split", split.m(), &|q| split.contains(q));
    assert!(
        build_split_values(&members, fpr) == split,
        "insert_batch_values sets the bits insert sets"
    );
    report("sbbf-rs-safe", sbbf.as_bytes().len() as u64 * 8, &|q| {
        sbbf.contains_hash(xxh64(q))
    });
    report("amq-blocked", blocked.m(), &|q| blocked.contains(q));

    let large = n > 1_000_000;
    let mut g = c.benchmark_group(format!("split_block/{label}/build"));
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Elements(n));
    if large {
        g.measurement_time(Duration::from_secs(8));
    }
    g.bench_function("amq-split", |b| {
        b.iter_with_large_drop(|| build_split(&members, fpr))
    });
    g.bench_function("amq-split-batch-values", |b| {
        b.iter_with_large_drop(|| build_split_values(&members, fpr))
    });
    g.bench_function("sbbf-rs-safe", |b| {
        b.iter_with_large_drop(|| build_sbbf(&members, bytes))
    });
    g.bench_function("amq-blocked", |b| {
        b.iter_with_large_drop(|| build_blocked(&members, fpr))
    });
    g.finish();

    let mut out = vec![false; n as usize];
    for (kind, queries) in [("pos", &pos), ("neg", &neg)] {
        let refs: Vec<&K> = queries.iter().collect();
        let mut g = c.benchmark_group(format!("split_block/{label}/{kind}"));
        g.sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .throughput(Throughput::Elements(n));
        if large {
            g.measurement_time(Duration::from_secs(6));
        }
        g.bench_function("amq-split", |b| {
            b.iter(|| q_split(&split, black_box(queries)))
        });
        g.bench_function("amq-split-batch", |b| {
            b.iter(|| q_split_batch(&split, black_box(&refs), &mut out))
        });
        g.bench_function("amq-split-batch-values", |b| {
            b.iter(|| q_split_values(&split, black_box(queries), &mut out))
        });
        g.bench_function("sbbf-rs-safe", |b| {
            b.iter(|| q_sbbf(&sbbf, black_box(queries)))
        });
        g.bench_function("amq-split-avx2", |b| {
            b.iter(|| q_split(&avx2, black_box(queries)))
        });
        g.bench_function("amq-split-avx2-batch", |b| {
            b.iter(|| q_split_batch(&avx2, black_box(&refs), &mut out))
        });
        g.bench_function("amq-split-portable", |b| {
            b.iter(|| q_split(&portable, black_box(queries)))
        });
        g.bench_function("amq-split-portable-batch", |b| {
            b.iter(|| q_split_batch(&portable, black_box(&refs), &mut out))
        });
        g.bench_function("amq-blocked", |b| {
            b.iter(|| q_blocked(&blocked, black_box(queries)))
        });
        g.bench_function("amq-blocked-batch", |b| {
            b.iter(|| q_blocked_batch(&blocked, black_box(&refs), &mut out))
        });
        g.bench_function("xxh3-only", |b| b.iter(|| q_hash_only(black_box(queries))));
        g.finish();
    }
}

/// Every case; `AMQ_SPLIT_CASE` runs one.
fn split_block(c: &mut Criterion) {
    let only = std::env::var("AMQ_SPLIT_CASE").ok();
    let pick = |label: &str| only.as_deref().is_none_or(|o| o == label);
    for (n, size) in [(1_000_000u64, "1e6"), (10_000_000, "1e7")] {
        for (fpr, rate) in [(0.01, "1%"), (0.001, "0.1%")] {
            let label = format!("u64-{size}-{rate}");
            if pick(&label) {
                bench_case(c, &label, n, fpr, workload::u64_key);
            }
        }
    }
    for (fpr, rate) in [(0.01, "1%"), (0.001, "0.1%")] {
        let label = format!("str-1e6-{rate}");
        if pick(&label) {
            bench_case(c, &label, 1_000_000, fpr, workload::string_key);
        }
    }
}

criterion_group!(benches, split_block);
criterion_main!(benches);
