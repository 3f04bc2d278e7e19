//! Ethereum logsBloom against alloy-primitives: scanning 10^6 blooms for one address, the
//! bit-sliced `LogsBloomIndex`, and the cost of accruing a log.
//!
//! Run: `cargo bench -p amq-bench --bench eth` (about 2 minutes on 2 cores; it needs about
//! 1 GB of memory). Results and the goals they are checked against: BENCHMARKS.md, section
//! "eth".
//!
//! Data: 10^6 block-like blooms. Bloom j holds n_j inputs with n_j uniform in 0..=600
//! (mean 300, so on average 1 − e^(−900/2048) ≈ 36% of the 2048 bits are set); each input is
//! a uniformly random 32-byte value accrued as a precomputed hash, which is what a Keccak-256
//! output looks like (this keeps the setup to a second instead of 3·10^8 Keccak calls). The
//! queried address is accrued into every 1000th bloom, so there are about 10^3 true hits plus
//! the false positives of the fill. The same 256-byte blooms are copied into alloy's `Bloom`.
//!
//! * `scan/amq`: `InputBits::from_input(address)` (one Keccak-256), then
//!   `amq::formats::eth::scan` over the 10^6 blooms, counting candidates;
//! * `scan/alloy-prehashed`: `keccak256(address)` once, then `Bloom::contains_input(
//!   BloomInput::Hash(h))` per bloom;
//! * `scan/alloy-raw`: `Bloom::contains_input(BloomInput::Raw(address))` per bloom (it hashes
//!   the address again for every bloom);
//! * `index/amq-index`: `LogsBloomIndex::candidates` over the same 10^6 blocks (3 rows of
//!   15,625 words), counting candidates; `index/alloy-prehashed` is the scan above again, in
//!   the same group for the ratio;
//! * `accrue_log/*`: 256 different logs of an address and 3 topics each, accrued into one
//!   bloom: `LogsBloom::accrue_log`; the 4 bare Keccak-256 hashes per log it needs
//!   (`amq::formats::eth::keccak256`, i.e. the `sha3` crate, two bytes of each folded so the
//!   work is not optimised away); and alloy's `Bloom::accrue_raw_log`.

use alloy_primitives::{Address, Bloom, BloomInput, B256};
use amq::formats::eth::{keccak256, scan, InputBits, LogsBloom, LogsBloomIndex};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

const BLOOMS: usize = 1_000_000;
const MAX_INPUTS: u64 = 600;
const ADDRESS: [u8; 20] = [
    0xb1, 0x91, 0x7d, 0x66, 0x9e, 0x2a, 0x93, 0x07, 0xd3, 0x42, 0xd0, 0x4a, 0xb7, 0x4e, 0x68, 0xea,
    0x94, 0xc4, 0xd1, 0x1c,
];

fn blooms() -> Vec<LogsBloom> {
    let mut rng = amq_bench::SplitMix(0xe7_b100);
    let address_hash = keccak256(&ADDRESS);
    (0..BLOOMS)
        .map(|j| {
            let mut b = LogsBloom::new();
            for _ in 0..rng.next_u64() % (MAX_INPUTS + 1) {
                b.accrue_hash(&rng.hash32());
            }
            if j % 1000 == 0 {
                b.accrue_hash(&address_hash);
            }
            b
        })
        .collect()
}

