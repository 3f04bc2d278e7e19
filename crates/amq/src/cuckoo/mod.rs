//! The cuckoo filter: fingerprints in a cuckoo hash table, with deletion.
//!
//! A [`CuckooFilter`] keeps an f-bit fingerprint of each item in one of two buckets of b = 4
//! slots. The second bucket is computed from the first and the fingerprint alone (partial-key
//! cuckoo hashing), so a fingerprint can be moved to make room without the item, and an item
//! can be deleted by clearing one copy of its fingerprint. (Fan, Andersen, Kaminsky and
//! Mitzenmacher, "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014; the seed
//! `bloom-cuckoo-sliding-window.md`.)
//!
//! * Lookup: two buckets, eight fingerprints compared four at a time with SWAR on one packed
//!   word per bucket (no loop, one branch).
//! * False-positive rate at load factor α: `ε ≈ 1 − (1 − 2^−f)^(2bα)` ([`fpr`]); this
//!   implementation's fingerprints are uniform over the 2^f − 1 non-zero values, which makes
//!   it `1 − (1 − 1/(2^f − 1))^(2bα)` ([`fpr_exact`]).
//! * Sizing from n and ε: `f = ⌈log2(2b/ε)⌉` rounded up to a supported width (8, 12 or 16
//!   bits, [`fingerprint_bits_for`]), and ⌈n/(b·0.95)⌉ buckets ([`buckets_for`]).
//! * Inserts move at most [`MAX_KICKS`] fingerprints; the one left without a place goes to a
//!   one-slot victim stash, so no insert ever loses an item. While the stash is taken, an
//!   insert that would need to move fingerprints returns [`Error::Full`] and changes nothing.
//!
//! ```
//! use amq::cuckoo::CuckooFilter;
//! use amq::{Filter, Insert, Remove};
//!
//! let mut f = CuckooFilter::with_fpr(10_000, 0.001, 0)?;
//! assert_eq!(f.fingerprint_bits(), 16); // ⌈log2(8/0.001)⌉ = 13, rounded up to 16
//! f.insert("alice")?;
//! f.insert("bob")?;
//! assert!(f.contains("alice"));
//! assert!(f.remove("alice"));
//! assert!(!f.contains("alice"));
//! assert!(f.contains("bob"));
//! # Ok::<(), amq::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item, Merge, Remove};
use crate::hash::{cuckoo_alt_index, cuckoo_fingerprint, cuckoo_index, hash128};
use crate::math::Target;
use crate::wire::{self, Kind};
use alloc::vec::Vec;

/// b, the slots per bucket.
pub const SLOTS_PER_BUCKET: u32 = 4;
/// The most fingerprints one insert moves before it puts the last one in the victim stash.
pub const MAX_KICKS: u32 = 500;
/// The supported fingerprint widths f, in bits.
pub const FINGERPRINT_BITS: [u32; 3] = [8, 12, 16];
/// The load factor the sizing functions plan for, so n items fit in ⌈n/(4 · 0.95)⌉ buckets
/// (small tables get a margin: [`planned_load`]).
///
/// With b = 4 the paper's random walk fills 95.5% of the slots (Fan et al. 2014, Table 2);
/// the walk here also looks one move ahead at each step and fills 96–97% at a million items
/// before the first refusal (tests/cuckoo.rs checks ≥ 95%).
pub const PLANNED_LOAD: f64 = 0.95;
/// The most buckets a filter may have (2³⁶: 256 GiB of 16-bit fingerprints).
pub const MAX_BUCKETS: u64 = 1 << 36;
/// Zero bytes after the table, so that every bucket can be read as one 8-byte load.
const PAD: usize = 8;
/// How many items ahead the batched queries prefetch.
const AHEAD: usize = 16;

/// Where a query looks: its two buckets and its fingerprint.
#[derive(Debug, Clone, Copy, Default)]
struct Probe {
    i1: u64,
    i2: u64,
    fp: u32,
}

/// Evaluates `$body` with `$F` a `u32` constant equal to the fingerprint width (8, 12 or 16),
/// so the SWAR masks are immediates.
macro_rules! with_f {
    ($f:expr, $F:ident => $body:expr) => {
        match $f {
            8 => {
                const $F: u32 = 8;
                $body
            }
            12 => {
                const $F: u32 = 12;
                $body
            }
            _ => {
                const $F: u32 = 16;
                $body
            }
        }
    };
}

/// The packed bucket of f-bit slots: `4f` bits, slot j at bits `[j·f, (j+1)·f)` of the
/// little-endian integer of `f/2` bytes at byte `i · f/2` of the table.
struct Lanes<const F: u32>;

impl<const F: u32> Lanes<F> {
    /// Bytes per bucket.
    const BYTES: usize = (F / 2) as usize;
    /// The 4f bits of a bucket.
    const WORD: u64 = if F == 16 {
        u64::MAX
    } else {
        (1u64 << (4 * F)) - 1
    };
    /// One slot.
    const LANE: u64 = (1u64 << F) - 1;
    /// The lowest bit of every slot.
    const LO: u64 = 1 | 1 << F | 1 << (2 * F) | 1 << (3 * F);
    /// The highest bit of every slot.
    const HI: u64 = Self::LO << (F - 1);

