//! Any bytes as revision B's `GetFiltersInfoResponse` JSON (and as a mint's state change):
//! an error or a value, never a panic; a response that reads writes back and reads again the
//! same, and one that validates answers its height questions consistently.
#![no_main]

use amq::formats::cashu_state::{FiltersInfo, StateChange};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(info) = serde_json::from_slice::<FiltersInfo>(data) {
        let json = serde_json::to_vec(&info).unwrap();
        let again: FiltersInfo = serde_json::from_slice(&json).unwrap();
        assert_eq!(again, info);
        if info.validate().is_ok() {
            let open = info.open_height();
            assert_eq!(open + 1, info.blocks.len() as u64);
            assert!(!info.is_sealed(open));
            assert!(info.fetchable(open.saturating_sub(1)) || open == 0);
            assert!(!info.fetchable(open + 1));
            assert!(info.restore_height(u64::MAX) <= open);
            for w in info.blocks.windows(2) {
                assert_eq!(w[0].end, Some(w[1].start));
            }
        }
    }
    if let Ok(change) = serde_json::from_slice::<StateChange>(data) {
        let _ = change.element_hash();
    }
});
