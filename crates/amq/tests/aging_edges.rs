//! Edges of the aging Bloom filter (`src/window/aging.rs`, `src/window/aging/`,
//! `src/window/aging_plan.rs`) that the window_edges and wire_edges tests leave open: the
//! decoder's check for bits past the m groups in a bit word after the first, at the byte a
//! hand-worked layout puts the bit in; the seed a filter reports; clock jumps of any length;
//! the batched query of hashes; and the sizing from a window: the period c or Δ, the
//! refusals by name, the planned bytes. Each test was written against a mutant of those files
//! that cargo-mutants found the lib, aging_edges, batch, fpr_model, schema, window_edges and
//! wire_edges tests let through.

use amq::clock::ManualClock;
use amq::math::Spec;
use amq::window::{AgingBloom, Rotation};
use amq::Insert;

#[path = "common/errors.rs"]
mod errors;
use errors::{corrupt_at, invalid};
#[path = "common/files.rs"]
mod files;
use files::edited;

// ---- aging/encoding.rs

/// m = 20 groups of G = 4 bits (g = 4 generations) take 80 bits: all of the first bit word
/// and bits 0..16 of the second. The file has 10 parameter words, so its payload starts at
/// `⌈(24 + 80)/64⌉ · 64 = 128`: the 4 counts, then the two bit words at payload bytes 32 and
/// 40. Bit 15 of the second word (group 19, generation 3) loads; bit 16 (group 20, past m)
/// is refused at its own byte, 128 + 40 + 2 = 170, and bit 63 at 128 + 47 = 175. Against the
/// mutant `i * 64` → `i / 64` of a bit word's first bit, which took the second word for the
/// first and let every bit of it through.
#[test]
fn bits_past_m_in_a_later_word_are_refused_at_their_byte() {
    let f = AgingBloom::new(20, 1, 4, Rotation::Count(2), 0).unwrap();
    let good = f.to_bytes();
    let c = amq::wire::decode(&good).unwrap();
    assert_eq!(
        (c.params.len(), c.payload_offset(), c.payload.len()),
        (10, 128, 48)
    );
    let with_second_word =
        |w: u64| edited(&good, |_, d| d[40..48].copy_from_slice(&w.to_le_bytes()));
    let back = AgingBloom::from_bytes(&with_second_word(1 << 15)).unwrap();
    assert_eq!(back.to_bytes(), with_second_word(1 << 15));
    assert_eq!(
        corrupt_at(AgingBloom::from_bytes(&with_second_word(1 << 16))),
        170
    );
    assert_eq!(
        corrupt_at(AgingBloom::from_bytes(&with_second_word(1 << 63))),
        175
    );
}

// ---- aging.rs

/// A filter reports the seed it was built with, keeps it through its file (parameter word 3)
/// and hashes with it: the seed decides the bits, so a filter that forgot it would answer
/// other items. Against the mutant `seed()` → 0, which the other tests (all with seed 0 or
/// reading only the bits) let through.
#[test]
fn the_aging_seed_is_the_one_given() {
    let f = AgingBloom::new(64, 2, 3, Rotation::Count(2), 0x5eed).unwrap();
    assert_eq!(f.seed(), 0x5eed);
    let bytes = f.to_bytes();
    assert_eq!(amq::wire::decode(&bytes).unwrap().params[3], 0x5eed);
    assert_eq!(AgingBloom::from_bytes(&bytes).unwrap().seed(), 0x5eed);
    let zero = AgingBloom::new(64, 2, 3, Rotation::Count(2), 0).unwrap();
    assert_ne!(f.hash("a"), zero.hash("a"));
}

/// A clock jump of s intervals rotates the ring as s single steps do, for every s from 1 to
/// 3g + 1 with g = 3 and g = 4 (Δ = 1, the first insert at time 1 in generation 1): the files
/// agree byte for byte, the current generation (1 + s) mod g included, and so does the next
/// insert. A jump of more than g steps clears the ring g times and moves the current
/// generation on by (s − g) mod g. A filter rotated by hand to generation 2 of 3 in
/// interval 0, its clock jumped to the end of time (s = 2⁶⁴ − 1 steps), lands on generation
/// (2 + s) mod 3 = 2 (2⁶⁴ − 1 is a multiple of 3), without overflow: current + s would pass
/// 2⁶⁴. Against the mutants of `(current + (steps − g) % g) % g` in `expire`, which the
/// one jump of 11 steps in window_edges lets through where (11 − 3) / 3 and (11 − 3) % 3 agree.
#[test]
fn a_jump_of_any_length_rotates_as_single_steps_do() {
    for g in [3u32, 4] {
        for s in 1..=u64::from(3 * g + 1) {
            let start = |clock: &ManualClock| {
                let mut f = AgingBloom::new(64, 2, g, Rotation::Time(1), 0)
                    .unwrap()
                    .with_clock(clock.clone());
                f.insert("a").unwrap();
                f
            };
            let (jump, steps) = (ManualClock::new(1), ManualClock::new(1));
            let (mut j, mut t) = (start(&jump), start(&steps));
            jump.set(1 + s);
            j.expire();
            for now in 2..=1 + s {
                steps.set(now);
                t.expire();
            }
            assert_eq!(j.to_bytes(), t.to_bytes(), "g = {g}, s = {s}");
            let current = amq::wire::decode(&j.to_bytes()).unwrap().params[6];
            assert_eq!(current, (1 + s) % u64::from(g), "g = {g}, s = {s}");
            j.insert("b").unwrap();
            t.insert("b").unwrap();
            assert_eq!(j.to_bytes(), t.to_bytes(), "g = {g}, s = {s}");
        }
    }
    let clock = ManualClock::new(0);
    let mut f = AgingBloom::new(64, 2, 3, Rotation::Time(1), 0)
        .unwrap()
        .with_clock(clock.clone());
    f.rotate();
    f.rotate(); // generation 2, still in interval 0
    clock.set(u64::MAX);
    f.expire();
    assert_eq!(amq::wire::decode(&f.to_bytes()).unwrap().params[6], 2);
    assert_eq!(f.epoch(), u64::MAX);
}

