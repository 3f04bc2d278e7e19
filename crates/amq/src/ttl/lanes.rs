//! Bucket lanes of the cuckoo filters that forget: four slots of W = f + s bits per bucket,
//! each slot a fingerprint and an expiry stamp, read and tested with SWAR on one 128-bit word.
//!
//! Bucket i is the little-endian integer of ⌈W/2⌉ bytes at byte `i · ⌈W/2⌉` of the table;
//! slot j is its bits `[j·W, (j+1)·W)` (the bits from 4W up to the byte boundary are zero).
//! Inside a slot the stamp is the low s bits and the fingerprint the high f bits, so an empty
//! slot (all zero) has fingerprint 0, which no item has. The TTL cuckoo filter uses s ≥ 1;
//! the sliding-window cuckoo filter uses s = 0 (a slot is a fingerprint).
//!
//! Liveness of a stamp is relative to the table's sweep epoch w: every stored entry expires at
//! an epoch x in `(w, w + 2ˢ]`, so `d = (stamp − w − 1) mod 2ˢ` is `x − w − 1`, and the entry
//! is live at epoch e (w ≤ e < w + 2ˢ) when `d ≥ e − w`. [`Shape::live`] tests the four
//! slots at once: `d + (2ˢ − (e − w))` carries out of the s stamp bits exactly when `d ≥ e − w`.

/// b, the slots per bucket.
pub(crate) const SLOTS: u32 = 4;
/// Zero bytes after a table, so every bucket can be read as one 16-byte load.
pub(crate) const PAD: usize = 16;
/// The widest slot, W = f + s, in bits.
pub(crate) const MAX_SLOT_BITS: u32 = 32;

/// The lane layout of one slot width, its masks computed once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    /// f, the fingerprint bits.
    pub(crate) f: u32,
    /// s, the stamp bits (0: no stamp).
    pub(crate) s: u32,
    /// W = f + s.
    pub(crate) w: u32,
    /// Bytes per bucket: ⌈4W/8⌉.
    pub(crate) bytes: usize,
    /// The 4W bits of a bucket.
    word: u128,
    /// One slot's W bits.
    lane: u128,
    /// Bit 0 of every slot.
    lo: u128,
    /// Bit W − 1 of every slot.
    hi: u128,
    /// The fingerprint bits of every slot.
    fp_mask: u128,
    /// The fingerprint bits of every slot but its top bit.
    fp_low: u128,
    /// The stamp bits of every slot.
    stamp_mask: u128,
    /// Bit s of every slot (where the liveness test carries to).
    carry: u128,
}

/// What [`Shape::live`] compares the stamps with: one epoch as seen from one sweep epoch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View {
    /// `(−(w + 1)) mod 2ˢ` in every slot: turns a stamp into `d = x − w − 1`.
    add: u128,
    /// `2ˢ − (e − w)` in every slot.
    cmp: u128,
}

impl Shape {
    /// The layout of f-bit fingerprints with s-bit stamps; the caller has checked
    /// `f ≥ 1` and `f + s ≤ 32`.
    pub(crate) fn new(f: u32, s: u32) -> Shape {
        debug_assert!(f >= 1 && f + s <= MAX_SLOT_BITS);
        let w = f + s;
        let lane = (1u128 << w) - 1;
        let lo = 1 | 1 << w | 1 << (2 * w) | 1 << (3 * w);
        let hi = lo << (w - 1);
        let fp_mask = lo * (((1u128 << f) - 1) << s);
        Shape {
            f,
            s,
            w,
            bytes: (4 * w).div_ceil(8) as usize,
            word: if w == 32 {
                u128::MAX
            } else {
                (1u128 << (4 * w)) - 1
            },
            lane,
            lo,
            hi,
            fp_mask,
            fp_low: fp_mask & !hi,
            stamp_mask: lo * ((1u128 << s) - 1),
            carry: lo << s,
        }
    }

    /// The largest stamp plus one: 2ˢ.
    #[inline(always)]
    pub(crate) fn stamps(&self) -> u64 {
        1u64 << self.s
    }

