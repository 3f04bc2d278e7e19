//! CuckooFilter against the `cuckoofilter` and `qfilter` crates at n = 10⁷, in one run.
//!
//! Filters (each holds the same 10⁷ random `u64` keys):
//! * `amq-f12`: [`amq::CuckooFilter`] with 12-bit fingerprints, sized for n at load 0.95.
//! * `amq-f16`: the same with 16-bit fingerprints.
//! * `cuckoofilter`: `cuckoofilter::CuckooFilter::with_capacity(n)` with its default hasher
//!   (8-bit fingerprints, a power-of-two bucket count).
//! * `qfilter-r6`, `qfilter-r8`: `qfilter::Filter::new(n, 2⁻⁶ or 2⁻⁸)`, its default hasher
//!   (6- or 8-bit remainders, 2.125 bits of metadata per slot, a power-of-two slot count).
//!
//! Benchmarks, each over 1,024 keys per iteration walked through 2²⁰ keys:
//! * `lookup-hit`: members, `lookup-miss`: non-members;
//! * `lookup-batch` (amq only): the misses through `contains_batch`, which prefetches the
//!   buckets of the key 16 ahead;
//! * `delete`: 2¹⁷ members removed from a fresh clone of the full filter (the clone is not
//!   timed).
//!
//! Before the benchmarks, each filter's measured ε (10⁶ non-members) and bits per key are
//! printed on stderr: the comparisons are "at lower ε" (amq-f12 against cuckoofilter) and
//! "at equal bits per key" (amq-f16 against qfilter-r8, amq-f12 against qfilter-r6).
//!
//! Run: `cargo bench -p amq-bench --bench cuckoo`.

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// n, the keys each filter holds.
const N: u64 = 10_000_000;
/// Keys per timed iteration of the lookup benchmarks.
const CHUNK: usize = 1024;
/// Members removed per timed iteration of the delete benchmark.
const DELETES: usize = 1 << 17;

/// SplitMix64 keys: `count` distinct-looking random u64s from `seed`.
fn keys(seed: u64, count: usize) -> Vec<u64> {
    amq_bench::SplitMix(seed).take(count)
}

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

fn report<S: Subject>(name: &str, f: &S, build: Duration, misses: &[u64]) {
    let t = Instant::now();
    let fp = misses.iter().filter(|k| f.contains(k)).count();
    let per = t.elapsed().as_nanos() as f64 / misses.len() as f64;
    eprintln!(
        "{name:<13} bits/key {:>6.2}  measured fpr {:.3e} ({fp} of {})  build {:.2} s  \
         (one pass of misses: {per:.1} ns/lookup)",
        f.bytes() as f64 * 8.0 / N as f64,
        fp as f64 / misses.len() as f64,
        misses.len(),
        build.as_secs_f64(),
    );
}

fn bench_subject<S: Subject>(c: &mut Criterion, name: &str, f: &S, hits: &[u64], misses: &[u64]) {
    let mut g = c.benchmark_group("cuckoo/1e7");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(CHUNK as u64));
    for (what, queries) in [("lookup-hit", hits), ("lookup-miss", misses)] {
        let mut at = 0usize;
        g.bench_function(BenchmarkId::new(what, name), |b| {
            b.iter(|| {
                at = (at + CHUNK) % queries.len();
                let mut found = 0usize;
                for k in &queries[at..at + CHUNK] {
                    found += usize::from(f.contains(k));
                }
                black_box(found)
            })
        });
    }
    g.throughput(Throughput::Elements(DELETES as u64));
    g.measurement_time(Duration::from_secs(4));
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

fn build_and_bench<S: Subject>(
    c: &mut Criterion,
    name: &str,
    members: &[u64],
    hits: &[u64],
    misses: &[u64],
    build: impl FnOnce(&[u64]) -> S,
) -> S {
    let t = Instant::now();
    let f = build(members);
    report(name, &f, t.elapsed(), misses);
    bench_subject(c, name, &f, hits, misses);
    f
}

/// `contains_batch` over the misses, 1,024 keys per call.
fn bench_batch(c: &mut Criterion, name: &str, f: &amq::CuckooFilter, misses: &[u64]) {
    let mut g = c.benchmark_group("cuckoo/1e7");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(CHUNK as u64));
    let refs: Vec<&u64> = misses.iter().collect();
    let mut out = vec![false; CHUNK];
    let mut at = 0usize;
    g.bench_function(BenchmarkId::new("lookup-batch", name), |b| {
        b.iter(|| {
            at = (at + CHUNK) % refs.len();
            amq::Filter::contains_batch(f, &refs[at..at + CHUNK], &mut out);
            black_box(out.iter().filter(|&&x| x).count())
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    let members = keys(1, N as usize);
    // 2^20 members in another order, and 2^20 non-members (a different SplitMix64 stream)
    let hits: Vec<u64> = members
        .iter()
        .rev()
        .step_by(7)
        .take(1 << 20)
        .copied()
        .collect();
    let misses = keys(2, 1_000_000 + (1 << 20));
    let (fpr_probe, misses) = misses.split_at(1_000_000);

    for f in [12u32, 16] {
        let name = format!("amq-f{f}");
        let filter = build_and_bench(c, &name, &members, &hits, misses, |keys| {
            let mut filter = amq::CuckooFilter::with_capacity(N, f, 0).unwrap();
            for k in keys {
                amq::Insert::insert(&mut filter, k).unwrap();
            }
            report_fpr_against_formula(&filter, fpr_probe);
            filter
        });
        bench_batch(c, &name, &filter, misses);
    }
    build_and_bench(c, "cuckoofilter", &members, &hits, misses, |keys| {
        let mut filter = cuckoofilter::CuckooFilter::with_capacity(N as usize);
        for k in keys {
            filter.add(k).unwrap();
        }
        Cf(filter)
    });
    for r in [6i32, 8] {
        build_and_bench(
            c,
            &format!("qfilter-r{r}"),
            &members,
            &hits,
            misses,
            |keys| {
                let mut filter = qfilter::Filter::new(N, 2f64.powi(-r)).unwrap();
                for k in keys {
                    filter.insert_duplicated(k).unwrap();
                }
                filter
            },
        );
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
