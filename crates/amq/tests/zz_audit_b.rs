use amq::math::{plan, Spec, Target};
use amq::rln::RlnSpec;
use amq::ttl::TtlSpec;
use amq::window::WindowParams;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

const U: [u64; 10] = [0, 1, 2, 3, 63, 64, 1 << 32, 1 << 40, u64::MAX / 2 + 1, u64::MAX];
const U32: [u32; 8] = [0, 1, 2, 8, 32, 64, 65, u32::MAX];
const F: [f64; 10] = [0.0, -0.1, 1e-300, 1e-9, 0.01, 0.5, 0.999999, 1.0, f64::NAN, f64::INFINITY];

fn run(spec: Spec) {
    let t = Instant::now();
    let r = catch_unwind(AssertUnwindSafe(|| plan(&spec)));
    let dt = t.elapsed();
    if r.is_err() {
        println!("PANIC plan {:?}", spec);
    }
    if dt.as_millis() > 300 {
        println!("SLOW {} ms plan {:?}", dt.as_millis(), spec);
    }
}

#[test]
fn sweep_plan() {
    std::panic::set_hook(Box::new(|_| {}));
    for &n in &U {
        for &e in &F {
            for tgt in [Target::Fpr(e)] {
                for k in [None, Some(0), Some(1), Some(64), Some(65)] {
                    run(Spec::Bloom { items: n, target: tgt, k });
                    run(Spec::BlockedBloom { items: n, target: tgt, k });
                }
                run(Spec::SplitBlockBloom { items: n, target: tgt });
                run(Spec::Cuckoo { items: n, target: tgt });
            }
            for &exp in &U32 {
                for &r in &F {
                    run(Spec::ScalableBloom { items: n, fpr: e, expansion: exp, tightening: r, nonscaling: false });
                    run(Spec::ExpandableCuckoo { items: n, fpr: e, expansion: exp, tightening: r, max_kicks: 1 });
                }
            }
            for &tick in &U {
                for st in [None, Some(0), Some(1), Some(16), Some(17), Some(u32::MAX)] {
                    for mt in [None, Some(0), Some(1), Some(u64::MAX)] {
                        run(Spec::TtlCuckoo(TtlSpec { items: n, fpr: e, tick, stamp_bits: st, max_ttl: mt }));
                    }
                }
            }
            run(Spec::SlidingWindowCuckoo(RlnSpec { epoch_items: n, fpr: e }));
            for &g in &U32 {
                run(Spec::AgingBloom { window: Some(n), window_seconds: None, items_per_generation: None, generations: g, fpr: e });
                for &s in &U {
                    run(Spec::AgingBloom { window: None, window_seconds: Some(s), items_per_generation: Some(n), generations: g, fpr: e });
                }
            }
        }
        for &m in &U {
            for k in [None, Some(1), Some(64)] {
                run(Spec::Bloom { items: n, target: Target::Bits(m), k });
                run(Spec::Bloom { items: n, target: Target::Memory(m), k });
                run(Spec::BlockedBloom { items: n, target: Target::Bits(m), k });
                run(Spec::BlockedBloom { items: n, target: Target::Memory(m), k });
            }
            run(Spec::SplitBlockBloom { items: n, target: Target::Bits(m) });
            run(Spec::SplitBlockBloom { items: n, target: Target::Memory(m) });
            run(Spec::Cuckoo { items: n, target: Target::Bits(m) });
            run(Spec::Cuckoo { items: n, target: Target::Memory(m) });
        }
    }
    for &l in &U32 { for &b in &U32 { for &w in &U32 { for ttl in [None, Some(0), Some(1), Some(u64::MAX)] {
        run(Spec::NegativeCache { l, b, ways: w, ttl });
    }}}}
    for &w in &U { for &s in &U { for &b in &U { for &k in &[0u32, 1, 64, 65] {
        run(Spec::SlidingWindowBloom { params: WindowParams { window_bits: w, chunk_bits: s, batch: b, k } });
    }}}}
}
