//! Ethereum JSON as nodes send it: one object, an array, a JSON-RPC envelope, a block with
//! its receipts, and the errors that name what is wrong.
#![cfg(feature = "eth")]

#[path = "common/eth.rs"]
mod eth_common;
use eth_common::{entry, vector};

use amq::formats::eth::{Entries, Entry};
use serde_json::Value;

#[test]
fn json_shapes_one_array_envelope_block() {
    let v = vector("execution-apis-receipts.json");
    let list: Vec<Value> = v["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["receipt"].clone())
        .collect();
    let one: Entries = serde_json::from_value(list[5].clone()).unwrap();
    assert_eq!(one.0.len(), 1);
    let many: Entries = serde_json::from_value(Value::Array(list.clone())).unwrap();
    assert_eq!(many.0.len(), 13);
    let envelope = serde_json::json!({"jsonrpc": "2.0", "id": 7, "result": list});
    let wrapped: Entries = serde_json::from_value(envelope).unwrap();
    assert_eq!(wrapped, many);
    let nested = serde_json::json!([list[..2], list[2..]]);
    assert_eq!(serde_json::from_value::<Entries>(nested).unwrap(), many);
    // a block with its receipts
    let block = serde_json::json!({"number": "0x1", "logsBloom": v["blocks_with_all_receipts"][0]["logsBloom"], "receipts": list[..4]});
    let Entry::Block(b) = entry(&block) else {
        panic!("a block")
    };
    assert_eq!(b.receipts.as_ref().unwrap().len(), 4);
    assert_eq!(b.computed_bloom(), b.logs_bloom);
    // receipts without logs: the bloom comes from the block's own logs
    let all_logs: Vec<Value> = list[..4]
        .iter()
        .flat_map(|r| r["logs"].as_array().unwrap().clone())
        .collect();
    let stripped: Vec<Value> = list[..4]
        .iter()
        .map(|r| serde_json::json!({"logsBloom": r["logsBloom"]}))
        .collect();
    let block = serde_json::json!({"number": "0x1", "receipts": stripped, "logs": all_logs});
    let Entry::Block(stripped) = entry(&block) else {
        panic!("a block")
    };
    assert_eq!(stripped.computed_bloom(), b.logs_bloom);
    // a pending block (geth: "number" and "hash" null) is a block, not a receipt
    let pending = serde_json::json!({"number": null, "hash": null, "logsBloom": v["blocks_with_all_receipts"][0]["logsBloom"], "transactions": []});
    let Entry::Block(p) = entry(&pending) else {
        panic!("a pending block is a block")
    };
    assert_eq!((p.number, p.hash), (None, None));
    assert_eq!(p.logs_bloom, b.logs_bloom);
    // a bare log array
    let logs: Entries =
        serde_json::from_value(v["block_logs_from_eth_getLogs"][0]["logs"].clone()).unwrap();
    assert!(logs.0.iter().all(|e| matches!(e, Entry::Log(_))));
    // errors name the problem
    for (bad, says) in [
        (
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "not found"}}),
            "not found",
        ),
        (
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": null}),
            "the JSON-RPC result is null",
        ),
        (
            serde_json::json!([{"jsonrpc": "2.0", "id": 1, "result": null}]),
            "the JSON-RPC result is null",
        ),
        (
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": null, "error": {"code": 3, "message": "reverted"}}),
            "code 3, reverted",
        ),
        (serde_json::json!({"address": "0x00"}), "20 bytes"),
        (
            serde_json::json!({"address": format!("0x{}", "00".repeat(20))}),
            "topics",
        ),
        (serde_json::json!({"logs": [], "blockNumber": "12"}), "0x"),
        (
            serde_json::json!({"logs": [], "blockNumber": "0x1ffffffffffffffff"}),
            "64 bits",
        ),
        (serde_json::json!({"logsBloom": "0x1234"}), "512"),
        (serde_json::json!({"foo": 1}), "not a log"),
        (
            serde_json::json!({"number": 1, "receipts": [{"address": format!("0x{}", "00".repeat(20)), "topics": []}]}),
            "receipt objects",
        ),
        (serde_json::json!(12), "a log, receipt or block"),
    ] {
        let err = serde_json::from_value::<Entries>(bad.clone())
            .unwrap_err()
            .to_string();
        assert!(err.contains(says), "{bad}: {err}");
    }
}
