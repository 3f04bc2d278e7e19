//! NegativeCache lookups against a single random memory access into an array of the same size,
//! in one run.
//!
//! * `*/dependent`: latency. Each array read's index is the previous read (a pointer chase over
//!   a random cycle), so nothing overlaps: one cache miss each. Each lookup's key depends on
//!   the previous answer, a bool the CPU can predict, so lookups may still overlap.
//! * `*/independent`: throughput over 1,024 random keys (or indices) per iteration, where the
//!   CPU overlaps the misses; `contains_batch` hashes 16 keys before probing them.
//!
//! Sizes: l = 20 (2²⁰ slots of 63-bit fingerprints: 8 MiB, inside the 32 MiB L3) and
//! l = 24 (128 MiB: DRAM). The array is the cache's own size in 64-bit words.
//!
//! Run: `cargo bench -p amq-bench --bench negative`.

use amq::negative::NegativeCache;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::time::Duration;

/// A random cycle through `words` words (`amq_bench::random_cycle`), allocated like the cache's
/// own table (`amq::bits::try_zeroed`: huge pages from 64 MiB on Linux), so both pay the same
/// TLB costs.
fn pointer_cycle(words: usize, rng: &mut StdRng) -> Vec<u64> {
    let mut next: Vec<u64> = amq::bits::try_zeroed(words as u64, "words").unwrap();
    amq_bench::random_cycle(&mut next, |i| rng.random_range(0..i));
    next
}

fn bench(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(7);
    for (l, b, ways) in [(20u32, 63u32, 1u32), (24, 63, 1), (24, 63, 8)] {
        let mut cache = NegativeCache::new(l, b, ways, 1).unwrap();
        // Fill half the slots, so half the lookups of inserted keys hit.
        for x in 0..(1u64 << (l - 1)) {
            cache.insert(&x);
        }
        let words = (cache.size_bytes() / 8) as usize;
        let array = pointer_cycle(words, &mut rng);
        // 2^20 random keys and indices, walked 1,024 at a time, so that no batch finds the
        // lines of the previous one in the cache
        let keys: Vec<u64> = (0..1 << 20)
            .map(|_| rng.random_range(0..1u64 << l))
            .collect();
        let indices: Vec<usize> = (0..1 << 20).map(|_| rng.random_range(0..words)).collect();
        let size = format!("l{l}-b{b}-w{ways}-{}MiB", cache.size_bytes() >> 20);

        let mut g = c.benchmark_group("negative");
        g.sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));

        let mut at = 0usize;
        g.bench_function(BenchmarkId::new("random_access/dependent", &size), |bch| {
            bch.iter(|| {
                at = array[at] as usize;
                at
            })
        });
        let mut state = 12345u64;
        g.bench_function(BenchmarkId::new("contains/dependent", &size), |bch| {
            bch.iter(|| {
                let present = cache.contains(&(state >> (64 - l)));
                // the next key needs this answer (the CPU may still guess it and run ahead, as
                // it would in a caller that branches on the answer)
                state = (state + 1 + u64::from(present)).wrapping_mul(amq::hash::GOLDEN_GAMMA);
                present
            })
        });

        g.throughput(Throughput::Elements(1024));
        let mut batch = 0usize;
        g.bench_function(
            BenchmarkId::new("random_access/independent", &size),
            |bch| {
                bch.iter(|| {
                    batch = (batch + 1024) % indices.len();
                    indices[batch..batch + 1024]
                        .iter()
                        .map(|&i| array[i])
                        .fold(0u64, u64::wrapping_add)
                })
            },
        );
        g.bench_function(BenchmarkId::new("contains/independent", &size), |bch| {
            bch.iter(|| {
                batch = (batch + 1024) % keys.len();
                keys[batch..batch + 1024]
                    .iter()
                    .filter(|k| cache.contains(*k))
                    .count()
            })
        });
        let mut answers = vec![false; 1024];
        g.bench_function(
            BenchmarkId::new("contains_batch/independent", &size),
            |bch| {
                bch.iter(|| {
                    batch = (batch + 1024) % keys.len();
                    let refs: Vec<&u64> = keys[batch..batch + 1024].iter().collect();
                    cache.contains_batch(&refs, &mut answers);
                    answers.iter().filter(|&&a| a).count()
                })
            },
        );
        g.finish();
        black_box(&array);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