    /// Bucket `i` as one word.
    #[inline(always)]
    fn load(table: &[u8], i: u64) -> u64 {
        let o = i as usize * Self::BYTES;
        let bytes: [u8; 8] = table[o..o + 8].try_into().expect("8 bytes");
        u64::from_le_bytes(bytes) & Self::WORD
    }

    /// Writes bucket `i`.
    #[inline(always)]
    fn store(table: &mut [u8], i: u64, word: u64) {
        let o = i as usize * Self::BYTES;
        table[o..o + Self::BYTES].copy_from_slice(&word.to_le_bytes()[..Self::BYTES]);
    }

    /// A word with the high bit of the lowest zero slot of `x` set (and possibly higher
    /// slots' high bits): non-zero exactly when some slot of `x` is zero.
    #[inline(always)]
    fn zero_slots(x: u64) -> u64 {
        x.wrapping_sub(Self::LO) & !x & Self::HI
    }

    /// `fp` in every slot.
    #[inline(always)]
    fn broadcast(fp: u32) -> u64 {
        u64::from(fp) * Self::LO
    }

    /// Either bucket holds `fp` (SWAR: XOR with the broadcast fingerprint, then look for a
    /// zero slot, in both words at once).
    #[inline(always)]
    fn has(table: &[u8], i1: u64, i2: u64, fp: u32) -> bool {
        let x = Self::broadcast(fp);
        let w1 = Self::load(table, i1);
        let w2 = Self::load(table, i2);
        (Self::zero_slots(w1 ^ x) | Self::zero_slots(w2 ^ x)) != 0
    }

    /// Puts `fp` in the first empty slot of bucket `i`; `false` if the bucket is full.
    #[inline(always)]
    fn try_place(table: &mut [u8], i: u64, fp: u32) -> bool {
        let w = Self::load(table, i);
        let z = Self::zero_slots(w);
        if z == 0 {
            return false;
        }
        let slot = z.trailing_zeros() / F;
        Self::store(table, i, w | u64::from(fp) << (slot * F));
        true
    }

    /// Replaces slot `slot` of bucket `i` by `fp` and returns what it held.
    #[inline(always)]
    fn swap(table: &mut [u8], i: u64, slot: u32, fp: u32) -> u32 {
        let w = Self::load(table, i);
        let shift = slot * F;
        let old = (w >> shift) & Self::LANE;
        Self::store(
            table,
            i,
            (w & !(Self::LANE << shift)) | u64::from(fp) << shift,
        );
        old as u32
    }

    /// Clears one copy of `fp` from bucket `i`; `false` if it holds none.
    #[inline(always)]
    fn remove(table: &mut [u8], i: u64, fp: u32) -> bool {
        let w = Self::load(table, i);
        let z = Self::zero_slots(w ^ Self::broadcast(fp));
        if z == 0 {
            return false;
        }
        let slot = z.trailing_zeros() / F;
        Self::store(table, i, w & !(Self::LANE << (slot * F)));
        true
    }

    /// Copies of `fp` in bucket `i` (exact: slot by slot).
    #[inline(always)]
    fn count(table: &[u8], i: u64, fp: u32) -> u32 {
        let w = Self::load(table, i);
        (0..SLOTS_PER_BUCKET)
            .filter(|j| (w >> (j * F)) & Self::LANE == u64::from(fp))
            .count() as u32
    }

    /// Occupied slots of bucket `i`.
    #[inline(always)]
    fn occupied(table: &[u8], i: u64) -> u32 {
        let w = Self::load(table, i);
        (0..SLOTS_PER_BUCKET)
            .filter(|j| (w >> (j * F)) & Self::LANE != 0)
            .count() as u32
    }

    /// The fingerprint in slot `slot` of bucket `i` (0: empty).
    #[inline(always)]
    fn get(table: &[u8], i: u64, slot: u32) -> u32 {
        ((Self::load(table, i) >> (slot * F)) & Self::LANE) as u32
    }
}

