//! Does asking for transparent huge pages pay? Random 8-byte reads from a table allocated by
//! `amq::bits::try_zeroed` (which marks tables of `HUGE_PAGE_MIN_BYTES` and more
//! `MADV_HUGEPAGE` on Linux) against the same table on ordinary 4-KiB pages (`vec!`), in one
//! run, at sizes around and far past the L3 and the TLB's reach.
//!
//! * `independent`: 1,024 reads at random indices per iteration (throughput: the CPU
//!   overlaps the misses, as in a filter's batch of lookups).
//! * `dependent`: a pointer chase over a random cycle through every word (latency: each read
//!   waits for the previous one, as in one lookup).
//!
//! Before the benchmarks it prints how much of the process is on huge pages
//! (`AnonHugePages` of /proc/self/smaps_rollup): 0 where THP is off.
//!
//! * `floor`: the `independent` reads (on the allocator's pages) at the table sizes of the
//!   filters in BENCHMARKS.md (1.25, 12, 16, 24 and 64 MiB): the floor a query of a filter that
//!   size cannot beat, one random cache-line load, to state each filter's time as a multiple of it.
//!
//! Run: `cargo bench -p amq-bench --bench pages` (`-- floor` for the floor alone).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::time::Duration;

fn huge_pages_kib() -> String {
    std::fs::read_to_string("/proc/self/smaps_rollup")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("AnonHugePages"))
                .map(|l| l.split_whitespace().nth(1).unwrap_or("?").to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn bench(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(11);
    for mib in [32usize, 64, 256, 1024] {
        let words = mib << 17; // MiB of u64
        let before = huge_pages_kib();
        let mut advised: Vec<u64> = amq::bits::try_zeroed(words as u64, "words").unwrap();
        let after = huge_pages_kib();
        let mut plain: Vec<u64> = vec![0u64; words];
        amq_bench::random_cycle(&mut advised, |i| rng.random_range(0..i));
        plain.copy_from_slice(&advised);
        eprintln!(
            "pages: {mib} MiB table; AnonHugePages {before} kB before the advised table, \
             {after} kB after it, {} kB with both filled",
            huge_pages_kib()
        );
        let indices: Vec<usize> = (0..1 << 20).map(|_| rng.random_range(0..words)).collect();
        let mut g = c.benchmark_group("pages");
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for (name, table) in [("huge", &advised), ("4k", &plain)] {
            let mut at = 0usize;
            g.throughput(Throughput::Elements(1024));
            g.bench_function(
                BenchmarkId::new(format!("independent/{mib}MiB"), name),
                |b| {
                    b.iter(|| {
                        at = (at + 1024) % indices.len();
                        indices[at..at + 1024]
                            .iter()
                            .map(|&i| table[i])
                            .fold(0u64, u64::wrapping_add)
                    })
                },
            );
            let mut p = 0usize;
            g.throughput(Throughput::Elements(1));
            g.bench_function(BenchmarkId::new(format!("dependent/{mib}MiB"), name), |b| {
                b.iter(|| {
                    p = table[p] as usize;
                    p
                })
            });
        }
        g.finish();
        black_box((&advised, &plain));
    }
}

/// One random 8-byte read (one cache line) per element, 1,024 independent reads per
/// iteration, at the sizes of the filters' tables.
fn floor(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(12);
    let mut g = c.benchmark_group("floor");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(1024));
    for (label, bytes) in [
        ("1.25MiB", 5usize << 18),
        ("12MiB", 12 << 20),
        ("16MiB", 16 << 20),
        ("24MiB", 24 << 20),
        ("64MiB", 64 << 20),
    ] {
        let words = bytes / 8;
        let table: Vec<u64> = (0..words as u64).collect();
        let indices: Vec<usize> = (0..1 << 20).map(|_| rng.random_range(0..words)).collect();
        let mut at = 0usize;
        g.bench_function(BenchmarkId::new("independent", label), |b| {
            b.iter(|| {
                at = (at + 1024) % indices.len();
                indices[at..at + 1024]
                    .iter()
                    .map(|&i| table[i])
                    .fold(0u64, u64::wrapping_add)
            })
        });
        black_box(&table);
    }
    g.finish();
}

criterion_group!(benches, floor, bench);
criterion_main!(benches);
