//! Helpers of the Ethereum tests: the vectors of tests/vectors/ethereum, and their JSON as
//! entries.

use amq::formats::eth::Entry;
use serde_json::Value;

/// A vector file of tests/vectors/ethereum, parsed.
pub fn vector(name: &str) -> Value {
    let path = format!(
        "{}/../../tests/vectors/ethereum/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// A log, receipt or block object as an entry.
pub fn entry(v: &Value) -> Entry {
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{e}: {v}"))
}
