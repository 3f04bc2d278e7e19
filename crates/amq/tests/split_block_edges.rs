//! Edges of the split block Bloom filter's kernels (`src/bloom/split_block/kernel/`) that the
//! split block, Parquet and bloom edge tests leave open: which kernels this CPU is said to run,
//! against the CPU's own feature flags. Written against mutants of `kernel/mod.rs` that
//! cargo-mutants found those tests let through (on a CPU with AVX2 and AVX-512F, where a
//! kernel wrongly said unsupported is silently skipped by the tests that compare kernels), and
//! against a hand mutant of the batches' `loops!` macro (`kernel/loops.rs`), whose body
//! cargo-mutants does not mutate: every batch must write every answer of `out`.

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
    for kernel in SplitBlockKernel::supported() {
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

/// Every batch writes every answer: each query batch (`contains_batch_values` over u64 values,
/// the loop that hashes 64 at a time; `contains_batch` and `contains_hash_batch`, the loop
/// that fetches 16 ahead) starts from an `out` holding the opposite of the single query's
/// answers and must end with exactly them, on every kernel this CPU runs. The lengths end a
/// chunk of 16 or 64 one early, on time and one late; the filters are 4 KiB (the chunked loop
/// without prefetching, under its 4 MiB threshold) and 4 MiB (with). Even values are members,
/// odd ones mostly not, so both answers are overwritten. Against a hand mutant of the
/// `loops!` macro, whose body cargo-mutants does not mutate: `for c in 0..=chunks` →
/// `0..chunks` in the chunked query without prefetching, which never tests the last chunk
/// and leaves its `out` as the caller had it (the other tests pass an `out` already right
/// there: all `false` over non-members, or filled by the batch before).
#[test]
fn every_batch_overwrites_every_answer_including_the_last_chunks() {
    use amq::{Filter, Insert, SplitBlockBloomFilter};
    let lengths = [1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 200];
    let values: Vec<u64> = (0..200).collect();
    for m in [1 << 15, 1 << 25] {
        for kernel in SplitBlockKernel::supported() {
            let mut f = SplitBlockBloomFilter::new(m, 11)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            for v in values.iter().step_by(2) {
                f.insert(v).unwrap();
            }
            for &n in &lengths {
                let items = &values[..n];
                let single: Vec<bool> = items.iter().map(|v| f.contains(v)).collect();
                assert!(single.iter().step_by(2).all(|&b| b), "{kernel:?}, m {m}");
                let opposite: Vec<bool> = single.iter().map(|b| !b).collect();
                let refs: Vec<&u64> = items.iter().collect();
                let hashes: Vec<u64> = items.iter().map(|v| f.hash(v)).collect();
                let mut out = opposite.clone();
                f.contains_batch_values(items, &mut out);
                assert_eq!(out, single, "{kernel:?}, m {m}, {n} values");
                let mut out = opposite.clone();
                f.contains_batch(&refs, &mut out);
                assert_eq!(out, single, "{kernel:?}, m {m}, {n} items");
                let mut out = opposite;
                f.contains_hash_batch(&hashes, &mut out);
                assert_eq!(out, single, "{kernel:?}, m {m}, {n} hashes");
            }
        }
    }
}