/// SplitMix64: the pseudo-random walk of the kicks, seeded from the bucket and fingerprint
/// being inserted, so a table is a deterministic function of its inserts and removals.
#[inline]
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The cuckoo filter of Fan, Andersen, Kaminsky and Mitzenmacher (CoNEXT 2014): a table of
/// `buckets` buckets of 4 slots holding f-bit fingerprints (f = 8, 12 or 16, packed: a bucket
/// is 4f bits), with deletion.
///
/// An item is hashed once with XXH3-128 under the filter's seed
/// ([`hash::hash128`](crate::hash::hash128)). Its fingerprint comes from the high 64 bits
/// ([`hash::cuckoo_fingerprint`](crate::hash::cuckoo_fingerprint), never zero, since zero
/// marks an empty slot), its first bucket i₁ from the low 64 bits
/// ([`hash::cuckoo_index`](crate::hash::cuckoo_index)), and its second bucket from i₁ and the
/// fingerprint only: `i₂ = (o(fp) − i₁) mod buckets`
/// ([`hash::cuckoo_alt_index`](crate::hash::cuckoo_alt_index)). This is the paper's
/// partial-key cuckoo hashing with the XOR replaced by a subtraction: it is still an
/// involution (i₁ = (o(fp) − i₂) mod buckets), so a fingerprint moves between its two buckets
/// without the item, and the bucket count need not be a power of two, which saves up to half
/// the memory.
///
/// An insert puts the fingerprint in an empty slot of either bucket; if both are full it
/// evicts a random fingerprint of one of them, moves it to its other bucket, and so on for
/// at most [`MAX_KICKS`] moves. The fingerprint still homeless then goes to a one-slot victim
/// stash, which lookups also check. While the stash is taken, an insert whose buckets are both
/// full returns [`Error::Full`] and changes nothing, so every item inserted before is still
/// found; removing any item empties the stash again.
///
/// The filter is a multiset of fingerprints: inserting an item twice stores two copies
/// ([`count`](Self::count)), and [`remove`](Remove::remove) clears one. At most 2b = 8 copies
/// of one item fit.
///
/// # Example
/// ```
/// use amq::cuckoo::CuckooFilter;
/// use amq::{Filter, Insert, Remove};
///
/// let mut f = CuckooFilter::new(1024, 12, 7)?; // 1024 buckets of 4 × 12 bits: 6 KiB
/// for i in 0..3000u32 {
///     f.insert(&i)?;
/// }
/// assert!((0..3000u32).all(|i| f.contains(&i)));
/// assert!((f.load_factor() - 3000.0 / 4096.0).abs() < 1e-12);
/// f.insert(&7u32)?; // a second copy
/// assert_eq!(f.count(&7u32), 2);
/// assert!(f.remove(&7u32));
/// assert!(f.contains(&7u32));
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CuckooFilter {
    /// `buckets · f/2` bytes of packed buckets, then [`PAD`] zero bytes.
    table: Vec<u8>,
    buckets: u64,
    f: u32,
    seed: u64,
    /// Fingerprints held, the victim included.
    len: u64,
    /// The victim stash: its fingerprint (0: empty) and the bucket it failed to enter.
    victim_fp: u32,
    victim_bucket: u64,
}

/// The false-positive rate of a cuckoo filter with f-bit fingerprints, b = 4 slots per bucket
/// and load factor α: `ε = 1 − (1 − 2^−f)^(2bα)`, the chance that one of the 2bα fingerprints
/// expected in a query's two buckets matches (Fan et al. 2014, §5.1, with α·b occupied slots
/// per bucket).
///
/// # Example
/// ```
/// let e = amq::cuckoo::fpr(8, 0.95);
/// assert!((e - 0.02931).abs() < 1e-5); // 1 − (255/256)^7.6
/// ```
pub fn fpr(fingerprint_bits: u32, load: f64) -> f64 {
    let p = libm::exp2(-f64::from(fingerprint_bits));
    1.0 - libm::exp(2.0 * f64::from(SLOTS_PER_BUCKET) * load * libm::log1p(-p))
}

/// [`fpr`] for this implementation's fingerprints, which are uniform over the 2^f − 1 non-zero
/// values: `1 − (1 − 1/(2^f − 1))^(2bα)`. It is above [`fpr`] by a factor of about
/// 1 + 2^−f (0.4% at f = 8).
///
/// # Example
/// ```
/// use amq::cuckoo::{fpr, fpr_exact};
/// assert!((fpr_exact(8, 0.95) / fpr(8, 0.95) - 1.0).abs() < 0.005);
/// assert!((fpr_exact(16, 0.95) - 7.6 / 65535.0).abs() < 1e-7);
/// ```
pub fn fpr_exact(fingerprint_bits: u32, load: f64) -> f64 {
    let p = 1.0 / (libm::exp2(f64::from(fingerprint_bits)) - 1.0);
    1.0 - libm::exp(2.0 * f64::from(SLOTS_PER_BUCKET) * load * libm::log1p(-p))
}

/// The fingerprint width for a target ε: `f = ⌈log2(2b/ε)⌉` (Fan et al. 2014, §5.1, eq. 6),
/// rounded up to the next supported width, 8, 12 or 16 bits.
///
/// # Errors
/// [`Error::InvalidParameter`] if ε is not in (0, 1), or is below 2b/2¹⁶ ≈ 1.22·10⁻⁴, which
/// needs fingerprints of more than 16 bits.
///
/// # Example
/// ```
/// use amq::cuckoo::fingerprint_bits_for;
/// assert_eq!(fingerprint_bits_for(0.05).unwrap(), 8); // ⌈log2(160)⌉ = 8
/// assert_eq!(fingerprint_bits_for(0.01).unwrap(), 12); // ⌈log2(800)⌉ = 10, rounded up
/// assert_eq!(fingerprint_bits_for(0.001).unwrap(), 16); // ⌈log2(8000)⌉ = 13
/// assert!(fingerprint_bits_for(1e-5).is_err()); // would need 20 bits
/// ```
pub fn fingerprint_bits_for(fpr: f64) -> Result<u32> {
    if !(fpr > 0.0 && fpr < 1.0) {
        return Err(Error::invalid(
            "fpr",
            alloc::format!("must be strictly between 0 and 1, got {fpr}"),
        ));
    }
    let need = libm::ceil(libm::log2(2.0 * f64::from(SLOTS_PER_BUCKET) / fpr)).max(1.0);
    FINGERPRINT_BITS
        .iter()
        .copied()
        .find(|&f| f64::from(f) >= need)
        .ok_or_else(|| {
            Error::invalid(
                "fpr",
                alloc::format!(
                    "{fpr} needs {need} fingerprint bits; a cuckoo filter supports at most 16 \
                     (ε ≥ 8/65536 ≈ 1.22e-4)"
                ),
            )
        })
}

