//! Edges of the sliding-window Bloom filter and the aging Bloom filter (`src/window/`) that the
//! other tests leave open: the accessors on shapes small enough to work out by hand (k = 1 and
//! W = S, so that every insert sets one bit and every slide archives one chunk of one bit),
//! the archive's set bits and bytes, the decoders' errors with their byte offsets, and the
//! aging filter's rotations by count and by time. The sliding-window tests were each written
//! against a mutant of `src/window/mod.rs` or `encoding.rs` that cargo-mutants found the lib,
//! batch, fpr_model, schema, wire_edges and limit tests let through; the aging ones against
//! the few aging.rs mutants the run reached, and checked against hand-applied mutants of the
//! rest (counts, sizes, rates, the live generations, rotate and expire).

use amq::clock::ManualClock;
use amq::window::{AgingBloom, Rotation, SlidingWindowBloom, WindowParams};
use amq::{Filter, Insert};

#[path = "common/errors.rs"]
mod errors;
#[path = "common/files.rs"]
mod files;
use files::edited;

/// W = S = 64 bits, B = 1, k = 1: the window is one chunk, it slides at every insert, and the
/// item at position L sets exactly one bit, in chunk L.
const ONE_BIT: WindowParams = WindowParams {
    window_bits: 64,
    chunk_bits: 64,
    batch: 1,
    k: 1,
};

// ---- mod.rs: the accessors

/// A filter reports the seed it was built with, and keeps it through its file: the seed
/// decides the bits, so a filter with another seed would answer other items.
#[test]
fn the_seed_is_the_one_given() {
    for seed in [0, 1, 0x5eed_cafe_f00d_0042, u64::MAX] {
        let mut f = SlidingWindowBloom::new(ONE_BIT, seed).unwrap();
        assert_eq!(f.seed(), seed);
        f.insert("a").unwrap();
        assert_eq!(
            SlidingWindowBloom::from_bytes(&f.to_bytes())
                .unwrap()
                .seed(),
            seed
        );
    }
}

/// With k = 1 and W = S, inserting at positions 0 .. n sets one bit in each of chunks 0 .. n
/// and the insert at position L archives chunk L − 1 with its one bit: after n inserts the
/// archive holds n − 1 chunks and n − 1 set bits, and the window one bit of 64. No bit can
/// collide with another, each chunk having one item.
#[test]
fn the_archive_counts_one_bit_per_chunk_when_k_is_one() {
    let mut f = SlidingWindowBloom::new(ONE_BIT, 7).unwrap();
    assert_eq!((f.archived_chunks(), f.archived_bits_set()), (0, 0));
    f.insert(&0u32).unwrap();
    assert_eq!((f.archived_chunks(), f.archived_bits_set()), (0, 0));
    for i in 1..10u32 {
        assert_eq!(f.insert(&i).unwrap(), u64::from(i));
        assert_eq!(f.archived_chunks(), u64::from(i));
        assert_eq!(f.archived_bits_set(), u64::from(i));
    }
    assert_eq!(f.window_fill(), 1.0 / 64.0);
    // and as read back from its file, where the sums are counted afresh
    let g = SlidingWindowBloom::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!((g.archived_chunks(), g.archived_bits_set()), (9, 9));
}

/// A filter's size is its W-bit window, W/8 bytes, plus its archive: 1024/8 = 128 bytes and an
/// empty archive (0 bytes) when new, and still W/8 more than the archive once chunks left.
#[test]
fn the_size_is_the_window_bytes_plus_the_archive() {
    let p = WindowParams {
        window_bits: 1024,
        chunk_bits: 256,
        batch: 1,
        k: 3,
    };
    let mut f = SlidingWindowBloom::new(p, 0).unwrap();
    assert_eq!((f.archive_bytes(), f.size_bytes()), (0, 128));
    for i in 0..20u32 {
        f.insert(&i).unwrap();
    }
    assert!(f.archived_chunks() > 0);
    assert_eq!(f.size_bytes(), 128 + f.archive_bytes());
}

