//! Edges of the Algorand unit-name registry's Bloom filter that `tests/algorand.rs` leaves
//! open, each found by a mutant of the library that those tests did not catch. Bit indices
//! come from the independent Python oracle (tests/vectors/algorand/registry-oracle.json).
#![cfg(feature = "algorand")]

use amq::formats::algorand::{AlgorandBloom, BuyError, UnitNameRegistry};
use amq::Insert;
use serde_json::Value;

fn oracle() -> Value {
    let path = format!(
        "{}/../../tests/vectors/algorand/registry-oracle.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The oracle's (name, h1, h2) rows at m bits.
fn oracle_indices(m: u64) -> Vec<(Vec<u8>, u64, u64)> {
    oracle()["indices"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["m"].as_u64() == Some(m))
        .map(|row| {
            (
                unhex(row["name_hex"].as_str().unwrap()),
                row["h1"].as_u64().unwrap(),
                row["h2"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Sets bit i of a box the AVM way (`setbit` on a byte array: bit 0 is the most significant
/// bit of byte 0), written here independently of the library.
fn set_avm_bit(bytes: &mut [u8], i: u64) {
    bytes[(i / 8) as usize] |= 0x80 >> (i % 8);
}

/// `insert_name` reports whether some bit changed: `true` for a name whose h1 or h2 was
/// clear, `false` for a repeat; and the box it leaves (`into_bytes`) holds exactly the
/// oracle's bits.
#[test]
fn insert_reports_a_change_and_the_box_holds_the_oracle_bits() {
    let rows = oracle_indices(32_768);
    assert!(rows.len() >= 5);
    let mut bloom = AlgorandBloom::new(); // 4,096 bytes, k = 2, m = 32,768 bits
    let mut expected = vec![0u8; 4096];
    for (name, h1, h2) in &rows {
        let fresh = {
            let (b1, b2) = (expected[(h1 / 8) as usize], expected[(h2 / 8) as usize]);
            b1 & (0x80 >> (h1 % 8)) == 0 || b2 & (0x80 >> (h2 % 8)) == 0
        };
        assert_eq!(bloom.insert_name(name), fresh, "name {name:02x?}");
        set_avm_bit(&mut expected, *h1);
        set_avm_bit(&mut expected, *h2);
        // a repeat changes nothing
        assert!(!bloom.insert_name(name));
        assert_eq!(
            Insert::<[u8]>::insert(&mut bloom, name.as_slice()),
            Ok(false)
        );
    }
    assert_eq!(bloom.as_bytes(), &expected[..]);
    let ones: u64 = expected.iter().map(|b| u64::from(b.count_ones())).sum();
    assert!(ones > 2);
    assert_eq!(bloom.bits_set(), ones);
    assert_eq!(bloom.into_bytes(), expected);
}

/// The first insertion into an empty box always changes a bit, through both entry points.
#[test]
fn first_insertion_into_an_empty_box_changes_bits() {
    let (name, h1, h2) = oracle_indices(32_768).remove(0);
    let mut bloom = AlgorandBloom::new();
    assert_eq!(
        Insert::<[u8]>::insert(&mut bloom, name.as_slice()),
        Ok(true)
    );
    let mut expected = vec![0u8; 4096];
    set_avm_bit(&mut expected, h1);
    set_avm_bit(&mut expected, h2);
    assert_eq!(bloom.clone().into_bytes(), expected);
    assert_eq!(bloom.bits_set(), if h1 == h2 { 1 } else { 2 });
}

/// A contract that minted its whole supply is a state it reaches (minted = max_supply), so it
/// reads back; only more than max_supply is refused. The read-back keeps max_supply and
/// refuses the next `buy_nft` for supply, before anything else.
#[test]
fn a_registry_minted_out_reads_back_and_keeps_its_supply() {
    let mut app = UnitNameRegistry::new(3);
    assert_eq!(app.max_supply(), 3);
    app.create_bloom_filter();
    for name in [&b"BAYC0"[..], b"BAYC1", b"BAYC2"] {
        app.buy_nft(name).unwrap();
    }
    assert_eq!((app.minted(), app.max_supply()), (3, 3));
    let bytes = app.bloom().unwrap().as_bytes().to_vec();
    let back = UnitNameRegistry::from_state(3, 3, 4096, 2, Some(&bytes)).unwrap();
    assert_eq!(back, app);
    assert_eq!((back.minted(), back.max_supply()), (3, 3));
    assert_eq!(back.check_buy(b"NEW"), Err(BuyError::MaximumSupplyReached));
    assert!(UnitNameRegistry::from_state(3, 4, 4096, 2, Some(&bytes)).is_err());
    // max_supply is what it was made with, whatever the shape
    let shaped = UnitNameRegistry::with_shape(70_000, 64, 3).unwrap();
    assert_eq!(shaped.max_supply(), 70_000);
    assert_eq!(
        UnitNameRegistry::from_state(0, 0, 64, 3, None)
            .unwrap()
            .max_supply(),
        0
    );
}
