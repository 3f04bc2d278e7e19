//! Schema tests: the exact bytes of a small `.amq` file of each kind.
//!
//! The hash, the index derivation and the container layout are the file format. If any of
//! them changes, these bytes change, and this test fails: then raise `wire::VERSION` and
//! update the bytes on purpose. Every kind of the container has a pinned file here.

use amq::{BlockedBloomFilter, BloomFilter, Insert};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

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
    let bytes = f.to_bytes();
    let head = header(1, &[100, 3, 7, 3], 16);
    assert_eq!(hex(&bytes[..64]), hex(&head));
    assert_eq!(bytes.len(), 64 + 16 + 8);
    assert_eq!(
        hex(&bytes[64..80]),
        PINNED_BLOOM_PAYLOAD,
        "bits of apple, banana, cherry"
    );
    assert_eq!(hex(&bytes[80..]), PINNED_BLOOM_CHECKSUM);
}

#[test]
fn blocked_bloom_file_bytes_are_pinned() {
    let mut f = BlockedBloomFilter::new(1024, 4, 7).unwrap();
    for item in ["apple", "banana", "cherry"] {
        f.insert(item).unwrap();
    }
    let bytes = f.to_bytes();
    let head = header(2, &[1024, 4, 7, 3], 128);
    assert_eq!(hex(&bytes[..64]), hex(&head));
    assert_eq!(bytes.len(), 64 + 128 + 8);
    assert_eq!(
        hex(&bytes[64..192]),
        PINNED_BLOCKED_PAYLOAD,
        "bits of apple, banana, cherry"
    );
    assert_eq!(hex(&bytes[192..]), PINNED_BLOCKED_CHECKSUM);
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
/// than called, so that the pinned bits are checked against the specification too.
fn spec_bloom_bits(items: &[&str], m: u64, k: u32, seed: u64) -> Vec<u8> {
    let mut bits = vec![0u8; (m.div_ceil(64) * 8) as usize];
    for item in items {
        let h = amq::hash::hash128(*item, seed);
        let (mut x, mut y) = (h as u64, (h >> 64) as u64);
        for i in 0..k {
            let idx = ((x as u128 * m as u128) >> 64) as u64;
            bits[(idx / 8) as usize] |= 1 << (idx % 8);
            x = x.wrapping_add(y);
            y = y.wrapping_add(u64::from(i + 1));
        }
    }
    bits
}

fn spec_blocked_bits(items: &[&str], blocks: u64, k: u32, seed: u64, salts: &[u64]) -> Vec<u8> {
    let mut bits = vec![0u8; (blocks * 64) as usize];
    for item in items {
        let h = amq::hash::hash128(*item, seed);
        let block = ((h as u64 as u128 * blocks as u128) >> 64) as u64;
        for salt in &salts[..k as usize] {
            let p = ((h >> 64) as u64).wrapping_mul(*salt) >> 55;
            let bit = block * 512 + p;
            bits[(bit / 8) as usize] |= 1 << (bit % 8);
        }
    }
    bits
}

/// The first SplitMix64 outputs from state 0x6a09e667f3bcc908, low bit set (`hash.rs`).
fn spec_salts(n: usize) -> Vec<u64> {
    let mut state: u64 = 0x6a09_e667_f3bc_c908;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) | 1
        })
        .collect()
}

#[test]
fn pinned_bits_follow_the_documented_derivation() {
    let items = ["apple", "banana", "cherry"];
    assert_eq!(
        hex(&spec_bloom_bits(&items, 100, 3, 7)),
        PINNED_BLOOM_PAYLOAD
    );
    assert_eq!(
        hex(&spec_blocked_bits(&items, 2, 4, 7, &spec_salts(4))),
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

const PINNED_BLOOM_PAYLOAD: &str = "10500001002000000200220002000000";
const PINNED_BLOOM_CHECKSUM: &str = "742e1a20229cf37a";
const PINNED_BLOCKED_PAYLOAD: &str = "0000008000002000000000000004000000000000000000000000000000000004008000000000000000000000000001040000000000000000000000000000000800400000000000000000000000000000000000000000000000000000000000000000000000000000000080000000100000200000000000000000000000000000";
const PINNED_BLOCKED_CHECKSUM: &str = "11c3ee3f74c4f3aa";
const PINNED_HASH_EMPTY: &str = "99aa06d3014798d86001c324468d497f";
const PINNED_HASH_APPLE_7: &str = "cc1185c76f5b06fbdb1def1a82751875";
