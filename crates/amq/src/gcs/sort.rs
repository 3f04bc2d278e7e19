//! Sorting 64-bit hash values in place: one most-significant-digit radix pass ("American flag
//! sort": McIlroy, Bostic and McIlroy, "Engineering Radix Sort", Computing Systems 6(1), 1993)
//! that moves every value into its bucket by the top bits of its range, then a small sort of
//! each bucket.
//!
//! GCS values are uniform over `[0, F)`, so with about n/8 buckets each holds about 8 values
//! and the finishing insertion sorts are short. Buckets that are large anyway (a caller's own
//! hash that is not uniform, many duplicates) are finished with `sort_unstable`, so the worst
//! case stays O(n log n).
//!
//! Memory: no copy of the values; two `u32` counters per bucket, at most half a word per value
//! (so a build's peak stays below 2× its 64-bit hashes).

/// Below this many values `sort_unstable` is faster than a radix pass.
const SMALL: usize = 256;
/// Buckets up to this length are finished by insertion sort.
const INSERTION: usize = 24;
/// At most 2²⁴ buckets (128 MiB of counters, for over 2²⁷ values).
const MAX_BUCKET_BITS: u32 = 24;

/// Sorts `values`, every one of which is at most `max_value`, in ascending order.
pub(crate) fn sort_u64(values: &mut [u64], max_value: u64) {
    let n = values.len();
    if n < SMALL || u32::try_from(n).is_err() {
        values.sort_unstable();
        return;
    }
    let value_bits = 64 - max_value.leading_zeros();
    if value_bits == 0 {
        return; // every value is 0
    }
    // ⌈log₂ n⌉ − 3 bucket bits: about 8 values per bucket
    let ceil_log2 = usize::BITS - (n - 1).leading_zeros();
    let bits = (ceil_log2 - 3).clamp(1, MAX_BUCKET_BITS).min(value_bits);
    let shift = value_bits - bits;
    let buckets = 1usize << bits;

    // next[b]: the next free slot of bucket b; end[b]: one past its last slot
    let mut end = alloc::vec![0u32; buckets];
    for &v in values.iter() {
        end[(v >> shift) as usize] += 1;
    }
    let mut sum = 0u32;
    for c in end.iter_mut() {
        sum += *c;
        *c = sum;
    }
    let mut next = alloc::vec![0u32; buckets];
    next[1..].copy_from_slice(&end[..buckets - 1]);

    // move every value into its bucket: follow each displaced value to its own bucket
    for b in 0..buckets {
        while next[b] < end[b] {
            let mut v = values[next[b] as usize];
            loop {
                let d = (v >> shift) as usize;
                if d == b {
                    break;
                }
                core::mem::swap(&mut v, &mut values[next[d] as usize]);
                next[d] += 1;
            }
            values[next[b] as usize] = v;
            next[b] += 1;
        }
    }
    drop(next);

    let mut from = 0usize;
    for &e in end.iter() {
        let bucket = &mut values[from..e as usize];
        if bucket.len() <= INSERTION {
            insertion_sort(bucket);
        } else {
            bucket.sort_unstable();
        }
        from = e as usize;
    }
}

fn insertion_sort(values: &mut [u64]) {
    for i in 1..values.len() {
        let v = values[i];
        let mut j = i;
        while j > 0 && values[j - 1] > v {
            values[j] = values[j - 1];
            j -= 1;
        }
        values[j] = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn check(mut v: Vec<u64>, max: u64) {
        let mut expected = v.clone();
        expected.sort_unstable();
        sort_u64(&mut v, max);
        assert_eq!(v, expected);
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
