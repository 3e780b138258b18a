#!/usr/bin/env python3
"""Interval widths and record cost per experiment, between two commits.

  python3 scripts/widths.py BEFORE [AFTER] [--cost-from DIR]

For every experiment whose paper-figures/<name>/table.csv exists at both
revisions (AFTER defaults to the working tree), matches rows by the columns
that name a point (those before `n`: policy, load, servers, ...) and compares
every interval the table prints: a metric's `_hw` column (width 2·hw) and a
proportion's `_lo`/`_hi` pair (width hi − lo). Prints one markdown row per
experiment: intervals compared, how many are narrower, the same (within
0.1%) or wider after, the median and the largest ratio after ÷ before, and
the replications the tables read at each revision.

The CPU columns sum the records' own single-thread times (their provenance's
wall_seconds) of the replications each table reads: at BEFORE from that
commit's results/, at AFTER from the working tree's results/ or, with
--cost-from, from another results directory (a fresh recompute). Records
computed on different machines are not comparable second for second; a
recompute side by side is.

Needs only git and Python.
"""
import argparse
import csv
import io
import json
import os
import statistics
import subprocess
import sys


def git_show(rev, path):
    r = subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True)
    return r.stdout.decode() if r.returncode == 0 else None


def read_table(rev, name):
    path = f"paper-figures/{name}/table.csv"
    if rev is None:
        if not os.path.exists(path):
            return None
        with open(path) as f:
            text = f.read()
    else:
        text = git_show(rev, path)
        if text is None:
            return None
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows:
        return None
    header = list(rows[0].keys())
    ids = header[: header.index("n")] if "n" in header else header[:1]
    return ids, rows


def widths(row):
    out = {}
    for c, v in row.items():
        if c.endswith("_hw") and v not in ("", None):
            out[c[:-3]] = 2 * abs(float(v))
        elif c.endswith("_lo") and v not in ("", None):
            hi = row.get(c[:-3] + "_hi")
            if hi not in ("", None):
                out[c[:-3]] = float(hi) - float(v)
    return out


class Records:
    """Reads replication records' CPU at a revision or from a directory."""

    def __init__(self, rev=None, root="results"):
        self.rev, self.root = rev, root
        self.proc = None
        if rev is not None:
            self.proc = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )

    def seconds(self, key, rep):
        path = f"{key[:2]}/{key}/r{rep:04d}.json"
        if self.proc is None:
            p = os.path.join(self.root, path)
            if not os.path.exists(p):
                return None
            with open(p) as f:
                text = f.read()
        else:
            self.proc.stdin.write(f"{self.rev}:{self.root}/{path}\n".encode())
            self.proc.stdin.flush()
            head = self.proc.stdout.readline().decode().split()
            if len(head) < 3 or head[1] == "missing":
                return None
            size = int(head[2])
            text = self.proc.stdout.read(size + 1)[:size].decode()
        return json.loads(text)["provenance"]["wall_seconds"]


def cost(rows, records):
    seen, reps, secs = set(), 0, 0.0
    for r in rows:
        key = r.get("key", "")
        if not key or key in seen:
            continue
        seen.add(key)
        for i in range(int(float(r.get("n") or 0))):
            s = records.seconds(key, i)
            if s is not None:
                reps += 1
                secs += s
    return reps, secs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before")
    ap.add_argument("after", nargs="?")
    ap.add_argument("--cost-from", help="results directory to read AFTER's CPU from")
    a = ap.parse_args()
    names = sorted(
        d for d in os.listdir("paper-figures")
        if os.path.isdir(os.path.join("paper-figures", d)) and d != "coverage"
    )
    old_rec = Records(a.before)
    new_rec = (
        Records(None, a.cost_from) if a.cost_from
        else Records(a.after) if a.after else Records(None)
    )
    print(
        "| experiment | intervals compared | narrower | same | wider "
        "| median after ÷ before | largest | replications before → after "
        "| records' CPU-s before → after |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    tot = [0, 0, 0.0, 0.0]
    for name in names:
        old, new = read_table(a.before, name), read_table(a.after, name)
        if new is None:
            continue
        if old is None:
            reps, secs = cost(new[1], new_rec)
            print(f"| {name} | new | | | | | | – → {reps} | – → {secs:.0f} |")
            tot[1] += reps
            tot[3] += secs
            continue
        ids = [c for c in old[0] if c in new[0]]
        before = {tuple(r[c] for c in ids): widths(r) for r in old[1]}
        ratios = []
        for r in new[1]:
            b = before.get(tuple(r[c] for c in ids))
            if b is None:
                continue
            for m, w in widths(r).items():
                if m in b and b[m] > 0:
                    ratios.append(w / b[m])
        narrower = sum(x < 0.999 for x in ratios)
        wider = sum(x > 1.001 for x in ratios)
        same = len(ratios) - narrower - wider
        med = f"{statistics.median(ratios):.3f}" if ratios else "–"
        big = f"{max(ratios):.3f}" if ratios else "–"
        r0, s0 = cost(old[1], old_rec)
        r1, s1 = cost(new[1], new_rec)
        tot = [tot[0] + r0, tot[1] + r1, tot[2] + s0, tot[3] + s1]
        print(
            f"| {name} | {len(ratios)} | {narrower} | {same} | {wider} | {med} "
            f"| {big} | {r0} → {r1} | {s0:.0f} → {s1:.0f} |"
        )
    print(f"| all | | | | | | | {tot[0]} → {tot[1]} | {tot[2]:.0f} → {tot[3]:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
