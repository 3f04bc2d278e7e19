//! Bucket lanes: the packed f-bit slots of a bucket read and written with SWAR on one word,
//! the fingerprint widths as constants.

use super::SLOTS_PER_BUCKET;

/// Where a query looks: its two buckets and its fingerprint.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Probe {
    pub(super) i1: u64,
    pub(super) i2: u64,
    pub(super) fp: u32,
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
pub(super) struct Lanes<const F: u32>;

impl<const F: u32> Lanes<F> {
    /// Bytes per bucket.
    pub(super) const BYTES: usize = (F / 2) as usize;
    /// The 4f bits of a bucket.
    pub(super) const WORD: u64 = if F == 16 {
        u64::MAX
    } else {
        (1u64 << (4 * F)) - 1
    };
    /// One slot.
    pub(super) const LANE: u64 = (1u64 << F) - 1;
    /// The lowest bit of every slot.
    pub(super) const LO: u64 = 1 | 1 << F | 1 << (2 * F) | 1 << (3 * F);
    /// The highest bit of every slot.
    pub(super) const HI: u64 = Self::LO << (F - 1);

    /// Bucket `i` as one word.
    #[inline(always)]
    pub(super) fn load(table: &[u8], i: u64) -> u64 {
        let o = i as usize * Self::BYTES;
        let bytes: [u8; 8] = table[o..o + 8].try_into().expect("8 bytes");
        u64::from_le_bytes(bytes) & Self::WORD
    }

    /// Writes bucket `i`.
    #[inline(always)]
    pub(super) fn store(table: &mut [u8], i: u64, word: u64) {
        let o = i as usize * Self::BYTES;
        table[o..o + Self::BYTES].copy_from_slice(&word.to_le_bytes()[..Self::BYTES]);
    }

    /// A word with the high bit of the lowest zero slot of `x` set (and possibly higher
    /// slots' high bits): non-zero exactly when some slot of `x` is zero.
    #[inline(always)]
    pub(super) fn zero_slots(x: u64) -> u64 {
        x.wrapping_sub(Self::LO) & !x & Self::HI
    }

    /// `fp` in every slot.
    #[inline(always)]
    pub(super) fn broadcast(fp: u32) -> u64 {
        u64::from(fp) * Self::LO
    }

    /// Either bucket holds `fp` (SWAR: XOR with the broadcast fingerprint, then look for a
    /// zero slot, in both words at once).
    #[inline(always)]
    pub(super) fn has(table: &[u8], i1: u64, i2: u64, fp: u32) -> bool {
        let x = Self::broadcast(fp);
        let w1 = Self::load(table, i1);
        let w2 = Self::load(table, i2);
        (Self::zero_slots(w1 ^ x) | Self::zero_slots(w2 ^ x)) != 0
    }

    /// Puts `fp` in the first empty slot of bucket `i`; `false` if the bucket is full.
    #[inline(always)]
    pub(super) fn try_place(table: &mut [u8], i: u64, fp: u32) -> bool {
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
    pub(super) fn swap(table: &mut [u8], i: u64, slot: u32, fp: u32) -> u32 {
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
    pub(super) fn remove(table: &mut [u8], i: u64, fp: u32) -> bool {
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
    pub(super) fn count(table: &[u8], i: u64, fp: u32) -> u32 {
        let w = Self::load(table, i);
        (0..SLOTS_PER_BUCKET)
            .filter(|j| (w >> (j * F)) & Self::LANE == u64::from(fp))
            .count() as u32
    }

    /// Occupied slots of bucket `i`.
    #[inline(always)]
    pub(super) fn occupied(table: &[u8], i: u64) -> u32 {
        let w = Self::load(table, i);
        (0..SLOTS_PER_BUCKET)
            .filter(|j| (w >> (j * F)) & Self::LANE != 0)
            .count() as u32
    }

    /// The fingerprint in slot `slot` of bucket `i` (0: empty).
    #[inline(always)]
    pub(super) fn get(table: &[u8], i: u64, slot: u32) -> u32 {
        ((Self::load(table, i) >> (slot * F)) & Self::LANE) as u32
    }
}
