//! Planned ε is kept (issue 14, goal 2): for every kind, the false-positive rate measured over
//! 10^7 non-members is within 3σ of the model, σ the binomial spread of 10^7 trials.
//!
//! Filters are filled and queried at the hash level: members and non-members are distinct
//! 128-bit values from two SplitMix64 streams, standing in for the XXH3-128 item hash (whose
//! quality is xxhash-rust's to prove), so the test checks the index derivation and the model,
//! and 10^7 queries per kind take well under a second in the dev profile.
//!
//! Where the plan's figure is a bound (the aging filter, the negative cache, the chains), the
//! measured rate is checked against the kind's expectation for the state the test built, and
//! against the bound.

use amq::hash::splitmix64;
use amq::math::{self, binomial_sigma, plan, Spec, Target};
use amq::window::WindowParams;
use amq::{
    AgingBloom, BlockedBloomFilter, BloomFilter, CuckooFilter, ExpandableCuckooFilter,
    NegativeCache, ScalableBloomFilter, SlidingWindowBloom, SlidingWindowCuckoo,
    SplitBlockBloomFilter, TtlCuckooFilter,
};

/// Non-members queried per kind.
const QUERIES: u64 = 10_000_000;
const SEED: u64 = 0x5eed_0f14;

/// A stream of 128-bit hashes; members and non-members come from streams of different seeds
/// (a collision between them has probability about 2^-100 here).
struct Hashes(u64);

impl Iterator for Hashes {
    type Item = u128;
    fn next(&mut self) -> Option<u128> {
        let lo = splitmix64(&mut self.0);
        let hi = splitmix64(&mut self.0);
        Some(u128::from(hi) << 64 | u128::from(lo))
    }
}

fn members(n: u64) -> impl Iterator<Item = u128> {
    Hashes(1).take(n as usize)
}

fn non_members() -> impl Iterator<Item = u128> {
    Hashes(0xdead_beef_0000_0001).take(QUERIES as usize)
}

/// Counts the non-members `query` answers "maybe present" for and asserts the rate is within
/// 3σ of `model` (σ = √(model·(1 − model)/10^7)); returns the measured rate.
fn check(kind: &str, model: f64, query: impl Fn(u128) -> bool) -> f64 {
    check_within(kind, model, 0.0, query)
}

/// [`check`] allowing `relative` of the model where that is more than 3σ (for an effect the
/// model leaves out, stated where it is used).
fn check_within(kind: &str, model: f64, relative: f64, query: impl Fn(u128) -> bool) -> f64 {
    let hits = non_members().filter(|&h| query(h)).count() as u64;
    let measured = hits as f64 / QUERIES as f64;
    let sigma = binomial_sigma(model, QUERIES);
    let z = (measured - model) / sigma;
    println!("{kind}: measured {measured:.6} model {model:.6} ({z:+.2}σ)");
    assert!(
        (measured - model).abs() <= f64::max(relative * model, 3.0 * sigma),
        "{kind}: measured ε {measured} is {z:+.2}σ from the model {model}"
    );
    measured
}

fn within_bound(kind: &str, measured: f64, bound: f64) {
    let sigma = binomial_sigma(bound, QUERIES);
    assert!(
        measured <= bound + 3.0 * sigma,
        "{kind}: measured ε {measured} is above the bound {bound}"
    );
}

const N: u64 = 1_000_000;

#[test]
fn bloom() {
    for e in [0.01, 0.001] {
        let p = plan(&Spec::Bloom {
            items: N,
            target: Target::Fpr(e),
            k: None,
        })
        .unwrap();
        let mut f = BloomFilter::new(p.m_bits, p.k, SEED).unwrap();
        members(N).for_each(|h| {
            f.insert_hash(h);
        });
        check(&format!("bloom ε = {e}"), p.fpr_exact, |h| {
            f.contains_hash(h)
        });
    }
}

