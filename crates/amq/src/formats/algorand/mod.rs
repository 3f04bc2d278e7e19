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

use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item};
use alloc::vec::Vec;
use core::fmt;
use sha2::Digest as _;

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
/// Minimum balance per box, in microAlgos (consensus parameter `BoxFlatMinBalance`).
pub const BOX_FLAT_MIN_BALANCE: u64 = 2_500;
/// Minimum balance per byte of box name and contents, in microAlgos (`BoxByteMinBalance`).
pub const BOX_BYTE_MIN_BALANCE: u64 = 400;

/// The minimum balance a box adds to its application's account, in microAlgos:
/// `2,500 + 400·(name length + box size)`.
///
/// (Algorand developer docs, "Protocol parameters" / "Algorand parameter tables": per box
/// created 0.0025 Algo, `BoxFlatMinBalance`; per byte in box created 0.0004 Algo,
/// `BoxByteMinBalance`, "includes the length of the key".)
///
/// # Example
/// ```
/// use amq::formats::algorand::{box_min_balance, BOX_NAME};
/// assert_eq!(box_min_balance(BOX_NAME.len(), 4096), 1_642_900); // 1.6429 Algo
/// ```
pub fn box_min_balance(name_len: usize, box_bytes: usize) -> u64 {
    BOX_FLAT_MIN_BALANCE + BOX_BYTE_MIN_BALANCE * (name_len as u64 + box_bytes as u64)
}

/// One of the AVM's 256-bit hash opcodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AvmHash {
    /// `sha512_256`: FIPS 180-4 SHA-512/256 (its own initial value; not truncated SHA-512).
    Sha512_256,
    /// `sha3_256`: FIPS 202 SHA3-256 (padding 0x06; not Keccak-256).
    Sha3_256,
    /// `sha256`: FIPS 180-4 SHA-256.
    Sha256,
    /// `keccak256`: the original Keccak-256 (padding 0x01), as Ethereum uses it.
    Keccak256,
}

impl AvmHash {
    /// The order in which k hash functions are taken: the contract's two first, then the
    /// other two AVM hashes.
    pub const ORDER: [AvmHash; 4] = [
        AvmHash::Sha512_256,
        AvmHash::Sha3_256,
        AvmHash::Sha256,
        AvmHash::Keccak256,
    ];

    /// The 32-byte digest of `data`.
    ///
    /// # Example
    /// ```
    /// use amq::formats::algorand::AvmHash;
    /// let d = AvmHash::Sha512_256.digest(b"abc");
    /// assert_eq!(d[..4], [0x53, 0x04, 0x8e, 0x26]); // FIPS 180-4 example
    /// ```
    pub fn digest(self, data: &[u8]) -> [u8; 32] {
        let mut out = [0u8; 32];
        match self {
            AvmHash::Sha512_256 => out.copy_from_slice(&sha2::Sha512_256::digest(data)),
            AvmHash::Sha3_256 => out.copy_from_slice(&sha3::Sha3_256::digest(data)),
            AvmHash::Sha256 => out.copy_from_slice(&sha2::Sha256::digest(data)),
            AvmHash::Keccak256 => out.copy_from_slice(&sha3::Keccak256::digest(data)),
        }
        out
    }

    /// The opcode's name in TEAL.
    pub fn opcode(self) -> &'static str {
        match self {
            AvmHash::Sha512_256 => "sha512_256",
            AvmHash::Sha3_256 => "sha3_256",
            AvmHash::Sha256 => "sha256",
            AvmHash::Keccak256 => "keccak256",
        }
    }
}

/// The AVM's `extract_uint64`: the big-endian u64 of `bytes[start..start + 8]`.
///
/// # Errors
/// [`Error::Truncated`] if `start + 8 > bytes.len()` (the AVM fails the program).
pub fn extract_uint64(bytes: &[u8], start: usize) -> Result<u64> {
    let s = start
        .checked_add(8)
        .and_then(|end| bytes.get(start..end))
        .ok_or(Error::Truncated {
            what: "extract_uint64",
            offset: start,
            needed: 8,
            available: bytes.len().saturating_sub(start),
        })?;
    let mut w = [0u8; 8];
    w.copy_from_slice(s);
    Ok(u64::from_be_bytes(w))
}

