//! Edges of the split block Bloom filter's kernels (`src/bloom/split_block/kernel/`) that the
//! split block, Parquet and bloom edge tests leave open: which kernels this CPU is said to run,
//! against the CPU's own feature flags. Written against mutants of `kernel/mod.rs` that
//! cargo-mutants found those tests let through (on a CPU with AVX2 and AVX-512F, where a
//! kernel wrongly said unsupported is silently skipped by the tests that compare kernels).

use amq::SplitBlockKernel;

/// The portable kernel runs anywhere; the AVX2 kernel where the CPU has AVX2; the AVX-512 one
/// where it has AVX-512F and AVX2; `detect` picks the fastest of those. Checked against
/// `is_x86_feature_detected!` on x86-64 (elsewhere only the portable kernel runs). Against
/// the mutants `avx2_detected` → false and `avx512_detected` → false (and → true on a CPU
/// without the feature).
#[test]
fn kernels_are_supported_exactly_where_the_cpu_has_their_features() {
    #[cfg(target_arch = "x86_64")]
    let (avx2, avx512) = (
        std::is_x86_feature_detected!("avx2"),
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("avx512f"),
    );
    #[cfg(not(target_arch = "x86_64"))]
    let (avx2, avx512) = (false, false);
    assert!(SplitBlockKernel::Portable.is_supported());
    assert_eq!(SplitBlockKernel::Avx2.is_supported(), avx2);
    assert_eq!(SplitBlockKernel::Avx512.is_supported(), avx512);
    let fastest = if avx512 {
        SplitBlockKernel::Avx512
    } else if avx2 {
        SplitBlockKernel::Avx2
    } else {
        SplitBlockKernel::Portable
    };
    assert_eq!(SplitBlockKernel::detect(), fastest);
}

/// The batch over u64 values (hashed 64 at a time, the chunked loop) finds every inserted
/// value whatever `out` held (it starts all `false`), on every kernel this CPU runs, and
/// answers as single queries do. 200 values span several chunks and a partial last one.
/// Against the mutant `contains512_batch_chunked` → `()`, which leaves `out` as it was.
#[test]
fn the_chunked_value_batch_finds_every_member() {
    use amq::{Filter, Insert, SplitBlockBloomFilter};
    let values: Vec<u64> = (0..200).collect();
    for kernel in SplitBlockKernel::ALL
        .into_iter()
        .filter(|k| k.is_supported())
    {
        let mut f = SplitBlockBloomFilter::new(4096, 7)
            .unwrap()
            .with_kernel(kernel)
            .unwrap();
        for v in &values[..150] {
            f.insert(v).unwrap();
        }
        let mut out = vec![false; values.len()];
        f.contains_batch_values(&values, &mut out);
        assert!(out[..150].iter().all(|&b| b), "{kernel:?}");
        let single: Vec<bool> = values.iter().map(|v| f.contains(v)).collect();
        assert_eq!(out, single, "{kernel:?}");
    }
}
