//! Any bytes as a Golomb-coded set and as a BIP158 filter: an error or an answer, never a
//! panic; a set that validates re-encodes to the same bytes.
//!
//! The first 9 bytes choose the parameters (N and M below 2^16 and 2^24 so that small inputs
//! reach deep into the stream; P up to 40 so the refusal of P > 32 is reached too); the rest is
//! the GCS data. The whole input is also read as a BIP158 filter (CompactSize N, then GCS).
#![no_main]

use amq::formats::bip158::BlockFilter;
use amq::gcs::{Gcs, Params, SampledIndex};
use libfuzzer_sys::fuzz_target;

fn check_set(params: Params, data: &[u8]) {
    let Ok(set) = Gcs::new(params, data) else {
        return;
    };
    let _ = set.contains_value(params.m() / 2);
    let _ = set.match_any_values(&[0, 1, set.f() / 3, set.f().saturating_sub(1)]);
    let _ = set.match_all_values(&[0, 0, set.f() / 2]);
    let mut hits = [false; 3];
    let _ = set.match_many_values(&[1, 2, u64::MAX], &mut hits);
    if let Ok(index) = SampledIndex::build(&set, 2) {
        let _ = index.contains_value(&set, set.f() / 2);
    }
    if set.validate().is_ok() {
        let values = set.decode().unwrap();
        // values are sorted and below F; encoding them again gives the same bytes
        assert!(values.windows(2).all(|w| w[0] <= w[1]));
        assert!(values.iter().all(|&v| v < set.f()));
        let again = reencode(&values, params);
        assert_eq!(again, data);
    }
}

/// Re-encodes values through the public API: hashes that map back onto the values.
fn reencode(values: &[u64], params: Params) -> Vec<u8> {
    // the smallest h with (F·h) >> 64 = v is ⌈v·2^64 / F⌉
    let f = u128::from(params.f());
    let hashes: Vec<u64> = values
        .iter()
        .map(|&v| ((u128::from(v) << 64).div_ceil(f)) as u64)
        .collect();
    Gcs::from_sorted_hashes(&hashes, params.p(), params.m())
        .unwrap()
        .into_bytes()
}

fuzz_target!(|data: &[u8]| {
    if data.len() >= 9 {
        let n = u64::from(u16::from_le_bytes([data[0], data[1]]));
        let p = data[2] % 41;
        let m = u64::from(u32::from_le_bytes([data[3], data[4], data[5], 0])) + u64::from(data[6]);
        if let Ok(params) = Params::new(n, p, m) {
            check_set(params, &data[9..]);
        }
    }
    let hash = [0x5au8; 32];
    if let Ok(filter) = BlockFilter::from_bytes(&hash, data.to_vec()) {
        let _ = filter.match_any([&b"\x51"[..], b""]);
        let _ = filter.match_many([&b"\x00\x14"[..]]);
        if filter.validate().is_ok() {
            assert_eq!(filter.as_bytes(), data);
        }
    }
});
