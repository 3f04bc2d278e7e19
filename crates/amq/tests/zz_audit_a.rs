use amq::math::{plan, Spec};
use amq::window::{SlidingWindowBloom, WindowParams};

#[test]
fn window_steady_state_overflow_plan() {
    let params = WindowParams {
        window_bits: 128,
        chunk_bits: 64,
        batch: u64::MAX,
        k: 1,
    };
    let r = std::panic::catch_unwind(|| plan(&Spec::SlidingWindowBloom { params }));
    println!("plan: {:?}", r.as_ref().map(|x| x.as_ref().map(|p| p.fpr)));
    assert!(r.is_ok(), "plan panicked");
}

#[test]
fn window_steady_state_overflow_info() {
    let params = WindowParams {
        window_bits: 128,
        chunk_bits: 64,
        batch: u64::MAX / 2 + 1,
        k: 1,
    };
    let f = SlidingWindowBloom::new(params, 0).unwrap();
    let bytes = f.to_bytes();
    let g = amq::AnyFilter::from_bytes(&bytes).unwrap();
    let r = std::panic::catch_unwind(|| g.info());
    assert!(r.is_ok(), "info panicked");
}
