//! Any text given to the logsBloom hex decoder: an error or a bloom, never a panic; a bloom
//! that decodes re-encodes to the same digits in lower case, and survives serde as a string.
#![no_main]

use amq::formats::eth::LogsBloom;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(bloom) = LogsBloom::from_hex(text) {
        let hex = bloom.to_hex();
        let digits = text
            .strip_prefix("0x")
            .or_else(|| text.strip_prefix("0X"))
            .unwrap_or(text);
        assert_eq!(&hex[2..], digits.to_ascii_lowercase());
        assert_eq!(LogsBloom::from_hex(&hex).unwrap(), bloom);
        let json = serde_json::to_string(&bloom).unwrap();
        assert_eq!(serde_json::from_str::<LogsBloom>(&json).unwrap(), bloom);
    }
    let _ = amq::formats::eth::hex_array::<20>(text);
    let _ = amq::formats::eth::hex_array::<32>(text);
});
