//! Any bytes given to the aging Bloom decoder: an error or a filter, never a panic; a filter
//! that decodes re-encodes to the same bytes and answers queries.
#![no_main]

use amq::{Filter, Insert};
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    for data in common::with_fixed_checksum(data) {
        if let Ok(f) = amq::window::AgingBloom::from_bytes(&data) {
            assert_eq!(f.to_bytes(), data);
            let _ = f.contains(b"x".as_slice());
            let _ = f.estimated_fpr();
            let _ = f.info();
            let mut g = f.clone();
            let _ = g.insert(b"y".as_slice());
            g.expire();
        }
    }
});
