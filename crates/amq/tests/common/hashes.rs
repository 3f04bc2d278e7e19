//! Hashes chosen for where a cuckoo-family filter puts them, so that a test can fill the
//! buckets it means to.

use amq::hash::{cuckoo_fingerprint, cuckoo_index};

/// A hash whose first bucket among `buckets` is `i1` and whose f-bit fingerprint is `fp`:
/// `cuckoo_index` reduces the low 64 bits, `cuckoo_fingerprint` the high 64 bits to 2^f − 1
/// values plus one, so each half is the least x with ⌊x·n / 2⁶⁴⌋ = the wanted value (checked
/// against the public derivation).
pub fn hash_at(buckets: u64, f: u32, i1: u64, fp: u32) -> u128 {
    let lo = (u128::from(i1) << 64).div_ceil(u128::from(buckets)) as u64;
    let hi = (u128::from(fp - 1) << 64).div_ceil(u128::from((1u64 << f) - 1)) as u64;
    let h = u128::from(hi) << 64 | u128::from(lo);
    assert_eq!(
        (cuckoo_index(h, buckets), cuckoo_fingerprint(h, f)),
        (i1, fp)
    );
    h
}
