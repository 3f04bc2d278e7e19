//! Edges of the TTL cuckoo filter (`src/ttl/`) that `tests/ttl.rs` leaves open: the decoder's
//! errors with the file's byte offsets (a bad bucket named where it starts in the file, each
//! stash check on its own), files at the limits that must decode, the planner's every field
//! worked out by hand for one spec, the stamp widths from the longest TTL at their powers of
//! two, and the planner's refusals by name. Most tests here were written against a mutant of
//! `src/ttl/*.rs` that cargo-mutants found the other tests let through.

use amq::ttl::TtlCuckooFilter;
use amq::wire::{self, Kind};

#[path = "common/errors.rs"]
mod errors;
use errors::corrupt_at;

/// The file of `f` with its parameter words and payload replaced (the checksum made right).
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
