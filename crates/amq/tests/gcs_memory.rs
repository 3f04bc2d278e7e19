//! Peak memory of a GCS build: at most 2× the items' 64-bit hashes (the bound; rust-
//! bitcoin's writer keeps every element in a sorted set). One test in its own binary, so the
//! counting allocator sees only this build.
#![cfg(feature = "cashu")]

#[cfg(feature = "bip158")]
use amq::formats::bip158::BlockFilter;
use amq::formats::cashu::{CashuFilter, CashuHash};
use peak_alloc::PeakAlloc;

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

#[test]
fn build_peak_is_at_most_twice_the_hashes() {
    let n = 100_000usize;
    let items: Vec<[u8; 33]> = (0..n as u64)
        .map(|i| {
            let mut y = [2u8; 33];
            y[1..9].copy_from_slice(&i.wrapping_mul(amq::hash::GOLDEN_GAMMA).to_le_bytes());
            y
        })
        .collect();
    let hashes_bytes = 8 * n;

    let before = ALLOC.current_usage();
    ALLOC.reset_peak_usage();
    let filter = CashuFilter::build(&items, CashuHash::default(), 19, 784_931).unwrap();
    let peak = ALLOC.peak_usage() - before;
    println!(
        "cashu build, n = {n}: peak {peak} bytes = {:.3}× the hashes ({hashes_bytes} bytes); filter {} bytes",
        peak as f64 / hashes_bytes as f64,
        filter.content().len()
    );
    assert!(peak <= 2 * hashes_bytes, "peak {peak} bytes");
    drop(filter);

    #[cfg(feature = "bip158")]
    {
        let before = ALLOC.current_usage();
        ALLOC.reset_peak_usage();
        let filter = BlockFilter::build(&[3; 32], &items).unwrap();
        let peak = ALLOC.peak_usage() - before;
        println!(
            "bip158 build, n = {n}: peak {peak} bytes = {:.3}× the hashes; filter {} bytes",
            peak as f64 / hashes_bytes as f64,
            filter.as_bytes().len()
        );
        assert!(peak <= 2 * hashes_bytes, "peak {peak} bytes");
    }
}
