//! Ethereum logsBloom: every file of tests/vectors/ethereum, a differential test against
//! alloy-primitives, and properties (no false negatives, hex and byte round trips).
#![cfg(feature = "eth")]

#[path = "common/eth.rs"]
mod eth_common;
use eth_common::{entry, vector};

use alloy_primitives::{Address, Bloom, BloomInput, B256};
use amq::formats::eth::{
    hex_array, keccak256, scan, Block, Entries, Entry, InputBits, Log, LogsBloom, LogsBloomIndex,
    Receipt,
};
use proptest::prelude::*;
use serde_json::Value;

fn bloom_of(v: &Value) -> LogsBloom {
    LogsBloom::from_hex(v.as_str().expect("a logsBloom string")).unwrap()
}

// ------------------------------------------------------------------------------------------
// go-ethereum core/types/bloom9_test.go
// ------------------------------------------------------------------------------------------

#[test]
fn geth_test_bloom() {
    let v = vector("geth-bloom9-tests.json");
    let t = &v["TestBloom"];
    let mut bloom = LogsBloom::new();
    for s in t["add_utf8"].as_array().unwrap() {
        bloom.accrue(s.as_str().unwrap().as_bytes());
    }
    for s in t["must_test_true"].as_array().unwrap() {
        assert!(bloom.contains(s.as_str().unwrap().as_bytes()), "{s}");
    }
    for s in t["must_test_false"].as_array().unwrap() {
        assert!(!bloom.contains(s.as_str().unwrap().as_bytes()), "{s}");
    }
}

#[test]
fn geth_test_bloom_extensively() {
    let v = vector("geth-bloom9-tests.json");
    let t = &v["TestBloomExtensively"];
    let format = t["add_utf8_format"].as_str().unwrap();
    let (lo, hi) = (
        t["i_range"][0].as_u64().unwrap(),
        t["i_range"][1].as_u64().unwrap(),
    );
    let mut bloom = LogsBloom::new();
    for i in lo..hi {
        bloom.accrue(format.replace("%d", &i.to_string()).as_bytes());
    }
    let want: [u8; 32] = hex_array(t["keccak256_of_256_byte_bloom"].as_str().unwrap()).unwrap();
    assert_eq!(keccak256(bloom.as_bytes()), want);
    // geth then rebuilds the bloom from its bytes and expects the same hash
    let again = LogsBloom::from_slice(bloom.as_bytes()).unwrap();
    assert_eq!(keccak256(again.as_bytes()), want);
}

// ------------------------------------------------------------------------------------------
// status-im/nim-eth doc/bloom.md
// ------------------------------------------------------------------------------------------

#[test]
fn nim_eth_doc_example() {
    let v = vector("nim-eth-bloom-doc.json");
    let mut bloom = LogsBloom::new();
    for s in v["add_utf8"].as_array().unwrap() {
        bloom.accrue(s.as_str().unwrap().as_bytes());
    }
    for s in v["must_test_true"].as_array().unwrap() {
        assert!(bloom.contains(s.as_str().unwrap().as_bytes()));
    }
    let printed = v["bloom_hex_as_printed"].as_str().unwrap();
    assert_eq!(printed.len(), 497);
    let padded = format!("{printed:0>512}");
    assert_eq!(bloom, LogsBloom::from_hex(&padded).unwrap());
    assert_eq!(bloom.to_hex(), format!("0x{padded}"));
}

// ------------------------------------------------------------------------------------------
// public-receipts.json: the seed's mainnet transaction, ethers.js and geth receipts
// ------------------------------------------------------------------------------------------

