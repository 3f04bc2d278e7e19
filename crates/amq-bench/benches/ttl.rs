//! TtlCuckooFilter against Quad9's `cuckoo-clock` at equal table memory and equal TTL
//! semantics, in a steady state of expiring entries.
//!
//! Both tables are 2¹⁸ buckets of 4 slots of 16 bits (2 MiB): a 12-bit fingerprint and a
//! 4-bit expiry field per slot. Time goes in ticks; every entry lives exactly 15 ticks:
//! * `amq`: `TtlCuckooFilter::new(2^18, 12, 4, 1, 0)`, `insert(key, now, 15)`: found while
//!   `now < t + 15`; the expired slots are taken back by inserts, and a sweep runs every
//!   2 ticks (4-bit stamps hold 16 ticks).
//! * `cuckoo-clock`: `builder(2^20).fingerprint_bits(12).bucket_size(4)`, `with_ttl(ttl 15,
//!   ttl_bits 4)`, its default SipHash `RandomState`, and `scan_and_update_ttl()` at the end of
//!   every tick (each scan counts every entry down, and clears it at 0): found for the 15
//!   ticks from its insert.
//!
//! The workload: every tick, R = 0.85 · 2²⁰ / 15 = 59,419 fresh keys are inserted, then the
//! tick ends. After 3 TTLs of warm-up, 0.85 of the slots are live. Benchmarks, per key:
//! * `insert`: the R inserts of one tick (the peer's scan is run, not timed);
//! * `expiring`: one whole tick, the R inserts and the expiry work (amq: the sweeps inside
//!   its inserts; the peer: its scan): the rate a cache sustains while it forgets;
//! * `lookup-hit`: keys inserted in the last tick, `lookup-miss`: keys never inserted; 1,024
//!   per iteration.
//!
//! A third subject, `amq-f28`, spends the memory the peer reports for itself (10 MiB: its
//! 2 MiB of slots and a mutex and a vector per bucket) on amq's slots instead: 2¹⁹ buckets
//! of 4 slots of 28 + 4 bits (8 MiB), the same workload at a live load of 0.42.
//!
//! Before the benchmarks, each filter's measured ε (10⁶ non-members) at the steady state is
//! printed on stderr with amq's formula at its live load, and the entries each lost.
//!
//! Run: `cargo bench -p amq-bench --bench ttl` (`-- --quick` for a short run).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use cuckoo_clock::config::{CuckooConfiguration, TtlConfig};
use std::hash::RandomState;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// log₂ of the buckets of both tables.
const LOG2_BUCKETS: u32 = 18;
/// The slots of both tables.
const SLOTS: u64 = 4 << LOG2_BUCKETS;
/// Ticks an entry lives.
const TTL: u64 = 15;
/// Inserts per tick: a live load of 0.85 at the steady state.
const PER_TICK: usize = (0.85 * SLOTS as f64 / TTL as f64) as usize;
/// Keys per timed iteration of the lookup benchmarks.
const CHUNK: usize = 1024;

/// A filter under test, behind one interface.
trait Subject {
    /// Inserts a key at tick `now` to live 15 ticks; `false` if an entry was lost or refused.
    fn insert(&mut self, key: u64, now: u64) -> bool;
    /// The end of a tick.
    fn end_tick(&mut self);
    fn contains(&self, key: &u64, now: u64) -> bool;
    /// Bytes of slots.
    fn table_bytes(&self) -> usize;
    /// Bytes in memory, as the filter reports them.
    fn memory(&self) -> usize;
}

struct Amq(amq::TtlCuckooFilter);

impl Subject for Amq {
    #[inline]
    fn insert(&mut self, key: u64, now: u64) -> bool {
        self.0.insert(&key, now, TTL).is_ok()
    }
    fn end_tick(&mut self) {}
    #[inline]
    fn contains(&self, key: &u64, now: u64) -> bool {
        self.0.contains(key, now)
    }
    fn table_bytes(&self) -> usize {
        self.0.size_bytes() as usize
    }
    fn memory(&self) -> usize {
        self.0.size_bytes() as usize
    }
}

struct Peer(cuckoo_clock::CuckooFilter<RandomState>);

impl Subject for Peer {
    #[inline]
    fn insert(&mut self, key: u64, _now: u64) -> bool {
        self.0.insert(&key).is_none()
    }
    fn end_tick(&mut self) {
        self.0.scan_and_update_ttl();
    }
    #[inline]
    fn contains(&self, key: &u64, _now: u64) -> bool {
        self.0.contains(key)
    }
    fn table_bytes(&self) -> usize {
        // its data blocks are the 12 + 4 bits rounded up to whole bytes: 2 per slot
        self.0.get_bucket_count() * self.0.get_configuration().bucket_size() * 2
    }
    fn memory(&self) -> usize {
        self.0.get_memory_usage()
    }
}

