//! `amq eth`: bloom, contains, verify and scan on the real vectors, with exit statuses.

mod common;

use common::{amq, json_lines, lines, stdout_of, Dir};
use predicates::prelude::*;
use serde_json::{json, Value};

fn vector(name: &str) -> Value {
    common::vector(&format!("ethereum/{name}"))
}

/// The 13 receipts of the execution-apis test chain, as JSON-RPC returned them.
fn hive_receipts() -> Vec<Value> {
    vector("execution-apis-receipts.json")["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["receipt"].clone())
        .collect()
}

fn seed_receipt() -> Value {
    vector("public-receipts.json")["receipts"][0].clone()
}

// ------------------------------------------------------------------------------------------
// bloom
// ------------------------------------------------------------------------------------------

#[test]
fn bloom_of_the_seed_transaction() {
    let r = seed_receipt();
    let want = format!("{}\n", r["logsBloom"].as_str().unwrap());
    // an object with logs
    amq()
        .args(["eth", "bloom"])
        .write_stdin(json!({"logs": r["logs"]}).to_string())
        .assert()
        .success()
        .stdout(want.clone());
    // an array of logs, from a file
    let dir = Dir::new();
    let path = dir.write("logs.json", r["logs"].to_string());
    amq()
        .args(["eth", "bloom"])
        .arg(&path)
        .assert()
        .success()
        .stdout(want);
}

#[test]
fn bloom_of_a_blocks_receipts_is_the_block_bloom() {
    let v = vector("execution-apis-receipts.json");
    let block = &v["blocks_with_all_receipts"][1];
    assert_eq!(block["number"], "0x36");
    let receipts: Vec<Value> = hive_receipts()
        .into_iter()
        .filter(|r| r["blockNumber"] == "0x36")
        .collect();
    assert_eq!(receipts.len(), 4);
    let envelope = json!({"jsonrpc": "2.0", "id": 1, "result": receipts});
    let out = amq()
        .args(["eth", "bloom", "-", "--json"])
        .write_stdin(envelope.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let j = common::json(&out.stdout);
    assert_eq!(j["logsBloom"], block["logsBloom"]);
    assert_eq!(j["objects"], 4);
    assert_eq!(j["logs"], 11);
    let bits: u32 = hex::decode(&block["logsBloom"].as_str().unwrap()[2..])
        .unwrap()
        .iter()
        .map(|b| b.count_ones())
        .sum();
    assert_eq!(j["bits_set"], bits);
}

#[test]
fn bloom_errors_exit_2() {
    for bad in [
        "not json".to_string(),
        json!({"logsBloom": seed_receipt()["logsBloom"]}).to_string(), // no logs to hash
        json!([{"address": "0x12", "topics": []}]).to_string(),
    ] {
        amq()
            .args(["eth", "bloom"])
            .write_stdin(bad)
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with("error:"));
    }
    amq()
        .args(["eth", "bloom", "/nonexistent/receipts.json"])
        .assert()
        .code(2);
    // text that is not JSON says so, not only serde's "expected ident"
    amq()
        .args(["eth", "bloom"])
        .write_stdin("not json")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "-: not JSON (a log, receipt or block",
        ));
}

// ------------------------------------------------------------------------------------------
// contains
// ------------------------------------------------------------------------------------------

#[test]
fn contains_the_seed_inputs() {
    let r = seed_receipt();
    let bloom = r["logsBloom"].as_str().unwrap();
    let address = r["logs"][0]["address"].as_str().unwrap();
    let topic = r["logs"][0]["topics"][1].as_str().unwrap();
    amq()
        .args(["eth", "contains", bloom, address, topic])
        .assert()
        .code(0)
        .stdout(format!("maybe\t{address}\nmaybe\t{topic}\n"));
    // an upper-case bloom reads the same; an absent address answers no, exit 1
    let absent = "0x0000000000000000000000000000000000000001";
    amq()
        .args([
            "eth",
            "contains",
            &bloom.to_uppercase().replace("0X", "0x"),
            address,
            absent,
        ])
        .assert()
        .code(1)
        .stdout(format!("maybe\t{address}\nno\t{absent}\n"));
    // --hashed: the Keccak-256 of the address, whose first six bytes the seed lists
    let hash = amq::formats::eth::keccak256(&hex::decode(&address[2..]).unwrap());
    let hash_hex = format!("0x{}", hex::encode(hash));
    assert!(hash_hex.starts_with("0x62d0b119357c"));
    let out = amq()
        .args(["eth", "contains", "--hashed", "--json", bloom, &hash_hex])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let j = common::json(&out.stdout);
    assert_eq!(j, json!({"input": hash_hex, "maybe": true}));
    // the raw address given as if it were a hash is refused: 20 bytes, not 32
    amq()
        .args(["eth", "contains", "--hashed", bloom, address])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("32-byte"));
}

