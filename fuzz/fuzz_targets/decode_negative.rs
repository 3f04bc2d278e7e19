//! Any bytes given to the negative-cache decoder: an error or a cache, never a panic; a cache
//! that decodes re-encodes to the same bytes and answers queries.
#![no_main]

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
        if let Ok(c) = amq::negative::NegativeCache::from_bytes(&data) {
            assert_eq!(c.to_bytes(), data);
            let _ = c.contains(b"x".as_slice());
            let mut d = c.clone();
            d.insert(b"y".as_slice());
            assert!(d.contains(b"y".as_slice()));
            d.remove(b"y".as_slice());
        }
    }
});
