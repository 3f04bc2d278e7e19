//! Edges of the Golomb-coded set engine (`src/gcs/`) that the other GCS tests leave open: sets
//! whose codes are worked out by hand from the Golomb-Rice rules (F = N·M, `hash_to_range`,
//! quotient in unary, P remainder bits, zero padding), the one-pass queries at the ends of
//! their merges, the decoder's errors with their byte offsets, the sampled index's samples
//! and shape checks, and the planner's P and M. Most tests here were written against a mutant
//! of `src/gcs/*.rs` that cargo-mutants found the other tests let through; a few pin worked
//! edges next to those (a value reaching F, validate's offsets, for_fpr's ceiling, an index of
//! a corrupt set, sort_hashes), and the BIP158 one shows its decoder naming the filter's byte.

use amq::gcs::{self, Gcs, Params, SampledIndex};
use amq::Error;

#[path = "common/errors.rs"]
mod errors;
use errors::{corrupt_at, invalid};

// ---- params.rs and the accessors

/// N = 8, P = 3, M = 8: F = N·M = 64 and the fewest bits N codes take, N·(P + 1) = 32; a set
/// reports the parameters it was built with. The limits are inclusive where they should be:
/// N = 0, M = 1, P = 32 and N, M = 2³² − 1 are accepted.
#[test]
fn params_and_set_accessors_follow_their_formulas() {
    let params = Params::new(8, 3, 8).unwrap();
    assert_eq!((params.n(), params.p(), params.m()), (8, 3, 8));
    assert_eq!((params.f(), params.min_bits()), (64, 32));
    let p = Params::new((1 << 32) - 1, 32, (1 << 32) - 1).unwrap();
    assert_eq!(p.f(), ((1u64 << 32) - 1) * ((1 << 32) - 1));
    assert_eq!(p.min_bits(), ((1u64 << 32) - 1) * 33);
    assert_eq!(Params::new(0, 0, 1).unwrap().f(), 0);

    let set = Gcs::from_hashes(vec![u64::MAX, 0, 1 << 63], 2, 4).unwrap();
    assert_eq!((set.n(), set.p(), set.m(), set.f()), (3, 2, 4, 12));
    assert_eq!(set.params(), Params::new(3, 2, 4).unwrap());
    assert_eq!(set.borrowed().as_bytes(), set.as_bytes());
    assert_eq!(set.borrowed().params(), set.params());
    assert_eq!(set.clone().into_bytes(), [0b0001_0101, 0b0010_0000]);
}

/// `Gcs::new` wants N·(P + 1) bits: 32 bits, 4 bytes, for N = 8 at P = 3; 3 bytes are short
/// from byte 0, and 4 zero bytes are 8 zero gaps.
#[test]
fn new_wants_n_codes_of_p_plus_one_bits() {
    let params = Params::new(8, 3, 8).unwrap();
    match Gcs::new(params, &[0u8; 3][..]) {
        Err(Error::Truncated {
            offset,
            needed,
            available,
            ..
        }) => assert_eq!((offset, needed, available), (0, 4, 3)),
        other => panic!("expected Truncated, got {other:?}"),
    }
    let set = Gcs::new(params, &[0u8; 4][..]).unwrap();
    assert_eq!(set.decode().unwrap(), [0; 8]);
}

// ---- set.rs: building

/// `from_sorted_hashes` refuses hashes out of order (`hashes`) and keeps equal neighbours as
/// zero gaps. Hashes 0, 0, 2⁶³, 2⁶⁴ − 1 at P = 2, M = 4: F = 16, values 0, 0, 8, 15, gaps
/// 0, 0, 8, 7, codes "0 00" "0 00" "110 00" "10 11" = 000000110001011, padded 0x03 0x16.
#[test]
fn sorted_hashes_must_ascend_and_may_repeat() {
    assert_eq!(invalid(Gcs::from_sorted_hashes(&[5, 3], 2, 4)), "hashes");
    assert_eq!(invalid(Gcs::from_sorted_hashes(&[0, 9, 8], 2, 4)), "hashes");
    let hashes = [0, 0, 1 << 63, u64::MAX];
    let set = Gcs::from_sorted_hashes(&hashes, 2, 4).unwrap();
    assert_eq!(set.as_bytes(), [0x03, 0x16]);
    assert_eq!(set.decode().unwrap(), [0, 0, 8, 15]);
    assert_eq!(set, Gcs::from_hashes(hashes.to_vec(), 2, 4).unwrap());
}

// ---- values.rs: decoding

