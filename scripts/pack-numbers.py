#!/usr/bin/env python3
"""What the packs would take with their numbers stored as binary.

For each pack under RESULTS (default results/): every JSON number of every
record is taken out of the text (left as `#`), and the numbers are written as
raw 8-byte values grouped by the key they follow; both parts are compressed
with zstd at level 19, as packs are. Prints the packs' size now and the two
parts' sizes. Needs zstd and Python. About a minute.
"""
import argparse
import collections
import glob
import os
import re
import struct
import subprocess

NUMBER = re.compile(r"(?<=[:\[,])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?=[,\]\}])")
KEY = re.compile(r'"([^"]+)":\[?$')


def zstd19(data):
    return len(subprocess.run(["zstd", "-19", "-q", "-c"], input=data, capture_output=True, check=True).stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results")
    a = ap.parse_args()
    now = text = numbers = 0
    for pack in sorted(glob.glob(os.path.join(a.results, "*", "pack.zst"))):
        now += os.path.getsize(pack)
        lines = subprocess.run(["zstd", "-dcq", pack], check=True, capture_output=True).stdout
        skeleton, columns = [], collections.defaultdict(list)
        for line in lines.decode().splitlines()[1:]:
            key, name, checksum, body = line.split(" ", 3)

            def out(m):
                k = KEY.findall(body[max(0, m.start() - 40) : m.start()])
                columns[k[-1] if k else "_"].append(float(m.group(0)))
                return "#"

            skeleton.append(f"{key} {name} {checksum} {NUMBER.sub(out, body)}")
        text += zstd19("\n".join(skeleton).encode())
        numbers += zstd19(b"".join(struct.pack(f"<{len(v)}d", *v) for _, v in sorted(columns.items())))
    print(
        f"packs now: {now / 1e6:.2f} MB; numbers as binary: text {text / 1e6:.2f} MB "
        f"+ numbers {numbers / 1e6:.2f} MB = {(text + numbers) / 1e6:.2f} MB"
    )


if __name__ == "__main__":
    main()