/// A filter in the steady state of the workload.
struct Run<S> {
    s: S,
    now: u64,
    keys: amq_bench::SplitMix,
    /// The keys of the last tick (live).
    last: Vec<u64>,
    lost: u64,
}

impl<S: Subject> Run<S> {
    fn new(s: S) -> Self {
        let mut run = Run {
            s,
            now: 1,
            keys: amq_bench::SplitMix(1),
            last: Vec::with_capacity(PER_TICK),
            lost: 0,
        };
        for _ in 0..3 * TTL {
            run.tick();
        }
        run
    }

    /// One tick: the time of its inserts and of its end.
    fn tick(&mut self) -> (Duration, Duration) {
        self.last.clear();
        let t = Instant::now();
        for _ in 0..PER_TICK {
            let k = self.keys.next_u64();
            self.lost += u64::from(!self.s.insert(k, self.now));
            self.last.push(k);
        }
        let inserts = t.elapsed();
        let t = Instant::now();
        self.s.end_tick();
        self.now += 1;
        (inserts, t.elapsed())
    }
}

fn report<S: Subject>(name: &str, run: &Run<S>, misses: &[u64], formula: Option<f64>) {
    let now = run.now;
    let fp = misses.iter().filter(|k| run.s.contains(k, now)).count();
    let found = run.last.iter().filter(|k| run.s.contains(k, now)).count();
    eprintln!(
        "{name:<13} table {:.2} MiB, in memory {:.2} MiB; measured fpr {:.3e} ({fp} of {}){}; \
         last tick's keys found {found}/{}; entries lost or refused {}",
        run.s.table_bytes() as f64 / (1 << 20) as f64,
        run.s.memory() as f64 / (1 << 20) as f64,
        fp as f64 / misses.len() as f64,
        misses.len(),
        formula.map_or(String::new(), |e| format!(
            ", 1 − (1 − 1/(2^f − 1))^(8α) = {e:.3e}"
        )),
        run.last.len(),
        run.lost,
    );
}

fn bench_subject<S: Subject>(c: &mut Criterion, name: &str, run: &mut Run<S>, misses: &[u64]) {
    let mut g = c.benchmark_group("ttl/2^20-slots");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(PER_TICK as u64));
    g.bench_function(BenchmarkId::new("insert", name), |b| {
        b.iter_custom(|iters| (0..iters).map(|_| run.tick().0).sum())
    });
    g.bench_function(BenchmarkId::new("expiring", name), |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| {
                    let (i, e) = run.tick();
                    i + e
                })
                .sum()
        })
    });
    g.throughput(Throughput::Elements(CHUNK as u64));
    let hits: Vec<u64> = run.last.clone();
    let now = run.now;
    for (what, queries) in [("lookup-hit", &hits[..]), ("lookup-miss", misses)] {
        let mut at = 0usize;
        g.bench_function(BenchmarkId::new(what, name), |b| {
            b.iter(|| {
                at = (at + CHUNK) % (queries.len() - CHUNK);
                let mut found = 0usize;
                for k in &queries[at..at + CHUNK] {
                    found += usize::from(run.s.contains(k, now));
                }
                black_box(found)
            })
        });
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let misses = amq_bench::SplitMix(2).take(1_000_000);
    let mut ours = Run::new(Amq(amq::TtlCuckooFilter::new(
        1 << LOG2_BUCKETS,
        12,
        4,
        1,
        0,
    )
    .expect("a valid shape")));
    let live = ours.s.0.entries_at(ours.now).0;
    report("amq", &ours, &misses, Some(ours.s.0.expected_fpr(live)));
    let config = CuckooConfiguration::builder(SLOTS as usize)
        .fingerprint_bits(12.try_into().expect("12 bits"))
        .bucket_size(4.try_into().expect("4 slots"))
        .with_ttl(TtlConfig {
            ttl: (TTL as u32).try_into().expect("15 ticks"),
            ttl_bits: 4.try_into().expect("4 bits"),
        })
        .build()
        .expect("a valid configuration");
    let mut peer = Run::new(Peer(cuckoo_clock::CuckooFilter::new_random(config)));
    report("cuckoo-clock", &peer, &misses, None);
    eprintln!(
        "live entries: amq {live}, cuckoo-clock {} (of {SLOTS} slots)",
        peer.s.0.get_item_count()
    );
    let mut wide = Run::new(Amq(amq::TtlCuckooFilter::new(
        2 << LOG2_BUCKETS,
        28,
        4,
        1,
        0,
    )
    .expect("a valid shape")));
    let wide_live = wide.s.0.entries_at(wide.now).0;
    report(
        "amq-f28",
        &wide,
        &misses,
        Some(wide.s.0.expected_fpr(wide_live)),
    );
    bench_subject(c, "amq", &mut ours, &misses);
    bench_subject(c, "cuckoo-clock", &mut peer, &misses);
    bench_subject(c, "amq-f28", &mut wide, &misses);
}

criterion_group!(benches, bench);
criterion_main!(benches);