#[test]
fn seed_transaction_bit_by_bit() {
    let v = vector("public-receipts.json");
    let r = &v["receipts"][0];
    assert_eq!(
        r["transactionHash"],
        "0xa6af05e2859ff158cf78adba1bd48e14185641129f9e08ef7f60a820b71f9459"
    );
    // the first six bytes of each input's Keccak-256, as the article lists them
    for (input, first6) in r["keccak256_first6"].as_object().unwrap() {
        let bytes = hex::decode(&input[2..]).unwrap();
        assert_eq!(
            hex::encode(&keccak256(&bytes)[..6]),
            first6.as_str().unwrap()
        );
    }
    // the (byte index, mask) table: geth's bloomValues
    let log = &r["logs"][0];
    let mut inputs = vec![("address", log["address"].as_str().unwrap())];
    for (i, t) in log["topics"].as_array().unwrap().iter().enumerate() {
        inputs.push((["topic0", "topic1", "topic2"][i], t.as_str().unwrap()));
    }
    let mut bloom = LogsBloom::new();
    for (name, hex_input) in inputs {
        let bytes = hex::decode(&hex_input[2..]).unwrap();
        let want: Vec<(usize, u8)> = r["byte_index_and_mask_per_input"][name]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p[0].as_u64().unwrap() as usize,
                    p[1].as_u64().unwrap() as u8,
                )
            })
            .collect();
        assert_eq!(
            InputBits::from_input(&bytes).byte_masks().to_vec(),
            want,
            "{name}"
        );
        bloom.accrue(&bytes);
    }
    let stated = bloom_of(&r["logsBloom"]);
    assert_eq!(bloom, stated);
    assert_eq!(bloom.to_hex(), r["logsBloom"].as_str().unwrap());
    assert_eq!(stated.bits_set(), 12);
    // the same through the JSON types
    let Entry::Receipt(receipt) = entry(r) else {
        panic!("a receipt")
    };
    assert_eq!(receipt.computed_bloom(), Some(stated));
    assert_eq!(
        receipt.transaction_hash,
        Some(hex_array(r["transactionHash"].as_str().unwrap()).unwrap())
    );
}

#[test]
fn public_receipts_recompute() {
    let v = vector("public-receipts.json");
    let receipts = v["receipts"].as_array().unwrap();
    assert_eq!(receipts.len(), 5);
    for r in receipts {
        let name = r["name"].as_str().unwrap();
        let Entry::Receipt(receipt) = entry(r) else {
            panic!("{name}: a receipt")
        };
        let logs = receipt.logs.as_ref().unwrap();
        assert_eq!(logs.len(), r["logs"].as_array().unwrap().len(), "{name}");
        assert_eq!(receipt.computed_bloom(), receipt.logs_bloom, "{name}");
        assert_eq!(
            receipt.logs_bloom.unwrap().is_zero(),
            logs.is_empty(),
            "{name}"
        );
        if let Some(n) = r["blockNumber"].as_u64() {
            assert_eq!(receipt.block_number, Some(n), "{name}");
        }
        // checksum-cased addresses read as lower case
        for (log, raw) in logs.iter().zip(r["logs"].as_array().unwrap()) {
            let text = raw["address"].as_str().unwrap().to_lowercase();
            assert_eq!(format!("0x{}", hex::encode(log.address)), text);
        }
        if let Some(full) = r.get("full_receipt") {
            let Entry::Receipt(f) = entry(full) else {
                panic!("{name}: a receipt")
            };
            assert_eq!(f.logs, receipt.logs);
            assert_eq!(f.logs_bloom, receipt.logs_bloom);
            assert_eq!(f.computed_bloom(), f.logs_bloom);
            assert_eq!(f.block_number, Some(3));
        }
    }
}

// ------------------------------------------------------------------------------------------
// execution-apis-receipts.json: the hive test chain, JSON-RPC and RLP
// ------------------------------------------------------------------------------------------

#[test]
fn execution_apis_receipts_recompute() {
    let v = vector("execution-apis-receipts.json");
    let receipts = v["receipts"].as_array().unwrap();
    assert_eq!(receipts.len(), 13);
    let mut with_logs = 0;
    let mut data_would_differ = 0;
    for item in receipts {
        let Entry::Receipt(r) = entry(&item["receipt"]) else {
            panic!("a receipt")
        };
        let logs = r.logs.as_ref().unwrap();
        with_logs += usize::from(!logs.is_empty());
        assert_eq!(
            r.computed_bloom(),
            r.logs_bloom,
            "{}",
            item["receipt"]["transactionHash"]
        );
        let bloom = r.logs_bloom.unwrap();
        for log in logs {
            assert!(bloom.contains_log(&log.address, &log.topics));
        }
        // had `data` been accrued too, the bloom would differ: the vectors tell the rules apart
        let mut with_data = bloom;
        for raw in item["receipt"]["logs"].as_array().unwrap() {
            with_data.accrue(&hex::decode(&raw["data"].as_str().unwrap()[2..]).unwrap());
        }
        data_would_differ += usize::from(with_data != bloom);
    }
    assert_eq!(with_logs, 5);
    assert!(data_would_differ >= 4, "{data_would_differ}");
}

