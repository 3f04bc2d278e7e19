//! What `info()` costs on a large filter: the fill, estimated items and estimated ε all come
//! from counting the set bits, and `amq serve` does it under the filter's read lock at every
//! `GET /metrics` scrape (as do `amq info`, `AMQ.INFO` and the Python `info()`).
//!
//! For the classic, blocked and split block Bloom filters of 64 MiB each (m = 2^29 bits, n =
//! m/10 items inserted by hash, so about half the bits are set):
//!
//! * `info/<kind>`: one `info()`;
//! * `bits_set/<kind>`: the library's count of set bits;
//! * `bits_set/plain`: the same count as a plain `u64::count_ones` loop over the same words in
//!   this crate, built for the default target (x86-64 without POPCNT): what the library's
//!   count compiles to unless it finds the POPCNT instruction at run time.
//!
//! Throughput is bytes of table. Run: `cargo bench -p amq-bench --bench info`.

use amq::{BlockedBloomFilter, BloomFilter, SplitBlockBloomFilter};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

const M: u64 = 1 << 29;

/// n = m/10 well-mixed 64-bit hashes (SplitMix64 of 0, 1, 2, ...).
fn hashes() -> impl Iterator<Item = u64> {
    (0..M / 10).map(amq_bench::mix)
}

fn bench(c: &mut Criterion) {
    let mut bloom = BloomFilter::new(M, 7, 0).expect("64 MiB");
    let mut blocked = BlockedBloomFilter::new(M, 7, 0).expect("64 MiB");
    let mut split = SplitBlockBloomFilter::new(M, 0).expect("64 MiB");
    for h in hashes() {
        bloom.insert_hash(u128::from(h) << 64 | u128::from(h.rotate_left(29)));
        blocked.insert_hash(u128::from(h) << 64 | u128::from(h.rotate_left(29)));
        split.insert_hash(h);
    }
    let words: Vec<u64> = bloom
        .to_bytes()
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    let plain = |w: &[u64]| -> u64 { w.iter().map(|x| u64::from(x.count_ones())).sum() };

    let mut g = c.benchmark_group("info");
    g.throughput(Throughput::Bytes(M / 8));
    g.sample_size(20);
    g.bench_function("bloom", |b| b.iter(|| black_box(&bloom).info()));
    g.bench_function("blocked", |b| b.iter(|| black_box(&blocked).info()));
    g.bench_function("split-block", |b| b.iter(|| black_box(&split).info()));
    g.finish();

    let mut g = c.benchmark_group("bits_set");
    g.throughput(Throughput::Bytes(M / 8));
    g.sample_size(20);
    g.bench_function("bloom", |b| b.iter(|| black_box(&bloom).bits_set()));
    g.bench_function("blocked", |b| b.iter(|| black_box(&blocked).bits_set()));
    g.bench_function("split-block", |b| b.iter(|| black_box(&split).bits_set()));
    g.bench_function("plain", |b| b.iter(|| plain(black_box(&words))));
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
