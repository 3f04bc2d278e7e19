//! BIP37 against Bitcoin Core's test values (tests/vectors/bip37), plus properties and a
//! measured false-positive rate.
#![cfg(feature = "bip37")]

use amq::formats::bip37::{
    core_size, murmur3_x86_32, outpoint, Bip37Filter, Tx, TxIn, BLOOM_UPDATE_ALL,
    MAX_BLOOM_FILTER_SIZE, MAX_HASH_FUNCS,
};
use amq::{Error, Filter, Insert};
use bitcoin::hashes::Hash;
use proptest::prelude::*;
use serde_json::Value;

fn vectors() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/bip37/bitcoin-core-bip37-vectors.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn strs(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_str().unwrap()).collect())
        .unwrap_or_default()
}

#[test]
fn core_murmurhash3_values() {
    let v = vectors();
    let cases = v["murmurhash3_x86_32"].as_array().unwrap();
    assert_eq!(cases.len(), 14);
    for c in cases {
        let seed = c["seed"].as_u64().unwrap() as u32;
        let data = unhex(c["data_hex"].as_str().unwrap());
        let want = c["expected"].as_u64().unwrap() as u32;
        assert_eq!(
            murmur3_x86_32(&data, seed),
            want,
            "seed {seed:#x} data {data:02x?}"
        );
    }
}

#[test]
fn core_filter_serializations() {
    let v = vectors();
    let filters = v["filters"].as_array().unwrap();
    assert_eq!(filters.len(), 3);
    for c in filters {
        let name = c["test"].as_str().unwrap();
        let n = c["n_elements"].as_u64().unwrap() as u32;
        let fpr = c["fp_rate"].as_f64().unwrap();
        let tweak = c["tweak"].as_u64().unwrap() as u32;
        let flags = c["flags"].as_u64().unwrap() as u8;
        let mut f = Bip37Filter::new(n, fpr, tweak, flags).unwrap();
        for item in strs(&c["insert_hex"]) {
            f.insert(&unhex(item)[..]).unwrap();
        }
        for item in strs(&c["must_contain_hex"]) {
            assert!(f.contains(&unhex(item)[..]), "{name}: {item} missing");
        }
        for item in strs(&c["must_not_contain_hex"]) {
            assert!(!f.contains(&unhex(item)[..]), "{name}: {item} matched");
        }
        let want = unhex(c["serialized_filterload_hex"].as_str().unwrap());
        assert_eq!(f.to_filterload(), want, "{name}: filterload bytes");
        let back = Bip37Filter::from_filterload(&want).unwrap();
        assert_eq!(back, f, "{name}: decode");
        let mut cleared = f.clone();
        cleared.clear();
        for item in strs(&c["after_clear_must_not_contain_hex"]) {
            assert!(
                !cleared.contains(&unhex(item)[..]),
                "{name}: {item} after clear"
            );
        }
    }
}

/// The parts of a decoded transaction BIP37 matching reads.
struct OwnedTx {
    txid: [u8; 32],
    outputs: Vec<Vec<u8>>,
    inputs: Vec<([u8; 32], u32, Vec<u8>)>,
}

impl OwnedTx {
    fn decode(hex: &str) -> (OwnedTx, String) {
        let tx: bitcoin::Transaction =
            bitcoin::consensus::encode::deserialize(&unhex(hex)).unwrap();
        let txid = tx.compute_txid();
        let owned = OwnedTx {
            txid: txid.to_byte_array(),
            outputs: tx
                .output
                .iter()
                .map(|o| o.script_pubkey.to_bytes())
                .collect(),
            inputs: tx
                .input
                .iter()
                .map(|i| {
                    (
                        i.previous_output.txid.to_byte_array(),
                        i.previous_output.vout,
                        i.script_sig.to_bytes(),
                    )
                })
                .collect(),
        };
        (owned, txid.to_string())
    }

    fn matches(&self, f: &mut Bip37Filter) -> bool {
        let outputs: Vec<&[u8]> = self.outputs.iter().map(Vec::as_slice).collect();
        let inputs: Vec<TxIn<'_>> = self
            .inputs
            .iter()
            .map(|(txid, vout, sig)| TxIn {
                prev_txid: *txid,
                prev_index: *vout,
                script_sig: sig,
            })
            .collect();
        f.is_relevant_and_update(&Tx {
            txid: self.txid,
            outputs: &outputs,
            inputs: &inputs,
        })
    }
}