/// The AVM's `getbit` on a byte array: bit `i` is `0x80 >> (i % 8)` of byte `i / 8`.
///
/// # Errors
/// [`Error::InvalidParameter`] if `i` is beyond the array ("getbit index beyond byteslice").
///
/// # Example
/// ```
/// use amq::formats::algorand::avm_getbit;
/// assert!(avm_getbit(&[0xff, 0xf0], 10)?);
/// assert!(!avm_getbit(&[0xff, 0xf0], 12)?);
/// assert!(avm_getbit(&[0xff, 0xf0], 16).is_err());
/// # Ok::<(), amq::Error>(())
/// ```
pub fn avm_getbit(bytes: &[u8], i: u64) -> Result<bool> {
    let byte = usize::try_from(i / 8)
        .ok()
        .and_then(|b| bytes.get(b))
        .ok_or_else(|| Error::invalid("index", "getbit index beyond byteslice"))?;
    Ok(byte & (0x80 >> (i % 8)) != 0)
}

/// The AVM's `setbit` on a byte array: sets bit `i` (see [`avm_getbit`]) to `bit`.
///
/// # Errors
/// [`Error::InvalidParameter`] if `i` is beyond the array ("setbit index beyond byteslice")
/// or `bit` is over 1 ("setbit value > 1"); `bytes` is then unchanged.
pub fn avm_setbit(bytes: &mut [u8], i: u64, bit: u64) -> Result<()> {
    if bit > 1 {
        return Err(Error::invalid("bit", "setbit value > 1"));
    }
    let byte = usize::try_from(i / 8)
        .ok()
        .and_then(|b| bytes.get_mut(b))
        .ok_or_else(|| Error::invalid("index", "setbit index beyond byteslice"))?;
    let mask = 0x80u8 >> (i % 8);
    if bit == 1 {
        *byte |= mask;
    } else {
        *byte &= !mask;
    }
    Ok(())
}

/// The AVM's `getbit` on a uint64: bit `i` counts from the least significant bit.
///
/// # Errors
/// [`Error::InvalidParameter`] if `i` is over 63 ("getbit index > 63 with Uint").
pub fn avm_getbit_uint64(value: u64, i: u64) -> Result<bool> {
    if i > 63 {
        return Err(Error::invalid("index", "getbit index > 63 with Uint"));
    }
    Ok(value >> i & 1 == 1)
}

/// The AVM's `setbit` on a uint64: `value` with bit `i` (from the least significant) set to
/// `bit`.
///
/// # Errors
/// [`Error::InvalidParameter`] if `i` is over 63 ("setbit index > 63 with Uint") or `bit`
/// over 1 ("setbit value > 1").
pub fn avm_setbit_uint64(value: u64, i: u64, bit: u64) -> Result<u64> {
    if bit > 1 {
        return Err(Error::invalid("bit", "setbit value > 1"));
    }
    if i > 63 {
        return Err(Error::invalid("index", "setbit index > 63 with Uint"));
    }
    Ok(if bit == 1 {
        value | 1 << i
    } else {
        value & !(1 << i)
    })
}

/// The bit index `hash` gives `name` in a filter of `m` bits:
/// `extract_uint64(hash(name), 24) mod m` (the contract's `to_index`).
///
/// # Panics
/// If `m` is 0 (the AVM fails with "% 0"); [`AlgorandBloom`] never has m = 0.
///
/// # Example
/// ```
/// use amq::formats::algorand::{index, AvmHash};
/// let h1 = index(AvmHash::Sha512_256, b"The GOAT", 32_768);
/// assert!(h1 < 32_768);
/// ```
pub fn index(hash: AvmHash, name: &[u8], m: u64) -> u64 {
    let d = hash.digest(name);
    u64::from_be_bytes([d[24], d[25], d[26], d[27], d[28], d[29], d[30], d[31]]) % m
}

