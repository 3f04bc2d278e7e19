//! Edges of the Algorand box planner (`src/formats/algorand/plan.rs`) that `tests/algorand.rs`
//! leaves open: the expected refusals while minting a large supply, where the planner sums in
//! chunks of many calls (midpoint rule), against the exact sum over calls worked out here; a
//! box too small to ever mint the supply; and the range of the target ε. Each test was written
//! against a mutant of that file that cargo-mutants found the lib and algorand tests let
//! through.
#![cfg(feature = "algorand")]

use amq::formats::algorand::{box_references, expected_refusals_to_mint, plan};

#[path = "common/errors.rs"]
mod errors;
use errors::invalid;

/// ε after j calls into an empty box of m bits and k hashes: `(1 − (1 − 1/m)^(k·j))^k`.
fn rate_after(j: f64, m: u64, k: u8) -> f64 {
    let zero = (f64::from(k) * j * (-1.0 / m as f64).ln_1p()).exp();
    (1.0 - zero).powi(i32::from(k))
}

/// The exact expectation, one call at a time: call j is refused with probability ε(j) and
/// mints otherwise, so after c calls `c − Σ_{j<c} ε(j)` names are minted; the last call is
/// taken in the fraction that mints exactly the rest. Returns (refusals, ε after the calls).
fn exact_refusals_to_mint(m: u64, k: u8, n: u64) -> (f64, f64) {
    let (mut minted, mut refused) = (0.0f64, 0.0f64);
    for j in 0u64.. {
        let e = rate_after(j as f64, m, k);
        if minted + (1.0 - e) >= n as f64 {
            let t = (n as f64 - minted) / (1.0 - e);
            return (refused + t * e, rate_after(j as f64 + t, m, k));
        }
        minted += 1.0 - e;
        refused += e;
    }
    unreachable!()
}

/// Minting n = 400,000 names into a box of m = 2²⁰ bits with k = 2: the planner takes chunks
/// of ⌊n / 8192⌋ = 48 calls at the rate at each chunk's middle, and its last chunk only as many
/// calls as mint the rest. The exact sum over the ~467,000 calls gives about 66,561 refusals
/// and ε ≈ 0.347 at the end; the midpoint rule is within a refusal of it. Evaluating at a
/// chunk's start or end instead, or letting the last chunk overshoot the supply, is off by
/// 12 to 40 refusals. Against the mutants of `calls + step / 2.0` (`+` → `-`, `/` → `%`,
/// `/` → `*`) and of `target - minted` (→ `+`) in `expected_refusals_to_mint`.
#[test]
fn refusals_to_mint_a_large_supply_match_the_sum_over_calls() {
    let (m, k, n) = (1u64 << 20, 2u8, 400_000u64);
    let (want, want_rate) = exact_refusals_to_mint(m, k, n);
    assert!((66_000.0..67_000.0).contains(&want), "{want}");
    let (refused, rate) = expected_refusals_to_mint(m, k, n);
    assert!((refused - want).abs() < 1.0, "{refused} against {want}");
    assert!(
        (rate - want_rate).abs() < 1e-5,
        "{rate} against {want_rate}"
    );
}

/// A box of 8 bits with one hash can never hold 1,000 distinct names: every bit is set after
/// a few hundred calls (`(7/8)^300 ≈ 4·10⁻¹⁸`, so ε rounds to 1), after which every call is
/// refused. The expected refusals are then infinite and the final rate 1, not the finite sum
/// of the calls made before the loop gives up. Against the mutants of the `1.0 - 1e-12`
/// saturation threshold (`-` → `+`, `-` → `/`), under which ε never reaches it.
#[test]
fn a_box_that_saturates_never_mints_the_supply() {
    assert_eq!(expected_refusals_to_mint(8, 1, 1_000), (f64::INFINITY, 1.0));
    // 8 names into 8 bits and 1 hash do mint, with finitely many refusals
    let (refused, rate) = expected_refusals_to_mint(8, 1, 4);
    assert!(refused.is_finite() && refused > 0.0 && rate < 1.0);
}