/// The batch t = ⌊L/B⌋ of a position may be at most 2⁶⁴ − 1 − 2·W/S, so that a window's end
/// t + W/S and the one after stay in 64 bits: with W/S = 4 chunks and B = 1, position
/// 2⁶⁴ − 9 is the last accepted (and its item is found there), 2⁶⁴ − 8 is refused as
/// `position` and answers absent. Pins the bound's `>` and its `2·W/S`.
#[test]
fn the_last_addressable_position_is_two_windows_below_the_end() {
    let p = WindowParams {
        window_bits: 256,
        chunk_bits: 64,
        batch: 1,
        k: 2,
    };
    let last = u64::MAX - 8;
    let mut f = SlidingWindowBloom::new(p, 0).unwrap();
    assert!(f.insert_at("x", last).unwrap());
    assert!(f.contains("x", last));
    assert_eq!(f.next_position(), last + 1);
    assert_eq!(errors::invalid(f.insert_at("x", last + 1)), "position");
    assert!(!f.contains("x", last + 1));
}

/// W = 256, S = 64 (4 chunks), k = 1, and a window full of ones (B = 10,000 items in batch
/// 0): a query at batch t = 1 covers chunks 1 ..= 4, and chunk 4 is past the active window
/// (chunks 0 ..= 3), where nothing was set. So it answers yes exactly when its one index
/// falls in the first 3·64 bits of its window: about 3/4 of fresh items, not all of them.
/// At t = 3 it is 1/4, and at t = 4 (nothing of the window active) none.
#[test]
fn a_query_window_past_the_active_one_reads_nothing_there() {
    let p = WindowParams {
        window_bits: 256,
        chunk_bits: 64,
        batch: 10_000,
        k: 1,
    };
    let mut f = SlidingWindowBloom::new(p, 3).unwrap();
    let mut i = 0u32;
    while f.window_fill() < 1.0 {
        f.insert(&i).unwrap();
        i += 1;
    }
    assert!(
        f.next_position() < p.batch,
        "the window filled within batch 0"
    );
    let fraction = |t: u64| {
        let n = 4_000u32;
        let hits = (0..n)
            .filter(|j| f.contains(&(1_000_000 + j), t * p.batch))
            .count();
        hits as f64 / f64::from(n)
    };
    assert!((fraction(1) - 0.75).abs() < 0.05, "{}", fraction(1));
    assert!((fraction(3) - 0.25).abs() < 0.05, "{}", fraction(3));
    assert_eq!(fraction(4), 0.0);
}

/// An item inserted at position 0 is found there after the window jumped 2⁵⁸ chunks ahead
/// (B = 1, S = 64): chunk 0 is far behind the window, so every index of the query is in the
/// archive. The distance 2⁵⁸ chunks is 2⁶⁴ bits: the placement clamps it to W rather than
/// multiplying it by S.
#[test]
fn an_item_is_found_after_the_window_jumped_far_ahead() {
    let p = WindowParams {
        window_bits: 256,
        chunk_bits: 64,
        batch: 1,
        k: 3,
    };
    let mut f = SlidingWindowBloom::new(p, 0).unwrap();
    f.insert_at("old", 0).unwrap();
    f.insert_at("new", 1 << 58).unwrap();
    assert_eq!(f.window_start_chunk(), 1 << 58);
    assert!(f.contains("old", 0));
    assert!(f.contains("new", 1 << 58));
}

