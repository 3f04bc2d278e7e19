//! A Bloom filter's k bit indices from its 128-bit hash ([`Indexing`]): the classic, scalable,
//! aging and sliding-window Bloom filters share them.

use super::{reduce, GOLDEN_GAMMA};

/// How a Bloom filter's k bit indices come from its 128-bit hash: enhanced double hashing
/// in 64-bit space, each sum scaled to `[0, m)` with [`reduce`]. With `x₀ = low64(h)`,
/// `y₀ = high64(h)`, index i is `reduce(xᵢ, m)`, where `xᵢ = xᵢ₋₁ + yᵢ₋₁` and
/// `yᵢ = yᵢ₋₁ + i·c` (wrapping, mod 2⁶⁴). The two schemes differ in c.
///
/// A file names the scheme by its number (1 or 2), and so does [`Info`](crate::Info)'s
/// `index_scheme` (as JSON, feature `serde`, the number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(into = "u8", try_from = "u8"))]
pub enum Indexing {
    /// c = 1: what files without an index-scheme parameter use (amq before scheme 2). The
    /// cubic term `c·(i³ − i)/6` is then a few thousand, nothing beside a bit's 2⁶⁴/m, so
    /// the indices are `reduce(x₀ + i·y₀)`, a walk of step `y₀·m/2⁶⁴` bits; a step near 0
    /// or near `m·p/q` for a small q visits only q distinct bits. About one query in m·k
    /// has such a step, and it is a false positive with probability near the fill ratio to
    /// the power q: a floor under the false-positive rate, far above the plan when the plan
    /// is small (n = 1000 at ε = 10⁻⁶: 5·10⁻⁶ measured). Kept to read old files.
    Unit = 1,
    /// c = (x₀ ⊕ y₀)·[`GOLDEN_GAMMA`] (wrapping; ⌊2⁶⁴/φ⌋): the cubic term moves the
    /// walk by a large step of its own, different for every hash, so no y₀ makes the
    /// walk revisit bits more than chance does, and two items share a walk only if their
    /// whole 128-bit hashes nearly agree. With c a constant (or double hashing taken mod m,
    /// Dillinger and Manolios' form) the walks are a two-parameter family, and a non-member
    /// shares a member's whole walk with probability about n/m²: mod m measured 2.15·10⁻⁶
    /// at n = 1000, ε = 10⁻⁶ (one filter, 2·10⁷ queries), and c = ⌊2⁶⁴/φ⌋ measured 4% above
    /// the plan at n = 100, ε = 10⁻⁴ (400 filters, +3.9σ). With this c: 1.0064·10⁻⁴ there,
    /// where independent uniform indices give 0.9930·10⁻⁴ (both within 1σ). The default.
    Hashed = 2,
}

impl From<Indexing> for u8 {
    fn from(indexing: Indexing) -> u8 {
        indexing as u8
    }
}

impl TryFrom<u8> for Indexing {
    type Error = crate::Error;

    fn try_from(number: u8) -> crate::Result<Self> {
        Indexing::from_word(u64::from(number))
    }
}

impl Indexing {
    /// The indexing a file's parameter word names (1 or 2).
    ///
    /// # Errors
    /// [`Error::Corrupt`](crate::Error::Corrupt) for another value.
    pub fn from_word(word: u64) -> crate::Result<Self> {
        match word {
            1 => Ok(Indexing::Unit),
            2 => Ok(Indexing::Hashed),
            _ => Err(crate::Error::corrupt(
                8,
                alloc::format!("unknown index scheme {word} (1 and 2 are defined)"),
            )),
        }
    }

    /// c, the multiplier of the cubic term, for the hash `h`.
    #[inline(always)]
    fn c(self, h: u128) -> u64 {
        match self {
            Indexing::Unit => 1,
            Indexing::Hashed => ((h as u64) ^ ((h >> 64) as u64)).wrapping_mul(GOLDEN_GAMMA),
        }
    }
}

/// The k bit indices of a Bloom filter of `m` bits under [`Indexing::Hashed`], the default
/// ([`bloom_indices_with`] for the other).
///
/// # Example
/// ```
/// let h = amq::hash::hash128("apple", 0);
/// let idx: Vec<u64> = amq::hash::bloom_indices(h, 1000, 7).collect();
/// assert_eq!(idx.len(), 7);
/// assert!(idx.iter().all(|&i| i < 1000));
/// ```
#[inline]
pub fn bloom_indices(h: u128, m: u64, k: u32) -> BloomIndices {
    bloom_indices_with(h, m, k, Indexing::Hashed)
}

/// The k bit indices of a Bloom filter of `m` bits under `indexing`.
///
/// # Example
/// ```
/// use amq::hash::{bloom_indices_with, Indexing};
/// // a step y₀ of 2⁶³ visits two bits under the old scheme, k under the default
/// let h = (1u128 << 127) | 12345;
/// let old: Vec<u64> = bloom_indices_with(h, 1000, 6, Indexing::Unit).collect();
/// assert_eq!(old, [0, 500, 0, 500, 0, 500]);
/// let new: Vec<u64> = bloom_indices_with(h, 1000, 6, Indexing::Hashed).collect();
/// assert_eq!(new, [0, 500, 129, 18, 295, 91]);
/// ```
#[inline]
pub fn bloom_indices_with(h: u128, m: u64, k: u32, indexing: Indexing) -> BloomIndices {
    BloomIndices {
        x: h as u64,
        y: (h >> 64) as u64,
        z: 0,
        c: indexing.c(h),
        i: 0,
        k,
        m,
    }
}

/// Iterator over a Bloom filter's k indices; see [`bloom_indices_with`].
#[derive(Debug, Clone)]
pub struct BloomIndices {
    x: u64,
    y: u64,
    /// i·c, the step's increment
    z: u64,
    c: u64,
    i: u32,
    k: u32,
    m: u64,
}

impl Iterator for BloomIndices {
    type Item = u64;
    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        if self.i >= self.k {
            return None;
        }
        let out = reduce(self.x, self.m);
        self.i += 1;
        self.z = self.z.wrapping_add(self.c);
        self.x = self.x.wrapping_add(self.y);
        self.y = self.y.wrapping_add(self.z);
        Some(out)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (self.k - self.i) as usize;
        (left, Some(left))
    }
}

impl ExactSizeIterator for BloomIndices {}