#[test]
fn blocked_bloom() {
    for e in [0.01, 0.001] {
        let p = plan(&Spec::BlockedBloom {
            items: N,
            target: Target::Fpr(e),
            k: None,
        })
        .unwrap();
        let mut f = BlockedBloomFilter::new(p.m_bits, p.k, SEED).unwrap();
        members(N).for_each(|h| {
            f.insert_hash(h);
        });
        check(&format!("blocked-bloom ε = {e}"), p.fpr_exact, |h| {
            f.contains_hash(h)
        });
    }
}

#[test]
fn split_block_bloom() {
    for e in [0.01, 0.001] {
        let p = plan(&Spec::SplitBlockBloom {
            items: N,
            target: Target::Fpr(e),
        })
        .unwrap();
        let mut f = SplitBlockBloomFilter::new(p.m_bits, SEED).unwrap();
        // the kind takes a 64-bit hash: the low half of each stream value
        members(N).for_each(|h| {
            f.insert_hash(h as u64);
        });
        check(&format!("split-block-bloom ε = {e}"), p.fpr_exact, |h| {
            f.contains_hash(h as u64)
        });
    }
}

/// Putze et al.'s per-block term `(1 − (1 − 1/512)^(j·k))^k` under Poisson loads: the model
/// the blocked filter was planned with before issue 14, summed plainly (λ is small here).
fn putze_blocked_fpr(n: u64, blocks: u64, k: u32) -> f64 {
    let lambda = n as f64 / blocks as f64;
    let r = (1.0 - 1.0 / 512.0f64).powi(k as i32);
    let mut weight = (-lambda).exp();
    let mut sum = 0.0;
    for j in 0..2000 {
        sum += weight * (1.0 - r.powi(j)).powi(k as i32);
        weight *= lambda / f64::from(j + 1);
    }
    sum
}

/// The old model's error was a few percent of ε, below the resolution of one 10^7-query run
/// at the best k; at k = 10 for a 1% filter it is 2.5% of ε, 8σ: the measured rate must sit
/// on the exact per-block model and well away from the old one.
#[test]
fn blocked_bloom_model_is_not_optimistic() {
    let p = plan(&Spec::BlockedBloom {
        items: N,
        target: Target::Fpr(0.01),
        k: Some(10),
    })
    .unwrap();
    let mut f = BlockedBloomFilter::new(p.m_bits, p.k, SEED).unwrap();
    members(N).for_each(|h| {
        f.insert_hash(h);
    });
    let measured = check("blocked-bloom k = 10", p.fpr_exact, |h| f.contains_hash(h));
    let old = putze_blocked_fpr(N, f.blocks(), 10);
    let z = (measured - old) / binomial_sigma(old, QUERIES);
    println!("blocked-bloom k = 10: the old model {old:.6} is {z:+.2}σ away");
    assert!(z > 3.0, "measured {measured}, old model {old}: {z:+.2}σ");
}

#[test]
fn cuckoo() {
    for e in [0.01, 0.001] {
        let p = plan(&Spec::Cuckoo {
            items: N,
            target: Target::Fpr(e),
        })
        .unwrap();
        let mut f = CuckooFilter::with_fpr(N, e, SEED).unwrap();
        assert_eq!(f.m(), p.m_bits);
        for h in members(N) {
            f.insert_hash(h).unwrap();
        }
        check(&format!("cuckoo ε = {e}"), p.fpr_exact, |h| {
            f.contains_hash(h)
        });
    }
}

