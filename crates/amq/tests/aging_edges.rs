//! Edges of the aging Bloom filter (`src/window/aging.rs`, `src/window/aging/`) that the
//! window_edges and wire_edges tests leave open: the decoder's check for bits past the m
//! groups in a bit word after the first, at the byte a hand-worked layout puts the bit in, and
//! the seed a filter reports.
//! Each test was written against a mutant of `src/window/aging.rs` or `src/window/aging/*.rs`
//! that cargo-mutants found the lib, aging_edges, batch, fpr_model, schema, window_edges and
//! wire_edges tests let through.

use amq::window::{AgingBloom, Rotation};

#[path = "common/errors.rs"]
mod errors;
use errors::corrupt_at;
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
