#!/usr/bin/env python3
"""How many bytes the committed records' numbers hold, field by field.

Reads every pack under RESULTS (default results/), takes each number out of
every record, and groups the numbers by their field (the record's name with
its digits dropped, then the JSON path: `rN.json summary.trace[]`). Each
field's numbers are written as raw 8-byte values, in record order, and
compressed with xz at its strongest setting (preset 9, extreme). That is
what the numbers cost with no names, no provenance and no text: a recompute
whose numbers all move cannot add less to the history than the fields it
moves take here, whatever the format.

Prints the largest fields, the total, and the total without the two largest
families (batch-mean traces and per-server means). Needs zstd and Python.
About fifteen seconds.
"""
import argparse
import collections
import glob
import json
import lzma
import os
import re
import struct
import subprocess


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results")
    ap.add_argument("--top", type=int, default=12, help="fields to list (default 12)")
    a = ap.parse_args()

    fields = collections.defaultdict(list)

    def walk(x, path):
        if isinstance(x, bool):
            return
        if isinstance(x, (int, float)):
            fields[path].append(float(x))
        elif isinstance(x, list):
            for y in x:
                walk(y, path + "[]")
        elif isinstance(x, dict):
            for k, y in x.items():
                walk(y, f"{path}.{k}" if path else k)

    records = 0
    for pack in sorted(glob.glob(os.path.join(a.results, "*", "pack.zst"))):
        text = subprocess.run(["zstd", "-dcq", pack], check=True, capture_output=True).stdout
        for line in text.decode().splitlines()[1:]:
            _, name, _, body = line.split(" ", 3)
            kind = re.sub(r"\d+", "N", re.sub(r"-[0-9a-f]{6,}\.json$", "-H.json", name))
            d = json.loads(body)
            for part in ("summary", "value", "outcome", "result", "provenance"):
                if part in d:
                    walk(d[part], f"{kind} {part}")
            records += 1

    rows = []
    for path, xs in fields.items():
        raw = struct.pack(f"<{len(xs)}d", *xs)
        rows.append((len(lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME)), len(xs), path))
    rows.sort(reverse=True)
    total = sum(r[0] for r in rows)
    count = sum(r[1] for r in rows)
    big = re.compile(r" summary\.(trace|mean_queue)\[\]$")
    rest = sum(r[0] for r in rows if not big.search(r[2]))

    mb = 1e6
    print(f"{records} records, {count:,} numbers in {len(rows)} fields")
    print(f"{'field':<52} {'numbers':>10} {'xz bytes':>10} {'bits each':>9}")
    for size, n, path in rows[: a.top]:
        print(f"{path:<52} {n:>10,} {size:>10,} {8 * size / n:>9.1f}")
    print(f"{'all fields':<52} {count:>10,} {total:>10,} {8 * total / count:>9.1f}")
    print(f"all: {total / mb:.2f} MB; without batch-mean traces and per-server means: {rest / mb:.2f} MB")


if __name__ == "__main__":
    main()
