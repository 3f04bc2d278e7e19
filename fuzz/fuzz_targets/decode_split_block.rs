//! Any bytes given to the split block Bloom filter decoder: an error or a filter, never a
//! panic; a filter that decodes re-encodes to the same bytes, answers queries on both kernels
//! alike (single and batched), keeps an item it is given, and its batch insert sets the bits
//! single inserts set.
#![no_main]

use amq::{Filter, Insert, SplitBlockBloomFilter, SplitBlockKernel};
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    for data in common::with_fixed_checksum(data) {
        if let Ok(f) = SplitBlockBloomFilter::from_bytes(&data) {
            assert_eq!(f.to_bytes(), data);
            let portable = f.clone().with_kernel(SplitBlockKernel::Portable).unwrap();
            for item in [b"x".as_slice(), b"", &data[..data.len().min(9)]] {
                assert_eq!(f.contains(item), portable.contains(item));
            }
            // batches over u64 items held in a slice (the vectorised hash loop) answer as
            // single queries, on both kernels
            let keys: Vec<u64> = data
                .chunks(8)
                .map(|c| c.iter().fold(0, |a, &b| a << 8 | u64::from(b)))
                .collect();
            let mut out = vec![false; keys.len()];
            for g in [&f, &portable] {
                g.contains_batch_values(&keys, &mut out);
                assert!(keys.iter().zip(&out).all(|(k, &o)| g.contains(k) == o));
            }
            // the batch insert of those keys sets what inserting them one by one sets
            for g in [&f, &portable] {
                let (mut batch, mut single) = (g.clone(), g.clone());
                batch.insert_batch_values(&keys);
                for k in &keys {
                    single.insert(k).unwrap();
                }
                assert!(batch == single);
            }
            let _ = (f.estimated_fpr(), f.estimated_items(), f.info());
            let mut g = f.clone();
            g.insert(b"y".as_slice()).unwrap();
            assert!(g.contains(b"y".as_slice()));
        }
    }
});