#[test]
fn contains_errors_exit_2() {
    let bloom = seed_receipt()["logsBloom"].as_str().unwrap().to_string();
    amq()
        .args(["eth", "contains", "0x1234", "0x00"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("512"));
    amq()
        .args(["eth", "contains", &bloom, "0xzz"])
        .assert()
        .code(2);
    amq().args(["eth", "contains", &bloom]).assert().code(2); // no input
}

// ------------------------------------------------------------------------------------------
// verify
// ------------------------------------------------------------------------------------------

#[test]
fn verify_real_receipts_pass() {
    amq()
        .args(["eth", "verify"])
        .write_stdin(Value::Array(hive_receipts()).to_string())
        .assert()
        .code(0)
        .stdout("verified 13 receipts and 0 blocks: 0 mismatches\n");
    // the public receipts, including the seed's and a pre-Byzantium one
    let public = vector("public-receipts.json")["receipts"].clone();
    amq()
        .args(["eth", "verify"])
        .write_stdin(public.to_string())
        .assert()
        .code(0)
        .stdout("verified 5 receipts and 0 blocks: 0 mismatches\n");
}

#[test]
fn verify_blocks_with_receipts_and_with_logs() {
    let v = vector("execution-apis-receipts.json");
    let mut blocks = Vec::new();
    for b in v["blocks_with_all_receipts"].as_array().unwrap() {
        let receipts: Vec<Value> = hive_receipts()
            .into_iter()
            .filter(|r| r["blockNumber"] == b["number"])
            .collect();
        blocks.push(json!({"number": b["number"], "hash": b["hash"], "logsBloom": b["logsBloom"], "receipts": receipts}));
    }
    blocks.push(v["block_logs_from_eth_getLogs"][0].clone());
    let out = amq()
        .args(["eth", "verify", "--json"])
        .write_stdin(Value::Array(blocks).to_string())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    assert_eq!(
        lines.last().unwrap(),
        &json!({"receipts": 8, "blocks": 3, "mismatches": 0})
    );
    assert!(lines[..lines.len() - 1].iter().all(|l| l["ok"] == true));
    assert!(lines.iter().any(|l| l["object"] == "block 54"));
}

#[test]
fn verify_reports_a_flipped_bit_and_exits_1() {
    let mut receipts = hive_receipts();
    // clear the lowest set bit of the 10-log receipt's bloom
    let r = receipts
        .iter_mut()
        .find(|r| r["logs"].as_array().unwrap().len() == 10)
        .unwrap();
    let mut bytes = hex::decode(&r["logsBloom"].as_str().unwrap()[2..]).unwrap();
    let (i, byte) = bytes
        .iter()
        .enumerate()
        .rev()
        .find(|(_, b)| **b != 0)
        .unwrap();
    let low = byte.trailing_zeros() as usize;
    let bit = (255 - i) * 8 + low;
    bytes[i] &= !(1 << low);
    r["logsBloom"] = json!(format!("0x{}", hex::encode(&bytes)));
    let tx = r["transactionHash"].as_str().unwrap().to_string();
    let out = amq()
        .args(["eth", "verify"])
        .write_stdin(Value::Array(receipts).to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout_of(&out);
    assert!(
        text.starts_with(&format!(
            "mismatch\treceipt {tx} (block 54)\tstated lacks bits [{bit}], has extra bits []\n"
        )),
        "{text}"
    );
    assert!(
        text.ends_with("verified 13 receipts and 0 blocks: 1 mismatches\n"),
        "{text}"
    );
}

#[test]
fn verify_errors_exit_2() {
    // nothing that can be checked: bare logs
    amq()
        .args(["eth", "verify"])
        .write_stdin(seed_receipt()["logs"].to_string())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nothing to verify"));
    // a JSON-RPC error response
    amq()
        .args(["eth", "verify"])
        .write_stdin(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "header not found"}}).to_string())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("header not found"));
    // a topic of the wrong length
    let mut r = seed_receipt();
    r["logs"][0]["topics"][0] = json!("0x1234");
    amq()
        .args(["eth", "verify"])
        .write_stdin(r.to_string())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("32 bytes"));
}

