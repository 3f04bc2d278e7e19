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
//!   [`MAX_HASH_FUNCS`] hash functions.
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
//! # fn hex(s: &str) -> Vec<u8> {
//! #     (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
//! # }
//! # Ok::<(), amq::Error>(())
//! ```

use super::compact_size::{read_compact_size, write_compact_size};
use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item};
use alloc::vec::Vec;

/// The largest filter Core accepts, in bytes (`MAX_BLOOM_FILTER_SIZE`, BIP37: 36,000 bytes).
pub const MAX_BLOOM_FILTER_SIZE: usize = 36_000;

/// The most hash functions Core accepts (`MAX_HASH_FUNCS`, BIP37: 50).
pub const MAX_HASH_FUNCS: u32 = 50;

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

/// (ln 2)², to the digits of Core's `LN2SQUARED`.
#[allow(clippy::excessive_precision)]
const LN2SQUARED: f64 = 0.480_453_013_918_201_424_667_102_526_326_664_971_730_552_951_594_545_5;
/// ln 2: Core's `LN2` literal (52 digits) parses to this same double (a unit test checks).
const LN2: f64 = core::f64::consts::LN_2;

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

/// Bitcoin Core's filter size for `n` elements and false-positive rate `fpr`:
/// `(bytes, k)`.
///
/// Evaluated as `CBloomFilter::CBloomFilter` does: the ideal bit count
/// `(−1 / (ln 2)²) · n · ln ε` is truncated to an unsigned integer, capped at
/// `36,000 · 8`, and divided by 8 (so the size rounds *down* to whole bytes); then
/// `k = (bytes·8 / n)` in integer arithmetic, times ln 2, truncated, capped at 50. k can be 0
/// (more elements than bits), which Core accepts; such a filter matches everything.
///
/// Where Core's conversion of a too-large double to `unsigned int` is undefined (ε below about
/// `e^(−10⁹/n)`), this saturates, which the cap then turns into 36,000 bytes.
///
/// # Errors
/// [`Error::InvalidParameter`] if `n` is 0 (Core would divide by zero) or `fpr` is not in
/// `(0, 1]`.
///
/// # Example
/// ```
/// use amq::formats::bip37::core_size;
/// assert_eq!(core_size(3, 0.01)?, (3, 5)); // 28.75 bits → 28 → 3 bytes; 24/3 = 8 → 5.5 → 5
/// assert_eq!(core_size(2, 0.001)?, (3, 8));
/// assert_eq!(core_size(1_000_000, 1e-6)?, (36_000, 0)); // capped; 288,000/10⁶ = 0
/// # Ok::<(), amq::Error>(())
/// ```
pub fn core_size(n: u32, fpr: f64) -> Result<(usize, u32)> {
    if n == 0 {
        return Err(Error::invalid(
            "n",
            "the number of elements must be at least 1 (Bitcoin Core divides by it)",
        ));
    }
    if !(fpr > 0.0 && fpr <= 1.0) {
        return Err(Error::invalid(
            "fpr",
            alloc::format!("must be in (0, 1], got {fpr}"),
        ));
    }
    // -1 / LN2SQUARED * nElements * log(nFPRate), left to right, in double.
    let ideal_bits = -1.0 / LN2SQUARED * f64::from(n) * libm::log(fpr);
    // (unsigned int) cast: truncation toward zero; `as` saturates where C++ is undefined.
    let bits = (ideal_bits as u32).min(MAX_BLOOM_FILTER_SIZE as u32 * 8);
    let bytes = (bits / 8) as usize;
    // vData.size() * 8 / nElements is integer division, then * LN2 in double, then truncated.
    let per_element = (bytes as u64 * 8) / u64::from(n);
    let k = ((per_element as f64 * LN2) as u32).min(MAX_HASH_FUNCS);
    Ok((bytes, k))
}

/// A BIP37 bloom filter (Bitcoin Core's `CBloomFilter`).
///
/// `data` is the bit array (bytes·8 bits, least significant bit of each byte first), `k`
/// (`nHashFuncs`) the number of hash functions, `tweak` (`nTweak`) the seed offset, `flags`
/// (`nFlags`) the update mode for [`is_relevant_and_update`](Self::is_relevant_and_update).
/// See the [module docs](self) for the exact rules and an example.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Bip37Filter {
    data: Vec<u8>,
    k: u32,
    tweak: u32,
    flags: u8,
}