    /// Bucket `i` as one word.
    #[inline(always)]
    pub(crate) fn load(&self, table: &[u8], i: u64) -> u128 {
        let o = i as usize * self.bytes;
        let bytes: [u8; 16] = table[o..o + 16].try_into().expect("16 bytes");
        u128::from_le_bytes(bytes) & self.word
    }

    /// Writes bucket `i`.
    #[inline(always)]
    pub(crate) fn store(&self, table: &mut [u8], i: u64, word: u128) {
        let o = i as usize * self.bytes;
        table[o..o + self.bytes].copy_from_slice(&word.to_le_bytes()[..self.bytes]);
    }

    /// `true` if bucket `i` of a table has a bit set above its 4W bits (a corrupt file).
    pub(crate) fn has_stray_bits(&self, table: &[u8], i: u64) -> bool {
        let o = i as usize * self.bytes;
        let mut bytes = [0u8; 16];
        bytes[..self.bytes].copy_from_slice(&table[o..o + self.bytes]);
        u128::from_le_bytes(bytes) & !self.word != 0
    }

    /// The slot value of a fingerprint and a stamp.
    #[inline(always)]
    pub(crate) fn entry(&self, fp: u32, stamp: u64) -> u64 {
        u64::from(fp) << self.s | stamp
    }

    /// The fingerprint of a slot value.
    #[inline(always)]
    pub(crate) fn fp_of(&self, entry: u64) -> u32 {
        (entry >> self.s) as u32
    }

    /// The stamp of a slot value.
    #[inline(always)]
    pub(crate) fn stamp_of(&self, entry: u64) -> u64 {
        entry & (self.stamps() - 1)
    }

    /// `d = (stamp − w − 1) mod 2ˢ`: the expiry epoch of a stamp, less w + 1, seen from sweep
    /// epoch w.
    #[inline(always)]
    pub(crate) fn rel(&self, stamp: u64, swept: u64) -> u64 {
        stamp.wrapping_sub(swept.wrapping_add(1)) & (self.stamps() - 1)
    }

    /// The view of epoch `e` from sweep epoch `w`; the caller ensures `w ≤ e < w + 2ˢ`.
    #[inline(always)]
    pub(crate) fn view(&self, swept: u64, epoch: u64) -> View {
        let mask = self.stamps() - 1;
        let add = swept.wrapping_add(1).wrapping_neg() & mask;
        let cmp = self.stamps() - (epoch - swept);
        View {
            add: u128::from(add) * self.lo,
            cmp: u128::from(cmp) * self.lo,
        }
    }

    /// `v` in every slot.
    #[inline(always)]
    fn broadcast(&self, v: u64) -> u128 {
        u128::from(v) * self.lo
    }

    /// The high bit of every slot whose fingerprint is not zero (an occupied slot). Exact
    /// per slot: the sum stays inside the slot.
    #[inline(always)]
    pub(crate) fn occupied(&self, x: u128) -> u128 {
        let y = x & self.fp_mask;
        (((y & self.fp_low) + self.fp_low) | y) & self.hi
    }

    /// The high bit of every slot whose fingerprint is `fp`.
    #[inline(always)]
    fn matches(&self, x: u128, fp: u32) -> u128 {
        let y = (x ^ self.broadcast(u64::from(fp) << self.s)) & self.fp_mask;
        !(((y & self.fp_low) + self.fp_low) | y) & self.hi
    }

    /// The high bit of every slot whose stamp is live in `view` (every slot when s = 0).
    #[inline(always)]
    pub(crate) fn live(&self, x: u128, view: &View) -> u128 {
        if self.s == 0 {
            return self.hi;
        }
        let d = ((x & self.stamp_mask) + view.add) & self.stamp_mask;
        ((d + view.cmp) & self.carry) << (self.w - 1 - self.s)
    }

    /// The high bit of every slot holding a live copy of `fp`.
    #[inline(always)]
    pub(crate) fn hits(&self, x: u128, fp: u32, view: &View) -> u128 {
        self.matches(x, fp) & self.live(x, view)
    }

    /// The high bit of every slot an insert may take: empty, or holding an expired entry.
    #[inline(always)]
    pub(crate) fn free(&self, x: u128, view: &View) -> u128 {
        !(self.occupied(x) & self.live(x, view)) & self.hi
    }

