//! Cashu compact state filters: both revisions of cashubtc/nuts PR #433, bit for bit.
//!
//! A mint publishes filters over its state changes (proofs spent, quotes paid, signatures
//! issued) and a wallet tests its own candidates locally, so it learns that something
//! probably happened without naming what it follows; it confirms a match through NUT-07
//! before acting. Source: "NUT-XX: add compact state filters", crodas,
//! <https://github.com/cashubtc/nuts/pull/433> (open; implemented in cashubtc/cdk PR #2477).
//! The PR exists in two incompatible revisions, copied with their vectors in
//! `tests/vectors/cashu-state/`:
//!
//! * **Revision A** (the text the PR opened with, 2026-09-03): one Golomb-Rice coded set per
//!   epoch, [`Epoch`], on the [GCS engine](crate::gcs) with M = 2^P and no SipHash step.
//! * **Revision B** (after crodas's update of 2026-09-18, the newer one): per-kind sequences
//!   of Bloom [`Block`]s of 2^b bits, 16 positions per element, sealed on capacity or timeout,
//!   [`Sequence`] on the mint side, [`FiltersInfo`] served beside them.
//!
//! # Elements (both revisions)
//!
//! `E = SHA256("Cashu_StateFilter_v1" ‖ len32(kind) ‖ kind ‖ len32(id) ‖ id ‖ len32(state) ‖
//! state)`, `len32` a big-endian `u32` byte count ([`Element::hash`]):
//!
//! | [`Kind`] | id | state |
//! |---|---|---|
//! | `proof_state` | `Y`, 33 bytes | `UNSPENT`, `PENDING`, `SPENT` ([`ProofState`]) |
//! | `mint_quote` | the quote ID, UTF-8, verbatim | empty |
//! | `melt_quote` | the quote ID, UTF-8, verbatim | `UNPAID`, `PENDING`, `PAID` ([`MeltQuoteState`]) |
//! | `blind_signature` (B only) | `B_`, 33 bytes | empty |
//!
//! # Revision A: epochs
//!
//! Distinct elements only (N counts them); position `(BE64(E[0..8]) · N · 2^P) >> 64`; sorted
//! gaps in Golomb-Rice code with parameter P, bits most significant first, zero-padded to a
//! byte, no length prefix (an empty epoch is empty data). N is not sent: a decoder reads codes
//! while at least P + 1 bits remain. P is at least 7 ([`MIN_P`]); 28 is recommended. A
//! non-member matches with probability 2^-P.
//!
//! # Revision B: blocks
//!
//! An element's 16 [`Words`] are the big-endian 32-bit words of `SHA256(E ‖ u32be(0)) ‖
//! SHA256(E ‖ u32be(1))`; at width b (5..=26) position i is `w_i >> (32 − b)`, bit
//! `0x80 >> (p & 7)` of byte `p >> 3` (position 0 is the most significant bit of byte 0). A
//! block of 2^b bits is served as its 2^b / 8 bytes and nothing else. Its capacity is
//! `⌊2^b · 6931471805599453 / 160000000000000000⌋` insertions ([`capacity`]: 45,426 at b =
//! 20, 128 KiB), where the expected fill is one half and a test's false-positive
//! probability `f^16` is 2^-16. Positions nest, `p(b') = p(b) >> (b − b')`, so a block folds to
//! any b' ≤ b by OR-ing the bits each target bit covers and a wallet keeps 64 bytes of words
//! per candidate for every block and width.
//!
//! ```
//! use amq::formats::cashu_state::{Block, Element, Epoch, Kind, ProofState};
//!
//! let y = hex::decode("024cce997d3b518f739663b757deaec95bcd9473c30a14ac2fd04023a739d1a725").unwrap();
//! let spent = Element::parse(Kind::ProofState, &y, "SPENT")?;
//! let e = spent.hash();
//! assert_eq!(hex::encode(e), "dce02b593be7ddd8abe04bcaf19e35094c67429c21ef5c62ab5550841a603f06");
//!
//! // revision B: case 5 of the vectors, one element at b = 5 (13 distinct positions of 16)
//! let mut block = Block::new(5)?;
//! block.insert(&spent.words());
//! assert_eq!(hex::encode(block.as_bytes()), "3abb2204");
//!
//! // revision A: the single-element filter of the vectors is 4 bytes at P = 28
//! let epoch = Epoch::build([e], 28)?;
//! assert_eq!(Epoch::decode(epoch.as_bytes(), 28)?.n(), 1);
//! # Ok::<(), amq::Error>(())
//! ```
//!
//! # Where the texts are loose
//!
//! * Revision A sets no upper bound on P; the GCS engine takes M = 2^P below 2³², so
//!   [`MAX_P`] is 31. A decoded position at or past N·2^P, a padding bit set or a byte after
//!   the last code are reported by [`Epoch::validate`]; queries report the first only if
//!   they reach it.
//! * Revision B says when a block seals but not what `end` is when a mint notices a timeout
//!   late. [`Sequence`] seals at exactly start + timeout, so block boundaries do not depend on
//!   when the mint looks; a capacity seal ends at the filling insertion's time.
//! * Revision B's "Sizing each kind" row `mint_quote 5,000/day → b = 18` breaks the rule it
//!   illustrates: [`smallest_b`]`(5000)` is 17 (capacity 5678). The tests follow the rule.
//!
//! # Errors
//! Constructors and decoders return [`Error`](crate::Error): `InvalidParameter` for a bad b,
//! P, kind, state or id; `Corrupt` or `Truncated` for bytes that do not decode. No decoder
//! panics, for any input.

mod block;
mod element;
mod epoch;
mod info;
mod sequence;
mod store;

pub use block::{
    capacity, expected_fill, fpr_at_fill, smallest_b, width_of, Block, K, MAX_B, MIN_B,
};
pub use element::{
    check_quote_id, Element, Kind, MeltQuoteState, ProofState, Words, DOMAIN_SEPARATOR, POINT_LEN,
};
pub use epoch::{
    epoch_position, ElementHead, Epoch, Paging, MAX_P, MIN_P, MIN_RECOMMENDED_P, RECOMMENDED_P,
    RECOMMENDED_PAGE_SIZE,
};
pub use info::{
    BlockInterval, FiltersInfo, MintInfoSetting, StateChange, MIN_TIMEOUT, RECOMMENDED_TIMEOUT,
};
pub use sequence::{etag, Inserted, Sequence, SequenceConfig, Served, Snapshot};
pub use store::{BlockStore, MemoryStore, OpenHeader, SealedBlock, SnapshotRecord, StoredSequence};
