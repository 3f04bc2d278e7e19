//! Any bytes given to the BIP37 `filterload` and `filteradd` decoders: an error or a filter,
//! never a panic; a filter that decodes re-encodes to the bytes of its payload (what follows
//! it is ignored, as Core ignores it), stays within Core's caps, and answers queries (an
//! inserted item is then found); a `filteradd` that is refused leaves the filter as it was.
#![no_main]

use amq::formats::bip37::{Bip37Filter, MAX_BLOOM_FILTER_SIZE, MAX_HASH_FUNCS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut f) = Bip37Filter::from_filterload(data) {
        assert_eq!(f.to_filterload(), &data[..f.filterload_len()]);
        assert!(f.size_bytes() <= MAX_BLOOM_FILTER_SIZE as u64 && f.k() <= MAX_HASH_FUNCS);
        let _ = f.contains_bytes(data);
        f.insert_bytes(b"fuzz");
        assert!(f.contains_bytes(b"fuzz"));
    }
    let mut f = Bip37Filter::new(10, 0.01, 0, 0).unwrap();
    let before = f.clone();
    if f.filteradd(data).is_err() {
        assert_eq!(f, before);
    }
});
