#!/usr/bin/env python3
"""Coverage of batch-means intervals on fewer, longer runs, from the cache.

  python3 scripts/batch-coverage.py [--results results]

The heavy-traffic experiments run the resource-pooled queue of Zhou, Shroff
and Wierman's Lemma 1 as a control variate, at many ε, with many
replications, and its E[ΣQ] is exact (each record of a controlled point
names it: `pooled_exact`). Each replication keeps 64 equal batch means of
ΣQ over its measured window (`trace`). This script splits each such point's
replications into disjoint groups of g runs and forms, per group, the 95%
interval of:

- g runs' batch means, each run's merged to b batches (b = 8 or 16), all
  g·b taken as independent: mean ± t_{g·b−1}·s/√(g·b);
- g runs' batch means merged until their lag-1 autocorrelation passes
  |r| < 2/√k (the within-run test of lb-stats), then pooled as above;
- g replication means (b = 1), the Student-t interval lb reads today.

It prints, per run length, how often each interval covers the exact mean
and its median half-width relative to it. Nothing is simulated: it reads
the records the cache holds. Needs zstd and Python.
"""
import argparse
import glob
import importlib.util
import json
import math
import os
import statistics
import subprocess
from collections import defaultdict


def _law():
    """scripts/coverage-in-law.py, for its Student-t quantile."""
    spec = importlib.util.spec_from_file_location(
        "coverage_in_law", os.path.join(os.path.dirname(__file__), "coverage-in-law.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


t_quantile = _law().t_quantile


def records(results):
    """Every record of the packs under `results`: key -> {name: object}."""
    out = defaultdict(dict)
    for f in glob.glob(os.path.join(results, "*", "pack.zst")):
        text = subprocess.run(
            ["zstd", "-d", "-q", "-c", f], capture_output=True, check=True
        ).stdout.decode()
        for line in text.split("\n")[1:]:
            parts = line.split(" ", 3)
            if len(parts) == 4:
                out[parts[0]][parts[1]] = json.loads(parts[3])
    return out


def lag1(x):
    m = sum(x) / len(x)
    v = sum((a - m) ** 2 for a in x)
    if v == 0:
        return 0.0
    return sum((x[i] - m) * (x[i + 1] - m) for i in range(len(x) - 1)) / v


def halve(b):
    return [(b[i] + b[i + 1]) / 2 for i in range(0, len(b) - 1, 2)]


def to_count(b, k):
    while len(b) > k:
        b = halve(b)
    return b


def merged(b):
    while len(b) >= 16 and abs(lag1(b)) >= 2 / math.sqrt(len(b)):
        b = halve(b)
    return b


def interval(values):
    n = len(values)
    return statistics.fmean(values), t_quantile(0.975, n - 1) * statistics.stdev(values) / math.sqrt(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default="results")
    a = ap.parse_args()
    recs = records(a.results)
    exact = {}
    for v in recs.values():
        for name, o in v.items():
            if name.startswith("precision-"):
                c = (o.get("rule") or {}).get("control")
                if c:
                    exact[c["key"]] = c["exact"]
    methods = {
        "2 runs, 8 batches each": (2, lambda b: to_count(b, 8)),
        "2 runs, 16 batches each": (2, lambda b: to_count(b, 16)),
        "2 runs, batches merged until lag-1 r passes 2/√k": (2, merged),
        "1 run, 8 batches": (1, lambda b: to_count(b, 8)),
        "4 replication means": (4, lambda b: [statistics.fmean(b)]),
        "8 replication means": (8, lambda b: [statistics.fmean(b)]),
    }
    tally = defaultdict(lambda: [0, 0, []])
    for key, mean in exact.items():
        v = recs.get(key, {})
        runs = [
            v[n]["summary"]["trace"]
            for n in sorted(v)
            if n.startswith("r") and "trace" in v[n].get("summary", {})
        ]
        if len(runs) < 8:
            continue
        slots = v["point.json"]["point"]["config"]["run"]["slots"]
        for name, (g, batches) in methods.items():
            for i in range(0, len(runs) - g + 1, g):
                pooled = [x for r in runs[i : i + g] for x in batches(list(r))]
                if len(pooled) < 2:
                    continue
                m, hw = interval(pooled)
                t = tally[(slots, name)]
                t[0] += 1
                t[1] += abs(m - mean) <= hw
                t[2].append(hw / mean)
    print("| run length (slots) | interval | groups | covers | median half-width / mean |")
    print("| ---: | --- | ---: | ---: | ---: |")
    for (slots, name), (n, c, w) in sorted(tally.items()):
        print(f"| {slots:,} | {name} | {n} | {c / n:.3f} | {statistics.median(w):.3f} |")


if __name__ == "__main__":
    main()