/// `contains_hash_batch` answers each hash as `contains_hash` does: with Count(10) over 3
/// generations, 40 items leave items 10 to 39 in the live generations (found: no false
/// negatives) and items 0 to 9 cleared by the third rotation, and the batch agrees with the
/// single query on every member, every forgotten item and every item never inserted. Against
/// the mutant that leaves `out` untouched, which only `contains_batch` (items, not hashes) was
/// tested for.
#[test]
fn contains_hash_batch_answers_as_single_queries() {
    let mut f = AgingBloom::new(1 << 10, 3, 3, Rotation::Count(10), 0).unwrap();
    for i in 0..40u32 {
        f.insert(&i).unwrap();
    }
    let hashes: Vec<u128> = (0..80u32).map(|i| f.hash(&i)).collect();
    let mut out = vec![false; hashes.len()];
    f.contains_hash_batch(&hashes, &mut out);
    for (i, &h) in hashes.iter().enumerate() {
        assert_eq!(out[i], f.contains_hash(h), "item {i}");
    }
    assert!(out[10..40].iter().all(|&hit| hit), "a member was not found");
}

// ---- aging_plan.rs

/// A window of w insertions over g generations gives each c = ⌈w/(g − 1)⌉ items, so that the
/// g − 1 full generations besides the current one hold at least w: w = 10, g = 4 makes c = 4
/// (3 would hold 9). A window of s seconds gives the interval Δ = ⌈s/(g − 1)⌉: 3600 s over
/// 4 generations makes Δ = 1200, and 3601 s makes 1201. Against the mutants of g − 1 in
/// `aging_shape` (g + 1, g / 1), which give c = 2 or 3 and Δ = 720 or 900.
#[test]
fn the_window_is_shared_by_g_minus_one_generations() {
    let count = AgingBloom::with_window(10, 4, 0.01, 0).unwrap();
    assert_eq!(
        (count.rotation(), count.generations()),
        (Rotation::Count(4), 4)
    );
    let time = |s: u64| AgingBloom::with_time_window(s, 4, 100, 0.01, 0).unwrap();
    assert_eq!(time(3600).rotation(), Rotation::Time(1200));
    assert_eq!(time(3601).rotation(), Rotation::Time(1201));
}

/// A window of 0 insertions, of 0 seconds, or of 0 items per interval is refused as `window`,
/// with a message that says it must be at least 1, before anything is sized from it (a
/// capacity of 0 would be refused as `n`, an interval of 0 as `rotation`); a rate outside
/// (0, 1) is refused as `fpr` quoting the rate the caller gave, not the per-generation rate
/// derived from it. Against the mutants of the match arms and guards of `aging_shape` and of
/// the range test of `per_generation_fpr`.
#[test]
fn empty_windows_and_bad_rates_are_refused_by_name() {
    let message = |r: amq::Result<AgingBloom>| r.unwrap_err().to_string();
    assert_eq!(invalid(AgingBloom::with_window(0, 4, 0.01, 0)), "window");
    for (seconds, items) in [(0, 100), (3600, 0), (0, 0)] {
        let r = AgingBloom::with_time_window(seconds, 4, items, 0.01, 0);
        assert!(
            message(r.clone()).contains("at least 1"),
            "{seconds} s, {items}"
        );
        assert_eq!(invalid(r), "window");
    }
    for fpr in [0.0, 1.0, 1.5, -0.5] {
        let r = AgingBloom::with_window(10, 4, fpr, 0);
        assert!(message(r.clone()).contains(&format!("got {fpr}")), "{fpr}");
        assert_eq!(invalid(r), "fpr");
    }
}

/// The planner's payload bytes for an aging spec are those of the filter it describes:
/// ⌈m·G/64⌉ words, G = g rounded up to a power of two (g = 3 → G = 4, g = 5 → G = 8), the
/// size the built filter reports from the words it allocated. Against the mutants of
/// `m * G` and `8 * words` in `aging_shape`.
#[test]
fn the_planned_bytes_are_the_built_filters() {
    for g in [3, 5] {
        let spec = Spec::AgingBloom {
            window: Some(1000),
            window_seconds: None,
            items_per_generation: None,
            generations: g,
            fpr: 0.01,
        };
        let plan = amq::math::plan(&spec).unwrap();
        let f = AgingBloom::with_window(1000, g, 0.01, 0).unwrap();
        let group = u64::from(g.next_power_of_two());
        assert_eq!(plan.bytes, f.size_bytes());
        assert_eq!(plan.bytes, 8 * (f.m() * group).div_ceil(64));
        assert_eq!(plan.k, f.k());
    }
}
