//! Any bytes given to the `.amq` decoder: an error or a filter, never a panic; a filter that
//! decodes re-encodes to the same bytes and takes an insert without a panic.
//!
//! Each input is tried twice: as it is, and with its last 8 bytes replaced by the correct
//! checksum, so that mutations reach the parameter and payload checks behind the checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fn check(data: &[u8]) {
    if let Ok(filter) = amq::AnyFilter::from_bytes(data) {
        assert_eq!(filter.to_bytes(), data);
        let _ = filter.contains(b"x");
        let _ = filter.info();
        // a decoded filter takes an insert (or refuses it with an error): its counts, read
        // from the file, may be at their maximum
        let mut g = filter.clone();
        let _ = g.insert(b"y");
        let _ = g.info();
    }
    let _ = amq::wire::decode(data);
}

fuzz_target!(|data: &[u8]| {
    for data in common::with_fixed_checksum(data) {
        check(&data);
    }
});
