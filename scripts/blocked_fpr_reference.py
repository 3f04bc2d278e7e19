#!/usr/bin/env python3
"""Reference values of the blocked Bloom filter's false-positive rate (Poisson and binomial
block loads) with mpmath at 100 digits: the table in crates/amq/tests/math_bounds.rs.

A block of m = 512 bits holding j items of k probes each answers a query positive with
probability g(j) = E[(X/m)^k], X the bits set. By inclusion-exclusion over the query's
distinct bits Q (P(|Q| = q) = S(k, q) m_(q) / m^k) left unset,
    g(j) = sum_i c_i a_i^j,  a_i = (1 - i/m)^k,  c_i = (-1)^i sum_{q >= i} P(|Q| = q) C(q, i),
so the Poisson mixture is sum_i c_i exp(-lambda (1 - a_i)) and the binomial one
sum_i c_i (1 - p + p a_i)^n, both exact; at 100 digits the alternating terms lose nothing.

Run: python3 scripts/blocked_fpr_reference.py   (needs mpmath)
"""
import mpmath as mp

mp.mp.dps = 100
M = 512


def coefficients(k):
    m = mp.mpf(M)
    distinct = [mp.mpf(0)] * (k + 1)
    for q in range(1, k + 1):
        falling = mp.mpf(1)
        for t in range(q):
            falling *= m - t
        distinct[q] = mp.stirling2(k, q) * falling / m**k
    c = [(-1) ** i * sum(distinct[q] * mp.binomial(q, i) for q in range(i, k + 1))
         for i in range(k + 1)]
    a = [(1 - mp.mpf(i) / m) ** k for i in range(k + 1)]
    return c, a


def reference(n, blocks, k, binomial):
    c, a = coefficients(k)
    p = mp.mpf(1) / blocks
    if binomial:
        return sum(ci * (1 - p + p * ai) ** n for ci, ai in zip(c, a))
    lam = n * p
    return sum(ci * mp.exp(-lam * (1 - ai)) for ci, ai in zip(c, a))


def show(x):
    return mp.nstr(x, 17, min_fixed=-1, max_fixed=-1)


if __name__ == "__main__":
    for lam in [0.001, 0.3, 7.5, 22.0, 100.0, 1000.0, 4000.0, 4096.5, 5000.0, 30000.0]:
        for k in [1, 6, 8, 32]:
            blocks = 2**20
            n = int(lam * blocks)
            print(f"    ({n}, {k}, {show(reference(n, blocks, k, False))}, "
                  f"{show(reference(n, blocks, k, True))}),")
