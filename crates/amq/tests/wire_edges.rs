//! Edges of the `.amq` container decoder (`wire::decode`) and of its parameter-word checks
//! that the round-trip and bit-flip tests do not pin: which error, with which fields, a
//! short input or a misplaced scheme word gets. Each test here was written against a
//! mutant of `wire.rs` that the other tests let through.

use amq::cuckoo::{ExpandableCuckooFilter, ExpandableParams};
use amq::scalable::{ScalableBloomFilter, ScalableParams};
use amq::window::{AgingBloom, Rotation, SlidingWindowBloom, WindowParams};
use amq::wire::{decode, encode, Kind};
use amq::{AnyFilter, BloomFilter, Error, Insert, SlidingWindowCuckoo};

#[path = "common/errors.rs"]
mod errors;
use errors::corrupt_at;

/// The fixed header of a container with no parameter words and an empty payload, written
/// from the layout table in `wire.rs`: magic, version 1, kind, p = 0, reserved, length 0.
fn bare_header(kind: u16) -> Vec<u8> {
    let mut h = b"AMQ\0".to_vec();
    h.extend_from_slice(&1u16.to_le_bytes());
    h.extend_from_slice(&kind.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes());
    h.extend_from_slice(&[0; 4]);
    h.extend_from_slice(&0u64.to_le_bytes());
    h
}

/// The names, in code order, as the command line and JSON spell them (the `Kind` docs'
/// table of codes 1 to 11).
#[test]
fn kind_names_list_every_kind_in_code_order() {
    let want = "bloom, blocked-bloom, cuckoo, sliding-window-bloom, aging-bloom, \
                negative-cache, ttl-cuckoo, sliding-window-cuckoo, scalable-bloom, \
                expandable-cuckoo, split-block-bloom";
    assert_eq!(Kind::names(), want);
    for (code, name) in (1u16..).zip(want.split(", ")) {
        assert_eq!(Kind::from_code(code).map(Kind::name), Some(name));
    }
}

/// Fewer than 4 bytes: the magic is what is missing.
#[test]
fn fewer_than_four_bytes_is_a_truncated_magic() {
    assert_eq!(
        decode(b"AMQ"),
        Err(Error::Truncated {
            what: "magic",
            offset: 0,
            needed: 4,
            available: 3,
        })
    );
}

/// Exactly the 4 magic bytes: the magic is whole, the 24-byte header is what is missing.
#[test]
fn the_magic_alone_is_a_truncated_header() {
    assert_eq!(
        decode(b"AMQ\0"),
        Err(Error::Truncated {
            what: "header",
            offset: 0,
            needed: 24,
            available: 4,
        })
    );
    assert_eq!(
        decode(&bare_header(1)[..23]),
        Err(Error::Truncated {
            what: "header",
            offset: 0,
            needed: 24,
            available: 23,
        })
    );
}

/// Exactly the 24-byte header (p = 0, payload 0 bytes): the header is whole; the payload
/// would start at 64 and the checksum after it, at 64, is what is missing (needs 8 bytes,
/// none left past offset 64).
#[test]
fn a_whole_header_alone_is_a_truncated_checksum() {
    assert_eq!(
        decode(&bare_header(1)),
        Err(Error::Truncated {
            what: "checksum",
            offset: 64,
            needed: 8,
            available: 0,
        })
    );
}

/// A scheme word of 1 (index scheme 1) is refused: a file states scheme 1 by leaving the word
/// out. The error names the word's own offset, 24 + 8n after the n older parameters: 24 + 8·4
/// = 56 for the classic Bloom filter (m, k, seed, items), 24 + 8·7 = 80 for the scalable one.
#[test]
fn a_scheme_word_of_one_is_refused_at_its_offset() {
    let bytes = encode(Kind::Bloom, &[64, 3, 0, 0, 1], &[0u8; 8]);
    match BloomFilter::from_bytes(&bytes) {
        Err(Error::Corrupt { offset, .. }) => assert_eq!(offset, 56),
        other => panic!("{other:?}"),
    }
    // the same file with the word left out, and with scheme 2, read
    let unit = encode(Kind::Bloom, &[64, 3, 0, 0], &[0u8; 8]);
    assert!(BloomFilter::from_bytes(&unit).is_ok());
    let hashed = encode(Kind::Bloom, &[64, 3, 0, 0, 2], &[0u8; 8]);
    assert!(BloomFilter::from_bytes(&hashed).is_ok());

    let params = [0u64, 0, 0, 0, 0, 0, 0, 1];
    match ScalableBloomFilter::from_bytes(&encode(Kind::ScalableBloom, &params, &[])) {
        Err(Error::Corrupt { offset, .. }) => assert_eq!(offset, 80),
        other => panic!("{other:?}"),
    }
}

