//! Schema tests: the exact bytes of a small `.amq` file of each kind.
//!
//! The hash, the index derivation and the container layout are the file format. If any of
//! them changes, these bytes change, and this test fails: then raise `wire::VERSION`, or give
//! the kind a new parameter word that files without it do not have (the classic and scalable
//! Bloom filters' index scheme), and update the bytes on purpose; the old bytes stay here as
//! files that must still read and write back unchanged. Every kind of the container has a
//! pinned file here.

use amq::cuckoo::{ExpandableCuckooFilter, ExpandableParams};
use amq::hash::Indexing;
use amq::scalable::{ScalableBloomFilter, ScalableParams};
use amq::window::{Rotation, WindowParams};
use amq::{
    AgingBloom, BlockedBloomFilter, BloomFilter, CuckooFilter, Filter, Insert, NegativeCache,
    SlidingWindowBloom, SlidingWindowCuckoo, SplitBlockBloomFilter, TtlCuckooFilter,
};

#[path = "schema/pinned.rs"]
mod pinned;
use pinned::*;
#[path = "schema/index_scheme.rs"]
mod index_scheme;

/// The container header for `kind` with `params` words and `payload_len` bytes, as the layout
/// table in `wire.rs` documents it (written out independently of `wire::encode`).
fn header(kind: u16, params: &[u64], payload_len: u64) -> Vec<u8> {
    let mut h = b"AMQ\0".to_vec();
    h.extend_from_slice(&1u16.to_le_bytes());
    h.extend_from_slice(&kind.to_le_bytes());
    h.extend_from_slice(&(params.len() as u32).to_le_bytes());
    h.extend_from_slice(&[0; 4]);
    h.extend_from_slice(&payload_len.to_le_bytes());
    for p in params {
        h.extend_from_slice(&p.to_le_bytes());
    }
    h.resize(h.len().next_multiple_of(64), 0);
    h
}

#[test]
fn bloom_file_bytes_are_pinned() {
    let mut f = BloomFilter::new(100, 3, 7).unwrap();
    for item in ["apple", "banana", "cherry"] {
        f.insert(item).unwrap();
    }
    assert_eq!(f.indexing(), Indexing::Hashed);
    let bytes = f.to_bytes();
    assert_eq!(info_index_scheme(&bytes), Indexing::Hashed);
    // the fifth parameter word: index scheme 2
    let head = header(1, &[100, 3, 7, 3, 2], 16);
    assert_eq!(hex::encode(&bytes[..64]), hex::encode(&head));
    assert_eq!(bytes.len(), 64 + 16 + 8);
    assert_eq!(
        hex::encode(&bytes[64..80]),
        PINNED_BLOOM_PAYLOAD,
        "bits of apple, banana, cherry"
    );
    assert_eq!(hex::encode(&bytes[80..]), PINNED_BLOOM_CHECKSUM);
}

