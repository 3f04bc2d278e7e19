//! Any bytes given to the `LogsBloomIndex` decoder: an error or an index, never a panic; an
//! index that decodes re-encodes to the same bytes.
//!
//! Each input is tried twice: as it is, and with its last 8 bytes replaced by the correct
//! checksum, so that mutations reach the checks behind the checksum.
#![no_main]

use amq::formats::eth::{InputBits, LogsBloomIndex};
use libfuzzer_sys::fuzz_target;

mod common;

fn check(data: &[u8]) {
    if let Ok(index) = LogsBloomIndex::from_bytes(data) {
        assert_eq!(index.to_bytes(), data);
        let q = [InputBits::from_input(b"x")];
        for block in index.candidates(&q) {
            assert!(index.bloom(block).unwrap().contains_bits(q[0]));
        }
    }
}

fuzz_target!(|data: &[u8]| {
    for data in common::with_fixed_checksum(data) {
        check(&data);
    }
});
