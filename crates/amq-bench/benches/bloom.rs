//! Bloom filters against the peer crates, at n = 10^6 and 10^7 items and ε = 1%.
//!
//! Run: `cargo bench -p amq-bench --bench bloom` (about 4 minutes on 2 cores;
//! `AMQ_BLOOM_N=1e6` or `1e7` runs one size only). Results and the goals they are checked
//! against: BENCHMARKS.md, section "bloom".
//!
//! Items are distinct u64 keys (a bijective mix of a counter), hashed as their 8
//! little-endian bytes. Every filter gets the same items:
//!
//! * `amq-bloom`, `amq-blocked`: ours, XXH3-128 with a seed (`Insert::insert`/`Filter::contains`);
//! * `fastbloom-sip`: fastbloom with its default hasher (SipHash-1-3), `insert`/`contains`;
//! * `fastbloom-xxh3`: fastbloom given one-shot XXH3-64 with a seed, `insert_hash`/
//!   `contains_hash` (xxhash-rust's `Xxh3Builder` would derive a 192-byte secret from the seed
//!   on every hash, far slower: the one-shot hash is the fast seeded hasher a user would pick);
//! * `bloomfilter`: its only hashing (two SipHash-1-3);
//! * `sbbf-rs-safe`: split block Bloom filter (Parquet), one-shot XXH3-64 with a seed;
//! * `xorf-bfuse8`: BinaryFuse8 over XXH3-64 hashes of the items, the static reference.
//!
//! The classic peers get our classic filter's m and k (bloomfilter picks its own k for that
//! m), and sbbf-rs-safe gets exactly our blocked filter's bytes, so each comparison is at equal
//! bits per key. Measured ε and bits per key are computed once, untimed, and printed.
//!
//! Queries: a fixed set of 2^16 members drawn at random (positive) and 2^16 non-members
//! (negative), so successive queries touch unrelated cache lines as in real use.

use amq::{BlockedBloomFilter, BloomFilter, Filter, Insert};
use amq_bench::mix;
use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use std::hint::black_box;
use std::time::Duration;
use xorf::Filter as _;
use xxhash_rust::xxh3::xxh3_64_with_seed;

const SEED: u64 = 0x0123_4567_89ab_cdef;
const FPR: f64 = 0.01;
/// Queries per timed iteration.
const QUERIES: usize = 1 << 16;
/// Non-members probed (untimed) for the measured ε.
const PROBES: u64 = 10_000_000;

/// Member i is `mix(i)` for i < n; non-member j is `mix(n + j)`.
fn member(i: u64) -> u64 {
    mix(i)
}
fn non_member(n: u64, j: u64) -> u64 {
    mix(n + j)
}

/// The seeded one-shot XXH3-64 the peers that take a u64 hash get.
#[inline(always)]
fn xxh64(key: &u64) -> u64 {
    xxh3_64_with_seed(&key.to_le_bytes(), SEED)
}

struct Data {
    n: u64,
    keys: Vec<u64>,
    pos: Vec<u64>,
    neg: Vec<u64>,
}

impl Data {
    fn new(n: u64) -> Self {
        let keys: Vec<u64> = (0..n).map(member).collect();
        // positive queries: members at random positions (an index stream from mix, reduced)
        let pos = (0..QUERIES as u64)
            .map(|q| keys[amq::hash::reduce(mix(q ^ 0xabcd), n) as usize])
            .collect();
        let neg = (0..QUERIES as u64).map(|j| non_member(n, j)).collect();
        Data { n, keys, pos, neg }
    }
}