#[test]
fn sliding_window_bloom() {
    // W = 2^23 bits in S = 16 chunks, B = 50,000 items per chunk, k = 7: 0.65% in the steady
    // state. Three windows' worth of items.
    let params = WindowParams {
        window_bits: 1 << 23,
        chunk_bits: 1 << 19,
        batch: 50_000,
        k: 7,
    };
    let p = plan(&Spec::SlidingWindowBloom { params }).unwrap();
    let mut f = SlidingWindowBloom::new(params, SEED).unwrap();
    let total = 3 * params.batch * params.chunks();
    for (position, h) in members(total).enumerate() {
        f.insert_hash_at(h, position as u64).unwrap();
    }
    // a query at position t reads the window of chunks from t's on: the last complete one
    let at = total - params.batch * params.chunks();
    assert!((f.expected_fpr(at) / p.fpr - 1.0).abs() < 1e-9);
    check("sliding-window-bloom", p.fpr, |h| f.contains_hash(h, at));
}

#[test]
fn aging_bloom() {
    // remembers at least 10^5 insertions over 4 generations at ε ≤ 1%; 3.5 windows inserted
    let spec = Spec::AgingBloom {
        window: Some(100_000),
        window_seconds: None,
        items_per_generation: None,
        generations: 4,
        fpr: 0.01,
    };
    let p = plan(&spec).unwrap();
    let mut f = AgingBloom::with_window(100_000, 4, 0.01, SEED).unwrap();
    members(350_000).for_each(|h| {
        f.insert_hash(h);
    });
    // the expectation for the generations as they stand: 1 − Πᵢ(1 − ε(nᵢ))
    let model = 1.0
        - f.generation_counts()
            .iter()
            .fold(1.0, |q, &c| q * (1.0 - math::fpr_exact(c, f.m(), f.k())));
    let measured = check("aging-bloom", model, |h| f.contains_hash(h));
    within_bound("aging-bloom", measured, p.fpr);
}

#[test]
fn negative_cache() {
    // 2^20 slots of 12-bit fingerprints in sets of 4, filled: ε = occupancy·4·2^-12
    let spec = Spec::NegativeCache {
        l: 20,
        b: 12,
        ways: 4,
        ttl: None,
    };
    let p = plan(&spec).unwrap();
    let mut c = NegativeCache::new(20, 12, 4, SEED).unwrap();
    for i in 0u64..4 << 20 {
        c.insert(&i.to_le_bytes());
    }
    let model = c.estimated_fpr();
    let measured = check("negative-cache", model, |h| {
        c.contains(&(h as u64 | 1 << 63).to_le_bytes())
    });
    within_bound("negative-cache", measured, p.fpr);
}

#[test]
fn ttl_cuckoo() {
    let spec = amq::ttl::TtlSpec {
        items: N,
        fpr: 0.01,
        tick: 1,
        stamp_bits: None,
        max_ttl: Some(60),
    };
    let p = plan(&Spec::TtlCuckoo(spec)).unwrap();
    let mut f = TtlCuckooFilter::with_ttl(N, 0.01, 60, 1, SEED).unwrap();
    for h in members(N) {
        f.insert_hash(h, 0, 60).unwrap();
    }
    check("ttl-cuckoo", p.fpr_exact, |h| f.contains_hash(h, 0));
}

#[test]
fn sliding_window_cuckoo() {
    let spec = amq::rln::RlnSpec {
        epoch_items: N,
        fpr: 0.01,
    };
    let p = plan(&Spec::SlidingWindowCuckoo(spec)).unwrap();
    let mut f = SlidingWindowCuckoo::with_fpr(N, 0.01, SEED).unwrap();
    let mut epoch = 0;
    for h in members(N) {
        epoch = f.register_hash(h).unwrap();
    }
    assert_eq!(f.epochs(), 1);
    let model = f.expected_fpr(N);
    let measured = check("sliding-window-cuckoo", model, |h| {
        f.contains_hash(h, epoch)
    });
    within_bound("sliding-window-cuckoo", measured, p.fpr);
}