#[test]
fn execution_apis_block_bloom_is_or_of_receipts() {
    let v = vector("execution-apis-receipts.json");
    let receipts: Vec<(String, Receipt)> = v["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let Entry::Receipt(r) = entry(&item["receipt"]) else {
                panic!()
            };
            (
                item["receipt"]["transactionHash"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                r,
            )
        })
        .collect();
    let blocks = v["blocks_with_all_receipts"].as_array().unwrap();
    assert_eq!(blocks.len(), 2);
    for block in blocks {
        let mut or = LogsBloom::new();
        let mut block_receipts = Vec::new();
        for tx in block["receipt_tx_hashes"].as_array().unwrap() {
            let (_, r) = receipts
                .iter()
                .find(|(h, _)| h == tx.as_str().unwrap())
                .expect("the block's receipt is in the file");
            or |= r.logs_bloom.unwrap();
            block_receipts.push(r.clone());
        }
        assert_eq!(
            or,
            bloom_of(&block["logsBloom"]),
            "block {}",
            block["number"]
        );
        // the same through a Block object with its receipts
        let b = Block {
            number: None,
            hash: None,
            logs_bloom: Some(bloom_of(&block["logsBloom"])),
            receipts: Some(block_receipts),
            logs: None,
        };
        assert_eq!(b.computed_bloom(), b.logs_bloom);
    }
    // block 0x36 with the complete eth_getLogs list
    let block = &v["block_logs_from_eth_getLogs"][0];
    let Entry::Block(b) = entry(block) else {
        panic!("a block")
    };
    assert_eq!(b.number, Some(0x36));
    assert_eq!(b.logs.as_ref().unwrap().len(), 11);
    assert_eq!(b.computed_bloom(), b.logs_bloom);
    assert_eq!(b.logs_bloom, Some(bloom_of(&blocks[1]["logsBloom"])));
}

/// Decodes one RLP item's payload, advancing `buf`.
fn rlp_item<'a>(buf: &mut &'a [u8], list: bool) -> &'a [u8] {
    alloy_rlp::Header::decode_bytes(buf, list).unwrap()
}

#[test]
fn execution_apis_raw_receipts_and_header() {
    let v = vector("execution-apis-receipts.json");
    let raw = &v["raw_receipts_block_3"];
    let mut or = LogsBloom::new();
    let receipts = raw["raw_receipts"].as_array().unwrap();
    assert_eq!(receipts.len(), 3);
    for text in receipts {
        let bytes = hex::decode(&text.as_str().unwrap()[2..]).unwrap();
        // typed receipts start with the type byte (< 0x7f); these are legacy lists
        let mut buf = if bytes[0] < 0x7f {
            &bytes[1..]
        } else {
            &bytes[..]
        };
        let mut fields = rlp_item(&mut buf, true);
        assert!(buf.is_empty());
        let _status = rlp_item(&mut fields, false);
        let _cumulative_gas = rlp_item(&mut fields, false);
        let stated = LogsBloom::from_slice(rlp_item(&mut fields, false)).unwrap();
        let mut logs_rlp = rlp_item(&mut fields, true);
        let mut logs = Vec::new();
        while !logs_rlp.is_empty() {
            let mut log = rlp_item(&mut logs_rlp, true);
            let address: [u8; 20] = rlp_item(&mut log, false).try_into().unwrap();
            let mut topics_rlp = rlp_item(&mut log, true);
            let mut topics = Vec::new();
            while !topics_rlp.is_empty() {
                topics.push(<[u8; 32]>::try_from(rlp_item(&mut topics_rlp, false)).unwrap());
            }
            let _data = rlp_item(&mut log, false);
            logs.push(Log { address, topics });
        }
        assert_eq!(LogsBloom::from_logs(&logs), stated);
        or |= stated;
    }
    assert!(!or.is_zero());
    // header field 6 is the block's logsBloom
    let header = hex::decode(&raw["raw_header"].as_str().unwrap()[2..]).unwrap();
    let mut buf = header.as_slice();
    let mut fields = rlp_item(&mut buf, true);
    for _ in 0..6 {
        rlp_item(&mut fields, false);
    }
    let header_bloom = LogsBloom::from_slice(rlp_item(&mut fields, false)).unwrap();
    assert_eq!(header_bloom, or);
}