/// Build functions: the timed builds and the one built filter of each kind come from these.
fn build_bloom(d: &Data) -> BloomFilter {
    let mut f = BloomFilter::with_fpr(d.n, FPR, SEED).expect("valid size");
    for k in &d.keys {
        f.insert(k).expect("a Bloom filter is never full");
    }
    f
}
fn build_blocked(d: &Data) -> BlockedBloomFilter {
    let mut f = BlockedBloomFilter::with_fpr(d.n, FPR, SEED).expect("valid size");
    for k in &d.keys {
        f.insert(k).expect("a Bloom filter is never full");
    }
    f
}
fn build_fastbloom_sip(d: &Data, m: u64, k: u32) -> fastbloom::BloomFilter {
    let mut f = fastbloom::BloomFilter::with_num_bits(m as usize)
        .seed(&u128::from(SEED))
        .hashes(k);
    for key in &d.keys {
        f.insert(key);
    }
    f
}
fn build_fastbloom_xxh3(d: &Data, m: u64, k: u32) -> fastbloom::BloomFilter {
    let mut f = fastbloom::BloomFilter::with_num_bits(m as usize).hashes(k);
    for key in &d.keys {
        f.insert_hash(xxh64(key));
    }
    f
}
fn build_bloomfilter(d: &Data, m: u64) -> bloomfilter::Bloom<u64> {
    let seed = [0x5a; 32];
    let mut f = bloomfilter::Bloom::new_with_seed(m.div_ceil(8) as usize, d.n as usize, &seed)
        .expect("valid size");
    for key in &d.keys {
        f.set(key);
    }
    f
}
fn build_sbbf(d: &Data, bytes: u64) -> sbbf_rs_safe::Filter {
    let mut f =
        sbbf_rs_safe::Filter::from_bytes(&vec![0u8; bytes as usize]).expect("whole buckets");
    for key in &d.keys {
        f.insert_hash(xxh64(key));
    }
    f
}
fn build_bfuse8(d: &Data) -> xorf::BinaryFuse8 {
    let hashes: Vec<u64> = d.keys.iter().map(xxh64).collect();
    xorf::BinaryFuse8::try_from(&hashes).expect("distinct keys")
}

/// Every filter, built once from the same items and reused by the query benchmarks.
struct Filters {
    bloom: BloomFilter,
    blocked: BlockedBloomFilter,
    fb_sip: fastbloom::BloomFilter,
    fb_xxh3: fastbloom::BloomFilter,
    bloomfilter: bloomfilter::Bloom<u64>,
    sbbf: sbbf_rs_safe::Filter,
    bfuse8: xorf::BinaryFuse8,
}

impl Filters {
    fn build(d: &Data) -> Self {
        let bloom = build_bloom(d);
        let blocked = build_blocked(d);
        let (m, k) = (bloom.m(), bloom.k());
        Filters {
            fb_sip: build_fastbloom_sip(d, m, k),
            fb_xxh3: build_fastbloom_xxh3(d, m, k),
            bloomfilter: build_bloomfilter(d, m),
            sbbf: build_sbbf(d, blocked.size_bytes()),
            bfuse8: build_bfuse8(d),
            bloom,
            blocked,
        }
    }

    /// (name, bits of memory, query) for each filter.
    #[allow(clippy::type_complexity)]
    fn each(&self) -> Vec<(&'static str, u64, Box<dyn Fn(&u64) -> bool + '_>)> {
        vec![
            (
                "amq-bloom",
                self.bloom.size_bytes() * 8,
                Box::new(|q| self.bloom.contains(q)),
            ),
            (
                "amq-blocked",
                self.blocked.m(),
                Box::new(|q| self.blocked.contains(q)),
            ),
            (
                "fastbloom-sip",
                self.fb_sip.num_bits() as u64,
                Box::new(|q| self.fb_sip.contains(q)),
            ),
            (
                "fastbloom-xxh3",
                self.fb_xxh3.num_bits() as u64,
                Box::new(|q| self.fb_xxh3.contains_hash(xxh64(q))),
            ),
            (
                "bloomfilter",
                self.bloomfilter.len(),
                Box::new(|q| self.bloomfilter.check(q)),
            ),
            (
                "sbbf-rs-safe",
                self.sbbf.as_bytes().len() as u64 * 8,
                Box::new(|q| self.sbbf.contains_hash(xxh64(q))),
            ),
            (
                "xorf-bfuse8",
                self.bfuse8.fingerprints.len() as u64 * 8,
                Box::new(|q| self.bfuse8.contains(&xxh64(q))),
            ),
        ]
    }

