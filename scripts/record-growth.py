#!/usr/bin/env python3
"""What one full recompute of the committed cache adds to a git repository.

Copies the records of RESULTS (default results/, without the coverage
certificate's) into a new repository, commits and packs them
(git gc --aggressive), then rewrites every record as a recompute would and
commits and packs again; prints the packed size before and the growth.

  --scenario provenance  a recompute that reproduces every record bit for bit
                         (same numbers, new provenance: commit, time, CPU
                         seconds, checksum) -- what `lb reproduce --force`
                         into an empty cache gives at the same engine versions
  --scenario numbers     a recompute whose numbers all move (an engine
                         version bump): every float of every summary changed
  --format pretty        records as lb writes them (indented JSON)
  --format lean          indented JSON without the configuration a
                         replication record repeats from its point.json
  --format compact       the same on one line

Needs only git and Python. About a minute per scenario on 13,000 records.
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results")
    ap.add_argument("--scenario", choices=["provenance", "numbers"], default="provenance")
    ap.add_argument("--format", choices=["pretty", "lean", "compact"], default="pretty")
    a = ap.parse_args()
    src = os.path.abspath(a.results)
    files = [
        os.path.join(r, f)
        for r, _, fs in os.walk(src)
        if os.path.relpath(r, src).split(os.sep)[0] != "coverage"
        for f in fs
        if f.endswith(".json")
    ]
    out = tempfile.mkdtemp(prefix="lb-growth-")

    def git(*args):
        return subprocess.run(
            ["git", "-C", out, *args], check=True, capture_output=True, text=True
        ).stdout

    git("init", "-q")
    for k, v in [("user.email", "growth@lb"), ("user.name", "growth"), ("gc.auto", "0")]:
        git("config", k, v)

    def dump(d):
        if a.format != "pretty" and d.get("kind") == "replication":
            d = {k: v for k, v in d.items() if k != "point"}
        if a.format == "compact":
            return json.dumps(d, separators=(",", ":")) + "\n"
        return json.dumps(d, indent=2) + "\n"

    rnd = random.Random(1)

    def moved(v):
        if isinstance(v, float):
            return v * (1 + 1e-3 * rnd.gauss(0, 1))
        if isinstance(v, list):
            return [moved(x) for x in v]
        if isinstance(v, dict):
            return {k: moved(x) for k, x in v.items()}
        return v

    def write(recompute):
        for p in files:
            with open(p) as f:
                d = json.load(f)
            if recompute:
                pv = d.get("provenance")
                if pv:
                    pv["git_commit"] = hashlib.sha1(b"recompute").hexdigest()
                    pv["started_at"] = "2027-01-01T00:00:%02dZ" % rnd.randrange(60)
                    if "wall_seconds" in pv:
                        pv["wall_seconds"] *= 1 + 0.1 * rnd.random()
                    pv.pop("verified", None)
                if a.scenario == "numbers" and "summary" in d:
                    d["summary"] = moved(d["summary"])
                d["checksum"] = hashlib.sha256(json.dumps(d).encode()).hexdigest()
            q = os.path.join(out, os.path.relpath(p, src))
            os.makedirs(os.path.dirname(q), exist_ok=True)
            with open(q, "w") as f:
                f.write(dump(d))

    def packed():
        git("gc", "-q", "--aggressive", "--prune=now")
        line = [x for x in git("count-objects", "-v").splitlines() if x.startswith("size-pack")]
        return int(line[0].split()[1]) / 1024

    write(False)
    git("add", "-A")
    git("commit", "-qm", "records")
    before = packed()
    disk = sum(
        os.path.getsize(os.path.join(r, f))
        for r, _, fs in os.walk(out)
        if ".git" not in r.split(os.sep)
        for f in fs
    )
    write(True)
    git("add", "-A")
    git("commit", "-qm", "recompute")
    after = packed()
    print(
        f"{len(files)} records, format {a.format}: {disk / 2**20:.1f} MiB on disk, "
        f"{before:.1f} MiB packed; a recompute ({a.scenario}) adds {after - before:.1f} MiB"
    )
    shutil.rmtree(out)


if __name__ == "__main__":
    main()
