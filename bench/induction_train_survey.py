#!/usr/bin/env python3
"""Training the induction demo over what the Model panel offers. By default each value of the panel
changed alone from the shipped shape (d_model 32, 2 heads, 2 layers, attention only, scaled
dot-product, pre-norm, learned positions); with --random N, N architectures drawn at random (seeded)
from the whole panel. Each is one `train induction` process; prints steps, the share of the repeats
predicted, the induction head (the head past layer 0 that copies best on the repeat) with that score and
its detector score, wall seconds, and whether the run met its target (99% of the repeats, and a head
copying 0.95 on the repeat that scores 0.8 as an induction detector) before its 3,000 steps ran out.

usage: induction_train_survey.py CLI [--random N] [--seed S]
  e.g. /usr/bin/python3 bench/induction_train_survey.py build/app/attnviz-cli"""
import argparse
import os
import random
import re
import subprocess
import tempfile
import time

SHIPPED = {"--d-model": "32", "--heads": "2", "--layers": "2", "--ffn": "0", "--score": "scaled_dot", "--norm": "pre",
           "--positions": "learned"}
PANEL = {"--d-model": ["16", "32", "64", "128", "256"], "--heads": ["1", "2", "4", "8", "16"], "--layers": ["2", "3", "4"],
         "--ffn": ["0", "64", "128", "256"], "--score": ["scaled_dot", "dot", "general", "additive"],
         "--norm": ["pre", "post"], "--positions": ["learned", "sinusoidal"]}


def one_at_a_time():
    for flag, values in PANEL.items():
        for v in values:
            if v != SHIPPED[flag]:
                yield [flag, v]


def drawn(count, seed):
    rng, seen = random.Random(seed), set()
    while len(seen) < count:
        d = rng.choice([16, 32, 64, 128])
        arch = (str(d), str(rng.choice([h for h in (1, 2, 4, 8, 16) if d % h == 0])), rng.choice(PANEL["--layers"]),
                rng.choice(PANEL["--ffn"]), rng.choice(PANEL["--score"]), rng.choice(PANEL["--norm"]),
                rng.choice(PANEL["--positions"]))
        if arch in seen:
            continue
        seen.add(arch)
        yield [x for pair in zip(PANEL.keys(), arch) for x in pair]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cli")
    ap.add_argument("--random", type=int, default=0, metavar="N")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print("load before:", os.getloadavg())
    archs = list(drawn(args.random, args.seed)) if args.random else list(one_at_a_time())
    met = quick = 0
    with tempfile.TemporaryDirectory() as tmp:
        for flags in archs:
            start = time.monotonic()
            out = subprocess.run([args.cli, "train", "induction", "--out", os.path.join(tmp, "m")] + flags,
                                 capture_output=True, text=True).stdout
            seconds = time.monotonic() - start
            m = re.search(r"held-out accuracy ([0-9.]+)% after (\d+) steps?; induction head L(\d+)H(\d+) ([0-9.]+) on the "
                          r"repeat \(detector ([0-9.]+)\)", out)
            if not m:
                raise SystemExit(f"unexpected output for {' '.join(flags)}:\n{out}")
            acc, steps, score, detector = float(m.group(1)), int(m.group(2)), float(m.group(5)), float(m.group(6))
            ok = "target not reached" not in out
            met += ok
            quick += ok and seconds < 2.0
            print(f"{' '.join(flags):<100} {steps:>5} {acc:>7.2f}% L{m.group(3)}H{m.group(4)} {score:.3f} ({detector:.3f})"
                  f" {seconds:>6.2f} s  {'head' if ok else 'NO HEAD'}", flush=True)
    print("load after:", os.getloadavg())
    print(f"{met} of {len(archs)} met the target ({quick} in under 2 s)")


if __name__ == "__main__":
    main()