#[test]
fn scalable_bloom() {
    // n₀ = 10^5 at ε ≤ 1% overall, 3.5·n₀ inserted: the chain has grown to three links
    let p = plan(&Spec::ScalableBloom {
        items: 100_000,
        fpr: 0.01,
        expansion: 2,
        tightening: 0.5,
        nonscaling: false,
    })
    .unwrap();
    let mut f =
        ScalableBloomFilter::new(amq::scalable::ScalableParams::new(100_000, 0.01), SEED).unwrap();
    for h in members(350_000) {
        f.insert_hash(h).unwrap();
    }
    assert!(f.links() > 1);
    let measured = check("scalable-bloom", f.expected_fpr(), |h| f.contains_hash(h));
    within_bound("scalable-bloom", measured, f.fpr_bound());
    assert!(f.fpr_bound() <= 0.01 && p.fpr <= 0.01);
}

/// A chain at ε = 0.2, where the rate depends on how a link fills. An insert adds only an item
/// no link reports, and the inserts it skips are the ones that would set no bit, so a link of
/// n items holds more set bits than n inserts that all count would set. Before each link's
/// rate was modelled so (`math::fpr_exact_new`) and sized by it, this chain measured 0.1543
/// against its model's 0.1450 (+84σ), and a chain that never grows measured 0.2291 at
/// capacity, 15% over the ε it was asked for (+230σ). It now keeps ε itself.
///
/// What the model leaves out, so this test allows 1% of the rate where that is more than 3σ:
/// the links
/// probe the same fractions of their bits (one hash, its index walk scaled to each m), and a
/// later link's items are those the earlier links did not report, so they cluster a little
/// away from where the earlier links' bits are set. Here link 1 measures 0.5% under its own
/// model (−3.5σ) and the chain 0.4% over `1 − Πᵢ(1 − εᵢ)` (+5σ); at ε = 1% (the test above)
/// neither shows.
#[test]
fn scalable_bloom_at_a_large_fpr() {
    for scaling in [true, false] {
        let p = amq::scalable::ScalableParams {
            scaling,
            ..amq::scalable::ScalableParams::new(1_000_000, 0.2)
        };
        let mut f = ScalableBloomFilter::new(p, SEED).unwrap();
        let target = if scaling { 3_500_000 } else { 1_000_000 };
        let mut stream = Hashes(7);
        while f.inserted() < target {
            f.insert_hash(stream.next().unwrap()).unwrap();
        }
        assert!(f.is_full() || scaling);
        for i in 0..f.links() {
            let l = f.link(i).unwrap();
            let model = math::fpr_exact_new(l.inserted(), l.m(), l.k());
            check_within(
                &format!("scalable-bloom ε = 0.2, link {i}"),
                model,
                0.01,
                |h| l.contains_hash(h),
            );
        }
        let kind = if scaling {
            "scalable-bloom ε = 0.2"
        } else {
            "scalable-bloom ε = 0.2, not scaling, at capacity"
        };
        let measured = check_within(kind, f.expected_fpr(), 0.01, |h| f.contains_hash(h));
        within_bound(kind, measured, f.fpr_bound());
    }
}

#[test]
fn expandable_cuckoo() {
    let mut f =
        ExpandableCuckooFilter::new(amq::cuckoo::ExpandableParams::new(100_000, 0.01), SEED)
            .unwrap();
    for h in members(350_000) {
        f.insert_hash(h).unwrap();
    }
    assert!(f.links() > 1);
    let measured = check("expandable-cuckoo", f.estimated_fpr(), |h| {
        f.contains_hash(h)
    });
    within_bound("expandable-cuckoo", measured, f.fpr_bound());
}