// ------------------------------------------------------------------------------------------
// JSON shapes
// ------------------------------------------------------------------------------------------

// ------------------------------------------------------------------------------------------
// Differential test against alloy-primitives on 10^4 random logs
// ------------------------------------------------------------------------------------------

/// SplitMix64: a fixed, seeded stream for reproducible random logs.
struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        amq::hash::splitmix64(&mut self.0)
    }
    fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let x = self.next().to_le_bytes();
            chunk.copy_from_slice(&x[..chunk.len()]);
        }
    }
}

#[test]
fn differential_against_alloy_on_10_000_random_logs() {
    let mut rng = SplitMix(0x5eed_e7e7);
    let mut ours_block = LogsBloom::new();
    let mut theirs_block = Bloom::ZERO;
    let mut seen = Vec::new();
    for i in 0..10_000 {
        let mut address = [0u8; 20];
        rng.fill(&mut address);
        let topics: Vec<[u8; 32]> = (0..rng.next() % 5)
            .map(|_| {
                let mut t = [0u8; 32];
                rng.fill(&mut t);
                t
            })
            .collect();
        let mut ours = LogsBloom::new();
        ours.accrue_log(&address, &topics);
        let mut theirs = Bloom::ZERO;
        let alloy_topics: Vec<B256> = topics.iter().map(|t| B256::from(*t)).collect();
        theirs.accrue_raw_log(Address::from(address), &alloy_topics);
        assert_eq!(ours.as_bytes(), theirs.as_slice(), "log {i}");
        assert_eq!(ours.to_hex(), format!("{theirs:#x}"), "log {i}");
        // the hash-level calls agree too
        let h = keccak256(&address);
        assert_eq!(h, alloy_primitives::keccak256(address).0);
        let mut by_hash = LogsBloom::new();
        by_hash.accrue_hash(&h);
        let mut theirs_hash = Bloom::ZERO;
        theirs_hash.accrue(BloomInput::Hash(B256::from(h)));
        assert_eq!(by_hash.as_bytes(), theirs_hash.as_slice());
        // a block of 100 logs, then queries of random inputs against it
        ours_block |= ours;
        theirs_block.accrue_bloom(&theirs);
        seen.push(address);
        if i % 100 == 99 {
            assert_eq!(ours_block.as_bytes(), theirs_block.as_slice());
            for a in &seen {
                assert!(ours_block.contains(a));
            }
            for _ in 0..100 {
                let mut q = [0u8; 20];
                rng.fill(&mut q);
                assert_eq!(
                    ours_block.contains(&q),
                    theirs_block.contains_input(BloomInput::Raw(&q))
                );
                let qh = keccak256(&q);
                assert_eq!(
                    ours_block.contains_hash(&qh),
                    theirs_block.contains_input(BloomInput::Hash(B256::from(qh)))
                );
            }
            ours_block = LogsBloom::new();
            theirs_block = Bloom::ZERO;
            seen.clear();
        }
    }
}

#[test]
fn measured_fpr_matches_the_fill() {
    // 100 logs × (1 address + 2 topics) = 300 inputs in 2048 bits: the chance that a random
    // input finds its 3 bits set is (X/m)³ for the actual fill X/m. Fixed seed; tolerance of
    // 3 binomial sigmas.
    let mut rng = SplitMix(42);
    let mut bloom = LogsBloom::new();
    for _ in 0..300 {
        let mut x = [0u8; 32];
        rng.fill(&mut x);
        bloom.accrue(&x);
    }
    let p = bloom.estimated_fpr();
    let n = 200_000u64;
    let hits = (0..n)
        .filter(|_| {
            let mut q = [0u8; 32];
            rng.fill(&mut q);
            bloom.contains_hash(&q) // a random 32-byte value is as good as a hash
        })
        .count() as f64;
    let sigma = amq::math::binomial_sigma(p, n);
    let measured = hits / n as f64;
    assert!(
        (measured - p).abs() <= 3.0 * sigma,
        "measured {measured}, expected {p} ± {}",
        3.0 * sigma
    );
}