/// N = 2, P = 3, M = 8, so F = 16. Codes "0 000" (value 0) then "110 000" (gap 16): the
/// second value is 16 = F, out of range. Bits 0000 1100 00, padded: 0x0C 0x00.
const REACHES_F: [u8; 2] = [0x0C, 0x00];
/// The same shape with a last gap of 15 = "10 111": values 0 and 15 = F − 1, the largest
/// allowed. Bits 0000 1011 1, padded: 0x0B 0x80.
const ENDS_AT_F_MINUS_1: [u8; 2] = [0x0B, 0x80];

/// A value of F or more is corrupt, named at the byte where the decoder stands after its code
/// (bit 10, byte 1); F − 1 is a value like any other.
#[test]
fn a_value_reaching_f_is_corrupt() {
    let params = Params::new(2, 3, 8).unwrap();
    let bad = Gcs::new(params, &REACHES_F[..]).unwrap();
    assert_eq!(corrupt_at(bad.decode()), 1);
    assert_eq!(corrupt_at(bad.validate()), 1);
    assert_eq!(corrupt_at(bad.contains_value(15)), 1);
    let good = Gcs::new(params, &ENDS_AT_F_MINUS_1[..]).unwrap();
    assert_eq!(good.decode().unwrap(), [0, 15]);
    good.validate().unwrap();
    assert!(good.contains_value(15).unwrap());
}

/// The iterator yields each value, then the first error once, then nothing; its upper bound
/// is the number of codes left (none after the error). `bit_position` is the offset of the
/// next code and `last_value` the value decoded last (0 before the first).
#[test]
fn the_values_iterator_counts_codes_and_stops_after_an_error() {
    let params = Params::new(2, 3, 8).unwrap();
    let good = Gcs::new(params, &ENDS_AT_F_MINUS_1[..]).unwrap();
    let mut it = good.values();
    assert_eq!(it.size_hint(), (0, Some(2)));
    assert_eq!((it.bit_position(), it.last_value()), (0, 0));
    assert_eq!(it.next().unwrap().unwrap(), 0);
    assert_eq!(it.size_hint(), (0, Some(1)));
    assert_eq!((it.bit_position(), it.last_value()), (4, 0));
    assert_eq!(it.next().unwrap().unwrap(), 15);
    assert_eq!((it.bit_position(), it.last_value()), (9, 15));
    assert_eq!(it.size_hint(), (0, Some(0)));
    assert!(it.next().is_none());
    assert_eq!(it.next_value().unwrap(), None);

    let bad = Gcs::new(params, &REACHES_F[..]).unwrap();
    let mut it = bad.values();
    assert_eq!(it.next().unwrap().unwrap(), 0);
    assert_eq!(corrupt_at(it.next().unwrap()), 1);
    assert_eq!(it.size_hint(), (0, Some(0)));
    assert!(it.next().is_none());
    assert!(it.next().is_none());
}

/// `validate` refuses a byte after the last code's byte (at that byte's offset) and a set
/// padding bit (at the last code's byte); `decode` checks neither.
#[test]
fn validate_names_trailing_bytes_and_padding() {
    let params = Params::new(2, 3, 8).unwrap();
    let longer = [0x0B, 0x80, 0x00];
    let set = Gcs::new(params, &longer[..]).unwrap();
    assert_eq!(set.decode().unwrap(), [0, 15]);
    assert_eq!(corrupt_at(set.validate()), 2);
    let padded = [0x0B, 0x81];
    let set = Gcs::new(params, &padded[..]).unwrap();
    assert_eq!(set.decode().unwrap(), [0, 15]);
    assert_eq!(corrupt_at(set.validate()), 1);
}

// ---- query.rs: the one-pass queries

/// N = 3, P = 3, M = 8, so F = 24: codes "0 000" (0), "0 101" (gap 5), "1110 000" (gap 24,
/// value 29 ≥ F). Bits 0000 0101 1110 000, padded: 0x05 0xE0. Valid up to the third code.
const CORRUPT_THIRD: [u8; 2] = [0x05, 0xE0];

