//! Golomb-coded sets against rust-bitcoin's BIP158 implementation, at N = 10^5.
//!
//! Run: `cargo bench -p amq-bench --bench gcs` (about 2 minutes on 2 cores). Results and the
//! goals they are checked against: BENCHMARKS.md, section "gcs". Peak build memory:
//! `cargo bench -p amq-bench --bench gcs_memory`; the spec's Python:
//! `crates/amq-bench/python/nut23_build.py`.
//!
//! Items: 10^5 distinct 33-byte strings (the size of a Cashu `Y`), from a seeded mix.
//!
//! * `build`: the whole build from items to wire bytes.
//!   - `amq-cashu`: `CashuFilter::build`, MurmurHash3 x64_128 (duplicates kept, no dedup);
//!   - `amq-bip158`: `BlockFilter::build`, SipHash-2-4 keyed by a block hash, elements
//!     deduplicated, CompactSize prefix;
//!   - `rust-bitcoin`: `GcsFilterWriter` with the same key, P, M and elements (it dedups in a
//!     `BTreeSet<Vec<u8>>`); its output is checked equal to `amq-bip158`'s, untimed.
//! * `match_any_100`: 100 non-member scripts against the 10^5-element BIP158 filter (each
//!   call hashes, sorts and merges the targets against one decoding pass, which stops after the
//!   largest target, i.e. near the end): ours vs `BlockFilter::match_any`.
//! * `decode`: a full streaming decode of the 10^5 Golomb-Rice deltas (throughput = deltas).
//! * `lookup`: one member lookup through the sampled index (s = 8) vs a full streaming decode
//!   and vs a streaming lookup (which stops at the value: half the stream on average).

use amq::formats::bip158::{self, BlockFilter};
use amq::formats::cashu::{CashuFilter, CashuHash};
use amq::gcs::SampledIndex;
use amq_bench::mix;
use bitcoin::hashes::Hash as _;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

const N: u64 = 100_000;
const BLOCK_HASH: [u8; 32] = [
    0x43, 0x49, 0x7f, 0xd7, 0xf8, 0x26, 0x95, 0x71, 0x08, 0xf4, 0xa3, 0x0f, 0xd9, 0xce, 0xc3, 0xae,
    0xba, 0x79, 0x97, 0x20, 0x84, 0xe9, 0x0e, 0xad, 0x01, 0xea, 0x33, 0x09, 0x00, 0x00, 0x00, 0x00,
];

/// Item i: 0x02, then four 8-byte words of the mix of i (33 bytes, distinct for distinct i).
fn item(i: u64) -> Vec<u8> {
    let mut y = vec![0x02];
    for w in 0..4 {
        y.extend_from_slice(&mix(i * 4 + w).to_le_bytes());
    }
    y
}

fn items(from: u64, count: u64) -> Vec<Vec<u8>> {
    (from..from + count).map(item).collect()
}

fn siphash_keys() -> (u64, u64) {
    let k0 = u64::from_le_bytes(BLOCK_HASH[0..8].try_into().unwrap());
    let k1 = u64::from_le_bytes(BLOCK_HASH[8..16].try_into().unwrap());
    (k0, k1)
}

fn rust_bitcoin_build(elements: &[Vec<u8>]) -> Vec<u8> {
    let (k0, k1) = siphash_keys();
    let mut out = Vec::new();
    let mut w = bitcoin::bip158::GcsFilterWriter::new(&mut out, k0, k1, bip158::M, bip158::P);
    for e in elements {
        w.add_element(e);
    }
    w.finish().unwrap();
    out
}

fn config<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    g
}