/// A file that ends early is refused as truncated in the part where it ends, with the bytes
/// of that part present: a header (p = 0, so the payload starts at 64) declaring 16 payload
/// bytes, cut to 72 bytes, has 8 of the payload's 16; cut to 80, the whole payload and none of
/// the checksum (at 80, past the payload, which ends on an 8-byte boundary); cut to 84, 4 of
/// the checksum's 8. A partial download is so told apart from a checksum that is missing.
#[test]
fn a_file_cut_short_names_the_part_where_it_ends() {
    let mut bytes = bare_header(1);
    bytes[16..24].copy_from_slice(&16u64.to_le_bytes());
    let cut = |len: usize| {
        let mut b = bytes.clone();
        b.resize(len, 0);
        decode(&b).err()
    };
    let truncated = |what, offset, needed, available| {
        Some(Error::Truncated {
            what,
            offset,
            needed,
            available,
        })
    };
    assert_eq!(cut(72), truncated("payload", 64, 16, 8));
    assert_eq!(cut(80), truncated("checksum", 80, 8, 0));
    assert_eq!(cut(84), truncated("checksum", 80, 8, 4));
    // the whole file: now only the checksum's value is wrong
    assert!(matches!(
        cut(88),
        Some(Error::ChecksumMismatch { stored: 0, .. })
    ));
}

/// A file that ends inside its parameter words is refused as truncated there: 5 words (the
/// classic filter's) take bytes 24 to 64, so a file of 40 bytes holds 16 of their 40. The
/// parameter count in the header is what says how many bytes they need.
#[test]
fn a_file_cut_in_its_parameters_names_them() {
    let mut bytes = bare_header(1);
    bytes[8..12].copy_from_slice(&5u32.to_le_bytes());
    bytes.resize(40, 0);
    assert_eq!(
        decode(&bytes),
        Err(Error::Truncated {
            what: "parameters",
            offset: 24,
            needed: 40,
            available: 16,
        })
    );
}

/// Non-zero padding after the payload, under a valid checksum, is refused at the first
/// padding byte: with p = 0 the payload starts at 64, so a 1-byte payload's padding starts
/// at 65. The checksum is recomputed with `xxhash-rust`'s XXH3-64 (seed 0), as the layout
/// table names it.
#[test]
fn padding_after_the_payload_is_refused_at_its_first_byte() {
    let mut bytes = encode(Kind::Bloom, &[], &[0xaa]);
    assert_eq!(bytes.len(), 64 + 8 + 8);
    bytes[66] = 1;
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..72]);
    bytes[72..].copy_from_slice(&sum.to_le_bytes());
    match decode(&bytes) {
        Err(Error::Corrupt { offset, .. }) => assert_eq!(offset, 65),
        other => panic!("{other:?}"),
    }
}

