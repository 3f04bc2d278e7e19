#!/usr/bin/env python3
"""Reference values of the blocked Bloom filter's false-positive rate (Poisson and binomial
block loads) at 40 digits with mpmath, summing every load within 40*sqrt(lambda) + 80 of the
mean: the table in crates/amq/tests/math_bounds.rs. Run: python3 scripts/blocked_fpr_reference.py
"""
import mpmath as mp

mp.mp.dps = 40


def reference(n, blocks, k, binomial):
    p = mp.mpf(1) / blocks
    lam = n * p
    q = mp.power(1 - mp.mpf(1) / 512, k)
    total = mp.mpf(0)
    lo = max(0, int(lam - 40 * mp.sqrt(lam) - 60))
    hi = min(n, int(lam + 40 * mp.sqrt(lam) + 80))
    for j in range(lo, hi + 1):
        if binomial:
            lp = mp.log(mp.binomial(n, j)) + j * mp.log(p) + (n - j) * mp.log(1 - p)
        else:
            lp = -lam + j * mp.log(lam) - mp.loggamma(j + 1)
        total += mp.exp(lp) * (1 - q**j) ** k
    return total


def show(x):
    return mp.nstr(x, 17, min_fixed=-1, max_fixed=-1)


for lam in [0.001, 0.3, 7.5, 22.0, 100.0, 1000.0, 4000.0, 4096.5, 5000.0, 30000.0]:
    for k in [1, 8, 32]:
        blocks = 2**20
        n = int(lam * blocks)
        print(f"    ({n}, {k}, {show(reference(n, blocks, k, False))}, "
              f"{show(reference(n, blocks, k, True))}),")