/// Insert answers whether any of the item's bits was zero: an item's first insert into a chunk
/// nothing else touched sets k zero bits (`true`), and inserting it again at the same position
/// finds all k set (`false`). Both in the active window (W = S, B = 1: each position its own
/// chunk) and in the archive: positions 1 and 3 are left empty, so their chunks were never
/// archived, and a late insert there creates them; position 0's chunk is archived with one
/// item, and the item's repeat finds its bit there.
#[test]
fn insert_reports_a_new_bit_in_the_window_and_in_the_archive() {
    let p = WindowParams { k: 3, ..ONE_BIT };
    let mut f = SlidingWindowBloom::new(p, 5).unwrap();
    for (item, position) in [("a", 0), ("b", 2), ("c", 4)] {
        assert!(f.insert_at(item, position).unwrap(), "{item} at {position}");
        assert!(!f.insert_at(item, position).unwrap(), "{item} again");
    }
    assert_eq!(f.window_start_chunk(), 4);
    // the archive: chunks 0 and 2 (one item each); 1 and 3 were skipped
    assert_eq!(f.archived_chunks(), 2);
    assert!(f.insert_at("d", 1).unwrap());
    assert!(!f.insert_at("d", 1).unwrap());
    assert!(f.insert_at("e", 3).unwrap());
    assert!(!f.insert_at("a", 0).unwrap());
    assert!(!f.insert_at("b", 2).unwrap());
    assert_eq!(f.archived_chunks(), 4);
    for (item, position) in [("a", 0), ("d", 1), ("b", 2), ("e", 3), ("c", 4)] {
        assert!(f.contains(item, position));
    }
}

/// The bytes the next insert may add, from its definition: 0 while the next position is in
/// the window's last batch; when it slides, one chunk's bitmap (S/8 = 32 bytes for S = 256)
/// with its allocation (32 bytes), and the archive entries the list grows by (40 bytes each,
/// as [`SlidingWindowBloom::archive_bytes`] documents; room for len + ⌊len/8⌋ entries, so one
/// more at 0 or 1 archived chunks, and two more from 7 to 8).
#[test]
fn next_insert_bytes_counts_one_chunk_and_the_archive_entries_it_adds() {
    // W = S: every batch's bits fall in its own chunk, so no archived chunk is empty
    let p = WindowParams {
        window_bits: 256,
        chunk_bits: 256,
        batch: 2,
        k: 3,
    };
    let mut f = SlidingWindowBloom::new(p, 0).unwrap();
    assert_eq!(f.next_insert_bytes(), 0);
    f.insert("a").unwrap(); // position 0; position 1 is in batch 0 too
    assert_eq!(f.next_insert_bytes(), 0);
    f.insert("b").unwrap(); // position 2 slides: 0 → 1 archived chunks
    assert_eq!(f.next_insert_bytes(), 32 + 32 + 40);
    f.insert("c").unwrap();
    assert_eq!(f.archived_chunks(), 1);
    assert_eq!(f.next_insert_bytes(), 0);
    f.insert("d").unwrap(); // 1 → 2: room(2) − room(1) = 1 entry
    assert_eq!(f.next_insert_bytes(), 32 + 32 + 40);
    for i in 4..16u32 {
        f.insert(&i).unwrap();
    }
    assert_eq!(f.archived_chunks(), 7);
    // 7 → 8 archived chunks: room(8) − room(7) = 9 − 7 = 2 entries
    assert_eq!(f.next_insert_bytes(), 32 + 32 + 2 * 40);
}

// ---- encoding.rs: the sliding-window filter's file

/// A file's window start is ⌊(next − 1)/B⌋ (next, parameter word 5 at byte 64), and it must
/// leave room for two windows of W/S chunks below 2⁶⁴ as a filter's does: with W/S = 4 and
/// B = 1, next = 2⁶⁴ − 8 (window start 2⁶⁴ − 9, the last a filter reaches) reads back, and
/// next = 2⁶⁴ − 7 is refused at the shape's byte 24.
#[test]
fn a_file_whose_window_passes_the_addressable_ones_is_refused() {
    let p = WindowParams {
        window_bits: 256,
        chunk_bits: 64,
        batch: 1,
        k: 2,
    };
    let mut f = SlidingWindowBloom::new(p, 0).unwrap();
    f.insert_at("x", u64::MAX - 8).unwrap();
    let bytes = f.to_bytes();
    assert_eq!(amq::wire::decode(&bytes).unwrap().params[5], u64::MAX - 7);
    let g = SlidingWindowBloom::from_bytes(&bytes).unwrap();
    assert_eq!(g, f);
    assert!(g.contains("x", u64::MAX - 8));
    let past = edited(&bytes, |p, _| p[5] = u64::MAX - 6);
    assert_eq!(
        errors::corrupt_at(SlidingWindowBloom::from_bytes(&past)),
        24
    );
}

