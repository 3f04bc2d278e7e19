//! Any bytes as a Cashu `GetFilterResponse` JSON: an error or a filter, never a panic and never
//! an unbounded allocation or loop; a response that reads writes back and reads again the same,
//! and its codes were checked on reading, so matching it cannot fail.
#![no_main]

use amq::formats::cashu::{CashuHash, GetFilterResponse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(response) = serde_json::from_slice::<GetFilterResponse>(data) else {
        return;
    };
    let json = serde_json::to_vec(&response).unwrap();
    let again: GetFilterResponse = serde_json::from_slice(&json).unwrap();
    assert_eq!(again, response);
    for hash in [
        CashuHash::Murmur3X64_128,
        CashuHash::Murmur3X86_32x2,
        CashuHash::SipHash24 { key: [1; 16] },
    ] {
        let filter = response.clone().into_filter(hash).unwrap();
        filter.match_many(&[&b"a"[..], b"b", &[2; 33]]).unwrap();
        filter.contains(b"").unwrap();
        let _ = filter.gcs().validate();
    }
});