fn build(c: &mut Criterion) {
    let elements = items(0, N);
    // the same bytes as rust-bitcoin, checked once
    let ours = BlockFilter::build(&BLOCK_HASH, &elements).unwrap();
    assert_eq!(ours.as_bytes(), &rust_bitcoin_build(&elements)[..]);

    let mut g = config(c, "gcs_build");
    g.throughput(Throughput::Elements(N));
    g.bench_function(BenchmarkId::new("amq-cashu", N), |b| {
        b.iter(|| {
            CashuFilter::build(black_box(&elements), CashuHash::default(), 19, 784_931).unwrap()
        })
    });
    g.bench_function(BenchmarkId::new("amq-bip158", N), |b| {
        b.iter(|| BlockFilter::build(black_box(&BLOCK_HASH), black_box(&elements)).unwrap())
    });
    g.bench_function(BenchmarkId::new("rust-bitcoin", N), |b| {
        b.iter(|| rust_bitcoin_build(black_box(&elements)))
    });
    g.finish();
}

fn match_any(c: &mut Criterion) {
    let elements = items(0, N);
    let filter = BlockFilter::build(&BLOCK_HASH, &elements).unwrap();
    let peer = bitcoin::bip158::BlockFilter::new(filter.as_bytes());
    let peer_hash = bitcoin::BlockHash::from_byte_array(BLOCK_HASH);
    let targets = items(N, 100);
    assert!(!filter.match_any(&targets).unwrap());
    assert!(!peer
        .match_any(&peer_hash, targets.iter().map(Vec::as_slice))
        .unwrap());
    assert!(filter.match_any([&elements[77]]).unwrap());

    let mut g = config(c, "gcs_match_any_100");
    g.bench_function(BenchmarkId::new("amq", N), |b| {
        b.iter(|| filter.match_any(black_box(&targets)).unwrap())
    });
    g.bench_function(BenchmarkId::new("rust-bitcoin", N), |b| {
        b.iter(|| {
            peer.match_any(black_box(&peer_hash), targets.iter().map(Vec::as_slice))
                .unwrap()
        })
    });
    g.finish();
}

fn decode_and_lookup(c: &mut Criterion) {
    let elements = items(0, N);
    let filter = BlockFilter::build(&BLOCK_HASH, &elements).unwrap();
    let gcs = filter.gcs();
    let index = SampledIndex::build(&gcs, SampledIndex::DEFAULT_LOG2_STEP).unwrap();
    println!(
        "gcs: filter {} bytes ({:.3} bits/element), index {} bytes = {:.2}% of the filter",
        filter.as_bytes().len(),
        gcs.as_bytes().len() as f64 * 8.0 / N as f64,
        index.size_bytes(),
        index.size_bytes() as f64 * 100.0 / filter.as_bytes().len() as f64
    );
    let hasher = filter.hasher();
    // 1024 member values, probed round-robin
    let probes: Vec<u64> = (0..1024u64)
        .map(|i| gcs.map_item(&elements[mix(i) as usize % elements.len()], &hasher))
        .collect();

    let mut g = config(c, "gcs_decode");
    g.throughput(Throughput::Elements(N));
    g.bench_function(BenchmarkId::new("full-stream", N), |b| {
        b.iter(|| {
            let mut it = black_box(&gcs).values();
            let mut last = 0;
            while let Some(v) = it.next_value().unwrap() {
                last = v;
            }
            last
        })
    });
    g.finish();

    let mut g = config(c, "gcs_lookup");
    let mut i = 0;
    g.bench_function(BenchmarkId::new("sampled-index", N), |b| {
        b.iter(|| {
            i = (i + 1) & 1023;
            index.contains_value(&gcs, black_box(probes[i])).unwrap()
        })
    });
    g.bench_function(BenchmarkId::new("stream-to-value", N), |b| {
        b.iter(|| {
            i = (i + 1) & 1023;
            gcs.contains_value(black_box(probes[i])).unwrap()
        })
    });
    g.bench_function(BenchmarkId::new("full-stream", N), |b| {
        // a value past every element: the whole stream is decoded
        b.iter(|| gcs.contains_value(black_box(gcs.f() - 1)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, build, match_any, decode_and_lookup);
criterion_main!(benches);