/// A file of the `ONE_BIT` shape (W = S = 64, B = 1, k = 1) built by hand from the layout:
/// next position 3 (window start 2), the ring's one word, and two archive records, chunk 0
/// with one offset (sparse: 32·1 < 64) and chunk 1 with two bits (a bitmap: 32·2 ≥ 64), each
/// word given by the closure's index: ring 0, then chunk, count, offsets of record 0 (1..=3),
/// then chunk, count, bitmap of record 1 (4..=6).
fn hand_file(records: u64, edit: impl Fn(&mut [u64; 7])) -> Vec<u8> {
    cut_hand_file(records, 7, edit)
}

/// [`hand_file`] with only its first `len` payload words.
fn cut_hand_file(records: u64, len: usize, edit: impl Fn(&mut [u64; 7])) -> Vec<u8> {
    let mut words = [1 << 9, 0, 1, 37, 1, 2, (1 << 3) | (1 << 60)];
    edit(&mut words);
    let payload: Vec<u8> = words[..len].iter().flat_map(|w| w.to_le_bytes()).collect();
    let params = [64, 64, 1, 1, 0, 3, 3, records, 2];
    amq::wire::encode(amq::wire::Kind::SlidingWindowBloom, &params, &payload)
}

/// The hand-built file reads back with its two records (3 archived bits) and writes back byte
/// for byte, and so does one whose chunk 1 has all its 64 bits set (a count of S is allowed).
/// Each broken field is refused at its own byte: the payload starts at 128 (9 parameter
/// words), the ring takes 128..136, record 0 is at 136 (chunk), 144 (count) and 152
/// (offsets), record 1 at 160, 168 and 176, and the payload ends at 184 (or is cut short).
#[test]
fn archive_records_are_refused_at_their_file_bytes() {
    let good = hand_file(2, |_| {});
    let f = SlidingWindowBloom::from_bytes(&good).unwrap();
    assert_eq!((f.archived_chunks(), f.archived_bits_set()), (2, 3));
    assert_eq!((f.window_start_chunk(), f.next_position()), (2, 3));
    assert_eq!(f.to_bytes(), good);
    // a chunk may have all S of its bits set
    let full = hand_file(2, |w| (w[5], w[6]) = (64, u64::MAX));
    let f = SlidingWindowBloom::from_bytes(&full).unwrap();
    assert_eq!(f.archived_bits_set(), 1 + 64);
    assert_eq!(f.to_bytes(), full);
    let at = |bytes: Vec<u8>| errors::corrupt_at(SlidingWindowBloom::from_bytes(&bytes));
    assert_eq!(
        at(hand_file(2, |w| w[1] = 2)),
        136,
        "chunk 2 is not below the window"
    );
    assert_eq!(at(hand_file(2, |w| w[2] = 0)), 144, "an empty record");
    assert_eq!(at(hand_file(2, |w| w[2] = 65)), 144, "more bits than S");
    assert_eq!(at(hand_file(2, |w| w[3] = 37 | 1 << 32)), 152, "padding");
    assert_eq!(at(hand_file(2, |w| w[3] = 64)), 152, "an offset of S");
    assert_eq!(at(hand_file(2, |w| w[4] = 0)), 160, "chunk 0 again");
    assert_eq!(
        at(hand_file(2, |w| w[5] = 3)),
        176,
        "a bitmap of 2 bits counted 3"
    );
    assert_eq!(at(cut_hand_file(2, 3, |_| {})), 152, "offsets past the end");
    assert_eq!(
        at(cut_hand_file(2, 6, |_| {})),
        176,
        "a bitmap past the end"
    );
    assert_eq!(at(hand_file(3, |_| {})), 184, "a third record past the end");
    assert_eq!(at(hand_file(1, |_| {})), 160, "bytes after the last record");
}

// ---- aging.rs and aging/: the aging Bloom filter