// ------------------------------------------------------------------------------------------
// scan
// ------------------------------------------------------------------------------------------

const BLOCK54_ADDRESS: &str = "0xb1917d669e2a9307d342d04ab74e68ea94c4d11c";

#[test]
fn scan_finds_and_confirms() {
    let input = lines(hive_receipts());
    amq()
        .args(["eth", "scan", "--address", BLOCK54_ADDRESS])
        .write_stdin(input.clone())
        .assert()
        .code(0)
        .stdout(
            "54\t0x492784ac4d441388c6f8415f41e1441f007ab20dc960a2e5edd80012d657d986\tconfirmed\n\
             scanned 13: 1 candidates, 1 confirmed, 0 false positives, 0 unconfirmed\n",
        );
    // with the topic of its logs (checksum-case address, upper-case hex)
    let topic = "0xE6BCCEFD92FC2FA71227CBD31F39B085FABC5C0F7B7D07EB4A639C53AD5822F4";
    let out = amq()
        .args([
            "eth",
            "scan",
            "--json",
            "--address",
            "0xB1917D669E2A9307D342D04AB74E68EA94C4D11C",
            "--topic",
            topic,
        ])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines[0]["block"], 54);
    assert_eq!(lines[0]["status"], "confirmed");
    assert_eq!(lines[1]["candidates"], 1);
    // an address in none of them: exit 1
    amq()
        .args([
            "eth",
            "scan",
            "--address",
            "0x0000000000000000000000000000000000000001",
        ])
        .write_stdin(input)
        .assert()
        .code(1)
        .stdout("scanned 13: 0 candidates, 0 confirmed, 0 false positives, 0 unconfirmed\n");
}

#[test]
fn scan_counts_false_positives_and_unconfirmed() {
    let v = vector("execution-apis-receipts.json");
    // a block without logs: only the bloom can answer
    let block = v["blocks_with_all_receipts"][1].clone();
    let header_only =
        json!({"number": block["number"], "hash": block["hash"], "logsBloom": block["logsBloom"]});
    // the same bloom with logs that do not hold the address: its bits come from another log
    // of the same bloom, so the bloom says maybe and the logs say no
    let mut wrong_logs = v["block_logs_from_eth_getLogs"][0].clone();
    let logs: Vec<Value> = wrong_logs["logs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["address"] != BLOCK54_ADDRESS)
        .cloned()
        .collect();
    assert!(!logs.is_empty());
    wrong_logs["logs"] = json!(logs);
    let input = lines(&[header_only, json!([]), wrong_logs.clone()]);
    let out = amq()
        .args(["eth", "scan", "--address", BLOCK54_ADDRESS, "-"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "the unconfirmed candidate may hold it"
    );
    let hash = block["hash"].as_str().unwrap();
    assert_eq!(
        stdout_of(&out),
        format!(
            "54\t{hash}\tunconfirmed\n54\t{hash}\tfalse-positive\n\
             scanned 2: 2 candidates, 0 confirmed, 1 false positives, 1 unconfirmed\n"
        )
    );
    // only the false positive: exit 1 (definitely absent)
    amq()
        .args(["eth", "scan", "--address", BLOCK54_ADDRESS])
        .write_stdin(lines(&[wrong_logs]))
        .assert()
        .code(1);
}

#[test]
fn scan_errors_exit_2() {
    let line = lines(&hive_receipts()[..1]);
    amq()
        .args(["eth", "scan", "--address", "0x1234"])
        .write_stdin(line.clone())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--address"));
    amq()
        .args([
            "eth",
            "scan",
            "--address",
            BLOCK54_ADDRESS,
            "--topic",
            "0x00",
        ])
        .write_stdin(line)
        .assert()
        .code(2);
    // a line without logsBloom, and a line that is not JSON, name their line
    let mut r = hive_receipts()[0].clone();
    r.as_object_mut().unwrap().remove("logsBloom");
    amq()
        .args(["eth", "scan", "--address", BLOCK54_ADDRESS])
        .write_stdin(format!("\n{r}\n"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("-:2").and(predicate::str::contains("no logsBloom")));
    amq()
        .args(["eth", "scan", "--address", BLOCK54_ADDRESS])
        .write_stdin("{\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("-:1"));
}

#[test]
fn help_has_examples() {
    for sub in ["bloom", "contains", "verify", "scan"] {
        amq()
            .args(["eth", sub, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Examples:"));
    }
}