impl Bip37Filter {
    /// An empty filter sized as Bitcoin Core sizes it for `n` elements at false-positive rate
    /// `fpr` ([`core_size`]), with the given `nTweak` and `nFlags`.
    ///
    /// # Errors
    /// As [`core_size`].
    ///
    /// # Example
    /// ```
    /// use amq::formats::bip37::Bip37Filter;
    /// let f = Bip37Filter::new(2, 0.001, 0, 1)?;
    /// assert_eq!((f.size_bytes(), f.k()), (3, 8));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn new(n: u32, fpr: f64, tweak: u32, flags: u8) -> Result<Self> {
        let (bytes, k) = core_size(n, fpr)?;
        Ok(Bip37Filter {
            data: alloc::vec![0; bytes],
            k,
            tweak,
            flags,
        })
    }

    /// A filter from its parts, as a peer would send them.
    ///
    /// # Errors
    /// [`Error::TooLarge`] if `data` is longer than [`MAX_BLOOM_FILTER_SIZE`] or `k`
    /// is over [`MAX_HASH_FUNCS`] (Core's `IsWithinSizeConstraints`).
    pub fn from_parts(data: Vec<u8>, k: u32, tweak: u32, flags: u8) -> Result<Self> {
        check_caps(data.len() as u64, k)?;
        Ok(Bip37Filter {
            data,
            k,
            tweak,
            flags,
        })
    }

    /// The bit array (`vData`), least significant bit of each byte first.
    #[inline]
    pub fn data(&self) -> &[u8] {
        &self.data
    }
    /// The filter's size in bytes.
    #[inline]
    pub fn size_bytes(&self) -> u64 {
        self.data.len() as u64
    }
    /// m, the filter's size in bits (bytes·8).
    #[inline]
    pub fn m(&self) -> u64 {
        self.data.len() as u64 * 8
    }
    /// k, the number of hash functions (`nHashFuncs`).
    #[inline]
    pub fn k(&self) -> u32 {
        self.k
    }
    /// `nTweak`, added to every hash function's seed.
    #[inline]
    pub fn tweak(&self) -> u32 {
        self.tweak
    }
    /// `nFlags`.
    #[inline]
    pub fn flags(&self) -> u8 {
        self.flags
    }
    /// `true` for a filter of 0 bytes, which matches everything.
    #[inline]
    pub fn matches_all(&self) -> bool {
        self.data.is_empty()
    }

    /// The bit index hash function `i` gives `key`:
    /// `MurmurHash3_x86_32(key, i·0xFBA4C795 + nTweak) mod m` (Core's `CBloomFilter::Hash`).
    ///
    /// # Panics
    /// If the filter is empty (m = 0); [`contains`](Self::contains_bytes) and
    /// [`insert`](Self::insert_bytes) never call it then.
    #[inline]
    pub fn bit_index(&self, i: u32, key: &[u8]) -> u64 {
        let seed = i.wrapping_mul(SEED_MULTIPLIER).wrapping_add(self.tweak);
        u64::from(murmur3_x86_32(key, seed)) % self.m()
    }

    /// Adds `key`; `true` if some bit changed. An empty filter, or one with k = 0, is left as
    /// it is (Core's `insert`).
    pub fn insert_bytes(&mut self, key: &[u8]) -> bool {
        if self.data.is_empty() {
            return false;
        }
        let mut changed = false;
        for i in 0..self.k {
            let b = self.bit_index(i, key);
            let (byte, mask) = ((b >> 3) as usize, 1u8 << (b & 7));
            changed |= self.data[byte] & mask == 0;
            self.data[byte] |= mask;
        }
        changed
    }

    /// `true` if `key` may have been inserted (Core's `contains`); an empty filter says `true`
    /// for everything.
    pub fn contains_bytes(&self, key: &[u8]) -> bool {
        if self.data.is_empty() {
            return true;
        }
        (0..self.k).all(|i| {
            let b = self.bit_index(i, key);
            self.data[(b >> 3) as usize] & (1u8 << (b & 7)) != 0
        })
    }

    /// Clears every bit, keeping size, k, tweak and flags.
    pub fn clear(&mut self) {
        self.data.fill(0);
    }

    /// The classic expected false-positive rate after `n` distinct insertions,
    /// `(1 − e^(−k·n/m))^k` ([`math::fpr`](crate::math::fpr)); 1 for an empty filter or k = 0.
    pub fn expected_fpr(&self, n: u64) -> f64 {
        if self.data.is_empty() || self.k == 0 {
            return 1.0;
        }
        crate::math::fpr(n, self.m(), self.k)
    }

    /// The `filterload` payload: `CompactSize(bytes) ‖ data ‖ nHashFuncs (u32 LE) ‖
    /// nTweak (u32 LE) ‖ nFlags (u8)`.
    pub fn to_filterload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.data.len() + 12);
        write_compact_size(self.data.len() as u64, &mut out);
        out.extend_from_slice(&self.data);
        out.extend_from_slice(&self.k.to_le_bytes());
        out.extend_from_slice(&self.tweak.to_le_bytes());
        out.push(self.flags);
        out
    }

    /// Decodes a `filterload` payload (the exact bytes, nothing after them).
    ///
    /// # Errors
    /// [`Error::Truncated`] if the bytes end early; [`Error::Corrupt`] for a non-canonical
    /// CompactSize (as Core's `ReadCompactSize` refuses) or bytes left over;
    /// [`Error::TooLarge`] for more than [`MAX_BLOOM_FILTER_SIZE`] bytes or more than
    /// [`MAX_HASH_FUNCS`] hash functions. The length is checked before anything is allocated.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_filterload(bytes: &[u8]) -> Result<Self> {
        let (len, mut at) = read_compact_size(bytes)?;
        if len > MAX_BLOOM_FILTER_SIZE as u64 {
            return Err(Error::TooLarge {
                what: "BIP37 filter size in bytes",
                value: len,
                limit: MAX_BLOOM_FILTER_SIZE as u64,
            });
        }
        let len = len as usize;
        let data = take(bytes, at, len, "filter data")?.to_vec();
        at += len;
        let k = u32::from_le_bytes(take4(bytes, at, "nHashFuncs")?);
        at += 4;
        let tweak = u32::from_le_bytes(take4(bytes, at, "nTweak")?);
        at += 4;
        let flags = take(bytes, at, 1, "nFlags")?[0];
        at += 1;
        if at != bytes.len() {
            return Err(Error::corrupt(
                at,
                alloc::format!("{} bytes after the filterload payload", bytes.len() - at),
            ));
        }
        check_caps(len as u64, k)?;
        Ok(Bip37Filter {
            data,
            k,
            tweak,
            flags,
        })
    }

    /// Core's `CBloomFilter::IsRelevantAndUpdate`: `true` if the transaction matches, and, per
    /// `nFlags`, the matched outputs' outpoints added to the filter.
    ///
    /// A transaction matches if the filter holds its txid; or, for some output, any non-empty
    /// data push of its script (then, with [`BLOOM_UPDATE_ALL`], that output's outpoint
    /// `txid ‖ index (u32 LE)` is inserted; with [`BLOOM_UPDATE_P2PUBKEY_ONLY`], only if the
    /// script is pay-to-pubkey or bare multisig); or, only if nothing matched so far, an input's
    /// previous outpoint or any non-empty data push of its scriptSig. Scripts are read as Core's
    /// `GetOp` reads them: a malformed push ends that script. An empty filter matches every
    /// transaction.
    ///
    /// # Example
    /// ```
    /// use amq::formats::bip37::{Bip37Filter, Tx, TxIn, BLOOM_UPDATE_ALL};
    /// let mut f = Bip37Filter::new(10, 1e-6, 0, BLOOM_UPDATE_ALL)?;
    /// f.insert_bytes(&[0x11; 20]);
    /// let p2pkh: Vec<u8> = [&[0x76, 0xa9, 0x14][..], &[0x11; 20], &[0x88, 0xac]].concat();
    /// let tx = Tx { txid: [7; 32], outputs: &[&p2pkh], inputs: &[] };
    /// assert!(f.is_relevant_and_update(&tx));
    /// // The outpoint (txid, 0) was added, so a transaction spending it matches too.
    /// let spend = [TxIn { prev_txid: [7; 32], prev_index: 0, script_sig: &[] }];
    /// assert!(f.is_relevant_and_update(&Tx { txid: [8; 32], outputs: &[], inputs: &spend }));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn is_relevant_and_update(&mut self, tx: &Tx<'_>) -> bool {
        if self.data.is_empty() {
            return true;
        }
        let mut found = self.contains_bytes(&tx.txid);
        for (index, script) in tx.outputs.iter().enumerate() {
            let hit =
                ScriptPushes::new(script).any(|data| !data.is_empty() && self.contains_bytes(data));
            if hit {
                found = true;
                let update = match self.flags & BLOOM_UPDATE_MASK {
                    BLOOM_UPDATE_ALL => true,
                    BLOOM_UPDATE_P2PUBKEY_ONLY => is_pay_to_pubkey(script) || is_multisig(script),
                    _ => false,
                };
                if update {
                    self.insert_bytes(&outpoint(&tx.txid, index as u32));
                }
            }
        }
        if found {
            return true;
        }
        tx.inputs.iter().any(|input| {
            self.contains_bytes(&outpoint(&input.prev_txid, input.prev_index))
                || ScriptPushes::new(input.script_sig)
                    .any(|data| !data.is_empty() && self.contains_bytes(data))
        })
    }
}