/// The contract's Bloom filter: the box bytes and k.
///
/// m = 8·(box size) bits, 1 ≤ size ≤ 32,768 bytes; k ∈ 1..=4 hashes from [`AvmHash::ORDER`].
/// A name is "taken" when all k of its bits are set ([`contains`](Self::contains_name)).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AlgorandBloom {
    bytes: Vec<u8>,
    k: u8,
}

impl Default for AlgorandBloom {
    /// The seed contract's filter: 4,096 zero bytes, k = 2.
    fn default() -> Self {
        AlgorandBloom {
            bytes: alloc::vec![0; DEFAULT_BOX_BYTES],
            k: DEFAULT_K,
        }
    }
}

impl AlgorandBloom {
    /// The seed contract's empty filter: 4,096 bytes, k = 2 (`op.bzero(4096)`).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty filter of `box_bytes` bytes with k hashes.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if `box_bytes` is not in `1..=32,768` or k not in `1..=4`.
    pub fn with_size(box_bytes: usize, k: u8) -> Result<Self> {
        check_shape(box_bytes, k)?;
        Ok(AlgorandBloom {
            bytes: alloc::vec![0; box_bytes],
            k,
        })
    }

    /// The filter held in a box's bytes, read with k hashes.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty box (the contract would fail with "% 0") or k
    /// not in `1..=4`; [`Error::TooLarge`] for more than 32,768 bytes.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_box(bytes: &[u8], k: u8) -> Result<Self> {
        if bytes.len() > MAX_BOX_BYTES {
            return Err(Error::TooLarge {
                what: "box size in bytes",
                value: bytes.len() as u64,
                limit: MAX_BOX_BYTES as u64,
            });
        }
        check_shape(bytes.len(), k)?;
        Ok(AlgorandBloom {
            bytes: bytes.to_vec(),
            k,
        })
    }

    /// The box bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
    /// The box bytes, owned.
    #[inline]
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
    /// m, the number of bits: 8·(box size).
    #[inline]
    pub fn m(&self) -> u64 {
        self.bytes.len() as u64 * 8
    }
    /// k, the number of hash functions.
    #[inline]
    pub fn k(&self) -> u8 {
        self.k
    }
    /// The hashes in use: the first k of [`AvmHash::ORDER`].
    pub fn hashes(&self) -> &'static [AvmHash] {
        &AvmHash::ORDER[..usize::from(self.k)]
    }

    /// The k bit indices of `name` (h1, h2, ...), in the order of [`hashes`](Self::hashes).
    pub fn indices(&self, name: &[u8]) -> Vec<u64> {
        let m = self.m();
        self.hashes().iter().map(|&h| index(h, name, m)).collect()
    }

    /// `true` if all k bits of `name` are set: the contract refuses it as "Unit name already
    /// taken" (a name that was minted, or a false positive).
    pub fn contains_name(&self, name: &[u8]) -> bool {
        let m = self.m();
        self.hashes().iter().all(|&h| self.bit(index(h, name, m)))
    }

    /// Sets the k bits of `name`; `true` if some bit changed.
    pub fn insert_name(&mut self, name: &[u8]) -> bool {
        let m = self.m();
        let mut changed = false;
        for &h in self.hashes() {
            let i = index(h, name, m);
            changed |= !self.bit(i);
            self.bytes[(i / 8) as usize] |= 0x80 >> (i % 8);
        }
        changed
    }

    /// Bit `i` in AVM order. `i` must be below m.
    #[inline]
    fn bit(&self, i: u64) -> bool {
        self.bytes[(i / 8) as usize] & (0x80 >> (i % 8)) != 0
    }

    /// The number of set bits.
    pub fn bits_set(&self) -> u64 {
        self.bytes.iter().map(|b| u64::from(b.count_ones())).sum()
    }

    /// The classic expected false-positive rate after `n` distinct names,
    /// `(1 − e^(−k·n/m))^k` ([`math::fpr`](crate::math::fpr)).
    pub fn expected_fpr(&self, n: u64) -> f64 {
        crate::math::fpr(n, self.m(), u32::from(self.k))
    }
}

