//! Parquet's split block Bloom filter: amq's `formats::parquet` against `sbbf-rs-safe`, which
//! implements the same layout (256-bit blocks, the eight salts, block `((h >> 32)·z) >> 32`)
//! with SSE/AVX2 kernels picked at run time.
//!
//! Run: `cargo bench -p amq-bench --bench parquet` (`AMQ_PARQUET_N=1e6` or `1e7` runs one
//! size; criterion filters such as `parquet/1e6/contains` pick a group).
//!
//! Both filters get the same bytes (the size Parquet writers pick for n values at 1%:
//! 2 MiB at n = 10^6, 16 MiB at 10^7) and the same u64 hashes (XXH64 with seed 0 of each
//! `amq_bench::workload` u64 key's 8 little-endian bytes, as Parquet hashes an INT64 value),
//! computed once and untimed: the timings compare the filters' own work. The setup asserts
//! that the two bitsets are equal, byte for byte, after inserting the same hashes.
//!
//! * `insert`: every member's hash into an empty filter, in member order;
//! * `contains`: every member's hash, in a shuffled order (`workload::shuffled`), so that
//!   successive queries touch unrelated blocks; amq answers one at a time (`contains_hash`)
//!   and batched (`contains_hash_batch`, which prefetches 16 ahead);
//! * `contains-neg`: as many non-members.

use amq::formats::parquet::{hash_i64, ParquetBloomFilter};
use amq_bench::workload;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode, Throughput};
use std::hint::black_box;
use std::time::Duration;

const FPP: f64 = 0.01;

struct Data {
    n: u64,
    members: Vec<u64>,
    shuffled: Vec<u64>,
    non_members: Vec<u64>,
}

impl Data {
    fn new(n: u64) -> Self {
        let hash = |k: u64| hash_i64(k as i64);
        let members: Vec<u64> = workload::members(n, workload::u64_key)
            .into_iter()
            .map(hash)
            .collect();
        let shuffled = workload::shuffled(&members, 0x5eed);
        let non_members = workload::non_members(n, n, workload::u64_key)
            .into_iter()
            .map(hash)
            .collect();
        Data {
            n,
            members,
            shuffled,
            non_members,
        }
    }
}

#[inline(never)]
fn insert_amq(f: &mut ParquetBloomFilter, hashes: &[u64]) -> usize {
    hashes.iter().filter(|&&h| f.insert_hash(h)).count()
}
#[inline(never)]
fn insert_sbbf(f: &mut sbbf_rs_safe::Filter, hashes: &[u64]) -> usize {
    hashes.iter().filter(|&&h| f.insert_hash(h)).count()
}
#[inline(never)]
fn contains_amq(f: &ParquetBloomFilter, hashes: &[u64]) -> usize {
    hashes.iter().filter(|&&h| f.contains_hash(h)).count()
}
#[inline(never)]
fn contains_amq_batch(f: &ParquetBloomFilter, hashes: &[u64], out: &mut [bool]) -> usize {
    f.contains_hash_batch(hashes, out);
    out.iter().filter(|&&x| x).count()
}
#[inline(never)]
fn contains_sbbf(f: &sbbf_rs_safe::Filter, hashes: &[u64]) -> usize {
    hashes.iter().filter(|&&h| f.contains_hash(h)).count()
}

fn bench_n(c: &mut Criterion, n: u64, label: &str) {
    let d = Data::new(n);
    let empty = ParquetBloomFilter::with_ndv_fpp(n, FPP).expect("size");
    let bytes = empty.size_bytes() as usize;
    let empty_sbbf = sbbf_rs_safe::Filter::from_bytes(&vec![0u8; bytes]).expect("whole blocks");

    let mut amq = empty.clone();
    insert_amq(&mut amq, &d.members);
    let mut sbbf = sbbf_rs_safe::Filter::from_bytes(&vec![0u8; bytes]).expect("whole blocks");
    insert_sbbf(&mut sbbf, &d.members);
    assert!(
        amq.to_bitset() == sbbf.as_bytes(),
        "amq and sbbf-rs-safe disagree on the bitset"
    );
    let fp = contains_amq(&amq, &d.non_members);
    println!(
        "parquet n={}: {} bytes, bits/key {:.2}, measured fpr {:.5} ({fp} of {}), model {:.5}",
        d.n,
        bytes,
        bytes as f64 * 8.0 / n as f64,
        fp as f64 / n as f64,
        n,
        amq.expected_fpr(n)
    );
    assert_eq!(contains_sbbf(&sbbf, &d.non_members), fp);

    let large = n > 1_000_000;
    let setup = |g: &mut criterion::BenchmarkGroup<'_, _>| {
        g.sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .throughput(Throughput::Elements(n))
            .warm_up_time(Duration::from_millis(if large { 200 } else { 500 }))
            .measurement_time(Duration::from_secs(if large { 6 } else { 3 }));
    };

    let mut g = c.benchmark_group(format!("parquet/{label}/insert"));
    setup(&mut g);
    g.bench_function("amq", |b| {
        b.iter_batched_ref(
            || empty.clone(),
            |f| insert_amq(f, black_box(&d.members)),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("sbbf-rs-safe", |b| {
        b.iter_batched_ref(
            || sbbf_rs_safe::Filter::from_bytes(empty_sbbf.as_bytes()).expect("whole blocks"),
            |f| insert_sbbf(f, black_box(&d.members)),
            BatchSize::LargeInput,
        )
    });
    g.finish();

    let mut out = vec![false; n as usize];
    for (kind, queries) in [("contains", &d.shuffled), ("contains-neg", &d.non_members)] {
        let mut g = c.benchmark_group(format!("parquet/{label}/{kind}"));
        setup(&mut g);
        g.bench_function("amq", |b| b.iter(|| contains_amq(&amq, black_box(queries))));
        g.bench_function("amq-batch", |b| {
            b.iter(|| contains_amq_batch(&amq, black_box(queries), &mut out))
        });
        g.bench_function("sbbf-rs-safe", |b| {
            b.iter(|| contains_sbbf(&sbbf, black_box(queries)))
        });
        g.finish();
    }
}

/// Both sizes; `AMQ_PARQUET_N=1e6` (or `1e7`) runs only one.
fn parquet(c: &mut Criterion) {
    let only = std::env::var("AMQ_PARQUET_N").ok();
    for (n, label) in [(1_000_000, "1e6"), (10_000_000, "1e7")] {
        if only.as_deref().is_none_or(|o| o == label) {
            bench_n(c, n, label);
        }
    }
}

criterion_group!(benches, parquet);
criterion_main!(benches);
