//! Any bytes given to the negative-cache decoder: an error or a cache, never a panic; a cache
//! that decodes re-encodes to the same bytes and answers queries.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    for data in common::with_fixed_checksum(data) {
        if let Ok(c) = amq::negative::NegativeCache::from_bytes(&data) {
            assert_eq!(c.to_bytes(), data);
            let _ = c.contains(b"x".as_slice());
            let _ = c.info();
            let mut d = c.clone();
            d.insert(b"y".as_slice());
            assert!(d.contains(b"y".as_slice()));
            d.remove(b"y".as_slice());
        }
    }
});
