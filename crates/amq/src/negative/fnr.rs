//! False-negative rates of the negative cache: the chance that an item was pushed out of its
//! set, for sizing the cache.

/// The probability that an item is no longer held after `n` more items were inserted into a
/// cache of `slots` slots in sets of `ways`: the probability that at least w of them land in
/// its set, `P[Binomial(n, w/slots) ≥ w]`. For w = 1 that is `1 − (1 − 2⁻ˡ)ⁿ ≤ n/2ˡ`, the
/// bound of the seed's Proposition 2; for w > 1 it falls off like a Poisson tail.
///
/// It counts later items as distinct and ignores TTLs and removals.
///
/// # Example
/// ```
/// use amq::negative::false_negative_rate;
/// let direct = false_negative_rate(1 << 16, 1 << 20, 1);
/// assert!((direct - 0.0606).abs() < 1e-3); // 1 − (1 − 2^−20)^(2^16) ≈ n/2^l
/// let eight = false_negative_rate(1 << 16, 1 << 20, 8); // a Poisson(0.5) tail at 8
/// assert!((eight - 6.217e-8).abs() < 1e-10);
/// ```
pub fn false_negative_rate(n: u64, slots: u64, ways: u32) -> f64 {
    if slots == 0 {
        return 1.0;
    }
    let w = u64::from(ways.max(1));
    if n < w {
        return 0.0;
    }
    let p = (w as f64 / slots as f64).min(1.0);
    if p >= 1.0 {
        return 1.0;
    }
    // ln P[Binomial(n, p) = i], walked up from i = 0 by the ratio of successive terms: ln of
    // (n − i)/(i + 1)·p/(1 − p). Exact where the lgamma form, ln n! − ln i! − ln (n − i)!,
    // loses everything at a large n (three terms near n·ln n cancel: 7·10⁻⁴ off at n = 2⁴⁰,
    // 93% at 2⁵⁰).
    let ln_odds = libm::log(p) - libm::log1p(-p);
    // from the term of i to that of i + 1 (i < n)
    let step = |i: u64| libm::log((n - i) as f64 / (i + 1) as f64) + ln_odds;
    let mut ln_term = n as f64 * libm::log1p(-p);
    let mut below = 0.0;
    for i in 0..w {
        below += libm::exp(ln_term);
        ln_term += step(i);
    }
    // ln_term is now that of i = w
    if (n as f64) * p < w as f64 {
        // Upper tail: terms fall off fast above the mean; sum until they no longer count.
        let mut sum = 0.0;
        let mut i = w;
        loop {
            let t = libm::exp(ln_term);
            sum += t;
            if t < sum * 1e-17 || t == 0.0 || i == n {
                break;
            }
            ln_term += step(i);
            i += 1;
        }
        sum.min(1.0)
    } else {
        (1.0 - below).clamp(0.0, 1.0)
    }
}

/// The false-negative rate averaged over n items inserted one after another (item j has
/// n − 1 − j items after it), each queried at the end: the mean of [`false_negative_rate`].
/// For w = 1 this is close to `1 − (1 − e^(−λ))/λ` with λ = n/2ˡ.
///
/// Evaluated exactly for n ≤ 4096, else by the trapezoid rule over 4096 intervals.
///
/// # Example
/// ```
/// use amq::negative::mean_false_negative_rate;
/// let m = mean_false_negative_rate(1 << 16, 1 << 16, 1);
/// let lambda = 1.0f64;
/// assert!((m - (1.0 - (1.0 - (-lambda).exp()) / lambda)).abs() < 1e-3);
/// ```
pub fn mean_false_negative_rate(n: u64, slots: u64, ways: u32) -> f64 {
    if n == 0 {
        return 0.0;
    }
    const STEPS: u64 = 4096;
    if n <= STEPS {
        return (0..n)
            .map(|after| false_negative_rate(after, slots, ways))
            .sum::<f64>()
            / n as f64;
    }
    let last = (n - 1) as f64;
    let f = |x: f64| false_negative_rate(libm::round(x) as u64, slots, ways);
    let h = last / STEPS as f64;
    let mut sum = 0.5 * (f(0.0) + f(last));
    for i in 1..STEPS {
        sum += f(i as f64 * h);
    }
    sum * h / last
}
