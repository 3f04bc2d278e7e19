//! Benchmarks only: see `benches/`. What several benches share lives here.

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

#[cfg(test)]
mod tests {
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
}
