#!/usr/bin/env python3
"""The coverage certificate's calibration, checked on runs that did not choose it.

  python3 scripts/coverage-holdout.py [--lb target/release/lb] [--shift 1000]
                                      [--dir DIR] [--threads T]

The certificate (experiments/coverage/certificate.toml) reads its
macro-replications again at levels above the nominal one, and lb's audit
decides a claim of level 1 − α at the lowest of them at which a true value
claim is refuted in at most α of those macro-replications (lb-runner's
`calibration`). That level is chosen on the runs it is then measured on.
This script draws fresh ones: it copies the certificate's cheap points
(Geo/Geo/1 at loads 0.5 and 0.9, Poisson/Bernoulli, Random with the WR
control, M/M/1, M/M/1/4 loss, the Jackson network) with every seed moved
by --shift, certifies the printed procedures there (Student-t, the
precision rule's pilot of 8, the fitted control variate, Wilson and
Clopper–Pearson; 1,000 macro-replications each) into a results directory
of its own under --dir (never the repository's: a certificate removes the
records of entries it does not list), and prints the pooled rate at which
a true value claim is refuted at each level read, 95% and 99.9% and
those above them.

About 6 CPU-minutes (355 CPU-seconds of replications on 2026-12-03). Needs
only Python and a built `lb`.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import tempfile

ENTRIES = [
    ("Geo/Geo/1", "geo-geo-1.toml", "mean_sum_q", "single_server", ["t"], None, None),
    (
        "Geo/Geo/1",
        "geo-geo-1.toml",
        "mean_sum_q",
        "single_server",
        ["precision"],
        '{ rel_half_width = 0.05, min = 8, step = 4, max = 20, procedure = "pilot" }',
        None,
    ),
    ("Poisson/Bernoulli", "poisson-bernoulli.toml", "mean_sum_q", "single_server", ["t"], None, None),
    (
        "Random, WR control",
        "random-control.toml",
        "mean_sum_q",
        "wr_sum_q",
        ["t", "cv-fitted"],
        None,
        '{ policy = "WR", mean = "wr_sum_q" }',
    ),
    ("M/M/1, scaled run", "mm1-random.toml", "mean_jobs", "mm1", ["t"], None, None),
    ("M/M/1/4 loss", "mm1b-loss.toml", "loss_fraction", "mm1", ["t", "wilson", "cp"], None, None),
    ("Jackson network", "jackson.toml", "mean_total", "jackson", ["t"], None, None),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--lb", default="target/release/lb")
    ap.add_argument("--shift", type=int, default=1000)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    d = a.dir or tempfile.mkdtemp(prefix="lb-holdout-")
    os.makedirs(d, exist_ok=True)
    for name in sorted({e[1] for e in ENTRIES}):
        text = open(os.path.join(root, "experiments/coverage", name)).read()
        text = re.sub(
            r"^seed = (\d+)", lambda m: f"seed = {int(m.group(1)) + a.shift}", text, flags=re.M
        )
        # Geo/Geo/1 at 0.98 costs more than every other point together.
        text = text.replace("load = [0.5, 0.9, 0.98]", "load = [0.5, 0.9]")
        open(os.path.join(d, name), "w").write(text)
    cert = ["[certificate]\nlevel = 0.95\nstrict = 0.999\nmacros = 1000\n"]
    for label, manifest, metric, ref, procs, precision, control in ENTRIES:
        e = (
            f'\n[[entry]]\nlabel = "{label}"\nmanifest = "{manifest}"\nmetric = "{metric}"\n'
            f'reference = "{ref}"\nper = 5\nprocedures = {json.dumps(procs)}\n'
        )
        if precision:
            e += f"precision = {precision}\n"
        if control:
            e += f"control = {control}\n"
        cert.append(e)
    path = os.path.join(d, "certificate.toml")
    open(path, "w").write("".join(cert))
    subprocess.run(
        [
            os.path.join(root, a.lb) if not os.path.isabs(a.lb) else a.lb,
            "coverage",
            "--certificate",
            path,
            "--scratch",
            os.path.join(d, "scratch"),
            "--results",
            os.path.join(d, "results"),
            "--threads",
            str(a.threads),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    rows = []
    for f in glob.glob(os.path.join(d, "results/coverage/*.json")):
        rows += json.load(open(f))["coverages"]
    for level in (0.95, 0.999):
        at = [c for c in rows if abs(c["level"] - level) < 1e-12 and c["macros"] > 0]
        n = sum(c["macros"] for c in at)
        k = sum(c["above"] + c["below"] for c in at)
        out = [f"{100 * level:g}%: {100 * k / n:.3f}%"]
        for i, r in enumerate(at[0]["read_at"]):
            k = sum(c["read_at"][i]["above"] + c["read_at"][i]["below"] for c in at)
            out.append(f"{100 * r['level']:g}%: {100 * k / n:.3f}%")
        print(
            f"a true value claim refuted, of {n} macro-replications "
            f"({len(at)} procedure-and-point pairs; allowed {100 * (1 - level):g}%): "
            + "; ".join(out)
        )
    print(f"records in {d}/results/coverage")


if __name__ == "__main__":
    main()
