//! Any bytes as a revision B block of the Cashu compact state filters: an error unless the
//! length is 2^b/8 for b in 5..=26, never a panic; what a block answers "maybe" it still
//! answers after any fold (positions nest), and inserting makes an element found.
#![no_main]

use amq::formats::cashu_state::{Block, Words, MIN_B};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(block) = Block::from_bytes(data) else {
        assert!(amq::formats::cashu_state::width_of(data.len()).is_none());
        return;
    };
    assert_eq!(block.as_bytes().len() as u64 * 8, block.bit_len());
    assert!(block.popcount() <= block.bit_len());
    let _ = block.count_estimate();
    let _ = block.fpr();
    // candidates: words from the data itself, and from a hash
    let mut raw = [0u32; 16];
    for (i, w) in raw.iter_mut().enumerate() {
        let at = (i * 4) % data.len();
        let mut b = [0u8; 4];
        for (k, x) in b.iter_mut().enumerate() {
            *x = data[(at + k) % data.len()];
        }
        *w = u32::from_be_bytes(b);
    }
    let candidates = [Words::from_array(raw), Words::from_element(&[7; 32])];
    for to in [MIN_B, block.b().saturating_sub(1).max(MIN_B), block.b()] {
        let folded = block.fold(to).unwrap();
        assert!(folded.popcount() <= block.popcount());
        for words in &candidates {
            if block.contains(words) {
                assert!(folded.contains(words));
            }
        }
    }
    let mut owned = Block::from_bytes(data.to_vec()).unwrap();
    owned.insert(&candidates[0]);
    assert!(owned.contains(&candidates[0]));
});