/// Small filters at small ε (helper-27's finding): the index scheme must not add a floor.
/// Under the first scheme (`Indexing::Unit`) a step y₀ near 0 or near m·p/q walked over few
/// bits, and n = 100 at ε = 10⁻⁴ measured 2.2× the plan; these shapes check the default
/// scheme over many small filters, σ from the spread of the per-filter rates (which counts
/// the filters' own spread of fill as well as the binomial one).
#[test]
fn small_filters_at_small_fpr() {
    use amq::hash::Indexing;
    for (n, e, filters, queries) in [(100u64, 1e-4, 400u64, 25_000u64), (1000, 1e-6, 40, 250_000)] {
        let p = plan(&Spec::Bloom {
            items: n,
            target: Target::Fpr(e),
            k: None,
        })
        .unwrap();
        let mut member = Hashes(SEED ^ n);
        let mut query = Hashes(!SEED ^ n);
        let rates: Vec<f64> = (0..filters)
            .map(|_| {
                let mut f = BloomFilter::new(p.m_bits, p.k, 0).unwrap();
                assert_eq!(f.indexing(), Indexing::Hashed);
                for _ in 0..n {
                    f.insert_hash(member.next().unwrap());
                }
                let hits = (0..queries)
                    .filter(|_| f.contains_hash(query.next().unwrap()))
                    .count();
                hits as f64 / queries as f64
            })
            .collect();
        let (mean, se) = mean_and_se(&rates, p.fpr_exact, filters * queries);
        let z = (mean - p.fpr_exact) / se;
        println!(
            "n = {n}, ε = {e}: measured {mean:.4e} model {:.4e} ({z:+.2}σ)",
            p.fpr_exact
        );
        assert!(
            z.abs() <= 3.0,
            "n = {n}, ε = {e}: measured {mean} is {z:+.2}σ from {}",
            p.fpr_exact
        );
    }
}

/// The mean and its standard error over per-filter rates, the error at least the binomial
/// one of all the queries.
fn mean_and_se(rates: &[f64], model: f64, queries: u64) -> (f64, f64) {
    let n = rates.len() as f64;
    let mean = rates.iter().sum::<f64>() / n;
    let var = rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let se = (var / n).sqrt().max(binomial_sigma(model, queries));
    (mean, se)
}

/// The sliding-window and aging Bloom filters share the classic filter's index derivation:
/// under the first scheme a small window at k = 8 measured +7.5% (+10σ over 2,000 windows)
/// and an aging filter planned at 10⁻⁶ measured 3·10⁻⁵.
#[test]
fn small_windows_and_generations_at_small_fpr() {
    use amq::hash::Indexing;
    let params = WindowParams {
        window_bits: 4096,
        chunk_bits: 256,
        batch: 16,
        k: 8,
    };
    let (windows, queries) = (2000u64, 20_000u64);
    let mut member = Hashes(SEED);
    let mut query = Hashes(!SEED);
    let total = 3 * params.batch * params.chunks();
    let at = total - params.batch * params.chunks();
    let mut model = 0.0;
    let rates: Vec<f64> = (0..windows)
        .map(|_| {
            let mut f = SlidingWindowBloom::new(params, 0).unwrap();
            assert_eq!(f.indexing(), Indexing::Hashed);
            for position in 0..total {
                f.insert_hash_at(member.next().unwrap(), position).unwrap();
            }
            model = f.expected_fpr(at);
            let hits = (0..queries)
                .filter(|_| f.contains_hash(query.next().unwrap(), at))
                .count();
            hits as f64 / queries as f64
        })
        .collect();
    let (mean, se) = mean_and_se(&rates, model, windows * queries);
    let z = (mean - model) / se;
    println!("sliding window k = 8: measured {mean:.4e} model {model:.4e} ({z:+.2}σ)");
    assert!(
        z.abs() <= 3.0,
        "sliding window: {mean} is {z:+.2}σ from {model}"
    );

    let mut f = AgingBloom::with_window(1000, 4, 1e-6, SEED).unwrap();
    assert_eq!(f.indexing(), Indexing::Hashed);
    members(3500).for_each(|h| {
        f.insert_hash(h);
    });
    let model = f.estimated_fpr();
    let measured = check("aging-bloom at 1e-6", model, |h| f.contains_hash(h));
    within_bound("aging-bloom at 1e-6", measured, f.fpr_bound());
}