/// g = 3 generations of c = 2 insertions: the third insert rotates (generation 1 becomes the
/// current one, epoch 1), the fifth again (generation 2, epoch 2), the seventh clears
/// generation 0 for its new items (epoch 3). The counts, newest first, follow: [1, 2, 2] after
/// 5 inserts, [2, 2, 2] after 6, [1, 2, 2] after 7.
#[test]
fn count_rotation_moves_one_generation_every_c_inserts() {
    let mut f = AgingBloom::new(64, 2, 3, Rotation::Count(2), 0).unwrap();
    assert_eq!((f.m(), f.k(), f.generations()), (64, 2, 3));
    assert_eq!((f.rotation(), f.seed()), (Rotation::Count(2), 0));
    assert_eq!((f.generation_counts(), f.epoch()), (vec![0, 0, 0], 0));
    for i in 0..5u32 {
        f.insert(&i).unwrap();
    }
    assert_eq!((f.generation_counts(), f.epoch()), (vec![1, 2, 2], 2));
    f.insert(&5u32).unwrap();
    assert_eq!((f.generation_counts(), f.epoch()), (vec![2, 2, 2], 2));
    f.insert(&6u32).unwrap();
    assert_eq!((f.generation_counts(), f.epoch()), (vec![1, 2, 2], 3));
    assert_eq!(f.inserted(), 7);
}

/// Bit i of the g generations sits in a group of G bits, G = g rounded up to a power of two:
/// m = 64 and g = 3 (G = 4) take 256 bits, 32 bytes; m = 10 and g = 5 (G = 8) take 80 bits,
/// rounded up to 2 words, 16 bytes. With k = 1 one insert sets one of the g·m generation bits.
#[test]
fn the_generations_take_m_groups_of_g_rounded_up() {
    let mut f = AgingBloom::new(64, 1, 3, Rotation::Count(2), 0).unwrap();
    assert_eq!(f.size_bytes(), 32);
    assert_eq!(
        AgingBloom::new(10, 1, 5, Rotation::Count(2), 0)
            .unwrap()
            .size_bytes(),
        16
    );
    assert_eq!(f.fill_ratio(), 0.0);
    f.insert("a").unwrap();
    assert_eq!(f.fill_ratio(), 1.0 / 192.0);
}

/// An aging file (10 parameter words: the payload at byte 128) is refused at the byte of what
/// is wrong in it: the rotation kind (word 4, byte 56), the current generation (word 6, byte
/// 72), a shape `check` refuses (byte 24), the count of generation j over c (payload byte 8j),
/// and a bit set outside the generations, at its own byte: m = 10, g = 3 (G = 4) take 40 bits
/// of the one word after the 3 counts, at byte 128 + 24; bit 3 (generation 3, padding) is in
/// that word's byte 0, bit 43 (group 10, past m) in its byte 5.
#[test]
fn the_aging_decoder_names_the_byte_of_what_is_wrong() {
    let mut f = AgingBloom::new(10, 1, 3, Rotation::Count(2), 0).unwrap();
    f.insert("a").unwrap();
    let good = f.to_bytes();
    let c = amq::wire::decode(&good).unwrap();
    assert_eq!((c.params.len(), c.payload.len()), (10, 32));
    let at = |bytes: Vec<u8>| errors::corrupt_at(AgingBloom::from_bytes(&bytes));
    assert_eq!(at(edited(&good, |p, _| p[4] = 2)), 56);
    assert_eq!(at(edited(&good, |p, _| p[6] = 3)), 72);
    assert_eq!(at(edited(&good, |p, _| p[1] = 0)), 24);
    let with_word = |i: usize, w: u64| {
        let mut payload = c.payload.to_vec();
        payload[8 * i..8 * i + 8].copy_from_slice(&w.to_le_bytes());
        amq::wire::encode(c.kind, &c.params, &payload)
    };
    assert!(
        AgingBloom::from_bytes(&with_word(2, 2)).is_ok(),
        "a count of c"
    );
    assert_eq!(at(with_word(2, 3)), 128 + 16);
    let bits = u64::from_le_bytes(c.payload[24..32].try_into().unwrap());
    assert_eq!(at(with_word(3, bits | 1 << 3)), 128 + 24);
    assert_eq!(at(with_word(3, bits | 1 << 43)), 128 + 24 + 5);
    assert!(
        AgingBloom::from_bytes(&with_word(3, bits | 1 << 38)).is_ok(),
        "group 9, gen 2"
    );
}

