//! CuckooFilter against the `cuckoofilter` and `qfilter` crates at n = 10⁷, in one run, on the
//! issue-14 workload ([`amq_bench::workload`]: u64 keys, every member queried once in a shuffled
//! order, 10⁷ non-members).
//!
//! Filters (each holds the same 10⁷ keys):
//! * `amq-f12`: [`amq::CuckooFilter`] with 12-bit fingerprints, sized for n at load 0.95.
//! * `amq-f16`: the same with 16-bit fingerprints.
//! * `cuckoofilter`: `cuckoofilter::CuckooFilter::with_capacity(n)` with its default hasher
//!   (8-bit fingerprints, a power-of-two bucket count).
//! * `qfilter-r6`, `qfilter-r8`: `qfilter::Filter::new(n, 2⁻⁶ or 2⁻⁸)`, its default hasher
//!   (6- or 8-bit remainders, 2.125 bits of metadata per slot, a power-of-two slot count).
//!
//! Benchmarks (group `cuckoo/1e7`):
//! * `build`: allocate and insert all n members, one `insert` at a time; `build-batch` (amq
//!   only): the same through `insert_batch`, which prefetches the buckets of the key 16 ahead;
//! * `lookup-hit`: every member once, shuffled; `lookup-miss`: the 10⁷ non-members;
//! * `batch-hit`, `batch-miss` (amq only): the same queries through `contains_batch`;
//! * `delete`: 2¹⁷ members removed from a fresh clone of the full filter (the clone is not
//!   timed);
//!
//! (The expandable chain's `contains_batch` against `contains`: benches/batch.rs.)
//!
//! On a shared machine the load drifts between benchmarks, so the key comparisons are also
//! printed as paired ratios ([`paired_ratios`]): the two passes back to back, in 7 rounds.
//!
//! Before the benchmarks, each filter's measured ε (over the 10⁷ non-members) and bits per key
//! are printed on stderr: the comparisons are "at lower ε" (amq-f12 against cuckoofilter and
//! qfilter-r8) and "at equal bits per key" (amq-f16 against qfilter-r8, amq-f12 against
//! qfilter-r6).
//!
//! Run: `cargo bench -p amq-bench --bench cuckoo`.

use amq_bench::workload::{members, non_members, shuffled, u64_key};
use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use std::hint::black_box;
use std::time::Duration;

/// n, the keys each filter holds, and the non-members queried.
const N: u64 = 10_000_000;
/// Members removed per timed iteration of the delete benchmark.
const DELETES: usize = 1 << 17;

/// A filter under test, behind one interface.
trait Subject: Clone {
    fn contains(&self, key: &u64) -> bool;
    fn remove(&mut self, key: &u64) -> bool;
    fn bytes(&self) -> usize;
}

impl Subject for amq::CuckooFilter {
    #[inline]
    fn contains(&self, key: &u64) -> bool {
        amq::Filter::contains(self, key)
    }
    #[inline]
    fn remove(&mut self, key: &u64) -> bool {
        amq::Remove::remove(self, key)
    }
    fn bytes(&self) -> usize {
        self.size_bytes() as usize
    }
}

/// `cuckoofilter::CuckooFilter` is not `Clone`: it goes through its export format.
struct Cf(cuckoofilter::CuckooFilter<std::collections::hash_map::DefaultHasher>);

impl Clone for Cf {
    fn clone(&self) -> Self {
        Cf(cuckoofilter::CuckooFilter::from(self.0.export()))
    }
}

impl Subject for Cf {
    #[inline]
    fn contains(&self, key: &u64) -> bool {
        self.0.contains(key)
    }
    #[inline]
    fn remove(&mut self, key: &u64) -> bool {
        self.0.delete(key)
    }
    fn bytes(&self) -> usize {
        self.0.memory_usage()
    }
}

impl Subject for qfilter::Filter {
    #[inline]
    fn contains(&self, key: &u64) -> bool {
        qfilter::Filter::contains(self, key)
    }
    #[inline]
    fn remove(&mut self, key: &u64) -> bool {
        qfilter::Filter::remove(self, key)
    }
    fn bytes(&self) -> usize {
        self.memory_usage()
    }
}

