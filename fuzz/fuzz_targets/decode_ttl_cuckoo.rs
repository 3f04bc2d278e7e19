//! Any bytes given to the TTL cuckoo filter decoder: an error or a filter, never a panic; a
//! filter that decodes re-encodes to the same bytes, answers queries, and keeps an item it
//! takes until it expires and through a sweep.
#![no_main]

use amq::ttl::TtlCuckooFilter;
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    for data in common::with_fixed_checksum(data) {
        if let Ok(f) = TtlCuckooFilter::from_bytes(&data) {
            assert_eq!(f.to_bytes(), data);
            let now = f.swept_epoch().saturating_mul(f.tick());
            let _ = f.contains(b"x".as_slice(), now);
            let _ = f.entries_at(now);
            let _ = f.info();
            let mut g = f.clone();
            let ttl = f.default_ttl();
            if let Ok(true) = g.insert(b"y".as_slice(), now, ttl) {
                let until = amq::ttl::expiry(now, ttl, f.tick());
                assert!(g.contains(b"y".as_slice(), until - 1));
                g.expire(until - 1);
                assert!(g.contains(b"y".as_slice(), until - 1));
                assert!(g.remove(b"y".as_slice(), until - 1));
            }
        }
    }
});
