//! More edges of the sliding-window Bloom filter (`src/window/`) that the other tests leave
//! open (`window_edges.rs` holds the first ones): the shape check's inclusive limits and the
//! name of the parameter it refuses, the batched query of hashes, and an archived chunk's
//! bytes in memory as it goes from offsets to a bitmap. Each test was written against a mutant
//! of `src/window/{params, batch, archive}.rs` that cargo-mutants found the lib, aging_edges,
//! batch, window_edges and wire_edges tests let through (and checked by hand against
//! fpr_model, schema and limit).

use amq::window::{
    SlidingWindowBloom, WindowParams, MAX_CHUNK_BITS, MAX_WINDOW_BITS, MAX_WINDOW_K,
};

#[path = "common/errors.rs"]
mod errors;
use errors::invalid;

// ---- params.rs

/// The largest shape `check` accepts: S = 2³² bits (offsets in a chunk are 32-bit), W = 2³⁶
/// bits and k = 64; the limits are inclusive. Past them, and for a chunk that is 0 or not a
/// multiple of 64, a window that is 0 or not a multiple of S, B = 0 or k = 0, the error names
/// the parameter at fault. Each bad chunk comes with a window that is a multiple of it, so
/// that only the chunk's own test can refuse it (`S`, not `W`). Against the mutants of
/// `check` that move a limit (`>` → `==` or `>=` for S, W and k) or let a chunk of 100 bits
/// through (`s == 0 || !multiple` → `&&`).
#[test]
fn window_shape_limits_are_inclusive_and_the_refusal_names_the_parameter() {
    let top = WindowParams {
        window_bits: MAX_WINDOW_BITS,
        chunk_bits: MAX_CHUNK_BITS,
        batch: 1,
        k: MAX_WINDOW_K,
    };
    assert!(top.check().is_ok());
    let chunk = |s: u64, w: u64| WindowParams {
        chunk_bits: s,
        window_bits: w,
        ..top
    };
    assert_eq!(invalid(chunk(0, 64).check()), "S");
    assert_eq!(invalid(chunk(100, 6400).check()), "S");
    let over = MAX_CHUNK_BITS + 64;
    assert_eq!(invalid(chunk(over, over).check()), "S");
    let window = |w: u64| WindowParams {
        window_bits: w,
        chunk_bits: 128,
        ..top
    };
    assert!(window(128).check().is_ok());
    assert_eq!(invalid(window(0).check()), "W");
    assert_eq!(invalid(window(192).check()), "W");
    assert_eq!(invalid(window(MAX_WINDOW_BITS + 128).check()), "W");
    assert_eq!(invalid(WindowParams { batch: 0, ..top }.check()), "B");
    for k in [0, MAX_WINDOW_K + 1] {
        assert_eq!(invalid(WindowParams { k, ..top }.check()), "k");
    }
    assert!(WindowParams { k: 1, ..top }.check().is_ok());
}

// ---- batch.rs

/// `contains_hash_batch` answers each (hash, position) pair as `contains_hash` does: every
/// item is found at the position it was inserted at (no false negatives), and the other
/// pairs (items at other positions, items never inserted) get the single query's answer,
/// through the ring and the archive alike (W = 256, S = 64: 4 chunks; B = 2; 40 items slide
/// the window 16 chunks, so most of them are archived). Against the mutant that leaves `out`
/// untouched, which only `contains_batch` was tested for.
#[test]
fn contains_hash_batch_answers_as_single_queries() {
    let p = WindowParams {
        window_bits: 256,
        chunk_bits: 64,
        batch: 2,
        k: 3,
    };
    let mut f = SlidingWindowBloom::new(p, 5).unwrap();
    for i in 0..40u32 {
        assert_eq!(f.insert(&i).unwrap(), u64::from(i));
    }
    assert!(f.archived_chunks() > 0);
    let mut hashes = Vec::new();
    let mut positions = Vec::new();
    for i in 0..40u32 {
        for (item, position) in [(i, u64::from(i)), (i, u64::from(39 - i)), (i + 1000, 7)] {
            hashes.push(f.hash(&item));
            positions.push(position);
        }
    }
    let mut out = vec![false; hashes.len()];
    f.contains_hash_batch(&hashes, &positions, &mut out);
    for (j, (&h, &at)) in hashes.iter().zip(&positions).enumerate() {
        assert_eq!(out[j], f.contains_hash(h, at), "query {j}");
    }
    assert!(
        out.iter().step_by(3).all(|&hit| hit),
        "a member was not found"
    );
}

// ---- archive.rs

/// An archived chunk's bytes in memory are its offsets, 4 bytes each (fewer than 8 leave no
/// spare room: at most an eighth more), or its bitmap of S/8 bytes, once 32 bits per offset
/// reach the S bits; plus the allocation's overhead. W = S = 128, B = 1, k = 1: the insert at
/// position 1 archives chunk 0 with one bit, and late inserts at position 0 set more bits of
/// that chunk, the archive keeping its one entry. Bits 2 and 3 add an offset each (+4 bytes);
/// the 4th turns the 3 offsets (12 bytes) into the 2-word bitmap (16 bytes): +4 again. Against
/// the mutants `4 + room`, `4 / room`, `8 + words` and `8 / words` of `Archived::size_bytes`,
/// which no test compared with the layout (tests/limit.rs catches only its 0 and 1).
#[test]
fn an_archived_chunk_takes_four_bytes_an_offset_then_its_bitmap() {
    let p = WindowParams {
        window_bits: 128,
        chunk_bits: 128,
        batch: 1,
        k: 1,
    };
    let mut f = SlidingWindowBloom::new(p, 3).unwrap();
    f.insert("a").unwrap();
    f.insert("b").unwrap();
    assert_eq!((f.archived_chunks(), f.archived_bits_set()), (1, 1));
    let mut bytes = vec![f.archive_bytes()];
    let mut item = 0u32;
    while f.archived_bits_set() < 4 {
        if f.insert_at(&item, 0).unwrap() {
            bytes.push(f.archive_bytes());
        }
        item += 1;
    }
    assert_eq!(f.archived_chunks(), 1);
    let steps: Vec<i64> = bytes
        .windows(2)
        .map(|w| w[1] as i64 - w[0] as i64)
        .collect();
    assert_eq!(steps, [4, 4, 4]);
}