/// The parts of a transaction BIP37 matching reads (see
/// [`Bip37Filter::is_relevant_and_update`]).
#[derive(Debug, Clone, Copy)]
pub struct Tx<'a> {
    /// The txid in internal byte order (the double SHA-256 as computed, not as displayed).
    pub txid: [u8; 32],
    /// Each output's scriptPubKey, in output order.
    pub outputs: &'a [&'a [u8]],
    /// The inputs, in order.
    pub inputs: &'a [TxIn<'a>],
}

/// One input of a [`Tx`].
#[derive(Debug, Clone, Copy)]
pub struct TxIn<'a> {
    /// The spent output's txid, internal byte order.
    pub prev_txid: [u8; 32],
    /// The spent output's index.
    pub prev_index: u32,
    /// The input's scriptSig.
    pub script_sig: &'a [u8],
}

/// A serialized outpoint: txid (internal order) ‖ index (u32 LE), as Core hashes `COutPoint`.
pub fn outpoint(txid: &[u8; 32], index: u32) -> [u8; 36] {
    let mut out = [0u8; 36];
    out[..32].copy_from_slice(txid);
    out[32..].copy_from_slice(&index.to_le_bytes());
    out
}

impl<T: Item + ?Sized> Filter<T> for Bip37Filter {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        item.with_bytes(|b| self.contains_bytes(b))
    }
}

