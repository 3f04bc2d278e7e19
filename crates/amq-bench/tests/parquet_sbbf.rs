//! amq's Parquet split block Bloom filter and sbbf-rs-safe (the bench's peer, the same
//! layout) set the same bits for the same hashes: equal bitsets, byte for byte, at block
//! counts that are and are not powers of two, and the same answers to queries.

use amq::formats::parquet::ParquetBloomFilter;
use amq_bench::SplitMix;

#[test]
fn same_hashes_same_bitset() {
    for blocks in [1usize, 2, 3, 7, 64, 100, 1000, 4096] {
        let bytes = blocks * 32;
        let mut amq = ParquetBloomFilter::with_num_bytes(bytes).unwrap();
        let mut sbbf = sbbf_rs_safe::Filter::from_bytes(&vec![0u8; bytes]).unwrap();
        let hashes = SplitMix(blocks as u64).take(blocks * 20);
        for &h in &hashes {
            // sbbf-rs-safe returns whether the hash was already there; amq whether it is new
            assert_eq!(amq.insert_hash(h), !sbbf.insert_hash(h), "blocks {blocks}");
        }
        assert_eq!(amq.to_bitset(), sbbf.as_bytes(), "blocks {blocks}");
        for h in SplitMix(!(blocks as u64)).take(10_000) {
            assert_eq!(
                amq.contains_hash(h),
                sbbf.contains_hash(h),
                "blocks {blocks}"
            );
        }
        let back = sbbf_rs_safe::Filter::from_bytes(&amq.to_bitset()).unwrap();
        assert!(hashes.iter().all(|&h| back.contains_hash(h)));
    }
}
