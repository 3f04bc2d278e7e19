//! Any bytes given to the aging Bloom decoder: an error or a filter, never a panic; a filter
//! that decodes re-encodes to the same bytes and answers queries.
#![no_main]

use amq::{Filter, Insert};
use libfuzzer_sys::fuzz_target;

/// The input as is, and with its last 8 bytes replaced by the right checksum, so that
/// mutations get past the container's checksum into the kind's own decoder.
fn inputs(data: &[u8]) -> [Vec<u8>; 2] {
    let mut fixed = data.to_vec();
    if fixed.len() >= 8 {
        let n = fixed.len() - 8;
        let sum = amq::hash::checksum64(&fixed[..n]);
        fixed[n..].copy_from_slice(&sum.to_le_bytes());
    }
    [data.to_vec(), fixed]
}

fuzz_target!(|data: &[u8]| {
    for data in inputs(data) {
        if let Ok(f) = amq::window::AgingBloom::from_bytes(&data) {
            assert_eq!(f.to_bytes(), data);
            let _ = f.contains(b"x".as_slice());
            let _ = f.expected_fpr();
            let mut g = f.clone();
            let _ = g.insert(b"y".as_slice());
            g.expire();
        }
    }
});