impl<T: Item + ?Sized> Insert<T> for Bip37Filter {
    /// Never fails: a BIP37 filter has no capacity limit (it only fills up).
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        Ok(item.with_bytes(|b| self.insert_bytes(b)))
    }
}

fn check_caps(bytes: u64, k: u32) -> Result<()> {
    if bytes > MAX_BLOOM_FILTER_SIZE as u64 {
        return Err(Error::TooLarge {
            what: "BIP37 filter size in bytes",
            value: bytes,
            limit: MAX_BLOOM_FILTER_SIZE as u64,
        });
    }
    if k > MAX_HASH_FUNCS {
        return Err(Error::TooLarge {
            what: "BIP37 nHashFuncs",
            value: u64::from(k),
            limit: u64::from(MAX_HASH_FUNCS),
        });
    }
    Ok(())
}

fn take<'a>(bytes: &'a [u8], at: usize, n: usize, what: &'static str) -> Result<&'a [u8]> {
    bytes
        .get(at..)
        .and_then(|rest| rest.get(..n))
        .ok_or(Error::Truncated {
            what,
            offset: at,
            needed: n,
            available: bytes.len().saturating_sub(at),
        })
}

fn take4(bytes: &[u8], at: usize, what: &'static str) -> Result<[u8; 4]> {
    let s = take(bytes, at, 4, what)?;
    Ok([s[0], s[1], s[2], s[3]])
}

/// The data pushes of a script, read as Core's `GetScriptOp` reads them: every opcode yields
/// its pushed bytes (empty for a non-push opcode); a push running past the end stops the walk.
struct ScriptPushes<'a> {
    script: &'a [u8],
    pos: usize,
}