impl<T: Item + ?Sized> Filter<T> for AlgorandBloom {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        item.with_bytes(|b| self.contains_name(b))
    }
}

impl<T: Item + ?Sized> Insert<T> for AlgorandBloom {
    /// Never fails.
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        Ok(item.with_bytes(|b| self.insert_name(b)))
    }
}

fn check_shape(box_bytes: usize, k: u8) -> Result<()> {
    if box_bytes == 0 || box_bytes > MAX_BOX_BYTES {
        return Err(Error::invalid(
            "box size",
            alloc::format!("must be 1 to {MAX_BOX_BYTES} bytes, got {box_bytes}"),
        ));
    }
    if k == 0 || k > MAX_K {
        return Err(Error::invalid(
            "k",
            alloc::format!("the AVM has 4 hash opcodes: k must be 1 to 4, got {k}"),
        ));
    }
    Ok(())
}

/// The false-positive rate `(1 − (1 − 1/m)^(k·x))^k` for a real-valued item count x.
fn fpr_at(x: f64, m: u64, k: u8) -> f64 {
    let zero = libm::exp(f64::from(k) * x * libm::log1p(-1.0 / m as f64));
    libm::pow(1.0 - zero, f64::from(k))
}

/// The expected number of refusals ("Unit name already taken") among `calls` calls with
/// distinct names (none over 8 bytes), against an empty filter of m bits and k hashes, with
/// no supply limit: `Σ_{j<calls} (1 − (1 − 1/m)^(k·j))^k`.
///
/// The sum runs over *calls*, not mints: a refused name has all its k bits set already, so
/// the box after j calls is exactly the Bloom filter of all j names, accepted or refused. (A
/// model that only counts the minted names underestimates the refusals: for the seed contract
/// and 10,000 calls it predicts 747 where the contract refuses about 805.) Takes O(calls) time.
///
/// # Example
/// ```
/// // The seed contract (m = 32,768, k = 2) over 10,000 distinct names.
/// let r = amq::formats::algorand::expected_refusals(32_768, 2, 10_000);
/// assert!((r - 805.35).abs() < 0.01);
/// ```
pub fn expected_refusals(m: u64, k: u8, calls: u64) -> f64 {
    (0..calls).map(|j| fpr_at(j as f64, m, k)).sum()
}

/// Minting the whole supply of n from an empty box with fresh distinct names: the expected
/// number of calls refused on the way, and so the rate at full supply.
///
/// Since the box after c calls is the Bloom filter of all c names (see
/// [`expected_refusals`]), c grows until `c − Σ_{j<c} ε(j) = n`. Returns
/// `(expected refusals, ε after those calls)`. The sum is taken over at most 2¹³ chunks of
/// calls (midpoint rule), so it costs O(min(n, 8,192)) whatever n is.
pub fn expected_refusals_to_mint(m: u64, k: u8, n: u64) -> (f64, f64) {
    let step = (n / 8192).max(1) as f64;
    let (mut calls, mut minted, mut refused) = (0.0f64, 0.0f64, 0.0f64);
    let target = n as f64;
    while minted < target {
        let p = fpr_at(calls + step / 2.0, m, k);
        if p >= 1.0 - 1e-12 {
            return (f64::INFINITY, 1.0);
        }
        // the chunk's calls, or fewer to mint exactly the rest
        let s = step.min((target - minted) / (1.0 - p));
        let next = minted + s * (1.0 - p);
        calls += s;
        refused += s * p;
        if next <= minted {
            break; // the rest is below f64 resolution
        }
        minted = next;
    }
    (refused, fpr_at(calls, m, k))
}

