//! Benchmarks only: see `benches/`. What several benches share lives here.

use amq::hash::splitmix64;

/// SplitMix64's output for state `x` (the library's [`splitmix64`]): a bijection on u64, so
/// `mix(i)` over distinct i gives distinct, random-looking keys.
pub fn mix(x: u64) -> u64 {
    let mut state = x;
    splitmix64(&mut state)
}

/// A SplitMix64 stream: a fixed, seeded sequence of `mix(seed)`, `mix(seed + γ)`, ...
#[derive(Debug, Clone)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        splitmix64(&mut self.0)
    }

    /// The next 32 bytes (four words, little-endian): a stand-in for a hash.
    pub fn hash32(&mut self) -> [u8; 32] {
        let mut h = [0u8; 32];
        for chunk in h.chunks_mut(8) {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        h
    }

    /// `count` values.
    pub fn take(&mut self, count: usize) -> Vec<u64> {
        (0..count).map(|_| self.next_u64()).collect()
    }
}

/// Fills `next` with a random cyclic permutation (Sattolo's algorithm): following `next[i]`
/// from any start visits every slot once, in random order, so each read of a pointer chase
/// misses the cache and waits for the previous one. `below(i)` must return a uniform index in
/// `0..i`.
pub fn random_cycle(next: &mut [u64], mut below: impl FnMut(usize) -> usize) {
    for (i, x) in next.iter_mut().enumerate() {
        *x = i as u64;
    }
    for i in (1..next.len()).rev() {
        next.swap(i, below(i));
    }
}

/// The issue-14 workload, shared by the Bloom, split-block and cuckoo benches so that every
/// filter sees the same key bytes: n distinct keys, every member queried once in a shuffled
/// order, and a disjoint set of non-members.
pub mod workload {
    use super::{mix, SplitMix};

    /// Member i as a u64 key: `mix(i)` (a bijection, so distinct for distinct i).
    pub fn u64_key(i: u64) -> u64 {
        mix(i)
    }

    /// Member i as a 16-byte string key: `mix(i)` then `mix(!i)`, little-endian. Distinct for
    /// distinct i (the first 8 bytes already are).
    pub fn string_key(i: u64) -> [u8; 16] {
        let mut s = [0u8; 16];
        s[..8].copy_from_slice(&mix(i).to_le_bytes());
        s[8..].copy_from_slice(&mix(!i).to_le_bytes());
        s
    }

    /// The n members `key(0..n)`.
    pub fn members<K>(n: u64, key: impl Fn(u64) -> K) -> Vec<K> {
        (0..n).map(key).collect()
    }

    /// `count` non-members: `key(n + j)`, which no member equals because `key` is injective.
    pub fn non_members<K>(n: u64, count: u64, key: impl Fn(u64) -> K) -> Vec<K> {
        (n..n + count).map(key).collect()
    }

    /// A copy of `items` in a random order (Fisher-Yates under a fixed SplitMix64 seed), so that
    /// successive member queries touch unrelated cache lines.
    pub fn shuffled<K: Clone>(items: &[K], seed: u64) -> Vec<K> {
        let mut out = items.to_vec();
        let mut rng = SplitMix(seed);
        for i in (1..out.len()).rev() {
            let j = amq::hash::reduce(rng.next_u64(), i as u64 + 1) as usize;
            out.swap(i, j);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    /// The stream is the textbook SplitMix64: its first output from seed 0.
    #[test]
    fn splitmix_matches_the_reference() {
        let mut r = super::SplitMix(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn one_cycle_through_every_slot() {
        let mut next = vec![0u64; 1000];
        let mut state = 7u64;
        super::random_cycle(&mut next, |i| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            ((state >> 33) as usize) % i
        });
        let (mut at, mut steps) = (0usize, 0);
        loop {
            at = next[at] as usize;
            steps += 1;
            if at == 0 {
                break;
            }
        }
        assert_eq!(steps, 1000);
    }

    #[test]
    fn shuffle_is_a_permutation_and_keys_are_distinct() {
        use super::workload::*;
        let keys = members(1000, string_key);
        let mut s = shuffled(&keys, 3);
        assert_ne!(s, keys);
        s.sort();
        let mut k = keys.clone();
        k.sort();
        assert_eq!(s, k);
        k.dedup();
        assert_eq!(k.len(), 1000);
        assert!(non_members(1000, 10, u64_key)
            .iter()
            .all(|x| !members(1000, u64_key).contains(x)));
    }
}