/// A query stops as soon as its answer is known, so a stream that is corrupt only after that
/// point still answers: `match_all_values` of 3 is false once the value 5 passes it, and the
/// single lookups and `match_any_values` likewise; a target past 5 reaches the corrupt code.
#[test]
fn queries_stop_before_a_later_corrupt_code() {
    let set = Gcs::new(Params::new(3, 3, 8).unwrap(), &CORRUPT_THIRD[..]).unwrap();
    assert!(!set.match_all_values(&[3]).unwrap());
    assert!(!set.match_all_values(&[0, 3, 20]).unwrap());
    assert!(set.match_all_values(&[0, 5]).unwrap());
    assert!(!set.contains_value(3).unwrap());
    assert!(!set.match_any_values(&[1, 4]).unwrap());
    let mut hits = [true; 3];
    set.match_many_values(&[0, 0, 5], &mut hits).unwrap();
    assert_eq!(hits, [true; 3]);
    assert_eq!(corrupt_at(set.match_all_values(&[0, 6])), 1);
    assert_eq!(corrupt_at(set.contains_value(6)), 1);
}

// ---- mod.rs: the public helpers

/// `sort_hashes` sorts in place, for short lists (below the radix pass's 256) and long ones
/// (a radix pass on the top bits), with repeats, 0 and 2⁶⁴ − 1; std's sort is the reference.
#[test]
fn sort_hashes_sorts_short_and_long_lists() {
    let mut state = 7u64;
    for n in [0usize, 1, 5, 255, 256, 5_000] {
        let mut v: Vec<u64> = (0..n).map(|_| amq::hash::splitmix64(&mut state)).collect();
        if n > 3 {
            v[1] = u64::MAX;
            v[2] = 0;
            v[3] = v[0];
        }
        let mut expected = v.clone();
        expected.sort_unstable();
        gcs::sort_hashes(&mut v);
        assert_eq!(v, expected, "n = {n}");
    }
    // small values only: the radix digit comes from the low bits
    let mut v: Vec<u64> = (0..3_000u64).map(|i| (i * 7_919) % 1_000).collect();
    let mut expected = v.clone();
    expected.sort_unstable();
    gcs::sort_hashes(&mut v);
    assert_eq!(v, expected);
}

/// More than 4096 equal values (one radix bucket at every level, down to no bits left; all
/// zero: no bits at all) sort and encode: 5000 copies of one hash at P = 2, M = 4 are one
/// value, then 4999 zero gaps. The hash 2⁶³ maps to ⌊5000·4 / 2⌋ = 10000 = 2500·4, coded
/// "1"×2500 "0" "00", then 4999 codes "0 00": 2503 + 4999·3 = 17500 bits, 2188 bytes.
#[test]
fn many_equal_values_sort_and_encode() {
    for x in [0u64, 42] {
        let mut v = vec![x; 5_000];
        gcs::sort_hashes(&mut v);
        assert_eq!(v, vec![x; 5_000]);
    }
    let set = Gcs::from_hashes(vec![1 << 63; 5_000], 2, 4).unwrap();
    assert_eq!(set.as_bytes().len(), 2188);
    let values = set.decode().unwrap();
    assert_eq!(values, vec![10_000; 5_000]);
    set.validate().unwrap();
}

// ---- plan.rs: choosing P and M

/// `for_fpr` takes M = ⌈1/fpr⌉ and gives M back exactly from fpr = 1/M, including M where
/// 1/(1/M) rounds above M in f64 (49, 98) and the largest M, 2³² − 1; fpr 0.3 needs M = 4
/// (1/0.3 = 3.33...), fpr 0.25 too.
#[test]
fn for_fpr_takes_the_ceiling_of_one_over_fpr() {
    for m in [1u64, 2, 3, 7, 49, 98, 1000, 784_931, (1 << 32) - 1] {
        let plan = gcs::plan::for_fpr(1000, 1.0 / m as f64).unwrap();
        assert_eq!(plan.m, m);
        assert_eq!(plan.fpr, 1.0 / m as f64);
    }
    assert_eq!(gcs::plan::for_fpr(10, 0.3).unwrap().m, 4);
    assert_eq!(gcs::plan::for_fpr(10, 0.25).unwrap().m, 4);
    assert_eq!(
        invalid(gcs::plan::for_fpr(10, 1.0 / (1u64 << 32) as f64)),
        "fpr"
    );
}

/// `for_p` accepts P = 32 (`MAX_P`), where the optimal M, round(1.497137 · 2³²) =
/// 6 430 154 453 (1.497137 · 2³² = 6 430 154 452.63), is past the limit and is clamped to
/// 2³² − 1; P = 31 keeps round(3 215 077 226.32); P = 33 is refused.
#[test]
fn for_p_clamps_m_at_the_largest_p() {
    assert_eq!(gcs::MAX_P, 32);
    assert_eq!(gcs::optimal_m(32), 6_430_154_453);
    let plan = gcs::plan::for_p(10, 32).unwrap();
    assert_eq!((plan.p, plan.m), (32, (1 << 32) - 1));
    let plan = gcs::plan::for_p(10, 31).unwrap();
    assert_eq!((plan.p, plan.m), (31, 3_215_077_226));
    assert_eq!(invalid(gcs::plan::for_p(10, 33)), "p");
}

