//! Any bytes given to the Algorand box decoder (with k from the first byte): an error or a
//! filter, never a panic; a filter keeps the bytes it was given, and a name it inserts is then
//! taken.
#![no_main]

use amq::formats::algorand::AlgorandBloom;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&k, box_bytes)) = data.split_first() else {
        return;
    };
    if let Ok(mut b) = AlgorandBloom::from_box(box_bytes, k) {
        assert_eq!(b.as_bytes(), box_bytes);
        let _ = b.contains_name(box_bytes);
        b.insert_name(b"The GOAT");
        assert!(b.contains_name(b"The GOAT"));
    }
});