/// The load factor the sizing functions plan n items at: [`PLANNED_LOAD`] (0.95) from 5,625
/// items up, and `max(0.97 − 1.5/√n, 0.5)` below.
///
/// The load a table reaches before its first refused insert spreads by about `1/√slots`
/// around its mean: at a million items it is 96.9–97.2% every time, but at a flat 0.95 a
/// table of 68 buckets (n = 256) refused an insert before its 256th item in 34 of 15,625
/// seeded fills, and one of 17 buckets (n = 64) in 352 of 20,000. With this margin, 20,000
/// seeded fills (12-bit fingerprints) of each n in 1..=64 and every 16th n from 80 to 2,560
/// (4.4 million fills) were refused before the n-th item 9 times, all at n ≤ 55, never more
/// than once for one n; crates/amq/tests/cuckoo.rs checks a sample.
///
/// # Example
/// ```
/// use amq::cuckoo::planned_load;
/// assert_eq!(planned_load(1_000_000), 0.95);
/// assert_eq!(planned_load(5_625), 0.95);
/// assert!((planned_load(256) - 0.87625).abs() < 1e-12);
/// assert_eq!(planned_load(1), 0.5);
/// ```
pub fn planned_load(n: u64) -> f64 {
    (0.97 - 1.5 / libm::sqrt(n.max(1) as f64)).clamp(0.5, PLANNED_LOAD)
}

/// The buckets for n items at the [`planned_load`]: `⌈n / (b · 0.95)⌉` from 5,625 items up
/// (a little more below), at least 1.
///
/// # Errors
/// [`Error::InvalidParameter`] if that is more than [`MAX_BUCKETS`].
///
/// # Example
/// ```
/// assert_eq!(amq::cuckoo::buckets_for(1_000_000).unwrap(), 263_158);
/// assert_eq!(amq::cuckoo::buckets_for(256).unwrap(), 74); // ⌈256 / (4 · 0.87625)⌉
/// ```
pub fn buckets_for(n: u64) -> Result<u64> {
    let b = libm::ceil(n as f64 / (f64::from(SLOTS_PER_BUCKET) * planned_load(n))).max(1.0);
    if b > MAX_BUCKETS as f64 {
        return Err(Error::invalid(
            "n",
            alloc::format!("{n} items need more than {MAX_BUCKETS} buckets"),
        ));
    }
    Ok(b as u64)
}

/// A cuckoo filter plan: its shape and what it is expected to do at n items.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CuckooPlan {
    /// n, the number of items planned for.
    pub items: u64,
    /// f, the fingerprint width in bits.
    pub fingerprint_bits: u32,
    /// The number of buckets (4 slots each).
    pub buckets: u64,
    /// m, the bits of the table: `buckets · 4 · f`.
    pub m_bits: u64,
    /// Bytes of table.
    pub bytes: u64,
    /// m/n.
    pub bits_per_key: f64,
    /// α = n / (4 · buckets).
    pub load_factor: f64,
    /// [`fpr`] at that load.
    pub fpr: f64,
    /// [`fpr_exact`] at that load.
    pub fpr_exact: f64,
}

/// Plans a cuckoo filter for `n` items.
///
/// * [`Target::Fpr`]: f from [`fingerprint_bits_for`], buckets from [`buckets_for`].
/// * [`Target::Bits`] or [`Target::Memory`] (bytes): the widest fingerprint (16, 12, then 8
///   bits) whose table of `⌊m / 4f⌋` buckets holds n items at a load of at most
///   [`planned_load`]`(n)`.
///
/// # Errors
/// [`Error::InvalidParameter`] for n = 0, an unsupported ε, or a budget too small for n items
/// even with 8-bit fingerprints.
///
/// # Example
/// ```
/// use amq::cuckoo::plan;
/// use amq::math::Target;
/// let p = plan(1_000_000, Target::Fpr(0.001)).unwrap();
/// assert_eq!(p.fingerprint_bits, 16);
/// assert!(p.load_factor <= 0.95 && p.fpr <= 0.001);
/// let q = plan(1_000_000, Target::Memory(2_000_000)).unwrap();
/// assert_eq!(q.fingerprint_bits, 12);
/// assert!(q.bytes <= 2_000_000);
/// ```
pub fn plan(n: u64, target: Target) -> Result<CuckooPlan> {
    if n == 0 {
        return Err(Error::invalid(
            "n",
            "the number of items must be at least 1",
        ));
    }
    let (f, buckets) = match target {
        Target::Fpr(e) => (fingerprint_bits_for(e)?, buckets_for(n)?),
        Target::Bits(_) | Target::Memory(_) => {
            let m = match target {
                Target::Memory(bytes) => bytes.saturating_mul(8),
                Target::Bits(m) => m,
                Target::Fpr(_) => unreachable!("handled above"),
            };
            let need = buckets_for(n)?;
            FINGERPRINT_BITS
                .iter()
                .rev()
                .map(|&f| (f, (m / u64::from(4 * f)).min(MAX_BUCKETS)))
                .find(|&(_, b)| b >= need)
                .ok_or_else(|| {
                    Error::invalid(
                        "m",
                        alloc::format!(
                            "{m} bits cannot hold {n} items at load {:.4} even with \
                             8-bit fingerprints (needs {} bits)",
                            planned_load(n),
                            need * 32
                        ),
                    )
                })?
        }
    };
    let m_bits = buckets * u64::from(4 * f);
    let load = n as f64 / (buckets as f64 * f64::from(SLOTS_PER_BUCKET));
    Ok(CuckooPlan {
        items: n,
        fingerprint_bits: f,
        buckets,
        m_bits,
        bytes: m_bits / 8,
        bits_per_key: m_bits as f64 / n as f64,
        load_factor: load,
        fpr: fpr(f, load),
        fpr_exact: fpr_exact(f, load),
    })
}

