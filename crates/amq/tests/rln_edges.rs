//! Edges of the sliding-window cuckoo filter (`src/rln/`) that the other RLN tests leave open:
//! the planner's bounds on ε (0 and 1 refused, the widest ε a 2-bit fingerprint meets
//! accepted), the bytes of an epoch table for L live members worked out from `2ᵏ · ⌈4f/8⌉`,
//! and a plan's m bits and bits per key, which differ from its bytes when 4f is not a multiple
//! of 8. Each test was written against a mutant of `src/rln/*.rs` that cargo-mutants found the
//! rln, limit and batch tests let through.

use amq::math::PlanDetails;
use amq::rln::{epoch_bytes_for, fingerprint_bits_for, plan, RlnSpec};
use amq::Error;

#[path = "common/errors.rs"]
mod errors;
use errors::invalid;

// ---- plan.rs

/// ε must lie strictly between 0 and 1. At ε = 1 every query may answer "maybe", and a 2-bit
/// fingerprint would "meet" it (`1 − (2/3)^7.6 ≈ 0.954 < 1`), so it must be refused by the
/// range check, not by the search; ε = 0 is met by no width, and is refused as out of range
/// (the message says so) rather than as needing more than 32 bits. Just under 1, ε = 0.96 is
/// met by the narrowest fingerprint, 2 bits; 0.95 is not (`0.954 > 0.95`), so 3 bits.
/// Against the mutants `&&` → `||`, `<` → `<=` and `>` → `>=` in the range check.
#[test]
fn fingerprint_bits_refuse_fpr_outside_the_open_unit_interval() {
    for e in [1.0, 1.5, -0.25, f64::NAN, f64::INFINITY] {
        assert_eq!(invalid(fingerprint_bits_for(e)), "fpr", "ε = {e}");
    }
    let zero = fingerprint_bits_for(0.0).unwrap_err();
    assert!(matches!(zero, Error::InvalidParameter { name: "fpr", .. }));
    assert!(
        zero.to_string().contains("strictly between 0 and 1"),
        "{zero}"
    );
    let one = fingerprint_bits_for(1.0).unwrap_err();
    assert!(
        one.to_string().contains("strictly between 0 and 1"),
        "{one}"
    );
    assert_eq!(fingerprint_bits_for(0.96).unwrap(), 2);
    assert_eq!(fingerprint_bits_for(0.95).unwrap(), 3);
    assert_eq!(
        invalid(plan(&RlnSpec {
            epoch_items: 10,
            fpr: 1.0
        })),
        "fpr"
    );
}

/// The bytes of an epoch table for L live members with f-bit fingerprints are
/// `2ᵏ · ⌈4f/8⌉`, k the fewest with `L ≤ 0.95 · 4 · 2ᵏ`: 15,564 members fit 4,096 buckets
/// (`0.95 · 16,384 = 15,564.8`), 15,565 need 8,192; f = 13 packs 4 slots in 7 bytes, f = 10
/// in 5, f = 16 in 8. Small epochs are planned at load 0.5 (the floor of `planned_load`), 2
/// members a bucket: 2 members take one bucket, 3 take two, none still one (k = 0). More
/// members than 2³⁶ buckets hold is refused. Against the mutants `epoch_bytes_for` → `Ok(0)`
/// and → `Ok(1)`.
#[test]
fn epoch_bytes_are_buckets_times_the_bytes_of_four_slots() {
    assert_eq!(epoch_bytes_for(15_564, 13).unwrap(), 4096 * 7);
    assert_eq!(epoch_bytes_for(15_565, 13).unwrap(), 8192 * 7);
    assert_eq!(epoch_bytes_for(2, 10).unwrap(), 5); // 2 ≤ 0.5 · 4 · 1
    assert_eq!(epoch_bytes_for(3, 10).unwrap(), 2 * 5);
    assert_eq!(epoch_bytes_for(0, 16).unwrap(), 8);
    assert_eq!(epoch_bytes_for(1, 2).unwrap(), 1); // 4 slots of 2 bits: one byte
    assert_eq!(invalid(epoch_bytes_for(u64::MAX, 10)), "epoch_items");
}

/// A plan's m counts the bits of one full epoch's slots, `2ᵏ · 4 · f`, and its bits per key
/// are m over B: for B = 15,564 at ε = 0.001 (f = 13, 4,096 buckets) m = 4,096 · 52 =
/// 212,992 bits and 212,992 / 15,564 ≈ 13.68 bits per member, while its bytes round each
/// bucket up to 7 (28,672 bytes, 229,376 bits). B = 1 at ε = 0.5 (f = 4, one bucket):
/// m = 16 and 16 bits per member. Against the mutants of `*` in m (→ `+`, `/`) and of `/` in
/// bits per key (→ `%`, `*`).
#[test]
fn plan_m_and_bits_per_key_count_slots_not_padded_bytes() {
    let p = plan(&RlnSpec {
        epoch_items: 15_564,
        fpr: 0.001,
    })
    .unwrap();
    let PlanDetails::SlidingWindowCuckoo(d) = p.details else {
        panic!("{p:?}")
    };
    assert_eq!((d.fingerprint_bits, d.epoch_buckets), (13, 4096));
    assert_eq!((p.items, p.k), (15_564, 2));
    assert_eq!(p.m_bits, 212_992);
    assert_eq!(p.bytes, 28_672);
    assert!(
        (p.bits_per_key - 212_992.0 / 15_564.0).abs() < 1e-9,
        "{p:?}"
    );
    assert!((d.load_factor - 15_564.0 / 16_384.0).abs() < 1e-12);

    let one = plan(&RlnSpec {
        epoch_items: 1,
        fpr: 0.5,
    })
    .unwrap();
    assert_eq!((one.m_bits, one.bytes), (16, 2));
    assert_eq!(one.bits_per_key, 16.0);
}