    /// Prints, per filter, bits per key and ε measured over [`PROBES`] non-members
    /// (and checks there are no false negatives on the positive query set).
    fn report(&self, d: &Data) {
        println!(
            "bloom n={} shape: amq-bloom m={} k={}; amq-blocked m={} k={}; bloomfilter k={}",
            d.n,
            self.bloom.m(),
            self.bloom.k(),
            self.blocked.m(),
            self.blocked.k(),
            self.bloomfilter.number_of_hash_functions()
        );
        for (name, bits, q) in self.each() {
            assert!(d.pos.iter().all(&q), "{name}: false negative");
            let fp = (0..PROBES).filter(|&j| q(&non_member(d.n, j))).count();
            println!(
                "bloom n={} {name}: bits/key {:.3}, measured fpr {:.5} ({fp} of {PROBES})",
                d.n,
                bits as f64 / d.n as f64,
                fp as f64 / PROBES as f64,
            );
        }
    }
}

/// Answers every query of a set; the timed body of the query benchmarks.
#[inline(always)]
fn count(queries: &[u64], query: impl Fn(&u64) -> bool) -> usize {
    queries.iter().filter(|q| query(q)).count()
}

// One query loop per filter, each compiled on its own (not inlined into the benchmark
// closures), so that every filter's loop gets the same treatment from the optimiser.
#[inline(never)]
fn q_amq_bloom(f: &BloomFilter, qs: &[u64]) -> usize {
    count(qs, |q| f.contains(q))
}
#[inline(never)]
fn q_amq_blocked(f: &BlockedBloomFilter, qs: &[u64]) -> usize {
    count(qs, |q| f.contains(q))
}
#[inline(never)]
fn q_fastbloom_sip(f: &fastbloom::BloomFilter, qs: &[u64]) -> usize {
    count(qs, |q| f.contains(q))
}
#[inline(never)]
fn q_fastbloom_xxh3(f: &fastbloom::BloomFilter, qs: &[u64]) -> usize {
    count(qs, |q| f.contains_hash(xxh64(q)))
}
#[inline(never)]
fn q_bloomfilter(f: &bloomfilter::Bloom<u64>, qs: &[u64]) -> usize {
    count(qs, |q| f.check(q))
}
#[inline(never)]
fn q_sbbf(f: &sbbf_rs_safe::Filter, qs: &[u64]) -> usize {
    count(qs, |q| f.contains_hash(xxh64(q)))
}
#[inline(never)]
fn q_bfuse8(f: &xorf::BinaryFuse8, qs: &[u64]) -> usize {
    count(qs, |q| f.contains(&xxh64(q)))
}