impl CuckooFilter {
    /// An empty filter of `buckets` buckets (any number from 1 to [`MAX_BUCKETS`]) of 4 slots
    /// of `fingerprint_bits` bits (8, 12 or 16), with the given seed.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a bucket count or width out of range, or if the memory
    /// cannot be allocated.
    ///
    /// # Example
    /// ```
    /// let f = amq::CuckooFilter::new(1000, 12, 0)?; // 1000 buckets: 4000 slots, 6000 bytes
    /// assert_eq!((f.slots(), f.size_bytes(), f.m()), (4000, 6000, 48_000));
    /// assert!(amq::CuckooFilter::new(1000, 10, 0).is_err());
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn new(buckets: u64, fingerprint_bits: u32, seed: u64) -> Result<Self> {
        if !FINGERPRINT_BITS.contains(&fingerprint_bits) {
            return Err(Error::invalid(
                "fingerprint_bits",
                alloc::format!("must be 8, 12 or 16, got {fingerprint_bits}"),
            ));
        }
        if buckets == 0 || buckets > MAX_BUCKETS {
            return Err(Error::invalid(
                "buckets",
                alloc::format!("must be between 1 and {MAX_BUCKETS}, got {buckets}"),
            ));
        }
        let bytes = buckets * u64::from(fingerprint_bits / 2) + PAD as u64;
        Ok(CuckooFilter {
            table: crate::bits::try_zeroed(bytes, "buckets")?,
            buckets,
            f: fingerprint_bits,
            seed,
            len: 0,
            victim_fp: 0,
            victim_bucket: 0,
        })
    }

    /// A filter for `n` items whose false-positive rate at n items is at most `fpr`
    /// ([`plan`] with [`Target::Fpr`]).
    ///
    /// # Errors
    /// As [`plan`].
    ///
    /// # Example
    /// ```
    /// let f = amq::CuckooFilter::with_fpr(1_000_000, 0.01, 0)?;
    /// assert_eq!(f.fingerprint_bits(), 12); // ⌈log2(8/0.01)⌉ = 10, rounded up to 12
    /// assert_eq!(f.buckets(), 263_158); // ⌈10⁶ / (4 · 0.95)⌉
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn with_fpr(n: u64, fpr: f64, seed: u64) -> Result<Self> {
        let p = plan(n.max(1), Target::Fpr(fpr))?;
        Self::new(p.buckets, p.fingerprint_bits, seed)
    }

    /// A filter for `n` items with `fingerprint_bits`-bit fingerprints ([`buckets_for`]).
    ///
    /// # Errors
    /// As [`new`](Self::new) and [`buckets_for`].
    pub fn with_capacity(n: u64, fingerprint_bits: u32, seed: u64) -> Result<Self> {
        Self::new(buckets_for(n)?, fingerprint_bits, seed)
    }

    /// The number of buckets.
    #[inline]
    pub fn buckets(&self) -> u64 {
        self.buckets
    }
    /// f, the fingerprint width in bits.
    #[inline]
    pub fn fingerprint_bits(&self) -> u32 {
        self.f
    }
    /// The slots: `4 · buckets`.
    #[inline]
    pub fn slots(&self) -> u64 {
        self.buckets * u64::from(SLOTS_PER_BUCKET)
    }
    /// The seed of the XXH3-128 item hash.
    #[inline]
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// Fingerprints held (inserts minus removals), the victim stash included.
    #[inline]
    pub fn inserted(&self) -> u64 {
        self.len
    }
    /// `true` if no fingerprint is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// α, the load factor: fingerprints held over slots.
    pub fn load_factor(&self) -> f64 {
        self.len as f64 / self.slots() as f64
    }
    /// `true` while the victim stash holds a fingerprint: the table is full, and an insert
    /// whose two buckets are full returns [`Error::Full`].
    #[inline]
    pub fn stash_used(&self) -> bool {
        self.victim_fp != 0
    }
    /// m, the bits of the table: `buckets · 4 · f`.
    pub fn m(&self) -> u64 {
        self.buckets * u64::from(SLOTS_PER_BUCKET * self.f)
    }
    /// Table size in bytes: `buckets · f/2`.
    pub fn size_bytes(&self) -> u64 {
        self.buckets * u64::from(self.f / 2)
    }
    /// The false-positive rate at the current load factor, [`fpr_exact`].
    pub fn estimated_fpr(&self) -> f64 {
        fpr_exact(self.f, self.load_factor())
    }

    /// The 128-bit hash of `item` under this filter's seed, for the `*_hash` methods. Any
    /// filter with the same seed accepts it (Bloom filters too).
    #[inline]
    pub fn hash<T: Item + ?Sized>(&self, item: &T) -> u128 {
        hash128(item, self.seed)
    }

    /// The first bucket and the fingerprint of a hash.
    #[inline(always)]
    fn locate(&self, h: u128) -> (u64, u32) {
        (cuckoo_index(h, self.buckets), cuckoo_fingerprint(h, self.f))
    }

