//! Any bytes given to the receipt JSON decoder (`Entries`: logs, receipts, blocks, arrays and
//! JSON-RPC responses): an error or entries, never a panic; every decoded entry can be asked
//! for its blooms and logs.
#![no_main]

use amq::formats::eth::{Entries, InputBits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(entries) = serde_json::from_slice::<Entries>(data) {
        let probe = [InputBits::from_input(&[0u8; 20])];
        for e in &entries.0 {
            let _ = e.stated_bloom();
            let computed = e.computed_bloom();
            if let (Some(bloom), Some(logs)) = (computed, e.logs()) {
                // no false negatives: every log of the object is in its recomputed bloom
                for log in logs {
                    assert!(bloom.contains_log(&log.address, &log.topics));
                }
            }
            let _ = e.may_contain(&probe);
            let _ = e.block_number();
        }
    }
});
