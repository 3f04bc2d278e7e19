//! Any bytes given to the sliding-window Bloom decoder: an error or a filter, never a panic;
//! a filter that decodes re-encodes to the same bytes and answers queries.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    for data in common::with_fixed_checksum(data) {
        if let Ok(f) = amq::window::SlidingWindowBloom::from_bytes(&data) {
            assert_eq!(f.to_bytes(), data);
            let _ = f.contains(b"x".as_slice(), 0);
            let _ = f.contains(b"x".as_slice(), f.next_position().saturating_sub(1));
            let _ = f.expected_fpr(f.next_position());
            let _ = f.info();
            let mut g = f.clone();
            let _ = g.insert(b"y".as_slice());
        }
    }
});
