//! The GCS engine against a small, obviously correct reference; no false negatives;
//! the measured false-positive rate; the planner's size prediction; the sampled index's size.

use amq::gcs::{self, hash_to_range, Gcs, Params, SampledIndex};
use amq::math::binomial_sigma;
use proptest::prelude::*;

/// The reference: the NUT-23 draft's Python, transcribed bit by bit.
mod reference {
    /// One bool per bit, most significant first.
    pub fn encode(hashes: &[u64], p: u8, m: u64) -> Vec<u8> {
        let f = hashes.len() as u128 * m as u128;
        let mut values: Vec<u64> = hashes
            .iter()
            .map(|&h| ((h as u128 * f) >> 64) as u64)
            .collect();
        values.sort();
        let mut bits: Vec<bool> = Vec::new();
        let mut last = 0;
        for v in values {
            let delta = v - last;
            last = v;
            let q = delta >> p;
            let r = delta & ((1u64 << p) - 1);
            bits.extend(std::iter::repeat_n(true, q as usize));
            bits.push(false);
            for i in 0..p {
                bits.push((r >> (p - 1 - i)) & 1 == 1);
            }
        }
        // pad to a byte, then pack most significant bit first
        while !bits.len().is_multiple_of(8) {
            bits.push(false);
        }
        bits.chunks(8)
            .map(|byte| byte.iter().fold(0u8, |acc, &b| (acc << 1) | b as u8))
            .collect()
    }

    /// The decoded values.
    pub fn decode(bytes: &[u8], n: usize, p: u8) -> Vec<u64> {
        let bits: Vec<bool> = bytes
            .iter()
            .flat_map(|&b| (0..8).map(move |i| (b >> (7 - i)) & 1 == 1))
            .collect();
        let mut out = Vec::new();
        let mut offset = 0;
        let mut value = 0u64;
        for _ in 0..n {
            let mut q = 0u64;
            while bits[offset] {
                q += 1;
                offset += 1;
            }
            offset += 1;
            let mut r = 0u64;
            for i in 0..p as usize {
                r = (r << 1) | bits[offset + i] as u64;
            }
            offset += p as usize;
            value += (q << p) | r;
            out.push(value);
        }
        out
    }
}

/// A SplitMix64 stream from `seed`.
fn splitmix(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || amq::hash::splitmix64(&mut s)
}

/// A real item hash (XXH3-64, the library's general hash primitive) for the statistical tests.
fn xxh3(item: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(item)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Byte for byte the reference's encoding, and the same decoded values.
    #[test]
    fn engine_matches_reference(
        hashes in prop::collection::vec(any::<u64>(), 0..400),
        p in 0u8..=20,
        m_raw in any::<u64>(),
        skew in 0u32..3,
    ) {
        // M up to 2^(P+6): quotients average at most 64 bits, so the bit-by-bit reference
        // stays quick
        let m = 1 + m_raw % (1u64 << (p + 6));
        // skew = 1: values bunched low (long quotients only when p is small); 2: duplicates
        let hashes: Vec<u64> = match skew {
            1 => hashes.iter().map(|h| h >> 20).collect(),
            2 => hashes.iter().map(|h| h & 0xFFFF_0000_0000_0000).collect(),
            _ => hashes,
        };
        let expected = reference::encode(&hashes, p, m);
        let set = Gcs::from_hashes(hashes.clone(), p, m).unwrap();
        prop_assert_eq!(set.as_bytes(), &expected[..]);
        let values = reference::decode(&expected, hashes.len(), p);
        prop_assert_eq!(set.decode().unwrap(), values.clone());
        set.validate().unwrap();
        // streaming queries and the index agree with the reference's values
        let mut probes: Vec<u64> = values.iter().copied().step_by(3).collect();
        probes.extend((0..20u64).map(|i| hash_to_range(i.wrapping_mul(amq::hash::GOLDEN_GAMMA), set.f())));
        probes.sort();
        let mut hits = vec![false; probes.len()];
        set.match_many_values(&probes, &mut hits).unwrap();
        let index = SampledIndex::build(&set, 2).unwrap();
        for (i, &v) in probes.iter().enumerate() {
            let member = values.binary_search(&v).is_ok();
            prop_assert_eq!(hits[i], member);
            prop_assert_eq!(set.contains_value(v).unwrap(), member);
            prop_assert_eq!(index.contains_value(&set, v).unwrap(), member);
            prop_assert_eq!(set.match_any_values(&[v]).unwrap(), member);
        }
        prop_assert_eq!(set.match_any_values(&probes).unwrap(), hits.iter().any(|&h| h));
        prop_assert_eq!(set.match_all_values(&probes).unwrap(), hits.iter().all(|&h| h));
    }

    /// Wide P (up to 32) and M near 2³²: the 64-bit edges of the writer and reader.
    #[test]
    fn engine_matches_reference_at_wide_parameters(
        hashes in prop::collection::vec(any::<u64>(), 0..100),
        p in 21u8..=32,
        m in (1u64 << 31)..(1u64 << 32),
    ) {
        let expected = reference::encode(&hashes, p, m);
        let set = Gcs::from_hashes(hashes.clone(), p, m).unwrap();
        prop_assert_eq!(set.as_bytes(), &expected[..]);
        prop_assert_eq!(set.decode().unwrap(), reference::decode(&expected, hashes.len(), p));
    }

    /// Every member is found, by every query path.
    #[test]
    fn no_false_negatives(
        items in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 1..300),
        p in 1u8..=24,
    ) {
        let m = gcs::optimal_m(p);
        let set = Gcs::build(&items, &xxh3, p, m).unwrap();
        prop_assert!(set.match_all(&items, &xxh3).unwrap());
        prop_assert!(set.match_many(&items, &xxh3).unwrap().iter().all(|&h| h));
        let index = SampledIndex::build(&set, 3).unwrap();
        for item in &items {
            prop_assert!(set.contains(item, &xxh3).unwrap());
            prop_assert!(set.match_any([item], &xxh3).unwrap());
            prop_assert!(index.contains(&set, item, &xxh3).unwrap());
        }
    }
}

