//! Any bytes given to the `.amq` decoder: an error or a filter, never a panic; a filter that
//! decodes re-encodes to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(filter) = amq::AnyFilter::from_bytes(data) {
        assert_eq!(filter.to_bytes(), data);
        let _ = filter.contains(b"x");
        let _ = filter.info();
    }
    let _ = amq::wire::decode(data);
});
