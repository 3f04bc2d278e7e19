//! The Algorand unit-name registry's Bloom filter, off-chain and bit for bit.
//!
//! The contract of the seed document `smart-contract-bloom-filter.md` ("Proof of Exclusion: A
//! Smart Contract Bloom Filter", Alexander Codes) keeps a Bloom filter of every minted NFT's
//! unit name in a box named `bloom` of 4,096 bytes (m = 32,768 bits) and refuses a unit name
//! whose bits are all set. This module reads that box so that a wallet or an indexer can tell,
//! before sending a transaction, whether a name would be refused:
//!
//! * [`AlgorandBloom`]: the box bytes. Hash function i maps a name to
//!   `extract_uint64(H_i(name), 24) mod m`: the big-endian u64 of digest bytes 24..32, modulo
//!   m = 8·(box size). Bit i of the box is `0x80 >> (i % 8)` of byte `i / 8` (the AVM's
//!   `getbit`/`setbit` on byte arrays: "index 0 is the leftmost bit of the leftmost byte").
//! * The hashes are the AVM's, in the order [`AvmHash::ORDER`]: `sha512_256` (FIPS 180-4
//!   SHA-512/256, its own IV, not truncated SHA-512) and `sha3_256` (FIPS 202 SHA3-256, not
//!   Keccak-256) as the contract uses them, then `sha256` and `keccak256`; k ∈ 1..=4 takes the
//!   first k. The seed's contract is k = 2.
//! * [`plan`]: for a target supply and false-positive rate, the smallest box (≤ 32,768 bytes,
//!   the AVM's box limit) and its k, with the box's minimum-balance cost.
//! * [`UnitNameRegistry`]: the contract's `buy_nft`, replayed exactly.
//!
//! Sources: go-algorand `data/transactions/logic/eval.go` (`opSHA512_256` = Go
//! `sha512.Sum512_256`, `opSHA3_256` = `sha3.Sum256`, `opKeccak256` =
//! `sha3.NewLegacyKeccak256`; `getbit`/`setbit`/`extract_uint64`; `TestBits` in `eval_test.go`
//! at `fe2a086fd8743743d6a4ddae4cb0883656256328`), whose values `tests/vectors/algorand/`
//! reproduces.
//!
//! ```
//! use amq::formats::algorand::UnitNameRegistry;
//!
//! let mut app = UnitNameRegistry::new(10_000);
//! app.create_bloom_filter();
//! app.buy_nft(b"The GOAT")?;
//! let err = app.buy_nft(b"The GOAT").unwrap_err();
//! assert_eq!(err.message(), "Unit name already taken");
//! assert_eq!(app.minted(), 1);
//! # Ok::<(), amq::formats::algorand::BuyError>(())
//! ```

mod avm;
mod bloom;
mod plan;
mod registry;

pub use avm::{
    avm_getbit, avm_getbit_uint64, avm_setbit, avm_setbit_uint64, extract_uint64, index, AvmHash,
};
pub use bloom::AlgorandBloom;
pub use plan::{
    box_min_balance, box_references, expected_refusals, expected_refusals_to_mint, plan,
    AlgorandPlan,
};
pub use registry::{BuyError, UnitNameRegistry};

/// The seed contract's box size: 4,096 bytes (32,768 bits).
pub const DEFAULT_BOX_BYTES: usize = 4096;
/// The largest box the AVM creates: 32,768 bytes (`box_create` fails above it).
pub const MAX_BOX_BYTES: usize = 32_768;
/// The longest byte array on the AVM stack (`maxStringSize`): a contract that reads the whole
/// box with `box_get` and writes it back with `box_put`, as the seed's does, works only for
/// boxes up to this size; larger boxes need `box_extract`/`box_replace` per probed byte.
pub const MAX_STACK_BYTES: usize = 4096;
/// The seed contract's hash count: `sha512_256` and `sha3_256`.
pub const DEFAULT_K: u8 = 2;
/// The AVM offers four 256-bit hashes, so k is at most 4.
pub const MAX_K: u8 = 4;
/// The box's name in the seed contract.
pub const BOX_NAME: &[u8] = b"bloom";
/// The longest asset unit name, in bytes (consensus parameter `MaxAssetUnitNameBytes`).
pub const MAX_UNIT_NAME_BYTES: usize = 8;
/// The longest box name the AVM accepts, in bytes (`MaxAppKeyLen`).
pub const MAX_BOX_NAME_BYTES: usize = 64;
/// The I/O budget one box reference grants, in bytes (consensus parameter
/// `BytesPerBoxReference`): a group that touches a box of b bytes needs ⌈b/1024⌉ references
/// among its app calls, pooled across the group (references to the empty name only add budget).
pub const BYTES_PER_BOX_REFERENCE: usize = 1024;
/// The most box references one app call carries (consensus parameter `MaxAppBoxReferences`;
/// they also count towards its `MaxAppTotalTxnReferences` of 8 accounts, assets, apps and boxes).
pub const MAX_APP_BOX_REFERENCES: usize = 8;
/// Minimum balance per box, in microAlgos (consensus parameter `BoxFlatMinBalance`).
pub const BOX_FLAT_MIN_BALANCE: u64 = 2_500;
/// Minimum balance per byte of box name and contents, in microAlgos (`BoxByteMinBalance`).
pub const BOX_BYTE_MIN_BALANCE: u64 = 400;