fn report<S: Subject>(name: &str, f: &S, hits: &[u64], misses: &[u64]) {
    assert!(hits.iter().all(|k| f.contains(k)), "{name}: false negative");
    let fp = misses.iter().filter(|k| f.contains(k)).count();
    eprintln!(
        "{name:<13} bits/key {:>6.2}  measured fpr {:.3e} ({fp} of {})",
        f.bytes() as f64 * 8.0 / N as f64,
        fp as f64 / misses.len() as f64,
        misses.len(),
    );
}

/// A group timing one pass over `elements` items per iteration, 10 samples.
fn group<'a>(
    c: &'a mut Criterion,
    elements: u64,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group("cuckoo/1e7");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Elements(elements))
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g
}

/// One lookup loop per filter type, compiled on its own.
#[inline(never)]
fn lookups<S: Subject>(f: &S, keys: &[u64]) -> usize {
    keys.iter().filter(|k| f.contains(k)).count()
}

fn bench_subject<S: Subject>(c: &mut Criterion, name: &str, f: &S, hits: &[u64], misses: &[u64]) {
    let mut g = group(c, N);
    for (what, queries) in [("lookup-hit", hits), ("lookup-miss", misses)] {
        g.bench_function(BenchmarkId::new(what, name), |b| {
            b.iter(|| lookups(f, black_box(queries)))
        });
    }
    g.throughput(Throughput::Elements(DELETES as u64));
    g.bench_function(BenchmarkId::new("delete", name), |b| {
        b.iter_batched(
            || f.clone(),
            |mut f| {
                let mut removed = 0usize;
                for k in &hits[..DELETES] {
                    removed += usize::from(f.remove(k));
                }
                assert_eq!(removed, DELETES);
                f
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

/// Builds the filter once (checked and reported), times its build, then its queries.
fn build_and_bench<S: Subject>(
    c: &mut Criterion,
    name: &str,
    keys: &[u64],
    hits: &[u64],
    misses: &[u64],
    build: impl Fn(&[u64]) -> S,
) -> S {
    let f = build(keys);
    report(name, &f, hits, misses);
    let mut g = group(c, N);
    g.bench_function(BenchmarkId::new("build", name), |b| {
        b.iter_with_large_drop(|| build(black_box(keys)))
    });
    g.finish();
    bench_subject(c, name, &f, hits, misses);
    f
}

/// Our batched paths against their single forms: `insert_batch` against `insert` (the
/// `build` row), `contains_batch` against `contains` (the `lookup-*` rows).
fn bench_batch(
    c: &mut Criterion,
    name: &str,
    f: &amq::CuckooFilter,
    [keys, hits, misses]: [&[u64]; 3],
) {
    let (buckets, bits) = (f.buckets(), f.fingerprint_bits());
    let mut g = group(c, N);
    g.bench_function(BenchmarkId::new("build-batch", name), |b| {
        b.iter_with_large_drop(|| {
            let mut filter = amq::CuckooFilter::new(buckets, bits, 0).unwrap();
            filter.insert_batch(black_box(keys)).unwrap();
            filter
        })
    });
    for (what, queries) in [("batch-hit", hits), ("batch-miss", misses)] {
        let refs: Vec<&u64> = queries.iter().collect();
        let mut out = vec![false; refs.len()];
        g.bench_function(BenchmarkId::new(what, name), |b| {
            b.iter(|| {
                amq::Filter::contains_batch(f, black_box(&refs), &mut out);
                out.iter().filter(|&&x| x).count()
            })
        });
    }
    g.finish();
}

/// Rounds of [`paired_ratios`].
const ROUNDS: usize = 7;

/// The median and range over [`ROUNDS`] rounds of `ours()`'s time over `theirs()`'s, run back
/// to back in each round.
fn paired(mut ours: impl FnMut(), mut theirs: impl FnMut()) -> String {
    let mut ratios: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let t = std::time::Instant::now();
            ours();
            let a = t.elapsed();
            let t = std::time::Instant::now();
            theirs();
            a.as_secs_f64() / t.elapsed().as_secs_f64()
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    format!(
        "median {:.2}x (range {:.2}x to {:.2}x)",
        ratios[ROUNDS / 2],
        ratios[0],
        ratios[ROUNDS - 1]
    )
}

/// The goals' comparisons as paired ratios: our build (one `insert` at a time and
/// `insert_batch`) over qfilter's, and our lookups over qfilter's, f = 12 against r = 8 (lower
/// ε, fewer bits) and f = 16 against r = 8 (about equal bits per key).
fn paired_ratios(keys: &[u64], hits: &[u64], misses: &[u64]) {
    let amq_one = |f: u32| {
        let mut filter = amq::CuckooFilter::with_capacity(N, f, 0).unwrap();
        for k in keys {
            amq::Insert::insert(&mut filter, k).unwrap();
        }
        filter
    };
    let amq_batch = |f: u32| {
        let mut filter = amq::CuckooFilter::with_capacity(N, f, 0).unwrap();
        filter.insert_batch(keys).unwrap();
        filter
    };
    let qf = |r: i32| {
        let mut filter = qfilter::Filter::new(N, 2f64.powi(-r)).unwrap();
        for k in keys {
            filter.insert_duplicated(k).unwrap();
        }
        filter
    };
    let r8 = qf(8);
    for f in [12u32, 16] {
        let ours = amq_batch(f);
        eprintln!(
            "paired amq-f{f} / qfilter-r8: build {}, build-batch {}",
            paired(|| drop(black_box(amq_one(f))), || drop(black_box(qf(8)))),
            paired(|| drop(black_box(amq_batch(f))), || drop(black_box(qf(8)))),
        );
        for (what, queries) in [("lookup-hit", hits), ("lookup-miss", misses)] {
            let refs: Vec<&u64> = queries.iter().collect();
            let mut out = vec![false; refs.len()];
            let single = paired(
                || {
                    black_box(lookups(&ours, queries));
                },
                || {
                    black_box(lookups(&r8, queries));
                },
            );
            let batch = paired(
                || amq::Filter::contains_batch(&ours, black_box(&refs), &mut out),
                || {
                    black_box(lookups(&r8, queries));
                },
            );
            eprintln!("paired amq-f{f} / qfilter-r8: {what} {single}, batch {batch}");
        }
    }
}

fn bench(c: &mut Criterion) {
    let keys = members(N, u64_key);
    let hits = shuffled(&keys, 0x5eed);
    let misses = non_members(N, N, u64_key);
    paired_ratios(&keys, &hits, &misses);

    for f in [12u32, 16] {
        let name = format!("amq-f{f}");
        let filter = build_and_bench(c, &name, &keys, &hits, &misses, |keys| {
            let mut filter = amq::CuckooFilter::with_capacity(N, f, 0).unwrap();
            for k in keys {
                amq::Insert::insert(&mut filter, k).unwrap();
            }
            filter
        });
        report_fpr_against_formula(&filter, &misses);
        let mut batched = amq::CuckooFilter::with_capacity(N, f, 0).unwrap();
        batched.insert_batch(&keys).unwrap();
        assert_eq!(batched, filter, "insert_batch builds the same table");
        bench_batch(c, &name, &filter, [&keys, &hits, &misses]);
    }
    build_and_bench(c, "cuckoofilter", &keys, &hits, &misses, |keys| {
        let mut filter = cuckoofilter::CuckooFilter::with_capacity(N as usize);
        for k in keys {
            filter.add(k).unwrap();
        }
        Cf(filter)
    });
    for r in [6i32, 8] {
        build_and_bench(c, &format!("qfilter-r{r}"), &keys, &hits, &misses, |keys| {
            let mut filter = qfilter::Filter::new(N, 2f64.powi(-r)).unwrap();
            for k in keys {
                filter.insert_duplicated(k).unwrap();
            }
            filter
        });
    }
}

/// Our measured ε on the probe set against the formula at the filter's load.
fn report_fpr_against_formula(f: &amq::CuckooFilter, probe: &[u64]) {
    let fp = probe
        .iter()
        .filter(|k| amq::Filter::contains(f, *k))
        .count();
    let measured = fp as f64 / probe.len() as f64;
    let model = amq::cuckoo::fpr(f.fingerprint_bits(), f.load_factor());
    eprintln!(
        "amq-f{}: load {:.4}, measured fpr {measured:.3e}, 1 − (1 − 2^−f)^(2bα) = {model:.3e}",
        f.fingerprint_bits(),
        f.load_factor()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
