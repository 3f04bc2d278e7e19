//! The Algorand unit-name registry against go-algorand's AVM vectors and an independent Python
//! oracle (tests/vectors/algorand), plus the false-positive count of a 10,000-name replay.
#![cfg(feature = "algorand")]

use amq::formats::algorand::{
    avm_getbit, avm_getbit_uint64, avm_setbit, avm_setbit_uint64, expected_refusals,
    expected_refusals_to_mint, extract_uint64, index, plan, AlgorandBloom, AvmHash, BuyError,
    UnitNameRegistry, MAX_BOX_BYTES,
};
use amq::{Error, Filter, Insert};
use proptest::prelude::*;
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!(
        "{}/../../tests/vectors/algorand/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn avm_bit_order_vectors() {
    let v = load("avm-bit-ordering.json");
    let mut checked = 0;
    for c in v["getbit_bytes"].as_array().unwrap() {
        let bytes = unhex(c["bytes_hex"].as_str().unwrap());
        let i = c["index"].as_u64().unwrap();
        match &c["expected"] {
            Value::String(panic) => {
                let err = avm_getbit(&bytes, i).unwrap_err();
                assert!(
                    panic.contains("beyond byteslice")
                        && err.to_string().contains("beyond byteslice")
                );
            }
            e => assert_eq!(avm_getbit(&bytes, i).unwrap(), e.as_u64().unwrap() == 1),
        }
        checked += 1;
    }
    for c in v["setbit_bytes"].as_array().unwrap() {
        let mut bytes = unhex(c["bytes_hex"].as_str().unwrap());
        let bit = c["bit"].as_u64().unwrap();
        let indices: Vec<u64> = match c.get("indices") {
            Some(list) => list
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect(),
            None => vec![c["index"].as_u64().unwrap()],
        };
        let before = bytes.clone();
        let result: Result<(), Error> = indices
            .iter()
            .try_for_each(|&i| avm_setbit(&mut bytes, i, bit));
        match c.get("expected_hex") {
            Some(want) => {
                result.unwrap();
                assert_eq!(hex::encode(&bytes), want.as_str().unwrap());
            }
            None => {
                let err = result.unwrap_err().to_string();
                let want = c["expected"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("panic: ");
                assert!(err.contains(want), "{err} vs {want}");
                assert_eq!(bytes, before, "a failed setbit changes nothing");
            }
        }
        checked += 1;
    }
    for c in v["getbit_uint64"].as_array().unwrap() {
        let (value, i) = (c["value"].as_u64().unwrap(), c["index"].as_u64().unwrap());
        match &c["expected"] {
            Value::String(p) => assert!(avm_getbit_uint64(value, i)
                .unwrap_err()
                .to_string()
                .contains(p.trim_start_matches("panic: "))),
            e => assert_eq!(
                avm_getbit_uint64(value, i).unwrap(),
                e.as_u64().unwrap() == 1
            ),
        }
        checked += 1;
    }
    for c in v["setbit_uint64"].as_array().unwrap() {
        let (value, i, bit) = (
            c["value"].as_u64().unwrap(),
            c["index"].as_u64().unwrap(),
            c["bit"].as_u64().unwrap(),
        );
        match &c["expected"] {
            Value::String(p) => assert!(avm_setbit_uint64(value, i, bit)
                .unwrap_err()
                .to_string()
                .contains(p.trim_start_matches("panic: "))),
            e => assert_eq!(
                avm_setbit_uint64(value, i, bit).unwrap(),
                e.as_u64().unwrap()
            ),
        }
        checked += 1;
    }
    assert_eq!(checked, 3 + 7 + 5 + 4);
}

#[test]
fn hash_opcodes_are_the_fips_functions() {
    let v = load("avm-bit-ordering.json");
    let d = &v["hash_opcodes"]["abc_digests"];
    let s = |k: &str| d[k].as_str().unwrap().to_string();
    assert_eq!(
        hex::encode(AvmHash::Sha512_256.digest(b"abc")),
        s("sha512_256")
    );
    assert_ne!(
        hex::encode(AvmHash::Sha512_256.digest(b"abc")),
        s("sha512_truncated_256_WRONG")
    );
    assert_eq!(hex::encode(AvmHash::Sha3_256.digest(b"abc")), s("sha3_256"));
    assert_eq!(
        hex::encode(AvmHash::Keccak256.digest(b"abc")),
        s("keccak256_WRONG_for_sha3_256")
    );
    // FIPS 180-4 SHA-256("abc")
    assert_eq!(
        hex::encode(AvmHash::Sha256.digest(b"abc")),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    // each function under its TEAL opcode's name, the vector file's keys for the first two
    let all = [
        AvmHash::Sha512_256,
        AvmHash::Sha3_256,
        AvmHash::Sha256,
        AvmHash::Keccak256,
    ];
    for h in &all[..2] {
        assert_eq!(hex::encode(h.digest(b"abc")), s(h.opcode()));
    }
    let names = all.map(AvmHash::opcode);
    assert_eq!(names, ["sha512_256", "sha3_256", "sha256", "keccak256"]);
}

/// `setbit` on a uint64 (TEAL: bit 0 is the least significant): setting bit i sets exactly
/// that bit, at any i, and setting a bit already set leaves the value as it was. Worked by
/// hand: 1 << 5 = 32, 1 << 63 = 0x8000_0000_0000_0000.
#[test]
fn setbit_of_a_uint64_sets_bit_i_from_the_low_end() {
    assert_eq!(avm_setbit_uint64(0, 5, 1).unwrap(), 32);
    assert_eq!(avm_setbit_uint64(0, 63, 1).unwrap(), 0x8000_0000_0000_0000);
    assert_eq!(avm_setbit_uint64(32, 5, 1).unwrap(), 32);
    assert_eq!(avm_setbit_uint64(u64::MAX, 0, 1).unwrap(), u64::MAX);
    assert_eq!(avm_setbit_uint64(33, 5, 0).unwrap(), 1);
    assert!(avm_getbit_uint64(32, 5).unwrap());
}

#[test]
fn extract_uint64_is_big_endian_and_bounded() {
    let bytes: Vec<u8> = (0u8..32).collect();
    assert_eq!(extract_uint64(&bytes, 24).unwrap(), 0x18191a1b1c1d1e1f);
    assert!(extract_uint64(&bytes, 25).is_err());
    assert!(extract_uint64(&bytes, usize::MAX).is_err());
}

#[test]
fn indices_match_the_python_oracle() {
    let v = load("registry-oracle.json");
    let cases = v["indices"].as_array().unwrap();
    assert_eq!(cases.len(), 21);
    for c in cases {
        let name = unhex(c["name_hex"].as_str().unwrap());
        let m = c["m"].as_u64().unwrap();
        let (h1, h2) = (c["h1"].as_u64().unwrap(), c["h2"].as_u64().unwrap());
        assert_eq!(index(AvmHash::Sha512_256, &name, m), h1);
        assert_eq!(index(AvmHash::Sha3_256, &name, m), h2);
        let bloom = AlgorandBloom::with_size((m / 8) as usize, 2).unwrap();
        assert_eq!(bloom.indices(&name), vec![h1, h2]);
    }
}

fn sha256_hex(b: &[u8]) -> String {
    hex::encode(AvmHash::Sha256.digest(b))
}

#[test]
fn replays_match_the_python_oracle() {
    let v = load("registry-oracle.json");
    for r in v["replays"].as_array().unwrap() {
        let mut app = UnitNameRegistry::new(r["max_supply"].as_u64().unwrap());
        if r["bootstrapped"].as_bool().unwrap() {
            app.create_bloom_filter();
        }
        let calls = r["calls_hex"].as_array().unwrap();
        let results = r["results"].as_array().unwrap();
        for (call, want) in calls.iter().zip(results) {
            let got = match app.buy_nft(&unhex(call.as_str().unwrap())) {
                Ok(()) => "ok".to_string(),
                Err(e) => format!("fail: {e}"),
            };
            assert_eq!(got, want.as_str().unwrap(), "call {call}");
        }
        assert_eq!(app.minted(), r["minted"].as_u64().unwrap());
        match r["box_sha256"].as_str() {
            Some(want) => assert_eq!(sha256_hex(app.bloom().unwrap().as_bytes()), want),
            None => assert!(app.bloom().is_none()),
        }
    }
    let long = &v["long_replay"];
    let mut app = UnitNameRegistry::new(long["max_supply"].as_u64().unwrap());
    app.create_bloom_filter();
    let calls: Vec<String> = (0..3000)
        .chain(0..100)
        .map(|i| format!("BAYC{i}"))
        .collect();
    let mut failures = Vec::new();
    for (i, name) in calls.iter().enumerate() {
        if let Err(e) = app.buy_nft(name.as_bytes()) {
            failures.push(serde_json::json!([i, format!("fail: {e}")]));
        }
    }
    assert_eq!(Value::from(failures), long["failures"]);
    assert_eq!(app.minted(), long["minted"].as_u64().unwrap());
    assert_eq!(
        sha256_hex(app.bloom().unwrap().as_bytes()),
        long["box_sha256"].as_str().unwrap()
    );
}

/// The experiment: 10,000 distinct names replayed against the seed contract (max
/// supply 10,000, 4,096-byte box, k = 2). Every refusal is a false positive (no name repeats);
/// their count is checked against the planner's expectation within 3 binomial sigmas. Then
/// 10,000 more names, never sent, are checked against the filled box.
#[test]
fn ten_thousand_name_replay_false_positives() {
    let mut app = UnitNameRegistry::new(10_000);
    app.create_bloom_filter();
    let calls = 10_000u64;
    let mut refused = 0u64;
    for i in 0..calls {
        match app.buy_nft(format!("U{i}").as_bytes()) {
            Ok(()) => {}
            Err(BuyError::UnitNameTaken) => refused += 1,
            Err(e) => panic!("unexpected {e}"),
        }
    }
    let bloom = app.bloom().unwrap();
    let expected = expected_refusals(bloom.m(), bloom.k(), calls);
    let mean_p = expected / calls as f64;
    let sigma = amq::math::binomial_sigma(mean_p, calls) * calls as f64;
    println!(
        "10,000-name replay: {refused} never-minted names refused (false positives), \
         expected {expected:.1} ± {sigma:.1}; minted {}",
        app.minted()
    );
    assert!(
        (refused as f64 - expected).abs() <= 3.0 * sigma,
        "refused {refused}, expected {expected:.1} ± {sigma:.1}"
    );
    assert_eq!(app.minted() + refused, calls);
    // A refused name's bits were all set already, so the box is exactly the Bloom filter of
    // all 10,000 names, minted or refused: which is why the expectation sums over calls.
    let mut all = AlgorandBloom::new();
    for i in 0..calls {
        all.insert(format!("U{i}").as_bytes()).unwrap();
    }
    assert_eq!(&all, bloom);

    // fresh names against the filled box: the classic rate for all 10,000 names called
    let probes = 10_000u64;
    let taken = (0..probes)
        .filter(|i| bloom.contains(format!("V{i}").as_bytes()))
        .count() as f64;
    let rate = bloom.expected_fpr(calls);
    let sigma = amq::math::binomial_sigma(rate, probes);
    println!(
        "after the replay: {taken} of {probes} fresh names refused ({:.4}), expected {rate:.4} ± {sigma:.4}",
        taken / probes as f64
    );
    assert!((taken / probes as f64 - rate).abs() <= 3.0 * sigma);
}

#[test]
fn planner_is_minimal_and_costed() {
    let p = plan(10_000, 0.01, 5).unwrap();
    assert_eq!((p.box_bytes, p.k), (13_184, 4));
    assert!(p.fpr <= 0.01);
    for k in 1..=4u8 {
        let smaller = (p.box_bytes as u64 - 1) * 8;
        assert!(expected_refusals_to_mint(smaller, k, 10_000).1 > 0.01);
    }
    assert_eq!(p.min_balance_microalgos, 2_500 + 400 * (5 + 13_184));
    // the seed's own box: 4,096 bytes and k = 2 end at about 24% once 10,000 are minted,
    // after about 1,039 refusals on the way
    let (refusals, end_rate) = expected_refusals_to_mint(32_768, 2, 10_000);
    assert!((refusals - 1038.6).abs() < 1.0 && (end_rate - 0.2403).abs() < 1e-3);
    let seed = plan(10_000, 0.25, 5).unwrap();
    assert!(seed.box_bytes <= 4096, "{seed:?}");
    assert_eq!(amq::formats::algorand::box_min_balance(5, 4096), 1_642_900);
    // beyond one box
    let err = plan(1_000_000, 0.001, 5).unwrap_err();
    assert!(err.to_string().contains("32,768-byte box"), "{err}");
}

#[test]
fn box_decoding_limits() {
    assert!(AlgorandBloom::from_box(&[], 2).is_err());
    assert!(matches!(
        AlgorandBloom::from_box(&vec![0; MAX_BOX_BYTES + 1], 2),
        Err(Error::TooLarge { .. })
    ));
    assert!(AlgorandBloom::from_box(&[0; 8], 0).is_err());
    assert!(AlgorandBloom::from_box(&[0; 8], 5).is_err());
    let b = AlgorandBloom::from_box(&vec![0; MAX_BOX_BYTES], 4).unwrap();
    assert_eq!(b.m(), 262_144);
}

proptest! {
    #[test]
    fn inserted_names_are_taken(
        names in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..12), 1..60),
        box_bytes in 1usize..600,
        k in 1u8..=4,
    ) {
        let mut b = AlgorandBloom::with_size(box_bytes, k).unwrap();
        for n in &names {
            b.insert(&n[..]).unwrap();
        }
        for n in &names {
            prop_assert!(b.contains(&n[..]));
            for i in b.indices(n) {
                prop_assert!(avm_getbit(b.as_bytes(), i).unwrap());
            }
        }
    }

    #[test]
    fn registry_calls_are_atomic(
        calls in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..11), 0..40),
        max_supply in 0u64..30,
    ) {
        let mut app = UnitNameRegistry::with_shape(max_supply, 16, 2).unwrap();
        app.create_bloom_filter();
        for c in &calls {
            let before = app.clone();
            let dry = app.check_buy(c);
            let got = app.buy_nft(c);
            prop_assert_eq!(dry, got);
            match got {
                Ok(()) => {
                    prop_assert_eq!(app.minted(), before.minted() + 1);
                    prop_assert!(app.bloom().unwrap().contains(&c[..]));
                    prop_assert!(c.len() <= 8);
                }
                Err(_) => prop_assert_eq!(&app, &before),
            }
            prop_assert!(app.minted() <= max_supply);
        }
    }

    #[test]
    fn box_decoding_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64), k in any::<u8>()) {
        if let Ok(b) = AlgorandBloom::from_box(&bytes, k) {
            prop_assert_eq!(b.as_bytes(), &bytes[..]);
            prop_assert_eq!(b.m(), bytes.len() as u64 * 8);
        }
    }
}

// Edges that the tests above left open, each found by a mutant of the library they did not
// catch (cargo-mutants over algorand/bloom.rs and registry.rs).

/// The oracle's (name, h1, h2) rows at m bits.
fn oracle_indices(m: u64) -> Vec<(Vec<u8>, u64, u64)> {
    load("registry-oracle.json")["indices"]
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

/// Byte and mask of bit i of a box the AVM way (`setbit`/`getbit` on a byte array: bit 0 is
/// the most significant bit of byte 0), written here independently of the library.
fn avm_bit(i: u64) -> (usize, u8) {
    ((i / 8) as usize, 0x80 >> (i % 8))
}

fn set_avm_bit(bytes: &mut [u8], i: u64) {
    let (byte, mask) = avm_bit(i);
    bytes[byte] |= mask;
}

fn avm_bit_is_set(bytes: &[u8], i: u64) -> bool {
    let (byte, mask) = avm_bit(i);
    bytes[byte] & mask != 0
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
        let fresh = !avm_bit_is_set(&expected, *h1) || !avm_bit_is_set(&expected, *h2);
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