fn bench_scan(c: &mut Criterion) {
    let ours = blooms();
    let theirs: Vec<Bloom> = ours.iter().map(|b| Bloom::from(b.to_bytes())).collect();
    let fill: f64 = ours.iter().map(|b| b.fill_ratio()).sum::<f64>() / BLOOMS as f64;
    let mut index = LogsBloomIndex::with_capacity(0, BLOOMS as u64).unwrap();
    for b in &ours {
        index.push(b).unwrap();
    }

    // the answers agree before anything is timed
    let bits = InputBits::from_input(&ADDRESS);
    let want = scan(&ours, &[bits]).count();
    let hash = alloy_primitives::keccak256(ADDRESS);
    let alloy_count = theirs
        .iter()
        .filter(|b| b.contains_input(BloomInput::Hash(hash)))
        .count();
    assert_eq!(want, alloy_count);
    assert_eq!(index.candidates(&[bits]).count(), want);
    eprintln!(
        "eth: {BLOOMS} blooms, mean fill {:.1}%, {want} candidates for the address \
         ({} planted)",
        fill * 100.0,
        BLOOMS / 1000
    );

    let mut g = c.benchmark_group("eth/scan");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(BLOOMS as u64));
    g.bench_function("amq", |b| {
        b.iter(|| {
            let bits = InputBits::from_input(black_box(&ADDRESS));
            scan(black_box(&ours), &[bits]).count()
        })
    });
    g.bench_function("alloy-prehashed", |b| {
        b.iter(|| {
            let h = alloy_primitives::keccak256(black_box(ADDRESS));
            black_box(&theirs)
                .iter()
                .filter(|bloom| bloom.contains_input(BloomInput::Hash(h)))
                .count()
        })
    });
    g.bench_function("alloy-raw", |b| {
        b.iter(|| {
            let address = black_box(&ADDRESS[..]);
            black_box(&theirs)
                .iter()
                .filter(|bloom| bloom.contains_input(BloomInput::Raw(address)))
                .count()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("eth/index");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(BLOOMS as u64));
    g.bench_function("amq-index", |b| {
        b.iter(|| {
            let bits = InputBits::from_input(black_box(&ADDRESS));
            black_box(&index).candidates(&[bits]).count()
        })
    });
    g.bench_function("alloy-prehashed", |b| {
        b.iter(|| {
            let h = alloy_primitives::keccak256(black_box(ADDRESS));
            black_box(&theirs)
                .iter()
                .filter(|bloom| bloom.contains_input(BloomInput::Hash(h)))
                .count()
        })
    });
    g.finish();
}

/// Logs per timed iteration of `accrue_log`.
const LOGS: usize = 256;

fn bench_accrue(c: &mut Criterion) {
    // LOGS logs of an address and 3 topics each, all different
    let mut rng = amq_bench::SplitMix(7);
    let logs: Vec<([u8; 20], [[u8; 32]; 3])> = (0..LOGS)
        .map(|_| {
            let address: [u8; 20] = rng.hash32()[..20].try_into().unwrap();
            (address, [rng.hash32(), rng.hash32(), rng.hash32()])
        })
        .collect();
    let alloy_logs: Vec<(Address, [B256; 3])> = logs
        .iter()
        .map(|(a, t)| (Address::from(*a), t.map(B256::from)))
        .collect();
    let mut g = c.benchmark_group("eth/accrue_log");
    g.sample_size(50)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6))
        .throughput(Throughput::Elements(LOGS as u64));
    g.bench_function("amq-accrue_log", |b| {
        b.iter(|| {
            let mut bloom = LogsBloom::new();
            for (address, topics) in black_box(&logs) {
                bloom.accrue_log(address, topics);
            }
            bloom
        })
    });
    g.bench_function("bare-keccak256-x4", |b| {
        b.iter(|| {
            let mut fold = [0u8; 32];
            for (address, topics) in black_box(&logs) {
                let hashes = [
                    keccak256(address),
                    keccak256(&topics[0]),
                    keccak256(&topics[1]),
                    keccak256(&topics[2]),
                ];
                for h in hashes {
                    fold[0] ^= h[0];
                    fold[1] ^= h[5];
                }
            }
            fold
        })
    });
    g.bench_function("alloy-accrue_raw_log", |b| {
        b.iter(|| {
            let mut bloom = Bloom::ZERO;
            for (address, topics) in black_box(&alloy_logs) {
                bloom.accrue_raw_log(*address, topics);
            }
            bloom
        })
    });
    g.finish();
}

criterion_group!(benches, bench_accrue, bench_scan);
criterion_main!(benches);
