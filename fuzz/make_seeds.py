#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerate the synthetic seeds of the op harnesses (fuzz/corpus/<h>/seed-*): byte 0 is the
allocation-failure mode, byte 1 the action, then random bytes (fixed seed). Parser seeds are
hand-written files and are not touched. The seeds of the family harnesses elementwise, reduce, products,
features and serial came from the former mixed harnesses (fuzz/refile_corpus.py moved them): their names
keep the old action numbers."""
import os, random, sys

HARNESSES = {"core": 8, "layout": 14, "elementwise": 15, "reduce": 7, "products": 9, "features": 3, "serial": 2,
             "tot": 8, "spy": 6}

def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    names = sys.argv[1:] or list(HARNESSES)
    for h in names:
        rnd = random.Random("spt-" + h)
        d = os.path.join(root, h)
        os.makedirs(d, exist_ok=True)
        for action in range(HARNESSES[h]):
            for k, mode in enumerate([0, 3, 7, 0]):
                n = rnd.choice([16, 40, 90, 200])
                body = bytes(rnd.randrange(240) if rnd.random() < 0.9 else rnd.randrange(256) for _ in range(n))
                with open(os.path.join(d, "seed-a%d-%d" % (action, k)), "wb") as f:
                    f.write(bytes([mode, action]) + body)

main()