/// A payload error names the file's byte: for each kind whose payload is a run of links,
/// epochs or records (and whose parameter words push the payload to byte 128), eight bytes
/// after the last one are refused at payload offset + payload length, the first of them.
#[test]
fn trailing_payload_bytes_are_refused_at_their_file_offset() {
    let mut scalable = ScalableBloomFilter::new(ScalableParams::new(10, 0.01), 1).unwrap();
    let mut expandable = ExpandableCuckooFilter::new(ExpandableParams::new(10, 0.01), 2).unwrap();
    let small = WindowParams {
        window_bits: 256,
        chunk_bits: 64,
        batch: 2,
        k: 3,
    };
    let mut window = SlidingWindowBloom::new(small, 3).unwrap();
    let mut epochs = SlidingWindowCuckoo::with_fpr(10, 0.01, 4).unwrap();
    for i in 0..30u64 {
        scalable.insert(&i).unwrap();
        expandable.insert(&i).unwrap();
        window.insert(&i).unwrap();
        epochs
            .register_hash(u128::from(i) * 0x9e37_79b9_7f4a_7c15)
            .unwrap();
    }
    let files = [
        scalable.to_bytes(),
        expandable.to_bytes(),
        window.to_bytes(),
        epochs.to_bytes(),
    ];
    for good in files {
        let c = decode(&good).unwrap();
        assert!(AnyFilter::from_bytes(&good).is_ok(), "{:?}", c.kind);
        assert_eq!(
            c.payload_offset(),
            128,
            "{:?}: {} words",
            c.kind,
            c.params.len()
        );
        let mut payload = c.payload.to_vec();
        payload.extend_from_slice(&[0; 8]);
        let bad = encode(c.kind, &c.params, &payload);
        match AnyFilter::from_bytes(&bad) {
            Err(Error::Corrupt { offset, reason }) => {
                assert_eq!(offset, 128 + c.payload.len(), "{:?}: {reason}", c.kind);
                assert!(reason.contains("after the last"), "{:?}: {reason}", c.kind);
            }
            other => panic!("{:?}: {other:?}", c.kind),
        }
    }
}

/// `payload` with bit `bit` (little-endian words) set.
fn with_bit(payload: &[u8], bit: usize) -> Vec<u8> {
    let mut p = payload.to_vec();
    p[bit / 8] |= 1 << (bit % 8);
    p
}

/// The offset of the `Corrupt` error that decoding `file` gives.
fn file_corrupt_at(file: &[u8]) -> usize {
    corrupt_at(AnyFilter::from_bytes(file))
}

/// A bit set where the layout has none, or a count past its bound, is refused at the file's
/// byte that holds it, not at byte 0: the classic filter's bits past m (payload at byte 64:
/// four or five parameter words), a scalable chain's link bits past its m (payload at 128,
/// then the link's 24-byte header), and an aging filter's count words and padding bits
/// (payload at 128: g count words, then m groups of G = 4 bits for g = 3 generations).
#[test]
fn bits_past_the_layout_are_refused_at_their_file_byte() {
    // classic: m = 100 bits in two words; bits 100..128 are past m
    let bloom = BloomFilter::new(100, 3, 0).unwrap().to_bytes();
    let c = decode(&bloom).unwrap();
    assert_eq!(c.payload.len(), 16);
    for (bit, at) in [(100, 64 + 12), (127, 64 + 15)] {
        assert_eq!(
            file_corrupt_at(&encode(c.kind, &c.params, &with_bit(c.payload, bit))),
            at
        );
    }

    // scalable: link 0's header words are m, k, inserted; its bits start at byte 152
    let chain = ScalableBloomFilter::new(ScalableParams::new(10, 0.01), 1).unwrap();
    let file = chain.to_bytes();
    let c = decode(&file).unwrap();
    let m = u64::from_le_bytes(c.payload[..8].try_into().unwrap()) as usize;
    assert_ne!(m % 64, 0, "m = {m} leaves no bits past it in its last word");
    let bad = encode(c.kind, &c.params, &with_bit(c.payload, 8 * 24 + m));
    assert_eq!(file_corrupt_at(&bad), 152 + m / 8);

    // aging: g = 3, m = 10 groups of 4 bits (40 bits, one word), a count cap of 5
    let aging = AgingBloom::new(10, 2, 3, Rotation::Count(5), 0)
        .unwrap()
        .to_bytes();
    let c = decode(&aging).unwrap();
    assert_eq!(c.payload.len(), 8 * 3 + 8);
    let mut over = c.payload.to_vec();
    over[8] = 6; // generation 1 counts 6 > 5
    assert_eq!(file_corrupt_at(&encode(c.kind, &c.params, &over)), 128 + 8);
    // bit 3 of group 0 is the fourth, padding, generation; bit 44 is past the 40 bits
    for (bit, at) in [(8 * 24 + 3, 128 + 24), (8 * 24 + 44, 128 + 24 + 5)] {
        assert_eq!(
            file_corrupt_at(&encode(c.kind, &c.params, &with_bit(c.payload, bit))),
            at
        );
    }
}