/// What [`plan`] chooses.
#[derive(Debug, Clone, PartialEq)]
pub struct AlgorandPlan {
    /// The supply the filter must hold: n.
    pub supply: u64,
    /// The false-positive rate asked for, at full supply.
    pub target_fpr: f64,
    /// The box size in bytes.
    pub box_bytes: usize,
    /// m = 8·box_bytes.
    pub m_bits: u64,
    /// k, the number of hashes.
    pub k: u8,
    /// The hashes, in order.
    pub hashes: &'static [AvmHash],
    /// The expected false-positive rate once all `supply` names are minted, counting the
    /// names refused on the way (whose bits are in the box too;
    /// [`expected_refusals_to_mint`]). At most `target_fpr`.
    pub fpr: f64,
    /// The classic rate for `supply` names alone, `(1 − e^(−k·n/m))^k`: what the rate would
    /// be if no name had been refused (a lower bound of [`fpr`](Self::fpr)).
    pub fpr_classic: f64,
    /// The expected number of fresh names refused while minting the whole supply
    /// ([`expected_refusals_to_mint`]).
    pub expected_refusals_to_mint: f64,
    /// The box's minimum-balance cost in microAlgos ([`box_min_balance`]).
    pub min_balance_microalgos: u64,
    /// `true` when the box fits on the AVM stack (≤ 4,096 bytes), so the contract can
    /// `box_get`/`box_put` it whole as the seed's does; otherwise it must use
    /// `box_extract`/`box_replace`.
    pub fits_on_stack: bool,
}

/// The smallest box (and its k) whose expected false-positive rate at full supply, counting
/// the names refused on the way ([`expected_refusals_to_mint`]), is at most `target`, under
/// the AVM's limits: k ∈ 1..=4 and at most 32,768 bytes. Among k giving the
/// same smallest box, the lower rate wins. The cost is for a box named `box_name_len` bytes.
///
/// # Errors
/// [`Error::InvalidParameter`] if `supply` is 0, `target` is not in (0, 1), or no box of at
/// most 32,768 bytes reaches `target` (the message gives the best rate reachable).
///
/// # Example
/// ```
/// use amq::formats::algorand::plan;
/// // The seed's collection: 10,000 names. At 1% it needs a 13,184-byte box with k = 4
/// // (k is capped at 4; the unconstrained optimum would be about 12,000 bytes with k = 7).
/// let p = plan(10_000, 0.01, 5)?;
/// assert_eq!((p.box_bytes, p.k), (13_184, 4));
/// assert!(p.fpr <= 0.01 && p.fpr_classic < p.fpr);
/// assert_eq!(p.min_balance_microalgos, 2_500 + 400 * (5 + 13_184));
/// assert!(!p.fits_on_stack);
/// # Ok::<(), amq::Error>(())
/// ```
pub fn plan(supply: u64, target: f64, box_name_len: usize) -> Result<AlgorandPlan> {
    if supply == 0 {
        return Err(Error::invalid("n", "the supply must be at least 1"));
    }
    if !(target > 0.0 && target < 1.0) {
        return Err(Error::invalid(
            "fpr",
            alloc::format!("must be strictly between 0 and 1, got {target}"),
        ));
    }
    let classic = |bytes: usize, k: u8| crate::math::fpr(supply, bytes as u64 * 8, u32::from(k));
    // the rate at full supply, counting the refused names' bits
    let rate = |bytes: usize, k: u8| {
        if classic(bytes, k) > target {
            return classic(bytes, k); // a lower bound already over the target
        }
        expected_refusals_to_mint(bytes as u64 * 8, k, supply).1
    };
    let mut best: Option<(usize, u8, f64)> = None;
    for k in 1..=MAX_K {
        if rate(MAX_BOX_BYTES, k) > target {
            continue;
        }
        // the rate falls as the box grows: bisect for the smallest box that reaches target
        let (mut lo, mut hi) = (1usize, MAX_BOX_BYTES);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if rate(mid, k) <= target {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let r = rate(hi, k);
        best = match best {
            Some((b, bk, br)) if b < hi || (b == hi && br <= r) => Some((b, bk, br)),
            _ => Some((hi, k, r)),
        };
    }
    let Some((box_bytes, k, fpr)) = best else {
        let reachable = (1..=MAX_K)
            .map(|k| rate(MAX_BOX_BYTES, k))
            .fold(1.0f64, f64::min);
        return Err(Error::invalid(
            "fpr",
            alloc::format!(
                "{supply} names at {target} need more than one 32,768-byte box; \
                 the best one box reaches is {reachable:.3e}"
            ),
        ));
    };
    let m_bits = box_bytes as u64 * 8;
    Ok(AlgorandPlan {
        supply,
        target_fpr: target,
        box_bytes,
        m_bits,
        k,
        hashes: &AvmHash::ORDER[..usize::from(k)],
        fpr,
        fpr_classic: classic(box_bytes, k),
        expected_refusals_to_mint: expected_refusals_to_mint(m_bits, k, supply).0,
        min_balance_microalgos: box_min_balance(box_name_len, box_bytes),
        fits_on_stack: box_bytes <= MAX_STACK_BYTES,
    })
}

/// Why `buy_nft` failed. A failed call changes nothing (the transaction is rejected whole).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuyError {
    /// `assert self.minted < self.max_supply, "Maximum supply reached"`.
    MaximumSupplyReached,
    /// `assert exists, "Application not bootstrapped"`: the box was never created.
    NotBootstrapped,
    /// `assert not (getbit(h1) and getbit(h2)), "Unit name already taken"`.
    UnitNameTaken,
    /// The inner asset-config transaction refuses a unit name over 8 bytes: the AVM's
    /// `itxn_field ConfigAssetUnitName` fails with "value is too long" (go-algorand
    /// `data/transactions/logic/eval.go`, `stackIntoTxnField`:
    /// `sv.string(cx.Proto.MaxAssetUnitNameBytes)`, commit
    /// `0030abac20843ce37309ffb510315689e5b57730`).
    UnitNameTooLong {
        /// The name's length in bytes.
        len: usize,
    },
}

