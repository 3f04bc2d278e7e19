//! Peak heap memory of a GCS build at N = 10^5, ours against rust-bitcoin's `GcsFilterWriter`,
//! counted by a global allocator (so it is a separate bench binary: the counter's atomics
//! stay out of the timed benches in `gcs.rs`).
//!
//! Run: `cargo bench -p amq-bench --bench gcs_memory` (a second). The bound checked: peak ≤ 2×
//! the items' 64-bit hashes (8·N bytes).

use amq::formats::bip158::{self, BlockFilter};
use amq::formats::cashu::{CashuFilter, CashuHash};
use amq_bench::mix;
use peak_alloc::PeakAlloc;

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

const N: u64 = 100_000;

/// Runs `f` and returns its peak heap use above what was allocated before it.
fn peak<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = ALLOC.current_usage();
    ALLOC.reset_peak_usage();
    let out = f();
    (ALLOC.peak_usage() - before, out)
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` runs this too: both are fine
    let elements: Vec<Vec<u8>> = (0..N)
        .map(|i| {
            let mut y = vec![0x02];
            for w in 0..4 {
                y.extend_from_slice(&mix(i * 4 + w).to_le_bytes());
            }
            y
        })
        .collect();
    let hashes = 8 * N as usize;
    let hash = [7u8; 32];
    let (cashu, f) =
        peak(|| CashuFilter::build(&elements, CashuHash::default(), 19, 784_931).unwrap());
    let out_len = f.content().len();
    drop(f);
    let (ours, f) = peak(|| BlockFilter::build(&hash, &elements).unwrap());
    drop(f);
    let (theirs, out) = peak(|| {
        let k0 = u64::from_le_bytes(hash[0..8].try_into().unwrap());
        let k1 = u64::from_le_bytes(hash[8..16].try_into().unwrap());
        let mut out = Vec::new();
        let mut w = bitcoin::bip158::GcsFilterWriter::new(&mut out, k0, k1, bip158::M, bip158::P);
        for e in &elements {
            w.add_element(e);
        }
        w.finish().unwrap();
        drop(w);
        out
    });
    drop(out);
    println!("gcs_memory: N = {N}, 64-bit hashes = {hashes} bytes, filter = {out_len} bytes");
    for (name, bytes) in [
        ("amq-cashu", cashu),
        ("amq-bip158", ours),
        ("rust-bitcoin", theirs),
    ] {
        println!(
            "  {name:<13} peak {bytes:>10} bytes = {:.2}× the hashes",
            bytes as f64 / hashes as f64
        );
    }
    assert!(
        cashu <= 2 * hashes && ours <= 2 * hashes,
        "peak over 2× the hashes"
    );
}
