//! Cashu compact state filters (cashubtc/nuts PR #433): every published vector of both
//! revisions (tests/vectors/cashu-state), properties of blocks and epochs, a measured ε, and
//! the mint-side sequence under an injected clock.
//!
//! `vectors`: the published vectors (provenance, elements, revision A, revision B's cases 1
//! to 7); `blocks`: revision B's sizing, saturation, info and heights, and the properties;
//! `sequence`: the mint-side sequence.
#![cfg(feature = "cashu-state")]

use amq::clock::ManualClock;
use amq::formats::cashu_state::{
    capacity, epoch_position, expected_fill, fpr_at_fill, smallest_b, width_of, Block, BlockStore,
    Element, Epoch, FiltersInfo, Kind, MemoryStore, OpenHeader, Paging, SealedBlock, Sequence,
    SequenceConfig, Served, SnapshotRecord, StoredSequence, Words, MAX_B, MIN_B,
};
use amq::Error;
use base64::Engine as _;
use proptest::prelude::*;
use serde_json::Value;
use std::cell::Cell;
use std::rc::Rc;

mod blocks;
mod sequence;
mod vectors;

// ------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/vectors/cashu-state"
);

fn json(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/{name}")).unwrap()).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn e32(v: &Value) -> [u8; 32] {
    unhex(v.as_str().unwrap()).try_into().unwrap()
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array().unwrap().iter().map(u).collect()
}

fn elements(v: &Value) -> Vec<[u8; 32]> {
    v.as_array().unwrap().iter().map(e32).collect()
}

/// E of a vector entry with `kind`, `id_hex`, `state`.
fn element_of(v: &Value) -> [u8; 32] {
    let kind = Kind::parse(s(&v["kind"])).unwrap();
    let id = unhex(s(&v["id_hex"]));
    Element::parse(kind, &id, s(&v["state"])).unwrap().hash()
}

fn block_of(b: u8, elements: &[[u8; 32]]) -> Block {
    let mut block = Block::new(b).unwrap();
    for e in elements {
        block.insert(&Words::from_element(e));
    }
    block
}

fn b64(bytes: &[u8]) -> [String; 2] {
    [
        base64::engine::general_purpose::URL_SAFE.encode(bytes),
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes),
    ]
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| s(x).to_string())
        .collect()
}

/// A stand-in element: 32 bytes from a counter (SplitMix64 words).
fn sha_counter(seed: u64, i: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (k, chunk) in out.chunks_mut(8).enumerate() {
        let mut z = seed
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(i * 4 + k as u64)
            .wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out
}
