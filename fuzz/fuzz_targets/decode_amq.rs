//! Any bytes given to the `.amq` decoder: an error or a filter, never a panic; a filter that
//! decodes re-encodes to the same bytes.
//!
//! Each input is tried twice: as it is, and with its last 8 bytes replaced by the correct
//! checksum, so that mutations reach the parameter and payload checks behind the checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;

fn check(data: &[u8]) {
    if let Ok(filter) = amq::AnyFilter::from_bytes(data) {
        assert_eq!(filter.to_bytes(), data);
        let _ = filter.contains(b"x");
        let _ = filter.info();
    }
    let _ = amq::wire::decode(data);
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if data.len() >= 8 {
        let mut fixed = data.to_vec();
        let body = fixed.len() - 8;
        let sum = amq::hash::checksum64(&fixed[..body]);
        fixed[body..].copy_from_slice(&sum.to_le_bytes());
        check(&fixed);
    }
});