/// The index scheme a file's [`amq::Info`] reports, checked against its JSON's
/// `index_scheme` (the number 1 or 2) when the library has serde.
fn info_index_scheme(bytes: &[u8]) -> Indexing {
    use amq::Details;
    let info = amq::AnyFilter::from_bytes(bytes).unwrap().info();
    let scheme = match &info.details {
        Details::Bloom { index_scheme }
        | Details::ScalableBloom { index_scheme, .. }
        | Details::SlidingWindowBloom { index_scheme, .. }
        | Details::AgingBloom { index_scheme, .. } => *index_scheme,
        other => panic!("no index scheme in {other:?}"),
    };
    #[cfg(feature = "serde")]
    assert_eq!(
        serde_json::to_value(&info).unwrap()["index_scheme"],
        u8::from(scheme)
    );
    scheme
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn blocked_bloom_file_bytes_are_pinned() {
    let mut f = BlockedBloomFilter::new(1024, 4, 7).unwrap();
    for item in ["apple", "banana", "cherry"] {
        f.insert(item).unwrap();
    }
    let bytes = f.to_bytes();
    let head = header(2, &[1024, 4, 7, 3], 128);
    assert_eq!(hex::encode(&bytes[..64]), hex::encode(&head));
    assert_eq!(bytes.len(), 64 + 128 + 8);
    assert_eq!(
        hex::encode(&bytes[64..192]),
        PINNED_BLOCKED_PAYLOAD,
        "bits of apple, banana, cherry"
    );
    assert_eq!(hex::encode(&bytes[192..]), PINNED_BLOCKED_CHECKSUM);
}

/// The split block layout written out from `SplitBlockBloomFilter`'s docs: block
/// `((h >> 32) · blocks) >> 32`, lane i bit `(h32 · SALTᵢ) >> 26`, lanes little-endian u64.
fn spec_split_block_bits(items: &[&str], blocks: u64, seed: u64) -> Vec<u8> {
    const SALT: [u32; 8] = [
        0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947,
        0x5c6bfb31,
    ];
    let mut bits = vec![0u8; (blocks * 64) as usize];
    for item in items {
        let h = amq::hash::hash64(*item, seed);
        let block = ((h >> 32) * blocks) >> 32;
        for (lane, salt) in SALT.iter().enumerate() {
            let b = (h as u32).wrapping_mul(*salt) >> 26;
            let bit = block * 512 + lane as u64 * 64 + u64::from(b);
            bits[(bit / 8) as usize] |= 1 << (bit % 8);
        }
    }
    bits
}

#[test]
fn split_block_bloom_file_bytes_are_pinned() {
    let items = ["apple", "banana", "cherry"];
    let mut f = SplitBlockBloomFilter::new(1024, 7).unwrap();
    for item in items {
        f.insert(item).unwrap();
    }
    let bytes = f.to_bytes();
    let head = header(11, &[1024, 8, 7, 3], 128);
    assert_eq!(hex::encode(&bytes[..64]), hex::encode(&head));
    assert_eq!(bytes.len(), 64 + 128 + 8);
    assert_eq!(hex::encode(&bytes[64..192]), PINNED_SPLIT_BLOCK_PAYLOAD);
    assert_eq!(hex::encode(&bytes[192..]), PINNED_SPLIT_BLOCK_CHECKSUM);
    assert_eq!(
        hex::encode(spec_split_block_bits(&items, 2, 7)),
        PINNED_SPLIT_BLOCK_PAYLOAD
    );
    // and a larger case, against the library itself
    let words: Vec<String> = (0..500).map(|i| format!("w{i}")).collect();
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut g = SplitBlockBloomFilter::new(512 * 37, 99).unwrap();
    for w in &refs {
        g.insert(*w).unwrap();
    }
    assert_eq!(
        g.to_bytes()[64..64 + 37 * 64],
        spec_split_block_bits(&refs, 37, 99)[..]
    );
    // the XXH3-64 item hash: xxh3_64_with_seed("apple", 7) as the C reference gives it
    // (Python xxhash 4.1.0 over xxHash 0.8.4, `xxh3_64_intdigest(b"apple", seed=7)`), which
    // also gave the pinned payload from the layout above
    assert_eq!(
        format!("{:016x}", amq::hash::hash64("apple", 7)),
        PINNED_HASH64_APPLE_7
    );
}

/// The bytes of a small cuckoo file, written out from the layout documented in `wire.rs` and
/// `CuckooFilter::to_bytes`: a format change cannot slip in unnoticed.
#[test]
fn cuckoo_file_bytes_are_pinned() {
    let mut f = CuckooFilter::new(3, 12, 7).unwrap();
    for item in ["apple", "banana", "cherry"] {
        f.insert(item).unwrap();
    }
    let bytes = f.to_bytes();
    let head = header(3, &[12, 4, 3, 7, 3, 0, 0], 18); // 3 buckets of 6 bytes
    assert_eq!(head.len(), 128);
    assert_eq!(hex::encode(&bytes[..128]), hex::encode(&head));
    assert_eq!(bytes.len(), 128 + 24 + 8);
    // each item's fingerprint sits in one of its two buckets, as the hash module derives them
    let payload = &bytes[128..146];
    let slot = |i: usize, j: usize| {
        let w = u64::from_le_bytes({
            let mut b = [0u8; 8];
            b[..6].copy_from_slice(&payload[6 * i..6 * i + 6]);
            b
        });
        ((w >> (12 * j)) & 0xfff) as u32
    };
    for item in ["apple", "banana", "cherry"] {
        let h = amq::hash::hash128(item, 7);
        let fp = amq::hash::cuckoo_fingerprint(h, 12);
        let i1 = amq::hash::cuckoo_index(h, 3);
        let i2 = amq::hash::cuckoo_alt_index(i1, fp, 3);
        let found = [i1, i2]
            .iter()
            .any(|&i| (0..4).any(|j| slot(i as usize, j) == fp));
        assert!(
            found,
            "{item}: fingerprint {fp:#x} not in buckets {i1}, {i2}"
        );
    }
    assert_eq!(hex::encode(payload), PINNED_CUCKOO_PAYLOAD);
    assert_eq!(hex::encode(&bytes[152..]), PINNED_CUCKOO_CHECKSUM);
}

#[test]
fn sliding_window_file_bytes_are_pinned() {
    let small = WindowParams {
        window_bits: 256,
        chunk_bits: 64,
        batch: 2,
        k: 3,
    };
    let mut f = SlidingWindowBloom::new(small, 42).unwrap();
    for x in ["a", "b", "c", "d", "e"] {
        f.insert(x).unwrap();
    }
    let bytes = f.to_bytes();
    assert_eq!(&bytes[..8], b"AMQ\0\x01\x00\x04\x00");
    assert_eq!(
        bytes[8..12],
        9u32.to_le_bytes(),
        "the ninth word: index scheme 2"
    );
    assert_eq!(hex::encode(&bytes), PINNED_WINDOW_FILE);
    // a file of the first index scheme (eight words) reads, answers and writes back as it was
    let old = unhex(PINNED_WINDOW_V1_FILE);
    let f = SlidingWindowBloom::from_bytes(&old).unwrap();
    assert_eq!(f.indexing(), Indexing::Unit);
    assert_eq!(info_index_scheme(&old), Indexing::Unit);
    assert_eq!(info_index_scheme(&bytes), Indexing::Hashed);
    for (position, x) in ["a", "b", "c", "d", "e"].into_iter().enumerate() {
        assert!(f.contains(x, position as u64), "{x}");
    }
    assert_eq!(f.to_bytes(), old);
}

#[test]
fn aging_bloom_file_bytes_are_pinned() {
    let mut f = AgingBloom::new(64, 3, 2, Rotation::Count(2), 42).unwrap();
    for x in ["a", "b", "c"] {
        f.insert(x).unwrap();
    }
    let bytes = f.to_bytes();
    assert_eq!(&bytes[..8], b"AMQ\0\x01\x00\x05\x00");
    assert_eq!(
        bytes[8..12],
        10u32.to_le_bytes(),
        "the tenth word: index scheme 2"
    );
    assert_eq!(hex::encode(&bytes), PINNED_AGING_FILE);
    // a file of the first index scheme (nine words) reads, answers and writes back as it was
    let old = unhex(PINNED_AGING_V1_FILE);
    let f = AgingBloom::from_bytes(&old).unwrap();
    assert_eq!(f.indexing(), Indexing::Unit);
    assert_eq!(info_index_scheme(&old), Indexing::Unit);
    assert_eq!(info_index_scheme(&bytes), Indexing::Hashed);
    assert!(["b", "c"].iter().all(|x| f.contains(x)));
    assert_eq!(f.to_bytes(), old);
}

#[test]
fn negative_cache_file_bytes_are_pinned() {
    let mut c = NegativeCache::new(3, 8, 2, 42).unwrap();
    for x in ["a", "b", "c"] {
        c.insert(x);
    }
    let bytes = c.to_bytes();
    assert_eq!(&bytes[..8], b"AMQ\0\x01\x00\x06\x00");
    assert_eq!(hex::encode(&bytes), PINNED_NEGATIVE_FILE);
}

/// A bucket of `bytes` bytes at `at` of a payload, as the little-endian integer it is.
fn bucket(payload: &[u8], at: usize, bytes: usize) -> u128 {
    let mut b = [0u8; 16];
    b[..bytes].copy_from_slice(&payload[at..at + bytes]);
    u128::from_le_bytes(b)
}

/// The bytes of a small TTL cuckoo file, checked against the layout documented in
/// `TtlCuckooFilter::to_bytes` and the derivation of `amq::hash`.
#[test]
fn ttl_cuckoo_file_bytes_are_pinned() {
    let mut f = TtlCuckooFilter::new(3, 12, 4, 10, 7).unwrap();
    for (item, ttl) in [("apple", 20), ("banana", 30), ("cherry", 40)] {
        f.insert(item, 100, ttl).unwrap(); // expiry ticks 12, 13, 14
    }
    let bytes = f.to_bytes();
    let head = header(7, &[12, 4, 4, 3, 7, 10, 80, 0, 3, 0, 0], 24); // 3 buckets of 8 bytes
    assert_eq!(hex::encode(&bytes[..128]), hex::encode(&head));
    assert_eq!(bytes.len(), 128 + 24 + 8);
    let payload = &bytes[128..152];
    for (item, x) in [("apple", 12u64), ("banana", 13), ("cherry", 14)] {
        let h = amq::hash::hash128(item, 7);
        let fp = amq::hash::cuckoo_fingerprint(h, 12);
        let i1 = amq::hash::cuckoo_index(h, 3);
        let i2 = amq::hash::cuckoo_alt_index(i1, fp, 3);
        let slot = u128::from((u64::from(fp) << 4) | (x % 16)); // fingerprint above a 4-bit stamp
        let found = [i1, i2].iter().any(|&i| {
            let b = bucket(payload, 8 * i as usize, 8);
            (0..4).any(|j| (b >> (16 * j)) & 0xffff == slot)
        });
        assert!(found, "{item}: slot {slot:#x} not in buckets {i1}, {i2}");
    }
    assert_eq!(hex::encode(&bytes), PINNED_TTL_CUCKOO_FILE);
}

/// The bytes of a small sliding-window cuckoo file (a closed epoch of 4 members and an open
/// one), checked against the layout of `SlidingWindowCuckoo::to_bytes` and the derivation of
/// `amq::hash`.
#[test]
fn sliding_window_cuckoo_file_bytes_are_pinned() {
    let mut set = SlidingWindowCuckoo::new(4, 12, 1, 7).unwrap();
    for item in ["apple", "banana", "cherry", "date", "elder"] {
        set.register(item).unwrap();
    }
    let bytes = set.to_bytes();
    // 2 epochs of 2 buckets of 6 bytes: 5 words and 16 bytes each
    let head = header(8, &[12, 4, 4, 1, 7, 0, 2, 1], 112);
    assert_eq!(hex::encode(&bytes[..128]), hex::encode(&head));
    assert_eq!(bytes.len(), 128 + 112 + 8);
    let payload = &bytes[128..240];
    let word = |i: usize| u64::from_le_bytes(payload[8 * i..8 * i + 8].try_into().unwrap());
    assert_eq!([word(0), word(1), word(2)], [1, 4, 4]); // k, registered, members
    assert_eq!([word(7), word(8), word(9)], [1, 1, 1]);
    for (item, epoch) in [
        ("apple", 0usize),
        ("banana", 0),
        ("cherry", 0),
        ("date", 0),
        ("elder", 1),
    ] {
        let h = amq::hash::hash128(item, 7);
        let fp = amq::hash::cuckoo_fingerprint(h, 12);
        let i1 = (h as u64) >> 63; // the top bit of the low half
        let i2 = i1 ^ (u64::from(fp).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 63);
        let table = 56 * epoch + 40;
        let found = [i1, i2].iter().any(|&i| {
            let b = bucket(payload, table + 6 * i as usize, 6);
            (0..4).any(|j| (b >> (12 * j)) & 0xfff == u128::from(fp))
        });
        let stash = (word(7 * epoch + 3) == u64::from(fp)).then_some(word(7 * epoch + 4));
        assert!(found || stash.is_some_and(|b| b == i1 || b == i2), "{item}");
    }
    assert_eq!(hex::encode(&bytes), PINNED_SLIDING_WINDOW_CUCKOO_FILE);
}

/// A scalable Bloom filter of two links: the parameters as the layout in `to_bytes` documents
/// them, each link's three words and then exactly the bits a classic filter of its m and k
/// sets for its items.
#[test]
fn scalable_bloom_file_bytes_are_pinned() {
    let p = ScalableParams::new(2, 0.1);
    let mut f = ScalableBloomFilter::new(p, 7).unwrap();
    for item in ["apple", "banana", "cherry"] {
        assert_eq!(f.insert(item), Ok(true));
    }
    assert_eq!(f.links(), 2);
    let bytes = f.to_bytes();
    let links: Vec<_> = (0..2).map(|i| f.link(i).unwrap().clone()).collect();
    let payload_len: u64 = links.iter().map(|l| 24 + l.size_bytes()).sum();
    let params = [2, 0.1f64.to_bits(), 2, 0.5f64.to_bits(), 0, 7, 2, 2];
    let head = header(9, &params, payload_len);
    assert_eq!(head.len(), 128);
    assert_eq!(hex::encode(&bytes[..128]), hex::encode(&head));
    let mut at = 128;
    for (l, items) in links
        .iter()
        .zip([&["apple", "banana"][..], &["cherry"][..]])
    {
        let words: Vec<u64> = (0..3)
            .map(|j| u64::from_le_bytes(bytes[at + 8 * j..at + 8 * j + 8].try_into().unwrap()))
            .collect();
        assert_eq!(words, [l.m(), u64::from(l.k()), items.len() as u64]);
        let bits = spec_bloom_bits(items, l.m(), l.k(), 7);
        assert_eq!(
            hex::encode(&bytes[at + 24..at + 24 + bits.len()]),
            hex::encode(&bits)
        );
        at += 24 + bits.len();
    }
    assert_eq!(hex::encode(&bytes), PINNED_SCALABLE_FILE);
}

/// An expandable cuckoo filter of two links: the parameters, each link's five words and its
/// packed buckets, padded to whole words.
#[test]
fn expandable_cuckoo_file_bytes_are_pinned() {
    let p = ExpandableParams {
        expansion: 1,
        max_kicks: 20,
        ..ExpandableParams::new(4, 0.01)
    };
    let mut f = ExpandableCuckooFilter::new(p, 7).unwrap();
    for item in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"] {
        f.insert(item).unwrap();
    }
    assert_eq!(f.links(), 2);
    let bytes = f.to_bytes();
    let params = [4, 0.01f64.to_bits(), 1, 0.5f64.to_bits(), 20, 7, 0, 2];
    let links: Vec<_> = (0..2).map(|i| f.link(i).unwrap().clone()).collect();
    let payload_len: u64 = links
        .iter()
        .map(|l| 40 + l.size_bytes().next_multiple_of(8))
        .sum();
    let head = header(10, &params, payload_len);
    assert_eq!(hex::encode(&bytes[..128]), hex::encode(&head));
    let mut at = 128;
    for l in &links {
        let one = l.to_bytes(); // the link as a cuckoo file: its table is the same bytes
        let table = &one[128..128 + l.size_bytes() as usize];
        let w0 = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        assert_eq!(w0, u64::from(l.fingerprint_bits()));
        assert_eq!(
            hex::encode(&bytes[at + 40..at + 40 + table.len()]),
            hex::encode(table)
        );
        at += 40 + table.len().next_multiple_of(8);
    }
    assert_eq!(hex::encode(&bytes), PINNED_EXPANDABLE_FILE);
}

