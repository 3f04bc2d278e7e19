//! The parameters of a Golomb-coded set: N, P, M and F = N·M.

use super::{LIMIT, MAX_P};
use crate::error::{Error, Result};

/// The parameters of one Golomb-coded set: N items, P remainder bits, inverse false-positive
/// rate M, and F = N·M.
///
/// # Example
/// ```
/// let p = amq::gcs::Params::new(10, 19, 784_931)?;
/// assert_eq!(p.f(), 7_849_310);
/// assert!(amq::gcs::Params::new(1 << 32, 19, 784_931).is_err());
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Params {
    pub(super) n: u64,
    pub(super) p: u8,
    pub(super) m: u64,
}

impl Params {
    /// Checked parameters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if n ≥ 2³² (`n`), m = 0 or m ≥ 2³² (`m`), or p > [`MAX_P`]
    /// (`p`).
    pub fn new(n: u64, p: u8, m: u64) -> Result<Self> {
        if n >= LIMIT {
            return Err(Error::invalid(
                "n",
                alloc::format!("the number of items must be smaller than 2^32, got {n}"),
            ));
        }
        if m >= LIMIT {
            return Err(Error::invalid(
                "m",
                alloc::format!("must be smaller than 2^32, got {m}"),
            ));
        }
        if m == 0 {
            return Err(Error::invalid("m", "must be at least 1"));
        }
        if p > MAX_P {
            return Err(Error::invalid(
                "p",
                alloc::format!("must be at most {MAX_P}, got {p}"),
            ));
        }
        Ok(Params { n, p, m })
    }

    /// N, the number of items (duplicates counted).
    #[inline]
    pub fn n(&self) -> u64 {
        self.n
    }
    /// P, the number of remainder bits of the Golomb-Rice code.
    #[inline]
    pub fn p(&self) -> u8 {
        self.p
    }
    /// M, the inverse of the false-positive rate.
    #[inline]
    pub fn m(&self) -> u64 {
        self.m
    }
    /// F = N·M, the range of the hashed values (< 2⁶⁴).
    #[inline]
    pub fn f(&self) -> u64 {
        self.n * self.m
    }
    /// The fewest bits N codes can take: N·(P + 1).
    #[inline]
    pub fn min_bits(&self) -> u64 {
        self.n * (u64::from(self.p) + 1)
    }
}