// ------------------------------------------------------------------------------------------
// Properties
// ------------------------------------------------------------------------------------------

proptest! {
    #[test]
    fn no_false_negatives(inputs in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..80), 0..60)) {
        let mut bloom = LogsBloom::new();
        for x in &inputs {
            bloom.accrue(x);
        }
        for x in &inputs {
            prop_assert!(bloom.contains(x));
            prop_assert!(bloom.contains_hash(&keccak256(x)));
            prop_assert!(bloom.contains_bits(InputBits::from_input(x)));
        }
    }

    #[test]
    fn logs_are_always_found(address in any::<[u8; 20]>(), topics in prop::collection::vec(any::<[u8; 32]>(), 0..5), other in any::<[u8; 256]>()) {
        let mut bloom = LogsBloom::from_bytes(other);
        bloom.accrue_log(&address, &topics);
        prop_assert!(bloom.contains_log(&address, &topics));
        let log = Log { address, topics };
        prop_assert!(bloom.contains_bloom(&log.bloom()));
    }

    #[test]
    fn hex_round_trips(bytes in any::<[u8; 256]>(), upper in any::<bool>(), prefix in any::<bool>()) {
        let bloom = LogsBloom::from_bytes(bytes);
        let hex = bloom.to_hex();
        prop_assert_eq!(hex.len(), 514);
        prop_assert!(hex.starts_with("0x"));
        prop_assert_eq!(&hex, &hex.to_lowercase());
        let mut text = if upper { hex[2..].to_uppercase() } else { hex[2..].to_string() };
        if prefix {
            text.insert_str(0, if upper { "0X" } else { "0x" });
        }
        prop_assert_eq!(LogsBloom::from_hex(&text).unwrap(), bloom);
        // serde as the JSON-RPC string
        let json = serde_json::to_string(&bloom).unwrap();
        prop_assert_eq!(&json, &format!("\"{hex}\""));
        prop_assert_eq!(serde_json::from_str::<LogsBloom>(&json).unwrap(), bloom);
    }

    #[test]
    fn index_round_trips_and_never_misses(first in 0u64..1 << 40, blooms in prop::collection::vec(any::<[u8; 256]>(), 0..150), query in any::<[u8; 32]>()) {
        let mut index = LogsBloomIndex::new(first);
        for b in &blooms {
            index.push(&LogsBloom::from_bytes(*b)).unwrap();
        }
        let q = [InputBits::from_hash(&query)];
        let got: Vec<u64> = index.candidates(&q).collect();
        let want: Vec<u64> = blooms
            .iter()
            .enumerate()
            .filter(|(_, b)| LogsBloom::from_bytes(**b).contains_hash(&query))
            .map(|(j, _)| first + j as u64)
            .collect();
        prop_assert_eq!(&got, &want);
        // the linear scan agrees, with one input and with two
        let as_blooms: Vec<LogsBloom> = blooms.iter().map(|b| LogsBloom::from_bytes(*b)).collect();
        let scanned: Vec<u64> = scan(&as_blooms, &q).map(|j| first + j as u64).collect();
        prop_assert_eq!(&scanned, &want);
        let two = [q[0], InputBits::from_input(b"second input")];
        let scanned: Vec<u64> = scan(&as_blooms, &two).map(|j| first + j as u64).collect();
        prop_assert_eq!(scanned, index.candidates(&two).collect::<Vec<_>>());
        let again = LogsBloomIndex::from_bytes(&index.to_bytes()).unwrap();
        prop_assert_eq!(&again, &index);
        for (j, b) in blooms.iter().enumerate() {
            prop_assert_eq!(index.bloom(first + j as u64), Some(LogsBloom::from_bytes(*b)));
        }
    }

    #[test]
    fn index_decoding_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = LogsBloomIndex::from_bytes(&bytes);
    }

    #[test]
    fn receipt_json_decoding_never_panics(text in ".{0,200}") {
        let _ = serde_json::from_str::<Entries>(&text);
    }
}
