//! Any bytes given to the Parquet split block Bloom filter's bitset decoder: an error or a
//! filter, never a panic; a filter that decodes re-encodes to the same bytes and answers
//! queries (an inserted hash is then found).
#![no_main]

use amq::formats::parquet::{hash_byte_array, ParquetBloomFilter};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut f) = ParquetBloomFilter::from_bitset(data) {
        assert_eq!(f.to_bitset(), data);
        let h = hash_byte_array(data);
        let _ = f.contains_hash(h);
        f.insert_hash(h);
        assert!(f.contains_hash(h));
    }
});
