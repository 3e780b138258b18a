#!/usr/bin/env python3
"""Coverage of the Student-t interval in law, for one point's replications.

  python3 scripts/coverage-in-law.py POINT_DIR [--exact X] [--metric NAME]
                                    [--resamples R] [--seed S]

POINT_DIR is one key's directory of a results (or coverage scratch)
directory: its replication records r*.json (the pilot's, index 10⁶ and up,
are left out). `lb coverage --scratch DIR` leaves the certificate's
replications there: thousands of independent runs of one point.

Prints the replication means' mean (against --exact, with its standard error
and z), their standard deviation, skewness and excess kurtosis; then the
coverage of the 95% Student-t interval over n replications when the
replications are drawn from their own empirical law (R resamples; the
truth is then their mean), for n = 5, 8, 10, 20, 40, and for runs k = 2, 4
and 8 times as long, a run of length k·T taken as the mean of k independent
runs of length T (what a longer run is once T spans many relaxation times;
the same CPU as n·k runs). This separates what the certificate measures at
one point (1,000 macro-replications: a binomial standard error of 0.7%)
from what the law of a replication implies: a Student-t interval of
right-skewed means misses below the truth more often than above, and more
replications of the same length hardly help, while longer runs do.

Needs only Python.
"""
import argparse
import glob
import json
import math
import os
import random
import statistics


def values(point_dir, metric):
    out = []
    for f in sorted(glob.glob(os.path.join(point_dir, "r*.json"))):
        rec = json.load(open(f))
        if rec.get("replication", 0) >= 1_000_000:
            continue
        s = rec["summary"]
        v = s.get(metric)
        if v is None and metric == "mean_sum_q" and "mean_queue" in s:
            v = sum(s["mean_queue"])
        if v is not None:
            out.append(float(v))
    return out


def betacf(a, b, x):
    """The continued fraction of the regularized incomplete beta function
    (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    bt = math.exp(lbt + a * math.log(x) + b * math.log(1.0 - x))
    if x < (a + 1.0) / (a + b + 2.0):
        return bt * betacf(a, b, x) / a
    return 1.0 - bt * betacf(b, a, 1.0 - x) / b


def t_quantile(p, df):
    """The p-quantile (p > 1/2) of Student's t on df degrees of freedom."""

    def upper(t):  # P(T > t), t ≥ 0
        return 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))

    lo, hi = 0.0, 1000.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if upper(mid) > 1.0 - p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def coverage(xs, n, k, resamples, rng, level=0.95):
    truth = statistics.fmean(xs)
    t = t_quantile(1.0 - (1.0 - level) / 2.0, n - 1)
    covered = below = above = 0
    for _ in range(resamples):
        ys = [statistics.fmean(rng.choices(xs, k=k)) for _ in range(n)]
        m = statistics.fmean(ys)
        h = t * statistics.stdev(ys) / math.sqrt(n)
        if m + h < truth:
            below += 1
        elif m - h > truth:
            above += 1
        else:
            covered += 1
    return covered / resamples, below / resamples, above / resamples


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("point_dir")
    ap.add_argument("--exact", type=float)
    ap.add_argument("--metric", default="mean_sum_q")
    ap.add_argument("--resamples", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    xs = values(a.point_dir, a.metric)
    if len(xs) < 100:
        raise SystemExit(f"{a.point_dir}: {len(xs)} replications of {a.metric}; need 100 or more")
    m, sd = statistics.fmean(xs), statistics.stdev(xs)
    se = sd / math.sqrt(len(xs))
    n0 = len(xs)
    g = sum((x - m) ** 3 for x in xs) / n0 / sd**3
    kurt = sum((x - m) ** 4 for x in xs) / n0 / sd**4 - 3.0
    print(f"{n0} replications of {a.metric}: mean {m:.5g} (standard error {se:.3g}), "
          f"sd {sd:.4g}, skewness {g:.3f}, excess kurtosis {kurt:.3f}")
    if a.exact is not None:
        print(f"against the exact {a.exact:.6g}: z = {(m - a.exact) / se:+.2f}")
    rng = random.Random(a.seed)
    print(f"\nStudent-t 95% in law ({a.resamples} resamples; binomial s.e. "
          f"{math.sqrt(0.95 * 0.05 / a.resamples) * 100:.2f}%):\n")
    print("| run length | replications | coverage | missed below | missed above |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for k in (1, 2, 4, 8):
        for n in ((5, 8, 10, 20, 40) if k == 1 else (5, 10)):
            c, b, u = coverage(xs, n, k, a.resamples, rng)
            print(f"| {k}×T | {n} | {c * 100:.2f}% | {b * 100:.2f}% | {u * 100:.2f}% |")


if __name__ == "__main__":
    main()
