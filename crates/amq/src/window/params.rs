//! The shape of a sliding-window Bloom filter and its false-positive rates.

use crate::error::{Error, Result};

/// The shape of a [`SlidingWindowBloom`](super::SlidingWindowBloom): window W bits, chunk (slide
/// step) S bits, batch B insertions per slide, k indices per item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WindowParams {
    /// W, the bits of the active window (a multiple of S).
    pub window_bits: u64,
    /// S, the bits of one chunk: the window slides by S bits (a multiple of 64).
    pub chunk_bits: u64,
    /// B, the insertions per slide: the item at position L has window offset ⌊L/B⌋·S.
    pub batch: u64,
    /// k, the indices per item.
    pub k: u32,
}

/// The largest window a [`SlidingWindowBloom`](super::SlidingWindowBloom) accepts: 2³⁶ bits
/// (8 GiB).
pub const MAX_WINDOW_BITS: u64 = 1 << 36;
/// The largest chunk: 2³² bits (offsets inside a chunk are 32-bit).
pub const MAX_CHUNK_BITS: u64 = 1 << 32;
/// The largest k of a [`SlidingWindowBloom`](super::SlidingWindowBloom).
pub const MAX_WINDOW_K: u32 = 64;

impl WindowParams {
    /// Neptune's mutator-set parameters: W = 2²⁰, S = 2¹², B = 8, k = 45 (the window holds 256
    /// chunks; the steady-state false-positive rate is `(1 − e^(−kB/S))^k` ≈ 4·10⁻⁴⁹).
    pub const NEPTUNE: WindowParams = WindowParams {
        window_bits: 1 << 20,
        chunk_bits: 1 << 12,
        batch: 8,
        k: 45,
    };

    /// W/S, the chunks in the window.
    pub fn chunks(&self) -> u64 {
        self.window_bits / self.chunk_bits
    }

    /// Checks the shape.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless S is a non-zero multiple of 64 up to
    /// [`MAX_CHUNK_BITS`], W a non-zero multiple of S up to [`MAX_WINDOW_BITS`], B ≥ 1 and k in
    /// `1..=64`.
    pub fn check(&self) -> Result<()> {
        let s = self.chunk_bits;
        if s == 0 || !s.is_multiple_of(64) || s > MAX_CHUNK_BITS {
            return Err(Error::invalid(
                "S",
                alloc::format!(
                    "the chunk must be a non-zero multiple of 64 bits up to 2^32, got {s}"
                ),
            ));
        }
        let w = self.window_bits;
        if w == 0 || !w.is_multiple_of(s) || w > MAX_WINDOW_BITS {
            return Err(Error::invalid(
                "W",
                alloc::format!(
                    "the window must be a non-zero multiple of S = {s} up to 2^36 bits, got {w}"
                ),
            ));
        }
        if self.batch == 0 {
            return Err(Error::invalid("B", "the batch must be at least 1"));
        }
        if self.k == 0 || self.k > MAX_WINDOW_K {
            return Err(Error::invalid(
                "k",
                alloc::format!("must be between 1 and {MAX_WINDOW_K}, got {}", self.k),
            ));
        }
        Ok(())
    }

    /// The expected false-positive rate of a query at `position` for an item not inserted
    /// there, after the positions `0..n` each received one item.
    ///
    /// Chunk c (absolute) is covered by the windows of batches c − W/S + 1 ..= c, so it holds
    /// the bits of `n_c` = the items at positions in `[(c − W/S + 1)·B, (c + 1)·B) ∩ [0, n)`,
    /// and a bit of it is zero with probability `(1 − 1/W)^(k·n_c)`. The query's k indices
    /// are uniform over the W bits of its window, so
    /// `ε = ( (S/W)·Σ_c (1 − (1 − 1/W)^(k·n_c)) )^k` over the W/S chunks of that window.
    /// Once every chunk of the window is complete, this is `(1 − (1 − 1/W)^(k·B·W/S))^k ≈
    /// (1 − e^(−kB/S))^k` ([`steady_state_fpr`](Self::steady_state_fpr)).
    ///
    /// # Example
    /// ```
    /// use amq::window::WindowParams;
    /// let p = WindowParams { window_bits: 4096, chunk_bits: 256, batch: 16, k: 4 };
    /// let early = p.fpr(16, 15);
    /// let late = p.fpr(100_000, 50_000);
    /// assert!(early < late);
    /// assert!((late - p.steady_state_fpr()).abs() < 1e-12);
    /// ```
    pub fn fpr(&self, n: u64, position: u64) -> f64 {
        let chunks = self.chunks();
        let t = position / self.batch;
        let w = self.window_bits as f64;
        let mut density = 0.0;
        for j in 0..chunks {
            let c = t.saturating_add(j);
            let lo = c
                .saturating_add(1)
                .saturating_sub(chunks)
                .saturating_mul(self.batch);
            let hi = c.saturating_add(1).saturating_mul(self.batch).min(n);
            let items = hi.saturating_sub(lo) as f64;
            density += 1.0 - libm::exp(f64::from(self.k) * items * libm::log1p(-1.0 / w));
        }
        libm::pow(density / chunks as f64, f64::from(self.k))
    }

    /// The false-positive rate of a query whose window is complete:
    /// `(1 − (1 − 1/W)^(k·B·W/S))^k`.
    pub fn steady_state_fpr(&self) -> f64 {
        let items = self.batch.saturating_mul(self.chunks()) as f64;
        let w = self.window_bits as f64;
        libm::pow(
            1.0 - libm::exp(f64::from(self.k) * items * libm::log1p(-1.0 / w)),
            f64::from(self.k),
        )
    }
}
