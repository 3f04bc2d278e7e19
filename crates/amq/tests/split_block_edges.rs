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