    #[inline(always)]
    fn alt(&self, i: u64, fp: u32) -> u64 {
        cuckoo_alt_index(i, fp, self.buckets)
    }

    #[inline(always)]
    fn victim_is(&self, fp: u32, i1: u64, i2: u64) -> bool {
        (self.victim_fp == fp) & ((self.victim_bucket == i1) | (self.victim_bucket == i2))
    }

    /// "Maybe present" (`true`) or "definitely absent" (`false`) for a precomputed hash.
    ///
    /// # Example
    /// ```
    /// use amq::{BloomFilter, CuckooFilter, Insert};
    /// let (mut c, mut b) = (CuckooFilter::new(64, 16, 5)?, BloomFilter::new(1024, 4, 5)?);
    /// let h = amq::hash::hash128("apple", 5); // hash once, probe both
    /// c.insert_hash(h)?;
    /// b.insert_hash(h);
    /// assert!(c.contains_hash(h) && b.contains_hash(h));
    /// assert!(c.remove_hash(h));
    /// assert!(!c.contains_hash(h));
    /// # Ok::<(), amq::Error>(())
    /// ```
    #[inline]
    pub fn contains_hash(&self, h: u128) -> bool {
        let p = self.probe(h);
        with_f!(self.f, F => self.holds::<F>(p))
    }

    /// Either bucket of `p`, or the victim stash, holds its fingerprint.
    #[inline(always)]
    fn holds<const F: u32>(&self, p: Probe) -> bool {
        Lanes::<F>::has(&self.table, p.i1, p.i2, p.fp) | self.victim_is(p.fp, p.i1, p.i2)
    }

    /// The two buckets and the fingerprint of a hash.
    #[inline(always)]
    fn probe(&self, h: u128) -> Probe {
        let (i1, fp) = self.locate(h);
        Probe {
            i1,
            i2: self.alt(i1, fp),
            fp,
        }
    }

    /// Answers `n` queries, `probe_of(j)` giving query j, into `out`: prefetches the two
    /// buckets of query i + 16 while it tests query i, so the cache misses of a large table
    /// overlap instead of following one another.
    #[inline(always)]
    fn batch<const F: u32>(&self, n: usize, probe_of: impl Fn(usize) -> Probe, out: &mut [bool]) {
        let fetch = |j: usize| {
            let p = probe_of(j);
            crate::bits::prefetch(&self.table[p.i1 as usize * Lanes::<F>::BYTES]);
            crate::bits::prefetch(&self.table[p.i2 as usize * Lanes::<F>::BYTES]);
            p
        };
        let mut ring = [Probe::default(); AHEAD];
        for (j, slot) in ring.iter_mut().enumerate().take(n) {
            *slot = fetch(j);
        }
        for (i, o) in out.iter_mut().enumerate().take(n) {
            let p = ring[i % AHEAD];
            if i + AHEAD < n {
                ring[i % AHEAD] = fetch(i + AHEAD);
            }
            *o = self.holds::<F>(p);
        }
    }

    /// Batched [`contains_hash`](Self::contains_hash): `out[i]` answers `hashes[i]`, with the
    /// buckets of later hashes prefetched while earlier ones are tested.
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn contains_hash_batch(&self, hashes: &[u128], out: &mut [bool]) {
        crate::filter::check_batch(hashes.len(), out.len());
        with_f!(self.f, F => self.batch::<F>(hashes.len(), |j| self.probe(hashes[j]), out));
    }

    /// Adds one copy of a precomputed hash's fingerprint.
    ///
    /// Returns `Ok(true)` if no copy of the fingerprint was in the item's buckets before,
    /// `Ok(false)` if one was (the item may already have been there; a copy is added anyway).
    ///
    /// # Errors
    /// [`Error::Full`] if the victim stash is taken and both buckets are full; nothing
    /// changes.
    pub fn insert_hash(&mut self, h: u128) -> Result<bool> {
        let p = self.probe(h);
        let new = !with_f!(self.f, F => self.holds::<F>(p));
        self.insert_probe(p)?;
        Ok(new)
    }

    /// Places `fp`, found in (or meant for) bucket `i`, in `i` or its alternate:
    /// [`insert_probe`](Self::insert_probe).
    fn insert_fingerprint(&mut self, i: u64, fp: u32) -> Result<()> {
        self.insert_probe(Probe {
            i1: i,
            i2: self.alt(i, fp),
            fp,
        })
    }

    /// Places the fingerprint of `p` in one of its buckets, kicking if needed; the victim of a
    /// failed walk goes to the stash. With the stash empty this never fails.
    fn insert_probe(&mut self, p: Probe) -> Result<()> {
        if self.try_place_either(p.i1, p.i2, p.fp) {
            self.len += 1;
            return Ok(());
        }
        if self.stash_used() {
            return Err(Error::Full {
                items: self.len,
                capacity: self.slots() + 1,
            });
        }
        self.kick(p.i1, p.i2, p.fp);
        Ok(())
    }

    /// Puts `fp` in an empty slot of bucket `i`, else of bucket `i2`.
    fn try_place_either(&mut self, i: u64, i2: u64, fp: u32) -> bool {
        with_f!(self.f, F => {
            Lanes::<F>::try_place(&mut self.table, i, fp)
                || Lanes::<F>::try_place(&mut self.table, i2, fp)
        })
    }

