//! Any bytes as a revision A epoch filter of the Cashu compact state filters: an error or a
//! filter, never a panic; a filter that validates re-encodes to the same bytes.
//!
//! The first byte chooses P (0 to 39, so the refusal of P outside 7..=31 is reached too); the
//! rest is the filter's data, whose N the decoder finds by reading codes.
#![no_main]

use amq::formats::cashu_state::Epoch;
use libfuzzer_sys::fuzz_target;

/// An element whose first 8 bytes map to `pos` in a filter of range F (the smallest value
/// with `(v·F) >> 64 = pos`) and whose 9th to 16th bytes make it distinct.
fn element_at(pos: u64, f: u64, i: u64) -> [u8; 32] {
    let v = ((u128::from(pos) << 64).div_ceil(u128::from(f))) as u64;
    let mut e = [0u8; 32];
    e[..8].copy_from_slice(&v.to_be_bytes());
    e[8..16].copy_from_slice(&i.to_be_bytes());
    e
}

fuzz_target!(|data: &[u8]| {
    let Some((&p, data)) = data.split_first() else {
        return;
    };
    let p = p % 40;
    let Ok(epoch) = Epoch::decode(data, p) else {
        return;
    };
    let _ = epoch.contains(&[0x5a; 32]);
    let _ = epoch.match_many(&[[0; 32], [0xff; 32], [0x80; 32]]);
    if epoch.validate().is_ok() {
        let positions = epoch.positions().unwrap();
        assert_eq!(positions.len() as u64, epoch.n());
        assert!(positions.windows(2).all(|w| w[0] <= w[1]));
        let f = epoch.gcs().f();
        let elements: Vec<[u8; 32]> = positions
            .iter()
            .enumerate()
            .map(|(i, &pos)| element_at(pos, f, i as u64))
            .collect();
        assert!(epoch.match_many(&elements).unwrap().iter().all(|&m| m));
        let again = Epoch::build(elements, p).unwrap();
        assert_eq!(again.as_bytes(), data);
    }
});