#[test]
fn the_item_hash_is_pinned() {
    // XXH3-128 is the item hash of every general filter; these are the reference values of
    // xxh3_128_with_seed for the empty input and for "apple" (seed 0 and 7).
    assert_eq!(
        format!("{:032x}", amq::hash::hash128(b"".as_slice(), 0)),
        PINNED_HASH_EMPTY
    );
    assert_eq!(
        format!("{:032x}", amq::hash::hash128("apple", 7)),
        PINNED_HASH_APPLE_7
    );
    // integers are their little-endian bytes
    assert_eq!(
        amq::hash::hash128(&1u32, 0),
        amq::hash::hash128([1u8, 0, 0, 0].as_slice(), 0)
    );
}

/// The documented derivations, written out again here from the docs of `amq::hash` rather
/// than called, so that the pinned bits are checked against the specification too. Index
/// scheme 2 (`Indexing::Hashed`): the step y grows by i·c, c = (x₀ ⊕ y₀)·⌊2⁶⁴/φ⌋.
fn spec_bloom_bits(items: &[&str], m: u64, k: u32, seed: u64) -> Vec<u8> {
    spec_bloom_bits_c(items, m, k, seed, |x, y| {
        (x ^ y).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    })
}

fn spec_bloom_bits_c(
    items: &[&str],
    m: u64,
    k: u32,
    seed: u64,
    c_of: impl Fn(u64, u64) -> u64,
) -> Vec<u8> {
    let mut bits = vec![0u8; (m.div_ceil(64) * 8) as usize];
    for item in items {
        let h = amq::hash::hash128(*item, seed);
        let (mut x, mut y) = (h as u64, (h >> 64) as u64);
        let c = c_of(x, y);
        for i in 0..k {
            let idx = ((x as u128 * m as u128) >> 64) as u64;
            bits[(idx / 8) as usize] |= 1 << (idx % 8);
            x = x.wrapping_add(y);
            y = y.wrapping_add(u64::from(i + 1).wrapping_mul(c));
        }
    }
    bits
}