/// One opcode of a script: the opcode byte and the bytes it pushes (empty if none).
struct Op<'a> {
    opcode: u8,
    data: &'a [u8],
}

impl<'a> ScriptPushes<'a> {
    fn new(script: &'a [u8]) -> Self {
        ScriptPushes { script, pos: 0 }
    }

    fn next_op(&mut self) -> Option<Op<'a>> {
        let s = self.script;
        let opcode = *s.get(self.pos)?;
        self.pos += 1;
        let size = match opcode {
            0x00..=0x4b => usize::from(opcode),
            0x4c => {
                let n = *s.get(self.pos)?;
                self.pos += 1;
                usize::from(n)
            }
            0x4d => {
                let b = s.get(self.pos..self.pos + 2)?;
                self.pos += 2;
                usize::from(u16::from_le_bytes([b[0], b[1]]))
            }
            0x4e => {
                let b = s.get(self.pos..self.pos + 4)?;
                self.pos += 4;
                u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
            }
            _ => 0,
        };
        let data = s.get(self.pos..self.pos.checked_add(size)?)?;
        self.pos += size;
        Some(Op { opcode, data })
    }
}

impl<'a> Iterator for ScriptPushes<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.pos >= self.script.len() {
            return None;
        }
        match self.next_op() {
            Some(op) => Some(op.data),
            None => {
                self.pos = self.script.len();
                None
            }
        }
    }
}

const OP_CHECKSIG: u8 = 0xac;
const OP_CHECKMULTISIG: u8 = 0xae;
const MAX_PUBKEYS_PER_MULTISIG: i64 = 20;

/// Core's `CPubKey::ValidSize`: 33 bytes after 0x02/0x03, 65 after 0x04/0x06/0x07.
fn valid_pubkey_size(key: &[u8]) -> bool {
    match key.first() {
        Some(2 | 3) => key.len() == 33,
        Some(4 | 6 | 7) => key.len() == 65,
        _ => false,
    }
}

/// Core's `MatchPayToPubkey`: `<33- or 65-byte pubkey> OP_CHECKSIG`.
fn is_pay_to_pubkey(script: &[u8]) -> bool {
    let n = script.len();
    n >= 2
        && (n == 35 || n == 67)
        && usize::from(script[0]) == n - 2
        && script[n - 1] == OP_CHECKSIG
        && valid_pubkey_size(&script[1..n - 1])
}

/// Core's `GetScriptNumber` for `MatchMultisig`: OP_1..OP_16, or a minimal push of a number,
/// in `min..=max`.
fn script_number(op: &Op<'_>, min: i64, max: i64) -> Option<i64> {
    let v = match op.opcode {
        0x51..=0x60 => i64::from(op.opcode - 0x50),
        0x01..=0x4e => {
            let d = op.data;
            if d.is_empty() || d.len() > 4 {
                return None;
            }
            // minimal push: a 1-byte value 1..16 or 0x81 must have used OP_N / OP_1NEGATE
            if d.len() == 1 && (d[0] == 0x81 || (1..=16).contains(&d[0])) {
                return None;
            }
            if op.opcode != d.len() as u8 {
                return None;
            }
            // minimal number encoding (CScriptNum with fRequireMinimal)
            let last = d[d.len() - 1];
            if last & 0x7f == 0 && (d.len() == 1 || d[d.len() - 2] & 0x80 == 0) {
                return None;
            }
            let mut v: i64 = 0;
            for (i, &b) in d.iter().enumerate() {
                v |= i64::from(b) << (8 * i);
            }
            if last & 0x80 != 0 {
                -(v & !(0x80i64 << (8 * (d.len() - 1))))
            } else {
                v
            }
        }
        _ => return None,
    };
    (min..=max).contains(&v).then_some(v)
}

