//! Sorting 64-bit hash values in place: one most-significant-digit radix pass of up to 11 bits
//! (an "American flag" pass: McIlroy, Bostic and McIlroy, "Engineering Radix Sort", Computing
//! Systems 6(1), 1993), then `sort_unstable` inside each bucket.
//!
//! The pass moves every value into its bucket by swapping, in sweeps whose swaps do not depend
//! on each other (the way M. Skarupke's ska_sort does it, rather than following each displaced
//! value, whose chain of dependent loads is slow), so it runs at memory speed. GCS values are
//! uniform, so at 10⁵ values each of the 2048 buckets holds about 49 and the small sorts are
//! cheap; a bucket of more than 4096 values (10⁷ values, or skewed input) gets another pass on
//! the next bits. Every level is linear and there are at most 6, so no input is quadratic.
//!
//! Memory: no copy of the values and no heap; 16 KiB of counters on the stack per level.

/// The widest digit of one pass.
const DIGIT_BITS: u32 = 11;
/// Buckets larger than this get another radix pass instead of `sort_unstable`.
const BIG_BUCKET: usize = 4096;
/// Below this many values a radix pass does not pay.
const SMALL: usize = 256;

/// Sorts `values`, every one of which is at most `max_value`, in ascending order.
pub(crate) fn sort_u64(values: &mut [u64], max_value: u64) {
    sort_u64_then(values, max_value, |_| {});
}

/// Sorts `values` (each at most `max_value`) and hands the sorted result to `emit` in
/// consecutive chunks, in order, each as soon as it is final (while it is still in cache).
pub(crate) fn sort_u64_then(values: &mut [u64], max_value: u64, mut emit: impl FnMut(&[u64])) {
    let value_bits = 64 - max_value.leading_zeros();
    radix(values, value_bits, &mut emit);
}

/// Sorts values that are equal above their low `bits_left` bits.
fn radix(values: &mut [u64], bits_left: u32, emit: &mut impl FnMut(&[u64])) {
    let n = values.len();
    if n < SMALL || bits_left == 0 || u32::try_from(n).is_err() {
        if bits_left > 0 {
            values.sort_unstable();
        }
        emit(values);
        return;
    }
    let bits = bits_left.min(DIGIT_BITS);
    let shift = bits_left - bits;
    let buckets = 1usize << bits;
    let mask = (buckets - 1) as u64;
    let digit = |v: u64| ((v >> shift) & mask) as usize;

    // end[b]: one past bucket b's last slot; next[b]: its next unplaced slot
    let mut end = [0u32; 1 << DIGIT_BITS];
    for &v in values.iter() {
        end[digit(v)] += 1;
    }
    let mut next = [0u32; 1 << DIGIT_BITS];
    let mut sum = 0u32;
    for (nx, e) in next.iter_mut().zip(end.iter_mut()).take(buckets) {
        *nx = sum;
        sum += *e;
        *e = sum;
    }

    // Each step swaps the value at `it` to the next free slot of its bucket, which places it
    // for good, and leaves what was there at `it` for the next sweep; every step places one
    // value, so all sweeps together take n steps.
    loop {
        let mut unplaced = false;
        for b in 0..buckets {
            let (lo, hi) = (next[b] as usize, end[b] as usize);
            if lo == hi {
                continue;
            }
            unplaced = true;
            for it in lo..hi {
                let v = values[it];
                let d = digit(v);
                let t = next[d] as usize;
                values[it] = values[t];
                values[t] = v;
                next[d] = t as u32 + 1;
            }
        }
        if !unplaced {
            break;
        }
    }

    let mut lo = 0usize;
    for &e in end.iter().take(buckets) {
        let bucket = &mut values[lo..e as usize];
        if bucket.len() > BIG_BUCKET {
            radix(bucket, shift, emit);
        } else {
            if bucket.len() > 1 && shift > 0 {
                bucket.sort_unstable();
            }
            emit(bucket);
        }
        lo = e as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn check(mut v: Vec<u64>, max: u64) {
        let mut expected = v.clone();
        expected.sort_unstable();
        let mut w = v.clone();
        sort_u64(&mut v, max);
        assert_eq!(v, expected);
        // the chunks come in order and cover everything
        let mut emitted = Vec::new();
        sort_u64_then(&mut w, max, |chunk| emitted.extend_from_slice(chunk));
        assert_eq!(emitted, expected);
    }

    #[test]
    fn sorts_uniform_and_skewed_inputs() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let uniform: Vec<u64> = (0..10_000).map(|_| next()).collect();
        check(uniform.clone(), u64::MAX);
        let f = 10_000 * 784_931u64;
        check(
            uniform
                .iter()
                .map(|&h| crate::gcs::hash_to_range(h, f))
                .collect(),
            f - 1,
        );
        // skewed: all values in the low bits of a wide range (one big bucket)
        check((0..5_000u64).rev().collect(), u64::MAX);
        // many duplicates, all equal, all zero, tiny
        check((0..3_000u64).map(|i| i % 3).collect(), 2);
        check(alloc::vec![7; 1000], 7);
        check(alloc::vec![0; 1000], 0);
        check(alloc::vec![], 0);
        check(alloc::vec![3, 1, 2], 3);
    }
}