impl BuyError {
    /// The failure's message, as the contract (or the AVM) gives it.
    pub fn message(&self) -> &'static str {
        match self {
            BuyError::MaximumSupplyReached => "Maximum supply reached",
            BuyError::NotBootstrapped => "Application not bootstrapped",
            BuyError::UnitNameTaken => "Unit name already taken",
            BuyError::UnitNameTooLong { .. } => "value is too long",
        }
    }
}

impl fmt::Display for BuyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for BuyError {}

/// The unit-name registry contract (`BloomFilter` of the seed document), replayed off-chain.
///
/// State: `max_supply`, `minted`, and the `bloom` box once `create_bloom_filter` made it.
/// [`buy_nft`](Self::buy_nft) checks, in the contract's order: supply, box, unit name taken,
/// then mints (the inner asset-config transaction, which refuses names over 8 bytes), then
/// counts the mint and sets the name's bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitNameRegistry {
    max_supply: u64,
    minted: u64,
    box_bytes: usize,
    k: u8,
    bloom: Option<AlgorandBloom>,
}

impl UnitNameRegistry {
    /// The contract after `new(max_supply)`: nothing minted, no box yet; the box will be the
    /// seed's 4,096 bytes with k = 2.
    pub fn new(max_supply: u64) -> Self {
        UnitNameRegistry {
            max_supply,
            minted: 0,
            box_bytes: DEFAULT_BOX_BYTES,
            k: DEFAULT_K,
            bloom: None,
        }
    }

    /// A generalised contract whose box will be `box_bytes` bytes, read with k hashes.
    ///
    /// # Errors
    /// As [`AlgorandBloom::with_size`].
    pub fn with_shape(max_supply: u64, box_bytes: usize, k: u8) -> Result<Self> {
        check_shape(box_bytes, k)?;
        Ok(UnitNameRegistry {
            max_supply,
            minted: 0,
            box_bytes,
            k,
            bloom: None,
        })
    }