    /// The high bit of every slot holding an expired entry.
    #[inline(always)]
    pub(crate) fn dead(&self, x: u128, view: &View) -> u128 {
        self.occupied(x) & !self.live(x, view) & self.hi
    }

    /// The high bit of every slot whose value is not zero but whose fingerprint is (a corrupt
    /// file: an empty slot is all zero).
    pub(crate) fn malformed(&self, x: u128) -> u128 {
        let low = self.hi - self.lo; // bits 0 .. W − 1 of every slot
        let nonzero = (((x & low) + low) | x) & self.hi;
        nonzero & !self.occupied(x)
    }

    /// The slot of the lowest high bit of `mask`.
    #[inline(always)]
    pub(crate) fn first(&self, mask: u128) -> u32 {
        mask.trailing_zeros() / self.w
    }

    /// The value of slot `j` of a bucket word.
    #[inline(always)]
    pub(crate) fn get(&self, x: u128, j: u32) -> u64 {
        ((x >> (j * self.w)) & self.lane) as u64
    }

    /// The bucket word with slot `j` set to `entry`.
    #[inline(always)]
    pub(crate) fn with(&self, x: u128, j: u32, entry: u64) -> u128 {
        let shift = j * self.w;
        (x & !(self.lane << shift)) | u128::from(entry) << shift
    }

    /// The bucket word with the slots of the high bits of `mask` cleared.
    #[inline(always)]
    pub(crate) fn clear(&self, x: u128, mask: u128) -> u128 {
        x & !((mask >> (self.w - 1)) * self.lane)
    }

    /// The number of high bits set in a mask: slots.
    #[inline(always)]
    pub(crate) fn count(mask: u128) -> u64 {
        u64::from(mask.count_ones())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every slot test agrees with a slot-by-slot reading of the same word.
    #[test]
    fn swar_tests_agree_with_the_slots_one_by_one() {
        let mut state = 7u64;
        for (f, s) in [
            (4, 1),
            (7, 1),
            (8, 4),
            (12, 4),
            (13, 3),
            (20, 12),
            (28, 4),
            (32, 0),
        ] {
            let shape = Shape::new(f, s);
            for _ in 0..4000 {
                let mut x = 0u128;
                for j in 0..SLOTS {
                    let r = crate::hash::splitmix64(&mut state);
                    let entry = match r % 4 {
                        0 => 0,                                           // empty
                        _ => (r >> 8) & ((1u64 << shape.w) - 1) | 1 << s, // a non-zero fingerprint
                    };
                    x = shape.with(x, j, entry);
                }
                let swept = crate::hash::splitmix64(&mut state) >> 4;
                let e = swept + crate::hash::splitmix64(&mut state) % shape.stamps();
                let view = shape.view(swept, e);
                let fp = shape.fp_of(shape.get(x, (state % 4) as u32));
                for j in 0..SLOTS {
                    let v = shape.get(x, j);
                    let bit = 1u128 << (j * shape.w + shape.w - 1);
                    let occupied = shape.fp_of(v) != 0;
                    let live = s == 0 || shape.rel(shape.stamp_of(v), swept) >= e - swept;
                    assert_eq!(shape.occupied(x) & bit != 0, occupied);
                    assert_eq!(shape.live(x, &view) & bit != 0, live, "f {f} s {s}");
                    if fp != 0 {
                        assert_eq!(
                            shape.hits(x, fp, &view) & bit != 0,
                            shape.fp_of(v) == fp && live
                        );
                    }
                    assert_eq!(shape.free(x, &view) & bit != 0, !occupied || !live);
                    assert_eq!(shape.dead(x, &view) & bit != 0, occupied && !live);
                    assert_eq!(shape.malformed(x) & bit, 0);
                }
            }
        }
    }

    #[test]
    fn a_stamp_without_a_fingerprint_is_malformed() {
        let shape = Shape::new(8, 4);
        let x = shape.with(0, 2, 5); // stamp 5, fingerprint 0
        assert_eq!(shape.malformed(x), 1u128 << (2 * 12 + 11));
    }
}
