#!/usr/bin/env python3
"""Reference values for compare's change and interval (src/stats/ratio.rs), computed
independently with numpy and scipy, written as a test fixture.

For each case (two sample sets A and B, alpha 0.05):
  - the pairwise ratios b_j / a_i are materialised with numpy (conventions: b / 0 = +inf
    for b > 0, 0 / 0 = 1);
  - the estimate is numpy.median of the ratios (finite only);
  - the interval rank k: the number of u in 0 .. mn//2 - 1 with P(U <= u) <= alpha/2 under
    the exact Mann-Whitney null distribution, P taken from scipy.stats.mannwhitneyu
    (method="exact", alternative="less") on two tie-free samples built to have U = u;
    the interval is (r_(k), r_(mn+1-k)) of the sorted ratios, absent when k = 0 or when an
    end is 0 or +inf.
Cases: 2-5 samples per side (and a few larger), continuous values, heavy ties, and a
quantised clock (whole microseconds, zeros included), from numpy's default_rng(2024).

Usage: /work/venv/bin/python scripts/compare-ratio-reference.py > fixtures/compare/ratio_reference.json
"""
import json
import sys

import numpy as np
import scipy
from scipy.stats import mannwhitneyu

ALPHA = 0.05


def p_u_le(u, m, n):
    """P(U <= u) for sizes m, n from scipy's exact distribution: x has m values, y has n;
    x_i = c_i - 0.5 sits above c_i of the y values 0..n-1, so U_x = sum(c_i) = u."""
    c = []
    rest = u
    for _ in range(m):
        take = min(n, rest)
        c.append(take)
        rest -= take
    x = [ci - 0.5 for ci in c]
    y = list(range(n))
    r = mannwhitneyu(x, y, alternative="less", method="exact")
    assert r.statistic == u, (r.statistic, u)
    return float(r.pvalue)


def rank_k(m, n, alpha):
    mn = m * n
    k = 0
    while k < mn // 2 and p_u_le(k, m, n) <= alpha / 2:
        k += 1
    return k


def ratios(a, b):
    out = []
    for x in a:
        for y in b:
            if x == 0 and y == 0:
                out.append(1.0)
            elif x == 0:
                out.append(float("inf"))
            else:
                out.append(y / x)
    return np.sort(np.array(out))


def case(a, b, kind):
    r = ratios(a, b)
    mn = len(r)
    est = float(np.median(r)) if mn % 2 == 1 else 0.5 * (float(r[mn // 2 - 1]) + float(r[mn // 2]))
    k = rank_k(len(a), len(b), ALPHA)
    ci = None
    if k >= 1:
        lo, hi = float(r[k - 1]), float(r[mn - k])
        if lo > 0 and np.isfinite(hi):
            ci = [lo, hi]
    return {
        "kind": kind,
        "a": a,
        "b": b,
        "k": k,
        "ratio": est if np.isfinite(est) else None,
        "ci": ci,
    }


def main():
    rng = np.random.default_rng(2024)
    cases = []
    for _ in range(60):
        m, n = int(rng.integers(2, 6)), int(rng.integers(2, 6))
        kind = ["continuous", "ties", "quantized"][len(cases) % 3]
        if kind == "continuous":
            a = rng.lognormal(np.log(40.0), 0.3, m)
            b = rng.lognormal(np.log(40.0 * rng.uniform(0.5, 2.0)), 0.3, n)
            a, b = [round(float(v), 6) for v in a], [round(float(v), 6) for v in b]
        elif kind == "ties":
            a = [float(v) for v in rng.integers(3, 6, m)]
            b = [float(v) for v in rng.integers(3, 7, n)]
        else:
            # Whole microseconds in ms, zeros included (XNNPACK's clock).
            a = [float(v) / 1000.0 for v in rng.integers(0, 4, m)]
            b = [float(v) / 1000.0 for v in rng.integers(0, 4, n)]
        cases.append(case(a, b, kind))
    for m, n in [(6, 6), (8, 7), (10, 10), (12, 9)]:
        for kind in ["continuous", "quantized"]:
            if kind == "continuous":
                a = [round(float(v), 6) for v in rng.lognormal(np.log(20.0), 0.2, m)]
                b = [round(float(v), 6) for v in rng.lognormal(np.log(26.0), 0.2, n)]
            else:
                a = [float(v) / 1000.0 for v in rng.integers(0, 6, m)]
                b = [float(v) / 1000.0 for v in rng.integers(1, 8, n)]
            cases.append(case(a, b, kind))
    doc = {
        "producer": "scripts/compare-ratio-reference.py",
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "alpha": ALPHA,
        "cases": cases,
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