/// Core's `MatchMultisig`: `m <pubkey>... n OP_CHECKMULTISIG` with n pubkeys, 1 ≤ m ≤ n ≤ 20.
fn is_multisig(script: &[u8]) -> bool {
    if script.last() != Some(&OP_CHECKMULTISIG) {
        return false;
    }
    let mut ops = ScriptPushes::new(script);
    let Some(first) = ops.next_op() else {
        return false;
    };
    let Some(required) = script_number(&first, 1, MAX_PUBKEYS_PER_MULTISIG) else {
        return false;
    };
    let mut keys = 0i64;
    let mut last = None;
    while ops.pos < script.len() {
        let Some(op) = ops.next_op() else { break };
        if valid_pubkey_size(op.data) {
            keys += 1;
        } else {
            last = Some(op);
            break;
        }
    }
    let Some(last) = last else { return false };
    match script_number(&last, required, MAX_PUBKEYS_PER_MULTISIG) {
        Some(n) if n == keys => ops.pos + 1 == script.len(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn core_constants_are_these_doubles() {
        let ln2: f64 = "0.6931471805599453094172321214581765680755001343602552"
            .parse()
            .unwrap();
        assert_eq!(ln2.to_bits(), LN2.to_bits());
        let sq: f64 = "0.4804530139182014246671025263266649717305529515945455"
            .parse()
            .unwrap();
        assert_eq!(sq.to_bits(), LN2SQUARED.to_bits());
    }

    #[test]
    fn empty_filter_matches_everything() {
        let mut f = Bip37Filter::new(1, 1.0, 0, 0).unwrap();
        assert_eq!(f.size_bytes(), 0);
        assert!(!f.insert_bytes(b"x"));
        assert!(f.contains_bytes(b"anything"));
        assert_eq!(f.to_filterload(), vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn caps_refused_on_decode() {
        let big = Bip37Filter {
            data: vec![0; MAX_BLOOM_FILTER_SIZE + 1],
            k: 1,
            tweak: 0,
            flags: 0,
        };
        assert!(matches!(
            Bip37Filter::from_filterload(&big.to_filterload()),
            Err(Error::TooLarge { value: 36_001, .. })
        ));
        let many = Bip37Filter {
            data: vec![0; 1],
            k: 51,
            tweak: 0,
            flags: 0,
        };
        assert!(matches!(
            Bip37Filter::from_filterload(&many.to_filterload()),
            Err(Error::TooLarge { value: 51, .. })
        ));
        // a length over the cap is refused before the data is read (no allocation)
        assert!(matches!(
            Bip37Filter::from_filterload(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            Err(Error::TooLarge { .. })
        ));
    }

    #[test]
    fn script_templates() {
        let mut p2pk = vec![33u8, 2];
        p2pk.extend_from_slice(&[9; 32]);
        p2pk.push(OP_CHECKSIG);
        assert!(is_pay_to_pubkey(&p2pk));
        p2pk[1] = 4; // 0x04 needs 65 bytes
        assert!(!is_pay_to_pubkey(&p2pk));
        // 1-of-2 bare multisig
        let mut ms = vec![0x51u8];
        for lead in [2u8, 3] {
            ms.push(33);
            ms.push(lead);
            ms.extend_from_slice(&[1; 32]);
        }
        ms.extend_from_slice(&[0x52, OP_CHECKMULTISIG]);
        assert!(is_multisig(&ms));
        let n = ms.len();
        ms[n - 2] = 0x53; // claims 3 keys, has 2
        assert!(!is_multisig(&ms));
        assert!(!is_multisig(&[0x76, 0xa9, 0x14]));
    }

    #[test]
    fn p2pubkey_only_updates_only_for_pubkey_scripts() {
        let key: Vec<u8> = [&[2u8][..], &[5; 32]].concat();
        let p2pk: Vec<u8> = [&[33u8][..], &key, &[OP_CHECKSIG]].concat();
        let p2pkh_like: Vec<u8> = [&[33u8][..], &key, &[0x88]].concat();
        for (script, updated) in [(&p2pk, true), (&p2pkh_like, false)] {
            let mut f = Bip37Filter::new(10, 1e-6, 7, BLOOM_UPDATE_P2PUBKEY_ONLY).unwrap();
            f.insert_bytes(&key);
            let outputs = [script.as_slice()];
            assert!(f.is_relevant_and_update(&Tx {
                txid: [1; 32],
                outputs: &outputs,
                inputs: &[]
            }));
            assert_eq!(f.contains_bytes(&outpoint(&[1; 32], 0)), updated);
        }
    }
}
