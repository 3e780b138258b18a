#!/usr/bin/env python3
"""What one full recompute of the committed cache adds to a git repository.

Copies RESULTS (default results/: its packs) into a new repository, commits
and packs it (git gc --aggressive), then takes a recompute of every record
in with `lb cache adopt` (which keeps the records whose numbers did not
change and ends in packs), commits and packs again; prints the packed size
before and the growth.

  --scenario provenance  a recompute that reproduces every record bit for bit
                         (same numbers, new provenance: commit, time, CPU
                         seconds, checksum) -- what `lb reproduce --fresh`
                         gives at the same engine versions
  --scenario numbers     a recompute whose numbers all move as an engine
                         version bump moves them: each replication of a point
                         takes the numbers of the point's next replication
                         (r <- r+1 mod n), so every number is a new draw of
                         its own law with its own decimal length; a point's
                         drawn references rotate the same way; the records
                         that are not replications (points, precision
                         decisions, calibrations) and points of one
                         replication have every float scaled by their own
                         factor 1 - O(1e-6). The identities `lb cache check`
                         holds a summary to stay true, so no record is refused
  --scenario scaled      every float of every summary and drawn reference
                         scaled by its own factor 1 - O(1e-6) (the scenario
                         measured before 2026-12-05: it lengthens decimal
                         forms, so it overstates an engine change)

The recompute is written as loose records, sealed with lb's checksum (the
SHA-256 of the record's canonical JSON, RFC 8785). Needs git, zstd, Python
and an lb binary (--lb, default target/release/lb). About a minute.
"""
import argparse
import decimal
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import tempfile


def number(x):
    """ECMAScript Number.prototype.toString of a float (RFC 8785 3.2.2.3)."""
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    t = decimal.Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, t.digits))
    k = len(digits)
    n = t.exponent + k
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        es = f"+{e}" if e >= 0 else str(e)
        body = digits + "e" + es if k == 1 else digits[0] + "." + digits[1:] + "e" + es
    return sign + body


def canonical(v):
    """RFC 8785 canonical JSON, as lb writes it (lb_model::canonical)."""
    if v is None or isinstance(v, bool):
        return json.dumps(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return number(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    keys = sorted(v, key=lambda s: s.encode("utf-16-be"))
    return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canonical(v[k]) for k in keys) + "}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results")
    ap.add_argument("--lb", default="target/release/lb")
    ap.add_argument("--scenario", choices=["provenance", "numbers", "scaled"], default="provenance")
    a = ap.parse_args()
    src, lb = os.path.abspath(a.results), os.path.abspath(a.lb)
    tmp = tempfile.mkdtemp(prefix="lb-growth-")
    repo, fresh = os.path.join(tmp, "repo"), os.path.join(tmp, "fresh")

    def git(*args):
        return subprocess.run(
            ["git", "-C", repo, *args], check=True, capture_output=True, text=True
        ).stdout

    shutil.copytree(src, os.path.join(repo, "results"))
    git("init", "-q")
    for k, v in [("user.email", "growth@lb"), ("user.name", "growth"), ("gc.auto", "0")]:
        git("config", k, v)

    def packed():
        git("gc", "-q", "--aggressive", "--prune=now")
        line = [x for x in git("count-objects", "-v").splitlines() if x.startswith("size-pack")]
        return int(line[0].split()[1]) / 1024

    git("add", "-A")
    git("commit", "-qm", "records")
    before = packed()
    disk = sum(
        os.path.getsize(os.path.join(r, f))
        for r, _, fs in os.walk(os.path.join(repo, "results"))
        for f in fs
    )

    rnd = random.Random(1)

    def moved(v, f):
        if isinstance(v, float):
            return v * f
        if isinstance(v, list):
            return [moved(x, f) for x in v]
        if isinstance(v, dict):
            return {k: moved(x, f) for k, x in v.items()}
        return v

    # Every record, by bucket and key: {(bucket, key): {name: record}}.
    points = {}
    for bucket in sorted(os.listdir(src)):
        pack = os.path.join(src, bucket, "pack.zst")
        if not os.path.isfile(pack):
            continue
        text = subprocess.run(["zstd", "-dcq", pack], check=True, capture_output=True).stdout
        for line in text.decode().splitlines()[1:]:
            key, name, _, body = line.split(" ", 3)
            points.setdefault((bucket, key), {})[name] = json.loads(body)

    def rotated(records):
        """{name: the field that moves} for the names whose numbers rotate:
        each family (replications, each drawn reference) of two or more takes
        its next member's numbers."""
        families = {}
        for name in records:
            m = re.fullmatch(r"(r|drawn-[a-z-]+-r)(\d+)\.json", name)
            if m:
                families.setdefault(m.group(1), []).append((int(m.group(2)), name))
        out = {}
        for members in families.values():
            members.sort()
            for i, (_, name) in enumerate(members):
                if len(members) > 1:
                    out[name] = members[(i + 1) % len(members)][1]
        return out

    records = 0
    for (bucket, key), named in sorted(points.items()):
        source = rotated(named) if a.scenario == "numbers" else {}
        for name, d in sorted(named.items()):
            d = json.loads(json.dumps(d))
            pv = d.get("provenance")
            if pv:
                pv["git_commit"] = hashlib.sha1(b"recompute").hexdigest()
                pv["started_at"] = "2027-01-01T00:00:%02dZ" % rnd.randrange(60)
                if "wall_seconds" in pv:
                    pv["wall_seconds"] *= 1 + 0.1 * rnd.random()
                pv.pop("verified", None)
            if name in source:
                other = named[source[name]]
                for field in ("summary", "value"):
                    if field in d:
                        moved_in = json.loads(json.dumps(other[field]))
                        if isinstance(moved_in, dict) and "replication" in moved_in:
                            moved_in["replication"] = d[field]["replication"]
                        d[field] = moved_in
            elif a.scenario in ("numbers", "scaled"):
                # One factor per record keeps its identities (a mean and its
                # trace, Little's law) true; p-values and shares stay below 1.
                f = 1 - 1e-6 * (1 + rnd.random())
                for field in ("summary", "value"):
                    if field in d:
                        d[field] = moved(d[field], f)
            d.pop("checksum", None)
            d["checksum"] = hashlib.sha256(canonical(d).encode()).hexdigest()
            q = os.path.join(fresh, bucket, key, name)
            os.makedirs(os.path.dirname(q), exist_ok=True)
            with open(q, "w") as out:
                json.dump(d, out, indent=2)
            records += 1

    adopt = subprocess.run(
        [lb, "--results", os.path.join(repo, "results"), "cache", "adopt", fresh],
        capture_output=True, text=True,
    )
    said = adopt.stdout.strip().splitlines()
    git("add", "-A")
    git("commit", "-qm", "recompute", "--allow-empty")
    after = packed()
    print(
        f"{records} records: {disk / 2**20:.1f} MiB on disk, {before:.1f} MiB packed; "
        f"a recompute ({a.scenario}) adds {after - before:.2f} MiB"
    )
    print("lb cache adopt:", said[0] if said else adopt.stderr.strip()[:300])
    if adopt.stderr.strip():
        print("  " + "\n  ".join(adopt.stderr.strip().splitlines()[:5]))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