/// Time rotation with g = 3 and Δ = 10: an item inserted at time 0 (interval 0) is found
/// until the interval it lives in is g intervals old, so up to time 29 and not at 30, with no
/// insert between; one inserted at 9 lives (g − 1)·Δ = 20 ticks more, to 29. A clock more
/// than Δ behind the newest interval's start is refused, one at most Δ behind is not.
#[test]
fn time_rotation_forgets_after_g_intervals() {
    let clock = ManualClock::new(0);
    let mut f = AgingBloom::new(1 << 12, 4, 3, Rotation::Time(10), 0)
        .unwrap()
        .with_clock(clock.clone());
    f.insert("a").unwrap();
    clock.set(9);
    f.insert("b").unwrap();
    clock.set(29);
    assert!(f.contains("a") && f.contains("b"));
    clock.set(30);
    assert!(!f.contains("a") && !f.contains("b"));
    clock.set(100);
    f.insert("c").unwrap();
    assert_eq!(f.epoch(), 10);
    clock.set(90);
    assert!(f.check_clock().is_ok());
    clock.set(89);
    assert_eq!(errors::invalid(f.check_clock()), "now");
}

/// Insert answers whether any of the item's k bits was zero in the current generation: a
/// first insert into an empty filter sets bits (`true`), its repeat finds them (`false`), and
/// after a rotation the new current generation is empty again (`true`), whatever the older
/// generations hold.
#[test]
fn aging_insert_reports_a_new_bit_in_the_current_generation() {
    let mut f = AgingBloom::new(1 << 10, 3, 4, Rotation::Count(2), 0).unwrap();
    assert!(f.insert("a").unwrap());
    assert!(!f.insert("a").unwrap());
    assert!(f.insert("a").unwrap(), "generation 1 is empty");
}

/// g = 64 generations fill a 64-bit group: with c = 1 every insert after the first rotates,
/// so an item (here in generation 1) is found through the next 63 inserts and forgotten at the
/// 64th, which clears its generation (m = 2¹⁶ bits and k = 4 leave no room for a chance
/// match of these few).
#[test]
fn sixty_four_generations_remember_sixty_three_inserts() {
    let mut f = AgingBloom::new(1 << 16, 4, 64, Rotation::Count(1), 0).unwrap();
    f.insert("w").unwrap(); // generation 0
    f.insert("x").unwrap(); // generation 1
    for i in 0..63u32 {
        f.insert(&i).unwrap();
        assert!(f.contains("x"), "after {} more", i + 1);
    }
    f.insert("y").unwrap();
    assert!(!f.contains("x"));
    assert!(f.contains("y") && f.contains(&0u32));
}

/// A clock jump of many intervals rotates the ring as that many single steps would: g = 3,
/// Δ = 10, from interval 2 to interval 13, in one `expire` or in eleven. The files agree byte
/// for byte: the first insert, at time 20, rotated twice (generation 2), and 11 more steps
/// make the current generation (2 + 11) mod 3 = 1, epoch 13. A jump to the end of time (Δ = 1,
/// now = 2⁶⁴ − 1) from generation 1 lands on a generation of the ring, without overflow.
#[test]
fn a_long_clock_jump_rotates_as_single_steps_do() {
    let start = |clock: &ManualClock| {
        let mut f = AgingBloom::new(256, 3, 3, Rotation::Time(10), 0)
            .unwrap()
            .with_clock(clock.clone());
        f.insert("a").unwrap();
        f
    };
    let (jump, steps) = (ManualClock::new(20), ManualClock::new(20));
    let (mut j, mut s) = (start(&jump), start(&steps));
    jump.set(130);
    j.expire();
    for t in 3..=13 {
        steps.set(10 * t);
        s.expire();
    }
    assert_eq!(j.epoch(), 13);
    assert_eq!(j.to_bytes(), s.to_bytes());
    assert_eq!(amq::wire::decode(&j.to_bytes()).unwrap().params[6], 1);

    let clock = ManualClock::new(0);
    let mut f = AgingBloom::new(256, 3, 3, Rotation::Time(1), 0)
        .unwrap()
        .with_clock(clock.clone());
    clock.set(1);
    f.insert("a").unwrap(); // generation 1
    clock.set(u64::MAX);
    f.expire();
    assert_eq!(f.epoch(), u64::MAX);
    assert_eq!(f.generation_counts(), vec![0, 0, 0]);
}