/// Measured ε over 10⁶ non-members within 3 binomial σ of 1/M, at a P where 1/M gives a
/// meaningful count (P = 10, M = 1533: about 650 expected) and at the Cashu/BIP158 defaults.
#[test]
fn measured_fpr_is_one_over_m() {
    for &(p, m) in &[(10u8, 1533u64), (19, 784_931)] {
        let n = 20_000u64;
        let members: Vec<[u8; 9]> = (0..n)
            .map(|i| {
                let mut item = [0u8; 9];
                item[1..].copy_from_slice(&i.to_le_bytes());
                item
            })
            .collect();
        let set = Gcs::build(&members, &xxh3, p, m).unwrap();
        let queries = 1_000_000u64;
        let mut next = splitmix(0x5EED);
        // non-members: a different first byte, so none is a member
        let probes: Vec<[u8; 9]> = (0..queries)
            .map(|_| {
                let mut item = [1u8; 9];
                item[1..].copy_from_slice(&next().to_le_bytes());
                item
            })
            .collect();
        let hits = set
            .match_many(&probes, &xxh3)
            .unwrap()
            .iter()
            .filter(|&&h| h)
            .count() as f64;
        let eps = 1.0 / m as f64;
        let measured = hits / queries as f64;
        let sigma = binomial_sigma(eps, queries);
        println!("p = {p}, m = {m}: {hits} false positives in {queries} (ε = {measured:.3e}, 1/M = {eps:.3e}, σ = {sigma:.2e})");
        assert!(
            (measured - eps).abs() <= 3.0 * sigma,
            "p = {p}, m = {m}: {hits} false positives in {queries}, ε = {measured:e}, expected {eps:e} ± {sigma:e}"
        );
    }
}

/// The planner's bits per element, P + 1/(1 − e^(−2^P/M)), predicts built sizes within 0.5%.
#[test]
fn planned_size_within_half_a_percent() {
    let n = 100_000u64;
    let mut next = splitmix(42);
    let hashes: Vec<u64> = (0..n).map(|_| next()).collect();
    for &(p, m) in &[
        (19u8, 784_931u64),
        (19, 1 << 19),
        (19, 1 << 20),
        (10, 1533),
        (5, 48),
        (24, gcs::optimal_m(24)),
    ] {
        let set = Gcs::from_hashes(hashes.clone(), p, m).unwrap();
        let plan = gcs::plan::for_params(n, p, m).unwrap();
        let measured = set.as_bytes().len() as f64;
        let rel = (measured - plan.bytes as f64).abs() / plan.bytes as f64;
        assert!(
            rel < 0.005,
            "p = {p}, m = {m}: {measured} bytes, planned {}",
            plan.bytes
        );
    }
}

/// At N = 10⁵ and BIP158's parameters the default index costs at most 3% of the filter.
#[test]
fn sampled_index_costs_at_most_three_percent() {
    let mut next = splitmix(7);
    let set = Gcs::from_hashes((0..100_000).map(|_| next()).collect(), 19, 784_931).unwrap();
    let index = SampledIndex::build(&set, SampledIndex::DEFAULT_LOG2_STEP).unwrap();
    let share = index.size_bytes() as f64 / set.as_bytes().len() as f64;
    assert!(
        share <= 0.03,
        "index is {:.2}% of the filter",
        share * 100.0
    );
    assert!(share > 0.02); // 16 bytes per 256 elements of ≈ 21 bits
}

#[test]
fn received_bytes_are_checked_cheaply_then_fully() {
    let params = Params::new(4, 19, 784_931).unwrap();
    // 4 codes need at least 80 bits = 10 bytes
    assert!(Gcs::new(params, &[0u8; 9][..]).is_err());
    let g = Gcs::new(params, &[0u8; 10][..]).unwrap();
    // all-zero bytes are four zero gaps: valid (value 0 four times)
    assert_eq!(g.decode().unwrap(), vec![0; 4]);
    g.validate().unwrap();
}
