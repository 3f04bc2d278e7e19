use amq::clock::ManualClock;
use amq::math::{Spec, Target};
use amq::rln::RlnSpec;
use amq::ttl::{TtlCuckooFilter, TtlSpec};
use amq::window::{AgingBloom, SlidingWindowBloom, WindowParams};
use amq::{AnyFilter, At, Filter, Insert, NegativeCache};
use std::panic::{catch_unwind, AssertUnwindSafe};

fn specs() -> Vec<Spec> {
    vec![
        Spec::Bloom { items: 10, target: Target::Fpr(0.01), k: None },
        Spec::BlockedBloom { items: 10, target: Target::Fpr(0.01), k: None },
        Spec::SplitBlockBloom { items: 10, target: Target::Fpr(0.01) },
        Spec::Cuckoo { items: 10, target: Target::Fpr(0.01) },
        Spec::SlidingWindowBloom { params: WindowParams { window_bits: 128, chunk_bits: 64, batch: 1, k: 3 } },
        Spec::SlidingWindowBloom { params: WindowParams { window_bits: 128, chunk_bits: 64, batch: 1 << 20, k: 3 } },
        Spec::AgingBloom { window: Some(10), window_seconds: None, items_per_generation: None, generations: 2, fpr: 0.01 },
        Spec::AgingBloom { window: None, window_seconds: Some(u64::MAX), items_per_generation: Some(1), generations: 64, fpr: 0.5 },
        Spec::AgingBloom { window: None, window_seconds: Some(1), items_per_generation: Some(1), generations: 2, fpr: 0.5 },
        Spec::NegativeCache { l: 0, b: 128, ways: 1, ttl: Some(u64::MAX) },
        Spec::NegativeCache { l: 3, b: 1, ways: 8, ttl: Some(1) },
        Spec::TtlCuckoo(TtlSpec { items: 1, fpr: 0.5, tick: u64::MAX, stamp_bits: Some(1), max_ttl: None }),
        Spec::TtlCuckoo(TtlSpec { items: 1, fpr: 0.5, tick: 1, stamp_bits: Some(16), max_ttl: None }),
        Spec::SlidingWindowCuckoo(RlnSpec { epoch_items: 1, fpr: 0.5 }),
        Spec::ScalableBloom { items: 1, fpr: 0.5, expansion: u32::MAX, tightening: 0.999, nonscaling: false },
        Spec::ScalableBloom { items: 1, fpr: 0.5, expansion: 1, tightening: 1e-300, nonscaling: false },
        Spec::ExpandableCuckoo { items: 1, fpr: 0.5, expansion: u32::MAX, tightening: 0.999, max_kicks: 1 },
        Spec::ExpandableCuckoo { items: 1, fpr: 0.5, expansion: 0, tightening: 0.5, max_kicks: u32::MAX },
    ]
}

#[test]
fn ops_extremes() {
    let times = [0u64, 1, u64::MAX / 2, u64::MAX - 1, u64::MAX];
    for spec in specs() {
        eprintln!("SPEC {spec:?}");
        let f = match AnyFilter::new(&spec, 0) { Ok(f) => f, Err(e) => { println!("new err {spec:?}: {e}"); continue } };
        for &now in &times {
            for limit in [0u64, 1, u64::MAX] {
                let mut g = f.clone();
                let r = catch_unwind(AssertUnwindSafe(|| {
                    g.set_now(now);
                    for i in 0..300u32 {
                        let it = i.to_le_bytes();
                        let _ = g.check_within(&it, limit);
                        let _ = g.insert_within(&it, limit);
                        let _ = g.insert(&it);
                        let _ = g.contains(&it);
                        for at in [At::Position(0), At::Position(u64::MAX), At::Position(u64::MAX - 1), At::Epoch(u64::MAX), At::Epoch(0)] {
                            let _ = g.contains_at(&it, at);
                            let _ = g.remove_at(&it, at);
                        }
                        let _ = g.remove(&it);
                        if i % 50 == 0 { let _ = g.close_epoch(); }
                    }
                    let _ = g.info();
                    let b = g.to_bytes();
                    let h = AnyFilter::from_bytes(&b).unwrap();
                    let _ = h.info();
                    let mut h2 = h.clone();
                    let _ = h2.merge(&h);
                }));
                if r.is_err() { println!("PANIC {spec:?} now={now} limit={limit}"); }
            }
        }
    }
}

#[test]
fn direct_extremes() {
    // sliding window insert_at huge positions
    let p = WindowParams { window_bits: 128, chunk_bits: 64, batch: 1, k: 3 };
    let mut w = SlidingWindowBloom::new(p, 0).unwrap();
    for pos in [0u64, 5, u64::MAX - 10, u64::MAX - 3, u64::MAX - 2, u64::MAX - 1, u64::MAX, 3] {
        let r = catch_unwind(AssertUnwindSafe(|| { let x = w.insert_at("a", pos); let _ = w.contains("a", pos); let _ = w.info(); x }));
        println!("insert_at {pos}: {:?}", r.as_ref().map(|x| x.as_ref().map_err(|e| e.to_string())));
    }
    let r = catch_unwind(AssertUnwindSafe(|| { let b = w.to_bytes(); SlidingWindowBloom::from_bytes(&b).map(|_| ()) }));
    println!("roundtrip after huge: {:?}", r);
    // ttl
    let mut t = TtlCuckooFilter::new(4, 8, 4, 1, 0).unwrap();
    for (now, ttl) in [(u64::MAX, 1u64), (u64::MAX - 1, 16), (0, 0), (0, 16), (0, 17), (u64::MAX/2, 16)] {
        let r = catch_unwind(AssertUnwindSafe(|| t.insert("x", now, ttl).map_err(|e| e.to_string())));
        println!("ttl insert now={now} ttl={ttl}: {:?} contains={}", r, t.contains("x", now));
    }
    // aging time
    let mut a = AgingBloom::with_time_window(10, 2, 5, 0.1, 0).unwrap().with_clock(ManualClock::new(u64::MAX));
    let r = catch_unwind(AssertUnwindSafe(|| { a.insert("q").unwrap(); a.clock().set(0); a.insert("z").unwrap(); a.contains("q") }));
    println!("aging: {:?}", r);
    let mut n = NegativeCache::new(2, 8, 4, 0).unwrap().with_clock(ManualClock::new(u64::MAX)).with_ttl(u64::MAX).unwrap();
    let r = catch_unwind(AssertUnwindSafe(|| { n.insert("q"); n.insert_with_ttl("r", u64::MAX).map(|_| n.contains("r")).map_err(|e| e.to_string()) }));
    println!("neg: {:?}", r);
}