#[test]
fn core_bloom_match() {
    let v = vectors();
    let m = &v["bloom_match"];
    let (tx, txid) = OwnedTx::decode(m["tx_hex"].as_str().unwrap());
    assert_eq!(txid, m["tx_id"].as_str().unwrap());
    let (spending, spending_id) = OwnedTx::decode(m["spending_tx_hex"].as_str().unwrap());
    assert_eq!(spending_id, m["spending_tx_id"].as_str().unwrap());
    let cases = m["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 10);
    for c in cases {
        let what = c["what"].as_str().unwrap();
        let mut f = Bip37Filter::new(10, 0.000001, 0, BLOOM_UPDATE_ALL).unwrap();
        f.insert(&unhex(c["insert_hex"].as_str().unwrap())[..])
            .unwrap();
        let want = c["matches_tx"].as_bool().unwrap();
        assert_eq!(tx.matches(&mut f), want, "{what}");
        if let Some(then) = c["then_matches_spending_tx"].as_bool() {
            assert_eq!(spending.matches(&mut f), then, "{what}: spending tx");
            // and it does so through the outpoint the update added
            assert!(f.contains(&outpoint(&tx.txid, 0)[..]));
        }
    }
}

#[test]
fn bloom_update_none_adds_no_outpoint() {
    let v = vectors();
    let m = &v["bloom_match"];
    let (tx, _) = OwnedTx::decode(m["tx_hex"].as_str().unwrap());
    let (spending, _) = OwnedTx::decode(m["spending_tx_hex"].as_str().unwrap());
    let mut f = Bip37Filter::new(10, 0.000001, 0, 0).unwrap();
    f.insert(&unhex("04943fdd508053c75000106d3bc6e2754dbcff19")[..])
        .unwrap();
    assert!(tx.matches(&mut f));
    assert!(!spending.matches(&mut f));
}

#[test]
fn core_sizing_integer_steps() {
    // ideal bits 28.75 → 28 → 3 bytes (Core rounds down twice); k = ⌊⌊24/3⌋·ln 2⌋ = ⌊5.545⌋
    assert_eq!(core_size(3, 0.01).unwrap(), (3, 5));
    // k uses the integer quotient: 2,396·8 / 2,000 = 9 (not 9.58), 9·ln 2 = 6.24 → 6
    assert_eq!(core_size(2_000, 0.01).unwrap(), (2_396, 6));
    // both caps: 10⁵ elements at 10⁻⁶ want 359 KB; 288,000 bits / 10⁵ = 2 → ⌊1.39⌋ = 1
    assert_eq!(
        core_size(100_000, 1e-6).unwrap(),
        (MAX_BLOOM_FILTER_SIZE, 1)
    );
    // 1 element at 10⁻¹⁰⁰: 479.25 bits → 59 bytes; k = ⌊472·ln 2⌋ = 327 → capped at 50
    assert_eq!(core_size(1, 1e-100).unwrap(), (59, MAX_HASH_FUNCS));
    // more elements than bits: k = 0, and Core's filter then matches everything
    let (bytes, k) = core_size(1_000_000, 0.5).unwrap();
    assert_eq!((bytes, k), (36_000, 0));
    let f = Bip37Filter::new(1_000_000, 0.5, 0, 0).unwrap();
    assert!(f.contains(&b"never inserted"[..]));
    // ε = 1: an empty (0-byte) filter, which matches everything
    assert_eq!(core_size(10, 1.0).unwrap(), (0, 0));
    assert!(matches!(
        core_size(0, 0.01),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        core_size(1, 0.0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        core_size(1, 1.5),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        core_size(1, f64::NAN),
        Err(Error::InvalidParameter { .. })
    ));
}

#[test]
fn decode_refuses_caps_and_truncation_and_ignores_trailing_bytes_as_core() {
    let f = Bip37Filter::new(3, 0.01, 5, 1).unwrap();
    let bytes = f.to_filterload();
    for cut in 0..bytes.len() {
        assert!(
            matches!(
                Bip37Filter::from_filterload(&bytes[..cut]),
                Err(Error::Truncated { .. })
            ),
            "cut at {cut}"
        );
    }
    assert_eq!(f.filterload_len(), bytes.len());
    // Core's FILTERLOAD handler loads the filter and never looks past nFlags
    let mut long = bytes.clone();
    long.extend_from_slice(&[0, 0xff, 7]);
    let back = Bip37Filter::from_filterload(&long).unwrap();
    assert_eq!(back, f);
    assert_eq!(back.to_filterload(), bytes);
    // 36,000 bytes and 50 hash functions are accepted; one more of either is not
    let max = Bip37Filter::from_parts(vec![0; 36_000], 50, 0, 0).unwrap();
    assert_eq!(max.filterload_len(), max.to_filterload().len());
    let small = Bip37Filter::from_parts(vec![0; 252], 1, 0, 0).unwrap();
    assert_eq!(small.filterload_len(), small.to_filterload().len());
    let three = Bip37Filter::from_parts(vec![0; 253], 1, 0, 0).unwrap();
    assert_eq!(three.filterload_len(), three.to_filterload().len());
    assert_eq!(
        Bip37Filter::from_filterload(&max.to_filterload()).unwrap(),
        max
    );
    assert!(Bip37Filter::from_parts(vec![0; 36_001], 1, 0, 0).is_err());
    assert!(Bip37Filter::from_parts(vec![0; 1], 51, 0, 0).is_err());
    let mut over = vec![0xfd, 0xa1, 0x8c]; // CompactSize 36,001
    over.extend(std::iter::repeat_n(0u8, 36_001 + 9));
    assert!(matches!(
        Bip37Filter::from_filterload(&over),
        Err(Error::TooLarge {
            value: 36_001,
            limit: 36_000,
            ..
        })
    ));
}

/// Measured false-positive rate of a Core-sized filter against the classic formula for its
/// actual m and k, within 3 binomial sigmas (fixed items: no randomness).
#[test]
fn measured_fpr_matches_formula() {
    let n = 2_000u32;
    let mut f = Bip37Filter::new(n, 0.01, 0x2f0a_91c3, 0).unwrap();
    for i in 0..u64::from(n) {
        f.insert(&i.to_le_bytes()[..]).unwrap();
    }
    let trials = 200_000u64;
    let fp = (0..trials)
        .filter(|i| f.contains(&(i + (1 << 40)).to_le_bytes()[..]))
        .count() as f64;
    let measured = fp / trials as f64;
    let expected = f.expected_fpr(u64::from(n));
    let sigma = amq::math::binomial_sigma(expected, trials);
    assert!(
        (measured - expected).abs() <= 3.0 * sigma,
        "measured {measured}, expected {expected} ± {sigma}"
    );
    // Core rounds m down, so the filter is a little worse than the 1% asked for
    assert!(expected > 0.01 && expected < 0.0125, "{expected}");
}

proptest! {
    #[test]
    fn inserted_items_are_found(
        items in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 1..50),
        tweak in any::<u32>(),
        fpr in 0.0001f64..0.5,
    ) {
        let mut f = Bip37Filter::new(items.len() as u32, fpr, tweak, 1).unwrap();
        for it in &items {
            f.insert(&it[..]).unwrap();
        }
        for it in &items {
            prop_assert!(f.contains(&it[..]));
        }
        let back = Bip37Filter::from_filterload(&f.to_filterload()).unwrap();
        prop_assert_eq!(back, f);
    }

    #[test]
    fn decoding_never_panics_and_round_trips(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        if let Ok(f) = Bip37Filter::from_filterload(&bytes) {
            prop_assert_eq!(f.to_filterload(), bytes);
        }
    }

    #[test]
    fn sizing_respects_the_caps(n in 1u32..10_000_000, fpr in 1e-300f64..=1.0) {
        let (bytes, k) = core_size(n, fpr).unwrap();
        prop_assert!(bytes <= MAX_BLOOM_FILTER_SIZE);
        prop_assert!(k <= MAX_HASH_FUNCS);
        // never above the real-valued ideal (Core truncates): bytes·8 ≤ −n·ln ε/(ln 2)²
        let ideal = -(n as f64) * fpr.ln() / (std::f64::consts::LN_2.powi(2));
        prop_assert!((bytes as f64) * 8.0 <= ideal + 1e-6);
    }
}

/// `filteradd` as Core's handler takes it: up to 520 bytes of data (MAX_SCRIPT_ELEMENT_SIZE)
/// inserted, 521 refused with the filter unchanged, a truncated payload refused.
#[test]
fn filteradd_takes_520_bytes_and_refuses_521() {
    use amq::formats::bip37::{filteradd_payload, MAX_SCRIPT_ELEMENT_SIZE};
    let mut f = Bip37Filter::new(10, 0.01, 5, 0).unwrap();
    let data = vec![7u8; MAX_SCRIPT_ELEMENT_SIZE];
    let payload = filteradd_payload(&data).unwrap();
    assert_eq!(&payload[..3], &[0xfd, 0x08, 0x02], "CompactSize 520");
    let mut direct = f.clone();
    assert!(direct.insert_bytes(&data));
    assert!(f.filteradd(&payload).unwrap());
    assert_eq!(f, direct);
    assert!(matches!(
        filteradd_payload(&[7; 521]),
        Err(Error::TooLarge {
            value: 521,
            limit: 520,
            ..
        })
    ));
    let mut over = vec![0xfd, 0x09, 0x02];
    over.extend_from_slice(&[7; 521]);
    let before = f.clone();
    assert!(matches!(f.filteradd(&over), Err(Error::TooLarge { .. })));
    assert!(matches!(
        f.filteradd(&payload[..payload.len() - 1]),
        Err(Error::Truncated { .. })
    ));
    assert_eq!(f, before);
    // bytes after the data are ignored, as Core ignores them
    let mut long = filteradd_payload(b"x").unwrap();
    long.push(0xff);
    assert!(f.filteradd(&long).unwrap());
    assert!(f.contains_bytes(b"x"));
}