/// The target ε must lie strictly between 0 and 1: at ε = 1 any box "reaches" the target and
/// the planner would answer a 1-byte box. 1.0, 1.5 and NaN are refused as `fpr`, as are 0 and
/// negative rates; 0 as out of range (the message says so), not as beyond one box. Against
/// the mutants `&&` → `||`, `<` → `<=` and `>` → `>=` of the range check in `plan`.
#[test]
fn plan_refuses_a_target_outside_the_open_unit_interval() {
    for target in [1.0, 1.5, 0.0, -0.5, f64::NAN] {
        let r = plan(100, target, 5);
        let message = format!("{r:?}");
        assert_eq!(invalid(r), "fpr", "target {target}");
        assert!(message.contains("strictly between 0 and 1"), "{message}");
    }
    assert!(plan(100, 0.999, 5).is_ok());
}

/// "At most the target" is inclusive, and counts the refused names' bits. 30,000 names in the
/// largest box, 32,768 bytes (m = 262,144 bits), are best served by k = 4 (classic
/// `(1 − e^(−4·30,000/m))^4 ≈ 0.018`; k = 3 cannot go below 0.024): a target equal to that
/// box's rate with the refusals counted is reached, by that box; a target equal to its classic
/// rate, a lower bound, is not reached by any box. Against the mutant `>` → `>=` of the
/// planner's "no box of this k reaches it" skip (which drops the exact hit) and of its
/// classic-rate shortcut (which accepts the classic rate as reached).
#[test]
fn plan_reaches_a_target_equal_to_the_largest_box_rate() {
    let (n, m, k) = (30_000u64, 262_144u64, 4u8);
    let reached = expected_refusals_to_mint(m, k, n).1;
    let p = plan(n, reached, 5).unwrap();
    assert_eq!((p.box_bytes, p.k, p.fpr), (32_768, 4, reached));
    let classic = amq::math::fpr(n, m, u32::from(k));
    assert!(classic < reached);
    assert_eq!(invalid(plan(n, classic, 5)), "fpr");
}

/// The smallest box is one byte: one name in m = 8 bits is refused by no call and leaves
/// `(1 − (7/8)^k)^k`, at most 0.125 (k = 1) and least at k = 4, `(1 − (7/8)^4)^4 ≈ 0.029`, so
/// at ε = 0.5 every k reaches it with one byte and the lowest rate, k = 4, wins. The bisection
/// for the box must end at its lower bound, 1. Against the mutant `hi - lo` → `hi / lo` of its
/// midpoint, which then stays at 2 forever (a timeout, not a wrong answer).
#[test]
fn plan_for_one_name_is_a_one_byte_box() {
    let p = plan(1, 0.5, 5).unwrap();
    assert_eq!((p.box_bytes, p.m_bits, p.k), (1, 8, 4));
    assert!(p.fpr <= 0.5 && p.fits_on_stack);
    assert_eq!((p.box_references, p.app_calls_for_box_references), (1, 1));
}

/// A box reference grants 1,024 bytes of I/O, so a box of b bytes needs ⌈b / 1,024⌉ of them,
/// and at least one to be named at all: 0 and 1,024 bytes need 1, 1,025 need 2, the largest
/// box (32,768 bytes) 32, which at 8 references an app call takes 4 calls. Against the
/// mutants `box_references` → 0 and → 1.
#[test]
fn box_references_round_the_box_up_to_whole_kilobytes() {
    for (bytes, references) in [(0, 1), (1, 1), (1_024, 1), (1_025, 2), (32_768, 32)] {
        assert_eq!(box_references(bytes), references, "{bytes} bytes");
    }
    let p = plan(30_000, 0.05, 5).unwrap();
    assert_eq!(p.box_references, p.box_bytes.div_ceil(1_024));
    assert_eq!(p.app_calls_for_box_references, p.box_references.div_ceil(8));
}