    /// `create_bloom_filter`: creates the zeroed box if it does not exist; `true` if it was
    /// created now.
    pub fn create_bloom_filter(&mut self) -> bool {
        if self.bloom.is_some() {
            return false;
        }
        self.bloom = Some(AlgorandBloom {
            bytes: alloc::vec![0; self.box_bytes],
            k: self.k,
        });
        true
    }

    /// The checks of `buy_nft`, without changing anything: what the call would do now.
    ///
    /// # Errors
    /// The [`BuyError`] the call would fail with.
    pub fn check_buy(&self, unit_name: &[u8]) -> core::result::Result<(), BuyError> {
        if self.minted >= self.max_supply {
            return Err(BuyError::MaximumSupplyReached);
        }
        let Some(bloom) = &self.bloom else {
            return Err(BuyError::NotBootstrapped);
        };
        if bloom.contains_name(unit_name) {
            return Err(BuyError::UnitNameTaken);
        }
        if unit_name.len() > MAX_UNIT_NAME_BYTES {
            return Err(BuyError::UnitNameTooLong {
                len: unit_name.len(),
            });
        }
        Ok(())
    }

    /// `buy_nft(unit_name)`: mints and records the name, or fails and changes nothing.
    ///
    /// # Errors
    /// [`BuyError`], in the contract's order of checks.
    pub fn buy_nft(&mut self, unit_name: &[u8]) -> core::result::Result<(), BuyError> {
        self.check_buy(unit_name)?;
        self.minted += 1;
        if let Some(bloom) = &mut self.bloom {
            bloom.insert_name(unit_name);
        }
        Ok(())
    }

    /// How many NFTs were minted.
    pub fn minted(&self) -> u64 {
        self.minted
    }
    /// The supply limit.
    pub fn max_supply(&self) -> u64 {
        self.max_supply
    }
    /// The box, once created.
    pub fn bloom(&self) -> Option<&AlgorandBloom> {
        self.bloom.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_calls_change_nothing() {
        let mut app = UnitNameRegistry::new(2);
        assert_eq!(app.buy_nft(b"A"), Err(BuyError::NotBootstrapped));
        assert!(app.create_bloom_filter());
        assert!(!app.create_bloom_filter());
        let before = app.clone();
        assert_eq!(
            app.buy_nft(b"NINEBYTES"),
            Err(BuyError::UnitNameTooLong { len: 9 })
        );
        assert_eq!(app, before);
        app.buy_nft(b"A").unwrap();
        let before = app.clone();
        assert_eq!(app.buy_nft(b"A"), Err(BuyError::UnitNameTaken));
        assert_eq!(app, before);
        app.buy_nft(b"B").unwrap();
        // supply is checked first, before the box and the name
        assert_eq!(app.buy_nft(b"A"), Err(BuyError::MaximumSupplyReached));
        assert_eq!(app.minted(), 2);
    }

    #[test]
    fn taken_check_precedes_length_check() {
        // A long name whose bits are all set fails as taken: the assert comes before the mint.
        let mut app = UnitNameRegistry::new(10);
        app.create_bloom_filter();
        app.bloom = Some(AlgorandBloom {
            bytes: alloc::vec![0xff; DEFAULT_BOX_BYTES],
            k: 2,
        });
        assert_eq!(app.buy_nft(b"far too long"), Err(BuyError::UnitNameTaken));
    }

    #[test]
    fn planner_limits() {
        assert!(plan(10_000, 1e-12, 5).is_err());
        let p = plan(100, 0.01, 5).unwrap();
        assert!(p.fits_on_stack);
        assert!(p.fpr <= 0.01);
        // one byte less does not reach the target with any k
        for k in 1..=4u8 {
            let smaller = (p.box_bytes as u64 - 1) * 8;
            assert!(expected_refusals_to_mint(smaller, k, 100).1 > 0.01);
        }
    }
}