/// The bound and the estimate from their formulas: each generation of n items answers by
/// chance with εₙ = (1 − (1 − 1/m)^(k·n))^k; the bound is 1 − (1 − ε_c)^g for c the capacity
/// (or, rotated by time, the fullest generation's count), the estimate 1 − Π(1 − ε_nⱼ) over
/// the live generations. Time rotation, g = 3, Δ = 10: 3 items in interval 0, 5 in
/// interval 1; at time 30 interval 0's generation has expired.
#[test]
fn the_fpr_bound_and_estimate_follow_their_formulas() {
    let (m, k) = (256u64, 3u32);
    let eps = |n: u64| (1.0 - (1.0 - 1.0 / m as f64).powf(f64::from(k) * n as f64)).powi(3);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.max(1e-300);
    let counted = AgingBloom::new(m, k, 3, Rotation::Count(7), 0).unwrap();
    assert!(close(counted.fpr_bound(), 1.0 - (1.0 - eps(7)).powi(3)));
    let clock = ManualClock::new(0);
    let mut f = AgingBloom::new(m, k, 3, Rotation::Time(10), 0)
        .unwrap()
        .with_clock(clock.clone());
    assert_eq!((f.fpr_bound(), f.estimated_fpr()), (0.0, 0.0));
    for i in 0..3u32 {
        f.insert(&i).unwrap();
    }
    clock.set(10);
    for i in 3..8u32 {
        f.insert(&i).unwrap();
    }
    assert_eq!(f.generation_counts(), vec![5, 3, 0]);
    assert!(close(f.fpr_bound(), 1.0 - (1.0 - eps(5)).powi(3)));
    let both = 1.0 - (1.0 - eps(3)) * (1.0 - eps(5));
    assert!(
        close(f.estimated_fpr(), both),
        "{} {both}",
        f.estimated_fpr()
    );
    clock.set(30);
    assert!(close(f.estimated_fpr(), eps(5)));
}

/// A serialised aging spec that leaves g out gets the documented default,
/// `DEFAULT_GENERATIONS` = 4 generations, not 0 or 1 (which no aging filter accepts).
#[cfg(feature = "serde")]
#[test]
fn an_aging_spec_without_generations_has_four() {
    let json = serde_json::json!({"kind": "aging-bloom", "window": 1000, "fpr": 0.01});
    let spec: amq::math::Spec = serde_json::from_value(json).unwrap();
    match spec {
        amq::math::Spec::AgingBloom { generations, .. } => assert_eq!(generations, 4),
        other => panic!("{other:?}"),
    }
    assert_eq!(amq::window::DEFAULT_GENERATIONS, 4);
}

/// The aging filter's k may be 1 to 64, both ends included (64 the most a Bloom filter of
/// this crate takes); k = 0 and 65 are refused as `k`.
#[test]
fn aging_k_runs_from_one_to_sixty_four() {
    for k in [1, 64] {
        let mut f = AgingBloom::new(64, k, 2, Rotation::Count(1), 0).unwrap();
        f.insert("a").unwrap();
        assert!(f.contains("a"));
    }
    for k in [0, 65] {
        assert_eq!(
            errors::invalid(AgingBloom::new(64, k, 2, Rotation::Count(1), 0)),
            "k"
        );
    }
}
