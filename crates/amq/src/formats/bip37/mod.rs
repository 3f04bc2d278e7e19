//! Bitcoin BIP37 bloom filters, byte for byte as Bitcoin Core builds, matches and serializes
//! them (the `filterload` message).
//!
//! * Sizing ([`core_size`]): `bytes = min(⌊−n·ln ε / (ln 2)²⌋, 36,000·8) / 8` and
//!   `k = min(⌊⌊bytes·8 / n⌋ · ln 2⌋, 50)`, evaluated in the order and with the integer
//!   divisions of Core's `CBloomFilter` constructor (`src/common/bloom.cpp`).
//! * Hashing: bit `MurmurHash3_x86_32(key, i·0xFBA4C795 + nTweak) mod (bytes·8)` for
//!   `i in 0..k` (BIP37, "Bloom filter format"), all arithmetic modulo 2³²; the hash is
//!   [`mur3`]'s `murmurhash3_x86_32`.
//! * Bits: bit `b` is `1 << (b & 7)` of byte `b >> 3`: least significant bit first.
//! * An empty filter (0 bytes) matches everything and inserts nothing (Core's fix for
//!   CVE-2013-5700, a division by zero).
//! * Wire form ([`Bip37Filter::to_filterload`]): the `filterload` payload,
//!   `CompactSize(bytes) ‖ data ‖ nHashFuncs (u32 LE) ‖ nTweak (u32 LE) ‖ nFlags (u8)`.
//!   Decoding ([`Bip37Filter::from_filterload`]) refuses what Core's
//!   `IsWithinSizeConstraints` refuses: more than [`MAX_BLOOM_FILTER_SIZE`] bytes or more than
//!   [`MAX_HASH_FUNCS`] hash functions; bytes after nFlags are ignored, as Core ignores them.
//! * `filteradd` ([`filteradd_payload`], [`Bip37Filter::filteradd`]): `CompactSize(len) ‖
//!   data`, at most [`MAX_SCRIPT_ELEMENT_SIZE`] (520) bytes of data, as Core's handler
//!   checks (`src/net_processing.cpp`).
//! * Transaction matching ([`Bip37Filter::is_relevant_and_update`]): Core's
//!   `CBloomFilter::IsRelevantAndUpdate`, over a transaction's txid, output scripts and inputs
//!   (decode the transaction with a Bitcoin library and hand over those parts).
//!
//! Source: BIP37 (<https://github.com/bitcoin/bips/blob/master/bip-0037.mediawiki>) and Bitcoin
//! Core `src/common/bloom.cpp`, `src/test/bloom_tests.cpp` (commit
//! `875e9c9197c27f561147ab9455a942c9ce90a48d`), whose values `tests/vectors/bip37/` reproduces.
//!
//! ```
//! use amq::formats::bip37::{Bip37Filter, BLOOM_UPDATE_ALL};
//! use amq::{Filter, Insert};
//!
//! // Bitcoin Core's bloom_create_insert_serialize test.
//! let mut f = Bip37Filter::new(3, 0.01, 0, BLOOM_UPDATE_ALL)?;
//! f.insert(&hex("99108ad8ed9bb6274d3980bab5a85c048f0950c8")[..])?;
//! f.insert(&hex("b5a2c786d9ef4658287ced5914b37a1b4aa32eee")[..])?;
//! f.insert(&hex("b9300670b4c5366e95b2699e8b18bc75e5f729c5")[..])?;
//! assert_eq!(f.to_filterload(), hex("03614e9b050000000000000001"));
//! assert!(!f.contains(&hex("19108ad8ed9bb6274d3980bab5a85c048f0950c8")[..]));
//! assert_eq!(Bip37Filter::from_filterload(&f.to_filterload())?, f);
//! # fn hex(s: &str) -> Vec<u8> { hex::decode(s).unwrap() }
//! # Ok::<(), amq::Error>(())
//! ```

mod filter;
mod filterload;
mod script;

pub use filter::{core_size, Bip37Filter};
pub use filterload::filteradd_payload;
pub use script::{outpoint, Tx, TxIn};

/// The largest filter Core accepts, in bytes (`MAX_BLOOM_FILTER_SIZE`, BIP37: 36,000 bytes).
pub const MAX_BLOOM_FILTER_SIZE: usize = 36_000;

/// The most hash functions Core accepts (`MAX_HASH_FUNCS`, BIP37: 50).
pub const MAX_HASH_FUNCS: u32 = 50;

/// The most bytes one `filteradd` message may add (Core's `MAX_SCRIPT_ELEMENT_SIZE`, the
/// largest script push: 520 bytes); Core refuses a larger one.
pub const MAX_SCRIPT_ELEMENT_SIZE: usize = 520;

/// `nFlags`: never add matched outpoints to the filter.
pub const BLOOM_UPDATE_NONE: u8 = 0;
/// `nFlags`: add the outpoint of every output whose script matched.
pub const BLOOM_UPDATE_ALL: u8 = 1;
/// `nFlags`: add the outpoint only for pay-to-pubkey and bare multisig outputs that matched.
pub const BLOOM_UPDATE_P2PUBKEY_ONLY: u8 = 2;
/// The bits of `nFlags` that select the update mode (the others are ignored, as in Core).
pub const BLOOM_UPDATE_MASK: u8 = 3;

/// The multiplier between the seeds of successive hash functions (BIP37).
pub const SEED_MULTIPLIER: u32 = 0xFBA4_C795;

/// MurmurHash3 x86_32 of `data` with `seed` (Austin Appleby's SMHasher, as Core's
/// `MurmurHash3` in `src/hash.cpp`).
///
/// # Example
/// ```
/// // Core's hash_tests.cpp: MurmurHash3(0xfba4c795, {0x00}) == 0xea3f0b17
/// assert_eq!(amq::formats::bip37::murmur3_x86_32(&[0x00], 0xfba4_c795), 0xea3f_0b17);
/// ```
#[inline]
pub fn murmur3_x86_32(data: &[u8], seed: u32) -> u32 {
    mur3::murmurhash3_x86_32(data, seed)
}