// ---- index.rs: the sampled index

/// The set of hashes 2⁶⁴ − 1, 0, 2⁶³ at P = 2, M = 4 (the `from_hashes` example): F = 12,
/// values 0, 6, 11, gaps 0, 6, 5, codes "0 00" "10 10" "10 01" at bits 0, 3 and 7.
fn three_values() -> Gcs {
    let set = Gcs::from_hashes(vec![u64::MAX, 0, 1 << 63], 2, 4).unwrap();
    assert_eq!(set.as_bytes(), [0b0001_0101, 0b0010_0000]);
    set
}

/// An index keeps s, holds ⌈N / 2^s⌉ samples of 16 bytes, and is empty only for an empty set;
/// through it every value of the set is found and every other value of [0, F) is not.
#[test]
fn index_accessors_and_lookups_at_every_step() {
    let set = three_values();
    for (s, samples) in [(0u32, 3usize), (1, 2), (2, 1), (31, 1)] {
        let index = SampledIndex::build(&set, s).unwrap();
        assert_eq!(index.log2_step(), s);
        assert_eq!(index.len(), samples);
        assert_eq!(index.size_bytes(), 16 * samples);
        assert!(!index.is_empty());
        for v in 0..12 {
            let member = v == 0 || v == 6 || v == 11;
            assert_eq!(
                index.contains_value(&set, v).unwrap(),
                member,
                "s = {s}, v = {v}"
            );
        }
        let h = |item: &[u8]| u64::from_le_bytes(item.try_into().unwrap());
        assert!(index
            .contains(&set, &(1u64 << 63).to_le_bytes(), &h)
            .unwrap());
        // 2⁶² maps to ⌊12 / 4⌋ = 3, not a value
        assert!(!index
            .contains(&set, &(1u64 << 62).to_le_bytes(), &h)
            .unwrap());
    }
    let empty = Gcs::from_hashes(Vec::new(), 2, 4).unwrap();
    let index = SampledIndex::build(&empty, 3).unwrap();
    assert!(index.is_empty());
    assert_eq!(
        (index.len(), index.size_bytes(), index.log2_step()),
        (0, 0, 3)
    );
    assert!(!index.contains_value(&empty, 0).unwrap());
}

/// Building an index decodes the whole set, so a value reaching F is refused there.
#[test]
fn index_build_refuses_a_corrupt_set() {
    let bad = Gcs::new(Params::new(2, 3, 8).unwrap(), &REACHES_F[..]).unwrap();
    assert_eq!(corrupt_at(SampledIndex::build(&bad, 0)), 1);
}

// ---- formats/bip158.rs: the engine's errors at the filter's bytes

/// A BIP158 basic filter (P = 19, M = 784931) is a CompactSize N, then the codes; errors name
/// the byte of the whole filter. N = 1 (prefix 0x01) and one code "0" + 19 zero bits (value
/// 0) take bytes 1 to 3; a fourth code byte (file byte 4) is excess data; a set padding bit
/// is in file byte 3; the code "10" + 19 ones is value 2²⁰ − 1 ≥ F = 784931 and the decoder
/// stands at bit 21 of the codes, byte 2 of them, file byte 3; two code bytes (of the 3 that
/// 20 bits need) are short from file byte 1 on.
#[cfg(feature = "bip158")]
#[test]
fn bip158_errors_name_the_filters_byte() {
    use amq::formats::bip158::BlockFilter;
    let hash = [0u8; 32];
    let f = |bytes: &[u8]| BlockFilter::from_bytes(&hash, bytes.to_vec());
    f(&[0x01, 0, 0, 0]).unwrap().validate().unwrap();
    assert_eq!(corrupt_at(f(&[0x01, 0, 0, 0, 0])), 4);
    assert_eq!(corrupt_at(f(&[0x01, 0, 0, 0x01]).unwrap().validate()), 3);
    assert_eq!(corrupt_at(f(&[0x01, 0xBF, 0xFF, 0xF8])), 3);
    match f(&[0x01, 0, 0]) {
        Err(Error::Truncated {
            offset,
            needed,
            available,
            ..
        }) => assert_eq!((offset, needed, available), (1, 3, 2)),
        other => panic!("expected Truncated, got {other:?}"),
    }
}