fn bench_n(c: &mut Criterion, n: u64, label: &str) {
    let d = Data::new(n);
    let f = Filters::build(&d);
    f.report(&d);
    let (m, k) = (f.bloom.m(), f.bloom.k());
    let sbbf_bytes = f.blocked.size_bytes();

    // ---- build: allocate, insert (hash included) every item ---------------------------------
    let mut g = c.benchmark_group(format!("bloom/{label}/build"));
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Elements(n))
        .warm_up_time(Duration::from_millis(if n > 1_000_000 { 100 } else { 500 }))
        .measurement_time(Duration::from_secs(if n > 1_000_000 { 6 } else { 2 }));
    g.bench_function("amq-bloom", |b| b.iter_with_large_drop(|| build_bloom(&d)));
    g.bench_function("amq-blocked", |b| {
        b.iter_with_large_drop(|| build_blocked(&d))
    });
    g.bench_function("fastbloom-sip", |b| {
        b.iter_with_large_drop(|| build_fastbloom_sip(&d, m, k))
    });
    g.bench_function("fastbloom-xxh3", |b| {
        b.iter_with_large_drop(|| build_fastbloom_xxh3(&d, m, k))
    });
    g.bench_function("bloomfilter", |b| {
        b.iter_with_large_drop(|| build_bloomfilter(&d, m))
    });
    g.bench_function("sbbf-rs-safe", |b| {
        b.iter_with_large_drop(|| build_sbbf(&d, sbbf_bytes))
    });
    g.bench_function("xorf-bfuse8", |b| {
        b.iter_with_large_drop(|| build_bfuse8(&d))
    });
    g.finish();

    // ---- single queries, hash included --------------------------------------------------------
    for (kind, queries) in [("pos", &d.pos), ("neg", &d.neg)] {
        let mut g = c.benchmark_group(format!("bloom/{label}/{kind}"));
        g.sample_size(10)
            .throughput(Throughput::Elements(QUERIES as u64))
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_millis(1500));
        let bench =
            |g: &mut criterion::BenchmarkGroup<'_, _>, name: &str, run: &dyn Fn() -> usize| {
                g.bench_function(name, |b| b.iter(run));
            };
        bench(&mut g, "amq-bloom", &|| {
            q_amq_bloom(&f.bloom, black_box(queries))
        });
        bench(&mut g, "amq-blocked", &|| {
            q_amq_blocked(&f.blocked, black_box(queries))
        });
        bench(&mut g, "fastbloom-sip", &|| {
            q_fastbloom_sip(&f.fb_sip, black_box(queries))
        });
        bench(&mut g, "fastbloom-xxh3", &|| {
            q_fastbloom_xxh3(&f.fb_xxh3, black_box(queries))
        });
        bench(&mut g, "bloomfilter", &|| {
            q_bloomfilter(&f.bloomfilter, black_box(queries))
        });
        bench(&mut g, "sbbf-rs-safe", &|| {
            q_sbbf(&f.sbbf, black_box(queries))
        });
        bench(&mut g, "xorf-bfuse8", &|| {
            q_bfuse8(&f.bfuse8, black_box(queries))
        });
        g.finish();
    }

    // ---- batched against single queries (both prefetch) ---------------------------------------
    let mut out = vec![false; QUERIES];
    for (kind, queries) in [("pos", &d.pos), ("neg", &d.neg)] {
        let refs: Vec<&u64> = queries.iter().collect();
        let hashes: Vec<u128> = queries.iter().map(|q| f.blocked.hash(q)).collect();
        let mut g = c.benchmark_group(format!("bloom/{label}/batch-{kind}"));
        g.sample_size(10)
            .throughput(Throughput::Elements(QUERIES as u64))
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_millis(1500));
        g.bench_function(BenchmarkId::new("amq-blocked", "contains_batch"), |b| {
            b.iter(|| {
                f.blocked.contains_batch(black_box(&refs), &mut out);
                out.iter().filter(|&&x| x).count()
            })
        });
        g.bench_function(BenchmarkId::new("amq-blocked", "contains_hash"), |b| {
            b.iter(|| {
                black_box(&hashes)
                    .iter()
                    .filter(|&&h| f.blocked.contains_hash(h))
                    .count()
            })
        });
        g.bench_function(
            BenchmarkId::new("amq-blocked", "contains_hash_batch"),
            |b| {
                b.iter(|| {
                    f.blocked.contains_hash_batch(black_box(&hashes), &mut out);
                    out.iter().filter(|&&x| x).count()
                })
            },
        );
        g.bench_function(BenchmarkId::new("amq-bloom", "contains_batch"), |b| {
            b.iter(|| {
                f.bloom.contains_batch(black_box(&refs), &mut out);
                out.iter().filter(|&&x| x).count()
            })
        });
        g.finish();
    }
}

/// Both sizes; `AMQ_BLOOM_N=1e6` (or `1e7`) runs only one, for a quicker look.
fn bloom(c: &mut Criterion) {
    let only = std::env::var("AMQ_BLOOM_N").ok();
    for (n, label) in [(1_000_000, "1e6"), (10_000_000, "1e7")] {
        if only.as_deref().is_none_or(|o| o == label) {
            bench_n(c, n, label);
        }
    }
}

criterion_group!(benches, bloom);
criterion_main!(benches);
