//! Edges of the TTL cuckoo filter (`src/ttl/`) that `tests/ttl.rs` leaves open: the decoder's
//! errors with the file's byte offsets (a bad bucket named where it starts in the file, each
//! stash check on its own), files at the limits that must decode, the planner's every field
//! worked out by hand for one spec, the stamp widths from the longest TTL at their powers of
//! two, the planner's and the constructor's refusals by name at their limits, the accessors,
//! the batched queries against the single ones, and the live load and ε. Most tests here were
//! written against a mutant of `src/ttl/*.rs` that cargo-mutants found the other tests let
//! through.

use amq::ttl::TtlCuckooFilter;
use amq::wire::{self, Kind};

#[path = "common/errors.rs"]
mod errors;
use errors::corrupt_at;

/// A TTL file of these parameter words and payload (the checksum made right).
fn reencode(params: &[u64], payload: &[u8]) -> Vec<u8> {
    wire::encode(Kind::TtlCuckoo, params, payload)
}

// ---- encoding.rs

/// A bad bucket is named by the file's byte where it starts, as the other decoders do: the
/// 11 parameter words end at byte 24 + 88 = 112, so the payload starts at 128, and with
/// f = 8, s = 3 a bucket is ⌈4 · 11/8⌉ = 6 bytes. A stamp without a fingerprint in bucket 1
/// is at byte 128 + 6 = 134; a bit past the 44 slot bits of bucket 2 (bit 44 is the low bit
/// of the high nibble of its byte 5) is at 128 + 12 = 140. (The decoder used to give the
/// payload's offsets, 6 and 12.)
#[test]
fn a_bad_bucket_is_named_by_its_byte_in_the_file() {
    let f = TtlCuckooFilter::new(3, 8, 3, 10, 0).unwrap();
    let good = f.to_bytes();
    let c = wire::decode(&good).unwrap();
    assert_eq!((c.payload_offset(), c.payload.len()), (128, 18));
    let mut payload = c.payload.to_vec();
    payload[6] = 0x05; // bucket 1, slot 0: stamp 5, fingerprint 0
    assert_eq!(
        corrupt_at(TtlCuckooFilter::from_bytes(&reencode(&c.params, &payload))),
        134
    );
    let mut payload = c.payload.to_vec();
    payload[12 + 5] = 0x10; // bucket 2, bit 44
    assert_eq!(
        corrupt_at(TtlCuckooFilter::from_bytes(&reencode(&c.params, &payload))),
        140
    );
}

/// The parameter checks name the word they read: p[i] is at byte 24 + 8i, so f at 24, the
/// slots per bucket at 40, the default TTL at 72, the sweep epoch at 80; a payload of the
/// wrong length concerns the whole input (0).
#[test]
fn a_bad_parameter_is_named_by_its_word() {
    let f = TtlCuckooFilter::new(3, 8, 3, 10, 0).unwrap(); // max_ttl 80
    let bytes = f.to_bytes();
    let c = wire::decode(&bytes).unwrap();
    for (i, v, at) in [
        (0, 1, 24),        // f below 2
        (2, 8, 40),        // 8 slots per bucket
        (6, 0, 72),        // default TTL 0
        (6, 81, 72),       // default TTL above tick · 2^s
        (7, u64::MAX, 80), // a sweep epoch past the last time
        (3, 4, 0),         // 4 buckets: 24 payload bytes, 18 found
    ] {
        let mut p = c.params.clone();
        p[i] = v;
        let r = TtlCuckooFilter::from_bytes(&reencode(&p, c.payload));
        assert_eq!(corrupt_at(r), at, "param {i} = {v}");
    }
}

/// A default TTL equal to the longest, `tick · 2ˢ` (the limit `with_default_ttl` accepts),
/// survives the file: the decoder's range `1..=max_ttl` is inclusive at the top.
#[test]
fn a_default_ttl_of_the_longest_round_trips() {
    let mut f = TtlCuckooFilter::new(16, 12, 3, 10, 0)
        .unwrap()
        .with_default_ttl(80)
        .unwrap();
    f.insert("a", 0, 80).unwrap();
    let g = TtlCuckooFilter::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(g.default_ttl(), 80);
    assert_eq!(g, f);
}

/// A filter filled until an insert is refused, with a live entry in the victim stash.
fn full_with_a_stash() -> TtlCuckooFilter {
    let mut f = TtlCuckooFilter::new(50, 8, 4, 10, 9).unwrap(); // 12-bit slots
    let mut i = 0u32;
    while f.insert(&i, 0, 150).is_ok() {
        i += 1;
    }
    assert!(f.stash_used_at(0));
    f
}

/// A file whose stash holds a live entry decodes to the same filter, its stash live until
/// every entry expires at 150 (the stash word is 0 only when the stash is empty). Each of the four stash checks refuses
/// a file on its own, named at the last of the two stash words (byte 24 + 8 · 10 = 104): bits
/// past the 12-bit slot, a bucket without an entry, a stamp without a fingerprint (value 1:
/// stamp 1, fingerprint 0), and a bucket past the last (50 of 50).
#[test]
fn a_stash_round_trips_and_each_stash_check_refuses_alone() {
    let f = full_with_a_stash();
    let bytes = f.to_bytes();
    let g = TtlCuckooFilter::from_bytes(&bytes).unwrap();
    assert_eq!(g, f);
    assert!(g.stash_used_at(149) && !g.stash_used_at(150)); // every entry expires at 150
    assert_eq!(g.entries_at(0), f.entries_at(0));
    let c = wire::decode(&bytes).unwrap();
    let (stash, bucket) = (c.params[9], c.params[10]);
    assert!(stash != 0 && stash >> 12 == 0 && stash >> 4 != 0 && bucket < 50);
    for (value, at, what) in [
        (stash | 1 << 12, bucket, "a bit past the slot"),
        (0, 1, "a bucket without an entry"),
        (1, 0, "a stamp without a fingerprint"),
        (stash, 50, "a bucket past the last"),
    ] {
        let mut p = c.params.clone();
        (p[9], p[10]) = (value, at);
        let r = TtlCuckooFilter::from_bytes(&reencode(&p, c.payload));
        assert_eq!(corrupt_at(r), 104, "{what}");
    }
    let mut p = c.params.clone();
    p[10] = 49; // another bucket in range: a valid file
    assert!(TtlCuckooFilter::from_bytes(&reencode(&p, c.payload)).is_ok());
}