    /// The random walk for `fp`, whose buckets `i` and `i2` are both full.
    ///
    /// Each step first looks one move ahead: if a fingerprint of the full bucket has an empty
    /// slot in its other bucket, it moves there and the homeless fingerprint takes its slot.
    /// Otherwise a random fingerprint of the bucket is evicted and replaced, and the walk goes
    /// on from the evicted one's other bucket. After [`MAX_KICKS`] evictions, the fingerprint
    /// still homeless goes to the victim stash, which must be empty.
    fn kick(&mut self, i: u64, i2: u64, fp: u32) {
        let (f, buckets) = (self.f, self.buckets);
        let mut rng = i ^ (u64::from(fp) << 40) ^ self.seed;
        let first = splitmix(&mut rng);
        let table = &mut self.table;
        let homeless = with_f!(f, F => {
            // Moves one fingerprint of full bucket `b` to its other bucket, if that has room,
            // and puts `fp` in its slot.
            let look_ahead = |table: &mut [u8], b: u64, fp: u32| -> bool {
                for slot in 0..SLOTS_PER_BUCKET {
                    let occupant = Lanes::<F>::get(table, b, slot);
                    let other = cuckoo_alt_index(b, occupant, buckets);
                    if other != b && Lanes::<F>::try_place(table, other, occupant) {
                        Lanes::<F>::swap(table, b, slot, fp);
                        return true;
                    }
                }
                false
            };
            if look_ahead(table, i, fp) || look_ahead(table, i2, fp) {
                None
            } else {
                let mut bucket = if first & 1 == 0 { i } else { i2 };
                let mut cur = fp;
                let mut kicks = 1; // the walk's first eviction
                loop {
                    let slot = (splitmix(&mut rng) >> 62) as u32;
                    cur = Lanes::<F>::swap(table, bucket, slot, cur);
                    bucket = cuckoo_alt_index(bucket, cur, buckets);
                    if Lanes::<F>::try_place(table, bucket, cur) {
                        break None;
                    }
                    if kicks == MAX_KICKS {
                        break Some((cur, bucket));
                    }
                    kicks += 1;
                    if look_ahead(table, bucket, cur) {
                        break None;
                    }
                }
            }
        });
        if let Some((cur, bucket)) = homeless {
            self.victim_fp = cur;
            self.victim_bucket = bucket;
        }
        self.len += 1;
    }

    /// Removes one copy of a precomputed hash's fingerprint; `true` if one was found.
    ///
    /// Only remove what was inserted: removing an item never inserted whose fingerprint and
    /// buckets match another item's removes that item.
    pub fn remove_hash(&mut self, h: u128) -> bool {
        let Probe { i1, i2, fp } = self.probe(h);
        let removed = with_f!(self.f, F => {
            Lanes::<F>::remove(&mut self.table, i1, fp)
                || Lanes::<F>::remove(&mut self.table, i2, fp)
        });
        if removed {
            self.len -= 1;
            if self.stash_used() {
                // A slot is free now: give the victim a place in the table.
                let (vfp, vb) = (self.victim_fp, self.victim_bucket);
                self.victim_fp = 0;
                self.victim_bucket = 0;
                self.len -= 1;
                // the stash is empty again, so this cannot fail
                let placed = self.insert_fingerprint(vb, vfp);
                debug_assert!(placed.is_ok());
            }
            return true;
        }
        if self.victim_is(fp, i1, i2) {
            self.victim_fp = 0;
            self.victim_bucket = 0;
            self.len -= 1;
            return true;
        }
        false
    }

    /// The copies of a precomputed hash's fingerprint in its two buckets and the stash.
    pub fn count_hash(&self, h: u128) -> u32 {
        let Probe { i1, i2, fp } = self.probe(h);
        let in_table = with_f!(self.f, F => {
            Lanes::<F>::count(&self.table, i1, fp)
                + if i2 != i1 { Lanes::<F>::count(&self.table, i2, fp) } else { 0 }
        });
        in_table + u32::from(self.victim_is(fp, i1, i2))
    }

    /// The copies of `item`'s fingerprint held: how many times it was inserted and not
    /// removed, plus any other item with the same fingerprint and buckets.
    pub fn count<T: Item + ?Sized>(&self, item: &T) -> u32 {
        self.count_hash(self.hash(item))
    }

    /// Removes every fingerprint.
    pub fn clear(&mut self) {
        self.table.fill(0);
        self.len = 0;
        self.victim_fp = 0;
        self.victim_bucket = 0;
    }

    /// Every stored fingerprint with the bucket it sits in: `(bucket, fingerprint)`, the
    /// victim last.
    fn entries(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        let table = &self.table;
        let f = self.f;
        let victim = (self.victim_fp != 0).then_some((self.victim_bucket, self.victim_fp));
        (0..self.buckets)
            .flat_map(move |i| {
                (0..SLOTS_PER_BUCKET)
                    .map(move |s| (i, with_f!(f, F => Lanes::<F>::get(table, i, s))))
            })
            .filter(|&(_, fp)| fp != 0)
            .chain(victim)
    }

    fn check_shape(&self, other: &Self) -> Result<()> {
        Error::check_same_shape(&[
            ("buckets", self.buckets, other.buckets),
            ("fingerprint_bits", u64::from(self.f), u64::from(other.f)),
            ("seed", self.seed, other.seed),
        ])
    }

