//! Unit tests of the Golomb-coded set: parameters, round trips, corrupt streams.

use super::*;
use crate::error::Error;
use alloc::vec::Vec;

fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

#[test]
fn params_are_checked() {
    assert!(Params::new(LIMIT - 1, 19, LIMIT - 1).is_ok());
    assert!(matches!(
        Params::new(LIMIT, 19, 1),
        Err(Error::InvalidParameter { name: "n", .. })
    ));
    assert!(matches!(
        Params::new(1, 19, LIMIT),
        Err(Error::InvalidParameter { name: "m", .. })
    ));
    assert!(matches!(
        Params::new(1, 19, 0),
        Err(Error::InvalidParameter { name: "m", .. })
    ));
    assert!(matches!(
        Params::new(1, 33, 1),
        Err(Error::InvalidParameter { name: "p", .. })
    ));
}

#[test]
fn empty_set_has_no_bytes_and_matches_nothing() {
    let h = |b: &[u8]| b.len() as u64;
    let set = Gcs::build(core::iter::empty::<&[u8]>(), &h, 19, 784_931).unwrap();
    assert!(set.as_bytes().is_empty());
    assert!(!set.contains(b"x", &h).unwrap());
    assert!(!set.match_any([b"x"], &h).unwrap());
    assert!(set.match_all(core::iter::empty::<&[u8]>(), &h).unwrap());
    assert!(!set.match_all([b"x"], &h).unwrap());
    set.validate().unwrap();
}

#[test]
fn round_trip_and_queries_agree() {
    let mut rng = xorshift(7);
    for &(n, p, m) in &[
        (1u64, 0u8, 1u64),
        (5, 2, 4),
        (1000, 19, 784_931),
        (3000, 5, 40),
        (700, 32, (1 << 32) - 1),
    ] {
        let hashes: Vec<u64> = (0..n).map(|_| rng()).collect();
        let set = Gcs::from_hashes(hashes.clone(), p, m).unwrap();
        set.validate().unwrap();
        let mut expected: Vec<u64> = hashes.iter().map(|&h| hash_to_range(h, set.f())).collect();
        expected.sort_unstable();
        assert_eq!(set.decode().unwrap(), expected);
        for &v in expected.iter().step_by(17) {
            assert!(set.contains_value(v).unwrap());
        }
        assert!(set.match_all_values(&expected).unwrap());
        let mut hits = alloc::vec![false; expected.len()];
        set.match_many_values(&expected, &mut hits).unwrap();
        assert!(hits.iter().all(|&h| h));
        let mut sorted = hashes.clone();
        sorted.sort_unstable();
        assert_eq!(Gcs::from_sorted_hashes(&sorted, p, m).unwrap(), set);
    }
}

#[test]
fn corrupt_streams_give_errors() {
    let set = Gcs::from_hashes(
        (1..=100u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect(),
        4,
        16,
    )
    .unwrap();
    let bytes = set.as_bytes();
    // too short for N codes
    assert!(matches!(
        Gcs::new(set.params(), &bytes[..bytes.len() / 4]),
        Err(Error::Truncated { .. })
    ));
    // all ones: the unary run never ends, or values overflow F
    let ones = alloc::vec![0xFFu8; bytes.len()];
    let g = Gcs::new(set.params(), &ones[..]).unwrap();
    assert!(g.validate().is_err());
    assert!(g.match_any_values(&[u64::MAX]).is_err());
    // trailing byte and set padding bit
    let mut longer = bytes.to_vec();
    longer.push(0);
    assert!(Gcs::new(set.params(), &longer[..])
        .unwrap()
        .validate()
        .is_err());
}

/// The one-pass matches take their targets sorted; unsorted ones are refused (they made the
/// pass step over members: `[v₁ + 1, v₀]` said "no" of the member v₀).
#[test]
fn unsorted_targets_are_refused() {
    let set = Gcs::from_hashes(vec![1 << 60, 1 << 62], 19, 784_931).unwrap();
    let v = set.decode().unwrap();
    assert_eq!(v.len(), 2);
    for targets in [[v[1] + 1, v[0]], [v[1], v[0]]] {
        let e = set.match_any_values(&targets).unwrap_err();
        assert!(e.to_string().contains("must ascend"), "{e}");
        assert!(set.match_all_values(&targets).is_err());
        let mut hits = [true; 2];
        assert!(set.match_many_values(&targets, &mut hits).is_err());
        assert_eq!(hits, [false, false]);
    }
    assert!(set.match_any_values(&[v[0], v[1] + 1]).unwrap());
    assert!(set.match_all_values(&[v[0], v[0], v[1]]).unwrap());
}
