//! Any bytes given to the cuckoo filter decoder: an error or a filter, never a panic; a filter
//! that decodes re-encodes to the same bytes, answers queries, and keeps its items through an
//! insert and a remove.
#![no_main]

use amq::cuckoo::CuckooFilter;
use amq::{Filter, Insert, Remove};
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    for data in common::with_fixed_checksum(data) {
        if let Ok(f) = CuckooFilter::from_bytes(&data) {
            assert_eq!(f.to_bytes(), data);
            let _ = f.contains(b"x".as_slice());
            let _ = f.count(b"x".as_slice());
            let _ = f.info();
            let mut g = f.clone();
            if g.insert(b"y".as_slice()).is_ok() {
                assert!(g.contains(b"y".as_slice()));
                assert!(g.remove(b"y".as_slice()));
                assert_eq!(g.inserted(), f.inserted());
            }
        }
    }
});