    /// Union as multisets: every fingerprint of `other` is inserted into `self` (from the
    /// bucket it sits in, which with its fingerprint gives both of the item's buckets), so
    /// `self` then answers "maybe" for every item of either filter.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless the bucket count, fingerprint width and seed are
    /// identical; [`Error::Full`] if the fingerprints do not all fit. `self` is unchanged on
    /// any error.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        self.check_shape(other)?;
        let mut merged = self.clone();
        for (i, fp) in other.entries() {
            merged.insert_fingerprint(i, fp)?;
        }
        *self = merged;
        Ok(())
    }

    /// Encodes the filter as an `.amq` file.
    ///
    /// Kind 3; seven parameter words: f, b (= 4), buckets, seed, fingerprints held (the
    /// victim included), the victim's fingerprint (0: stash empty) and its bucket (0 when
    /// empty). Payload: `buckets · f/2` bytes, bucket i at byte `i · f/2` as a little-endian
    /// integer of 4f bits whose slot j is bits `[j·f, (j+1)·f)`; 0 is an empty slot.
    ///
    /// # Example
    /// ```
    /// use amq::{CuckooFilter, Filter, Insert};
    /// let mut f = CuckooFilter::new(10, 8, 1)?;
    /// f.insert("apple")?;
    /// let bytes = f.to_bytes();
    /// assert_eq!(bytes.len(), 128 + 40 + 8); // header and 7 parameters, 10 buckets of 4 bytes, checksum
    /// let g = CuckooFilter::from_bytes(&bytes)?;
    /// assert!(g.contains("apple"));
    /// assert_eq!(g, f);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        wire::encode(
            Kind::Cuckoo,
            &[
                u64::from(self.f),
                u64::from(SLOTS_PER_BUCKET),
                self.buckets,
                self.seed,
                self.len,
                u64::from(self.victim_fp),
                self.victim_bucket,
            ],
            &self.table[..self.table.len() - PAD],
        )
    }

    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`] for another kind, and
    /// [`Error::Corrupt`] when the parameters are out of range or disagree with the payload
    /// (its length, or the number of fingerprints it holds).
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        Self::from_container(&c)
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let p = c.expect(Kind::Cuckoo, 7)?;
        let (f, b, buckets, seed, len, vfp, vb) = (p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
        let bad = |what: alloc::string::String| Err(Error::corrupt(24, what));
        if !FINGERPRINT_BITS.iter().any(|&w| u64::from(w) == f) {
            return bad(alloc::format!("fingerprint width {f} is not 8, 12 or 16"));
        }
        if b != u64::from(SLOTS_PER_BUCKET) {
            return bad(alloc::format!("{b} slots per bucket, only 4 is supported"));
        }
        if buckets == 0 || buckets > MAX_BUCKETS {
            return bad(alloc::format!("{buckets} buckets is out of range"));
        }
        let f = f as u32;
        if buckets.checked_mul(u64::from(f / 2)) != Some(c.payload.len() as u64) {
            return bad(alloc::format!(
                "{buckets} buckets of {f}-bit slots need {} payload bytes, found {}",
                u128::from(buckets) * u128::from(f / 2),
                c.payload.len()
            ));
        }
        if vfp >> f != 0 {
            return bad(alloc::format!(
                "victim fingerprint {vfp} is wider than {f} bits"
            ));
        }
        if (vfp == 0 && vb != 0) || vb >= buckets {
            return bad(alloc::format!(
                "victim bucket {vb} with fingerprint {vfp} in {buckets} buckets"
            ));
        }
        let mut table = Vec::new();
        table
            .try_reserve_exact(c.payload.len() + PAD)
            .map_err(|_| Error::corrupt(64, "cannot allocate the table"))?;
        table.extend_from_slice(c.payload);
        table.resize(c.payload.len() + PAD, 0);
        let held: u64 = with_f!(f, F => (0..buckets)
            .map(|i| u64::from(Lanes::<F>::occupied(&table, i)))
            .sum::<u64>())
            + u64::from(vfp != 0);
        if held != len {
            return bad(alloc::format!(
                "the header says {len} fingerprints, the table holds {held}"
            ));
        }
        Ok(CuckooFilter {
            table,
            buckets,
            f,
            seed,
            len,
            victim_fp: vfp as u32,
            victim_bucket: vb,
        })
    }
}

impl<T: Item + ?Sized> Filter<T> for CuckooFilter {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.contains_hash(self.hash(item))
    }

    /// Hashes item i + 16 and prefetches its two buckets while it tests item i.
    fn contains_batch(&self, items: &[&T], out: &mut [bool]) {
        crate::filter::check_batch(items.len(), out.len());
        with_f!(self.f, F => self.batch::<F>(items.len(), |j| self.probe(self.hash(items[j])), out));
    }
}

impl<T: Item + ?Sized> Insert<T> for CuckooFilter {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        self.insert_hash(self.hash(item))
    }
}

impl<T: Item + ?Sized> Remove<T> for CuckooFilter {
    #[inline]
    fn remove(&mut self, item: &T) -> bool {
        self.remove_hash(self.hash(item))
    }
}

impl Merge for CuckooFilter {
    fn merge(&mut self, other: &Self) -> Result<()> {
        self.union(other)
    }
}

#[cfg(test)]
mod tests;