/// Index scheme 1 (`Indexing::Unit`): the step y grows by i.
fn spec_bloom_bits_unit(items: &[&str], m: u64, k: u32, seed: u64) -> Vec<u8> {
    spec_bloom_bits_c(items, m, k, seed, |_, _| 1)
}

fn spec_blocked_bits(items: &[&str], blocks: u64, k: u32, seed: u64, salts: &[u64]) -> Vec<u8> {
    let mut bits = vec![0u8; (blocks * 64) as usize];
    for item in items {
        let h = amq::hash::hash128(*item, seed);
        let block = ((h as u64 as u128 * blocks as u128) >> 64) as u64;
        for salt in &salts[..k as usize] {
            let p = ((h >> 64) as u64).wrapping_mul(*salt) >> 55;
            let bit = block * amq::math::BLOCK_BITS + p;
            bits[(bit / 8) as usize] |= 1 << (bit % 8);
        }
    }
    bits
}

/// The first SplitMix64 outputs from state 0x6a09e667f3bcc908, low bit set (`hash.rs`).
fn spec_salts(n: usize) -> Vec<u64> {
    let mut state: u64 = 0x6a09_e667_f3bc_c908;
    (0..n)
        .map(|_| amq::hash::splitmix64(&mut state) | 1)
        .collect()
}

#[test]
fn pinned_bits_follow_the_documented_derivation() {
    let items = ["apple", "banana", "cherry"];
    assert_eq!(
        hex::encode(spec_bloom_bits(&items, 100, 3, 7)),
        PINNED_BLOOM_PAYLOAD
    );
    assert_eq!(
        hex::encode(spec_blocked_bits(&items, 2, 4, 7, &spec_salts(4))),
        PINNED_BLOCKED_PAYLOAD
    );
    // and for a larger random case, against the library itself
    let words: Vec<String> = (0..500).map(|i| format!("w{i}")).collect();
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut f = BloomFilter::new(12_345, 6, 99).unwrap();
    let mut g = BlockedBloomFilter::new(512 * 37, 9, 99).unwrap();
    for w in &refs {
        f.insert(*w).unwrap();
        g.insert(*w).unwrap();
    }
    assert_eq!(
        f.to_bytes()[64..64 + 1544],
        spec_bloom_bits(&refs, 12_345, 6, 99)[..]
    );
    assert_eq!(
        g.to_bytes()[64..64 + 37 * 64],
        spec_blocked_bits(&refs, 37, 9, 99, &spec_salts(9))[..]
    );
}
