//! Any bytes given to the sliding-window cuckoo filter decoder: an error or a set, never a
//! panic; a set that decodes re-encodes to the same bytes, answers queries, exports its
//! epochs, and keeps a member it registers until it is slashed.
#![no_main]

use amq::rln::SlidingWindowCuckoo;
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    for data in common::with_fixed_checksum(data) {
        if let Ok(set) = SlidingWindowCuckoo::from_bytes(&data) {
            assert_eq!(set.to_bytes(), data);
            let first = set.first_epoch();
            let _ = set.contains(b"x".as_slice(), first);
            let _ = set.info();
            if let Ok(part) = set.export_epoch(first) {
                let mut copy = set.clone();
                assert!(copy.apply_epoch(&part).is_ok());
                assert_eq!(copy, set);
            }
            let mut g = set.clone();
            // (an epoch of 2^36 buckets would be allocated and zeroed: keep the run small)
            if set.log2_buckets() > 20 {
                continue;
            }
            if let Ok(e) = g.register(b"y".as_slice()) {
                assert!(g.contains(b"y".as_slice(), e));
                assert!(g.slash(b"y".as_slice(), e));
                assert_eq!(g.members(), set.members());
            }
        }
    }
});
