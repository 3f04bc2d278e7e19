//! Cashu compact state filters (cashubtc/nuts PR #433), revision B's Bloom blocks at b = 20
//! (128 KiB, capacity 45,426).
//!
//! Run: `cargo bench -p amq-bench --bench cashu_state` (about a minute on 2 cores, and about
//! 60 MB of memory for the year of blocks).
//!
//! * `cashu_state_hash`: the hashing alone, per element: `element` is E from a typed
//!   `proof_state` change (an 81-byte preimage: two SHA-256 compressions), `words` the 16
//!   words of E (two more compressions, one per 36-byte digest input).
//! * `cashu_state_block`: per element at b = 20, words computed beforehand: `insert` (16 bit
//!   writes) into a block kept below capacity; `test_member` (16 reads) and `test_non_member`
//!   (stops at the first clear bit: about 2 reads at half fill) against a block at capacity;
//!   `insert_from_e` and `test_from_e` include the words, so the hashing share is
//!   `words / test_from_e`.
//! * `cashu_state_wallet_year`: 10^4 candidates tested against 365 blocks at b = 20, each at
//!   capacity (a year at the sizing rule's one block a day): `scan` with each candidate's
//!   words computed once beforehand (3.65 million tests); `hash_candidates` the words of the
//!   10^4 candidates from their E; `hash_and_scan` both.
//!
//! The year's blocks are filled with words from a seeded SplitMix64 (the bitmaps are then
//! what SHA-256 words would give: uniform positions), which keeps the setup to a second;
//! candidates are real elements hashed with SHA-256.

use amq::formats::cashu_state::{capacity, Block, Element, ProofState, Words};
use amq_bench::SplitMix;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

const B: u8 = 20;
const CANDIDATES: usize = 10_000;
const BLOCKS: usize = 365;

fn config<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    g
}

/// Candidate i: the SPENT element of a 33-byte point-like id (02, then 32 seeded bytes).
fn element(rng: &mut SplitMix) -> [u8; 32] {
    let mut y = [2u8; 33];
    y[1..].copy_from_slice(&rng.hash32());
    Element::ProofState {
        y: &y,
        state: ProofState::Spent,
    }
    .hash()
}

fn random_words(rng: &mut SplitMix) -> Words {
    let mut w = [0u32; 16];
    for pair in w.chunks_mut(2) {
        let x = rng.next_u64();
        pair[0] = x as u32;
        pair[1] = (x >> 32) as u32;
    }
    Words::from_array(w)
}

/// A block of width B at capacity.
fn full_block(rng: &mut SplitMix) -> Block {
    let mut block = Block::new(B).unwrap();
    for _ in 0..capacity(B).unwrap() {
        block.insert(&random_words(rng));
    }
    block
}

fn hashing(c: &mut Criterion) {
    let mut g = config(c, "cashu_state_hash");
    g.throughput(Throughput::Elements(1));
    let mut rng = SplitMix(1);
    let y: Vec<[u8; 33]> = (0..1024)
        .map(|_| {
            let mut y = [2u8; 33];
            y[1..].copy_from_slice(&rng.hash32());
            y
        })
        .collect();
    let mut i = 0;
    g.bench_function("element", |b| {
        b.iter(|| {
            i = (i + 1) % y.len();
            Element::ProofState {
                y: &y[i],
                state: ProofState::Spent,
            }
            .hash()
        })
    });
    let es: Vec<[u8; 32]> = (0..1024).map(|_| element(&mut rng)).collect();
    g.bench_function("words", |b| {
        b.iter(|| {
            i = (i + 1) % es.len();
            Words::from_element(&es[i])
        })
    });
    g.finish();
}

fn per_element(c: &mut Criterion) {
    let mut g = config(c, "cashu_state_block");
    g.throughput(Throughput::Elements(1));
    let mut rng = SplitMix(2);
    let full = full_block(&mut rng);
    // members: inserted into a copy of the full block (1024 more, 2% over capacity)
    let members: Vec<Words> = (0..1024).map(|_| random_words(&mut rng)).collect();
    let mut member_block = full.clone();
    members.iter().for_each(|w| member_block.insert(w));
    let es: Vec<[u8; 32]> = (0..1024).map(|_| element(&mut rng)).collect();
    let non_members: Vec<Words> = es.iter().map(Words::from_element).collect();
    let mut i = 0;

    let mut open = Block::new(B).unwrap();
    let mut inserted = 0u64;
    let cap = capacity(B).unwrap();
    g.bench_function("insert", |b| {
        b.iter(|| {
            i = (i + 1) % non_members.len();
            inserted += 1;
            if inserted == cap {
                // a mint seals here; start an empty block so the fill stays realistic
                open = Block::new(B).unwrap();
                inserted = 0;
            }
            open.insert(black_box(&non_members[i]));
        })
    });
    g.bench_function("insert_from_e", |b| {
        b.iter(|| {
            i = (i + 1) % es.len();
            inserted += 1;
            if inserted == cap {
                open = Block::new(B).unwrap();
                inserted = 0;
            }
            open.insert(&Words::from_element(black_box(&es[i])));
        })
    });
    g.bench_function("test_member", |b| {
        b.iter(|| {
            i = (i + 1) % members.len();
            member_block.contains(black_box(&members[i]))
        })
    });
    g.bench_function("test_non_member", |b| {
        b.iter(|| {
            i = (i + 1) % non_members.len();
            full.contains(black_box(&non_members[i]))
        })
    });
    g.bench_function("test_from_e", |b| {
        b.iter(|| {
            i = (i + 1) % es.len();
            full.contains(&Words::from_element(black_box(&es[i])))
        })
    });
    g.finish();
}

fn wallet_year(c: &mut Criterion) {
    let mut rng = SplitMix(3);
    let blocks: Vec<Block> = (0..BLOCKS).map(|_| full_block(&mut rng)).collect();
    let es: Vec<[u8; 32]> = (0..CANDIDATES).map(|_| element(&mut rng)).collect();
    let words: Vec<Words> = es.iter().map(Words::from_element).collect();
    let half = blocks.iter().map(Block::fill).sum::<f64>() / BLOCKS as f64;
    eprintln!(
        "wallet year: {CANDIDATES} candidates x {BLOCKS} blocks at b = {B}, mean fill {half:.4}, \
         expected false positives {:.1}",
        (CANDIDATES * BLOCKS) as f64 * amq::formats::cashu_state::fpr_at_fill(half)
    );
    let scan = |words: &[Words]| -> usize {
        blocks
            .iter()
            .map(|block| words.iter().filter(|w| block.contains(w)).count())
            .sum()
    };
    let mut g = config(c, "cashu_state_wallet_year");
    g.bench_function("scan", |b| b.iter(|| scan(black_box(&words))));
    g.bench_function("hash_candidates", |b| {
        b.iter(|| {
            black_box(&es)
                .iter()
                .map(Words::from_element)
                .collect::<Vec<_>>()
        })
    });
    g.bench_function("hash_and_scan", |b| {
        b.iter(|| {
            let words: Vec<Words> = black_box(&es).iter().map(Words::from_element).collect();
            scan(&words)
        })
    });
    g.finish();
}

criterion_group!(benches, hashing, per_element, wallet_year);
criterion_main!(benches);
